"""bspkit.Map: a loaded map or model. Its queries are in _query.py, its editing in _edit.py, its
lumps in _lumps.py and its decoded arrays in _arrays.py; what a family holds comes from the
library's generic calls (bk_file_array, bk_lump_bytes), never from a family's struct here."""
from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Optional, Union

import numpy as np

from . import _arrays, _lumps
from ._archive import Archive
from ._core import Error, Held, Options, UnsupportedError, c_int, c_path, cstr, held, make_error, take_block, view
from ._edit import EditMixin
from ._entities import Entity
from ._lumps import Lump
from ._native import ffi, lib
from ._query import QueryMixin
from ._scene import Scene

PathLike = Union[str, "os.PathLike[str]"]

_SCENE_FLAGS = {
    "lightmaps": lib.BK_OPT_NO_LIGHTMAPS, "textures": lib.BK_OPT_NO_TEXTURES, "entities": lib.BK_OPT_NO_ENTITIES,
    "props": lib.BK_OPT_NO_PROPS, "animations": lib.BK_OPT_NO_ANIMATIONS, "sky3d": lib.BK_OPT_NO_SKY3D,
}


def game_facts(g) -> Optional[Dict[str, Any]]:
    """A bk_game as a dict (None for NULL)."""
    if g == ffi.NULL:
        return None
    return {"eye_height": float(g.eye_height),
            "spawn_classes": [cstr(g.spawn_classes[i]) for i in range(g.spawn_class_count)],
            "hull_mins": tuple(float(x) for x in g.hull_min), "hull_maxs": tuple(float(x) for x in g.hull_max)}


class _File(Held):
    """A Map's bk_file with its query and edit (made on first use, freed before the file) and what
    the file borrows: the bytes of a file loaded from memory, the Options whose strings and
    diagnostics handle the library keeps. Freed when the last holder goes (see Held)."""

    def __init__(self, f, opts: Options, keep: Any):
        super().__init__(f, lib.bk_file_free, (opts, keep))
        self.opts = opts
        self.query = None
        self.edit = None

    def release(self) -> None:
        e, self.edit = self.edit, None
        if e is not None:
            lib.bk_edit_free(e)
        q, self.query = self.query, None
        if q is not None:
            lib.bk_query_free(q)
        super().release()


