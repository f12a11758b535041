#!/usr/bin/python3
"""Checks the displacement blends of a converted Source map against the map itself, read here
independently of bspkit (standard library only, LZMA lumps through vbsp_ref.lzma_lump):
every displacement of the world whose material is a WorldVertexTransition material must reach the
glTF with COLOR_0 = (1, 1, 1, alpha / 255) (normalized bytes: within half a step), alpha from its DISP_VERTS entries (in the engine's
grid order), in the primitive of that material; the material names $basetexture2's texture in
extras.blendTexture (with blendFactor "COLOR_0.a") when that texture was found.
usage: blend_check.py MAP.bsp OUT.gltf  (prints a summary; exit 1 on a mismatch)"""
import json, os, struct, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vbsp_ref import lumps  # noqa: E402

bsp, gltf_path = sys.argv[1], sys.argv[2]
data = open(bsp, "rb").read()
version, lump = lumps(data)


FACE = 104 if version == 17 else 56
faces, texinfo, texdata = lump(7), lump(6), lump(2)
strtab, strdata = lump(44), lump(43)
dispinfo, dispverts, models = lump(26), lump(33), lump(14)


def texname(ti):
    td = struct.unpack_from("<i", texinfo, ti * 72 + 68)[0]
    sid = struct.unpack_from("<i", texdata, td * 32 + 12)[0]
    o = struct.unpack_from("<i", strtab, sid * 4)[0]
    return strdata[o:strdata.index(b"\0", o)].decode("latin-1")


g = json.load(open(gltf_path))
binpath = os.path.join(os.path.dirname(gltf_path), g["buffers"][0]["uri"])
blob = open(binpath, "rb").read()


def accessor(i):
    a = g["accessors"][i]
    v = g["bufferViews"][a["bufferView"]]
    assert a["type"] == "VEC4", a
    o = v.get("byteOffset", 0) + a.get("byteOffset", 0)
    if a["componentType"] == 5121:  # normalized unsigned bytes
        assert a.get("normalized"), a
        stride = v.get("byteStride", 4)
        return [tuple(x / 255.0 for x in blob[o + k * stride:o + k * stride + 4]) for k in range(a["count"])]
    assert a["componentType"] == 5126, a
    stride = v.get("byteStride", 16)
    return [struct.unpack_from("<4f", blob, o + k * stride) for k in range(a["count"])]


mats = g["materials"]
wvt = {i for i, m in enumerate(mats) if m.get("extras", {}).get("shader") == "WorldVertexTransition"}
bad = 0
# the world model's displacements, in face order, per material name (upper/lower case as stored)
expect = {}
firstface, numfaces = struct.unpack_from("<ii", models, 40)
for f in range(firstface, firstface + numfaces):
    ti, di = struct.unpack_from("<hh", faces, f * FACE + 10)
    if di < 0:
        continue
    start, power = struct.unpack_from("<ii", dispinfo, di * 176 + 12)[0], struct.unpack_from("<i", dispinfo, di * 176 + 20)[0]
    n = ((1 << power) + 1) ** 2
    alphas = [struct.unpack_from("<f", dispverts, (start + k) * 20 + 16)[0] for k in range(n)]
    expect.setdefault(texname(ti).lower(), []).extend(alphas)
world = next(m for m in g["meshes"] if m.get("name") == "worldspawn")
checked = 0
values = set()
for mi in sorted(wvt):
    m = mats[mi]
    name = m["name"].lower()
    got = []
    for p in world["primitives"]:
        if p.get("material") == mi and "COLOR_0" in p["attributes"]:
            got.extend(accessor(p["attributes"]["COLOR_0"]))
    want = expect.get(name, [])
    if len(got) != len(want):
        print("%s: %d blended vertices in the glTF, the map has %d" % (name, len(got), len(want)))
        bad += 1
        continue
    for k, (c, a) in enumerate(zip(got, want)):
        exp = min(max(a / 255.0, 0.0), 1.0)
        # stored as a byte: within half a step of the map's alpha
        if abs(c[3] - exp) > 0.5 / 255 + 1e-6 or any(abs(x - 1.0) > 1e-6 for x in c[:3]):
            print("%s vertex %d: COLOR_0 %s, dispverts alpha %g" % (name, k, c, a))
            bad += 1
            break
        values.add(round(exp, 6))
    checked += len(want)
    ex = m["extras"]
    if "blendTexture" in ex:
        t = g["textures"][ex["blendTexture"]]
        img = g["images"][t["source"]]
        if img["name"].lower() != ex["basetexture2"].lower() or ex.get("blendFactor") != "COLOR_0.a":
            print("%s: blendTexture names image %s, basetexture2 is %s" % (name, img["name"], ex["basetexture2"]))
            bad += 1
print(json.dumps({"wvt_materials": len(wvt), "blended_vertices": checked, "distinct_alphas": len(values),
                  "with_blend_texture": sum(1 for i in wvt if "blendTexture" in mats[i]["extras"])}))
sys.exit(1 if bad else 0)
