#!/usr/bin/python3
"""Writes the small synthetic VTFs of tests/source/data (fuzz seeds and hostile-file bases):
a 7.2 DXT1 8x8 with two mips, a 7.5 BGR888 4x4 with a resource directory, a 7.4 RGBA16161616F
cube map 2x2, and a 7.3 DXT5 4x4. usage: make_vtf.py OUTDIR"""
import os, struct, sys

def header(minor, w, h, flags, fmt, mips, low_fmt=-1, lw=0, lh=0, frames=1, resources=None):
    hs = 64 if minor < 2 else 80
    if resources is not None: hs = 80 + 8 * len(resources)
    d = bytearray(hs)
    d[0:4] = b"VTF\0"
    struct.pack_into("<IIIHHIHH", d, 4, 7, minor, hs, w, h, flags, frames, 0 if not flags & 0x4000 else 0xffff)
    struct.pack_into("<3f", d, 32, 0.25, 0.5, 0.75)
    struct.pack_into("<f", d, 48, 1.0)
    struct.pack_into("<iBiBB", d, 52, fmt, mips, low_fmt, lw, lh)
    if minor >= 2: struct.pack_into("<H", d, 63, 1)
    if resources is not None:
        struct.pack_into("<I", d, 68, len(resources))
        for i, (tag, ofs) in enumerate(resources):
            struct.pack_into("<3sBI", d, 80 + 8 * i, tag, 0, ofs)
    return d

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
# 7.2 DXT1 8x8, mips 4x4 (1 block) then 8x8 (4 blocks): colours red/blue
blk = struct.pack("<HHI", 0xf800, 0x001f, 0x1b1b1b1b)
d = header(2, 8, 8, 0, 13, 2) + blk + blk * 4
open(os.path.join(out, "dxt1_v72.vtf"), "wb").write(d)
# 7.5 BGR888 4x4 with a resource directory pointing at the high-res data
hs = 80 + 8 * 1
d = header(5, 4, 4, 0, 3, 1, resources=[(b"\x30\0\0", hs)]) + bytes(range(48))
open(os.path.join(out, "bgr888_v75.vtf"), "wb").write(d)
# 7.4 RGBA16161616F cube map 2x2: six faces (first frame 0xffff: no sphere map)
half_one = 0x3c00
px = struct.pack("<4H", half_one, 0x3800, 0x0000, half_one)
d = header(4, 2, 2, 0x4000, 24, 1, resources=[(b"\x30\0\0", 88)]) + px * 4 * 6
open(os.path.join(out, "hdr_cube_v74.vtf"), "wb").write(d)
# 7.3 DXT5 4x4 with a low-res thumbnail absent and the image resource after the directory
hs = 80 + 8
a = bytes([255, 0]) + bytes(6)
d = header(3, 4, 4, 0, 15, 1, resources=[(b"\x30\0\0", hs)]) + a + blk
open(os.path.join(out, "dxt5_v73.vtf"), "wb").write(d)
