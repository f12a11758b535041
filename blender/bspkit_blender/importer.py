"""The import itself: convert, load with Blender's glTF importer, post-process."""
import contextlib
import os
import shutil
import tempfile
import warnings

import bpy

from . import convert, glb, materials, scene


@contextlib.contextmanager
def numpy_aliases():
    """Blender 3.4's glTF importer uses numpy.bool, which numpy 1.24 removed (Debian 12 ships
    both): the removed aliases point at the builtins while the importer runs, and are taken away
    again after it, so no other add-on sees a patched numpy."""
    import numpy  # noqa: PLC0415
    added = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, typ in (("bool", bool), ("int", int), ("float", float), ("object", object)):
            try:
                getattr(numpy, name)
            except AttributeError:
                setattr(numpy, name, typ)
                added.append(name)
    try:
        yield
    finally:
        for name in added:
            delattr(numpy, name)


def gltf_importer():
    """Blender's glTF add-on, enabled if it is not (it is by default)."""
    import addon_utils  # noqa: PLC0415
    if not addon_utils.check("io_scene_gltf2")[1]:
        addon_utils.enable("io_scene_gltf2", default_set=True)


def _collection(context, name):
    coll = bpy.data.collections.new(name)
    context.scene.collection.children.link(coll)
    layer = context.view_layer.layer_collection.children.get(coll.name)
    if layer is not None:
        context.view_layer.active_layer_collection = layer
    return coll


def import_file(context, filepath, game_dirs=(), wads=(), member="", lightmaps=True, props=True,
                collision=False, entities=True, scale=0.0254, cameras=True, cli="", use_package=True,
                report=print):
    """Import FILEPATH into the current scene. Returns a dict of what arrived."""
    src = convert.source_of(filepath, member)
    tmp = tempfile.mkdtemp(prefix="bspkit_blender_")
    try:
        out = os.path.join(tmp, "map.glb")
        how, msgs = convert.to_glb(src, out, cli=cli, use_package=use_package, game_dirs=list(game_dirs),
                                   wads=list(wads), lightmaps=lightmaps, props=props, collision=collision,
                                   entities=entities, scale=scale)
        if msgs:
            report(msgs)
        doc, binary = glb.read(out)
        full = {k: doc.get(k) for k in ("textures", "images", "samplers") if k in doc}
        original = glb.strip_textures(doc)
        stripped = os.path.join(tmp, "import.glb")
        glb.write(stripped, doc, binary)
        gltf_importer()
        name = os.path.basename(src.split(":")[-1] if src.lower().count(".pk3:") else src)
        coll = _collection(context, os.path.splitext(name)[0])
        before_obj, before_mat = set(bpy.data.objects), set(bpy.data.materials)
        with numpy_aliases():
            bpy.ops.import_scene.gltf(filepath=stripped)
        objects = [o for o in bpy.data.objects if o not in before_obj]
        mats = [m for m in bpy.data.materials if m not in before_mat]
        images = materials.Images(dict(doc, **full), binary, tmp, raw=scene.engine_look(original))
        wired = scene.rebuild_materials(mats, doc, original, images, scene.uv_names(objects))
        fmt = str(context.scene.get("format", ""))
        game = convert.game_facts(src, cli=cli, use_package=use_package) if cameras else {}
        cams = scene.spawn_cameras(context, objects, game, scale, coll) if cameras else []
        scene.follow_camera(objects, context.scene.camera)
        scene.show_collision(objects)
        scene.baked_lights_off(objects)
        scene.colour_management(context.scene)
        return {"converter": how, "objects": len(objects), "materials": len(mats), "lightmapped": wired,
                "cameras": len(cams), "format": fmt}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
