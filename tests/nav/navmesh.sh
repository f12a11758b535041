#!/usr/bin/env bash
# bspkit navmesh / path (docs/navmesh.md) on corpus maps of Quake 1, GoldSrc, Source and fetched
# Quake 3 maps (tests/nav/nav_check.py: mesh within the bounds, spawns on it, a path between two
# spawns no shorter than the straight line), and bad input: agent sizes of 0 and 1e9, a map
# without a floor for the agent, a file that is no map, all a clear error and exit 1.
source "$BK_TESTS/lib.sh"
bk_init "$@"
need_dir "$CORPUS/goldsrc"
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }
if "$CLI" navmesh "$CORPUS/quake1/progs_dump_start.bsp" -o "$WORK/probe" -q 2>&1 | grep -q "built without Recast"; then
    echo "SKIP: bspkit built without Recast/Detour"; exit 77
fi
# Recast, Detour and the C++ runtime live in a module opened on first use (docs/navmesh.md): the
# program itself does not load them, and a module that does not load is said, with its path
if command -v ldd >/dev/null; then
    # (a sanitizer build's runtime brings libstdc++ itself: there only Recast and Detour are looked for)
    libs=$(ldd "$CLI")
    pat="libRecast|libDetour"
    grep -q "libasan\|libubsan" <<< "$libs" || pat="libstdc\+\+|$pat"
    if grep -qE "$pat" <<< "$libs"; then fail "bspkit loads the C++ runtime or Recast at start: $(grep -oE "$pat" <<< "$libs" | tr '\n' ' ')"
    else ok; fi
fi
BSPKIT_NAV_MODULE=/nonexistent/libbspkit_nav.so "$CLI" navmesh "$CORPUS/quake1/progs_dump_start.bsp" -o "$WORK/nomod" \
    > "$WORK/nomod.out" 2>&1; rc=$?
if [[ $rc != 0 ]] && grep -q "did not load: /nonexistent/libbspkit_nav.so" "$WORK/nomod.out" && [[ ! -e $WORK/nomod.obj ]]; then ok
else fail "a missing navmesh module: exit $rc, $(head -c 300 "$WORK/nomod.out")"; fi
maps=("$CORPUS/quake1/progs_dump_start.bsp" "$CORPUS/goldsrc/cs16_aim_map.bsp" "$CORPUS/goldsrc/cs16_fy_pool_day.bsp"
      "$CORPUS/source/css_v19_fy_iceworld.bsp" "$CORPUS/source/css_v19_gg_aim_shotty.bsp")
need_dir "$FETCHED/q3/oa088"
for n in aggressor am_lavaarena oa_dm1 oa_rpg3dm2; do
    [[ -f $FETCHED/q3/oa088/$n.bsp ]] && maps+=("$FETCHED/q3/oa088/$n.bsp")
done
for m in "${maps[@]}"; do
    n=$(basename "$m" .bsp)
    if python3 "$BK_TESTS/nav/nav_check.py" "$CLI" "$m" "$WORK/$n" >"$WORK/$n.txt" 2>&1; then ok; else
        fail "navmesh of $n"; grep -v '^PASS' "$WORK/$n.txt" | head -5 >&2; fi
    grep '^REACH' "$WORK/$n.txt"
    # the three files, written together
    check "$n: OUT.obj, OUT.bin, OUT.json" test -s "$WORK/$n.obj" -a -s "$WORK/$n.bin" -a -s "$WORK/$n.json"
done
check "Quake 3 maps checked" test "$(ls "$WORK"/*.txt | wc -l)" -ge 7

M=$CORPUS/goldsrc/cs16_aim_map.bsp
expect_exit 1 "$CLI" navmesh "$M" -o "$WORK/bad" --agent 0,,,
expect_stderr_has "agent radius out of range" "$CLI" navmesh "$M" -o "$WORK/bad" --agent 0,,,
expect_exit 1 "$CLI" navmesh "$M" -o "$WORK/bad" --agent 1e9,1e9,18,45
expect_stderr_has "agent radius out of range" "$CLI" path "$M" --from 0 0 0 --to 1 1 1 --agent 1e9,,,
expect_exit 1 "$CLI" navmesh "$M" -o "$WORK/bad" --agent 16,56,100,45
# no floor this agent stands on: a clear error, no file
expect_stderr_has "no walkable polygon" "$CLI" navmesh "$M" -o "$WORK/bad" --agent 16,4000,18,45
expect_exit 1 "$CLI" navmesh "$CORPUS/quake1/ericw_q1_cube.bsp" -o "$WORK/bad"
check "nothing written after a failure" test ! -e "$WORK/bad.obj" -a ! -e "$WORK/bad.bin" -a ! -e "$WORK/bad.json"
expect_exit 2 "$CLI" navmesh "$M" -o "$WORK/bad" --agent 16,x
expect_exit 2 "$CLI" path "$M" --from 0 0
w=$(ls "$CORPUS"/wad3/*.wad | head -1)
expect_stderr_has "not supported for wad3" "$CLI" navmesh "$w" -o "$WORK/bad"
# a point off the mesh: exit 1 with the reason
expect_stderr_has "not on the navmesh" "$CLI" path "$M" --from 100000 0 0 --to 0 0 0
bk_done
