#!/usr/bin/env bash
# Quake 3: impostors rejected, maps read from .pk3 archives, real textures and shader scripts from
# game archives, external lightmaps, and the convert options (patch level, flares, lightmaps).
# args: CLI SHARED FETCHED WORK
source "$BK_TESTS/lib.sh"
bk_init "$@"
GLB="python3 $BK_TESTS/q3/glbstat.py --no-winding"
field() { python3 -c "import json,sys; print(json.loads(sys.stdin.readline())['$1'])"; }

# Quake 2's IBSP v38 is not a Quake 3 map: clean, clear rejection
Q2=$CORPUS/quake1/unusual_quake2_ibsp38_mp_lobby.bsp
need_file "$Q2"
for c in info validate; do expect_exit 1 "$CLI" $c "$Q2"; done
expect_exit 1 "$CLI" convert "$Q2" -o "$WORK/q2.glb"
expect_stderr_has "Quake 2" "$CLI" info "$Q2"
expect_stderr_has "header @4" "$CLI" info "$Q2"
[[ ! -e $WORK/q2.glb ]] || fail "no output for a rejected map"
# other impostors: an unknown IBSP version, Raven's RBSP
printf 'IBSP\x2d\x00\x00\x00' >"$WORK/v45.bsp"; head -c 200 /dev/zero >>"$WORK/v45.bsp"
expect_exit 1 "$CLI" info "$WORK/v45.bsp"
expect_stderr_has "version 45 is not supported" "$CLI" info "$WORK/v45.bsp"
printf 'RBSP\x01\x00\x00\x00' >"$WORK/rbsp.bsp"; head -c 200 /dev/zero >>"$WORK/rbsp.bsp"
expect_exit 1 "$CLI" info "$WORK/rbsp.bsp"
expect_stderr_has "not supported" "$CLI" info "$WORK/rbsp.bsp"

need_dir "$FETCHED/q3/oa081"
PK3=$FETCHED/pk3
M=$FETCHED/q3/oa081/aggressor.bsp   # small, has flares
P=$FETCHED/q3/oa081/oa_ctf2.bsp     # has patches

# v46 accepted; v47 (RTCW/ET share the layout) too: same map relabelled
expect_stdout_has '"version":	46' "$CLI" info --json "$M"
python3 -c "import sys; d=bytearray(open(sys.argv[1],'rb').read()); d[4]=47; open(sys.argv[2],'wb').write(d)" "$M" "$WORK/v47.bsp"
expect_exit 0 "$CLI" validate "$WORK/v47.bsp"
expect_stdout_has '"version":	47' "$CLI" info --json "$WORK/v47.bsp"

# entities subcommand, counts from the independent reader
n_ent=$(python3 "$BK_TESTS/q3/q3read.py" counts "$M" | field entities)
expect_exit 0 "$CLI" entities --json "$M"
check "entities --json has $n_ent entities" python3 -c "
import json; assert len(json.load(open('$WORK/.out'))) == $n_ent"
expect_stdout_has '"classname"' "$CLI" entities "$M"

# a map read from its .pk3 (the archive then serves textures and shaders too)
need_file "$PK3/oa081-pak1-maps.pk3"
expect_exit 0 "$CLI" info "$PK3/oa081-pak1-maps.pk3:maps/aggressor.bsp"
expect_exit 0 "$CLI" convert "$PK3/oa081-pak1-maps.pk3:maps/oa_ctf2.bsp" -o "$WORK/fromzip.glb" --no-textures
expect_exit 0 "$CLI" convert "$P" -o "$WORK/fromfile.glb" --no-textures
check "the pk3 member converts like the extracted file" \
    test "$($GLB "$WORK/fromzip.glb" | field triangles)" = "$($GLB "$WORK/fromfile.glb" | field triangles)"
expect_exit 1 "$CLI" info "$PK3/oa081-pak1-maps.pk3:maps/nosuchmap.bsp"
expect_stderr_has "no member" "$CLI" info "$PK3/oa081-pak1-maps.pk3:maps/nosuchmap.bsp"

