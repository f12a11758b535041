#!/usr/bin/env python3
"""An edited Source map against its original: the entity lump (0) holds `pair` (a line added after
worldspawn's classname), stored as the original stored it (LZMA or plain), every other lump unchanged.

usage: lzma_check.py ORIGINAL.bsp EDITED.bsp PAIR

Written from Valve's public/bspfile.h (lump_t {fileofs, filelen, version, fourCC}; an LZMA lump is
"LZMA", u32 actualSize, u32 lzmaSize, 5 property bytes, raw LZMA1, and fourCC its actualSize) and
decoded with Python's lzma module, not bspkit. Prints one line; exits 1 on a mismatch."""
import lzma
import struct
import sys


def lumps(d):
    return [struct.unpack_from("<4i", d, 8 + 16 * i) for i in range(64)]


def decode(blob):
    """(bytes, compressed) of a stored lump"""
    if blob[:4] != b"LZMA":
        return blob, False
    actual, packed = struct.unpack_from("<II", blob, 4)
    if len(blob) != 17 + packed:
        raise ValueError("filelen %d, 17 + lzmaSize %d" % (len(blob), 17 + packed))
    alone = blob[12:17] + struct.pack("<Q", actual) + blob[17:]
    out = lzma.LZMADecompressor(format=lzma.FORMAT_ALONE).decompress(alone, max_length=actual)
    if len(out) != actual:
        raise ValueError("decodes to %d bytes, actualSize %d" % (len(out), actual))
    return out, True


def game_lumps(d, ofs, ln):
    """the game lumps' stored bytes, in directory order (offsets are absolute)"""
    g = d[ofs:ofs + ln]
    n = struct.unpack_from("<i", g, 0)[0]
    ent = [struct.unpack_from("<iHHii", g, 4 + 16 * k) for k in range(n)]
    ends = sorted(e[3] for e in ent if e[3]) + [ofs]
    out = []
    for gid, flags, ver, gofs, glen in ent:
        if not gofs:
            out.append((gid, flags, ver, b""))
            continue
        nxt = min(x for x in ends if x > gofs) if any(x > gofs for x in ends) else gofs + glen
        out.append((gid, flags, ver, d[gofs:nxt]))
    return out


def main():
    a, b = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read()
    pair = sys.argv[3].encode()
    la, lb = lumps(a), lumps(b)
    ea, ca = decode(a[la[0][0]:la[0][0] + la[0][1]])
    eb, cb = decode(b[lb[0][0]:lb[0][0] + lb[0][1]])
    if ca != cb:
        print("entity lump stored %s, the original %s" % ("LZMA" if cb else "plain", "LZMA" if ca else "plain"))
        return 1
    want_fourcc = len(eb) if cb else 0
    if lb[0][3] != want_fourcc or lb[0][2] != la[0][2]:
        print("entity lump version/fourCC %d/%d, expected %d/%d" % (lb[0][2], lb[0][3], la[0][2], want_fourcc))
        return 1
    key = b'"classname" "worldspawn"\n'
    at = ea.index(key) + len(key)
    if eb != ea[:at] + pair + b"\n" + ea[at:]:
        print("the entity lump does not decode to the original text with the added pair")
        return 1
    for i in range(1, 64):
        if i == 35:
            if game_lumps(a, la[i][0], la[i][1]) != game_lumps(b, lb[i][0], lb[i][1]):
                print("game lumps changed")
                return 1
            continue
        if a[la[i][0]:la[i][0] + la[i][1]] != b[lb[i][0]:lb[i][0] + lb[i][1]] or la[i][1:] != lb[i][1:]:
            print("lump %d changed" % i)
            return 1
    n = sum(1 for i in range(64) if la[i][1] and a[la[i][0]:la[i][0] + 4] == b"LZMA")
    print("entity lump %s (%d -> %d stored bytes, %d decoded), 63 other lumps unchanged (%d stored LZMA)" % (
        "LZMA-compressed" if cb else "plain", la[0][1], lb[0][1], len(eb), n - (1 if ca else 0)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
