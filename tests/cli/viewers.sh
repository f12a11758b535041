#!/usr/bin/env bash
# What a person does with the output: open it in three.js and in Blender. One file of every
# format is converted, rendered with three.js in headless Chromium (it must load and draw a
# good part of the frame; PNG previews are kept in the work folder) and imported into Blender
# headless (meshes must arrive; the DPM's armature and actions too). Files of the fetched
# corpus are used when present; Blender's part skips when Blender is not installed.
source "$BK_TESTS/lib.sh"
bk_init "$@"
maps=()
conv() { # conv IN OUT [options]: convert, record the output
    local in=$1 out=$2; shift 2
    if "$CLI" convert "$in" -o "$WORK/$out" "$@" >/dev/null 2>"$WORK/.err"; then ok; maps+=("$WORK/$out")
    else fail "convert $in"; head -3 "$WORK/.err" >&2; fi
}
need_file "$CORPUS/goldsrc/ns_ns_lost.bsp" "$CORPUS/wad3/ns_lost.wad" "$CORPUS/source/css_v20_gg_lego_arena_x.bsp"
conv "$CORPUS/goldsrc/ns_ns_lost.bsp" goldsrc.glb --wad "$CORPUS/wad3/ns_lost.wad"
conv "$BK_TESTS/../samples/ericw_q1_detail_fence2.bsp" quake1.glb
conv "$CORPUS/source/css_v20_gg_lego_arena_x.bsp" source.glb
dpm=""
if [[ -d $FETCHED/q3/oa081 ]]; then conv "$FETCHED/q3/oa081/aggressor.bsp" quake3.glb; fi
if [[ -f $FETCHED/dpm/spiderbot.dpm ]]; then
    "$CLI" convert "$FETCHED/dpm/spiderbot.dpm" -o "$WORK/dpm.glb" >/dev/null 2>"$WORK/.err" && ok || fail "convert dpm"
    dpm=$WORK/dpm.glb
fi

if command -v chromium >/dev/null; then
    if gltf_render "$WORK/previews" "${maps[@]}" ${dpm:+"$dpm"} > "$WORK/render.log"; then ok
    else fail "three.js render"; grep '"pass":false' "$WORK/render.log" >&2; fi
    n=$(grep -c '"pass":true' "$WORK/render.log")
    check "every file rendered ($n)" test "$n" -eq $(( ${#maps[@]} + (${dpm:+1}+0) ))
    # from the player start, texture x lightmap as the engine draws it: the frame must be covered
    if node "$BK_TESTS/tools/render.mjs" --out "$WORK/start" --mode full --view start --min-coverage 0.9 \
        "$WORK/goldsrc.glb" "$WORK/quake1.glb" > "$WORK/start.log"; then ok; else fail "player-start render"; cat "$WORK/start.log" >&2; fi
    check "the player start was found" test "$(grep -c '"start":true' "$WORK/start.log")" -eq 2
    [[ -z $dpm ]] || check "three.js sees a skinned mesh and animations in the DPM" \
        grep -q '"file":"[^"]*dpm.glb".*"skinned":[1-9].*"animations":[1-9]' "$WORK/render.log"
else
    echo "note: chromium not installed, three.js render skipped"
fi

if command -v blender >/dev/null; then
    if blender_import "${maps[@]}" > "$WORK/blender.log"; then ok; else fail "Blender import of maps"; fi
    cat "$WORK/blender.log"
    if [[ -n $dpm ]]; then
        if blender_import --armature --actions "$dpm" > "$WORK/blender-dpm.log"; then ok
        else fail "Blender import of the DPM with armature and actions"; fi
        cat "$WORK/blender-dpm.log"
    fi
else
    echo "note: blender not installed, Blender import skipped"
fi
bk_done
