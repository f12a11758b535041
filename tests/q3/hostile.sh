#!/usr/bin/env bash
# Quake 3: hostile variants of a real map (truncated, lumps outside the file, sizes that are not
# multiples of their entries, huge counts, indices out of range, bad patches, absurd visibility)
# must each fail with exit 1 and a located message (LUMP[INDEX] @OFFSET or LUMP @OFFSET) from
# info, validate and convert: never a crash, hang or huge allocation.
# args: CLI SHARED FETCHED WORK
source "$BK_TESTS/lib.sh"
bk_init "$@"
SRC=$FETCHED/q3/oa081/oa_ctf2.bsp   # small, with patches and flares
[[ -f $SRC ]] || { echo "SKIP: $SRC missing (run ../shared/scripts/fetch-corpus)"; exit 77; }
python3 - "$SRC" "$WORK" <<'PYEOF'
import struct, sys
src, out = sys.argv[1], sys.argv[2]
d = open(src, 'rb').read()
L = [list(struct.unpack_from('<ii', d, 8 + 8 * i)) for i in range(17)]
def save(name, b):
    open(f'{out}/{name}.bsp', 'wb').write(b)
def with_header(lumps, body=d):
    b = bytearray(body)
    for i, (o, l) in enumerate(lumps):
        struct.pack_into('<ii', b, 8 + 8 * i, o, l)
    return b
def set_i32(b, off, v):
    b = bytearray(b); struct.pack_into('<i', b, off, v); return b
def surf(i, field):      # field index in dsurface_t ints
    return L[13][0] + 104 * i + 4 * field
def first_surface(t):
    for i in range(L[13][1] // 104):
        if struct.unpack_from('<i', d, L[13][0] + 104 * i + 8)[0] == t: return i
save('truncated_header', d[:100])
save('truncated_half', d[:len(d) // 2])
lm = [x[:] for x in L]; lm[10][0] = len(d) - 8; save('verts_outside', with_header(lm))
lm = [x[:] for x in L]; lm[13][1] -= 4; save('surfaces_not_multiple', with_header(lm))
lm = [x[:] for x in L]; lm[2][1] = -16; save('negative_length', with_header(lm))
lm = [x[:] for x in L]; lm[7][0] = 0x7ffffff0; save('offset_huge', with_header(lm))
save('surface_numverts_huge', set_i32(d, surf(0, 4), 0x7fffffff))
save('surface_firstvert_negative', set_i32(d, surf(0, 3), -5))
save('surface_numindexes_huge', set_i32(d, surf(first_surface(1), 6), 0x7ffffff8))
save('surface_lightmap_huge', set_i32(d, surf(first_surface(1), 7), 0x7fffffff))
save('surface_shader_bad', set_i32(d, surf(0, 0), 99999))
save('surface_lightmap_bad', set_i32(d, surf(0, 7), 40000))
save('surface_type_bad', set_i32(d, surf(0, 2), 9))
save('index_bad', set_i32(d, L[11][0] + 4 * struct.unpack_from('<i', d, surf(first_surface(1), 5))[0], 100000))
p = first_surface(2)
save('patch_even', set_i32(d, surf(p, 24), 4))
save('patch_huge', set_i32(set_i32(d, surf(p, 24), 0x7fffffff), surf(p, 25), 0x7fffffff))
save('model_surfaces_huge', set_i32(d, L[7][0] + 28, 0x7fffffff))
save('brush_sides_bad', set_i32(d, L[8][0], -1))
save('brushside_plane_bad', set_i32(d, L[9][0], 1 << 30))
save('leafsurface_bad', set_i32(d, L[5][0], 1 << 30))
save('leafbrush_bad', set_i32(d, L[6][0], -7))
save('node_child_bad', set_i32(d, L[3][0] + 4, 1 << 30))
save('vis_huge', set_i32(set_i32(d, L[16][0], 0x7fffffff), L[16][0] + 4, 0x7fffffff))
save('entities_broken', d[:L[0][0]] + b'{ "a" ' + b' ' * (L[0][1] - 6) + d[L[0][0] + L[0][1]:])
PYEOF
check "hostile variants generated" test $? = 0
shopt -s nullglob
n=0
for f in "$WORK"/*.bsp; do
    n=$((n + 1))
    for cmd in info validate convert; do
        if [[ $cmd == convert ]]; then timeout 60 "$CLI" convert "$f" -o "$WORK/x.glb" >"$WORK/.out" 2>"$WORK/.err"
        else timeout 60 "$CLI" $cmd "$f" >"$WORK/.out" 2>"$WORK/.err"; fi
        rc=$?
        if [[ $rc == 1 ]]; then ok; else fail "$cmd $(basename "$f"): exit $rc (want 1)"; head -3 "$WORK/.err" >&2; fi
        if grep -q 'Sanitizer\|runtime error' "$WORK/.err"; then fail "$cmd $(basename "$f"): sanitizer report"; fi
    done
    # located: "FILE: LUMP[INDEX] @OFFSET: error:" or "FILE: LUMP @OFFSET: error:"
    "$CLI" info "$f" 2>"$WORK/.err" >/dev/null
    if grep -qE ': [a-z]+(\[[0-9-]+\])? @[0-9]+: error: ' "$WORK/.err"; then ok
    else fail "$(basename "$f"): message not located: $(head -1 "$WORK/.err")"; fi
done
[[ ! -e $WORK/x.glb ]] || fail "convert wrote output for a bad map"
echo "$n hostile variants"
bk_done
