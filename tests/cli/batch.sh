#!/usr/bin/env bash
# Batch conversion: many inputs (files, a folder, a .pk3 of maps) into a folder, in parallel, going
# on past a bad file, with one JSON object per file and a non-zero exit when any failed.
source "$BK_TESTS/lib.sh"
bk_init "$@"
need_file "$CORPUS"/goldsrc/cs16_aim_map.bsp "$CORPUS"/quake1/progs_dump_start.bsp "$CORPUS"/source/css_v20_gg_lego_arena_x.bsp \
    "$CORPUS"/goldsrc/dod_snowtest_test_small.bsp "$CORPUS/goldsrc/ns_co_core.bsp"
in=$WORK/in; mkdir -p "$in"
for f in "$CORPUS"/goldsrc/cs16_aim_map.bsp "$CORPUS"/quake1/progs_dump_start.bsp "$CORPUS"/source/css_v20_gg_lego_arena_x.bsp \
         "$CORPUS"/goldsrc/dod_snowtest_test_small.bsp; do cp "$f" "$in/"; done
head -c 5000 "$CORPUS/goldsrc/ns_co_core.bsp" > "$in/m_broken.bsp"     # a bad file in the middle (by name order)
n_in=$(ls "$in" | wc -l)
"$CLI" convert "$in" -o "$WORK/out/" -j 2 --json > "$WORK/b.json" 2> "$WORK/b.err"
rc=$?
check "exit 1 when one file failed" test $rc -eq 1
check "one JSON object per input" test "$(wc -l < "$WORK/b.json")" -eq "$n_in"
check "the bad file is reported with its error" grep -q '"input":"[^"]*m_broken.bsp","output":"","ok":false,"error":"[^"]*m_broken.bsp' "$WORK/b.json"
check "every good file was converted" test "$(grep -c '"ok":true' "$WORK/b.json")" -eq $((n_in - 1))
for f in cs16_aim_map progs_dump_start css_v20_gg_lego_arena_x dod_snowtest_test_small; do
    check "$f.glb written" test -s "$WORK/out/$f.glb"
done
check "the batch output is what a single convert writes" cmp -s "$WORK/out/progs_dump_start.glb" \
    <("$CLI" convert "$in/progs_dump_start.bsp" -o "$WORK/single.glb" >/dev/null && cat "$WORK/single.glb")
check "no progress bar when stderr is not a terminal" bash -c "! grep -q $'\r' '$WORK/b.err'"
gltf_validate "$WORK"/out/*.glb > "$WORK/v.log" 2>&1 && ok || { fail "validator on batch output"; tail -5 "$WORK/v.log" >&2; }
# the human summary, and --format
"$CLI" convert "$in"/cs16_aim_map.bsp "$in"/m_broken.bsp "$in"/progs_dump_start.bsp -o "$WORK/o2/" --format obj > "$WORK/s.txt" 2> "$WORK/s.err"
check "summary counts" grep -q 'converted 2 of 3 files' "$WORK/s.txt"
check "failures listed" grep -q 'm_broken.bsp' "$WORK/s.err"
check "--format obj" test -s "$WORK/o2/cs16_aim_map.obj"
# a .pk3 of maps
/usr/bin/python3 -c '
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1], "w")
for f in sys.argv[2:]: z.write(f, "maps/" + f.rsplit("/", 1)[-1])
z.close()' "$WORK/maps.pk3" "$in/cs16_aim_map.bsp" "$in/progs_dump_start.bsp"
expect_exit 0 "$CLI" convert "$WORK/maps.pk3" -o "$WORK/o3/" -j1
check "the pk3's maps converted" test -s "$WORK/o3/cs16_aim_map.glb" -a -s "$WORK/o3/progs_dump_start.glb"
expect_exit 2 "$CLI" convert "$WORK/maps.pk3" -o "$WORK/o4/" -j0
expect_exit 2 "$CLI" convert "$WORK/maps.pk3" -o "$WORK/o4/" -j2x
# members named ARCHIVE:MEMBER, on two workers: each job's archive joins its own search paths
# (a Quake 3 map reads them to tell the game; the shared list once crashed the batch)
/usr/bin/python3 -c '
import sys, zipfile
for p in sys.argv[2:]:
    with zipfile.ZipFile(p, "w") as z: z.write(sys.argv[1], "maps/q3syn.bsp")' "$BK_TESTS/q3/data/synthetic.bsp" "$WORK/q1.pk3" "$WORK/q2.pk3"
expect_exit 0 "$CLI" convert "$WORK/q1.pk3:maps/q3syn.bsp" "$WORK/q2.pk3:maps/Q3SYN.BSP" "$WORK/q1.pk3:maps/q3syn.bsp" -o "$WORK/o6/" -j 2 -q
check "archive members converted in a batch" test -s "$WORK/o6/q3syn.glb"
# --format bsp: batch rewrite, byte for byte
expect_exit 0 "$CLI" convert "$in/cs16_aim_map.bsp" "$in/progs_dump_start.bsp" -o "$WORK/o4/" --format bsp
check "batch rewrite is byte-identical" cmp -s "$in/cs16_aim_map.bsp" "$WORK/o4/cs16_aim_map.bsp"
expect_exit 2 "$CLI" convert "$in" -o "$WORK/o5/" --format png
bk_done
