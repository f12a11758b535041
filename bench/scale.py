"""An archive at scale with the Python package: every map converted to .glb and queried
(10,000 traces from its entity origins), one file per task, on a local Dask cluster (Debian's
python3-dask / python3-distributed), against the same work in one process. bench/scale.sh runs it
beside GNU parallel over the CLI; docs/dev/scale.md has the figures.

usage: python3 scale.py OUTDIR WORKERS MAP...
       python3 scale.py --segments OUTDIR MAP...   (the same segments as text for the CLI)
"""
import os
import sys
import time


def entity_origins(m):
    """The entities' "origin" values that are three numbers, as an (N, 3) float32 array."""
    import numpy as np
    out = []
    for e in m.entities:
        o = e.get("origin", "").split()
        if len(o) == 3:
            try:
                out.append([float(x) for x in o])
            except ValueError:
                pass
    return np.array(out, np.float32).reshape(-1, 3)


def segments(m, n=10_000):
    """n segments from entity origins, 256 units each way at random (the same for a map every run)."""
    import numpy as np
    o = entity_origins(m)
    if not len(o):
        return o, o
    rng = np.random.default_rng(0)
    a = o[rng.integers(0, len(o), n)]
    return a, a + rng.normal(size=a.shape).astype(np.float32) * 256


def write_segments(outdir, maps):
    """For the CLI: each map's segments as the lines `bspkit trace --batch` reads."""
    import warnings

    import bspkit
    warnings.simplefilter("ignore")
    for p in maps:
        try:
            a, b = segments(bspkit.open(p))
        except bspkit.Error:
            continue
        with open(os.path.join(outdir, os.path.basename(p) + ".txt"), "w") as f:
            f.writelines("%.9g %.9g %.9g %.9g %.9g %.9g\n" % (tuple(x) + tuple(y)) for x, y in zip(a, b))


def one_map(path, outdir):
    """The unit of work: one file in, a .glb and a summary out (nothing shared between tasks)."""
    import warnings

    import bspkit
    warnings.simplefilter("ignore", bspkit.Warning)
    t = time.perf_counter()
    try:
        m = bspkit.open(path)
    except bspkit.Error as e:
        return {"map": path, "error": str(e)}
    out = os.path.join(outdir, os.path.basename(path).rsplit(".", 1)[0] + ".glb")
    m.to_gltf(out)
    a, b = segments(m)
    hits = int((m.trace(a, b)["fraction"] < 1).sum()) if len(a) else 0
    import hashlib
    digest = hashlib.sha256(open(out, "rb").read()).hexdigest()
    return {"map": path, "glb_bytes": os.path.getsize(out), "sha256": digest, "entities": len(m.entities), "hits": hits,
            "seconds": time.perf_counter() - t}


def main():
    if sys.argv[1] == "--segments":
        return write_segments(sys.argv[2], sys.argv[3:])
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
    assert [r.get("sha256") for r in results] == [r.get("sha256") for r in serial]  # the same bytes
    mb = sum(os.path.getsize(p) for p in maps) / 1e6
    print("maps %d (%.0f MB), converted %d, refused %d, traces %d" % (
        len(maps), mb, len(ok), len(maps) - len(ok), 10_000 * sum(1 for r in ok if r["hits"])))
    print("one process, serial: %.1f s" % t_serial)
    print("dask LocalCluster, %d workers: %.1f s (x%.2f)" % (workers, t_dask, t_serial / t_dask))


if __name__ == "__main__":
    main()
