#!/usr/bin/python3
"""Fidelity harness: a map drawn by the real engine next to bspkit's .glb drawn by three.js.

For each map and each of a few spawn points (info_player_deathmatch, else other player starts)
the engine renders the view from that spot under Xvfb with software GL (LIBGL_ALWAYS_SOFTWARE=1),
with noclip, HUD and gun off, fov 90, 640x480, and takes a screenshot:
  - OpenArena on ioquake3 (Debian 'openarena'): classic renderer (cl_renderer opengl1) unless
    --renderer says otherwise, full-resolution textures (r_picmip 0); 'setviewpos' places the player (the game pushes a teleported player
    forward a little, so the eye the engine really used is read back (the snapshots' origin, printed
    in full by cl_shownet 2, checked against 'viewpos') and that is
    the camera bspkit's picture uses); pitch is always 0 there.
  - Nexuiz on DarkPlaces (Debian 'nexuiz'): the player edict's origin, velocity and angles are
    set with prvm_edictset (pitch can be given), and read back with prvm_edictget.
  - Quake 1 / BSP2 maps (--game q1dp, q1qs; the corpus' quake1/ folder) in DarkPlaces and
    QuakeSpasm (Debian 'darkplaces', 'quakespasm'; fteqcc compiles a progs.dat that pins the
    player at the eye): see quake1.py.
Each view (the engine's screenshot taken once) is drawn by three.js from bspkit's .glb AND by
'bspkit render' (the software renderer, with the same game data), each compared with it.
Items are switched off in both games (disable_<item> cvars in OpenArena, g_pickup_items 0 in
Nexuiz), so the pictures show the map. bspkit converts the map with its defaults (plus the game
data as --game-dir) and tests/tools/render.mjs draws the .glb from the same eye, yaw, pitch and
field of view (--mode full: texture x lightmap the engines' way). Printed per view: RMSE over
RGB (0..1) and the ratio of mean brightness (bspkit / engine); written: OUT/NAME-N-threejs-sbs.png
and OUT/NAME-N-render-sbs.png (engine left, bspkit right), OUT/results.json, OUT/results.md.

Installs what is missing with apt-get (openarena, nexuiz, xvfb, python3-numpy, python3-pil)
when it can; exits 77 (skip) when it cannot. Not part of 'make test': one view takes ~20 s
(but the Quake 1 part runs as the slow test fidelity_q1 on two maps, see tests/CMakeLists.txt).

usage: tests/fidelity/fidelity.py [--game oa|nexuiz|q1dp|q1qs|q1|all] [--maps m1,m2] [--spawns 2]
                                  [--out DIR] [--bspkit PATH] [--renderer opengl1|opengl2]
                                  [--pitch DEG] [--keep]
"""
import argparse, glob, json, os, re, shutil, signal, subprocess, sys, tempfile, time

sys.dont_write_bytecode = True   # no __pycache__ in the source tree from importing quake1
import quake1  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
W, H = 640, 480

DEFAULT_MAPS = {
    'oa': ['oa_dm1', 'oa_dm2', 'oa_dm4', 'oa_ctf2', 'aggressor', 'dm4ish', 'oa_bases3', 'kaos2'],
    'nexuiz': ['toxic', 'aneurysm', 'downer', 'runningman', 'soylent', 'dieselpower'],
}
GAMES = {
    'oa': {'name': 'ioquake3', 'packages': ['openarena'], 'engine': '/usr/lib/ioquake3/ioquake3',
           'data': '/usr/share/games/openarena/baseoa', 'basepath': '/usr/lib/openarena'},
    'nexuiz': {'name': 'DarkPlaces', 'packages': ['nexuiz'], 'engine': '/usr/games/darkplaces',
               'data': '/usr/share/games/nexuiz/data', 'basepath': '/usr/share/games/nexuiz'},
}


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def skip(why):
    print(f'SKIP: {why}')
    sys.exit(77)


NO_INSTALL = '--no-install' in sys.argv


