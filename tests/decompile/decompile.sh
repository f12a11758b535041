#!/usr/bin/env bash
# bspkit decompile on a few corpus maps of each family that stores brushes (Quake 3, Source),
# re-read by a reader of the tests' own (check.py: every brush written or reported, every side on
# a lump plane of its brush, materials, texture axes), tool materials against the names a test map
# lists, a brush whose planes enclose nothing, all-or-nothing writes, families not supported yet.
# args: CLI SHARED FETCHED WORK
source "$BK_TESTS/lib.sh"
bk_init "$@"
CHECK="$BK_TESTS/decompile/check.py"
SRC=$CORPUS/source
need_file "$SRC/csgo_v21_bspsrc_tooltextures.bsp" "$SRC/gmod_v20_bspsrc_tooltextures.bsp" \
    "$SRC/tf2c_v20_lzma_vipr_downfall.bsp" "$SRC/tf2_v20_bsp_tool_test2.bsp"

# decompile MAP OUT, then check.py; the report line into $WORK/NAME.json
decompile_check() {
    local map=$1 out=$2 name; name=$(basename "$out")
    expect_exit 0 "$CLI" decompile "$map" -o "$out"   # warnings (brushes left out) on stderr
    cp "$WORK/.err" "$WORK/$name.err"
    if python3 "$CHECK" "$map" "$out" "$WORK/$name.err" > "$WORK/$name.json" 2> "$WORK/$name.fail"; then ok
    else fail "check.py $map"; sed 's/^/    /' "$WORK/$name.fail" | head -5 >&2; fi
}
# field NAME.json KEY
field() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$WORK/$1.json" "$2"; }

# ---- Source ---------------------------------------------------------------------------------
for m in csgo_v21_bspsrc_tooltextures gmod_v20_bspsrc_tooltextures tf2c_v20_lzma_vipr_downfall tf2_v20_bsp_tool_test2; do
    decompile_check "$SRC/$m.bsp" "$WORK/$m.vmf"
    check "$m: every side's texture vectors as the texinfo's (where they can project onto it)" \
        test "$(field $m.vmf sides_axes_match)" = "$(( $(field $m.vmf sides) - $(field $m.vmf sides_axes_unusable) ))"
done
# BSPSource's test maps list their tool textures in worldspawn "textureNames", one brush each:
# the tool brushes written must carry exactly those (vbsp shares one texinfo between nodraw sides,
# so most of them come back from the brushes' contents)
for m in csgo_v21_bspsrc_tooltextures gmod_v20_bspsrc_tooltextures; do
    "$CLI" entities "$SRC/$m.bsp" --json > "$WORK/$m.ents.json"
    if python3 - "$WORK/$m.ents.json" "$WORK/$m.vmf" <<'PYEOF'
import json, re, sys
ents = json.load(open(sys.argv[1]))
names = sorted(re.split(r'[ ;]+', dict(ents[0])['textureNames'].lower()))
text = open(sys.argv[2]).read()
got = []
for solid in re.findall(r'\tsolid\n\t\{(.*?)\n\t\}\n', text, re.S):
    mats = set(m.lower() for m in re.findall(r'"material" "([^"]*)"', solid))
    if all(m.startswith('tools/') for m in mats) and len(mats) == 1:
        got.append(mats.pop())
got.sort()
if got != names:
    print('tool brushes: want %s\n got %s' % (names, got), file=sys.stderr)
    sys.exit(1)
PYEOF
    then ok; else fail "$m: tool materials as textureNames lists them"; fi
