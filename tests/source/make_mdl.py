#!/usr/bin/python3
"""Writes small synthetic Source models (MDL + VVD + VTX) for the tests, from the layouts of the
Source SDK's public/studio.h and public/optimize.h (independently of the C decoder).

usage: make_mdl.py OUTDIR
  OUTDIR/game/models/bspkit_test/box_v44|box_v48|box_v49 .mdl .vvd .dx90.vtx
  OUTDIR/game/materials/models/bspkit_test/*.vmt + *.vtf (the skins' textures)
  OUTDIR/expected/box_vNN.json   what a decoder must find (counts, bounds, CCW triangles, materials)
  OUTDIR/seeds/box_vNN.bin       fuzz input: u32 mdl size, u32 vvd size, MDL, VVD, VTX

Each model: three bones (a root, a child turned 90 degrees about Z, a grandchild), two body parts
("body": one model with a box mesh, a strip mesh and a cap; "extra": a blank model and a model with
a quad), three textures in two skin families, two $cdmaterials folders (the textures lie under the
second), two LODs with a VVD fixup table that stores the vertices out of order, the box split over
two strip groups whose vertices are listed in another order than the mesh's, a triangle strip with
a degenerate joint, and for v49 the longer strip-group and strip headers.
"""
import json
import math
import os
import struct
import sys


def qmul(a, b):
    ax, ay, az, aw = a
    bx, by, bz, bw = b
    return (aw * bx + ax * bw + ay * bz - az * by, aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw, aw * bw - ax * bx - ay * by - az * bz)


def qmat(q):
    x, y, z, w = q
    return [[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]]


def box(lo, hi):
    """24 vertices (4 per face, outward normals) and 12 triangles wound clockwise seen from
    outside, as the VTX stores them."""
    verts, tris = [], []
    faces = [((1, 0, 0), 0), ((-1, 0, 0), 0), ((0, 1, 0), 1), ((0, -1, 0), 1), ((0, 0, 1), 2), ((0, 0, -1), 2)]
    for n, axis in faces:
        s = 1 if sum(n) > 0 else -1
        u = [(axis + 1) % 3, (axis + 2) % 3]
        base = len(verts)
        corners = [(0, 0), (1, 0), (1, 1), (0, 1)]
        for cu, cv in corners:
            p = [0.0, 0.0, 0.0]
            p[axis] = hi[axis] if s > 0 else lo[axis]
            p[u[0]] = hi[u[0]] if cu else lo[u[0]]
            p[u[1]] = hi[u[1]] if cv else lo[u[1]]
            verts.append({"pos": p, "normal": list(map(float, n)), "uv": [float(cu), float(cv)]})
        # corners run counter-clockwise about +axis (u0 x u1 = axis): for an outward +axis face
        # that is CCW from outside, so the clockwise (file) order is reversed
        a, b, c, d = base, base + 1, base + 2, base + 3
        if s > 0:
            tris += [(a, c, b), (a, d, c)]
        else:
            tris += [(a, b, c), (a, c, d)]
    return verts, tris


