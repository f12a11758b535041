#!/usr/bin/env bash
# HDR lighting (convert, --hdr): maps with HDR lighting only come out lit (atlas brightness against
# the LDR maps of the same game), exposed as the engine's auto exposure computed independently
# (source/hdr.py); --hdr on maps with both lumps; LDR maps unchanged (no exposure).
source "$BK_TESTS/lib.sh"
bk_init "$@"
need_dir "$CORPUS/source"
/usr/bin/python3 -c 'import numpy, lzma' 2>/dev/null || bk_skip "python3-numpy missing"
/usr/bin/python3 "$BK_TESTS/source/hdr.py" "$CLI" "$CORPUS/source" "$WORK" >"$WORK/hdr.txt" 2>&1
rc=$?
cat "$WORK/hdr.txt"
check "HDR maps lit and exposed as computed" test $rc = 0
check "at least two HDR-only maps checked" test "$(grep -c '^ok .*HDR only' "$WORK/hdr.txt")" -ge 2
bk_done
