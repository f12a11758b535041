#!/usr/bin/python3
"""World lights of every Source corpus map that has them, against a reader of the lumps written
here from bspfile.h's dworldlight_t (88 bytes in lump version 0; version 1 adds the 12-byte
shadow_cast_offset after normal): `bspkit lump MAP worldlights[_hdr] --json` gives every field of
every light, --import of that JSON writes the map back byte for byte, and the glTF has, under a
node "worldlights", a node "light N" per light at its origin with a KHR_lights_punctual light of
the right type (point / quakelight: point; spotlight: spot with cones acos(stopdot),
acos(stopdot2); surface: spot with a 90-degree cone; skylight: directional; skyambient: none),
colour intensity / max, intensity the light at 100 units as an inverse-square light (x 0.0254^2),
aimed along normal (the node's rotation applied to -Z, in glTF axes), and extras.baked "true".
usage: lights.py CLI CORPUS_DIR WORK_DIR   (prints a line per map; exit 1 on a mismatch)"""
import glob, json, math, os, struct, subprocess, sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vbsp_ref import lumps  # noqa: E402

UNIT = 0.0254
cli, corpus, work = sys.argv[1:4]
os.makedirs(work, exist_ok=True)


def lump_version(data, version, i):
    raw = [struct.unpack_from("<iiii", data, 8 + 16 * k) for k in range(64)]
    l4d2 = version == 21 and not all(o >= 0 and (ln == 0 or o >= 1036) and o + ln <= len(data) for o, ln, _, _ in raw)
    return raw[i][0] if l4d2 else raw[i][2]


