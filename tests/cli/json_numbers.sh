#!/usr/bin/env bash
# Non-finite numbers in the JSON bspkit writes (docs/lumps.md, "Numbers in the JSON"): a NaN or an
# infinity is the string "0x" + the 8 hex digits of its bits as a 32-bit float, never null (nor a
# bare nan, as query / trace wrote); what `lump --json` writes, `lump --import` reads back to the
# same bits.
source "$BK_TESTS/lib.sh"
bk_init "$@"
SRC=$CORPUS/source
M=$SRC/tf2c_v20_lzma_vipr_downfall.bsp
need_file "$M"
# props: the map's own NaN lighting origins (45 props; signalling ones too), each with its bits
"$CLI" props "$M" --json > "$WORK/props.json" 2>/dev/null || fail "props --json"
check "props --json writes no null" bash -c "! grep -q null '$WORK/props.json'"
check "props --json keeps a signalling NaN's bits" grep -q '"0x7fa10004"' "$WORK/props.json"
check "props --json is JSON" /usr/bin/python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$WORK/props.json"

# lump: a quiet NaN, a signalling NaN and -inf put into a BSP2 leaf's float bounds (the Source
# loader refuses non-finite floats since the validator checks them; a leaf's bounds are data no
# command computes with), written as their bits and read back by --import to a byte-identical map
T=$CORPUS/source/tf2_v20_bsp_tool_mp_lobby.bsp
B=$CORPUS/quake1/unusual_bsp2_remakequake_mp_lobby.bsp
need_file "$T"
need_file "$B"
/usr/bin/python3 - "$B" "$WORK/nan.bsp" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
ofs, ln = struct.unpack_from("<ii", d, 4 + 8 * 10)    # leafs: 44 bytes, float mins at 8
assert ln >= 88
for k, bits in enumerate((0x7fc00000, 0x7fa00001, 0xff800000)):
    struct.pack_into("<I", d, ofs + 44 + 8 + 4 * k, bits)
open(sys.argv[2], "wb").write(d)
PY
"$CLI" lump "$WORK/nan.bsp" leafs --json > "$WORK/leafs.json" 2>/dev/null || fail "lump leafs --json"
check "lump --json: the three as their bits" grep -q '"mins": \["0x7fc00000", "0x7fa00001", "0xff800000"' "$WORK/leafs.json"
expect_exit 0 "$CLI" lump "$WORK/nan.bsp" leafs --import "$WORK/leafs.json" -o "$WORK/back.bsp"
check "lump --import reads them back to the same bytes" cmp -s "$WORK/nan.bsp" "$WORK/back.bsp"

# entities --outputs: a delay too large for a double (1e400) is an infinity, written as such
/usr/bin/python3 - "$T" "$WORK/ents.txt" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
ofs, ln = struct.unpack_from("<ii", d, 8)
text = d[ofs:ofs + ln].rstrip(b"\0").decode("latin-1")
i = text.index("}")                                      # into worldspawn, the first entity
open(sys.argv[2], "w", encoding="latin-1").write(text[:i] + '"OnUser1" "x,Kill,,1e400,-1"\n' + text[i:])
PY
expect_exit 0 "$CLI" entities "$T" --import "$WORK/ents.txt" -o "$WORK/ents.bsp"
"$CLI" entities "$WORK/ents.bsp" --outputs --json > "$WORK/outputs.json" 2>/dev/null || fail "entities --outputs --json"
check "an infinite delay as its bits" grep -q '"delay":	"0x7f800000"' "$WORK/outputs.json"
check "outputs --json writes no null" bash -c "! grep -q null '$WORK/outputs.json'"
# query --json and --batch: a BSP2 leaf's float bounds holding a signalling NaN
B=$CORPUS/quake1/unusual_bsp2_remakequake_mp_lobby.bsp
need_file "$B"
/usr/bin/python3 - "$B" "$WORK/bsp2.bsp" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
ofs, ln = struct.unpack_from("<ii", d, 4 + 8 * 10)    # leafs: 44 bytes, mins at 8; leaf 1 holds 0 0 0
assert ln == 88
struct.pack_into("<I", d, ofs + 44 + 8, 0x7fa00002)
open(sys.argv[2], "wb").write(d)
PY
expect_stdout_has '"leaf_mins":["0x7fa00002",-192,-192]' "$CLI" query "$WORK/bsp2.bsp" --point 0 0 0 --json
printf '0 0 0\n' | "$CLI" query "$WORK/bsp2.bsp" --batch > "$WORK/batch.json" 2>/dev/null
check "query --batch writes the bits, and JSON" /usr/bin/python3 -c "import json,sys; j=json.loads(open(sys.argv[1]).read()); sys.exit(j['leaf_mins'][0] != '0x7fa00002')" "$WORK/batch.json" 2>/dev/null
bk_done
