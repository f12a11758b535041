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
bk_done
