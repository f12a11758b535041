#!/usr/bin/env bash
# Quake 3 decompile, round trip through the real compiler: every Quake 3 map of the corpus is
# decompiled by bspkit, the .map recompiled by q3map2 (`-meta`, the BSP stage only), and the
# recompiled BSP compared with the original, lump against lump (a reader of this script's own):
#   - brushes: per model, brush k of the original against brush k of the recompile, by their named
#     sides (the sides with a face: bevels, the compiler's own, excluded), each the same plane
#     (normal within 1e-4, distance within 0.01) with the same shader, in the same order;
#   - texture coordinates: each drawn triangle of the original (planar and triangle-soup surfaces)
#     whose centroid a recompiled triangle with the same shader on the same plane covers: the
#     recompiled triangle's st, carried to the original's corners, give the original's st back
#     within 1e-3, up to whole repeats (q3map2 moves each surface's st by whole repeats).
# A map is "identical" when every brush of every model matches. Printed: one line per map, then
# the totals (a Markdown table, as bench/RESULTS.md keeps them).
#
# usage: Q3MAP2=/path/to/q3map2 [Q3_GAME_PK3=DIR] bench/q3_roundtrip.sh [BSPKIT] [CORPUS]
#   BSPKIT defaults to build/bspkit, CORPUS to ~/.cache/bspkit-corpus. Without $Q3MAP2 the script
#   says so and exits 0. q3map2: netradiant-custom (github.com/Garux/netradiant-custom, commit
#   2ed868d2, `make binaries-q3map2`), built outside the project; LD_LIBRARY_PATH must reach its
#   libassimp_.so. The shader scripts (what q3map2 reads a shader's contents from: caulk, clip,
#   hint, sky, detail) come from the corpus's pk3s (OpenArena with FETCH_TEXTURES=1, Nexuiz's
#   data.pk3); OpenArena's common.shader is in its pak0.pk3 (Debian: openarena-data), not in the
#   corpus: Q3_GAME_PK3=DIR adds DIR's *.pk3. EVERY=N takes every Nth map; JOBS=N runs N at once.
set -uo pipefail
source "$(dirname "$0")/peer.sh"
peer Q3MAP2 q3map2 || exit 0
exec /usr/bin/python3 - "$BSPKIT" "$CORPUS" "$Q3MAP2" "${Q3_GAME_PK3:-}" "${EVERY:-1}" "${JOBS:-1}" <<'PYEOF'
import concurrent.futures, glob, math, os, re, shutil, struct, subprocess, sys, tempfile, time
bspkit, corpus, q3map2, extra, every, jobs = sys.argv[1:7]
every, jobs = int(every), int(jobs)
maps = sorted(glob.glob(f'{corpus}/q3/*/*.bsp'))[::every]
base = tempfile.mkdtemp(prefix='q3rt')
# one game folder per game: OpenArena's shaders and Nexuiz's would shadow each other
games = {}
for game, pats in (('oa', ['oa-*.pk3', 'oa088-*.pk3']), ('nexuiz', ['nexuiz-*.pk3'])):
    d = f'{base}/{game}/baseq3'
    os.makedirs(d)
    for pat in pats:
        for p in glob.glob(f'{corpus}/pk3/{pat}'):
            os.symlink(os.path.abspath(p), f'{d}/{os.path.basename(p)}')
    if extra and game == 'oa':
        for p in glob.glob(f'{extra}/*.pk3'):
            os.symlink(os.path.abspath(p), f'{d}/zz-{os.path.basename(p)}')
    games[game] = f'{base}/{game}'
os.makedirs(f'{base}/maps')


# ---- the BSP, read here ------------------------------------------------------------------------
def read_bsp(path):
    d = open(path, 'rb').read()
    assert d[:4] == b'IBSP', path
    lumps = [struct.unpack_from('<ii', d, 8 + 8 * i) for i in range(17)]

    def arr(i, size, fmt):
        o, l = lumps[i]
        return [struct.unpack_from(fmt, d, o + size * k) for k in range(l // size)]
    o, l = lumps[0]
    ents = re.findall(r'"model"\s+"\*(\d+)"', d[o:o + l].decode('latin-1'))
    # a shader's name as the readers of a .map take it ("textures/" is theirs to add)
    name = lambda s: re.sub(r'^textures/', '', s[0].split(b'\0')[0].decode('latin-1').lower())
    return dict(shaders=[name(s) for s in arr(1, 72, '<64s')], models_by_entity=[0] + [int(x) for x in ents],
                planes=arr(2, 16, '<4f'), models=arr(7, 40, '<6f4i'), brushes=arr(8, 12, '<3i'),
                sides=arr(9, 8, '<2i'), verts=arr(10, 44, '<5f'), idx=[i[0] for i in arr(11, 4, '<i')],
                surfs=arr(13, 104, '<7i'))


def clip(poly, n, d):
    """the part of poly where n.p <= d"""
    out = []
    dist = [n[0] * p[0] + n[1] * p[1] + n[2] * p[2] - d for p in poly]
    for i, p in enumerate(poly):
        j = (i + 1) % len(poly)
        if dist[i] <= 1e-6:
            out.append(p)
        if (dist[i] < -1e-6 and dist[j] > 1e-6) or (dist[i] > 1e-6 and dist[j] < -1e-6):
            t = dist[i] / (dist[i] - dist[j])
            q = poly[j]
            out.append((p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1]), p[2] + t * (q[2] - p[2])))
    return out


