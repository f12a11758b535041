#!/usr/bin/env bash
# Inputs that are not regular files, and a batch that cannot start. A FIFO named *.bsp in a folder
# converted as a batch is skipped (reported, never opened: opening it would wait for a writer
# forever); given alone to info / validate / convert / a .pk3 member it is a clear error at once. A
# batch whose output folder cannot be created fails cleanly (under the ASan build: without leaking
# its job list, which LeakSanitizer turns into a different exit code).
source "$BK_TESTS/lib.sh"
bk_init "$@"
src=$CORPUS/source
a=$src/tf2_v20_bsp_tool_mp_lobby.bsp
b=$src/gmod_v20_bspsrc_tooltextures.bsp
[[ -f $a && -f $b ]] || { echo "SKIP: corpus missing"; exit 77; }
command -v mkfifo >/dev/null || { echo "SKIP: no mkfifo"; exit 77; }
mkdir -p "$WORK/in"
cp "$a" "$b" "$WORK/in/"
mkfifo "$WORK/in/fifo.bsp" "$WORK/fifo.pk3"
# timeout: a command that opens the FIFO blocks; 124 is a hang
expect_exit 0 timeout 20 "$CLI" convert "$WORK/in" -o "$WORK/out" -j 2
check "the FIFO is reported as skipped" grep -q "fifo.bsp: not a regular file (a FIFO): skipped" "$WORK/.err"
check "the summary counts it" grep -q "1 skipped" "$WORK/.out"
check "the regular maps are converted" test -s "$WORK/out/$(basename "${a%.bsp}").glb" -a -s "$WORK/out/$(basename "${b%.bsp}").glb"
for cmd in info validate; do
    expect_exit 1 timeout 10 "$CLI" $cmd "$WORK/in/fifo.bsp"
    check "$cmd: a FIFO is a clear error" grep -q "not a regular file (a FIFO)" "$WORK/.err" "$WORK/.out"
done
expect_exit 1 timeout 10 "$CLI" convert "$WORK/in/fifo.bsp" -o "$WORK/f.glb"
expect_exit 1 timeout 10 "$CLI" convert "$WORK/fifo.pk3:maps/x.bsp" -o "$WORK/f.glb"
expect_exit 0 timeout 10 "$CLI" convert "$a" -o "$WORK/g.glb" --game-dir "$WORK/fifo.pk3"
# a directory named *.bsp is skipped the same way
mkdir "$WORK/in/dir.bsp"
expect_exit 0 timeout 20 "$CLI" convert "$WORK/in" -o "$WORK/out2" -j 1
check "a folder named *.bsp is skipped" grep -q "dir.bsp: not a regular file (a folder): skipped" "$WORK/.err"
# the output folder cannot be created (a file is in the way): exit 1, nothing leaked (ASan build)
: > "$WORK/file"
expect_exit 1 "$CLI" convert "$a" "$b" -o "$WORK/file/sub" -j 2
check "says why" grep -q "cannot create folder" "$WORK/.err"
check "no leak reported" bash -c "! grep -q LeakSanitizer '$WORK/.err'"
bk_done
