#!/usr/bin/env bash
# fuzz/run.sh (make fuzz, CI) with stand-in targets that behave as libFuzzer does: a crash fails
# the run, is kept under BK_CRASHERS_DIR/NAME/ and printed (gzip + base64) so that the log alone
# gives back the same bytes; a timeout that does not happen again with the input alone does not
# fail the run; one that does, fails it; a clean run passes.
# args: CLI SHARED FETCHED WORK
source "$BK_TESTS/lib.sh"
bk_init "$@"
RUN=$BK_TESTS/../fuzz/run.sh
# a stand-in libFuzzer target: fuzzing (a folder argument) writes an artifact as libFuzzer does
# and fails; replaying (a file argument) fails only for the kinds that reproduce
fake() {   # fake BUILD NAME KIND   (KIND: crash, flaky-timeout, timeout, clean)
    mkdir -p "$1/fuzz"
    cat > "$1/fuzz/$2" <<SH
#!/usr/bin/env bash
prefix= last=
for a in "\$@"; do case \$a in -artifact_prefix=*) prefix=\${a#*=};; -*) ;; *) last=\$a;; esac; done
if [[ -f \$last ]]; then   # replay one input
    case $3 in flaky-timeout) exit 0;; *) echo "==1== ERROR: libFuzzer: timeout"; exit 70;; esac
fi
case $3 in
clean) echo "Done 1234 runs in 1 second(s)"; exit 0;;
crash) printf 'BSP\x1e\x00\xff%s' "\$(head -c 3000 /dev/urandom | od -An -tx1)" > "\${prefix}crash-0123abcd"
       echo "==1==ERROR: AddressSanitizer: heap-buffer-overflow"; exit 1;;
*) printf 'slow input' > "\${prefix}timeout-4567"; echo "==1== ERROR: libFuzzer: timeout after 21 seconds"; exit 70;;
esac
SH
    chmod +x "$1/fuzz/$2"
}
export FUZZ_SECONDS=1 BK_CRASHERS_DIR=$WORK/crashers

fake "$WORK/b-crash" fuzz_fakecrash crash
bash "$RUN" "$WORK/b-crash" >"$WORK/crash.log" 2>&1; rc=$?
check "a crash fails the run (exit $rc)" test "$rc" = 1
kept=$(ls "$WORK"/crashers/fakecrash/crash-* 2>/dev/null | head -1)
check "the crash is kept under BK_CRASHERS_DIR/fakecrash/" test -s "$kept"
sed -n '/^-----BEGIN crash-0123abcd-----$/,/^-----END/{//!p}' "$WORK/crash.log" | base64 -d | gunzip >"$WORK/back" 2>/dev/null
check "the log's base64 gives back the crasher byte for byte" cmp -s "$WORK/back" "$kept"
check "the log says how to get it back" grep -q 'base64 -d | gunzip' "$WORK/crash.log"
check "nothing written in the source tree" test ! -e "$BK_TESTS/crashers/fakecrash"

fake "$WORK/b-flaky" fuzz_fakeflaky flaky-timeout
bash "$RUN" "$WORK/b-flaky" >"$WORK/flaky.log" 2>&1; rc=$?
check "a timeout not reproduced alone passes (exit $rc)" test "$rc" = 0
check "... and says so" grep -q 'not reproduced alone' "$WORK/flaky.log"
check "... and keeps nothing" test ! -e "$WORK/crashers/fakeflaky"

fake "$WORK/b-hang" fuzz_fakehang timeout
bash "$RUN" "$WORK/b-hang" >"$WORK/hang.log" 2>&1; rc=$?
check "a timeout reproduced alone fails (exit $rc)" test "$rc" = 1
check "... and is kept" test -s "$WORK/crashers/fakehang/timeout-4567"

fake "$WORK/b-clean" fuzz_fakeclean clean
fake "$WORK/b-clean" fuzz_fakeclean2 clean
bash "$RUN" "$WORK/b-clean" >"$WORK/clean.log" 2>&1; rc=$?
check "clean targets pass (exit $rc)" test "$rc" = 0
check "... each one run" test "$(grep -c '^Done 1234 runs' "$WORK/clean.log")" = 2

# CI (.ci/run) fails when make fuzz does: no 'if !' around it that only prints
check ".ci/run lets a failing make fuzz fail CI" bash -c "! grep -qE '^if ! make fuzz' '$BK_TESTS/../.ci/run'"
(( FAILS )) && sed 's/^/    /' "$WORK"/*.log | head -40 >&2
bk_done
