#!/usr/bin/env bash
# The 2D skybox (worldspawn skyname): six small VTF faces written by source/skybox.py (one colour
# each, bright top half) packed into a corpus map's pakfile with `bspkit pak add`; the glTF has the
# sky cube (node "skybox") with each face's texture in its slot, where Source draws it, upright,
# and no flat sky faces left; `bspkit render` looking along each axis shows that face's colour the
# right way up; a face whose VMT has $basetexturetransform takes it; with a face missing it is
# drawn flat and one located warning names it; the map without faces converts as before (sky
# faces flat, no skybox node, no warning); a map lit in HDR takes the faces' HDR textures.
source "$BK_TESTS/lib.sh"
bk_init "$@"
M=$CORPUS/source/css_v20_gg_lego_arena_x.bsp
need_file "$M"
/usr/bin/python3 -c 'import numpy' 2>/dev/null || bk_skip "python3-numpy missing"
PY="/usr/bin/python3 $BK_TESTS/source/skybox.py"
sky=tides   # the map's skyname
# shellcheck disable=SC2046
"$CLI" pak "$M" add $($PY make "$WORK/all" $sky) -o "$WORK/sky6.bsp" -q || fail "pak add six faces"
# shellcheck disable=SC2046
"$CLI" pak "$M" add $($PY make "$WORK/five" $sky rt,bk,lf,ft,up) -o "$WORK/sky5.bsp" -q || fail "pak add five faces"

"$CLI" convert "$WORK/sky6.bsp" -o "$WORK/sky6.gltf" 2>"$WORK/sky6.err" >/dev/null || fail "convert six"
check "six faces: the cube in its slots, upright, no flat sky faces" $PY gltf "$WORK/sky6.gltf" $sky
check "six faces: no skybox warning" bash -c "! grep -i skybox '$WORK/sky6.err'"
check "the Khronos validator accepts the sky cube" gltf_validate "$WORK/sky6.gltf"

# views along five axes from high in the arena, above its walls (the floor hides dn; the glTF
# check above places it)
eye=(0 -300 850)
views=("rt 0 0" "bk 90 0" "lf 180 0" "ft 270 0" "up 0 -89")
for v in "${views[@]}"; do
    read -r face yaw pitch <<<"$v"
    "$CLI" render "$WORK/sky6.bsp" -o "$WORK/view_$face.png" --size 320x180 --eye "${eye[@]}" --yaw "$yaw" \
        --pitch "$pitch" 2>/dev/null || { fail "render $face"; continue; }
    check "render yaw $yaw pitch $pitch shows $face upright" $PY png "$WORK/view_$face.png" "$face"
done

"$CLI" convert "$WORK/sky5.bsp" -o "$WORK/sky5.gltf" 2>"$WORK/sky5.err" >/dev/null || fail "convert five"
check "five faces: dn flat and marked missing" $PY gltf "$WORK/sky5.gltf" $sky dn
check "five faces: one located warning naming dn" \
    test "$(grep -c 'sky5.bsp: entities\[0\].*warning: skybox tides: faces dn not found' "$WORK/sky5.err")" = 1

"$CLI" convert "$M" -o "$WORK/none.gltf" 2>"$WORK/none.err" >/dev/null || fail "convert the map as it is"
check "no faces: no skybox node" bash -c "! grep -q '\"name\":\"skybox\"' '$WORK/none.gltf'"
check "no faces: the sky faces stay flat" /usr/bin/python3 "$BK_TESTS/source/sky_check.py" "$M" "$WORK/none.gltf"
check "no faces, no --game-dir: no warning" bash -c "! grep -i skybox '$WORK/none.err'"
mkdir -p "$WORK/game"
"$CLI" convert "$M" --game-dir "$WORK/game" -o "$WORK/gd.gltf" 2>"$WORK/gd.err" >/dev/null || fail "convert --game-dir"
check "no faces in --game-dir: one warning" test "$(grep -c 'warning: skybox tides: no face found' "$WORK/gd.err")" = 1
# half-height side images stretched by their VMT's $basetexturetransform
$PY make "$WORK/half" $sky rt,bk,lf,ft,up,dn rt,lf >/dev/null
"$CLI" convert "$M" --game-dir "$WORK/half" -o "$WORK/half.gltf" 2>/dev/null >/dev/null || fail "convert --game-dir half"
check "\$basetexturetransform scale 1 2 doubles v on those faces only" $PY gltf "$WORK/half.gltf" $sky "" rt,lf
# the faces found loose in a --game-dir folder, as in a pakfile
"$CLI" convert "$M" --game-dir "$WORK/all" -o "$WORK/loose.gltf" 2>/dev/null >/dev/null || fail "convert --game-dir faces"
check "faces from --game-dir: the cube" $PY gltf "$WORK/loose.gltf" $sky
# a map lit in HDR draws its Sky materials' HDR textures ($hdrcompressedtexture RGBS, else
# $hdrbasetexture RGBA16161616F) at its lightmaps' exposure; in LDR the $basetexture
H=$CORPUS/source/tf2_v20_bsp_tool_mp_lobby.bsp   # both lighting lumps, skyname sky_tf2_04
need_file "$H"
$PY make_hdr "$WORK/hdrsky" sky_tf2_04
"$CLI" convert "$H" --game-dir "$WORK/hdrsky" --hdr -o "$WORK/hdr.gltf" -q || fail "convert --hdr"
check "HDR lighting: the HDR sky textures, exposed as the lightmaps" $PY hdr "$WORK/hdr.gltf" sky_tf2_04
"$CLI" convert "$H" --game-dir "$WORK/hdrsky" -o "$WORK/ldr.gltf" -q || fail "convert"
check "LDR lighting: the LDR ones" $PY ldr "$WORK/ldr.gltf" sky_tf2_04
bk_done
