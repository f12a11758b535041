#!/usr/bin/python3
"""`convert --collision` on real maps: the glTF passes through this check's own reader (JSON + the
binary buffer); every collision node sits under the node 'collision', is named by its contents and
carries extras; and the pieces are where the engine's collision is: a ray straight down from each
player spawn onto the exported collision triangles meets the floor where `bspkit trace` (a point,
solid mask) stops, within 2 units, for at least 90% of the spawns of each family.

usage: collision_check.py BSPKIT WORKDIR MAP...   (prints 'N passed, M failed')"""
import json, os, struct, subprocess, sys
import numpy as np

bk, work, maps = sys.argv[1], sys.argv[2], sys.argv[3:]
os.makedirs(work, exist_ok=True)
passed = failed = 0
def check(ok, what):
    global passed, failed
    if ok: passed += 1
    else: failed += 1; print("FAIL:", what, file=sys.stderr)

SPAWN = ("info_player_start", "info_player_deathmatch", "info_player_terrorist", "info_player_counterterrorist",
         "info_player_teamspawn", "info_team_start", "team_CTF_redplayer", "team_CTF_blueplayer")
CT = {5126: "f", 5125: "I", 5123: "H", 5121: "B"}
NC = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4}

def accessor(g, binb, i):
    a = g["accessors"][i]; v = g["bufferViews"][a["bufferView"]]
    n = a["count"] * NC[a["type"]]; fmt = CT[a["componentType"]]
    off = v.get("byteOffset", 0) + a.get("byteOffset", 0)
    return np.frombuffer(binb, dtype=np.dtype(fmt).newbyteorder("<"), count=n, offset=off).reshape(a["count"], NC[a["type"]])

def raycast_down(tris, x, y, z):
    a, b, c = tris
    # barycentric test in XY, then the plane's z
    v0 = c[:, :2] - a[:, :2]; v1 = b[:, :2] - a[:, :2]; v2 = np.array([x, y]) - a[:, :2]
    d00 = (v0 * v0).sum(1); d01 = (v0 * v1).sum(1); d11 = (v1 * v1).sum(1); d20 = (v2 * v0).sum(1); d21 = (v2 * v1).sum(1)
    den = d00 * d11 - d01 * d01
    ok = np.abs(den) > 1e-9
    den = np.where(ok, den, 1)
    u = (d11 * d20 - d01 * d21) / den; v = (d00 * d21 - d01 * d20) / den
    inside = ok & (u >= -1e-6) & (v >= -1e-6) & (u + v <= 1 + 1e-6)
    zz = a[:, 2] + u * (c[:, 2] - a[:, 2]) + v * (b[:, 2] - a[:, 2])
    below = inside & (zz <= z + 0.01)
    return zz[below].max() if below.any() else None

fam_stats = {}
for path in maps:
    name = os.path.basename(path)[:-4]
    out = os.path.join(work, name + ".gltf")
    r = subprocess.run([bk, "convert", path, "-o", out, "--collision", "--keep-z-up", "--scale", "1", "--no-textures",
                        "--no-lightmaps", "-q"], capture_output=True, text=True)
    check(r.returncode == 0, "%s: convert --collision: %s" % (name, r.stderr[:200]))
    if r.returncode: continue
    g = json.load(open(out)); binb = open(os.path.join(work, g["buffers"][0]["uri"]), "rb").read()
    nodes = g["nodes"]
    parents = [i for i, n in enumerate(nodes) if n.get("name") == "collision"]
    check(len(parents) == 1, "%s: one 'collision' node" % name)
    if not parents: continue
    kids = nodes[parents[0]].get("children", [])
    check(len(kids) > 0, "%s: collision pieces under it" % name)
    good = all(nodes[k].get("name", "").startswith("collision_") and nodes[k].get("extras", {}).get("collision") == "true"
               and nodes[k].get("extras", {}).get("contents") for k in kids)
    check(good, "%s: every piece is named collision_<contents>_N with extras" % name)
    A, B, C = [], [], []
    for k in kids:
        n = nodes[k]
        if "solid" not in n["extras"]["contents"].split("|"): continue
        for pr in g["meshes"][n["mesh"]]["primitives"]:
            pos = accessor(g, binb, pr["attributes"]["POSITION"]); idx = accessor(g, binb, pr["indices"]).reshape(-1)
            t = pos[idx].reshape(-1, 3, 3)
            A.append(t[:, 0]); B.append(t[:, 1]); C.append(t[:, 2])
    if not A: continue
    tris = (np.concatenate(A).astype(np.float64), np.concatenate(B).astype(np.float64), np.concatenate(C).astype(np.float64))
    ents = [dict(e) for e in json.loads(subprocess.run([bk, "entities", "--json", path], capture_output=True, text=True).stdout or "[]")]
    spawns = []
    for e in ents:
        if e.get("classname") in SPAWN:
            try: spawns.append([float(v) for v in e["origin"].split()])
            except (KeyError, ValueError): pass
    if not spawns: continue
    lines = "".join("%g %g %g %g %g %g\n" % (o[0], o[1], o[2] + 1, o[0], o[1], o[2] - 2048) for o in spawns)
    res = [json.loads(l) for l in subprocess.run([bk, "trace", path, "--batch", "--mask", "solid"], input=lines,
                                                 capture_output=True, text=True).stdout.splitlines()]
    fam = "q3" if open(path, "rb").read(4) == b"IBSP" else "source" if open(path, "rb").read(4) == b"VBSP" else "quake"
    agree = total = 0
    for o, t in zip(spawns, res):
        if t["fraction"] >= 1 or t["startsolid"]: continue
        z = raycast_down(tris, o[0], o[1], o[2] + 1)
        total += 1
        if z is not None and abs(z - t["endpos"][2]) <= 2.0: agree += 1
    s = fam_stats.setdefault(fam, [0, 0]); s[0] += agree; s[1] += total
    print("%-40s %-6s pieces %5d  spawn floors agree %d/%d" % (name, fam, len(kids), agree, total))
for fam, (a, t) in fam_stats.items():
    if t: check(a >= 0.9 * t, "%s: collision floors agree with traces on %d of %d spawns" % (fam, a, t))
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
