#!/usr/bin/env python3
"""Check a Quake 1 / BSP2 / GoldSrc map decompiled from its BSP tree: re-read the written .map
(Valve 220 or classic) with a reader of its own, the BSP's faces with another (stdlib only, nothing
of bspkit), and compare:

  - points: N random points inside the world's bounds (a fixed seed), each one's contents by the
    map's own point query (`bspkit query --batch`) against the written world brushes holding it
    (a brush's contents as the compilers read them: its first side's texture, `*`/`!` liquids,
    `sky`, anything else solid). Solid-or-not must agree on at least 99.9% of them;
  - faces: each drawn face's centre (moved by its brush entity's origin) must lie on a written
    side (its plane, inside its brush) carrying the face's texture: the share is reported;
  - every written side's three points make a plane (no side in a line).

usage: tree_check.py CLI BSP OUT.map [POINTS]
Prints one JSON object; exit 1 when a hard check fails.
"""
import json, math, random, re, struct, subprocess, sys

CLI, BSP, MAP = sys.argv[1:4]
NPOINTS = int(sys.argv[4]) if len(sys.argv) > 4 else 100000


# ---- the BSP: planes, faces, texinfo, miptex names, models ------------------------------------
def read_bsp(path):
    d = open(path, 'rb').read()
    magic = d[:4]
    bsp2 = magic == b'BSP2'
    if not bsp2:
        ver = struct.unpack_from('<i', d, 0)[0]
        assert ver in (29, 30), 'not a BSP29/BSP30/BSP2 map'
    lumps = [struct.unpack_from('<ii', d, 4 + 8 * i) for i in range(15)]

    def arr(i, fmt):
        o, l = lumps[i]
        sz = struct.calcsize(fmt)
        return [struct.unpack_from(fmt, d, o + sz * k) for k in range(l // sz)]
    planes = [((p[0], p[1], p[2]), p[3]) for p in arr(1, '<4fi')]
    verts = arr(3, '<3f')
    texinfo = arr(6, '<8fii')
    faces = arr(7, '<iiiii4Bi' if bsp2 else '<HHiHH4Bi')
    edges = arr(12, '<II' if bsp2 else '<HH')
    surfedges = [s[0] for s in arr(13, '<i')]
    models = arr(14, '<9f4i3i')
    o, l = lumps[2]
    names = []
    if l >= 4:
        n = struct.unpack_from('<i', d, o)[0]
        for k in range(n):
            mo = struct.unpack_from('<i', d, o + 4 + 4 * k)[0]
            names.append(d[o + mo:o + mo + 16].split(b'\0')[0].decode('latin-1') if mo >= 0 else '')
    return dict(planes=planes, verts=verts, texinfo=texinfo, faces=faces, edges=edges, surfedges=surfedges,
                models=models, names=names)


# ---- the written .map ------------------------------------------------------------------------
NUM = r'(-?[0-9.]+(?:e-?[0-9]+)?)'
PT = r'\(\s*' + NUM + r'\s+' + NUM + r'\s+' + NUM + r'\s*\)'
SIDE = re.compile(r'^\s*' + PT + r'\s*' + PT + r'\s*' + PT + r'\s+(\S+)\s+(.*)$')


def plane_of(p):
    a, b, c = p
    u = [c[k] - a[k] for k in range(3)]
    w = [b[k] - a[k] for k in range(3)]
    n = [u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]]
    l = math.sqrt(sum(x * x for x in n))
    if l < 1e-12:
        return None
    n = [x / l for x in n]
    return n, sum(n[k] * a[k] for k in range(3))


def read_map(path):
    ents, cur, brush, depth = [], None, None, 0
    bad = 0
    for line in open(path, encoding='latin-1'):
        s = line.strip()
        if not s or s.startswith('//'):
            continue
        if s == '{':
            depth += 1
            if depth == 1:
                cur = {'keys': {}, 'brushes': []}
            else:
                brush = []
            continue
        if s == '}':
            if depth == 2:
                cur['brushes'].append(brush)
            else:
                ents.append(cur)
            depth -= 1
            continue
        if depth == 1:
            m = re.match(r'^"([^"]*)"\s+"([^"]*)"$', s)
            cur['keys'][m.group(1)] = m.group(2)
            continue
        m = SIDE.match(s)
        assert m, 'side line not read: ' + s
        v = [float(x) for x in m.groups()[:9]]
        pl = plane_of([v[0:3], v[3:6], v[6:9]])
        if pl is None:
            bad += 1
            continue
        brush.append((pl[0], pl[1], m.group(10)))
    return ents, bad


def brush_class(brush):
    t = brush[0][2].lower()
    if t.startswith('*') or t.startswith('!'):
        return 'lava' if t[1:].startswith('lava') else 'slime' if t[1:].startswith('slime') else 'water'
    if t.startswith('sky'):
        return 'sky'
    if t == 'origin':
        return 'origin'
    return 'solid'


NATIVE = {-1: 'empty', -2: 'solid', -3: 'water', -4: 'slime', -5: 'lava', -6: 'sky'}


def corners(brush):
    """the brush's corners (triples of planes meeting inside all the others)"""
    out = []
    n = len(brush)
    for i in range(n):
        for j in range(i + 1, n):
            for k in range(j + 1, n):
                a, b, c = brush[i][0], brush[j][0], brush[k][0]
                bc = [b[1] * c[2] - b[2] * c[1], b[2] * c[0] - b[0] * c[2], b[0] * c[1] - b[1] * c[0]]
                det = sum(a[q] * bc[q] for q in range(3))
                if abs(det) < 1e-9:
                    continue
                ca = [c[1] * a[2] - c[2] * a[1], c[2] * a[0] - c[0] * a[2], c[0] * a[1] - c[1] * a[0]]
                ab = [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
                p = [(brush[i][1] * bc[q] + brush[j][1] * ca[q] + brush[k][1] * ab[q]) / det for q in range(3)]
                if all(sum(s[0][q] * p[q] for q in range(3)) - s[1] <= 0.05 for s in brush):
                    out.append(p)
    return out


def main():
    bsp = read_bsp(BSP)
    ents, bad_sides = read_map(MAP)
    fails = []
    world = [e for e in ents if e['keys'].get('classname') == 'worldspawn']
    if len(world) != 1:
        fails.append('%d worldspawn entities' % len(world))
    brushes = world[0]['brushes'] if world else []
    # ---- points -------------------------------------------------------------------------------
    m0 = bsp['models'][0]
    lo, hi = m0[0:3], m0[3:6]
    rng = random.Random(39)
    # whole thousandths: the positions as written are the positions asked about
    r3 = rng.randrange
    span = [int((hi[k] - lo[k]) * 1000) for k in range(3)]
    base = [int(math.ceil(lo[k] * 1000)) for k in range(3)]
    pts = [[(base[k] + r3(span[k])) / 1000.0 for k in range(3)] for _ in range(NPOINTS)]
    q = subprocess.run([CLI, 'query', BSP, '--batch'], input=''.join('%r %r %r\n' % tuple(p) for p in pts),
                       capture_output=True, text=True)
    if q.returncode != 0:
        print(q.stderr, file=sys.stderr)
        sys.exit(1)
    native = [int(x) for x in re.findall(r'"native_contents":(-?[0-9]+)', q.stdout)]
    assert len(native) == len(pts), 'the query answered %d of %d points' % (len(native), len(pts))
    # a grid over the world bounds, each cell listing the brushes whose box meets it
    G = 24
    size = [(hi[k] - lo[k]) / G or 1 for k in range(3)]
    cells = {}
    boxes = []
    for bi, b in enumerate(brushes):
        cs = corners(b)
        if not cs:
            fails.append('world brush %d has no corners' % bi)
            continue
        bl = [min(c[k] for c in cs) for k in range(3)]
        bh = [max(c[k] for c in cs) for k in range(3)]
        boxes.append((bl, bh))
        r = [range(max(0, int((bl[k] - lo[k]) / size[k])), min(G, int((bh[k] - lo[k]) / size[k]) + 1)) for k in range(3)]
        for x in r[0]:
            for y in r[1]:
                for z in r[2]:
                    cells.setdefault((x, y, z), []).append(bi)
    agree_solid = agree = 0
    for p, nc in zip(pts, native):
        key = tuple(min(G - 1, max(0, int((p[k] - lo[k]) / size[k]))) for k in range(3))
        got = 'empty'
        for bi in cells.get(key, ()):
            b = brushes[bi]
            if all(s[0][0] * p[0] + s[0][1] * p[1] + s[0][2] * p[2] - s[1] <= 0 for s in b):
                got = brush_class(b)
                break
        want = NATIVE.get(nc, 'water' if -14 <= nc <= -9 else 'solid')
        agree += got == want
        agree_solid += (got == 'solid') == (want == 'solid')
    # ---- faces ----------------------------------------------------------------------------------
    sides = {}
    for e in ents:
        for b in e['brushes']:
            for s in b:
                key = (round(s[0][0], 2), round(s[0][1], 2), round(s[0][2], 2))
                sides.setdefault(key, []).append((s, b))
    origin_of = {}
    for e in ents:
        mk = e['keys'].get('model', '')
        o = [0.0, 0.0, 0.0]
        if 'origin' in e['keys']:
            try:
                o = [float(x) for x in e['keys']['origin'].split()]
            except ValueError:
                pass
        if mk.startswith('*'):
            origin_of[int(mk[1:])] = o
    # the model numbers are not written back: a brush entity's model is the one in file order
    bmodels = [e for e in ents if e['keys'].get('classname') != 'worldspawn' and e['brushes']]
    faces_total = faces_on = 0
    verts, edges, surf = bsp['verts'], bsp['edges'], bsp['surfedges']
    for mi, mo in enumerate(bsp['models']):
        first, count = mo[14], mo[15]
        o = origin_of.get(mi, [0.0, 0.0, 0.0])
        for fi in range(first, first + count):
            f = bsp['faces'][fi]
            ti = bsp['texinfo'][f[4]]
            if ti[8] < 0 or ti[8] >= len(bsp['names']):
                continue
            name = bsp['names'][ti[8]].lower()
            vs = []
            for k in range(f[3]):
                se = surf[f[2] + k]
                vs.append(verts[edges[se][0]] if se >= 0 else verts[edges[-se][1]])
            if len(vs) < 3:
                continue
            c = [sum(v[k] for v in vs) / len(vs) + o[k] for k in range(3)]
            pn, pd = bsp['planes'][f[0]]
            faces_total += 1
            found = False
            for sg in (1, -1):
                key = tuple(round(sg * pn[k], 2) for k in range(3))
                for s, b in sides.get(key, ()):
                    if s[2].lower() != name or abs(sum(s[0][k] * c[k] for k in range(3)) - s[1]) > 0.1:
                        continue
                    if all(sum(t[0][k] * c[k] for k in range(3)) - t[1] <= 0.1 for t in b):
                        found = True
                        break
                if found:
                    break
            faces_on += found
    n = len(pts)
    rep = dict(map=BSP, entities=len(ents), brushes=sum(len(e['brushes']) for e in ents), world_brushes=len(brushes),
               sides=sum(len(b) for e in ents for b in e['brushes']), points=n, points_agree=agree,
               points_agree_solid=agree_solid, faces=faces_total, faces_on_side=faces_on, bad_sides=bad_sides,
               failures=len(fails))
    print(json.dumps(rep))
    if bad_sides:
        fails.append('%d sides whose three points are in a line' % bad_sides)
    if agree_solid < 0.999 * n:
        fails.append('solid-or-not agrees on %d of %d points (%.3f%%)' % (agree_solid, n, 100.0 * agree_solid / n))
    for f in fails:
        print(f, file=sys.stderr)
    sys.exit(1 if fails else 0)


main()
