#!/usr/bin/env python3
"""Hostile copies of a real Source map's pakfile (lump 40), made in place in the zip's bytes so the
rest of the map is untouched. usage: hostile_pak.py MAP OUT WHAT [ARG]
  name NEW      the first entry is renamed NEW in the central directory and its local header
                (the name's length stays: NEW is cut or padded with '_' to the old length)
  size N        the first entry's central directory says N uncompressed bytes (N up to 0xffffffff)
  cd            the central directory's first signature is damaged (pak list / textures refuse it)
  emptyofs      an empty lump's directory entry gets an offset past the end of the file"""
import struct
import sys


def main():
    src, out, what = sys.argv[1], sys.argv[2], sys.argv[3]
    arg = sys.argv[4] if len(sys.argv) > 4 else ""
    d = bytearray(open(src, "rb").read())
    if what == "emptyofs":
        for i in range(64):
            ofs, ln = struct.unpack_from("<ii", d, 8 + 16 * i)
            if ln == 0:
                struct.pack_into("<i", d, 8 + 16 * i, len(d) + 4096)
                break
        open(out, "wb").write(d)
        return
    pofs, plen = struct.unpack_from("<ii", d, 8 + 16 * 40)
    z = pofs + plen
    eocd = d.rfind(b"PK\x05\x06", pofs, z)
    cd = pofs + struct.unpack_from("<I", d, eocd + 16)[0]
    assert d[cd:cd + 4] == b"PK\x01\x02", "pakfile offsets are not relative to the lump"
    nlen = struct.unpack_from("<H", d, cd + 28)[0]
    lh = pofs + struct.unpack_from("<I", d, cd + 42)[0]
    if what == "name":
        new = arg.encode()[:nlen].ljust(nlen, b"_")
        d[cd + 46:cd + 46 + nlen] = new
        d[lh + 30:lh + 30 + nlen] = new
    elif what == "size":
        struct.pack_into("<I", d, cd + 24, int(arg, 0))
    elif what == "cd":
        d[cd:cd + 4] = b"XX\x01\x02"
    else:
        sys.exit(__doc__)
    open(out, "wb").write(d)


if __name__ == "__main__":
    main()