def area(poly, n):
    s = [0.0, 0.0, 0.0]
    for i in range(1, len(poly) - 1):
        a = [poly[i][k] - poly[0][k] for k in range(3)]
        b = [poly[i + 1][k] - poly[0][k] for k in range(3)]
        s[0] += a[1] * b[2] - a[2] * b[1]
        s[1] += a[2] * b[0] - a[0] * b[2]
        s[2] += a[0] * b[1] - a[1] * b[0]
    return abs(s[0] * n[0] + s[1] * n[1] + s[2] * n[2]) * 0.5


def width(poly, n):
    """area over the longest edge: about the narrow side of a sliver"""
    e = max(math.dist(poly[i], poly[(i + 1) % len(poly)]) for i in range(len(poly)))
    return area(poly, n) / e if e > 0 else 0.0


def named_sides(b, bi):
    """the sides of brush bi with a face (one wider than 0.01 unit: a bevel touches an edge, off it
    by the float planes' rounding only) and a shader (q3map2 writes its bevels with "noshader"):
    (normal, dist, shader, face), in lump order"""
    fs, ns, _ = b['brushes'][bi]
    pl = [b['planes'][b['sides'][fs + k][0]] for k in range(ns)]
    out = []
    for i, (nx, ny, nz, d) in enumerate(pl):
        n = (nx, ny, nz)
        ax = max(range(3), key=lambda k: abs(n[k]))
        up = [0.0, 0.0, 0.0]
        up[0 if ax == 2 else 2] = 1.0
        dd = sum(up[k] * n[k] for k in range(3))
        up = [up[k] - dd * n[k] for k in range(3)]
        l = math.sqrt(sum(x * x for x in up))
        up = [x / l for x in up]
        rt = (up[1] * n[2] - up[2] * n[1], up[2] * n[0] - up[0] * n[2], up[0] * n[1] - up[1] * n[0])
        c = [n[k] * d for k in range(3)]
        B = 65536.0
        poly = [tuple(c[k] + sx * rt[k] * B + sy * up[k] * B for k in range(3))
                for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
        for j, (mx, my, mz, md) in enumerate(pl):
            if j == i or len(poly) < 3:
                continue
            if abs(md - d) < 1e-4 and mx * nx + my * ny + mz * nz > 1 - 1e-9:
                if j < i:
                    poly = []
                continue
            poly = clip(poly, (mx, my, mz), md)
        sh = b['sides'][fs + i][1]
        sh = b['shaders'][sh] if 0 <= sh < len(b['shaders']) else ''
        # q3map2 writes its bevels with no shader; some keep a sliver of a face
        if len(poly) >= 3 and width(poly, n) > 0.01 and sh != 'noshader':
            out.append((n, d, sh, poly))
    return out


def all_named(b):
    if 'named' not in b:
        b['named'] = [named_sides(b, i) for i in range(len(b['brushes']))]
    return b['named']


def inside(p, n, poly, eps=0.1):
    """p within eps of convex polygon poly (on plane n), whichever way it is wound"""
    sign = 0
    for i in range(len(poly)):
        a, b = poly[i], poly[(i + 1) % len(poly)]
        e = [b[k] - a[k] for k in range(3)]
        l = math.sqrt(sum(x * x for x in e))
        if l < 1e-9:
            continue
        c = (e[1] * n[2] - e[2] * n[1], e[2] * n[0] - e[0] * n[2], e[0] * n[1] - e[1] * n[0])
        v = sum(c[k] * (p[k] - a[k]) for k in range(3)) / l
        if v > eps:
            if sign < 0:
                return False
            sign = 1
        elif v < -eps:
            if sign > 0:
                return False
            sign = -1
    return True


def same_side(a, b):
    return all(abs(a[0][k] - b[0][k]) <= 1e-4 for k in range(3)) and abs(a[1] - b[1]) <= 0.01 and a[2] == b[2]


def key(sides):
    return tuple(sorted((round(n[0], 3), round(n[1], 3), round(n[2], 3), round(d, 1), sh) for n, d, sh, _ in sides))


def compare_brushes(o, r):
    """brushes matched in order, brushes matched in any order (one to one, by their named sides'
    planes rounded to 1e-3 and 0.1 with their shaders), brushes in the original, first differences"""
    ok = total = anyorder = 0
    diffs = []
    # the k-th brush entity of the original against the recompile's k-th (model numbers may differ)
    total = sum(m[9] for m in o['models'])   # a model no entity pairs counts as not matched
    for mi, mr in zip(o['models_by_entity'], r['models_by_entity']):
        if mi >= len(o['models']) or mr >= len(r['models']):
            continue
        fo, no = o['models'][mi][8], o['models'][mi][9]
        fr, nr = r['models'][mr][8], r['models'][mr][9]
        if no != nr and len(diffs) < 3:
            diffs.append(f'model {mi}: {no} brushes, recompiled {nr}')
        ka, kb = {}, {}
        for k in range(no):
            x = key(all_named(o)[fo + k])
            ka[x] = ka.get(x, 0) + 1
        for k in range(nr):
            x = key(all_named(r)[fr + k])
            kb[x] = kb.get(x, 0) + 1
        anyorder += sum(min(c, kb.get(x, 0)) for x, c in ka.items())
        for k in range(min(no, nr)):
            a, b = all_named(o)[fo + k], all_named(r)[fr + k]
            if len(a) == len(b) and all(same_side(x, y) for x, y in zip(a, b)):
                ok += 1
            elif len(diffs) < 3:
                diffs.append(f'model {mi} brush {k} (brushes[{fo + k}]): {len(a)} named sides, recompiled {len(b)}'
                             + ('' if len(a) != len(b) else ': ' + next(f'{x} / {y}' for x, y in zip(a, b) if not same_side(x, y))))
    return ok, anyorder, total, diffs


def triangles(b):
    """drawn triangles of the planar and triangle-soup surfaces: (shader, normal, dist, points, st)"""
    out = []
    for sh, _, typ, fv, nv, fi, ni in b['surfs']:
        if typ not in (1, 3) or not (0 <= sh < len(b['shaders'])):
            continue
        for t in range(0, ni - 2, 3):
            vs = [b['verts'][fv + b['idx'][fi + t + k]] for k in range(3)]
            p = [v[0:3] for v in vs]
            u = [p[2][k] - p[0][k] for k in range(3)]
            w = [p[1][k] - p[0][k] for k in range(3)]
            n = (u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0])
            l = math.sqrt(sum(x * x for x in n))
            if l < 1e-6:
                continue
            n = tuple(x / l for x in n)
            out.append((b['shaders'][sh], n, sum(n[k] * p[0][k] for k in range(3)), p, [v[3:5] for v in vs]))
    return out


