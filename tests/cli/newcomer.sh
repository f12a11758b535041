#!/usr/bin/env bash
# What a new user hit, each fixed and kept fixed: validate reads ARCHIVE.pk3:member as every other
# command does; an edit refuses to write a map under a .glb name (unless --force); batch convert
# -v / --json report per file what a single convert reports (missing textures, the WADs a map
# names, prop models); a static prop whose model is missing is a located warning, not silence;
# -q prints no warning; joined paths have no '//'; convert --help says the Quake 3 overbright
# default depends on the game. The synthetic Quake 3 map first (no corpus needed), then the corpus.
source "$BK_TESTS/lib.sh"
bk_init "$@"
S=$BK_TESTS/q3/data/synthetic.bsp
PY=/usr/bin/python3

# validate ARCHIVE.pk3:maps/NAME.bsp
$PY -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[2], "w").write(sys.argv[1], "maps/syn.bsp")' "$S" "$WORK/maps.pk3"
expect_exit 0 "$CLI" validate "$WORK/maps.pk3:maps/syn.bsp"
check "validate names the member and its format" grep -q "maps.pk3:maps/syn.bsp: ok (quake3)" "$WORK/.out"
expect_exit 0 "$CLI" validate --json "$WORK/maps.pk3:maps/syn.bsp"
check "validate --json: the member is valid" grep -q '"valid":[[:space:]]*true' "$WORK/.out"
expect_exit 1 "$CLI" validate "$WORK/maps.pk3:maps/nosuch.bsp"
check "a missing member is named" grep -q "no member 'maps/nosuch.bsp'" "$WORK/.err"

# an edit writes a map: not under a .glb name, unless forced
"$CLI" entities "$S" > "$WORK/s.ent"
expect_exit 2 "$CLI" entities "$S" --import "$WORK/s.ent" -o "$WORK/e.glb"
check "entities --import -o X.glb says why" grep -q "the output is a map (BSP)" "$WORK/.err"
check "entities --import -o X.glb writes nothing" test ! -e "$WORK/e.glb"
expect_exit 0 "$CLI" entities "$S" --import "$WORK/s.ent" -o "$WORK/e.BSP"
expect_exit 0 "$CLI" entities "$S" --import "$WORK/s.ent" -o "$WORK/e.glb" --force
check "--force writes the map anyway" cmp -s "$WORK/e.BSP" "$WORK/e.glb"

# paths joined without '//': a folder given with a trailing '/', an output folder with one
mkdir -p "$WORK/in"; cp "$S" "$WORK/in/syn.bsp"
expect_exit 0 "$CLI" convert "$WORK/in/" -o "$WORK/out/" --json
check "batch inputs of a folder/ have no '//'" bash -c "! grep -q '//' '$WORK/.out'"
check "batch --json names the input" grep -q "\"input\":\"$WORK/in/syn.bsp\"" "$WORK/.out"

# batch -v / --json say what a single convert says is missing
check "batch --json: warnings name the missing texture" grep -q '"warnings":\["1 of 1 materials have no texture: textures/test/wall"' "$WORK/.out"
expect_exit 0 "$CLI" convert "$WORK/in/syn.bsp" -o "$WORK/out2/" -v
check "batch -v: the missing texture, per file" grep -q "^$WORK/in/syn.bsp: 1 of 1 materials have no texture: textures/test/wall" "$WORK/.out"
check "batch -v: where it looked" grep -q "^$WORK/in/syn.bsp: looked beside the map only" "$WORK/.out"

# convert --help: the Quake 3 default depends on the game
expect_stdout_has "2 for ioquake3 games" "$CLI" convert --help
expect_stdout_has "1 for DarkPlaces" "$CLI" convert --help

