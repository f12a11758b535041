#!/usr/bin/env bash
# Every real DPM of the fetched corpus: validate, counts vs the Python reader, skinning of sample
# frames vs the Python reader, glTF export (validator, skin, animations), OBJ, the saver.
# args: CLI SHARED FETCHED WORK
source "$BK_TESTS/lib.sh"
bk_init "$@"
D=$FETCHED/dpm
need_dir "$D"
REF="python3 $BK_TESTS/dpm/dpmref.py"
models=("$D"/*.dpm)
check "corpus has models" test "${#models[@]}" -ge 1
expect_exit 0 "$CLI" validate --quiet "${models[@]}"
glbs=()
: > "$WORK/models.tsv"
for m in "${models[@]}"; do
    n=$(basename "$m" .dpm)
    "$CLI" info --json "$m" > "$WORK/$n.json" || fail "info $n"
    "$DPM_DUMP" "$m" 0:0:0 1:1:0 last:last:0 1:2:0.5 last:0:0.3 > "$WORK/$n.dump"
    printf '%s\t%s\t%s\n' "$m" "$WORK/$n.json" "$WORK/$n.dump" >> "$WORK/models.tsv"
    expect_exit 0 "$CLI" convert -q "$m" -o "$WORK/$n.glb"
    glbs+=("$WORK/$n.glb")
    expect_exit 0 "$CLI" convert "$m" -o "$WORK/$n.resaved.dpm"
    expect_exit 0 "$CLI" validate "$WORK/$n.resaved.dpm"
done
# counts and skinning of every model against dpmref.py, in one Python process
$REF check-all "$WORK/models.tsv" > "$WORK/ref.txt" 2>&1 || fail "dpmref.py check-all: $(tail -2 "$WORK/ref.txt")"
while read -r verdict rest; do
    if [[ $verdict == PASS ]]; then ok; else fail "$rest"; fi
done < <(grep -E '^(PASS|FAIL) ' "$WORK/ref.txt")
check "every model compared" test "$(grep -c 'skinning agrees' "$WORK/ref.txt")" = "${#models[@]}"
check "all glTF files valid, with skins and animations" gltf_validate --require-skin --require-animation "${glbs[@]}"
expect_exit 0 "$CLI" convert "$D/spiderbot.dpm" -o "$WORK/spiderbot.obj"
check "obj base pose has every vertex" test "$(grep -c '^v ' "$WORK/spiderbot.obj")" -eq "$($REF counts "$D/spiderbot.dpm" | python3 -c 'import json,sys; print(json.load(sys.stdin)["vertices"])')"
# the glTF animation, evaluated like a viewer does, reproduces the DPM skinning of the frame each key
# shows (framegroups: spiderbot forward = frames 1.., h_uzi reload = 215..; names: top_anim = 1..)
GSC="python3 $BK_TESTS/dpm/gltf_skin_check.py"
"$DPM_DUMP" "$D/spiderbot.dpm" 11:11:0 > "$WORK/sb11.dump"
check "spiderbot forward key 10 = frame 11" $GSC "$WORK/spiderbot.glb" 0 10 "$WORK/sb11.dump"
"$DPM_DUMP" "$D/spiderbot.dpm" 10:10:0 > "$WORK/sb10.dump"
check "negative control: key 10 is not frame 10" bash -c "! $GSC '$WORK/spiderbot.glb' 0 10 '$WORK/sb10.dump'"
"$DPM_DUMP" "$D/spiderbot_top.dpm" 5:5:0 > "$WORK/st5.dump"
check "spiderbot_top top_anim key 4 = frame 5" $GSC "$WORK/spiderbot_top.glb" 1 4 "$WORK/st5.dump"
"$DPM_DUMP" "$D/h_uzi.dpm" 230:230:0 > "$WORK/uzi.dump"
check "h_uzi reload key 15 = frame 230" $GSC "$WORK/h_uzi.glb" 3 15 "$WORK/uzi.dump"
# framegroups: spiderbot has 6 named groups
expect_stdout_has "6 animations" "$CLI" convert "$D/spiderbot.dpm" -o "$WORK/sb.glb"
# a model inside a .pk3: its framegroups are found in the archive too
PK3=$FETCHED/pk3/nexuiz-data.pk3
need_file "$PK3"
expect_stdout_has "6 animations" "$CLI" convert "$PK3:models/spiderbot/spiderbot.dpm" -o "$WORK/pk3.glb"
# --keep-all-bones keeps attachment bones no vertex uses ("shot", "shell" on the h_* weapons)
bones() { "$CLI" info --json "$1" | sed -n 's/^[[:space:]]*"bones":[[:space:]]*\([0-9]*\),*$/\1/p'; }
for m in "$D"/h_*.dpm; do
    "$CLI" convert "$m" -o "$WORK/keep.dpm" --keep-all-bones >/dev/null 2>&1 || { fail "--keep-all-bones $m"; continue; }
    "$CLI" convert "$m" -o "$WORK/drop.dpm" >/dev/null 2>&1 || { fail "resave $m"; continue; }
    check "$m keeps every bone" test "$(bones "$WORK/keep.dpm")" -eq "$(bones "$m")"
    check "$m drops unused bones by default" test "$(bones "$WORK/drop.dpm")" -le "$(bones "$m")"
done
bk_done
