#!/usr/bin/env python3
"""Rewrite a Source map with its lumps LZMA-compressed the way bspzip does it ("LZMA", u32
actualSize, u32 lzmaSize, 5 property bytes, raw LZMA1 data; lump_t.fourCC = actualSize), so the
decoder meets compressed lumps in a file it has not seen. Lumps 35 (game lump directory, whose
entries hold absolute offsets) and 40 (the pakfile) stay stored, as in real maps.
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
    open(sys.argv[2], "wb").write(bytes(out) + bytes(body))


if __name__ == "__main__":
    main()
