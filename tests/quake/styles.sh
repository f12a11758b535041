#!/usr/bin/env bash
# Light styles (issue 42) on the corpus maps whose faces carry them: progs_dump_start (styles 2
# and 5), progs_dump_pd_breakables (6, 11), vektar_bg (2), dod_snowtest_test_small (1), ns_ns_lost
# (1), ns_co_core (switchable 32, light worklite1). Checked by a reader of its own
# (tests/tools/atlas_check.py reads the BSP and the .glb):
#  - each style's layer holds, at every lit face's rectangle, the lump's bytes for that style as
#    stored, and black where the face lacks it (so a face's layers are exactly its styles);
#  - the atlas is the face's styles summed, each at its value at rest, / 264 x the gain, clamped;
#  - the values at rest are the stock patterns' first letters (world.qc: style 2 'a' = 0, 5 'j' =
#    198, 6 'n' = 286, 11 'a' = 0) and the switchable style is its light's: on (264), targetname;
#  - on a progs_dump_start face with styles 0 and 5 the atlas is brighter than style 0 alone;
#  - render: --style 32=off darkens ns_co_core seen from its light; progs_dump_start at two
#    times differs (a flicker); bad --style / --time values are usage errors;
#  - the styled .glb files pass the Khronos validator.
source "$BK_TESTS/lib.sh"
bk_init "$@"
need_numpy
PY=/usr/bin/python3
maps=(quake1/progs_dump_start quake1/progs_dump_pd_breakables quake1/vektar_bg goldsrc/dod_snowtest_test_small
      goldsrc/ns_ns_lost goldsrc/ns_co_core)
pairs=()
for m in "${maps[@]}"; do
    need_file "$CORPUS/$m.bsp"
    out="$WORK/$(basename "$m").glb"
    if "$CLI" convert "$CORPUS/$m.bsp" -o "$out" --no-textures -q 2>"$WORK/err"; then ok; pairs+=("$CORPUS/$m.bsp" "$out")
    else fail "convert $m: $(head -1 "$WORK/err")"; fi
done
if $PY "$BK_TESTS/tools/atlas_check.py" "${pairs[@]}" >"$WORK/atlas.txt"; then ok
else fail "atlas / layers against the lump: $(grep FAIL "$WORK/atlas.txt" | head -3)"; fi
cat "$WORK/atlas.txt"
# a layer checked per style of each map: as many as the styles its faces carry
check "layers: 3 + 3 + 1 + 2 + 2 + 2" test "$(grep -c '^ok .* layer style' "$WORK/atlas.txt")" = 13

check "the styles' values at rest, the switchable light's targetname" $PY - "$WORK" <<'PYEOF'
import json, struct, sys
def scene_extras(name):
    d = open(f'{sys.argv[1]}/{name}.glb', 'rb').read()
    j = json.loads(d[20:20 + struct.unpack_from('<I', d, 12)[0]])
    return j['scenes'][0]['extras'], j
want = {'progs_dump_start': {'0': 264, '2': 0, '5': 198}, 'progs_dump_pd_breakables': {'0': 264, '6': 286, '11': 0},
        'vektar_bg': {'2': 0}, 'dod_snowtest_test_small': {'0': 264, '1': 264}, 'ns_ns_lost': {'0': 264, '1': 264},
        'ns_co_core': {'0': 264, '32': 264}}
bad = 0
for name, w in want.items():
    ex, j = scene_extras(name)
    got = {k: v['restValue'] for k, v in ex['lightStyles'].items()}
    if got != w:
        print(name, 'rest values', got, 'want', w); bad += 1
    used = sorted({s for m in j['materials'] for s in m.get('extras', {}).get('lightStyles', [])})
    if used != sorted(int(k) for k in w):
        print(name, 'materials carry', used); bad += 1
sw = scene_extras('ns_co_core')[0]['lightStyles']['32']
if sw.get('targetname') != 'worklite1' or sw.get('pattern') != 'm' or sw.get('startOff'):
    print('ns_co_core style 32', sw); bad += 1
if scene_extras('progs_dump_start')[0]['lightStyles']['2']['pattern'] != 'abcdefghijklmnopqrstuvwxyzyxwvutsrqponmlkjihgfedcba':
    bad += 1
sys.exit(bad)
PYEOF

