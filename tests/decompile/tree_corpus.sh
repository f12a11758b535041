#!/usr/bin/env bash
# decompile_tree on every Quake 1 / BSP2 / GoldSrc map of the corpus (BK_DECOMPILE_EVERY=N: every
# Nth, as the sanitizer build runs it; 20,000 points a map there)
# args: CLI SHARED FETCHED WORK
source "$BK_TESTS/lib.sh"
bk_init "$@"
need_dir "$CORPUS/quake1"
every=${BK_DECOMPILE_EVERY:-1}
BK_TREE_MAPS=$(ls "$CORPUS"/quake1/*.bsp "$CORPUS"/goldsrc/*.bsp | grep -v '/unusual_quake2' | awk -v n="$every" '(NR - 1) % n == 0' | tr '\n' ' ')
[[ $every == 1 ]] || export BK_TREE_POINTS=20000
export BK_TREE_MAPS
exec bash "$BK_TESTS/decompile/tree.sh" "$@"
