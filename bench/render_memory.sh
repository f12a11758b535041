#!/usr/bin/env bash
# `bspkit render MAP -o X.png` (1280x720, the first spawn) over every corpus map: the peak resident
# set (GNU time's %M) against issue 29's bar, 3x the input + the frame buffers (RGBA and depth,
# 8 bytes a pixel) + the program's own resident set (`--version`), as tests/render/memory.sh counts
# it. Quake 3 maps are drawn with their game's pk3s (Nexuiz: nexuiz-data.pk3; OpenArena: the
# textures, misc and 0.8.8 patch pk3s); the other families alone. Given two builds, both draw each
# map alternately in the same run (a shared machine) and the PNGs are compared byte for byte.
#
# usage: bench/render_memory.sh BSPKIT [BSPKIT_BEFORE] [SHARED_CORPUS] [FETCHED_CORPUS]
#        writes one line per map to ${OUT:-/tmp/render_memory.tsv}; prints the summary
set -uo pipefail
NEW=${1:?usage: bench/render_memory.sh BSPKIT [BSPKIT_BEFORE]}
OLD=${2:-}
SHARED=${3:-../shared/corpus}
FETCHED=${4:-${BSPKIT_CORPUS:-$HOME/.cache/bspkit-corpus}}
[[ -x /usr/bin/time ]] || { echo "GNU time missing (/usr/bin/time)"; exit 1; }
exec /usr/bin/python3 - "$NEW" "$OLD" "$SHARED" "$FETCHED" "${OUT:-/tmp/render_memory.tsv}" <<'PYEOF'
import glob, os, statistics, subprocess, sys, tempfile
new, old, shared, fetched, out = sys.argv[1:6]
builds = [b for b in (old, new) if b]
pk3 = f'{fetched}/pk3'
oa = [f'{pk3}/{p}' for p in ('oa-pak4-textures.pk3', 'oa-pak6-misc.pk3', 'oa088-pak6-patch088.pk3')]
maps = []
for fam in ('goldsrc', 'quake1', 'source'):
    maps += [(fam, f, []) for f in sorted(glob.glob(f'{shared}/{fam}/*.bsp'))]
for f in sorted(glob.glob(f'{fetched}/q3/*/*.bsp')):
    game = os.path.basename(os.path.dirname(f))
    dirs = [f'{pk3}/nexuiz-data.pk3'] if game == 'nexuiz' else oa
    maps.append(('quake3', f, [a for d in dirs if os.path.exists(d) for a in ('--game-dir', d)]))
tmp = tempfile.mkdtemp(prefix='rendermem')
frame = 1280 * 720 * 8 // 1024

def peak(cmd):
    p = subprocess.run(['/usr/bin/time', '-f', '%M'] + cmd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    last = p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ''
    return int(last) if p.returncode == 0 and last.isdigit() else None

base = {b: peak([b, '--version']) for b in builds}
rows, same, differ = [], 0, []
for fam, f, extra in maps:
    kin = os.path.getsize(f) // 1024
    kb = {}
    for i, b in enumerate(builds):
        kb[b] = peak([b, 'render', f, '-o', f'{tmp}/{i}.png'] + extra)
    if len(builds) == 2 and all(kb[b] is not None for b in builds):
        a, c = (open(f'{tmp}/{i}.png', 'rb').read() for i in range(2))
        if a == c: same += 1
        else:
            differ.append(os.path.basename(f))
            for i, data in enumerate((a, c)):   # kept to be looked at
                open(f'{tmp}/{os.path.basename(f)}.{"before" if i == 0 else "after"}.png', 'wb').write(data)
    rows.append((fam, f, kin, kb))
with open(out, 'w') as o:
    o.write('family\tmap\tinput_kB\t' + '\t'.join(f'peak_kB_{"before" if b == old else "after"}\tbar_kB' for b in builds) + '\n')
    for fam, f, kin, kb in rows:
        o.write(f'{fam}\t{os.path.basename(f)}\t{kin}')
        for b in builds:
            o.write(f'\t{kb[b]}\t{3 * kin + frame + base[b]}')
        o.write('\n')
for b in builds:
    drawn = [(fam, kin, kb[b]) for fam, f, kin, kb in rows if kb[b] is not None]
    bar = lambda kin: 3 * kin + frame + base[b]
    meet = sum(1 for _, kin, k in drawn if k <= bar(kin))
    print(f'{"before" if b == old else "after"} ({b}): {meet} of {len(drawn)} maps drawn meet the bar '
          f'(program {base[b]} kB, frame {frame} kB); median peak / bar {statistics.median(k / bar(kin) for _, kin, k in drawn):.2f}, '
          f'median peak / input {statistics.median(k / max(kin, 1) for _, kin, k in drawn):.1f}')
    for fam in sorted({d[0] for d in drawn}):
        fd = [d for d in drawn if d[0] == fam]
        print(f'  {fam:8s} {len(fd):4d} maps, {sum(1 for _, kin, k in fd if k <= bar(kin)):4d} meet, '
              f'median peak {statistics.median(k for _, _, k in fd) / 1024:.1f} MiB, '
              f'median peak / bar {statistics.median(k / bar(kin) for _, kin, k in fd):.2f}')
if len(builds) == 2:
    print(f'PNGs byte-identical: {same} of {same + len(differ)}' + (f'; differ: {" ".join(differ)} (both kept in {tmp})' if differ else ''))
print(f'per map: {out}')
PYEOF
