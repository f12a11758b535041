"""RMSE between two renders of the same view (0..1 of full scale, over RGB), and a side-by-side
PNG (left: first, right: second) to look at.
usage: compare.py A.png B.png SIDE.png  -> prints 'rmse R'"""
import os
import struct
import sys
import zlib

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from pngread import read_png  # noqa: E402

a = read_png(sys.argv[1])[..., :3]
b = read_png(sys.argv[2])[..., :3]
if a.shape != b.shape:
    print(f"size differs: {a.shape} {b.shape}")
    sys.exit(1)
rmse = float(np.sqrt(((a.astype(float) - b.astype(float)) ** 2).mean()) / 255)
im = np.concatenate([a, b], axis=1).astype(np.uint8)
h, w, _ = im.shape
raw = b"".join(b"\0" + im[y].tobytes() for y in range(h))


def chunk(t, d):
    return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)


with open(sys.argv[3], "wb") as f:
    f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
print(f"rmse {rmse:.4f}")
