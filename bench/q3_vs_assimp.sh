#!/usr/bin/env bash
# Quake 3 maps -> .glb: bspkit against assimp (a peer converter), timed alternately in the same run,
# one process per map (and bspkit's batch mode), with bspkit's peak memory as a ratio to the input.
# assimp reads Quake 3 maps only from a .pk3 and takes the first map it finds there, so every map
# is packed alone into its own .pk3 first; both tools then convert the same archives.
#
# usage: ASSIMP=/path/to/assimp bench/q3_vs_assimp.sh [BSPKIT] [CORPUS]
#   BSPKIT defaults to build/bspkit, CORPUS to ~/.cache/bspkit-corpus. Without $ASSIMP (a current
#   assimp built with its Q3BSP importer and glTF exporter, as a Release build: without
#   CMAKE_BUILD_TYPE=Release it is unoptimised and slower, which flatters bspkit; Debian's 5.2
#   crashes on these maps)
#   the script says so and exits 0 after timing bspkit alone.
set -uo pipefail
source "$(dirname "$0")/peer.sh"
peer ASSIMP assimp || { echo "timing bspkit only"; ASSIMP=; }
exec python3 - "$BSPKIT" "$CORPUS" "$REPS" "${ASSIMP}" <<'PYEOF'
import glob, json, os, struct, subprocess, sys, tempfile, time, zipfile
bspkit, corpus, reps, assimp = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
maps = sorted(glob.glob(f'{corpus}/q3/*/*.bsp'))
tmp = tempfile.mkdtemp(prefix='q3bench')
pk3s = []
for m in maps:
    name = os.path.basename(m)[:-4]
    p = f'{tmp}/{os.path.basename(os.path.dirname(m))}-{name}.pk3'
    with zipfile.ZipFile(p, 'w', zipfile.ZIP_DEFLATED) as z:
        z.write(m, f'maps/{name}.bsp')
    pk3s.append((p, name))

def tris(glb):
    try:
        d = open(glb, 'rb').read()
        n = struct.unpack_from('<I', d, 12)[0]
        j = json.loads(d[20:20 + n])
        t = 0
        for me in j.get('meshes', []):
            for pr in me['primitives']:
                if pr.get('mode', 4) == 4:
                    a = j['accessors'][pr['indices']] if 'indices' in pr else j['accessors'][pr['attributes']['POSITION']]
                    t += a['count'] // 3
        return t
    except Exception:
        return -1

def once(tool, extra=()):
    """one pass over every map, one process per map (bspkit: also as one batch); seconds, failures"""
    fails = 0
    t0 = time.perf_counter()
    if tool == 'bspkit-batch':
        jobs = extra[0]
        rc = subprocess.run([bspkit, 'convert', *[f'{p}:maps/{n}.bsp' for p, n in pk3s], '-o', f'{tmp}/batch/',
                             '--no-textures', '-q', '-j', str(jobs)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL).returncode
        return time.perf_counter() - t0, (0 if rc == 0 else 1)
    for p, name in pk3s:
        out = f'{tmp}/{tool}-{name}.glb'
        if tool == 'bspkit':
            cmd = [bspkit, 'convert', f'{p}:maps/{name}.bsp', '-o', out, '--no-textures', '-q', *extra]
        else:
            cmd = [assimp, 'export', p, out]
        if subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode != 0:
            fails += 1
    return time.perf_counter() - t0, fails

# as in bench/families.sh: every page of bspkit's code resident from the start, so the code a
# command runs is part of the start-up base, not counted as memory held for the input
ENV = dict(os.environ, BSPKIT_RESIDENT_CODE='1')

def rss_kb(cmd):
    r = subprocess.run(['/usr/bin/time', '-f', '%M', *cmd], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                       env=ENV)
    try:
        return int(r.stderr.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return None

def peak_rss_ratio():
    """(peak RSS - a base) / input size per map, one map per process, against two bases: the process's
    own start-up (`bspkit --version`), and the fixed cost of a conversion (converting the smallest
    map of the corpus, a few KB: the converter's code pages, libraries' state, stdio). Returns, for
    each base, the worst ratio on maps of 5 MB and more, the worst on any map of 100 KB and more,
    and how many of those are over 3; and both bases."""
    start = rss_kb([bspkit, '--version']) or 0
    smallest = min(maps, key=os.path.getsize)
    fixed = rss_kb([bspkit, 'convert', smallest, '-o', f'{tmp}/rss.glb', '-q']) or start
    out = {'start': [0.0, 0.0, 0], 'fixed': [0.0, 0.0, 0]}
    for m in maps:
        size = os.path.getsize(m)
        if size < 100e3:
            continue
        kb = rss_kb([bspkit, 'convert', m, '-o', f'{tmp}/rss.glb', '-q'])
        if kb is None:
            continue
        for key, base in (('start', start), ('fixed', fixed)):
            ratio = max(0, kb - base) * 1024 / size
            row = out[key]
            row[1] = max(row[1], ratio)
            row[2] += ratio > 3
            if size >= 5e6:
                row[0] = max(row[0], ratio)
    return out, start, fixed, os.path.basename(smallest), os.path.getsize(smallest)

import statistics
rows = {'bspkit': [], 'bspkit --no-lightmaps': [], 'bspkit batch -j1': [], 'bspkit batch -j2': [], 'assimp': []}
fails = {k: 0 for k in rows}
for r in range(reps):
    # alternate the tools within every repetition, so load on the machine hits both alike
    for key, tool, extra in (('bspkit', 'bspkit', ()), ('assimp', 'assimp', ()),
                             ('bspkit --no-lightmaps', 'bspkit', ('--no-lightmaps',)),
                             ('bspkit batch -j1', 'bspkit-batch', (1,)), ('bspkit batch -j2', 'bspkit-batch', (2,))):
        if tool == 'assimp' and not assimp:
            continue
        t, f = once(tool, extra)
        rows[key].append(t)
        fails[key] = max(fails[key], f)
mb = sum(os.path.getsize(m) for m in maps) / 1e6
tb, ta = sum(max(0, tris(f'{tmp}/bspkit-{n}.glb')) for _, n in pk3s), sum(max(0, tris(f'{tmp}/assimp-{n}.glb')) for _, n in pk3s)
base = statistics.median(rows['assimp']) if rows['assimp'] else None
print(f'{len(maps)} Quake 3 maps, {mb:.1f} MB, {reps} alternating repetitions (median seconds)')
for k, v in rows.items():
    if not v:
        continue
    med = statistics.median(v)
    ratio = f'  ratio to assimp {med / base:.2f}' if base else ''
    print(f'  {k:24s} {med:6.2f} s  {mb / med:6.1f} MB/s  failures {fails[k]}{ratio}')
if base:
    print(f'  triangles written: bspkit {tb}, assimp {ta} (assimp drops patches); bspkit also writes lightmaps and entities')
mem, start, fixed, small_name, small_size = peak_rss_ratio()
nbig = sum(os.path.getsize(m) >= 100e3 for m in maps)
print(f'  peak memory / input (bspkit, one map per process; {nbig} maps of 100 KB and more):')
for key, label in (('start', f'above the start-up ({start / 1024:.1f} MiB)'),
                   ('fixed', f'above a conversion\'s fixed cost ({fixed / 1024:.1f} MiB: {small_name}, {small_size} bytes)')):
    big, worst, over = mem[key]
    print(f'    {label}: at most {big:.2f} x on maps of 5 MB and more, {worst:.2f} x on any; {over} over 3 x')
subprocess.run(['rm', '-rf', tmp])
PYEOF
