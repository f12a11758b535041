#!/usr/bin/env bash
# Quake 3 maps -> .glb: bspkit against assimp (a peer converter), timed in the same run.
# assimp reads Quake 3 maps only from a .pk3 and takes the first map it finds there, so every map
# is packed alone into its own .pk3 first; both tools then convert the same archives.
#
# usage: ASSIMP=/path/to/assimp bench/q3_vs_assimp.sh [BSPKIT] [CORPUS]
#   BSPKIT defaults to build/bspkit, CORPUS to ~/.cache/bspkit-corpus. Without $ASSIMP (a current
#   assimp built with its Q3BSP importer and glTF exporter; Debian's 5.2 crashes on these maps)
#   the script says so and exits 0 after timing bspkit alone.
set -uo pipefail
BSPKIT=${1:-build/bspkit}
CORPUS=${2:-${BSPKIT_CORPUS:-$HOME/.cache/bspkit-corpus}}
REPS=${REPS:-3}
[[ -x $BSPKIT ]] || { echo "no bspkit at $BSPKIT (build first)"; exit 1; }
[[ -d $CORPUS/q3 ]] || { echo "SKIP: no corpus in $CORPUS (run ../shared/scripts/fetch-corpus)"; exit 0; }
if [[ -z ${ASSIMP:-} || ! -x ${ASSIMP:-/nonexistent} ]]; then
    echo "note: ASSIMP not set (or not executable): timing bspkit only"
    ASSIMP=
fi
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

def run(tool, extra=()):
    best, fails, total_tris = None, 0, 0
    for r in range(reps):
        fails, total_tris = 0, 0
        t0 = time.perf_counter()
        for p, name in pk3s:
            out = f'{tmp}/{tool}-{name}.glb'
            if tool == 'bspkit':
                cmd = [bspkit, 'convert', f'{p}:maps/{name}.bsp', '-o', out, '--no-textures', '-q', *extra]
            else:
                cmd = [assimp, 'export', p, out]
            rc = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
            if rc != 0:
                fails += 1
        dt = time.perf_counter() - t0
        best = dt if best is None or dt < best else best
    for p, name in pk3s:
        total_tris += max(0, tris(f'{tmp}/{tool}-{name}.glb'))
    return best, fails, total_tris

b = run('bspkit')
print(f'bspkit: {len(maps)} maps in {b[0]:.2f} s (best of {reps}), {b[1]} failures, {b[2]} triangles')
c = run('bspkit', ('--no-lightmaps',))
print(f'bspkit --no-lightmaps: {c[0]:.2f} s (no atlas PNG to encode, as assimp writes none)')
if assimp:
    a = run('assimp')
    print(f'assimp: {len(maps)} maps in {a[0]:.2f} s (best of {reps}), {a[1]} failures, {a[2]} triangles')
    print(f'time ratio bspkit/assimp = {b[0] / a[0]:.2f}  (bspkit tessellates patches, packs lightmaps, '
          f'keeps entities; triangles bspkit/assimp = {b[2] / max(1, a[2]):.2f})')
    print(f'time ratio bspkit --no-lightmaps/assimp = {c[0] / a[0]:.2f}')
subprocess.run(['rm', '-rf', tmp])
PYEOF
