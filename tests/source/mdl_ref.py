#!/usr/bin/env python3
"""Independent reference reader for Source models: MDL (studiohdr_t v44-v49) + VVD (IDSV v4) +
VTX (OptimizedModel v7). Python 3 standard library only.

Written from the Source SDK's public/studio.h and public/optimize.h layouts, separately from the C
decoder, so the tests can compare what bspkit decodes. For each MODEL.mdl it prints one JSON object:
  {"file", "version", "checksum", "bones", "textures": [...], "cdmaterials": [...],
   "skin_families", "skin_refs", "bodyparts", "models", "meshes",
   "vertices"      (sum of mstudiomesh_t.numvertices over every model = VVD LOD-0 count),
   "vvd_lod0"      (vertexFileHeader_t.numLODVertexes[0]),
   "triangles"     (LOD 0 of every model: VTX strip indices / 3, triangle-list strips),
   "default_vertices", "default_triangles" (body 0: model 0 of each body part),
   "hull": [min, max], "view": [min, max],
   "bounds": [min, max] of the LOD-0 vertices the VTX strips reference,
   "mesh_materials": [texture name (skin family 0) of each mesh of body 0, in order],
   "mesh_triangles": [triangles of each mesh of body 0, in order],
   "uv_finite", "fixups", "strip_group_size"}
or {"file", "error"}.
"""
import json
import math
import os
import struct
import sys


def cstr(data, ofs):
    if ofs < 0 or ofs >= len(data):
        raise ValueError("string offset %d outside the file" % ofs)
    end = data.find(b"\0", ofs)
    if end < 0:
        end = len(data)
    return data[ofs:end].decode("latin-1")


def sibling(path, exts):
    folder = os.path.dirname(path) or "."
    stem = os.path.basename(path)[:-4].lower()
    names = {n.lower(): n for n in os.listdir(folder)}
    for e in exts:
        if stem + e in names:
            return os.path.join(folder, names[stem + e])
    return None


def read_mdl(d):
    if d[:4] != b"IDST":
        raise ValueError("not IDST")
    version, checksum = struct.unpack_from("<ii", d, 4)
    if version < 44 or version > 49:
        raise ValueError("version %d" % version)
    m = {"version": version, "checksum": checksum}
    v = struct.unpack_from("<18f", d, 80)
    m["hull"] = [list(v[6:9]), list(v[9:12])]
    m["view"] = [list(v[12:15]), list(v[15:18])]
    nbones, boneindex = struct.unpack_from("<ii", d, 156)
    ntex, texindex, ncd, cdindex, nskinref, nskinfam, skinindex, nbp, bpindex = struct.unpack_from("<9i", d, 204)
    m["bones"] = nbones
    m["bone_names"] = [cstr(d, boneindex + 216 * i + struct.unpack_from("<i", d, boneindex + 216 * i)[0])
                       for i in range(nbones)]
    m["textures"] = [cstr(d, texindex + 64 * i + struct.unpack_from("<i", d, texindex + 64 * i)[0])
                     for i in range(ntex)]
    m["cdmaterials"] = [cstr(d, struct.unpack_from("<i", d, cdindex + 4 * i)[0]) for i in range(ncd)]
    m["skin_refs"] = nskinref
    m["skin_families"] = nskinfam
    m["skins"] = [list(struct.unpack_from("<%dh" % nskinref, d, skinindex + 2 * nskinref * f))
                  for f in range(nskinfam)]
    bodyparts = []
    for b in range(nbp):
        bo = bpindex + 16 * b
        _, nmodels, _, modelindex = struct.unpack_from("<iiii", d, bo)
        models = []
        for k in range(nmodels):
            mo = bo + modelindex + 148 * k
            nmeshes, meshindex, nverts, vertexindex = struct.unpack_from("<iiii", d, mo + 72)
            meshes = []
            for j in range(nmeshes):
                me = mo + meshindex + 116 * j
                material, _, mverts, voffset = struct.unpack_from("<iiii", d, me)
                lod0 = struct.unpack_from("<i", d, me + 52)[0]
                meshes.append({"material": material, "numvertices": mverts, "vertexoffset": voffset, "lod0": lod0})
            models.append({"numvertices": nverts, "vertexindex": vertexindex, "meshes": meshes})
        bodyparts.append(models)
    m["bodyparts_list"] = bodyparts
    return m


def read_vvd(d, checksum):
    if d[:4] != b"IDSV":
        raise ValueError("VVD: not IDSV")
    version, ck, nlods = struct.unpack_from("<iii", d, 4)
    if version != 4 or ck != checksum:
        raise ValueError("VVD version %d checksum %d" % (version, ck))
    lodverts = struct.unpack_from("<8i", d, 16)
    nfix, fixstart, vstart, tstart = struct.unpack_from("<4i", d, 48)
    raw = lambda i: d[vstart + 48 * i: vstart + 48 * (i + 1)]
    if nfix:
        verts = []
        for f in range(nfix):
            lod, src, n = struct.unpack_from("<3i", d, fixstart + 12 * f)
            if lod >= 0:
                verts += [raw(src + i) for i in range(n)]
    else:
        verts = [raw(i) for i in range(lodverts[0])]
    if len(verts) != lodverts[0]:
        raise ValueError("VVD: %d LOD-0 vertices after fixups, header says %d" % (len(verts), lodverts[0]))
    out = []
    for v in verts:
        w = struct.unpack_from("<3f", v, 0)
        bones = struct.unpack_from("<3bB", v, 12)
        out.append({"pos": struct.unpack_from("<3f", v, 16), "uv": struct.unpack_from("<2f", v, 40),
                    "w": w, "bones": bones})
    return lodverts[0], nfix, out


