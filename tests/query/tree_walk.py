#!/usr/bin/python3
"""`bspkit query --batch` against a plain walk of the map's tree written here (numpy), on random
points within each map's world bounds.

usage: tree_walk.py BSPKIT N MAP...

For every map (GoldSrc / Quake 1 v29-v30, BSP2, Source VBSP, Quake 3 IBSP) its planes, nodes,
leaves and model 0 are read from the file's bytes; N points are drawn (seeded by the map's name)
in model 0's bounds: a tenth of them on integer coordinates (on the axial planes most nodes use:
the on-plane rule is tested there), a tenth exactly on a plane of a node, the rest anywhere (on a
1/256 grid, so that every point is a float the text gives exactly). Every point walks model 0's
tree from its head node, all points at once, one level a step: at a node, d = n . p - dist in
32-bit floats, and d < 0 goes to the back child (children[1]), else to the front (children[0]):
a point on the plane is in front, the rule of Quake's SV_HullPointContents, Quake 3's and
Source's CM_PointLeafnum_r alike. The plane's stored type is not used: the engines' shortcut
for an axial plane (p[type] - dist) is the same number when the normal is that axis, and a
GoldSrc plane whose type names an axis its normal is not (ns_co_core.bsp: type 0, normal
(-1, 0, 4e-15)) is where the compiler's normal, not the type, bounds the leaves. The leaf the
walk ends in must be the leaf bspkit answers, for every point; and, on GoldSrc, Quake and Source
maps, that leaf's bounds in the file must hold the point (within 1 unit: the bounds are rounded
outwards to integers; leaves without bounds, such as Quake's shared solid leaf 0, are left out).
A Quake 3 leaf's bounds are those of what q3map put in it, not of its region (leaves at the
edge of the world are cut to the world's brushes): not checked there.
Prints one line per map and 'N passed, M failed' at the end."""
import os, re, struct, subprocess, sys, tempfile, zlib
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'source'))
from vbsp_ref import lzma_lump  # noqa: E402

passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what, file=sys.stderr)


def arr(buf, size, fields):
    """the records of buf (size bytes each) as named columns: fields = [(name, offset, type, n)]"""
    n = len(buf) // size
    raw = np.frombuffer(buf, dtype=np.uint8, count=n * size).reshape(n, size)
    out = {}
    for name, ofs, t, k in fields:
        w = np.dtype(t).itemsize
        out[name] = raw[:, ofs:ofs + w * k].copy().view(t).reshape(n, k) if k > 1 else \
            raw[:, ofs:ofs + w].copy().view(t).reshape(n)
    return out


def quake_tree(d):
    """GoldSrc / Quake 1 (v29, v30) and BSP2 ('BSP2': 32-bit children and float bounds)"""
    bsp2 = d[:4] == b"BSP2"
    lump = lambda i: d[struct.unpack_from("<i", d, 4 + 8 * i)[0]:][:struct.unpack_from("<i", d, 8 + 8 * i)[0]]
    planes = arr(lump(1), 20, [("n", 0, "<f4", 3), ("d", 12, "<f4", 1)])
    if bsp2:
        nodes = arr(lump(5), 44, [("plane", 0, "<i4", 1), ("children", 4, "<i4", 2)])
        leafs = arr(lump(10), 44, [("mins", 8, "<f4", 3), ("maxs", 20, "<f4", 3)])
    else:
        nodes = arr(lump(5), 24, [("plane", 0, "<i4", 1), ("children", 4, "<i2", 2)])
        leafs = arr(lump(10), 28, [("mins", 8, "<i2", 3), ("maxs", 14, "<i2", 3)])
    models = arr(lump(14), 64, [("mins", 0, "<f4", 3), ("maxs", 12, "<f4", 3), ("head", 36, "<i4", 1)])
    return planes, nodes, leafs, models


def source_tree(d):
    version = struct.unpack_from("<i", d, 4)[0]
    raw = [struct.unpack_from("<iiii", d, 8 + 16 * i) for i in range(64)]
    tab = [(r[0], r[1], r[2]) for r in raw]
    if version == 21 and not all(o >= 0 and (ln == 0 or o >= 1036) and o + ln <= len(d) for o, ln, _ in tab):
        tab = [(r[1], r[2], r[0]) for r in raw]   # L4D2's lump_t: version, offset, length
    lump = lambda i: lzma_lump(d[tab[i][0]:tab[i][0] + tab[i][1]])[0]
    planes = arr(lump(1), 20, [("n", 0, "<f4", 3), ("d", 12, "<f4", 1)])
    nodes = arr(lump(5), 32, [("plane", 0, "<i4", 1), ("children", 4, "<i4", 2)])
    # lump version 0: with its ambient lighting (but Bloodlines' v17 leaves are 32 bytes)
    leafsize = 56 if tab[10][2] == 0 and version != 17 else 32
    leafs = arr(lump(10), leafsize, [("mins", 8, "<i2", 3), ("maxs", 14, "<i2", 3)])
    models = arr(lump(14), 48, [("mins", 0, "<f4", 3), ("maxs", 12, "<f4", 3), ("head", 36, "<i4", 1)])
    return planes, nodes, leafs, models


def q3_tree(d):
    lump = lambda i: d[struct.unpack_from("<i", d, 8 + 8 * i)[0]:][:struct.unpack_from("<i", d, 12 + 8 * i)[0]]
    planes = arr(lump(2), 16, [("n", 0, "<f4", 3), ("d", 12, "<f4", 1)])
    nodes = arr(lump(3), 36, [("plane", 0, "<i4", 1), ("children", 4, "<i4", 2)])
    leafs = arr(lump(4), 48, [("mins", 8, "<i4", 3), ("maxs", 20, "<i4", 3)])
    models = arr(lump(7), 40, [("mins", 0, "<f4", 3), ("maxs", 12, "<f4", 3)])
    models["head"] = np.zeros(len(models["mins"]), dtype=np.int32)   # model 0's tree starts at node 0
    return planes, nodes, leafs, models


