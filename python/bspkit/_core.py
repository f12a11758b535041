"""Shared plumbing: errors, diagnostics, options, numpy views over library memory."""
from __future__ import annotations

import operator
import os
import threading
import warnings
import weakref
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ._native import ffi, lib

# ---- errors ------------------------------------------------------------------------------


class Error(Exception):
    """A bspkit failure. ``code`` is the library's bk_result, ``kind`` its short name
    ("truncated", "bad-index", ...); ``file``, ``lump``, ``index``, ``offset`` the place the
    library gave (None where it gave none). str(e) reads ``FILE: LUMP[INDEX] @OFFSET: error: MSG``
    when the library located the problem."""

    code = 0
    kind = "error"

    def __init__(self, message: str, code: int = 0, file: Optional[str] = None, lump: Optional[str] = None,
                 index: Optional[int] = None, offset: Optional[int] = None):
        super().__init__(message)
        if code:
            self.code = code
            self.kind = ffi.string(lib.bk_result_name(code)).decode()
        self.file, self.lump, self.index, self.offset = file, lump, index, offset


class TruncatedError(Error):
    """Data ends before a structure does."""


class FormatError(Error, ValueError):
    """Not a file of a known kind, or malformed content."""


class VersionError(FormatError):
    """A known kind in a version bspkit does not read."""


class LumpError(FormatError):
    """A lump lies outside the file or has a size that is not a multiple of its entries."""


class BadIndexError(FormatError):
    """A reference points outside its target array."""


class LimitError(Error):
    """A caller-set or format limit was exceeded (also arithmetic overflow of sizes)."""


class DecompressError(FormatError):
    """A compressed block failed to decode."""


class UnsupportedError(Error):
    """Valid but not handled (yet), e.g. queries on a WAD3."""


class ArgumentError(Error, ValueError):
    """A bad argument from the caller."""


class ClosedError(Error, ValueError):
    """A call on a Map, Archive or Scene after its close() (or free())."""

    kind = "closed"


class NotFoundError(Error, FileNotFoundError, LookupError):
    """A named resource (file, archive member, lump) was not found."""


class IOError_(Error, OSError):
    """Reading or writing a file failed."""


class BspkitWarning(UserWarning):
    """A located warning from the library (``warnings.warn`` category)."""


_BY_CODE = {
    lib.BK_ETRUNCATED: TruncatedError, lib.BK_EMAGIC: FormatError, lib.BK_EVERSION: VersionError,
    lib.BK_ELUMP_RANGE: LumpError, lib.BK_ELUMP_SIZE: LumpError, lib.BK_EINDEX: BadIndexError,
    lib.BK_ELIMIT: LimitError, lib.BK_EOVERFLOW: LimitError, lib.BK_ENOMEM: Error, lib.BK_EIO: IOError_,
    lib.BK_EUNSUPPORTED: UnsupportedError, lib.BK_EFORMAT: FormatError, lib.BK_EDECOMPRESS: DecompressError,
    lib.BK_EARG: ArgumentError, lib.BK_ENOTFOUND: NotFoundError,
}


def _s(p) -> Optional[str]:
    return ffi.string(p).decode("utf-8", "replace") if p != ffi.NULL else None


def c_path(path: Any) -> bytes:
    """A path as the C string the library is given: ArgumentError (a ValueError, as Python's own
    open() raises) for an embedded NUL, which C would cut the path at."""
    b = os.fsencode(path)
    if b"\0" in b:
        raise ArgumentError("%r: embedded null byte in a path" % (os.fspath(path),), lib.BK_EARG)
    return b


def c_text(text: Any, what: str) -> bytes:
    """Text (str as UTF-8, or bytes) as a C string: ArgumentError for an embedded NUL."""
    b = text if isinstance(text, bytes) else str(text).encode("utf-8", "surrogateescape")
    if b"\0" in b:
        raise ArgumentError("%s %r: embedded null byte" % (what, text), lib.BK_EARG)
    return b


_INT_RANGES: Dict[str, Tuple[int, int]] = {}


def c_int(value: Any, ctype: str, what: str) -> int:
    """An integer argument for a C parameter of ctype ("uint32_t", "int32_t", ...): TypeError for
    a non-integer, ArgumentError (not cffi's OverflowError) for one out of the type's range."""
    i = operator.index(value)
    if ctype not in _INT_RANGES:
        bits = 8 * ffi.sizeof(ctype)
        signed = int(ffi.cast(ctype, -1)) < 0
        _INT_RANGES[ctype] = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    lo, hi = _INT_RANGES[ctype]
    if not lo <= i <= hi:
        raise ArgumentError("%s %d out of range (%d..%d)" % (what, i, lo, hi), lib.BK_EARG)
    return i


def diag_text(d) -> str:
    buf = ffi.new("char[]", 1600)
    lib.bk_diag_format(d, buf, 1600)
    return ffi.string(buf).decode("utf-8", "replace")


