#!/usr/bin/env python3
"""Independent DPM reader for the tests (Python 3 standard library only).

Written from the format notes (model_dpmodel.h), not from bspkit's C code:
  dpmref.py counts FILE               -> JSON {bones, meshes, frames, vertices, triangles}
  dpmref.py skin FILE DUMP            -> compare a dpm_dump output (frames a b t + skinned
                                         positions/normals) with this script's own skinning
  dpmref.py synth OUT                 -> write a small valid DPM (3 bones, 2 meshes, 3 frames)
  dpmref.py hostile SRC OUTDIR        -> write hostile variants of SRC, one per defect
"""
import json
import math
import struct
import sys


def be(fmt, b, o):
    return struct.unpack_from('>' + fmt, b, o)


def read(path):
    b = open(path, 'rb').read()
    assert b[:16] == b'DARKPLACESMODEL\0', 'magic'
    typ, filesize = be('II', b, 16)
    assert typ == 2 and filesize == len(b)
    nb, nm, nf, ob, om, of = be('6I', b, 56)
    bones = []
    for i in range(nb):
        parent, flags = be('iI', b, ob + i * 40 + 32)
        bones.append((b[ob + i * 40: ob + i * 40 + 32].split(b'\0')[0], parent, flags))
    frames = []
    for i in range(nf):
        o = of + i * 68
        ofs, = be('i', b, o + 64)
        mats = [be('12f', b, ofs + k * 48) for k in range(nb)]
        frames.append((b[o:o + 32].split(b'\0')[0], be('8f', b, o + 32), mats))
    meshes = []
    for i in range(nm):
        o = om + i * 56
        nv, nt, ov, ot, oi, og = be('6I', b, o + 32)
        verts = []
        p = ov
        for _ in range(nv):
            n, = be('I', b, p)
            p += 4
            infl = []
            for _ in range(n):
                infl.append(be('7fI', b, p))
                p += 32
            verts.append(infl)
        tris = [be('3I', b, oi + t * 12) for t in range(nt)]
        meshes.append((b[o:o + 32].split(b'\0')[0], verts, tris))
    return bones, meshes, frames


def mul(a, b):
    """3x4 row-major a * b"""
    r = [0.0] * 12
    for i in range(3):
        for j in range(4):
            r[i * 4 + j] = sum(a[i * 4 + k] * b[k * 4 + j] for k in range(3)) + (a[i * 4 + 3] if j == 3 else 0.0)
    return r


def pose(bones, frames, fa, fb, t):
    out = []
    for i, (_, parent, _) in enumerate(bones):
        a, b = frames[fa][2][i], frames[fb][2][i]
        rel = [a[k] + (b[k] - a[k]) * t for k in range(12)]
        out.append(mul(out[parent], rel) if parent >= 0 else rel)
    return out


def skin(verts, mats):
    res = []
    for infl in verts:
        p = [0.0, 0.0, 0.0]
        n = [0.0, 0.0, 0.0]
        for ox, oy, oz, f, nx, ny, nz, bone in infl:
            m = mats[bone]
            for r in range(3):
                # origin and normal carry their weight already; translation gets the influence
                p[r] += m[r * 4] * ox + m[r * 4 + 1] * oy + m[r * 4 + 2] * oz + m[r * 4 + 3] * f
                n[r] += m[r * 4] * nx + m[r * 4 + 1] * ny + m[r * 4 + 2] * nz
        ln = math.sqrt(sum(c * c for c in n)) or 1.0
        res.append((p, [c / ln for c in n]))
    return res


def counts(path):
    bones, meshes, frames = read(path)
    return {'bones': len(bones), 'meshes': len(meshes), 'frames': len(frames),
            'vertices': sum(len(m[1]) for m in meshes), 'triangles': sum(len(m[2]) for m in meshes)}


def cmd_counts(path):
    print(json.dumps(counts(path)))


