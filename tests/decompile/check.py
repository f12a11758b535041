#!/usr/bin/env python3
"""Re-read a decompiled map (.map of Quake 3, .vmf of Source) with a reader of its own, read the
BSP's brush lumps with another (stdlib only, nothing of bspkit), and compare:

  - every brush of the lumps is written, or reported left out by the decompiler (its stderr);
  - each written side's plane, taken from its three points as the compilers take it, is a plane of
    its brush in the lump (normal within 1e-4, distance within 0.01);
  - sides with the right material (Quake 3: the side's shader; Source: the texinfo's material, or
    the tool the decompiler restored);
  - Quake 3: drawn triangles whose st the written texture matrix of a side on their plane with
    their shader gives back, of those lying on such a side (within 1e-3, up to whole repeats: q3map2 moves each surface's st by
    whole repeats to keep them small); Source: sides whose uaxis/vaxis give the texinfo's
    texture vectors back (within 1e-3), of those whose vectors can project onto the side.

usage: check.py BSP|ARCHIVE.pk3:member OUT.map|OUT.vmf STDERR_FILE
Prints one JSON object; exit 1 when a hard check fails (a plane off, a brush neither written nor
reported, a brush written twice).
"""
import json, lzma, math, re, struct, sys, zipfile

TOL_N, TOL_D = 1e-4, 0.01


def read_input(spec):
    m = re.match(r'^(.*\.(?:pk3|zip)):(.+)$', spec, re.I)
    if m:
        with zipfile.ZipFile(m.group(1)) as z:
            return z.read(m.group(2))
    return open(spec, 'rb').read()


def plane_of(p):
    """the compilers' plane of three points: normal (c - a) x (b - a), normalised"""
    a, b, c = p
    u = [c[k] - a[k] for k in range(3)]
    w = [b[k] - a[k] for k in range(3)]
    n = [u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]]
    l = math.sqrt(sum(x * x for x in n))
    if l < 1e-12:
        return None
    n = [x / l for x in n]
    return n, sum(n[k] * a[k] for k in range(3))


def same_plane(p, q):
    return all(abs(p[0][k] - q[0][k]) <= TOL_N for k in range(3)) and abs(p[1] - q[1]) <= TOL_D