def apt_install(pkgs):
    if NO_INSTALL:
        return False
    missing = [p for p in pkgs if subprocess.run(['dpkg-query', '-W', '-f=${Status}', p], capture_output=True,
                                                   text=True).stdout.find('install ok installed') < 0]
    if not missing:
        return True
    sudo = [] if os.geteuid() == 0 else (['sudo', '-n'] if shutil.which('sudo') else None)
    if sudo is None:
        return False
    log('installing:', ' '.join(missing))
    env = dict(os.environ, DEBIAN_FRONTEND='noninteractive')
    subprocess.run(sudo + ['apt-get', 'update', '-qq'], env=env, capture_output=True)
    r = subprocess.run(sudo + ['apt-get', 'install', '-y', '-qq', '--no-install-recommends'] + missing, env=env,
                       capture_output=True, text=True)
    return r.returncode == 0


def ensure_python_deps():
    try:
        import numpy, PIL  # noqa: F401
        return
    except ImportError:
        pass
    if not apt_install(['python3-numpy', 'python3-pil']):
        skip('python3-numpy / python3-pil missing and cannot be installed (scripts/install-deps --fidelity)')
    os.execv('/usr/bin/python3', ['/usr/bin/python3'] + sys.argv)


class Xvfb:
    def __init__(self):
        self.proc = None
        self.display = None

    def __enter__(self):
        for n in range(91, 120):
            if not os.path.exists(f'/tmp/.X{n}-lock'):
                self.display = f':{n}'
                self.proc = subprocess.Popen(['Xvfb', self.display, '-screen', '0', '1024x768x24', '-nolisten', 'tcp'],
                                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                time.sleep(1.5)
                if self.proc.poll() is None:
                    return self
        raise RuntimeError('no free X display for Xvfb')

    def __exit__(self, *a):
        if self.proc:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()


def find_map(data, name):
    """The .pk3 holding maps/NAME.bsp (later archives first, as the engines search)."""
    import zipfile
    for pk3 in sorted(glob.glob(os.path.join(data, '*.pk3')), reverse=True):
        try:
            with zipfile.ZipFile(pk3) as z:
                if f'maps/{name}.bsp' in z.namelist():
                    return pk3
        except zipfile.BadZipFile:
            pass
    return None


def spawns_of(bspkit, src, count):
    out = subprocess.run([bspkit, 'entities', '--json', src], capture_output=True, text=True).stdout
    ents = [dict(e) for e in json.loads(out)]   # [key, value] pairs: the last value of a key wins
    pick = []
    for cls in (r'^info_player_deathmatch$', r'^info_player_start$', r'^(info_player_|team_CTF_)'):
        pick = [e for e in ents if re.match(cls, e.get('classname', '')) and 'origin' in e]
        if pick:
            break
    items = sorted({e['classname'] for e in ents
                    if re.match(r'^(weapon_|ammo_|item_|holdable_)', e.get('classname', ''))})
    chosen = []
    for i in range(count):
        if not pick:
            break
        e = pick[(i * len(pick)) // count]
        o = [float(v) for v in e['origin'].split()]
        yaw = float(e.get('angle', '0') or 0)
        if 'angles' in e:
            yaw = float(e['angles'].split()[1])
        chosen.append({'origin': o, 'yaw': yaw})
    return chosen, items


def wait_for(path, pattern, timeout, start=0):
    t0 = time.time()
    while time.time() - t0 < timeout:
        try:
            with open(path, errors='replace') as f:
                f.seek(start)
                text = f.read()
            m = re.search(pattern, text)
            if m:
                return m, start + m.end()
        except FileNotFoundError:
            pass
        time.sleep(0.2)
    return None, start


def exact_origin(logpath, start, end):
    """The player's origin (and viewheight) as the last snapshots between two log offsets
    printed them (cl_shownet 2): {0: x, 1: y, 2: z, 'viewheight': h}, fields not seen left out."""
    with open(logpath, errors='replace') as f:
        f.seek(start)
        text = f.read(end - start)
    got = {'viewheight': 26.0}   # DEFAULT_VIEWHEIGHT, unless a snapshot says otherwise
    for m in re.finditer(r'\b(origin\[([012])\]|viewheight):(-?\d+(?:\.\d*)?)', text):
        got[int(m.group(2)) if m.group(2) else 'viewheight'] = float(m.group(3))
    return got


def shoot_ioq3(game, mapname, views, items, outdir, display, renderer, extra=()):
    """One ioquake3 session: the map loaded once, one screenshot per view."""
    home = tempfile.mkdtemp(prefix='bk-ioq3-')
    env = dict(os.environ, DISPLAY=display, LIBGL_ALWAYS_SOFTWARE='1')
    # the engine keeps only 32 '+' commands from its command line: the settings go in a config
    sets = {'cl_motd': '0', 'r_mode': '-1', 'r_customwidth': str(W), 'r_customheight': str(H),
            'r_fullscreen': '0', 'com_introplayed': '1', 'cg_drawGun': '0', 'cg_draw2D': '0', 'cg_fov': '90',
            'con_notifytime': '0', 'sv_pure': '0', 'bot_enable': '0',
            'r_picmip': '0'}   # full-resolution textures, as bspkit writes them (OpenArena's default is 1)
    sets.update({f'disable_{it}': '1' for it in items})
    sets.update(dict(extra))
    os.makedirs(os.path.join(home, 'baseoa'))
    with open(os.path.join(home, 'baseoa', 'bkshot.cfg'), 'w') as f:
        f.write(''.join(f'set {k} "{v}"\n' for k, v in sets.items()) + f'devmap {mapname}\n')
    args = [game['engine'], '+set', 'com_basegame', 'baseoa', '+set', 'fs_basepath', game['basepath'],
            '+set', 'fs_homepath', home, '+set', 'com_legacyprotocol', '71', '+set', 'com_protocol', '71',
            '+set', 's_initsound', '0', '+set', 'cl_renderer', renderer, '+exec', 'bkshot.cfg']
    logpath = os.path.join(home, 'log.txt')
    lf = open(logpath, 'w')
    p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=lf, stderr=subprocess.STDOUT, env=env, text=True,
                         start_new_session=True)
    shots = []
    try:
        m, pos = wait_for(logpath, r'entered the game', 300)
        if not m:
            raise RuntimeError(f'ioquake3 did not enter {mapname}')
        time.sleep(2)

        def cmd(c):
            p.stdin.write(c + '\n')
            p.stdin.flush()

        cmd('noclip')
        for i, v in enumerate(views):
            o, yaw = v['origin'], v['yaw']
            target = list(o)
            eye = None
            # setviewpos pushes the player forward; read where the eye ended up, correct once.
            # 'viewpos' prints the eye truncated to whole units, and at 100 units a unit is 3
            # pixels: the exact origin comes from the snapshots (cl_shownet 2 prints each
            # playerstate field that changes, floats in full), the eye is origin + viewheight.
            for attempt in range(2):
                start = pos
                cmd('cl_shownet 2')
                cmd(f'setviewpos {target[0]:.0f} {target[1]:.0f} {target[2]:.0f} {yaw:.0f}')
                time.sleep(3)
                cmd('cl_shownet 0')
                cmd('viewpos')
                m, pos = wait_for(logpath, r'\((-?\d+) (-?\d+) (-?\d+)\) : (-?\d+)', 20, pos)
                if not m:
                    raise RuntimeError('no viewpos answer')
                eye = [float(m.group(k)) for k in (1, 2, 3)]
                exact = exact_origin(logpath, start, pos)
                for k in range(3):
                    if k in exact:
                        e = exact[k] + (exact['viewheight'] if k == 2 else 0.0)
                        if int(e) == int(eye[k]):    # the same place as viewpos says, to the unit
                            eye[k] = e
                drift = [eye[0] - o[0], eye[1] - o[1]]
                target = [o[0] - drift[0], o[1] - drift[1], o[2]]
            # the view angle is a 16-bit fraction of a turn (ANGLE2SHORT), as the renderer gets it
            got_yaw = (int(yaw * 65536 / 360) & 65535) * 360.0 / 65536
            if got_yaw > 180:
                got_yaw -= 360
            name = f'bkshot{i}'
            cmd(f'screenshot {name}')
            m, pos = wait_for(logpath, rf'Wrote screenshots/{name}\.tga', 30, pos)
            if not m:
                raise RuntimeError('no screenshot')
            src = os.path.join(home, 'baseoa', 'screenshots', name + '.tga')
            dst = os.path.join(outdir, f'{mapname}-{i}-engine.tga')
            shutil.copy(src, dst)
            shots.append({'engine_image': dst, 'eye': eye, 'yaw': got_yaw, 'pitch': 0.0,
                          'spawn': o, 'spawn_yaw': yaw})
        cmd('quit')
        p.wait(30)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGTERM)
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
        lf.close()
        if len(shots) < len(views):
            shutil.copy(logpath, os.path.join(outdir, f'{mapname}-engine.log'))
        shutil.rmtree(home, ignore_errors=True)
    return shots