done
# what the brush lumps do not hold (check.py rebuilt and compared them: displacement vertices from
# the written dispinfo within 0.01 units of the map's, every static prop's fields, overlay side ids)
m=tf2_v20_bsp_tool_test2.vmf
check "displacements rebuilt from the written dispinfo" test "$(field $m displacements_within_001)" = "$(field $m displacements)" -a "$(field $m displacements)" -gt 0
check "every static prop written with its fields" test "$(field $m static_props_same)" = "$(field $m static_props)" -a "$(field $m static_props)" -gt 0
check "info_overlay written, naming written sides" test "$(field $m overlays)" -gt 0
check "a connections block for outputs" grep -q $'^\tconnections$' "$WORK/tf2_v20_bsp_tool_test2.vmf"
check "detail brushes in a func_detail" grep -q '"classname" "func_detail"' "$WORK/tf2_v20_bsp_tool_test2.vmf"

# many maps into a folder (as convert does them): each written as a single decompile writes it,
# a map that cannot be decompiled reported while the others are written
rm -rf "$WORK/batch"; mkdir -p "$WORK/batch"
echo "not a map" > "$WORK/batch/bad.bsp"
expect_exit 1 "$CLI" decompile "$SRC/tf2_v20_bsp_tool_test2.bsp" "$SRC/gmod_v20_bspsrc_tooltextures.bsp" "$WORK/batch/bad.bsp" \
    -o "$WORK/batch/out/" -j 2 --json
cp "$WORK/.out" "$WORK/batch.jsonl"
check "batch: the two maps written as a single decompile writes them" \
    cmp "$WORK/batch/out/tf2_v20_bsp_tool_test2.vmf" "$WORK/tf2_v20_bsp_tool_test2.vmf"
check "batch: the second map" test -s "$WORK/batch/out/gmod_v20_bspsrc_tooltextures.vmf"
check "batch: --json one line per map, the bad one failed" python3 -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
ok = sorted(r["ok"] for r in rows) == [False, True, True] and all(r["output"].endswith(".vmf") for r in rows if r["ok"])
sys.exit(0 if ok else 1)' "$WORK/batch.jsonl"
check "batch: nothing written for the bad map" test ! -e "$WORK/batch/out/bad.vmf" -a ! -e "$WORK/batch/out/bad.map"

# ---- Quake 3 --------------------------------------------------------------------------------
need_dir "$FETCHED/q3"
q3maps=$(ls "$FETCHED"/q3/oa081/aggressor.bsp "$FETCHED"/q3/nexuiz/basement.bsp "$FETCHED"/q3/nexuiz/aggressor.bsp 2>/dev/null)
[[ -n $q3maps ]] || bk_skip "no Quake 3 map under $FETCHED/q3"
for map in $q3maps; do
    n=$(basename "$(dirname "$map")")_$(basename "$map" .bsp)
    decompile_check "$map" "$WORK/$n.map"
    check "$n: every side's shader is its lump's" test "$(field $n.map sides_right_material)" = "$(field $n.map sides)"
    # the st of the drawn triangles lying on a written side with their shader, from the side's
    # written texture matrix: at least 99% (the others are decals, models, back shaders)
    check "$n: drawn triangles' st from the written matrices" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
sys.exit(0 if r["triangles_st_match"] >= 0.99 * r["triangles_on_side"] and r["triangles_on_side"] > 0 else 1)' "$WORK/$n.map.json"
done
map1=$(echo "$q3maps" | head -1)
"$CLI" decompile "$map1" -o "$WORK/j.map" --json > "$WORK/j.json" 2>/dev/null
check "--json: brushes as written" test "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["brushes"])' "$WORK/j.json")" \
    = "$(field "$(basename "$(dirname "$map1")")_$(basename "$map1" .bsp).map" brushes_written)"
# drawn triangles no written side explains (misc_model geometry, decals): counted, reported once
# per model with a surface index; on kaos, whose entity lump kept its misc_models (q3map2 strips
# them by default), each misc_model is written with its model path, so a recompile bakes it again
if [[ -f $FETCHED/q3/oa081/kaos.bsp ]]; then
    "$CLI" decompile "$FETCHED/q3/oa081/kaos.bsp" -o "$WORK/kaos.map" --json > "$WORK/kaos.json" 2> "$WORK/kaos.err"
    check "kaos: unwritten triangles counted" python3 -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["triangles_unwritten"] > 0 else 1)' "$WORK/kaos.json"
    check "kaos: unwritten triangles reported at a surface" grep -q 'surfaces\[[0-9]*\]: warning: model \*0: [0-9]* drawn triangles' "$WORK/kaos.err"
    "$CLI" entities "$FETCHED/q3/oa081/kaos.bsp" --json > "$WORK/kaos.ents.json"
    check "kaos: every misc_model written with its model path" python3 - "$WORK/kaos.ents.json" "$WORK/kaos.map" <<'PYEOF'
