#!/usr/bin/env bash
# The occlusion lump (func_occluder; no corpus map has one): an occluder with one polygon written
# into a corpus map with `lump occlusion --import` (base64 bytes) is printed by `lump occlusion` as
# three arrays (lump versions 2 and 1) that import back byte-identical; it is counted by `info --json` (occluders,
# occluder_polys; LZMA-compressed too) and validates clean; out-of-range polygons, planes and vertices are located
# warnings (the map still loads and converts); counts that do not add up to the lump's size, a
# warning and no counts; a map without occluders keeps its info as before (no such keys).
source "$BK_TESTS/lib.sh"
bk_init "$@"
M=$CORPUS/source/css_v20_gg_lego_arena_x.bsp
need_file "$M"
/usr/bin/python3 - "$WORK" <<'PY'
import base64, json, struct, sys
def lump(occ, polys, idx, extra=b""):
    d = struct.pack("<i", len(occ))
    for first, count in occ:   # doccluderdata_t (lump version 2): flags, firstpoly, polycount, mins, maxs, area
        d += struct.pack("<3i6fi", 0, first, count, -64, -64, 0, 64, 64, 128, 1)
    d += struct.pack("<i", len(polys))
    for first, count, plane in polys:
        d += struct.pack("<3i", first, count, plane)
    d += struct.pack("<i", len(idx)) + struct.pack("<%di" % len(idx), *idx) + extra
    return {"lump": "occlusion", "size": len(d), "encoding": "base64", "data": base64.b64encode(d).decode()}
for name, j in (("good", lump([(0, 1)], [(0, 4, 0)], [0, 1, 2, 3])),
                ("bad", lump([(0, 2)], [(2, 4, 9999)], [0, 1, 2, 99999])),
                ("short", lump([(0, 1)], [(0, 4, 0)], [0, 1, 2, 3], b"\0\0"))):
    json.dump(j, open("%s/%s.json" % (sys.argv[1], name), "w"))
PY
for n in good bad short; do
    "$CLI" lump "$M" occlusion --import "$WORK/$n.json" -o "$WORK/$n.bsp" -q 2>/dev/null || fail "import $n"
done
# the lump as JSON: an object of the three arrays, Valve's field names (lump version 2: with area);
# imported back byte-identical, and the same occluder written from that JSON alone
"$CLI" lump "$WORK/good.bsp" occlusion > "$WORK/good.occ.json"
check "occlusion as three arrays" python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
assert list(j) == ["occluders", "polys", "vertex_indices"], list(j)
assert j["occluders"] == [{"flags": 0, "firstpoly": 0, "polycount": 1, "mins": [-64, -64, 0], "maxs": [64, 64, 128], "area": 1}], j
assert j["polys"] == [{"firstvertexindex": 0, "vertexcount": 4, "planenum": 0}] and j["vertex_indices"] == [0, 1, 2, 3], j' "$WORK/good.occ.json"
expect_exit 0 "$CLI" lump "$WORK/good.bsp" occlusion --import "$WORK/good.occ.json" -o "$WORK/good2.bsp"
check "structured JSON imports back byte-identical" cmp -s "$WORK/good.bsp" "$WORK/good2.bsp"
expect_exit 0 "$CLI" lump "$M" occlusion --import "$WORK/good.occ.json" -o "$WORK/good3.bsp"
check "structured JSON writes the same lump as the bytes did" cmp -s "$WORK/good.bsp" "$WORK/good3.bsp"
# lump version 1 (doccluderdataV1_t, 36 bytes, no area)
python3 - "$WORK/good.bsp" "$WORK/v1.bsp" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
ofs, ln, ver = struct.unpack_from("<iii", d, 8 + 16 * 9)
assert ver == 2
body = d[ofs:ofs + ln]
v1 = body[:4] + body[4:4 + 36] + body[44:] + b"\0" * 4   # the occluder without its area; padded to keep the size
d[ofs:ofs + ln] = v1[:ln - 4] + b"\0" * 4
struct.pack_into("<ii", d, 8 + 16 * 9 + 4, ln - 4, 1)
open(sys.argv[2], "wb").write(d)
PY
"$CLI" lump "$WORK/v1.bsp" occlusion > "$WORK/v1.json"
check "lump version 1: occluders without area" python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
assert j["occluders"] == [{"flags": 0, "firstpoly": 0, "polycount": 1, "mins": [-64, -64, 0], "maxs": [64, 64, 128]}], j
assert j["vertex_indices"] == [0, 1, 2, 3], j' "$WORK/v1.json"
expect_exit 0 "$CLI" lump "$WORK/v1.bsp" occlusion --import "$WORK/v1.json" -o "$WORK/v1b.bsp"
check "lump version 1 imports back byte-identical" cmp -s "$WORK/v1.bsp" "$WORK/v1b.bsp"
expect_exit 1 "$CLI" lump "$WORK/v1.bsp" occlusion --import "$WORK/good.occ.json" -o "$WORK/v1c.bsp"
check "a version-2 occluder refused on a version-1 lump, located" grep -q 'occlusion\[0\] @[0-9]*: error: line [0-9:]*: "occluders": unknown field "area"' "$WORK/.err"
check "... nothing written" test ! -e "$WORK/v1c.bsp"
"$CLI" info --json "$WORK/good.bsp" >"$WORK/good.info"
check "info counts the occluder" grep -q '"occluders":[[:space:]]*1,' "$WORK/good.info"
check "info counts its polygon" grep -q '"occluder_polys":[[:space:]]*1' "$WORK/good.info"
/usr/bin/python3 "$BK_TESTS/source/lzmaify.py" "$WORK/good.bsp" "$WORK/good_lzma.bsp" >/dev/null
"$CLI" info --json "$WORK/good_lzma.bsp" >"$WORK/good_lzma.info"
check "info counts the occluder of an LZMA-compressed lump" grep -q '"occluders":[[:space:]]*1,' "$WORK/good_lzma.info"
"$CLI" validate "$WORK/good.bsp" >"$WORK/good.val" 2>&1
check "a sound occluder validates clean" bash -c "! grep -q occlusion '$WORK/good.val'"
"$CLI" validate "$WORK/bad.bsp" >"$WORK/bad.val" 2>&1
check "out-of-range polygons: located warning" grep -q 'bad.bsp: occlusion\[0\] @[0-9]*: warning: polygons 0+2 out of range (1 polygons)' "$WORK/bad.val"
check "out-of-range plane: located warning" grep -q 'occlusion\[0\] @[0-9]*: warning: polygon 0: plane 9999 out of range' "$WORK/bad.val"
check "out-of-range vertex indices: located warning" grep -q 'occlusion\[0\] @[0-9]*: warning: polygon 0: vertex indices 2+4 out of range (4)' "$WORK/bad.val"
check "out-of-range vertex: located warning" grep -q 'occlusion\[3\] @[0-9]*: warning: vertex index 3: vertex 99999 out of range' "$WORK/bad.val"
"$CLI" convert "$WORK/bad.bsp" -o "$WORK/bad.glb" -q 2>/dev/null
check "a map with bad occluders still converts" test $? = 0
"$CLI" info --json "$WORK/short.bsp" >"$WORK/short.info" 2>"$WORK/short.err"
check "a lump that does not add up: a warning" grep -q 'occlusion @[0-9]*: warning: 82 bytes are not the counted occluders' "$WORK/short.err"
check "... and no counts" bash -c "! grep -q '\"occluders\"' '$WORK/short.info'"
"$CLI" info --json "$M" >"$WORK/orig.info"
check "no occluders: info as before" bash -c "! grep -q '\"occluder' '$WORK/orig.info'"
bk_done
