#!/usr/bin/env bash
# Source overlays (info_overlay decals, lump 45): on every Source corpus map the overlay count
# bspkit reports is the lump's, every record read by overlay_check.py (written from doverlay_t
# and vbsp's overlay.cpp) is sane, and the glTF's "overlays" node under worldspawn holds each
# overlay clipped to the faces of its list (draped over displacements) as overlay_check.py clips
# it from the bytes: the same area per material, planar pieces on their faces' planes, texture
# coordinates within the quads'. The Khronos validator accepts a map with overlays.
source "$BK_TESTS/lib.sh"
bk_init "$@"
PY=/usr/bin/python3
need_dir "$CORPUS/source"
with=0
for f in "$CORPUS"/source/*.bsp; do
    m=$(basename "$f" .bsp)
    "$CLI" info --json "$f" > "$WORK/$m.json" 2>/dev/null || continue   # not a VBSP this reads
    "$CLI" convert "$f" -o "$WORK/$m.gltf" -q --scale 1 --keep-z-up || { fail "$m: convert"; continue; }
    out=$($PY "$BK_TESTS/source/overlay_check.py" "$f" "$WORK/$m.json" "$WORK/$m.gltf"); rc=$?
    echo "$m: $out"
    check "$m: overlays as in the lump ($out)" test $rc -eq 0
    [[ $out == *"clipped to their faces"* ]] && with=$((with + 1))
    rm -f "$WORK/$m".*
done
check "maps with overlays were compared ($with)" test $with -ge 5
f=$CORPUS/source/tf2c_v20_dom_fightpit.bsp
need_file "$f"
"$CLI" convert "$f" -o "$WORK/fightpit.glb" -q
check "the Khronos validator accepts the overlays" gltf_validate "$WORK/fightpit.glb"
# no corpus overlay flips V (uv3.z == 1): the same map with every overlay flipped, which mirrors
# each quad across its U axis; and one with hostile records (texinfo out of range, a zero normal,
# 16383 faces, a face out of range, a bow-tie quad): warned about, not drawn, no crash
$PY - "$f" "$WORK" <<'PYEOF'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
ofs, ln = struct.unpack_from("<ii", d, 8 + 16 * 45)
assert d[ofs:ofs + 4] != b"LZMA" and ln % 352 == 0 and ln >= 3 * 352
flip = bytearray(d)
for i in range(ln // 352):
    struct.pack_into("<f", flip, ofs + i * 352 + 264 + 16 + 36 + 8, 1.0)
open(sys.argv[2] + "/flip.bsp", "wb").write(flip)
struct.pack_into("<h", d, ofs + 4, 32000)
struct.pack_into("<3f", d, ofs + 352 + 340, 0, 0, 0)
struct.pack_into("<H", d, ofs + 2 * 352 + 6, 0x3fff)
struct.pack_into("<i", d, ofs + 3 * 352 + 8, 1 << 30)
# overlay 4's corners 1 and 2 swapped: a bow tie, not a convex quad
c1 = bytes(d[ofs + 4 * 352 + 280 + 12:ofs + 4 * 352 + 280 + 20])
d[ofs + 4 * 352 + 280 + 12:ofs + 4 * 352 + 280 + 20] = d[ofs + 4 * 352 + 280 + 24:ofs + 4 * 352 + 280 + 32]
d[ofs + 4 * 352 + 280 + 24:ofs + 4 * 352 + 280 + 32] = c1
open(sys.argv[2] + "/hostile.bsp", "wb").write(d)
PYEOF
# render order (the top 2 bits of the face count): no corpus overlay has one, so speakers' overlays
# get orders 1, 2, 3 in turn through the lump's JSON; each piece sits a further 0.1 off its face
S=$CORPUS/source/css_v19_test_speakers.bsp
"$CLI" lump "$S" overlays --json > "$WORK/ov.json"
$PY - "$WORK/ov.json" <<'PYEOF'
import json, sys
ovs = json.load(open(sys.argv[1]))
for i, o in enumerate(ovs):
    o["face_count_and_render_order"] = (o["face_count_and_render_order"] & 0x3fff) | ((1 + i % 3) << 14)
json.dump(ovs, open(sys.argv[1], "w"))
PYEOF
expect_exit 0 "$CLI" lump "$S" overlays --import "$WORK/ov.json" -o "$WORK/order.bsp"
"$CLI" info --json "$WORK/order.bsp" > "$WORK/order.json"
"$CLI" convert "$WORK/order.bsp" -o "$WORK/order.gltf" -q --scale 1 --keep-z-up
out=$($PY "$BK_TESTS/source/overlay_check.py" "$WORK/order.bsp" "$WORK/order.json" "$WORK/order.gltf")
check "render orders 1-3: pieces pushed a step further each ($out)" bash -c "[[ '$out' == *'render orders [1, 2, 3]'* ]]"
check "... and on their faces' planes" $PY "$BK_TESTS/source/overlay_check.py" "$WORK/order.bsp" "$WORK/order.json" "$WORK/order.gltf"
check "... which the same overlays at order 0 would not be" bash -c "! $PY '$BK_TESTS/source/overlay_check.py' '$S' '$WORK/order.json' '$WORK/order.gltf' >/dev/null"
"$CLI" info --json "$WORK/flip.bsp" > "$WORK/flip.json"
"$CLI" convert "$WORK/flip.bsp" -o "$WORK/flip.gltf" -q --scale 1 --keep-z-up
check "flipped V axes are mirrored ($($PY "$BK_TESTS/source/overlay_check.py" "$WORK/flip.bsp" "$WORK/flip.json" "$WORK/flip.gltf"))" \
    $PY "$BK_TESTS/source/overlay_check.py" "$WORK/flip.bsp" "$WORK/flip.json" "$WORK/flip.gltf"
expect_exit 0 "$CLI" convert "$WORK/hostile.bsp" -o "$WORK/hostile.gltf"
check "hostile overlays are warned about" grep -q "overlays\[1\].*degenerate basis" "$WORK/.err"
check "an out-of-range texinfo is warned about" grep -q "overlays\[0\].*texinfo out of range" "$WORK/.err"
check "a face count over 64 is warned about" grep -q "overlays\[2\].*face count over 64" "$WORK/.err"
check "a face out of range is warned about" grep -q "overlays\[3\].*faces out of range" "$WORK/.err"
# fightpit's 6 overlays have one face each: 0, 1 and 3 (its face gone) draw nothing, the bow tie draws
check "the others are drawn ($(grep -o '"overlay_count":"[0-9]*"' "$WORK/hostile.gltf"))" grep -q '"overlay_count":"3"' "$WORK/hostile.gltf"
# water overlays (lump 50, dwateroverlay_t: 256 face slots, 1120 bytes): no corpus map has any, so
# two maps' overlays are moved into lump 50 (planar faces, displacements) and drawn the same way in
# a node "water_overlays", checked as above; lump 45 emptied, no "overlays" node
for m in css_v19_test_speakers tf2c_v20_dom_fightpit; do
    need_file "$CORPUS/source/$m.bsp"
    $PY - "$CORPUS/source/$m.bsp" "$WORK/water_$m.bsp" <<'PYEOF'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
ofs, ln = struct.unpack_from("<ii", d, 8 + 16 * 45)
assert d[ofs:ofs + 4] != b"LZMA" and ln % 352 == 0
w = b""
for i in range(ln // 352):
    r = d[ofs + i * 352:ofs + (i + 1) * 352]
    w += r[:8] + r[8:264] + bytes(4 * 192) + r[264:]
d += bytes(-len(d) % 4)
struct.pack_into("<iiii", d, 8 + 16 * 50, len(d), len(w), 0, 0)
struct.pack_into("<ii", d, 8 + 16 * 45, 0, 0)
open(sys.argv[2], "wb").write(d + w)
PYEOF
    "$CLI" info --json "$WORK/water_$m.bsp" > "$WORK/water_$m.json"
    "$CLI" convert "$WORK/water_$m.bsp" -o "$WORK/water_$m.gltf" -q --scale 1 --keep-z-up || fail "$m: convert water"
    out=$($PY "$BK_TESTS/source/overlay_check.py" --water "$WORK/water_$m.bsp" "$WORK/water_$m.json" "$WORK/water_$m.gltf")
    check "$m: water overlays drawn as overlays ($out)" $PY "$BK_TESTS/source/overlay_check.py" --water \
        "$WORK/water_$m.bsp" "$WORK/water_$m.json" "$WORK/water_$m.gltf"
    check "$m: no overlays node without lump 45" bash -c "! grep -q '\"name\":\"overlays\"' '$WORK/water_$m.gltf'"
done
bk_done
