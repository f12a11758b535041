#!/usr/bin/python3
"""Every VTF in the Source corpus's pakfiles decodes, and its pixels agree with what its header says
of them. vtex stores the image's average linear colour as `reflectivity`: the PNG bspkit writes is
read back here (an independent PNG reader: zlib + the five filters), turned linear (x/255)^2.2 and
averaged over the first face, and compared with the header's value.

usage: vtf_check.py BSPKIT WORKDIR MAP...
Prints per-format counts and the agreement; 'N passed, M failed'."""
import os, shutil, struct, subprocess, sys, zlib
from collections import Counter
import numpy as np

bk, work, maps = sys.argv[1], sys.argv[2], sys.argv[3:]
passed = failed = 0
def check(ok, what):
    global passed, failed
    if ok: passed += 1
    else:
        failed += 1; print("FAIL:", what, file=sys.stderr)

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
        elif f in (1, 3, 4):
            cur = np.zeros(stride, dtype=np.int32)
            for x in range(stride):
                a = cur[x - bpp] if x >= bpp else 0; b = prev[x]; c = prev[x - bpp] if x >= bpp else 0
                if f == 1: pr = a
                elif f == 3: pr = (a + b) // 2
                else:
                    pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                    pr = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                cur[x] = (line[x] + pr) & 255
        else: raise ValueError("filter %d" % f)
        img[y] = cur; prev = cur
    return img.reshape(h, w, bpp)

fmts = Counter(); diffs = []; n_vtf = 0
for m in maps:
    base = os.path.join(work, os.path.basename(m))
    shutil.rmtree(base, ignore_errors=True)
    r = subprocess.run([bk, "pak", m, "extract", "-o", base + "/pak"], capture_output=True, text=True)
    if r.returncode: continue
    for root, _, files in os.walk(base + "/pak"):
        for fn in files:
            if not fn.lower().endswith(".vtf"): continue
            path = os.path.join(root, fn); d = open(path, "rb").read()
            n_vtf += 1
            ver = struct.unpack_from("<II", d, 4); w, h = struct.unpack_from("<HH", d, 16)
            flags = struct.unpack_from("<I", d, 20)[0]; refl = struct.unpack_from("<3f", d, 32)
            fmt = struct.unpack_from("<i", d, 52)[0]; fmts[(fmt, "%d.%d" % ver)] += 1
            out = os.path.join(base, "png")
            r = subprocess.run([bk, "textures", path, "-o", out], capture_output=True, text=True)
            check(r.returncode == 0, "%s: %s does not decode: %s" % (os.path.basename(m), fn, r.stderr.strip()[:200]))
            if r.returncode: continue
            png = os.path.join(out, fn[:-4] + ".png")
            img = read_png(png)
            faces = img.shape[0] // h
            check(img.shape[1] == w and faces >= 1 and img.shape[0] == faces * h, "%s: %s is %s, header says %dx%d" % (os.path.basename(m), fn, img.shape, w, h))
            face = img[:h, :, :3].astype(np.float64) / 255.0
            lin = (face ** 2.2).reshape(-1, 3).mean(0)
            # normal maps, HDR cube maps and tool textures store a reflectivity that is not their colour
            if fmt in (24, 25) or fn.lower().endswith(("_normal.vtf", "_bump.vtf", "_ssbump.vtf")) or "cubemapdefault" in fn.lower() or (flags & 0x4000) or max(refl) <= 0: continue
            diffs.append((float(np.abs(lin - np.array(refl)).max()), fn))
            os.remove(png)
print("%d VTFs decoded; formats (format, version): %s" % (n_vtf, dict(fmts)))
check(n_vtf >= 100, "expected the corpus's hundreds of VTFs, found %d" % n_vtf)
if diffs:
    d = np.array([x for x, _ in diffs])
    print("reflectivity vs decoded average linear colour over %d colour textures: median |diff| %.4f, 95th pct %.4f, max %.4f (%s)"
          % (len(d), np.median(d), np.percentile(d, 95), d.max(), max(diffs)[1]))
    # vtex averages the source image before DXT compression and mip filtering: a little drift is expected
    check(np.median(d) < 0.02, "median reflectivity difference %.4f" % np.median(d))
    check((d < 0.08).mean() >= 0.95, "only %.1f%% of textures within 0.08 of their reflectivity" % (100 * (d < 0.08).mean()))
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