# the atlas on faces with styles 0 and 5 (5 at 'j' at rest) against style 0 alone through Quake's
# range (x 264/256, rounded): brighter wherever style 5 gives light
check "styles 0 + 5 brighter than style 0 alone" $PY - "$WORK/progs_dump_start.glb" "$BK_TESTS/tools" <<'PYEOF'
import sys
sys.path.insert(0, sys.argv[2])
import numpy as np
from atlas_check import load_glb, glb_image
j, b = load_glb(sys.argv[1])
m = next(m for m in j['materials'] if m.get('extras', {}).get('lightStyles') == [0, 5])
base = glb_image(j, b, m['occlusionTexture']['index']).astype(np.int32)
l0, l5 = (glb_image(j, b, t).astype(np.int32) for t in m['extras']['lightStyleTextures'])
lit5 = (l5 > 8).any(axis=2)
alone = np.minimum(255, np.floor(l0 * 264 / 256 + 0.5))
brighter = (base > alone).all(axis=2)[lit5].mean()
print(f'{lit5.sum()} texels with style 5: {brighter:.3f} brighter, mean {base[lit5].mean():.1f} vs {alone[lit5].mean():.1f}')
sys.exit(0 if lit5.sum() > 1000 and brighter > 0.95 else 1)
PYEOF

mean() { $PY -c "
import sys; sys.path.insert(0, '$BK_TESTS/tools')
from render_check import rgb
print(rgb('$1').astype(float).mean())"; }
CO=$CORPUS/goldsrc/ns_co_core.bsp
view=(--eye -689 -841 2150 --yaw 317 --pitch 30 --size 160x120)   # worklite1, looking where it shines
"$CLI" render "$CO" "${view[@]}" -o "$WORK/on.png" 2>/dev/null || fail "render ns_co_core"
"$CLI" render "$CO" "${view[@]}" --style 32=off -o "$WORK/off.png" 2>/dev/null || fail "render ns_co_core 32=off"
"$CLI" render "$CO" "${view[@]}" --style 32=on -o "$WORK/on2.png" 2>/dev/null || fail "render ns_co_core 32=on"
on=$(mean "$WORK/on.png"); off=$(mean "$WORK/off.png")
echo "ns_co_core from worklite1: mean $on at rest, $off with --style 32=off"
check "--style 32=off darkens ns_co_core (less than half)" $PY -c "import sys; sys.exit(not ($off < 0.5 * $on))"
check "--style 32=on is the map at rest" cmp -s "$WORK/on.png" "$WORK/on2.png"
ST=$CORPUS/quake1/progs_dump_start.bsp
"$CLI" render "$ST" --size 160x120 -o "$WORK/t0.png" 2>/dev/null || fail "render progs_dump_start"
"$CLI" render "$ST" --size 160x120 --time 0 -o "$WORK/t0b.png" 2>/dev/null || fail "render --time 0"
"$CLI" render "$ST" --size 160x120 --time 1.3 -o "$WORK/t13.png" 2>/dev/null || fail "render --time 1.3"
check "--time 0 is the map at rest" cmp -s "$WORK/t0.png" "$WORK/t0b.png"
check "at 1.3 s the styles have moved on" $PY -c "import sys; sys.exit(not ($(mean "$WORK/t13.png") > $(mean "$WORK/t0.png")))"
"$CLI" render "$ST" --size 160x120 --style 2=a --style 5=a --style 0=a -o "$WORK/dark.png" 2>/dev/null || fail "all styles 'a'"
check "every style at 'a': the lit faces are black" $PY -c "import sys; sys.exit(not ($(mean "$WORK/dark.png") < 0.3 * $(mean "$WORK/t0.png")))"
expect_exit 2 "$CLI" render "$ST" -o "$WORK/x.png" --style 2=ABC
expect_exit 2 "$CLI" render "$ST" -o "$WORK/x.png" --style 300=on
expect_exit 2 "$CLI" render "$ST" -o "$WORK/x.png" --style 2
expect_exit 2 "$CLI" render "$ST" -o "$WORK/x.png" --time -1
"$CLI" render "$ST" --size 32x32 --style 40=off -o "$WORK/x.png" 2>"$WORK/note" || fail "a style no face carries"
check "a style no face carries is said" grep -q "no face carries light style 40" "$WORK/note"

if command -v node >/dev/null && [[ -d $BK_TESTS/tools/node_modules/gltf-validator ]]; then
    check "the styled .glb files pass the Khronos validator" gltf_validate "$WORK"/*.glb
else
    echo "note: the Khronos validator is not installed (scripts/install-deps --test): not validated"
fi
bk_done