# ---- Quake 3 --------------------------------------------------------------------------------
def q3_bsp(d):
    assert d[:4] == b'IBSP', 'not IBSP'
    lumps = [struct.unpack_from('<ii', d, 8 + 8 * i) for i in range(17)]

    def arr(i, size, fmt):
        o, l = lumps[i]
        return [struct.unpack_from(fmt, d, o + size * k) for k in range(l // size)]
    shaders = [s[0].split(b'\0')[0].decode('latin-1') for s in arr(1, 72, '<64s')]
    planes = [((p[0], p[1], p[2]), p[3]) for p in arr(2, 16, '<4f')]
    brushes = arr(8, 12, '<3i')
    sides = arr(9, 8, '<2i')
    verts = arr(10, 44, '<5f')
    idx = [i[0] for i in arr(11, 4, '<i')]
    surfs = arr(13, 104, '<7i')
    return shaders, planes, brushes, sides, verts, idx, surfs


def parse_q3_map(text):
    """brushes: [(brush index from the comment or None, [(points, texmat, shader)])]"""
    brushes, patches = [], 0
    num = r'(-?[0-9.eE+-]+)'
    side_re = re.compile(r'^\( ' + ' '.join([num] * 3) + r' \) \( ' + ' '.join([num] * 3) + r' \) \( ' +
                         ' '.join([num] * 3) + r' \) \( \( ' + ' '.join([num] * 3) + r' \) \( ' +
                         ' '.join([num] * 3) + r' \) \) (\S+) (\d+) (\d+) (\d+)$')
    cur, idx, origin = None, None, [0.0, 0.0, 0.0]
    for line in text.split('\n'):
        if line.startswith('// entity '):
            origin = [0.0, 0.0, 0.0]
        m = re.match(r'^"origin" "(\S+) (\S+) (\S+)"$', line)
        if m and cur is None:
            origin = [float(x) for x in m.groups()]
        m = re.match(r'^"classname" "worldspawn"$', line)
        if m:
            origin = [0.0, 0.0, 0.0]
        m = re.match(r'^// brush \d+ \(brushes\[(\d+)\]\)', line)
        if m:
            idx = int(m.group(1))
            continue
        if line == 'brushDef':
            cur = []
            brushes.append((idx, cur))
            idx = None
            continue
        if line == 'patchDef2':
            patches += 1
            cur = None
            continue
        if cur is not None and line.startswith('('):
            m = side_re.match(line)
            if not m:
                raise ValueError('bad side line: ' + line)
            v = [float(x) for x in m.groups()[:15]]
            # a brush entity's brushes were moved by its origin: back to the lump's space
            pts = [[v[3 * i + k] - origin[k] for k in range(3)] for i in range(3)]
            cur.append((pts, [v[9:12], v[12:15]], m.group(16), [v[0:3], v[3:6], v[6:9]], origin))
        if line == '}' and cur is not None and cur:
            cur = None
    return brushes, patches


def axis_base(n):
    n = [0.0 if abs(x) < 1e-6 else x for x in n]
    ry = -math.atan2(n[2], math.sqrt(n[1] * n[1] + n[0] * n[0]))
    rz = math.atan2(n[1], n[0])
    return ([-math.sin(rz), math.cos(rz), 0.0],
            [-math.sin(ry) * math.cos(rz), -math.sin(ry) * math.sin(rz), -math.cos(ry)])


def check_q3(data, text, dropped, report):
    shaders, planes, brushes, sides, verts, idx, surfs = q3_bsp(data)
    written, patches = parse_q3_map(text)
    fails = []
    seen = set()
    right_mat = total = 0
    by_plane = {}
    for bi, ws in written:
        if bi is None or not (0 <= bi < len(brushes)):
            fails.append('a brush without its index comment')
            continue
        if bi in seen:
            fails.append('brush %d written twice' % bi)
        seen.add(bi)
        fs, ns, _ = brushes[bi]
        lump = [(planes[sides[fs + k][0]], shaders[sides[fs + k][1]]) for k in range(ns)]
        for pts, tm, sh, _, origin in ws:
            total += 1
            p = plane_of(pts)
            hit = [l for l in lump if p and same_plane(p, l[0])]
            if not hit:
                fails.append('brush %d: side plane %s is none of its lump planes' % (bi, p))
                continue
            full = sh if sh.lower().startswith('textures/') else 'textures/' + sh
            if any(full.lower() == h[1].lower() or sh.lower() == h[1].lower() for h in hit):
                right_mat += 1
            by_plane.setdefault((round(p[1]), ), []).append((p, tm, full.lower(), sh.lower(), origin))
    missing = [i for i in range(len(brushes)) if i not in seen and i not in dropped]
    # brushes of no model are not the decompiler's to write
    owned = set()
    o, l = struct.unpack_from('<ii', data, 8 + 8 * 7)
    for k in range(l // 40):
        fb, nb = struct.unpack_from('<2i', data, o + 40 * k + 32)
        owned.update(range(fb, fb + nb))
    missing = [i for i in missing if i in owned]
    if missing:
        fails.append('%d brushes neither written nor reported (first %d)' % (len(missing), missing[0]))
    # drawn triangles against the written texture matrices
    tris = tris_ok = on_side = 0
    for s in surfs:
        sh, _, typ, fv, nv, fi, ni = s
        if typ not in (1, 3) or not (0 <= sh < len(shaders)):
            continue
        name = shaders[sh].lower()
        for t in range(0, ni - 2, 3):
            vs = [verts[fv + idx[fi + t + k]] for k in range(3)]
            pl = plane_of([v[0:3] for v in vs])   # drawn clockwise: the face normal is (c - a) x (b - a)
            if not pl:
                continue
            tris += 1
            ok = found = False
            for dd in (-1, 0, 1):
                for p, tm, full, short, origin in by_plane.get((round(pl[1]) + dd, ), []):
                    if (full != name and short != name) or not all(abs(p[0][k] - pl[0][k]) < 1e-3 for k in range(3)) \
                            or abs(p[1] - pl[1]) > 0.05:
                        continue
                    found = True
                    bs, bt = axis_base(p[0])
                    good = True
                    shift = None   # q3map2 moves a surface's st by whole repeats to keep them small
                    for v in vs:
                        w = [v[k] + origin[k] for k in range(3)]   # st are of world positions
                        x = sum(w[k] * bs[k] for k in range(3))
                        y = sum(w[k] * bt[k] for k in range(3))
                        s_ = tm[0][0] * x + tm[0][1] * y + tm[0][2]
                        t_ = tm[1][0] * x + tm[1][1] * y + tm[1][2]
                        ds, dt = v[3] - s_, v[4] - t_
                        if shift is None:
                            shift = (round(ds), round(dt))
                        if abs(ds - shift[0]) > 1e-3 or abs(dt - shift[1]) > 1e-3:
                            good = False
                            break
                    if good:
                        ok = True
                        break
                if ok:
                    break
            tris_ok += ok
            on_side += found
    report.update(family='quake3', brushes_lump=len(brushes), brushes_written=len(seen), dropped=len(dropped),
                  sides=total, sides_right_material=right_mat, patches=patches, drawn_triangles=tris, triangles_on_side=on_side,
                  triangles_st_match=tris_ok)
    return fails


# ---- Source ---------------------------------------------------------------------------------
def src_lumps(d):
    assert d[:4] == b'VBSP', 'not VBSP'
    ver = struct.unpack_from('<i', d, 4)[0]
    ents = [struct.unpack_from('<4i', d, 8 + 16 * i) for i in range(64)]
    # the L4D2 order {version, offset, length, fourCC}: lump 0's first field is then no offset
    l4d2 = ver == 21 and ents[0][0] < 8 + 16 * 64
    out = []
    for e in ents:
        o, l = (e[1], e[2]) if l4d2 else (e[0], e[1])
        b = d[o:o + l]
        if b[:4] == b'LZMA':
            size, _, props = struct.unpack_from('<II5s', b, 4)
            b = lzma.decompress(props + struct.pack('<Q', size) + b[17:], format=lzma.FORMAT_ALONE)
        out.append(b)
    return out


def src_bsp(d):
    L = src_lumps(d)

    def arr(i, size, fmt):
        return [struct.unpack_from(fmt, L[i], size * k) for k in range(len(L[i]) // size)]
    planes = [((p[0], p[1], p[2]), p[3]) for p in arr(1, 20, '<4f')]
    brushes = arr(18, 12, '<3i')
    sides = arr(19, 8, '<Hhhh')
    texinfo = arr(6, 72, '<16fii')
    texdata = arr(2, 32, '<3fi')
    table = arr(44, 4, '<i')
    sd = L[43]
    names = [sd[o[0]:sd.index(b'\0', o[0])].decode('latin-1') for o in table]
    return planes, brushes, sides, texinfo, texdata, names


def vmf_tokens(text):
    for m in re.finditer(r'"([^"]*)"|([{}])|([^\s{}"]+)', text):
        yield m.group(1) if m.group(1) is not None else (m.group(2) or m.group(3))


def parse_vmf(text):
    """the tree as [name, [(key, value)], [children]]"""
    root = ['', [], []]
    stack = [root]
    toks = list(vmf_tokens(text))
    i = 0
    while i < len(toks):
        t = toks[i]
        if t == '}':
            stack.pop()
            i += 1
        elif i + 1 < len(toks) and toks[i + 1] == '{':
            node = [t, [], []]
            stack[-1][2].append(node)
            stack.append(node)
            i += 2
        else:
            stack[-1][1].append((t, toks[i + 1]))
            i += 2
    return root


def check_source(data, text, dropped, report):
    planes, brushes, sides, texinfo, texdata, names = src_bsp(data)
    root = parse_vmf(text)
    solids, disp_solids = [], []
    for top in root[2]:
        if top[0] in ('world', 'entity'):
            o = [0.0, 0.0, 0.0]
            ov = dict(top[1]).get('origin')
            if top[0] == 'entity' and ov:
                o = [float(x) for x in ov.split()]
            for c in top[2]:
                if c[0] != 'solid':
                    continue
                # a brush made for a displacement (vbsp keeps none): checked by check_disp
                if any(d[0] == 'dispinfo' for side in c[2] if side[0] == 'side' for d in side[2]):
                    disp_solids.append(c)
                solids.append((c, o))
    # lump brushes by their planes (bevels aside)
    index = {}
    for bi, (fs, ns, contents) in enumerate(brushes):
        for k in range(ns):
            index.setdefault(round(planes[sides[fs + k][0]][1] * 10), set()).add(bi)
    fails, seen = [], set()
    total = right_mat = axes_ok = restored = unusable = 0
    pnum = r'\((-?[0-9.eE+-]+) (-?[0-9.eE+-]+) (-?[0-9.eE+-]+)\)'
    for s, o in solids:
        ws = []
        for side in (c for c in s[2] if c[0] == 'side'):
            kv = dict(side[1])
            m = re.match('^' + ' '.join([pnum] * 3) + '$', kv['plane'])
            if not m:
                fails.append('bad plane ' + kv['plane'])
                continue
            # a brush entity's solids were moved by its origin: back to the lump's space
            v = [float(x) - o[i % 3] for i, x in enumerate(m.groups())]
            ax = []
            for k in ('uaxis', 'vaxis'):
                am = re.match(r'^\[(\S+) (\S+) (\S+) (\S+)\] (\S+)$', kv[k])
                a = [float(x) for x in am.groups()]
                a[3] += sum(a[c] / a[4] * o[c] for c in range(3)) if a[4] else 0.0
                ax.append(a)
            ws.append((plane_of([v[0:3], v[3:6], v[6:9]]), kv['material'], ax))
        if not ws or ws[0][0] is None:
            fails.append('a solid without a usable side')
            continue
        cands = set()
        for dd in (-1, 0, 1):
            cands |= index.get(round(ws[0][0][1] * 10) + dd, set())
        match = None
        for bi in sorted(cands):
            if bi in seen:
                continue
            fs, ns, _ = brushes[bi]
            lump = [sides[fs + k] for k in range(ns)]
            pairs = []
            for p, mat, ax in ws:
                hit = [l for l in lump if p and same_plane(p, planes[l[0]])]
                if not hit:
                    break
                pairs.append((hit[0], mat, ax))
            if len(pairs) == len(ws):
                match = (bi, pairs)
                break
        if match is None:
            if s not in disp_solids:   # else a brush made for a displacement (vbsp kept none)
                fails.append('a solid whose sides are no lump brush\'s planes (first side %s)' % (ws[0][0], ))
            continue
        bi, pairs = match
        seen.add(bi)
        for (pn, ti, _, _), mat, ax in pairs:
            total += 1
            if ti < 0 or ti >= len(texinfo):
                restored += 1
                continue
            t = texinfo[ti]
            name = names[texdata[t[17]][3]] if 0 <= t[17] < len(texdata) else ''
            if mat.lower() == name.lower():
                right_mat += 1
            else:
                restored += 1
            # texture vectors that cannot project onto the side (their plane across it): the
            # decompiler gives default axes, as Hammer could not use them
            u, v = t[0:3], t[4:7]
            c = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]]
            cl = math.sqrt(sum(x * x for x in c))
            n = planes[pn][0]
            if not cl or abs(sum(c[i] * n[i] for i in range(3)) / cl) <= 1e-3:
                unusable += 1
                continue
            good = True
            for k in range(2):
                vec = t[4 * k:4 * k + 4]
                u = ax[k]
                if u[4] == 0:
                    good = False
                    continue
                back = [u[0] / u[4], u[1] / u[4], u[2] / u[4], u[3]]
                if any(abs(back[c] - vec[c]) > 1e-3 * max(1.0, abs(vec[c])) for c in range(4)):
                    good = False
            axes_ok += good
    missing = [i for i in range(len(brushes)) if i not in seen and i not in dropped]
    if missing:
        fails.append('%d brushes neither written nor reported (first %d)' % (len(missing), missing[0]))
    report.update(family='source', brushes_lump=len(brushes), brushes_written=len(seen), dropped=len(dropped),
                  sides=total, sides_texinfo_material=right_mat, sides_other_material=restored,
                  sides_axes_match=axes_ok, sides_axes_unusable=unusable)
    fails += check_disp(data, disp_solids, report)
    fails += check_overlays(data, root, report)
    fails += check_props(data, root, report)
    return fails


def vsub(a, b):
    return [a[i] - b[i] for i in range(3)]


def vdot(a, b):
    return sum(a[i] * b[i] for i in range(3))


def vcross(a, b):
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def clip_face(pl, others):
    """the polygon of plane pl = (n, d) inside the planes others (n.p <= d)"""
    n, d = pl
    ax = max(range(3), key=lambda k: abs(n[k]))
    up = [0.0, 0.0, 0.0]
    up[0 if ax == 2 else 2] = 1.0
    t = vdot(up, n)
    up = [up[k] - t * n[k] for k in range(3)]
    ul = math.sqrt(vdot(up, up))
    up = [x / ul for x in up]
    rt = vcross(up, n)
    c = [n[k] * d for k in range(3)]
    B = 65536.0
    poly = [[c[k] + sx * rt[k] * B + sy * up[k] * B for k in range(3)] for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
    for on, od in others:
        out = []
        for i in range(len(poly)):
            a, b = poly[i], poly[(i + 1) % len(poly)]
            da, db = vdot(on, a) - od, vdot(on, b) - od
            if da <= 1e-6:
                out.append(a)
            if (da < -1e-6 and db > 1e-6) or (da > 1e-6 and db < -1e-6):
                t = da / (da - db)
                out.append([a[k] + t * (b[k] - a[k]) for k in range(3)])
        poly = out
    # drop points on a straight line (a clip through a corner)
    keep = []
    for i in range(len(poly)):
        a, b, c2 = poly[i - 1], poly[i], poly[(i + 1) % len(poly)]
        cr = vcross(vsub(b, a), vsub(c2, b))
        if math.sqrt(vdot(cr, cr)) > 1e-6:
            keep.append(b)
    return keep


def disp_verts(corners, start, power, verts):
    """a displacement's vertices as the engine builds them: corners turned to start at the one
    nearest start, row i from corner 0 towards 1 (and 3 towards 2), each vertex the flat point
    plus its normal times its distance"""
    k = min(range(4), key=lambda i: vdot(vsub(corners[i], start), vsub(corners[i], start)))
    c = corners[k:] + corners[:k]
    w = (1 << power) + 1
    out = []
    for i in range(w):
        a = [c[0][q] + (c[1][q] - c[0][q]) * i / (w - 1) for q in range(3)]
        b = [c[3][q] + (c[2][q] - c[3][q]) * i / (w - 1) for q in range(3)]
        for j in range(w):
            vec, dist = verts[i * w + j]
            out.append([a[q] + (b[q] - a[q]) * j / (w - 1) + vec[q] * dist for q in range(3)])
    return out


def check_disp(data, disp_solids, report):
    """every displacement's vertices, rebuilt from the written dispinfo on its written side,
    within 0.01 units of those the map's lumps give"""
    L = src_lumps(data)
    V = [struct.unpack_from('<3f', L[3], 12 * i) for i in range(len(L[3]) // 12)]
    E = [struct.unpack_from('<2H', L[12], 4 * i) for i in range(len(L[12]) // 4)]
    SE = [struct.unpack_from('<i', L[13], 4 * i)[0] for i in range(len(L[13]) // 4)]
    DV = [(struct.unpack_from('<3f', L[33], 20 * i), struct.unpack_from('<f', L[33], 20 * i + 12)[0])
          for i in range(len(L[33]) // 20)]
    fails, maps = [], []
    for i in range(len(L[26]) // 176):
        start = struct.unpack_from('<3f', L[26], 176 * i)
        vstart, _, power = struct.unpack_from('<3i', L[26], 176 * i + 12)
        face = struct.unpack_from('<H', L[26], 176 * i + 36)[0]
        fe, ne = struct.unpack_from('<ih', L[7], 56 * face + 4)
        corners = [list(V[E[se][0]] if se >= 0 else V[E[-se][1]]) for se in SE[fe:fe + ne]]
        w = (1 << power) + 1
        if len(corners) != 4:
            fails.append('displacement %d: face %d has %d corners' % (i, face, len(corners)))
            continue
        maps.append((i, disp_verts(corners, start, power, DV[vstart:vstart + w * w]), corners))
    # the written ones: the side's polygon from the solid's planes, wound as the map's faces are
    written = []
    for s in disp_solids:
        planes = []
        for side in (c for c in s[2] if c[0] == 'side'):
            v = [float(x) for x in re.findall(r'-?[0-9.]+(?:[eE][-+]?[0-9]+)?', dict(side[1])['plane'])]
            planes.append((plane_of([v[0:3], v[3:6], v[6:9]]), side))
        for k, (pl, side) in enumerate(planes):
            di = [d for d in side[2] if d[0] == 'dispinfo']
            if not di:
                continue
            poly = clip_face(pl, [p for j, (p, _) in enumerate(planes) if j != k])
            kv = dict(di[0][1])
            power = int(kv['power'])
            w = (1 << power) + 1
            blocks = dict((b[0], dict(b[1])) for b in di[0][2])
            verts = []
            for r in range(w):
                nr = [float(x) for x in blocks['normals']['row%d' % r].split()]
                dr = [float(x) for x in blocks['distances']['row%d' % r].split()]
                verts += [((nr[3 * j], nr[3 * j + 1], nr[3 * j + 2]), dr[j]) for j in range(w)]
            start = [float(x) for x in kv['startposition'].strip('[]').split()]
            written.append((poly, start, power, verts))
    if len(written) != len(maps):
        fails.append('%d displacements written, %d in the map' % (len(written), len(maps)))
    close = 0
    worst = 0.0
    for i, want, corners in maps:
        # the winding of the map's face, relative to its normal
        fn = vcross(vsub(corners[1], corners[0]), vsub(corners[2], corners[0]))
        best = None
        for poly, start, power, verts in written:
            if len(poly) != 4 or len(verts) != len(want):
                continue
            if max(min(math.dist(c, p) for p in poly) for c in corners) > 0.01:
                continue   # another displacement's side
            pn = vcross(vsub(poly[1], poly[0]), vsub(poly[2], poly[0]))
            if vdot(pn, fn) < 0:
                poly = poly[::-1]
            got = disp_verts(poly, start, power, verts)
            err = max(math.dist(a, b) for a, b in zip(got, want))
            best = err if best is None else min(best, err)
        if best is None:
            fails.append('displacement %d: no written side on its face' % i)
            continue
        worst = max(worst, best)
        if best <= 0.01:
            close += 1
        else:
            fails.append('displacement %d: a rebuilt vertex %.4f units off' % (i, best))
    report.update(displacements=len(maps), displacements_within_001=close, displacement_worst=round(worst, 5))
    return fails


def check_overlays(data, root, report):
    """every info_overlay's sides are ids of written sides; as many overlays as the lump holds"""
    ids = set()

    def walk(n):
        for c in n[2]:
            if c[0] == 'side':
                ids.add(dict(c[1]).get('id'))
            walk(c)
    walk(root)
    fails, n = [], 0
    for top in root[2]:
        kv = dict(top[1])
        if top[0] == 'entity' and kv.get('classname') == 'info_overlay':
            n += 1
            sides = kv.get('sides', '').split()
            if not sides or any(x not in ids for x in sides):
                fails.append('info_overlay %s: sides "%s" not all written sides' % (kv.get('id'), kv.get('sides')))
    ov = src_lumps(data)[45]
    # an overlay on no face (vbsp found none: a decal off the world) is left out
    lump = sum(1 for i in range(len(ov) // 352) if struct.unpack_from('<H', ov, 352 * i + 6)[0] & 0x3fff)
    if n != lump:
        fails.append('%d info_overlay written, %d overlays on faces in the lump' % (n, lump))
    report.update(overlays=n)
    return fails


def sprp(data):
    """the static props ('sprp' game lump): their shared leading fields, read here"""
    gl = src_lumps(data)[35]
    if len(gl) < 4:
        return None
    for k in range(struct.unpack_from('<i', gl, 0)[0]):
        gid, flags, ver, ofs, ln = struct.unpack_from('<iHHii', gl, 4 + 16 * k)
        if gid != 0x73707270:
            continue
        b = data[ofs:ofs + ln]
        if data[ofs:ofs + 4] == b'LZMA' and len(data) >= ofs + 17:
            # a compressed game lump: its directory length is the decoded size; the stored bytes
            # are the 17-byte header and the compressed length it gives
            size, packed, props = struct.unpack_from('<II5s', data, ofs + 4)
            raw = data[ofs + 17:ofs + 17 + packed]
            b = lzma.decompress(props + struct.pack('<Q', size) + raw, format=lzma.FORMAT_ALONE)
        if len(b) < 12:
            return []
        nn = struct.unpack_from('<i', b, 0)[0]
        names = [b[4 + 128 * i:4 + 128 * i + 128].split(b'\0')[0].decode('latin-1') for i in range(nn)]
        at = 4 + 128 * nn
        at += 4 + 2 * struct.unpack_from('<i', b, at)[0]
        count = struct.unpack_from('<i', b, at)[0]
        at += 4
        size = (len(b) - at) // count if count else 0
        props = []
        for i in range(count):
            p = struct.unpack_from('<6fHHHBBiff', b, at + size * i)
            fs = struct.unpack_from('<f', b, at + size * i + 56)[0] if ver >= 5 else None
            props.append(dict(origin=p[0:3], angles=p[3:6], model=names[p[6]], solid=p[9], skin=p[11],
                              fademindist=p[12], fademaxdist=p[13], fadescale=fs))
        return props
    return []


def check_props(data, root, report):
    """every static prop of the lump written as a prop_static with its fields, in order"""
    want = sprp(data) or []
    got = [dict(top[1]) for top in root[2]
           if top[0] == 'entity' and dict(top[1]).get('classname') == 'prop_static']
    fails = []
    if len(got) != len(want):
        fails.append('%d prop_static written, %d static props in the lump' % (len(got), len(want)))
    same = 0
    for w, g in zip(want, got):
        ok = g.get('model') == w['model'] and int(g.get('skin', -1)) == w['skin'] and int(g.get('solid', -1)) == w['solid']
        for key in ('origin', 'angles'):
            ok &= all(abs(float(a) - b) <= 1e-3 * max(1.0, abs(b)) for a, b in zip(g.get(key, '').split(), w[key]))
        for key in ('fademindist', 'fademaxdist', 'fadescale'):
            if w[key] is not None:
                ok &= abs(float(g.get(key, 'nan')) - w[key]) <= 1e-3 * max(1.0, abs(w[key]))
        same += ok
        if not ok and len(fails) < 5:
            fails.append('prop_static %s: %s, the lump has %s' % (g.get('origin'), g, w))
    report.update(static_props=len(want), static_props_same=same)
    return fails


def main():
    bsp, out, err = sys.argv[1:4]
    data = read_input(bsp)
    text = open(out, encoding='latin-1').read()
    dropped = set(int(x) for x in re.findall(r'brushes\[(\d+)\][^\n]*left out', open(err, encoding='latin-1').read()))
    report = {'map': bsp}
    fails = check_q3(data, text, dropped, report) if data[:4] == b'IBSP' else check_source(data, text, dropped, report)
    report['failures'] = len(fails)
    print(json.dumps(report))
    for f in fails[:10]:
        print('FAIL: %s: %s' % (bsp, f), file=sys.stderr)
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
