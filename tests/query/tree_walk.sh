#!/usr/bin/env bash
# `query --batch` against a plain walk of each map's tree written in the test (tree_walk.py,
# numpy): 10^5 random points per map within its world bounds - a tenth on integer coordinates, a
# tenth exactly on a node's plane - must land in the leaf the walk reaches (d < 0: back, else
# front), and inside that leaf's bounds. Every GoldSrc, Quake 1 and Source map of the corpus and
# the BSP2 one; of the 128 fetched Quake 3 maps a spread of 12 (every 11th of the list sorted by
# set and name, to keep the test near 30 CPU-s), chosen the same way on every run.
source "$BK_TESTS/lib.sh"
bk_init "$@"
need_numpy
corpus_maps
need_file "$CORPUS/quake1/unusual_bsp2_remakequake_mp_lobby.bsp"
maps+=("$CORPUS/quake1/unusual_bsp2_remakequake_mp_lobby.bsp")
need_dir "$FETCHED/q3"
q3=("$FETCHED"/q3/*/*.bsp)
(( ${#q3[@]} >= 100 )) || { echo "SKIP: only ${#q3[@]} fetched Quake 3 maps"; exit 77; }
for ((i = 0; i < ${#q3[@]}; i += 11)); do maps+=("${q3[i]}"); done
# two processes, half the maps each (the two cores)
half=$(( (${#maps[@]} + 1) / 2 ))
/usr/bin/python3 "$BK_TESTS/query/tree_walk.py" "$CLI" 100000 "${maps[@]:0:half}" > "$WORK/a.log" 2>&1 &
a=$!
/usr/bin/python3 "$BK_TESTS/query/tree_walk.py" "$CLI" 100000 "${maps[@]:half}" > "$WORK/b.log" 2>&1
rb=$?
wait $a; ra=$?
check "tree_walk.py, first half (see below)" test $ra -eq 0
check "tree_walk.py, second half (see below)" test $rb -eq 0
cat "$WORK/a.log" "$WORK/b.log"
n=$(cat "$WORK/a.log" "$WORK/b.log" | grep -c ' points (')
check "every map walked ($n of ${#maps[@]})" test "$n" -eq "${#maps[@]}"
bk_done
