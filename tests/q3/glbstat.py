#!/usr/bin/env python3
"""Read a .glb (stdlib only) and print facts for the Quake 3 tests, one JSON object per file:
triangles, points, vertices, node names, and the share of triangles whose winding
(counter-clockwise, glTF's front face) agrees with their vertex normals."""
import json, struct, sys

COMP = {5120: 'b', 5121: 'B', 5122: 'h', 5123: 'H', 5125: 'I', 5126: 'f'}
NCOMP = {'SCALAR': 1, 'VEC2': 2, 'VEC3': 3, 'VEC4': 4}


def load(path):
    d = open(path, 'rb').read()
    magic, ver, total = struct.unpack_from('<4sII', d, 0)
    assert magic == b'glTF' and ver == 2, 'not a glb v2'
    jlen, jtype = struct.unpack_from('<I4s', d, 12)
    j = json.loads(d[20:20 + jlen])
    off = 20 + jlen
    binchunk = b''
    if off + 8 <= len(d):
        blen, btype = struct.unpack_from('<I4s', d, off)
        binchunk = d[off + 8:off + 8 + blen]
    return j, binchunk


def accessor(j, b, i):
    a = j['accessors'][i]
    bv = j['bufferViews'][a['bufferView']]
    n = NCOMP[a['type']]
    fmt = COMP[a['componentType']]
    size = struct.calcsize(fmt)
    stride = bv.get('byteStride', size * n)
    base = bv.get('byteOffset', 0) + a.get('byteOffset', 0)
    out = []
    for k in range(a['count']):
        out.append(struct.unpack_from('<' + fmt * n, b, base + k * stride))
    return out


def stats(path, winding=True):
    j, b = load(path)
    tris = pts = verts = agree = judged = 0
    for m in j.get('meshes', []):
        for p in m['primitives']:
            mode = p.get('mode', 4)
            cnt = j['accessors'][p['attributes']['POSITION']]['count']
            verts += cnt
            if mode == 0:
                pts += cnt
                continue
            if mode != 4:
                continue
            n = j['accessors'][p['indices']]['count'] if 'indices' in p else cnt
            tris += n // 3
            if winding and 'NORMAL' in p['attributes'] and 'indices' in p:
                P = accessor(j, b, p['attributes']['POSITION'])
                N = accessor(j, b, p['attributes']['NORMAL'])
                I = [x[0] for x in accessor(j, b, p['indices'])]
                for t in range(0, len(I) - 2, 3):
                    a, c, e = P[I[t]], P[I[t + 1]], P[I[t + 2]]
                    u = [c[k] - a[k] for k in range(3)]
                    v = [e[k] - a[k] for k in range(3)]
                    cr = (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])
                    nn = [N[I[t]][k] + N[I[t + 1]][k] + N[I[t + 2]][k] for k in range(3)]
                    dot = sum(cr[k] * nn[k] for k in range(3))
                    if abs(dot) > 1e-12:
                        judged += 1
                        agree += dot > 0
    return {'file': path, 'triangles': tris, 'points': pts, 'vertices': verts,
            'nodes': [n.get('name', '') for n in j.get('nodes', [])],
            'winding_agree': (agree / judged) if judged else 1.0, 'winding_judged': judged}


if __name__ == '__main__':
    args = sys.argv[1:]
    wind = True
    if args and args[0] == '--no-winding':
        wind = False
        args = args[1:]
    for f in args:
        print(json.dumps(stats(f, wind)))
