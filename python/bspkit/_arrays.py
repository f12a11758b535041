"""A loaded file's decoded arrays, listed and described by the library (bk_file_array): their
names, element size and fields come from the family's rows, so nothing here knows a family, a
struct or a member name. Each array is a read-only numpy view over the library's memory."""
from __future__ import annotations

from typing import Any, Dict, List, Tuple

import numpy as np

from ._core import Diags, NotFoundError, view
from ._native import ffi, lib

# numpy's code of each value type (native byte order: the library's memory)
_NUMPY = {lib.BK_ARRAY_U8: "u1", lib.BK_ARRAY_I8: "i1", lib.BK_ARRAY_U16: "u2", lib.BK_ARRAY_I16: "i2",
          lib.BK_ARRAY_U32: "u4", lib.BK_ARRAY_I32: "i4", lib.BK_ARRAY_F32: "f4", lib.BK_ARRAY_U64: "u8",
          lib.BK_ARRAY_BYTES: "u1"}
_DTYPES: Dict[Tuple[Any, ...], Tuple[np.dtype, Tuple[int, ...]]] = {}


def _shape(fd: Any) -> Tuple[int, ...]:
    """A field's shape: shape[] without its trailing 1s (a scalar: ())."""
    s = [int(fd.shape[k]) for k in range(3)]
    while s and s[-1] == 1:
        s.pop()
    return tuple(s)


def _field(fd: Any) -> Tuple[Any, Tuple[int, ...]]:
    if fd.type == lib.BK_ARRAY_CHARS:
        return np.dtype("S%d" % fd.count), ()
    return np.dtype(_NUMPY[fd.type]), _shape(fd)


def describe(a: Any) -> Tuple[np.dtype, Tuple[int, ...]]:
    """The numpy dtype of a bk_array_info's element and the inner shape of its view: an element
    that is one field of numbers is those numbers ((N, 3) float32 vertices), else a structured
    dtype with every field at its offset."""
    fields = [a.fields[i] for i in range(a.field_count)]
    key = (a.elem_size,) + tuple((ffi.string(f.name), f.type, f.offset, f.count, _shape(f)) for f in fields)
    if key in _DTYPES:
        return _DTYPES[key]
    if len(fields) == 1 and fields[0].offset == 0 and fields[0].type != lib.BK_ARRAY_CHARS:
        base, shape = _field(fields[0])
        if base.itemsize * int(np.prod(shape, dtype=np.int64)) == a.elem_size:
            _DTYPES[key] = (base, shape)
            return base, shape
    names, formats, offsets = [], [], []
    for f in fields:
        base, shape = _field(f)
        names.append(ffi.string(f.name).decode())
        formats.append((base, shape) if shape else base)
        offsets.append(int(f.offset))
    dt = np.dtype({"names": names, "formats": formats, "offsets": offsets, "itemsize": int(a.elem_size)})
    _DTYPES[key] = (dt, ())
    return dt, ()


def _info(f: Any, i: int, diags: Diags, path: str) -> Any:
    a = ffi.new("bk_array_info *")
    diags.check(lib.bk_file_array(f, i, a), path)
    return a


def names(f: Any, diags: Diags, path: str) -> List[str]:
    """The names of bk_file f's arrays, in the library's order."""
    return [ffi.string(_info(f, i, diags, path).name).decode() for i in range(lib.bk_file_array_count(f))]


def find(f: Any, name: str, diags: Diags, path: str) -> Any:
    """The bk_array_info of array `name` (an array there since the open, such as a Source map's
    props, read without finishing a deferred load), or NotFoundError naming those there are."""
    i = lib.bk_file_array_index(f, name.encode())
    if i < 0:
        seen = [ffi.string(_info(f, k, diags, path).name).decode() for k in range(lib.bk_file_array_count(f))]
        raise NotFoundError("%s: no array %r here (%s)" % (path, name, ", ".join(seen) or "none"))
    return _info(f, i, diags, path)


def as_numpy(owner: Any, a: Any) -> np.ndarray:
    """Array a as a read-only numpy view that keeps owner (the file) alive."""
    dt, inner = describe(a)
    return view(owner, ffi.cast("uint8_t *", a.data), int(a.count), dt, inner)


def as_dict(a: Any) -> Dict[str, Any]:
    """What the library says of array a: name, lump (-1: none), count, elem_size and its fields
    (name, type as numpy's code or "chars", offset, shape)."""
    out: Dict[str, Any] = {"name": ffi.string(a.name).decode(), "lump": int(a.lump), "count": int(a.count),
                           "elem_size": int(a.elem_size), "fields": []}
    for i in range(a.field_count):
        f = a.fields[i]
        t = "chars" if f.type == lib.BK_ARRAY_CHARS else ("bytes" if f.type == lib.BK_ARRAY_BYTES else _NUMPY[f.type])
        out["fields"].append({"name": ffi.string(f.name).decode(), "type": t, "offset": int(f.offset),
                              "shape": _shape(f) or (1,)})
    return out
