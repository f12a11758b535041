#!/usr/bin/python3
"""The 3D skybox of a converted Source map against the map itself (standard library + numpy):
sky_camera's origin and scale from the entities, its area by walking the BSP tree (bspfile.h
dnode_t / dleaf_t / dplane_t, read here), then in the glTF: one node "skybox_3d" scaled by
`scale` with translation -scale x origin (engine units -> glTF metres, Y up), whose triangles
lie in that area (their centre, a unit in front, is in a leaf of it), and as many triangles as
worldspawn has there (each face drawn twice: in the world where it is, and in the sky); the
static props and brush entities standing in the area are drawn again too, as copies of their
nodes under it; sky_camera's fog keys are the node's extras.
usage: sky3d_check.py MAP.bsp OUT.gltf  (exit 1 on a mismatch; prints a summary)"""
import json, os, re, struct, sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vbsp_ref import lumps  # noqa: E402

UNIT = 0.0254
bsp, gltf_path = sys.argv[1], sys.argv[2]
data = open(bsp, "rb").read()
version, lump = lumps(data)
raw = [struct.unpack_from("<iiii", data, 8 + 16 * i) for i in range(64)]
l4d2 = version == 21 and not all(o >= 0 and (ln == 0 or o >= 1036) and o + ln <= len(data) for o, ln, _, _ in raw)
leaf_version = raw[10][0] if l4d2 else raw[10][2]
planes = np.frombuffer(lump(1), dtype="<f4").reshape(-1, 5)[:, :4]
nodes_b, leafs_b, models_b = lump(5), lump(10), lump(14)
leaf_size = 56 if version <= 19 or (version == 20 and leaf_version == 0) else 32
if version == 17: leaf_size = 32
if len(leafs_b) % leaf_size: leaf_size = 32 if len(leafs_b) % 32 == 0 else 56
headnode = struct.unpack_from("<i", models_b, 36)[0]


def area_at(p):
    n = headnode
    for _ in range(len(nodes_b) // 32 + 1):
        if n < 0:
            leaf = -1 - n
            return struct.unpack_from("<H", leafs_b, leaf * leaf_size + 6)[0] & 0x1ff
        pn, c0, c1 = struct.unpack_from("<iii", nodes_b, n * 32)
        d = planes[pn, 0] * p[0] + planes[pn, 1] * p[1] + planes[pn, 2] * p[2] - planes[pn, 3]
        n = c0 if d >= 0 else c1
    return -1


ents_text = lump(0).split(b"\0", 1)[0].decode("latin-1")
cam = None
for block in re.findall(r"\{[^{}]*\}", ents_text):
    kv = dict(re.findall(r'"([^"]*)"\s+"([^"]*)"', block))
    if kv.get("classname", "").lower() == "sky_camera":
        cam = kv
        break
g = json.load(open(gltf_path))
sky_nodes = [n for n in g["nodes"] if n.get("name") == "skybox_3d"]
if cam is None:
    print(json.dumps({"sky_camera": None, "skybox_3d_nodes": len(sky_nodes)}))
    sys.exit(1 if sky_nodes else 0)
origin = np.array([float(x) for x in cam["origin"].split()])
scale = float(cam.get("scale", "16"))
area = area_at(origin)
bad = []
if len(sky_nodes) != 1:
    print("%d skybox_3d nodes" % len(sky_nodes))
    sys.exit(1)
node = sky_nodes[0]
want_t = -scale * origin * UNIT
want_t = np.array([want_t[0], want_t[2], -want_t[1]])
if not np.allclose(node.get("scale", [1, 1, 1]), [scale] * 3, rtol=1e-6): bad.append("scale %s, want %g" % (node.get("scale"), scale))
if not np.allclose(node.get("translation", [0, 0, 0]), want_t, rtol=1e-5, atol=1e-4):
    bad.append("translation %s, want %s" % (node.get("translation"), want_t))
bins = {}


def accessor(i):
    a = g["accessors"][i]
    v = g["bufferViews"][a["bufferView"]]
    uri = g["buffers"][v["buffer"]]["uri"]
    if uri not in bins: bins[uri] = open(os.path.join(os.path.dirname(gltf_path), uri), "rb").read()
    n = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4}[a["type"]]
    dt = {5126: np.float32, 5125: np.uint32, 5123: np.uint16, 5121: np.uint8}[a["componentType"]]
    arr = np.frombuffer(bins[uri], dtype=dt, count=a["count"] * n, offset=v.get("byteOffset", 0) + a.get("byteOffset", 0))
    return arr.reshape(a["count"], n) if n > 1 else arr


def triangles_in_area(mesh, disp):
    """(triangles, of which in the area) of the mesh's flat faces (disp False) or displacements
    (primitives with COLOR_0), their corners in engine units"""
    total = inside = 0
    for pr in mesh["primitives"]:
        if ("COLOR_0" in pr["attributes"]) != disp: continue
        p = accessor(pr["attributes"]["POSITION"]).astype(np.float64) / UNIT
        p = np.stack([p[:, 0], -p[:, 2], p[:, 1]], axis=1)
        idx = accessor(pr["indices"]).reshape(-1, 3)
        for t in idx:
            a, b, c = p[t[0]], p[t[1]], p[t[2]]
            nrm = np.cross(b - a, c - a)
            ln = np.linalg.norm(nrm)
            if ln == 0: continue
            total += 1
            inside += area_at((a + b + c) / 3 + nrm / ln) == area
    return total, inside


