#!/usr/bin/env python3
"""Static prop layouts, field by field after Valve's gamebspfile.h StaticPropLump_t.

usage: sprp_layouts.py make MAP.bsp OUTDIR
    writes OUTDIR/sprp_vV_SIZE.bsp for every layout bspkit reads: MAP's static prop game lump
    replaced by one whose props carry distinct values in every field of that layout (the new lump
    is appended to the file and the game lump directory entry points at it), and OUTDIR/NAME.json
    with the values each prop holds, named as `bspkit props --json` names them.
usage: sprp_layouts.py read OUTDIR MAP.bsp...
    writes the same JSON for real maps, read by this script's own decoder, as OUTDIR/NAME.json.
usage: sprp_layouts.py compare DIR NAME...
    compares the props of DIR/NAME.json (this script) with DIR/NAME.got.json (`bspkit props
    --json`): one PASS or FAIL line per NAME, with the fields that differ."""
import json, os, struct, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vbsp_ref import lzma_lump  # noqa: E402

# (version, entry size, fields after the 56 bytes of version 4), in file order
LAYOUTS = [
    (4, 56, []),
    (5, 60, ["forced_fade_scale"]),
    (6, 64, ["forced_fade_scale", "dx"]),
    (7, 68, ["forced_fade_scale", "dx", "diffuse"]),                    # L4D
    (7, 72, ["forced_fade_scale", "dx", "flags32", "lightmap"]),        # early TF2 ("v7*")
    (8, 68, ["forced_fade_scale", "cpu_gpu", "diffuse"]),
    (9, 72, ["forced_fade_scale", "cpu_gpu", "diffuse", "x360"]),
    (10, 72, ["forced_fade_scale", "dx", "flags32", "lightmap"]),       # TF2, SDK 2013
    (10, 76, ["forced_fade_scale", "cpu_gpu", "diffuse", "x360", "flags_ex"]),   # CS:GO
    (11, 80, ["forced_fade_scale", "cpu_gpu", "diffuse", "x360", "flags_ex", "scale"]),
    (12, 80, ["forced_fade_scale", "cpu_gpu", "diffuse", "x360", "flags_ex", "scale"]),
]


def game_lump_dir(d):
    """the game lump directory: its file offset (an L4D2-layout header puts offset and length
    one field later in the lump entry)"""
    lofs, llen = struct.unpack_from("<ii", d, 8 + 16 * 35)
    if struct.unpack_from("<i", d, 4)[0] == 21 and not (0 < lofs <= len(d)):
        lofs = struct.unpack_from("<i", d, 8 + 16 * 35 + 4)[0]
    return lofs


def sprp_entry(d, compressed_ok=False):
    """the sprp game lump of map bytes d: (directory entry offset, version, data offset, length,
    flags), or None"""
    lofs = game_lump_dir(d)
    n = struct.unpack_from("<i", d, lofs)[0]
    for k in range(n):
        e = lofs + 4 + 16 * k
        gid, flags, ver, gofs, glen = struct.unpack_from("<iHHii", d, e)
        if gid == struct.unpack("<i", b"prps")[0] and (compressed_ok or not flags & 1):
            return e, ver, gofs, glen, flags
    return None


def f32(e, q):
    """the float at e[q:q+4]; a NaN or an infinity as the JSON string bspkit writes for it: "0x" and
    the float's 8 hex bit digits (docs/lumps.md)"""
    v = struct.unpack_from("<f", e, q)[0]
    return v if v - v == 0 else "0x%08x" % struct.unpack_from("<I", e, q)[0]