class Map(QueryMixin, EditMixin):
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
        # a Source map opened deferred (bspkit.open) is finished on first need (_complete); for
        # any other file that is a no-op the library answers at once
        self._deferred = True
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
    def game(self) -> Optional[Dict[str, Any]]:
        """The game's facts for this file's version (see bspkit.game), or None."""
        return game_facts(lib.bk_file_game(self._live().ptr))

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
        return _lumps.lump_index(self._live().ptr, name, self.path)

    @property
    def lumps(self) -> List[Lump]:
        return _lumps.lumps(self._live().ptr)

    def lump(self, name: Union[str, int]) -> bytes:
        """The bytes of a lump by name (as `bspkit info` lists them) or header index; a lump the
        map stores compressed (Source LZMA) comes decompressed."""
        i = self._lump_index(name)
        return _lumps.lump_bytes(self._live().ptr, i, self._opts.fresh_diags(), self.path)

    # -- decoded arrays (bk_file_array) -------------------------------------------------
    @property
    def arrays(self) -> List[str]:
        """Names of the typed arrays (decoded lumps, props, bones, ...) array() gives for this
        file, as the library lists them."""
        h = self._live()
        return _arrays.names(h.ptr, self._opts.fresh_diags(), self.path or "")

    def array(self, name: str) -> np.ndarray:
        """A decoded array ("planes", "vertices", "faces", "leafs", "brushes", "static_props",
        "bones", ...; see arrays) as a read-only numpy array over the library's memory, no copy:
        a structured array with the fields the library describes (the format header's names, as
        `bspkit lump` writes them), or plain numbers where the element is one field (vertices:
        N x 3 float32; Quake 3 lightmaps: N x 128 x 128 x 3)."""
        h = self._live()
        return _arrays.as_numpy(h, _arrays.find(h.ptr, name, self._opts.fresh_diags(), self.path or ""))

    def array_info(self, name: str) -> Dict[str, Any]:
        """What the library says of array `name`: its lump (-1: none), count, elem_size and fields
        (name, type, offset, shape)."""
        h = self._live()
        return _arrays.as_dict(_arrays.find(h.ptr, name, self._opts.fresh_diags(), self.path or ""))

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

    def _make(self, h: _File, ctype: str, fn: Any) -> Any:
        """fn(file, options, out) -> the object in out, or the located error raised."""
        out = ffi.new(ctype)
        d = self._opts.fresh_diags()
        r = fn(h.ptr, self._opts.c, out)
        d.check(r, self.path or "")
        return out[0]

    # -- Source --------------------------------------------------------------------------
    def _source(self) -> Any:
        """The Source map as its open left it (its props and pakfile are there; the geometry a
        deferred open leaves for later is not needed), or UnsupportedError."""
        h = self._handle()
        m = lib.bk_source_map_partial(h.ptr)
        if m == ffi.NULL:
            raise UnsupportedError("%s: not a Source map (%s)" % (self.path, self.format))
        return h, m

    @property
    def static_props(self) -> np.ndarray:
        """Source static props as a structured array over the library's memory (origin, angles,
        model = index into static_prop_names, skin, flags, scale, ...); the fields as
        array_info("static_props") lists them."""
        h, _ = self._source()  # read as the open left them: a deferred geometry stays deferred
        return _arrays.as_numpy(h, _arrays.find(h.ptr, "static_props", self._opts.fresh_diags(), self.path or ""))

    @property
    def static_prop_names(self) -> List[str]:
        _, m = self._source()
        return [cstr(m.static_prop_names[i]) for i in range(m.static_prop_name_count)]

    @property
    def pak(self) -> Archive:
        """The Source map's pakfile (zipfile-like: namelist, read); it holds the map's memory
        (see close)."""
        self._source()
        h = self._live()
        return Archive(self._make(h, "bk_archive **", lib.bk_archive_open_pakfile), h, self._opts)

    # -- DPM -----------------------------------------------------------------------------
    def _dpm(self) -> Any:
        h = self._live()
        m = lib.bk_dpm_model_of(h.ptr)
        if m == ffi.NULL:
            raise UnsupportedError("%s: not a DPM model (%s)" % (self.path, self.format))
        return h, m

    @property
    def bones(self) -> np.ndarray:
        """DPM bones: a structured array (name, parent, flags), no copy."""
        self._dpm()
        return self.array("bones")

    @property
    def frames(self) -> List[str]:
        self._dpm()
        return [n.decode("latin-1") for n in self.array("frames")["name"]]

    def pose(self, frame: int, frame_b: Optional[int] = None, t: float = 0.0, slerp: bool = False) -> np.ndarray:
        """Model-space bone matrices (bones x 3 x 4) of frame, blended towards frame_b by t."""
        frame = c_int(frame, "uint32_t", "frame")
        frame_b = frame if frame_b is None else c_int(frame_b, "uint32_t", "frame_b")
        h, m = self._dpm()
        out = np.empty((m.bone_count, 3, 4), np.float32)
        r = lib.bk_dpm_pose(m, frame, frame_b, t,
                            lib.BK_DPM_LERP_SLERP if slerp else lib.BK_DPM_LERP_MATRIX,
                            ffi.from_buffer("float[]", out))
        if r != 0:
            raise make_error(r, "%s: pose %d" % (self.path, frame))
        return out

    def __repr__(self) -> str:
        if self._h is None:
            return "<bspkit.Map closed>"
        return "<bspkit.Map %s v%d %r>" % (self.format, self.version, self.path)
