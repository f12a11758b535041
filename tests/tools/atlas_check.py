#!/usr/bin/python3
"""Lightmap atlas check: every lightmap of a map, sampled through the exported lightmap UVs from the
decoded atlas PNG, equals the source lightmap's pixels after the same brightness processing.

Independent of bspkit's code: the map is read here (Quake 3 IBSP and its external lm_NNNN.tga pages,
Quake 1 / BSP2 / GoldSrc, Source VBSP v19-v21), the .glb with json/struct, the PNG with zlib and numpy.
For every lightmap (a Quake 3 page, a Quake 1 / Source face) the vertices that use it are looked up
in the .glb by their exact exported position (float32, the exporter's axis change and scale); each
vertex's TEXCOORD_1 times the atlas size, minus its lightmap coordinate inside its own lightmap
(known from the map), gives the lightmap's texel offset in the atlas. One integer offset must agree
with every vertex that uses the lightmap; the atlas there must hold the lightmap's pixels exactly,
and the one-texel border around it its edge texels (what bilinear filtering at the edge reads).

usage: atlas_check.py [--game-pk3 PK3] MAP.bsp OUT.glb [MAP.bsp OUT.glb ...]
prints one line per map; exit 1 if any map fails.
"""
import json, lzma, math, struct, sys, zipfile, zlib

import numpy as np

SCALE = np.float32(0.0254)


# ---- glb, PNG ---------------------------------------------------------------------------------

def load_glb(path):
    d = open(path, 'rb').read()
    assert d[:4] == b'glTF', 'not a glb'
    jlen = struct.unpack_from('<I', d, 12)[0]
    j = json.loads(d[20:20 + jlen])
    off = 20 + jlen
    blen = struct.unpack_from('<I', d, off)[0]
    return j, d[off + 8:off + 8 + blen]


def accessor(j, b, i):
    a = j['accessors'][i]
    bv = j['bufferViews'][a['bufferView']]
    n = {'SCALAR': 1, 'VEC2': 2, 'VEC3': 3, 'VEC4': 4}[a['type']]
    dt = {5126: '<f4', 5123: '<u2', 5125: '<u4'}[a['componentType']]
    start = bv.get('byteOffset', 0) + a.get('byteOffset', 0)
    assert 'byteStride' not in bv
    return np.frombuffer(b, dtype=dt, count=a['count'] * n, offset=start).reshape(a['count'], n)


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else (b if pb <= pc else c)


def decode_png(data):
    """8-bit RGB / RGBA / indexed, not interlaced (what glTF writers put in a .glb); any filter type"""
    assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
    pos, idat, w, plte = 8, [], 0, None
    while pos < len(data):
        n, typ = struct.unpack_from('>I4s', data, pos)
        body = data[pos + 8:pos + 8 + n]
        if zlib.crc32(data[pos + 4:pos + 8 + n]) != struct.unpack_from('>I', data, pos + 8 + n)[0]:
            raise ValueError('PNG chunk CRC mismatch')
        if typ == b'IHDR':
            w, h, depth, ctype, _, _, inter = struct.unpack('>IIBBBBB', body)
            assert depth == 8 and ctype in (2, 3, 6) and inter == 0, 'unsupported PNG'
            bpp = {2: 3, 3: 1, 6: 4}[ctype]
        elif typ == b'PLTE':
            plte = np.frombuffer(body, dtype=np.uint8).reshape(-1, 3)
        elif typ == b'IDAT':
            idat.append(body)
        elif typ == b'IEND':
            break
        pos += 12 + n
    raw = np.frombuffer(zlib.decompress(b''.join(idat)), dtype=np.uint8)
    stride = w * bpp + 1
    assert raw.size == stride * h, 'PNG data size'
    raw = raw.reshape(h, stride)
    out = np.zeros((h, w * bpp), dtype=np.uint8)
    prev = np.zeros(w * bpp, dtype=np.uint8)
    for y in range(h):
        f, row = raw[y, 0], raw[y, 1:]
        if f == 0:
            cur = row.copy()
        elif f == 2:
            cur = row + prev
        elif f == 1:
            cur = (np.cumsum(row.reshape(w, bpp).astype(np.uint32), axis=0) % 256).astype(np.uint8).reshape(-1)
        else:
            cur = np.zeros_like(row)
            for x in range(w * bpp):
                a = int(cur[x - bpp]) if x >= bpp else 0
                c = int(prev[x - bpp]) if x >= bpp else 0
                pr = paeth(a, int(prev[x]), c) if f == 4 else (a + int(prev[x])) // 2
                cur[x] = (int(row[x]) + pr) & 255
        out[y] = cur
        prev = cur
    if bpp == 1:   # indexed: through the palette
        return plte[out.reshape(h, w)]
    return out.reshape(h, w, bpp)[:, :, :3]


