#!/usr/bin/env bash
# bspkit render against the three.js reference: each map drawn from its first player spawn by
# bspkit render, then converted to .glb and drawn by tests/tools/render.mjs --mode full (three.js
# in headless Chromium, every map in one browser run) from the eye bspkit reports; the two
# pictures differ by RMSE <= 3%.
# Maps of every family: GoldSrc with its WAD, Quake 1, Source (LZMA lumps, props), Quake 3
# (OpenArena with its textures; Nexuiz with its display gamma).
source "$BK_TESTS/lib.sh"
bk_init "$@"
PY=/usr/bin/python3
command -v chromium >/dev/null || bk_skip "chromium not installed (scripts/install-deps --test)"
command -v node >/dev/null || bk_skip "node not installed"
$PY -c 'import numpy' 2>/dev/null || bk_skip "python3-numpy missing (scripts/install-deps --test)"
need_file "$CORPUS/goldsrc/dod_snowtest_avocado.bsp" "$CORPUS/wad3/dod_avalanche.wad" \
    "$CORPUS/quake1/progs_dump_start.bsp" "$CORPUS/source/tf2c_v20_lzma_tdm_wintercastle.bsp"
# ref NAME MAP [conversion options]: bspkit's picture and the .glb from the same eye; three.js
# draws every .glb at the end, in one browser run (compare_all)
THREE=(); NAMES=()
ref() {
    local name=$1 map=$2; shift 2
    if ! "$CLI" render "$map" -o "$WORK/$name.bk.png" --size 640x480 --json "$@" >"$WORK/$name.json" 2>"$WORK/.err"; then
        fail "$name: bspkit render"; head -3 "$WORK/.err" >&2; return
    fi
    local cam
    cam=$($PY -c "import json,sys; j=json.load(open(sys.argv[1])); print(*j['eye'], j['yaw'], j['pitch'])" "$WORK/$name.json")
    "$CLI" convert "$map" -o "$WORK/$name.glb" -q "$@" || { fail "$name: convert"; return; }
    echo "$cam" > "$WORK/$name.cam"
    THREE+=(--camera "$cam" "$WORK/$name.glb"); NAMES+=("$name")
}
compare_all() {
    ((${#NAMES[@]})) || return 0
    node "$BK_TESTS/tools/render.mjs" --out "$WORK/tj" --mode full --size 640x480 --fov 90 --min-coverage 0 \
        "${THREE[@]}" >"$WORK/tj.log"
    local name
    for name in "${NAMES[@]}"; do
        # render.mjs prints one line per file: it loaded and drew
        grep -qF "{\"file\":\"$WORK/$name.glb\",\"pass\":true" "$WORK/tj.log" || { fail "$name: three.js render"; continue; }
        if "$PY" "$BK_TESTS/tools/render_check.py" rmse "$WORK/$name.bk.png" "$WORK/tj/$name.png" 0.03 >"$WORK/$name.rmse"; then ok
        else fail "$name: bspkit render differs from three.js"; fi
        echo "$name ($(cat "$WORK/$name.cam")): $(cat "$WORK/$name.rmse")"
    done
}
ref goldsrc "$CORPUS/goldsrc/dod_snowtest_avocado.bsp" --wad "$CORPUS/wad3/dod_avalanche.wad"
ref quake1 "$CORPUS/quake1/progs_dump_start.bsp"
ref source "$CORPUS/source/tf2c_v20_lzma_tdm_wintercastle.bsp"
if [[ -f $FETCHED/q3/oa081/ctf_inyard.bsp && -f $FETCHED/pk3/oa-pak4-textures.pk3 ]]; then
    ref quake3 "$FETCHED/q3/oa081/ctf_inyard.bsp" --game-dir "$FETCHED/pk3/oa-pak4-textures.pk3" \
        --game-dir "$FETCHED/pk3/oa-pak6-misc.pk3"
    ref nexuiz "$FETCHED/q3/nexuiz/ons-reborn.bsp" --game-dir "$FETCHED/pk3/nexuiz-data.pk3"
else
    echo "note: the Quake 3 corpus is not fetched (make corpus): Quake 3 maps not compared"
fi
compare_all
bk_done
