#!/usr/bin/env bash
# DPM behaviour on a model made by the independent Python writer (no corpus needed): validate,
# info counts, skinning vs Python, glTF export, the optimising saver, hostile variants.
# args: CLI SHARED FETCHED WORK
source "$BK_TESTS/lib.sh"
bk_init "$@"
REF="python3 $BK_TESTS/dpm/dpmref.py"
M=$WORK/synth.dpm
$REF synth "$M"

expect_exit 0 "$CLI" validate "$M"
expect_stdout_has "ok (dpm), 0 warnings" "$CLI" validate "$M"
expect_stdout_has "info: 4 bones, 2 meshes, 3 frames, 8 vertices, 3 triangles" "$CLI" validate "$M"
# info --json counts agree with the Python reader's
"$CLI" info --json "$M" > "$WORK/info.json"
want=$($REF counts "$M")
check "info counts match the Python reader" python3 - "$WORK/info.json" "$want" <<'PY'
import json, sys
got = json.load(open(sys.argv[1]))
want = json.loads(sys.argv[2])
c = got['counts']
sys.exit(0 if got['format'] == 'dpm' and all(c[k] == v for k, v in want.items()) and 'bounds' in got else 1)
PY
# dispatch on the magic, not the extension
cp "$M" "$WORK/model.bin"
expect_stdout_has "format:  dpm" "$CLI" info "$WORK/model.bin"

# skinned positions: every frame and two blends against the Python skinning
"$DPM_DUMP" "$M" 0:0:0 1:1:0 2:2:0 0:2:0.25 1:2:0.5 > "$WORK/dump.txt"
check "skinning agrees with dpmref.py" $REF skin "$M" "$WORK/dump.txt"

# glTF: validator-clean, with skin and animations (frames walk_0, walk_1 form one animation)
expect_exit 0 "$CLI" convert "$M" -o "$WORK/synth.glb"
expect_stdout_has "1 skins, 2 animations" "$CLI" convert "$M" -o "$WORK/synth.glb"
expect_stderr_has "1 vertices have more than 4 bone influences" "$CLI" convert "$M" -o "$WORK/synth.glb"
check "glb passes the validator with skin and animation" gltf_validate --require-skin --require-animation "$WORK/synth.glb"
"$DPM_DUMP" "$M" 2:2:0 > "$WORK/f2.dump"
check "glTF walk key 1 skins like frame 2" python3 "$BK_TESTS/dpm/gltf_skin_check.py" "$WORK/synth.glb" 1 1 "$WORK/f2.dump"
expect_exit 0 "$CLI" convert "$M" -o "$WORK/synth.obj"
check "obj has the base pose" grep -q '^v ' "$WORK/synth.obj"

# textures: the shader name is looked up in the game folders (.tga/.png/.jpg); the other is a placeholder
mkdir -p "$WORK/game/models/test"
python3 -c 'import struct,sys; open(sys.argv[1],"wb").write(struct.pack("<BBBHHBHHHHBB",0,0,2,0,0,0,0,0,2,2,32,0x28)+bytes([0,0,255,255]*4))' "$WORK/game/models/test/skin.tga"
expect_stdout_has "2 materials, 1 images" "$CLI" convert "$M" --game-dir "$WORK/game" -o "$WORK/tex.glb"
check "textured glb valid" gltf_validate --require-skin "$WORK/tex.glb"
expect_stdout_has "2 materials, 0 images" "$CLI" convert "$M" --game-dir "$WORK/game" --no-textures -o "$WORK/notex.glb"
expect_stdout_has "0 animations" "$CLI" convert "$M" --no-animations -o "$WORK/noanim.glb"

# framegroups beside the model, with names from comments; a range past the end is cut with a warning
printf '1 2 15 1 // walk\n0 1 10 0\n2 9 10 0 // tail\n' > "$M.framegroups"
expect_stdout_has "3 animations" "$CLI" convert "$M" -o "$WORK/fg.glb"
expect_stderr_has "runs past the last frame" "$CLI" convert "$M" -o "$WORK/fg.glb"
check "framegroups glb valid" gltf_validate --require-skin --require-animation "$WORK/fg.glb"
printf '1 2 x\n' > "$WORK/bad.framegroups"
expect_exit 1 "$CLI" convert "$M" --framegroups "$WORK/bad.framegroups" -o "$WORK/bad.glb"
expect_stderr_has "bad.framegroups: line[1]" "$CLI" convert "$M" --framegroups "$WORK/bad.framegroups" -o "$WORK/bad.glb"
# the failure's own (last) line names the framegroups file and the bad line, not a bare
# "malformed data"; the same for the file found beside the model and for one that cannot be read
lastline_has() {
    local pat=$1; shift
    "$@" >"$WORK/.out" 2>"$WORK/.err"
    if tail -1 "$WORK/.err" | grep -qF -- "$pat"; then ok; else fail "last stderr line lacks '$pat': $(tail -1 "$WORK/.err")"; fi
}
printf '0 1 10 0\n\n0 1 10 0 0\n' > "$WORK/bad3.framegroups"
lastline_has "synth.dpm: cannot build a scene: $WORK/bad3.framegroups: line[3]: error:" \
    "$CLI" convert "$M" --framegroups "$WORK/bad3.framegroups" -o "$WORK/bad.glb"
