#!/usr/bin/env bash
# Every real Source map in the corpus: validate, info counts against an independent Python
# reader, glTF conversion checked by the Khronos validator, props and pakfile listings checked
# against the same reader (and Python's zipfile), impostors and hostile variants fail cleanly.
source "$BK_TESTS/lib.sh"
bk_init "$@"
SRC=$CORPUS/source
need_dir "$SRC"
shopt -s nullglob
real=()
for f in "$SRC"/*.bsp; do [[ $(basename "$f") == unusual_* ]] || real+=("$f"); done
(( ${#real[@]} > 0 )) || { echo "no Source maps"; exit 77; }
REF=$BK_TESTS/source/vbsp_ref.py
python3 "$REF" "${real[@]}" > "$WORK/ref.json" || fail "reference reader"

# validate: all at once, exit 0, every file ok
expect_exit 0 "$CLI" validate --quiet "${real[@]}"
check "every map validates" [ "$(grep -c ': ok (source)' "$WORK/.out")" == "${#real[@]}" ]

ref() { python3 -c "import json,sys; r=[x for x in json.load(open(sys.argv[1])) if x['file']==sys.argv[2]][0]; v=r.get(sys.argv[3]); print('' if v is None else v)" "$WORK/ref.json" "$1" "$2"; }

glbs=()
for f in "${real[@]}"; do
    b=$(basename "$f" .bsp)
    "$CLI" info "$f" --json > "$WORK/$b.info.json" 2>"$WORK/.err" || fail "info $b"
    "$CLI" props "$f" --json > "$WORK/$b.props.json" 2>"$WORK/.err" || fail "props $b"
    "$CLI" pak "$f" list --json > "$WORK/$b.pak.json" 2>"$WORK/.err" || fail "pak list $b"
    "$CLI" convert "$f" -o "$WORK/$b.glb" -q >/dev/null 2>"$WORK/.err" || { fail "convert $b"; cat "$WORK/.err" >&2; continue; }
    glbs+=("$WORK/$b.glb")
done
# counts against the independent reader (entities, faces, models, textures, displacements and
# their vertices, static props and prop models, pakfile entries against Python's zipfile)
python3 "$BK_TESTS/source/compare.py" "$WORK/ref.json" "$WORK" > "$WORK/compare.txt" || fail "compare.py"
while read -r verdict rest; do
    if [[ $verdict == PASS ]]; then ok; else fail "$rest"; fi
done < "$WORK/compare.txt"
check "compared every map" [ "$(grep -c ' faces:' "$WORK/compare.txt")" == "${#real[@]}" ]
# one validator run for every file
gltf_validate "${glbs[@]}" > "$WORK/validator.txt" 2>&1
check "Khronos validator: zero errors on ${#glbs[@]} files" [ $? == 0 ]
grep -v '^valid' "$WORK/validator.txt" | head -5 >&2
check "every map converted" [ "${#glbs[@]}" == "${#real[@]}" ]

# props land in the glTF as nodes with the model path in extras; --no-props drops them
f=$SRC/tf2_v20_bsp_tool_test2.bsp
need_file "$f"
"$CLI" convert "$f" -o "$WORK/p.gltf" -q >/dev/null 2>&1
n=$(python3 -c "import json,sys; print(sum(1 for n in json.load(open(sys.argv[1]))['nodes'] if n.get('extras',{}).get('classname')=='prop_static' and n['extras']['model'].endswith('.mdl')))" "$WORK/p.gltf")
want=$(ref "$f" static_props)
check "prop nodes in glTF: $n vs $want" [ "$n" == "$want" ]
"$CLI" convert "$f" -o "$WORK/np.gltf" --no-props -q >/dev/null 2>&1
n=$(python3 -c "import json,sys; print(sum(1 for n in json.load(open(sys.argv[1]))['nodes'] if n.get('extras',{}).get('classname')=='prop_static'))" "$WORK/np.gltf")
check "--no-props drops prop nodes" [ "$n" == 0 ]
check "materials carry their VMT path" grep -q '"vmt"' "$WORK/p.gltf"

# pakfile extraction equals Python's zipfile, for a stored and an LZMA (method 14) pakfile
for b in css_v20_gg_creepyvan tf2c_v20_lzma_vipr_downfall; do
    f=$SRC/$b.bsp; need_file "$f"
    expect_exit 0 "$CLI" pak "$f" extract -o "$WORK/x_$b" -q
    python3 - "$f" "$WORK/x_$b" <<'PY' || fail "extracted files of $b differ from Python's zipfile"
import io, os, struct, sys, zipfile
d = open(sys.argv[1], "rb").read()
o, n = struct.unpack_from("<ii", d, 8 + 16 * 40)
z = zipfile.ZipFile(io.BytesIO(d[o:o + n]))
for i in z.infolist():
    if i.is_dir():
        continue
    p = os.path.join(sys.argv[2], i.filename)
    if open(p, "rb").read() != z.read(i):
        print("differs:", i.filename); sys.exit(1)
print("same:", len(z.infolist()), "entries")
PY
done

# path traversal in a pakfile is refused, nothing written
python3 - "$SRC/tf2_v20_bsp_tool_mp_lobby.bsp" "$WORK/evil.bsp" <<'PY'
import io, struct, sys, zipfile
d = bytearray(open(sys.argv[1], "rb").read())
buf = io.BytesIO()
with zipfile.ZipFile(buf, "w") as z:
    z.writestr("materials/ok.txt", "fine")
    z.writestr("../../escape.txt", "evil")
pak = buf.getvalue()
struct.pack_into("<ii", d, 8 + 16 * 40, len(d), len(pak))
open(sys.argv[2], "wb").write(bytes(d) + pak)
PY
expect_exit 1 "$CLI" pak "$WORK/evil.bsp" extract -o "$WORK/evil_out"
expect_stderr_has "not a safe relative path" "$CLI" pak "$WORK/evil.bsp" extract -o "$WORK/evil_out"
check "traversal: nothing written" [ ! -e "$WORK/escape.txt" ] && check "traversal: no partial extract" [ ! -e "$WORK/evil_out/materials/ok.txt" ]
expect_exit 0 "$CLI" pak "$WORK/evil.bsp" list

# compressed lumps in maps not seen before: recompress every lump of two plain maps the way
# bspzip does; counts and the converted scene must not change
for b in tf2_v20_bsp_tool_test2 css_v19_test_speakers; do
    f=$SRC/$b.bsp; need_file "$f"
    python3 "$BK_TESTS/source/lzmaify.py" "$f" "$WORK/lz_$b.bsp" || { fail "lzmaify $b"; continue; }
    expect_exit 0 "$CLI" validate "$WORK/lz_$b.bsp"
    "$CLI" info "$WORK/lz_$b.bsp" > "$WORK/lz.txt" 2>&1
    check "$b: lumps shown as LZMA" [ "$(grep -c '(lzma)' "$WORK/lz.txt")" -gt 10 ]
    "$CLI" info --json "$WORK/lz_$b.bsp" | python3 -c "import json,sys; print(json.load(sys.stdin)['counts'])" > "$WORK/lz1.txt"
    "$CLI" info --json "$f" | python3 -c "import json,sys; print(json.load(sys.stdin)['counts'])" > "$WORK/lz2.txt"
    check "$b: same counts when compressed" cmp -s "$WORK/lz1.txt" "$WORK/lz2.txt"
    "$CLI" convert "$WORK/lz_$b.bsp" -o "$WORK/lz_$b.glb" -q >/dev/null 2>&1
    check "$b: same glTF when compressed" cmp -s "$WORK/lz_$b.glb" "$WORK/$b.glb"
done

# impostors fail with a clear message, never a crash
for f in "$SRC"/unusual_*.bsp; do
    for cmd in validate info convert props; do
        if [[ $cmd == convert ]]; then expect_exit 1 "$CLI" convert "$f" -o "$WORK/u.glb"
        else expect_exit 1 "$CLI" $cmd "$f"; fi
        if grep -q 'Sanitizer' "$WORK/.err"; then fail "sanitizer: $cmd $f"; fi
    done
    "$CLI" info "$f" 2>"$WORK/.err" >/dev/null
    check "clear message for $(basename "$f")" grep -qE 'not supported|not a Valve' "$WORK/.err"
done
[[ ! -e $WORK/u.glb ]] || fail "no output for an impostor"


# hostile variants: exit 1, the message names the lump, never a crash
plain=$SRC/tf2_v20_bsp_tool_test2.bsp; lzma=$SRC/tf2c_v20_lzma_3vipr_aspen_a03.bsp
mkdir -p "$WORK/bad"
python3 "$BK_TESTS/source/mutate.py" "$plain" "$lzma" "$WORK/bad" > "$WORK/bad/list.txt" || fail "mutate.py"
while IFS=$'\t' read -r name lump; do
    f=$WORK/bad/$name.bsp
    expect_exit 1 "$CLI" validate "$f"
    if grep -q 'Sanitizer' "$WORK/.err"; then fail "sanitizer: validate $name"; fi
    if [[ -n $lump ]]; then
        check "$name: located error names '$lump'" grep -qE "(: |^)$lump(\[[0-9]+\])? @[0-9]+: error" "$WORK/.out"
    fi
    expect_exit 1 "$CLI" convert "$f" -o "$WORK/bad/out.glb"
    if grep -q 'Sanitizer' "$WORK/.err"; then fail "sanitizer: convert $name"; fi
    expect_exit 1 "$CLI" info "$f"
done < "$WORK/bad/list.txt"
[[ ! -e $WORK/bad/out.glb ]] || fail "no output may be written for a hostile file"
echo "$(wc -l < "$WORK/bad/list.txt") hostile variants"
bk_done
