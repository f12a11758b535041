#!/usr/bin/env python3
"""Independent PVS / PAS decoder for Quake 1 / BSP2 / GoldSrc maps, checked against the CLI.

usage: pvs.py BSPKIT MAP...  -> compares `bspkit query MAP --pvs C --json` (and --pas) for a spread
of clusters with rows decoded here from the raw lumps; exits 1 on any difference."""
import json, struct, subprocess, sys



def check(cli, path):
    """print what differs; the number of differences"""
    data = open(path, "rb").read()
    magic = data[:4]
    if magic in (b"BSP2", b"2PSB"):
        leaf_size = 44 if magic == b"BSP2" else 32
    else:
        leaf_size = 28
    lumps = [struct.unpack_from("<ii", data, 4 + 8 * i) for i in range(15)]
    if struct.unpack_from("<i", data, 0)[0] == 30:
        # Blue Shift swaps the first two header entries
        t0 = data[lumps[0][0]:lumps[0][0] + lumps[0][1]].lstrip()
        if not t0.startswith(b"{") and lumps[0][1] % 20 == 0:
            lumps[0], lumps[1] = lumps[1], lumps[0]
    vis_ofs, vis_len = lumps[4]
    vis = data[vis_ofs:vis_ofs + vis_len]
    leaf_ofs, leaf_len = lumps[10]
    nleafs = leaf_len // leaf_size
    visofs = [struct.unpack_from("<i", data, leaf_ofs + i * leaf_size + 4)[0] for i in range(nleafs)]
    visleafs = struct.unpack_from("<i", data, lumps[14][0] + 52)[0]
    if vis_len == 0 or visleafs <= 0:
        print("SKIP: %s has no visibility" % path)
        return 0
    rowbytes = (visleafs + 7) // 8


    def row(leaf):
        """the set of clusters (leaf - 1) in leaf's PVS"""
        o = visofs[leaf]
        if o < 0:
            return set(range(visleafs))
        out = bytearray()
        i = o
        while len(out) < rowbytes:
            if i >= len(vis):
                return set(range(visleafs))   # truncated: the engines' all-visible fallback
            b = vis[i]
            if b:
                out.append(b)
                i += 1
            else:
                if i + 1 >= len(vis):
                    return set(range(visleafs))
                out.extend(b"\0" * vis[i + 1])
                i += 2
        return {c for c in range(visleafs) if out[c >> 3] >> (c & 7) & 1}


    def ask(kind, c):
        r = subprocess.run([cli, "query", path, "--" + kind, str(c), "--json"], capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError("%s --%s %d failed: %s" % (path, kind, c, r.stderr))
        j = json.loads(r.stdout)
        got = set(j["visible"])
        assert j["count"] == len(got) and all(0 <= c < visleafs for c in got), (j["count"], visleafs)
        return got


    bad = 0
    step = max(1, visleafs // 12)
    clusters = list(range(0, visleafs, step))[:12] + [visleafs - 1]
    for c in clusters:
        pvs = row(c + 1)
        got = ask("pvs", c)
        if got != pvs:
            bad += 1
            print("%s: PVS of cluster %d differs: %d here, %d from bspkit" % (path, c, len(pvs), len(got)))
        pas = set()
        for v in pvs:
            pas |= row(v + 1)
        got = ask("pas", c)
        if got != pas:
            bad += 1
            print("%s: PAS of cluster %d differs: %d here, %d from bspkit" % (path, c, len(pas), len(got)))
    print("%s: %d clusters of %d compared, %d differences" % (path, len(clusters), visleafs, bad))
    return bad


if __name__ == "__main__":
    # BSPKIT MAP...: a line "PASS|FAIL MAP" per map after its details; exit 1 on any difference
    total = 0
    for path in sys.argv[2:]:
        try:
            bad = check(sys.argv[1], path)
        except Exception as e:   # a failed query or an unreadable map: that map fails
            print("%s: %s" % (path, e))
            bad = 1
        print("%s %s" % ("FAIL" if bad else "PASS", path))
        total += bad
    sys.exit(1 if total else 0)