def build(version):
    # ---- bones: root, child (turned 90 degrees about Z, 16 up), grandchild (8 along x) ----
    h = math.sqrt(0.5)
    bones = [("root", -1, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0)),
             ("child", 0, (0.0, 0.0, 16.0), (0.0, 0.0, h, h)),
             ("grandchild", 1, (8.0, 0.0, 0.0), (0.0, 0.0, 0.0, 1.0))]
    world = []
    for name, parent, pos, q in bones:
        R, t = qmat(q), list(pos)
        if parent >= 0:
            PR, pt = world[parent]
            R = [[sum(PR[i][k] * R[k][j] for k in range(3)) for j in range(3)] for i in range(3)]
            t = [sum(PR[i][k] * pos[k] for k in range(3)) + pt[i] for i in range(3)]
        world.append((R, t))
    pose_to_bone = []
    for R, t in world:   # inverse of a rotation + translation
        RT = [[R[j][i] for j in range(3)] for i in range(3)]
        it = [-sum(RT[i][k] * t[k] for k in range(3)) for i in range(3)]
        pose_to_bone.append([RT[0] + [it[0]], RT[1] + [it[1]], RT[2] + [it[2]]])

    # ---- geometry of body part 0, model 0: mesh 0 a box, mesh 1 a strip quad pair, mesh 2 a cap ----
    bverts, btris = box((-16.0, -8.0, 0.0), (16.0, 8.0, 32.0))
    for v in bverts:   # weights: bottom on the root, top on child + grandchild (and the root again)
        if v["pos"][2] < 1:
            v["w"] = [(0, 1.0)]
        else:
            v["w"] = [(1, 0.5), (2, 0.3), (1, 0.2)]   # bone 1 twice: a decoder sums them
    # strip mesh: two quads in the plane y = -8.5 facing -y, as one triangle strip whose
    # triangles alternate their winding; 3 3 3 is a degenerate joint a decoder must skip
    sverts = []
    for x, z in [(-16, 0), (-16, 8), (0, 0), (0, 8), (16, 0), (16, 8)]:
        sverts.append({"pos": [float(x), -8.5, float(z)], "normal": [0.0, -1.0, 0.0], "uv": [x / 32 + 0.5, z / 8],
                       "w": [(0, 1.0)]})
    strip = [0, 1, 2, 3, 3, 3, 4, 5]
    # cap: one triangle on top (z = 33), facing +z
    cverts = [{"pos": [-4.0, -4.0, 33.0], "normal": [0.0, 0.0, 1.0], "uv": [0.0, 0.0], "w": [(2, 1.0)]},
              {"pos": [4.0, -4.0, 33.0], "normal": [0.0, 0.0, 1.0], "uv": [1.0, 0.0], "w": [(2, 1.0)]},
              {"pos": [0.0, 4.0, 33.0], "normal": [0.0, 0.0, 1.0], "uv": [0.5, 1.0], "w": [(2, 1.0)]}]
    ctris = [(0, 2, 1)]   # clockwise seen from +z
    # body part 1, model 1: a quad below (z = -2, facing -z)
    qverts = [{"pos": [x, y, -2.0], "normal": [0.0, 0.0, -1.0], "uv": [0.0, 0.0], "w": [(0, 1.0)]}
              for x, y in [(-8.0, -8.0), (8.0, -8.0), (8.0, 8.0), (-8.0, 8.0)]]
    qtris = [(0, 1, 2), (0, 2, 3)]   # clockwise seen from -z

    # model vertex ranges in the LOD-0 VVD array
    model0 = bverts + sverts + cverts
    meshes0 = [("box", 0, 0, len(bverts), "list", btris),
               ("strip", 1, len(bverts), len(sverts), "strip", strip),
               ("cap", 1, len(bverts) + len(sverts), len(cverts), "list", ctris)]
    all_verts = model0 + qverts
    n = len(all_verts)

    textures = ["box_skin_a", "box_skin_b", "cap"]
    cdmaterials = ["models\\missing_folder\\", "models\\bspkit_test\\"]
    skins = [[0, 2], [1, 2]]   # family x reference

    checksum = {44: 0x11223344, 48: -0x2468ace, 49: 0x5eed0049}[version]

    # ---- MDL ----
    fixups_later = []   # (offset of the int, what it is relative to, the string)
    hdr = bytearray(408)
    body = bytearray()

    def here():
        return 408 + len(body)

    bone_ofs = here()
    for i, (name, parent, pos, q) in enumerate(bones):
        b = bytearray(216)
        struct.pack_into("<i", b, 4, parent)
        struct.pack_into("<6i", b, 8, -1, -1, -1, -1, -1, -1)
        struct.pack_into("<3f", b, 32, *pos)
        struct.pack_into("<4f", b, 44, *q)
        struct.pack_into("<12f", b, 96, *(pose_to_bone[i][0] + pose_to_bone[i][1] + pose_to_bone[i][2]))
        struct.pack_into("<4f", b, 144, 0, 0, 0, 1)
        fixups_later.append((here(), here(), name))
        body += b
    tex_ofs = here()
    for t in textures:
        fixups_later.append((here(), here(), t))
        body += bytearray(64)
    cd_ofs = here()
    for c in cdmaterials:
        fixups_later.append((here(), 0, c))
        body += bytearray(4)
    skin_ofs = here()
    for fam in skins:
        body += struct.pack("<%dh" % len(fam), *fam)
    while len(body) % 4:
        body += b"\0"
    bp_ofs = here()
    bodyparts = [("body", [("model0", meshes0, 0, len(model0))]),
                 ("extra", [("blank", [], len(model0), 0), ("quad", [("quad", 0, 0, 4, "list", qtris)], len(model0), 4)])]
    bp_pos = []
    for name, models in bodyparts:
        bp_pos.append(here())
        fixups_later.append((here(), here(), name))
        body += struct.pack("<iiii", 0, len(models), 1, 0)
    model_pos = []
    for bi, (name, models) in enumerate(bodyparts):
        start = here()
        struct.pack_into("<i", body, bp_pos[bi] - 408 + 12, start - bp_pos[bi])
        for mname, meshes, first, count in models:
            m = bytearray(148)
            m[0:len(mname)] = mname.encode()
            struct.pack_into("<if", m, 64, 0, 40.0)
            struct.pack_into("<iiii", m, 72, len(meshes), 0, count, first * 48)
            model_pos.append((here(), meshes))
            body += m
    for mpos, meshes in model_pos:
        start = here()
        struct.pack_into("<i", body, mpos - 408 + 76, start - mpos if meshes else 0)
        for mname, ref, voff, nv, kind, tri in meshes:
            me = bytearray(116)
            struct.pack_into("<iiiii", me, 0, ref, mpos - here(), nv, voff, 0)
            struct.pack_into("<8i", me, 52, nv, nv, 0, 0, 0, 0, 0, 0)
            body += me
    for pos, rel, s in fixups_later:
        struct.pack_into("<i", body, pos - 408, here() - rel)
        body += s.encode() + b"\0"
    sp = here()
    body += b"metal\0"
    while len(body) % 4:
        body += b"\0"
    hdr[0:4] = b"IDST"
    struct.pack_into("<ii", hdr, 4, version, checksum)
    name = ("bspkit_test\\box_v%d.mdl" % version).encode()
    hdr[12:12 + len(name)] = name
    struct.pack_into("<i", hdr, 76, 408 + len(body))
    allp = [v["pos"] for v in all_verts]
    lo = [min(p[c] for p in allp) for c in range(3)]
    hi = [max(p[c] for p in allp) for c in range(3)]
    struct.pack_into("<18f", hdr, 80, 0, 0, 28, 0, 0, 16, *lo, *hi, 0, 0, 0, 0, 0, 0)
    struct.pack_into("<i", hdr, 152, 0)
    struct.pack_into("<ii", hdr, 156, len(bones), bone_ofs)
    struct.pack_into("<iiiiiiiii", hdr, 204, len(textures), tex_ofs, len(cdmaterials), cd_ofs, len(skins[0]), len(skins),
                     skin_ofs, len(bodyparts), bp_ofs)
    struct.pack_into("<i", hdr, 308, sp)
    struct.pack_into("<f", hdr, 328, 12.5)
    mdl = bytes(hdr + body)

    # ---- VVD: the vertices stored out of order, put back by two fixups ----
    def vbytes(v):
        w = list(v["w"]) + [(0, 0.0)] * (3 - len(v["w"]))
        return struct.pack("<3f3bB3f3f2f", w[0][1], w[1][1], w[2][1], w[0][0], w[1][0], w[2][0], len(v["w"]),
                           *v["pos"], *v["normal"], *v["uv"])
    a = 10   # the first 10 LOD-0 vertices are stored last
    stored = all_verts[a:] + all_verts[:a]
    fix = [(1, n - a, a), (0, 0, n - a)]
    vvd = bytearray(64)
    vvd[0:4] = b"IDSV"
    struct.pack_into("<iii", vvd, 4, 4, checksum, 2)
    struct.pack_into("<8i", vvd, 16, n, a, 0, 0, 0, 0, 0, 0)
    struct.pack_into("<iiii", vvd, 48, len(fix), 64, 64 + 12 * len(fix), 64 + 12 * len(fix) + 48 * n)
    for f in fix:
        vvd += struct.pack("<3i", *f)
    for v in stored:
        vvd += vbytes(v)
    for v in stored:
        vvd += struct.pack("<4f", 1, 0, 0, 1)
    vvd = bytes(vvd)

    # ---- VTX ----
    sg_extra = 8 if version >= 49 else 0
    sgsize, stsize = 25 + sg_extra, 27 + sg_extra
    out = bytearray(36)
    struct.pack_into("<iiHHiiiiii", out, 0, 7, 24, 53, 9, 3, checksum, 2, 0, len(bodyparts), 36)

    def alloc(nbytes):
        pos = len(out)
        out.extend(bytearray(nbytes))
        return pos

    bp_hdr = alloc(8 * len(bodyparts))
    for bi, (_, models) in enumerate(bodyparts):
        mh = alloc(8 * len(models))
        struct.pack_into("<ii", out, bp_hdr + 8 * bi, len(models), mh - (bp_hdr + 8 * bi))
        for mi, (_, meshes, _, _) in enumerate(models):
            lods = alloc(12 * 2)
            struct.pack_into("<ii", out, mh + 8 * mi, 2, lods - (mh + 8 * mi))
            for lod in range(2):
                lh = lods + 12 * lod
                mesh_hdr = alloc(9 * len(meshes))
                struct.pack_into("<iif", out, lh, len(meshes), mesh_hdr - lh if meshes else 0, 0.0 if lod == 0 else 200.0)
                for j, (mname, ref, voff, nv, kind, tri) in enumerate(meshes):
                    me = mesh_hdr + 9 * j
                    # strip groups: the box's triangles split in two groups, each listing its own vertices
                    if kind == "list":
                        flat = [i for t in tri for i in t]
                        groups = [flat[:18], flat[18:]] if len(flat) > 18 else [flat]
                    else:
                        groups = [tri]
                    sg = alloc(sgsize * len(groups))
                    struct.pack_into("<ii", out, me, len(groups), sg - me)
                    out[me + 8] = 0
                    for g, idx in enumerate(groups):
                        go = sg + sgsize * g
                        order = sorted(set(idx), reverse=True)   # group vertices in another order
                        local = {m: k for k, m in enumerate(order)}
                        vpos = alloc(9 * len(order))
                        for k, m in enumerate(order):
                            struct.pack_into("<3BBH3b", out, vpos + 9 * k, 0, 1, 2, 1, m, 0, 0, 0)
                        ipos = alloc(2 * len(idx))
                        for k, m in enumerate(idx):
                            struct.pack_into("<H", out, ipos + 2 * k, local[m])
                        spos = alloc(stsize)
                        struct.pack_into("<iiiiiiB", out, go, len(order), vpos - go, len(idx), ipos - go, 1, spos - go, 0)
                        struct.pack_into("<iiiihBii", out, spos, len(idx), 0, len(order), 0, 1,
                                         2 if kind == "strip" else 1, 0, 0)
    vtx = bytes(out)

    # ---- what a decoder must find ----
    def model_tris(verts, meshes):
        res = []
        for mname, ref, voff, nv, kind, tri in meshes:
            if kind == "strip":
                t3 = []
                for k in range(len(tri) - 2):
                    a_, b_, c_ = tri[k], tri[k + 1], tri[k + 2]
                    if k & 1:
                        a_, b_ = b_, a_
                    if len({a_, b_, c_}) == 3:
                        t3.append((a_, b_, c_))
            else:
                t3 = tri
            for a_, b_, c_ in t3:
                P = [verts[voff + i]["pos"] for i in (a_, c_, b_)]   # counter-clockwise
                res.append([list(p) for p in P])
        return res
    exp_default = model_tris(model0, meshes0)
    exp_extra = model_tris(qverts, [("quad", 0, 0, 4, "list", qtris)])
    expected = {
        "version": version, "checksum": checksum, "bones": len(bones), "bone_names": [b[0] for b in bones],
        "textures": textures, "skin_families": len(skins), "bodyparts": 2, "models": 3, "meshes": 4,
        "vertices": n, "triangles": len(exp_default) + len(exp_extra),
        "default_vertices": len(model0), "default_triangles": len(exp_default),
        "default_triangle_positions": exp_default,
        "bounds_default": [[min(v["pos"][c] for v in model0) for c in range(3)],
                           [max(v["pos"][c] for v in model0) for c in range(3)]],
        "hull": [lo, hi],
        "materials_skin0": ["models/bspkit_test/" + textures[skins[0][r]] for r in (0, 1, 1)],
        "materials_skin1": ["models/bspkit_test/" + textures[skins[1][r]] for r in (0, 1, 1)],
        "pose_to_bone": pose_to_bone, "surfaceprop": "metal",
    }
    return mdl, vvd, vtx, expected


