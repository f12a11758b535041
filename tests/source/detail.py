#!/usr/bin/python3
"""Detail props and cubemaps of a Source map read here, from the bytes, after Valve's headers
(source-sdk-2013 src/public/gamebspfile.h: the 'dprp' game lump, DetailObjectDictLump_t,
DetailSpriteDictLump_t, DetailObjectLump_t of version 4; src/public/bspfile.h: dgamelump_t,
dcubemapsample_t), compared element by element with `bspkit props MAP --json`.
usage: detail.py CLI MAP -> 'N detail props, M cubemaps'; exit 1 on any difference"""
import io, json, lzma, os, struct, subprocess, sys, zipfile
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, '..', 'tools'))
import atlas_check as A

tab_of = A.src_tab

def unlzma(blob, size):
    if blob[:4] != b'LZMA':
        return blob[:size]
    actual, packed = struct.unpack_from('<II', blob, 4)
    alone = blob[12:17] + struct.pack('<Q', actual) + blob[17:17 + packed]
    return lzma.LZMADecompressor(format=lzma.FORMAT_ALONE).decompress(alone, max_length=actual)

def game_lump(data, tab, fourcc):
    gl = A.src_lump(data, tab, 35)
    if len(gl) < 4:
        return None, None
    n = struct.unpack_from('<i', gl, 0)[0]
    for i in range(n):
        gid, flags, ver, ofs, ln = struct.unpack_from('<iHHii', gl, 4 + 16 * i)
        if gid == struct.unpack('>i', fourcc)[0]:
            blob = data[ofs:ofs + max(ln, 0) + 64] if flags & 1 else data[ofs:ofs + ln]
            return ver, unlzma(blob, ln) if flags & 1 else blob
    return None, None

def f32(x):
    return struct.unpack('<f', struct.pack('<f', x))[0]

def name(b):
    return b.split(b'\0')[0].decode('latin-1')

def main(cli, path):
    data = open(path, 'rb').read()
    tab = tab_of(data)
    got = json.loads(subprocess.run([cli, 'props', path, '--json'], check=True, capture_output=True).stdout)
    bad = []
    want_props = []
    ver, d = game_lump(data, tab, b'dprp')
    if d is not None and ver == 4:
        p = 0
        nm = struct.unpack_from('<i', d, p)[0]; p += 4
        models = [name(d[p + 128 * i:p + 128 * (i + 1)]) for i in range(nm)]; p += 128 * nm
        ns = struct.unpack_from('<i', d, p)[0]; p += 4
        sprites = [struct.unpack_from('<8f', d, p + 32 * i) for i in range(ns)]; p += 32 * ns
        no = struct.unpack_from('<i', d, p)[0]; p += 4
        for i in range(no):
            (ox, oy, oz, ax, ay, az, model, leaf, l0, l1, l2, l3, styles, nstyles, sway, sangle, ssize, orient,
             typ, scale) = struct.unpack_from('<6fHH4BIBBBBB3xB3xf', d, p + 52 * i)
            w = {'type': ['model', 'sprite', 'shape_cross', 'shape_tri'][typ] if typ < 4 else 'unknown'}
            if typ == 0:
                w['model'] = models[model] if model < nm else ''
                w['model_index'] = model
            else:
                w['sprite'] = model
                if model < ns:
                    s = sprites[model]
                    w['sprite_rect'] = {'ul': list(s[0:2]), 'lr': list(s[2:4]), 'tex_ul': list(s[4:6]), 'tex_lr': list(s[6:8])}
            w.update({'origin': [ox, oy, oz], 'angles': [ax, ay, az], 'leaf': leaf, 'orientation': orient,
                      'sway_amount': sway, 'scale': scale})
            if typ >= 2:
                w['shape_angle'], w['shape_size'] = sangle, ssize
            w['lighting'] = [l0, l1, l2, l3 - 256 if l3 > 127 else l3]
            want_props.append(w)
    def same(a, b):
        if isinstance(a, dict):
            return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
        if isinstance(a, list):
            return isinstance(b, list) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
        if isinstance(a, float) or isinstance(b, float):
            return f32(a) == f32(b)   # bspkit's JSON carries the float, printed to round-trip
        return a == b
    gp = got['detail_props']
    if len(gp) != len(want_props):
        bad.append(f'{len(gp)} detail props, want {len(want_props)}')
    for i, (g, w) in enumerate(zip(gp, want_props)):
        if not same(w, g):
            bad.append(f'detail prop {i}: got {g}\n    want {w}')
            if len(bad) > 5:
                break
    cube = A.src_lump(data, tab, 42)
    want_cubes = []
    pak_names = None
    for i in range(len(cube) // 16):
        x, y, z, size = struct.unpack_from('<3iB', cube, 16 * i)
        w = {'origin': [x, y, z], 'size': size}
        if size:
            w['texels'] = 1 << (size - 1)
        w['vtf'] = f'c{x}_{y}_{z}.vtf'
        want_cubes.append(w)
    try:
        pak_names = zipfile.ZipFile(io.BytesIO(A.src_lump(data, tab, 40))).namelist()
    except (zipfile.BadZipFile, ValueError):
        pak_names = []
    for w in want_cubes:
        hits = [n for n in pak_names if n.lower().endswith('/' + w['vtf'].lower())]
        w['pakfile'] = hits[0] if hits else None
    gc = got['cubemaps']
    in_pak = sum(1 for c in gc if c.get('pakfile'))
    if len(gc) != len(want_cubes):
        bad.append(f'{len(gc)} cubemaps, want {len(want_cubes)}')
    for i, (g, w) in enumerate(zip(gc, want_cubes)):
        if g != w:
            bad.append(f'cubemap {i}: got {g}, want {w}')
    print(f'{os.path.basename(path)}: {len(want_props)} detail props, {len(want_cubes)} cubemaps, '
          f'{in_pak} cubemap VTFs in the pakfile'
          + ''.join('\n  ' + b for b in bad))
    return 1 if bad else 0

if __name__ == '__main__':
    sys.exit(main(sys.argv[1], sys.argv[2]))
