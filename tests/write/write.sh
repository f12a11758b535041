#!/usr/bin/env bash
# Writing maps back, on every real map of every family: a rewrite with no change is byte-identical;
# an entity edit (a key added to worldspawn, an entity appended, through the JSON form and through
# the text form) reads back exactly, validates, leaves every other lump's bytes alone (crc32 by an
# independent reader, bspread.py) and, for Source, the static props; a pakfile edit lists the old
# entries less the removed plus the new one, Python's zipfile reads it and its CRCs; DarkPlaces
# loads edited Quake 1 and Quake 3 maps to the same decompiled geometry; hostile edits are refused.
source "$BK_TESTS/lib.sh"
bk_init "$@"
PY=/usr/bin/python3
R=$BK_TESTS/write/bspread.py
need_dir "$CORPUS/goldsrc"; need_dir "$CORPUS/quake1"; need_dir "$CORPUS/source"; need_dir "$FETCHED/q3"
shopt -s nullglob
maps=()
for f in "$CORPUS"/goldsrc/*.bsp "$CORPUS"/quake1/*.bsp "$CORPUS"/source/*.bsp "$FETCHED"/q3/*/*.bsp; do
    case $(basename "$f") in unusual_*) continue ;; esac
    maps+=("$f")
done
# every map: byte-identical rewrite
nid=0
for f in "${maps[@]}"; do
    if "$CLI" convert "$f" -o "$WORK/same.bsp" >/dev/null 2>"$WORK/err" && cmp -s "$f" "$WORK/same.bsp"; then
        nid=$((nid + 1)); ok
    else fail "rewrite of $(basename "$f") is not byte-identical"; head -2 "$WORK/err" >&2; fi
done
echo "byte-identical rewrites: $nid of ${#maps[@]}"

