#!/usr/bin/env bash
# The Blender add-on (blender/bspkit_blender), headless: installed from its zip as a user does
# (Preferences > Add-ons > Install, into a scratch BLENDER_USER_SCRIPTS), then one map of each
# family imported through bpy.ops.import_scene.bspkit with the CLI as converter
# (tests/blender/addon_check.py checks what arrived):
#   - GoldSrc (ns_lost with its WAD), Quake 1 (pd_heal), Source (lego_arena_x), Quake 3 (OpenArena's
#     aggressor from its .pk3, with the game's archives): meshes, entity empties with their keys,
#     materials whose base image and lightmap (atlas through the second UV map, Mix Multiply) reach
#     the Emission shader, a camera at a player spawn made the scene camera, Standard view (and
#     for Source, its baked world lights arrive as lights, hidden);
#     the spawn view rendered with Cycles (CPU) and compared with the three.js reference render
#     (tests/tools/render.mjs --mode full) of the same .glb from the same eye: RMSE <= 5%;
#   - Nexuiz (DarkPlaces, bloodprison): as above, and the sky box follows the camera, the view's gamma is the
#     game's displayGamma;
#   - Source with static props (rc_arena_codetest, a generated model as the platform prop): the
#     props arrive with meshes, sharing one per model; with Collision on, the collision pieces
#     arrive as wireframe objects left out of renders;
#   - a DPM (spiderbot) and a Source MDL: armature; the DPM's animations as actions; the MDL
#     through a stand-in bspkit Python package (the add-on prefers the package when it imports);
#   - a truncated map: the operator fails with bspkit's located error and imports nothing.
# Side-by-side PNGs (left Blender, right three.js) stay in the work folder.
source "$BK_TESTS/lib.sh"
bk_init "$@"
command -v blender >/dev/null || bk_skip "blender not installed (scripts/install-deps --blender)"
PY=/usr/bin/python3
[[ -x $PY ]] && $PY -c 'import numpy' 2>/dev/null || bk_skip "/usr/bin/python3 with numpy missing"
ROOT=$BK_TESTS/..
need_file "$CORPUS/goldsrc/ns_ns_lost.bsp" "$CORPUS/wad3/ns_lost.wad" "$CORPUS/quake1/progs_dump_pd_heal.bsp" \
    "$CORPUS/source/css_v20_gg_lego_arena_x.bsp" "$CORPUS/source/ricochet_v20_rc_arena_codetest.bsp"
"$ROOT/scripts/blender-addon-zip" "$WORK/bspkit_blender.zip" >/dev/null
check "the add-on zips" test -s "$WORK/bspkit_blender.zip"
export BLENDER_USER_SCRIPTS=$WORK/user-scripts BSPKIT_CLI=$CLI
SIZE=320x240
three=0; command -v node >/dev/null && [[ -x ${CHROMIUM:-/usr/bin/chromium} ]] && three=1
((three)) || echo "note: node/chromium missing: renders not compared with three.js"

