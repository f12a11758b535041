"""Quake 1 / BSP2 maps in DarkPlaces and QuakeSpasm, for tests/fidelity/fidelity.py.

Debian ships no Quake data, so a throwaway id1 is made at run time, loose files:
  - progs.dat compiled by fteqcc from QuakeC written here: the Quake system globals and fields
    (their layout is what the engines check, by CRC) and functions that pin the player at the
    eye every frame (noclip, no velocity, view_ofs 0, angles with fixangle), set the light
    styles as the game has them at rest (STOCK_AT_REST; switchable lights as misc.qc sets them),
    and after a few seconds stuff "screenshot" and "quit";
  - gfx/palette.lmp: bspkit's own Quake palette (src/formats/quake/palette.c), so both sides
    colour the textures alike; gfx/colormap.lmp: identity rows (the GL engines only use its
    size and the fullbright range); gfx.wad with a blank 'conchars'; gfx/conback.lmp blank; progs/player.mdl, a triangle; gfx/pop.lmp (see registered_pop);
  - maps/NAME.bsp: the corpus map.
One engine run per view (the eye is compiled into progs.dat); nothing of Quake is committed.
"""
import os, pwd, re, shutil, signal, struct, subprocess, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ENGINES = {
    'q1dp': {'name': 'DarkPlaces', 'engine': '/usr/games/darkplaces', 'packages': ['darkplaces', 'fteqcc']},
    'q1qs': {'name': 'QuakeSpasm', 'engine': '/usr/games/quakespasm', 'packages': ['quakespasm', 'fteqcc']},
}
DEFAULT_MAPS = ['progs_dump_start', 'progs_dump_pd_heal', 'progs_dump_pd_breakables', 'ericw_q1_detail_fence2',
                'vektar_start', 'vektar_bg', 'ericw_q1_cube',
                'bsp_tool_quake_mp_lobby', 'unusual_bsp2_remakequake_mp_lobby']
# The light styles at rest, as bspkit draws a map by default (docs/gltf.md, light styles): the
# first letter of the stock pattern id's world.qc gives each of styles 0-11 (held, so the view does
# not depend on the moment of the screenshot); switchable styles (32-63) as misc.qc's light sets
# them: "a" when the light starts off (spawnflag 1), else "m".
STOCK_AT_REST = 'mmammjnmmama'
STYLES_QC = ' '.join('lightstyle(%d, "%s");' % (k, c) for k, c in enumerate(STOCK_AT_REST))
EYE_HEIGHT = 22.0                # Quake's view_ofs above the player origin
NUDGE = 1.0 / 32                 # V_CalcRefdef adds 1/32 to each axis of the eye

SYSDEFS = """
entity self, other, world;
float time, frametime, force_retouch;
string mapname;
float deathmatch, coop, teamplay, serverflags, total_secrets, total_monsters, found_secrets, killed_monsters;
float parm1, parm2, parm3, parm4, parm5, parm6, parm7, parm8, parm9, parm10, parm11, parm12, parm13, parm14,
      parm15, parm16;
vector v_forward, v_up, v_right;
float trace_allsolid, trace_startsolid, trace_fraction;
vector trace_endpos, trace_plane_normal;
float trace_plane_dist;
entity trace_ent;
float trace_inopen, trace_inwater;
entity msg_entity;
void() main; void() StartFrame; void() PlayerPreThink; void() PlayerPostThink; void() ClientKill;
void() ClientConnect; void() PutClientInServer; void() ClientDisconnect; void() SetNewParms;
void() SetChangeParms;
void end_sys_globals;
.float modelindex;
.vector absmin, absmax;
.float ltime, movetype, solid;
.vector origin, oldorigin, velocity, angles, avelocity, punchangle;
.string classname, model;
.float frame, skin, effects;
.vector mins, maxs, size;
.void() touch, use, think, blocked;
.float nextthink;
.entity groundentity;
.float health, frags, weapon;
.string weaponmodel;
.float weaponframe, currentammo, ammo_shells, ammo_nails, ammo_rockets, ammo_cells, items, takedamage;
.entity chain;
.float deadflag;
.vector view_ofs;
.float button0, button1, button2, impulse, fixangle;
.vector v_angle;
.float idealpitch;
.string netname;
.entity enemy;
.float flags, colormap, team, max_health, teleport_time, armortype, armorvalue, waterlevel, watertype,
       ideal_yaw, yaw_speed;
.entity aiment, goalentity;
.float spawnflags;
.string target, targetname;
.float dmg_take, dmg_save;
.entity dmg_inflictor, owner;
.vector movedir;
.string message;
.float sounds;
.string noise, noise1, noise2, noise3;
void end_sys_fields;
"""

