#!/usr/bin/env bash
# bspkit render on real maps of every family: PVS culling draws the same picture as drawing
# everything (RMSE <= 0.5%) with fewer triangles; every player spawn lands on a drawn pixel of the
# overview through its CS-style .txt; a batch writes one thumbnail per map; models are drawn;
# hostile files and absurd arguments give clear errors.
source "$BK_TESTS/lib.sh"
bk_init "$@"
PY=/usr/bin/python3
$PY -c 'import numpy' 2>/dev/null || bk_skip "python3-numpy missing (scripts/install-deps --test)"
RC=("$PY" "$BK_TESTS/tools/render_check.py")
Q1=$CORPUS/quake1/progs_dump_start.bsp
GS=$CORPUS/goldsrc/cs16_fy_pool_day.bsp
SRC=$CORPUS/source/css_v19_fy_iceworld.bsp
need_file "$Q1" "$GS" "$SRC"
json_num() { sed -n "s/^[[:space:]]*\"$1\":[[:space:]]*\\([-0-9.e]*\\).*/\\1/p" "$2"; }

# --- PVS culling: the same picture, fewer triangles ------------------------------------------
pvs() { # pvs NAME MAP [options]
    local name=$1 map=$2; shift 2
    "$CLI" render "$map" -o "$WORK/$name.pvs.png" --size 640x480 --json "$@" >"$WORK/$name.pvs.json" 2>"$WORK/.err" ||
        { fail "render $name"; head -3 "$WORK/.err" >&2; return; }
    "$CLI" render "$map" -o "$WORK/$name.all.png" --size 640x480 --json --no-pvs "$@" >"$WORK/$name.all.json" 2>/dev/null ||
        { fail "render $name --no-pvs"; return; }
    local all vis c
    all=$(json_num triangles "$WORK/$name.pvs.json"); vis=$(json_num triangles_pvs "$WORK/$name.pvs.json")
    c=$(json_num cluster "$WORK/$name.pvs.json")
    check "$name: the eye has a cluster ($c)" test "$c" -ge 0
    check "$name: PVS culling leaves fewer triangles ($vis of $all)" test "$vis" -lt "$all"
    check "$name: --no-pvs draws from all ($(json_num triangles_pvs "$WORK/$name.all.json"))" \
        test "$(json_num triangles_pvs "$WORK/$name.all.json")" -eq "$all"
    if "${RC[@]}" rmse "$WORK/$name.pvs.png" "$WORK/$name.all.png" 0.005 >"$WORK/$name.rmse"; then ok
    else fail "$name: PVS culling changes the picture: $(cat "$WORK/$name.rmse")"; fi
}
pvs quake1 "$Q1"
pvs goldsrc "$GS"
pvs source "$SRC"
AGG=$FETCHED/q3/oa088/aggressor.bsp
OA=$FETCHED/pk3/oa-pak4-textures.pk3
[[ -f $AGG ]] && pvs quake3 "$AGG" --spawn 2
# a view with the skybox in it (drawn whatever the eye's cluster, as the engines draw it)
TOX=$FETCHED/q3/nexuiz/toxic.bsp
[[ -f $TOX && -f $FETCHED/pk3/nexuiz-data.pk3 ]] && pvs nexuiz-skybox "$TOX" --spawn 2 --game-dir "$FETCHED/pk3/nexuiz-data.pk3"

# --- overview: spawns through the .txt ------------------------------------------------------
overview() { # overview NAME MAP
    local name=$1 map=$2
    if "$CLI" render "$map" --overview -o "$WORK/ov_$name.png" >/dev/null 2>"$WORK/.err"; then ok
    else fail "overview $name"; head -3 "$WORK/.err" >&2; return; fi
    check "overview $name: the .txt beside it" grep -q '"pos_x"' "$WORK/ov_$name.txt"
    "$CLI" entities --json "$map" >"$WORK/$name.ents.json"
    if "${RC[@]}" spawns "$WORK/ov_$name.png" "$WORK/ov_$name.txt" "$WORK/$name.ents.json" >"$WORK/ov_$name.log"; then ok
    else fail "overview $name: spawns off the map"; cat "$WORK/ov_$name.log" >&2; fi
}
overview quake1 "$Q1"
overview goldsrc "$GS"
overview source "$SRC"
[[ -f $AGG ]] && overview quake3 "$AGG"
# a slice of heights draws less than the whole; spawn marks are drawn
"$CLI" render "$GS" --overview --z-range -230 -200 -o "$WORK/slice.png" >/dev/null 2>&1 && ok || fail "overview --z-range"
"$CLI" render "$GS" --overview --mark-spawns -o "$WORK/marks.png" >/dev/null 2>&1 && ok || fail "overview --mark-spawns"
check "--z-range changes the overview" test "$(cmp -s "$WORK/slice.png" "$WORK/ov_goldsrc.png"; echo $?)" = 1
check "--mark-spawns changes the overview" test "$(cmp -s "$WORK/marks.png" "$WORK/ov_goldsrc.png"; echo $?)" = 1

# --- batch: one thumbnail per map, --json per file, a bad file does not stop the rest -------
head -c 3000 "$Q1" >"$WORK/broken.bsp"
expect_exit 1 "$CLI" render "$Q1" "$GS" "$WORK/broken.bsp" -o "$WORK/thumbs/" -j 2 --json
check "batch: a PNG per good map" test -s "$WORK/thumbs/progs_dump_start.png" -a -s "$WORK/thumbs/cs16_fy_pool_day.png"
check "batch: --json says which failed" grep -q '"input":"[^"]*broken.bsp".*"ok":false' "$WORK/.out"
check "batch: --json says which worked" test "$(grep -c '"ok":true' "$WORK/.out")" -eq 2
only_files "batch output" "$WORK/thumbs" progs_dump_start.png cs16_fy_pool_day.png