def decode(blob, ver):
    """a static prop game lump's props, decoded by the layout its version and entry size name"""
    names = struct.unpack_from("<i", blob, 0)[0]
    p = 4 + 128 * names
    leaves = struct.unpack_from("<i", blob, p)[0]
    p += 4 + 2 * leaves
    count = struct.unpack_from("<i", blob, p)[0]
    p += 4
    if count == 0:
        return {"version": ver, "entry_size": 0, "props": []}
    size = (len(blob) - p) // count
    fields = next((f for v, s, f in LAYOUTS if v == ver and s == size), None)
    if fields is None:
        raise SystemExit(f"no layout for version {ver}, {size}-byte props")
    out = []
    for i in range(count):
        e = blob[p + i * size:p + (i + 1) * size]
        o = struct.unpack_from("<6f3H2Bi2f3f", e, 0)
        o = [f32(e, 4 * k) for k in range(6)] + list(o[6:12]) + [f32(e, 36 + 4 * k) for k in range(5)]
        v = {"origin": list(o[0:3]), "angles": list(o[3:6]), "model_index": o[6], "first_leaf": o[7],
             "leaf_count": o[8], "solid": o[9], "flags": o[10], "skin": o[11], "fade_min": o[12],
             "fade_max": o[13], "lighting_origin": list(o[14:17])}
        q = 56
        for f in fields:
            if f == "forced_fade_scale":
                v[f] = f32(e, q); q += 4
            elif f == "dx":
                v["min_dx_level"], v["max_dx_level"] = struct.unpack_from("<2H", e, q); q += 4
            elif f == "diffuse":
                v["diffuse_modulation"] = list(e[q:q + 4]); q += 4
            elif f == "cpu_gpu":
                (v["min_cpu_level"], v["max_cpu_level"], v["min_gpu_level"], v["max_gpu_level"]) = e[q:q + 4]; q += 4
            elif f == "x360":
                # a bool (one byte), then three bytes of the struct's padding (whatever the
                # compiler left there: L4D2 maps have non-zero bytes in it)
                v["disable_x360"] = e[q] != 0; q += 4
            elif f == "flags32":
                v["flags"] = struct.unpack_from("<I", e, q)[0]; q += 4
            elif f == "lightmap":
                v["lightmap_resolution"] = list(struct.unpack_from("<2H", e, q)); q += 4
            elif f == "flags_ex":
                v["flags_ex"] = struct.unpack_from("<I", e, q)[0]; q += 4
            elif f == "scale":
                v["uniform_scale"] = f32(e, q); q += 4
        assert q == size
        out.append(v)
    return {"version": ver, "entry_size": size, "props": out}


def read(path):
    d = open(path, "rb").read()
    s = sprp_entry(d, compressed_ok=True)
    if s is None:
        return {"version": None, "entry_size": 0, "props": []}
    _, ver, gofs, glen, flags = s
    blob = lzma_lump(d[gofs:])[0] if flags & 1 else d[gofs:gofs + glen]
    return decode(blob, ver)


def same(w, g):
    """w (read here) and g (bspkit's JSON) agree: floats to their 32-bit precision as printed,
    a NaN or an infinity as the same bits"""
    if isinstance(w, list):
        return isinstance(g, list) and len(w) == len(g) and all(same(a, b) for a, b in zip(w, g))
    if isinstance(w, float):
        return isinstance(g, (int, float)) and abs(g - w) <= 1e-6 * max(1.0, abs(w))
    return w == g


def compare(want, got):
    """PASS/FAIL lines: every field of every prop; floats as the 32-bit values they are"""
    bad = 0
    if want["props"] and (want["version"], want["entry_size"]) != (got.get("sprp_version"), got.get("entry_size")):
        print(f"layout {want['version']}/{want['entry_size']} read as {got.get('sprp_version')}/{got.get('entry_size')}", end="; ")
        bad += 1
    gp = got.get("static_props", [])
    if len(gp) != len(want["props"]):
        print(f"FAIL {len(gp)} props, want {len(want['props'])}")
        return 1
    fields = 0
    for i, (w, g) in enumerate(zip(want["props"], gp)):
        for k, v in w.items():
            fields += 1
            if k not in g or not same(v, g[k]):
                print(f"prop {i} {k}: {g.get(k)} want {v}", end="; ")
                bad += 1
    print(f"{'PASS' if not bad else 'FAIL'} {len(gp)} props, {fields} fields, layout {want['version']}/{want['entry_size']}")
    return bad