# ---- on the corpus ---------------------------------------------------------------------------
CUBE=$CORPUS/quake1/ericw_q1_cube.bsp
LOST=$CORPUS/goldsrc/ns_ns_lost.bsp
PROPS=$CORPUS/source/tf2_v20_bsp_tool_test2.bsp
need_file "$CUBE" "$LOST" "$PROPS" "$CORPUS/wad3/ns_lost.wad"
# -q: nothing but errors (this map has a located warning)
expect_stderr_has "warning" "$CLI" convert "$CUBE" -o "$WORK/cube.glb"
expect_exit 0 "$CLI" convert "$CUBE" -o "$WORK/cube.glb" -q
check "-q prints no warning" test ! -s "$WORK/.err"
check "-q prints nothing" test ! -s "$WORK/.out"
# -q on the writers too: a map written back, a DPM saved
expect_exit 0 "$CLI" convert "$CUBE" -o "$WORK/cube_again.bsp" -q
check "-q: writing a map back prints nothing" test ! -s "$WORK/.out"
DPM=$BK_TESTS/dpm/synth.dpm
expect_exit 0 "$CLI" convert "$DPM" -o "$WORK/synth_again.dpm" -q
check "-q: saving a DPM prints nothing" test ! -s "$WORK/.out"
expect_exit 0 "$CLI" convert "$DPM" -o "$WORK/synth_again.dpm"
check "without -q the DPM save is reported" grep -q "wrote $WORK/synth_again.dpm" "$WORK/.out"
# textures -o DIR/: the paths printed have no '//'
expect_exit 0 "$CLI" textures "$CORPUS/wad3/ns_lost.wad" -o "$WORK/tex/"
check "textures -o DIR/ prints DIR/NAME.png" bash -c "grep -q '^$WORK/tex/[^/]*\.png ' '$WORK/.out' && ! grep -q '//' '$WORK/.out'"
# a Source map whose prop models are not there: one located warning per model
nmodels=$("$CLI" props "$PROPS" | sed -n 's/^static props: [0-9]* .*, \([0-9]*\) models$/\1/p')
expect_exit 0 "$CLI" convert "$PROPS" -o "$WORK/props.glb"
nwarn=$(grep -c '^[^ ]*tf2_v20_bsp_tool_test2.bsp: sprp: warning: static prop model models/.*\.mdl: not found' "$WORK/.err")
check "a located warning per missing prop model ($nwarn of $nmodels)" test "$nwarn" = "$nmodels" -a "${nmodels:-0}" -gt 0
expect_exit 0 "$CLI" convert "$PROPS" "$LOST" -o "$WORK/bout/" --json
check "batch --json: prop model warnings" grep -q '"input":"[^"]*tf2_v20_bsp_tool_test2.bsp".*"warnings":\[[^]]*static prop model models/' "$WORK/.out"
check "batch --json: the WADs the map names" grep -q '"input":"[^"]*ns_ns_lost.bsp".*"warnings":\[[^]]*the map names these WADs: halflife.wad ns.wad' "$WORK/.out"
expect_exit 0 "$CLI" convert "$PROPS" "$LOST" -o "$WORK/bout/" -v
check "batch -v: prop model warnings" grep -q 'tf2_v20_bsp_tool_test2.bsp: sprp: warning: static prop model' "$WORK/.err"
check "batch -v: the WADs the map names" grep -q 'ns_ns_lost.bsp: the map names these WADs: halflife.wad ns.wad' "$WORK/.out"
expect_exit 0 "$CLI" convert "$PROPS" "$LOST" -o "$WORK/bout/"
# (two files: the props map's models, and ns_ns_lost's sky box images, gfx/env/, not found)
check "batch: a count of warnings and where to see them" grep -q 'warnings in 2 files (-v lists them' "$WORK/.out"
# pak add / remove write a map: not under a .glb name
echo hi > "$WORK/hi.txt"
expect_exit 2 "$CLI" pak "$PROPS" add "x/hi.txt=$WORK/hi.txt" -o "$WORK/p.glb"
check "pak add -o X.glb says why" grep -q "the output is a map (BSP)" "$WORK/.err"
check "pak add -o X.glb writes nothing" test ! -e "$WORK/p.glb"
expect_exit 0 "$CLI" pak "$PROPS" add "x/hi.txt=$WORK/hi.txt" -o "$WORK/p.bsp"
bk_done