# patch level: more subdivision, more triangles; flares as points or skipped
"$CLI" convert "$P" -o "$WORK/l2.glb" --no-textures --patch-level 2 >/dev/null
"$CLI" convert "$P" -o "$WORK/l4.glb" --no-textures >/dev/null   # the default level, 4
"$CLI" convert "$P" -o "$WORK/l4x.glb" --no-textures --patch-level 4 >/dev/null
"$CLI" convert "$P" -o "$WORK/l16.glb" --no-textures --patch-level 16 >/dev/null
t2=$($GLB "$WORK/l2.glb" | field triangles); t4=$($GLB "$WORK/l4.glb" | field triangles)
t16=$($GLB "$WORK/l16.glb" | field triangles)
check "patch level 2 < 4 (default) < 16 triangles ($t2 $t4 $t16)" test "$t2" -lt "$t4" -a "$t4" -lt "$t16"
check "the default is level 4" test "$t4" = "$($GLB "$WORK/l4x.glb" | field triangles)"
"$CLI" convert "$M" -o "$WORK/fl.glb" --no-textures >/dev/null
"$CLI" convert "$M" -o "$WORK/nofl.glb" --no-textures --skip-flares >/dev/null
nfl=$(python3 "$BK_TESTS/q3/q3read.py" counts "$M" | field flares)
check "flares kept as $nfl points" test "$($GLB "$WORK/fl.glb" | field points)" = "$nfl"
check "--skip-flares drops them" test "$($GLB "$WORK/nofl.glb" | field points)" = 0
# lightmaps: an atlas image by default, none with --no-lightmaps
expect_stdout_has "1 images" "$CLI" convert "$M" -o "$WORK/lm.glb" --no-textures
expect_stdout_has "0 images" "$CLI" convert "$M" -o "$WORK/nolm.glb" --no-textures --no-lightmaps
check "lightmap UVs (TEXCOORD_1) land inside the atlas" python3 -c "
import sys; sys.path.insert(0,'$BK_TESTS/q3'); import glbstat
j,b = glbstat.load('$WORK/lm.glb')
uv = [t for me in j['meshes'] for p in me['primitives'] if 'TEXCOORD_1' in p['attributes']
      for t in glbstat.accessor(j, b, p['attributes']['TEXCOORD_1'])]
assert uv and all(-1e-4 <= c <= 1 + 1e-4 for t in uv for c in t), len(uv)
assert max(c for t in uv for c in t) > 0.05"
check "no TEXCOORD_1 without lightmaps" python3 -c "
import sys; sys.path.insert(0,'$BK_TESTS/q3'); import glbstat
j,b = glbstat.load('$WORK/nolm.glb')
assert not any('TEXCOORD_1' in p['attributes'] for me in j['meshes'] for p in me['primitives'])"
expect_exit 0 "$CLI" convert "$M" -o "$WORK/ob0.glb" --no-textures --overbright 0
expect_exit 0 "$CLI" convert "$M" -o "$WORK/ob2.glb" --no-textures --overbright 2
check "overbright changes the lightmap" bash -c "! cmp -s '$WORK/ob0.glb' '$WORK/ob2.glb'"
# brush models are their own nodes, named after their entity
B=$FETCHED/q3/oa081/ctf_gate1.bsp
need_file "$B"
"$CLI" convert "$B" -o "$WORK/bm.glb" --no-textures >/dev/null
check "brush model nodes named from their entities" python3 -c "
import json,sys; sys.path.insert(0,'$BK_TESTS/q3'); import glbstat
n = glbstat.stats('$WORK/bm.glb', False)['nodes']
assert n[0] == 'worldspawn' and any(x.endswith(' *1') for x in n), n[:10]"

# entities: point entities as placed nodes with their key/values; --no-entities drops them
"$CLI" convert "$M" -o "$WORK/ent.glb" --no-textures >/dev/null 2>&1
"$CLI" convert "$M" -o "$WORK/noent.glb" --no-textures --no-entities >/dev/null 2>&1
check "entity nodes and extras, none with --no-entities" python3 -c "
import sys; sys.path.insert(0,'$BK_TESTS/q3'); import glbstat
j,_ = glbstat.load('$WORK/ent.glb'); k,_ = glbstat.load('$WORK/noent.glb')
ents = [n for n in j['nodes'] if 'classname' in n.get('extras', {})]
assert len(ents) == $n_ent, (len(ents), $n_ent)
placed = [n for n in ents if 'origin' in n['extras'] and 'translation' in n]
assert placed
assert not any(n.get('extras') for n in k['nodes']) and len(k['nodes']) < len(j['nodes'])"

