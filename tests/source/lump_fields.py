#!/usr/bin/python3
"""Source's smaller lumps as `bspkit lump MAP NAME --json` prints them, against this reader's own
unpacking of Valve's public/bspfile.h structs (standard library only): every element, every
field, on one map. usage: lump_fields.py CLI MAP  (exit 1 on a difference; prints a summary)"""
import json, os, struct, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vbsp_ref import lumps  # noqa: E402

cli, path = sys.argv[1], sys.argv[2]
data = open(path, "rb").read()
version, lump = lumps(data)
raw = [struct.unpack_from("<iiii", data, 8 + 16 * i) for i in range(64)]
l4d2 = version == 21 and not all(o >= 0 and (ln == 0 or o >= 1036) and o + ln <= len(data) for o, ln, _, _ in raw)
lump_version = lambda i: raw[i][0] if l4d2 else raw[i][2]


def ov(nf):   # doverlay_t / dwateroverlay_t
    return ("<ihH%di2f2f12f3f3f" % nf, lambda t: {"id": t[0], "tex_info": t[1], "face_count_and_render_order": t[2],
            "faces": list(t[3:3 + nf]), "u": list(t[3 + nf:5 + nf]), "v": list(t[5 + nf:7 + nf]),
            "uv_points": list(t[7 + nf:19 + nf]), "origin": list(t[19 + nf:22 + nf]), "basis_normal": list(t[22 + nf:25 + nf])})


one16 = lambda key: ("<H", lambda t: {key: t[0]})
LAYOUTS = {   # slot: (name, struct, element as the JSON gives it)
    42: ("cubemaps", "<3iB3x", lambda t: {"origin": list(t[:3]), "size": t[3]}),
    45: ("overlays",) + ov(64),
    50: ("wateroverlays",) + ov(256),
    37: ("primitives", "<BxHHHH", lambda t: {"type": t[0], "first_index": t[1], "index_count": t[2], "first_vert": t[3], "vert_count": t[4]}),
    38: ("primverts", "<3f", lambda t: {"pos": list(t)}),
    39: ("primindices",) + one16("index"),
    30: ("vertnormals", "<3f", lambda t: {"normal": list(t)}),
    31: ("vertnormalindices",) + one16("index"),
    11: ("faceids",) + one16("hammerfaceid"),
    36: ("leafwaterdata", "<ffh2x", lambda t: {"surface_z": t[0], "min_z": t[1], "surface_tex_info_id": t[2]}),
    46: ("leafmindisttowater",) + one16("min_dist"),
    47: ("face_macro_texture_info",) + one16("macro_texture_name_id"),
    52: ("leaf_ambient_index", "<HH", lambda t: {"ambient_sample_count": t[0], "first_ambient_sample": t[1]}),
    60: ("overlay_fades", "<ff", lambda t: {"fade_dist_min_sq": t[0], "fade_dist_max_sq": t[1]}),
    59: ("map_flags", "<I", lambda t: {"level_flags": t[0]}),
}


def same(a, b):
    """equal, floats to their last few bits (the JSON's shortest decimal reads back to the float)"""
    if isinstance(b, list): return isinstance(a, list) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(b, float): return isinstance(a, (int, float)) and abs(a - b) <= 1e-6 * max(1.0, abs(b))
    return a == b


bad, seen = [], {}
for slot, (name, fmt, make) in LAYOUTS.items():
    b = lump(slot)
    size = struct.calcsize(fmt)
    if not b or len(b) % size: continue
    out = subprocess.run([cli, "lump", path, name, "--json"], capture_output=True, text=True)
    if out.returncode: bad.append("%s: exit %d" % (name, out.returncode)); continue
    got = json.loads(out.stdout)
    want = [make(t) for t in struct.iter_unpack(fmt, b)]
    if not isinstance(got, list) or len(got) != len(want): bad.append("%s: %s elements, want %d" % (name, len(got) if isinstance(got, list) else "no", len(want))); continue
    for i, (g, w) in enumerate(zip(got, want)):
        diff = [k for k in w if not same(g.get(k), w[k])]
        if diff: bad.append("%s[%d]: %s" % (name, i, ", ".join("%s %s want %s" % (k, g.get(k), w[k]) for k in diff[:3]))); break
    seen[name] = len(want)
# the leaf ambient lighting by its own version: 28-byte dleafambientlighting_t in version 1, else a cube a leaf
b = lump(56)
if b:
    v1 = lump_version(56) == 1
    size = 28 if v1 else 24
    if len(b) % size == 0:
        got = json.loads(subprocess.run([cli, "lump", path, "leaf_ambient_lighting", "--json"], capture_output=True, text=True).stdout)
        for i in range(len(b) // size):
            e = b[i * size:(i + 1) * size]
            w = {"cube": e[:24].hex()}
            if v1: w.update({"x": e[24], "y": e[25], "z": e[26], "pad": e[27]})
            if got[i] != w: bad.append("leaf_ambient_lighting[%d]: %s want %s" % (i, got[i], w)); break
        seen["leaf_ambient_lighting"] = len(b) // size
print(json.dumps({"file": os.path.basename(path), "version": version, "elements": seen}))
for m in bad: print(m)
sys.exit(1 if bad else 0)
