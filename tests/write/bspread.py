#!/usr/bin/python3
"""An independent reader of map headers and pakfiles for the writer tests (no bspkit code).

usage: bspread.py lumps MAP            -> one line per lump: index offset length crc32
       bspread.py entities MAP         -> the entity lump's text (up to its NUL), to stdout
       bspread.py pairs FILE           -> the entities of a map (or of an entity text file) as JSON:
                                          [[[key, value], ...], ...], every pair in order, the bytes of
                                          each string as latin-1 code points (exact, whatever they are)
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

def entity_text(d):
    _, o, n, _ = lumps(d)[entity_slot(d)]
    raw = d[o:o + n]
    if raw[:4] == b"LZMA":
        actual, lz = struct.unpack_from("<II", raw, 4)
        dec = lzma.LZMADecompressor(lzma.FORMAT_RAW, filters=[lzma._decode_filter_properties(lzma.FILTER_LZMA1, raw[12:17])])
        raw = dec.decompress(raw[17:17 + lz], max_length=actual)
    return raw.split(b"\0")[0]

def pairs(t):
    """The engines' tokeniser, written from their description: blanks and // comments skipped,
    quoted strings (to the next quote), braces, bare words."""
    toks, i, n = [], 0, len(t)
    while True:
        while i < n and t[i] <= 32: i += 1
        if t[i:i + 2] == b"//":
            while i < n and t[i] != 10: i += 1
            continue
        if i >= n: break
        if t[i] in b"{}":
            toks.append(t[i:i + 1]); i += 1
        elif t[i] == 34:
            j = t.index(b'"', i + 1)
            toks.append(b"S" + t[i + 1:j]); i = j + 1
        else:
            j = i
            while j < n and t[j] > 32 and t[j] not in b'{}"': j += 1
            toks.append(b"S" + t[i:j]); i = j
    ents, k = [], 0
    while k < len(toks):
        assert toks[k] == b"{", toks[k]
        k += 1
        e = []
        while toks[k] != b"}":
            e.append([toks[k][1:].decode("latin-1"), toks[k + 1][1:].decode("latin-1")]); k += 2
        ents.append(e); k += 1
    return ents

def pak_extract(d, outdir):
    """a Source map's pakfile read by zipfile: every CRC tested (exits on a bad one), the files under
    bspkit_test/ extracted into outdir; returns the names of its entries"""
    _, o, n, _ = lumps(d)[40]
    z = zipfile.ZipFile(io.BytesIO(d[o:o + n]))
    bad = z.testzip() if all(i.compress_type in (0, 8) for i in z.infolist()) else None
    if bad: sys.exit("CRC error in %s" % bad)
    names = [i.filename for i in z.infolist()]
    for i in z.infolist():
        if i.compress_type in (0, 8) and i.filename.startswith("bspkit_test/"):
            z.extract(i, outdir)
    return names

def file_pairs(d):
    """pairs of a file's bytes: a map's entity lump, or an entity text file (after a byte-order mark)"""
    t = entity_text(d) if d[:4] in (b"IBSP", b"VBSP") or d[:4] in (b"\x1d\0\0\0", b"\x1e\0\0\0", b"BSP2") else d
    if t[:3] == b"\xef\xbb\xbf": t = t[3:]
    return pairs(t)

if __name__ == "__main__":   # importable (source/outputs.py, source/hdr.py, write/*_check.py use its readers)
    d = open(sys.argv[2], "rb").read()
    if sys.argv[1] == "pairs":
        import json
        json.dump(file_pairs(d), sys.stdout)
        sys.exit(0)
    if sys.argv[1] == "lumps":
        for i, o, n, c in lumps(d): print(i, o, n, c)
    elif sys.argv[1] == "entities":
        sys.stdout.buffer.write(entity_text(d))
    elif sys.argv[1] == "pak":
        for name in pak_extract(d, sys.argv[3]): print(name)
