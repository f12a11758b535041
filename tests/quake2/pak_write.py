#!/usr/bin/python3
"""A minimal id PACK (.pak) writer for the tests: pak_write.py OUT.pak ROOT [NAME=FILE...]
packs every file under ROOT by its relative path, then each NAME=FILE given; prints the count."""
import os
import struct
import sys

out, root = sys.argv[1], sys.argv[2]
files = []
if root != "-":
    for d, _, names in sorted(os.walk(root)):
        for n in sorted(names):
            p = os.path.join(d, n)
            files.append((os.path.relpath(p, root).replace(os.sep, "/"), p))
files += [tuple(a.split("=", 1)) for a in sys.argv[3:]]
body, dirs, at = bytearray(), bytearray(), 12
for name, path in files:
    data = open(path, "rb").read()
    assert len(name) < 56, name
    dirs += name.encode().ljust(56, b"\0") + struct.pack("<ii", at, len(data))
    body += data
    at += len(data)
with open(out, "wb") as f:
    f.write(b"PACK" + struct.pack("<ii", at, len(dirs)) + body + dirs)
print(len(files))