def prop(i, names, leaves, fields):
    """one prop's bytes and the values bspkit should report"""
    v = {"origin": [i + 0.5, -i - 0.25, 64.0 + i], "angles": [float(i % 90), float(i * 7 % 360), 0.0],
         "model_index": i % names, "first_leaf": 0, "leaf_count": min(1, leaves), "solid": 6,
         "skin": i % 3, "fade_min": 100.0 + i, "fade_max": 200.0 + i, "lighting_origin": [1.0, 2.0, float(i)]}
    byte_flags = 0x40 | (i & 1)
    b = struct.pack("<6f3H2Bi2f3f", *v["origin"], *v["angles"], v["model_index"], v["first_leaf"], v["leaf_count"],
                    v["solid"], byte_flags, v["skin"], v["fade_min"], v["fade_max"], *v["lighting_origin"])
    v["flags"] = byte_flags
    for f in fields:
        if f == "forced_fade_scale":
            v[f] = 1.5 + i
            b += struct.pack("<f", v[f])
        elif f == "dx":
            v["min_dx_level"], v["max_dx_level"] = 80 + i, 90 + i
            b += struct.pack("<2H", 80 + i, 90 + i)
        elif f == "diffuse":
            v["diffuse_modulation"] = [10 + i % 200, 20, 30, 255]
            b += bytes(v["diffuse_modulation"])
        elif f == "cpu_gpu":
            v["min_cpu_level"], v["max_cpu_level"], v["min_gpu_level"], v["max_gpu_level"] = 1, 2, 3, 4
            b += bytes([1, 2, 3, 4])
        elif f == "x360":
            # the bool, then three padding bytes left non-zero on purpose (as real maps have them)
            v["disable_x360"] = bool(i & 2)
            b += bytes([1 if i & 2 else 0, 0x5d, 0xdb, 0x08])
        elif f == "flags32":
            # the lightmapped layout: the byte above is padding (left non-zero here on purpose),
            # the flags are this uint32, with bits above the byte (0x100: no per-texel lighting)
            v["flags"] = 0x100 | 0x10 | (i & 1)
            b += struct.pack("<I", v["flags"])
        elif f == "lightmap":
            v["lightmap_resolution"] = [16 + i % 16, 32]
            b += struct.pack("<2H", *v["lightmap_resolution"])
        elif f == "flags_ex":
            v["flags_ex"] = 0x4 | (i & 1)
            b += struct.pack("<I", v["flags_ex"])
        elif f == "scale":
            v["uniform_scale"] = 1.0 + i / 4
            b += struct.pack("<f", v["uniform_scale"])
    return b, v


def make(src, out):
    d = bytearray(open(src, "rb").read())
    e, _, gofs, glen, _ = sprp_entry(d)
    blob = d[gofs:gofs + glen]
    names = struct.unpack_from("<i", blob, 0)[0]
    p = 4 + 128 * names
    leaves = struct.unpack_from("<i", blob, p)[0]
    head = bytes(blob[:p + 4 + 2 * leaves])
    count = 12
    for ver, size, fields in LAYOUTS:
        body, want = b"", []
        for i in range(count):
            b, v = prop(i, names, leaves, fields)
            assert len(b) == size, (ver, size, len(b))
            body += b
            want.append(v)
        lump = head + struct.pack("<i", count) + body
        m = bytearray(d)
        while len(m) % 4:
            m.append(0)
        at = len(m)
        m += lump
        struct.pack_into("<H", m, e + 6, ver)
        struct.pack_into("<ii", m, e + 8, at, len(lump))
        name = f"sprp_v{ver}_{size}"
        open(os.path.join(out, name + ".bsp"), "wb").write(m)
        json.dump({"version": ver, "entry_size": size, "props": want}, open(os.path.join(out, name + ".json"), "w"))
        print(name)


def main():
    if sys.argv[1] == "make":
        make(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "read":
        for m in sys.argv[3:]:
            name = os.path.splitext(os.path.basename(m))[0]
            json.dump(read(m), open(os.path.join(sys.argv[2], name + ".json"), "w"))
    elif sys.argv[1] == "compare":
        d = sys.argv[2]
        for name in sys.argv[3:]:
            try:
                got = json.load(open(os.path.join(d, name + ".got.json")))
            except (OSError, ValueError) as e:
                print(f"FAIL {name}: {e}")
                continue
            print(name, end=" ")
            compare(json.load(open(os.path.join(d, name + ".json"))), got)


main()
