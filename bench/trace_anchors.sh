# Traces against two anchors built outside the project (issue 41): ioquake3's own CM_BoxTrace and
# Embree's first hit, on the same segments. bench_trace_long --segments writes each map's segments
# (short / long / span, point and box) with bspkit's fractions; each anchor is a program taking
#   IOQ3_TRACE   MAP.bsp SEGMENTS OUT            (Quake 3 maps; point and box, MASK_PLAYERSOLID)
#   EMBREE_TRACE COLLISION.obj SEGMENTS OUT      (point blocks only; the triangles of
#                                                 bspkit convert --collision --scale 1 --keep-z-up)
# that prints "KIND M/s" per block and writes per block the header and one float fraction per
# segment. Neither anchor's code is in this project; an anchor not named (or not executable) is
# skipped. Reports each anchor's speed beside bspkit's (bench_trace_long, the same run, one core)
# and how many fractions agree to 1e-3.
# usage: IOQ3_TRACE=... EMBREE_TRACE=... bash bench/trace_anchors.sh [MAP.bsp ...]
BK=${BK:-build/bspkit}
BENCH=${BENCH:-build/bench/bench_trace_long}
N=${N:-20000}
Q3=${BSPKIT_CORPUS:-$HOME/.cache/bspkit-corpus}/q3
[[ $# -gt 0 ]] || set -- "$Q3"/oa081/oa_dm1.bsp "$Q3"/oa081/czest2ctf.bsp "$Q3"/oa081/ctf_inyard.bsp \
    "$Q3"/oa081/ctf_compromise.bsp "$Q3"/nexuiz/ons-reborn.bsp
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for map in "$@"; do
    [[ -f $map ]] || { echo "skip $map (absent)"; continue; }
    name=$(basename "$map" .bsp)
    echo "== $name"
    "$BENCH" --n "$N" --segments "$tmp/seg" "$map" | sed 's/^/bspkit: /'
    outs=()
    if [[ -x ${IOQ3_TRACE:-} ]]; then
        rm -f "$tmp/ioq3"
        "$IOQ3_TRACE" "$map" "$tmp/seg" "$tmp/ioq3" 2>/dev/null | tr '\n' ' ' | sed 's/^/ioquake3: /'; echo
        [[ -s $tmp/ioq3 ]] && outs+=("ioquake3=$tmp/ioq3")
    fi
    if [[ -x ${EMBREE_TRACE:-} ]] && "$BK" convert "$map" -o "$tmp/c.obj" --collision --scale 1 --keep-z-up >/dev/null 2>&1; then
        rm -f "$tmp/embree"
        "$EMBREE_TRACE" "$tmp/c.obj" "$tmp/seg" "$tmp/embree" 2>/dev/null | tr '\n' ' ' | sed 's/^/embree: /'; echo
        [[ -s $tmp/embree ]] && outs+=("embree=$tmp/embree")
    fi
    /usr/bin/python3 - "$tmp/seg" "${outs[@]}" <<'PY'
import struct, sys
def blocks(path, rec):
    d = open(path, 'rb').read(); at = 0; out = {}
    while at + 12 <= len(d):
        kind, box, n = struct.unpack_from('<3I', d, at); at += 12
        out[(kind, box)] = [struct.unpack_from('<%df' % rec, d, at + i * 4 * rec) for i in range(n)]
        at += 4 * rec * n
    return out
seg = blocks(sys.argv[1], 7)
for arg in sys.argv[2:]:
    who, path = arg.split('=', 1)
    other = blocks(path, 1)
    line = []
    for (kind, box), recs in sorted(seg.items()):
        if (kind, box) not in other: continue
        fr = other[(kind, box)]
        agree = early = late = 0
        for r, (f,) in zip(recs, fr):
            d = r[6] - f
            if abs(d) <= 1e-3: agree += 1
            elif d < 0: early += 1
            else: late += 1
        n = len(recs)
        line.append('%s%s %.2f%% (bspkit earlier %d, later %d of %d)' % (('short', 'long', 'span')[kind], '-box' if box else '',
                    100.0 * agree / max(n, 1), early, late, n))
    print('%s agree to 1e-3: %s' % (who, '; '.join(line)))
PY
done
