#!/usr/bin/python3
"""One picture saved as a VTF in every image format bspkit decodes, each decoded by `bspkit
textures` and compared with the picture: a channel read from the wrong place shows as a mean
error of tens of levels, while the formats' own rounding stays within a few.

The byte orders are those of the files the tools write (VTFLib/VTFEdit, vtex; checked against the
25-format sample suite of srctools' tests): RGB565 holds red in its low five bits and BGR565 blue;
ARGB8888 holds G, B, A, R. The bluescreen formats key pure blue out (transparent). The grey,
alpha-only and two-channel formats are compared on what they hold: I8 its grey as red, green and
blue; IA88 grey and alpha; A8 alpha; UV88 U and V as red and green. RGBA16161616F is tone-mapped
for display, so it is left out.

usage: vtf_formats.py BSPKIT WORKDIR   -> 'N passed, M failed'"""
import os
import struct
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from pngread import read_png  # noqa: E402

W = H = 16
FORMATS = {  # name: (number, mean error allowed per channel)
    "RGBA8888": (0, 0), "ABGR8888": (1, 0), "RGB888": (2, 0), "BGR888": (3, 0), "RGB565": (4, 4),
    "I8": (5, 0), "IA88": (6, 0), "A8": (8, 0), "RGB888_BLUESCREEN": (9, 0), "BGR888_BLUESCREEN": (10, 0),
    "ARGB8888": (11, 0), "BGRA8888": (12, 0), "DXT1": (13, 1), "DXT3": (14, 1), "DXT5": (15, 1),
    "BGRX8888": (16, 0), "BGR565": (17, 4), "BGRX5551": (18, 4), "BGRA4444": (19, 6),
    "DXT1_ONEBITALPHA": (20, 1), "BGRA5551": (21, 4), "UV88": (22, 0), "UVWQ8888": (23, 0),
    "RGBA16161616": (25, 0), "UVLX8888": (26, 0),
}


