#!/usr/bin/env bash
# Quake 3 maps -> Wavefront .obj: bspkit against q3map2's `-convert -format obj` (the map compiler's
# own converter, a peer built outside the project), one process per map, the two tools alternating,
# median of REPS passes. Both read the same .bsp files from one folder and write .obj + .mtl beside
# them (q3map2 also writes its output beside the input). Reported: processor time (user + system,
# the children's rusage: the figure that holds on a shared machine) and wall time, each as a ratio
# to q3map2's in the same run, on all maps and on the maps without patches (where both write the
# same vertices and faces: q3map2 writes a patch's control mesh, bspkit tessellates it).
#
# usage: Q3MAP2=/path/to/q3map2 bench/obj_vs_q3map2.sh [BSPKIT] [CORPUS]
#   BSPKIT defaults to build/bspkit, CORPUS to ~/.cache/bspkit-corpus. Without $Q3MAP2 the script
#   says so and exits 0. q3map2 comes from netradiant-custom (github.com/Garux/netradiant-custom;
#   `make binaries-q3map2`; its newest sources need a newer C++ compiler than Debian 12's, the
#   commit 2ed868d2 of 2022-12-20 builds with g++ 12); LD_LIBRARY_PATH must reach its libassimp_.so.
set -uo pipefail
source "$(dirname "$0")/peer.sh"
peer Q3MAP2 q3map2 || exit 0
exec /usr/bin/python3 - "$BSPKIT" "$CORPUS" "$REPS" "$Q3MAP2" <<'PYEOF'
import glob, os, resource, shutil, statistics, struct, subprocess, sys, tempfile, time
bspkit, corpus, reps, q3map2 = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
src = sorted(glob.glob(f'{corpus}/q3/*/*.bsp'))
base = tempfile.mkdtemp(prefix='objbench')
os.makedirs(f'{base}/maps')
maps = []
for m in src:
    name = f'{os.path.basename(os.path.dirname(m))}-{os.path.basename(m)}'
    shutil.copy(m, f'{base}/maps/{name}')
    maps.append(name)

def has_patches(path):
    d = open(path, 'rb').read()
    ofs, ln = struct.unpack_from('<ii', d, 8 + 13 * 8)          # LUMP_SURFACES
    return any(struct.unpack_from('<i', d, ofs + i * 104 + 8)[0] == 2 for i in range(ln // 104))

flat = [m for m in maps if not has_patches(f'{base}/maps/{m}')]

def cmd(tool, m):
    p = f'{base}/maps/{m}'
    if tool == 'bspkit':
        return [bspkit, 'convert', p, '-o', p[:-4] + '.bk.obj', '-q']
    return [q3map2, '-game', 'quake3', '-fs_basepath', base, '-convert', '-format', 'obj', p]

def one_pass(tool, names):
    """seconds of processor and wall time for one process per map; failures"""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    fails = 0
    for m in names:
        if subprocess.run(cmd(tool, m), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode != 0:
            fails += 1
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime), wall, fails

def measure(names):
    got = {'bspkit': [], 'q3map2': []}
    fails = {'bspkit': 0, 'q3map2': 0}
    for _ in range(reps):
        for tool in ('q3map2', 'bspkit'):
            cpu, wall, f = one_pass(tool, names)
            got[tool].append((cpu, wall))
            fails[tool] = max(fails[tool], f)
    med = {t: (statistics.median(c for c, _ in v), statistics.median(w for _, w in v)) for t, v in got.items()}
    return med, fails

mb = sum(os.path.getsize(f'{base}/maps/{m}') for m in maps) / 1e6
print(f'{len(maps)} Quake 3 maps ({mb:.0f} MB), {len(flat)} without patches; median of {reps}, alternating\n')
print('| maps | tool | processor s | ÷ q3map2 | wall s | ÷ q3map2 | failed |')
print('|---|---|---|---|---|---|---|')
for label, names in (('all', maps), ('without patches', flat)):
    med, fails = measure(names)
    q = med['q3map2']
    for tool in ('q3map2', 'bspkit'):
        c, w = med[tool]
        print(f'| {label} ({len(names)}) | {tool} | {c:.2f} | {c / q[0]:.2f} | {w:.2f} | {w / q[1]:.2f} | {fails[tool]} |')
shutil.rmtree(base)
PYEOF
