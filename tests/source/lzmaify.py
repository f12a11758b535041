#!/usr/bin/env python3
"""Rewrite a Source map with its lumps LZMA-compressed the way bspzip does it ("LZMA", u32
actualSize, u32 lzmaSize, 5 property bytes, raw LZMA1 data; lump_t.fourCC = actualSize), so the
decoder meets compressed lumps in a file it has not seen. Lumps 35 (the game lump directory) and
40 (the pakfile) stay stored, as in real maps; the game lumps themselves are compressed as the
TF2-era tools do it: flags bit 0 set, filelen = uncompressed size, absolute offsets, and a final
id-0 terminator entry (the directory moves to the end of the file to make room for it).
usage: lzmaify.py IN.bsp OUT.bsp"""
import lzma
import struct
import sys


def valve_lzma(data):
    alone = lzma.compress(data, format=lzma.FORMAT_ALONE, filters=[{"id": lzma.FILTER_LZMA1, "dict_size": 1 << 16}])
    props, body = alone[:5], alone[13:]
    return b"LZMA" + struct.pack("<II", len(data), len(body)) + props + body


def main():
    d = open(sys.argv[1], "rb").read()
    lumps = [list(struct.unpack_from("<iiii", d, 8 + 16 * i)) for i in range(64)]
    out = bytearray(d[:1036])
    # keep lumps 35 and 40 at their offsets: copy the original body, append compressed lumps after
    body = bytearray(d[1036:])
    for i, (ofs, ln, ver, cc) in enumerate(lumps):
        if ln == 0 or i in (35, 40):
            continue
        blob = valve_lzma(d[ofs:ofs + ln])
        while (len(out) + len(body)) % 4:
            body += b"\0"
        new_ofs = len(out) + len(body)
        body += blob
        struct.pack_into("<iiii", out, 8 + 16 * i, new_ofs, len(blob), ver, ln)
    # game lumps: compress each one, append it, and write a new directory with the terminator
    gofs, glen = lumps[35][0], lumps[35][1]
    if glen >= 4:
        n = struct.unpack_from("<i", d, gofs)[0]
        entries = []
        for k in range(n):
            gid, flags, ver, o, ln = struct.unpack_from("<iHHii", d, gofs + 4 + 16 * k)
            if gid == 0:
                continue
            while (len(out) + len(body)) % 4:
                body += b"\0"
            new_o = len(out) + len(body)
            body += valve_lzma(d[o:o + ln])
            entries.append((gid, flags | 1, ver, new_o, ln))
        entries.append((0, 0, 0, 0, 0))
        while (len(out) + len(body)) % 4:
            body += b"\0"
        dir_ofs = len(out) + len(body)
        body += struct.pack("<i", len(entries))
        for e in entries:
            body += struct.pack("<iHHii", *e)
        struct.pack_into("<ii", out, 8 + 16 * 35, dir_ofs, 4 + 16 * len(entries))
    open(sys.argv[2], "wb").write(bytes(out) + bytes(body))


if __name__ == "__main__":
    main()