def walk(planes, nodes, head, p):
    """the leaf of every point of p (n x 3 float32): -1 - the child a walk from head ends at; and
    whether the walk met a plane the point is on (d == 0)"""
    node = np.full(len(p), head, dtype=np.int64)
    on = np.zeros(len(p), dtype=bool)
    live = np.arange(len(p))
    pn, pd = planes["n"], planes["d"]
    children = nodes["children"].astype(np.int64)
    for _ in range(len(nodes["plane"]) + 1):
        if not len(live):
            break
        nd = node[live]
        pl = nodes["plane"][nd]
        q = p[live]
        n = pn[pl]
        # float32 throughout, in the order C adds: ((x + y) + z) - dist (for a plane along an
        # axis, the coordinate minus dist: the same number)
        dist = ((n[:, 0] * q[:, 0] + n[:, 1] * q[:, 1]) + n[:, 2] * q[:, 2]) - pd[pl]
        node[live] = children[nd, (dist < 0).astype(np.int64)]
        on[live[dist == 0]] = True
        live = live[node[live] >= 0]
    return -1 - node, on


def points(rng, planes, nodes, mins, maxs, n):
    """n points in [mins, maxs] as float32: on a 1/256 grid, a tenth on integers, a tenth on a
    node's plane (an axial one: exactly; another: the grid point nearest)"""
    lo, hi = np.ceil(mins), np.floor(maxs)
    p = rng.uniform(lo, hi, size=(n, 3))
    p = np.round(p * 256) / 256
    k = n // 10
    p[:k] = np.round(p[:k])
    pick = rng.integers(0, len(nodes["plane"]), size=k)
    pl = nodes["plane"][pick]
    nn, dd = planes["n"][pl].astype(np.float64), planes["d"][pl].astype(np.float64)
    q = p[k:2 * k]
    a = np.argmax(np.abs(nn), 1)
    r = np.arange(k)
    na = nn[r, a]
    other = (nn * q).sum(1) - na * q[r, a]
    # along an axis: exactly on it; else moved along the normal's largest axis onto it
    axial = (np.abs(na) == 1) & ((nn != 0).sum(1) == 1)
    q[r, a] = np.where(axial, dd * na, np.round((dd - other) / na * 256) / 256)
    p = np.clip(p, lo, hi)
    return p.astype(np.float32)


def main():
    bk, n, maps = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    for path in maps:
        name = os.path.basename(path)
        d = open(path, "rb").read()
        magic = d[:4]
        if magic == b"IBSP":
            fam, tree = "q3", q3_tree(d)
        elif magic == b"VBSP":
            fam, tree = "source", source_tree(d)
        else:
            fam, tree = ("bsp2" if magic == b"BSP2" else "quake"), quake_tree(d)
        planes, nodes, leafs, models = tree
        head = int(models["head"][0])
        rng = np.random.default_rng(zlib.crc32(name.encode()))
        p = points(rng, planes, nodes, models["mins"][0], models["maxs"][0], n)
        want, on = walk(planes, nodes, head, p)
        # each coordinate k / 256 written exactly as the integer k * 390625 times 10^-8; a point
        # on a plane off that grid by the shortest decimal of its float (read back exactly)
        p64 = p.astype(np.float64)
        m = np.round(p64 * 256).astype(np.int64)
        lines = ("%de-8 %de-8 %de-8\n" * n % tuple((m * 390625).ravel().tolist())).splitlines(True)
        for i in np.flatnonzero((m != p64 * 256).any(1)):
            lines[i] = "%r %r %r\n" % tuple(p64[i].tolist())
        text = "".join(lines).encode()
        with tempfile.TemporaryFile() as out:
            r = subprocess.run([bk, "query", path, "--batch"], input=text, stdout=out, stderr=subprocess.DEVNULL)
            out.seek(0)
            got = np.array(re.findall(rb'"leaf":(-?\d+)', out.read()), dtype=np.int64)
        check(r.returncode == 0 and len(got) == n, "%s: %d answers of %d points (exit %d)" % (name, len(got), n, r.returncode))
        if len(got) != n:
            continue
        bad = np.flatnonzero(got != want)
        for i in bad[:5]:
            print("  %s: point %.9g %.9g %.9g: bspkit leaf %d, the walk here leaf %d" % (name, *p[i], got[i], want[i]),
                  file=sys.stderr)
        check(len(bad) == 0, "%s: %d of %d points in another leaf than the walk's" % (name, len(bad), n))
        lm, lx = leafs["mins"][want].astype(np.float64), leafs["maxs"][want].astype(np.float64)
        bounded = ((lm != 0).any(1) | (lx != 0).any(1)) & (fam != "q3")
        out = np.flatnonzero(((p < lm - 1) | (p > lx + 1)).any(1) & bounded)
        for i in out[:5]:
            print("  %s: point %.9g %.9g %.9g: its leaf %d's bounds %s .. %s do not hold it" % (name, *p[i], want[i], lm[i], lx[i]),
                  file=sys.stderr)
        check(len(out) == 0, "%s: %d points outside their leaf's bounds" % (name, len(out)))
        print("%-45s %-6s %d points (%d on a plane of their walk), %d nodes, %d leaves: %d differ, %d outside their leaf" %
              (name, fam, n, on.sum(), len(nodes["plane"]), len(leafs["mins"]), len(bad), len(out)))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
