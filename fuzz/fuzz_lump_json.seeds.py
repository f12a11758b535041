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
    14: b'[{"mins": [-1, -1, -1], "maxs": [1, 1, 1], "origin": [0, 0, 0], "headnode": [-1, -1, -1, -1], '
        b'"visleafs": 0, "firstface": 0, "numfaces": 0}]',
    0: b'{"lump": "entities", "size": 4, "encoding": "base64", "data": "e30KAA=="}',
    # the raw entity path: worldspawn text (taken), "light" first (refused), an empty lump (refused)
    0x0f: b'{"lump": "entities", "size": 47, "encoding": "base64", "data": "ewoiY2xhc3NuYW1lIiAid29ybGRzcGF3biIKIm1lc3NhZ2UiICJmdXp6Igp9CgA="}',
    0x1e: b'{"lump": "entities", "size": 25, "encoding": "base64", "data": "ewoiY2xhc3NuYW1lIiAibGlnaHQiCn0KAA=="}',
    0x2d: b'{"lump": "entities", "size": 0, "encoding": "base64", "data": ""}',
    8: b'{"encoding": "base64", "data": ""}',
    2: b'[{"normal": [0, 0, "0x7f800000"], "dist": 1e39, "type": 1.5}]',
}
# from 0xf0: the Source map's occlusion lump
seeds[0xf0] = (b'{"occluders": [{"flags": 0, "firstpoly": 0, "polycount": 1, "mins": [-64, -64, 0], "maxs": [64, 64, 128], '
               b'"area": 1}],\n"polys": [{"firstvertexindex": 0, "vertexcount": 4, "planenum": 0}],\n'
               b'"vertex_indices": [0, 1, 2, 3]}')
seeds[0xf1] = b'{"occluders": [], "polys": [], "vertex_indices": []}'
seeds[0xf2] = b'{"polys": [{"firstvertexindex": 0, "vertexcount": 9, "planenum": 0}], "vertex_indices": [1], "occluders": []}'
seeds[0xf3] = b'{"lump": "occlusion", "encoding": "base64", "data": "AAAAAAAAAAAAAAAA"}'
for k, v in seeds.items():
    with open(os.path.join(out, "lump%d.json" % k), "wb") as f:
        f.write(bytes([k]) + v)
