"""The format-neutral scene (bspkit/scene.h) as numpy arrays over the library's memory."""
from __future__ import annotations

import os
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from ._core import Held, c_int, c_path, cstr, held, kv_pairs, make_error, raise_write, take_block, view
from ._native import ffi, lib

_F4 = np.dtype("f4")


def _owner(s) -> Held:
    """The bk_scene, freed when the last of the Scene, its arrays, images and calls goes."""
    return Held(s, lib.bk_scene_free)


class Primitive:
    """One draw of a mesh: numpy views (no copy) of the scene's vertex arrays."""

    material: int
    mode: str
    positions: np.ndarray
    normals: Optional[np.ndarray]
    uvs: Optional[np.ndarray]
    uvs1: Optional[np.ndarray]
    colors: Optional[np.ndarray]
    joints: Optional[np.ndarray]
    weights: Optional[np.ndarray]
    indices: Optional[np.ndarray]

    def __init__(self, owner: Held, p):
        n = p.vertex_count
        self.material = int(p.material)
        self.mode = {lib.BK_PRIM_TRIANGLES: "triangles", lib.BK_PRIM_POINTS: "points",
                     lib.BK_PRIM_LINES: "lines"}.get(p.mode, str(p.mode))
        self.positions = view(owner, p.position, n, _F4, (3,))
        self.normals = view(owner, p.normal, n, _F4, (3,)) if p.normal != ffi.NULL else None
        self.uvs = view(owner, p.uv0, n, _F4, (2,)) if p.uv0 != ffi.NULL else None
        self.uvs1 = view(owner, p.uv1, n, _F4, (2,)) if p.uv1 != ffi.NULL else None
        self.colors = view(owner, p.color, n, np.dtype("u1"), (4,)) if p.color != ffi.NULL else None
        self.joints = view(owner, p.joints, n, np.dtype("u2"), (4,)) if p.joints != ffi.NULL else None
        self.weights = view(owner, p.weights, n, _F4, (4,)) if p.weights != ffi.NULL else None
        self.indices = view(owner, p.indices, p.index_count, np.dtype("u4")) if p.indices != ffi.NULL else None

    def __repr__(self) -> str:
        return "<Primitive %s, %d vertices, material %d>" % (self.mode, len(self.positions), self.material)


class Mesh:
    def __init__(self, owner: Held, m):
        self.name = cstr(m.name)
        self.primitives = [Primitive(owner, m.prims[i]) for i in range(m.prim_count)]

    def __repr__(self) -> str:
        return "<Mesh %r, %d primitives>" % (self.name, len(self.primitives))


class Material:
    def __init__(self, m):
        self.name = cstr(m.name)
        self.base_image = int(m.base_image)
        self.lightmap_image = int(m.lightmap_image)
        self.emissive_image = int(m.emissive_image)
        self.normal_image = int(m.normal_image)
        self.specular_image = int(m.specular_image)
        self.blend_image = int(m.blend_image)
        self.base_color = tuple(float(x) for x in m.base_color)
        self.alpha_mode = {lib.BK_ALPHA_OPAQUE: "OPAQUE", lib.BK_ALPHA_MASK: "MASK",
                           lib.BK_ALPHA_BLEND: "BLEND"}.get(m.alpha_mode, "OPAQUE")
        self.alpha_cutoff = float(m.alpha_cutoff)
        self.double_sided = bool(m.double_sided)
        self.unlit = bool(m.unlit)
        #: the game never draws it (a compile tool: clip, trigger, caulk...), as the library's
        #: scene builder marked it
        self.never_drawn = bool(m.never_drawn)
        self.emissive = tuple(float(x) for x in m.emissive)
        self.emissive_strength = float(m.emissive_strength)
        self.extras = dict(kv_pairs(m.extras, m.extra_count))
        #: light styles (Quake 1, GoldSrc, BSP2): (style, image index) of each style its faces
        #: carry, read with uv1 like lightmap_image (their sum at rest); empty without styles
        self.light_layers: List[Tuple[int, int]] = [
            (int(m.light_layers[k].style), int(m.light_layers[k].image)) for k in range(m.light_layer_count)]

    def __repr__(self) -> str:
        return "<Material %r>" % self.name


