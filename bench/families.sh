#!/usr/bin/env bash
# Whole-process cost per family: `bspkit validate` and `bspkit convert` (to .glb) of every real file,
# one process per file, as MB/s and as a ratio to reading the same bytes with `cat` (also one
# process per file, from the page cache), all timed alternately in the same run; then the two
# single-file figures the speed issue names: validate of the largest Quake 3 map (Nexuiz
# ons-reborn, when fetched) and of the LZMA-compressed Source maps, against cat; then convert's peak
# memory (resident set, /usr/bin/time) per family as a ratio to the input, for files of 100 KB and
# more (median of 5 runs each), above two bases: the process's start-up, and a conversion's fixed
# cost (converting the family's smallest file, a few KB). Both runs set BSPKIT_RESIDENT_CODE, which
# makes every page of the program's code resident at start: the code a command runs (about 1 MiB,
# shared with every other process of the program) is then part of the start-up base, not counted
# as memory held for the input. The files over 3x are listed.
#
# usage: bench/families.sh [BSPKIT] [SHARED_CORPUS] [FETCHED_CORPUS]    (REPS=3 by default;
#        MEMORY_ONLY=1: only the peak-memory table)
set -uo pipefail
BSPKIT=${1:-build/bspkit}
SHARED=${2:-../shared/corpus}
FETCHED=${3:-${BSPKIT_CORPUS:-$HOME/.cache/bspkit-corpus}}
REPS=${REPS:-3}
[[ -x $BSPKIT ]] || { echo "no bspkit at $BSPKIT (build first)"; exit 1; }
exec python3 - "$BSPKIT" "$SHARED" "$FETCHED" "$REPS" "${MEMORY_ONLY:-0}" <<'PYEOF'
import glob, os, statistics, subprocess, sys, tempfile, time
bspkit, shared, fetched, reps = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
memory_only = sys.argv[5] == '1'
real = lambda fs: sorted(f for f in fs if not os.path.basename(f).startswith('unusual_'))
fam = {
    'quake1': real(glob.glob(f'{shared}/quake1/*.bsp')),
    'goldsrc': real(glob.glob(f'{shared}/goldsrc/*.bsp')),
    'source': real(glob.glob(f'{shared}/source/*.bsp')),
    'source (LZMA lumps)': real(glob.glob(f'{shared}/source/*lzma*.bsp')),
    'quake3': real(glob.glob(f'{fetched}/q3/*/*.bsp')),
    'dpm': real(glob.glob(f'{fetched}/dpm/*.dpm')),
}
fam = {k: v for k, v in fam.items() if v}
tmp = tempfile.mkdtemp(prefix='fambench')
NULL = subprocess.DEVNULL

def run_all(files, mode):
    t0 = time.perf_counter()
    fails = 0
    for i, f in enumerate(files):
        if mode == 'cat':
            cmd = ['cat', f]
        elif mode == 'validate':
            cmd = [bspkit, 'validate', f, '-q']
        else:
            cmd = [bspkit, 'convert', f, '-o', f'{tmp}/out{i % 2}.glb', '-q']
        if subprocess.run(cmd, stdout=NULL, stderr=NULL).returncode != 0:
            fails += 1
    return time.perf_counter() - t0, fails

def measure(files, modes=('cat', 'validate', 'convert')):
    for f in files:  # into the page cache
        with open(f, 'rb') as fp:
            while fp.read(1 << 20):
                pass
    t = {m: [] for m in modes}
    fails = {m: 0 for m in modes}
    for _ in range(reps):
        for m in modes:  # alternating, so load on the machine hits every mode alike
            s, n = run_all(files, m)
            t[m].append(s)
            fails[m] = max(fails[m], n)
    return {m: statistics.median(v) for m, v in t.items()}, fails

