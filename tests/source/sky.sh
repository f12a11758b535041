#!/usr/bin/env bash
# Sky faces: in real maps of four games every world face whose texinfo is sky is drawn with an
# unlit, unlightmapped material that says extras.sky "faces" and names the worldspawn skyname
# (sky_check.py reads the map itself); the Khronos validator accepts it.
source "$BK_TESTS/lib.sh"
bk_init "$@"
n=0
for m in css_v20_gg_lego_arena_x hl2sdk_v19_sdk_vehicles tf2c_v20_dom_fightpit csgo_v21_fy_iceworld tf2c_v20_lzma_vipr_downfall; do
    f=$CORPUS/source/$m.bsp
    need_file "$f"
    n=$((n + 1))
    "$CLI" convert "$f" -o "$WORK/$m.gltf" -q || { fail "$m: convert"; continue; }
    check "$m: sky faces drawn as the sky ($(/usr/bin/python3 "$BK_TESTS/source/sky_check.py" "$f" "$WORK/$m.gltf" | head -1))" \
        /usr/bin/python3 "$BK_TESTS/source/sky_check.py" "$f" "$WORK/$m.gltf"
done
"$CLI" convert "$CORPUS/source/hl2sdk_v19_sdk_vehicles.bsp" -o "$WORK/vehicles.glb" -q
check "the Khronos validator accepts the sky material" gltf_validate "$WORK/vehicles.glb"
bk_done
