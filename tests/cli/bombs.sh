#!/usr/bin/env bash
# Decompression bombs, built at run time (tests/cli/bombs.py): a 1 MB .pk3 whose map inflates to
# 1 GiB, a real Source map whose pakfile holds a 1 GiB deflate entry where a texture was, a 39 KB
# Source map whose LZMA lighting lump really inflates to 256 MiB, one whose header only says so,
# and one whose planes lump declares 256 MiB (not a multiple of 20 bytes). Every command that
# meets one (textures, convert, convert -j 2, validate, info, pak extract) refuses it or skips the
# entry in under 1 s and 100 MB of peak memory (GNU time's %M), whatever -j.
source "$BK_TESTS/lib.sh"
bk_init "$@"
PY=/usr/bin/python3
TIME=/usr/bin/time
src=$CORPUS/source
lego=$src/css_v20_gg_lego_arena_x.bsp
small=$src/gmod_v20_bspsrc_tooltextures.bsp
[[ -f $lego && -f $small ]] || { echo "SKIP: corpus missing"; exit 77; }
[[ -x $TIME ]] || { echo "SKIP: GNU time missing (scripts/install-deps --test)"; exit 77; }
B="$BK_TESTS/cli/bombs.py"
W=$WORK
$PY "$B" zip "$W/bomb.pk3" maps/bomb.bsp
$PY - "$W/bomb.pk3" "$W/two.pk3" <<'EOF'
import sys; d = open(sys.argv[1], "rb").read()
# two maps in one .pk3 (the same bomb twice): a batch converts them on two threads
import struct
sig = d.rfind(b"PK\x05\x06"); cd_ofs, = struct.unpack_from("<I", d, sig + 16); cd = d[cd_ofs:sig]
cd2 = cd.replace(b"maps/bomb.bsp", b"maps/bom2.bsp")
out = d[:cd_ofs] + cd + cd2 + struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 2, 2, 2 * len(cd), cd_ofs, 0)
open(sys.argv[2], "wb").write(out)
EOF
$PY "$B" pakfile "$lego" "$W/pak.bsp" materials/boharox/lego/dawall_03.vtf
mkdir -p "$W/lz"
$PY "$B" lzma "$small" "$W/lz/real.bsp" 8 256
$PY "$B" lzma "$small" "$W/lz/lie.bsp" 8 256 lie
$PY "$B" lzma "$small" "$W/lz/planes.bsp" 1 256
cp "$W/pak.bsp" "$W/lz/pak.bsp"

# measure CMD...: run CMD under GNU time: $secs, $kb (peak resident), $rc; stdout/stderr kept
measure() {
    timeout 60 "$TIME" -o "$W/.time" -f "%e %M" "$@" >"$W/.out" 2>"$W/.err"
    rc=$?
    read -r secs kb < <(tail -1 "$W/.time")
}
# bounded WHAT CMD...: CMD takes < 1 s and < 100 MB more than the same work without the bomb
# ($base_secs, $base_kb: 0 unless measured on the original file first)
base_secs=0 base_kb=0
bounded() {
    local what=$1; shift
    measure "$@"
    if [[ $rc -ge 124 ]]; then fail "$what: timed out or crashed ($rc)"; return; fi
    if awk -v s="$secs" -v k="$kb" -v bs="$base_secs" -v bk="$base_kb" 'BEGIN { exit !(s < bs + 1.0 && k < bk + 102400) }'; then ok
    else fail "$what: ${secs} s, ${kb} KB (want < 1 s, < 100 MB more than ${base_secs} s, ${base_kb} KB)"; fi
    echo "  $what: ${secs} s, $((kb / 1024)) MB, exit $rc"
}

bounded "convert PK3:member (1 GiB map)" "$CLI" convert "$W/bomb.pk3:maps/bomb.bsp" -o "$W/o1.glb"
check "the 1 GiB member is refused" grep -q "too large" "$W/.err"
for j in 1 2; do
    bounded "convert -j $j of a .pk3 with two 1 GiB maps" "$CLI" convert "$W/two.pk3" -o "$W/oj$j" -j $j
    check "both maps fail (-j $j)" grep -q "2 failed" "$W/.err"
done
# the map with the bomb against the map itself: the bomb adds nothing (the map's own work is the
# same either way, and takes most of a second in a sanitizer build)
measure "$CLI" textures "$lego" -o "$W/tex0"; base_secs=$secs base_kb=$kb
bounded "textures (pakfile with a 1 GiB entry)" "$CLI" textures "$W/pak.bsp" -o "$W/tex"
check "textures skips the bomb and writes the others" grep -q "textures written" "$W/.out"
check "the bomb is named" grep -q "dawall_03" "$W/.err"
measure "$CLI" convert "$lego" -o "$W/pak0.glb"; base_secs=$secs base_kb=$kb
bounded "convert (pakfile with a 1 GiB entry)" "$CLI" convert "$W/pak.bsp" -o "$W/pak.glb"
base_secs=0 base_kb=0
bounded "pak extract (pakfile with a 1 GiB entry)" "$CLI" pak "$W/pak.bsp" extract -o "$W/px"
check "pak extract refuses the entry" grep -q "dawall_03" "$W/.err"
bounded "validate (pakfile with a 1 GiB entry)" "$CLI" validate "$W/pak.bsp"
check "validate reports the entry" grep -q "dawall_03.*declares" "$W/.out" "$W/.err"
for m in real lie planes; do
    for cmd in validate info; do
        bounded "$cmd (LZMA lump declaring 256 MiB: $m)" "$CLI" $cmd "$W/lz/$m.bsp"
        check "$cmd refuses $m.bsp" grep -q "error" "$W/.err" "$W/.out"
    done
    bounded "convert (LZMA lump declaring 256 MiB: $m)" "$CLI" convert "$W/lz/$m.bsp" -o "$W/$m.glb"
done
"$CLI" convert "$W/lz/real.bsp" -o "$W/real.glb" >"$W/.out" 2>&1
check "the LZMA lump is refused on its declared size" grep -q "declares 268435456 uncompressed bytes, over" "$W/.out"
"$CLI" validate "$W/lz/planes.bsp" >"$W/.out" 2>&1
check "the planes lump's declared size is checked against its element" grep -q "not a multiple of the 20-byte element" "$W/.out"
mkdir -p "$W/plain" && cp "$lego" "$W/plain/"
for j in 1 2; do
    measure "$CLI" convert "$W/plain" -o "$W/plainout$j" -j $j; base_secs=$secs base_kb=$kb
    bounded "convert -j $j of a folder of bombs" "$CLI" convert "$W/lz" -o "$W/lzout$j" -j $j
    check "-j $j: the map whose pakfile holds the bomb converts, the 3 others are refused" grep -q "converted 1 of 4" "$W/.out"
done
bk_done
