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
    for cmd in "validate" "info" "convert" "render"; do
        if [[ $cmd == convert ]]; then "$CLI" convert "$f" -o "$WORK/c.glb" >"$WORK/.out" 2>"$WORK/.err"
        elif [[ $cmd == render ]]; then "$CLI" render "$f" -o "$WORK/c.png" --size 64x48 >"$WORK/.out" 2>"$WORK/.err"
        else "$CLI" $cmd "$f" >"$WORK/.out" 2>"$WORK/.err"; fi
        rc=$?
        # a definite answer: success, or exit 1 with a located error message; never a signal,
        # another code, a sanitizer report or a silent failure
        if grep -q 'Sanitizer' "$WORK/.err"; then fail "$cmd $f: sanitizer report"; head -5 "$WORK/.err" >&2
        elif [[ $rc == 0 ]]; then ok
        elif [[ $rc == 1 ]] && cat "$WORK/.out" "$WORK/.err" | grep -q 'error:'; then ok
        else fail "$cmd $f: exit $rc without a located error"; head -5 "$WORK/.err" >&2; fi
    done
done
# entity imports a fuzzer crashed on (fuzz/fuzz_entities.c: JSON and text) are imported into a map
M=$CORPUS/quake1/vektar_start.bsp
for f in "$BK_TESTS"/crashers/entities/*; do
    [[ -f $f && -f $M ]] || continue
    n=$((n + 1))
    "$CLI" entities "$M" --import "$f" -o "$WORK/e.bsp" >"$WORK/.out" 2>"$WORK/.err"
    rc=$?
    if grep -q 'Sanitizer' "$WORK/.err"; then fail "import $f: sanitizer report"; head -5 "$WORK/.err" >&2
    elif [[ $rc == 0 ]] || { [[ $rc == 1 ]] && grep -q 'error:' "$WORK/.err"; }; then ok
    else fail "import $f: exit $rc without a located error"; head -5 "$WORK/.err" >&2; fi
done
echo "$n crasher inputs"
check "the crasher inputs are there" test "$n" -gt 0
bk_done