class LightStyle:
    """A light style of the map (bspkit/scene.h bk_lightstyle): its pattern (a letter a tenth of
    a second, 'a' dark, 'm' normal, 'z' double), the targetname of the light that switches it
    (switchable styles 32-63) and whether that light starts off, and its value at rest."""

    def __init__(self, ls):
        self.style = int(ls.style)
        self.pattern = cstr(ls.pattern) or ""
        self.targetname = cstr(ls.targetname) if ls.targetname != ffi.NULL else None
        self.start_off = bool(ls.start_off)
        self.rest_value = int(ls.rest_value)

    def value(self, t: float) -> int:
        """its value t seconds in, on the engines' 10 Hz clock (264 is normal light)"""
        return 0 if self.start_off else int(lib.bk_lightstyle_value(self.pattern.encode("utf-8"), float(t)))

    def __repr__(self) -> str:
        return "<LightStyle %d %r>" % (self.style, self.pattern)


class Image:
    """An image of the scene; ``pixels`` decodes it (H x W x 4 uint8 RGBA) on first use, None for
    an external texture the scene has no pixels of."""

    def __init__(self, owner: Held, i: int, im):
        self._owner, self._i = owner, i
        self.name = cstr(im.name)
        self.width, self.height = int(im.width), int(im.height)
        self.has_alpha, self.is_lightmap, self.clamp = bool(im.has_alpha), bool(im.is_lightmap), bool(im.clamp)
        self._pixels: Optional[np.ndarray] = None

    @property
    def pixels(self) -> Optional[np.ndarray]:
        if self._pixels is None:
            h = self._owner  # the scene, held by the image (Scene.free lets it go only after)
            s = h.ptr
            if not lib.bk_scene_image_has_pixels(s, self._i):
                return None
            out = ffi.new("uint8_t **")
            with h.lock:  # decoding may cache in the scene
                r = lib.bk_scene_image_rgba(s, self._i, out)
            if r != 0:
                raise make_error(r, "image %r" % self.name)
            try:
                n = self.width * self.height * 4
                self._pixels = np.frombuffer(ffi.buffer(out[0], n), np.uint8).copy().reshape(self.height, self.width, 4)
            finally:
                lib.bk_free(out[0])
        return self._pixels

    def __repr__(self) -> str:
        return "<Image %r %dx%d>" % (self.name, self.width, self.height)


class Node:
    def __init__(self, n):
        self.name = cstr(n.name)
        self.parent, self.mesh, self.skin = int(n.parent), int(n.mesh), int(n.skin)
        self.translation = tuple(float(x) for x in n.translation)
        self.rotation = tuple(float(x) for x in n.rotation)
        self.scale = tuple(float(x) for x in n.scale)
        #: entity key/values and the like, in order (a key may repeat)
        self.extras: List[Tuple[str, str]] = kv_pairs(n.extras, n.extra_count)
        #: index into Scene.lights, -1 for none
        self.light = int(n.light)

    def __repr__(self) -> str:
        return "<Node %r>" % self.name


class Light:
    """A light on a node (glTF KHR_lights_punctual): type "point", "spot" or "directional",
    shining along its node's local -Z; extras baked "true" when the lightmaps hold it already."""

    def __init__(self, l):
        self.name = cstr(l.name)
        self.type = {lib.BK_LIGHT_POINT: "point", lib.BK_LIGHT_SPOT: "spot",
                     lib.BK_LIGHT_DIRECTIONAL: "directional"}.get(int(l.type), str(l.type))
        self.color = tuple(float(x) for x in l.color)
        self.intensity, self.range = float(l.intensity), float(l.range)
        self.inner_cone, self.outer_cone = float(l.inner_cone), float(l.outer_cone)
        self.extras: List[Tuple[str, str]] = kv_pairs(l.extras, l.extra_count)

    def __repr__(self) -> str:
        return "<Light %r %s>" % (self.name, self.type)


class Skin:
    def __init__(self, owner: Held, k):
        self.name = cstr(k.name)
        self.joints = view(owner, k.joints, k.joint_count, np.dtype("i4"))
        self.inverse_bind = view(owner, k.inverse_bind, k.joint_count, _F4, (16,))
        self.skeleton = int(k.skeleton)