sky_mesh = g["meshes"][node["mesh"]]
world = [m for m in g["meshes"] if m.get("name") == "worldspawn"][0]
sky_total, sky_in = triangles_in_area(sky_mesh, False)
world_total, world_in = triangles_in_area(world, False)
if sky_in < 0.99 * sky_total: bad.append("%d of %d skybox_3d triangles in area %d" % (sky_in, sky_total, area))
if not (0.99 * world_in <= sky_total <= 1.01 * world_in + 2):
    bad.append("skybox_3d has %d triangles, worldspawn %d in area %d" % (sky_total, world_in, area))
# displaced triangles may leave their base face's area (into solid): most are in it, and the
# world has no more there than the sky holds
sky_dt, sky_din = triangles_in_area(sky_mesh, True)
world_dt, world_din = triangles_in_area(world, True)
if sky_din < 0.5 * sky_dt or world_din > sky_dt:
    bad.append("displacements: %d of %d skybox_3d triangles in area %d, worldspawn %d there" % (sky_din, sky_dt, area, world_din))
# static props: each one whose origin is in the area is drawn again under skybox_3d, a copy of its
# node (model, placement); the children are nothing else (a prop listed in a leaf of the area but
# standing outside it is allowed: the map's own leaf list decides)
props = [n for n in g["nodes"] if n.get("extras", {}).get("classname") == "prop_static"]
kids = [g["nodes"][i] for i in node.get("children", [])]


def key(n):
    return (n["extras"].get("model"), tuple(np.round(n.get("translation", [0, 0, 0]), 4)), tuple(np.round(n.get("rotation", [0, 0, 0, 1]), 5)))


world_props = [n for n in props if n not in kids]
# brush entities: each whose model's bounds centre (at the entity's origin) is in the area is
# drawn again under skybox_3d, a copy of its node
ents = {}
for block in re.findall(r"\{[^{}]*\}", ents_text):
    kv = dict(re.findall(r'"([^"]*)"\s+"([^"]*)"', block))
    if kv.get("model", "").startswith("*"): ents.setdefault(kv["model"], kv)
brush_in = 0
for model, kv in ents.items():
    k = int(model[1:])
    mins, maxs = struct.unpack_from("<3f", models_b, 48 * k), struct.unpack_from("<3f", models_b, 48 * k + 12)
    org = np.array([float(x) for x in kv.get("origin", "0 0 0").split()])
    if area_at((np.array(mins) + np.array(maxs)) / 2 + org) != area: continue
    brush_in += 1
    copies = [c for c in kids if c.get("extras", {}).get("model") == model]
    if len(copies) != 1: bad.append("brush entity %s in the area: %d copies under skybox_3d" % (model, len(copies)))
if brush_in and node.get("extras", {}).get("brushEntities") != str(brush_in):
    bad.append("extras.brushEntities %s, %d in the area" % (node.get("extras", {}).get("brushEntities"), brush_in))
kids = [c for c in kids if not c.get("extras", {}).get("model", "").startswith("*")]
# sky_camera's fog, as its keys say, on the node
if cam.get("fogenable", "0") not in ("", "0"):
    for ck, name in (("fogcolor", "fogColor"), ("fogstart", "fogStart"), ("fogend", "fogEnd")):
        if ck in cam and node.get("extras", {}).get(name) != cam[ck]:
            bad.append("extras.%s %r, sky_camera says %r" % (name, node.get("extras", {}).get(name), cam[ck]))
elif any(k.startswith("fog") for k in node.get("extras", {})):
    bad.append("fog extras without fogenable")
kid_keys = {key(n) for n in kids}
if not all(key(k) in {key(n) for n in world_props} and k.get("extras", {}).get("skybox3d") == "true" for k in kids):
    bad.append("a skybox_3d child that is not a copy of a static prop")
in_area = [n for n in world_props
           if area_at(np.array([n["translation"][0], -n["translation"][2], n["translation"][1]]) / UNIT) == area]
missing = [n["extras"].get("model") for n in in_area if key(n) not in kid_keys]
if missing: bad.append("%d static props in the area not under skybox_3d: %s" % (len(missing), missing[:3]))
if kids and node.get("extras", {}).get("props") != str(len(kids)): bad.append("extras.props %s, %d children" % (node.get("extras", {}).get("props"), len(kids)))
print(json.dumps({"origin": origin.tolist(), "scale": scale, "area": area, "skybox_3d_triangles": sky_total,
                  "props": len(kids), "props_with_origin_in_area": len(in_area), "brush_entities": brush_in,
                  "in_area": sky_in, "worldspawn_in_area": world_in, "worldspawn": world_total,
                  "displacement_triangles": sky_dt, "displacement_in_area": sky_din}))
for b in bad: print(b)
sys.exit(1 if bad else 0)
