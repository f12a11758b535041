#!/usr/bin/env bash
# Source maps as they look in the game: every VTF of the corpus's pakfiles decodes and agrees with
# its header's reflectivity (vtf_check.py); converted maps take their pakfile textures through
# the VMTs' $basetexture; compile-tool faces are not drawn; loose VTFs are read by magic.
source "$BK_TESTS/lib.sh"
bk_init "$@"
[[ -x /usr/bin/python3 ]] && /usr/bin/python3 -c 'import numpy' 2>/dev/null || { echo "SKIP: /usr/bin/python3 with numpy missing"; exit 77; }
need_dir "$CORPUS/source"
maps=()
for f in "$CORPUS"/source/*.bsp; do case $(basename "$f") in unusual_*) ;; *) maps+=("$f") ;; esac; done
if /usr/bin/python3 "$BK_TESTS/source/vtf_check.py" "$CLI" "$WORK/vtf" "${maps[@]}" > "$WORK/vtf.log" 2>&1; then ok
else fail "vtf_check.py"; fi
cat "$WORK/vtf.log" | tail -4
tooldrawn=0; textured=0
for f in "${maps[@]}"; do
    n=$(basename "$f" .bsp)
    "$CLI" convert "$f" -o "$WORK/$n.gltf" -q >/dev/null 2>&1 || { fail "$n: convert"; continue; }
    # tool materials (nodraw, clip, trigger, ...) must not be drawn: no material of that name
    if /usr/bin/python3 - "$WORK/$n.gltf" <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))
tools = ("nodraw", "clip", "playerclip", "npcclip", "trigger", "skip", "hint", "invisible", "blocklight",
         "areaportal", "occluder", "fog", "skybox")
# the skybox tool material is drawn as the sky: only as an unlit sky material
mats = [(m.get("name", "").lower().replace("\\", "/"), m) for m in g.get("materials", [])]
bad = [n for n, m in mats if n.startswith("tools/tools") and n[11:] in tools and
       not (n[11:] == "skybox" and m.get("extras", {}).get("sky") == "faces" and "KHR_materials_unlit" in m.get("extensions", {}))]
if bad: print("tool materials drawn:", bad)
sys.exit(1 if bad else 0)
PY
    then ok; else fail "$n: tool faces drawn"; tooldrawn=$((tooldrawn + 1)); fi
    t=$(/usr/bin/python3 -c 'import json,sys; g=json.load(open(sys.argv[1])); print(sum(1 for m in g.get("materials",[]) if "baseColorTexture" in m.get("pbrMetallicRoughness",{})))' "$WORK/$n.gltf")
    [[ $t -gt 0 ]] && textured=$((textured + 1))
done
echo "maps with pakfile textures applied: $textured of ${#maps[@]}"
# most corpus pakfiles hold cube maps and patch materials whose textures are in the game's VPKs
check "maps take their pakfile textures (at least 3 maps)" test "$textured" -ge 3
# the Khronos validator on a textured map
lego=$CORPUS/source/css_v20_gg_lego_arena_x.bsp
"$CLI" convert "$lego" -o "$WORK/lego.glb" -q
check "the textured map passes the Khronos validator" gltf_validate "$WORK/lego.glb"
"$CLI" convert "$lego" -o "$WORK/lego.gltf" -q
check "lego arena has a texture on all but at most one material" /usr/bin/python3 -c '
import json, sys
g = json.load(open(sys.argv[1]))
m = g["materials"]; t = [x for x in m if "baseColorTexture" in x.get("pbrMetallicRoughness", {})]
sys.exit(0 if len(t) >= len(m) - 1 else 1)' "$WORK/lego.gltf"
# a loose VTF: info, validate, textures; a truncated one fails with a located error
"$CLI" pak "$lego" extract -o "$WORK/lego_pak" >/dev/null
vtf=$(find "$WORK/lego_pak" -iname '*.vtf' | head -1)
expect_stdout_has "format:  vtf" "$CLI" info "$vtf"
expect_exit 0 "$CLI" validate "$vtf"
expect_exit 0 "$CLI" textures "$vtf" -o "$WORK/one"
head -c 200 "$vtf" > "$WORK/cut.vtf"
expect_exit 1 "$CLI" validate "$WORK/cut.vtf"
expect_stdout_has "image @" "$CLI" validate "$WORK/cut.vtf"
check "the worldspawn skyname is in the scene's extras" /usr/bin/python3 -c '
import json, sys
g = json.load(open(sys.argv[1]))
sys.exit(0 if g["scenes"][0].get("extras", {}).get("skyname") else 1)' "$WORK/lego.gltf"
bk_done
