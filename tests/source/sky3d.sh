#!/usr/bin/env bash
# The 3D skybox: on every corpus map with a sky_camera, a node "skybox_3d" scaled by its scale
# about its origin whose triangles are worldspawn's in sky_camera's area and whose children are
# the static props and brush entities standing there, sky_camera's fog in its extras (source/sky3d_check.py walks the map's BSP tree itself); --no-3d-sky leaves it out; maps without sky_camera have none;
# the Khronos validator accepts the node.
source "$BK_TESTS/lib.sh"
bk_init "$@"
need_dir "$CORPUS/source"
/usr/bin/python3 -c 'import numpy' 2>/dev/null || bk_skip "python3-numpy missing"
n=0
for f in "$CORPUS"/source/*.bsp; do
    m=$(basename "$f" .bsp)
    case $m in unusual_*) continue ;; esac
    "$CLI" entities "$f" 2>/dev/null | grep -qi '"classname" "sky_camera"' || continue
    n=$((n + 1))
    "$CLI" convert "$f" -o "$WORK/$m.gltf" --no-textures -q 2>/dev/null || { fail "$m: convert"; continue; }
    /usr/bin/python3 "$BK_TESTS/source/sky3d_check.py" "$f" "$WORK/$m.gltf" >"$WORK/$m.txt" 2>&1
    check "$m: skybox_3d $(head -c 300 "$WORK/$m.txt")" test $? = 0
    "$CLI" convert "$f" -o "$WORK/$m.no.gltf" --no-textures --no-3d-sky -q 2>/dev/null || fail "$m: convert --no-3d-sky"
    check "$m: --no-3d-sky leaves it out" bash -c "! grep -q '\"name\":\"skybox_3d\"' '$WORK/$m.no.gltf'"
done
check "four corpus maps with sky_camera checked (found $n)" test "$n" -ge 4
check "a map with a static prop in its 3D skybox (l4d2 cannals_escape01)" grep -q '"props": 1' "$WORK/l4d2_v21_ths_map_cannals_escape01.txt"
check "a map with brush entities in its 3D skybox (ricochet deathmatch2)" grep -q '"brush_entities": 4' "$WORK/ricochet_v20_rc_deathmatch2.txt"
check "sky_camera's fog on the node (l4d2 cannals_escape01)" grep -q '"fogEnd":"2000"' "$WORK/l4d2_v21_ths_map_cannals_escape01.gltf"
M=$CORPUS/source/css_v20_gg_lego_arena_x.bsp
"$CLI" convert "$M" -o "$WORK/none.gltf" --no-textures -q 2>/dev/null
check "no sky_camera: no skybox_3d" /usr/bin/python3 "$BK_TESTS/source/sky3d_check.py" "$M" "$WORK/none.gltf"
"$CLI" convert "$CORPUS/source/tf2c_v20_dom_fightpit.bsp" -o "$WORK/fightpit.glb" -q 2>/dev/null
check "the Khronos validator accepts skybox_3d" gltf_validate "$WORK/fightpit.glb"
# drawn behind the world: from the spawn, the 3D skybox changes only pixels that showed the flat sky
F=$CORPUS/source/tf2c_v20_dom_fightpit.bsp
"$CLI" render "$F" -o "$WORK/with.png" --size 320x180 2>/dev/null || fail "render"
"$CLI" render "$F" -o "$WORK/without.png" --size 320x180 --no-3d-sky 2>/dev/null || fail "render --no-3d-sky"
check "render: the 3D skybox shows only where the sky was" /usr/bin/python3 -c '
import sys; sys.path.insert(0, sys.argv[1])
from pngread import read_png
import numpy as np
a, b = read_png(sys.argv[2])[..., :3], read_png(sys.argv[3])[..., :3]
sky = b[2, b.shape[1] // 2]   # the top centre of the view from the spawn is open sky
diff = np.abs(a - b).max(axis=2) > 0
was_sky = np.abs(b - sky).max(axis=2) <= 2
print(diff.sum(), "pixels changed,", (diff & ~was_sky).sum(), "of them not sky before")
sys.exit(0 if diff.sum() > 100 and (diff & ~was_sky).sum() == 0 else 1)' "$BK_TESTS/tools" "$WORK/with.png" "$WORK/without.png"
bk_done
