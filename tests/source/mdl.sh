#!/usr/bin/env bash
# Source models (MDL + VVD + VTX) through the CLI, on the synthetic models of make_mdl.py (v44, v48,
# v49 with the longer strip headers; fixups, strips, two strip groups, skins, bones):
#   info counts, validate, convert to validator-clean glTF whose triangles (engine units, counter-
#   clockwise) are exactly the ones the generator wrote, materials under the right $cdmaterials
#   folder with their textures, the skeleton and skin; a real map (Ricochet's rc_arena_codetest)
#   whose static props take a generated model from --game-dir (a folder, then a VPK): placed at the
#   sprp origin after the axis conversion, one mesh per model and skin, the others left as placement
#   nodes and reported by validate --assets; hostile files fail with located errors. The API side
#   (every prefix and byte mutant, crashers) runs in test_mdl.c ($BK_MDL_UNIT).
source "$BK_TESTS/lib.sh"
bk_init "$@"
PY=/usr/bin/python3
[[ -x $PY ]] || { echo "SKIP: /usr/bin/python3 missing"; exit 77; }
GEN=$WORK/gen
$PY "$BK_TESTS/source/make_mdl.py" "$GEN" || { fail "make_mdl.py"; bk_done; exit 1; }
M=$GEN/game/models/bspkit_test

# the API: decode, scene, prefixes, mutants, crashers
if [[ -n ${BK_MDL_UNIT:-} ]]; then
    if "$BK_MDL_UNIT" "$GEN" "$BK_TESTS/crashers/mdl" > "$WORK/unit.log" 2>&1; then ok; else fail "test_mdl"; fi
    tail -3 "$WORK/unit.log"
fi

for v in 44 48 49; do
    mdl=$M/box_v$v.mdl
    exp=$GEN/expected/box_v$v.json
    expect_exit 0 "$CLI" validate "$mdl"
    expect_stdout_has "format:  mdl" "$CLI" info "$mdl"
    "$CLI" info --json "$mdl" > "$WORK/info$v.json"
    check "v$v: info counts are the generator's" $PY - "$WORK/info$v.json" "$exp" <<'PY'
import json, sys
i, e = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
c = i["counts"]
want = {"bones": e["bones"], "textures": len(e["textures"]), "skin_families": e["skin_families"],
        "bodyparts": e["bodyparts"], "models": e["models"], "meshes": e["meshes"], "vertices": e["vertices"],
        "triangles": e["triangles"], "fixups": 2, "vvd_lods": 2, "vtx_lods": 2}
bad = {k: (c.get(k), w) for k, w in want.items() if c.get(k) != w}
if i["version"] != e["version"]: bad["version"] = (i["version"], e["version"])
if bad: print("info differs:", bad)
sys.exit(1 if bad else 0)
PY
    expect_exit 0 "$CLI" convert "$mdl" -o "$WORK/box$v.glb"
    check "v$v: the Khronos validator passes the model" gltf_validate "$WORK/box$v.glb"
    "$CLI" convert "$mdl" -o "$WORK/box$v.gltf" --keep-z-up --scale 1 -q
    check "v$v: triangles, winding, materials, textures, skin" $PY - "$WORK/box$v.gltf" "$exp" <<'PY'
import base64, json, math, os, struct, sys
g, e = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
binp = os.path.join(os.path.dirname(sys.argv[1]), g["buffers"][0]["uri"])
buf = open(binp, "rb").read()
def acc(i):
    a = g["accessors"][i]; v = g["bufferViews"][a["bufferView"]]
    n = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT4": 16}[a["type"]]
    f = {5126: "f", 5123: "H", 5125: "I", 5121: "B"}[a["componentType"]]
    o = v.get("byteOffset", 0) + a.get("byteOffset", 0)
    vals = struct.unpack_from("<%d%s" % (a["count"] * n, f), buf, o)
    return [vals[k * n:(k + 1) * n] for k in range(a["count"])]
errs = []
def key(tri):   # a triangle up to rotation of its corners (orientation kept)
    t = [tuple(round(c, 3) for c in p) for p in tri]
    k = min(range(3), key=lambda i: t[i])
    return tuple(t[k:] + t[:k])
