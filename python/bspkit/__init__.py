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

import json
import os
from contextlib import contextmanager
from typing import Any, Dict, Iterator, List, NamedTuple, Optional, Sequence, Tuple, Union

import numpy as np

from . import vpk
from ._archive import Archive, ArchiveEntry
from ._core import raise_write as _raise_write
from ._core import (ArgumentError, BadIndexError, ClosedError, DecompressError, Error, FormatError, Held,
                    IOError_, LimitError, LumpError, NotFoundError, Options, TruncatedError, UnsupportedError,
                    VersionError, BspkitWarning, c_int, c_path, c_text, cstr, dtype_of, held, make_error,
                    take_block, view)
from ._native import ffi, lib
from ._scene import Scene

__version__ = "0.1.0"
Warning = BspkitWarning  # noqa: A001 - bspkit.Warning, the category of the library's warnings

__all__ = [
    "open", "Map", "Entity", "Lump", "Scene", "Archive", "ArchiveEntry", "vpk", "Error", "TruncatedError",
    "FormatError", "VersionError", "LumpError", "BadIndexError", "LimitError", "DecompressError",
    "UnsupportedError", "ArgumentError", "ClosedError", "NotFoundError", "IOError_", "Warning", "POINT_DTYPE",
    "TRACE_DTYPE", "contents_names", "library_version", "game",
]

#: what Map.point returns per point
POINT_DTYPE = np.dtype({"names": ["leaf", "contents", "native_contents", "cluster", "area"],
                        "formats": ["i4", "u4", "i4", "i4", "i4"], "offsets": [0, 4, 8, 12, 16], "itemsize": 20})
#: what Map.trace returns per segment
TRACE_DTYPE = np.dtype({"names": ["fraction", "endpos", "normal", "dist", "contents", "native_contents", "surface",
                                  "startsolid", "allsolid"],
                        "formats": ["f4", ("f4", 3), ("f4", 3), "f4", "u4", "i4", "i4", "?", "?"],
                        "offsets": [0, 4, 16, 28, 32, 36, 40, 44, 45], "itemsize": 48})
assert POINT_DTYPE.itemsize == ffi.sizeof("bkpy_point") and TRACE_DTYPE.itemsize == ffi.sizeof("bkpy_trace")

PathLike = Union[str, "os.PathLike[str]"]

_SCENE_FLAGS = {
    "lightmaps": lib.BK_OPT_NO_LIGHTMAPS, "textures": lib.BK_OPT_NO_TEXTURES, "entities": lib.BK_OPT_NO_ENTITIES,
    "props": lib.BK_OPT_NO_PROPS, "animations": lib.BK_OPT_NO_ANIMATIONS, "sky3d": lib.BK_OPT_NO_SKY3D,
}


def library_version() -> str:
    """The version of the bspkit library compiled into the package."""
    return ffi.string(lib.bk_version()).decode()


def contents_names(contents: int) -> str:
    """"empty" or the BK_CONTENTS_* names joined by '|' ("water|current")."""
    buf = ffi.new("char[]", 512)
    lib.bk_contents_format(contents, buf, 512)
    return ffi.string(buf).decode()


def _game(g) -> Optional[Dict[str, Any]]:
    if g == ffi.NULL:
        return None
    return {"eye_height": float(g.eye_height),
            "spawn_classes": [cstr(g.spawn_classes[i]) for i in range(g.spawn_class_count)],
            "hull_mins": tuple(float(x) for x in g.hull_min), "hull_maxs": tuple(float(x) for x in g.hull_max)}


def game(format: str) -> Optional[Dict[str, Any]]:  # noqa: A002 - the format's name, as Map.format
    """What the game of a format ("quake3", as Map.format and a scene's "format" extra name it)
    does with a map, from the library's version rows: eye_height (the eye above a spawn entity's
    origin), spawn_classes, hull_mins / hull_maxs (the standing player's box). None for formats
    without (textures, models)."""
    return _game(lib.bk_format_game(lib.bk_format_parse(c_text(format, "format"))))


def _mask(mask: Union[None, int, str]) -> int:
    if mask is None:
        return 0
    if isinstance(mask, str):
        out = ffi.new("uint32_t *")
        if lib.bk_contents_parse(c_text(mask, "mask"), out) != 0:
            raise ArgumentError("unknown contents in mask %r" % mask, lib.BK_EARG)
        return int(out[0])
    return c_int(mask, "uint32_t", "mask")


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


