#!/usr/bin/env bash
# World lights (lumps 15 / 54, dworldlight_t in its 88- and 100-byte forms) on every corpus map that
# has them, against a reader written in source/lights.py: lump --json field by field, --import
# byte-identical, and KHR_lights_punctual lights in the glTF (type, place, aim, colour,
# intensity, cones, extras.baked); the Khronos validator accepts them.
source "$BK_TESTS/lib.sh"
bk_init "$@"
need_dir "$CORPUS/source"
/usr/bin/python3 -c 'import numpy, lzma' 2>/dev/null || bk_skip "python3-numpy missing"
/usr/bin/python3 "$BK_TESTS/source/lights.py" "$CLI" "$CORPUS/source" "$WORK" >"$WORK/lights.txt" 2>&1
rc=$?
cat "$WORK/lights.txt"
check "world lights agree with the reader on every map ($(tail -1 "$WORK/lights.txt"))" test $rc = 0
"$CLI" convert "$CORPUS/source/tf2_v20_bsp_tool_test2.bsp" -o "$WORK/test2.glb" -q 2>/dev/null
check "the Khronos validator accepts the lights" gltf_validate "$WORK/test2.glb"
"$CLI" convert "$CORPUS/source/l4d2_v21_ths_map_cannals_escape01.bsp" -o "$WORK/l4d2.glb" -q 2>/dev/null
check "the Khronos validator accepts version-1 lights" gltf_validate "$WORK/l4d2.glb"
# hostile lumps: a size that is no whole number of lights (a located warning, no lights, the map
# still converts); NaN / infinite fields (refused, located, as Quake and Quake 3 refuse theirs)
M=$CORPUS/source/css_v20_gg_lego_arena_x.bsp
/usr/bin/python3 - "$M" "$WORK" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
ofs, ln = struct.unpack_from("<ii", d, 8 + 16 * 15)
short = bytearray(d)
struct.pack_into("<i", short, 8 + 16 * 15 + 4, ln - 6)
open(sys.argv[2] + "/short.bsp", "wb").write(short)
for light in (0, 1):   # an ambient light and the sun
    base = ofs + 88 * light
    struct.pack_into("<3f", d, base, float("inf"), 0, float("nan"))              # origin
    struct.pack_into("<3f", d, base + 12, float("nan"), float("inf"), -1e38)     # intensity
    struct.pack_into("<3f", d, base + 24, float("nan"), 0, float("-inf"))        # normal
open(sys.argv[2] + "/nan.bsp", "wb").write(d)
PY
"$CLI" convert "$WORK/short.bsp" -o "$WORK/short.gltf" 2>"$WORK/short.err" >/dev/null
check "a lump of no whole number of lights converts" test $? = 0
check "... with a located warning" grep -q 'short.bsp: worldlights @[0-9]*: warning: 170 bytes, not a multiple of the 88-byte' "$WORK/short.err"
check "... and no lights" bash -c "! grep -q KHR_lights_punctual '$WORK/short.gltf'"
"$CLI" convert "$WORK/nan.bsp" -o "$WORK/nan.glb" -q 2>"$WORK/nan.err"
check "NaN and infinite light fields are refused" test $? = 1
check "... located" grep -q 'nan.bsp: worldlights\[0\] @[0-9]*: error: field "origin"\[0\] is not finite' "$WORK/nan.err"
check "... nothing written" test ! -e "$WORK/nan.glb"
"$CLI" validate "$WORK/nan.bsp" >"$WORK/nan.val" 2>&1
check "... and validate finds both lights" test "$(grep -c '^.*nan.bsp: worldlights\[[01]\] @[0-9]*: error: ' "$WORK/nan.val")" = 2
bk_done
