#!/usr/bin/env bash
# Faces face the playable space: every world triangle of a converted map has empty (not solid)
# space in front of it, by the map's own BSP tree (facing_check.py reads it). Source stores each
# face with the plane it looks along (side 1 faces use the flipped twin plane), which bspkit once
# flipped again, turning a third of the walls away from the player.
source "$BK_TESTS/lib.sh"
bk_init "$@"
PY=/usr/bin/python3
[[ -d $CORPUS/source ]] || { echo "SKIP: corpus missing"; exit 77; }
n=0
for m in "$CORPUS"/source/*.bsp; do
    b=$(basename "$m" .bsp)
    case $b in unusual_*|vtmb_*) continue ;; esac
    "$CLI" convert "$m" -o "$WORK/$b.glb" -q --no-textures 2>/dev/null || { fail "$b: convert"; continue; }
    out=$($PY "$BK_TESTS/source/facing_check.py" "$m" "$WORK/$b.glb"); rc=$?
    [[ $rc == 77 ]] && continue
    echo "$b $out"
    check "$b: world faces face empty space" test $rc -eq 0
    n=$((n + 1))
done
check "maps checked ($n)" test "$n" -ge 10
bk_done
