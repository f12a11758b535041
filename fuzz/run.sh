#!/usr/bin/env bash
# Run every fuzz target for FUZZ_SECONDS with its seeds (fuzz/NAME.seeds: one glob per line,
# relative to the repository root; fuzz/NAME.seeds.py SEEDDIR, when there, makes more). A crash is copied to tests/crashers/NAME/ and fails the run:
# commit it, fix the bug, and the crasher test keeps it fixed.
set -uo pipefail
BUILD=${1:-build-fuzz}
SECS=${FUZZ_SECONDS:-30}
cd "$(dirname "$0")/.."
rc=0
for bin in "$BUILD"/fuzz/fuzz_*; do
    [[ -x $bin ]] || continue
    name=$(basename "$bin")
    seeds=$(mktemp -d)
    if [[ -f fuzz/$name.seeds ]]; then
        while read -r pat; do
            [[ -z $pat || $pat == \#* ]] && continue
            for f in $pat; do [[ -f $f ]] && cp "$f" "$seeds/" 2>/dev/null; done
        done < "fuzz/$name.seeds"
    fi
    # seeds made at run time from the corpus (inputs in a target's own layout)
    [[ -f fuzz/$name.seeds.py ]] && python3 "fuzz/$name.seeds.py" "$seeds" || true
    for f in tests/crashers/"${name#fuzz_}"/*; do [[ -f $f ]] && cp "$f" "$seeds/"; done
    out=$(mktemp -d)
    echo "fuzz: $name for ${SECS}s with $(ls "$seeds" | wc -l) seeds"
    if ! "$bin" -max_total_time="$SECS" -max_len=4000000 -rss_limit_mb=4096 -timeout=20 \
            -artifact_prefix="$out/" "$seeds" >"$out/log" 2>&1; then
        mkdir -p "tests/crashers/${name#fuzz_}"
        for c in "$out"/crash-* "$out"/leak-* "$out"/timeout-* "$out"/oom-*; do
            [[ -f $c ]] && cp "$c" "tests/crashers/${name#fuzz_}/" && echo "  new crasher: tests/crashers/${name#fuzz_}/$(basename "$c")"
        done
        tail -30 "$out/log"
        rc=1
    else
        grep -E '^Done|stat::number_of_executed_units' "$out/log" | tail -1
    fi
    rm -rf "$seeds" "$out"
done
exit $rc
