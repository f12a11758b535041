#!/usr/bin/env bash
# Lightmap atlas: for every fetched Quake 3 map (OpenArena pages from the lightmap lump, Nexuiz
# pages from the lm_NNNN.tga files of its game archive) and a few Quake 1 / BSP2 / GoldSrc / Source
# maps, every lightmap sampled through the exported lightmap UVs from the decoded atlas PNG equals
# the source lightmap after the same brightness processing, with its one-texel border of edge
# texels (tests/tools/atlas_check.py reads the maps itself); Quake 3 atlases are packed tightly
# (at most 1.1 x the area of their padded pages), and every .glb passes the Khronos validator.
# The Quake 3 maps are converted once by the q3_glb fixture (q3/convert_all.sh, folder Q3_GLB),
# which q3_corpus validates.
# args: CLI SHARED FETCHED WORK
source "$BK_TESTS/lib.sh"
bk_init "$@"
shopt -s nullglob
CHECK=(/usr/bin/python3 "$BK_TESTS/tools/atlas_check.py")
/usr/bin/python3 -c 'import numpy' 2>/dev/null || { echo "SKIP: python3-numpy missing"; exit 77; }
pairs=()
convert() {   # MAP OUT [options]
    local m=$1 out=$2; shift 2
    if "$CLI" convert "$m" -o "$out" --no-textures -q "$@" 2>"$WORK/.err"; then
        pairs+=("$m" "$out")
    else
        fail "convert $m: $(head -1 "$WORK/.err")"
    fi
}
mkdir -p "$WORK/glb"
# a few of every other family with lightmaps (Quake 1 mono, BSP2, GoldSrc RGB, Source LDR and LZMA)
for f in quake1/progs_dump_start.bsp quake1/vektar_start.bsp quake1/unusual_bsp2_remakequake_mp_lobby.bsp \
         goldsrc/cs16_fy_pool_day.bsp goldsrc/ns_co_core.bsp goldsrc/dod_snowtest_avocado.bsp \
         source/css_v19_gg_aim_shotty.bsp source/tf2c_v20_dom_lithium.bsp source/tf2c_v20_lzma_vipr_downfall.bsp \
         source/l4d2_v21_ths_test_mechanic01.bsp source/csgo_v21_fy_iceworld.bsp; do
    need_file "$CORPUS/$f"; convert "$CORPUS/$f" "$WORK/glb/$(basename "$f" .bsp).glb"
done
others=$((${#pairs[@]} / 2))
need_dir "$FETCHED/q3"
need_file "$Q3_GLB/convert.tsv"
q3=(); while IFS=$'\t' read -r m glb _; do q3+=("$m" "$glb"); done <"$Q3_GLB/convert.tsv"
need=100
if [[ -n ${ASAN_OPTIONS:-} ]]; then
    # sanitizer build (make asan): every 8th Quake 3 map; the whole set runs in make test
    sample=(); for i in $(seq 0 2 $(( ${#q3[@]} - 1 ))); do (( i % 16 == 0 )) && sample+=("${q3[$i]}" "${q3[$((i + 1))]}"); done
    q3=("${sample[@]}"); need=$(( ${#q3[@]} / 2 * 3 / 4 ))
fi
echo "$(( ${#q3[@]} / 2 )) Quake 3 maps, $others others"
nexuiz_pk3=$FETCHED/pk3/nexuiz-data.pk3
need_file "$nexuiz_pk3"
"${CHECK[@]}" --game-pk3 "$nexuiz_pk3" "${pairs[@]}" "${q3[@]}" >"$WORK/check.txt" 2>&1
check "every lightmap equals its source through the exported UVs" test $? = 0
grep -v '^ok' "$WORK/check.txt" | grep -v 'no lightmap atlas' | head -10 >&2
nok=$(grep -c '^ok' "$WORK/check.txt")
echo "$nok maps checked lightmap by lightmap"
check "at least $(( need > others ? need : others )) maps with an atlas checked ($nok)" test "$nok" -ge $(( need > others ? need : others ))
# tight: the atlas area against the padded pages' area (Quake 3, where every page is checked)
python3 - "$WORK/check.txt" >"$WORK/tight.txt" <<'PYEOF'
import re, sys
worst = 0
for line in open(sys.argv[1]):
    m = re.match(r'ok (\S+) \[q3\]: atlas (\d+)x(\d+), .* padded area (\d+)', line)
    if m:
        worst = max(worst, int(m[2]) * int(m[3]) / int(m[4]))
print(f'{worst:.3f}')
PYEOF
tight=$(cat "$WORK/tight.txt")
echo "largest Quake 3 atlas area / padded page area: $tight"
check "atlases packed tightly ($tight <= 1.1)" python3 -c "import sys; sys.exit(0 if 0 < float('$tight') <= 1.1 else 1)"

if command -v node >/dev/null; then
    gltf_validate "$WORK"/glb/*.glb >"$WORK/gltf.txt" 2>&1
    check "Khronos validator: zero errors" test $? = 0
    grep -v '^valid' "$WORK/gltf.txt" | head -5 >&2
fi
bk_done
