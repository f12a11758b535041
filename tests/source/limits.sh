#!/usr/bin/env bash
# The engine's lump limits on the Source version rows (source_desc.c, from source-sdk-2013
# public/bspfile.h): a corpus map with its areas grown to MAX_MAP_AREAS and one past it, and its
# texdata string data one byte past MAX_MAP_TEXDATA_STRING_DATA (made here). Over a limit `validate`
# warns at the lump and passes; at the limit nothing; Bloodlines (v17) has no limits row.
source "$BK_TESTS/lib.sh"
bk_init "$@"
tf2=$CORPUS/source/tf2_v20_bsp_tool_mp_lobby.bsp
vtmb=$CORPUS/source/vtmb_v17_sm_bailbonds_1.bsp
[[ -f $tf2 && -f $vtmb ]] || { echo "SKIP: corpus missing"; exit 77; }
python3 - "$tf2" "$vtmb" "$WORK" <<'PY'
import struct, sys
tf2, vtmb, out = sys.argv[1:4]
def grow(src, lump, n, name):
    # lump `lump` moved to the end of the file, its bytes followed by zeros up to n bytes
    d = bytearray(open(src, "rb").read())
    e = 8 + 16 * lump
    ofs, ln = struct.unpack_from("<ii", d, e)
    at = (len(d) + 3) & ~3
    d += bytes(at - len(d)) + bytes(d[ofs:ofs + ln]) + bytes(n - ln)
    struct.pack_into("<ii", d, e, at, n)
    open("%s/%s" % (out, name), "wb").write(d)
grow(tf2, 20, 256 * 8, "areas_at.bsp")
grow(tf2, 20, 257 * 8, "areas_over.bsp")
grow(tf2, 43, 256001, "strings_over.bsp")
grow(vtmb, 20, 257 * 8, "areas_v17.bsp")
PY
for m in areas_at areas_over strings_over areas_v17; do
    "$CLI" validate "$WORK/$m.bsp" >"$WORK/$m.txt" 2>&1
    echo $? >"$WORK/$m.rc"
done
check "areas over MAX_MAP_AREAS warn at the lump" \
    grep -q "areas @[0-9]*: warning: 257 elements, more than Source's MAX_MAP_AREAS (256)" "$WORK/areas_over.txt"
check "a warning only: validate passes" test "$(cat "$WORK/areas_over.rc")" = 0
check "areas at the limit: no warning" bash -c "! grep -q 'more than' '$WORK/areas_at.txt'"
check "validate passes at the limit" test "$(cat "$WORK/areas_at.rc")" = 0
check "string data over MAX_MAP_TEXDATA_STRING_DATA warns in bytes" \
    grep -q "texdata_string_data @[0-9]*: warning: 256001 bytes, more than Source's MAX_MAP_TEXDATA_STRING_DATA (256000)" \
    "$WORK/strings_over.txt"
check "Bloodlines has no limits row: no warning" bash -c "! grep -q 'more than' '$WORK/areas_v17.txt'"
check "the map over a limit still loads" "$CLI" info "$WORK/areas_over.bsp" -q
bk_done
