#!/usr/bin/env bash
# .pak archives and Quake 2 images through the CLI: a .pak made here from the corpus's quake2/
# textures and skies lists and extracts byte for byte; a damaged one is refused, located; textures
# turns .wal / .pcx files and folders into PNGs, a .wal coloured by pics/colormap.pcx found in a
# game folder's pak (here a sky face's palette stands in for it) or by the stand-in, with a warning.
source "$BK_TESTS/lib.sh"
bk_init "$@"
PY=/usr/bin/python3
Q2=$CORPUS/quake2
need_dir "$Q2/textures"
need_file "$Q2/env/jalup.pcx" "$Q2/textures/e2u1/w_white.wal"
n=$($PY "$BK_TESTS/quake2/pak_write.py" "$WORK/q2.pak" "$Q2")
"$CLI" pak "$WORK/q2.pak" list --json > "$WORK/list.json"
check "the .pak lists every file ($n)" test "$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["count"])' "$WORK/list.json")" -eq "$n"
expect_stdout_has "$n entries" "$CLI" pak "$WORK/q2.pak" list
expect_exit 0 "$CLI" pak "$WORK/q2.pak" extract -o "$WORK/out"
check "every file extracts byte for byte" diff -r "$Q2" "$WORK/out"
# damage: the directory cut short, an entry pointing past the end
head -c $(( $(stat -c %s "$WORK/q2.pak") - 10 )) "$WORK/q2.pak" > "$WORK/cut.pak"
expect_exit 1 "$CLI" pak "$WORK/cut.pak" list
expect_stderr_has "cut.pak: header @4: error: directory at" "$CLI" pak "$WORK/cut.pak" list
$PY - "$WORK/q2.pak" "$WORK/bad.pak" <<'PYEOF'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
dirofs = struct.unpack_from("<i", d, 4)[0]
struct.pack_into("<i", d, dirofs + 64 * 7 + 60, 1 << 30)
open(sys.argv[2], "wb").write(d)
PYEOF
expect_exit 1 "$CLI" pak "$WORK/bad.pak" extract -o "$WORK/badout"
expect_stderr_has "bad.pak: directory[7] @" "$CLI" pak "$WORK/bad.pak" list
check "nothing extracted from a refused .pak" test ! -e "$WORK/badout"
expect_exit 2 "$CLI" pak "$WORK/q2.pak" add x=y -o "$WORK/x.pak"
# a name climbing out of the output folder: the whole pak refused, nothing written anywhere
$PY "$BK_TESTS/quake2/pak_write.py" "$WORK/evil.pak" - "ok.txt=$Q2/env/jalup.pcx" "../evil.txt=$Q2/env/jalup.pcx" >/dev/null
expect_exit 1 "$CLI" pak "$WORK/evil.pak" extract -o "$WORK/evilout/in"
check "nothing escaped, nothing extracted" test ! -e "$WORK/evilout/evil.txt" -a ! -e "$WORK/evilout/in/ok.txt"
# images
expect_exit 0 "$CLI" textures "$Q2/env/jalup.pcx" -o "$WORK/img"
check "a PCX sky face becomes a 256x256 PNG" $PY -c '
import sys; sys.path.insert(0, sys.argv[2])
from pngread import read_png
a = read_png(sys.argv[1]); sys.exit(0 if a.shape[:2] == (256, 256) else 1)' "$WORK/img/jalup.png" "$BK_TESTS/tools"
expect_stderr_has "pics/colormap.pcx not found" "$CLI" textures "$Q2/textures/e2u1/w_white.wal" -o "$WORK/w0"
mkdir -p "$WORK/game"
$PY "$BK_TESTS/quake2/pak_write.py" "$WORK/game/pak0.pak" - "pics/colormap.pcx=$Q2/env/jalup.pcx" >/dev/null
"$CLI" textures "$Q2/textures/e2u1/w_white.wal" -o "$WORK/w1" --game-dir "$WORK/game" 2> "$WORK/w1.err"
check "with the game's pak, no palette warning" test ! -s "$WORK/w1.err"
check "the .wal's pixels are its indexes through that palette" $PY -c '
import struct, sys; sys.path.insert(0, sys.argv[4])
from pngread import read_png
wal = open(sys.argv[1], "rb").read(); pcx = open(sys.argv[2], "rb").read()
w, h = struct.unpack_from("<II", wal, 32); o = struct.unpack_from("<I", wal, 40)[0]
pal = pcx[-768:]
a = read_png(sys.argv[3])
ok = a.shape[:2] == (h, w) and all(list(a[y, x, :3]) == list(pal[3 * wal[o + y * w + x]:3 * wal[o + y * w + x] + 3])
                                   for y in range(h) for x in range(w))
sys.exit(0 if ok else 1)' "$Q2/textures/e2u1/w_white.wal" "$Q2/env/jalup.pcx" "$WORK/w1/w_white.png" "$BK_TESTS/tools"
check "the stand-in palette gives other colours" bash -c "! cmp -s '$WORK/w0/w_white.png' '$WORK/w1/w_white.png'"
# ARCHIVE.pak:member: a texture read from a pak, the palette from the same pak; a Quake 1 map
# read from a pak by every command
$PY "$BK_TESTS/quake2/pak_write.py" "$WORK/game/pak1.pak" - "textures/e2u1/w_white.wal=$Q2/textures/e2u1/w_white.wal" \
    "maps/start.bsp=$CORPUS/quake1/vektar_start.bsp" >/dev/null
"$CLI" textures "$WORK/game/pak1.pak:textures/E2U1/W_WHITE.wal" -o "$WORK/w3" --game-dir "$WORK/game" 2> "$WORK/w3.err"
check "a .wal read from a pak (its name in capitals) gives the same PNG" cmp "$WORK/w1/w_white.png" "$WORK/w3/W_WHITE.png"
check "and finds the palette in the game folder's paks" test ! -s "$WORK/w3.err"
expect_stdout_has "entities" "$CLI" info "$WORK/game/pak1.pak:maps/start.bsp"
expect_exit 1 "$CLI" info "$WORK/game/pak1.pak:maps/nothere.bsp"
# a damaged .wal: located, nothing written
$PY -c 'import sys; d = bytearray(open(sys.argv[1], "rb").read()); d[40:44] = (100000).to_bytes(4, "little"); open(sys.argv[2], "wb").write(d)' \
    "$Q2/textures/e2u1/w_white.wal" "$WORK/bad.wal"
expect_exit 1 "$CLI" textures "$WORK/bad.wal" -o "$WORK/w2"
expect_stderr_has "bad.wal: mip[0] @40: error: level 0 (16x16, 256 bytes) at 100000 lies outside" "$CLI" textures "$WORK/bad.wal" -o "$WORK/w2"
check "nothing written for it" test ! -e "$WORK/w2/bad.png"
bk_done
