#!/usr/bin/python3
"""An independent reader of Quake 2 maps (IBSP version 38), written from the facts of id's GPL
qcommon/qfiles.h (id-Software/Quake-2), not from bspkit's code. It is the second opinion issue 40's
Quake 2 rows will be checked against: every lump's element count and every field.

    q2_reader.py MAP.bsp...            check each map; one line per map, problems located
    q2_reader.py --json MAP.bsp...     the same, and one JSON object per map on stdout: per lump its
                                       offset, length, count and every element's fields

Checks: the header (magic "IBSP", version 38, 19 lumps), every lump inside the file, each lump's
length a whole number of elements, and every reference in range (planes, nodes / leaves, faces,
edges, surfedges, texinfo and its animation chain, leaf faces / brushes, brushes / sides, areas /
area portals, lighting offsets, visibility offsets and clusters). Exit 1 on any problem.
"""
import json
import struct
import sys

# (name, element size, struct format of one element (little-endian), field names) from qfiles.h
LUMPS = [
    ("entities", 1, None, None),
    ("planes", 20, "<3f f i", ["normal", "dist", "type"]),
    ("vertexes", 12, "<3f", ["point"]),
    ("visibility", 1, None, None),
    ("nodes", 28, "<i 2i 3h 3h H H", ["planenum", "children", "mins", "maxs", "firstface", "numfaces"]),
    ("texinfo", 76, "<8f i i 32s i", ["vecs", "flags", "value", "texture", "nexttexinfo"]),
    ("faces", 20, "<H h i h h 4B i", ["planenum", "side", "firstedge", "numedges", "texinfo", "styles", "lightofs"]),
    ("lighting", 1, None, None),
    ("leafs", 28, "<i h h 3h 3h H H H H",
     ["contents", "cluster", "area", "mins", "maxs", "firstleafface", "numleaffaces", "firstleafbrush",
      "numleafbrushes"]),
    ("leaffaces", 2, "<H", ["face"]),
    ("leafbrushes", 2, "<H", ["brush"]),
    ("edges", 4, "<2H", ["v"]),
    ("surfedges", 4, "<i", ["edge"]),
    ("models", 48, "<3f 3f 3f i i i", ["mins", "maxs", "origin", "headnode", "firstface", "numfaces"]),
    ("brushes", 12, "<i i i", ["firstside", "numsides", "contents"]),
    ("brushsides", 4, "<H h", ["planenum", "texinfo"]),
    ("pop", 1, None, None),
    ("areas", 8, "<i i", ["numareaportals", "firstareaportal"]),
    ("areaportals", 8, "<i i", ["portalnum", "otherarea"]),
]
# how many values each field takes from the unpacked tuple (arrays: their length)
WIDTHS = {
    "planes": [3, 1, 1], "vertexes": [3], "nodes": [1, 2, 3, 3, 1, 1], "texinfo": [8, 1, 1, 1, 1],
    "faces": [1, 1, 1, 1, 1, 4, 1], "leafs": [1, 1, 1, 3, 3, 1, 1, 1, 1], "leaffaces": [1], "leafbrushes": [1],
    "edges": [2], "surfedges": [1], "models": [3, 3, 3, 1, 1, 1], "brushes": [1, 1, 1], "brushsides": [1, 1],
    "areas": [1, 1], "areaportals": [1, 1],
}
for _n, _s, _f, _names in LUMPS:
    if _f:
        assert struct.calcsize(_f) == _s, (_n, struct.calcsize(_f), _s)
        assert len(WIDTHS[_n]) == len(_names) and sum(WIDTHS[_n]) == len(struct.unpack(_f, bytes(_s)))


def decode(name, fmt, data):
    """every element of a lump as a dict of its fields"""
    size = struct.calcsize(fmt)
    out = []
    for vals in struct.iter_unpack(fmt, data[:len(data) - len(data) % size]):
        rec, i = {}, 0
        for field, w in zip(FIELDS[name], WIDTHS[name]):
            v = vals[i:i + w]
            if isinstance(v[0], bytes):
                v = [v[0].split(b"\0", 1)[0].decode("latin-1")]
            rec[field] = list(v) if w > 1 else v[0]
            i += w
        out.append(rec)
    return out


