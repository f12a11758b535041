#!/usr/bin/env bash
# Every path through the same checks (issue #37; red-team findings F3, F4, F8, F9, F11):
#  - the entity lump through `lump entities --import` passes what `entities --import` passes
#    (worldspawn first, bspkit's limits refused, the engine's warned), on GoldSrc, Quake 1, Source
#    and Quake 3; `validate` reports a map without worldspawn;
#  - what `validate` passed and bspkit then failed on is a located finding: an empty nodes lump
#    (every family), Quake leaf contents 0 or more, Source ambient-sample ranges past the ambient
#    lighting, NaN / infinity in Source floats, a Quake 3 leaf cluster past the leafs without vis;
#    render and query of such a map fail located;
#  - --dry-run: the map writers check, validate and write nothing (in place too); the rest refuse
#    it (usage, exit 2) and write nothing;
#  - a key twice in a lump JSON element is refused, located;
#  - an 80 MB element is refused before it is parsed (peak RSS under 100 MB); /dev/zero at once.
source "$BK_TESTS/lib.sh"
bk_init "$@"
GS=$CORPUS/goldsrc/cs16_aim_map.bsp
Q1=$CORPUS/quake1/vektar_start.bsp
B2=$CORPUS/quake1/unusual_bsp2_remakequake_mp_lobby.bsp
SRC=$CORPUS/source/tf2_v20_bsp_tool_mp_lobby.bsp
need_file "$GS" "$Q1" "$B2" "$SRC"
Q3=""
for f in "$FETCHED"/q3/nexuiz/aggressor.bsp "$FETCHED"/q3/*/*.bsp; do [[ -f $f ]] && { Q3=$f; break; }; done
[[ -n $Q3 ]] || echo "note: no Quake 3 map fetched (../shared/scripts/fetch-corpus): its checks are left out"
PY=/usr/bin/python3
OUT=$WORK/out.bsp

# refused MAP LUMP JSON TEXT: exit 1, TEXT on stderr, nothing written
refused() {
    local m=$1 lump=$2 js=$3 msg=$4
    rm -f "$OUT"
    expect_exit 1 "$CLI" lump "$m" "$lump" --import "$js" -o "$OUT"
    check "$(basename "$m") $lump $(basename "$js"): says '$msg'" grep -qF -- "$msg" "$WORK/.err"
    check "$(basename "$m") $lump $(basename "$js"): nothing written" test ! -e "$OUT"
}
# mutate MAP LUMP PYTHON OUT.json: the lump's JSON, changed by PYTHON (on `a`)
mutate() {
    "$CLI" lump "$1" "$2" > "$WORK/orig.json" || { fail "lump $2 of $1"; return; }
    $PY -c "import json; a = json.load(open('$WORK/orig.json')); $3; json.dump(a, open('$4', 'w'))" ||
        fail "mutate $2: $3"
}
# raw entity lumps (the engines' text, NUL-terminated, as base64 JSON)
$PY - "$WORK" <<'PY'
import base64, json, sys
w = sys.argv[1]
def put(name, text):
    b = text.encode("latin-1") + (b"\0" if text else b"")
    json.dump({"lump": "entities", "size": len(b), "encoding": "base64", "data": base64.b64encode(b).decode()},
              open("%s/%s.json" % (w, name), "w"))
put("e_empty", "")
put("e_light", '{\n"classname" "light"\n}\n')
put("e_big", '{\n"classname" "worldspawn"\n"message" "' + "x" * (2 << 20) + '"\n}\n')
put("e_many", '{\n"classname" "worldspawn"\n}\n' + '{\n"classname" "info_null"\n}\n' * 70000)
put("e_long", '{\n"classname" "worldspawn"\n"message" "' + "x" * 3000 + '"\n}\n')
put("e_bad", '{\n"classname" "worldspawn"\n}\n{ "a"\n')
PY

# ---- F3: the raw entity lump passes the entity checks --------------------------------------------
maps=("$GS" "$Q1" "$SRC"); [[ -n $Q3 ]] && maps+=("$Q3")
for m in "${maps[@]}"; do
    b=$(basename "$m")
    refused "$m" entities "$WORK/e_empty.json" "no entities in the import"
    refused "$m" entities "$WORK/e_light.json" 'the first entity is "light", not worldspawn'
    refused "$m" entities "$WORK/e_big.json" "a value of 2097152 bytes, over bspkit's limit of 65536"
    refused "$m" entities "$WORK/e_many.json" "70001 entities, over bspkit's limit of 65536"
    refused "$m" entities "$WORK/e_bad.json" "entity text does not parse at byte"
    # the engine's limit: a warning, written
    rm -f "$OUT"
    expect_exit 0 "$CLI" lump "$m" entities --import "$WORK/e_long.json" -o "$OUT"
    check "$b: a 3000-byte value warns (engine limit)" grep -q "warning: key \"message\": a value of 3000 bytes, over .* limit" "$WORK/.err"
    # the same refusal through entities --import: one check for both paths
    printf '{\n"classname" "light"\n}\n' > "$WORK/light.txt"
    expect_exit 1 "$CLI" entities "$m" --import "$WORK/light.txt" -o "$OUT"
    check "$b: entities --import says the same" grep -qF 'the first entity is "light", not worldspawn' "$WORK/.err"
    # --allow-no-worldspawn writes it; validate then reports the map without worldspawn
    rm -f "$OUT"
    expect_exit 0 "$CLI" lump "$m" entities --import "$WORK/e_empty.json" -o "$OUT" --allow-no-worldspawn
    expect_exit 0 "$CLI" validate "$OUT"
    check "$b: validate reports no worldspawn" grep -q "entities @[0-9]*: warning: map has no entities" "$WORK/.out"
    expect_exit 0 "$CLI" lump "$m" entities --import "$WORK/e_light.json" -o "$OUT" --allow-no-worldspawn
    expect_exit 0 "$CLI" validate "$OUT"
    check "$b: validate reports a first entity that is not worldspawn" \
        grep -q "entities\[0\] @[0-9]*: warning: the first entity is not worldspawn" "$WORK/.out"
done
expect_exit 2 "$CLI" lump "$Q1" entities --allow-no-worldspawn

# ---- F8: what validate passed and bspkit then failed on --------------------------------------------
# an empty nodes lump: refused on import; a map made so (its directory entry emptied) is invalid to
# validate, and render / query fail located
echo '[]' > "$WORK/none.json"
refused "$GS" nodes "$WORK/none.json" "models[0] @"
check "GoldSrc: head node named" grep -q "head node 0 out of range (0 nodes)" "$WORK/.err"
refused "$Q1" nodes "$WORK/none.json" "head node 0 out of range (0 nodes)"
refused "$B2" nodes "$WORK/none.json" "head node 0 out of range (0 nodes)"
refused "$SRC" nodes "$WORK/none.json" "head node 0 out of range (0 nodes)"
[[ -n $Q3 ]] && refused "$Q3" nodes "$WORK/none.json" "nodes @"
[[ -n $Q3 ]] && check "Quake 3: no nodes said" grep -q "no nodes: the world's tree starts at node 0" "$WORK/.err"
# the directory entry of nodes set to length 0 (Quake: slot 5 of (ofs, len); Source: slot 5 of
# (ofs, len, version, fourCC) after 8 bytes; Quake 3: slot 3 after 8 bytes)
zero_nodes() {   # IN OUT ENTRY_OFFSET_OF_LEN
    $PY -c "import sys; d = bytearray(open(sys.argv[1], 'rb').read()); o = int(sys.argv[3]); d[o:o + 4] = bytes(4); open(sys.argv[2], 'wb').write(d)" "$@"
}
zero_nodes "$Q1" "$WORK/q1_nonodes.bsp" $((4 + 8 * 5 + 4))
zero_nodes "$SRC" "$WORK/src_nonodes.bsp" $((8 + 16 * 5 + 4))
nn=("$WORK/q1_nonodes.bsp" "$WORK/src_nonodes.bsp")
[[ -n $Q3 ]] && zero_nodes "$Q3" "$WORK/q3_nonodes.bsp" $((8 + 8 * 3 + 4)) && nn+=("$WORK/q3_nonodes.bsp")
for m in "${nn[@]}"; do
    b=$(basename "$m")
    expect_exit 1 "$CLI" validate "$m"
    check "$b: validate finds the empty nodes" grep -q "INVALID" "$WORK/.out"
    check "$b: located" grep -qE "(models\[0\]|nodes) @[0-9]+: error: " "$WORK/.out"
    expect_exit 1 "$CLI" render "$m" -o "$WORK/r.png" --size 32x32
    check "$b: render fails located" grep -qE "(models\[0\]|nodes) @[0-9]+: error: " "$WORK/.err"
    check "$b: no picture" test ! -e "$WORK/r.png"
    expect_exit 1 "$CLI" query "$m" --point 0 0 0
    check "$b: query fails located" grep -qE "(models\[0\]|nodes) @[0-9]+: error: " "$WORK/.err"
done
# Quake leaf contents 0 or more: the engines walk them as nodes
for m in "$GS" "$Q1"; do
    mutate "$m" leafs "a[1]['contents'] = 0" "$WORK/lc0.json"
    refused "$m" leafs "$WORK/lc0.json" "leafs[1] @"
    check "$(basename "$m"): contents 0 said" grep -q "contents 0: a leaf's contents are below 0" "$WORK/.err"
    mutate "$m" leafs "a[1]['contents'] = 5" "$WORK/lc5.json"
    refused "$m" leafs "$WORK/lc5.json" "contents 5: a leaf's contents are below 0"
done
# Source: ambient samples past the ambient lighting (a count of 0 may start anywhere: vrad writes so)
mutate "$SRC" leaf_ambient_index "a[0]['ambient_sample_count'] = 9999" "$WORK/amb.json"
refused "$SRC" leaf_ambient_index "$WORK/amb.json" "leaf_ambient_index[0] @"
check "ambient range said" grep -q "ambient samples [0-9]*+9999 out of range (51 samples)" "$WORK/.err"
mutate "$SRC" leaf_ambient_index "a[0]['ambient_sample_count'] = 2; a[0]['first_ambient_sample'] = 60000" "$WORK/amb2.json"
refused "$SRC" leaf_ambient_index "$WORK/amb2.json" "ambient samples 60000+2 out of range (51 samples)"
mutate "$SRC" leaf_ambient_index_hdr "a[3]['ambient_sample_count'] = 52; a[3]['first_ambient_sample'] = 0" "$WORK/amb3.json"
refused "$SRC" leaf_ambient_index_hdr "$WORK/amb3.json" "leaf_ambient_index_hdr[3] @"
# Source: NaN and infinity in its floats, located by element and field
mutate "$SRC" texinfo "a[2]['lightmap_vecs'][3] = '0x7fc00000'" "$WORK/nan.json"
refused "$SRC" texinfo "$WORK/nan.json" 'texinfo[2] @'
check "texinfo NaN said" grep -q 'field "lightmap_vecs"\[3\] is not finite' "$WORK/.err"
mutate "$SRC" worldlights "a[1]['intensity'][0] = '0x7f800000'" "$WORK/nan.json"
refused "$SRC" worldlights "$WORK/nan.json" 'worldlights[1] @'
mutate "$SRC" worldlights "a[0]['origin'][2] = '0xff800000'" "$WORK/nan.json"
refused "$SRC" worldlights "$WORK/nan.json" 'field "origin"[2] is not finite'
mutate "$SRC" models "a[0]['origin'][1] = '0x7fc00000'" "$WORK/nan.json"
refused "$SRC" models "$WORK/nan.json" 'models[0] @'
mutate "$SRC" vertnormals "a[5]['normal'][0] = '0xffc00000'" "$WORK/nan.json"
refused "$SRC" vertnormals "$WORK/nan.json" 'vertnormals[5] @'
# Quake 3: a leaf cluster past the leafs on a map without vis (as -5 is), located
if [[ -n $Q3 ]]; then
    printf '{"lump": "visibility", "size": 0, "encoding": "base64", "data": ""}' > "$WORK/novis.json"
    expect_exit 0 "$CLI" lump "$Q3" visibility --import "$WORK/novis.json" -o "$WORK/q3novis.bsp"
    for c in 9999 -5; do
        mutate "$WORK/q3novis.bsp" leafs "a[0]['cluster'] = $c" "$WORK/cl.json"
        refused "$WORK/q3novis.bsp" leafs "$WORK/cl.json" "leafs[0] @"
        check "Quake 3 cluster $c said" grep -q "cluster $c out of range (-1 for none, or below the" "$WORK/.err"
    done
fi

# ---- F9: --dry-run ----------------------------------------------------------------------------------
cp "$GS" "$WORK/m.bsp"; cp "$SRC" "$WORK/s.bsp"
sum_m=$(md5sum < "$WORK/m.bsp"); sum_s=$(md5sum < "$WORK/s.bsp")
"$CLI" lump "$GS" planes > "$WORK/p.json"
"$CLI" entities "$GS" --json > "$WORK/e.json"
echo hello > "$WORK/f.txt"
dry() {   # the writer, in place: says so, writes nothing
    expect_exit 0 "$CLI" "$@" --dry-run
    check "$1 $2 $3 --dry-run: says what" grep -q "^dry run: .* would be [0-9]* bytes (.*), valid; nothing written" "$WORK/.out"
}
dry lump "$WORK/m.bsp" planes --import "$WORK/p.json" -o "$WORK/m.bsp"
dry entities "$WORK/m.bsp" --import "$WORK/e.json" -o "$WORK/m.bsp"
dry entities "$WORK/m.bsp" --import "$WORK/e.json"
dry convert "$WORK/m.bsp" -o "$WORK/m.bsp"
dry pak "$WORK/s.bsp" add "x/f.txt=$WORK/f.txt" -o "$WORK/s.bsp"
dry pak "$WORK/s.bsp" remove "materials/**" -o "$WORK/s.bsp"
# still checked: a bad import is refused under --dry-run too
expect_exit 1 "$CLI" lump "$WORK/m.bsp" entities --import "$WORK/e_light.json" -o "$WORK/m.bsp" --dry-run
check "--dry-run still refuses a bad import" grep -q "not worldspawn" "$WORK/.err"
check "--dry-run: the map untouched" test "$sum_m" = "$(md5sum < "$WORK/m.bsp")"
check "--dry-run: the Source map untouched" test "$sum_s" = "$(md5sum < "$WORK/s.bsp")"
# the writers that do not take it: usage error, nothing written
mkdir -p "$WORK/dry"
expect_exit 2 "$CLI" render "$WORK/m.bsp" -o "$WORK/dry/r.png" --dry-run
expect_exit 2 "$CLI" textures "$WORK/m.bsp" -o "$WORK/dry/tx" --dry-run
expect_exit 2 "$CLI" convert "$WORK/m.bsp" -o "$WORK/dry/m.glb" --dry-run
expect_exit 2 "$CLI" convert "$WORK/m.bsp" "$WORK/s.bsp" -o "$WORK/dry/" --dry-run
expect_exit 2 "$CLI" pak "$WORK/s.bsp" extract -o "$WORK/dry/x" --dry-run
expect_exit 2 "$CLI" lump "$WORK/m.bsp" planes --dry-run
check "--dry-run refused: says why" grep -q "\-\-dry-run is for the commands that write maps" "$WORK/.err"
check "--dry-run refused: nothing written" test -z "$(ls -A "$WORK/dry")"

# ---- F11: a key twice ------------------------------------------------------------------------------
printf '[\n{"normal": [1, 0, 0], "dist": -256, "type": 0, "dist": 12345}\n]\n' > "$WORK/dup.json"
refused "$GS" planes "$WORK/dup.json" 'dup.json: planes[0] @2: error: line 2:1: field "dist" given twice'
printf '{"lump": "lighting", "size": 0, "encoding": "base64", "data": "", "data": "AAAA"}' > "$WORK/dup2.json"
refused "$Q1" lighting "$WORK/dup2.json" 'key "data" given twice'

# ---- F4: an element is bounded before it is parsed; /dev/zero is not read to 1 GiB ------------------
# (a sanitizer build's shadow memory and its allocator's red zones take ~3x: the bounds are looser
# there, still far under the 3.2 GB and 1 GB an unbounded parse and read take)
big=102400 small=20480
if grep -q __asan_init "$CLI" 2>/dev/null; then big=409600 small=102400; echo "note: sanitizer build: RSS bounds ${big} / ${small} KB"; fi
$PY -c "print('[{\"normal\": [' + '0,' * 40000000 + '0], \"dist\": 0, \"type\": 2}]')" > "$WORK/el.json"
rm -f "$OUT"
/usr/bin/time -f '%M' -o "$WORK/rss" "$CLI" lump "$GS" planes --import "$WORK/el.json" -o "$OUT" 2> "$WORK/.err"
check "80 MB element: refused, located" grep -q 'el.json: planes\[0\] @1: error: line 1:2: element 0 is longer than its fields can need' "$WORK/.err"
rss=$(tail -1 "$WORK/rss")
echo "80 MB element: peak RSS ${rss} KB"
check "80 MB element: peak RSS under $((big / 1024)) MB (${rss} KB)" test "$rss" -lt "$big"
check "80 MB element: nothing written" test ! -e "$OUT"
rm -f "$WORK/el.json"
/usr/bin/time -f '%M' -o "$WORK/rss" "$CLI" lump "$GS" planes --import /dev/zero -o "$OUT" 2> "$WORK/.err"
rss=$(tail -1 "$WORK/rss")
check "/dev/zero: refused at its first block" grep -q '/dev/zero: error: byte 0 is NUL: not text' "$WORK/.err"
check "/dev/zero: peak RSS under $((small / 1024)) MB (${rss} KB)" test "$rss" -lt "$small"
expect_exit 1 "$CLI" entities "$GS" --import /dev/zero -o "$OUT"
check "entities --import /dev/zero refused" grep -q 'byte 0 is NUL' "$WORK/.err"
# entities --import JSON is read one entity at a time: 1.6 M small entities (61 MB of JSON, over
# the 65,536 entities allowed) took 1.7 GB as one cJSON tree; now the entities made and the text
# (about 10x the text: 612 MB), refused with the limit named
$PY -c "import json; print(json.dumps([[['classname', 'worldspawn']]] + [[['classname', 'info_null'], ['a', 'b']]] * 1600000, separators=(',', ':')))" > "$WORK/many.json"
/usr/bin/time -f '%M' -o "$WORK/rss" "$CLI" entities "$GS" --import "$WORK/many.json" -o "$OUT" 2> "$WORK/.err"
rss=$(tail -1 "$WORK/rss")
echo "61 MB of entities JSON: peak RSS ${rss} KB"
check "61 MB of entities JSON: refused, the limit named" grep -q 'limit exceeded' "$WORK/.err"
if ! grep -q __asan_init "$CLI" 2>/dev/null; then
    check "61 MB of entities JSON: peak RSS under 800 MB (${rss} KB)" test "$rss" -lt 819200
fi
check "61 MB of entities JSON: nothing written" test ! -e "$OUT"
rm -f "$WORK/many.json"
# ---- F13: messages that named the wrong thing --------------------------------------------------------
expect_exit 2 "$CLI" lump "$Q1" planes -o "$WORK/p_out.json"
check "lump NAME -o without --import: refused, not ignored" grep -q -- "-o goes with --import" "$WORK/.err"
check "lump NAME -o: nothing written" test ! -e "$WORK/p_out.json"
touch "$WORK/afile"
expect_exit 1 "$CLI" render "$Q1" "$GS" -o "$WORK/afile/"
check "render batch: names render and says why" grep -q "^bspkit render: cannot create folder .*afile: Not a directory" "$WORK/.err"
WAD=$CORPUS/wad3/ericw_hlwad.wad
if [[ -f $WAD ]]; then
    expect_exit 1 "$CLI" render "$WAD" -o "$WORK/w.png"
    check "render of a WAD3 says what to do" grep -q "a WAD3 holds textures, not a scene: bspkit textures" "$WORK/.err"
fi
refused "$Q1" nodes "$WORK/none.json" "vektar_start.bsp (as edited): models[0] @"
bk_done