class Entity:
    """An entity: iterable as (key, value) pairs in file order, repeated keys kept (Source I/O
    outputs); ``e["classname"]`` is the last value of a key (the one the engines use)."""

    __slots__ = ("pairs", "_last")

    def __init__(self, pairs: Sequence[Tuple[str, str]] = ()):
        self.pairs: List[Tuple[str, str]] = [(str(k), str(v)) for k, v in pairs]
        self._last: Optional[Dict[str, str]] = None

    @classmethod
    def _from_json(cls, pairs: List[List[str]]) -> "Entity":
        e = cls.__new__(cls)
        e.pairs = list(map(tuple, pairs))  # type: ignore[arg-type]
        e._last = None
        return e

    def _map(self) -> Dict[str, str]:
        if self._last is None:
            self._last = dict(self.pairs)
        return self._last

    def __iter__(self) -> Iterator[Tuple[str, str]]:
        return iter(self.pairs)

    def __len__(self) -> int:
        return len(self.pairs)

    def __getitem__(self, key: str) -> str:
        return self._map()[key]

    def __contains__(self, key: object) -> bool:
        return key in self._map()

    def get(self, key: str, default: Optional[str] = None) -> Optional[str]:
        return self._map().get(key, default)

    def get_all(self, key: str) -> List[str]:
        """Every value of key, in file order."""
        return [v for k, v in self.pairs if k == key]

    def keys(self) -> List[str]:
        return list(self._map())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Entity) and other.pairs == self.pairs

    def __repr__(self) -> str:
        return "<Entity %s>" % (self.get("classname") or "?")


def _family_struct(f) -> Tuple[str, Any]:
    """The family and its decoded struct; a Source map's as its open left it (its geometry, which
    bspkit.open defers, comes with Map._complete)."""
    for name, fn in (("source", lib.bk_source_map_partial), ("quake", lib.bk_quake_bsp_of), ("quake3", lib.bk_q3_map_of),
                     ("dpm", lib.bk_dpm_model_of), ("mdl", lib.bk_mdl_of)):
        p = fn(f)
        if p != ffi.NULL:
            return name, p
    return "", ffi.NULL


# arrays of 3 (or 2) numbers kept as plain scalars in the decoded structs
_INNER = {("quake", "vertices"): (3,), ("source", "vertices"): (3,), ("source", "edges"): (2,),
          ("quake3", "lightmaps"): (128, 128, 3)}


def _count_field(fields: Dict[str, Any], name: str) -> Optional[str]:
    cands = [name + "_count", name[:-1] + "_count", name[:-2] + "_count", name.replace("leaves", "leaf") + "_count"]
    if name == "vertices":
        cands.insert(0, "vertex_count")
    for c in cands:
        if c in fields:
            return c
    return None


class _File(Held):
    """A Map's bk_file with its query and edit (made on first use, freed before the file) and what
    the file borrows: the bytes of a file loaded from memory, the Options whose strings and
    diagnostics handle the library keeps. ``partial`` is the family's decoded struct (it lives in
    the file). Freed when the last holder goes (see Held)."""

    def __init__(self, f, opts: Options, keep: Any):
        super().__init__(f, lib.bk_file_free, (opts, keep))
        self.opts = opts
        self.query = None
        self.edit = None
        self.family, self.partial = _family_struct(f)

    def release(self) -> None:
        e, self.edit = self.edit, None
        if e is not None:
            lib.bk_edit_free(e)
        q, self.query = self.query, None
        if q is not None:
            lib.bk_query_free(q)
        super().release()


