#!/usr/bin/env bash
# bspkit assets: every Source corpus map against its own bytes (asset_list.py: face materials,
# pakfile hits, each file once, counts), then a game folder made here: a face material, the
# texture its VMT names and a prop model placed in it are found there (named by the folder),
# --missing leaves them out, and a map whose every file is found exits 0.
# args: CLI SHARED FETCHED WORK
source "$BK_TESTS/lib.sh"
bk_init "$@"
need_dir "$CORPUS/source"
mkdir -p "$WORK"
maps=()
for f in "$CORPUS"/source/*.bsp; do case $(basename "$f") in unusual_*) ;; *) maps+=("$f") ;; esac; done
if python3 "$BK_TESTS/source/asset_list.py" "$CLI" "${maps[@]}" > "$WORK/list.log" 2>&1; then ok
else fail "asset_list.py"; fi
tail -3 "$WORK/list.log"

M=$CORPUS/source/css_v20_gg_creepyvan.bsp
G=$WORK/game
rm -rf "$G"; mkdir -p "$G/materials/BRICK" "$G/materials/custom" "$G/models/props_vehicles"
# a material whose case differs from the map's (the engine finds files without case)
printf '"LightmappedGeneric"\n{\n  "$basetexture" "custom/wall_tex"\n}\n' > "$G/materials/BRICK/brickwall004a.vmt"
printf 'VTF\0not really' > "$G/materials/custom/wall_tex.vtf"
printf 'IDST' > "$G/models/props_vehicles/van001a.mdl"
"$CLI" assets "$M" --game-dir "$G" --json > "$WORK/a.json"
check "exit 1: files are missing" test $? = 1
check "the material, its texture and the model are found in the game folder" python3 - "$WORK/a.json" "$G" <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); g = sys.argv[2]
by = {a["file"]: a for a in j["assets"]}
want = ["materials/brick/brickwall004a.vmt", "materials/custom/wall_tex.vtf", "models/props_vehicles/van001a.mdl"]
bad = [w for w in want if w not in by or not by[w]["found"] or by[w]["where"] != g]
print("not found in the folder:", bad) if bad else None
sys.exit(1 if bad else 0)
PY
"$CLI" assets "$M" --game-dir "$G" --missing --json > "$WORK/m.json"
check "--missing lists only what is missing" python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
sys.exit(0 if j["assets"] and all(not a["found"] for a in j["assets"]) and
         "materials/brick/brickwall004a.vmt" not in [a["file"] for a in j["assets"]] else 1)' "$WORK/m.json"
# everything found: make each missing file in the folder (a model found brings its parts), then
# nothing is missing
for round in 1 2 3; do
    "$CLI" assets "$M" --game-dir "$G" --missing --json > "$WORK/m$round.json"
    python3 - "$WORK/m$round.json" "$G" <<'PY'
import json, os, sys
j = json.load(open(sys.argv[1]))
for a in j["assets"]:
    p = os.path.join(sys.argv[2], a["file"])
    os.makedirs(os.path.dirname(p), exist_ok=True)
    open(p, "wb").write(b"x")
PY
done
expect_exit 0 "$CLI" assets "$M" --game-dir "$G" -q

# pak pack: a custom material, its texture and a model loose in a mod folder go into the pakfile
# (read back here with zipfile, bytes equal, the old entries' bytes unchanged); a file a VPK holds
# is not packed; --dry-run writes nothing
P=$WORK/mod
rm -rf "$P" "$WORK/stock"; mkdir -p "$P/materials/brick" "$P/materials/custom" "$P/models/props_vehicles" "$WORK/stock/materials/cs_havana"
printf '"LightmappedGeneric"\n{\n  "$basetexture" "custom/wall_tex"\n}\n' > "$P/materials/brick/brickwall004a.vmt"
head -c 3000 /dev/urandom > "$P/materials/custom/wall_tex.vtf"
head -c 500 /dev/urandom > "$P/models/props_vehicles/van001a.mdl"
printf '"LightmappedGeneric" {}\n' > "$WORK/stock/materials/cs_havana/stonework01.vmt"
mkdir -p "$P/materials/cs_havana" && cp "$WORK/stock/materials/cs_havana/stonework01.vmt" "$P/materials/cs_havana/"
python3 "$BK_TESTS/source/vpk_write.py" "$WORK/stock" "$WORK/vpks/pak01" >/dev/null
rm -f "$WORK/packed.bsp"
"$CLI" pak "$M" pack --game-dir "$WORK/vpks/pak01_dir.vpk" --game-dir "$P" --dry-run > "$WORK/dry.txt"
check "--dry-run writes nothing" test ! -e "$WORK/packed.bsp"
expect_stdout_has "3 files" cat "$WORK/dry.txt"
"$CLI" pak "$M" pack --game-dir "$WORK/vpks/pak01_dir.vpk" --game-dir "$P" -o "$WORK/packed.bsp" -q
check "pack wrote the map" test -s "$WORK/packed.bsp"
check "the pakfile holds the packed files, byte for byte, and kept its own" python3 - "$M" "$WORK/packed.bsp" "$P" <<'PY'
import io, os, sys, zipfile
sys.path.insert(0, os.path.join(os.environ.get("BK_TESTS", ""), "source"))
import vbsp_ref
def pak(path):
    v, get = vbsp_ref.lumps(open(path, "rb").read())
    return zipfile.ZipFile(io.BytesIO(bytes(get(40))))
old, new, mod = pak(sys.argv[1]), pak(sys.argv[2]), sys.argv[3]
want = ["materials/brick/brickwall004a.vmt", "materials/custom/wall_tex.vtf", "models/props_vehicles/van001a.mdl"]
names = {i.filename.lower(): i.filename for i in new.infolist()}
bad = [w for w in want if w not in names or new.read(names[w]) != open(os.path.join(mod, w), "rb").read()]
bad += [i.filename for i in old.infolist() if old.read(i.filename) != new.read(i.filename)]
bad += [n for n in names if "stonework01" in n]   # held by the VPK: not packed
extra = set(names) - set(want) - {i.filename.lower() for i in old.infolist()}
print("bad:", bad, "extra:", extra) if bad or extra else None
sys.exit(1 if bad or extra else 0)
PY
expect_exit 1 "$CLI" assets "$CORPUS/quake1/progs_dump_start.bsp"
expect_stderr_has "works on Source VBSP maps only" "$CLI" assets "$CORPUS/quake1/progs_dump_start.bsp"
bk_done