def glb_image(j, b, tex):
    img = j['images'][j['textures'][tex]['source']]
    bv = j['bufferViews'][img['bufferView']]
    return decode_png(b[bv.get('byteOffset', 0):bv.get('byteOffset', 0) + bv['byteLength']])


def glb_styles(path):
    """Light styles (Quake 1 / GoldSrc): ({style: layer RGB array}, {style: value at rest},
    {material index: [styles]}), all empty without them"""
    j, b = load_glb(path)
    layers, mats = {}, {}
    for i, m in enumerate(j.get('materials', [])):
        ex = m.get('extras', {})
        st, tx = ex.get('lightStyles'), ex.get('lightStyleTextures')
        if st is None:
            continue
        assert len(st) == len(tx) and st == sorted(set(st)), f'material {i}: lightStyles {st} / textures {tx}'
        mats[i] = st
        for s, t in zip(st, tx):
            if s not in layers:
                layers[s] = t
            assert layers[s] == t, f'style {s} has two layer textures'
    rest = {int(k): v['restValue'] for k, v in
            ((j.get('scenes') or [{}])[0].get('extras', {}).get('lightStyles') or {}).items()}
    return {s: glb_image(j, b, t) for s, t in layers.items()}, rest, mats


def glb_lightmap(path):
    """(atlas RGB array, {position key: [uv1 in texels, ...]}, lightmapGainBaked or None)"""
    j, b = load_glb(path)
    tex = None
    gain = None
    lit = set()
    for i, m in enumerate(j.get('materials', [])):
        t = m.get('occlusionTexture')
        if t and t.get('texCoord') == 1:
            if tex is not None and t['index'] != tex:
                raise ValueError('more than one lightmap texture')
            tex = t['index']
            lit.add(i)
            g = m.get('extras', {}).get('lightmapGainBaked')
            if g is not None:
                gain = float(g)
            if m.get('extras', {}).get('lightmapScale') is not None:
                gain = 'engine'   # Quake 1: the atlas as the engine keeps it, scaled when drawn
    if tex is None:
        return None, {}, None
    img = j['images'][j['textures'][tex]['source']]
    bv = j['bufferViews'][img['bufferView']]
    atlas = decode_png(b[bv.get('byteOffset', 0):bv.get('byteOffset', 0) + bv['byteLength']])
    H, W = atlas.shape[:2]
    verts = {}
    for me in j.get('meshes', []):
        for p in me['primitives']:
            if p.get('material') not in lit or 'TEXCOORD_1' not in p['attributes']:
                continue
            pos = accessor(j, b, p['attributes']['POSITION']).tobytes()   # 12 bytes a vertex
            uv = (accessor(j, b, p['attributes']['TEXCOORD_1']).astype(np.float64) * np.array([W, H])).tolist()
            for k, (u, v) in enumerate(uv):
                verts.setdefault(pos[12 * k:12 * k + 12], []).append((u, v))
    return atlas, verts, gain


def keys(xyz):
    """the exported position of each engine-space point (rows of an N x 3 array) as bytes:
    (x, z, -y) * 0.0254 in float32"""
    v = np.asarray(xyz, dtype=np.float32).reshape(-1, 3)
    raw = (np.stack([v[:, 0], v[:, 2], -v[:, 1]], axis=1).astype(np.float32) * SCALE).astype(np.float32).tobytes()
    return [raw[12 * k:12 * k + 12] for k in range(len(v))]


