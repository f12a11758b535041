#!/usr/bin/env bash
# GoldSrc's sky: the engine draws the sky box gfx/env/NAME{rt,bk,lf,ft,up,dn}.tga there (worldspawn's
# skyname), never the map's "sky" texture. Without those images (a CS 1.6 map without the game's
# gfx/env) a view of the sky alone is the neutral sky colour (sRGB 150 165 185), not black nor the
# WAD's placeholder, with a warning naming the six files looked for; with them, no such warning.
# The glTF's sky material carries that colour (extras.sky "faces"), which the web page and the
# Blender add-on draw.
source "$BK_TESTS/lib.sh"
bk_init "$@"
PY=/usr/bin/python3
$PY -c 'import numpy' 2>/dev/null || bk_skip "python3-numpy missing (scripts/install-deps --test)"
M=$CORPUS/goldsrc/cs16_fy_snow.bsp
need_file "$M"
eye=$("$CLI" entities "$M" --json | $PY -c "
import json, sys
for e in json.load(sys.stdin):
    d = dict(e)
    if d.get('classname', '').startswith('info_player'): print(d['origin']); break")
# from the first spawn straight up: the sky alone (fy_snow is open above)
"$CLI" render "$M" --eye $eye --yaw 0 --pitch -89 --size 160x120 -o "$WORK/up.png" 2>"$WORK/up.err" || fail "render the sky"
if $PY "$BK_TESTS/tools/render_check.py" colour "$WORK/up.png" 150 165 185 3 >"$WORK/c"; then ok
else fail "the sky alone is not the neutral sky colour: $(cat "$WORK/c")"; fi
for f in rt bk lf ft up dn; do
    check "the warning names gfx/env/snow$f.tga" grep -q "warning: sky snow: .*gfx/env/snow$f.tga" "$WORK/up.err"
done
# the same sky in the glTF the web page and Blender read
"$CLI" convert "$M" -o "$WORK/m.gltf" 2>/dev/null || fail "convert"
check "the glTF's sky material is the neutral colour, marked sky" $PY -c "
import json, sys
g = json.load(open('$WORK/m.gltf'))
m = [m for m in g['materials'] if m.get('extras', {}).get('sky') == 'faces']
c = m and m[0]['pbrMetallicRoughness']['baseColorFactor']
sys.exit(not (len(m) == 1 and 'baseColorTexture' not in m[0]['pbrMetallicRoughness'] and
              all(abs(a - b) < 1e-3 for a, b in zip(c, [0.305, 0.376, 0.485, 1])) and m[0]['extras'].get('skyname') == 'snow'))"
# with the sky box's images in the game folder: no warning
mkdir -p "$WORK/game/gfx/env" "$WORK/game/maps"
for f in rt bk lf ft up dn; do printf 'x' > "$WORK/game/gfx/env/snow$f.tga"; done
cp "$M" "$WORK/game/maps/"
"$CLI" render "$WORK/game/maps/$(basename "$M")" --eye $eye --yaw 0 --pitch -89 --size 32x24 -o "$WORK/up2.png" 2>"$WORK/up2.err" ||
    fail "render in a game folder"
check "with gfx/env/snow*.tga in the game folder: no sky warning" bash -c "! grep -q 'warning: sky' '$WORK/up2.err'"
(( FAILS )) && cat "$WORK/up.err" >&2
bk_done
