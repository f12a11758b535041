#!/usr/bin/env bash
# Source overlays (info_overlay decals, lump 45): on every Source corpus map the overlay count
# bspkit reports is the lump's, every record read by overlay_check.py (written from doverlay_t
# and vbsp's overlay.cpp) is sane, and the glTF's "overlays" node under worldspawn holds one
# alpha-blended quad per overlay with faces, its corners, texture coordinates and material name
# as computed from the bytes. The Khronos validator accepts a map with overlays.
source "$BK_TESTS/lib.sh"
bk_init "$@"
PY=/usr/bin/python3
need_dir "$CORPUS/source"
with=0
for f in "$CORPUS"/source/*.bsp; do
    m=$(basename "$f" .bsp)
    "$CLI" info --json "$f" > "$WORK/$m.json" 2>/dev/null || continue   # not a VBSP this reads
    "$CLI" convert "$f" -o "$WORK/$m.gltf" -q --scale 1 --keep-z-up || { fail "$m: convert"; continue; }
    out=$($PY "$BK_TESTS/source/overlay_check.py" "$f" "$WORK/$m.json" "$WORK/$m.gltf"); rc=$?
    echo "$m: $out"
    check "$m: overlays as in the lump ($out)" test $rc -eq 0
    [[ $out == *"quads in"* ]] && with=$((with + 1))
    rm -f "$WORK/$m".*
done
check "maps with overlays were compared ($with)" test $with -ge 5
f=$CORPUS/source/tf2c_v20_dom_fightpit.bsp
need_file "$f"
"$CLI" convert "$f" -o "$WORK/fightpit.glb" -q
check "the Khronos validator accepts the overlays" gltf_validate "$WORK/fightpit.glb"
bk_done