import json, re, sys
ents = [dict(e) for e in json.load(open(sys.argv[1]))]   # each entity a list of [key, value]
want = sorted(e['model'] for e in ents if e.get('classname') == 'misc_model')
text = open(sys.argv[2], encoding='latin-1').read()
got = sorted(re.search(r'"model" "([^"]*)"', b).group(1) for b in re.findall(r'\{\n([^{}]*"classname" "misc_model"[^{}]*)\}', text))
sys.exit(0 if want and want == got else 1)
PYEOF
fi

# a brush whose planes enclose nothing: brush 3's first side given a plane of its own, facing the
# same way 100000 units back, behind the brush's opposite side. Reported with its index and left
# out; the rest written.
python3 - "$map1" "$WORK/empty.bsp" <<'PYEOF'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
lumps = [list(struct.unpack_from('<ii', d, 8 + 8 * i)) for i in range(17)]
po, pl = lumps[2]; bo, bl = lumps[8]; so = lumps[9][0]
first, num, _ = struct.unpack_from('<3i', d, bo + 12 * 3)
plane, shader = struct.unpack_from('<2i', d, so + 8 * first)
n = struct.unpack_from('<4f', d, po + 16 * plane)
new = struct.pack('<4f', n[0], n[1], n[2], n[3] - 100000.0)
planes = bytes(d[po:po + pl]) + new
at = len(d)
d += planes
struct.pack_into('<ii', d, 8 + 8 * 2, at, len(planes))
struct.pack_into('<i', d, so + 8 * first, pl // 16)
open(sys.argv[2], 'wb').write(d)
PYEOF
decompile_check "$WORK/empty.bsp" "$WORK/empty.map"
check "the empty brush reported with its index" grep -q 'brushes\[3\].*enclose nothing.*left out' "$WORK/empty.map.err"
check "the empty brush not written" bash -c "! grep -q '(brushes\[3\])' '$WORK/empty.map'"
check "the brushes after it written" grep -q '(brushes\[4\])' "$WORK/empty.map"

# ---- refusals and all-or-nothing ----------------------------------------------------------------
expect_exit 1 "$CLI" decompile "$CORPUS/wad3/ericw_hl_currents.wad" -o "$WORK/wad.map"
check "a family without brushes: not supported yet" grep -q 'not supported yet for wad3' "$WORK/.err"
check "nothing written for it" test ! -e "$WORK/wad.map"
expect_exit 1 "$CLI" decompile "$map1" -o "$WORK/q3.vmf"
check "a Quake 3 map is not written as .vmf" grep -q 'decompiles to .map' "$WORK/.err"
expect_exit 2 "$CLI" decompile "$map1" -o "$WORK/x.txt"
expect_exit 2 "$CLI" decompile "$map1"
expect_exit 1 "$CLI" decompile "$map1" -o "$WORK/no/such/dir/x.map"
check "no folder made for a failed write" test ! -e "$WORK/no"
# a map that does not load leaves the previous output as it was
cp "$WORK/j.map" "$WORK/keep.map"
head -c 5000 "$map1" > "$WORK/cut.bsp"
expect_exit 1 "$CLI" decompile "$WORK/cut.bsp" -o "$WORK/keep.map"
check "a failed decompile leaves OUT as it was" cmp -s "$WORK/j.map" "$WORK/keep.map"
check "no temporaries left" test -z "$(find "$WORK" -name '.*.tmp')"
bk_done