PROG = """
void(entity e, vector o) setorigin = #2;
void(entity client, string s) stuffcmd = #21;
void(float style, string value) lightstyle = #35;
float shot;
void(entity e, string m) setmodel = #3;
void() main = {};
void() brush = { setmodel(self, self.model); };   // brush entities the player sees, still
void() func_wall = { brush(); }; void() func_illusionary = { brush(); }; void() func_breakable = { brush(); };
void() func_button = { brush(); }; void() func_door = { brush(); }; void() func_door_secret = { brush(); };
void() func_plat = { brush(); }; void() func_train = { brush(); }; void() func_episodegate = { brush(); };
void() func_bossgate = { brush(); }; void() func_detail = { brush(); };
string(string s) precache_model = #20;
.float style;
void() worldspawn = { precache_model("progs/player.mdl"); %(styles)s };
void() light = { if (self.style >= 32) { if (self.spawnflags & 1) lightstyle(self.style, "a"); else lightstyle(self.style, "m"); } };
void() light_fluoro = { light(); };
void() StartFrame = {}; void() ClientKill = {}; void() ClientConnect = {}; void() ClientDisconnect = {};
void() SetNewParms = {}; void() SetChangeParms = {};
void() pin = {
    self.movetype = 8; self.solid = 0; self.health = 100;   // alive: a dead player's view rolls
    self.velocity = '0 0 0'; self.view_ofs = '0 0 0';
    self.angles = '%(pitch)g %(yaw)g 0'; self.v_angle = self.angles; self.fixangle = 1;
    setorigin(self, '%(x)g %(y)g %(z)g');
};
void() PutClientInServer = { pin(); };
void() PlayerPreThink = { pin(); };
void() PlayerPostThink = {
    pin();
    if (time > %(shot_at)g && !shot) { stuffcmd(self, "%(shot_cmd)s\\n"); shot = 1; }
    if (time > %(quit_at)g && shot == 1) { stuffcmd(self, "quit\\n"); shot = 2; }
};
"""


def palette():
    text = open(os.path.join(ROOT, 'src', 'formats', 'quake', 'palette.c')).read()
    body = text[text.index('{', text.index('k_palette')):text.index('};')]
    pal = bytes(int(v) for v in re.findall(r'\b\d+\b', body))
    assert len(pal) == 768
    return pal


def wad2(lumps):
    """A WAD2 with the given (name, type, data) lumps."""
    out, dirs = bytearray(b'WAD2' + b'\0' * 8), []
    for name, typ, data in lumps:
        dirs.append(struct.pack('<iiiBBxx16s', len(out), len(data), len(data), typ, 0, name.encode()))
        out += data
    struct.pack_into('<ii', out, 4, len(dirs), len(out))
    return bytes(out) + b''.join(dirs)


def registered_pop(engine):
    """gfx/pop.lmp as the engine checks it (which marks registered data, and lets QuakeSpasm read
    loose files in subfolders): its table of 128 shorts, read out of the installed executable
    (found by its first 18 values) and written big-endian, or None."""
    data = open(engine, 'rb').read()
    at = data.find(struct.pack('<18H', *([0] * 10 + [0x6600, 0, 0, 0, 0x6600, 0, 0, 0x66])))
    if at < 0:
        return None
    return struct.pack('>128H', *struct.unpack_from('<128H', data, at))


def player_mdl():
    """progs/player.mdl (QuakeSpasm's server looks its index up): one 8x8 skin, one triangle."""
    head = struct.pack('<4si3f3ff3f8if', b'IDPO', 6, 1, 1, 1, 0, 0, 0, 1, 0, 0, 0,
                       1, 8, 8, 3, 1, 1, 0, 0, 1.0)
    skin = struct.pack('<i', 0) + bytes(64)
    st = struct.pack('<9i', 0, 0, 0, 0, 4, 0, 0, 0, 4)
    tri = struct.pack('<4i', 1, 0, 1, 2)
    frame = struct.pack('<i4B4B16s', 0, 0, 0, 0, 0, 1, 1, 1, 0, b'f') + bytes([0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0])
    return head + skin + st + tri + frame


def qpic(w, h):
    return struct.pack('<ii', w, h) + bytes(w * h)


