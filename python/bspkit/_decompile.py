"""Map.decompile: the map's editable source (bk_decompile), written through the library's write
group (a temporary file renamed over the path: a failure leaves it as it was)."""
from __future__ import annotations

import os
from typing import Any, Dict

from ._core import ArgumentError, c_path, raise_write
from ._native import ffi, lib

_EXTS = (".vmf", ".map")   # the library picks the family's own form; the path must name it
_STATS = [name for name in dir(ffi.new("bk_decompile_stats *")[0]) if not name.startswith("_")]


def decompile(m: Any, path: Any) -> Dict[str, Any]:
    """Write m's source to path (.vmf: a Source map for Hammer; .map: a Quake 3 map for q3map2 /
    NetRadiant; a Quake 1 / BSP2 / GoldSrc map as a Valve 220 .map), as `bspkit decompile MAP -o PATH`
    writes it. Returns what was written (the
    counts of `bspkit decompile --json`). Raises the located error for a family or format the map
    cannot give (a .vmf of a Quake 3 map, a DPM model)."""
    cpath = c_path(path)
    ext = os.path.splitext(os.fspath(path))[1].lower()
    if ext not in _EXTS:
        raise ValueError("decompile: %r must end in .vmf or .map" % (os.fspath(path), ))
    h = m._live()
    d = m._opts.fresh_diags()
    text, size = ffi.new("char **"), ffi.new("size_t *")
    st = ffi.new("bk_decompile_stats *")
    r = lib.bk_decompile(h.ptr, m._opts.c, lib.BK_DECOMPILE_AUTO, text, size, st)
    d.check(r, m.path or "")
    try:
        own = "." + ffi.string(lib.bk_decompile_format_ext(st[0].format)).decode()
        if own != ext:
            raise ArgumentError("decompile: a %s map decompiles to %s, not %r" % (m.format, own, os.fspath(path)))
        g = ffi.new("bk_write_group **")
        r = lib.bk_write_group_begin(g, 0)
        if r == 0:
            r = lib.bk_write_group_file(g[0], cpath, text[0], size[0])
            if r == 0:
                r = lib.bk_write_group_commit(g[0])
            else:
                lib.bk_write_group_abort(g[0])
        if r != 0:
            raise_write(r, os.fspath(path))
    finally:
        lib.bk_free(text[0])
    out: Dict[str, Any] = {k: int(getattr(st[0], k)) for k in _STATS if k != "format"}
    out["format"] = ffi.string(lib.bk_decompile_format_ext(st[0].format)).decode()
    out["bytes"] = int(size[0])
    return out
