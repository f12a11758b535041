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
for m in "${models[@]}"; do
    n=$(basename "$m" .dpm)
    "$CLI" info --json "$m" > "$WORK/$n.json" || fail "info $n"
    want=$($REF counts "$m")
    check "$n: counts match the Python reader" python3 -c '
import json, sys
c = json.load(open(sys.argv[1]))["counts"]; w = json.loads(sys.argv[2])
sys.exit(0 if all(c[k] == v for k, v in w.items()) else 1)' "$WORK/$n.json" "$want"
    "$DPM_DUMP" "$m" 0:0:0 1:1:0 last:last:0 1:2:0.5 last:0:0.3 > "$WORK/$n.dump"
    check "$n: skinning agrees with dpmref.py" $REF skin "$m" "$WORK/$n.dump"
    expect_exit 0 "$CLI" convert -q "$m" -o "$WORK/$n.glb"
    glbs+=("$WORK/$n.glb")
    expect_exit 0 "$CLI" convert "$m" -o "$WORK/$n.resaved.dpm"
    expect_exit 0 "$CLI" validate "$WORK/$n.resaved.dpm"
done
check "all glTF files valid, with skins and animations" gltf_validate --require-skin --require-animation "${glbs[@]}"
expect_exit 0 "$CLI" convert "$D/spiderbot.dpm" -o "$WORK/spiderbot.obj"
check "obj base pose has every vertex" test "$(grep -c '^v ' "$WORK/spiderbot.obj")" -eq "$($REF counts "$D/spiderbot.dpm" | python3 -c 'import json,sys; print(json.load(sys.stdin)["vertices"])')"
# framegroups: spiderbot has 6 named groups
expect_stdout_has "6 animations" "$CLI" convert "$D/spiderbot.dpm" -o "$WORK/sb.glb"
bk_done