def make_basedir(eng, mapname, bsp, view, shot_cmd, shot_at=3.0, quit_at=4.5):
    """A temporary base directory with an id1/ for one view; returns its path."""
    base = tempfile.mkdtemp(prefix='bk-q1-')
    src = os.path.join(base, 'qc')
    os.makedirs(src)
    with open(os.path.join(src, 'progs.src'), 'w') as f:
        f.write('../progs.dat\nbk.qc\n')
    x, y, z = view['origin']
    with open(os.path.join(src, 'bk.qc'), 'w') as f:
        f.write(SYSDEFS + PROG % {'x': x, 'y': y, 'z': z, 'yaw': view['yaw'], 'pitch': view['pitch'],
                                  'shot_cmd': shot_cmd, 'shot_at': shot_at, 'quit_at': quit_at,
                                  'styles': STYLES_QC})
    r = subprocess.run(['fteqcc'], cwd=src, capture_output=True, text=True)
    if r.returncode != 0 or not os.path.exists(os.path.join(base, 'progs.dat')):
        raise RuntimeError('fteqcc failed: ' + (r.stdout + r.stderr)[-600:])
    files = {
        'progs.dat': open(os.path.join(base, 'progs.dat'), 'rb').read(),
        'gfx/palette.lmp': palette(),
        'gfx/colormap.lmp': bytes(i for _ in range(64) for i in range(256)) + b'\x20',
        'gfx/conback.lmp': qpic(320, 200),
        'progs/player.mdl': player_mdl(),
        'gfx.wad': wad2([('conchars', 0x44, bytes(128 * 128))]),
        'maps/%s.bsp' % mapname: open(bsp, 'rb').read(),
    }
    # loose files in id1/, no pak: QuakeSpasm counts a pak0.pak's files, and one that is not
    # the original's 339 makes it a "modified game", which it refuses without a registered
    # gfx/pop.lmp; shareware (no pop.lmp) reads no loose file in a subfolder
    if eng['name'] == 'QuakeSpasm':
        files['quake.rc'] = b'stuffcmds\n'   # the command line's +commands run from quake.rc
    pop = registered_pop(eng['engine'])
    if pop:
        files['gfx/pop.lmp'] = pop
    for name, data in files.items():
        path = os.path.join(base, 'id1', name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'wb') as f:
            f.write(data)
    return base


def shoot(g, mapname, bsp, views, outdir, display, W, H, log):
    """One engine run per view; returns the shots (engine_image, eye, yaw, pitch)."""
    eng = ENGINES[g]
    shots = []
    for i, v in enumerate(views):
        for attempt in range(2):
            slow = 1 + 1.5 * attempt
            if g == 'q1dp':
                cmd = 'screenshot bkshot.tga'
            else:
                cmd = 'screenshot tga'
            base = make_basedir(eng, mapname, bsp, v, cmd, 3.0 * slow, 3.0 * slow + 1.5)
            env = dict(os.environ, DISPLAY=display, LIBGL_ALWAYS_SOFTWARE='1', HOME=base)
            if g == 'q1dp':
                args = [eng['engine'], '-basedir', base, '-userdir', base, '-nosound', '-nocdaudio',
                        '+vid_fullscreen', '0', '+vid_width', str(W), '+vid_height', str(H), '+fov', '90',
                        '+r_drawviewmodel', '0', '+crosshair', '0', '+viewsize', '120', '+con_notify', '0',
                        '+con_notifytime', '0', '+showfps', '0', '+scr_screenshot_jpeg', '0', '+map', mapname]
            else:
                args = [eng['engine'], '-basedir', base, '-nosound', '-nocdaudio', '-window', '-width', str(W),
                        '-height', str(H), '+fov', '90', '+r_drawviewmodel', '0', '+crosshair', '0',
                        '+viewsize', '120', '+con_notifytime', '0', '+scr_showfps', '0', '+map', mapname]
            logpath = os.path.join(base, 'log.txt')
            with open(logpath, 'w') as lf:
                p = subprocess.Popen(args, stdout=lf, stderr=subprocess.STDOUT, env=env, cwd=base,
                                     start_new_session=True)
                try:
                    p.wait(60 * slow)
                except subprocess.TimeoutExpired:
                    os.killpg(p.pid, signal.SIGKILL)
                    p.wait()
            imgs = [os.path.join(d, n) for d, _, ns in os.walk(base) for n in ns if n.endswith('.tga')]
            # QuakeSpasm writes spasmNNNN.tga into the user's ~/.quakespasm/id1 (Debian builds it
            # with user dirs, the home from the password file, not $HOME): taken away from there
            m = re.search(r'Wrote (spasm\d+\.tga)', open(logpath, errors='replace').read())
            if m and g == 'q1qs':
                qs = os.path.join(pwd.getpwuid(os.getuid()).pw_dir, '.quakespasm', 'id1', m.group(1))
                if os.path.exists(qs):
                    shutil.move(qs, os.path.join(base, m.group(1)))
                    imgs = [os.path.join(base, m.group(1))]
            if imgs:
                dst = os.path.join(outdir, f'{mapname}-{g}-{i}-engine.tga')
                shutil.copy(imgs[0], dst)
                eye = [v['origin'][k] + NUDGE for k in range(3)]
                shots.append({'engine_image': dst, 'eye': eye, 'yaw': v['yaw'], 'pitch': v['pitch'],
                              'spawn': v['origin'], 'spawn_yaw': v['yaw']})
                shutil.rmtree(base, ignore_errors=True)
                break
            shutil.copy(logpath, os.path.join(outdir, f'{mapname}-{g}-engine.log'))
            log(f'  {mapname} {g} view {i}: no screenshot (log in {outdir})')
            shutil.rmtree(base, ignore_errors=True)
    return shots