def bary(p, t, n):
    """barycentric coordinates of p in triangle t (projected along n's largest axis)"""
    ax = max(range(3), key=lambda k: abs(n[k]))
    i, j = [k for k in range(3) if k != ax]
    (x0, y0), (x1, y1), (x2, y2) = [(q[i], q[j]) for q in t]
    det = (y1 - y2) * (x0 - x2) + (x2 - x1) * (y0 - y2)
    if abs(det) < 1e-12:
        return None
    a = ((y1 - y2) * (p[i] - x2) + (x2 - x1) * (p[j] - y2)) / det
    b = ((y2 - y0) * (p[i] - x2) + (x0 - x2) * (p[j] - y2)) / det
    return a, b, 1 - a - b


def compare_st(o, r):
    """original triangles on a brush side's face with their shader (not misc_model geometry the
    compiler baked in, nor decals); of those, the ones a recompiled triangle with their shader
    covers; of those, the ones whose st come back"""
    index, faces = {}, {}
    for tr in triangles(r):
        index.setdefault((tr[0], round(tr[2] / 2)), []).append(tr)
    for sides in all_named(o):
        for n, d, sh, poly in sides:
            faces.setdefault((sh, round(d / 2)), []).append((n, d, poly))
    covered = good = on_face = 0
    for sh, n, d, p, st in triangles(o):
        c = [(p[0][k] + p[1][k] + p[2][k]) / 3 for k in range(3)]
        if not any(abs(fd - d) <= 0.05 and fn[0] * n[0] + fn[1] * n[1] + fn[2] * n[2] > 1 - 1e-6 and inside(c, n, poly)
                   for dd in (-1, 0, 1) for fn, fd, poly in faces.get((sh, round(d / 2) + dd), ())):
            continue
        on_face += 1
        hit = None
        for dd in (-1, 0, 1):
            for tr in index.get((sh, round(d / 2) + dd), ()):
                if abs(tr[2] - d) > 0.05 or tr[1][0] * n[0] + tr[1][1] * n[1] + tr[1][2] * n[2] < 1 - 1e-6:
                    continue
                bc = bary(c, tr[3], n)
                if bc and min(bc) > -1e-4:
                    hit = tr
                    break
            if hit:
                break
        if not hit:
            continue
        covered += 1
        shift, ok = None, True
        for v, s in zip(p, st):
            bc = bary(v, hit[3], n)
            if bc is None:
                ok = False
                break
            s2 = [sum(bc[k] * hit[4][k][e] for k in range(3)) for e in range(2)]
            ds = (s[0] - s2[0], s[1] - s2[1])
            if shift is None:
                shift = (round(ds[0]), round(ds[1]))
            if abs(ds[0] - shift[0]) > 1e-3 or abs(ds[1] - shift[1]) > 1e-3:
                ok = False
                break
        good += ok
    return good, covered, on_face


