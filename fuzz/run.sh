#!/usr/bin/env bash
# Run every fuzz target for FUZZ_SECONDS with its seeds (fuzz/NAME.seeds: one glob per line,
# relative to the repository root; fuzz/NAME.seeds.py SEEDDIR, when there, makes more). A crash is
# copied to tests/crashers/NAME/ (BK_CRASHERS_DIR/NAME/ when set), printed gzip+base64 between
# BEGIN/END lines (so a CI log alone gives it back) and fails the run: commit it, fix the bug, and
# the crasher test keeps it fixed.
# A timeout or out-of-memory artifact counts only when it happens again with the input alone
# (three times the time limit, a fresh process: a loaded machine or memory grown over a long run
# is not a bug); one that does not is reported as not reproduced and does not fail the run.
set -uo pipefail
BUILD=${1:-build-fuzz}
SECS=${FUZZ_SECONDS:-30}
TIMEOUT=20 RSS_MB=4096
cd "$(dirname "$0")/.."
CRASHERS=${BK_CRASHERS_DIR:-tests/crashers}
rc=0

# keep input $1 of target $2: copied to $CRASHERS/$2/, printed as base64 for the log
keep() {
    local c=$1 dir=$CRASHERS/$2 rel
    mkdir -p "$dir" && cp "$c" "$dir/"
    rel=$dir/$(basename "$c")
    echo "  new crasher: $rel ($(stat -c %s "$c") bytes). From this log:"
    echo "    sed -n '/^-----BEGIN $(basename "$c")-----\$/,/^-----END/{//!p}' LOG | base64 -d | gunzip > $(basename "$c")"
    echo "-----BEGIN $(basename "$c")-----"
    gzip -9c "$c" | base64 -w 76
    echo "-----END $(basename "$c")-----"
}

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
    for f in "$CRASHERS"/"${name#fuzz_}"/*; do [[ -f $f ]] && cp "$f" "$seeds/"; done
    out=$(mktemp -d)
    echo "fuzz: $name for ${SECS}s with $(ls "$seeds" | wc -l) seeds"
    if ! "$bin" -max_total_time="$SECS" -max_len=4000000 -rss_limit_mb=$RSS_MB -timeout=$TIMEOUT \
            -artifact_prefix="$out/" "$seeds" >"$out/log" 2>&1; then
        found=0 flaky=0
        for c in "$out"/crash-* "$out"/leak-* "$out"/timeout-* "$out"/oom-*; do
            [[ -f $c ]] || continue
            case $(basename "$c") in
            timeout-* | oom-*)
                if "$bin" -timeout=$((TIMEOUT * 3)) -rss_limit_mb=$RSS_MB "$c" >"$out/again" 2>&1; then
                    echo "  $(basename "$c"): not reproduced alone (the machine's load or the run's" \
                         "grown memory, not this input): not counted"
                    flaky=$((flaky + 1))
                    continue
                fi
                tail -5 "$out/again" ;;
            esac
            found=1
            keep "$c" "${name#fuzz_}"
        done
        if (( found || !flaky )); then
            # a crash, or a failure that left no input (the target did not start): both fail
            tail -30 "$out/log"
            rc=1
        fi
    else
        grep -E '^Done|stat::number_of_executed_units' "$out/log" | tail -1
    fi
    rm -rf "$seeds" "$out"
done
exit $rc
