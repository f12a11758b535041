#!/usr/bin/env python3
"""Write hostile variants of real Source maps into OUTDIR, one per line on stdout as
NAME<TAB>EXPECTED_LUMP (the lump name the located error must mention). Standard library only."""
import struct
import sys


def lumps(d):
    return [list(struct.unpack_from("<iiii", d, 8 + 16 * i)) for i in range(64)]


def set_lump(d, i, ofs=None, ln=None):
    b = bytearray(d)
    o, n, v, f = struct.unpack_from("<iiii", b, 8 + 16 * i)
    struct.pack_into("<ii", b, 8 + 16 * i, o if ofs is None else ofs, n if ln is None else ln)
    return bytes(b)


def poke(d, pos, fmt, val):
    b = bytearray(d)
    struct.pack_into(fmt, b, pos, val)
    return bytes(b)


def main():
    plain_path, lzma_path, out = sys.argv[1], sys.argv[2], sys.argv[3]
    plain = open(plain_path, "rb").read()
    lz = open(lzma_path, "rb").read()
    L = lumps(plain)
    Z = lumps(lz)
    cases = []
    cases.append(("short_header", plain[:500], "header"))
    cases.append(("truncated_half", plain[: len(plain) // 2], None))
    cases.append(("faces_past_eof", set_lump(plain, 7, ofs=len(plain) - 8), "faces"))
    cases.append(("faces_bad_size", set_lump(plain, 7, ln=L[7][1] - 1), "faces"))
    cases.append(("faces_negative", set_lump(plain, 7, ln=-56), "faces"))
    cases.append(("lump_in_header", set_lump(plain, 3, ofs=16), "vertexes"))
    cases.append(("surfedge_huge", poke(plain, L[13][0], "<i", 0x7FFFFFFF), "surfedges"))
    cases.append(("surfedge_min", poke(plain, L[13][0], "<i", -0x80000000), "surfedges"))
    cases.append(("edge_vertex", poke(plain, L[12][0] + 4, "<H", 0xFFFF), "edges"))
    cases.append(("face_plane", poke(plain, L[7][0], "<H", 0xFFFF), "faces"))
    cases.append(("face_firstedge", poke(plain, L[7][0] + 4, "<i", 0x7FFFFFF0), "faces"))
    cases.append(("face_lightofs", poke(plain, L[7][0] + 20, "<i", 0x7FFFFFF0), "faces"))
    cases.append(("texinfo_texdata", poke(plain, L[6][0] + 68, "<i", 99999), "texinfo"))
    cases.append(("texdata_name", poke(plain, L[2][0] + 12, "<i", 99999), "texdata"))
    cases.append(("strtab_offset", poke(plain, L[44][0], "<i", -5), "texdata_string_table"))
    cases.append(("model_faces", poke(plain, L[14][0] + 40, "<i", 0x7FFFFFF0), "models"))
    cases.append(("node_child", poke(plain, L[5][0] + 4, "<i", 0x7FFFFFF0), "nodes"))
    cases.append(("leaf_faces", poke(plain, L[10][0] + 22, "<H", 0xFFFF), "leafs"))
    cases.append(("brush_sides", poke(plain, L[18][0] + 4, "<i", 0x7FFFFFF0), "brushes"))
    cases.append(("vis_clusters", poke(plain, L[4][0], "<i", 0x7FFFFFF0), "visibility"))
    cases.append(("dispinfo_power", poke(plain, L[26][0] + 20, "<i", 9), "dispinfo"))
    cases.append(("dispinfo_verts", poke(plain, L[26][0] + 12, "<i", 0x7FFFFF00), "dispinfo"))
    cases.append(("gamelump_count", poke(plain, L[35][0], "<i", 0x7FFFFFFF), "game_lump"))
    # the sprp entry: find it in the game lump directory and set an absurd dictionary size
    g0 = L[35][0]
    n = struct.unpack_from("<i", plain, g0)[0]
    for k in range(n):
        gid, fl, gv, go, gl = struct.unpack_from("<iHHii", plain, g0 + 4 + 16 * k)
        if gid == 0x73707270:
            cases.append(("sprp_dict", poke(plain, go, "<i", 0x10000000), "game_lump:sprp"))
            cases.append(("sprp_range", poke(plain, g0 + 4 + 16 * k + 12, "<i", 0x7FFFFFF0), "game_lump"))
    # LZMA map: corrupt stream, absurd sizes, compressed game lump
    o = Z[1][0]
    assert lz[o:o + 4] == b"LZMA"
    b = bytearray(lz)
    for k in range(o + 17 + 8, min(o + Z[1][1], o + 17 + 200)):
        b[k] ^= 0x5A
    cases.append(("lzma_corrupt", bytes(b), "planes"))
    cases.append(("lzma_actual_huge", poke(lz, o + 4, "<I", 0xFFFFFFF0), "planes"))
    cases.append(("lzma_packed_huge", poke(lz, o + 8, "<I", 0xFFFFFFF0), "planes"))
    cases.append(("lzma_dict_huge", poke(lz, o + 13, "<I", 0xFFFFFFFF), "planes"))
    cases.append(("lzma_actual_short", poke(lz, o + 4, "<I", 3), "planes"))
    g0 = Z[35][0]
    n = struct.unpack_from("<i", lz, g0)[0]
    for k in range(n):
        gid, fl, gv, go, gl = struct.unpack_from("<iHHii", lz, g0 + 4 + 16 * k)
        if gid == 0x73707270 and fl & 1:
            cases.append(("lzma_gamelump", poke(lz, go + 8, "<I", 0x7FFFFFFF), "game_lump"))
            cases.append(("lzma_gamelump_ofs", poke(lz, g0 + 4 + 16 * k + 8, "<i", len(lz) + 10), "game_lump"))
    for name, data, lump in cases:
        with open("%s/%s.bsp" % (out, name), "wb") as fp:
            fp.write(data)
        print("%s\t%s" % (name, lump or ""))


if __name__ == "__main__":
    main()
