#!/usr/bin/env python3
"""Check a converted .glb's skin and animation against bspkit's DPM skinning (standard library only).

usage: gltf_skin_check.py MODEL.glb ANIM KEY DUMP

Evaluates the glTF the way a viewer does: the animation's sampler outputs at key KEY set the nodes'
TRS, node world matrices are composed, joint matrices = world(joint) * inverseBindMatrix, and each
vertex = sum(weight * joint matrix * bind position). The result must match DUMP (dpm_dump of the
frame that key shows), taken from engine units (Z up) to glTF (Y up, 0.0254 m per unit).
"""
import json
import struct
import sys


def load_glb(path):
    b = open(path, 'rb').read()
    assert b[:4] == b'glTF'
    jl, = struct.unpack_from('<I', b, 12)
    doc = json.loads(b[20:20 + jl])
    bl, = struct.unpack_from('<I', b, 20 + jl)
    return doc, b[28 + jl:28 + jl + bl]


def accessor(doc, binc, i):
    a = doc['accessors'][i]
    v = doc['bufferViews'][a['bufferView']]
    n = {'SCALAR': 1, 'VEC2': 2, 'VEC3': 3, 'VEC4': 4, 'MAT4': 16}[a['type']]
    fmt = {5126: 'f', 5123: 'H', 5125: 'I', 5121: 'B'}[a['componentType']]
    size = struct.calcsize(fmt)
    base = v.get('byteOffset', 0) + a.get('byteOffset', 0)
    stride = v.get('byteStride', n * size)
    return [struct.unpack_from('<%d%s' % (n, fmt), binc, base + k * stride) for k in range(a['count'])]


def trs_matrix(t, r, s):
    x, y, z, w = r
    R = [[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
         [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
         [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]]
    return [[R[i][0] * s[0], R[i][1] * s[1], R[i][2] * s[2], t[i]] for i in range(3)] + [[0, 0, 0, 1]]


def mm(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(4)) for j in range(4)] for i in range(4)]


def main():
    path, anim, key, dump = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    doc, binc = load_glb(path)
    nodes = doc['nodes']
    trs = []
    for n in nodes:
        trs.append([list(n.get('translation', [0, 0, 0])), list(n.get('rotation', [0, 0, 0, 1])),
                    list(n.get('scale', [1, 1, 1]))])
    an = doc['animations'][anim]
    for ch in an['channels']:
        smp = an['samplers'][ch['sampler']]
        out = accessor(doc, binc, smp['output'])
        slot = {'translation': 0, 'rotation': 1, 'scale': 2}[ch['target']['path']]
        trs[ch['target']['node']][slot] = list(out[key])
    parent = {}
    for i, n in enumerate(nodes):
        for c in n.get('children', []):
            parent[c] = i
    world = {}

    def w(i):
        if i not in world:
            m = trs_matrix(*trs[i])
            world[i] = mm(w(parent[i]), m) if i in parent else m
        return world[i]

    skin = doc['skins'][0]
    ibm = accessor(doc, binc, skin['inverseBindMatrices'])
    joints = []
    for j, node in enumerate(skin['joints']):
        c = ibm[j]  # column-major
        inv = [[c[col * 4 + row] for col in range(4)] for row in range(4)]
        joints.append(mm(w(node), inv))
    want = {}
    for line in open(dump):
        p = line.split()
        if p[0] == 'v':
            x, y, z = (float(v) for v in p[3:6])
            want[(int(p[1]), int(p[2]))] = (x * 0.0254, z * 0.0254, -y * 0.0254)
    worst = 0.0
    count = 0
    for mi, mesh in enumerate(doc['meshes']):
        prim = mesh['primitives'][0]
        at = prim['attributes']
        pos = accessor(doc, binc, at['POSITION'])
        jts = accessor(doc, binc, at['JOINTS_0'])
        wts = accessor(doc, binc, at['WEIGHTS_0'])
        for v, p in enumerate(pos):
            got = [0.0, 0.0, 0.0]
            for k in range(4):
                if wts[v][k] == 0:
                    continue
                J = joints[jts[v][k]]
                for r in range(3):
                    got[r] += wts[v][k] * (J[r][0] * p[0] + J[r][1] * p[1] + J[r][2] * p[2] + J[r][3])
            e = max(abs(a - b) for a, b in zip(got, want[(mi, v)]))
            worst = max(worst, e)
            count += 1
    print(f'{path}: animation {anim} key {key}: {count} vertices, max difference {worst:.2e} m')
    sys.exit(0 if count and worst < 2e-4 else 1)


main()
