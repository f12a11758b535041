#!/usr/bin/env python3
"""An independent Quake 3 IBSP reader (stdlib only) for the tests: it knows only the header, the
entity text and the model/surface records, and derives the counts bspkit must agree with.

usage: q3read.py counts FILE...          one JSON object per map
       q3read.py check-info CLI FILE...   compare `CLI info --json` with this reader
"""
import json, struct, subprocess, sys


def entity_count(text):
    n = depth = 0
    inq = False
    for ch in text:
        if inq:
            if ch == '"':
                inq = False
        elif ch == '"':
            inq = True
        elif ch == '{':
            depth += 1
            if depth == 1:
                n += 1
        elif ch == '}':
            depth -= 1
    return n


def read(path, level=4):
    d = open(path, 'rb').read()
    if d[:4] != b'IBSP':
        raise ValueError('not IBSP')
    ver = struct.unpack_from('<i', d, 4)[0]
    lumps = [struct.unpack_from('<ii', d, 8 + 8 * i) for i in range(17)]
    eo, el = lumps[0]
    text = d[eo:eo + el].split(b'\0')[0].decode('latin-1')
    ho, hl = lumps[1]
    shader_flags = [struct.unpack_from('<i', d, ho + 72 * i + 64)[0] for i in range(hl // 72)]
    so, sl = lumps[13]
    planar_soup_tris = patches = patch_tris = flares = nodraw = 0
    for i in range(sl // 104):
        (shader, fog, typ, fv, nv, fi, ni, lm) = struct.unpack_from('<8i', d, so + 104 * i)
        pw, ph = struct.unpack_from('<2i', d, so + 104 * i + 96)
        if typ in (1, 3):
            planar_soup_tris += ni // 3
        elif typ == 2 and 0 <= shader < len(shader_flags) and shader_flags[shader] & 0x80:
            nodraw += 1   # SURF_NODRAW: collision only (q3map2 -patchmeta), not drawn
        elif typ == 2:
            patches += 1
            patch_tris += 2 * ((pw - 1) // 2 * level) * ((ph - 1) // 2 * level)
        elif typ == 4:
            flares += 1
    return {
        'version': ver,
        'entities': entity_count(text),
        'surfaces': sl // 104,
        'models': lumps[7][1] // 40,
        'shaders': lumps[1][1] // 72,
        'vertices': lumps[10][1] // 44,
        'indices': lumps[11][1] // 4,
        'patches': patches,
        'nodraw_patches': nodraw,
        'flares': flares,
        'planar_soup_triangles': planar_soup_tris,
        'patch_triangles': patch_tris,
    }


def main(argv):
    if len(argv) >= 2 and argv[0] == 'counts':
        for f in argv[1:]:
            r = read(f)
            r['file'] = f
            print(json.dumps(r))
        return 0
    if len(argv) >= 3 and argv[0] == 'check-info':
        cli, bad = argv[1], 0
        for f in argv[2:]:
            mine = read(f)
            out = subprocess.run([cli, 'info', '--json', f], capture_output=True, text=True)
            if out.returncode != 0:
                print(f'FAIL {f}: info exit {out.returncode}: {out.stderr.strip()[:200]}')
                bad += 1
                continue
            counts = json.loads(out.stdout)['counts']
            mine = dict(mine, patches=mine['patches'] + mine['nodraw_patches'])   # info counts every patch
            for k in ('entities', 'surfaces', 'models', 'shaders', 'vertices', 'indices', 'patches'):
                if counts.get(k) != mine[k]:
                    print(f'FAIL {f}: {k} bspkit {counts.get(k)} reader {mine[k]}')
                    bad += 1
            if counts.get('faces') != mine['surfaces']:
                print(f'FAIL {f}: faces {counts.get("faces")} != surfaces {mine["surfaces"]}')
                bad += 1
        print(f'{len(argv) - 2} maps checked, {bad} mismatches')
        return 1 if bad else 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
