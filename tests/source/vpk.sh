#!/usr/bin/env bash
# VPK archives: a VPK written by an independent writer (vpk_write.py) from a real map's pakfile
# lists and extracts byte for byte, a damaged byte is caught by the CRC, and a Source map whose
# pakfile lost its materials gets them back from the VPK (or a loose folder) given with --game-dir.
source "$BK_TESTS/lib.sh"
bk_init "$@"
PY=/usr/bin/python3
lego=$CORPUS/source/css_v20_gg_lego_arena_x.bsp
[[ -f $lego ]] || { echo "SKIP: corpus missing"; exit 77; }
"$CLI" pak "$lego" extract -o "$WORK/src" >/dev/null || fail "extract the pakfile"
n=$($PY "$BK_TESTS/source/vpk_write.py" "$WORK/src" "$WORK/game/pak01")
"$CLI" pak "$WORK/game/pak01_dir.vpk" list --json > "$WORK/list.json"
check "the VPK lists every file ($n)" test "$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["count"])' "$WORK/list.json")" -eq "$n"
expect_exit 0 "$CLI" pak "$WORK/game/pak01_dir.vpk" extract -o "$WORK/out"
check "every file extracts byte for byte" diff -r <(cd "$WORK/src" && find . -type f | tr 'A-Z' 'a-z' | sort) <(cd "$WORK/out" && find . -type f | sort)
bad=0
while IFS= read -r f; do cmp -s "$WORK/src/$f" "$WORK/out/$(echo "$f" | tr 'A-Z' 'a-z')" || bad=$((bad + 1)); done < <(cd "$WORK/src" && find . -type f | sed 's|^\./||')
check "contents identical ($bad differ)" test "$bad" -eq 0
# damage one byte of the archive: the CRC must catch it
cp -r "$WORK/game" "$WORK/bad"
$PY -c 'import sys; d = bytearray(open(sys.argv[1], "rb").read()); d[len(d) // 2] ^= 0xff; open(sys.argv[1], "wb").write(d)' "$WORK/bad/pak01_000.vpk"
expect_exit 1 "$CLI" pak "$WORK/bad/pak01_dir.vpk" extract -o "$WORK/badout"
expect_stderr_has "CRC mismatch" "$CLI" pak "$WORK/bad/pak01_dir.vpk" extract -o "$WORK/badout"
head -c 40 "$WORK/game/pak01_dir.vpk" > "$WORK/cut_dir.vpk"
expect_exit 1 "$CLI" pak "$WORK/cut_dir.vpk" list
# the map without its materials, then with them from the VPK / a loose folder
"$CLI" pak "$lego" remove 'materials/**' -o "$WORK/bare.bsp" >/dev/null
textured() { $PY -c 'import json,sys; g=json.load(open(sys.argv[1])); print(sum(1 for m in g["materials"] if "baseColorTexture" in m.get("pbrMetallicRoughness",{})))' "$1"; }
"$CLI" convert "$lego" -o "$WORK/full.gltf" -q
"$CLI" convert "$WORK/bare.bsp" -o "$WORK/bare.gltf" -q
"$CLI" convert "$WORK/bare.bsp" -o "$WORK/vpk.gltf" -q --game-dir "$WORK/game/pak01_dir.vpk"
"$CLI" convert "$WORK/bare.bsp" -o "$WORK/dir.gltf" -q --game-dir "$WORK/game"
"$CLI" convert "$WORK/bare.bsp" -o "$WORK/loose.gltf" -q --game-dir "$WORK/src"
full=$(textured "$WORK/full.gltf")
check "without its materials the map is untextured" test "$(textured "$WORK/bare.gltf")" -eq 0
check "a NAME_dir.vpk gives every texture back ($full)" test "$(textured "$WORK/vpk.gltf")" -eq "$full"
check "a game folder's VPKs give every texture back" test "$(textured "$WORK/dir.gltf")" -eq "$full"
check "a loose folder gives every texture back" test "$(textured "$WORK/loose.gltf")" -eq "$full"
"$CLI" convert "$WORK/bare.bsp" -o "$WORK/m.glb" > "$WORK/m.txt"
check "the user is told how to give a game's VPKs" grep -q -- '--game-dir' "$WORK/m.txt"
# validate --assets: what the map references and cannot be found, with where it looked
"$CLI" validate --assets "$WORK/bare.bsp" > "$WORK/a0.txt"; rc0=$?
"$CLI" validate --assets "$WORK/bare.bsp" --game-dir "$WORK/game/pak01_dir.vpk" > "$WORK/a1.txt"; rc1=$?
n0=$(grep -c ': missing: ' "$WORK/a0.txt"); n1=$(grep -c ': missing: ' "$WORK/a1.txt")
check "missing assets make validate --assets exit 1" test $rc0 -eq 1
check "the VPK supplies what it holds ($n0 missing without it, $n1 with it)" test "$n1" -lt "$n0"
check "what is still missing is only what the VPK lacks (tool materials)" bash -c "! grep ': missing: ' '$WORK/a1.txt' | grep -vi 'TOOLS/'"
check "each report says where it looked" grep -q "looked in the map's pakfile, $WORK/game/pak01_dir.vpk" "$WORK/a1.txt"
"$CLI" validate --assets --json "$WORK/bare.bsp" > "$WORK/a.json"
check "--json lists them" /usr/bin/python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))[0]
m = j["missing_assets"]
sys.exit(0 if m and all(x["kind"] in ("material", "texture", "model") and x["looked_in"] for x in m) else 1)' "$WORK/a.json"
# a VPK is known by its signature (0x55aa1234), whatever its name: listed, extracted and used as a
# game folder when renamed; info says what it is instead of "unknown magic"
mkdir -p "$WORK/renamed"
cp "$WORK/game/pak01_dir.vpk" "$WORK/renamed/pak01.bin"
cp "$WORK/game/pak01_000.vpk" "$WORK/renamed/pak01_000.vpk"
cp "$WORK/game/pak01_dir.vpk" "$WORK/renamed/noext"
"$CLI" pak "$WORK/renamed/pak01.bin" list --json > "$WORK/rlist.json"
check "a renamed VPK lists every file ($n)" test "$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["count"])' "$WORK/rlist.json")" -eq "$n"
expect_exit 0 "$CLI" pak "$WORK/renamed/pak01.bin" extract -o "$WORK/rout"
check "a renamed VPK extracts (its data file found as NAME_000.vpk)" diff -r "$WORK/out" "$WORK/rout"
expect_stdout_has "$n entries" "$CLI" pak "$WORK/renamed/noext" list
expect_exit 1 "$CLI" info "$WORK/renamed/pak01.bin"
check "info says it is a VPK" grep -q "a VPK archive (signature 0x55aa1234)" "$WORK/.err"
"$CLI" convert "$WORK/bare.bsp" -o "$WORK/rvpk.gltf" -q --game-dir "$WORK/renamed/pak01.bin"
check "a renamed VPK gives every texture back ($full)" test "$(textured "$WORK/rvpk.gltf")" -eq "$full"
bk_done
