"""Archives (zip / .pk3, a Source map's pakfile, VPK) with a zipfile-like face."""
from __future__ import annotations

from typing import Any, List, NamedTuple, Optional

from ._core import Diags, Held, Options, c_int, c_path, c_text, held, take_block
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
    ``name in archive``. Reads are CRC-checked and bounded by the library's limits. A map's pakfile
    holds the map's memory while the archive lives. close() is idempotent and waits for no one:
    a read in flight keeps the archive until it returns; later calls raise ClosedError. Reads from
    several threads take turns (one archive is not thread-safe in the library)."""

    def __init__(self, a, keep: Any = None, opts: Optional[Options] = None):
        # keep: what the archive reads from (a map's held file, bytes); opts: its diagnostics
        self._h: Optional[Held] = Held(a, lib.bk_archive_close, (keep, opts))
        self._opts = opts

    @classmethod
    def _open_path(cls, path: str) -> "Archive":
        cpath = c_path(path)
        o = Options(name=str(path))
        out = ffi.new("bk_archive **")
        r = lib.bk_archive_open(cpath, o.c, out)
        o.diags.check(r, str(path))
        return cls(out[0], None, o)

    def close(self) -> None:
        self._h = None

    def __enter__(self) -> "Archive":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _live(self) -> Held:
        return held(self, "the archive")

    def __len__(self) -> int:
        return int(lib.bk_archive_count(self._live().ptr))

    def infolist(self) -> List[ArchiveEntry]:
        h, out = self._live(), []
        a = h.ptr
        for i in range(lib.bk_archive_count(a)):
            e = lib.bk_archive_entry_at(a, i)
            out.append(ArchiveEntry(ffi.string(e.name).decode("utf-8", "surrogateescape"), int(e.size),
                                    int(e.compressed_size), int(e.crc), int(e.method), bool(e.is_dir)))
        return out

    def namelist(self) -> List[str]:
        return [e.name for e in self.infolist()]

    @staticmethod
    def _find(h: Held, name: str) -> int:
        i = lib.bk_archive_find(h.ptr, c_text(name, "archive member"))
        if i < 0:
            raise KeyError(name)
        return i

    def __contains__(self, name: object) -> bool:
        h = self._live()
        if not isinstance(name, str) or "\0" in name:
            return False
        return lib.bk_archive_find(h.ptr, name.encode("utf-8", "surrogateescape")) >= 0

    def read(self, name: str, max_bytes: int = 2**64 - 1) -> bytes:
        """The bytes of the entry named name (case-insensitive, as the engines look up);
        KeyError when there is none."""
        max_bytes = c_int(max_bytes, "uint64_t", "max_bytes")
        h = self._live()
        i = self._find(h, name)
        out, size = ffi.new("uint8_t **"), ffi.new("size_t *")
        with h.lock:
            d = self._opts.fresh_diags() if self._opts else Diags()
            r = lib.bk_archive_read(h.ptr, i, max_bytes, out, size)
            d.check(r, name)
        return take_block(out[0], size[0])

    def __repr__(self) -> str:
        return "<bspkit.Archive, %d entries>" % len(self) if self._h is not None else "<bspkit.Archive closed>"
