#!/usr/bin/env python3
"""Source overlays (lump 45) read from the map's bytes and held against bspkit's glTF.

usage: overlay_check.py MAP.bsp INFO.json [GLTF]
  INFO.json: `bspkit info --json MAP`; GLTF: `bspkit convert MAP --scale 1 --keep-z-up` (.gltf)

Written from Valve's public/bspfile.h (doverlay_t, 352 bytes; texinfo_t 72; dtexdata_t 32) and
utils/vbsp/overlay.cpp (BasisU in the corners' z, uv3.z == 1 flips V), separately from the C code:
  - the count bspkit reports is the lump's records;
  - every record is sane as read here (face count <= 64, faces and texinfo in range, render order
    0..3, BasisU a unit vector across the unit normal);
  - the glTF has a node "overlays" under "worldspawn" whose mesh holds one quad (4 vertices, 2
    triangles) per overlay with faces, in a primitive whose material is named after the overlay
    texinfo's texdata and is alpha-blended (half-transparent when its texture is not found); the corners are origin + x U + y V pushed 0.1 units
    along the normal, with texture coordinates (u0,v0) (u0,v1) (u1,v1) (u1,v0), compared as sets
    of quads per material.
Prints one summary line; exits 1 on a mismatch.
"""
import json
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vbsp_ref  # noqa: E402

PUSH = 0.1