# external lightmaps (Nexuiz: maps/NAME/lm_NNNN.tga in the game archive)
NX=$FETCHED/q3/nexuiz/aneurysm.bsp
need_file "$NX" "$PK3/nexuiz-data.pk3"
expect_stdout_has "0 images" "$CLI" convert "$NX" -o "$WORK/nx0.glb" --no-textures
expect_stdout_has "1 images" "$CLI" convert "$NX" -o "$WORK/nx1.glb" --no-textures --game-dir "$PK3/nexuiz-data.pk3"
expect_stdout_has "1 images" "$CLI" convert "$PK3/nexuiz-data.pk3:maps/aneurysm.bsp" -o "$WORK/nx2.glb" --no-textures
# beside the map in a folder, as an unpacked game has it
mkdir -p "$WORK/game/maps/aneurysm"
cp "$NX" "$WORK/game/maps/"
(cd "$WORK/game" && unzip -q -j "$PK3/nexuiz-data.pk3" 'maps/aneurysm/lm_*' -d maps/aneurysm)
expect_stdout_has "1 images" "$CLI" convert "$WORK/game/maps/aneurysm.bsp" -o "$WORK/nx3.glb" --no-textures
gltf_validate "$WORK/nx1.glb" "$WORK/nx3.glb" >"$WORK/nxv.txt"
check "external-lightmap glbs valid" test $? = 0
# the pages are drawn from their files when the atlas is made: from the archive (maps/NAME/) and
# from beside the map (NAME/), the same atlas byte for byte
python3 -c "
import json, struct, sys
def images(p):
    d = open(p, 'rb').read()
    n = struct.unpack('<I', d[12:16])[0]
    j, b = json.loads(d[20:20 + n]), d[28 + n:]
    return [b[j['bufferViews'][i['bufferView']].get('byteOffset', 0):][:j['bufferViews'][i['bufferView']]['byteLength']]
            for i in j.get('images', [])]
a, c = images(sys.argv[1]), images(sys.argv[2])
sys.exit(0 if a and a == c else 1)" "$WORK/nx1.glb" "$WORK/nx3.glb"
check "external-lightmap atlas the same from the archive and from beside the map" test $? = 0
# a page whose header reads but whose pixels do not decode when the atlas is drawn: black, with a
# located warning, and the map still converts
rm -rf "$WORK/game2" && cp -r "$WORK/game" "$WORK/game2"
python3 -c "
import struct, sys, zlib
def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))
ihdr = struct.pack('>IIBBBBB', 8, 8, 8, 2, 0, 0, 0)
open(sys.argv[1], 'wb').write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', ihdr) + chunk(b'IDAT', b'\x78\x9c\xff\xff') + chunk(b'IEND', b''))
" "$WORK/game2/maps/aneurysm/lm_0000.tga"
expect_stderr_has "lightmaps[0]: warning: external lightmap" "$CLI" convert "$WORK/game2/maps/aneurysm.bsp" -o "$WORK/nx4.glb" --no-textures
expect_stderr_has "its page is black" "$CLI" convert "$WORK/game2/maps/aneurysm.bsp" -o "$WORK/nx4.glb" --no-textures
expect_exit 0 "$CLI" convert "$WORK/game2/maps/aneurysm.bsp" -o "$WORK/nx4.glb" --no-textures

# real textures and shader scripts (FETCH_TEXTURES=1 brings OpenArena's texture archives)
need_file "$PK3/oa-pak4-textures.pk3" "$PK3/oa088-pak6-patch088.pk3"
GD=()
for a in "$PK3"/oa-pak*.pk3 "$PK3/oa088-pak6-patch088.pk3"; do GD+=(--game-dir "$a"); done
for name in aggressor dm4ish; do
    "$CLI" convert "$PK3/oa081-pak1-maps.pk3:maps/$name.bsp" -o "$WORK/tex-$name.glb" "${GD[@]}" >"$WORK/tex.out"
    check "textured convert of $name" test $? = 0
    nimg=$(sed -n 's/.*materials, \([0-9]*\) images.*/\1/p' "$WORK/tex.out")
    check "$name: real textures embedded ($nimg images)" test "${nimg:-0}" -gt 5
