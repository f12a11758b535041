#!/usr/bin/env bash
# The independent Quake 2 (IBSP v38) reader, tests/tools/q2_reader.py (from id's qfiles.h), on every
# corpus Quake 2 map: each lump a whole number of elements, every reference in range. It must also
# catch damage: a lump length cut by one byte, a face's texinfo out of range, a node's plane out of
# range, each located.
source "$BK_TESTS/lib.sh"
bk_init "$@"
PY=/usr/bin/python3
R=$BK_TESTS/tools/q2_reader.py
need_dir "$CORPUS/quake2/maps"
maps=("$CORPUS"/quake2/maps/*.bsp "$CORPUS"/quake1/unusual_quake2_ibsp38_mp_lobby.bsp)
need_file "${maps[@]}"
expect_exit 0 $PY "$R" "${maps[@]}"
check "every map read (${#maps[@]})" test "$(grep -c ': ok: ' "$WORK/.out")" -eq "${#maps[@]}"
$PY "$R" --json "$CORPUS/quake2/maps/q2duel4.bsp" > "$WORK/q2duel4.json"
check "q2duel4's 11 areas and 53 area portals (MANIFEST quirk 17)" $PY -c '
import json, sys
j = json.load(open(sys.argv[1]))["lumps"]
sys.exit(0 if j["areas"]["count"] == 11 and j["areaportals"]["count"] == 53 else 1)' "$WORK/q2duel4.json"
check "q2rdm12's 16 texinfo in animation chains (MANIFEST quirk 17)" $PY -c '
import json, subprocess, sys
j = json.loads(subprocess.run([sys.argv[1], sys.argv[2], "--json", sys.argv[3]], capture_output=True, text=True).stdout)
t = j["lumps"]["texinfo"]["elements"]
n = sum(1 for x in t if x["nexttexinfo"] != -1)
sys.exit(0 if n == 16 else 1)' "$PY" "$R" "$CORPUS/quake2/maps/q2rdm12.bsp"
# damage, each caught and located
src=$CORPUS/quake2/maps/2box4.bsp
damage() {   # damage OUT PYTHON-STATEMENTS (d: the bytes, lump(i): (ofs, len), put(fmt, at, *v))
    $PY - "$src" "$1" "$2" <<'PYEOF'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
lump = lambda i: struct.unpack_from("<ii", d, 8 + 8 * i)
put = lambda fmt, at, *v: struct.pack_into(fmt, d, at, *v)
exec(sys.argv[3])
open(sys.argv[2], "wb").write(d)
PYEOF
}
damage "$WORK/cut.bsp" 'o, l = lump(6); put("<ii", 8 + 8 * 6, o, l - 1)'
expect_stderr_has "faces: length 7979 is not a whole number of 20-byte elements" $PY "$R" "$WORK/cut.bsp"
damage "$WORK/tex.bsp" 'o, l = lump(6); put("<h", o + 20 * 5 + 10, 30000)'
expect_stderr_has "faces[5]: texinfo 30000 outside texinfo (78)" $PY "$R" "$WORK/tex.bsp"
damage "$WORK/node.bsp" 'o, l = lump(4); put("<i", o + 28 * 3, 99999)'
expect_stderr_has "nodes[3]: planenum 99999 outside planes (370)" $PY "$R" "$WORK/node.bsp"
expect_exit 1 $PY "$R" "$WORK/node.bsp"
damage "$WORK/out.bsp" 'put("<ii", 8 + 8 * 12, len(d) - 4, 8)'
expect_stderr_has "surfedges: offset" $PY "$R" "$WORK/out.bsp"
expect_exit 1 $PY "$R" "$CORPUS/quake1/bsp_tool_quake_mp_lobby.bsp"
# Hexen II or Quake (tests/tools/h2_models.py, ericw-tools' rule): ocdjam_bb1's 640-byte models lump
# is 8 Hexen II or 10 Quake models, and only the Hexen II reading passes; every Quake BSP29 stays Quake
H2=$BK_TESTS/tools/h2_models.py
need_file "$CORPUS/hexen2/ocdjam_bb1.bsp" "$CORPUS/hexen2/ocdjam_house03.bsp"
$PY "$H2" "$CORPUS/hexen2/ocdjam_bb1.bsp" "$CORPUS/hexen2/ocdjam_house03.bsp" "$CORPUS"/quake1/*.bsp > "$WORK/h2.txt"
check "ocdjam_bb1: Hexen II by the checks, its Quake reading fails" grep -q 'ocdjam_bb1.bsp: hexen2 (by checks; as hexen2: pass, 8 models; as quake: fail' "$WORK/h2.txt"
check "ocdjam_house03: Hexen II by size (1120 B)" grep -q 'ocdjam_house03.bsp: hexen2 (by size; as hexen2: pass, 14 models' "$WORK/h2.txt"
check "every Quake BSP29 of the corpus stays Quake" test "$(grep -c ': quake (' "$WORK/h2.txt")" -eq "$(grep -c '/quake1/' "$WORK/h2.txt" | awk '{print $1 - 2}')"
bk_done
