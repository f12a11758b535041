#!/usr/bin/env python3
"""Independent reference reader for Source VBSP files (Python 3 standard library only).

Written from the Source SDK's public/bspfile.h and public/gamebspfile.h layouts, separately from
the C decoder, so the tests can compare counts. Prints one JSON object per file:
  {"file", "version", "layout", "entities", "faces", "models", "texdata", "dispinfo",
   "disp_verts_expected", "disp_verts", "static_props", "static_prop_dict", "pak_entries"}
or {"file", "error"} when the file is not a supported VBSP.
"""
import json
import lzma
import struct
import sys
import io
import zipfile


def lzma_lump(blob):
    """Valve's LZMA lump: 'LZMA', u32 actualSize, u32 lzmaSize, 5 property bytes, raw LZMA1."""
    if len(blob) < 17 or blob[:4] != b"LZMA":
        return blob, False
    actual, packed = struct.unpack_from("<II", blob, 4)
    props = blob[12:17]
    # an .lzma ("alone") header: the 5 property bytes then the 64-bit uncompressed size
    alone = props + struct.pack("<Q", actual) + blob[17:17 + packed]
    out = lzma.LZMADecompressor(format=lzma.FORMAT_ALONE).decompress(alone, max_length=actual)
    if len(out) != actual:
        raise ValueError("LZMA lump decodes to %d bytes, header says %d" % (len(out), actual))
    return out, True


def lumps(data):
    """(version, lump(i) -> its bytes, LZMA lumps decoded), for the standard and L4D2 layouts"""
    version = struct.unpack_from("<i", data, 4)[0]
    raw = [struct.unpack_from("<iiii", data, 8 + 16 * i) for i in range(64)]
    tab = [(r[0], r[1]) for r in raw]
    if version == 21 and not all(o >= 0 and (ln == 0 or o >= 1036) and o + ln <= len(data) for o, ln in tab):
        tab = [(r[1], r[2]) for r in raw]  # L4D2 lump_t order
    return version, lambda i: lzma_lump(data[tab[i][0]:tab[i][0] + tab[i][1]])[0]


def count_entities(text):
    """Count top-level { } blocks outside quoted strings."""
    n = 0
    depth = 0
    quoted = False
    for ch in text:
        if quoted:
            if ch == '"':
                quoted = False
        elif ch == '"':
            quoted = True
        elif ch == "{":
            depth += 1
            if depth == 1:
                n += 1
        elif ch == "}":
            depth -= 1
    return n


def read(path):
    data = open(path, "rb").read()
    res = {"file": path}
    if len(data) < 1036 or data[:4] != b"VBSP":
        res["error"] = "not a little-endian VBSP file"
        return res
    version = struct.unpack_from("<i", data, 4)[0]
    res["version"] = version
    if version not in (17, 19, 20, 21):
        res["error"] = "unsupported VBSP version %d" % version
        return res
    raw = [struct.unpack_from("<iiii", data, 8 + 16 * i) for i in range(64)]
    # standard lump_t {ofs, len, version, fourCC}; L4D2 {version, ofs, len, fourCC}
    def fits(tab):
        return all(o >= 0 and ln >= 0 and (ln == 0 or (o >= 1036 and o + ln <= len(data))) for o, ln in tab)
    std = [(r[0], r[1]) for r in raw]
    l4d2 = [(r[1], r[2]) for r in raw]
    layout = "standard"
    if version == 21 and not (fits(std) and std[0][1] > 0) and fits(l4d2):
        layout = "l4d2"
    tab = l4d2 if layout == "l4d2" else std
    res["layout"] = layout

    def lump(i):
        o, ln = tab[i]
        return lzma_lump(data[o:o + ln])[0]

    ents = lump(0).split(b"\0", 1)[0].decode("latin-1")
    res["entities"] = count_entities(ents)
    face_size = 104 if version == 17 else 56
    res["faces"] = len(lump(7)) // face_size
    res["models"] = len(lump(14)) // 48
    res["texdata"] = len(lump(2)) // 32
    di = lump(26)
    res["dispinfo"] = len(di) // 176
    expect = 0
    for k in range(len(di) // 176):
        power = struct.unpack_from("<i", di, k * 176 + 20)[0]
        expect += ((1 << power) + 1) ** 2
    res["disp_verts_expected"] = expect
    res["disp_verts"] = len(lump(33)) // 20

    # game lumps (offsets absolute; compressed ones carry an LZMA header; id 0 ends the list)
    g = lump(35)
    props = None
    dict_n = None
    if len(g) >= 4:
        n = struct.unpack_from("<i", g, 0)[0]
        for k in range(n):
            gid, flags, gver, gofs, glen = struct.unpack_from("<iHHii", g, 4 + 16 * k)
            if gid == 0:
                continue
            if gid == struct.unpack("<i", b"prps")[0]:  # 'sprp' stored little-endian
                blob = data[gofs:]
                if flags & 1:
                    blob = lzma_lump(blob)[0]
                else:
                    blob = blob[:glen]
                dict_n = struct.unpack_from("<i", blob, 0)[0]
                p = 4 + 128 * dict_n
                leaves = struct.unpack_from("<i", blob, p)[0]
                p += 4 + 2 * leaves
                props = struct.unpack_from("<i", blob, p)[0]
    res["static_props"] = props
    res["static_prop_dict"] = dict_n

    pak = bytes(lump(40))
    try:
        with zipfile.ZipFile(io.BytesIO(pak)) as z:
            res["pak_entries"] = len(z.infolist())
    except Exception as e:  # noqa: BLE001 - report, do not fail
        res["pak_entries"] = None
        res["pak_error"] = str(e)
    return res


def main():
    out = []
    for p in sys.argv[1:]:
        try:
            out.append(read(p))
        except Exception as e:  # noqa: BLE001
            out.append({"file": p, "error": "%s: %s" % (type(e).__name__, e)})
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
