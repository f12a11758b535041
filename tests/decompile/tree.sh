#!/usr/bin/env bash
# bspkit decompile of the tree families (Quake 1, BSP2, GoldSrc: brushes rebuilt from the BSP
# tree), re-read by tree_check.py: random points inside the world agree with the map's own point
# query (solid or not) on at least 99.9%, the share of drawn faces lying on a written side with
# their texture is reported; the classic axes; a hostile tree; BSP2.
# BK_TREE_MAPS="a.bsp b.bsp" / BK_TREE_POINTS: the corpus sweep (tree_corpus.sh) reuses it.
# args: CLI SHARED FETCHED WORK
source "$BK_TESTS/lib.sh"
bk_init "$@"
CHECK="$BK_TESTS/decompile/tree_check.py"
Q1=$CORPUS/quake1
GS=$CORPUS/goldsrc
need_file "$Q1/progs_dump_pd_heal.bsp" "$GS/cs16_aim_map.bsp" "$Q1/unusual_bsp2_remakequake_mp_lobby.bsp"
maps=${BK_TREE_MAPS:-"$Q1/progs_dump_pd_heal.bsp $GS/cs16_aim_map.bsp $Q1/unusual_bsp2_remakequake_mp_lobby.bsp"}
points=${BK_TREE_POINTS:-100000}
: > "$WORK/reports.jsonl"
for map in $maps; do
    n=$(basename "$map" .bsp)
    expect_exit 0 "$CLI" decompile "$map" -o "$WORK/$n.map"
    check "$n: Valve 220 with mapversion 220" grep -q '^"mapversion" "220"$' "$WORK/$n.map"
    if python3 "$CHECK" "$CLI" "$map" "$WORK/$n.map" "$points" >> "$WORK/reports.jsonl" 2> "$WORK/$n.fail"; then ok
    else fail "tree_check.py $map"; sed 's/^/    /' "$WORK/$n.fail" | head -5 >&2; fi
done
python3 - "$WORK/reports.jsonl" <<'PYEOF' || fail "totals"
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
for r in rows:
    print('%s: %d brushes (%d world), points agree %.3f%% (solid or not %.3f%%), faces on a side with their texture %d of %d (%.1f%%)' % (
        r['map'].split('/')[-1], r['brushes'], r['world_brushes'], 100.0 * r['points_agree'] / r['points'],
        100.0 * r['points_agree_solid'] / r['points'], r['faces_on_side'], r['faces'], 100.0 * r['faces_on_side'] / max(1, r['faces'])))
t = {k: sum(r[k] for r in rows) for k in ('brushes', 'points', 'points_agree', 'points_agree_solid', 'faces', 'faces_on_side')}
print(json.dumps(dict(maps=len(rows), **t)))
PYEOF
[[ -n ${BK_TREE_MAPS:-} ]] && bk_done

# the classic axes: the same brushes, "TEX xoff yoff rot xscale yscale" sides
expect_exit 0 "$CLI" decompile "$Q1/progs_dump_pd_heal.bsp" -o "$WORK/classic.map" --format quake
check "classic: no mapversion" bash -c "! grep -q mapversion '$WORK/classic.map'"
check "classic: no [ ] axes" bash -c "! grep -q '\\[' '$WORK/classic.map'"
check "classic: as many brushes" test "$(grep -c '^// brush' "$WORK/classic.map")" = "$(grep -c '^// brush' "$WORK/progs_dump_pd_heal.map")"
# the classic axes read back as qbsp projects them give the texinfo's vectors where the texinfo
# has no skew: every plain axial side of the Valve output has its numbers back
python3 - "$WORK/progs_dump_pd_heal.map" "$WORK/classic.map" <<'PYEOF' && ok || fail "classic axes as qbsp projects them"
import math, re, sys
BASE = [((0,0,1),(1,0,0),(0,-1,0)), ((0,0,-1),(1,0,0),(0,-1,0)), ((1,0,0),(0,1,0),(0,0,-1)),
        ((-1,0,0),(0,1,0),(0,0,-1)), ((0,1,0),(1,0,0),(0,0,-1)), ((0,-1,0),(1,0,0),(0,0,-1))]