class Map:
    """A loaded map or model (the result of bspkit.open).

    Arrays, ``data``, ``static_props``, ``bones``, ``pak`` and calls still running hold the
    library's memory: close() (or the end of a ``with``) frees it at once when nothing does, else
    when the last of them goes. Every call after close() raises ClosedError; closing twice, or
    from several threads at once, is closing once."""

    def __init__(self, f, opts: Options, keep: Any, path: Optional[str]):
        self._h: Optional[_File] = _File(f, opts, keep)
        self._opts = opts
        self.path = path
        self._entities: Optional[List[Entity]] = None
        self._family = self._h.family
        self._deferred = self._family == "source"
        self._deferred_error: Optional[BaseException] = None

    # -- life --------------------------------------------------------------------------
    def close(self) -> None:
        """Let the library's file go: freed now unless an array, an archive of its pakfile or a
        call in flight still holds it (then when the last of them goes). Idempotent."""
        self._h = None

    def __enter__(self) -> "Map":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _handle(self) -> _File:
        """The file, held by the caller for the length of its call; ClosedError after close()."""
        return held(self, "%s: the map" % (self.path or "<bytes>"))

    def _live(self) -> _File:
        """The file, its deferred part loaded (see _complete)."""
        h = self._handle()
        if self._deferred:
            self._complete(h.ptr)
        return h

    def _complete(self, f) -> None:
        """A Source map's geometry lumps, which bspkit.open leaves to their first use (decoding
        LZMA lumps is most of an open's time): decoded and checked now, as a whole load does; its
        located errors raise here (and again at every later use), its warnings go to Python's."""
        if self._deferred_error is None:
            saved = self._opts.diags
            d = self._opts.fresh_diags()
            try:
                r = lib.bk_file_complete(f, self._opts.c)
                d.check(r, self.path or "")
                self._deferred = False
                return
            except Error as e:
                self._deferred_error = e
            finally:
                self._opts.diags = saved
        raise self._deferred_error


    # -- facts -------------------------------------------------------------------------
    @property
    def format(self) -> str:
        """"quake1", "bsp2", "goldsrc", "wad3", "quake3", "source", "dpm", "vtf" or "mdl"."""
        return ffi.string(lib.bk_format_name(lib.bk_file_format(self._handle().ptr))).decode()

    @property
    def version(self) -> int:
        return int(lib.bk_file_info(self._live().ptr).version)

    @property
    def data(self) -> memoryview:
        """The file's bytes (read-only, no copy)."""
        h = self._handle()
        size = ffi.new("size_t *")
        p = lib.bk_file_data(h.ptr, size)
        return memoryview(view(h, p, size[0], np.dtype("u1"))).toreadonly()

    @property
    def lumps(self) -> List[Lump]:
        h = self._live()
        f = h.ptr
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

    @property
    def game(self) -> Optional[Dict[str, Any]]:
        """The game's facts for this file's version (see bspkit.game), or None."""
        return _game(lib.bk_file_game(self._live().ptr))

    @property
    def info(self) -> Dict[str, Any]:
        """Format, version, variant, size, counts and bounds (as `bspkit info --json`)."""
        h = self._live()
        f = h.ptr
        inf = lib.bk_file_info(f)
        size = ffi.new("size_t *")
        lib.bk_file_data(f, size)
        d: Dict[str, Any] = {"format": self.format, "version": int(inf.version)}
        if inf.variant[0] != b"\0":
            d["variant"] = ffi.string(inf.variant).decode()
        d["size"] = int(size[0])
        d["counts"] = {ffi.string(inf.counts[i].name).decode(): int(inf.counts[i].value)
                       for i in range(inf.count_count)}
        if inf.has_bounds:
            d["bounds"] = {"mins": [float(x) for x in inf.mins], "maxs": [float(x) for x in inf.maxs]}
        return d

    @property
    def entities(self) -> List[Entity]:
        """The entities, each an Entity of (key, value) pairs in file order (text that is not
        UTF-8 read as Latin-1, as `bspkit entities --json` prints it)."""
        h = self._handle()
        if self._entities is None:
            out, n = ffi.new("char **"), ffi.new("size_t *")
            r = lib.bkpy_entities_json(h.ptr, out, n)
            if r != 0:
                raise make_error(r, self.path or "entities")
            text = take_block(out[0], n[0])
            self._entities = [Entity._from_json(e) for e in json.loads(text)] if text else []
        return self._entities

    def _lump_index(self, name: Union[str, int]) -> int:
        h = self._live()
        lumps = lib.bk_file_info(h.ptr)
        if isinstance(name, int):
            if not 0 <= name < lumps.lump_count:
                raise NotFoundError("lump %d out of range (%d lumps)" % (name, lumps.lump_count))
            return name
        for i in range(lumps.lump_count):
            if ffi.string(lumps.lumps[i].name).decode() == name:
                return i
        raise NotFoundError("%s: no lump named %r" % (self.path, name))

    def lump(self, name: Union[str, int]) -> bytes:
        """The bytes of a lump by name (as `bspkit info` lists them) or header index; a Source
        LZMA lump comes decompressed."""
        i = self._lump_index(name)
        h = self._live()
        f = h.ptr
        if self._family == "source":
            data, size = ffi.new("uint8_t **"), ffi.new("size_t *")
            d = self._opts.fresh_diags()
            r = lib.bk_source_lump_bytes(f, i, data, size)
            d.check(r, self.path or "")
            return bytes(ffi.buffer(data[0], size[0])) if size[0] else b""
        l = lib.bk_file_info(f).lumps[i]
        return bytes(self.data[l.offset:l.offset + l.length])

    @property
    def arrays(self) -> List[str]:
        """Names of the typed arrays (decoded lumps) array() gives for this file."""
        return self._arrays(self._live())

    @staticmethod
    def _arrays(h: _File) -> List[str]:
        if h.partial == ffi.NULL:
            return []
        st = ffi.typeof(h.partial).item
        fields = dict(st.fields)
        out = []
        for name, fld in st.fields:
            t = fld.type
            if t.kind != "pointer" or t.item.kind not in ("struct", "primitive") or t.item.cname == "char":
                continue
            if _count_field(fields, name):
                out.append(name)
        return out

    def array(self, name: str) -> np.ndarray:
        """A decoded lump ("planes", "vertices", "faces", "leafs", "brushes", ...; see arrays)
        as a read-only numpy array over the library's memory, no copy: a structured array with
        the C struct's fields, or numbers (vertices: N x 3)."""
        h = self._live()
        names = self._arrays(h)
        if name not in names:
            raise NotFoundError("%s: no array %r here (%s)" % (self.path, name, ", ".join(names)))
        st = ffi.typeof(h.partial).item
        fields = dict(st.fields)
        ptr = getattr(h.partial, name)
        count = getattr(h.partial, _count_field(fields, name))
        item = fields[name].type.item
        inner = _INNER.get((self._family, name), ())
        return view(h, ptr, count, dtype_of(item), inner)

    # -- scene and glTF ------------------------------------------------------------------
    def _scene_opts(self, lightmaps=True, textures=True, entities=True, props=True, animations=True,
                    collision=False, skip_flares=False, patch_level=0, overbright=None, sky3d=True):
        patch_level = c_int(patch_level, "int32_t", "patch_level")
        c = self._opts.copy(patch_level=patch_level)
        flags = 0
        for k, v in (("lightmaps", lightmaps), ("textures", textures), ("entities", entities),
                     ("props", props), ("animations", animations), ("sky3d", sky3d)):
            if not v:
                flags |= _SCENE_FLAGS[k]
        if collision:
            flags |= lib.BK_OPT_COLLISION
        if skip_flares:
            flags |= lib.BK_OPT_SKIP_FLARES
        c.flags = flags
        c.overbright = 0.0 if overbright is None else (-1.0 if overbright == 0 else float(overbright))
        return c

    def scene(self, **options: Any) -> Scene:
        """Build the format-neutral scene: meshes (numpy positions, normals, uvs, indices),
        materials, images (pixels H x W x 4), nodes with their extras, skins, animations.
        Options (as `bspkit convert`): lightmaps, textures, entities, props, animations, sky3d (True),
        collision, skip_flares (False), patch_level, overbright (None: the game's)."""
        c = self._scene_opts(**options)
        h = self._live()
        d = self._opts.fresh_diags()
        out = ffi.new("bk_scene **")
        r = lib.bk_file_build_scene(h.ptr, c, out)
        d.check(r, self.path or "")
        d.flush_errors_as_warnings()
        return Scene(out[0])

    def to_gltf(self, path: PathLike, scale: float = 0.0, keep_z_up: bool = False, png_level: int = 0,
                **options: Any) -> None:
        """Write the scene as .glb or .gltf (+ .bin) by path's extension: the bytes
        `bspkit convert MAP -o PATH` writes with the same options (temporary file, renamed)."""
        c_path(path)  # a bad path refused before the scene is built
        s = self.scene(**options)
        try:
            s.to_gltf(path, scale, keep_z_up, png_level)
        finally:
            s.free()

    def textures(self) -> Scene:
        """The file's own images (a map's embedded textures, every entry of a WAD3, a VTF's faces,
        a Source map's pakfile VTFs) as a Scene holding images only: ``[(i.name, i.pixels) for i
        in m.textures().images]``, pixels H x W x 4 uint8."""
        h = self._live()
        d = self._opts.fresh_diags()
        out = ffi.new("bk_scene **")
        r = lib.bk_file_extract_images(h.ptr, self._opts.c, out)
        d.check(r, self.path or "")
        d.flush_errors_as_warnings()
        return Scene(out[0])

    # -- queries -------------------------------------------------------------------------
    def _make(self, h: _File, ctype: str, fn: Any) -> Any:
        """fn(file, options, out) -> the object in out, or the located error raised."""
        out = ffi.new(ctype)
        d = self._opts.fresh_diags()
        r = fn(h.ptr, self._opts.c, out)
        d.check(r, self.path or "")
        return out[0]

    def _q(self, h: _File):
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

    # -- Source --------------------------------------------------------------------------
    def _of(self, family: str, what: str, partial: bool = False) -> _File:
        """The file (its family's decoded struct in .partial; partial: without what a deferred
        load leaves for later), or UnsupportedError for a file of another family."""
        h = self._handle()
        if self._family != family:
            raise UnsupportedError("%s: not a %s (%s)" % (self.path, what, self.format))
        return h if partial else self._live()

    def _source(self, partial: bool = False) -> _File:
        return self._of("source", "Source map", partial)

    @property
    def static_props(self) -> np.ndarray:
        """Source static props as a structured array over the library's memory (origin, angles,
        model = index into static_prop_names, skin, flags, scale, ...)."""
        h = self._source(partial=True)
        m = h.partial
        return view(h, m.static_props, m.static_prop_count, dtype_of("bk_source_static_prop"))

    @property
    def static_prop_names(self) -> List[str]:
        h = self._source(partial=True)
        m = h.partial
        return [cstr(m.static_prop_names[i]) for i in range(m.static_prop_name_count)]

    @property
    def pak(self) -> Archive:
        """The Source map's pakfile (zipfile-like: namelist, read); it holds the map's memory
        (see close)."""
        h = self._source()
        return Archive(self._make(h, "bk_archive **", lib.bk_archive_open_pakfile), h, self._opts)

    # -- DPM -----------------------------------------------------------------------------
    def _dpm(self) -> _File:
        return self._of("dpm", "DPM model")

    @property
    def bones(self) -> np.ndarray:
        """DPM bones: a structured array (name, parent, flags), no copy."""
        h = self._dpm()
        m = h.partial
        return view(h, m.bones, m.bone_count, dtype_of("bk_dpm_bone"))

    @property
    def frames(self) -> List[str]:
        h = self._dpm()
        m = h.partial
        return [ffi.string(m.frames[i].name).decode("latin-1") for i in range(m.frame_count)]

    def pose(self, frame: int, frame_b: Optional[int] = None, t: float = 0.0, slerp: bool = False) -> np.ndarray:
        """Model-space bone matrices (bones x 3 x 4) of frame, blended towards frame_b by t."""
        frame = c_int(frame, "uint32_t", "frame")
        frame_b = frame if frame_b is None else c_int(frame_b, "uint32_t", "frame_b")
        h = self._dpm()
        m = h.partial
        out = np.empty((m.bone_count, 3, 4), np.float32)
        r = lib.bk_dpm_pose(m, frame, frame_b, t,
                            lib.BK_DPM_LERP_SLERP if slerp else lib.BK_DPM_LERP_MATRIX,
                            ffi.from_buffer("float[]", out))
        if r != 0:
            raise make_error(r, "%s: pose %d" % (self.path, frame))
        return out

    # -- editing -------------------------------------------------------------------------
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
        return take_block(out[0], size[0])

    def __repr__(self) -> str:
        if self._h is None:
            return "<bspkit.Map closed>"
        return "<bspkit.Map %s v%d %r>" % (self.format, self.version, self.path)


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
