#!/usr/bin/env bash
# Entity import loses nothing. On every real map of every family (Quake 3: one map in QSTEP of the
# fetched ones): the entities as text -> JSON -> --import -> the map's entity lump hold exactly the
# original pairs, in order, repeated keys included (read by an independent reader, bspread.py
# pairs, on the lump bytes), and the same through the text form; the JSON itself holds those pairs.
# Then what an import must refuse, leaving the target as it was: an empty, blank or missing import,
# a folder, `[]`, a first entity that is not worldspawn (unless --allow-no-worldspawn), U+0000,
# values that are not strings (located); and what it must take: a byte-order mark, "0.1" as
# written, the older JSON form with a repeated key as an array. Engine limits warn, bspkit's refuse.
source "$BK_TESTS/lib.sh"
bk_init "$@"
PY=/usr/bin/python3
R=$BK_TESTS/write/bspread.py
QSTEP=${BK_Q3_STEP:-4}
maps=()
k=0
for f in "$CORPUS"/goldsrc/*.bsp "$CORPUS"/quake1/*.bsp "$CORPUS"/source/*.bsp "$FETCHED"/q3/*/*.bsp; do
    [[ -f $f ]] || continue
    case $(basename "$f") in unusual_*) continue ;; esac
    case $f in "$FETCHED"/*) k=$((k + 1)); (( k % QSTEP == 0 )) || continue ;; esac
    maps+=("$f")
done
[[ ${#maps[@]} -gt 0 ]] || { echo "SKIP: no corpus maps"; exit 77; }

# ---- round trips on every map --------------------------------------------------------------------
# (the independent reader runs once for all maps, before the CLI and after it: entities_check.py)
EC=$BK_TESTS/write/entities_check.py
$PY "$EC" pairs "$WORK/m" "${maps[@]}" || fail "entities_check.py pairs"
done_ids=()
nw=""
: > "$WORK/dups"
for i in "${!maps[@]}"; do
    f=${maps[$i]}; d=$WORK/m/$i; mkdir -p "$d"
    b=$(basename "$f" .bsp)
    "$CLI" entities --json "$f" > "$d/e.json" || { fail "$b: entities --json"; continue; }
    "$CLI" entities "$f" > "$d/e.txt" || { fail "$b: entities"; continue; }
    [[ -f $d/p0.json ]] || { fail "$b: the independent reader"; continue; }
    # a map that does not start with worldspawn itself (Nexuiz's _init.bsp) takes its own entities
    # back only when told so
    allow=()
    if [[ $(cat "$d/worldspawn") != 1 ]]; then
        expect_exit 1 "$CLI" entities "$f" --import "$d/e.json" -o "$d/j.bsp"
        allow=(--allow-no-worldspawn); nw="$nw $b"
    fi
    # (its warnings are kept for the check of the engines' limits below: the same command)
    err=$d/import.err; ((${#allow[@]})) && err=$WORK/err
    if ! "$CLI" entities "$f" --import "$d/e.json" -o "$d/j.bsp" "${allow[@]}" > /dev/null 2> "$err"; then
        fail "$b: JSON import refused"; head -3 "$err" >&2; continue
    fi
    if ! "$CLI" entities "$f" --import "$d/e.txt" -o "$d/t.bsp" "${allow[@]}" > /dev/null 2> "$WORK/err"; then
        fail "$b: text import refused"; head -3 "$WORK/err" >&2; continue
    fi
    done_ids+=("$i")
done
# the imports and the text form hold the original pairs, byte for byte; the JSON holds them (UTF-8:
# bytes that are not UTF-8 are read as Latin-1); four checks a map
if $PY "$EC" compare "$WORK/m" "$WORK/dups" "${done_ids[@]}" > "$WORK/compare.txt"; then ok; else fail "entities_check.py compare"; fi
while IFS= read -r line; do
    case $line in "ok "*) ok ;; "FAIL: "*) fail "${line#FAIL: }" ;; esac
done < "$WORK/compare.txt"
check "four checks on each of ${#done_ids[@]} maps" test "$(grep -c '^ok \|^FAIL: ' "$WORK/compare.txt")" -eq $(( 4 * ${#done_ids[@]} ))
n=${#done_ids[@]}
echo "maps round-tripped: $n of ${#maps[@]} (Quake 3: one in $QSTEP); not starting with worldspawn:${nw:- none}"
$PY - "$WORK/dups" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1])]
src = [r for r in rows if r[0].split("_")[0] in ("csgo", "css", "gmod", "hl2sdk", "l4d2", "momentum", "ricochet", "tf2", "tf2c", "vtmb")]
have = [r for r in src if int(r[1])]
print("Source maps with repeated keys: %d of %d; most repeated pairs in one entity: %d (%s); in one map: %d"
      % (len(have), len(src), max(int(r[2]) for r in src), max(src, key=lambda r: int(r[2]))[0],
         max(int(r[1]) for r in src)))
PY

# ---- imports refused: nothing written, the target as it was ---------------------------------------
M=$CORPUS/source/css_v19_gg_aim_shotty.bsp
[[ -f $M ]] || M=${maps[0]}
cp "$M" "$WORK/target.bsp"
untouched() { check "$1: the target is untouched" cmp -s "$M" "$WORK/target.bsp"; }
refused() {   # refused NAME IMPORT STDERR_TEXT [more options]
    local what=$1 imp=$2 msg=$3; shift 3
    expect_exit 1 "$CLI" entities "$M" --import "$imp" -o "$WORK/target.bsp" "$@"
    check "$what: says why" grep -qF -- "$msg" "$WORK/.err"
    untouched "$what"
}
printf ' \n\t\r\n' > "$WORK/blank.txt"
printf '[]' > "$WORK/none.json"
printf '\xef\xbb\xbf  \n' > "$WORK/bom_blank.txt"
mkdir -p "$WORK/folder"
refused "empty import (/dev/null)" /dev/null "no entities in the import"
refused "blank import" "$WORK/blank.txt" "no entities in the import"
refused "byte-order mark and blanks" "$WORK/bom_blank.txt" "no entities in the import"
refused "[]" "$WORK/none.json" "no entities in the import"
refused "a folder as the import" "$WORK/folder" "cannot read: Is a directory"
refused "a missing import" "$WORK/nothere.json" "cannot open: No such file"
expect_exit 1 bash -c '"$1" entities "$2" --import - -o "$3" < /dev/null' _ "$CLI" "$M" "$WORK/target.bsp"
untouched "empty standard input"
printf '{\n"classname" "light"\n}\n' > "$WORK/noworld.txt"
refused "first entity not worldspawn" "$WORK/noworld.txt" 'the first entity is "light", not worldspawn'
printf '[[["origin", "0 0 0"]]]' > "$WORK/noclass.json"
refused "first entity without a classname" "$WORK/noclass.json" "without a classname"
printf '[\n  [["classname", "worldspawn"], ["a", "x\\u0000y"]]\n]\n' > "$WORK/nul.json"
refused "\\u0000 in a value" "$WORK/nul.json" "line 2, column 41: \\u0000 in a string"
printf '[\n  [["classname", "worldspawn"], ["a", 0.1]]\n]\n' > "$WORK/num.json"
refused "a number value" "$WORK/num.json" 'entities[0] @34: error: line 2, column 33: key "a": the value is a number: write it as a string'
printf '[\n  {"classname": "worldspawn", "a": 0.1}\n]\n' > "$WORK/num_old.json"
refused "a number value (object form)" "$WORK/num_old.json" 'line 2, column 31: key "a": the value is a number'
printf '[[["classname", "worldspawn"]],\n [["a", "b"], ["c", true]]]' > "$WORK/bool.json"
refused "a boolean value" "$WORK/bool.json" 'entities[1] @46: error: line 2, column 15: key "c": the value is a boolean'
printf '[[["classname", "worldspawn"]], [["a", null]]]' > "$WORK/null.json"
refused "a null value" "$WORK/null.json" 'key "a": the value is null'
printf '[[["classname", "worldspawn"]], [[5, "x"]]]' > "$WORK/numkey.json"
refused "a number key" "$WORK/numkey.json" "the key of pair 0 is a number"
printf '[[["classname", "worldspawn"]], [["a", "b", "c"]]]' > "$WORK/three.json"
refused "a pair of three" "$WORK/three.json" "pair 0 is an array of another length"
printf '[[["classname", "worldspawn"]],\n [["a", "b"] ["c", "d"]]]' > "$WORK/syntax.json"
refused "malformed JSON" "$WORK/syntax.json" "@45: error: line 2, column 14: not valid JSON here"
printf '[[["classname", "worldspawn"], ["a", "caf\xe9"]]]' > "$WORK/latin1.json"
refused "JSON that is not UTF-8" "$WORK/latin1.json" 'line 1, column 32: key "a": the value is not UTF-8'
printf '{\n"classname" "worldspawn"\n}\n{\n"a"\n}\n' > "$WORK/odd.txt"
refused "malformed text" "$WORK/odd.txt" "line 6, column 1: entity text does not parse here"

# ---- imports taken ----------------------------------------------------------------------------------
taken() {   # taken NAME IMPORT PY_CHECK_ON_PAIRS [options]
    local what=$1 imp=$2 code=$3; shift 3
    rm -f "$WORK/out.bsp"
    expect_exit 0 "$CLI" entities "$M" --import "$imp" -o "$WORK/out.bsp" "$@"
    check "$what: the map holds it" $PY -c "import json, sys; e = json.load(sys.stdin); sys.exit(0 if ($code) else 1)" \
        < <($PY "$R" pairs "$WORK/out.bsp")
}
printf '[[["classname", "worldspawn"], ["a", "0.1"], ["b", "1e400"], ["c", "x\\\\u0000y"]]]' > "$WORK/str.json"
taken "\"0.1\" and \"1e400\" as written, \"\\\\u0000\" as text" "$WORK/str.json" \
    'e == [[["classname", "worldspawn"], ["a", "0.1"], ["b", "1e400"], ["c", "x\\u0000y"]]]'
printf '\xef\xbb\xbf[[["classname", "worldspawn"], ["a", "b"]]]' > "$WORK/bom.json"
taken "JSON with a byte-order mark" "$WORK/bom.json" 'e == [[["classname", "worldspawn"], ["a", "b"]]]'
printf '\xef\xbb\xbf{\n"classname" "worldspawn"\n}\n' > "$WORK/bom.txt"
taken "text with a byte-order mark" "$WORK/bom.txt" 'e == [[["classname", "worldspawn"]]]'
printf '[{"classname": "worldspawn", "OnTrigger": ["a,Kill,,0,-1", "b,Kill,,1,-1"], "x": "1"}]' > "$WORK/old.json"
taken "the older form, a repeated key as an array" "$WORK/old.json" \
    'e == [[["classname", "worldspawn"], ["OnTrigger", "a,Kill,,0,-1"], ["OnTrigger", "b,Kill,,1,-1"], ["x", "1"]]]'
printf '[{"classname": "WorldSpawn"}]' > "$WORK/case.json"
taken "worldspawn in another case" "$WORK/case.json" 'e == [[["classname", "WorldSpawn"]]]'
taken "[] with --allow-no-worldspawn" "$WORK/none.json" 'e == []' --allow-no-worldspawn
taken "not worldspawn with --allow-no-worldspawn" "$WORK/noworld.txt" 'e == [[["classname", "light"]]]' --allow-no-worldspawn
expect_exit 2 "$CLI" entities "$M" --allow-no-worldspawn
check "entities --help documents --allow-no-worldspawn" grep -q -- "--allow-no-worldspawn" <("$CLI" entities --help)

# ---- limits: the engine's warn (located), bspkit's refuse ----------------------------------------------
$PY - "$WORK" <<'PY'
import json, sys
w = sys.argv[1]
ws = [["classname", "worldspawn"]]
json.dump([ws + [["k" * (1 << 20), "v"]]], open(w + "/bigkey.json", "w"))
json.dump([ws + [["k", "v" * (1 << 20)]]], open(w + "/bigval.json", "w"))
json.dump([ws + [["k%d" % i, "v"] for i in range(200000)]], open(w + "/manykeys.json", "w"))
json.dump([ws] + [[["classname", "info_null"]]] * 100000, open(w + "/manyents.json", "w"))
json.dump([ws, [["classname", "info_null"], ["k" * 2048, "v" * 3000]]], open(w + "/src_warn.json", "w"))
json.dump([ws, [["classname", "info_null"]] + [["k%d" % i, "v"] for i in range(65)]], open(w + "/q3_warn.json", "w"))
json.dump([ws] + [[["classname", "info_null"]]] * 600, open(w + "/q1_warn.json", "w"))
PY
refused "a 1 MiB key" "$WORK/bigkey.json" "a key of 1048576 bytes, over bspkit's limit of 65536"
refused "a 1 MiB value" "$WORK/bigval.json" "a value of 1048576 bytes, over bspkit's limit of 65536"
refused "200000 keys in one entity" "$WORK/manykeys.json" "entities[0]: error: 200001 key/value pairs, over bspkit's limit of 8192"
refused "100001 entities" "$WORK/manyents.json" "100001 entities, over bspkit's limit of 65536"
expect_exit 0 "$CLI" entities "$M" --import "$WORK/src_warn.json" -o "$WORK/out.bsp"
check "Source: a 2048-byte key warns, located" grep -qF 'entities[1]: warning: key "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk": 2048 bytes, over Source'"'"'s limit of 2047' "$WORK/.err"
check "Source: a 3000-byte value warns" grep -qF 'a value of 3000 bytes, over Source'"'"'s limit of 2047' "$WORK/.err"
# the maps' own entities warn of nothing (the limits are the engines', which real maps keep to)
# (the JSON import of the round trip above, without --allow-no-worldspawn, is this same command)
for i in "${!maps[@]}"; do
    f=${maps[$i]}; err=$WORK/m/$i/import.err
    [[ $f == */_init.bsp ]] && continue
    if [[ ! -f $err ]]; then
        "$CLI" entities --json "$f" > "$WORK/e.json"
        "$CLI" entities "$f" --import "$WORK/e.json" -o "$WORK/out.bsp" > /dev/null 2> "$err"
    fi
    check "$(basename "$f"): its own entities are within its engine's limits" test -z "$(grep 'entities.*warning' "$err")"
done
Q3=$(ls "$FETCHED"/q3/*/*.bsp 2>/dev/null | head -1)
if [[ -n $Q3 ]]; then
    expect_exit 0 "$CLI" entities "$Q3" --import "$WORK/q3_warn.json" -o "$WORK/out.bsp"
    check "Quake 3: 66 pairs in one entity warn" grep -qF "entities[1]: warning: 66 key/value pairs, over Quake III's limit of 64" "$WORK/.err"
fi
Q1=$CORPUS/quake1/vektar_start.bsp
if [[ -f $Q1 ]]; then
    expect_exit 0 "$CLI" entities "$Q1" --import "$WORK/q1_warn.json" -o "$WORK/out.bsp"
    check "Quake: 601 entities warn" grep -qF "entities: warning: 601 entities, over Quake's limit of 600" "$WORK/.err"
fi
bk_done
