"""bspkit: Quake-family map and model files (GoldSrc, Quake 1 / BSP2, Quake 3, Source, DPM,
MDL, VTF, WAD3) from Python, through the bspkit C library (cffi, API mode).

    import bspkit
    m = bspkit.open("maps/de_dust2.bsp")
    print(m.format, m.version, len(m.entities), m.entities[0]["classname"])
    hits = m.trace(starts, ends)                 # numpy in, numpy out, the GIL released
    m.to_gltf("dust2.glb")                       # the bytes `bspkit convert` writes

Arrays come from the library's memory without copying where its layout allows (typed lumps,
scene vertices); they are read-only and keep their map or scene alive.
"""
from __future__ import annotations

import os
from typing import Any, Dict, Optional, Sequence, Tuple, Union

from . import vpk
from ._archive import Archive, ArchiveEntry
from ._core import (ArgumentError, BadIndexError, ClosedError, DecompressError, Error, FormatError, IOError_,
                    LimitError, LumpError, NotFoundError, Options, TruncatedError, UnsupportedError, VersionError,
                    BspkitWarning, c_path, c_text)
from ._entities import Entity
from ._lumps import Lump
from ._map import Map, game_facts
from ._native import ffi, lib
from ._query import POINT_DTYPE, TRACE_DTYPE
from ._scene import Scene

__version__ = "0.1.0"
Warning = BspkitWarning  # noqa: A001 - bspkit.Warning, the category of the library's warnings

__all__ = [
    "open", "Map", "Entity", "Lump", "Scene", "Archive", "ArchiveEntry", "vpk", "Error", "TruncatedError",
    "FormatError", "VersionError", "LumpError", "BadIndexError", "LimitError", "DecompressError",
    "UnsupportedError", "ArgumentError", "ClosedError", "NotFoundError", "IOError_", "Warning", "POINT_DTYPE",
    "TRACE_DTYPE", "contents_names", "library_version", "game",
]

PathLike = Union[str, "os.PathLike[str]"]


def library_version() -> str:
    """The version of the bspkit library compiled into the package."""
    return ffi.string(lib.bk_version()).decode()


def contents_names(contents: int) -> str:
    """"empty" or the BK_CONTENTS_* names joined by '|' ("water|current")."""
    buf = ffi.new("char[]", 512)
    lib.bk_contents_format(contents, buf, 512)
    return ffi.string(buf).decode()



def game(format: str) -> Optional[Dict[str, Any]]:  # noqa: A002 - the format's name, as Map.format
    """What the game of a format ("quake3", as Map.format and a scene's "format" extra name it)
    does with a map, from the library's version rows: eye_height (the eye above a spawn entity's
    origin), spawn_classes, hull_mins / hull_maxs (the standing player's box). None for formats
    without (textures, models)."""
    return game_facts(lib.bk_format_game(lib.bk_format_parse(c_text(format, "format"))))


def _split_member(path: str) -> Optional[Tuple[str, str]]:
    for ext in (".pk3:", ".zip:"):
        i = path.rfind(ext)
        if i >= 0:
            return path[:i + 4], path[i + 5:]
    return None


# a Source map's geometry is decoded (LZMA) and checked on first use (Map._complete)
_DEFER = lib.BK_OPT_DEFER_GEOMETRY


def open(source: Union[PathLike, bytes, bytearray, memoryview], game_dirs: Sequence[PathLike] = (),  # noqa: A001
         wads: Sequence[PathLike] = (), *, name: Optional[str] = None, framegroups: Optional[PathLike] = None) -> Map:
    """Load a map or model from a path (``ARCHIVE.pk3:maps/x.bsp`` reads a member) or from bytes.

    game_dirs, wads: where textures, shaders, models and WADs are looked up (folders, .wad, .pk3,
    .zip, VPKs), as `bspkit --game-dir / --wad`. Raises a bspkit.Error subclass (located: file,
    lump, index, offset) on bad input; warnings go to Python's warnings (bspkit.Warning)."""
    search = [os.fspath(p) for p in wads] + [os.fspath(p) for p in game_dirs]
    out = ffi.new("bk_file **")
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        o = Options(name=name or "<bytes>", search_paths=search,
                    framegroups=os.fspath(framegroups) if framegroups else None, flags=_DEFER)
        buf = ffi.from_buffer(data)
        r = lib.bk_file_load_memory(buf, len(data), o.c, out)
        o.diags.check(r, name or "<bytes>")
        return Map(out[0], o, (data, buf), name)
    path = os.fspath(source)
    base = os.path.dirname(path) or "."
    member = _split_member(path)
    if member:
        arc, mem = member
        with Archive._open_path(arc) as a:
            try:
                data = a.read(mem, 1 << 31)
            except KeyError:
                raise NotFoundError("%s: no member '%s' in the archive" % (arc, mem), 15, arc) from None
        o = Options(name=name or path, base_dir=base, search_paths=search + [arc],
                    framegroups=os.fspath(framegroups) if framegroups else None, flags=_DEFER)
        buf = ffi.from_buffer(data)
        r = lib.bk_file_load_memory(buf, len(data), o.c, out)
        o.diags.check(r, path)
        return Map(out[0], o, (data, buf), path)
    o = Options(name=name or path, base_dir=base, search_paths=search,
                framegroups=os.fspath(framegroups) if framegroups else None, flags=_DEFER)
    r = lib.bk_file_open(c_path(path), o.c, out)
    o.diags.check(r, path)
    return Map(out[0], o, None, path)