got, mats, agree, total = [], [], 0, 0
for m in g["meshes"]:
    for p in m["primitives"]:
        pos, nrm = acc(p["attributes"]["POSITION"]), acc(p["attributes"]["NORMAL"])
        idx = [i[0] for i in acc(p["indices"])]
        mats.append(g["materials"][p["material"]]["name"])
        for t in range(0, len(idx), 3):
            tri = [pos[idx[t + k]] for k in range(3)]
            got.append(key(tri))
            e1 = [tri[1][c] - tri[0][c] for c in range(3)]; e2 = [tri[2][c] - tri[0][c] for c in range(3)]
            x = [e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]]
            agree += sum(x[c] * nrm[idx[t]][c] for c in range(3)) > 0
            total += 1
        if "JOINTS_0" not in p["attributes"] or "WEIGHTS_0" not in p["attributes"]:
            errs.append("no JOINTS_0 / WEIGHTS_0")
want = sorted(key(t) for t in e["default_triangle_positions"])
if sorted(got) != want: errs.append("triangles differ: %d got, %d expected" % (len(got), len(want)))
if agree != total: errs.append("%d of %d triangles wound against their normals" % (total - agree, total))
if mats != e["materials_skin0"]: errs.append("materials %s, expected %s" % (mats, e["materials_skin0"]))
tex = [m["name"] for m in g["materials"] if "baseColorTexture" in m.get("pbrMetallicRoughness", {})]
if len(tex) != len(g["materials"]): errs.append("materials without their texture: %s" % tex)
cap = [m for m in g["materials"] if m["name"].endswith("/cap")]
if not cap or not cap[0].get("doubleSided"): errs.append("the cap's $nocull is not double-sided")
sk = g.get("skins", [])
if len(sk) != 1 or len(sk[0]["joints"]) != e["bones"]: errs.append("skin: %s" % sk)
else:
    names = [g["nodes"][j]["name"] for j in sk[0]["joints"]]
    if names != e["bone_names"]: errs.append("joints %s" % names)
    ibm = acc(sk[0]["inverseBindMatrices"])
    for b, m in enumerate(e["pose_to_bone"]):   # column-major 4x4 of the 3x4 poseToBone
        for r in range(3):
            for c in range(4):
                if abs(ibm[b][c * 4 + r] - m[r][c]) > 1e-4: errs.append("inverse bind %d [%d][%d]" % (b, r, c))
if errs: print("\n".join(errs[:8]))
sys.exit(1 if errs else 0)
PY
done

# without its game folder the materials are named but have no texture, and say so
mkdir -p "$WORK/alone"
cp "$M"/box_v48.* "$WORK/alone/"
"$CLI" convert "$WORK/alone/box_v48.mdl" -o "$WORK/alone.gltf" -q
check "a model away from its game: materials marked missing" $PY -c '
import json, sys
g = json.load(open(sys.argv[1]))
sys.exit(0 if all(m.get("extras", {}).get("missing") == "true" for m in g["materials"]) else 1)' "$WORK/alone.gltf"
# --game-dir gives them back
"$CLI" convert "$WORK/alone/box_v48.mdl" -o "$WORK/alone2.gltf" -q --game-dir "$GEN/game"
check "--game-dir finds the model's materials" $PY -c '
import json, sys
g = json.load(open(sys.argv[1]))
sys.exit(0 if all("baseColorTexture" in m["pbrMetallicRoughness"] for m in g["materials"]) else 1)' "$WORK/alone2.gltf"
# sibling names are compared without case (.MDL beside .DX90.VTX)
mkdir -p "$WORK/case"
cp "$M/box_v48.mdl" "$WORK/case/Box.mdl"; cp "$M/box_v48.vvd" "$WORK/case/BOX.VVD"; cp "$M/box_v48.dx90.vtx" "$WORK/case/box.DX90.vtx"
expect_exit 0 "$CLI" convert "$WORK/case/Box.mdl" -o "$WORK/case.glb"
# the plain .vtx when there is no .dx90.vtx
mv "$WORK/case/box.DX90.vtx" "$WORK/case/Box.vtx"
expect_exit 0 "$CLI" convert "$WORK/case/Box.mdl" -o "$WORK/case2.glb"

