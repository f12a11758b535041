#!/usr/bin/env bash
# Cross-check with the engine itself: darkplaces-server's +modeldecompile writes the base pose of a
# DPM as OBJ; every vertex must match bspkit's frame-0 skinning. Skipped without the engine.
# args: CLI SHARED FETCHED WORK
source "$BK_TESTS/lib.sh"
bk_init "$@"
D=$FETCHED/dpm
need_dir "$D"
DP=$(command -v darkplaces-server || echo /usr/games/darkplaces-server)
[[ -x $DP ]] || { echo "SKIP: darkplaces-server not installed"; exit 77; }
mkdir -p "$WORK/base/data/models" "$WORK/user"
for m in "$D"/*.dpm; do
    n=$(basename "$m" .dpm)
    cp "$m" "$WORK/base/data/models/"
    timeout 60 "$DP" -nexuiz -basedir "$WORK/base" -userdir "$WORK/user" +modeldecompile "models/$n.dpm" +quit \
        > "$WORK/$n.log" 2>&1
    obj=$WORK/user/data/models/${n}_decompiled.obj
    check "$n: darkplaces wrote an OBJ" test -f "$obj"
    [[ -f $obj ]] || continue
    "$DPM_DUMP" "$m" 0:0:0 > "$WORK/$n.dump"
    check "$n: base pose matches darkplaces" python3 - "$obj" "$WORK/$n.dump" <<'PY'
import sys
# darkplaces writes "v x z y" per vertex, meshes in order; the dump has engine x y z
dp = [tuple(map(float, l.split()[1:4])) for l in open(sys.argv[1]) if l.startswith('v ')]
ours = [tuple(map(float, l.split()[3:6])) for l in open(sys.argv[2]) if l.startswith('v ')]
worst = max((max(abs(a[0] - b[0]), abs(a[1] - b[2]), abs(a[2] - b[1])) for a, b in zip(dp, ours)), default=1e9)
print(f'{sys.argv[1]}: {len(dp)} vertices, max difference {worst:.2e}')
sys.exit(0 if len(dp) == len(ours) and worst < 1e-3 else 1)
PY
done
bk_done