if not memory_only:
    print(f'per family, one process per file, {reps} alternating repetitions (median); ratio = speed / the speed of cat')
    print(f'  {"family":22s} {"files":>5s} {"MB":>7s} {"cat MB/s":>9s} {"validate MB/s":>14s} {"ratio":>7s} {"convert MB/s":>13s} {"ratio":>7s}  failures')
    for name, files in fam.items():
        mb = sum(os.path.getsize(f) for f in files) / 1e6
        t, fails = measure(files)
        v, c = mb / t['validate'], mb / t['convert']
        cat = mb / t['cat']
        print(f'  {name:22s} {len(files):5d} {mb:7.1f} {cat:9.1f} {v:14.1f} {v / cat:7.2f} {c:13.1f} {c / cat:7.2f}'
              f'  validate {fails["validate"]}, convert {fails["convert"]}')

    big = glob.glob(f'{fetched}/q3/*/ons-reborn.bsp')
    if big:
        reps_one = 20
        files = big * reps_one
        t, fails = measure(files, ('cat', 'validate'))
        print(f'  validate of {os.path.basename(big[0])} ({os.path.getsize(big[0]) / 1e6:.1f} MB), {reps_one} processes: '
              f'{t["cat"] / t["validate"]:.2f} x the speed of cat (1/{t["validate"] / t["cat"]:.1f})')
    lz = fam.get('source (LZMA lumps)')
    if lz:
        t, fails = measure(lz, ('cat', 'validate'))
        print(f'  validate of the {len(lz)} LZMA Source maps: 1/{t["validate"] / t["cat"]:.1f} of the speed of cat')

ENV = dict(os.environ, BSPKIT_RESIDENT_CODE='1')

def rss_kb(cmd):
    r = subprocess.run(['/usr/bin/time', '-f', '%M', *cmd], stdout=NULL, stderr=subprocess.PIPE, text=True, env=ENV)
    try:
        return int(r.stderr.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return None

def rss_med(cmd, n=5):
    """median of n runs: a few hundred KB of resident set move between runs"""
    v = [k for k in (rss_kb(cmd) for _ in range(n)) if k is not None]
    return statistics.median(v) if v else None

if os.path.exists('/usr/bin/time'):
    start = rss_med([bspkit, '--version']) or 0
    print(f'peak memory of convert / input, files of 100 KB and more (start-up, code resident: {start / 1024:.1f} MiB)')
    over = []
    print(f'  {"family":22s} {"files":>5s} {"fixed MiB":>9s} {"above start-up: median":>23s} {"max":>6s} {"over 3x":>7s}'
          f' {"above fixed: median":>20s} {"max":>6s} {"over 3x":>7s}  worst')
    for name, files in fam.items():
        # the LZMA maps are a part of the Source family: its smallest file is their base too
        smallest = min(fam['source'] if name.startswith('source') and 'source' in fam else files, key=os.path.getsize)
        fixed = rss_med([bspkit, 'convert', smallest, '-o', f'{tmp}/rss.glb', '-q']) or start
        a, b = [], []
        worst = ('', 0)
        for f in files:
            size = os.path.getsize(f)
            if size < 100_000:
                continue
            kb = rss_med([bspkit, 'convert', f, '-o', f'{tmp}/rss.glb', '-q'])
            if kb is None:
                continue
            ra = (kb - start) * 1024 / size
            a.append(ra)
            b.append(max(0, kb - fixed) * 1024 / size)
            if ra > 3 and name != 'source (LZMA lumps)':
                over.append((ra, b[-1], size, os.path.basename(f)))
            if ra > worst[1]:
                worst = (os.path.basename(f), ra)
        if not a:
            continue
        print(f'  {name:22s} {len(a):5d} {fixed / 1024:9.1f} {statistics.median(a):23.2f} {max(a):6.2f}'
              f' {sum(x > 3 for x in a):7d} {statistics.median(b):20.2f} {max(b):6.2f} {sum(x > 3 for x in b):7d}'
              f'  {worst[0]} {worst[1]:.2f}')
    if over:
        print('  over 3x above start-up (above start-up, above fixed, size):')
        for ra, rb, size, nm in sorted(over, reverse=True):
            print(f'    {nm:48s} {ra:5.2f} {rb:5.2f} {size / 1e6:6.2f} MB')
subprocess.run(['rm', '-rf', tmp])
PYEOF
