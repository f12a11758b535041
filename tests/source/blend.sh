#!/usr/bin/env bash
# Displacement blends: a real map with a WorldVertexTransition material (tf2c aspen, its blend
# textures given in a --game-dir as the game would) converts with COLOR_0 alpha equal to the
# DISP_VERTS alpha of every blended displacement vertex (blend_check.py reads the map itself),
# $basetexture2 named in the material's extras.blendTexture; the Khronos validator accepts it.
source "$BK_TESTS/lib.sh"
bk_init "$@"
PY=/usr/bin/python3
map=$CORPUS/source/tf2c_v20_lzma_3vipr_aspen_a03.bsp
[[ -f $map ]] || { echo "SKIP: corpus missing"; exit 77; }
# nature/blendgrassground21: $basetexture Nature/dirtground007, $basetexture2 Nature/dirtground009
$PY "$BK_TESTS/source/solid_vtf.py" "$WORK/game/materials/nature/dirtground007.vtf" 60 110 40
$PY "$BK_TESTS/source/solid_vtf.py" "$WORK/game/materials/nature/dirtground009.vtf" 140 70 30
"$CLI" convert "$map" -o "$WORK/blend.gltf" -q --game-dir "$WORK/game" || fail "convert with the game folder"
$PY "$BK_TESTS/source/blend_check.py" "$map" "$WORK/blend.gltf" > "$WORK/check.json"; rc=$?
cat "$WORK/check.json"
check "blended vertices carry the dispverts alpha" test $rc -eq 0
field() { $PY -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$WORK/check.json" "$1"; }
check "the map has its WorldVertexTransition material" test "$(field wvt_materials)" -ge 1
check "blended displacement vertices were compared ($(field blended_vertices))" test "$(field blended_vertices)" -gt 0
check "the blend weights vary over the displacements" test "$(field distinct_alphas)" -gt 2
check "the blend material names its second texture" test "$(field with_blend_texture)" -ge 1
# without the game's textures: the same weights, the second texture reported missing
"$CLI" convert "$map" -o "$WORK/bare.gltf" -q
check "without the textures the weights are still there" $PY "$BK_TESTS/source/blend_check.py" "$map" "$WORK/bare.gltf"
check "the missing second texture is said" $PY -c '
import json, sys
g = json.load(open(sys.argv[1]))
m = [x for x in g["materials"] if x.get("extras", {}).get("shader") == "WorldVertexTransition"]
sys.exit(0 if m and all("blendTexture" not in x["extras"] and x["extras"]["basetexture2"] for x in m) else 1)' "$WORK/bare.gltf"
"$CLI" convert "$map" -o "$WORK/blend.glb" -q --game-dir "$WORK/game"
check "the Khronos validator accepts the blend" gltf_validate "$WORK/blend.glb"
bk_done
