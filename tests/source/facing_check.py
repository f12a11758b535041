#!/usr/bin/python3
"""Every world triangle of a converted Source map faces the empty space it is seen from.

Reads the map's BSP tree itself (planes, nodes, leafs; uncompressed lumps only) and the .glb:
for each triangle of the worldspawn mesh (sky and displacements aside), the point one unit in
front of its centroid, along its counter-clockwise normal taken back to engine axes, must lie in
a leaf that is not solid. Prints a JSON summary; exit 1 when under 95% of triangles pass
(a few faces of real maps touch solid one unit out; flipped faces make a third of them fail).
Standard and Left 4 Dead 2 lump layouts, LZMA lumps decoded (not Bloodlines' v17 leaves).

usage: facing_check.py MAP.bsp MAP.glb [MAP.bsp MAP.glb ...]
"""
import json, os, struct, sys
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vbsp_ref import lumps  # noqa: E402

def check(bsp, glb):
    """(exit code, JSON summary): 0 pass, 1 fail, 77 nothing to check"""
    d = open(bsp, 'rb').read()
    ver, lump = lumps(d)
    P, N, L = lump(1), lump(5), lump(10)
    planes = [struct.unpack_from('<4f', P, i * 20) for i in range(len(P) // 20)]
    nodes = [struct.unpack_from('<3i', N, i * 32) for i in range(len(N) // 32)]
    lsz = 56 if ver <= 19 else 32
    leaf_contents = [struct.unpack_from('<i', L, i * lsz)[0] for i in range(len(L) // lsz)]

    def solid(p):
        n = 0
        for _ in range(10000):
            if n < 0:
                return leaf_contents[-1 - n] & 1
            pn, c0, c1 = nodes[n]
            a, b, c, dist = planes[pn]
            n = c0 if a * p[0] + b * p[1] + c * p[2] - dist >= 0 else c1
        raise SystemExit('BSP walk did not end')

    g = open(glb, 'rb').read()
    jn = struct.unpack_from('<I', g, 12)[0]
    j = json.loads(g[20:20 + jn])
    binc = g[20 + jn + 8:]

    def acc(i, dt, c):
        a = j['accessors'][i]
        v = j['bufferViews'][a['bufferView']]
        return np.frombuffer(binc, dtype=dt, count=a['count'] * c, offset=v.get('byteOffset', 0) + a.get('byteOffset', 0)).reshape(-1, c)

    world = [n for n in j['nodes'] if n.get('name') == 'worldspawn' and 'mesh' in n]
    if not world:
        raise SystemExit('no worldspawn mesh')
    scale = 0.0254
    ok = bad = 0
    for p in j['meshes'][world[0]['mesh']]['primitives']:
        mat = j['materials'][p['material']] if 'material' in p else {}
        name = mat.get('name', '').lower()
        ex = mat.get('extras', {})
        if 'sky' in name or ex.get('sky') or 'COLOR_0' in p['attributes']:
            continue  # sky faces; displacements (they carry blend colours) may bend anywhere
        P = acc(p['attributes']['POSITION'], np.float32, 3).astype(np.float64)
        it = {5125: np.uint32, 5123: np.uint16}[j['accessors'][p['indices']]['componentType']]
        I = acc(p['indices'], it, 1).reshape(-1, 3)
        for t in I:
            a, b, c = P[t[0]], P[t[1]], P[t[2]]
            n = np.cross(b - a, c - a)
            ln = np.linalg.norm(n)
            if ln < 1e-12:
                continue
            n /= ln
            cen = (a + b + c) / 3
            # glTF (x, y, z) = engine (X, Z, -Y) x scale
            e = np.array([cen[0], -cen[2], cen[1]]) / scale
            en = np.array([n[0], -n[2], n[1]])
            if solid(e + en * 1.0):
                bad += 1
            else:
                ok += 1
    frac = ok / max(ok + bad, 1)
    summary = json.dumps({'triangles': ok + bad, 'facing_empty': ok, 'facing_solid': bad, 'fraction': round(frac, 4)})
    if ok + bad == 0:
        return 77, summary  # nothing but sky and displacements in the world mesh
    # a few faces of real maps touch solid one unit out (detail brushes against world brushes)
    return (0 if frac >= 0.95 else 1), summary


if __name__ == '__main__':
    # MAP.bsp MAP.glb: exit code and summary; several pairs (one process for a corpus): a line
    # "PASS|FAIL|SKIP MAP summary" per pair
    pairs = list(zip(sys.argv[1::2], sys.argv[2::2]))
    if len(pairs) == 1:
        rc, s = check(*pairs[0])
        print(s)
        sys.exit(rc)
    for bsp, glb in pairs:
        rc, s = check(bsp, glb)
        print({0: 'PASS', 77: 'SKIP'}.get(rc, 'FAIL'), os.path.basename(bsp), s)
