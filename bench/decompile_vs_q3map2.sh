#!/usr/bin/env bash
# Quake 3 maps -> .map source: `bspkit decompile` against q3map2's `-convert -format map` (the
# compiler's own decompiler, a peer built outside the project), one process per map (the whole
# process: start, load, write), the two tools alternating, median of REPS passes. Both read the
# same .bsp files from one folder and write a .map beside them. Reported: processor time (user +
# system of the children: the figure that holds on a shared machine) and wall time, each with its
# ratio to q3map2's taken in the same run; and bspkit's peak memory (maximum resident set, per
# process) against the input's size, on every map, and the same less the resident set of a
# process that loads nothing (`bspkit --version`).
#
# usage: Q3MAP2=/path/to/q3map2 bench/decompile_vs_q3map2.sh [BSPKIT] [CORPUS]
#   BSPKIT defaults to build/bspkit, CORPUS to ~/.cache/bspkit-corpus. Without $Q3MAP2 the script
#   says so and exits 0. q3map2: see bench/q3_roundtrip.sh (netradiant-custom 2ed868d2).
set -uo pipefail
source "$(dirname "$0")/peer.sh"
peer Q3MAP2 q3map2 || exit 0
exec /usr/bin/python3 - "$BSPKIT" "$CORPUS" "$REPS" "$Q3MAP2" <<'PYEOF'
import glob, os, shutil, statistics, subprocess, sys, tempfile, time
bspkit, corpus, reps, q3map2 = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
src = sorted(glob.glob(f'{corpus}/q3/*/*.bsp'))
base = tempfile.mkdtemp(prefix='decbench')
os.makedirs(f'{base}/maps')
maps = []
for m in src:
    name = f'{os.path.basename(os.path.dirname(m))}-{os.path.basename(m)}'
    shutil.copy(m, f'{base}/maps/{name}')
    maps.append(name)


def run(argv):
    """(user + system s, max resident set in bytes, exit status) of one process. The resident set
    is /usr/bin/time's (this Python's fork would count its own pages before the exec)."""
    p = subprocess.Popen(['/usr/bin/time', '-f', '%M', '-o', f'{base}/rss'] + argv,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    return ru.ru_utime + ru.ru_stime, int(open(f'{base}/rss').read().split()[-1]) * 1024, os.waitstatus_to_exitcode(status)


def cmd(tool, m):
    p = f'{base}/maps/{m}'
    if tool == 'bspkit':
        return [bspkit, 'decompile', p, '-o', p[:-4] + '.bk.map', '-q']
    return [q3map2, '-game', 'quake3', '-fs_basepath', base, '-convert', '-format', 'map', p]


rss = {}
def one_pass(tool):
    t0 = time.perf_counter()
    cpu, fails = 0.0, 0
    for m in maps:
        c, r, rc = run(cmd(tool, m))
        cpu += c
        fails += rc != 0
        if tool == 'bspkit':
            rss[m] = max(rss.get(m, 0), r)
    return cpu, time.perf_counter() - t0, fails


got = {'bspkit': [], 'q3map2': []}
fails = {'bspkit': 0, 'q3map2': 0}
for _ in range(reps):
    for tool in ('q3map2', 'bspkit'):
        c, w, f = one_pass(tool)
        got[tool].append((c, w))
        fails[tool] = max(fails[tool], f)
med = {t: (statistics.median(c for c, _ in v), statistics.median(w for _, w in v)) for t, v in got.items()}
size = {m: os.path.getsize(f'{base}/maps/{m}') for m in maps}
print(f'{len(maps)} Quake 3 maps ({sum(size.values()) / 1e6:.0f} MB), one process per map; median of {reps}, alternating\n')
print('| tool | processor s | q3map2 ÷ tool | wall s | q3map2 ÷ tool | failed |')
print('|---|---|---|---|---|---|')
q = med['q3map2']
for tool in ('q3map2', 'bspkit'):
    c, w = med[tool]
    print(f'| {tool} | {c:.2f} | {q[0] / c:.2f} | {w:.2f} | {q[1] / w:.2f} | {fails[tool]} |')
idle = run([bspkit, '--version'])[1]
ratio = sorted((rss[m] / size[m], m) for m in maps)
net = sorted(((rss[m] - idle) / size[m], m) for m in maps)
print(f'\nbspkit peak memory ÷ input size: median {ratio[len(ratio) // 2][0]:.2f}, most {ratio[-1][0]:.2f} ({ratio[-1][1]}, '
      f'{size[ratio[-1][1]] / 1e6:.1f} MB, peak {rss[ratio[-1][1]] / 1e6:.1f} MB); '
      f'less an idle process ({idle / 1e6:.1f} MB): median {net[len(net) // 2][0]:.2f}, most {net[-1][0]:.2f} ({net[-1][1]})')
big = max(maps, key=lambda m: size[m])
print(f'largest input {big} ({size[big] / 1e6:.1f} MB): peak {rss[big] / 1e6:.1f} MB ({rss[big] / size[big]:.2f}x)')
shutil.rmtree(base)
PYEOF