# ---- the check shared by every family ---------------------------------------------------------

def check_units(name, atlas, verts, units, pad=1):
    """units: [(label, page RGB array h x w x 3, [(position key, (lx, ly) texel coords in the page)])]"""
    H, W = atlas.shape[:2]
    verified = unmatched = bad = area = 0
    msgs = []
    for label, page, pts in units:
        h, w = page.shape[:2]
        offs = None
        seen = 0
        for k, (lx, ly) in pts:
            cands = verts.get(k)
            if not cands:
                continue
            seen += 1
            if offs is None:   # the integer offsets this vertex allows
                offs = set()
                for u, v in cands:
                    ox, oy = u - lx, v - ly
                    rx, ry = round(ox), round(oy)
                    if abs(ox - rx) < 0.02 and abs(oy - ry) < 0.02:
                        offs.add((rx, ry))
            else:   # those of them every later vertex allows too (within 0.02 of an integer is its round)
                offs = {(rx, ry) for rx, ry in offs if any(abs(u - lx - rx) < 0.02 and abs(v - ly - ry) < 0.02 for u, v in cands)}
            if not offs:
                break
        if not seen:
            unmatched += 1
            continue
        ok = False
        for ox, oy in sorted(offs or ()):
            if ox - pad < 0 or oy - pad < 0 or ox + w + pad > W or oy + h + pad > H:
                continue
            inner = atlas[oy:oy + h, ox:ox + w]
            if not np.array_equal(inner, page):
                continue
            ring = atlas[oy - pad:oy + h + pad, ox - pad:ox + w + pad]
            padded = np.pad(page, ((pad, pad), (pad, pad), (0, 0)), mode='edge')
            if not np.array_equal(ring, padded):
                continue
            ok = True
            break
        if ok:
            verified += 1
            area += (w + 2 * pad) * (h + 2 * pad)
        else:
            bad += 1
            if len(msgs) < 3:
                if not offs:
                    msgs.append(f'{label}: no texel offset agrees with all {seen} of its vertices\' UVs')
                else:
                    ox, oy = sorted(offs)[0]
                    inner = atlas[max(oy, 0):oy + h, max(ox, 0):ox + w]
                    diff = 'out of the atlas' if inner.shape != page.shape else \
                        f'{int(np.count_nonzero((inner != page).any(axis=2)))} of {w * h} texels differ (or its border)'
                    msgs.append(f'{label} at {ox},{oy} ({w}x{h}): {diff}')
    return verified, unmatched, bad, area, msgs


# ---- Quake 3 ----------------------------------------------------------------------------------

def color_shift(px, k):
    """R_ColorShiftLightingBytes in float32: scale, and scale all three back when one overflows"""
    if k <= 1.0:
        return px
    f = px.astype(np.float32) * np.float32(k)
    mx = np.maximum(np.maximum(f[..., 0], f[..., 1]), f[..., 2])[..., None]   # f.max(axis=-1), faster
    sc = np.where(mx > np.float32(255.0), np.float32(255.0) / np.where(mx > 0, mx, np.float32(1)), np.float32(1))
    f = np.where(mx > np.float32(255.0), f * sc, f).astype(np.float32)
    f = f + np.float32(0.5)
    return np.where(f > np.float32(255), np.float32(255), f).astype(np.uint8)


