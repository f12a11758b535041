#!/usr/bin/python3
"""An independent reader of map headers and pakfiles for the writer tests (no bspkit code).

usage: bspread.py lumps MAP            -> one line per lump: index offset length crc32
       bspread.py entities MAP         -> the entity lump's text (up to its NUL), to stdout
       bspread.py pak MAP OUTDIR       -> list the pakfile with Python's zipfile, test every CRC,
                                          extract into OUTDIR; prints the names
Checks every lump lies inside the file; exits 1 with a message otherwise."""
import io, lzma, struct, sys, zipfile, zlib

def layout(d):
    magic = d[:4]
    if magic == b"IBSP": return 8, 17, 8, 0, 4
    if magic == b"VBSP":
        v = struct.unpack_from("<i", d, 4)[0]
        a, b, c, _ = struct.unpack_from("<iiii", d, 8)
        # L4D2's v21 entries are {version, offset, length, fourCC}
        if v == 21 and not (0 < a <= len(d) and 0 <= b <= len(d) - a):
            return 8, 64, 16, 4, 8
        return 8, 64, 16, 0, 4
    return 4, 15, 8, 0, 4          # BSP29 / BSP30 / BSP2

def lumps(d):
    at, n, size, fo, fl = layout(d)
    out = []
    for i in range(n):
        ofs, ln = struct.unpack_from("<II", d, at + i * size + fo)[0], struct.unpack_from("<I", d, at + i * size + fl)[0]
        if ln and ofs + ln > len(d):
            sys.exit("lump %d (offset %d, length %d) runs past the end (%d bytes)" % (i, ofs, ln, len(d)))
        out.append((i, ofs, ln, zlib.crc32(d[ofs:ofs + ln]) & 0xffffffff))
    return out

def entity_slot(d):
    if d[:4] in (b"IBSP", b"VBSP"): return 0
    # Blue Shift swaps the first two entries: the entity text is the one that starts with '{'
    l = lumps(d)
    return 1 if l[1][2] and d[l[1][1]:l[1][1] + 1] == b"{" and d[l[0][1]:l[0][1] + 1] != b"{" else 0

d = open(sys.argv[2], "rb").read()
if sys.argv[1] == "lumps":
    for i, o, n, c in lumps(d): print(i, o, n, c)
elif sys.argv[1] == "entities":
    _, o, n, _ = lumps(d)[entity_slot(d)]
    raw = d[o:o + n]
    if raw[:4] == b"LZMA":
        actual, lz = struct.unpack_from("<II", raw, 4)
        dec = lzma.LZMADecompressor(lzma.FORMAT_RAW, filters=[lzma._decode_filter_properties(lzma.FILTER_LZMA1, raw[12:17])])
        raw = dec.decompress(raw[17:17 + lz], max_length=actual)
    sys.stdout.buffer.write(raw.split(b"\0")[0])
elif sys.argv[1] == "pak":
    _, o, n, _ = lumps(d)[40]
    z = zipfile.ZipFile(io.BytesIO(d[o:o + n]))
    bad = z.testzip() if all(i.compress_type in (0, 8) for i in z.infolist()) else None
    if bad: sys.exit("CRC error in %s" % bad)
    for i in z.infolist():
        print(i.filename)
    for i in z.infolist():
        if i.compress_type in (0, 8) and i.filename.startswith("bspkit_test/"):
            z.extract(i, sys.argv[3])
