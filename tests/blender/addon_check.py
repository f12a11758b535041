# Import one file with the bspkit add-on in headless Blender, check what arrived, render the first
# spawn camera's view with Cycles (CPU) and print one JSON line "BSPKIT_CHECK {...}".
# usage: blender -b --factory-startup --python-exit-code 1 --python addon_check.py -- \
#        (--zip ADDON.zip | --path DIR) FILE [--game-dirs 'A;B'] [--wads 'W'] [--member M]
#        [--render OUT.png --size WxH --samples N [--camera-of CLASSNAME] [--yaw DEG]] [--want-lightmaps] [--want-cameras]
#        [--collision] [--bad BADFILE] [--want-armature] [--want-actions] [--want-props] [--want-skybox]
#        [--want-baked-lights]
import argparse
import json
import os
import sys
import time

import bpy

argv = sys.argv[sys.argv.index("--") + 1:]
ap = argparse.ArgumentParser()
ap.add_argument("file")
ap.add_argument("--zip")
ap.add_argument("--path")
ap.add_argument("--game-dirs", default="")
ap.add_argument("--wads", default="")
ap.add_argument("--member", default="")
ap.add_argument("--collision", action="store_true", help="import with collision: wire objects, not rendered")
ap.add_argument("--bad", help="first import this bad file: a clear error, nothing added")
ap.add_argument("--sys-path", default="", help="a folder put first on sys.path (a stand-in bspkit package)")
ap.add_argument("--render")
ap.add_argument("--size", default="320x240")
ap.add_argument("--samples", type=int, default=16)
ap.add_argument("--camera-of", default="", help="render from the camera of the first spawn of this classname")
ap.add_argument("--yaw", type=float, help="turn that camera to this engine yaw (degrees)")
for w in ("lightmaps", "cameras", "armature", "actions", "props", "skybox", "baked-lights"):
    ap.add_argument("--want-" + w, action="store_true")
a = ap.parse_args(argv)

bpy.ops.wm.read_factory_settings(use_empty=True)
if a.zip:  # installed the way a user does (Preferences > Add-ons > Install), into BLENDER_USER_SCRIPTS
    if not os.environ.get("BLENDER_USER_SCRIPTS"):
        sys.exit("--zip needs BLENDER_USER_SCRIPTS (a scratch folder), not to install into the user's Blender")
    bpy.ops.preferences.addon_install(filepath=os.path.abspath(a.zip), overwrite=True)
else:
    sys.path.insert(0, a.path)
bpy.ops.preferences.addon_enable(module="bspkit_blender")

if a.sys_path:
    sys.path.insert(0, a.sys_path)
problems = []
if a.bad:
    try:
        bpy.ops.import_scene.bspkit(filepath=a.bad)
        problems.append("a bad file imported without an error")
    except RuntimeError as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else ""
        print("bad file refused: " + first)
        if a.bad not in str(e) or "error" not in str(e):
            problems.append(f"the error does not name the file: {first}")
    if len(bpy.data.objects):
        problems.append("a bad file left objects behind")
t0 = time.time()
r = bpy.ops.import_scene.bspkit(filepath=a.file, game_dirs=a.game_dirs, wads=a.wads, member=a.member,
                                collision=a.collision)
took = time.time() - t0
if r != {"FINISHED"}:
    problems.append(f"import returned {r}")
sc = bpy.context.scene
objs = list(bpy.data.objects)
meshes = [o for o in objs if o.type == "MESH"]
empties = [o for o in objs if o.type == "EMPTY" and "classname" in o.keys()]
cams = [o for o in objs if o.type == "CAMERA"]
arms = [o for o in objs if o.type == "ARMATURE"]


def lightmap_wired(m):
    """An Image Texture of the atlas read through the second UV map, multiplied into the base
    colour (a Mix node, Multiply) that reaches the Emission shader; and a base colour image."""
    if not m.use_nodes:
        return False, False
    nodes = m.node_tree.nodes
    users = [o for o in meshes if m.name in [s.name for s in o.data.materials if s]]
    uv2 = users[0].data.uv_layers[1].name if users and len(users[0].data.uv_layers) > 1 else None
    lm = base = False
    for n in nodes:
        if n.type != "TEX_IMAGE" or n.image is None:
            continue
        src = n.inputs["Vector"].links[0].from_node if n.inputs["Vector"].links else None
        reaches = False
        todo = [n]
        seen = set()
        while todo:  # follow the colour output to the Emission shader through Mix (Multiply) nodes
            x = todo.pop()
            if x.name in seen:
                continue
            seen.add(x.name)
            if x.type == "EMISSION":
                reaches = True
            for o in x.outputs:
                for link in o.links:
                    todo.append(link.to_node)
        mult = any(l.to_node.type == "MIX" and l.to_node.blend_type == "MULTIPLY" for l in n.outputs["Color"].links)
        if src is not None and src.type == "UVMAP" and src.uv_map == uv2 and reaches and mult:
            lm = True
        elif reaches:
            base = True
    return lm, base