# the checks in Python (write_check.py, bspread.py as the reader) run once for all maps; its lines
# "ok WHAT" / "FAIL: WHAT" are this test's checks
WC=$BK_TESTS/write/write_check.py
py_checks() {   # WHAT OUT write_check.py-args...
    local what=$1 out=$2 line; shift 2
    if $PY "$WC" "$@" > "$out"; then ok; else fail "write_check.py $what"; fi
    while IFS= read -r line; do
        case $line in "ok "*) ok ;; "FAIL: "*) fail "${line#FAIL: }" ;; esac
    done < "$out"
}
# entity edits: every map of ../shared/corpus and one Quake 3 map in eight (the rest are the same code)
k=0; ids=()
for i in "${!maps[@]}"; do
    f=${maps[$i]}
    k=$((k + 1))
    case $f in "$FETCHED"/*) (( k % 8 == 0 )) || continue ;; esac
    d=$WORK/ed/$i; mkdir -p "$d"; printf '%s' "$f" > "$d/map"
    "$CLI" entities --json "$f" > "$d/e.json" || { fail "$(basename "$f" .bsp): entities"; continue; }
    ids+=("$i")
done
# (want.json: a key added to worldspawn, an entity appended)
$PY "$WC" edits-want "$WORK/ed" "${ids[@]}" || fail "write_check.py edits-want"
edited=()
for i in "${ids[@]}"; do
    f=${maps[$i]}; d=$WORK/ed/$i
    n=$(basename "$f" .bsp)
    if ! "$CLI" entities "$f" --import "$d/want.json" -o "$d/ed.bsp" > /dev/null 2>"$WORK/err"; then
        fail "$n: import refused"; head -3 "$WORK/err" >&2; continue
    fi
    "$CLI" entities --json "$d/ed.bsp" > "$d/got.json"
    expect_exit 0 "$CLI" validate "$d/ed.bsp"
    if [[ $f == */source/* ]]; then
        "$CLI" props --json "$f" | grep -v '"file"' > "$d/props0"; "$CLI" props --json "$d/ed.bsp" | grep -v '"file"' > "$d/props1"
    fi
    edited+=("$i")
done
# the entities read back exactly; every other lump's crc32 is unchanged (Source: the game lump holds
# absolute offsets, so it may change when it moves; its props are compared instead); the
# independent reader sees the new entity
py_checks edits "$WORK/edits.txt" edits "$WORK/ed" "${edited[@]}"
nedit=$(grep -c '^edited ' "$WORK/edits.txt")
echo "entity edits checked: $nedit"

# the text form round-trips too (ripent style), on an 8-bit map
f=$CORPUS/goldsrc/ns_ns_lost.bsp
"$CLI" entities "$f" > "$WORK/t.ent"
printf '{\n"classname" "info_null"\n"targetname" "from_text"\n}\n' >> "$WORK/t.ent"
expect_exit 0 "$CLI" entities "$f" --import "$WORK/t.ent" -o "$WORK/t.bsp"
check "text import appended the entity" grep -q from_text <("$CLI" entities "$WORK/t.bsp")
"$CLI" entities "$WORK/t.bsp" | head -n -4 > "$WORK/t2.ent"
check "text import keeps every other entity byte for byte" cmp -s <("$CLI" entities "$f") "$WORK/t2.ent"

# Blue Shift keeps its entities in the second header entry: a GoldSrc map with the first two
# entries swapped is one; it rewrites byte for byte and takes an entity edit in the right lump
$PY -c '
import sys
d = bytearray(open(sys.argv[1], "rb").read()); d[4:12], d[12:20] = d[12:20], d[4:12]
open(sys.argv[2], "wb").write(d)' "$CORPUS/goldsrc/cs16_aim_map.bsp" "$WORK/bshift.bsp"
check "the swapped map is read as Blue Shift" grep -q bshift <("$CLI" info "$WORK/bshift.bsp")
expect_exit 0 "$CLI" convert "$WORK/bshift.bsp" -o "$WORK/bshift2.bsp"
check "Blue Shift rewrite is byte-identical" cmp -s "$WORK/bshift.bsp" "$WORK/bshift2.bsp"
printf '{\n"classname" "info_null"\n"targetname" "bshift_added"\n}\n' | cat <("$CLI" entities "$WORK/bshift.bsp") - > "$WORK/bs.ent"
expect_exit 0 "$CLI" entities "$WORK/bshift.bsp" --import "$WORK/bs.ent" -o "$WORK/bshift3.bsp"
expect_exit 0 "$CLI" validate "$WORK/bshift3.bsp"
check "Blue Shift entity edit reads back" grep -q bshift_added <("$CLI" entities "$WORK/bshift3.bsp")

# pakfile edits on every Source map with a pakfile
ids=()
for i in "${!maps[@]}"; do
    f=${maps[$i]}
    [[ $f == "$CORPUS"/source/* ]] || continue
    d=$WORK/pk/$i; mkdir -p "$d"; printf '%s' "$f" > "$d/map"
    "$CLI" pak "$f" list --json > "$d/pl.json" 2>/dev/null && ids+=("$i")
done
npak=0; paked=()
while read -r i cnt first; do
    [[ $cnt -gt 0 ]] || continue
    f=${maps[$i]}; d=$WORK/pk/$i
    n=$(basename "$f" .bsp)
    printf '%s' "$first" > "$d/first"
    head -c 3000 /dev/urandom > "$d/blob.bin"
    if ! "$CLI" pak "$f" add "bspkit_test/blob.bin=$d/blob.bin" -o "$d/pa.bsp" >/dev/null 2>"$WORK/err"; then
        fail "$n: pak add"; head -3 "$WORK/err" >&2; continue
    fi
    if ! "$CLI" pak "$d/pa.bsp" remove "$first" -o "$d/pr.bsp" >/dev/null 2>"$WORK/err"; then
        fail "$n: pak remove"; head -3 "$WORK/err" >&2; continue
    fi
    expect_exit 0 "$CLI" validate "$d/pr.bsp"
    "$CLI" pak "$d/pr.bsp" list --json > "$d/pl2.json"
    paked+=("$i")
done < <($PY "$WC" pak-first "$WORK/pk" "${ids[@]}")
# the pakfile lists the old entries less the removed plus the new one; zipfile reads it (every CRC)
# and the added file back; the lumps other than the pakfile and the game lump keep their bytes
py_checks pak "$WORK/pak.txt" pak "$WORK/pk" "${paked[@]}"
npak=${#paked[@]}
echo "pakfile edits checked: $npak"

# hostile edits are refused, and nothing is written
f=$CORPUS/goldsrc/cs16_aim_map.bsp
printf '{\n"classname" "worldspawn\n}\n' > "$WORK/bad.ent"
rm -f "$WORK/no.bsp"
expect_exit 1 "$CLI" entities "$f" --import "$WORK/bad.ent" -o "$WORK/no.bsp"
check "an unterminated quote writes nothing" test ! -e "$WORK/no.bsp"
printf '[{"classname": "worldspawn", "message": "two\\nlines"}]' > "$WORK/nl.json"
expect_exit 1 "$CLI" entities "$f" --import "$WORK/nl.json" -o "$WORK/no.bsp"
$PY -c 'import json; json.dump([{"classname": "worldspawn", "message": "x" * (100 << 20)}], open("'"$WORK"'/big.json", "w"))'
expect_exit 1 "$CLI" entities "$f" --import "$WORK/big.json" -o "$WORK/no.bsp"
check "a 100 MB entity text writes nothing" test ! -e "$WORK/no.bsp"
rm -f "$WORK/big.json"
s=$CORPUS/source/css_v19_gg_aim_shotty.bsp
expect_exit 1 "$CLI" pak "$s" add "../escape.txt=$WORK/bad.ent" -o "$WORK/no.bsp"
expect_exit 1 "$CLI" pak "$s" add "/abs.txt=$WORK/bad.ent" -o "$WORK/no.bsp"
expect_exit 2 "$CLI" pak "$s" add "noequals" -o "$WORK/no.bsp"
expect_exit 1 "$CLI" pak "$f" add "a.txt=$WORK/bad.ent" -o "$WORK/no.bsp"
expect_stderr_has "only Source maps have a pakfile" "$CLI" pak "$f" add "a.txt=$WORK/bad.ent" -o "$WORK/no.bsp"
expect_exit 1 "$CLI" entities "$CORPUS/wad3/ns_lost.wad" --import "$WORK/nl.json" -o "$WORK/no.bsp"
check "nothing was written by refused edits" test ! -e "$WORK/no.bsp"
# an existing target survives a refused edit untouched
cp "$f" "$WORK/keep.bsp"
expect_exit 1 "$CLI" entities "$f" --import "$WORK/bad.ent" -o "$WORK/keep.bsp"
check "a refused edit leaves the target as it was" cmp -s "$f" "$WORK/keep.bsp"

# the engine: DarkPlaces decompiles an entity-edited Quake 1 and Quake 3 map to the same geometry
DP=$(command -v darkplaces-server || echo /usr/games/darkplaces-server)
if [[ -x $DP ]]; then
    for f in "$CORPUS/quake1/progs_dump_start.bsp" "$FETCHED/q3/oa081/oa_dm1.bsp"; do
        need_file "$f"
        n=$(basename "$f" .bsp)
        "$CLI" entities --json "$f" > "$WORK/e.json"
        $PY -c '
import json, sys
e = json.load(open(sys.argv[1]))
e[0] = [p for p in e[0] if p[0] != "message"] + [["message", "edited by bspkit"]]
e.append([["classname", "info_null"], ["origin", "0 0 0"]])
json.dump(e, open(sys.argv[1], "w"))' "$WORK/e.json"
        "$CLI" entities "$f" --import "$WORK/e.json" -o "$WORK/${n}_ed.bsp" >/dev/null || { fail "$n: edit for darkplaces"; continue; }
        for v in orig ed; do
            rm -rf "$WORK/dp"; mkdir -p "$WORK/dp/base/data/maps" "$WORK/dp/user"
            if [[ $v == orig ]]; then cp "$f" "$WORK/dp/base/data/maps/m.bsp"; else cp "$WORK/${n}_ed.bsp" "$WORK/dp/base/data/maps/m.bsp"; fi
            timeout 120 "$DP" -nexuiz -basedir "$WORK/dp/base" -userdir "$WORK/dp/user" +modeldecompile maps/m.bsp +quit \
                > "$WORK/dp_$v.log" 2>&1
            obj=$(find "$WORK/dp/user" -name 'm_decompiled.obj' | head -1)
            if [[ -n $obj ]]; then grep -E '^(v|f) ' "$obj" > "$WORK/${n}_$v.geo"; else : > "$WORK/${n}_$v.geo"; fi
        done
        check "$n: darkplaces decompiled the original" test -s "$WORK/${n}_orig.geo"
        check "$n: darkplaces decompiles the edited map to the same geometry" cmp -s "$WORK/${n}_orig.geo" "$WORK/${n}_ed.geo"
    done
else
    echo "note: darkplaces-server not installed, engine check skipped"
fi
bk_done
