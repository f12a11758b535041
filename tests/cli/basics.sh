#!/usr/bin/env bash
# CLI behaviour common to every format: usage, help, exit codes, located errors on bad input.
# args: CLI SHARED FETCHED WORK
source "$BK_TESTS/lib.sh"
bk_init "$@"

expect_exit 2 "$CLI"
expect_exit 0 "$CLI" --help
expect_stdout_has "convert" "$CLI" --help
expect_exit 2 "$CLI" frobnicate
for c in info validate entities textures convert props pak; do
    expect_exit 0 "$CLI" "$c" --help
    expect_stdout_has "usage: bspkit $c" "$CLI" "$c" --help
done
expect_exit 2 "$CLI" info
expect_exit 2 "$CLI" info --bogus x.bsp
expect_exit 2 "$CLI" convert x.bsp
expect_exit 2 "$CLI" convert x.bsp -o out.txt
expect_exit 1 "$CLI" info "$WORK/does-not-exist.bsp"
expect_stderr_has "does-not-exist.bsp" "$CLI" info "$WORK/does-not-exist.bsp"

printf 'this is not a map at all' > "$WORK/junk.bin"
expect_exit 1 "$CLI" info "$WORK/junk.bin"
expect_stderr_has "unknown magic" "$CLI" info "$WORK/junk.bin"
expect_exit 1 "$CLI" validate "$WORK/junk.bin"
expect_stdout_has "INVALID" "$CLI" validate "$WORK/junk.bin"
: > "$WORK/empty.bin"
expect_exit 1 "$CLI" validate "$WORK/empty.bin"
expect_exit 1 "$CLI" convert "$WORK/empty.bin" -o "$WORK/e.glb"
[[ ! -e "$WORK/e.glb" ]] || fail "no output may be written for bad input"
# a map whose textures are elsewhere: the user is told which, where bspkit looked, and what to give
lost=$CORPUS/goldsrc/ns_ns_lost.bsp
need_file "$lost"
"$CLI" convert "$lost" -o "$WORK/lost.glb" > "$WORK/lost.txt" 2>&1
check "missing textures are named" grep -q 'materials have no texture: ' "$WORK/lost.txt"
check "the WADs the map names are listed" grep -q 'the map names these WADs: halflife.wad ns.wad decals.wad ns_lost.wad xeno.wad' "$WORK/lost.txt"
check "the user is told how to give them" grep -q -- '--wad FILE.wad' "$WORK/lost.txt"
"$CLI" convert "$lost" -o "$WORK/lost.glb" -v > "$WORK/lostv.txt" 2>&1
n=$(grep 'materials have no texture' "$WORK/lostv.txt" | sed 's/.*texture: //' | tr ',' '\n' | wc -l)
want=$(grep -o '[0-9]* of [0-9]* materials' "$WORK/lostv.txt" | cut -d' ' -f1)
check "-v lists every missing texture ($n of $want)" test "$n" -eq "$want"
"$CLI" convert "$lost" -o "$WORK/lost.glb" -q > "$WORK/lostq.txt" 2>&1
check "-q says nothing" test ! -s "$WORK/lostq.txt"
"$CLI" convert "$lost" -o "$WORK/lost.glb" --wad "$CORPUS/wad3/ns_lost.wad" > "$WORK/lostw.txt" 2>&1
check "with the WAD given, fewer are missing" test "$(grep -o '[0-9]* of' "$WORK/lostw.txt" | cut -d' ' -f1)" -lt "$want"
bk_done
