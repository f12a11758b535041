#!/usr/bin/env bash
# Quake 3 maps as the engines draw them: skyboxes (six faces, tr_sky.c's orientation) and cloud
# layers, sky and stageless surfaces left out, shader stages read into base / lightmap / emissive
# / alpha modes (ioquake3), DarkPlaces' primary layer with NAME_norm / _gloss / _glow, the game's
# ambient and display gamma, movers where the game puts them at start, validator-clean output.
# Synthetic shader scripts and images over a real map's shader names, plus the real Nexuiz data
# and OpenArena maps of the corpus.
# args: CLI SHARED FETCHED WORK
source "$BK_TESTS/lib.sh"
bk_init "$@"
need_dir "$FETCHED/q3/oa081"
M=$FETCHED/q3/oa081/aggressor.bsp
PY="python3"
export PYTHONPATH=$BK_TESTS/q3

# ---- ioquake3 (a game folder named like OpenArena's): scripts and images made here -------------
G=$WORK/openarena/baseoa
mkdir -p "$G"
$PY - "$M" "$G" <<'PYEOF'
import os, struct, sys, json
bsp, g = sys.argv[1], sys.argv[2]
d = open(bsp, 'rb').read()
lumps = [struct.unpack_from('<ii', d, 8 + 8 * i) for i in range(17)]
o, l = lumps[1]
names = [d[o + 72 * i:o + 72 * i + 64].split(b'\0')[0].decode() for i in range(l // 72)]
so, sl = lumps[13]
use = {}
for i in range(sl // 104):
    sh, fog, typ, fv, nv, fi, ni, lm = struct.unpack_from('<8i', d, so + 104 * i)
    if typ in (1, 3) and lm >= 0:
        use[names[sh]] = use.get(names[sh], 0) + 1
lit = [n for n, _ in sorted(use.items(), key=lambda kv: -kv[1]) if 'sky' not in n][:8]
def tga(path, w, h, px):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    hdr = struct.pack('<BBBHHBHHHHBB', 0, 0, 2, 0, 0, 0, 0, 0, w, h, 32, 0x28)
    body = b''.join(bytes((b, gg, r, a)) for (r, gg, b, a) in px)
    open(path, 'wb').write(hdr + body)
solid = lambda c: [c] * 16
faces = {'rt': (255, 0, 0, 255), 'bk': (0, 255, 0, 255), 'lf': (0, 0, 255, 255),
         'ft': (255, 255, 0, 255), 'up': (0, 255, 255, 255), 'dn': (255, 0, 255, 255)}
for f, c in faces.items():
    tga(f'{g}/env/bktest/box_{f}.tga', 4, 4, solid(c))
tga(f'{g}/textures/bktest/cloud.tga', 4, 4, solid((60, 60, 80, 255)))
tga(f'{g}/textures/bktest/base.tga', 4, 4, solid((200, 100, 50, 255)))
tga(f'{g}/textures/bktest/dark.tga', 4, 4, solid((128, 128, 128, 255)))
tga(f'{g}/textures/bktest/glow.tga', 4, 4, solid((255, 200, 0, 255)))
tga(f'{g}/textures/bktest/grate.tga', 4, 4, [(90, 90, 90, 255 if i % 2 else 0) for i in range(16)])
tga(f'{g}/textures/bktest/glass.tga', 4, 4, solid((100, 150, 200, 128)))
tga(f'{g}/textures/bktest/flame.tga', 4, 4, solid((255, 128, 0, 255)))
S = {
  'sky': 'textures/skies/hellsky\n{\n surfaceparm sky\n skyparms env/bktest/box 512 -\n'
         ' { map textures/bktest/cloud.tga\n blendFunc add\n tcMod scale 2 2\n tcMod scroll 0.1 0 }\n}\n',
  # lightmap, then the texture as a filter, then a glow added after the lightmap
  'glow': '{ map $lightmap }\n{ map textures/bktest/base.tga\n blendFunc filter }\n'
          '{ map textures/bktest/glow.tga\n blendFunc add }',
  # texture, lightmap, then a second texture multiplied in (a filter stage is not the base)
  'filter': '{ map textures/bktest/base.tga }\n{ map $lightmap\n blendFunc filter }\n'
            '{ map textures/bktest/dark.tga\n blendFunc GL_DST_COLOR GL_ZERO }',
  'mask': '{ map textures/bktest/grate.tga\n alphaFunc GE128 }\n{ map $lightmap\n blendFunc filter\n depthFunc equal }',
  'blend': '{ map textures/bktest/glass.tga\n blendFunc blend }',
  'add': '{ map textures/bktest/flame.tga\n blendFunc GL_ONE GL_ONE }',
  # a glow added twice after the lightmap: brighter than 1
  'strong': '{ map $lightmap }\n{ map textures/bktest/base.tga\n blendFunc filter }\n'
            '{ map textures/bktest/glow.tga\n blendFunc add }\n{ map textures/bktest/glow.tga\n blendFunc add }',
  'fog': None,
  'caulk': None,
}
roles = list(S.keys())[1:]
text = S['sky']
pick = {}
for role, name in zip(roles, lit):
    pick[role] = name
    body = S[role]
    if role == 'fog':
        text += f'{name}\n{{\n surfaceparm fog\n fogparms ( 1 0 0 ) 512\n}}\n'
    elif role == 'caulk':
        text += f'{name}\n{{\n surfaceparm nodraw\n qer_editorimage textures/bktest/base.tga\n}}\n'
    else:
        text += f'{name}\n{{\n{body}\n}}\n'
os.makedirs(f'{g}/scripts', exist_ok=True)
open(f'{g}/scripts/bktest.shader', 'w').write(text)
json.dump(pick, open(f'{g}/roles.json', 'w'))
PYEOF
"$CLI" convert "$M" -o "$WORK/syn.glb" --game-dir "$G" >"$WORK/syn.out" 2>&1
check "convert with the synthetic game folder" test $? = 0
check "synthetic: shader stages, sky and hidden surfaces" $PY - "$WORK/syn.glb" "$G/roles.json" <<'PYEOF'
import glbstat, json, sys
j, b = glbstat.load(sys.argv[1])
roles = json.load(open(sys.argv[2]))
mats = j['materials']
by = {m['name']: m for m in mats}
imgname = lambda t: j['images'][j['textures'][t['index']]['source']]['name']
ok = True
def want(cond, what):
    global ok
    if not cond:
        print('FAIL:', what); ok = False
# skybox node: six faces with the farbox images, a cloud layer, skyParms recorded
sky = [n for n in j['nodes'] if n.get('name') == 'skybox']
want(len(sky) == 1, 'one skybox node')
n = sky[0]
want(n['extras'].get('skyParms') == 'env/bktest/box 512 -' and n['extras'].get('followCamera') == 'true', n.get('extras'))
prims = j['meshes'][n['mesh']]['primitives']
faces = [p for p in prims if mats[p['material']].get('extras', {}).get('sky') == 'box']
clouds = [p for p in prims if mats[p['material']].get('extras', {}).get('sky') == 'cloud']
want(len(faces) == 6 and len(clouds) == 1, f'{len(faces)} faces, {len(clouds)} clouds')
# each face's image, where its plane is and where its image's top-left corner is (engine axes:
# rt +X, bk +Y, lf -X, ft -Y, up +Z, dn -Z; glTF is (x, z, -y))
corner = {'rt': (1, 1, 1), 'bk': (-1, 1, 1), 'lf': (-1, -1, 1), 'ft': (1, -1, 1), 'up': (-1, 1, 1), 'dn': (1, 1, -1)}
for p in faces:
    m = mats[p['material']]
    f = m['extras']['skyFace']
    want(m['name'] == f'env/bktest/box_{f}' and imgname(m['pbrMetallicRoughness']['baseColorTexture']).startswith(f'env/bktest/box_{f}'), m['name'])
    want('KHR_materials_unlit' in m.get('extensions', {}), f'{f} unlit')
    pos = glbstat.accessor(j, b, p['attributes']['POSITION'])
    uv = glbstat.accessor(j, b, p['attributes']['TEXCOORD_0'])
    h = max(abs(c) for v in pos for c in v)
    tl = [pos[i] for i in range(len(uv)) if abs(uv[i][0]) < 1e-6 and abs(uv[i][1]) < 1e-6][0]
    e = (tl[0] / h, -tl[2] / h, tl[1] / h)   # back to engine axes
    want(all(abs(e[k] - corner[f][k]) < 1e-3 for k in range(3)), f'{f}: top-left corner at {e}, want {corner[f]}')
    # the faces look inwards: counter-clockwise seen from the centre
    idx = glbstat.accessor(j, b, p['indices'])
    a, bb, c = (pos[idx[0][0]], pos[idx[1][0]], pos[idx[2][0]])
    u = [bb[k] - a[k] for k in range(3)]; v = [c[k] - a[k] for k in range(3)]
    cr = (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])
    want(sum(cr[k] * a[k] for k in range(3)) < 0, f'{f} faces inwards')
cm = mats[clouds[0]['material']]
want(cm['extras'].get('blend') == 'add', 'cloud layer adds')
# the sky shader's own surfaces are not in the world; nor are the fog and stageless shaders'
world = [nd for nd in j['nodes'] if nd.get('name') == 'worldspawn'][0]
wmats = {mats[p['material']]['name'] for p in j['meshes'][world['mesh']]['primitives']}
want('textures/skies/hellsky' not in wmats, 'sky surfaces left out of the world')
want(roles['fog'] not in by and roles['caulk'] not in by, 'fog and stageless shaders not drawn')
# glow after the lightmap: base image, lightmap, emissive image
g = by[roles['glow']]
want(imgname(g['pbrMetallicRoughness']['baseColorTexture']) == 'textures/bktest/base.tga', 'glow: base is the filter stage image')
want('occlusionTexture' in g and 'emissiveTexture' in g and imgname(g['emissiveTexture']) == 'textures/bktest/glow.tga', 'glow: emissive')
# a second filter texture: composed with the base, still lightmapped
f = by[roles['filter']]
want(f['extras'].get('baseComposed') == 'true' and 'occlusionTexture' in f, 'filter: composed base, lightmapped')
want(by[roles['mask']].get('alphaMode') == 'MASK', 'alphaFunc: MASK')
bl = by[roles['blend']]
want(bl.get('alphaMode') == 'BLEND' and 'KHR_materials_unlit' in bl.get('extensions', {}) and 'occlusionTexture' not in bl,
     'blendFunc blend without a lightmap stage: BLEND, unlit')
ad = by[roles['add']]
want(ad.get('alphaMode') == 'BLEND' and ad['extras'].get('blend') == 'add', 'GL_ONE GL_ONE: additive')
st = by[roles['strong']]
want(st.get('extensions', {}).get('KHR_materials_emissive_strength', {}).get('emissiveStrength', 0) > 1, 'two glows: emissive strength > 1')
want('KHR_materials_emissive_strength' in j.get('extensionsUsed', []), 'extension declared')
sys.exit(0 if ok else 1)
PYEOF
gltf_validate "$WORK/syn.glb" >"$WORK/synv.txt" 2>&1
check "synthetic glb: Khronos validator clean" test $? = 0

# ---- movers at their start positions (OpenArena maps) ------------------------------------------
"$CLI" convert "$FETCHED/q3/oa081/oa_dm1.bsp" -o "$WORK/dm1.glb" --no-textures -q
"$CLI" convert "$FETCHED/q3/oa081/oa_ctf4ish.bsp" -o "$WORK/ctf4.glb" --no-textures -q
check "a door that starts open is moved by its size less the lip; a train sits at its first corner" \
    $PY - "$WORK/dm1.glb" "$FETCHED/q3/oa081/oa_dm1.bsp" "$WORK/ctf4.glb" "$FETCHED/q3/oa081/oa_ctf4ish.bsp" <<'PYEOF'
import glbstat, math, struct, sys, subprocess, json
def models(p):
    d = open(p, 'rb').read()
    o, l = struct.unpack_from('<ii', d, 8 + 7 * 8)
    return [struct.unpack_from('<6f', d, o + 40 * i) for i in range(l // 40)]
ok = True
# oa_dm1: func_door *2, spawnflags 1, angle 180, default lip 8: moves -(size_x - 8) along X
j, _ = glbstat.load(sys.argv[1])
mins_maxs = models(sys.argv[2])[2]
size_x = mins_maxs[3] - mins_maxs[0]
door = [n for n in j['nodes'] if n.get('extras', {}).get('classname') == 'func_door' and n['extras'].get('model') == '*2'][0]
t = door.get('translation', [0, 0, 0])
want = -(size_x - 8) * 0.0254
if not (abs(t[0] - want) < 1e-4 and abs(t[1]) < 1e-6 and abs(t[2]) < 1e-6):
    print('door', t, 'want', want); ok = False
if door['extras'].get('startPosition') != 'door starts open':
    print('door extras', door['extras']); ok = False
# oa_ctf4ish: func_train *2 (origin brush) placed at its target path_corner's origin
j, _ = glbstat.load(sys.argv[3])
trains = [n for n in j['nodes'] if n.get('extras', {}).get('classname') == 'func_train']
corners = {n['extras'].get('targetname'): n for n in j['nodes'] if n.get('extras', {}).get('classname') == 'path_corner'}
for tr in trains:
    c = corners.get(tr['extras'].get('target'))
    o = [float(v) for v in c['extras']['origin'].split()]
    want = [o[0] * 0.0254, o[2] * 0.0254, -o[1] * 0.0254]
    got = tr.get('translation', [0, 0, 0])
    if not all(abs(got[k] - want[k]) < 1e-3 for k in range(3)):
        print('train', tr['name'], got, want); ok = False
if not trains:
    print('no trains'); ok = False
sys.exit(0 if ok else 1)
PYEOF

# ---- DarkPlaces (Nexuiz data of the corpus): skybox, the game's ambient and gamma -------------
NX=$FETCHED/pk3/nexuiz-data.pk3
need_file "$NX" "$FETCHED/q3/nexuiz/bloodprison.bsp"
"$CLI" convert "$NX:maps/bloodprison.bsp" -o "$WORK/bp.glb" -q
check "convert a Nexuiz map with its game data" test $? = 0
check "Nexuiz: skybox faces, DarkPlaces ambient and display gamma recorded" $PY - "$WORK/bp.glb" <<'PYEOF'
import glbstat, sys
j, b = glbstat.load(sys.argv[1])
ok = True
sky = [n for n in j['nodes'] if n.get('name') == 'skybox']
names = sorted(j['materials'][p['material']]['name'] for p in j['meshes'][sky[0]['mesh']]['primitives']) if sky else []
want = sorted(f'env/stralenex8/darkblue_{f}' for f in ('rt', 'bk', 'lf', 'ft', 'up', 'dn'))
if names != want:
    print('sky faces', names); ok = False
if j['scenes'][0].get('extras', {}).get('displayGamma') != '1.125':
    print('scene extras', j['scenes'][0].get('extras')); ok = False
lit = [m for m in j['materials'] if 'occlusionTexture' in m]
if not lit or any(m['extras'].get('engine') != 'darkplaces' or m['extras'].get('lightmapAmbientBaked') != '0.0625' for m in lit):
    print('lit materials', [m.get('extras') for m in lit[:2]]); ok = False
world = [n for n in j['nodes'] if n.get('name') == 'worldspawn'][0]
wm = {j['materials'][p['material']]['name'] for p in j['meshes'][world['mesh']]['primitives']}
if 'textures/stralenex8/darkblue_sky' in wm:
    print('sky surfaces drawn'); ok = False
sys.exit(0 if ok else 1)
PYEOF
gltf_validate "$WORK/bp.glb" >"$WORK/bpv.txt" 2>&1
check "Nexuiz glb: validator clean" test $? = 0

# DarkPlaces' NAME_norm / NAME_gloss / NAME_glow beside a texture (a game folder named nexuiz)
D=$WORK/nexuiz/data
T=$FETCHED/q3/nexuiz/toxic.bsp
need_file "$T"
mkdir -p "$D"
$PY - "$T" "$D" <<'PYEOF'
import os, struct, sys
d = open(sys.argv[1], 'rb').read()
o, l = struct.unpack_from('<ii', d, 8 + 8)
names = [d[o + 72 * i:o + 72 * i + 64].split(b'\0')[0].decode() for i in range(l // 72)]
so, sl = struct.unpack_from('<ii', d, 8 + 13 * 8)
used = {names[struct.unpack_from('<i', d, so + 104 * i)[0]] for i in range(sl // 104)
        if struct.unpack_from('<8i', d, so + 104 * i)[7] >= 0}
name = sorted(n for n in used if n.startswith('textures/'))[0]
def tga(path, c):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    open(path, 'wb').write(struct.pack('<BBBHHBHHHHBB', 0, 0, 2, 0, 0, 0, 0, 0, 2, 2, 24, 0) + bytes(c[::-1]) * 4)
for suf, c in (('', (120, 120, 120)), ('_norm', (128, 128, 255)), ('_gloss', (60, 60, 60)), ('_glow', (255, 0, 0))):
    tga(f'{sys.argv[2]}/{name}{suf}.tga', c)
open(f'{sys.argv[2]}/name.txt', 'w').write(name)
PYEOF
"$CLI" convert "$T" -o "$WORK/dp.glb" --game-dir "$D" -q
check "DarkPlaces: normal map, specular colour and glow beside the texture" $PY - "$WORK/dp.glb" "$D/name.txt" <<'PYEOF'
import glbstat, sys
j, _ = glbstat.load(sys.argv[1])
name = open(sys.argv[2]).read()
m = [m for m in j['materials'] if m['name'] == name][0]
img = lambda t: j['images'][j['textures'][t['index']]['source']]['name']
ok = ('normalTexture' in m and img(m['normalTexture']).endswith('_norm')
      and img(m['extensions']['KHR_materials_specular']['specularColorTexture']).endswith('_gloss')
      and img(m['emissiveTexture']).endswith('_glow') and m['extras'].get('engine') == 'darkplaces'
      and 'KHR_materials_specular' in j['extensionsUsed'])
print(m) if not ok else None
sys.exit(0 if ok else 1)
PYEOF
gltf_validate "$WORK/dp.glb" >"$WORK/dpv.txt" 2>&1
check "DarkPlaces maps glb: validator clean" test $? = 0
bk_done
