#!/usr/bin/env python3
"""Source overlays (lump 45) read from the map's bytes and held against bspkit's glTF.

usage: overlay_check.py [--water] MAP.bsp INFO.json [GLTF]
  INFO.json: `bspkit info --json MAP`; GLTF: `bspkit convert MAP --scale 1 --keep-z-up` (.gltf)
  --water: the water overlays instead (lump 50, dwateroverlay_t: the same fields with 256 face
  slots, 1120 bytes), drawn in a node "water_overlays" (info does not count them)

Written from Valve's public/bspfile.h (doverlay_t, 352 bytes; texinfo_t 72; dtexdata_t 32) and
utils/vbsp/overlay.cpp (BasisU in the corners' z, uv3.z == 1 flips V), separately from the C code:
  - the count bspkit reports is the lump's records;
  - every record is sane as read here (face count <= 64, faces and texinfo in range, render order
    0..3, BasisU a unit vector across the unit normal);
  - the glTF has a node "overlays" under "worldspawn" whose mesh holds, per material (named after
    the overlay texinfo's texdata, alpha-blended, half-transparent when its texture is not found),
    the overlays clipped to their faces as done here: the quad (corners origin + x U + y V, texture
    coordinates (u0,v0) (u0,v1) (u1,v1) (u1,v0)) cut in its plane by each listed face's polygon
    projected along the normal and carried back onto the face's plane, or on a displacement cut by
    each triangle of the undisplaced grid and carried to the displaced triangle. Compared: the area
    per material, every planar piece on a listed face's plane pushed 0.1 units along its normal
    (0.1 more a step of render order),
    texture coordinates within the quads' range, each overlay's pieces (in its plane) within its
    quad's area, and how many overlays are drawn.
Prints one summary line; exits 1 on a mismatch.
"""
import json
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vbsp_ref  # noqa: E402

PUSH = 0.1


WATER = "--water" in sys.argv
ARGS = [a for a in sys.argv if a != "--water"]
SIZE, SLOTS, LUMP, NODE = (1120, 256, 50, "water_overlays") if WATER else (352, 64, 45, "overlays")


