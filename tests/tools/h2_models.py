#!/usr/bin/python3
"""Hexen II or Quake? The rule of ericw-tools' isHexen2() (ericwa/ericw-tools common/bspfile.cc) on
a BSP29 map's models lump (80-byte Hexen II models with 8 head nodes, 64-byte Quake models with 4):
empty or not a multiple of 80: Quake; a multiple of 80 and not of 64: Hexen II; a multiple of both:
Hexen II only when every model read that way passes its checks (visleafs within the leaves, the face
range inside the faces, headnode[0] below the node count, the other head nodes below the clip-node
count). Both readings are checked and reported, for the record.

    h2_models.py MAP.bsp...    one line a map: "MAP: hexen2|quake|not BSP29 (by size|by checks; ...)"
"""
import struct
import sys

LUMP_NODES, LUMP_FACES, LUMP_CLIPNODES, LUMP_LEAFS, LUMP_MODELS = 5, 7, 9, 10, 14


def reading(d, lumps, size, heads):
    """None when the lump is not whole models of this size, else (passes, first problem)"""
    ofs, ln = lumps[LUMP_MODELS]
    if ln == 0 or ln % size:
        return None
    faces, nodes = lumps[LUMP_FACES][1] // 20, lumps[LUMP_NODES][1] // 24
    leafs, clips = lumps[LUMP_LEAFS][1] // 28, lumps[LUMP_CLIPNODES][1] // 8
    for i in range(ln // size):
        hn = struct.unpack_from("<%di" % heads, d, ofs + i * size + 36)
        visleafs, first, num = struct.unpack_from("<3i", d, ofs + i * size + 36 + 4 * heads)
        if not 0 <= visleafs <= leafs:
            return False, f"model {i}: visleafs {visleafs} > {leafs} leaves"
        if num < 0 or not 0 <= first <= faces or num > faces - first:
            return False, f"model {i}: faces {first}+{num} outside {faces}"
        if hn[0] >= nodes:
            return False, f"model {i}: headnode {hn[0]} >= {nodes} nodes"
        if any(h >= clips for h in hn[1:]):
            return False, f"model {i}: clip head nodes {hn[1:]} >= {clips}"
    return True, f"{ln // size} models"


def classify(path):
    d = open(path, "rb").read()
    if len(d) < 124 or struct.unpack_from("<i", d, 0)[0] != 29:
        return "not BSP29", ""
    lumps = [struct.unpack_from("<ii", d, 4 + 8 * i) for i in range(15)]
    ln = lumps[LUMP_MODELS][1]
    h2, q1 = reading(d, lumps, 80, 8), reading(d, lumps, 64, 4)
    if ln == 0 or ln % 80:
        kind, how = "quake", "by size"
    elif ln % 64:
        kind, how = "hexen2", "by size"
    else:
        kind, how = ("hexen2" if h2[0] else "quake"), "by checks"
    why = "; ".join(f"as {n}: {'not whole models' if r is None else ('pass, ' if r[0] else 'fail, ') + r[1]}"
                    for n, r in (("hexen2", h2), ("quake", q1)))
    return kind, f"{how}; {why}"


if __name__ == "__main__":
    for p in sys.argv[1:]:
        kind, why = classify(p)
        print(f"{p}: {kind} ({why})")