def picture():
    """red across, green down, blue a checker of two levels, alpha along the diagonal: every
    channel different from every other, so a swap cannot go unseen"""
    y, x = np.mgrid[0:H, 0:W]
    img = np.zeros((H, W, 4), dtype=np.int32)
    img[..., 0] = x * 255 // (W - 1)
    img[..., 1] = 255 - y * 255 // (H - 1)
    img[..., 2] = np.where((x // 4 + y // 4) % 2, 200, 40)
    img[..., 3] = 255 - (x + y) * 255 // (W + H - 2)
    img[0, 0] = (0, 0, 255, 0)          # pure blue: keyed out by the bluescreen formats
    return img


def dxt_colour_block(px, one_bit_alpha):
    """a DXT1 colour block of 16 RGBA texels: endpoints the two texels farthest apart, each
    texel the nearest of the four (or three, plus transparent) palette colours"""
    rgb = px[:, :3]
    d = ((rgb[:, None, :] - rgb[None, :, :]) ** 2).sum(-1)
    i, j = np.unravel_index(d.argmax(), d.shape)
    c0, c1 = rgb[i], rgb[j]
    e0, e1 = to565(c0), to565(c1)
    if one_bit_alpha:
        if e0 > e1:
            e0, e1 = e1, e0
    elif e0 < e1:
        e0, e1 = e1, e0
    p0, p1 = from565(e0), from565(e1)
    if e0 > e1:
        pal = [p0, p1, (2 * p0 + p1) // 3, (p0 + 2 * p1) // 3]
    else:
        pal = [p0, p1, (p0 + p1) // 2, None]
    bits = 0
    for i, t in enumerate(px):
        if one_bit_alpha and t[3] < 128:
            k = 3
        else:
            k = min((k for k in range(4) if pal[k] is not None), key=lambda k: int(((pal[k] - t[:3]) ** 2).sum()))
        bits |= k << (2 * i)
    return struct.pack("<HHI", e0, e1, bits)


def to565(c):
    return (int(c[0]) >> 3) << 11 | (int(c[1]) >> 2) << 5 | int(c[2]) >> 3


def from565(v):
    r, g, b = v >> 11 & 31, v >> 5 & 63, v & 31
    return np.array([(r * 527 + 23) >> 6, (g * 259 + 33) >> 6, (b * 527 + 23) >> 6])


def dxt5_alpha_block(a):
    a0, a1 = int(a.max()), int(a.min())
    if a0 == a1:
        a1 = max(0, a0 - 1) if a0 else 1
        a0, a1 = max(a0, a1), min(a0, a1)
    pal = [a0, a1] + [((7 - k) * a0 + k * a1) // 7 for k in range(1, 7)]
    bits = 0
    for i, v in enumerate(a):
        k = min(range(8), key=lambda k: abs(pal[k] - int(v)))
        bits |= k << (3 * i)
    return bytes([a0, a1]) + bits.to_bytes(6, "little")


def encode(name, img):
    px = img.reshape(-1, 4)
    r, g, b, a = (px[:, k].astype(np.uint16) for k in range(4))
    u8 = lambda *ch: np.stack(ch, -1).astype(np.uint8).tobytes()
    if name == "RGBA8888": return u8(r, g, b, a)
    if name == "ABGR8888": return u8(a, b, g, r)
    if name == "ARGB8888": return u8(g, b, a, r)
    if name == "BGRA8888": return u8(b, g, r, a)
    if name == "BGRX8888": return u8(b, g, r, a * 0)
    if name in ("RGB888", "RGB888_BLUESCREEN"): return u8(r, g, b)
    if name in ("BGR888", "BGR888_BLUESCREEN"): return u8(b, g, r)
    if name == "UVWQ8888": return u8(r, g, b, a)
    if name == "UVLX8888": return u8(r, g, b, a * 0)
    if name == "I8": return u8(r)
    if name == "IA88": return u8(r, a)
    if name == "A8": return u8(a)
    if name == "UV88": return u8(r, g)
    if name == "RGB565": return ((b >> 3) << 11 | (g >> 2) << 5 | r >> 3).astype("<u2").tobytes()
    if name == "BGR565": return ((r >> 3) << 11 | (g >> 2) << 5 | b >> 3).astype("<u2").tobytes()
    if name in ("BGRX5551", "BGRA5551"):
        hi = (a >= 128) if name == "BGRA5551" else 0
        return ((hi * 1) << 15 | (r >> 3) << 10 | (g >> 3) << 5 | b >> 3).astype("<u2").tobytes()
    if name == "BGRA4444": return ((a >> 4) << 12 | (r >> 4) << 8 | (g >> 4) << 4 | b >> 4).astype("<u2").tobytes()
    if name == "RGBA16161616": return np.stack([r, g, b, a], -1).astype("<u2").__mul__(257).astype("<u2").tobytes()
    out = b""
    for by in range(0, H, 4):
        for bx in range(0, W, 4):
            blk = img[by:by + 4, bx:bx + 4].reshape(-1, 4)
            if name == "DXT3":
                nib = (blk[:, 3] >> 4).astype(np.uint8)
                out += bytes(int(nib[2 * k]) | int(nib[2 * k + 1]) << 4 for k in range(8))
            elif name == "DXT5":
                out += dxt5_alpha_block(blk[:, 3])
            out += dxt_colour_block(blk, name == "DXT1_ONEBITALPHA")
    return out


def dxt_decode(name, data):
    """the texels the DXT blocks encode() wrote hold, decoded here: a block compressor's loss is
    not the decoder's, so the decode is compared with this, not with the picture"""
    out = np.zeros((H, W, 4), dtype=np.int32)
    bs = 8 if name.startswith("DXT1") else 16
    k = 0
    for by in range(0, H, 4):
        for bx in range(0, W, 4):
            b = data[k:k + bs]
            k += bs
            c = b[bs - 8:]
            e0, e1, bits = struct.unpack("<HHI", c)
            p0, p1 = from565(e0), from565(e1)
            if e0 > e1 or bs == 16:
                pal = [p0, p1, (2 * p0 + p1 + 1) // 3, (p0 + 2 * p1 + 1) // 3]
            else:
                pal = [p0, p1, (p0 + p1) // 2, np.zeros(3, dtype=np.int64)]
            for i in range(16):
                t = bits >> (2 * i) & 3
                px = out[by + i // 4, bx + i % 4]
                px[:3] = pal[t]
                px[3] = 0 if (bs == 8 and e0 <= e1 and t == 3) else 255
                if name == "DXT3":
                    px[3] = (b[i // 2] >> (4 * (i & 1)) & 15) * 17
                elif name == "DXT5":
                    a0, a1 = b[0], b[1]
                    ai = int.from_bytes(b[2:8], "little") >> (3 * i) & 7
                    apal = [a0, a1] + ([((7 - j) * a0 + j * a1) // 7 for j in range(1, 7)] if a0 > a1 else
                                       [((5 - j) * a0 + j * a1) // 5 for j in range(1, 5)] + [0, 255])
                    px[3] = apal[ai]
    return out


def expected(name, img, data):
    """the picture as the format holds it (what a correct decoder gives back, to its rounding)"""
    if name.startswith("DXT"):
        return dxt_decode(name, data)
    e = img.copy()
    r, a = img[..., 0], img[..., 3]
    if name in ("RGB888", "BGR888", "BGRX8888", "RGB565", "BGR565", "BGRX5551", "DXT1", "UVLX8888"):
        e[..., 3] = 255
    if name in ("RGB888_BLUESCREEN", "BGR888_BLUESCREEN"):
        e[..., 3] = 255
        key = (img[..., 0] == 0) & (img[..., 1] == 0) & (img[..., 2] == 255)
        e[key] = 0
    if name == "DXT1_ONEBITALPHA":
        e[..., 3] = np.where(a < 128, 0, 255)
        e[a < 128, :3] = 0
    if name == "BGRA5551":
        e[..., 3] = np.where(a >= 128, 255, 0)
    if name == "I8": e[..., 0] = e[..., 1] = e[..., 2] = r; e[..., 3] = 255
    if name == "IA88": e[..., 0] = e[..., 1] = e[..., 2] = r
    if name == "A8": e[..., 0] = e[..., 1] = e[..., 2] = 0
    if name == "UV88": e[..., 2] = 0; e[..., 3] = 255
    return e


def header(fmt):
    d = bytearray(80)
    d[0:4] = b"VTF\0"
    struct.pack_into("<IIIHHIHH", d, 4, 7, 2, 80, W, H, 0, 1, 0)
    struct.pack_into("<3f", d, 32, 0.5, 0.5, 0.5)
    struct.pack_into("<f", d, 48, 1.0)
    struct.pack_into("<iBiBB", d, 52, fmt, 1, -1, 0, 0)
    struct.pack_into("<H", d, 63, 1)
    return bytes(d)


def main():
    bk, work = sys.argv[1], sys.argv[2]
    os.makedirs(work, exist_ok=True)
    img = picture()
    passed = failed = 0
    for name, (num, tol) in FORMATS.items():
        path = os.path.join(work, f"{name.lower()}.vtf")
        data = encode(name, img)
        open(path, "wb").write(header(num) + data)
        out = os.path.join(work, name.lower())
        r = subprocess.run([bk, "textures", path, "-o", out], capture_output=True, text=True)
        png = os.path.join(out, f"{name.lower()}.png")
        if r.returncode or not os.path.exists(png):
            print(f"FAIL {name}: bspkit textures exit {r.returncode}: {r.stderr.strip()[:200]}")
            failed += 1
            continue
        got = read_png(png)
        if got.shape[2] == 3:
            got = np.concatenate([got, np.full(got.shape[:2] + (1,), 255)], -1)
        want = expected(name, img, data)
        err = np.abs(got - want).reshape(-1, 4).mean(axis=0)
        ok = got.shape == want.shape and err.max() <= tol + 0.5
        print(f"{'PASS' if ok else 'FAIL'} {name}: mean error per channel {np.round(err, 2).tolist()} (allowed {tol})")
        passed += ok
        failed += not ok
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


main()
