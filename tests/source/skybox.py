#!/usr/bin/python3
"""The 2D skybox of a Source map, checked from outside (standard library + numpy).

make OUTDIR NAME [FACES [XFORM]]: writes the six (or FACES, e.g. "rt,bk,lf,ft,up") faces of sky NAME as
  OUTDIR/materials/skybox/NAME<face>.vmt + .vtf: VTF 7.2 RGBA8888 16x16, one colour per face, its
  top half full and its bottom half at half brightness (so that an upside-down face shows); prints
  the "PATH_IN_PAK=FILE" arguments of `bspkit pak MAP add`. The faces of XFORM (comma list) get
  the half-height sky's "$basetexturetransform" "center 0 0 scale 1 2 rotate 0 translate 0 0".
gltf FILE.gltf NAME [MISSING [XFORM]]: the scene's node "skybox" (extras.followCamera) holds six faces in
  the order rt bk lf ft up dn, each an unlit sky material with extras.skyFace, its texture the
  face's VTF (by name) or, for the MISSING faces (comma list), no texture and extras.missing;
  each face lies where Source draws it (Valve's names, as Quake 2's sky: rt +X, bk +Y, lf -X, ft
  -Y, up +Z with the image top towards -X, dn -Z with the image top towards +X; side images
  upright) with its image's left edge on the left of a viewer inside; no world mesh keeps a sky
  face material; the XFORM faces' v is doubled (their image over the upper half, then clamped).
png FILE.png FACE: a render looking at FACE shows its colour, bright above and dim below.
make_hdr OUTDIR NAME: the six faces as a map lit in HDR finds them: each VMT (shader Sky) keeps an
  LDR $basetexture and names an HDR texture, $hdrcompressedtexture (BGRA8888 RGBS: rgb x alpha x 8)
  for rt bk lf ft up, $hdrbasetexture (RGBA16161616F) for dn, one linear colour each.
hdr FILE.gltf NAME: each face's image is its HDR colour times the exposure the map's HDR lightmaps
  are shown at (the scene's extras.lightmap_hdr_exposure), through the lightmaps' 1/2.2 curve, as Valve's
  sky_hdr_dx9.cpp reads the textures; ldr FILE.gltf NAME: the LDR $basetexture colours instead."""
import json, os, struct, sys

import numpy as np

FACES = ["rt", "bk", "lf", "ft", "up", "dn"]
COLOUR = {"rt": (230, 40, 40), "bk": (40, 230, 40), "lf": (40, 40, 230),
          "ft": (230, 230, 40), "up": (40, 230, 230), "dn": (230, 40, 230)}
# engine axes: the direction the face is seen in, and its image's top
FORWARD = {"rt": (1, 0, 0), "bk": (0, 1, 0), "lf": (-1, 0, 0), "ft": (0, -1, 0), "up": (0, 0, 1), "dn": (0, 0, -1)}
TOP = {"rt": (0, 0, 1), "bk": (0, 0, 1), "lf": (0, 0, 1), "ft": (0, 0, 1), "up": (-1, 0, 0), "dn": (1, 0, 0)}


def vtf(rgb, n=16):
    d = bytearray(80)
    d[0:4] = b"VTF\0"
    struct.pack_into("<IIIHHIHH", d, 4, 7, 2, 80, n, n, 0x4 | 0x8, 1, 0)   # clamp s/t
    struct.pack_into("<3f", d, 32, *((c / 255.0) ** 2.2 for c in rgb))
    struct.pack_into("<f", d, 48, 1.0)
    struct.pack_into("<iBiBB", d, 52, 0, 1, -1, 0, 0)   # RGBA8888, one mip, no thumbnail
    struct.pack_into("<H", d, 63, 1)
    px = bytearray()
    for y in range(n):
        k = 1.0 if y < n // 2 else 0.5
        px += bytes((int(rgb[0] * k), int(rgb[1] * k), int(rgb[2] * k), 255)) * n
    return bytes(d + px)


def vtf_hdr(fmt, texel, n=4):
    """a VTF 7.2 n x n of one texel: fmt 12 (BGRA8888) or 24 (RGBA16161616F)"""
    d = bytearray(80)
    d[0:4] = b"VTF\0"
    struct.pack_into("<IIIHHIHH", d, 4, 7, 2, 80, n, n, 0x4 | 0x8, 1, 0)
    struct.pack_into("<f", d, 48, 1.0)
    struct.pack_into("<iBiBB", d, 52, fmt, 1, -1, 0, 0)
    struct.pack_into("<H", d, 63, 1)
    return bytes(d) + texel * (n * n)