def shoot_dp(game, mapname, views, items, outdir, display, pitch, extra=(), start=12.0):
    """One DarkPlaces session per map, driven by deferred commands in maps/NAME.cfg (which the
    game runs when the map has loaded); tried again with longer waits when a screenshot is
    missing (a loaded machine)."""
    for attempt in range(2):
        shots = _shoot_dp(game, mapname, views, outdir, display, pitch, extra, start * (1 + 1.5 * attempt))
        if len(shots) == len(views):
            break
    return shots


def _shoot_dp(game, mapname, views, outdir, display, pitch, extra, start):
    home = tempfile.mkdtemp(prefix='bk-dp-')
    os.makedirs(os.path.join(home, 'data', 'maps'))
    env = dict(os.environ, DISPLAY=display, LIBGL_ALWAYS_SOFTWARE='1')
    t = start   # after the player has joined and the welcome messages are gone
    lines = []  # Nexuiz puts the joining player in observer mode: already flying, no noclip needed
    for i, v in enumerate(views):
        o, yaw = v['origin'], v['yaw']
        lines += [f'defer {t:.1f} "prvm_edictset server 1 origin \\"{o[0]:g} {o[1]:g} {o[2]:g}\\""',
                  f'defer {t:.1f} "prvm_edictset server 1 velocity \\"0 0 0\\""',
                  f'defer {t:.1f} "prvm_edictset server 1 angles \\"{pitch:g} {yaw:g} 0\\""',
                  f'defer {t:.1f} "prvm_edictset server 1 fixangle 1"',
                  f'defer {t + 2:.1f} "echo BKVIEW {i}"',
                  f'defer {t + 2:.1f} "prvm_edictget server 1 origin"',
                  f'defer {t + 2:.1f} "prvm_edictget server 1 view_ofs"',
                  f'defer {t + 2.5:.1f} "screenshot bkshot{i}.tga"']
        t += 4
    lines.append(f'defer {t:.1f} "quit"')
    with open(os.path.join(home, 'data', 'maps', mapname + '.cfg'), 'w') as f:
        f.write('\n'.join(lines) + '\n')
    args = [game['engine'], '-nexuiz', '-basedir', game['basepath'], '-userdir', home, '-nosound',
            '+vid_fullscreen', '0', '+vid_width', str(W), '+vid_height', str(H), '+sv_cheats', '1',
            '+fov', '90', '+r_drawviewmodel', '0', '+crosshair', '0', '+viewsize', '120',
            '+con_notify', '0', '+con_notifytime', '0', '+showfps', '0', '+g_pickup_items', '0',
            '+scr_centertime', '0',
            ] + [x for k, v in extra for x in ('+' + k, v)] + ['+map', mapname]
    logpath = os.path.join(home, 'log.txt')
    with open(logpath, 'w') as lf:
        p = subprocess.Popen(args, stdout=lf, stderr=subprocess.STDOUT, env=env, start_new_session=True)
        try:
            p.wait(t + 180)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    text = open(logpath, errors='replace').read()
    shots = []
    for i, v in enumerate(views):
        m = re.search(rf'BKVIEW {i}\s*\n\s*(\S+) (\S+) (\S+)\s*\n\s*(\S+) (\S+) (\S+)', text)
        src = os.path.join(home, 'data', f'bkshot{i}.tga')
        if not m or not os.path.exists(src):
            shutil.copy(logpath, os.path.join(outdir, f'{mapname}-engine.log'))
            log(f'  {mapname} view {i}: no screenshot (log in {outdir})')
            continue
        org = [float(m.group(k)) for k in (1, 2, 3)]
        ofs = [float(m.group(k)) for k in (4, 5, 6)]
        eye = [org[k] + ofs[k] for k in range(3)]
        dst = os.path.join(outdir, f'{mapname}-{i}-engine.tga')
        shutil.copy(src, dst)
        shots.append({'engine_image': dst, 'eye': eye, 'yaw': v['yaw'], 'pitch': pitch,
                      'spawn': v['origin'], 'spawn_yaw': v['yaw']})
    shutil.rmtree(home, ignore_errors=True)
    return shots


