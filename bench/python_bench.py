"""The Python package's speed, as ratios measured in one run (bench/python_bench.sh runs it).

Times are CPU seconds of one thread (process_time; the CLI's from its rusage), so other jobs on
the machine change them less than wall time.

1. Traces: the same segments through Map.trace (one call, numpy in and out) and through the CLI's
   `bspkit trace --batch` (text in, JSON lines out), on the largest map of each family; traces/s
   of each and the ratio. Segments start at entity origins and random points in the map's bounds
   and run up to 512 units; point traces and player boxes.
2. Source: open + entities + static props of every Source map of the corpus, with bspkit and with
   srctools (pure Python; its path on PYTHONPATH, given by python_bench.sh), the median of 5 rounds
   each, run alternately.

usage: python3 python_bench.py CLI SHARED FETCHED [--quick]
"""
import glob
import os
import resource
import statistics
import subprocess
import sys
import time
import warnings

import numpy as np

import bspkit
from scale import entity_origins

CLI, SHARED, FETCHED = sys.argv[1:4]
QUICK = "--quick" in sys.argv
N_PY = 200_000 if QUICK else 1_000_000
N_CLI = 50_000 if QUICK else 200_000


def _child_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def segments(m, n, seed=5):
    rng = np.random.default_rng(seed)
    b = m.info.get("bounds")
    if not b:
        v = m.array("vertices") if "vertices" in m.arrays else m.array("verts")["xyz"]
        b = {"mins": v.min(0), "maxs": v.max(0)}
    lo, hi = np.asarray(b["mins"], np.float32), np.asarray(b["maxs"], np.float32)
    o = entity_origins(m)
    a = rng.uniform(lo, hi, (n, 3)).astype(np.float32)
    if len(o):
        k = n // 2
        a[:k] = o[rng.integers(0, len(o), k)] + rng.uniform(-8, 8, (k, 3)).astype(np.float32)
    d = rng.normal(size=(n, 3)).astype(np.float32)
    d /= np.linalg.norm(d, axis=1, keepdims=True)
    return a, (a + d * rng.uniform(16, 512, (n, 1)).astype(np.float32)).astype(np.float32)


def bench_traces(path, box):
    m = bspkit.open(path)
    a, b = segments(m, N_PY)
    kw = {"mins": (-16, -16, -24), "maxs": (16, 16, 32)} if box else {}
    m.trace(a[:1000], b[:1000], **kw)  # warm (query built once)
    t = time.process_time()
    r = m.trace(a, b, **kw)
    py = N_PY / (time.process_time() - t)
    # the CLI on the first N_CLI of the same segments, as a script would feed it
    text = "".join("%.9g %.9g %.9g %.9g %.9g %.9g\n" % (tuple(x) + tuple(y)) for x, y in zip(a[:N_CLI], b[:N_CLI]))
    args = [CLI, "trace", path, "--batch"]
    if box:
        args += ["--mins", "-16", "-16", "-24", "--maxs", "16", "16", "32"]
    t = _child_cpu()
    out = subprocess.run(args, input=text.encode(), capture_output=True, check=True).stdout
    cli = N_CLI / (_child_cpu() - t)
    # the same answers (fraction of the first lines)
    first = [float(l.split(b'"fraction":')[1].split(b",")[0]) for l in out.splitlines()[:200]]
    assert np.allclose(first, r["fraction"][:200], atol=1e-6), "CLI and package disagree"
    hit = float((r["fraction"] < 1).mean())
    return py, cli, hit


def source_round(paths, srctools_bsp):
    t, w = time.process_time(), time.perf_counter()
    n_ent = n_prop = 0
    if srctools_bsp is None:
        for p in paths:
            m = bspkit.open(p)
            n_ent += len(m.entities)
            n_prop += len(m.static_props)
            m.close()
    else:
        for p in paths:
            b = srctools_bsp.BSP(p)
            n_ent += len(list(b.ents.entities))
            n_prop += len(list(b.props))
    return time.process_time() - t, time.perf_counter() - w, n_ent, n_prop


