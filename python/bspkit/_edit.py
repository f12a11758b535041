"""Map's editing: entities, lumps and pakfile members replaced, the map saved."""
from __future__ import annotations

import os
from contextlib import contextmanager
from typing import Any, Dict, Iterator, List, Sequence, Union

from ._core import c_path, c_text
from ._core import raise_write as _raise_write
from ._native import ffi, lib

PathLike = Union[str, "os.PathLike[str]"]


class EditMixin:
    """Map's editing (bspkit.Map derives from it)."""

    @contextmanager
    def _editing(self) -> Iterator[Any]:
        """The map's bk_edit (begun on first use), one thread at a time (an edit is not
        thread-safe), the file held meanwhile."""
        h = self._live()
        with h.lock:
            if h.edit is None:
                h.edit = self._make(h, "bk_edit **", lib.bk_edit_begin)
            yield h.edit

    def set_entities(self, entities: Sequence[Any]) -> None:
        """Replace the entity lump (applied by save()): each entity an Entity or a sequence of
        (key, value) pairs (or a dict). Text is written back in the map's own encoding."""
        keep: List[Any] = []
        ents = ffi.new("bk_entity[]", max(len(entities), 1))
        keep.append(ents)
        for i, ent in enumerate(entities):
            pairs = list(ent.items()) if isinstance(ent, dict) else list(ent)
            kv = ffi.new("bk_kv[]", max(len(pairs), 1))
            keep.append(kv)
            for j, (k, v) in enumerate(pairs):
                kb = ffi.new("char[]", c_text(k, "entity %d key" % i))
                vb = ffi.new("char[]", c_text(v, "entity %d value" % i))
                keep += [kb, vb]
                kv[j].key, kv[j].value = kb, vb
            ents[i].pairs, ents[i].pair_count = kv, len(pairs)
        es = ffi.new("bk_entities *")
        es.items, es.count = ents, len(entities)
        with self._editing() as e:
            d = self._opts.fresh_diags()
            r = lib.bk_edit_set_entities(e, es)
            d.check(r, self.path or "")

    def set_lump(self, name: Union[str, int], data: bytes) -> None:
        """Replace a lump's bytes (by name or header index; applied by save())."""
        i = self._lump_index(name)
        data = bytes(data)
        with self._editing() as e:
            d = self._opts.fresh_diags()
            r = lib.bk_edit_set_lump(e, i, ffi.from_buffer(data), len(data))
            d.check(r, self.path or "")

    def pak_add(self, name: str, data: bytes) -> None:
        """Source: add or replace a pakfile member (stored uncompressed; applied by save())."""
        cname, data = c_text(name, "pakfile member"), bytes(data)
        with self._editing() as e:
            d = self._opts.fresh_diags()
            r = lib.bk_edit_pak_add(e, cname, ffi.from_buffer(data), len(data))
            d.check(r, "%s: %s" % (self.path, name))

    def pak_remove(self, glob: str) -> int:
        """Source: remove every pakfile member matching glob; how many (applied by save())."""
        cglob = c_text(glob, "glob")
        n = ffi.new("uint32_t *")
        with self._editing() as e:
            d = self._opts.fresh_diags()
            r = lib.bk_edit_pak_remove(e, cglob, n)
            d.check(r, self.path or "")
        return int(n[0])

    def save(self, path: PathLike) -> None:
        """Write the map with the edits made so far (validated, written to a temporary file beside
        path and renamed over it: a failure leaves path as it was). With no edit the bytes are
        the input's."""
        cpath = c_path(path)
        with self._editing() as e:
            d = self._opts.fresh_diags()
            r = lib.bk_edit_save(e, cpath)
            if r != 0:
                if d.errors:
                    d.check(r, os.fspath(path))
                _raise_write(r, os.fspath(path))

    def decompile(self, path: PathLike) -> Dict[str, Any]:
        """Write the map's editable source to path (.vmf for a Source map, .map for a Quake 3
        one), as `bspkit decompile MAP -o PATH`; what was written, as its --json counts."""
        from ._decompile import decompile
        return decompile(self, path)

    def to_bytes(self) -> bytes:
        """The edited map in memory (validated)."""
        out, size = ffi.new("uint8_t **"), ffi.new("size_t *")
        with self._editing() as e:
            d = self._opts.fresh_diags()
            r = lib.bk_edit_save_memory(e, out, size)
            d.check(r, self.path or "")