def read_lights(blob, v1):
    size = 100 if v1 else 88
    assert len(blob) % size == 0, "%d bytes, not a multiple of %d" % (len(blob), size)
    out = []
    for i in range(len(blob) // size):
        d = blob[i * size:(i + 1) * size]
        o = {"origin": struct.unpack_from("<3f", d, 0), "intensity": struct.unpack_from("<3f", d, 12),
             "normal": struct.unpack_from("<3f", d, 24)}
        t = 36
        if v1:
            o["shadow_cast_offset"] = struct.unpack_from("<3f", d, 36)
            t = 48
        (o["cluster"], o["type"], o["style"], o["stopdot"], o["stopdot2"], o["exponent"], o["radius"],
         o["constant_attn"], o["linear_attn"], o["quadratic_attn"], o["flags"], o["texinfo"],
         o["owner"]) = struct.unpack_from("<3i7f3i", d, t)
        out.append(o)
    return out


def close(a, b, tol=1e-4):
    a, b = np.atleast_1d(np.asarray(a, float)), np.atleast_1d(np.asarray(b, float))
    return a.shape == b.shape and np.allclose(a, b, rtol=tol, atol=tol)


def rotate(q, v):
    x, y, z, w = q
    u = np.array([x, y, z])
    v = np.asarray(v, float)
    return v + 2 * np.cross(u, np.cross(u, v) + w * v)


def check_map(path):
    bad = []
    data = open(path, "rb").read()
    version, lump = lumps(data)
    ldr_light, hdr_light = lump(8), lump(53)
    pick = 54 if (not ldr_light and hdr_light) else 15
    if not lump(pick): pick = 54 if pick == 15 else 15
    name = "worldlights" if pick == 15 else "worldlights_hdr"
    want = read_lights(lump(pick), lump_version(data, version, pick) >= 1)
    m = os.path.splitext(os.path.basename(path))[0]
    # the lump as JSON, field by field, and back
    js = subprocess.run([cli, "lump", path, name, "--json"], capture_output=True, check=True).stdout
    got = json.loads(js)
    if len(got) != len(want): bad.append("lump --json: %d lights, want %d" % (len(got), len(want)))
    for i, (g, w) in enumerate(zip(got, want)):
        for k, v in w.items():
            if k not in g or not close(g[k], v, 1e-6): bad.append("lump --json light %d %s: %r, want %r" % (i, k, g.get(k), v)); break
        if set(g) != set(w): bad.append("lump --json light %d fields %s" % (i, sorted(set(g) ^ set(w))))
    jpath, back = os.path.join(work, m + ".%s.json" % name), os.path.join(work, m + ".back.bsp")
    open(jpath, "wb").write(js)
    subprocess.run([cli, "lump", path, name, "--import", jpath, "-o", back, "-q"], check=True, capture_output=True)
    if open(back, "rb").read() != data: bad.append("lump --import: the map is not written back byte for byte")
    os.remove(back)
    # the glTF
    out = os.path.join(work, m + ".gltf")
    subprocess.run([cli, "convert", path, "-o", out, "--no-textures", "--no-props", "-q"], check=True, capture_output=True)
    g = json.load(open(out))
    lights = g.get("extensions", {}).get("KHR_lights_punctual", {}).get("lights", [])
    if lights and "KHR_lights_punctual" not in g.get("extensionsUsed", []): bad.append("extensionsUsed")
    parents = [i for i, n in enumerate(g["nodes"]) if n.get("name") == "worldlights"]
    if len(parents) != 1: return bad + ["%d worldlights nodes" % len(parents)]
    kids = g["nodes"][parents[0]].get("children", [])
    if len(kids) != len(want): return bad + ["%d light nodes, want %d" % (len(kids), len(want))]
    if g["nodes"][parents[0]].get("extras", {}).get("lump") != name: bad.append("worldlights: lump %r" % g["nodes"][parents[0]].get("extras"))
    for i, (k, w) in enumerate(zip(kids, want)):
        n = g["nodes"][k]
        if n.get("name") != "light %d" % i: bad.append("node %d named %r" % (k, n.get("name"))); continue
        o = np.array(w["origin"]) * UNIT
        if not close(n.get("translation", [0, 0, 0]), [o[0], o[2], -o[1]], 1e-4): bad.append("light %d at %s" % (i, n.get("translation")))
        ext = n.get("extensions", {}).get("KHR_lights_punctual")
        t = w["type"]
        if t == 5:
            if ext is not None or n.get("extras", {}).get("emittype") != "skyambient": bad.append("light %d: skyambient" % i)
            continue
        if ext is None: bad.append("light %d (type %d): no light" % (i, t)); continue
        L = lights[ext["light"]]
        want_type = {0: "spot", 1: "point", 2: "spot", 3: "directional", 4: "point"}[t]
        if L["type"] != want_type: bad.append("light %d: %s, want %s" % (i, L["type"], want_type))
        mx = max(w["intensity"])
        if mx > 0 and not close(L["color"], np.array(w["intensity"]) / mx, 1e-5): bad.append("light %d colour %s" % (i, L["color"]))
        den = w["constant_attn"] + 100 * w["linear_attn"] + 1e4 * w["quadratic_attn"]
        wi = mx if t == 3 or den <= 0 else mx * 1e4 / den * UNIT * UNIT
        if not close(L["intensity"], wi, 1e-4): bad.append("light %d intensity %g, want %g" % (i, L["intensity"], wi))
        if L.get("extras", {}).get("baked") != "true": bad.append("light %d not marked baked" % i)
        if t == 2:
            sp = L.get("spot", {})
            inner, outer = math.acos(max(-1, min(1, w["stopdot"]))), math.acos(max(-1, min(1, w["stopdot2"])))
            if not (close(sp.get("outerConeAngle"), min(outer, math.pi / 2), 1e-4) and
                    (close(sp.get("innerConeAngle"), inner, 1e-4) or sp.get("innerConeAngle", 0) < outer)):
                bad.append("light %d cones %s, want %g %g" % (i, sp, inner, outer))
        if t in (0, 2, 3):
            nv = np.array(w["normal"], float)
            if np.linalg.norm(nv) > 0.5:
                nv /= np.linalg.norm(nv)
                d = rotate(n.get("rotation", [0, 0, 0, 1]), [0, 0, -1])
                if not close(d, [nv[0], nv[2], -nv[1]], 1e-3): bad.append("light %d aims %s, want %s" % (i, d, nv))
    return bad


maps = 0
fails = 0
for path in sorted(glob.glob(os.path.join(corpus, "*.bsp"))):
    if os.path.basename(path).startswith("unusual_"): continue
    data = open(path, "rb").read()
    _, lump = lumps(data)
    if not lump(15) and not lump(54): continue
    maps += 1
    bad = check_map(path)
    print("%s %s" % ("FAIL" if bad else "ok", os.path.basename(path)))
    for b in bad[:8]: print("   ", b)
    fails += bool(bad)
print("%d maps with world lights, %d failed" % (maps, fails))
sys.exit(1 if fails or maps < 20 else 0)
