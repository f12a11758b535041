#!/usr/bin/env python3
"""Seeds for fuzz_lump_json: a lump-selector byte, then the JSON bspkit prints for that lump of the
fuzzer's small map and some near misses (fuzz/run.sh runs this with the seeds folder as argument)."""
import os, sys

out = sys.argv[1]
seeds = {
    1: b'[\n{"normal": [0, 0, 1], "dist": 0, "type": 2},\n{"normal": [1, 0, 0], "dist": 16, "type": 0}\n]\n',
    3: b'[\n{"point": [0, 0, 0]},\n{"point": [0, 0, 0]},\n{"point": [1, 2, 3]}\n]\n',
    12: b'[\n{"v": [0, 1]},\n{"v": [0, 1]}\n]\n',
    13: b'[{"edge": 1}, {"edge": -1}]',
    14: b'[{"mins": [-1, -1, -1], "maxs": [1, 1, 1], "origin": [0, 0, 0], "headnode": [0, -1, -1, -1], '
        b'"visleafs": 0, "firstface": 0, "numfaces": 0}]',
    0: b'{"lump": "entities", "size": 4, "encoding": "base64", "data": "e30KAA=="}',
    8: b'{"encoding": "base64", "data": ""}',
    2: b'[{"normal": [0, 0, "0x7f800000"], "dist": 1e39, "type": 1.5}]',
}
for k, v in seeds.items():
    with open(os.path.join(out, "lump%d.json" % k), "wb") as f:
        f.write(bytes([k]) + v)