def read_tga(d):
    idlen, cmtype, itype = d[0], d[1], d[2]
    w, h, bits, desc = struct.unpack_from('<HHBB', d, 12)
    assert cmtype == 0 and itype in (2, 10) and bits in (24, 32), 'unsupported TGA'
    bpp = bits // 8
    p = 18 + idlen
    if itype == 2:
        px = np.frombuffer(d, dtype=np.uint8, count=w * h * bpp, offset=p).reshape(h, w, bpp)
    else:
        out = bytearray()
        while len(out) < w * h * bpp:
            c = d[p]
            p += 1
            n = (c & 127) + 1
            if c & 128:
                out += d[p:p + bpp] * n
                p += bpp
            else:
                out += d[p:p + n * bpp]
                p += n * bpp
        px = np.frombuffer(bytes(out[:w * h * bpp]), dtype=np.uint8).reshape(h, w, bpp)
    rgb = px[:, :, [2, 1, 0]]
    if not desc & 0x20:
        rgb = rgb[::-1]
    if desc & 0x10:
        rgb = rgb[:, ::-1]
    return np.ascontiguousarray(rgb)


_pk3s = {}


def game_pk3(pk3):
    """the game archive and its members by lower-case name, opened once for every map"""
    if pk3 not in _pk3s:
        z = zipfile.ZipFile(pk3)
        _pk3s[pk3] = z, {n.lower(): n for n in z.namelist()}
    return _pk3s[pk3]


