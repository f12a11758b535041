#!/usr/bin/env bash
# Quake 3: every fetched map (OpenArena 0.8.1, 0.8.8, Nexuiz) validates, its counts agree with an
# independent reader (tests/q3/q3read.py), it converts to .glb, every .glb passes the Khronos
# validator with zero errors, and every triangle is accounted for: planar + soup triangles from
# the index lump plus 2*(w-1)/2*L*(h-1)/2*L per patch at level L (minus the degenerate ones the
# exporter reports dropping); flares as points.
# The maps are converted once by the q3_glb fixture (q3/convert_all.sh, its folder in Q3_GLB).
# args: CLI SHARED FETCHED WORK
source "$BK_TESTS/lib.sh"
bk_init "$@"
need_dir "$FETCHED/q3"
need_file "$Q3_GLB/convert.tsv"
shopt -s nullglob
maps=("$FETCHED"/q3/*/*.bsp)
(( ${#maps[@]} > 0 )) || { echo "SKIP: no maps"; exit 77; }
echo "${#maps[@]} maps"
PY="python3 $BK_TESTS/q3/q3read.py"

# validate: all in one call, every one ok
"$CLI" validate --quiet "${maps[@]}" >"$WORK/validate.txt" 2>"$WORK/validate.err"
check "validate exit 0 on every map" test $? = 0
nok=$(grep -c ': ok (quake3)' "$WORK/validate.txt")
check "validate: $nok/${#maps[@]} ok" test "$nok" = "${#maps[@]}"

# counts against the independent reader
$PY check-info "$CLI" "${maps[@]}" >"$WORK/counts.txt" 2>&1
check "info --json counts agree with q3read.py" test $? = 0
grep FAIL "$WORK/counts.txt" | head -5 >&2

# every map converted (no textures: the texture path is tested in q3_options on a few maps)
check "converted: $(wc -l < "$Q3_GLB/convert.tsv")/${#maps[@]}" test "$(wc -l < "$Q3_GLB/convert.tsv")" = "${#maps[@]}"

# Khronos validator: one node process for all files
gltf_validate "$Q3_GLB"/glb/*.glb >"$WORK/gltf.txt" 2>&1
check "Khronos validator: zero errors on every glb" test $? = 0
nvalid=$(grep -c '^valid' "$WORK/gltf.txt")
check "validator: $nvalid/${#maps[@]} valid" test "$nvalid" = "${#maps[@]}"
grep -v '^valid' "$WORK/gltf.txt" | head -5 >&2

# triangle accounting and patch presence, computed independently from the .bsp and the .glb
python3 - "$Q3_GLB/convert.tsv" "$BK_TESTS/q3" >"$WORK/tris.txt" 2>&1 <<'PYEOF'
import sys
sys.path.insert(0, sys.argv[2])
import q3read, glbstat
bad = with_patches = 0
for line in open(sys.argv[1]):
    bsp, glb, dropped = line.rstrip('\n').split('\t')
    r = q3read.read(bsp)
    g = glbstat.stats(glb, winding=False)
    want = r['planar_soup_triangles'] + r['patch_triangles']
    if g['triangles'] + int(dropped) != want:
        print(f'FAIL {bsp}: glb {g["triangles"]} + dropped {dropped} != {want}'); bad += 1
    if r['patches']:
        with_patches += 1
        if not g['triangles'] > r['planar_soup_triangles']:
            print(f'FAIL {bsp}: patch triangles missing ({g["triangles"]} <= {r["planar_soup_triangles"]})'); bad += 1
    if g['points'] != r['flares']:
        print(f'FAIL {bsp}: {g["points"]} points, {r["flares"]} flares'); bad += 1
print(f'{with_patches} maps with patches; {bad} problems')
sys.exit(1 if bad else 0)
PYEOF
check "triangles = planar+soup + tessellated patches; flares = points" test $? = 0
tail -3 "$WORK/tris.txt" >&2

# winding agrees with the normals (front faces counter-clockwise) on every 4th map; a few model
# surfaces (misc_model soups) carry normals against their own winding, hence 95%, not 100%
python3 "$BK_TESTS/q3/glbstat.py" $(ls "$Q3_GLB"/glb/*.glb | awk 'NR % 4 == 1') >"$WORK/wind.txt"
check "winding follows normals" python3 -c "
import json, sys
bad = [d['file'] for d in map(json.loads, open('$WORK/wind.txt'))
       if d['triangles'] >= 100 and (d['winding_judged'] < d['triangles'] // 2 or d['winding_agree'] < 0.95)]
print('winding off in', bad) if bad else None
sys.exit(1 if bad else 0)"

bk_done