def main():
    warnings.simplefilter("ignore")  # the maps' own warnings are not the subject here
    maps = sorted(glob.glob(os.path.join(SHARED, "corpus", "*", "*.bsp"))) + \
        sorted(glob.glob(os.path.join(FETCHED, "q3", "*", "*.bsp")))
    readable = []
    for p in maps:
        try:
            m = bspkit.open(p)
            if m.format != "wad3":
                readable.append((m.format, os.path.getsize(p), p))
            m.close()
        except bspkit.Error:
            pass
    largest = {}
    for fmt, size, p in readable:
        fam = {"bsp2": "quake1"}.get(fmt, fmt)
        if size > largest.get(fam, (0, ""))[0]:
            largest[fam] = (size, p)
    print("## Traces: Map.trace against `bspkit trace --batch`, the same segments "
          "(package: %d per map in one call; CLI: the first %d)\n" % (N_PY, N_CLI))
    print("| map | trace | package traces/s | CLI traces/s | package / CLI | hit |")
    print("|---|---|---|---|---|---|")
    for fam in ("goldsrc", "quake1", "quake3", "source"):
        if fam not in largest:
            continue
        p = largest[fam][1]
        for box in (False, True):
            py, cli, hit = bench_traces(p, box)
            print("| %s %s | %s | %.2f M | %.2f M | **x%.1f** | %.0f%% |" % (
                fam, os.path.basename(p), "player box" if box else "point", py / 1e6, cli / 1e6, py / cli, 100 * hit))
    src = [p for fmt, _, p in readable if fmt == "source"]
    try:
        import srctools.bsp as sb  # noqa: F401
    except Exception as e:  # noqa: BLE001
        print("\nsrctools not importable (%s): Source comparison skipped" % e)
        return
    ok = []
    for p in src:  # the maps both read
        try:
            b = sb.BSP(p)
            list(b.ents.entities), list(b.props)
            ok.append(p)
        except Exception as e:  # noqa: BLE001
            print("srctools cannot read %s: %s" % (os.path.basename(p), str(e).splitlines()[0][:100]), file=sys.stderr)
    rounds = 1 if QUICK else 5
    tbs, tss, wbs, wss = [], [], [], []
    for _ in range(rounds):
        tb, wb, ne, npr = source_round(ok, None)
        ts, ws, ne2, npr2 = source_round(ok, sb)
        tbs.append(tb), tss.append(ts), wbs.append(wb), wss.append(ws)
    best_b, best_s = statistics.median(tbs), statistics.median(tss)
    wall_b, wall_s = statistics.median(wbs), statistics.median(wss)
    mb = sum(os.path.getsize(p) for p in ok) / 1e6
    print("\n## Source: open + entities + static props, %d maps (%.0f MB) both read, median of %d\n" % (
        len(ok), mb, rounds))
    print("| | CPU seconds | wall seconds | maps/s (CPU) | entities | static props |")
    print("|---|---|---|---|---|---|")
    print("| bspkit (Python package) | %.3f | %.3f | %.0f | %d | %d |" % (best_b, wall_b, len(ok) / best_b, ne, npr))
    print("| srctools (pure Python) | %.3f | %.3f | %.1f | %d | %d |" % (best_s, wall_s, len(ok) / best_s, ne2, npr2))
    plain = [p for p in ok if bspkit.open(p).lumps[0].compressed is False and not any(l.compressed for l in bspkit.open(p).lumps)]
    pb = statistics.median(source_round(plain, None)[0] for _ in range(rounds))
    ps = statistics.median(source_round(plain, sb)[0] for _ in range(rounds))
    print("| the %d maps without LZMA lumps: bspkit / srctools CPU s | %.3f / %.3f (x%.1f) | | | | |" % (
        len(plain), pb, ps, ps / pb))
    print("\nbspkit: **x%.1f** srctools' speed in CPU time (both threads of the library's LZMA decoding "
          "counted), x%.1f in wall time" % (best_s / best_b, wall_s / wall_b))


if __name__ == "__main__":
    main()