# rt bk lf ft up: BGRA8888 RGBS bytes (r, g, b, scale); dn: RGBA16161616F linear floats
RGBS = {"rt": (255, 128, 32, 64), "bk": (40, 200, 90, 200), "lf": (10, 20, 250, 16), "ft": (255, 255, 0, 255),
        "up": (100, 150, 200, 128)}
HALF_FLOATS = (0.25, 1.5, 3.0)


def hdr_linear(f):
    if f == "dn": return HALF_FLOATS
    r, g, b, a = RGBS[f]
    return tuple(c / 255.0 * a / 255.0 * 8 for c in (r, g, b))


def make_hdr(out, name):
    for f in FACES:
        base, hdr = "skybox/%s%s" % (name, f), "skybox/%s_hdr%s" % (name, f)
        key = "$hdrbasetexture" if f == "dn" else "$hdrcompressedtexture"
        texel = struct.pack("<4e", *HALF_FLOATS, 1.0) if f == "dn" else bytes((RGBS[f][2], RGBS[f][1], RGBS[f][0], RGBS[f][3]))
        files = ((base + ".vtf", vtf(COLOUR[f])), (hdr + ".vtf", vtf_hdr(24 if f == "dn" else 12, texel)),
                 (base + ".vmt", ('"Sky"\n{\n\t"$basetexture" "%s"\n\t"%s" "%s"\n}\n' % (base, key, hdr)).encode()))
        for rel, data in files:
            path = os.path.join(out, "materials", rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            open(path, "wb").write(data)


def check_images(path, name, hdr):
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
    from pngread import read_png
    g = json.load(open(path))
    ex = float(g["scenes"][0].get("extras", {}).get("lightmap_hdr_exposure", "nan")) if hdr else 1.0
    if hdr and not ex > 0: return ["no lightmap_hdr_exposure in the scene's extras"]
    node = [n for n in g["nodes"] if n.get("name") == "skybox"][0]
    bad = []
    for f, pr in zip(FACES, g["meshes"][node["mesh"]]["primitives"]):
        m = g["materials"][pr["material"]]
        img = g["images"][g["textures"][m["pbrMetallicRoughness"]["baseColorTexture"]["index"]]["source"]]
        if "uri" in img:
            png = os.path.join(os.path.dirname(path), img["uri"])
        else:   # in the buffer: written out for the reader
            v = g["bufferViews"][img["bufferView"]]
            data = open(os.path.join(os.path.dirname(path), g["buffers"][v["buffer"]]["uri"]), "rb").read()
            png = path + ".%s.png" % f
            open(png, "wb").write(data[v.get("byteOffset", 0):v.get("byteOffset", 0) + v["byteLength"]])
        px = read_png(png)[..., :3].reshape(-1, 3)
        lo, hi = px.min(axis=0), px.max(axis=0)
        if not hdr:   # the LDR faces: full above, half below
            want = np.array(COLOUR[f])
            if (hi != want).any() or (lo != want // 2).any():
                bad.append("%s: texels %s..%s, want %s above and half below" % (f, lo, hi, want))
            continue
        if img.get("name") != "skybox/%s_hdr%s" % (name, f): bad.append("%s: image %r" % (f, img.get("name")))
        want = np.array([255 if x * ex >= 1 else int((x * ex) ** (1 / 2.2) * 255 + 0.5) for x in hdr_linear(f)])
        if np.abs(lo - want).max() > 1 or np.abs(hi - want).max() > 1:   # the exposure is printed to 4 digits
            bad.append("%s: texels %s..%s, want %s (exposure %g)" % (f, lo, hi, want, ex))
    return bad


HALF = '\t"$basetexturetransform" "center 0 0 scale 1 2 rotate 0 translate 0 0"\n'


def make(out, name, faces, xform=()):
    args = []
    for f in faces:
        base = "skybox/%s%s" % (name, f)
        vmt = '"UnlitGeneric"\n{\n\t"$basetexture" "%s"\n%s\t"$nofog" 1\n}\n' % (base, HALF if f in xform else "")
        for ext, data in ((".vtf", vtf(COLOUR[f])), (".vmt", vmt.encode())):
            path = os.path.join(out, "materials", base + ext)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            open(path, "wb").write(data)
            args.append("materials/%s%s=%s" % (base, ext, path))
    print(" ".join(args))


def accessor(g, i):
    a = g["accessors"][i]
    v = g["bufferViews"][a["bufferView"]]
    buf = g["buffers"][v["buffer"]]
    uri = buf["uri"]
    data = open(os.path.join(os.path.dirname(sys.argv[2]), uri), "rb").read()
    n = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4}[a["type"]]
    dt = {5126: np.float32, 5125: np.uint32, 5123: np.uint16, 5121: np.uint8}[a["componentType"]]
    off = v.get("byteOffset", 0) + a.get("byteOffset", 0)
    arr = np.frombuffer(data, dtype=dt, count=a["count"] * n, offset=off)
    return arr.reshape(a["count"], n) if n > 1 else arr


def check_gltf(path, name, missing, xform=()):
    g = json.load(open(path))
    bad = []
    sky = [n for n in g["nodes"] if n.get("name") == "skybox"]
    if len(sky) != 1:
        return ["%d skybox nodes" % len(sky)]
    node = sky[0]
    if node.get("extras", {}).get("followCamera") != "true": bad.append("skybox does not follow the camera")
    if node.get("extras", {}).get("faces") != str(6 - len(missing)): bad.append("extras.faces %r" % node.get("extras"))
    prims = g["meshes"][node["mesh"]]["primitives"]
    if len(prims) != 6: return bad + ["%d faces" % len(prims)]
    to_engine = lambda p: np.stack([p[:, 0], -p[:, 2], p[:, 1]], axis=1)   # glTF (x, z, -y) back
    for f, pr in zip(FACES, prims):
        m = g["materials"][pr["material"]]
        ex = m.get("extras", {})
        if ex.get("skyFace") != f: bad.append("%s: material says face %r" % (f, ex.get("skyFace")))
        if "KHR_materials_unlit" not in m.get("extensions", {}): bad.append("%s: not unlit" % f)
        tex = m.get("pbrMetallicRoughness", {}).get("baseColorTexture")
        if f in missing:
            if tex is not None or ex.get("missing") != "true": bad.append("%s: missing face has a texture" % f)
            continue
        if tex is None: bad.append("%s: no texture" % f); continue
        img = g["images"][g["textures"][tex["index"]]["source"]]
        if img.get("name") != "skybox/%s%s" % (name, f): bad.append("%s: image %r" % (f, img.get("name")))
        pos = to_engine(accessor(g, pr["attributes"]["POSITION"]).astype(np.float64))
        uv = accessor(g, pr["attributes"]["TEXCOORD_0"]).astype(np.float64)
        fwd, top = np.array(FORWARD[f], float), np.array(TOP[f], float)
        right = np.cross(fwd, top)   # a viewer inside, facing fwd with top up, has right here
        # every vertex of the face on the face's side of the box ...
        side = pos @ fwd
        if not (side.min() > 0.99 * np.abs(pos).max()): bad.append("%s: not at %s" % (f, FORWARD[f]))
        # ... its image's v growing downwards and u to the viewer's right
        if (f in xform) != ("basetexturetransform" in ex): bad.append("%s: extras %r" % (f, ex))
        for k in range(len(pos)):
            up_amt, right_amt = pos[k] @ top, pos[k] @ right
            want_v, want_u = (0.0 if up_amt > 0 else 1.0), (1.0 if right_amt > 0 else 0.0)
            if f in xform: want_v *= 2
            if abs(uv[k, 0] - want_u) > 1e-4 or abs(uv[k, 1] - want_v) > 1e-4:
                bad.append("%s: vertex %d uv %s, want (%g, %g)" % (f, k, uv[k], want_u, want_v)); break
    for mesh in g["meshes"]:
        for pr in mesh["primitives"]:
            if g["materials"][pr.get("material", 0)].get("extras", {}).get("sky") == "faces":
                bad.append("mesh %s still draws the sky faces" % mesh.get("name"))
    return bad


def check_png(path, face):
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
    from pngread import read_png
    img = read_png(path)
    h, w = img.shape[:2]
    hi = img[int(h * 0.35), w // 2, :3]
    lo = img[int(h * 0.62), w // 2, :3]
    c = np.array(COLOUR[face])
    bad = []
    if np.abs(hi - c).max() > 12: bad.append("%s: above the centre %s, want %s" % (face, hi, c))
    if np.abs(lo - c // 2).max() > 12: bad.append("%s: below the centre %s, want %s" % (face, lo, c // 2))
    return bad


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "make":
        make(sys.argv[2], sys.argv[3], sys.argv[4].split(",") if len(sys.argv) > 4 else FACES,
             sys.argv[5].split(",") if len(sys.argv) > 5 else ())
        sys.exit(0)
    if cmd == "make_hdr":
        make_hdr(sys.argv[2], sys.argv[3])
        sys.exit(0)
    if cmd in ("hdr", "ldr"):
        bad = check_images(sys.argv[2], sys.argv[3], cmd == "hdr")
    elif cmd == "gltf":
        opt = lambda i: sys.argv[i].split(",") if len(sys.argv) > i and sys.argv[i] else []
        bad = check_gltf(sys.argv[2], sys.argv[3], opt(4), opt(5))
    else:
        bad = check_png(sys.argv[2], sys.argv[3])
    for b in bad: print(b)
    sys.exit(1 if bad else 0)