def strip_group_size(d, version):
    return 33 if version >= 49 else 25


def read_vtx(d, checksum, m):
    version, _, _, _, _, ck, nlods, _, nbp, bpofs = struct.unpack_from("<iiHHiiiiii", d, 0)
    if version != 7 or ck != checksum:
        raise ValueError("VTX version %d checksum %d" % (version, ck))
    if nbp != len(m["bodyparts_list"]):
        raise ValueError("VTX has %d body parts, MDL %d" % (nbp, len(m["bodyparts_list"])))
    sgsize = strip_group_size(d, m["version"])
    stsize = 35 if sgsize == 33 else 27
    tris = []   # per body part, per model, per mesh: list of mesh-relative vertex ids (3 per triangle)
    for b in range(nbp):
        bo = bpofs + 8 * b
        nmodels, mofs = struct.unpack_from("<ii", d, bo)
        models = []
        for k in range(nmodels):
            mo = bo + mofs + 8 * k
            _, lodofs = struct.unpack_from("<ii", d, mo)
            lo = mo + lodofs   # LOD 0
            nmeshes, meshofs = struct.unpack_from("<ii", d, lo)
            meshes = []
            for j in range(nmeshes):
                me = lo + meshofs + 9 * j
                nsg, sgofs = struct.unpack_from("<ii", d, me)
                ids = []
                for g in range(nsg):
                    so = me + sgofs + sgsize * g
                    nv, vofs, ni, iofs, nst, stofs = struct.unpack_from("<6i", d, so)
                    verts = [struct.unpack_from("<H", d, so + vofs + 9 * i + 4)[0] for i in range(nv)]
                    idx = struct.unpack_from("<%dH" % ni, d, so + iofs)
                    for s in range(nst):
                        st = so + stofs + stsize * s
                        sni, sio, snv, svo = struct.unpack_from("<4i", d, st)
                        flags = d[st + 18]
                        run = idx[sio:sio + sni]
                        if flags & 2:   # triangle strip
                            for t in range(len(run) - 2):
                                a, b2, c = run[t], run[t + 1], run[t + 2]
                                if t & 1:
                                    a, b2 = b2, a
                                if a != b2 and b2 != c and a != c:
                                    ids += [verts[a], verts[b2], verts[c]]
                        else:
                            ids += [verts[i] for i in run]
                meshes.append(ids)
            models.append(meshes)
        tris.append(models)
    return tris, sgsize


def read(path):
    res = {"file": path}
    try:
        d = open(path, "rb").read()
        m = read_mdl(d)
        vvd_path = sibling(path, [".vvd"])
        vtx_path = sibling(path, [".dx90.vtx", ".vtx", ".dx80.vtx", ".sw.vtx"])
        if not vvd_path or not vtx_path:
            raise ValueError("no VVD or VTX beside the model")
        lod0, nfix, verts = read_vvd(open(vvd_path, "rb").read(), m["checksum"])
        tris, sgsize = read_vtx(open(vtx_path, "rb").read(), m["checksum"], m)
    except (ValueError, struct.error, IndexError, OSError) as e:
        res["error"] = str(e)
        return res
    res.update({k: m[k] for k in ("version", "checksum", "bones", "textures", "cdmaterials", "skin_families",
                                  "skin_refs", "hull", "view", "bone_names", "skins")})
    res["bodyparts"] = len(m["bodyparts_list"])
    res["models"] = sum(len(b) for b in m["bodyparts_list"])
    res["meshes"] = sum(len(mo["meshes"]) for b in m["bodyparts_list"] for mo in b)
    res["vertices"] = sum(me["numvertices"] for b in m["bodyparts_list"] for mo in b for me in mo["meshes"])
    res["vvd_lod0"] = lod0
    res["fixups"] = nfix
    res["strip_group_size"] = sgsize
    ntri = 0
    dv = dt = 0
    lo = [math.inf] * 3
    hi = [-math.inf] * 3
    uv_ok = True
    mats = []
    mtris = []
    for bi, b in enumerate(m["bodyparts_list"]):
        for mi, mo in enumerate(b):
            for j, me in enumerate(mo["meshes"]):
                ids = tris[bi][mi][j]
                ntri += len(ids) // 3
                if mi == 0:
                    dv += me["numvertices"]
                    dt += len(ids) // 3
                    ref = me["material"]
                    t = m["skins"][0][ref] if m["skins"] and ref < len(m["skins"][0]) else ref
                    mats.append(m["textures"][t] if 0 <= t < len(m["textures"]) else None)
                    mtris.append(len(ids) // 3)
                base = mo["vertexindex"] // 48 + me["vertexoffset"]
                for i in ids:
                    v = verts[base + i]
                    for c in range(3):
                        lo[c] = min(lo[c], v["pos"][c])
                        hi[c] = max(hi[c], v["pos"][c])
                    uv_ok = uv_ok and all(math.isfinite(x) for x in v["uv"])
    res["triangles"] = ntri
    res["default_vertices"] = dv
    res["default_triangles"] = dt
    res["bounds"] = [lo, hi] if ntri else None
    res["uv_finite"] = uv_ok
    res["mesh_materials"] = mats
    res["mesh_triangles"] = mtris
    return res


if __name__ == "__main__":
    for p in sys.argv[1:]:
        print(json.dumps(read(p)))
