#!/usr/bin/env bash
# Every GoldSrc / Quake 1 map and WAD3 of the corpus through the CLI:
#  - validate exits 0 for real files; unusual_ files load on purpose (BSP2) or fail cleanly;
#  - info --json counts agree with the independent reader tests/quake/qread.py;
#  - convert writes a .glb that the Khronos validator passes with zero errors;
#  - every WAD3 extracts to one valid PNG per directory entry; WAD2 is refused with a message;
#  - external textures resolve from a WAD given with --wad.
source "$BK_TESTS/lib.sh"
bk_init "$@"
QREAD="$BK_TESTS/quake/qread.py"
need_dir "$CORPUS/goldsrc"
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }

# one Python process for every map: bspkit info --json against qread.py's counts, and the
# lightmap extents rule tiling the lighting lump; reads MAP<TAB>INFO.json lines, prints PASS / FAIL
compare_all() {
    python3 - "$1" "$QREAD" <<'EOF'
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("qread", sys.argv[2])
q = importlib.util.module_from_spec(spec); spec.loader.exec_module(q)
for line in open(sys.argv[1]):
    f, info = line.rstrip("\n").split("\t")
    name = f.rsplit("/", 1)[-1]
    a = json.load(open(info))
    b = q.read_bsp(f)
    bad = []
    if a["format"] != b["format"]:
        bad.append("format %s != %s" % (a["format"], b["format"]))
    for k in ("entities", "faces", "models", "textures", "vertices", "planes", "nodes", "leafs", "edges",
              "surfedges", "texinfo", "clipnodes", "marksurfaces", "lighting_bytes", "visibility_bytes"):
        if a["counts"].get(k) != b["counts"].get(k):
            bad.append("%s: bspkit %s, reader %s" % (k, a["counts"].get(k), b["counts"].get(k)))
    names = [l["name"] for l in a["lumps"]]
    for k in ("entities", "planes", "textures", "faces", "models"):
        if k not in names:
            bad.append("lump %s not listed" % k)
    print("%s %s: info counts match the independent reader%s" % ("FAIL" if bad else "PASS", name, ": " + "; ".join(bad) if bad else ""))
    # lightmap sizes by the extents rule tile the lighting lump
    d = q.check_lightmaps(f)
    good = d["overlaps"] == 0 and d["exact"] == d["checked"] and (d["lit_faces"] == 0 or d["lighting_bytes"] == 0 or d["last_end"] in (d["lighting_bytes"], (d["lighting_bytes"] + 3) // 4 * 4) or (d["last_end"] + 3) // 4 * 4 == d["lighting_bytes"])
    print("%s %s: extents rule tiles the lighting lump %s" % ("PASS" if good else "FAIL", name, "" if good else json.dumps(d)))
EOF
}

glbs=()
shopt -s nullglob
: >"$WORK/infos.tsv"
for f in "$CORPUS"/goldsrc/*.bsp "$CORPUS"/quake1/*.bsp; do
    b=$(basename "$f" .bsp)
    case $b in
    unusual_quake2_*)
        # Quake 2 IBSP v38: not ours and not Quake 3's; a clean refusal
        expect_exit 1 "$CLI" validate "$f"
        expect_exit 1 "$CLI" convert "$f" -o "$WORK/$b.glb"
        check "$b: refusal says why" grep -qiE "38|version|quake 2|ibsp" "$WORK/.err"
        continue ;;
    esac
    expect_exit 0 "$CLI" validate "$f"
    if "$CLI" info --json "$f" >"$WORK/$b.info.json" 2>"$WORK/.err"; then
        printf '%s\t%s\n' "$f" "$WORK/$b.info.json" >>"$WORK/infos.tsv"
    else
        fail "$b: info --json failed"
    fi
    expect_exit 0 "$CLI" convert "$f" -o "$WORK/$b.glb" --wad "$CORPUS/wad3/ns_lost.wad"
    [[ -f $WORK/$b.glb ]] && glbs+=("$WORK/$b.glb")
done

compare_all "$WORK/infos.tsv" >"$WORK/compare.txt" 2>&1 || fail "compare_all: $(tail -3 "$WORK/compare.txt")"
while read -r verdict rest; do
    if [[ $verdict == PASS ]]; then ok; else fail "$rest"; fi
done < <(grep -E '^(PASS|FAIL) ' "$WORK/compare.txt")
check "every map compared" test "$(grep -c 'info counts match' "$WORK/compare.txt")" = "$(wc -l < "$WORK/infos.tsv")"

# the BSP2 map loads on purpose, as format bsp2
"$CLI" info --json "$CORPUS/quake1/unusual_bsp2_remakequake_mp_lobby.bsp" >"$WORK/bsp2.json"
check "BSP2 map reports format bsp2" grep -qE '"format":[[:space:]]*"bsp2"' "$WORK/bsp2.json"

# one .gltf (+ .bin) and one .obj as well
expect_exit 0 "$CLI" convert "$CORPUS/goldsrc/cs16_awp_india.bsp" -o "$WORK/india.gltf"
check "gltf text writes its .bin" test -s "$WORK/india.bin"
glbs+=("$WORK/india.gltf")
expect_exit 0 "$CLI" convert "$CORPUS/quake1/progs_dump_pd_heal.bsp" -o "$WORK/heal.obj"
check "obj has faces" grep -q '^f ' "$WORK/heal.obj"
check "mtl names the lightmap or a texture" grep -q 'map_Kd' "$WORK/heal.mtl"

if gltf_validate "${glbs[@]}" >"$WORK/validator.txt" 2>&1; then ok; else fail "glTF validator reported errors"; grep -v '^valid' "$WORK/validator.txt" | head -20 >&2; fi
nvalid=$(grep -c '^valid .*: 0 errors' "$WORK/validator.txt")
check "every glTF passes the validator with 0 errors (${nvalid}/${#glbs[@]})" test "$nvalid" = "${#glbs[@]}"

# ---- WAD3: every entry becomes a PNG ------------------------------------------------------
wads=()
for f in "$CORPUS"/wad3/*.wad; do
    b=$(basename "$f" .wad)
    out="$WORK/wad_$b"
    case $b in
    unusual_wad2*)
        expect_exit 1 "$CLI" textures "$f" -o "$out"
        check "$b: WAD2 refusal says so" grep -q "WAD2" "$WORK/.err"
        continue ;;
    esac
    expect_exit 0 "$CLI" validate "$f"
    expect_exit 0 "$CLI" textures "$f" -o "$out"
    "$CLI" info --json "$f" >"$WORK/$b.info.json" 2>/dev/null
    wads+=("$f")
done
# one Python process for every WAD: a PNG per directory entry (qread.py), each PNG valid (chunk
# CRCs, inflated size), info's entry count
python3 - "$QREAD" "$WORK" "${wads[@]}" >"$WORK/wads.txt" 2>&1 <<'EOF'
import glob, importlib.util, json, os, struct, sys, zlib
spec = importlib.util.spec_from_file_location("qread", sys.argv[1])
q = importlib.util.module_from_spec(spec); spec.loader.exec_module(q)
def png_ok(p):
    d = open(p, "rb").read()
    assert d[:8] == b"\x89PNG\r\n\x1a\n", p
    i, idat, w = 8, b"", 0
    while i < len(d):
        n, t = struct.unpack(">I4s", d[i:i + 8])
        body = d[i + 8:i + 8 + n]
        assert zlib.crc32(t + body) == struct.unpack(">I", d[i + 8 + n:i + 12 + n])[0], p
        if t == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        if t == b"IDAT":
            idat += body
        i += 12 + n
    raw = zlib.decompress(idat)
    bpp = {2: 3, 6: 4, 0: 1, 4: 2}[ctype]
    assert len(raw) == h * (1 + w * bpp), p
work = sys.argv[2]
for f in sys.argv[3:]:
    b = os.path.basename(f)[:-4]
    want = q.read_wad(f)["count"]
    pngs = glob.glob(os.path.join(work, "wad_" + b, "*.png"))
    print("%s %s: %d PNGs for %d directory entries" % ("PASS" if len(pngs) == want else "FAIL", b, len(pngs), want))
    try:
        for p in pngs: png_ok(p)
        print("PASS %s: PNGs are valid" % b)
    except Exception as e:
        print("FAIL %s: PNG not valid: %r" % (b, e))
    got = json.load(open(os.path.join(work, b + ".info.json")))["counts"]["entries"]
    print("%s %s: info counts %d entries (reader %d)" % ("PASS" if got == want else "FAIL", b, got, want))
EOF
while read -r verdict rest; do
    if [[ $verdict == PASS ]]; then ok; else fail "$rest"; fi
done < <(grep -E '^(PASS|FAIL) ' "$WORK/wads.txt")
check "every WAD checked" test "$(grep -c 'directory entries' "$WORK/wads.txt")" = "${#wads[@]}"

# ---- external textures via --wad ----------------------------------------------------------
# ns_ns_lost.bsp keeps 92 textures outside the map; ns_lost.wad holds some of them
python3 - "$CORPUS/goldsrc/ns_ns_lost.bsp" "$CORPUS/wad3/ns_lost.wad" "$QREAD" >"$WORK/expect_ext.txt" <<'EOF'
import importlib.util, struct, sys
spec = importlib.util.spec_from_file_location("qread", sys.argv[3])
q = importlib.util.module_from_spec(spec); spec.loader.exec_module(q)
d = open(sys.argv[1], "rb").read()
ofs, ln = struct.unpack_from("<ii", d, 4 + 8 * 2)
n = struct.unpack_from("<i", d, ofs)[0]
# textures drawn by at least one face (texinfo -> miptex), stored outside the map
to, tl = struct.unpack_from("<ii", d, 4 + 8 * 6)
fo, fl = struct.unpack_from("<ii", d, 4 + 8 * 7)
used = {struct.unpack_from("<i", d, to + 40 * struct.unpack_from("<H", d, fo + 20 * i + 10)[0] + 32)[0]
        for i in range(fl // 20)}
ext = set()
for i in range(n):
    o = struct.unpack_from("<i", d, ofs + 4 + 4 * i)[0]
    if o < 0 or i not in used: continue
    name = d[ofs + o:ofs + o + 16].split(b"\0")[0].decode("latin-1").lower()
    if struct.unpack_from("<I", d, ofs + o + 24)[0] == 0: ext.add(name)
wad = {e["name"].lower() for e in q.read_wad(sys.argv[2])["entries"]}
print(len(ext & wad))
EOF
want_ext=$(cat "$WORK/expect_ext.txt")
expect_exit 0 "$CLI" convert "$CORPUS/goldsrc/ns_ns_lost.bsp" -o "$WORK/lost_wad.gltf" --wad "$CORPUS/wad3/ns_lost.wad"
got_ext=$(python3 -c '
import json, sys
g = json.load(open(sys.argv[1]))
print(len({(m.get("extras") or {}).get("texture") for m in g["materials"] if (m.get("extras") or {}).get("source") == "ns_lost.wad"}))' "$WORK/lost_wad.gltf")
check "ns_ns_lost: $got_ext textures resolved from ns_lost.wad (reader: $want_ext)" test "$got_ext" = "$want_ext"
check "ns_ns_lost: some texture resolved" test "${want_ext:-0}" -gt 0
# without the WAD the same textures are placeholders that keep their names
expect_exit 0 "$CLI" convert "$CORPUS/goldsrc/ns_ns_lost.bsp" -o "$WORK/lost_nowad.gltf"
check "missing textures are marked" python3 -c '
import json, sys
g = json.load(open(sys.argv[1]))
miss = [m for m in g["materials"] if (m.get("extras") or {}).get("missing") == "true"]
sys.exit(0 if miss and all((m.get("extras") or {}).get("texture") for m in miss) else 1)' "$WORK/lost_nowad.gltf"
# the worldspawn "wad" key is followed through --game-dir folders (base names of Windows paths)
mkdir -p "$WORK/gamedir/valve"
cp "$CORPUS/wad3/ns_lost.wad" "$WORK/gamedir/valve/NS_LOST.WAD"
grep -aq 'ns_lost.wad' "$CORPUS/goldsrc/ns_ns_lost.bsp" && {
    expect_exit 0 "$CLI" convert "$CORPUS/goldsrc/ns_ns_lost.bsp" -o "$WORK/lost_dir.gltf" --game-dir "$WORK/gamedir/valve"
    check "wad key found via --game-dir" grep -q '"source":"NS_LOST.WAD"\|"source": "NS_LOST.WAD"\|ns_lost.wad' "$WORK/lost_dir.gltf"
}
bk_done