# hostile and broken sets: located errors, exit 1
h=$WORK/hostile; mkdir -p "$h"
cp "$M/box_v48.mdl" "$h/novvd.mdl"
expect_exit 0 "$CLI" info "$h/novvd.mdl"
expect_stdout_has "no VVD beside the model" "$CLI" validate "$h/novvd.mdl"
expect_exit 1 "$CLI" convert "$h/novvd.mdl" -o "$h/x.glb"
expect_stderr_has "must lie beside it" "$CLI" convert "$h/novvd.mdl" -o "$h/x.glb"
mk() {   # mk NAME PYTHON-EXPR-ON-(mdl, vvd, vtx) -> a set named NAME
    $PY - "$M/box_v48" "$h/$1" "$2" <<'PY'
import struct, sys
src, dst, expr = sys.argv[1:4]
mdl, vvd, vtx = (bytearray(open(src + e, "rb").read()) for e in (".mdl", ".vvd", ".dx90.vtx"))
exec(expr)
for e, d in ((".mdl", mdl), (".vvd", vvd), (".dx90.vtx", vtx)): open(dst + e, "wb").write(d)
PY
}
mk checksum 'vtx[16] ^= 1'
mk vvdver 'struct.pack_into("<i", vvd, 4, 5)'
mk cutvtx 'del vtx[len(vtx) // 2:]'
mk cutmdl 'del mdl[600:]'
mk badfix 'struct.pack_into("<i", vvd, 64 + 4, 1000)'
mk bone 'struct.pack_into("<i", mdl, struct.unpack_from("<i", mdl, 160)[0] + 216 + 4, 5)'
mk skinref 'struct.pack_into("<h", mdl, struct.unpack_from("<i", mdl, 228)[0], 9)'
mk bodyparts 'struct.pack_into("<i", vtx, 28, 3)'
mk weights 'struct.pack_into("<B", vvd, 64 + 24 + 15, 7)'
for t in checksum:"vtx header" vvdver:"vvd header" cutvtx:"vtx" cutmdl:"header" badfix:"vvd fixups" \
         bone:"bones[1]" skinref:"skins[0]" bodyparts:"vtx header" weights:"vvd vertices"; do
    n=${t%%:*}; where=${t#*:}
    expect_exit 1 "$CLI" validate "$h/$n.mdl"
    expect_stdout_has "$where" "$CLI" validate "$h/$n.mdl"
    expect_exit 1 "$CLI" convert "$h/$n.mdl" -o "$h/$n.glb"
done
expect_stdout_has "checksum" "$CLI" validate "$h/checksum.mdl"
# a file that is not a model and one of a version bspkit does not read
printf 'IDST\x30\x00\x00\x00' > "$h/v48short.mdl"; head -c 400 /dev/zero >> "$h/v48short.mdl"
expect_exit 1 "$CLI" info "$h/v48short.mdl"
printf 'IDST\x35\x00\x00\x00' > "$h/v53.mdl"; head -c 400 /dev/zero >> "$h/v53.mdl"
expect_stderr_has "MDL version 53" "$CLI" info "$h/v53.mdl"

# ---- a real map whose static props take a generated model ---------------------------------------
MAP=$CORPUS/source/ricochet_v20_rc_arena_codetest.bsp
need_file "$MAP"
pg=$WORK/propgame/models/props_ricochet
mkdir -p "$pg"
for e in mdl vvd dx90.vtx; do cp "$M/box_v48.$e" "$pg/platform.$e"; done
cp -r "$GEN/game/materials" "$WORK/propgame/"
"$CLI" props --json "$MAP" > "$WORK/props.json"
"$CLI" convert "$MAP" -o "$WORK/map.glb" --game-dir "$WORK/propgame" -q
check "the map with props passes the Khronos validator" gltf_validate "$WORK/map.glb"
"$CLI" convert "$MAP" -o "$WORK/map.gltf" --game-dir "$WORK/propgame" -q
check "props placed at their sprp origin, one mesh per model and skin" $PY - "$WORK/map.gltf" "$WORK/props.json" <<'PY'
import json, math, sys
g, p = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
nodes = [n for n in g["nodes"] if n.get("extras", {}).get("classname") == "prop_static"]
props = p["static_props"]
errs = []
if len(nodes) != len(props): errs.append("%d prop nodes for %d props" % (len(nodes), len(props)))
s = 0.0254
meshes = {}
for n, sp in zip(nodes, props):
    o = sp["origin"]
    want = [o[0] * s, o[2] * s, -o[1] * s]   # Z-up engine units -> Y-up metres
    t = n.get("translation", [0, 0, 0])
    if max(abs(t[i] - want[i]) for i in range(3)) > 1e-4: errs.append("%s at %s, want %s" % (sp["model"], t, want))
    if n["extras"]["model"] != sp["model"]: errs.append("model extras")
    if sp["model"].endswith("/platform.mdl"):
        if "mesh" not in n: errs.append("a platform prop has no mesh")
        else:
            skin = sp["skin"] if 0 <= sp["skin"] < 2 else 0
            meshes.setdefault(skin, set()).add(n["mesh"])
            # yaw about the up axis: glTF rotation about +Y by the yaw
            yaw = math.radians(sp["angles"][1])
            q = n.get("rotation", [0, 0, 0, 1])
            if abs(abs(q[1]) - abs(math.sin(yaw / 2))) > 1e-4 or abs(q[0]) > 1e-4: errs.append("rotation %s" % q)
    elif "mesh" in n:
        errs.append("%s has a mesh but no model files were given" % sp["model"])
if sorted(meshes) != [0, 1] or any(len(v) != 1 for v in meshes.values()) or meshes[0] == meshes[1]:
    errs.append("meshes per skin: %s" % meshes)
else:
    # skin 1 takes the second family: box_skin_b instead of box_skin_a
    m1 = g["meshes"][next(iter(meshes[1]))]
    names = [g["materials"][pr["material"]]["name"] for pr in m1["primitives"]]
    if names[0] != "models/bspkit_test/box_skin_b": errs.append("skin 1 materials %s" % names)
    for pr in m1["primitives"]:
        if "JOINTS_0" in pr["attributes"]: errs.append("a static prop mesh is skinned")
if errs: print("\n".join(errs[:10]))
sys.exit(1 if errs else 0)
PY
# the models not given are reported, the one given is not
"$CLI" validate --assets "$MAP" --game-dir "$WORK/propgame" > "$WORK/assets.txt"
check "validate --assets names the missing prop models" grep -q "missing: model models/props_ricochet/arrow.mdl" "$WORK/assets.txt"
check "validate --assets does not name the model it found" bash -c "! grep -q 'platform.mdl' '$WORK/assets.txt'"
# a model with its VVD missing is reported too
mv "$pg/platform.vvd" "$pg/platform.vvd.off"
"$CLI" validate --assets "$MAP" --game-dir "$WORK/propgame" > "$WORK/assets2.txt"
check "validate --assets names a model's missing VVD" grep -q "models/props_ricochet/platform.vvd not found" "$WORK/assets2.txt"
"$CLI" convert "$MAP" -o "$WORK/map_novvd.gltf" --game-dir "$WORK/propgame" -q
check "a prop whose model is incomplete stays a placement node" $PY -c '
import json, sys
g = json.load(open(sys.argv[1]))
sys.exit(0 if not any("mesh" in n for n in g["nodes"] if n.get("extras", {}).get("classname") == "prop_static") else 1)' "$WORK/map_novvd.gltf"
mv "$pg/platform.vvd.off" "$pg/platform.vvd"
# the same model from a VPK
$PY "$BK_TESTS/source/vpk_write.py" "$WORK/propgame" "$WORK/vpk/props" >/dev/null
"$CLI" convert "$MAP" -o "$WORK/map_vpk.gltf" --game-dir "$WORK/vpk/props_dir.vpk" -q
check "prop models and their textures come from a VPK" $PY -c '
import json, sys
g = json.load(open(sys.argv[1]))
n = [x for x in g["nodes"] if x.get("extras", {}).get("model", "").endswith("platform.mdl")]
t = [m for m in g["materials"] if m["name"].startswith("models/bspkit_test/") and "baseColorTexture" in m["pbrMetallicRoughness"]]
sys.exit(0 if n and all("mesh" in x for x in n) and len(t) >= 2 else 1)' "$WORK/map_vpk.gltf"
# --no-props: no prop nodes at all
"$CLI" convert "$MAP" -o "$WORK/map_noprops.gltf" --game-dir "$WORK/propgame" --no-props -q
check "--no-props leaves the props out" $PY -c '
import json, sys
g = json.load(open(sys.argv[1]))
sys.exit(0 if not any(n.get("extras", {}).get("classname") == "prop_static" for n in g["nodes"]) else 1)' "$WORK/map_noprops.gltf"
bk_done