cp "$WORK/bad3.framegroups" "$M.framegroups"
lastline_has "$M.framegroups: line[3]" "$CLI" convert "$M" -o "$WORK/bad.obj"
lastline_has "$WORK/none.framegroups: error: cannot read the framegroups file: not found" \
    "$CLI" convert "$M" --framegroups "$WORK/none.framegroups" -o "$WORK/bad.glb"
rm -f "$M.framegroups"

# the saver: drops the unused vertex and the unflagged unused bone, keeps tag/attachment bones
expect_exit 0 "$CLI" convert "$M" -o "$WORK/saved.dpm"
expect_stderr_has "bones 4 -> 3, vertices 8 -> 7" "$CLI" convert "$M" -o "$WORK/saved.dpm"
expect_exit 0 "$CLI" validate "$WORK/saved.dpm"
"$DPM_DUMP" "$WORK/saved.dpm" 0:0:0 1:1:0 2:2:0 > "$WORK/dump2.txt"
check "saved model skins like dpmref.py" $REF skin "$WORK/saved.dpm" "$WORK/dump2.txt"

# odd but valid: a mesh with vertices and no triangles (a warning), converted and re-saved
python3 - "$M" "$WORK/notris.dpm" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
om, = struct.unpack_from('>I', b, 72)
struct.pack_into('>I', b, om + 56 + 36, 0)   # mesh 1: no triangles
open(sys.argv[2], 'wb').write(b)
PY
expect_exit 0 "$CLI" validate "$WORK/notris.dpm"
expect_stdout_has "warning" "$CLI" validate "$WORK/notris.dpm"
expect_exit 0 "$CLI" convert "$WORK/notris.dpm" -o "$WORK/notris.glb"
check "no sanitizer report (no triangles)" bash -c "! grep -qE 'Sanitizer|runtime error' '$WORK/.err'"
check "glb of a mesh without triangles is valid" gltf_validate --require-skin "$WORK/notris.glb"
expect_exit 0 "$CLI" convert "$WORK/notris.dpm" -o "$WORK/notris2.dpm"
expect_exit 0 "$CLI" validate "$WORK/notris2.dpm"

# stored frame bounds too small: validate skins every frame and warns
python3 - "$M" "$WORK/smallbounds.dpm" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
of, = struct.unpack_from('>I', b, 76)
struct.pack_into('>6f', b, of + 68 + 32, -0.1, -0.1, -0.1, 0.1, 0.1, 0.1)   # frame 1 mins/maxs
open(sys.argv[2], 'wb').write(b)
PY
expect_exit 0 "$CLI" validate "$WORK/smallbounds.dpm"
expect_stdout_has "frames[1] @420: warning: 1 frames have skinned vertices outside their stored bounds" "$CLI" validate "$WORK/smallbounds.dpm"

# hostile variants: each fails cleanly (exit 1, located message), never crashes
mkdir -p "$WORK/hostile"
n=$($REF hostile "$M" "$WORK/hostile")
check "hostile cases generated" test "$n" -ge 25
for h in "$WORK"/hostile/*.dpm; do
    expect_exit 1 "$CLI" validate "$h"
    "$CLI" validate "$h" > "$WORK/.v" 2>&1
    check "located message for $(basename "$h")" grep -qE "^$h: [a-z0-9.]+(\[[0-9]+\])? @[0-9]+: error: " "$WORK/.v"
    expect_exit 1 "$CLI" convert "$h" -o "$WORK/h.glb"
    [[ ! -e "$WORK/h.glb" ]] || fail "output written for hostile $h"
    expect_exit 1 "$CLI" convert "$h" -o "$WORK/h.dpm"
    check "no sanitizer report for $(basename "$h")" bash -c "! grep -qE 'Sanitizer|runtime error' '$WORK/.err'"
done
bk_done