def one(path):
    game = 'nexuiz' if '/nexuiz/' in path else 'oa'
    name = f'{os.path.basename(os.path.dirname(path))}-{os.path.basename(path)[:-4]}'
    mp = f'{base}/maps/{name}.map'
    t0 = time.perf_counter()
    p = subprocess.run([bspkit, 'decompile', path, '-o', mp, '-q'], capture_output=True, text=True)
    if p.returncode:
        return name, dict(error='decompile: ' + p.stderr.strip()[:200])
    p = subprocess.run([q3map2, '-game', 'quake3', '-fs_basepath', games[game], '-meta', mp],
                       capture_output=True, text=True, timeout=1800)
    rb = mp[:-4] + '.bsp'
    if p.returncode or not os.path.exists(rb):
        return name, dict(error='q3map2: exit %d: %s' % (p.returncode, (p.stdout + p.stderr).strip()[-300:]))
    o, r = read_bsp(path), read_bsp(rb)
    bok, bany, btot, diffs = compare_brushes(o, r)
    sgood, scov, sface = compare_st(o, r)
    for f in glob.glob(mp[:-4] + '.*'):
        os.remove(f)
    return name, dict(brushes_ok=bok, brushes_any=bany, brushes=btot, diffs=diffs, st_good=sgood, st_covered=scov, st_on_face=sface,
                      tris=len(triangles(o)), seconds=time.perf_counter() - t0)


print(f'{len(maps)} Quake 3 maps: bspkit decompile, q3map2 -meta, compared with the original\n')
res = {}
with concurrent.futures.ThreadPoolExecutor(jobs) as ex:
    for name, r in ex.map(one, maps):
        res[name] = r
        if 'error' in r:
            print(f'{name}: FAILED: {r["error"]}', flush=True)
            continue
        same = r['brushes_any'] == r['brushes'] and r['brushes_ok'] == r['brushes'] and not r['diffs']
        print(f'{name}: brushes {r["brushes_ok"]}/{r["brushes"]} in order, {r["brushes_any"]} in any order{" identical" if same else ""}; '
              f'st {r["st_good"]}/{r["st_covered"]} of {r["st_on_face"]} triangles on a brush face ({r["tris"]} drawn) ({r["seconds"]:.0f} s)', flush=True)
        for d in r['diffs']:
            print(f'    {d}', flush=True)
done = [r for r in res.values() if 'error' not in r]
ident = sum(1 for r in done if r['brushes_ok'] == r['brushes'] and not r['diffs'])
ident_any = sum(1 for r in done if r['brushes_any'] == r['brushes'])
bok, btot = sum(r['brushes_ok'] for r in done), sum(r['brushes'] for r in done)
bany = sum(r['brushes_any'] for r in done)
sg, sc, st = sum(r['st_good'] for r in done), sum(r['st_covered'] for r in done), sum(r['tris'] for r in done)
sf = sum(r['st_on_face'] for r in done)
print('\n| maps | recompiled | brushes identical (in order / in any order) on | brushes matching in order | in any order | triangles on a brush face (of all drawn) | of those, drawn again with their shader | st back |')
print('|---|---|---|---|---|---|---|---|')
print(f'| {len(maps)} | {len(done)} | {ident} / {ident_any} maps | {bok:,} of {btot:,} | {bany:,} | {sf:,} of {st:,} | {sc:,} | {sg:,} ({100.0 * sg / max(sc, 1):.2f}%) |')
shutil.rmtree(base)
PYEOF