FIELDS = {n: names for n, _s, _f, names in LUMPS}


def read(path):
    """(lumps: name -> {ofs, len, count, elements}, problems: [str])"""
    data = open(path, "rb").read()
    problems = []
    where = path

    def bad(lump, index, msg):
        problems.append(f"{where}: {lump}" + (f"[{index}]" if index is not None else "") + f": {msg}")

    if len(data) < 8 + 19 * 8:
        bad("header", None, f"{len(data)} bytes: shorter than the 160-byte header")
        return {}, problems
    magic, version = data[:4], struct.unpack_from("<i", data, 4)[0]
    if magic != b"IBSP" or version != 38:
        bad("header", None, f"magic {magic!r} version {version}: not IBSP 38")
        return {}, problems
    lumps = {}
    for i, (name, esize, fmt, _names) in enumerate(LUMPS):
        ofs, ln = struct.unpack_from("<ii", data, 8 + 8 * i)
        if ofs < 0 or ln < 0 or ofs + ln > len(data):
            bad(name, None, f"offset {ofs} length {ln} outside the {len(data)}-byte file")
            ln = 0
        if ln % esize:
            bad(name, None, f"length {ln} is not a whole number of {esize}-byte elements")
        raw = data[ofs:ofs + ln]
        lumps[name] = {"ofs": ofs, "len": ln, "count": ln // esize, "raw": raw,
                       "elements": decode(name, fmt, raw) if fmt else None}
    n = {k: v["count"] for k, v in lumps.items()}
    E = {k: v["elements"] for k, v in lumps.items()}

    def rng(lump, i, what, first, count, target):
        if first < 0 or count < 0 or first + count > n[target]:
            bad(lump, i, f"{what} {first}+{count} outside {target} ({n[target]})")

    def idx(lump, i, what, v, target, allow_minus1=False):
        if allow_minus1 and v == -1:
            return
        if v < 0 or v >= n[target]:
            bad(lump, i, f"{what} {v} outside {target} ({n[target]})")

    # visibility: numclusters, then [numclusters][2] byte offsets into the lump
    vis = lumps["visibility"]["raw"]
    clusters = 0
    if len(vis) >= 4:
        clusters = struct.unpack_from("<i", vis, 0)[0]
        if clusters < 0 or 4 + 8 * clusters > len(vis):
            bad("visibility", None, f"{clusters} clusters do not fit the {len(vis)}-byte lump")
            clusters = 0
        for c in range(clusters):
            pvs, phs = struct.unpack_from("<ii", vis, 4 + 8 * c)
            for kind, o in (("pvs", pvs), ("phs", phs)):
                if o < 4 + 8 * clusters or o >= len(vis):
                    bad("visibility", c, f"{kind} offset {o} outside the row data (4 + 8 x {clusters} .. {len(vis)})")
    elif len(vis):
        bad("visibility", None, f"{len(vis)} bytes: no cluster count")
    lumps["visibility"]["clusters"] = clusters

    for i, p in enumerate(E["planes"]):
        if not 0 <= p["type"] <= 5:
            bad("planes", i, f"type {p['type']} not 0..5")
    for i, nd in enumerate(E["nodes"]):
        idx("nodes", i, "planenum", nd["planenum"], "planes")
        for c in nd["children"]:
            if c >= 0:
                idx("nodes", i, "child", c, "nodes")
            else:
                idx("nodes", i, "child leaf", -(c + 1), "leafs")
        rng("nodes", i, "faces", nd["firstface"], nd["numfaces"], "faces")
    for i, t in enumerate(E["texinfo"]):
        idx("texinfo", i, "nexttexinfo", t["nexttexinfo"], "texinfo", allow_minus1=True)
    for i, f in enumerate(E["faces"]):
        idx("faces", i, "planenum", f["planenum"], "planes")
        if f["side"] not in (0, 1):
            bad("faces", i, f"side {f['side']} not 0 or 1")
        rng("faces", i, "surfedges", f["firstedge"], f["numedges"], "surfedges")
        if f["numedges"] < 3:
            bad("faces", i, f"{f['numedges']} edges")
        idx("faces", i, "texinfo", f["texinfo"], "texinfo")
        if f["lightofs"] != -1 and not 0 <= f["lightofs"] < n["lighting"]:
            bad("faces", i, f"lightofs {f['lightofs']} outside lighting ({n['lighting']})")
    for i, lf in enumerate(E["leafs"]):
        rng("leafs", i, "leaffaces", lf["firstleafface"], lf["numleaffaces"], "leaffaces")
        rng("leafs", i, "leafbrushes", lf["firstleafbrush"], lf["numleafbrushes"], "leafbrushes")
        if lf["cluster"] != -1 and not 0 <= lf["cluster"] < max(clusters, 1):
            bad("leafs", i, f"cluster {lf['cluster']} outside {clusters} clusters")
        idx("leafs", i, "area", lf["area"], "areas")
    for i, x in enumerate(E["leaffaces"]):
        idx("leaffaces", i, "face", x["face"], "faces")
    for i, x in enumerate(E["leafbrushes"]):
        idx("leafbrushes", i, "brush", x["brush"], "brushes")
    for i, e in enumerate(E["edges"]):
        for v in e["v"]:
            idx("edges", i, "vertex", v, "vertexes")
    for i, s in enumerate(E["surfedges"]):
        idx("surfedges", i, "edge", abs(s["edge"]), "edges")
    for i, m in enumerate(E["models"]):
        if m["headnode"] >= 0:
            idx("models", i, "headnode", m["headnode"], "nodes")
        else:
            idx("models", i, "headnode leaf", -(m["headnode"] + 1), "leafs")
        rng("models", i, "faces", m["firstface"], m["numfaces"], "faces")
    for i, b in enumerate(E["brushes"]):
        rng("brushes", i, "brushsides", b["firstside"], b["numsides"], "brushsides")
    for i, s in enumerate(E["brushsides"]):
        idx("brushsides", i, "planenum", s["planenum"], "planes")
        idx("brushsides", i, "texinfo", s["texinfo"], "texinfo", allow_minus1=True)
    for i, a in enumerate(E["areas"]):
        rng("areas", i, "areaportals", a["firstareaportal"], a["numareaportals"], "areaportals")
    for i, a in enumerate(E["areaportals"]):
        idx("areaportals", i, "otherarea", a["otherarea"], "areas")
        if a["portalnum"] < 0:
            bad("areaportals", i, f"portalnum {a['portalnum']}")
    if not n["models"]:
        bad("models", None, "no world model")
    return lumps, problems


def main(argv):
    as_json = "--json" in argv
    paths = [a for a in argv if a != "--json"]
    if not paths:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    failed = 0
    for p in paths:
        lumps, problems = read(p)
        for msg in problems[:20]:
            print(msg, file=sys.stderr)
        if len(problems) > 20:
            print(f"{p}: ... {len(problems) - 20} more problems", file=sys.stderr)
        failed += bool(problems)
        if as_json:
            out = {"file": p, "problems": len(problems), "lumps": {}}
            for name, l in lumps.items():
                out["lumps"][name] = {"ofs": l["ofs"], "len": l["len"], "count": l["count"]}
                if l["elements"] is not None:
                    out["lumps"][name]["elements"] = l["elements"]
            if "visibility" in lumps:
                out["lumps"]["visibility"]["clusters"] = lumps["visibility"]["clusters"]
            print(json.dumps(out))
        else:
            counts = " ".join(f"{k}={v['count']}" for k, v in lumps.items() if v["elements"] is not None)
            print(f"{p}: {'ok' if not problems else str(len(problems)) + ' problems'}: {counts}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
