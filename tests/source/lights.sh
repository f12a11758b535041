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
bk_done
