#!/usr/bin/env bash
# A whole archive converted and queried in parallel (docs/scale.md): every corpus map (shared
# corpus + the fetched Quake 3 maps) to .glb plus 10,000 traces each, the unit of work one file:
#   1. GNU parallel over the CLI (`parallel -j N`: bspkit convert, then bspkit trace --batch);
#   2. Dask over the Python package (bench/scale.py: a LocalCluster of N worker processes),
#      against the same loop in one process.
# Needs `make python`, Debian's parallel, python3-dask and python3-distributed.
# usage: bench/scale.sh [CLI] [JOBS]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
CLI=$(realpath "${1:-$ROOT/build/bspkit}")
JOBS=${2:-2}
PY=$ROOT/build/pyenv/bin/python
OUT=$(mktemp -d /tmp/bspkit-scale.XXXXXX)
trap 'rm -rf "$OUT"' EXIT
mapfile -t MAPS < <(ls "$ROOT"/../shared/corpus/*/*.bsp "${BSPKIT_CORPUS:-$HOME/.cache/bspkit-corpus}"/q3/*/*.bsp)
echo "${#MAPS[@]} maps, $(du -cb "${MAPS[@]}" | tail -1 | awk '{printf "%.0f MB", $1/1e6}')"
# the CLI's unit of work: convert, then 10,000 traces from the map's entity origins
export CLI OUT
one() {
    local m=$1 b; b=$(basename "${m%.bsp}")
    "$CLI" convert "$m" -o "$OUT/cli/$b.glb" -q 2>/dev/null || return 0
    "$CLI" entities "$m" --json 2>/dev/null | "$PY" -c '
import json, sys, random
random.seed(0)
o = [e for e in json.load(sys.stdin) for k, v in e if k == "origin" and len(v.split()) == 3]
pts = []
for e in o:
    try: pts.append([float(x) for k, v in e if k == "origin" for x in v.split()][:3])
    except ValueError: pass
for i in range(10000 if pts else 0):
    a = random.choice(pts); print(*a, *(x + random.gauss(0, 256) for x in a))
' | "$CLI" trace "$m" --batch >/dev/null 2>&1 || true
}
export -f one
export PY
mkdir -p "$OUT/cli"
for j in 1 "$JOBS"; do
    t0=$(date +%s.%N)
    printf '%s\n' "${MAPS[@]}" | parallel -j "$j" one
    t1=$(date +%s.%N)
    echo "GNU parallel -j $j over the CLI: $(echo "$t1 - $t0" | bc) s"
done
"$PY" "$ROOT/bench/scale.py" "$OUT/py" "$JOBS" "${MAPS[@]}"
