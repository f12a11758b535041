"""bspkit assets against the map's own bytes (read here after bspfile.h, independent of bspkit):
every face material (texdata names, lumps 43/44) is listed as materials/NAME.vmt, every listed
file that the pakfile (lump 40) holds is said to be found in the pakfile, no file the pakfile lacks
is said to be there, each file is listed once, and the summary counts agree with the list.
usage: asset_list.py CLI MAP..."""
import io, json, subprocess, sys, zipfile, struct, os
sys.path.insert(0, os.path.dirname(__file__))
import vbsp_ref

def texdata_names(get):
    """the names texdata_t.nameStringTableID points at (the string table may hold more)"""
    data, table, td = bytes(get(43)), bytes(get(44)), bytes(get(2))
    offs = struct.unpack_from("<%di" % (len(table) // 4), table)
    out = []
    for i in range(len(td) // 32):
        sid = struct.unpack_from("<i", td, 32 * i + 12)[0]
        if 0 <= sid < len(offs) and 0 <= offs[sid] < len(data):
            n = data[offs[sid]:data.index(b"\0", offs[sid])].decode("latin-1")
            out.append(n[:-4] if n.lower().endswith(".vmt") else n)   # the material system drops it
    return out

def main():
    cli, maps = sys.argv[1], sys.argv[2:]
    bad = checked = pak_hits = 0
    for path in maps:
        version, get = vbsp_ref.lumps(open(path, "rb").read())
        names = {("materials/%s.vmt" % n).lower().replace("\\", "/") for n in texdata_names(get)}
        pak = bytes(get(40))
        members = set()
        if pak:
            with zipfile.ZipFile(io.BytesIO(pak)) as z:
                members = {i.filename.lower().replace("\\", "/") for i in z.infolist()}
        out = subprocess.run([cli, "assets", path, "--json"], capture_output=True, text=True)
        if out.returncode not in (0, 1):
            print("FAIL %s: exit %d %s" % (path, out.returncode, out.stderr[:200])); bad += 1; continue
        j = json.loads(out.stdout)
        files = [a["file"] for a in j["assets"]]
        listed = set(files)
        if len(files) != len(listed):
            print("FAIL %s: a file listed twice" % path); bad += 1
        for n in names - listed:
            print("FAIL %s: face material %s not listed" % (path, n)); bad += 1
        for a in j["assets"]:
            in_pak = a["file"] in members
            if in_pak and a.get("where") != "pakfile":
                print("FAIL %s: %s is in the pakfile, listed as %s" % (path, a["file"], a.get("where"))); bad += 1
            if a.get("where") == "pakfile" and not in_pak:
                print("FAIL %s: %s said to be in the pakfile" % (path, a["file"])); bad += 1
            pak_hits += in_pak
        missing = sum(1 for a in j["assets"] if not a["found"] and not a.get("optional"))
        if j["missing"] != missing or j["files"] != len(files) or (out.returncode == 1) != (missing > 0):
            print("FAIL %s: summary %d/%d, list %d/%d, exit %d" % (path, j["missing"], j["files"], missing,
                                                                    len(files), out.returncode)); bad += 1
        checked += 1
    print("%d maps, %d files found in pakfiles, %d problems" % (checked, pak_hits, bad))
    return 1 if bad or not checked or not pak_hits else 0

sys.exit(main())
