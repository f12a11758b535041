#!/usr/bin/env bash
# bspkit render against three.js in headless Chromium (tests/tools/render.mjs --mode full), whole
# process each, one 640x480 view from the first player spawn of one map per family, median of N
# runs, alternately in the same run (only the ratio compares); then the peak memory of bspkit
# render (GNU time's maximum resident set) against the input's size.
# usage: bench/render_vs_threejs.sh [BUILD_DIR] [N]   (needs chromium, node, /usr/bin/time)
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-$ROOT/build}/bspkit
N=${2:-3}
C=$ROOT/../shared/corpus
Q=${BSPKIT_CORPUS:-$HOME/.cache/bspkit-corpus}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
maps=(
  "goldsrc|$C/goldsrc/dod_snowtest_avocado.bsp|--wad $C/wad3/dod_avalanche.wad"
  "quake1|$C/quake1/progs_dump_start.bsp|"
  "source|$C/source/tf2c_v20_lzma_tdm_wintercastle.bsp|"
  "quake3|$Q/q3/oa081/ctf_inyard.bsp|--game-dir $Q/pk3/oa-pak4-textures.pk3 --game-dir $Q/pk3/oa-pak6-misc.pk3"
)
med() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
secs() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null 2>&1; t1=$(date +%s.%N); echo "$t1 - $t0" | bc -l; }
echo "| map | bspkit render (s) | three.js in Chromium (s) | ratio | bspkit peak RSS (MB) | input (MB) | RSS / input |"
echo "|---|---|---|---|---|---|---|"
for m in "${maps[@]}"; do
  IFS='|' read -r fam map opts <<<"$m"
  [[ -f $map ]] || { echo "| $fam | (missing) |"; continue; }
  # shellcheck disable=SC2086
  "$B" render "$map" -o "$T/bk.png" --size 640x480 --json $opts >"$T/bk.json" 2>/dev/null || { echo "| $fam | failed |"; continue; }
  cam=$(/usr/bin/python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(*j['eye'], j['yaw'], j['pitch'])" "$T/bk.json")
  # shellcheck disable=SC2086
  "$B" convert "$map" -o "$T/m.glb" -q $opts
  : >"$T/a"; : >"$T/b"
  for _ in $(seq "$N"); do
    # shellcheck disable=SC2086
    secs "$B" render "$map" -o "$T/bk.png" --size 640x480 $opts >>"$T/a"
    secs node "$ROOT/tests/tools/render.mjs" --out "$T/tj" --mode full --size 640x480 --fov 90 --camera "$cam" \
      --min-coverage 0 "$T/m.glb" >>"$T/b"
  done
  a=$(med <"$T/a"); b=$(med <"$T/b")
  # shellcheck disable=SC2086
  rss=$(/usr/bin/time -f %M "$B" render "$map" -o "$T/bk.png" --size 640x480 $opts 2>&1 >/dev/null | tail -1)
  in=$(stat -c %s "$map")
  printf "| %s | %.3f | %.2f | %.1fx faster | %.1f | %.1f | %.2f |\n" "$fam" "$a" "$b" "$(echo "$b / $a" | bc -l)" \
    "$(echo "$rss / 1024" | bc -l)" "$(echo "$in / 1048576" | bc -l)" "$(echo "$rss * 1024 / $in" | bc -l)"
done
