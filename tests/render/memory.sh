#!/usr/bin/env bash
# bspkit render's peak memory (GNU time's maximum resident set) against the issue's bar: at most
# 3x the input plus the frame buffers (RGBA and depth, 8 bytes a pixel) plus the program itself
# (its resident set for --version). Checked on the two largest Quake 3 maps of the corpus
# (Nexuiz' ons-reborn with its pk3, 22 MB: 86 MB two rounds ago, 64 MB now, the bar 77 MB;
# tutorial, 21 MB), two OpenArena maps with the game's pk3s, and maps of the other families
# from 12 KB to 2.4 MB, which all meet it since the frame's depth buffer and the PNG's copy went
# (bench/render_memory.sh: 76 of the 175 corpus maps drawn; docs/render.md).
source "$BK_TESTS/lib.sh"
bk_init "$@"
[[ -x /usr/bin/time ]] || bk_skip "GNU time missing (/usr/bin/time)"
ldd "$CLI" 2>/dev/null | grep -q -e libasan -e libtsan -e libubsan && bk_skip "a sanitizer build: its memory is not the program's"
NX=$FETCHED/pk3/nexuiz-data.pk3
OA=(--game-dir "$FETCHED/pk3/oa-pak4-textures.pk3" --game-dir "$FETCHED/pk3/oa-pak6-misc.pk3")
need_file "$FETCHED/q3/nexuiz/ons-reborn.bsp" "$FETCHED/q3/nexuiz/tutorial.bsp" "$NX" \
    "$FETCHED/q3/oa081/oa_pvomit.bsp" "$FETCHED/q3/oa081/hydronex.bsp" "$FETCHED/pk3/oa-pak4-textures.pk3" \
    "$FETCHED/pk3/oa-pak6-misc.pk3" "$CORPUS/goldsrc/dod_snowtest_avocado.bsp" "$CORPUS/quake1/progs_dump_start.bsp" \
    "$CORPUS/quake1/ericw_q1_cube.bsp" "$CORPUS/source/css_v19_gg_aim_shotty.bsp"
base=$(/usr/bin/time -f %M "$CLI" --version 2>&1 >/dev/null | tail -1)
frame=$((1280 * 720 * 8 / 1024))
peak() { # peak NAME MAP [options]
    local name=$1 map=$2; shift 2
    local kb in limit
    kb=$(/usr/bin/time -f %M "$CLI" render "$map" -o "$WORK/$name.png" "$@" 2>"$WORK/$name.err" >/dev/null; tail -1 "$WORK/$name.err")
    [[ $kb =~ ^[0-9]+$ ]] || { fail "$name: render failed: $(head -2 "$WORK/$name.err")"; return; }
    in=$(($(stat -c %s "$map") / 1024))
    limit=$((3 * in + frame + base))
    echo "$name: peak $kb kB, input $in kB, limit 3 x input + frame $frame + program $base = $limit kB"
    check "$name: peak $kb kB <= $limit kB" test "$kb" -le "$limit"
}
peak ons-reborn "$FETCHED/q3/nexuiz/ons-reborn.bsp" --game-dir "$NX"
peak tutorial "$FETCHED/q3/nexuiz/tutorial.bsp" --game-dir "$NX"
peak oa_pvomit "$FETCHED/q3/oa081/oa_pvomit.bsp" "${OA[@]}"
peak hydronex "$FETCHED/q3/oa081/hydronex.bsp" "${OA[@]}"
peak dod_snowtest_avocado "$CORPUS/goldsrc/dod_snowtest_avocado.bsp"
peak progs_dump_start "$CORPUS/quake1/progs_dump_start.bsp"
peak ericw_q1_cube "$CORPUS/quake1/ericw_q1_cube.bsp"
peak css_gg_aim_shotty "$CORPUS/source/css_v19_gg_aim_shotty.bsp"
bk_done
