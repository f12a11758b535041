#!/usr/bin/env bash
# Static props field by field against a reader written here after Valve's StaticPropLump_t
# (tests/source/sprp_layouts.py): every prop of every real Source map, and every layout bspkit
# reads (v4-v12, both 72-byte layouts) on a map whose prop lump is rewritten in that layout with
# a distinct value in every field - among them the lightmapped layout's uint32 flags, which sit
# at offset 64 while the byte at 31 is padding.
source "$BK_TESTS/lib.sh"
bk_init "$@"
SRC=$CORPUS/source
need_dir "$SRC"
PY=$BK_TESTS/source/sprp_layouts.py
shopt -s nullglob
real=()
for f in "$SRC"/*.bsp; do [[ $(basename "$f") == unusual_* ]] || real+=("$f"); done
(( ${#real[@]} >= 20 )) || { echo "SKIP: fewer than 20 Source maps in $SRC"; exit 77; }
python3 "$PY" read "$WORK" "${real[@]}" || fail "the reader"
names=()
for f in "${real[@]}"; do
    b=$(basename "$f" .bsp)
    "$CLI" props "$f" --json > "$WORK/$b.got.json" 2>"$WORK/.err" || fail "props $b"
    names+=("$b")
done

base=$SRC/css_v20_gg_creepyvan.bsp
[[ -f $base ]] || { echo "SKIP: $base missing"; exit 77; }
python3 "$PY" make "$base" "$WORK" > "$WORK/layouts.txt" || fail "making the layouts"
check "eleven layouts" [ "$(wc -l < "$WORK/layouts.txt")" == 11 ]
while read -r name; do
    expect_exit 0 "$CLI" validate "$WORK/$name.bsp"
    "$CLI" props "$WORK/$name.bsp" --json > "$WORK/$name.got.json" 2>"$WORK/.err" || fail "props $name"
    names+=("$name")
done < "$WORK/layouts.txt"

python3 "$PY" compare "$WORK" "${names[@]}" > "$WORK/compare.txt"
while read -r line; do
    case $line in *" PASS "*) ok ;; *) fail "$line" ;; esac
done < "$WORK/compare.txt"
check "compared ${#names[@]} maps" [ "$(wc -l < "$WORK/compare.txt")" == "${#names[@]}" ]
bk_done
