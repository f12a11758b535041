#!/usr/bin/env python3
"""Seeds for fuzz_pak: small PACK archives made here (fuzz/run.sh runs this with the seeds folder
as argument): a few files, an empty archive, one with a file in folders, and one with long names."""
import struct, sys


def pak(files):
    body, dirs, at = b"", b"", 12
    for name, data in files:
        dirs += name.encode()[:55].ljust(56, b"\0") + struct.pack("<ii", at, len(data))
        body += data
        at += len(data)
    return b"PACK" + struct.pack("<ii", at, len(dirs)) + body + dirs


out = sys.argv[1]
seeds = {
    "three.pak": [("maps/a.bsp", b"IBSP" + bytes(12)), ("pics/colormap.pcx", b"\x0a\x05\x01\x08"), ("e.txt", b"")],
    "empty.pak": [],
    "deep.pak": [("textures/e1u1/floor1_3.wal", bytes(100)), ("TEXTURES/E1U1/FLOOR1_3.WAL", b"x")],
    "long.pak": [("a" * 55, b"1234"), ("b/" * 27, b"5678")],
}
for name, files in seeds.items():
    with open(f"{out}/{name}", "wb") as f:
        f.write(pak(files))
