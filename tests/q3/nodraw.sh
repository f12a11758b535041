#!/usr/bin/env bash
# Surfaces the engine does not draw are not drawn: patches whose entry in the map's shader lump
# carries SURF_NODRAW (0x80; q3map2 -patchmeta keeps them for collision only and stores the drawn
# copy as triangles, and ioquake3's ParseMesh skips them) and shaders whose script says
# `surfaceparm nodraw`. The count of such patches comes from a reader of the lump bytes here and
# must equal what the converter reports leaving out, on every Quake 3 map of the corpus; the
# collision export keeps them.
# args: CLI SHARED FETCHED WORK
source "$BK_TESTS/lib.sh"
bk_init "$@"
need_dir "$FETCHED/q3"
mkdir -p "$WORK"
maps=$(find "$FETCHED/q3" -name '*.bsp' | sort)
python3 - $maps > "$WORK/expect.tsv" <<'PYEOF'
import struct, sys
for path in sys.argv[1:]:
    d = open(path, 'rb').read()
    if d[:4] != b'IBSP': continue
    lumps = [struct.unpack_from('<ii', d, 8 + 8 * i) for i in range(17)]
    so, sl = lumps[1]
    flags = [struct.unpack_from('<i', d, so + 72 * i + 64)[0] for i in range(sl // 72)]
    fo, fl = lumps[13]
    n = 0
    for i in range(fl // 104):
        sh, fog, typ = struct.unpack_from('<3i', d, fo + 104 * i)
        if typ == 2 and 0 <= sh < len(flags) and flags[sh] & 0x80: n += 1
    print(f'{path}\t{n}')
PYEOF
with=0
while IFS=$'\t' read -r map n; do
    got=$("$CLI" convert "$map" --no-textures --no-lightmaps -v -o "$WORK/m.glb" 2>&1 |
          sed -n 's/.*info: \([0-9]*\) patches left out: flagged nodraw.*/\1/p')
    [[ $n -gt 0 ]] && with=$((with + 1))
    check "$(basename "$map"): $n nodraw patches in the file, ${got:-0} left out" test "${got:-0}" -eq "$n"
done < "$WORK/expect.tsv"
echo "$with maps hold nodraw patches"
check "some maps hold nodraw patches" test "$with" -gt 0

# the collision export keeps them: am_thornish's 520 patches are triangle meshes there
M=$FETCHED/q3/oa088/am_thornish.bsp
if [[ -f $M ]]; then
    "$CLI" convert "$M" --no-textures --no-lightmaps --collision -o "$WORK/c.glb" 2>/dev/null
    python3 - "$WORK/c.glb" > "$WORK/coll.txt" <<'PYEOF'
import json, struct, sys
d = open(sys.argv[1], 'rb').read()
n = struct.unpack_from('<I', d, 12)[0]
g = json.loads(d[20:20 + n])
meshes = g['meshes']
# collision pieces whose mesh is not convex-sized: the patch meshes have many triangles
tri = 0
for nd in g['nodes']:
    if nd.get('extras', {}).get('collision') == 'true' and 'mesh' in nd:
        for p in meshes[nd['mesh']]['primitives']:
            tri += g['accessors'][p['indices']]['count'] // 3 if 'indices' in p else 0
print(tri)
PYEOF
    "$CLI" convert "$M" --no-textures --no-lightmaps -o "$WORK/d.glb" 2>/dev/null
    check "collision export still holds triangles" test "$(cat "$WORK/coll.txt")" -gt 0
fi

# `surfaceparm nodraw` with a drawable stage: the surfaces are left out
M=$FETCHED/q3/oa081/aggressor.bsp
if [[ -f $M ]]; then
    G=$WORK/game/baseoa
    mkdir -p "$G/scripts"
    name=$(python3 - "$M" <<'PYEOF'
import struct, sys
d = open(sys.argv[1], 'rb').read()
lumps = [struct.unpack_from('<ii', d, 8 + 8 * i) for i in range(17)]
so, sl = lumps[1]
names = [d[so + 72 * i:so + 72 * i + 64].split(b'\0')[0].decode() for i in range(sl // 72)]
fo, fl = lumps[13]
use = {}
for i in range(fl // 104):
    sh, fog, typ = struct.unpack_from('<3i', d, fo + 104 * i)
    if typ in (1, 3): use[names[sh]] = use.get(names[sh], 0) + 1
print(max((n for n in use if 'sky' not in n), key=lambda n: use[n]))
PYEOF
)
    printf '%s\n{\n surfaceparm nodraw\n { map $lightmap }\n}\n' "$name" > "$G/scripts/bktest.shader"
    "$CLI" convert "$M" --game-dir "$G" -o "$WORK/n.glb" 2>/dev/null
    "$CLI" convert "$M" -o "$WORK/p.glb" 2>/dev/null
    has() { python3 -c "
import json,struct,sys
d=open(sys.argv[1],'rb').read(); n=struct.unpack_from('<I',d,12)[0]; g=json.loads(d[20:20+n])
print(sum(1 for m in g.get('materials',[]) if m.get('name')==sys.argv[2]))" "$1" "$name"; }
    check "without the script, $name is drawn" test "$(has "$WORK/p.glb")" -ge 1
    check "surfaceparm nodraw: $name is not drawn" test "$(has "$WORK/n.glb")" -eq 0
fi
bk_done