class Channel:
    def __init__(self, owner: Held, c):
        self.node = int(c.node)
        self.path = {lib.BK_PATH_TRANSLATION: "translation", lib.BK_PATH_ROTATION: "rotation",
                     lib.BK_PATH_SCALE: "scale"}.get(c.path, str(c.path))
        self.interpolation = "STEP" if c.interpolation == lib.BK_INTERP_STEP else "LINEAR"
        self.times = view(owner, c.times, c.key_count, _F4)
        self.values = view(owner, c.values, c.key_count, _F4, (4 if c.path == lib.BK_PATH_ROTATION else 3,))


class Animation:
    def __init__(self, owner: Held, a):
        self.name = cstr(a.name)
        self.channels = [Channel(owner, a.channels[i]) for i in range(a.channel_count)]


class Scene:
    """A built scene (engine coordinates, Z up). Arrays are read-only views of the library's
    scene, which lives as long as any of them (or an Image of it, or a call in flight)."""

    def __init__(self, s, export_defaults: Optional[Dict[str, Any]] = None):
        owner = _owner(s)
        self._h: Optional[Held] = owner
        self._export = export_defaults or {}
        self.name = cstr(s.name)
        self.images = [Image(owner, i, s.images[i]) for i in range(s.image_count)]
        self.materials = [Material(s.materials[i]) for i in range(s.material_count)]
        self.meshes = [Mesh(owner, s.meshes[i]) for i in range(s.mesh_count)]
        self.nodes = [Node(s.nodes[i]) for i in range(s.node_count)]
        self.skins = [Skin(owner, s.skins[i]) for i in range(s.skin_count)]
        self.animations = [Animation(owner, s.anims[i]) for i in range(s.anim_count)]
        self.lights = [Light(s.lights[i]) for i in range(s.light_count)]
        self.extras = kv_pairs(s.extras, s.extra_count)
        self.warning_count = int(s.warning_count)
        #: the light styles the faces carry (Quake 1, GoldSrc, BSP2), when one is not style 0;
        #: a lightmap texel is min(255, round(sum of layer texel x value / 264 x lightstyle_gain))
        self.lightstyles = [LightStyle(s.lightstyles[i]) for i in range(s.lightstyle_count)]
        self.lightstyle_gain = float(s.lightstyle_gain)

    def to_gltf(self, path: str, scale: float = 0.0, keep_z_up: bool = False, png_level: int = 0) -> None:
        """Write .glb or .gltf (+ .bin) by the path's extension (temporary file, renamed)."""
        cpath = c_path(path)
        xo = export_options(scale, keep_z_up, png_level)
        h = self._live()
        with h.lock:
            r = lib.bk_export_gltf(h.ptr, xo, cpath, ffi.NULL)
        if r != 0:
            raise_write(r, os.fspath(path))

    def _live(self) -> Held:
        return held(self, "the scene (freed)")

    def free(self) -> None:
        """Free the scene now if no array or image of it is still in use (else when the last one
        goes); later calls raise ClosedError. Idempotent."""
        self._h = None
        for lst in (self.meshes, self.images, self.skins, self.animations):
            lst.clear()

    def glb(self, scale: float = 0.0, keep_z_up: bool = False, png_level: int = 0) -> bytes:
        """The .glb file as bytes."""
        xo = export_options(scale, keep_z_up, png_level)
        out, size = ffi.new("uint8_t **"), ffi.new("size_t *")
        h = self._live()
        with h.lock:
            r = lib.bk_export_glb_memory(h.ptr, xo, out, size, ffi.NULL)
        if r != 0:
            raise make_error(r, "glb")
        return take_block(out[0], size[0])

    def __enter__(self) -> "Scene":
        return self

    def __exit__(self, *exc) -> None:
        """The end of a ``with``: free() (arrays still held keep the memory until they go)."""
        self.free()

    def __repr__(self) -> str:
        return "<Scene %d meshes, %d materials, %d images, %d nodes>" % (
            len(self.meshes), len(self.materials), len(self.images), len(self.nodes))


def export_options(scale: float, keep_z_up: bool, png_level: int):
    xo = ffi.new("bk_export_options *")
    xo.scale = scale
    xo.keep_z_up = bool(keep_z_up)
    xo.png_level = c_int(png_level, "int32_t", "png_level")
    return xo
