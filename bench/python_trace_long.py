"""Map.trace over the segments bench_trace_long writes (issue 41): the Python package's speed on
the same short / long / span segments, point and player box, beside bspkit's C figure for them,
and whether its fractions are the C ones (they call the same bk_query_trace).
usage: build/pyenv/bin/python bench/python_trace_long.py MAP.bsp [BENCH]   (BENCH: bench_trace_long)"""
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

import bspkit


def main():
    path = sys.argv[1]
    bench = sys.argv[2] if len(sys.argv) > 2 else "build/bench/bench_trace_long"
    with tempfile.TemporaryDirectory() as tmp:
        seg = os.path.join(tmp, "seg")
        c = subprocess.run([bench, "--n", "20000", "--segments", seg, path], check=True, capture_output=True, text=True)
        data = open(seg, "rb").read()
    print("C: " + " ".join(c.stdout.split()[2:]))
    m = bspkit.open(path)
    at, line = 0, []
    while at + 12 <= len(data):
        kind, box, n = np.frombuffer(data, "<u4", 3, at)
        at += 12
        rec = np.frombuffer(data, "<f4", 7 * int(n), at).reshape(-1, 7)
        at += 28 * int(n)
        kw = {"mins": (-16, -16, -24), "maxs": (16, 16, 32)} if box else {}
        m.trace(rec[:, :3], rec[:, 3:6], **kw)   # warm: the query is built at the first call
        best = 1e9
        for _ in range(3):
            t = time.process_time()
            r = m.trace(rec[:, :3], rec[:, 3:6], **kw)
            best = min(best, time.process_time() - t)
        same = int(np.sum(r["fraction"] == rec[:, 6]))
        line.append("%s%s %.3f M/s (%d/%d the C fractions)" % (("short", "long", "span")[kind], "-box" if box else "",
                                                               n / best / 1e6, same, n))
    print("Python: " + "; ".join(line))


if __name__ == "__main__":
    main()
