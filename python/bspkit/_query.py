"""Map's queries (point location, traces, PVS rows) over many points at once, the GIL released
while C works."""
from __future__ import annotations

from typing import Any, Dict, Optional, Union

import numpy as np

from ._core import ArgumentError, c_int, c_text, make_error
from ._native import ffi, lib

#: what Map.point returns per point
POINT_DTYPE = np.dtype({"names": ["leaf", "contents", "native_contents", "cluster", "area"],
                        "formats": ["i4", "u4", "i4", "i4", "i4"], "offsets": [0, 4, 8, 12, 16], "itemsize": 20})
#: what Map.trace returns per segment
TRACE_DTYPE = np.dtype({"names": ["fraction", "endpos", "normal", "dist", "contents", "native_contents", "surface",
                                  "startsolid", "allsolid"],
                        "formats": ["f4", ("f4", 3), ("f4", 3), "f4", "u4", "i4", "i4", "?", "?"],
                        "offsets": [0, 4, 16, 28, 32, 36, 40, 44, 45], "itemsize": 48})
assert POINT_DTYPE.itemsize == ffi.sizeof("bkpy_point") and TRACE_DTYPE.itemsize == ffi.sizeof("bkpy_trace")


def _mask(mask: Union[None, int, str]) -> int:
    if mask is None:
        return 0
    if isinstance(mask, str):
        out = ffi.new("uint32_t *")
        if lib.bk_contents_parse(c_text(mask, "mask"), out) != 0:
            raise ArgumentError("unknown contents in mask %r" % mask, lib.BK_EARG)
        return int(out[0])
    return c_int(mask, "uint32_t", "mask")