# --- models: a three-quarter view ------------------------------------------------------------
if [[ -f $FETCHED/dpm/spiderbot.dpm ]]; then
    "$CLI" render "$FETCHED/dpm/spiderbot.dpm" -o "$WORK/dpm.png" --size 320x240 >/dev/null 2>&1 && ok || fail "render a DPM"
    if "${RC[@]}" drawn "$WORK/dpm.png" 0.1 >/dev/null; then ok; else fail "the DPM covers little of its picture"; fi
fi

# --- absurd arguments and hostile files: clear errors, nothing written -----------------------
expect_exit 2 "$CLI" render "$Q1" -o "$WORK/x.png" --size 0x0
check "--size 0x0 says why" grep -q "width and height must be 1..16384" "$WORK/.err"
expect_exit 2 "$CLI" render "$Q1" -o "$WORK/x.png" --size 100000x100000
check "--size 100000x100000 says why" grep -q "width and height must be" "$WORK/.err"
expect_exit 2 "$CLI" render "$Q1" -o "$WORK/x.png" --size 16384x16384
expect_exit 2 "$CLI" render "$Q1" -o "$WORK/x.png" --size 12x
expect_exit 2 "$CLI" render "$Q1" -o "$WORK/x.png" --spawn 9999
check "a missing spawn says so" grep -q "no such player spawn" "$WORK/.err"
expect_exit 2 "$CLI" render "$Q1" -o "$WORK/x.png" --eye 0 0 -99999
check "an eye in solid says so" grep -q "inside a solid" "$WORK/.err"
expect_exit 2 "$CLI" render "$Q1" -o "$WORK/x.png" --eye nan 0 0
expect_exit 2 "$CLI" render "$Q1" -o "$WORK/x.png" --eye 1 2
expect_exit 2 "$CLI" render "$Q1" -o "$WORK/x.png" --fov 500
expect_exit 2 "$CLI" render "$Q1" -o "$WORK/x.png" --pitch 1e9
expect_exit 2 "$CLI" render "$Q1" -o "$WORK/x.png" --overview --z-range 10 -10
expect_exit 2 "$CLI" render "$Q1" -o "$WORK/x.png" --eye 0 0 0 --spawn 1
expect_exit 2 "$CLI" render "$Q1"
expect_exit 1 "$CLI" render "$WORK/broken.bsp" -o "$WORK/x.png"
check "a truncated map: a located error" grep -q "broken.bsp: .*error" "$WORK/.err"
expect_exit 1 "$CLI" render "$Q1" -o "$WORK/no/such/folder/x.png"
check "nothing written by the failures" test ! -e "$WORK/x.png"
expect_stdout_has "usage: bspkit render" "$CLI" render --help

# --- the spawn view's yaw: the spawn's own angle when it has one, else the most open direction ----
# (the sample's info_player_start has no angle: yaw 0 looked at a wall 128 units away). The free
# distance along the view, measured by the map's own collision hull (bspkit trace, hull 0), is
# near the longest of 16 level directions, and well over the old view's.
S=$BK_TESTS/../samples/ericw_q1_detail_fence2.bsp
"$CLI" render "$S" -o "$WORK/open.png" --size 320x180 --json >"$WORK/open.json" 2>"$WORK/.err" || fail "render the sample"
free() { # free X Y Z YAW: how far a level ray from the eye goes
    local to; to=$(python3 -c "import math; print($1 + 8192 * math.cos(math.radians($4)), $2 + 8192 * math.sin(math.radians($4)), $3)")
    "$CLI" trace "$S" --from "$1" "$2" "$3" --to $to --hull 0 --json | python3 -c "import json, sys; print(json.load(sys.stdin)['fraction'] * 8192)"
}
eye=$(python3 -c "import json; print(*json.load(open('$WORK/open.json'))['eye'])")
yaw=$(json_num yaw "$WORK/open.json")
d=$(free $eye "$yaw"); d0=$(free $eye 0)
best=0; for y in $(seq 0 22.5 337.5); do best=$(python3 -c "print(max($best, $(free $eye "$y")))"); done
check "the sample's spawn view looks along a long free line ($d units at yaw $yaw; the longest level one $best)" \
    python3 -c "import sys; sys.exit(not $d >= 0.9 * $best)"
check "... longer than the wall at yaw 0 ($d0 units)" python3 -c "import sys; sys.exit(not $d >= 1.4 * $d0)"
# a spawn with an angle keeps it: cs16_fy_pool_day's first spawn says "angles" "0 90 0"
"$CLI" render "$GS" -o "$WORK/given.png" --size 64x48 --json >"$WORK/given.json" 2>/dev/null || fail "render $GS"
want=$("$CLI" entities "$GS" --json | python3 -c "
import json, sys
for e in json.load(sys.stdin):
    d = dict(e)
    if d.get('classname', '').startswith('info_player'):
        print(float(d['angles'].split()[1]) if 'angles' in d else float(d.get('angle', 0))); break")
check "a spawn's own angle is kept (yaw $(json_num yaw "$WORK/given.json"), the entity's $want)" \
    python3 -c "import sys; sys.exit(abs($(json_num yaw "$WORK/given.json") - $want) > 1e-3)"
bk_done