def overlays(data):
    _, lump = vbsp_ref.lumps(data)
    raw = lump(45)
    out = []
    for i in range(len(raw) // 352):
        r = raw[i * 352:(i + 1) * 352]
        oid, texinfo, fcro = struct.unpack_from("<ihH", r, 0)
        faces = struct.unpack_from("<64i", r, 8)
        fl = struct.unpack_from("<4f12f3f3f", r, 264)
        out.append({
            "id": oid, "texinfo": texinfo, "face_count": fcro & 0x3FFF, "render_order": fcro >> 14,
            "faces": list(faces[:fcro & 0x3FFF]), "u": fl[0:2], "v": fl[2:4],
            "uv": [fl[4 + 3 * k:7 + 3 * k] for k in range(4)], "origin": fl[16:19], "normal": fl[19:22]})
    return out, lump


def names(lump):
    """texinfo -> its texdata's name"""
    ti = lump(6)
    td = lump(2)
    table = lump(44)
    strings = lump(43)
    res = []
    for i in range(len(ti) // 72):
        t = struct.unpack_from("<i", ti, i * 72 + 68)[0]
        if t < 0 or t >= len(td) // 32:
            res.append(None)
            continue
        sid = struct.unpack_from("<i", td, t * 32 + 12)[0]
        off = struct.unpack_from("<i", table, sid * 4)[0]
        res.append(strings[off:strings.index(b"\0", off)].decode("latin-1"))
    return res


def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def dot(a, b):
    return sum(x * y for x, y in zip(a, b))


def quad(o):
    n = o["normal"]
    ln = dot(n, n) ** 0.5
    nn = [c / ln for c in n]
    bu = (o["uv"][0][2], o["uv"][1][2], o["uv"][2][2])
    bv = cross(n, bu)
    if o["uv"][3][2] == 1.0:
        bv = tuple(-c for c in bv)
    pos = [tuple(o["origin"][c] + p[0] * bu[c] + p[1] * bv[c] + PUSH * nn[c] for c in range(3)) for p in o["uv"]]
    (u0, u1), (v0, v1) = o["u"], o["v"]
    return pos, [(u0, v0), (u0, v1), (u1, v1), (u1, v0)], bu


def key(pos, uv):
    """a quad as a set of (position, uv) corners, rounded"""
    return tuple(sorted((tuple(round(c, 2) for c in p), tuple(round(c, 4) for c in t)) for p, t in zip(pos, uv)))


def accessor(g, bin_data, i):
    a = g["accessors"][i]
    bv = g["bufferViews"][a["bufferView"]]
    n = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4}[a["type"]]
    fmt = {5126: "f", 5125: "I", 5123: "H", 5121: "B"}[a["componentType"]]
    size = struct.calcsize(fmt)
    stride = bv.get("byteStride", size * n)
    base = bv.get("byteOffset", 0) + a.get("byteOffset", 0)
    return [struct.unpack_from("<%d%s" % (n, fmt), bin_data, base + k * stride) for k in range(a["count"])]


def check_gltf(path, ovs, texnames, nfaces):
    g = json.load(open(path))
    bin_data = open(os.path.join(os.path.dirname(path), g["buffers"][0]["uri"]), "rb").read()
    want = {}
    for o in ovs:
        if o["face_count"] == 0:
            continue
        pos, uv, _ = quad(o)
        want.setdefault(texnames[o["texinfo"]], []).append(key(pos, uv))
    nodes = [(i, n) for i, n in enumerate(g["nodes"]) if n.get("name") == "overlays"]
    if not want:
        return (not nodes, "no overlay with faces, no overlays node" if not nodes else "an overlays node with no overlays")
    if len(nodes) != 1:
        return False, "%d overlays nodes" % len(nodes)
    idx, node = nodes[0]
    parents = [n.get("name") for n in g["nodes"] if idx in n.get("children", [])]
    if parents != ["worldspawn"]:
        return False, "the overlays node's parent is %s" % parents
    if node.get("extras", {}).get("overlay_count") != str(sum(len(v) for v in want.values())):
        return False, "extras.overlay_count %s" % node.get("extras")
    got = {}
    for p in g["meshes"][node["mesh"]]["primitives"]:
        m = g["materials"][p["material"]]
        if m.get("alphaMode") != "BLEND":
            return False, "material %s is not blended" % m["name"]
        pbr = m.get("pbrMetallicRoughness", {})
        if "baseColorTexture" not in pbr and pbr.get("baseColorFactor", [1] * 4)[3] != 0.5:
            return False, "material %s has no texture and is not half-transparent" % m["name"]
        P = accessor(g, bin_data, p["attributes"]["POSITION"])
        T = accessor(g, bin_data, p["attributes"]["TEXCOORD_0"])
        I = [x[0] for x in accessor(g, bin_data, p["indices"])]
        if len(P) % 4 or len(I) != len(P) // 4 * 6:
            return False, "material %s: %d vertices, %d indices: not quads" % (m["name"], len(P), len(I))
        for q in range(len(P) // 4):
            if sorted(set(I[q * 6:q * 6 + 6])) != list(range(q * 4, q * 4 + 4)):
                return False, "material %s: quad %d's triangles use other vertices" % (m["name"], q)
            got.setdefault(m["name"], []).extend([key(P[q * 4:q * 4 + 4], T[q * 4:q * 4 + 4])])
    for k in set(want) | set(got):
        if sorted(want.get(k, [])) != sorted(got.get(k, [])):
            return False, "material %s: %d quads expected, %d in the glTF, or their corners differ" % (
                k, len(want.get(k, [])), len(got.get(k, [])))
    return True, "%d quads in %d materials match" % (sum(len(v) for v in want.values()), len(want))


def main():
    data = open(sys.argv[1], "rb").read()
    ovs, lump = overlays(data)
    info = json.load(open(sys.argv[2]))
    if info["counts"].get("overlays", 0) != len(ovs):
        print("bspkit counts %s overlays, the lump holds %d" % (info["counts"].get("overlays"), len(ovs)))
        return 1
    texnames = names(lump)
    nfaces = len(lump(7)) // 56
    for i, o in enumerate(ovs):
        bad = []
        if o["face_count"] > 64:
            bad.append("face count %d" % o["face_count"])
        if not all(0 <= f < nfaces for f in o["faces"]):
            bad.append("faces %s out of range" % o["faces"])
        if not 0 <= o["texinfo"] < len(texnames) or texnames[o["texinfo"]] is None:
            bad.append("texinfo %d" % o["texinfo"])
        _, _, bu = quad(o)
        n = o["normal"]
        if abs(dot(bu, bu) - 1) > 1e-3 or abs(dot(n, n) - 1) > 1e-3 or abs(dot(bu, n)) > 1e-3:
            bad.append("basis U %s normal %s not orthonormal" % (bu, n))
        if bad:
            print("overlay %d (id %d): %s" % (i, o["id"], "; ".join(bad)))
            return 1
    msg = "%d overlays (%d with faces, render orders %s)" % (
        len(ovs), sum(1 for o in ovs if o["face_count"]), sorted({o["render_order"] for o in ovs}))
    if len(sys.argv) > 3:
        ok, why = check_gltf(sys.argv[3], ovs, texnames, nfaces)
        print(msg + "; " + why)
        return 0 if ok else 1
    print(msg)
    return 0


if __name__ == "__main__":
    sys.exit(main())
