"""bspkit for Blender: File > Import > Game map (.bsp, .pk3 map, .dpm, .mdl).

Converts the file with bspkit (the Python package when it imports, else the bspkit program) to a
temporary .glb, imports that with Blender's glTF importer, then wires what the importer leaves
out: texture x lightmap as the engine draws it, alpha test / blend, unlit skies, the Standard view
transform, cameras at the player spawns. See docs/blender.md."""

bl_info = {
    "name": "bspkit: game maps and models",
    "author": "bspkit",
    "version": (0, 1, 0),
    "blender": (3, 4, 0),
    "location": "File > Import > Game map (.bsp, .pk3 map, .dpm, .mdl)",
    "description": "Quake, GoldSrc, Quake 3 and Source maps, DarkPlaces DPM and Source MDL models, "
                   "with their baked lightmaps, entities and spawn cameras",
    "category": "Import-Export",
}

if "bpy" in locals():  # Blender's "Reload Scripts"
    import importlib
    from . import glb, convert, materials, scene, importer  # noqa: F811
    for _m in (glb, convert, materials, scene, importer):
        importlib.reload(_m)

import bpy  # noqa: E402
from bpy.props import BoolProperty, FloatProperty, StringProperty  # noqa: E402
from bpy_extras.io_utils import ImportHelper  # noqa: E402

from . import convert, importer  # noqa: E402


def _paths(text):
    """Search paths typed as one string: separated by ';' or new lines."""
    return [p.strip() for p in text.replace("\n", ";").split(";") if p.strip()]


class BspkitPreferences(bpy.types.AddonPreferences):
    bl_idname = __name__

    cli_path: StringProperty(name="bspkit program", subtype="FILE_PATH",
                             description="The bspkit command-line tool (empty: beside the add-on, then PATH)")
    use_package: BoolProperty(name="Use the bspkit Python package when it imports", default=True)
    game_dirs: StringProperty(name="Default game folders", description="Searched by every import ('; ' separated)")

    def draw(self, context):
        col = self.layout.column()
        col.prop(self, "cli_path")
        col.prop(self, "use_package")
        col.prop(self, "game_dirs")
        found = convert.find_cli(self.cli_path)
        col.label(text=f"program: {found or 'not found'};  package: {'yes' if convert.package() else 'no'}")


class IMPORT_SCENE_OT_bspkit(bpy.types.Operator, ImportHelper):
    """Import a game map or model with bspkit (lightmaps wired, spawn cameras)"""
    bl_idname = "import_scene.bspkit"
    bl_label = "Import Game Map"
    bl_options = {"REGISTER", "UNDO", "PRESET"}

    filename_ext = ".bsp"
    filter_glob: StringProperty(default="*.bsp;*.pk3;*.dpm;*.mdl", options={"HIDDEN"})
    game_dirs: StringProperty(name="Game folders", default="",
                              description="Game folders or .pk3/.vpk archives searched for textures, shaders, "
                                          "WADs and models (separated by ';')")
    wads: StringProperty(name="WADs", default="", description="WAD3 files for GoldSrc textures (separated by ';')")
    member: StringProperty(name="Map in .pk3", default="",
                           description="For a .pk3: the map to import (maps/NAME.bsp or NAME; empty: the first)")
    lightmaps: BoolProperty(name="Lightmaps", default=True,
                            description="Baked lighting wired into every material (off: plain Principled "
                                        "materials to light in Blender)")
    props: BoolProperty(name="Props", default=True, description="Source static props")
    collision: BoolProperty(name="Collision", default=False,
                            description="The collision geometry as wireframe objects (not rendered)")
    entities: BoolProperty(name="Entities", default=True, description="Entities as empties with their keys")
    cameras: BoolProperty(name="Spawn cameras", default=True, description="A camera at each player spawn")
    scale: FloatProperty(name="Scale", default=0.0254, min=1e-6, max=1000.0, precision=4,
                         description="Metres per engine unit (0.0254: one unit is one inch)")

    def execute(self, context):
        prefs = context.preferences.addons[__name__].preferences if __name__ in context.preferences.addons else None
        dirs = _paths(self.game_dirs) + (_paths(prefs.game_dirs) if prefs else [])
        try:
            got = importer.import_file(
                context, self.filepath, game_dirs=dirs, wads=_paths(self.wads), member=self.member,
                lightmaps=self.lightmaps, props=self.props, collision=self.collision, entities=self.entities,
                scale=self.scale, cameras=self.cameras, cli=prefs.cli_path if prefs else "",
                use_package=prefs.use_package if prefs else True,
                report=lambda m: self.report({"INFO"}, m[:4000]))
        except (convert.ConvertError, ValueError, OSError, RuntimeError) as e:
            self.report({"ERROR"}, str(e)[:4000])
            return {"CANCELLED"}
        show_materials(context)
        via = "package" if got["converter"] == "package" else got["converter"]
        self.report({"INFO"}, f"bspkit ({via}): {got['objects']} objects, {got['materials']} materials "
                              f"({got['lightmapped']} lightmapped), {got['cameras']} spawn cameras")
        return {"FINISHED"}

    def draw(self, context):
        col = self.layout.column()
        for p in ("game_dirs", "wads", "member", "lightmaps", "props", "collision", "entities", "cameras", "scale"):
            col.prop(self, p)


def show_materials(context):
    """The 3D views switched to Material Preview (Solid shading shows no textures)."""
    screen = getattr(context, "screen", None)
    for area in (screen.areas if screen else ()):
        if area.type == "VIEW_3D" and area.spaces.active.shading.type == "SOLID":
            area.spaces.active.shading.type = "MATERIAL"


def menu_import(self, context):
    self.layout.operator(IMPORT_SCENE_OT_bspkit.bl_idname, text="Game map (.bsp, .pk3 map, .dpm, .mdl)")


_classes = (BspkitPreferences, IMPORT_SCENE_OT_bspkit)


def register():
    for c in _classes:
        bpy.utils.register_class(c)
    bpy.types.TOPBAR_MT_file_import.append(menu_import)


def unregister():
    bpy.types.TOPBAR_MT_file_import.remove(menu_import)
    for c in reversed(_classes):
        bpy.utils.unregister_class(c)
