"""After the glTF importer: materials rebuilt, cameras at the player spawns, collision shown as
wire, the sky box following the camera, colour management set to show the engine's picture."""
import math

import bpy
from mathutils import Vector

from . import glb, materials


def angles(props):
    """(pitch, yaw) in degrees from an entity's 'angles' (pitch yaw roll) or 'angle' (yaw; -1 up,
    -2 down), pitch > 0 looking down as in the engines."""
    try:
        if "angles" in props:
            p, y = (float(v) for v in str(props["angles"]).split()[:2])
            return p, y
        if "angle" in props:
            a = float(props["angle"])
            return (-90.0, 0.0) if a == -1 else (90.0, 0.0) if a == -2 else (0.0, a)
    except ValueError:
        pass
    return 0.0, 0.0


def engine_look(original):
    """Whether materials are drawn as the engine does (the file has baked lightmaps) or as
    Principled BSDF materials to light in Blender (models, maps converted without lightmaps)."""
    return any("occlusionTexture" in m for m in original)


def rebuild_materials(mats, doc, original, images, uv_of):
    """Each imported material (tagged with its glTF index) rebuilt from the original glTF
    material. Returns how many have a lightmap wired."""
    lit = not engine_look(original)
    wired = 0
    for mat in mats:
        i = mat.get(glb.MATERIAL_TAG)
        if not isinstance(i, int) or not 0 <= i < len(original):
            continue
        del mat[glb.MATERIAL_TAG]
        mat.use_nodes = True
        gm = original[i]
        if lit:
            materials.build_lit(mat, gm, images, uv_of.get(mat.name, []))
        elif materials.build_engine(mat, gm, images, uv_of.get(mat.name, [])) is not None:
            wired += 1
    return wired


def uv_names(objects):
    """Material name -> the UV map names of the first mesh that uses it."""
    out = {}
    for o in objects:
        if o.type != "MESH":
            continue
        names = [u.name for u in o.data.uv_layers]
        for m in o.data.materials:
            if m is not None and m.name not in out:
                out[m.name] = names
    return out


def spawn_cameras(context, objects, game, scale, collection):
    """A camera at each player spawn, at eye height, looking along its angles; the first becomes
    the scene camera. GAME: the library's facts for the map (convert.game_facts: eye_height,
    spawn_classes). Each camera records its engine eye as 'engine_eye' (x y z yaw pitch)."""
    cams = []
    eye = float(game.get("eye_height", 0.0))
    classes = list(game.get("spawn_classes", ()))
    # the game's usual start (its first spawn class) first, then the others, by name
    spawns = sorted((o for o in objects if o.type == "EMPTY" and str(o.get("classname", "")) in classes),
                    key=lambda o: (o.get("classname") != classes[0], o.name))
    for o in spawns:
        pitch, yaw = angles(o)
        pos = o.matrix_world.translation + Vector((0.0, 0.0, eye * scale))
        data = bpy.data.cameras.new(f"{o.name} eye")
        data.sensor_fit = "HORIZONTAL"
        data.angle = math.radians(90.0)  # the engines' fov 90, horizontal
        data.clip_start = 4 * scale
        data.clip_end = 65536 * scale
        cam = bpy.data.objects.new(f"{o.name} eye", data)
        cam.location = pos
        cam.rotation_euler = (math.radians(90.0 - pitch), 0.0, math.radians(yaw - 90.0))
        e = [c / scale for c in pos]
        cam["engine_eye"] = f"{e[0]:.3f} {e[1]:.3f} {e[2]:.3f} {yaw:g} {pitch:g}"
        cam["spawn"] = o.name
        collection.objects.link(cam)
        cams.append(cam)
    if cams:
        context.scene.camera = cams[0]
    return cams


def follow_camera(objects, camera):
    """The sky box (node 'skybox', extras.followCamera) stays centred on the scene camera, as the
    engine draws it."""
    for o in objects:
        if o.get("followCamera") and camera is not None:
            c = o.constraints.new("COPY_LOCATION")
            c.target = camera


def show_collision(objects):
    for o in objects:
        if str(o.get("collision", "")) == "true":
            o.display_type = "WIRE"
            o.hide_render = True


def baked_lights_off(objects):
    """Lights the lightmaps already hold (Source world lights, extras.baked on the glTF light) stay
    in the file but off: on, they would light the scene a second time."""
    for o in objects:
        data = getattr(o, "data", None)
        if o.type == "LIGHT" and data is not None and str(data.get("baked", o.get("baked", ""))) == "true":
            o.hide_render = True
            o.hide_viewport = True


def colour_management(scene):
    """Standard view transform (the textures' sRGB values come out as they are), and the game's
    display gamma when the file records one (DarkPlaces' v_gamma)."""
    vs = scene.view_settings
    vs.view_transform = "Standard"
    vs.look = "None"
    vs.exposure = 0.0
    try:
        vs.gamma = float(scene.get("displayGamma", 1.0))
    except (TypeError, ValueError):
        vs.gamma = 1.0
