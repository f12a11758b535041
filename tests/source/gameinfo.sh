#!/usr/bin/env bash
# gameinfo.txt search paths: a synthetic Source game tree (a mod folder with gameinfo.txt, custom/*
# add-ons as folders and a VPK, the base game's hl2_misc VPK and loose folder, a platform folder)
# serves a real map whose pakfile lost its materials. Each material must come from the first
# "game" search path that has it, in the file's order: markers (materials whose $basetexture
# names the place) tell which one won.
source "$BK_TESTS/lib.sh"
bk_init "$@"
PY=/usr/bin/python3
lego=$CORPUS/source/css_v20_gg_lego_arena_x.bsp
[[ -f $lego ]] || { echo "SKIP: corpus missing"; exit 77; }
R=$WORK/root
"$CLI" pak "$lego" extract -o "$WORK/src" >/dev/null || fail "extract the pakfile"
"$CLI" pak "$lego" remove 'materials/**' -o "$WORK/bare.bsp" >/dev/null || fail "strip the materials"
# a marker: DIR/materials/NAME.vmt whose texture is DIR/materials/marker/TAG.vtf
marker() {
    mkdir -p "$(dirname "$1/materials/$2.vmt")"
    printf '"LightmappedGeneric"\n{\n\t"$basetexture" "marker/%s"\n}\n' "$3" > "$1/materials/$2.vmt"
    $PY "$BK_TESTS/source/solid_vtf.py" "$1/materials/marker/$3.vtf" 200 100 50 8
}
# the base game: every material in hl2/hl2_misc VPK but TRONIXUPDATE (loose in hl2/) and MCK
# (only in platform/, which is not a "game" path)
mkdir -p "$R/hl2/materials/TRONIX" "$R/hl2/materials/tronix" "$R/platform/materials/customs" "$R/platform/materials/CUSTOMS"
mv "$WORK/src/materials/TRONIX/TRONIXUPDATE.vmt" "$R/hl2/materials/TRONIX/"
mv "$WORK/src/materials/Tronix/tronixupdate.vtf" "$R/hl2/materials/tronix/"
mv "$WORK/src/materials/CUSTOMS/MCK.vmt" "$R/platform/materials/CUSTOMS/"
mv "$WORK/src/materials/customs/mck.vtf" "$R/platform/materials/customs/"
$PY "$BK_TESTS/source/vpk_write.py" "$WORK/src" "$R/hl2/hl2_misc" >/dev/null
marker "$R/hl2" BOHAROX/LEGO/DAPLATE_07 hl2_loose          # the VPK is listed first: loses
# the mod: custom/* (a_early, b_late, c_pack.vpk in name order), then the mod folder itself
marker "$R/mymod/custom/a_early" BOHAROX/LEGO/DAPLATE_08 early
marker "$R/mymod/custom/b_late" BOHAROX/LEGO/DAPLATE_08 late
marker "$WORK/pack" BOHAROX/LEGO/DAWALL_03 pack
$PY "$BK_TESTS/source/vpk_write.py" "$WORK/pack" "$R/mymod/custom/c_pack" >/dev/null
marker "$R/mymod" BOHAROX/LEGO/DAPLATE_08 mod
marker "$R/mymod" BOHAROX/LEGO/DAPLATE_09 mod
cat > "$R/mymod/gameinfo.txt" <<'GI'
"GameInfo"
{
	game	"My Mod"
	"FileSystem"
	{
		SteamAppId	243750
		"SearchPaths"
		{
			// custom content first, then the mod, then the base game
			game+mod			|gameinfo_path|custom/*
			game+mod+default_write_path	|gameinfo_path|.
			gamebin				|gameinfo_path|bin
			game				hl2/hl2_misc.vpk
			game				|all_source_engine_paths|hl2
			platform			|all_source_engine_paths|platform
		}
	}
}
GI
# which texture each material got: NAME -> image name (or "-")
images() {
    $PY -c '
import json, sys
g = json.load(open(sys.argv[1]))
for m in g["materials"]:
    t = m.get("pbrMetallicRoughness", {}).get("baseColorTexture")
    print(m["name"], g["images"][g["textures"][t["index"]]["source"]]["name"] if t else "-")' "$1"
}
img() { awk -v n="$2" '$1 == n {print $2}' "$1"; }
"$CLI" convert "$WORK/bare.bsp" -o "$WORK/gi.gltf" -q --game-dir "$R/mymod" || fail "convert with the game folder"
images "$WORK/gi.gltf" > "$WORK/gi.txt"
"$CLI" convert "$lego" -o "$WORK/full.gltf" -q
images "$WORK/full.gltf" > "$WORK/full.txt"
check "custom/* comes first, in name order (DAPLATE_08: $(img "$WORK/gi.txt" BOHAROX/LEGO/DAPLATE_08))" test "$(img "$WORK/gi.txt" BOHAROX/LEGO/DAPLATE_08)" = marker/early
check "a VPK inside custom/ is mounted (DAWALL_03: $(img "$WORK/gi.txt" BOHAROX/LEGO/DAWALL_03))" test "$(img "$WORK/gi.txt" BOHAROX/LEGO/DAWALL_03)" = marker/pack
check "|gameinfo_path|. is the mod folder (DAPLATE_09: $(img "$WORK/gi.txt" BOHAROX/LEGO/DAPLATE_09))" test "$(img "$WORK/gi.txt" BOHAROX/LEGO/DAPLATE_09)" = marker/mod
check "hl2/hl2_misc.vpk means hl2_misc_dir.vpk, before hl2/ (DAPLATE_07: $(img "$WORK/gi.txt" BOHAROX/LEGO/DAPLATE_07))" \
    test "$(img "$WORK/gi.txt" BOHAROX/LEGO/DAPLATE_07)" = "$(img "$WORK/full.txt" BOHAROX/LEGO/DAPLATE_07)"
check "|all_source_engine_paths|hl2 gives its loose files (TRONIXUPDATE)" test "$(img "$WORK/gi.txt" TRONIX/TRONIXUPDATE)" = "$(img "$WORK/full.txt" TRONIX/TRONIXUPDATE)"
check "a platform path is not searched for game files (MCK)" test "$(img "$WORK/gi.txt" CUSTOMS/MCK)" = "-"
same=$(join <(sort "$WORK/gi.txt") <(sort "$WORK/full.txt") | awk '$2 == $3' | wc -l)
check "every other material as in the original map ($same)" test "$same" -eq "$(($(wc -l < "$WORK/full.txt") - 4))"
# validate --assets looks where the game would, and says so
"$CLI" validate --assets "$WORK/bare.bsp" --game-dir "$R/mymod" > "$WORK/a.txt"
check "validate --assets: only MCK and the tool materials missing" bash -c "! grep ': missing: ' '$WORK/a.txt' | grep -vi 'TOOLS/\|CUSTOMS/MCK'"
check "validate --assets names MCK" grep -q ': missing: material CUSTOMS/MCK' "$WORK/a.txt"
check "the report names the gameinfo.txt search" grep -q 'gameinfo.txt search paths' "$WORK/a.txt"
# without gameinfo.txt the folder is a plain one; a broken gameinfo.txt says where and falls back
mv "$R/mymod/gameinfo.txt" "$R/mymod/gameinfo.off"
"$CLI" convert "$WORK/bare.bsp" -o "$WORK/plain.gltf" -q --game-dir "$R/mymod"
check "a plain folder: the mod's own material" test "$(img <(images "$WORK/plain.gltf") BOHAROX/LEGO/DAPLATE_08)" = marker/mod
sed 's/"My Mod"/"My Mod/' "$R/mymod/gameinfo.off" > "$R/mymod/gameinfo.txt"
"$CLI" convert "$WORK/bare.bsp" -o "$WORK/broken.gltf" --game-dir "$R/mymod" > "$WORK/broken.out" 2>&1
check "a broken gameinfo.txt is a located warning" grep -q 'gameinfo.txt: gameinfo\[3\] @19: warning: a quoted string is not closed' "$WORK/broken.out"
check "... and the folder is searched as a plain one" test "$(img <(images "$WORK/broken.gltf") BOHAROX/LEGO/DAPLATE_08)" = marker/mod
bk_done
