# Import glTF files into Blender (headless) and report what arrived.
# usage: blender -b --python-exit-code 1 --python blender_import.py -- [--armature] [--actions] FILE...
# Fails (exit 1) if an import raises, brings no mesh, or lacks a required armature / action.
import sys

import numpy

if not hasattr(numpy, "bool"):  # Blender 3.4's importer still uses the alias numpy removed
    numpy.bool = bool

import bpy

argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
need_arm = "--armature" in argv
need_act = "--actions" in argv
files = [a for a in argv if not a.startswith("--")]
bad = 0
for f in files:
    bpy.ops.wm.read_factory_settings(use_empty=True)
    try:
        bpy.ops.import_scene.gltf(filepath=f)
    except Exception as e:  # noqa: BLE001 - report any importer failure
        print(f"INVALID {f}: import failed: {e}")
        bad += 1
        continue
    meshes = [o for o in bpy.data.objects if o.type == "MESH"]
    arms = [o for o in bpy.data.objects if o.type == "ARMATURE"]
    tris = sum(sum(len(p.vertices) - 2 for p in o.data.polygons) for o in meshes)
    dims = [0.0, 0.0, 0.0]
    if meshes:
        import mathutils
        lo = mathutils.Vector((1e30,) * 3)
        hi = mathutils.Vector((-1e30,) * 3)
        for o in meshes:
            for c in o.bound_box:
                w = o.matrix_world @ mathutils.Vector(c)
                lo = mathutils.Vector(map(min, lo, w))
                hi = mathutils.Vector(map(max, hi, w))
        dims = list(hi - lo)
    info = (f"{len(meshes)} meshes, {tris} triangles, {len(bpy.data.materials)} materials, "
            f"{len(bpy.data.images)} images, {len(arms)} armatures, {len(bpy.data.actions)} actions, "
            f"extent {dims[0]:.2f} x {dims[1]:.2f} x {dims[2]:.2f} m (Blender X Y Z, Z up)")
    problems = []
    if not meshes:
        problems.append("no mesh")
    if need_arm and not arms:
        problems.append("no armature")
    if need_act and not bpy.data.actions:
        problems.append("no action")
    if problems:
        bad += 1
        print(f"INVALID {f}: {info}: {', '.join(problems)}")
    else:
        print(f"imported {f}: {info}")
sys.exit(1 if bad else 0)
