#!/usr/bin/python3
"""Checks bspkit's queries on real maps against independent code written here.

usage: query_check.py BSPKIT WORKDIR MAP...

For every map:
  * spawns: every player-spawn entity lies in a non-solid leaf whose bounds hold it and whose
    PVS is not empty, and a trace straight down from it hits a floor within 1024 units;
  * PVS: every cluster's row printed by `bspkit query --pvs all` equals the row decoded here
    from the file's own bytes (GoldSrc / Quake 1 run-length rows over leaves, Quake 3 bit rows,
    Source run-length rows; Source maps with a compressed visibility lump are decoded with lzma);
  * traces: point traces from entity origins towards other entity origins and in random
    directions agree with a ray cast (Moller-Trumbore, numpy) against the world triangles
    bspkit exports as OBJ, leaving out liquids, sky and tool faces: both miss, or both hit
    within 2 units; the share that agrees must be at least 75% (median 97%; what is left is drawn
    geometry the engines do not collide with, such as baked misc_model triangles, and solid
    faces that are not drawn, which this test cannot tell apart).
Prints one line per map and 'N passed, M failed' at the end."""
import json, lzma, os, random, re, struct, subprocess, sys
import numpy as np

bk, work, maps = sys.argv[1], sys.argv[2], sys.argv[3:]
os.makedirs(work, exist_ok=True)
passed = failed = 0

def check(ok, what):
    global passed, failed
    if ok: passed += 1
    else:
        failed += 1
        print("FAIL:", what, file=sys.stderr)

def run(args, stdin=None):
    r = subprocess.run([bk] + args, input=stdin, capture_output=True, text=True)
    if r.returncode >= 128 or r.returncode < 0:
        raise RuntimeError("bspkit crashed: %s" % args)
    return r

SPAWN = ("info_player_start", "info_player_deathmatch", "info_player_terrorist", "info_player_counterterrorist",
         "info_player_teamspawn", "info_team_start", "team_CTF_redplayer", "team_CTF_blueplayer",
         "team_CTF_redspawn", "team_CTF_bluespawn", "info_player_axis", "info_player_allies",
         "info_player_rebel", "info_player_combine", "info_survivor_position", "info_player_team1", "info_player_team2")

# ---- independent visibility decoders ----------------------------------------------------------
def rle_row(vis, ofs, nbytes):
    row = bytearray(nbytes); out = 0; p = ofs
    while out < nbytes:
        b = vis[p]
        if b:
            row[out] = b; out += 1; p += 1
        else:
            out += vis[p + 1]; p += 2
    return row

def rows_quake(data):
    version = struct.unpack_from("<i", data, 0)[0]
    if version not in (29, 30): return None          # BSP2 leaves differ: not decoded here
    lump = lambda i: struct.unpack_from("<ii", data, 4 + 8 * i)
    vofs, vlen = lump(4); lofs, llen = lump(10); mofs, mlen = lump(14)
    vis = data[vofs:vofs + vlen]
    visleafs = struct.unpack_from("<i", data, mofs + 52)[0]
    if not vlen or visleafs <= 0: return {}
    nbytes = (visleafs + 7) // 8
    rows = {}
    for leaf in range(1, visleafs + 1):
        visofs = struct.unpack_from("<i", data, lofs + 28 * leaf + 4)[0]
        if visofs < 0: continue
        row = rle_row(vis, visofs, nbytes)
        if visleafs & 7: row[-1] &= (1 << (visleafs & 7)) - 1
        rows[leaf - 1] = row
    return rows

def rows_q3(data):
    vofs, vlen = struct.unpack_from("<ii", data, 8 + 8 * 16)
    if vlen < 8: return {}
    n, sz = struct.unpack_from("<ii", data, vofs)
    nbytes = (n + 7) // 8
    rows = {}
    for c in range(n):
        row = bytearray(data[vofs + 8 + c * sz: vofs + 8 + c * sz + nbytes])
        if n & 7: row[-1] &= (1 << (n & 7)) - 1
        rows[c] = row
    return rows

