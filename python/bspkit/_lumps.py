"""The lump directory of a loaded file and a lump's bytes, as the library gives them (Source's
LZMA lumps decoded by bk_lump_bytes: nothing here knows a family)."""
from __future__ import annotations

from typing import Any, List, NamedTuple, Optional, Union

from ._core import Diags, NotFoundError
from ._native import ffi, lib


class Lump(NamedTuple):
    """One entry of the file's lump directory, as `bspkit info --json` lists it."""
    index: int
    name: str
    offset: int
    size: int           #: bytes in the file
    crc32: Optional[int]  #: zlib CRC-32 of the stored bytes (None when they lie outside the file)
    count: int          #: elements, -1 when not an array lump
    version: int
    compressed: bool
    uncompressed: int


def lumps(f: Any) -> List[Lump]:
    """The directory of bk_file f."""
    inf = lib.bk_file_info(f)
    size = ffi.new("size_t *")
    data = lib.bk_file_data(f, size)
    out = []
    for i in range(inf.lump_count):
        l = inf.lumps[i]
        crc = None
        if data != ffi.NULL and l.offset <= size[0] and l.length <= size[0] - l.offset:
            crc = int(lib.bk_crc32(data + l.offset, l.length))
        out.append(Lump(i, ffi.string(l.name).decode(), int(l.offset), int(l.length), crc, int(l.count),
                        int(l.version), bool(l.compressed), int(l.uncompressed)))
    return out


def lump_index(f: Any, name: Union[str, int], path: Optional[str]) -> int:
    """The directory index of a lump given by name or index; NotFoundError else."""
    inf = lib.bk_file_info(f)
    if isinstance(name, int):
        if not 0 <= name < inf.lump_count:
            raise NotFoundError("lump %d out of range (%d lumps)" % (name, inf.lump_count))
        return name
    for i in range(inf.lump_count):
        if ffi.string(inf.lumps[i].name).decode() == name:
            return i
    raise NotFoundError("%s: no lump named %r" % (path, name))


def lump_bytes(f: Any, index: int, diags: Diags, path: Optional[str]) -> bytes:
    """Directory entry index's bytes, decoded where the map stores them compressed."""
    data, size = ffi.new("uint8_t **"), ffi.new("size_t *")
    r = lib.bk_lump_bytes(f, index, data, size)
    diags.check(r, path or "")
    return bytes(ffi.buffer(data[0], size[0])) if size[0] else b""