def overlays(data):
    _, lump = vbsp_ref.lumps(data)
    raw = lump(LUMP)
    out = []
    for i in range(len(raw) // SIZE):
        r = raw[i * SIZE:(i + 1) * SIZE]
        oid, texinfo, fcro = struct.unpack_from("<ihH", r, 0)
        faces = struct.unpack_from("<%di" % SLOTS, r, 8)
        fl = struct.unpack_from("<4f12f3f3f", r, 8 + 4 * SLOTS)
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



def sub(a, b):
    return tuple(x - y for x, y in zip(a, b))


def norm(a):
    ln = dot(a, a) ** 0.5
    return tuple(c / ln for c in a)


def poly_area3(pts):
    """area of a planar 3D polygon"""
    acc = (0.0, 0.0, 0.0)
    for k in range(len(pts)):
        c = cross(pts[k], pts[(k + 1) % len(pts)])
        acc = tuple(x + y for x, y in zip(acc, c))
    return dot(acc, acc) ** 0.5 / 2


def area2d(pts):
    return sum(p[0] * q[1] - q[0] * p[1] for p, q in zip(pts, pts[1:] + pts[:1])) / 2


def clip(subject, poly):
    """subject (points (x, y, s, t)) cut by the convex 2D polygon poly, s and t interpolated"""
    sense = 1 if area2d(poly) > 0 else -1
    for p0, p1 in zip(poly, poly[1:] + poly[:1]):
        if len(subject) < 3:
            return []
        side = [sense * ((p1[0] - p0[0]) * (c[1] - p0[1]) - (p1[1] - p0[1]) * (c[0] - p0[0])) for c in subject]
        out = []
        for k, c in enumerate(subject):
            d, sc, sd = subject[(k + 1) % len(subject)], side[k], side[(k + 1) % len(subject)]
            if sc >= 0:
                out.append(c)
            if (sc >= 0) != (sd >= 0):
                t = sc / (sc - sd)
                out.append(tuple(ci + (di - ci) * t for ci, di in zip(c, d)))
        subject = out
    return subject if len(subject) >= 3 else []


class Map:
    """the faces, planes and displacements the clipping needs (public/bspfile.h dface_t, dplane_t,
    ddispinfo_t, CDispVert), and which faces the engine draws (texinfo flags NODRAW, HINT, SKIP,
    TRIGGER)"""

    def __init__(self, lump, v17):
        self.fsz = 104 if v17 else 56
        self.faces, self.planes, self.ti = lump(7), lump(1), lump(6)
        self.verts, self.edges, self.surfedges = lump(3), lump(12), lump(13)
        self.dispinfo, self.dispverts = lump(26), lump(33)

    def face(self, i):
        planenum, firstedge, numedges, texinfo, disp = struct.unpack_from("<H2xihhh", self.faces, i * self.fsz)
        return planenum, firstedge, numedges, texinfo, disp

    def drawn(self, i):
        _, _, n, texinfo, _ = self.face(i)
        return texinfo >= 0 and n >= 3 and not struct.unpack_from("<i", self.ti, texinfo * 72 + 64)[0] & 0x3c0

    def polygon(self, i):
        _, first, n, _, _ = self.face(i)
        out = []
        for k in range(n):
            se = struct.unpack_from("<i", self.surfedges, (first + k) * 4)[0]
            v = struct.unpack_from("<H", self.edges, se * 4 if se >= 0 else -se * 4 + 2)[0]
            out.append(struct.unpack_from("<3f", self.verts, v * 12))
        return out

    def plane(self, i):
        return struct.unpack_from("<4f", self.planes, self.face(i)[0] * 20)

    def disp_grid(self, i):
        """(side, displaced points, undisplaced points) of displacement face i, row by row from the
        corner nearest startPosition"""
        c = self.polygon(i)
        d = self.dispinfo[self.face(i)[4] * 176:]
        start = struct.unpack_from("<3f", d, 0)
        vstart, power = struct.unpack_from("<i", d, 12)[0], struct.unpack_from("<i", d, 20)[0]
        k0 = min(range(4), key=lambda k: dot(sub(c[k], start), sub(c[k], start)))
        q = [c[(k0 + k) % 4] for k in range(4)]
        side = (1 << power) + 1
        pos, base = [], []
        for y in range(side):
            t = y / (side - 1)
            lft = [q[0][j] + (q[1][j] - q[0][j]) * t for j in range(3)]
            rgt = [q[3][j] + (q[2][j] - q[3][j]) * t for j in range(3)]
            for x in range(side):
                u = x / (side - 1)
                b = [lft[j] + (rgt[j] - lft[j]) * u for j in range(3)]
                vec = struct.unpack_from("<4f", self.dispverts, (vstart + y * side + x) * 20)
                pos.append(tuple(b[j] + vec[j] * vec[3] for j in range(3)))
                base.append(tuple(b))
        return side, pos, base


def disp_tris(side):
    for y in range(side - 1):
        for x in range(side - 1):
            i0 = y * side + x
            i1, i2, i3 = i0 + 1, i0 + side, i0 + side + 1
            yield from ([(i0, i1, i3), (i0, i3, i2)] if (x + y) % 2 == 0 else [(i0, i1, i2), (i1, i3, i2)])


def expected(o, mp):
    """the overlay clipped to its faces here: (area in the plane of the overlay, area in 3D, planes
    of its planar pieces, whether it covers a displacement)"""
    _, _, bu = quad(o)
    n = norm(o["normal"])
    bv = cross(o["normal"], bu)
    if o["uv"][3][2] == 1.0:
        bv = tuple(-c for c in bv)
    (u0, u1), (v0, v1) = o["u"], o["v"]
    corners = [(p[0], p[1], s, t) for p, (s, t) in zip(o["uv"], [(u0, v0), (u0, v1), (u1, v1), (u1, v0)])]

    def to2d(w):
        d = sub(w, o["origin"])
        return (dot(d, bu), dot(d, bv))

    a2, a3, planes, disp = 0.0, 0.0, [], False
    for fi in o["faces"][:SLOTS]:
        if not mp.drawn(fi):
            continue
        nx, ny, nz, dist = mp.plane(fi)
        den = dot((nx, ny, nz), n)
        if abs(den) < 0.01:
            continue
        if mp.face(fi)[4] < 0:
            piece = clip(corners, [to2d(w) for w in mp.polygon(fi)])
            if not piece or abs(area2d(piece)) < 1e-4:
                continue
            w3 = []
            for x, y, _, _ in piece:
                w = tuple(o["origin"][j] + x * bu[j] + y * bv[j] for j in range(3))
                t = (dist - dot((nx, ny, nz), w)) / den
                w3.append(tuple(w[j] + t * n[j] for j in range(3)))
            a2 += abs(area2d(piece))
            a3 += poly_area3(w3)
            planes.append((nx, ny, nz, dist))
            continue
        disp = True
        side, pos, base = mp.disp_grid(fi)
        xy = [to2d(w) for w in base]
        for t in disp_tris(side):
            tri = [xy[k] for k in t]
            at = area2d(tri)
            if abs(at) < 1e-6:
                continue
            piece = clip(corners, tri)
            if not piece or abs(area2d(piece)) < 1e-4:
                continue
            w3 = []
            for x, y, _, _ in piece:
                l1 = area2d([tri[0], (x, y), tri[2]]) / at
                l2 = area2d([tri[0], tri[1], (x, y)]) / at
                w3.append(tuple((1 - l1 - l2) * pos[t[0]][j] + l1 * pos[t[1]][j] + l2 * pos[t[2]][j] for j in range(3)))
            a2 += abs(area2d(piece))
            a3 += poly_area3(w3)
    return a2, a3, planes, disp


def check_gltf(path, ovs, texnames, mp):
    """the glTF's overlay pieces against the clipping done here, per material: the same area, every
    planar piece on the plane of one of its overlays' faces (pushed PUSH along its normal, once more
    a step of the overlay's render order), the
    texture coordinates within the overlays' range; and every overlay's pieces, seen in its plane,
    within its quad"""
    g = json.load(open(path))
    bin_data = open(os.path.join(os.path.dirname(path), g["buffers"][0]["uri"]), "rb").read()
    want, drawn = {}, 0
    for i, o in enumerate(ovs):
        if o["face_count"] == 0:
            continue
        a2, a3, planes, disp = expected(o, mp)
        qa = abs(area2d([p[:2] for p in o["uv"]]))
        if a2 > qa * (1 + 1e-4) + 1e-3:
            # faces of the list that overlap in the overlay's plane: not seen on these maps
            return False, "overlay %d: its pieces cover %.2f square units of its %.2f" % (i, a2, qa)
        if a3 == 0:
            continue
        drawn += 1
        w = want.setdefault(texnames[o["texinfo"]], {"area": 0.0, "planes": [], "disp": False, "s": [], "t": []})
        w["area"] += a3
        w["planes"] += [(pl, PUSH * (1 + o["render_order"])) for pl in planes]   # a step a render order
        w["disp"] |= disp
        w["s"] += o["u"]
        w["t"] += o["v"]
    nodes = [(i, n) for i, n in enumerate(g["nodes"]) if n.get("name") == NODE]
    if not any(o["face_count"] for o in ovs):
        return (not nodes, "no overlay with faces, no overlays node" if not nodes else "an overlays node with no overlays")
    if len(nodes) != 1:
        return False, "%d overlays nodes" % len(nodes)
    idx, node = nodes[0]
    parents = [n.get("name") for n in g["nodes"] if idx in n.get("children", [])]
    if parents != ["worldspawn"]:
        return False, "the overlays node's parent is %s" % parents
    if node.get("extras", {}).get("overlay_count") != str(drawn):
        return False, "extras.overlay_count %s, %d overlays have pieces here" % (node.get("extras"), drawn)
    got = {}
    prims = g["meshes"][node["mesh"]]["primitives"] if "mesh" in node else []
    for p in prims:
        m = g["materials"][p["material"]]
        w = want.get(m["name"])
        if w is None:
            return False, "material %s: pieces where none are expected" % m["name"]
        if m.get("alphaMode") != "BLEND":
            return False, "material %s is not blended" % m["name"]
        pbr = m.get("pbrMetallicRoughness", {})
        if "baseColorTexture" not in pbr and pbr.get("baseColorFactor", [1] * 4)[3] != 0.5:
            return False, "material %s has no texture and is not half-transparent" % m["name"]
        P = accessor(g, bin_data, p["attributes"]["POSITION"])
        T = accessor(g, bin_data, p["attributes"]["TEXCOORD_0"])
        I = [x[0] for x in accessor(g, bin_data, p["indices"])]
        lo = (min(w["s"]) - 1e-4, min(w["t"]) - 1e-4)
        hi = (max(w["s"]) + 1e-4, max(w["t"]) + 1e-4)
        for s, t in T:
            if not (lo[0] <= s <= hi[0] and lo[1] <= t <= hi[1]):
                return False, "material %s: texture coordinates (%g, %g) outside (%s, %s)" % (m["name"], s, t, lo, hi)
        area = 0.0
        for k in range(0, len(I), 3):
            tri = [P[j] for j in I[k:k + 3]]
            area += poly_area3(tri)
            on = any(all(abs(dot(pl[:3], v) - pl[3] - push) < 0.02 for v in tri) for pl, push in w["planes"])
            if not on and not w["disp"]:
                return False, "material %s: triangle %s lies on none of its faces' planes" % (m["name"], tri)
        got[m["name"]] = got.get(m["name"], 0.0) + area
    for k in set(want) | set(got):
        a, b = want.get(k, {"area": 0})["area"], got.get(k, 0.0)
        if abs(a - b) > 1e-3 * max(a, 1):
            return False, "material %s: pieces of %.3f square units expected, %.3f in the glTF" % (k, a, b)
    return True, "%d overlays clipped to their faces in %d materials match (%.0f square units)" % (
        drawn, len(want), sum(w["area"] for w in want.values()))


def main():
    data = open(ARGS[1], "rb").read()
    ovs, lump = overlays(data)
    info = json.load(open(ARGS[2]))
    if not WATER and info["counts"].get("overlays", 0) != len(ovs):
        print("bspkit counts %s overlays, the lump holds %d" % (info["counts"].get("overlays"), len(ovs)))
        return 1
    texnames = names(lump)
    nfaces = len(lump(7)) // 56
    for i, o in enumerate(ovs):
        bad = []
        if o["face_count"] > SLOTS:
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
    if len(ARGS) > 3:
        ok, why = check_gltf(ARGS[3], ovs, texnames, Map(lump, struct.unpack_from("<i", data, 4)[0] == 17))
        print(msg + "; " + why)
        return 0 if ok else 1
    print(msg)
    return 0


if __name__ == "__main__":
    sys.exit(main())
