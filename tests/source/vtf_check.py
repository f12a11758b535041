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
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
from pngread import read_png  # noqa: E402

bk, work, maps = sys.argv[1], sys.argv[2], sys.argv[3:]
passed = failed = 0
def check(ok, what):
    global passed, failed
    if ok: passed += 1
    else:
        failed += 1; print("FAIL:", what, file=sys.stderr)

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
