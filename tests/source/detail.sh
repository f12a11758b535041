#!/usr/bin/env bash
# Detail props one by one and cubemaps (props --json: detail_props, cubemaps) on every Source
# corpus map, element by element against a reader of the game lump and lump 42 written after
# Valve's gamebspfile.h / bspfile.h (source/detail.py), the cubemap VTFs found by Python's zipfile.
source "$BK_TESTS/lib.sh"
bk_init "$@"
need_dir "$CORPUS/source"
shopt -s nullglob
nd=0; nc=0
for m in "$CORPUS"/source/*.bsp; do
    case $(basename "$m") in unusual_*) continue ;; esac
    if /usr/bin/python3 "$BK_TESTS/source/detail.py" "$CLI" "$m" >"$WORK/d.txt" 2>&1; then ok; else fail "$(basename "$m")"; cat "$WORK/d.txt" >&2; fi
    read -r d c < <(sed -n 's/.*: \([0-9]*\) detail props, \([0-9]*\) cubemaps.*/\1 \2/p' "$WORK/d.txt")
    nd=$((nd + ${d:-0})); nc=$((nc + ${c:-0}))
done
echo "$nd detail props, $nc cubemaps compared"
check "detail props compared ($nd)" test "$nd" -ge 10000
check "cubemaps compared ($nc)" test "$nc" -ge 200
bk_done