def q3_units(path, gain, pk3):
    d = open(path, 'rb').read()
    lumps = [struct.unpack_from('<ii', d, 8 + 8 * i) for i in range(17)]
    vo, vl = lumps[10]
    vt = np.frombuffer(d, dtype=np.dtype([('xyz', '<f4', 3), ('st', '<f4', 2), ('lm', '<f4', 2),
                                          ('n', '<f4', 3), ('c', 'u1', 4)]), count=vl // 44, offset=vo)
    so, sl = lumps[13]
    lo, ll = lumps[14]
    ho, hl = lumps[1]
    nodraw = [struct.unpack_from('<i', d, ho + 72 * i + 64)[0] & 0x80 for i in range(hl // 72)]
    npages = ll // (128 * 128 * 3)
    pts = {}
    for i in range(sl // 104):
        sh, _, typ, fv, nv, _, _, lm = struct.unpack_from('<8i', d, so + 104 * i)
        pw, ph = struct.unpack_from('<2i', d, so + 104 * i + 96)
        if lm < 0 or typ not in (1, 2, 3) or nv <= 0:
            continue
        if typ == 2 and 0 <= sh < len(nodraw) and nodraw[sh]:
            continue   # SURF_NODRAW: a collision-only patch (q3map2 -patchmeta), not drawn
        if typ == 2:
            # patch control points at even rows and columns lie exactly on the tessellated grid
            ids = [fv + r * pw + c for r in range(0, ph, 2) for c in range(0, pw, 2)]
        else:
            ids = range(fv, fv + nv)
        pts.setdefault(lm, []).extend(ids)
    name = path.rsplit('/', 1)[-1][:-4]
    units = []
    z, names = game_pk3(pk3) if (npages == 0 and pk3) else (None, {})
    for lm in sorted(pts):
        if lm < npages:
            page = np.frombuffer(d, dtype=np.uint8, count=128 * 128 * 3, offset=lo + lm * 128 * 128 * 3)
            page = page.reshape(128, 128, 3)
        else:
            member = names.get(f'maps/{name}/lm_{lm:04d}.tga'.lower())
            if not member:
                continue
            page = read_tga(z.read(member))
        page = color_shift(page, gain)
        h, w = page.shape[:2]
        ids = np.array(pts[lm])
        xyz, lmc = vt['xyz'][ids], vt['lm'][ids].astype(np.float32)
        # the exporter's texel coordinate: page offset + lm * page size (float32)
        tx = (lmc[:, 0] * np.float32(w)).astype(np.float64).tolist()
        ty = (lmc[:, 1] * np.float32(h)).astype(np.float64).tolist()
        units.append((f'page {lm}', page, list(zip(keys(xyz), zip(tx, ty)))))
    return units


# ---- Quake 1 / BSP2 / GoldSrc -----------------------------------------------------------------

def f32(x):
    return struct.unpack('<f', struct.pack('<f', x))[0]


def q1_units(path, engine_range=False, rest=None, layer=None):
    """each lit face's lightmap as the atlas holds it: its styles summed, each times its value at
    rest (rest: {style: value}, 264 for a style not listed), / 264 x the gain, clamped once, in
    float32 as the engines' integer sum would be rounded; with layer=S, the face's lightmap for
    style S alone as the lump stores it (black if the face does not carry S)"""
    d = open(path, 'rb').read()
    magic = d[:4]
    wide = magic in (b'BSP2', b'2PSB')
    version = 29 if wide else struct.unpack_from('<i', d, 0)[0]
    gold = version == 30
    lumps = [struct.unpack_from('<ii', d, 4 + 8 * i) for i in range(15)]
    if gold:  # Blue Shift swaps the first two entries
        t0 = d[lumps[0][0]:lumps[0][0] + lumps[0][1]].lstrip()
        t1 = d[lumps[1][0]:lumps[1][0] + lumps[1][1]].lstrip()
        if not t0.startswith(b'{') and t1.startswith(b'{') and lumps[0][1] % 20 == 0:
            lumps[0], lumps[1] = lumps[1], lumps[0]
    lit_o, lit_l = lumps[8]
    light = d[lit_o:lit_o + lit_l]
    bpp = 3 if gold else 1
    vo, vl = lumps[3]
    verts = np.frombuffer(d, dtype='<f4', count=vl // 4, offset=vo).reshape(-1, 3)
    eo, el = lumps[12]
    edges = np.frombuffer(d, dtype='<u4' if wide else '<u2', count=el // (4 if wide else 2), offset=eo).reshape(-1, 2)
    so, sl = lumps[13]
    surf = np.frombuffer(d, dtype='<i4', count=sl // 4, offset=so)
    to, tl = lumps[6]
    texinfo = [struct.unpack_from('<8fiI', d, to + 40 * i) for i in range(tl // 40)]
    # Quake's light range: light x style "m" (264/256) clamped, drawn x 2; else doubled, clamped
    gain = 1.0 if gold else (264 / 256 if engine_range else 2.0)
    fo, fl = lumps[7]
    fsz = 28 if wide else 20
    units = []
    for i in range(fl // fsz):
        if wide:
            _, _, first, num, ti = struct.unpack_from('<5I', d, fo + fsz * i)
            styles = d[fo + fsz * i + 20:fo + fsz * i + 24]
            lofs = struct.unpack_from('<i', d, fo + fsz * i + 24)[0]
        else:
            _, _, first, num, ti = struct.unpack_from('<HHIHH', d, fo + fsz * i)
            styles = d[fo + fsz * i + 12:fo + fsz * i + 16]
            lofs = struct.unpack_from('<i', d, fo + fsz * i + 16)[0]
        if lofs < 0 or styles[0] == 255 or num < 3 or ti >= len(texinfo) or (texinfo[ti][9] & 1):
            continue
        t = texinfo[ti]
        pos = []
        for k in range(num):
            e = int(surf[first + k])
            pos.append(verts[edges[e][0]] if e >= 0 else verts[edges[-e][1]])
        st = []
        mins, maxs = [1e30, 1e30], [-1e30, -1e30]
        for v in pos:
            s = [float(v[0]) * t[4 * j] + float(v[1]) * t[4 * j + 1] + float(v[2]) * t[4 * j + 2] + t[4 * j + 3]
                 for j in range(2)]
            st.append(s)
            for j in range(2):
                val = f32(float(v[0]) * f32(t[4 * j]) + float(v[1]) * f32(t[4 * j + 1]) + float(v[2]) * f32(t[4 * j + 2]) + t[4 * j + 3])
                mins[j] = min(mins[j], val)
                maxs[j] = max(maxs[j], val)
        bmin = [math.floor(f32(mins[j] / 16)) for j in range(2)]
        w = math.ceil(f32(maxs[0] / 16)) - bmin[0] + 1
        h = math.ceil(f32(maxs[1] / 16)) - bmin[1] + 1
        if w <= 0 or h <= 0 or w > 256 or h > 256:
            continue
        n = w * h
        start = lofs * (3 if bpp == 3 and not gold else 1)
        nst = next((k for k in range(4) if styles[k] == 255), 4)
        if start + n * bpp * nst > len(light):
            continue
        acc = np.zeros((h, w, 3), dtype=np.uint32)
        for k in range(nst):
            raw = np.frombuffer(light, dtype=np.uint8, count=n * bpp, offset=start + k * n * bpp)
            slot = np.repeat(raw.reshape(h, w, 1), 3, axis=2) if bpp == 1 else raw.reshape(h, w, 3)
            if layer is None:
                acc += slot.astype(np.uint32) * np.uint32((rest or {}).get(styles[k], 264))
            elif styles[k] == layer:
                acc += slot
        if layer is not None:
            page = acc.astype(np.uint8)
        else:
            f = acc.astype(np.float32) / np.float32(264) * np.float32(gain)
            page = np.where(f > 255, np.float32(255), f + np.float32(0.5)).astype(np.uint8)
        pts = [(k, ((s[0] - bmin[0] * 16) / 16 + 0.5, (s[1] - bmin[1] * 16) / 16 + 0.5)) for k, s in zip(keys(pos), st)]
        units.append((f'face {i}', np.ascontiguousarray(page), pts))
    return units


# ---- Source -----------------------------------------------------------------------------------

def src_lump(data, tab, i):
    o, ln = tab[i]
    blob = data[o:o + ln]
    if len(blob) >= 17 and blob[:4] == b'LZMA':
        actual, packed = struct.unpack_from('<II', blob, 4)
        alone = blob[12:17] + struct.pack('<Q', actual) + blob[17:17 + packed]
        return lzma.LZMADecompressor(format=lzma.FORMAT_ALONE).decompress(alone, max_length=actual)
    return blob


def src_tab(data):
    """A Source map's lump directory as (offset, length) pairs: the standard lump_t or L4D2's
    {version, offset, length, fourCC}, whichever places the lumps inside the file."""
    version = struct.unpack_from('<i', data, 4)[0]
    raw = [struct.unpack_from('<iiii', data, 8 + 16 * i) for i in range(64)]

    def fits(t):
        return all(o >= 0 and ln >= 0 and (ln == 0 or (o >= 1036 and o + ln <= len(data))) for o, ln in t)
    std = [(r[0], r[1]) for r in raw]
    l4d2 = [(r[1], r[2]) for r in raw]
    return l4d2 if (version == 21 and not (fits(std) and std[0][1] > 0) and fits(l4d2)) else std


def tonemap(c, e, exposure=1.0):
    lin = np.ldexp(c.astype(np.float64), e.astype(np.int32)) / 255.0 * exposure
    g = np.power(np.where(lin > 0, lin, 1.0), 1.0 / 2.2)
    out = np.where(g >= 1.0, 255, np.floor(g * 255.0 + 0.5))
    return np.where(lin > 0, out, 0).astype(np.uint8)


def source_units(path, exposure=1.0):
    """exposure: the scene's lightmap_hdr_exposure (HDR lighting; its value is checked by
    source/hdr.py), 1 for LDR lighting"""
    data = open(path, 'rb').read()
    version = struct.unpack_from('<i', data, 4)[0]
    if data[:4] != b'VBSP' or version not in (19, 20, 21):
        return None
    tab = src_tab(data)
    light, faces_lump = src_lump(data, tab, 8), src_lump(data, tab, 7)
    if not light:
        light, hf = src_lump(data, tab, 53), src_lump(data, tab, 58)
        if len(hf) == len(faces_lump) and hf:
            faces_lump = hf
    verts = np.frombuffer(src_lump(data, tab, 3), dtype='<f4').reshape(-1, 3)
    edges = np.frombuffer(src_lump(data, tab, 12), dtype='<u2').reshape(-1, 2)
    surf = np.frombuffer(src_lump(data, tab, 13), dtype='<i4')
    tinfo = src_lump(data, tab, 6)
    units = []
    for i in range(len(faces_lump) // 56):
        first, num, ti, disp = struct.unpack_from('<ihhh', faces_lump, 56 * i + 4)
        styles = faces_lump[56 * i + 16:56 * i + 20]
        lofs = struct.unpack_from('<i', faces_lump, 56 * i + 20)[0]
        mins = struct.unpack_from('<2i', faces_lump, 56 * i + 28)
        size = struct.unpack_from('<2i', faces_lump, 56 * i + 36)
        if disp != -1 or lofs < 0 or styles[0] == 255 or num < 3 or ti < 0 or min(size) < 0:
            continue
        w, h = size[0] + 1, size[1] + 1
        if lofs + w * h * 4 > len(light):
            continue
        px = np.frombuffer(light, dtype=np.uint8, count=w * h * 4, offset=lofs).reshape(h, w, 4)
        e = px[:, :, 3].view(np.int8)
        page = np.stack([tonemap(px[:, :, c], e, exposure) for c in range(3)], axis=2)
        lmv = np.array(struct.unpack_from('<8f', tinfo, 72 * ti + 32), dtype=np.float32).reshape(2, 4)
        pts, pos = [], []
        for k in range(num):
            ed = int(surf[first + k])
            v = verts[edges[ed][0]] if ed >= 0 else verts[edges[-ed][1]]
            st = [float(np.float32(np.dot(v.astype(np.float32), lmv[j, :3])) + lmv[j, 3]) - mins[j] + 0.5 for j in range(2)]
            pts.append(tuple(st))
            pos.append(v)
        pts = list(zip(keys(pos), pts))
        units.append((f'face {i}', page, pts))
    return units


# ---- main -------------------------------------------------------------------------------------

def main(argv):
    pk3 = None
    if argv[:1] == ['--game-pk3']:
        pk3, argv = argv[1], argv[2:]
    failed = 0
    for bsp, glb in zip(argv[::2], argv[1::2]):
        name = bsp.rsplit('/', 1)[-1]
        try:
            atlas, verts, gain = glb_lightmap(glb)
            magic = open(bsp, 'rb').read(4)
            if atlas is None:
                print(f'{name}: no lightmap atlas')
                continue
            if magic == b'IBSP':
                units = q3_units(bsp, gain if isinstance(gain, float) else 1.0, pk3)
            elif magic == b'VBSP':
                ex = (load_glb(glb)[0].get('scenes') or [{}])[0].get('extras', {}).get('lightmap_hdr_exposure')
                units = source_units(bsp, float(ex) if ex else 1.0)
            else:
                layers, rest, mats = glb_styles(glb)
                units = q1_units(bsp, gain == 'engine', rest)
                # every style's layer: each face's lightmap for it as stored, black where it has none
                for st, img in sorted(layers.items()):
                    lv, lu, lbad, _, lmsgs = check_units(name, img, verts, q1_units(bsp, layer=st))
                    lok = lbad == 0 and lv > 0 and lv >= 0.9 * (lv + lu)
                    print(f'{"ok" if lok else "FAIL"} {name} layer style {st}: {lv} lightmaps equal to the lump, '
                          f'{lbad} wrong, rest value {rest.get(st)}' + ''.join(f'\n    {m}' for m in lmsgs))
                    failed += not lok
            v, u, bad, area, msgs = check_units(name, atlas, verts, units or [])
        except Exception as e:  # noqa: BLE001 - a map that cannot be checked fails
            print(f'FAIL {name}: {type(e).__name__}: {e}')
            failed += 1
            continue
        H, W = atlas.shape[:2]
        # nearly every lightmap must be found through the exported UVs (those of undrawn faces are not)
        ok = bad == 0 and v > 0 and v >= 0.9 * (v + u) if not magic == b'VBSP' else bad == 0 and v > 0
        fam = {b'IBSP': 'q3', b'VBSP': 'source'}.get(magic, 'q1')
        print(f'{"ok" if ok else "FAIL"} {name} [{fam}]: atlas {W}x{H}, {v} lightmaps equal through their UVs, '
              f'{u} not drawn, {bad} wrong, padded area {area}' + ''.join(f'\n    {m}' for m in msgs))
        failed += not ok
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
