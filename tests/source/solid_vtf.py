#!/usr/bin/python3
"""Writes a small VTF 7.2 (BGR888, one mip) of one colour with a darker checker every 8 pixels,
for tests that need a texture where a game would have one. usage: solid_vtf.py OUT.vtf R G B [SIZE]"""
import os, struct, sys

out, r, g, b = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
n = int(sys.argv[5]) if len(sys.argv) > 5 else 32
d = bytearray(80)
d[0:4] = b"VTF\0"
struct.pack_into("<IIIHHIHH", d, 4, 7, 2, 80, n, n, 0, 1, 0)   # version, header size, size, flags, frames, first
struct.pack_into("<3f", d, 32, *(((c / 255.0) ** 2.2) for c in (r, g, b)))   # reflectivity (linear)
struct.pack_into("<f", d, 48, 1.0)                              # bump scale
struct.pack_into("<iBiBB", d, 52, 3, 1, -1, 0, 0)               # BGR888, 1 mip, no thumbnail
struct.pack_into("<H", d, 63, 1)                                # depth
px = bytearray()
for y in range(n):
    for x in range(n):
        k = 1.0 if (x // 8 + y // 8) % 2 == 0 else 0.8
        px += bytes((int(b * k), int(g * k), int(r * k)))
os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
open(out, "wb").write(d + px)
