#!/usr/bin/env python3
"""Independent, standard-library-only reader for Quake 1 / GoldSrc / BSP2 maps and WAD3 files.

Used by the tests to cross-check `bspkit info --json` counts. Written from the format
descriptions (the GoldSrc seed, Quake's bspfile.h layout facts), not from bspkit's C code.

  qread.py bsp FILE    -> JSON {"format", "version", "counts": {...}}
  qread.py wad FILE    -> JSON {"count": N, "entries": [{"name", "type", "width", "height"}]}
  qread.py lightmaps FILE -> JSON {"lit_faces", "exact", "overlaps", "checked"}: each lit face's
      lightmap size by the extents rule against the gap to the next face's light offset
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


def f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def check_lightmaps(path):
    """Lightmap sizes from the extents rule (bounds in double, stored to float, floor/ceil of /16)
    compared with the spacing of the faces' light offsets: a wrong rule shows up as overlaps."""
    data = open(path, "rb").read()
    magic = data[:4]
    wide = magic in (b"BSP2", b"2PSB")
    version = 29 if wide else struct.unpack_from("<i", data, 0)[0]
    lumps = [struct.unpack_from("<ii", data, 4 + 8 * i) for i in range(15)]
    bpp = 3 if version == 30 else 1
    vo, vl = lumps[3]
    verts = [struct.unpack_from("<3f", data, vo + 12 * i) for i in range(vl // 12)]
    eo, el = lumps[12]
    esz = 8 if wide else 4
    efmt = "<2I" if wide else "<2H"
    edges = [struct.unpack_from(efmt, data, eo + esz * i) for i in range(el // esz)]
    so, sl = lumps[13]
    surf = struct.unpack_from("<%di" % (sl // 4), data, so)
    to, tl = lumps[6]
    texinfo = [struct.unpack_from("<8fiI", data, to + 40 * i) for i in range(tl // 40)]
    fo, fl = lumps[7]
    fsz = 28 if wide else 20
    faces = []
    for i in range(fl // fsz):
        if wide:
            plane, side, first, num, ti = struct.unpack_from("<5I", data, fo + fsz * i)
            styles = data[fo + fsz * i + 20:fo + fsz * i + 24]
            lofs = struct.unpack_from("<i", data, fo + fsz * i + 24)[0]
        else:
            plane, side, first, num, ti = struct.unpack_from("<HHIHH", data, fo + fsz * i)
            styles = data[fo + fsz * i + 12:fo + fsz * i + 16]
            lofs = struct.unpack_from("<i", data, fo + fsz * i + 16)[0]
        if lofs < 0 or (texinfo[ti][9] & 1):
            continue
        nst = 0
        while nst < 4 and styles[nst] != 255:
            nst += 1
        t = texinfo[ti]
        mins, maxs = [1e30, 1e30], [-1e30, -1e30]
        for k in range(num):
            e = surf[first + k]
            v = verts[edges[e][0]] if e >= 0 else verts[edges[-e][1]]
            for j in range(2):
                val = f32(v[0] * t[4 * j] + v[1] * t[4 * j + 1] + v[2] * t[4 * j + 2] + t[4 * j + 3])
                mins[j] = min(mins[j], val)
                maxs[j] = max(maxs[j], val)
        import math
        w = math.ceil(f32(maxs[0] / 16)) - math.floor(f32(mins[0] / 16)) + 1
        h = math.ceil(f32(maxs[1] / 16)) - math.floor(f32(mins[1] / 16)) + 1
        faces.append((lofs, w * h * nst * bpp))
    faces.sort()
    exact = overlaps = checked = 0
    for (a, sa), (b, sb) in zip(faces, faces[1:]):
        if a == b:
            continue
        checked += 1
        # exact, or padded to the next multiple of 4 (ericw-tools aligns each face's lightmap)
        if a + sa == b or (a + sa + 3) // 4 * 4 == b:
            exact += 1
        elif a + sa > b:
            overlaps += 1
    return {"lit_faces": len(faces), "checked": checked, "exact": exact, "overlaps": overlaps,
            "lighting_bytes": lumps[8][1],
            "last_end": faces[-1][0] + faces[-1][1] if faces else 0}


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
    modes = {"bsp": read_bsp, "wad": read_wad, "lightmaps": check_lightmaps}
    if len(sys.argv) != 3 or sys.argv[1] not in modes:
        raise SystemExit(__doc__)
    print(json.dumps(modes[sys.argv[1]](sys.argv[2]), indent=1))
