# Trace speed by segment length against an older build, alternately (issue 41): runs
# bench_trace_long of BASE (a copy of build/bench/bench_trace_long made at the older commit) and
# of NEW ROUNDS times each, one after the other, on the same maps and segments; then checks that
# NEW's fractions agree with BASE's (--dump / --compare, N segments per map and kind).
# usage: bash bench/trace_long.sh BASE [NEW] [MAP ...]   (ROUNDS default 2, N default 100000)
BASE=${1:?usage: trace_long.sh BASE [NEW] [MAP ...]}
NEW=${2:-build/bench/bench_trace_long}
shift 2 2>/dev/null || shift $#
ROUNDS=${ROUNDS:-2}
N=${N:-100000}
[[ -x $BASE && -x $NEW ]] || { echo "need two bench_trace_long builds ($BASE, $NEW)"; exit 1; }
for r in $(seq "$ROUNDS"); do
    echo "== round $r: base"; "$BASE" "$@"
    echo "== round $r: new"; "$NEW" "$@"
done
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
echo "== fractions, $N segments per map and kind: new against base"
"$BASE" --n "$N" --dump "$tmp" "$@" >/dev/null
"$NEW" --n "$N" --compare "$tmp" "$@"
