"""An independent PNG reader for the tests (zlib and the five filters; 8-bit RGB or RGBA):
read_png(path) -> a (height, width, channels) int32 numpy array."""
import struct
import zlib

import numpy as np


def read_png(path):
    d = open(path, "rb").read()
    assert d[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    p = 8; idat = b""; w = h = ct = 0
    while p < len(d):
        n, t = struct.unpack(">I4s", d[p:p + 8]); body = d[p + 8:p + 8 + n]
        if zlib.crc32(t + body) & 0xffffffff != struct.unpack(">I", d[p + 8 + n:p + 12 + n])[0]: raise ValueError("bad CRC")
        if t == b"IHDR": w, h, bd, ct = struct.unpack(">IIBB", body[:10])
        elif t == b"IDAT": idat += body
        p += 12 + n
    bpp = 4 if ct == 6 else 3
    raw = zlib.decompress(idat); stride = w * bpp
    img = np.zeros((h, stride), dtype=np.int32); prev = np.zeros(stride, dtype=np.int32)
    for y in range(h):
        f = raw[y * (stride + 1)]; line = np.frombuffer(raw, dtype=np.uint8, count=stride, offset=y * (stride + 1) + 1).astype(np.int32)
        if f == 0: cur = line
        elif f == 2: cur = (line + prev) & 255
        elif f == 1:   # each byte plus the decoded one bpp to its left: a running sum per channel
            cur = (np.cumsum(line.reshape(w, bpp), axis=0, dtype=np.int64) & 255).astype(np.int32).reshape(-1)
        elif f in (3, 4):   # depends on the byte just decoded: byte by byte, in Python integers
            cur = line.tolist(); up = prev.tolist()
            for x in range(stride):
                a = cur[x - bpp] if x >= bpp else 0; b = up[x]; c = up[x - bpp] if x >= bpp else 0
                if f == 3: pr = (a + b) // 2
                else:
                    pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                    pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                cur[x] = (cur[x] + pr) & 255
            cur = np.array(cur, dtype=np.int32)
        else: raise ValueError("filter %d" % f)
        img[y] = cur; prev = cur
    return img.reshape(h, w, bpp)