# imp NAME FILE [addon_check options]: import with the add-on (and render), record its JSON line
imp() {
    local name=$1 file=$2; shift 2
    PATH=/usr/bin:/bin blender -b --factory-startup --python-exit-code 1 --python "$BK_TESTS/blender/addon_check.py" -- \
        "$file" --zip "$WORK/bspkit_blender.zip" "$@" > "$WORK/$name.log" 2>&1
    local rc=$?
    grep '^BSPKIT_CHECK ' "$WORK/$name.log" | sed 's/^BSPKIT_CHECK //' > "$WORK/$name.json"
    if [[ $rc == 0 && -s $WORK/$name.json ]]; then ok; echo "$name: $(cat "$WORK/$name.json")"
    else fail "$name: Blender import ($(cat "$WORK/$name.json" 2>/dev/null || tail -5 "$WORK/$name.log"))"; fi
}
# same NAME FILE [convert options]: convert as the add-on did, for the three.js reference render
# of the same .glb from the camera the add-on made (all drawn in one browser run at the end)
THREE=()
same() {
    local name=$1 file=$2; shift 2
    ((three)) || return 0
    local eye; eye=$($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["eye"] or "")' "$WORK/$name.json" 2>/dev/null)
    [[ -n $eye && -s $WORK/$name.png ]] || { fail "$name: no Blender render from a spawn"; return; }
    "$CLI" convert "$file" -o "$WORK/$name.glb" -q "$@" || { fail "$name: convert"; return; }
    THREE+=(--camera "$eye" "$WORK/$name.glb")
}
compare_all() {
    ((three)) && ((${#THREE[@]})) || return 0
    if ! node "$BK_TESTS/tools/render.mjs" --out "$WORK/three" --mode full --size $SIZE --fov 90 --min-coverage 0 \
        "${THREE[@]}" > "$WORK/three.log"; then fail "three.js render"; cat "$WORK/three.log" >&2; return; fi
    local f name r
    for f in "${THREE[@]}"; do
        [[ $f == *.glb ]] || continue
        name=$(basename "$f" .glb)
        r=$($PY "$BK_TESTS/blender/compare.py" "$WORK/$name.png" "$WORK/three/$name.png" "$WORK/$name-side.png")
        echo "$name: Blender vs three.js from $($PY -c 'import json,sys; print(json.load(open(sys.argv[1]))["eye"])' "$WORK/$name.json"): $r"
        check "$name: Blender's spawn render matches three.js's ($r <= 0.05)" \
            $PY -c 'import sys; sys.exit(0 if float(sys.argv[1]) <= 0.05 else 1)' "${r#rmse }"
    done
}
render() { echo --render "$WORK/$1.png" --size $SIZE --samples 16; }

# (ns_lost's info_player_start is the dark ready room, and the marines' start faces a dark wall:
# that start turned to yaw 90 looks down the lit corridor)
imp goldsrc "$CORPUS/goldsrc/ns_ns_lost.bsp" --wads "$CORPUS/wad3/ns_lost.wad" $(render goldsrc) --camera-of info_team_start --yaw 90 \
    --want-lightmaps --want-cameras
same goldsrc "$CORPUS/goldsrc/ns_ns_lost.bsp" --wad "$CORPUS/wad3/ns_lost.wad"
imp quake1 "$CORPUS/quake1/progs_dump_pd_heal.bsp" $(render quake1) --want-lightmaps --want-cameras
same quake1 "$CORPUS/quake1/progs_dump_pd_heal.bsp"
imp source "$CORPUS/source/css_v20_gg_lego_arena_x.bsp" $(render source) --want-lightmaps --want-cameras --want-baked-lights
same source "$CORPUS/source/css_v20_gg_lego_arena_x.bsp"

# Source static props: a generated model stands in for Ricochet's platform (as tests/source/mdl.sh)
GEN=$WORK/gen
if $PY "$BK_TESTS/source/make_mdl.py" "$GEN" >/dev/null; then
    pg=$WORK/propgame/models/props_ricochet
    mkdir -p "$pg"
    for e in mdl vvd dx90.vtx; do cp "$GEN/game/models/bspkit_test/box_v48.$e" "$pg/platform.$e"; done
    cp -r "$GEN/game/materials" "$WORK/propgame/"
    imp props "$CORPUS/source/ricochet_v20_rc_arena_codetest.bsp" --game-dirs "$WORK/propgame" --collision --want-props --want-cameras
    # with a stand-in for the bspkit Python package (its entry point runs the CLI and leaves a
    # mark): the add-on converts through the package when it imports
    mkdir -p "$WORK/pkg/bspkit"
    cat > "$WORK/pkg/bspkit/__init__.py" <<'PY'
import os, subprocess
import builtins
class _File:
    def __init__(self, path, game_dirs, wads):
        self.args = [path] + [x for d in game_dirs for x in ("--game-dir", d)] + [x for w in wads for x in ("--wad", w)]
    def to_gltf(self, out):
        subprocess.run([os.environ["BSPKIT_CLI"], "convert"] + self.args + ["-o", out, "-q"], check=True)
        builtins.open(os.environ["BSPKIT_PACKAGE_MARK"], "w").write(out)
def open(path, game_dirs=(), wads=()):
    return _File(path, game_dirs, wads)
PY
    export BSPKIT_PACKAGE_MARK=$WORK/package-used
    # (and first a broken map: refused with bspkit's located error, nothing imported)
    head -c 4000 "$CORPUS/quake1/progs_dump_pd_heal.bsp" > "$WORK/broken.bsp"
    imp mdl "$GEN/game/models/bspkit_test/box_v48.mdl" --sys-path "$WORK/pkg" --bad "$WORK/broken.bsp" --want-armature
    check "the broken map's error reached the user" grep -q "^bad file refused: .*broken.bsp" "$WORK/mdl.log"
    check "the add-on converted through the bspkit package when it imports" test -s "$WORK/package-used"
else
    fail "make_mdl.py"
fi

PK3=$FETCHED/pk3
if [[ -f $PK3/oa081-pak1-maps.pk3 && -f $PK3/oa-pak4-textures.pk3 ]]; then
    GD=(); GDS=""
    for a in "$PK3"/oa-pak*.pk3 "$PK3"/oa088-pak6-patch088.pk3; do [[ -f $a ]] && GD+=(--game-dir "$a") && GDS+="$a;"; done
    imp quake3 "$PK3/oa081-pak1-maps.pk3" --member aggressor --game-dirs "$GDS" $(render quake3) --want-lightmaps --want-cameras
    same quake3 "$PK3/oa081-pak1-maps.pk3:maps/aggressor.bsp" "${GD[@]}"
else
    echo "note: OpenArena archives not fetched: Quake 3 skipped"
fi
# DarkPlaces (Nexuiz's bloodprison): the sky box follows the camera, the view's gamma is the
# game's v_gamma (displayGamma); its first start sees the sky
# (a start looking along a diagonal, yaw 45, 135, ..., is a bad reference: SwiftShader smears the
# sky box's corner in the three.js render)
NX=$PK3/nexuiz-data.pk3
if [[ -f $NX && -f $FETCHED/q3/nexuiz/bloodprison.bsp ]]; then
    # (nexuiz-data.pk3 lacks this map's textures: grey x lightmap, compared by the render alone)
    imp nexuiz "$FETCHED/q3/nexuiz/bloodprison.bsp" --game-dirs "$NX" $(render nexuiz) --want-cameras --want-skybox
    same nexuiz "$FETCHED/q3/nexuiz/bloodprison.bsp" --game-dir "$NX"
else
    echo "note: Nexuiz data not fetched: DarkPlaces map skipped"
fi
if [[ -f $FETCHED/dpm/spiderbot.dpm ]]; then
    imp dpm "$FETCHED/dpm/spiderbot.dpm" --want-armature --want-actions
else
    echo "note: DPM models not fetched: DPM skipped"
fi
compare_all
bk_done
