#!/usr/bin/env bash
# bspkit lump through the CLI: the list, a lump printed and imported back (byte-identical map) on a
# map of each family, a changed element written and read back, and a refused import leaves the
# target untouched with a located error (the library's side: write/test_lump_json.c).
source "$BK_TESTS/lib.sh"
bk_init "$@"
need_file "$CORPUS/quake1/vektar_start.bsp" "$CORPUS/goldsrc/cs16_fy_snow.bsp" \
    "$CORPUS/source/tf2c_v20_lzma_vipr_downfall.bsp" "$CORPUS/source/l4d2_v21_bspsrc_tooltextures.bsp"
Q1=$CORPUS/quake1/vektar_start.bsp
expect_stdout_has "planes" "$CLI" lump "$Q1"
expect_stdout_has "\"models\"" "$CLI" lump "$Q1" --json
expect_stdout_has '{"normal": [' "$CLI" lump "$Q1" planes
expect_stdout_has '"encoding": "base64"' "$CLI" lump "$Q1" lighting --json
expect_exit 1 "$CLI" lump "$Q1" nosuch
check "unknown lump named" grep -q "no lump named 'nosuch'" "$WORK/.err"
expect_exit 1 "$CLI" lump "$CORPUS/../corpus/wad3/ericw_hlwad.wad"
# print and import back: the whole map byte-identical (lumps with fields and opaque ones, LZMA too)
for m in "$Q1" "$CORPUS/goldsrc/cs16_fy_snow.bsp" "$CORPUS/source/tf2c_v20_lzma_vipr_downfall.bsp" \
         "$CORPUS/source/l4d2_v21_bspsrc_tooltextures.bsp"; do
    for l in planes faces entities lighting models; do
        "$CLI" lump "$m" $l > "$WORK/l.json" || { fail "lump $l of $m"; continue; }
        expect_exit 0 "$CLI" lump "$m" $l --import "$WORK/l.json" -o "$WORK/o.bsp"
        check "$(basename "$m") $l round trip byte-identical" cmp -s "$m" "$WORK/o.bsp"
    done
done
# a changed element: written, read back, the other lumps' CRCs unchanged
"$CLI" lump "$Q1" vertices | sed '2s/.*/{"point": [1, 2, 3]},/' > "$WORK/v.json"
expect_exit 0 "$CLI" lump "$Q1" vertices --import "$WORK/v.json" -o "$WORK/v.bsp"
expect_stdout_has '{"point": [1, 2, 3]}' "$CLI" lump "$WORK/v.bsp" vertices
crcs() { "$CLI" info "$1" --json | python3 -c 'import json,sys; print("\n".join("%s %s" % (l["name"], l.get("crc32")) for l in json.load(sys.stdin)["lumps"] if l["name"] != "vertices"))'; }
check "other lumps unchanged" diff <(crcs "$Q1") <(crcs "$WORK/v.bsp")
# refused: located error, the target untouched
cp "$Q1" "$WORK/t.bsp"; before=$(md5sum < "$WORK/t.bsp")
printf '[{"point": [1, 2, 3]},\n{"point": [1, "x", 3]}]' > "$WORK/bad.json"
expect_exit 1 "$CLI" lump "$Q1" vertices --import "$WORK/bad.json" -o "$WORK/t.bsp"
check "located error" grep -q 'bad.json: vertices\[1\] @[0-9]*: error: line 2:1: field "point"\[1\]' "$WORK/.err"
check "target untouched" test "$before" = "$(md5sum < "$WORK/t.bsp")"
printf '[{"v": [0, 60000]}]' > "$WORK/bad2.json"
expect_exit 1 "$CLI" lump "$Q1" edges --import "$WORK/bad2.json" -o "$WORK/t.bsp"
check "invalid reference refused" grep -q 'does not validate' "$WORK/.err"
check "target untouched" test "$before" = "$(md5sum < "$WORK/t.bsp")"
expect_exit 2 "$CLI" lump "$Q1" vertices --import "$WORK/bad.json"
expect_exit 2 "$CLI" lump "$Q1" --import "$WORK/bad.json" -o "$WORK/t.bsp"
bk_done