def vtf_bgr888(rgb):
    """A 4x4 VTF 7.2 in one colour (BGR888, one mip, no thumbnail)."""
    d = bytearray(80)
    d[0:4] = b"VTF\0"
    struct.pack_into("<IIIHHIHH", d, 4, 7, 2, 80, 4, 4, 0, 1, 0)
    struct.pack_into("<3f", d, 32, *(c / 255.0 for c in rgb))
    struct.pack_into("<f", d, 48, 1.0)
    struct.pack_into("<iBiBB", d, 52, 3, 1, -1, 0, 0)
    struct.pack_into("<H", d, 63, 1)
    return bytes(d) + bytes([rgb[2], rgb[1], rgb[0]]) * 16


def main():
    out = sys.argv[1]
    game = os.path.join(out, "game")
    mdir = os.path.join(game, "models", "bspkit_test")
    tdir = os.path.join(game, "materials", "models", "bspkit_test")
    for d in (mdir, tdir, os.path.join(out, "expected"), os.path.join(out, "seeds")):
        os.makedirs(d, exist_ok=True)
    for v in (44, 48, 49):
        mdl, vvd, vtx, exp = build(v)
        stem = os.path.join(mdir, "box_v%d" % v)
        open(stem + ".mdl", "wb").write(mdl)
        open(stem + ".vvd", "wb").write(vvd)
        open(stem + ".dx90.vtx", "wb").write(vtx)
        json.dump(exp, open(os.path.join(out, "expected", "box_v%d.json" % v), "w"))
        open(os.path.join(out, "seeds", "box_v%d.bin" % v), "wb").write(
            struct.pack("<II", len(mdl), len(vvd)) + mdl + vvd + vtx)
    colours = {"box_skin_a": (200, 40, 40), "box_skin_b": (40, 40, 200), "cap": (40, 200, 40)}
    for name, rgb in colours.items():
        open(os.path.join(tdir, name + ".vtf"), "wb").write(vtf_bgr888(rgb))
        open(os.path.join(tdir, name + ".vmt"), "w").write(
            '"VertexLitGeneric"\n{\n\t"$basetexture" "models/bspkit_test/%s"\n%s}\n' %
            (name, '\t"$nocull" "1"\n' if name == "cap" else ""))


if __name__ == "__main__":
    main()
