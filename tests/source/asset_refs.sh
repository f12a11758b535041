#!/usr/bin/env bash
# bspkit assets: what entity keys and VMT keys name, as the engine reads them. A breakable's
# "material" is a number (a material type), not a file; env_sun's "material" names a sprite (.vmt
# or .spr) whose material is materials/NAME.vmt; a color_correction's "filename" is a .raw file; a
# VMT's $envmap names a cubemap texture by path (NAME.vtf, NAME.hdr.vtf for HDR: those found;
# "env_cubemap": the map's own, not a file); names are taken as the engine's file system takes them
# ('\' as '/', "//" as '/', "./" dropped, "DIR/../" taken out, lower case), so a name written that
# way is found.
# args: CLI SHARED FETCHED WORK
source "$BK_TESTS/lib.sh"
bk_init "$@"
M=$CORPUS/source/tf2_v20_bsp_tool_mp_lobby.bsp
need_file "$M"
G=$WORK/game
mkdir -p "$G/materials/custom" "$G/materials/correction" "$G/materials/sprites"
printf '"VertexLitGeneric"\n{\n  "$basetexture" "custom/shiny_tex"\n  "$envmap" "custom/shiny_cube"\n}\n' \
    > "$G/materials/custom/shiny.vmt"
printf '"VertexLitGeneric"\n{\n  "$envmap" "Env_Cubemap"\n}\n' > "$G/materials/custom/plain.vmt"
printf '"VertexLitGeneric"\n{\n  "$envmap" "custom/hdr_cube"\n}\n' > "$G/materials/custom/hdr.vmt"
printf 'x' > "$G/materials/custom/hdr_cube.hdr.vtf"
printf 'x' > "$G/materials/custom/shiny_cube.vtf"
printf 'x' > "$G/materials/correction/cc_test.raw"
printf '"Sprite" {}\n' > "$G/materials/sprites/sun_glow.vmt"
"$CLI" entities "$M" --json > "$WORK/e.json"
python3 - "$WORK/e.json" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))
e += [
    [["classname", "func_breakable"], ["material", "0"]],
    [["classname", "func_physbox"], ["material", "2"]],
    [["classname", "env_sun"], ["material", "sprites/sun_glow.spr"], ["overlaymaterial", "sprites/sun_over.vmt"]],
    [["classname", "color_correction"], ["filename", "materials/correction/cc_test.raw"]],
    [["classname", "info_overlay"], ["material", "Custom//Shiny"]],
    [["classname", "info_overlay"], ["material", ".\\custom\\./plain"]],
    [["classname", "info_overlay"], ["material", "custom/unused/../deep"]],
    [["classname", "info_overlay"], ["material", "custom/hdr"]],
]
json.dump(e, open(sys.argv[1], "w"))
PY
"$CLI" entities "$M" --import "$WORK/e.json" -o "$WORK/m.bsp" -q
check "the map with the added entities was written" test -s "$WORK/m.bsp"
"$CLI" assets "$WORK/m.bsp" --game-dir "$G" --json > "$WORK/a.json"
check "what the entities and VMTs name, as the engine finds it" python3 - "$WORK/a.json" "$G" <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); g = sys.argv[2]
by = {a["file"]: a for a in j["assets"]}
bad = []
def want(f, found=None):
    if f not in by: bad.append("not listed: " + f)
    elif found is not None and by[f]["found"] != found: bad.append("%s found=%s" % (f, by[f]["found"]))
def never(f):
    if f in by: bad.append("listed: " + f)
never("materials/0.vmt"); never("materials/2.vmt")                     # breakable material types
want("materials/sprites/sun_glow.vmt", True)                            # env_sun .spr -> its material
never("materials/sprites/sun_glow.spr.vmt")
want("materials/sprites/sun_over.vmt", False)                           # env_sun overlaymaterial
want("materials/correction/cc_test.raw", True)                          # color_correction filename
want("materials/custom/shiny.vmt", True)                                # "Custom//Shiny"
want("materials/custom/shiny_cube.vtf", True)                           # $envmap by path
want("materials/custom/plain.vmt", True)                                # ".\custom\./plain"
want("materials/custom/deep.vmt", False)                                # "custom/unused/../deep"
never("materials/env_cubemap.vtf")
want("materials/custom/hdr_cube.hdr.vtf", True)                         # an HDR cubemap only
never("materials/custom/hdr_cube.vtf")
never("materials/custom/shiny_cube.hdr.vtf")
odd = [f for f in by if "//" in f or "/./" in f or f.startswith("./") or "\\" in f or f != f.lower() or "/../" in f]
bad += ["not normalised: " + f for f in odd]
print("\n".join(bad)) if bad else None
sys.exit(1 if bad else 0)
PY
# the same names found in the map's pakfile (a zip lookup sees no "//" or "./")
"$CLI" pak "$WORK/m.bsp" add "materials/custom/shiny.vmt=$G/materials/custom/shiny.vmt" \
    "materials/custom/plain.vmt=$G/materials/custom/plain.vmt" -o "$WORK/p.bsp" -q
"$CLI" assets "$WORK/p.bsp" --json > "$WORK/p.json"
check "names written with // and ./ are found in the pakfile" python3 -c '
import json, sys
by = {a["file"]: a for a in json.load(open(sys.argv[1]))["assets"]}
sys.exit(0 if all(by.get(f, {}).get("where") == "pakfile" for f in
                  ["materials/custom/shiny.vmt", "materials/custom/plain.vmt"]) else 1)' "$WORK/p.json"
bk_done