wired = [m.name for m in bpy.data.materials if all(lightmap_wired(m))]
props = [o for o in meshes if str(o.get("classname", "")) == "prop_static"]
info = {"file": a.file, "seconds": round(took, 2), "objects": len(objs), "meshes": len(meshes),
        "entities": len(empties), "materials": len(bpy.data.materials), "lightmapped": len(wired),
        "images": len(bpy.data.images), "cameras": len(cams), "armatures": len(arms),
        "actions": len(bpy.data.actions), "props": len(props),
        "view_transform": sc.view_settings.view_transform,
        "eye": sc.camera["engine_eye"] if sc.camera is not None and "engine_eye" in sc.camera.keys() else None}
if not meshes:
    problems.append("no mesh")
if info["view_transform"] != "Standard":
    problems.append("view transform not Standard")
if a.want_lightmaps and not wired:
    problems.append("no material has image and lightmap wired")
if a.want_cameras and (not cams or sc.camera is None):
    problems.append("no spawn camera")
if a.want_cameras and not empties:
    problems.append("no entity empty with its keys")
if a.want_armature and not arms:
    problems.append("no armature")
if a.want_actions and not bpy.data.actions:
    problems.append("no action")
sky = [o for o in objs if o.get("followCamera")]
info["skybox"] = len(sky)
info["gamma"] = round(sc.view_settings.gamma, 4)
if a.want_skybox:
    if not sky or not any(c.type == "COPY_LOCATION" and c.target == sc.camera for c in sky[0].constraints):
        problems.append("no sky box following the scene camera")
    if "displayGamma" not in sc.keys() or abs(sc.view_settings.gamma - float(sc["displayGamma"])) > 1e-4:
        problems.append("the view's gamma is not the file's displayGamma")
# lights the lightmaps hold already (Source world lights, extras.baked) arrive hidden
lights = [o for o in objs if o.type == "LIGHT"]
baked = [o for o in lights if str(o.data.get("baked", o.get("baked", ""))) == "true"]
info["lights"], info["baked_lights"] = len(lights), len(baked)
if any(not o.hide_render or not o.hide_viewport for o in baked):
    problems.append("a baked light is not hidden")
if a.want_baked_lights and not baked:
    problems.append("no baked light arrived")
coll = [o for o in meshes if str(o.get("collision", "")) == "true"]
info["collision"] = len(coll)
if a.collision and (not coll or any(not o.hide_render or o.display_type != "WIRE" for o in coll)):
    problems.append("collision pieces missing, rendered or not shown as wire")
if a.want_props and not props:
    problems.append("no static prop with a mesh")
if a.want_props and props and len({o.data.name for o in props}) >= len(props):
    problems.append("static props of one model do not share a mesh")

if a.camera_of:
    pick = [c for c in cams if str(bpy.data.objects[c["spawn"]].get("classname")) == a.camera_of]
    if pick:
        sc.camera = sorted(pick, key=lambda c: c.name)[0]
        info["eye"] = sc.camera["engine_eye"]
    else:
        problems.append(f"no camera at a {a.camera_of}")
if a.yaw is not None and sc.camera is not None:
    import math
    sc.camera.rotation_euler[2] = math.radians(a.yaw - 90.0)
    x, y, z, _, pitch = sc.camera["engine_eye"].split()
    sc.camera["engine_eye"] = info["eye"] = f"{x} {y} {z} {a.yaw:g} {pitch}"
if a.render and sc.camera is not None:
    w, h = (int(v) for v in a.size.split("x"))
    sc.render.engine = "CYCLES"
    sc.cycles.device = "CPU"
    sc.cycles.samples = a.samples
    sc.cycles.use_adaptive_sampling = False
    sc.cycles.use_denoising = False
    sc.cycles.max_bounces = 0          # emission only: what the camera sees, no light transport
    sc.cycles.transparent_max_bounces = 64
    sc.render.threads_mode = "FIXED"
    sc.render.threads = 2
    sc.render.resolution_x, sc.render.resolution_y, sc.render.resolution_percentage = w, h, 100
    sc.render.film_transparent = False
    sc.render.filter_size = 1.0
    world = bpy.data.worlds.new("background")
    world.use_nodes = True
    bg = world.node_tree.nodes["Background"]
    srgb = [0x20 / 255, 0x28 / 255, 0x30 / 255]  # the three.js reference's background
    bg.inputs["Color"].default_value = [((c + 0.055) / 1.055) ** 2.4 for c in srgb] + [1.0]
    sc.world = world
    sc.render.image_settings.file_format = "PNG"
    sc.render.image_settings.color_mode = "RGB"
    sc.render.image_settings.color_depth = "8"
    sc.render.filepath = a.render
    t1 = time.time()
    bpy.ops.render.render(write_still=True)
    info["render_seconds"] = round(time.time() - t1, 2)
info["problems"] = problems
print("BSPKIT_CHECK " + json.dumps(info))
sys.exit(1 if problems else 0)
