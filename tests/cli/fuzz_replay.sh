#!/usr/bin/env bash
# Each fuzz target, built as a plain program (replay_NAME), replays the inputs that once crashed
# it (tests/crashers/NAME/) and its hand-made seeds (tests/data/fuzz/NAME/): exit 0 and no
# sanitizer report for each. (cli_crashers replays the crashers through the CLI as well.)
# Usage: fuzz_replay.sh TESTS_DIR REPLAY_PROGRAM...
TESTS=$1; shift
shopt -s nullglob
pass=0 fails=0 inputs=0
err=$(mktemp); trap 'rm -f "$err"' EXIT
for prog in "$@"; do
    name=$(basename "$prog"); name=${name#replay_}
    for f in "$TESTS"/crashers/"$name"/* "$TESTS"/data/fuzz/"$name"/*; do
        [[ -f $f ]] || continue
        inputs=$((inputs + 1))
        "$prog" "$f" >/dev/null 2>"$err"; rc=$?
        if [[ $rc == 0 ]] && ! grep -q 'Sanitizer' "$err"; then pass=$((pass + 1))
        else fails=$((fails + 1)); echo "FAIL: $name $f: exit $rc" >&2; head -5 "$err" >&2; fi
    done
done
echo "$inputs inputs over $# targets: $pass passed, $fails failed"
[[ $fails == 0 && $inputs -gt 0 ]]