def render_glb(glb, shot, outpng):
    cam = '%g %g %g %g %g' % (*shot['eye'], shot['yaw'], shot['pitch'])
    tmp = tempfile.mkdtemp(prefix='bk-render-')
    r = subprocess.run(['node', os.path.join(ROOT, 'tests', 'tools', 'render.mjs'), '--out', tmp, '--mode', 'full',
                        '--size', f'{W}x{H}', '--fov', '90', '--camera', cam, '--min-coverage', '0', glb],
                       capture_output=True, text=True)
    pngs = glob.glob(os.path.join(tmp, '*.png'))
    if r.returncode != 0 or not pngs:
        shutil.rmtree(tmp, ignore_errors=True)
        raise RuntimeError('render.mjs failed: ' + (r.stdout + r.stderr)[-400:])
    shutil.move(pngs[0], outpng)
    shutil.rmtree(tmp, ignore_errors=True)


def render_bspkit(bspkit, src, shot, outpng, extra=()):
    r = subprocess.run([bspkit, 'render', src, '-o', outpng, '--eye'] + ['%.6f' % v for v in shot['eye']] +
                       ['--yaw', '%g' % shot['yaw'], '--pitch', '%g' % shot['pitch'], '--size', f'{W}x{H}',
                        '--fov', '90'] + list(extra), capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError('bspkit render failed: ' + r.stderr[-400:])


def run_q1(a, g, display, results):
    """Quake 1 maps of the corpus in one engine: each view drawn by three.js and bspkit render."""
    eng = quake1.ENGINES[g]
    if not os.path.isdir(a.q1_corpus):
        log(f'SKIP {g}: no Quake 1 maps in {a.q1_corpus}')
        return False
    if (not os.path.exists(eng['engine']) or not shutil.which('fteqcc')) and not apt_install(eng['packages']):
        log(f'SKIP {g}: {" ".join(eng["packages"])} cannot be installed')
        return False
    for name in (a.maps.split(',') if a.maps else quake1.DEFAULT_MAPS):
        src = os.path.join(a.q1_corpus, name + '.bsp')
        if not os.path.exists(src):
            log(f'{g} {name}: {src} missing')
            continue
        views, _ = spawns_of(a.bspkit, src, a.spawns)
        if not views:
            log(f'{g} {name}: no spawn points')
            continue
        for v in views:
            v['origin'] = [v['origin'][0], v['origin'][1], v['origin'][2] + quake1.EYE_HEIGHT]
            v['pitch'] = a.pitch
        glb = os.path.join(a.out, f'{name}.glb')
        r = subprocess.run([a.bspkit, 'convert', src, '-o', glb, '-q'] + a.convert_arg, capture_output=True, text=True)
        if r.returncode != 0:
            log(f'{g} {name}: convert failed: {r.stderr[-300:]}')
            continue
        log(f'{g} {name}: {len(views)} views')
        try:
            shots = quake1.shoot(g, name, src, views, a.out, display, W, H, log)
        except Exception as e:  # noqa: BLE001
            log(f'{g} {name}: engine failed: {e}')
            continue
        a.missing += len(views) - len(shots)
        for i, s in enumerate(shots):
            for renderer in ('three.js', 'bspkit'):
                tag = 'threejs' if renderer == 'three.js' else 'render'
                bkpng = os.path.join(a.out, f'{name}-{g}-{i}-{tag}.png')
                if renderer == 'three.js':
                    render_glb(glb, s, bkpng)
                else:
                    render_bspkit(a.bspkit, src, s, bkpng)
                sbs = os.path.join(a.out, f'{name}-{g}-{i}-{tag}-sbs.png')
                rmse, ratio, ma, mb = compare(s['engine_image'], bkpng, sbs)
                results.append({'game': g, 'engine': eng['name'], 'renderer': renderer, 'map': name, 'view': i,
                                'eye': s['eye'], 'yaw': s['yaw'], 'pitch': s['pitch'], 'rmse': round(rmse, 4),
                                'brightness_ratio': round(ratio, 3), 'engine_mean': round(ma, 1),
                                'bspkit_mean': round(mb, 1), 'image': sbs})
                print(f'{eng["name"]:10s} {renderer:8s} {name:34s} view {i}  eye '
                      f'{" ".join("%g" % v for v in s["eye"]):>26s} yaw {s["yaw"]:5g}  RMSE {rmse:.4f}  '
                      f'brightness {ratio:.3f}', flush=True)
                if not a.keep:
                    os.remove(bkpng)
        if not a.keep:
            for s in shots:
                os.remove(s['engine_image'])
    return True


def compare(engine_img, bk_img, sbs):
    import numpy as np
    from PIL import Image
    a = np.asarray(Image.open(engine_img).convert('RGB').resize((W, H))).astype(np.float64)
    b = np.asarray(Image.open(bk_img).convert('RGB').resize((W, H))).astype(np.float64)
    rmse = float(np.sqrt(((a - b) ** 2).mean()) / 255.0)
    ratio = float(b.mean() / max(a.mean(), 1e-6))
    Image.fromarray(np.concatenate([a, b], 1).astype(np.uint8)).save(sbs)
    return rmse, ratio, float(a.mean()), float(b.mean())


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--game', default='all', choices=['oa', 'nexuiz', 'q1dp', 'q1qs', 'q1', 'all'])
    ap.add_argument('--q1-corpus', default=os.path.join(os.path.dirname(ROOT), 'shared', 'corpus', 'quake1'),
                    help='the folder of the Quake 1 maps (default: ../shared/corpus/quake1)')
    ap.add_argument('--maps', default='')
    ap.add_argument('--spawns', type=int, default=2)
    ap.add_argument('--out', default=os.path.join(ROOT, 'build', 'fidelity'))
    ap.add_argument('--bspkit', default=os.path.join(ROOT, 'build', 'bspkit'))
    ap.add_argument('--renderer', default='opengl1')
    ap.add_argument('--pitch', type=float, default=0.0, help='view pitch for DarkPlaces (ioquake3: always 0)')
    ap.add_argument('--keep', action='store_true', help='keep the engine screenshots and bspkit renders')
    ap.add_argument('--set', nargs=2, action='append', default=[], metavar=('CVAR', 'VALUE'),
                    help='an engine cvar for the screenshots (repeatable)')
    ap.add_argument('--no-install', action='store_true', help='install nothing: skip what is missing')
    ap.add_argument('--max-rmse', type=float, default=None,
                    help='exit 1 when a view is missing or its RMSE is above this (the fidelity_q1 test)')
    ap.add_argument('--convert-arg', action='append', default=[], help='an extra bspkit convert option')
    a = ap.parse_args()
    a.missing = 0
    ensure_python_deps()
    if not os.path.exists(a.bspkit):
        skip(f'{a.bspkit} not built')
    if not shutil.which('node') or not os.path.isdir(os.path.join(ROOT, 'tests', 'tools', 'node_modules', 'three')):
        skip('node / tests/tools node_modules missing (scripts/install-deps --test)')
    games = {'all': ['oa', 'nexuiz', 'q1dp', 'q1qs'], 'q1': ['q1dp', 'q1qs']}.get(a.game, [a.game])
    if not shutil.which('Xvfb') and not apt_install(['xvfb']):
        skip('Xvfb missing and cannot be installed (scripts/install-deps --fidelity)')
    os.makedirs(a.out, exist_ok=True)
    results, ran = [], 0
    with Xvfb() as x:
        for g in games:
            if g in quake1.ENGINES:
                ran += run_q1(a, g, x.display, results)
                continue
            game = GAMES[g]
            if not os.path.exists(game['engine']) and not apt_install(game['packages']):
                log(f'SKIP {g}: {" ".join(game["packages"])} cannot be installed')
                continue
            ran += 1
            maps = a.maps.split(',') if a.maps else DEFAULT_MAPS[g]
            for name in maps:
                pk3 = find_map(game['data'], name)
                if not pk3:
                    log(f'{g} {name}: not in {game["data"]}')
                    continue
                src = f'{pk3}:maps/{name}.bsp'
                views, items = spawns_of(a.bspkit, src, a.spawns)
                if not views:
                    log(f'{g} {name}: no spawn points')
                    continue
                glb = os.path.join(a.out, f'{name}.glb')
                r = subprocess.run([a.bspkit, 'convert', src, '-o', glb, '--game-dir', game['data'], '-q'] + a.convert_arg,
                                   capture_output=True, text=True)
                if r.returncode != 0:
                    log(f'{g} {name}: convert failed: {r.stderr[-300:]}')
                    continue
                log(f'{g} {name}: {len(views)} views')
                try:
                    if g == 'oa':
                        shots = shoot_ioq3(game, name, views, items, a.out, x.display, a.renderer, a.set)
                    else:
                        shots = shoot_dp(game, name, views, items, a.out, x.display, a.pitch, a.set)
                except Exception as e:  # noqa: BLE001
                    log(f'{g} {name}: engine failed: {e}')
                    continue
                for i, s in enumerate(shots):
                    for renderer in ('three.js', 'bspkit'):
                        tag = 'threejs' if renderer == 'three.js' else 'render'
                        bkpng = os.path.join(a.out, f'{name}-{i}-{tag}.png')
                        try:
                            if renderer == 'three.js':
                                render_glb(glb, s, bkpng)
                            else:
                                render_bspkit(a.bspkit, src, s, bkpng, ['--game-dir', game['data']] + a.convert_arg)
                        except RuntimeError as e:
                            log(f'{g} {name} view {i} {renderer}: {e}')
                            a.missing += 1
                            continue
                        sbs = os.path.join(a.out, f'{name}-{i}-{tag}-sbs.png')
                        rmse, ratio, ma, mb = compare(s['engine_image'], bkpng, sbs)
                        row = {'game': g, 'engine': game['name'], 'renderer': renderer, 'map': name, 'view': i,
                               'eye': s['eye'], 'yaw': s['yaw'], 'pitch': s['pitch'], 'rmse': round(rmse, 4),
                               'brightness_ratio': round(ratio, 3), 'engine_mean': round(ma, 1),
                               'bspkit_mean': round(mb, 1), 'image': sbs}
                        results.append(row)
                        print(f'{g:7s} {renderer:8s} {name:16s} view {i}  eye '
                              f'{" ".join("%g" % v for v in s["eye"]):>22s} yaw {s["yaw"]:5g}'
                              f'  RMSE {rmse:.4f}  brightness {ratio:.3f}', flush=True)
                        if not a.keep:
                            os.remove(bkpng)
                    if not a.keep:
                        os.remove(s['engine_image'])
    with open(os.path.join(a.out, 'results.json'), 'w') as f:
        json.dump(results, f, indent=1)
    with open(os.path.join(a.out, 'results.md'), 'w') as f:
        f.write('| game | renderer | map | view | eye (x y z) | yaw | RMSE | brightness (bspkit/engine) |\n'
                '|---|---|---|---|---|---|---|---|\n')
        for r in results:
            f.write(f"| {r.get('engine', r['game'])} | {r.get('renderer', 'three.js')} | {r['map']} | {r['view']} | {' '.join('%g' % v for v in r['eye'])} | {r['yaw']:g} "
                    f"| {r['rmse'] * 100:.1f}% | {r['brightness_ratio']:.2f} |\n")
    if results:
        import statistics
        print(f'{len(results)} views: median RMSE {statistics.median(r["rmse"] for r in results):.4f}, '
              f'median brightness {statistics.median(r["brightness_ratio"] for r in results):.3f}; '
              f'within 4% RMSE: {sum(r["rmse"] <= 0.04 for r in results)}, within 15% brightness: '
              f'{sum(abs(r["brightness_ratio"] - 1) <= 0.15 for r in results)}')
    if not ran:
        skip('no engine could be installed, or no maps (scripts/install-deps --fidelity; the Quake 1 corpus)')
    if a.max_rmse is not None:
        bad = [r for r in results if r['rmse'] > a.max_rmse]
        for r in bad:
            log(f"FAIL {r['game']} {r['map']} view {r['view']} {r.get('renderer', 'three.js')}: "
                f"RMSE {r['rmse']:.4f} > {a.max_rmse}")
        missing = a.missing
        if bad or missing:
            log(f'FAIL: {len(bad)} views above {a.max_rmse} RMSE, {missing} views without a screenshot')
            return 1
    return 0 if results else 1


if __name__ == '__main__':
    sys.exit(main())