def skin_check(path, dump):
    """(ok, message): the skinned vertices of DUMP (dpm_dump's output) against our own skinning"""
    bones, meshes, frames = read(path)
    worst = 0.0
    worst_n = 0.0
    checked = 0
    block = None
    mats = None
    for line in open(dump):
        w = line.split()
        if w[0] == 'pose':
            fa, fb, t = int(w[1]), int(w[2]), float(w[3])
            mats = pose(bones, frames, fa, fb, t)
            block = {}
        elif w[0] == 'v':
            mi, vi = int(w[1]), int(w[2])
            if mi not in block:
                block[mi] = skin(meshes[mi][1], mats)
            p, n = block[mi][vi]
            got_p = [float(x) for x in w[3:6]]
            got_n = [float(x) for x in w[6:9]]
            scale = max(1.0, max(abs(c) for c in p))
            worst = max(worst, max(abs(a - b) for a, b in zip(p, got_p)) / scale)
            worst_n = max(worst_n, max(abs(a - b) for a, b in zip(n, got_n)))
            checked += 1
    total = sum(len(m[1]) for m in meshes)
    ok = checked > 0 and worst < 1e-4 and worst_n < 1e-3 and checked % max(total, 1) == 0
    return ok, (f'{path}: {checked} skinned vertices compared, max relative position error {worst:.2e}, '
                f'max normal error {worst_n:.2e}')


def cmd_skin(path, dump):
    ok, msg = skin_check(path, dump)
    print(msg)
    sys.exit(0 if ok else 1)


def cmd_check_all(listing):
    """one process for a whole corpus: lines MODEL<TAB>INFO.json<TAB>DUMP; PASS / FAIL lines out"""
    for line in open(listing):
        path, info, dump = line.rstrip('\n').split('\t')
        name = path.rsplit('/', 1)[-1]
        c = json.load(open(info))['counts']
        want = counts(path)
        bad = {k: (c.get(k), v) for k, v in want.items() if c.get(k) != v}
        print(f'{"FAIL" if bad else "PASS"} {name}: counts match the Python reader {bad if bad else ""}')
        ok, msg = skin_check(path, dump)
        print(f'{"PASS" if ok else "FAIL"} {name}: skinning agrees with dpmref.py: {msg}')


def build(bones, meshes, frames, mins=(-16, -16, -16), maxs=(16, 16, 16)):
    """bones: [(name, parent, flags)]; meshes: [(shader, verts, tris)] with verts = [[(o3, f, n3, bone)]];
    frames: [(name, [12 floats per bone])]"""
    nb, nm, nf = len(bones), len(meshes), len(frames)
    ob = 80
    om = ob + 40 * nb
    of = om + 56 * nm
    op = of + 68 * nf
    at = op + 48 * nb * nf
    body = bytearray()
    mesh_hdr = bytearray()
    for shader, verts, tris in meshes:
        ov = at + len(body)
        for infl in verts:
            body += struct.pack('>I', len(infl))
            for o3, f, n3, bone in infl:
                body += struct.pack('>7fI', *o3, f, *n3, bone)
        ot = at + len(body)
        for i in range(len(verts)):
            body += struct.pack('>2f', 0.25 * i, 0.5)
        oi = at + len(body)
        for t in tris:
            body += struct.pack('>3I', *t)
        og = at + len(body)
        for i in range(len(tris)):
            body += struct.pack('>I', i)
        mesh_hdr += shader.ljust(32, b'\0') + struct.pack('>6I', len(verts), len(tris), ov, ot, oi, og)
    out = bytearray()
    out += b'DARKPLACESMODEL\0' + struct.pack('>II', 2, at + len(body))
    out += struct.pack('>8f', *mins, *maxs, 12.0, 14.0)
    out += struct.pack('>6I', nb, nm, nf, ob, om, of)
    for name, parent, flags in bones:
        out += name.ljust(32, b'\0') + struct.pack('>iI', parent, flags)
    out += mesh_hdr
    for i, (name, _) in enumerate(frames):
        out += name.ljust(32, b'\0') + struct.pack('>8f', *mins, *maxs, 12.0, 14.0) + struct.pack('>i', op + 48 * nb * i)
    for _, mats in frames:
        for m in mats:
            out += struct.pack('>12f', *m)
    out += body
    return bytes(out)


def synth():
    ident = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0]
    rot = [0, -1, 0, 2, 1, 0, 0, 0, 0, 0, 1, 1]  # 90 degrees about Z, moved
    bones = [(b'root', -1, 0), (b'arm', 0, 0), (b'tag_hand', 1, 1), (b'helper', 0, 0)]
    up = (0.0, 0.0, 1.0)
    verts = [
        [((1.0, 0, 0), 1.0, up, 0)],
        [((0, 1.0, 0), 1.0, up, 0)],
        [((0.5, 0.5, 0), 0.5, (0, 0, 0.5), 0), ((0.5, 0.5, 0), 0.5, (0, 0, 0.5), 1)],
        [((1.0, 1.0, 0), 1.0, up, 1)],
        [((9.0, 9.0, 9.0), 1.0, up, 1)],  # used by no triangle
    ]
    tris = [(0, 1, 2), (2, 3, 0)]
    # five influences (bones 1 and 2 always move together, so keeping 4 changes nothing)
    five = [((0.0, 0, 0.4), 0.2, (0, 0, 0.2), 1 + k % 2) for k in range(5)]
    verts2 = [five, [((1.0, 0, 2.0), 1.0, up, 1)], [((0.0, 1.0, 2.0), 1.0, up, 0)]]
    frames = [(b'base', [ident, ident, ident, ident]), (b'walk_0', [ident, rot, ident, ident]),
              (b'walk_1', [rot, rot, ident, ident])]
    return build(bones, [(b'models/test/skin', verts, tris), (b'second', verts2, [(0, 1, 2)])], frames)