class QueryMixin:
    """Map's queries (bspkit.Map derives from it)."""

    def _q(self, h: Any) -> Any:
        """h's query, opened on first use (once, whichever threads ask)."""
        if h.query is None:
            with h.lock:
                if h.query is None:
                    h.query = self._make(h, "bk_query **", lib.bk_query_open)
        return h.query

    @property
    def query_info(self) -> Dict[str, Any]:
        h = self._live()
        qi = ffi.new("bk_query_info *")
        lib.bk_query_get_info(self._q(h), qi)
        return {"models": int(qi.model_count), "leaves": int(qi.leaf_count), "clusters": int(qi.cluster_count),
                "faces": int(qi.face_count), "hulls": int(qi.hull_count), "has_pas": bool(qi.has_pas)}

    def point(self, points: Any, model: int = 0, threads: int = 1) -> np.ndarray:
        """Where each point lies: points is (3,) or (N, 3); a structured array of POINT_DTYPE
        (leaf, contents = BK_CONTENTS_* bits, native_contents, cluster, area), N long.
        threads > 1 splits the array over that many threads (the GIL is released in C)."""
        model = c_int(model, "uint32_t", "model")
        p = _points(points)
        h = self._live()
        q = self._q(h)
        out = np.empty(len(p), POINT_DTYPE)

        def run(i: int, j: int) -> int:
            return lib.bkpy_points(q, model, ffi.from_buffer("float[]", p[i:j]), j - i,
                                   ffi.from_buffer("bkpy_point[]", out[i:j]))
        r = _split(len(p), threads, run)
        if r != 0:
            _raise_points(r, "%s: point" % self.path, p)
        return out

    def trace(self, start: Any, end: Any, mins: Any = None, maxs: Any = None, mask: Union[None, int, str] = None,
              hull: Optional[int] = None, model: int = 0, threads: int = 1) -> np.ndarray:
        """Sweep a point (or the box mins..maxs) from each start to its end: a structured array of
        TRACE_DTYPE (fraction, endpos, normal, dist, contents, native_contents, surface,
        startsolid, allsolid). start and end are (3,) or (N, 3) (broadcast); mask: BK_CONTENTS_*
        bits or names ("solid|playerclip"), None = what stops a player. GoldSrc / Quake: hull
        0..3, or a box (the engine's hull for it). The GIL is released while C works; threads > 1
        splits the segments over that many threads."""
        a, b = np.broadcast_arrays(_points(start), _points(end))
        a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
        tp = ffi.new("bk_trace_params *")
        tp.model = c_int(model, "uint32_t", "model")
        tp.mask = _mask(mask)
        if (mins is None) != (maxs is None):
            raise ArgumentError("mins and maxs go together")
        if mins is not None:
            tp.mins = [float(x) for x in np.asarray(mins, np.float32).reshape(3)]
            tp.maxs = [float(x) for x in np.asarray(maxs, np.float32).reshape(3)]
            tp.hull = -1
        if hull is not None:
            tp.hull = c_int(hull, "int32_t", "hull")
        h = self._live()
        q = self._q(h)
        out = np.empty(len(a), TRACE_DTYPE)

        def run(i: int, j: int) -> int:
            return lib.bkpy_traces(q, tp, ffi.from_buffer("float[]", a[i:j]), ffi.from_buffer("float[]", b[i:j]), j - i,
                                   ffi.from_buffer("bkpy_trace[]", out[i:j]))
        r = _split(len(a), threads, run)
        if r != 0:
            _raise_points(r, "%s: trace" % self.path, a, b)
        return out

    def pvs(self, cluster: int, pas: bool = False) -> np.ndarray:
        """The PVS (or PAS) row of a cluster as a bool array over clusters (all True when the
        map has no visibility data)."""
        cluster = c_int(cluster, "int32_t", "cluster")
        h = self._live()
        q = self._q(h)
        n = lib.bk_query_row_bytes(q)
        qi = self.query_info
        row = np.zeros(max(n, 1), np.uint8)
        r = lib.bk_query_vis_row(q, lib.BK_VIS_PAS if pas else lib.BK_VIS_PVS, cluster, ffi.from_buffer("uint8_t[]", row))
        if r != 0:
            raise make_error(r, "%s: cluster %d" % (self.path, cluster))
        return np.unpackbits(row, bitorder="little")[:qi["clusters"]].astype(bool)

    def visible(self, a: Any, b: Any) -> np.ndarray:
        """Whether the leaf holding each b is potentially visible from the leaf holding its a
        (bool array, N long)."""
        h = self._live()
        q = self._q(h)
        pa, pb = np.broadcast_arrays(_points(a), _points(b))
        pa, pb = np.ascontiguousarray(pa), np.ascontiguousarray(pb)
        out = np.empty(len(pa), np.uint8)
        lib.bkpy_visible(q, ffi.from_buffer("float[]", pa), ffi.from_buffer("float[]", pb), len(pa),
                         ffi.from_buffer("uint8_t[]", out))
        return out.astype(bool)


def _split(n: int, threads: int, run: Any) -> int:
    """run(i, j) over [0, n) in `threads` pieces at once (each releases the GIL): the first
    non-zero result, else 0."""
    if threads <= 1 or n < 2 * threads:
        return run(0, n) if n else 0
    from concurrent.futures import ThreadPoolExecutor
    cuts = [n * k // threads for k in range(threads + 1)]
    with ThreadPoolExecutor(threads) as ex:
        results = list(ex.map(run, cuts[:-1], cuts[1:]))
    return next((r for r in results if r != 0), 0)


def _points(p: Any) -> np.ndarray:
    a = np.ascontiguousarray(p, dtype=np.float32)
    if a.ndim == 1:
        a = a.reshape(1, -1)
    if a.ndim != 2 or a.shape[1] != 3:
        raise ArgumentError("points must be (3,) or (N, 3), not %s" % (a.shape,))
    return a


def _raise_points(r: int, what: str, *arrays: np.ndarray) -> None:
    """The error of a failed batch: a bad argument names the first point that is not finite."""
    if r == lib.BK_EARG:
        bad = np.zeros(len(arrays[0]), bool)
        for a in arrays:
            bad |= ~np.isfinite(a).all(axis=1)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            pts = " -> ".join("(%g, %g, %g)" % tuple(a[i]) for a in arrays)
            raise ArgumentError("%s: point %d %s is not finite" % (what, i, pts), r, index=i)
    raise make_error(r, what)