num = r'(-?[0-9.]+)'
pt = r'\( ' + num + ' ' + num + ' ' + num + r' \) '
def sides(path, valve):
    out = []
    for l in open(path):
        m = re.match(pt * 3 + r'(\S+) (.*)$', l.rstrip())
        if not m: continue
        v = [float(x) for x in m.groups()[:9]]
        a, b, c = v[0:3], v[3:6], v[6:9]
        u = [c[k]-a[k] for k in range(3)]; w = [b[k]-a[k] for k in range(3)]
        n = [u[1]*w[2]-u[2]*w[1], u[2]*w[0]-u[0]*w[2], u[0]*w[1]-u[1]*w[0]]
        ln = math.sqrt(sum(x*x for x in n)); n = [x/ln for x in n]
        rest = m.group(11)
        if valve:
            f = [float(x) for x in re.findall(r'-?[0-9.]+', rest)]
            out.append((n, [[f[k]/f[9] for k in range(3)] + [f[3]], [f[4+k]/f[10] for k in range(3)] + [f[7]]]))
        else:
            xo, yo, rot, xs, ys = [float(x) for x in rest.split()[:5]]
            best, bd = 0, 0
            for i in range(6):
                d = sum(n[k]*BASE[i][0][k] for k in range(3))
                if d > bd: bd, best = d, i
            xv, yv = BASE[best][1], BASE[best][2]
            sv = [k for k in range(3) if xv[k]][0]; tv = [k for k in range(3) if yv[k]][0]
            s, c = math.sin(math.radians(rot)), math.cos(math.radians(rot))
            vecs = []
            for vv, sc, off in ((xv, xs, xo), (yv, ys, yo)):
                r = [0.0, 0.0, 0.0]
                r[sv] = c*vv[sv] - s*vv[tv]; r[tv] = s*vv[sv] + c*vv[tv]
                vecs.append([r[k]/sc for k in range(3)] + [off])
            out.append((n, vecs, [k for k in range(3) if BASE[best][0][k]][0]))
    return out
a, b = sides(sys.argv[1], True), sides(sys.argv[2], False)
assert len(a) == len(b) and a, (len(a), len(b))
# the classic axes lie in the axis plane: a texinfo vector reaching out of it has no classic form
fit = [(p, q) for p, q in zip(a, b) if abs(p[1][0][q[2]]) < 1e-6 and abs(p[1][1][q[2]]) < 1e-6]
same = sum(all(abs(x - y) < 1e-3 for r in range(2) for x, y in zip(p[1][r], q[1][r])) for p, q in fit)
print('classic axes give the Valve vectors back on %d of the %d sides whose vectors lie in their axis plane (%d sides)' % (same, len(fit), len(a)))
sys.exit(0 if fit and same == len(fit) else 1)
PYEOF

# a hostile tree: node 0's first child pointed back at node 0 (a cycle): a located error, exit 1
python3 - "$Q1/progs_dump_pd_heal.bsp" "$WORK/cycle.bsp" <<'PYEOF'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
o, l = struct.unpack_from('<ii', d, 4 + 8 * 5)
struct.pack_into('<h', d, o + 4, 0)   # dnode_t: planenum (int32), children (int16 x 2)
open(sys.argv[2], 'wb').write(d)
PYEOF
"$CLI" decompile "$WORK/cycle.bsp" -o "$WORK/cycle.map" > /dev/null 2> "$WORK/cycle.err"; rc=$?
if [[ $rc == 1 ]] && grep -q 'nodes\[' "$WORK/cycle.err"; then ok
elif [[ $rc == 1 ]] && grep -q 'error' "$WORK/cycle.err"; then ok   # refused at load already
else fail "a cycle in the tree: exit $rc"; head -3 "$WORK/cycle.err" >&2; fi
check "nothing written for it" test ! -e "$WORK/cycle.map"
bk_done