def hostile(src, outdir):
    b = bytearray(open(src, 'rb').read())
    nb, nm, nf, ob, om, of = be('6I', b, 56)
    cases = {}

    def put(name, data):
        cases[name] = data

    def patch(fmt, ofs, *vals):
        c = bytearray(b)
        struct.pack_into('>' + fmt, c, ofs, *vals)
        return c

    put('truncated_header', b[:60])
    put('truncated_tail', b[:len(b) - 7])
    put('bad_type', patch('I', 16, 3))
    put('bones_past_end', patch('I', 68, len(b) - 8))
    put('meshes_past_end', patch('I', 72, 0xFFFFFFF0))
    put('frames_past_end', patch('I', 76, len(b)))
    put('huge_bone_count', patch('I', 56, 0x7FFFFFFF))
    put('huge_frame_count', patch('I', 64, 0x10000000))
    put('huge_mesh_count', patch('I', 60, 0xFFFFFFFF))
    put('forward_parent', patch('i', ob + 40 * 0 + 32, nb - 1 if nb > 1 else 5))
    put('self_parent', patch('i', ob + 40 * (nb - 1) + 32, nb - 1))
    put('negative_parent', patch('i', ob + 40 * (nb - 1) + 32, -7))
    if nb > 2:
        # a cycle: 1 -> 2 and 2 -> 1
        c = patch('i', ob + 40 * 1 + 32, 2)
        struct.pack_into('>i', c, ob + 40 * 2 + 32, 1)
        put('cyclic_parents', c)
    nv, nt, ov, ot, oi, og = be('6I', b, om + 32)
    put('huge_vertex_count', patch('I', om + 32, 0x40000000))
    put('huge_triangle_count', patch('I', om + 36, 0x40000000))
    put('vertices_past_end', patch('I', om + 40, len(b) - 4))
    put('texcoords_past_end', patch('I', om + 44, len(b) - 4))
    put('indices_past_end', patch('I', om + 48, 0xFFFFFFFF))
    put('groupids_past_end', patch('I', om + 52, len(b)))
    put('huge_influence_count', patch('I', ov, 0x0FFFFFFF))
    put('zero_influences', patch('I', ov, 0))
    put('bone_index_out_of_range', patch('I', ov + 4 + 28, nb + 3))
    put('triangle_index_out_of_range', patch('I', oi + 4, nv))
    put('pose_offset_negative', patch('i', of + 64, -48))
    put('pose_offset_past_end', patch('i', of + 68 * (nf - 1) + 64, len(b) - 10))
    put('nan_pose', patch('f', be('i', b, of + 64)[0] + 4, float('nan')))
    put('nan_origin', patch('f', ov + 4, float('inf')))
    put('no_bones', patch('I', 56, 0))
    put('no_frames', patch('I', 64, 0))
    # a vertex list cut short: the file ends inside the second vertex of the first mesh
    first = be('I', b, ov)[0]
    cut = ov + 4 + 32 * first + 4 + 16
    c = bytearray(b[:cut])
    struct.pack_into('>I', c, 20, cut)
    put('truncated_vertex_list', c)
    for name, data in cases.items():
        open(f'{outdir}/{name}.dpm', 'wb').write(data)
    print(len(cases))


if __name__ == '__main__':
    cmd = sys.argv[1]
    if cmd == 'counts':
        cmd_counts(sys.argv[2])
    elif cmd == 'skin':
        cmd_skin(sys.argv[2], sys.argv[3])
    elif cmd == 'check-all':
        cmd_check_all(sys.argv[2])
    elif cmd == 'synth':
        open(sys.argv[2], 'wb').write(synth())
    elif cmd == 'hostile':
        hostile(sys.argv[2], sys.argv[3])
    else:
        sys.exit('unknown command')