def source_lump(data, i):
    version = struct.unpack_from("<i", data, 4)[0]
    a, b, c, d = struct.unpack_from("<iiii", data, 8 + 16 * i)
    ofs, ln = (a, b)
    # L4D2's v21 stores {version, offset, length, fourCC}: the offset is the field that fits
    if version == 21 and not (0 < a <= len(data) and 0 <= b <= len(data) - a) and 0 <= b <= len(data):
        ofs, ln = b, c
    raw = data[ofs:ofs + ln]
    if raw[:4] == b"LZMA":
        actual, lzsize = struct.unpack_from("<II", raw, 4)
        props = raw[12:17]
        dec = lzma.LZMADecompressor(lzma.FORMAT_RAW, filters=[lzma._decode_filter_properties(lzma.FILTER_LZMA1, props)])
        raw = dec.decompress(raw[17:17 + lzsize], max_length=actual)
    return raw

def rows_source(data):
    vis = source_lump(data, 4)
    if len(vis) < 4: return {}
    n = struct.unpack_from("<i", vis, 0)[0]
    nbytes = (n + 7) // 8
    rows = {}
    for c in range(n):
        ofs = struct.unpack_from("<i", vis, 4 + 8 * c)[0]
        row = rle_row(vis, ofs, nbytes)
        if n & 7: row[-1] &= (1 << (n & 7)) - 1
        rows[c] = row
    return rows

# ---- world triangles from bspkit's OBJ (engine units, Z up) ----------------------------------
SKIP_MAT = ("sky", "clip", "trigger", "origin", "null", "skip", "hint", "nodraw", "water", "slime", "lava",
            "fog", "liquid", "tools", "common/", "caulk", "flare", "decal", "ladder",
            "invisible", "areaportal", "blocklight", "!", "*", "{", "mirror", "portal", "beam", "light")

def sanitize(name):
    return re.sub(r"[^A-Za-z0-9]", "_", name).lower()

def q3_shader_sets(data):
    """Quake 3: which shaders are solid (contents & 1, not surfaceparm nonsolid) and which are sky."""
    sofs, slen = struct.unpack_from("<ii", data, 8 + 8 * 1)
    solid, sky = set(), set()
    for i in range(slen // 72):
        name = data[sofs + 72 * i: sofs + 72 * i + 64].split(b"\0")[0].decode("latin-1")
        sf, cf = struct.unpack_from("<ii", data, sofs + 72 * i + 64)
        if sf & 0x4: sky.add(sanitize(name))
        # models/...: misc_model triangle soups baked into the map; the engine collides with
        # the clip brushes the compiler made for them, not with their triangles
        elif cf & 1 and not sf & 0x4000 and not name.lower().startswith("models/"): solid.add(sanitize(name))
    return solid, sky

def world_tris(path, objpath, q3sets=None):
    r = run(["convert", path, "-o", objpath, "--keep-z-up", "--scale", "1", "--no-textures", "--no-lightmaps",
             "--no-props", "--skip-flares"])
    if r.returncode: return None
    verts = []; tris = []; skytris = []; cur_world = False; skip = False; sky = False; drawn = set()
    with open(objpath) as fh:
        for line in fh:
            c = line[:2]    # (the first two characters: cheaper than a startswith per kind)
            if c == "v ":
                verts.append([float(x) for x in line.split()[1:4]])
            elif c == "o ":
                name = line[2:].strip()
                cur_world = name in ("worldspawn", "world", "model_0") or name.startswith("worldspawn")
            elif c == "us" and line.startswith("usemtl"):
                m = line.split(None, 1)[1].strip().lower()
                m = m.split("_", 1)[1] if "_" in m and m.startswith("m") else m
                drawn.add(m)
                if q3sets:
                    skip = m not in q3sets[0]; sky = m in q3sets[1]
                else:
                    skip = any(s in m for s in SKIP_MAT)
                    sky = "sky" in m
            elif c == "f " and cur_world and (sky or not skip):
                idx = [int(t.split("/")[0]) - 1 for t in line.split()[1:]]
                for k in range(1, len(idx) - 1):
                    (skytris if sky else tris).append((idx[0], idx[k], idx[k + 1]))
    v = np.array(verts, dtype=np.float64)
    def arr(tt):   # each triangle as a corner and its two edges from it, columns apart
        t = np.array(tt, dtype=np.int64).reshape(-1, 3)
        a = v[t[:, 0]]
        return [a.T.copy(), (v[t[:, 1]] - a).T.copy(), (v[t[:, 2]] - a).T.copy()]
    return arr(tris), arr(skytris), drawn

# np.cross and .sum(1) over x, y, z, written out in their order of operations (the same numbers,
# without their per-call overhead): vectors are 3 columns (or 3 numbers)
def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])

def dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]

def raycast(tri, o, d):
    a, e1, e2 = tri
    p = cross(d, e2)
    det = dot(e1, p)
    ok = np.abs(det) > 1e-9
    inv = np.where(ok, 1.0 / np.where(ok, det, 1), 0)
    s = (o[0] - a[0], o[1] - a[1], o[2] - a[2])
    u = dot(s, p) * inv
    q = cross(s, e1)
    v = dot(q, d) * inv
    t = dot(e2, q) * inv
    hit = ok & (u >= -1e-7) & (v >= -1e-7) & (u + v <= 1 + 1e-7) & (t > 1e-6) & (t <= 1)
    return t[hit].min() if hit.any() else None

for path in maps:
    name = os.path.basename(path)
    data = open(path, "rb").read()
    magic = data[:4]
    fam = "q3" if magic == b"IBSP" else "source" if magic == b"VBSP" else "quake"
    ents = [dict(e) for e in json.loads(run(["entities", "--json", path]).stdout or "[]")]
    origins = []
    for e in ents:
        try:
            o = [float(x) for x in e.get("origin", "").split()]
            if len(o) == 3: origins.append((e.get("classname", ""), o))
        except ValueError:
            pass
    # -- spawns
    spawns = [o for c, o in origins if c in SPAWN]
    nsp = 0
    if spawns:
        lines = "".join("%g %g %g\n" % (o[0], o[1], o[2] + (1 if fam == "q3" else 0)) for o in spawns)
        out = [json.loads(l) for l in run(["query", path, "--batch"], lines).stdout.splitlines()]
        tl = "".join("%g %g %g %g %g %g\n" % (o[0], o[1], o[2] + 1, o[0], o[1], o[2] - 1024) for o in spawns)
        tr = [json.loads(l) for l in run(["trace", path, "--batch"], tl).stdout.splitlines()]
        nmodels = int(json.loads(run(["info", "--json", path]).stdout)["counts"].get("models", 1))
        # no world floor: a spawn may stand on a brush entity (Ricochet's discs, lifts): the first
        # model, in order, that the same trace hits (each model traced once for all such spawns)
        floorless = [i for i, t in enumerate(tr) if t["fraction"] >= 1]
        for mdl in range(1, min(nmodels, 512)):
            if not floorless: break
            fl = "".join("%g %g %g %g %g %g\n" % (o[0], o[1], o[2] + 1, o[0], o[1], o[2] - 1024)
                         for o in (spawns[i] for i in floorless))
            res = [json.loads(l) for l in run(["trace", path, "--batch", "--model", str(mdl)], fl).stdout.splitlines()]
            if len(res) != len(floorless): continue
            for i, r2 in zip(floorless, res):
                if "error" not in r2 and r2["fraction"] < 1: tr[i] = r2
            floorless = [i for i in floorless if tr[i]["fraction"] >= 1]
        props = []
        if fam == "source":
            pj = json.loads(run(["props", path, "--json"]).stdout or "{}")
            props = [p["origin"] for p in (pj.get("static_props") or [])]
        for i, o in enumerate(spawns):
            # a spawn placed a little into the floor is lifted out by the engines (Quake 3 by 9
            # units): accept the first non-solid point up to 16 units above
            if "solid" in out[i]["contents"].split("|"):
                for dz in (1, 2, 4, 8, 9, 12, 16):
                    p2 = json.loads(run(["query", path, "--json", "--point", "%g" % o[0], "%g" % o[1], "%g" % (o[2] + dz)]).stdout)
                    if "solid" not in p2["contents"].split("|"):
                        out[i] = p2; o[2] += dz; break
            # a spawn standing on a static prop (Ricochet's discs) has no brush floor
            if tr[i]["fraction"] >= 1 and any(abs(p[0] - o[0]) < 128 and abs(p[1] - o[1]) < 128 and p[2] < o[2] for p in props):
                tr[i] = dict(tr[i], fraction=0.0, on_prop=True)
        for o, p, t in zip(spawns, out, tr):
            inside = all(p["leaf_mins"][k] - 1 <= o[k] <= p["leaf_maxs"][k] + 1 for k in range(3))
            good = ("solid" not in p["contents"].split("|")) and inside and p["visible_leaves"] > 0
            check(good, "%s: spawn %s: %s" % (name, o, p))
            check(t["fraction"] < 1 and not t["allsolid"], "%s: no floor under spawn %s: %s" % (name, o, t))
            nsp += 1
    # -- PVS rows
    indep = rows_quake(data) if fam == "quake" else rows_q3(data) if fam == "q3" else rows_source(data)
    nrows = 0
    if indep:
        got = {}
        for l in run(["query", path, "--pvs", "all", "--json"]).stdout.splitlines():
            j = json.loads(l)
            got[j["cluster"]] = set(j["visible"])
        bad = 0
        for c, row in indep.items():
            want = set(np.flatnonzero(np.unpackbits(np.frombuffer(bytes(row), dtype=np.uint8), bitorder="little")).tolist())
            if got.get(c) != want: bad += 1
        nrows = len(indep)
        check(bad == 0, "%s: %d of %d PVS rows differ from the independent decoding" % (name, bad, len(indep)))
    # -- traces against the exported triangles
    tri = world_tris(path, os.path.join(work, name + ".obj"), q3_shader_sets(data) if fam == "q3" else None)
    agree = total = 0
    if tri is not None and tri[0][0].shape[1] and len(origins) >= 2:
        tri, skytri, drawn = tri
        rnd = random.Random(name)
        segs = []
        pts = [o for _, o in origins]
        for _ in range(300):
            a = rnd.choice(pts)
            if rnd.random() < 0.5:
                b = rnd.choice(pts)
            else:
                d = [rnd.uniform(-1, 1) for _ in range(3)]
                n = sum(x * x for x in d) ** 0.5 or 1
                b = [a[k] + 768 * d[k] / n for k in range(3)]
            if a != b: segs.append((a, b))
        # leave out starts inside solid (entity origins can sit in walls)
        pl = "".join("%g %g %g\n" % tuple(a) for a, _ in segs)
        pinfo = [json.loads(l) for l in run(["query", path, "--batch"], pl).stdout.splitlines()]
        tl = "".join("%g %g %g %g %g %g\n" % (*a, *b) for a, b in segs)
        res = [json.loads(l) for l in run(["trace", path, "--batch", "--mask", "solid"], tl).stdout.splitlines()]
        for (a, b), p, r in zip(segs, pinfo, res):
            if "solid" in p.get("contents", "solid").split("|") or r["startsolid"]: continue
            o = np.array(a, dtype=np.float64); d = np.array(b, dtype=np.float64) - o
            L = float(np.linalg.norm(d))
            t = raycast(tri, o, d)
            ts = raycast(skytri, o, d) if skytri[0].shape[1] else None
            f = r["fraction"]
            if f * L < 1: continue          # starts on a surface: either answer is right
            if t is not None and (1 - t) * L <= 2: t = None   # ends on a surface
            total += 1
            # the sky is not solid to a point, but the void right behind it is: a ray that meets
            # the sky first agrees with a trace that stops at or beyond it
            if ts is not None and (t is None or ts < t) and f * L >= ts * L - 2: agree += 1
            elif f < 1 and (t is None or f < t) and r.get("surface_name") and \
                    sanitize(r["surface_name"]) not in drawn:
                agree += 1    # stopped by a solid face that is not drawn (clip, caulk, invisible walls)
            elif t is None and f < 1 and any(k in (r.get("surface_name") or "").lower() for k in
                                             ("sky", "tools/", "common/", "clip", "nodraw", "invisible", "trigger")):
                agree += 1    # stopped by a face that is not drawn (sky, tool textures)
            elif t is None and f >= 1: agree += 1
            elif t is not None and r["fraction"] < 1 and abs(t - r["fraction"]) * L <= 2.0: agree += 1
            elif os.environ.get("QC_DEBUG"): print("  differ", a, b, "raycast", t and t * L, "trace", r["fraction"] * L, r["contents"], r["plane"])
        if total >= 20:
            check(agree >= 0.75 * total, "%s: traces agree with the triangle ray cast on %d of %d" % (name, agree, total))
    print("%-45s %-6s spawns %3d  pvs rows %5d  traces agree %d/%d" % (name, fam, nsp, nrows, agree, total))

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
