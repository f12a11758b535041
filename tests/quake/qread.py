#!/usr/bin/env python3
"""Independent, standard-library-only reader for Quake 1 / GoldSrc / BSP2 maps and WAD3 files.

Used by the tests to cross-check `bspkit info --json` counts. Written from the format
descriptions (the GoldSrc seed, Quake's bspfile.h layout facts), not from bspkit's C code.

  qread.py bsp FILE    -> JSON {"format", "version", "counts": {...}}
  qread.py wad FILE    -> JSON {"count": N, "entries": [{"name", "type", "width", "height"}]}
"""
import json
import struct
import sys

LUMPS = ["entities", "planes", "textures", "vertices", "visibility", "nodes", "texinfo", "faces",
         "lighting", "clipnodes", "leafs", "marksurfaces", "edges", "surfedges", "models"]


def entity_count(text):
    """Count top-level { } blocks, skipping quoted strings and // comments."""
    n, depth, i = 0, 0, 0
    while i < len(text):
        c = text[i]
        if c == '"':
            j = text.find('"', i + 1)
            i = len(text) if j < 0 else j + 1
            continue
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = len(text) if j < 0 else j + 1
            continue
        if c == "{":
            if depth == 0:
                n += 1
            depth += 1
        elif c == "}":
            depth -= 1
        i += 1
    return n


def read_bsp(path):
    data = open(path, "rb").read()
    magic = data[:4]
    if magic == b"BSP2":
        fmt, version, sizes = "bsp2", 29, {"nodes": 44, "leafs": 44, "faces": 28, "clipnodes": 12,
                                           "edges": 8, "marksurfaces": 4}
    elif magic == b"2PSB":
        fmt, version, sizes = "bsp2", 29, {"nodes": 32, "leafs": 32, "faces": 28, "clipnodes": 12,
                                           "edges": 8, "marksurfaces": 4}
    else:
        version = struct.unpack_from("<i", data, 0)[0]
        if version not in (29, 30):
            raise SystemExit("not a Quake 1 / GoldSrc BSP: %r" % magic)
        fmt = "goldsrc" if version == 30 else "quake1"
        sizes = {"nodes": 24, "leafs": 28, "faces": 20, "clipnodes": 8, "edges": 4, "marksurfaces": 2}
    sizes.update({"planes": 20, "vertices": 12, "texinfo": 40, "surfedges": 4, "models": 64})
    lumps = [struct.unpack_from("<ii", data, 4 + 8 * i) for i in range(15)]
    names = list(LUMPS)
    # Blue Shift swaps the first two header entries: the entity text is then in entry 1
    if version == 30:
        o0, l0 = lumps[0]
        o1, l1 = lumps[1]
        t0 = data[o0:o0 + l0].lstrip()
        t1 = data[o1:o1 + l1].lstrip()
        if not t0.startswith(b"{") and t1.startswith(b"{") and l0 % 20 == 0:
            lumps[0], lumps[1] = lumps[1], lumps[0]
    counts = {}
    for name, (ofs, ln) in zip(names, lumps):
        if name in sizes:
            counts[name] = ln // sizes[name]
    ofs, ln = lumps[0]
    text = data[ofs:ofs + ln].split(b"\0", 1)[0].decode("latin-1")
    counts["entities"] = entity_count(text)
    ofs, ln = lumps[2]
    counts["textures"] = struct.unpack_from("<i", data, ofs)[0] if ln >= 4 else 0
    counts["lighting_bytes"] = lumps[8][1]
    counts["visibility_bytes"] = lumps[4][1]
    return {"format": fmt, "version": version, "counts": counts}


def read_wad(path):
    data = open(path, "rb").read()
    if data[:4] != b"WAD3":
        raise SystemExit("not a WAD3: %r" % data[:4])
    n, dirofs = struct.unpack_from("<ii", data, 4)
    entries = []
    for i in range(n):
        filepos, disksize, size, typ, comp = struct.unpack_from("<iiiBB", data, dirofs + 32 * i)
        name = data[dirofs + 32 * i + 16:dirofs + 32 * i + 32].split(b"\0", 1)[0].decode("latin-1")
        w = h = 0
        if typ in (0x40, 0x43):
            w, h = struct.unpack_from("<II", data, filepos + 16)
        elif typ == 0x42:
            w, h = struct.unpack_from("<II", data, filepos)
        elif typ == 0x46:  # font: rows are 256 pixels wide; the header width is the cell width
            w, h = 256, struct.unpack_from("<I", data, filepos + 4)[0]
        entries.append({"name": name, "type": typ, "width": w, "height": h})
    return {"count": n, "entries": entries}


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("bsp", "wad"):
        raise SystemExit(__doc__)
    print(json.dumps(read_bsp(sys.argv[2]) if sys.argv[1] == "bsp" else read_wad(sys.argv[2]), indent=1))
