#!/usr/bin/python3
"""An independent VPK v2 writer for the tests: every file under SRC becomes an entry of OUT_dir.vpk;
every third file keeps its first 16 bytes preloaded in the directory, files alternate between the
directory file's own data (archive 0x7fff) and OUT_000.vpk. usage: vpk_write.py SRC OUT"""
import os, struct, sys, zlib
src, out = sys.argv[1], sys.argv[2]
os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
files = []
for root, _, fs in os.walk(src):
    for f in sorted(fs):
        p = os.path.join(root, f)
        files.append((os.path.relpath(p, src).replace(os.sep, "/").lower(), open(p, "rb").read()))
tree = {}
for name, data in files:
    d, f = name.rsplit("/", 1) if "/" in name else (" ", name)
    stem, ext = f.rsplit(".", 1)
    tree.setdefault(ext, {}).setdefault(d, []).append((stem, data))
t = bytearray(); own = bytearray(); arc = bytearray(); k = 0
for ext, dirs in tree.items():
    t += ext.encode() + b"\0"
    for d, items in dirs.items():
        t += d.encode() + b"\0"
        for stem, data in items:
            pre = data[:16] if k % 3 == 0 else b""
            rest = data[len(pre):]
            if k % 2 == 0: archive, ofs = 0x7fff, len(own); own += rest
            else: archive, ofs = 0, len(arc); arc += rest
            t += stem.encode() + b"\0" + struct.pack("<IHHIIH", zlib.crc32(data) & 0xffffffff, len(pre), archive, ofs, len(rest), 0xffff) + pre
            k += 1
        t += b"\0"
    t += b"\0"
t += b"\0"
hdr = struct.pack("<IIIIIII", 0x55aa1234, 2, len(t), len(own), 0, 0, 0)
open(out + "_dir.vpk", "wb").write(hdr + t + own)
open(out + "_000.vpk", "wb").write(arc)
print(len(files))