done
# a game folder (as installed: baseoa/*.pk3 + baseoa/maps/NAME.bsp): its archives are searched,
# whether given with --game-dir or found as the map's maps/ folder's parent
mkdir -p "$WORK/baseoa/maps"
for a in "$PK3"/oa-pak*.pk3; do ln -sf "$a" "$WORK/baseoa/$(basename "$a" | sed 's/^oa-//')"; done
cp "$FETCHED/q3/oa081/dm6ish.bsp" "$WORK/baseoa/maps/"
"$CLI" convert "$WORK/baseoa/maps/dm6ish.bsp" -o "$WORK/tex-gamefolder.glb" >"$WORK/tex.out" 2>/dev/null
nimg=$(sed -n 's/.*materials, \([0-9]*\) images.*/\1/p' "$WORK/tex.out")
check "map in a game's maps/ folder finds the game's archives ($nimg images)" test "${nimg:-0}" -gt 5
"$CLI" convert "$FETCHED/q3/oa081/dm6ish.bsp" -o "$WORK/tex-gamedir.glb" --game-dir "$WORK/baseoa" >"$WORK/tex.out" 2>/dev/null
nimg2=$(sed -n 's/.*materials, \([0-9]*\) images.*/\1/p' "$WORK/tex.out")
check "--game-dir FOLDER searches the .pk3s inside it ($nimg2 images)" test "${nimg2:-0}" = "${nimg:-0}"
gltf_validate "$WORK"/tex-*.glb >"$WORK/texv.txt"
check "textured glbs valid" test $? = 0
# a game folder: a shader script maps the first shader to an image, the second shader is found by
# its own name as .tga (the folder is listed for scripts/*.shader, case-insensitively)
python3 - "$M" "$WORK/gamedir" <<'PYEOF'
import os, struct, sys
d = open(sys.argv[1], 'rb').read()
o, l = struct.unpack_from('<ii', d, 8 + 8)
names = [d[o + 72 * i:o + 72 * i + 64].split(b'\0')[0].decode() for i in range(l // 72)]
names = [n for n in names if n.startswith('textures/')][:2]
g = sys.argv[2]
def tga(path, rgb):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    hdr = struct.pack('<BBBHHBHHHHBB', 0, 0, 2, 0, 0, 0, 0, 0, 2, 2, 24, 0)
    open(path, 'wb').write(hdr + bytes(rgb[::-1]) * 4)
os.makedirs(f'{g}/Scripts', exist_ok=True)
open(f'{g}/Scripts/bktest.SHADER', 'w').write(
    f'// test\n{names[0]}\n{{\n\t{{\n\t\tmap $lightmap\n\t}}\n\t{{\n\t\tmap textures/bktest/red.tga\n\t}}\n}}\n')
tga(f'{g}/textures/bktest/red.tga', (255, 0, 0))
tga(f'{g}/{names[1]}.tga', (0, 255, 0))
open(f'{g}/names.txt', 'w').write('\n'.join(names))
PYEOF
"$CLI" convert "$M" -o "$WORK/gd.glb" --game-dir "$WORK/gamedir" >/dev/null 2>&1
check "textures from a game folder: shader script stage image and direct .tga" python3 -c "
import sys; sys.path.insert(0,'$BK_TESTS/q3'); import glbstat
j,_ = glbstat.load('$WORK/gd.glb')
n0, n1 = open('$WORK/gamedir/names.txt').read().split('\n')
by = {m['name']: m for m in j['materials']}
for n in (n0, n1):
    m = by[n]
    assert 'missing' not in m.get('extras', {}) and 'baseColorTexture' in m['pbrMetallicRoughness'], (n, m)
names = [im.get('name') for im in j['images']]
assert 'textures/bktest/red.tga' in names and n1 in names, names"
gltf_validate "$WORK/gd.glb" >/dev/null
check "game-folder glb valid" test $? = 0

# without any game data textures are placeholders with their names and "missing"
"$CLI" convert "$M" -o "$WORK/miss.glb" >/dev/null 2>&1
check "missing textures: placeholders named after the shader, marked missing" python3 -c "
import sys; sys.path.insert(0,'$BK_TESTS/q3'); import glbstat
j,_ = glbstat.load('$WORK/miss.glb')
ms = j['materials']
assert ms and all(m.get('extras',{}).get('missing') == 'true' or m.get('extras',{}).get('flare') for m in ms), ms[:2]
assert any(m['name'].startswith('textures/') for m in ms)"
# brightness follows the game: OpenArena (ioquake3) x4, Nexuiz (DarkPlaces) x2, unknown x2, recorded
gain_of() { python3 -c "
import sys; sys.path.insert(0,'$BK_TESTS/q3'); import glbstat
j,_ = glbstat.load('$1')
g = {m.get('extras',{}).get('lightmapGainBaked') for m in j['materials'] if 'lightmapGainBaked' in m.get('extras',{})}
e = {m.get('extras',{}).get('engine') for m in j['materials'] if 'engine' in m.get('extras',{})}
print(','.join(sorted(g)), ','.join(sorted(e)))"; }
"$CLI" convert "$M" -o "$WORK/oa.glb" --game-dir "$PK3/oa-pak4-textures.pk3" -q
check "OpenArena game data: ioquake3's x4" test "$(gain_of "$WORK/oa.glb")" = "4 ioquake3"
"$CLI" convert "$M" -o "$WORK/oa1.glb" --game-dir "$PK3/oa-pak4-textures.pk3" --overbright 1 -q
check "--overbright still decides" test "$(gain_of "$WORK/oa1.glb")" = "2 ioquake3"
mkdir -p "$WORK/plain"; cp "$M" "$WORK/plain/m.bsp"
"$CLI" convert "$WORK/plain/m.bsp" -o "$WORK/plain.glb" -q
check "a map of no known game: x2 and no engine named" test "$(gain_of "$WORK/plain.glb")" = "2 "
N=$FETCHED/q3/nexuiz/toxic.bsp
need_file "$N" "$PK3/nexuiz-data.pk3"
"$CLI" convert "$N" -o "$WORK/nx.glb" --game-dir "$PK3/nexuiz-data.pk3" -q --no-textures
check "Nexuiz game data: DarkPlaces' x2" test "$(gain_of "$WORK/nx.glb")" = "2 darkplaces"
bk_done
