#!/usr/bin/env bash
# Every input a fuzzer once crashed on (tests/crashers/*/) must now fail cleanly or load:
# exit 0 or 1, never a signal or a sanitizer report.
source "$BK_TESTS/lib.sh"
bk_init "$@"
shopt -s nullglob
n=0
for f in "$BK_TESTS"/crashers/*/*; do
    [[ -f $f ]] || continue
    n=$((n + 1))
    for cmd in "validate" "info" "convert"; do
        if [[ $cmd == convert ]]; then "$CLI" convert "$f" -o "$WORK/c.glb" >/dev/null 2>"$WORK/.err"
        else "$CLI" $cmd "$f" >/dev/null 2>"$WORK/.err"; fi
        rc=$?
        if [[ $rc == 0 || $rc == 1 ]] && ! grep -q 'Sanitizer' "$WORK/.err"; then ok; else fail "$cmd $f: exit $rc"; head -5 "$WORK/.err" >&2; fi
    done
done
echo "$n crasher inputs"
bk_done