def make_error(code: int, what: str = "", diag: Optional[Tuple] = None) -> Error:
    """An Error of the class for code; diag = (text, file, lump, index, offset) of the first
    located error the library reported, if any."""
    cls = _BY_CODE.get(code, Error)
    if code == lib.BK_ENOMEM:
        return MemoryError(what or "bspkit: out of memory")  # type: ignore[return-value]
    reason = ffi.string(lib.bk_strerror(code)).decode()
    if diag:
        text, file, lump, index, offset = diag
        return cls(text, code, file, lump, index, offset)
    return cls("%s: %s" % (what, reason) if what else reason, code, what or None)


class Diags:
    """Collects the library's diagnostics during one call: errors are kept (the first becomes the
    exception's message), warnings go to ``warnings.warn`` as they come."""

    def __init__(self, warn: bool = True):
        self.errors: List[Tuple] = []
        self.warn = warn

    def add(self, d) -> None:
        text = diag_text(d)
        if d.severity == lib.BK_SEV_ERROR:
            idx = None if d.index == lib.BK_NO_INDEX else int(d.index)
            off = None if d.offset == lib.BK_NO_OFFSET else int(d.offset)
            self.errors.append((text, _s(d.file), _s(d.lump), idx, off))
        elif d.severity == lib.BK_SEV_WARNING and self.warn:
            warnings.warn(text, BspkitWarning, stacklevel=4)

    def check(self, r: int, what: str = "") -> None:
        if r != 0:
            raise make_error(r, what, self.errors[0] if self.errors else None)

    def flush_errors_as_warnings(self) -> None:
        """Errors the library got past (the call succeeded) are shown as warnings."""
        for e in self.errors:
            if self.warn:
                warnings.warn(e[0], BspkitWarning, stacklevel=4)
        self.errors = []


@ffi.def_extern()
def bkpy_diag(user, d):  # called by the library, the GIL taken again by cffi
    try:
        ffi.from_handle(user).add(d)
    except Exception:  # never let an exception cross the C boundary
        pass


class Options:
    """A bk_options and the C strings it points to (kept alive together)."""

    def __init__(self, name: Optional[str] = None, base_dir: Optional[str] = None,
                 search_paths: Sequence[str] = (), flags: int = 0, patch_level: int = 0,
                 overbright: float = 0.0, framegroups: Optional[str] = None, diags: Optional[Diags] = None):
        self.c = ffi.new("bk_options *")
        self._keep: List[Any] = []
        if name is not None:
            self.c.name = self._str(name)
        if base_dir is not None:
            self.c.base_dir = self._str(base_dir)
        if search_paths:
            arr = ffi.new("const char *[]", [self._str(p) for p in search_paths])
            self._keep.append(arr)
            self.c.search_paths = arr
            self.c.search_path_count = len(search_paths)
        self.c.flags = flags
        self.c.overbright = overbright
        # the families' own options, chained from bk_options.ext (q3.h, dpm.h)
        self.q3 = ffi.new("bk_q3_options *")
        self.q3.ext.type = lib.BK_OPTIONS_Q3
        self.q3.patch_level = patch_level
        self.dpm = ffi.new("bk_dpm_options *")
        self.dpm.ext.type = lib.BK_OPTIONS_DPM
        if framegroups is not None:
            self.dpm.framegroups_path = self._str(framegroups)
        self.q3.ext.next = ffi.addressof(self.dpm, "ext")
        self.c.ext = ffi.addressof(self.q3, "ext")
        # the library reaches the current Diags through this object, whether it kept the
        # bk_options pointer or copied the struct (an edit, a query)
        self.diags = diags or Diags()
        self._handle = ffi.new_handle(self)
        self.c.diag = lib.bkpy_diag
        self.c.diag_user = self._handle

    def _str(self, s) -> Any:
        b = ffi.new("char[]", c_path(s))
        self._keep.append(b)
        return b

    def add(self, d) -> None:
        self.diags.add(d)

    def fresh_diags(self, warn: bool = True) -> Diags:
        self.diags = Diags(warn)
        return self.diags

    def copy(self, patch_level: Optional[int] = None):
        """A copy of the bk_options struct (its strings and family options stay this object's) to
        change per call; patch_level: with Quake 3 options of its own, which live as long as it."""
        c = ffi.new("bk_options *", self.c[0])
        if patch_level is not None:
            q3 = ffi.new("bk_q3_options *", self.q3[0])
            q3.patch_level = patch_level
            c.ext = ffi.addressof(q3, "ext")
            _KEPT[c] = q3
        return c


# what a copy of a bk_options points to, alive as long as the copy
_KEPT: "weakref.WeakKeyDictionary[Any, Any]" = weakref.WeakKeyDictionary()


# ---- library objects and their lifetime -----------------------------------------------------


