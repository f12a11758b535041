#!/usr/bin/env bash
# Queries on real maps of every BSP family, checked by independent code (query_check.py:
# spawns in open leaves over a floor, PVS rows against a decoder written in the test, traces
# against a ray cast on the exported triangles), and hostile uses of the CLI.
source "$BK_TESTS/lib.sh"
bk_init "$@"
need_numpy
corpus_maps
# a spread of Quake 3 maps (OpenArena 0.8.1 and 0.8.8, Nexuiz) when the fetched corpus is there
for f in "$FETCHED"/q3/oa081/{oa_dm1,oa_ctf2,aggressor,q3dm6ish,kaos2}.bsp "$FETCHED"/q3/oa088/{oa_bases7,slimefac}.bsp \
         "$FETCHED"/q3/nexuiz/{toxic,ons-reborn,downer,desertfactory}.bsp; do
    need_file "$f"; maps+=("$f")
done
if /usr/bin/python3 "$BK_TESTS/query/query_check.py" "$CLI" "$WORK/check" "${maps[@]}" > "$WORK/check.log"; then ok
else fail "query_check.py (see below)"; fi
grep -v '^  differ' "$WORK/check.log" | tail -n 60

# the CLI: usage errors, files without trees, models and hulls out of range
lost=$CORPUS/goldsrc/ns_ns_lost.bsp
expect_exit 2 "$CLI" query "$lost"
expect_exit 2 "$CLI" trace "$lost" --from 0 0 0
expect_exit 2 "$CLI" query "$lost" --point 1 2
expect_exit 2 "$CLI" trace "$lost" --from 0 0 0 --to 1 1 x
expect_exit 2 "$CLI" trace "$lost" --from 0 0 0 --to 1 1 1 --mask nonsense
expect_exit 2 "$CLI" trace "$lost" --from 0 0 0 --to 1 1 1 --hull 4
expect_exit 1 "$CLI" query "$lost" --point 0 0 0 --model 100000
expect_exit 1 "$CLI" query "$CORPUS/wad3/ns_lost.wad" --point 0 0 0
expect_stderr_has "not supported for wad3" "$CLI" query "$CORPUS/wad3/ns_lost.wad" --point 0 0 0
expect_exit 1 "$CLI" trace "$CORPUS/source/css_v19_gg_aim_shotty.bsp" --from 0 0 0 --to 1 1 1 --hull 1
# batch: a bad line is reported in place and the others still answered
printf '1344 -2560 672\nnot a point\n1344 -2560 672 1344 -2560 0\n' | "$CLI" query "$lost" --batch > "$WORK/b.out"
check "batch answers every line" test "$(wc -l < "$WORK/b.out")" -eq 3
check "batch reports the bad line" grep -q '"line":2,"error"' "$WORK/b.out"
check "batch answers line of sight" grep -q '"visible":' "$WORK/b.out"
printf '1344 -2560 672 1344 -2560 0\n' | "$CLI" trace "$lost" --batch --hull 1 > "$WORK/t.out"
check "hull 1 stands 36 units over the floor at 576" grep -q '"endpos":\[1344,-2560,612.03125\]' "$WORK/t.out"
printf '1344 -2560 672 1344 -2560 0\n' | "$CLI" trace "$lost" --batch --mins -16 -16 -18 --maxs 16 16 18 > "$WORK/t.out"
check "a crouching box picks hull 3" grep -q '"endpos":\[1344,-2560,594.03125\]' "$WORK/t.out"
# collision as data: convert --collision on a map of each family, checked against traces
cmaps=("$CORPUS/goldsrc/cs16_aim_map.bsp" "$CORPUS/goldsrc/ns_ns_lost.bsp" "$CORPUS/quake1/progs_dump_start.bsp"
       "$CORPUS/source/css_v19_gg_aim_shotty.bsp" "$CORPUS/source/tf2c_v20_dom_lithium.bsp")
for f in "$FETCHED"/q3/oa081/{oa_dm1,aggressor}.bsp "$FETCHED"/q3/nexuiz/toxic.bsp; do need_file "$f"; cmaps+=("$f"); done
if /usr/bin/python3 "$BK_TESTS/query/collision_check.py" "$CLI" "$WORK/col" "${cmaps[@]}" > "$WORK/col.log"; then ok
else fail "collision_check.py"; fi
tail -n 12 "$WORK/col.log"
"$CLI" convert "$CORPUS/goldsrc/cs16_aim_map.bsp" -o "$WORK/col.glb" --collision -q
check "the collision glTF passes the Khronos validator" gltf_validate "$WORK/col.glb"
bk_done
