"""An archive at scale with the Python package: every map converted to .glb and queried
(10,000 traces from its entity origins), one file per task, on a local Dask cluster (Debian's
python3-dask / python3-distributed), against the same work in one process. bench/scale.sh runs it
beside GNU parallel over the CLI; docs/scale.md has the figures.

usage: python3 scale.py OUTDIR WORKERS MAP...
"""
import os
import sys
import time


def one_map(path, outdir):
    """The unit of work: one file in, a .glb and a summary out (nothing shared between tasks)."""
    import warnings

    import numpy as np

    import bspkit
    warnings.simplefilter("ignore", bspkit.Warning)
    t = time.perf_counter()
    try:
        m = bspkit.open(path)
    except bspkit.Error as e:
        return {"map": path, "error": str(e)}
    out = os.path.join(outdir, os.path.basename(path).rsplit(".", 1)[0] + ".glb")
    m.to_gltf(out)
    origins = []
    for e in m.entities:
        o = e.get("origin", "").split()
        if len(o) == 3:
            try:
                origins.append([float(x) for x in o])
            except ValueError:
                pass
    hits = 0
    if origins:
        rng = np.random.default_rng(0)
        a = np.array(origins, np.float32)[rng.integers(0, len(origins), 10_000)]
        d = rng.normal(size=a.shape).astype(np.float32) * 256
        hits = int((m.trace(a, a + d)["fraction"] < 1).sum())
    return {"map": path, "glb_bytes": os.path.getsize(out), "entities": len(m.entities), "hits": hits,
            "seconds": time.perf_counter() - t}


def main():
    outdir, workers, maps = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
    os.makedirs(outdir, exist_ok=True)
    t = time.perf_counter()
    serial = [one_map(p, outdir) for p in maps]
    t_serial = time.perf_counter() - t

    import dask.bag as db
    from dask.distributed import Client, LocalCluster
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        client.run(lambda: __import__("bspkit"))  # import once per worker, outside the timing
        t = time.perf_counter()
        bag = db.from_sequence(maps, npartitions=len(maps)).map(one_map, outdir)
        results = bag.compute()
        t_dask = time.perf_counter() - t
    ok = [r for r in results if "error" not in r]
    assert [r["map"] for r in results] == maps
    assert [r.get("glb_bytes") for r in results] == [r.get("glb_bytes") for r in serial]
    mb = sum(os.path.getsize(p) for p in maps) / 1e6
    print("maps %d (%.0f MB), converted %d, refused %d, traces %d" % (
        len(maps), mb, len(ok), len(maps) - len(ok), 10_000 * sum(1 for r in ok if r["hits"] or r["entities"])))
    print("one process, serial: %.1f s" % t_serial)
    print("dask LocalCluster, %d workers: %.1f s (x%.2f)" % (workers, t_dask, t_serial / t_dask))


if __name__ == "__main__":
    main()