class Held:
    """A library object (ptr) and what it borrows (keep), freed by free(ptr) when the last Python
    object holding it goes: the Map, Archive or Scene until its close(), every numpy array over
    its memory (the array's base), every call in flight (a local reference taken before the call).
    close() drops only its owner's reference: it never frees what something still reads, and two
    closes at once are one. ``lock`` serialises what must not run at once on it."""

    def __init__(self, ptr: Any, free: Any, keep: Any = None):
        self.ptr, self._free, self.keep = ptr, free, keep
        self.lock = threading.RLock()

    def release(self) -> None:
        """Free what this holds (the last reference is going)."""
        p, self.ptr = self.ptr, None
        if p is not None:
            self._free(p)

    def __del__(self):
        try:
            self.release()
        except Exception:  # interpreter shutdown: the module may be gone
            pass


def held(owner: Any, what: str) -> Held:
    """owner's Held (a reference the caller keeps for the length of its call), or ClosedError."""
    h = owner._h
    if h is None:
        raise ClosedError("%s is closed" % what)
    return h


# ---- numpy views over library memory ---------------------------------------------------------

_PRIM = {
    "int8_t": "i1", "uint8_t": "u1", "int16_t": "i2", "uint16_t": "u2", "int32_t": "i4", "uint32_t": "u4",
    "int64_t": "i8", "uint64_t": "u8", "float": "f4", "double": "f8", "_Bool": "?", "bool": "?",
    "char": "S1", "int": "i4", "unsigned int": "u4", "size_t": "u8",
}
_DTYPES: Dict[str, np.dtype] = {}


def dtype_of(ctype) -> np.dtype:
    """A numpy dtype laid out exactly as the C struct (pointer fields left out as gaps)."""
    if isinstance(ctype, str):
        ctype = ffi.typeof(ctype)
    key = ctype.cname
    if key in _DTYPES:
        return _DTYPES[key]
    if ctype.kind == "primitive":
        dt = np.dtype(_PRIM[ctype.cname])
    elif ctype.kind == "enum":
        dt = np.dtype("i4")
    else:
        names, formats, offsets = [], [], []
        for fname, fld in ctype.fields:
            t, shape = fld.type, ()
            while t.kind == "array":
                shape += (t.length,)
                t = t.item
            if t.kind == "pointer" or t.kind == "function":
                continue
            if t.kind == "primitive" and t.cname == "char" and shape:
                base, shape = np.dtype("S%d" % shape[-1]), shape[:-1]
            elif t.kind in ("primitive", "enum"):
                base = dtype_of(t)
            elif t.kind == "struct":
                base = dtype_of(t)
            else:
                continue
            names.append(fname)
            formats.append((base, shape) if shape else base)
            offsets.append(fld.offset)
        dt = np.dtype({"names": names, "formats": formats, "offsets": offsets, "itemsize": ffi.sizeof(ctype)})
    _DTYPES[key] = dt
    return dt


class _View:
    """Holds the owner of library memory while a numpy array looks at it (the array's base)."""

    def __init__(self, owner: Any, address: int, shape: Tuple[int, ...], dtype: np.dtype, writable: bool):
        self._owner = owner
        self.__array_interface__ = {
            "data": (address, not writable), "shape": shape, "version": 3,
            "typestr": dtype.str if dtype.names is None else "|V%d" % dtype.itemsize,
            "descr": dtype.descr if dtype.names is not None else [("", dtype.str)],
        }
        self._dtype = dtype


def view(owner: Any, ptr, count: int, dtype: np.dtype, inner: Tuple[int, ...] = (), writable: bool = False) -> np.ndarray:
    """count elements of dtype at ptr as a numpy array sharing the memory (no copy); owner is
    kept alive by the array. An empty array for a NULL pointer or count 0."""
    shape = (int(count),) + tuple(inner)
    if ptr == ffi.NULL or count == 0:
        empty = np.zeros(shape, dtype)
        empty.flags.writeable = writable
        return empty
    addr = int(ffi.cast("uintptr_t", ptr))
    arr = np.asarray(_View(owner, addr, shape, dtype, writable))
    if arr.dtype != dtype:  # structured: the interface loses the exact offsets, put them back
        arr = arr.view(dtype)
    return arr


def cstr(p) -> str:
    """A library string as Python text: UTF-8, else Latin-1 (as bk_utf8_from_8bit reads it)."""
    if p == ffi.NULL:
        return ""
    b = ffi.string(p)
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        return b.decode("latin-1")


def kv_pairs(kv, n: int) -> List[Tuple[str, str]]:
    return [(cstr(kv[i].key), cstr(kv[i].value)) for i in range(n)]


def take_block(ptr, size: int) -> bytes:
    """Copy a block the library handed over and free it."""
    try:
        return bytes(ffi.buffer(ptr, size)) if size else b""
    finally:
        if ptr != ffi.NULL:
            lib.bk_free(ptr)


def raise_write(r: int, path: str) -> None:
    """The error of a failed write, with the file and the system's reason when the library has them."""
    dg = ffi.new("bk_diag *")
    if lib.bk_write_error(dg):
        raise make_error(r, path, (diag_text(dg), path, None, None, None))
    raise make_error(r, path)
