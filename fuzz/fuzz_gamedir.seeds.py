#!/usr/bin/env python3
"""Seeds for fuzz_gamedir: tiny game folders as records (u8 name length, name, u32le data length,
data), the map first. Quake 3: the test suite's synthetic map (material textures/test/wall) with its
texture as a loose TGA, PNG or JPG, through a shader, and inside a .pk3; Source: a small corpus map
with VMTs pointing at the suite's synthetic VTFs. Usage: fuzz_gamedir.seeds.py OUTDIR"""
import glob, io, os, struct, sys, zipfile, zlib

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
out = sys.argv[1]
corpus = os.environ.get("BSPKIT_CORPUS", os.path.expanduser("~/.cache/bspkit-corpus"))


def rec(name, data):
    n = name.encode()
    return bytes([len(n)]) + n + struct.pack("<I", len(data)) + data


def tga(w=4, h=4, alpha=False):
    bpp = 32 if alpha else 24
    hdr = struct.pack("<BBBHHBHHHHBB", 0, 0, 2, 0, 0, 0, 0, 0, w, h, bpp, 8 if alpha else 0)
    px = bytes((x * 40 + y * 9 + c * 70) & 255 for y in range(h) for x in range(w) for c in range(bpp // 8))
    return hdr + px


def png(w=4, h=4):
    raw = b"".join(b"\0" + bytes((x * 50 + y * 30 + c) & 255 for x in range(w) for c in range(3)) for y in range(h))
    def chunk(t, d):
        return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def small_jpg():
    for pk3 in sorted(glob.glob(os.path.join(corpus, "pk3", "*.pk3"))):
        try:
            z = zipfile.ZipFile(pk3)
        except Exception:
            continue
        jpgs = sorted((i.file_size, i.filename) for i in z.infolist() if i.filename.lower().endswith(".jpg"))
        if jpgs:
            return z.read(jpgs[0][1])
    return None


def save(name, records):
    with open(os.path.join(out, name), "wb") as f:
        f.write(b"".join(records))


q3 = open(os.path.join(root, "tests/q3/data/synthetic.bsp"), "rb").read()
m = rec("maps/synthetic.bsp", q3)
shader = b"textures/test/wall\n{\n\t{\n\t\tmap textures/test/img.png\n\t}\n\t{\n\t\tmap $lightmap\n\t\tblendFunc filter\n\t}\n}\n"
save("q3_tga", [m, rec("textures/test/wall.tga", tga(4, 4, True))])
save("q3_png", [m, rec("textures/test/wall.png", png())])
# external lightmap pages (no lightmap lump: maps/NAME/lm_NNNN.tga, drawn from the files when the
# atlas is made), one of them not the size of the others
ext = bytearray(q3)
struct.pack_into("<ii", ext, 8 + 14 * 8, 0, 0)
save("q3_external_lm", [rec("maps/synthetic.bsp", bytes(ext)), rec("maps/synthetic/lm_0000.tga", tga(8, 8)),
                        rec("maps/synthetic/lm_0001.tga", tga(3, 5))])
save("q3_shader", [m, rec("scripts/test.shader", shader), rec("textures/test/img.png", png(3, 5))])
jpg = small_jpg()
if jpg:
    save("q3_jpg", [m, rec("textures/test/wall.jpg", jpg)])
zb = io.BytesIO()
with zipfile.ZipFile(zb, "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("scripts/test.shader", shader.replace(b"img.png", b"img.tga"))
    z.writestr("textures/test/img.tga", tga(8, 2))
save("q3_pk3", [m, rec("pak0.pk3", zb.getvalue())])

src = os.path.join(os.path.dirname(root), "shared/corpus/source/tf2_v20_bsp_tool_test_physcollide.bsp")
if os.path.isfile(src):
    vtfs = sorted(glob.glob(os.path.join(root, "tests/source/data/*.vtf")))
    recs = [rec("maps/m.bsp", open(src, "rb").read())]
    for i, c in enumerate(["blu", "red", "green"]):
        v = open(vtfs[i % len(vtfs)], "rb").read() if vtfs else b""
        recs.append(rec("materials/customdev/dev_measuregeneric01%s.vmt" % c,
                        b'"LightmappedGeneric"\n{\n\t"$basetexture" "customdev/t%d"\n}\n' % i))
        recs.append(rec("materials/customdev/t%d.vtf" % i, v))
    save("source_vmt", recs)
