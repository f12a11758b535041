#!/usr/bin/python3
"""Sky faces of a converted Source map against the map itself (read here, standard library only):
the world's faces whose texinfo is sky (SURF_SKY 0x4 / SURF_SKY2D 0x2, and not nodraw, hint, skip
or trigger) must all be drawn, with materials that are unlit (KHR_materials_unlit), carry no
lightmap, say extras.sky "faces" and name the worldspawn skyname; no other material may say so.
usage: sky_check.py MAP.bsp OUT.gltf  (prints a summary; exit 1 on a mismatch)"""
import json, os, re, struct, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vbsp_ref import lumps  # noqa: E402

bsp, gltf_path = sys.argv[1], sys.argv[2]
data = open(bsp, "rb").read()
version, lump = lumps(data)
assert version != 17, "v17 faces are laid out differently"
faces, texinfo, models = lump(7), lump(6), lump(14)
ents = lump(0).split(b"\0", 1)[0].decode("latin-1")
world = ents[:ents.find("}") + 1]
m = re.search(r'"skyname"\s+"([^"]*)"', world)
skyname = m.group(1) if m else ""
firstface, numfaces = struct.unpack_from("<ii", models, 40)
want_tris = 0
for f in range(firstface, firstface + numfaces):
    numedges, ti, di = struct.unpack_from("<hhh", faces, f * 56 + 8)
    flags = struct.unpack_from("<i", texinfo, ti * 72 + 64)[0]
    if flags & 0x6 and not flags & (0x40 | 0x80 | 0x100 | 0x200) and di < 0:
        want_tris += numedges - 2
g = json.load(open(gltf_path))
bad = []
sky = set()
for i, mat in enumerate(g.get("materials", [])):
    ex = mat.get("extras", {})
    if ex.get("sky") != "faces":
        continue
    sky.add(i)
    if "KHR_materials_unlit" not in mat.get("extensions", {}): bad.append("%s: not unlit" % mat["name"])
    if "occlusionTexture" in mat or "lightmapTexture" in ex: bad.append("%s: lightmapped" % mat["name"])
    if ex.get("skyname") != skyname: bad.append("%s: skyname %r, worldspawn says %r" % (mat["name"], ex.get("skyname"), skyname))
got_tris = 0
for mesh in g.get("meshes", []):
    if mesh.get("name") != "worldspawn":
        continue
    for p in mesh["primitives"]:
        if p.get("material") in sky:
            got_tris += g["accessors"][p["indices"]]["count"] // 3
# a degenerate sliver the exporter drops may leave a triangle out, never add one
if not (want_tris * 0.99 <= got_tris <= want_tris): bad.append("%d sky triangles drawn, the map has %d" % (got_tris, want_tris))
if g.get("scenes", [{}])[0].get("extras", {}).get("skyname", "") != skyname: bad.append("scene extras skyname")
print(json.dumps({"sky_triangles": want_tris, "drawn": got_tris, "sky_materials": len(sky), "skyname": skyname}))
for b in bad: print(b)
sys.exit(1 if bad else 0)
