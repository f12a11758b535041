#!/usr/bin/env bash
# Real Source models (source/mdl_real.md says where they come from), when they are in the fetched
# corpus (FETCHED/mdl, or $BSPKIT_MDL_CORPUS); skipped otherwise. Every MODEL.mdl with its VVD and
# VTX beside it:
#   - bspkit's counts (vertices, triangles, meshes, models, bones, textures, skin families) equal
#     those of the independent reader tests/source/mdl_ref.py (the MDL tables, the VVD's LOD-0
#     count after fixups, the VTX strips' indices);
#   - the converted glTF passes the Khronos validator (all models, one run);
#   - per model (engine units): its default body has the reader's triangles, its materials end in
#     the names of the MDL's texture table (skin 0) mesh by mesh, its UVs are finite, and a static
#     prop's vertices lie inside its hull;
#   - Ricochet's rc_arena_codetest with the mod's own models as --game-dir: every prop whose model
#     is there has a mesh, validate --assets reports no model missing, and it renders.
source "$BK_TESTS/lib.sh"
bk_init "$@"
PY=/usr/bin/python3
DIR=${BSPKIT_MDL_CORPUS:-$FETCHED/mdl}
[[ -d $DIR ]] || { echo "SKIP: no real models in $DIR (see tests/source/mdl_real.md)"; exit 77; }
[[ -x $PY ]] || { echo "SKIP: /usr/bin/python3 missing"; exit 77; }
mapfile -t models < <(find "$DIR" -iname '*.mdl' | sort)
[[ ${#models[@]} -gt 0 ]] || { echo "SKIP: no .mdl under $DIR"; exit 77; }
n=0; outs=()
for f in "${models[@]}"; do
    id=$(printf '%03d' $n); n=$((n + 1))
    $PY "$BK_TESTS/source/mdl_ref.py" "$f" > "$WORK/$id.ref.json"
    if grep -q '"error"' "$WORK/$id.ref.json"; then echo "note: reference reader: $(cat "$WORK/$id.ref.json")"; continue; fi
    if ! "$CLI" info --json "$f" > "$WORK/$id.info.json" 2>"$WORK/$id.err"; then fail "$f: info"; continue; fi
    check "$f: counts equal the reference reader's" $PY - "$WORK/$id.info.json" "$WORK/$id.ref.json" <<'PY'
import json, sys
i, r = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
c = i["counts"]
want = {"vertices": r["vertices"], "triangles": r["triangles"], "meshes": r["meshes"], "models": r["models"],
        "bones": r["bones"], "textures": len(r["textures"]), "bodyparts": r["bodyparts"],
        "skin_families": r["skin_families"], "fixups": r["fixups"]}
bad = {k: (c.get(k), w) for k, w in want.items() if c.get(k) != w}
if r["vvd_lod0"] != r["vertices"]: bad["vvd_lod0"] = r["vvd_lod0"]
if bad: print(sys.argv[1], bad)
sys.exit(1 if bad else 0)
PY
    if ! "$CLI" convert "$f" -o "$WORK/$id.gltf" -q 2>"$WORK/$id.err"; then fail "$f: convert"; cat "$WORK/$id.err" >&2; continue; fi
    outs+=("$WORK/$id.gltf")
    check "$f: triangles, materials, UVs, bounds" $PY - "$WORK/$id.gltf" "$WORK/$id.ref.json" "$f" <<'PY'
import json, math, os, struct, sys
g, r = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
buf = open(os.path.join(os.path.dirname(sys.argv[1]), g["buffers"][0]["uri"]), "rb").read() if g.get("buffers") else b""
def acc(i):
    a = g["accessors"][i]; v = g["bufferViews"][a["bufferView"]]
    n = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4}[a["type"]]
    f = {5126: "f", 5123: "H", 5125: "I"}[a["componentType"]]
    vals = struct.unpack_from("<%d%s" % (a["count"] * n, f), buf, v.get("byteOffset", 0) + a.get("byteOffset", 0))
    return [vals[k * n:(k + 1) * n] for k in range(a["count"])]
def engine(p, s=0.0254):   # glTF (Y up, metres) -> engine (Z up, units): (x, -z, y) / s
    return (p[0] / s, -p[2] / s, p[1] / s)
errs = []
prims = [p for m in g.get("meshes", []) for p in m["primitives"]]
want_mats = [t for t, k in zip(r["mesh_materials"], r["mesh_triangles"]) if k]
got_tris = sum(g["accessors"][p["indices"]]["count"] // 3 for p in prims)
# the exporter drops degenerate triangles (zero area): allow those, nothing else
if got_tris > r["default_triangles"] or got_tris < r["default_triangles"] * 0.97:
    errs.append("triangles %d, the reader's default body has %d" % (got_tris, r["default_triangles"]))
mats = [g["materials"][p["material"]]["name"].lower() for p in prims]
for m, t in zip(mats, want_mats):
    tn = (t or "").replace("\\", "/").lower()
    if tn.endswith(".vmt"): tn = tn[:-4]
    if not m.endswith(tn.lstrip("/")): errs.append("material %s for texture %s" % (m, t))
if len(mats) != len(want_mats): errs.append("%d primitives for %d meshes with triangles" % (len(mats), len(want_mats)))
lo, hi = [math.inf] * 3, [-math.inf] * 3
for p in prims:
    if not all(math.isfinite(x) for uv in acc(p["attributes"]["TEXCOORD_0"]) for x in uv): errs.append("UVs not finite")
    a = g["accessors"][p["attributes"]["POSITION"]]
    e0, e1 = engine(a["min"]), engine(a["max"])
    lo = [min(lo[c], e0[c], e1[c]) for c in range(3)]; hi = [max(hi[c], e0[c], e1[c]) for c in range(3)]
if not r["uv_finite"]: errs.append("the reader found non-finite UVs")
# counter-clockwise: (nearly) every triangle agrees with its first vertex's stored normal (over the
# 178 models of mdl_real.md: 99.9% of 166k triangles, at least 98.7% in every model)
agree = total = 0
for p in prims:
    pos, nrm = acc(p["attributes"]["POSITION"]), acc(p["attributes"]["NORMAL"])
    idx = [i[0] for i in acc(p["indices"])]
    for t in range(0, len(idx), 3):
        a, b, c = (pos[idx[t + k]] for k in range(3))
        e1 = [b[i] - a[i] for i in range(3)]; e2 = [c[i] - a[i] for i in range(3)]
        x = [e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]]
        n = nrm[idx[t]]
        agree += x[0] * n[0] + x[1] * n[1] + x[2] * n[2] > 0
        total += 1
if total and agree < 0.95 * total: errs.append("only %d of %d triangles wound with their normals" % (agree, total))
flags = struct.unpack_from("<i", open(sys.argv[3], "rb").read(), 152)[0]
if prims and flags & 0x10:   # a static prop is drawn as compiled: inside its hull (with a margin)
    h = r["hull"]
    pad = [0.1 * (h[1][c] - h[0][c]) + 1 for c in range(3)]
    if any(lo[c] < h[0][c] - pad[c] or hi[c] > h[1][c] + pad[c] for c in range(3)):
        errs.append("bounds %s..%s outside the hull %s" % (lo, hi, h))
if errs: print(sys.argv[3], "\n  ".join(errs[:6]))
sys.exit(1 if errs else 0)
PY
done
echo "${#outs[@]} real models converted"
check "real models convert" test "${#outs[@]}" -gt 0
check "the Khronos validator passes every converted model" gltf_validate "${outs[@]}"
# textures: the Ricochet models find theirs in the mod folder the model lies in
ric=$DIR/ricochet
if [[ -d $ric/models/props_ricochet ]]; then
    "$CLI" convert "$ric/models/props_ricochet/deflector.mdl" -o "$WORK/deflector.gltf" -q
    check "a real model takes its textures from its game folder" $PY -c '
import json, sys
g = json.load(open(sys.argv[1]))
# deflector.vmt names models/deflector.vtf; deflector2.vmt is a Refract material (no $basetexture)
t = {m["name"].lower(): "baseColorTexture" in m["pbrMetallicRoughness"] for m in g["materials"]}
sys.exit(0 if t.get("models/deflector") and "models/deflector2" in t else 1)' "$WORK/deflector.gltf"
    MAP=$CORPUS/source/ricochet_v20_rc_arena_codetest.bsp
    need_file "$MAP"
    "$CLI" convert "$MAP" -o "$WORK/arena.glb" --game-dir "$ric" -q
    "$CLI" convert "$MAP" -o "$WORK/arena.gltf" --game-dir "$ric" -q
    check "the map with its real props passes the validator" gltf_validate "$WORK/arena.glb"
    check "every prop whose model is in the mod has a mesh" $PY - "$WORK/arena.gltf" "$ric" <<'PY'
import json, os, sys
g = json.load(open(sys.argv[1]))
props = [n for n in g["nodes"] if n.get("extras", {}).get("classname") == "prop_static"]
bad = [n["extras"]["model"] for n in props if os.path.exists(os.path.join(sys.argv[2], n["extras"]["model"])) and "mesh" not in n]
print("%d props, %d with a mesh" % (len(props), sum("mesh" in n for n in props)))
sys.exit(0 if props and not bad else 1)
PY
    "$CLI" validate --assets "$MAP" --game-dir "$ric" > "$WORK/assets.txt"
    check "validate --assets finds every prop model of the map in the mod" bash -c "! grep -q 'missing: model' '$WORK/assets.txt'"
    if command -v node >/dev/null && [[ -x ${CHROMIUM:-/usr/bin/chromium} ]]; then
        check "the map with its props renders from the player start" gltf_render "$WORK/render" --view start "$WORK/arena.glb"
    fi
fi
bk_done
