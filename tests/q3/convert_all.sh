#!/usr/bin/env bash
# Fixture (ctest FIXTURES_SETUP q3_glb): every fetched Quake 3 map converted once to .glb, shared by
# the tests that check the whole set (q3_corpus, lightmap_atlas) instead of each converting it again.
# Options: --no-textures; Nexuiz maps with their game archive (--game-dir nexuiz-data.pk3) for
# their external lightmap pages. Writes WORK/glb/SET-NAME.glb and WORK/convert.tsv (map, glb,
# degenerate triangles dropped); a map that does not convert fails this test, and so the users.
# args: CLI SHARED FETCHED WORK
source "$BK_TESTS/lib.sh"
bk_init "$@"
need_dir "$FETCHED/q3"
shopt -s nullglob
maps=("$FETCHED"/q3/*/*.bsp)
(( ${#maps[@]} > 0 )) || bk_skip "no Quake 3 maps in $FETCHED/q3"
nexuiz_pk3=$FETCHED/pk3/nexuiz-data.pk3
need_file "$nexuiz_pk3"
mkdir -p "$WORK/glb"
: >"$WORK/convert.tsv.part"
for m in "${maps[@]}"; do
    set=$(basename "$(dirname "$m")")
    out="$WORK/glb/$set-$(basename "$m" .bsp).glb"
    gd=(); [[ $set == nexuiz ]] && gd=(--game-dir "$nexuiz_pk3")
    if "$CLI" convert "$m" -o "$out" --no-textures "${gd[@]}" >"$WORK/.cout" 2>"$WORK/.cerr"; then
        ok
        dropped=$(sed -n 's/.*dropped \([0-9]*\) degenerate.*/\1/p' "$WORK/.cout")
        printf '%s\t%s\t%s\n' "$m" "$out" "${dropped:-0}" >>"$WORK/convert.tsv.part"
    else
        fail "convert $m: $(head -2 "$WORK/.cerr")"
    fi
done
mv "$WORK/convert.tsv.part" "$WORK/convert.tsv"
echo "${#maps[@]} maps converted into $WORK/glb"
bk_done
