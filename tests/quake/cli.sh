#!/usr/bin/env bash
# Quake-family CLI behaviour: golden `info` / `entities` output, hostile files through every
# command (exit 1 with a located message, never a crash), textures of a map, option effects.
source "$BK_TESTS/lib.sh"
bk_init "$@"
ROOT="$BK_TESTS/.."
GOLD="$BK_TESTS/quake/golden"
need_dir "$CORPUS/goldsrc"
SAMPLE="$ROOT/samples/ericw_q1_detail_fence2.bsp"
GS="$CORPUS/goldsrc/dod_snowtest_test_small.bsp"

# ---- golden output (the file line is normalised: paths differ between machines) -----------
golden() { # NAME CMD...
    local name=$1; shift
    "$@" 2>&1 | sed -E '1s|^file: .*|file:    FILE|' >"$WORK/$name"
    if diff -u "$GOLD/$name" "$WORK/$name" >"$WORK/$name.diff"; then ok; else fail "golden $name differs"; head -20 "$WORK/$name.diff" >&2; fi
}
if [[ ${UPDATE_GOLDEN:-0} == 1 ]]; then
    for pair in "fence2.info.txt:info $SAMPLE" "fence2.entities.txt:entities $SAMPLE" \
                "dod_small.info.txt:info $GS" "dod_small.entities.txt:entities $GS" \
                "dod_small.entities.json:entities --json $GS"; do
        "$CLI" ${pair#*:} 2>&1 | sed -E '1s|^file: .*|file:    FILE|' >"$GOLD/${pair%%:*}"
    done
fi
golden fence2.info.txt "$CLI" info "$SAMPLE"
golden fence2.entities.txt "$CLI" entities "$SAMPLE"
golden dod_small.info.txt "$CLI" info "$GS"
golden dod_small.entities.txt "$CLI" entities "$GS"
golden dod_small.entities.json "$CLI" entities --json "$GS"
# duplicated worldspawn keys are kept in the text output and in the JSON
check "duplicate classname kept" test "$(grep -c '"classname" "worldspawn"' "$WORK/dod_small.entities.txt")" = 2
check "duplicate classname kept in JSON" test "$(grep -c '\["classname", "worldspawn"\]' "$WORK/dod_small.entities.json")" = 2

# ---- hostile variants of a real map, generated here --------------------------------------
python3 - "$CORPUS/quake1/vektar_bg.bsp" "$WORK" <<'PY'
import struct, sys
src, out = sys.argv[1], sys.argv[2]
d = bytearray(open(src, "rb").read())
def lump(i): return struct.unpack_from("<ii", d, 4 + 8 * i)
def save(name, b): open("%s/hostile_%s.bsp" % (out, name), "wb").write(b)
save("truncated", d[:len(d) // 2])
save("header_only", d[:124])
save("tiny", d[:3])
b = bytearray(d); struct.pack_into("<i", b, 4 + 8 * 7 + 4, 0x7ffffff0); save("faces_len", b)
b = bytearray(d); struct.pack_into("<i", b, 4 + 8 * 3, -8); save("vertices_ofs", b)
b = bytearray(d); struct.pack_into("<i", b, 4 + 8 * 12 + 4, lump(12)[1] - 1); save("edges_size", b)
b = bytearray(d); struct.pack_into("<i", b, lump(2)[0], 0x40000000); save("texcount", b)
b = bytearray(d); struct.pack_into("<H", b, lump(7)[0], 0xffff); save("face_plane", b)
b = bytearray(d); struct.pack_into("<i", b, lump(13)[0], 0x7fffffff); save("surfedge", b)
b = bytearray(d); struct.pack_into("<h", b, lump(5)[0] + 4, 0x7fff); save("node_child", b)
b = bytearray(d); struct.pack_into("<i", b, lump(14)[0] + 56, -5); save("model_face", b)
PY
for f in "$WORK"/hostile_*.bsp; do
    n=$(basename "$f" .bsp)
    expect_exit 1 "$CLI" validate "$f"
    check "$n: validate names a location" grep -qE '(header|entities|planes|textures|vertices|visibility|nodes|texinfo|faces|lighting|clipnodes|leafs|marksurfaces|edges|surfedges|models)(\[[0-9]+\])? @[0-9]+' "$WORK/.out"
    expect_exit 1 "$CLI" info "$f"
    expect_exit 1 "$CLI" convert "$f" -o "$WORK/$n.glb"
    expect_exit 1 "$CLI" textures "$f" -o "$WORK/$n.tex"
    check "$n: no output written" test ! -e "$WORK/$n.glb"
done
# validate --json carries lump, index and offset
"$CLI" validate --json "$WORK/hostile_face_plane.bsp" >"$WORK/v.json"
check "validate --json locates the bad face" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))[0]["diagnostics"]
sys.exit(0 if any(x.get("lump") == "faces" and x.get("index") == 0 and "offset" in x for x in d) else 1)' "$WORK/v.json"
# validate keeps going: two independent problems, two errors
python3 - "$CORPUS/quake1/vektar_bg.bsp" "$WORK/hostile_two.bsp" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
f = struct.unpack_from("<i", d, 4 + 8 * 7)[0]; e = struct.unpack_from("<i", d, 4 + 8 * 12)[0]
struct.pack_into("<H", d, f, 0xffff); struct.pack_into("<H", d, e + 4, 0xffff)
open(sys.argv[2], "wb").write(d)
PY
"$CLI" validate "$WORK/hostile_two.bsp" >"$WORK/two.txt"
check "validate reports both problems" bash -c "grep -q 'faces\[0\]' '$WORK/two.txt' && grep -q 'edges\[1\]' '$WORK/two.txt'"

# ---- textures of a map ---------------------------------------------------------------------
expect_exit 0 "$CLI" textures "$CORPUS/goldsrc/cs16_awp_india.bsp" -o "$WORK/india_tex"
check "18 embedded GoldSrc textures" test "$(ls "$WORK/india_tex"/*.png | wc -l)" = 18
expect_exit 0 "$CLI" textures "$SAMPLE" -o "$WORK/fence_tex"
check "Quake textures use the Quake palette" test "$(ls "$WORK/fence_tex"/*.png | wc -l)" = 3
expect_exit 0 "$CLI" textures "$CORPUS/goldsrc/cs16_aim_map.bsp" -o "$WORK/aim_tex"
check "external-only map: nothing embedded, says so" grep -q "external ones skipped" "$WORK/.out"

# ---- 8-bit entity text (Windows code pages) still gives valid UTF-8 glTF ---------------------
python3 - "$GS" "$WORK/latin1.bsp" <<'PY'
import sys
d = open(sys.argv[1], "rb").read()
i = d.index(b'"mapversion" "220"')
d = d[:i] + b'"mapversion" "2\xe90"' + d[i + 18:]   # same length, one Latin-1 byte (and CP1251 alike)
j = d.index(b'"classname" "info_player_start"')
d = d[:j] + b'"classname" "info_player_sta\xc0\xff"' + d[j + 31:]
open(sys.argv[2], "wb").write(d)
PY
expect_exit 0 "$CLI" convert "$WORK/latin1.bsp" -o "$WORK/latin1.glb"
if gltf_validate "$WORK/latin1.glb" >"$WORK/latin1.txt" 2>&1; then ok; else fail "8-bit entity text breaks the glTF"; head -5 "$WORK/latin1.txt" >&2; fi

# ---- options --------------------------------------------------------------------------------
M="$CORPUS/goldsrc/cs16_awp_india.bsp"
expect_exit 0 "$CLI" convert "$M" -o "$WORK/a.gltf"
expect_exit 0 "$CLI" convert "$M" -o "$WORK/b.gltf" --no-lightmaps --no-entities --no-textures
python3 - "$WORK/a.gltf" "$WORK/b.gltf" >"$WORK/opts.txt" <<'PY'
import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
def uv1(g): return any("TEXCOORD_1" in p["attributes"] for m in g["meshes"] for p in m["primitives"])
def ents(g): return sum(1 for n in g["nodes"] if "classname" in (n.get("extras") or {}))
print("uv1", uv1(a), uv1(b)); print("ents", ents(a) > 0, ents(b)); print("images", len(a.get("images", [])) > 0, len(b.get("images", [])))
names = [n.get("name") for n in a["nodes"]]
print("world", "worldspawn" in names)
print("brush", any(n.startswith("func_") or "*" in n for n in names if n))
# "angles" "0 90 0": a quarter turn about engine Z, which is glTF's Y
st = [n for n in a["nodes"] if (n.get("extras") or {}).get("classname") == "info_player_start"]
print("rot", bool(st) and abs(st[0].get("rotation", [0, 0, 0, 1])[1] - 0.70710678) < 1e-5)
PY
check "lightmap UVs by default, none with --no-lightmaps" grep -q "uv1 True False" "$WORK/opts.txt"
check "entity extras by default, none with --no-entities" grep -q "ents True 0" "$WORK/opts.txt"
check "images by default, none with --no-textures" grep -q "images True 0" "$WORK/opts.txt"
check "world node named worldspawn" grep -q "world True" "$WORK/opts.txt"
check "brush models are nodes" grep -q "brush True" "$WORK/opts.txt"
check "player start faces its angles" grep -q "rot True" "$WORK/opts.txt"
# ---- the engines' lump limits: a map over one loads, and `validate` warns (quake_desc.c) -----
python3 - "$CORPUS/quake1/vektar_bg.bsp" "$GS" "$WORK" <<'PY'
import struct, sys
q1, gs, out = sys.argv[1:4]
def grow_lighting(src, n, name):
    d = bytearray(open(src, "rb").read())
    ofs, ln = struct.unpack_from("<ii", d, 4 + 8 * 8)
    at = (len(d) + 3) & ~3
    light = bytes(d[ofs:ofs + ln]) + bytes(n - ln)
    d += bytes(at - len(d)) + light
    struct.pack_into("<ii", d, 4 + 8 * 8, at, n)
    open("%s/%s" % (out, name), "wb").write(d)
grow_lighting(q1, 0x100000, "limit_q1_at.bsp")
grow_lighting(q1, 0x100001, "limit_q1_over.bsp")
grow_lighting(gs, 0x100001, "limit_gs_under.bsp")
grow_lighting(gs, 0x200001, "limit_gs_over.bsp")
PY
for m in q1_at q1_over gs_under gs_over; do "$CLI" validate "$WORK/limit_$m.bsp" >"$WORK/limit_$m.txt" 2>&1; echo $? >"$WORK/limit_$m.rc"; done
check "Quake lighting over MAX_MAP_LIGHTING warns" grep -q "lighting @[0-9]*: warning: 1048577 bytes, more than Quake's MAX_MAP_LIGHTING (1048576)" "$WORK/limit_q1_over.txt"
check "a warning only: validate passes" test "$(cat "$WORK/limit_q1_over.rc")" = 0
check "Quake lighting at the limit: no warning" bash -c "! grep -q 'more than' '$WORK/limit_q1_at.txt'"
check "the same size is under Half-Life's limit" bash -c "! grep -q 'more than' '$WORK/limit_gs_under.txt'"
check "GoldSrc lighting over its MAX_MAP_LIGHTING warns" grep -q "2097153 bytes, more than Half-Life's MAX_MAP_LIGHTING (2097152)" "$WORK/limit_gs_over.txt"
check "the map over a limit still converts" "$CLI" info "$WORK/limit_q1_over.bsp" -q
bk_done
