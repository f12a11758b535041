#!/usr/bin/env python3
"""Decompression bombs for the tests, built at run time (small files that inflate to a lot).
usage:
  bombs.py zip OUT MEMBER [MiB]          a zip / .pk3 whose MEMBER is MiB (default 1024) of zeros,
                                         deflated (about 1 MB)
  bombs.py pakfile MAP OUT MEMBER [MiB]  a copy of the Source map MAP whose pakfile keeps its entries
                                         and gains MEMBER (or has it replaced), MiB (default 1024) of
                                         deflated zeros
  bombs.py lzma MAP OUT LUMP MiB [lie]   a copy of the Source map MAP whose lump LUMP becomes an LZMA
                                         lump of MiB of zeros (with 'lie': the header says MiB, the
                                         stream holds 1 KiB)
The deflate stream is one full-flushed block of 1 MiB of zeros repeated: each such block starts
with an empty history, so the copies are byte-identical and the bomb costs nothing to make."""
import lzma
import struct
import sys
import zipfile
import zlib

MIB = 1 << 20


def zero_deflate(mib):
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    c.compress(b"")
    first = c.compress(b"\0" * MIB) + c.flush(zlib.Z_FULL_FLUSH)
    block = c.compress(b"\0" * MIB) + c.flush(zlib.Z_FULL_FLUSH)
    assert first == block
    crc, z = 0, b"\0" * MIB
    for _ in range(mib):
        crc = zlib.crc32(z, crc)
    return block * mib + c.flush(), crc & 0xFFFFFFFF


def zip_bytes(entries):
    """entries: (name, method, crc, usize, payload) -> the bytes of a zip holding them"""
    out, cdir = bytearray(), bytearray()
    for name, method, crc, usize, payload in entries:
        nm = name.encode()
        ofs = len(out)
        out += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, method, 0, 0, crc, len(payload), usize, len(nm), 0)
        out += nm + payload
        cdir += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, method, 0, 0, crc, len(payload), usize,
                            len(nm), 0, 0, 0, 0, 0, ofs)
        cdir += nm
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(entries), len(entries), len(cdir), len(out), 0)
    return bytes(out + cdir + end)


def bomb_entry(member, mib):
    payload, crc = zero_deflate(mib)
    return (member, 8, crc, mib * MIB, payload)


def existing_entries(blob):
    import io
    res = []
    with zipfile.ZipFile(io.BytesIO(blob)) as z:
        for info in z.infolist():
            data = z.read(info)
            c = zlib.compressobj(6, zlib.DEFLATED, -15)
            res.append((info.filename, 8, zlib.crc32(data) & 0xFFFFFFFF, len(data), c.compress(data) + c.flush()))
    return res


def set_lump(d, i, blob, fourcc=0):
    """append blob (4-aligned) as lump i of the Source map d (bytearray)"""
    while len(d) % 4:
        d += b"\0"
    ofs = len(d)
    d += blob
    ver = struct.unpack_from("<i", d, 8 + 16 * i + 8)[0]
    struct.pack_into("<iiii", d, 8 + 16 * i, ofs, len(blob), ver, fourcc)


def main():
    a = sys.argv[1:]
    if a[0] == "zip":
        mib = int(a[3]) if len(a) > 3 else 1024
        open(a[1], "wb").write(zip_bytes([bomb_entry(a[2], mib)]))
    elif a[0] == "pakfile":
        d = bytearray(open(a[1], "rb").read())
        mib = int(a[4]) if len(a) > 4 else 1024
        ofs, ln = struct.unpack_from("<ii", d, 8 + 16 * 40)
        old = existing_entries(bytes(d[ofs:ofs + ln])) if ln else []
        # an entry of the same name is replaced (where the map looks for it)
        same = [k for k, e in enumerate(old) if e[0].lower() == a[3].lower()]
        if same:
            old[same[0]] = bomb_entry(old[same[0]][0], mib)
        else:
            old.append(bomb_entry(a[3], mib))
        set_lump(d, 40, zip_bytes(old))
        open(a[2], "wb").write(d)
    elif a[0] == "lzma":
        d = bytearray(open(a[1], "rb").read())
        lump, size = int(a[3]), int(a[4]) * MIB
        lie = len(a) > 5 and a[5] == "lie"
        c = lzma.LZMACompressor(format=lzma.FORMAT_ALONE,
                                filters=[{"id": lzma.FILTER_LZMA1, "dict_size": 1 << 16, "preset": 0}])
        z, parts = b"\0" * MIB, []
        for _ in range(1 if lie else size // MIB):
            parts.append(c.compress(z[:1024] if lie else z))
        alone = b"".join(parts) + c.flush()
        props, body = alone[:5], alone[13:]
        set_lump(d, lump, b"LZMA" + struct.pack("<II", size, len(body)) + props + body, size)
        open(a[2], "wb").write(d)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
