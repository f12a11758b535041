#!/usr/bin/env bash
# Source overlays (info_overlay decals, lump 45): on every Source corpus map the overlay count
# bspkit reports is the lump's, every record read by overlay_check.py (written from doverlay_t
# and vbsp's overlay.cpp) is sane, and the glTF's "overlays" node under worldspawn holds one
# alpha-blended quad per overlay with faces, its corners, texture coordinates and material name
# as computed from the bytes. The Khronos validator accepts a map with overlays.
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
    [[ $out == *"quads in"* ]] && with=$((with + 1))
    rm -f "$WORK/$m".*
done
check "maps with overlays were compared ($with)" test $with -ge 5
f=$CORPUS/source/tf2c_v20_dom_fightpit.bsp
need_file "$f"
"$CLI" convert "$f" -o "$WORK/fightpit.glb" -q
check "the Khronos validator accepts the overlays" gltf_validate "$WORK/fightpit.glb"
# no corpus overlay flips V (uv3.z == 1): the same map with every overlay flipped, which mirrors
# each quad across its U axis; and one with hostile records (texinfo out of range, a zero normal,
# 16383 faces): warned about, not drawn, no crash
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
open(sys.argv[2] + "/hostile.bsp", "wb").write(d)
PYEOF
"$CLI" info --json "$WORK/flip.bsp" > "$WORK/flip.json"
"$CLI" convert "$WORK/flip.bsp" -o "$WORK/flip.gltf" -q --scale 1 --keep-z-up
check "flipped V axes are mirrored ($($PY "$BK_TESTS/source/overlay_check.py" "$WORK/flip.bsp" "$WORK/flip.json" "$WORK/flip.gltf"))" \
    $PY "$BK_TESTS/source/overlay_check.py" "$WORK/flip.bsp" "$WORK/flip.json" "$WORK/flip.gltf"
expect_exit 0 "$CLI" convert "$WORK/hostile.bsp" -o "$WORK/hostile.gltf"
check "hostile overlays are warned about" grep -q "overlays\[1\].*degenerate basis" "$WORK/.err"
check "an out-of-range texinfo is warned about" grep -q "overlays\[0\].*texinfo out of range" "$WORK/.err"
check "the others are drawn ($(grep -o '"overlay_count":"[0-9]*"' "$WORK/hostile.gltf"))" grep -q '"overlay_count":"4"' "$WORK/hostile.gltf"
bk_done
