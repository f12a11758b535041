"""Archives (zip / .pk3, a Source map's pakfile, VPK) with a zipfile-like face."""
from __future__ import annotations

import os
from typing import Any, List, NamedTuple, Optional

from ._core import Diags, Options, take_block
from ._native import ffi, lib


class ArchiveEntry(NamedTuple):
    name: str
    size: int
    compressed_size: int
    crc: int
    method: int
    is_dir: bool


class Archive:
    """Entries of a zip, a pakfile or a VPK: ``namelist()``, ``infolist()``, ``read(name)``,
    ``name in archive``. Reads are CRC-checked and bounded by the library's limits."""

    def __init__(self, a, keep: Any = None, opts: Optional[Options] = None):
        self._a = a
        self._keep = keep  # what the archive reads from (a Map, bytes)
        self._opts = opts

    @classmethod
    def _open_path(cls, path: str) -> "Archive":
        o = Options(name=str(path))
        out = ffi.new("bk_archive **")
        r = lib.bk_archive_open(os.fsencode(path), o.c, out)
        o.diags.check(r, str(path))
        return cls(out[0], None, o)

    def close(self) -> None:
        if self._a is not None:
            lib.bk_archive_close(self._a)
            self._a = None

    def __del__(self):
        self.close()

    def __enter__(self) -> "Archive":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _live(self):
        if self._a is None:
            raise ValueError("archive is closed")
        return self._a

    def __len__(self) -> int:
        return int(lib.bk_archive_count(self._live()))

    def infolist(self) -> List[ArchiveEntry]:
        a, out = self._live(), []
        for i in range(lib.bk_archive_count(a)):
            e = lib.bk_archive_entry_at(a, i)
            out.append(ArchiveEntry(ffi.string(e.name).decode("utf-8", "surrogateescape"), int(e.size),
                                    int(e.compressed_size), int(e.crc), int(e.method), bool(e.is_dir)))
        return out

    def namelist(self) -> List[str]:
        return [e.name for e in self.infolist()]

    def _find(self, name: str) -> int:
        i = lib.bk_archive_find(self._live(), name.encode("utf-8", "surrogateescape"))
        if i < 0:
            raise KeyError(name)
        return i

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and lib.bk_archive_find(self._live(), name.encode("utf-8", "surrogateescape")) >= 0

    def read(self, name: str, max_bytes: int = 2**64 - 1) -> bytes:
        """The bytes of the entry named name (case-insensitive, as the engines look up);
        KeyError when there is none."""
        i = self._find(name)
        out, size = ffi.new("uint8_t **"), ffi.new("size_t *")
        d = self._opts.fresh_diags() if self._opts else Diags()
        r = lib.bk_archive_read(self._a, i, max_bytes, out, size)
        d.check(r, name)
        return take_block(out[0], size[0])

    def __repr__(self) -> str:
        return "<bspkit.Archive, %d entries>" % len(self) if self._a is not None else "<bspkit.Archive closed>"
