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
    solids = []
    for top in root[2]:
        if top[0] in ('world', 'entity'):
            o = [0.0, 0.0, 0.0]
            ov = dict(top[1]).get('origin')
            if top[0] == 'entity' and ov:
                o = [float(x) for x in ov.split()]
            solids += [(c, o) for c in top[2] if c[0] == 'solid']
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
