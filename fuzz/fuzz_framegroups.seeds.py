#!/usr/bin/env python3
"""Seeds for fuzz_framegroups: each fetched DPM model's .framegroups behind a two-byte frame count
(fuzz/run.sh runs this with the seeds folder as argument)."""
import glob, os, sys

out = sys.argv[1]
corpus = os.environ.get("BSPKIT_CORPUS", os.path.expanduser("~/.cache/bspkit-corpus"))
for i, p in enumerate(sorted(glob.glob(os.path.join(corpus, "dpm", "*.framegroups")))):
    with open(p, "rb") as f:
        text = f.read()
    with open(os.path.join(out, "corpus%d.fg" % i), "wb") as f:
        f.write((400).to_bytes(2, "little") + text)
