#!/usr/bin/env bash
# Faces face the playable space: every world triangle of a converted map has empty (not solid)
# space in front of it, by the map's own BSP tree (facing_check.py reads it). Source stores each
# face with the plane it looks along (side 1 faces use the flipped twin plane), which bspkit once
# flipped again, turning a third of the walls away from the player.
source "$BK_TESTS/lib.sh"
bk_init "$@"
PY=/usr/bin/python3
need_dir "$CORPUS/source"
pairs=()
for m in "$CORPUS"/source/*.bsp; do
    b=$(basename "$m" .bsp)
    case $b in unusual_*|vtmb_*) continue ;; esac
    "$CLI" convert "$m" -o "$WORK/$b.glb" -q --no-textures 2>/dev/null || { fail "$b: convert"; continue; }
    pairs+=("$m" "$WORK/$b.glb")
done
# one Python process for every map
$PY "$BK_TESTS/source/facing_check.py" "${pairs[@]}" > "$WORK/facing.txt" 2>&1 || fail "facing_check.py: $(tail -2 "$WORK/facing.txt")"
cat "$WORK/facing.txt"
while read -r verdict b rest; do
    if [[ $verdict == PASS ]]; then ok; else fail "$b: world faces face empty space: $rest"; fi
done < <(grep -E '^(PASS|FAIL) ' "$WORK/facing.txt")
n=$(grep -c '^PASS ' "$WORK/facing.txt")
check "maps checked ($n)" test "$n" -ge 10
bk_done
