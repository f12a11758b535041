"""Turning a map or model into a .glb: with the `bspkit` Python package when it imports, else with
the `bspkit` command-line tool (no Blender here: plain Python)."""
import json
import os
import shutil
import subprocess
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))


class ConvertError(RuntimeError):
    pass


def find_cli(preferred=""):
    """The bspkit program: PREFERRED (a preference), $BSPKIT_CLI, one shipped beside the add-on
    (bspkit_blender/bin/bspkit), one on PATH, or a build of the checkout the add-on lies in."""
    candidates = [preferred, os.environ.get("BSPKIT_CLI", ""),
                  os.path.join(HERE, "bin", "bspkit"), os.path.join(HERE, "bin", "bspkit.exe"),
                  shutil.which("bspkit") or "",
                  os.path.join(HERE, "..", "..", "build", "bspkit")]
    for c in candidates:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return os.path.abspath(c)
    return None


def package():
    """The bspkit Python package when it is importable and has the entry point we use."""
    try:
        import bspkit  # noqa: PLC0415 - optional dependency
    except Exception:  # noqa: BLE001 - any failure to import means: use the CLI
        return None
    return bspkit if callable(getattr(bspkit, "open", None)) else None


def pk3_maps(path):
    """The maps inside a Quake 3 archive, sorted."""
    try:
        with zipfile.ZipFile(path) as z:
            return sorted(n for n in z.namelist() if n.lower().startswith("maps/") and n.lower().endswith(".bsp"))
    except (OSError, zipfile.BadZipFile) as e:
        raise ConvertError(f"{path}: not a readable .pk3 ({e})") from e


def source_of(path, member=""):
    """What bspkit is given: a file, or ARCHIVE.pk3:maps/NAME.bsp for a map inside an archive
    (MEMBER, or the archive's first map)."""
    if not path.lower().endswith(".pk3"):
        return path
    maps = pk3_maps(path)
    if member:
        want = member if "/" in member else f"maps/{member}"
        want = want if want.lower().endswith(".bsp") else want + ".bsp"
        hit = [m for m in maps if m.lower() == want.lower()]
        if not hit:
            raise ConvertError(f"{path}: no map {want} inside (maps: {', '.join(maps) or 'none'})")
        return f"{path}:{hit[0]}"
    if not maps:
        raise ConvertError(f"{path}: no maps/*.bsp inside")
    return f"{path}:{maps[0]}"


# (Blender keeps the scale as a 32-bit float: 0.0254 comes back as 0.025399999..., the default)
def cli_args(src, out, game_dirs=(), wads=(), lightmaps=True, props=True, collision=False,
             entities=True, scale=0.0254):
    args = [src, "-o", out, "-q"]
    for d in game_dirs:
        args += ["--game-dir", d]
    for w in wads:
        args += ["--wad", w]
    if not lightmaps:
        args.append("--no-lightmaps")
    if not props:
        args.append("--no-props")
    if collision:
        args.append("--collision")
    if not entities:
        args.append("--no-entities")
    if abs(scale - 0.0254) > 1e-8:
        args += ["--scale", f"{float(scale):.7g}"]
    return args


def to_glb(src, out, cli="", use_package=True, **opt):
    """Convert SRC to the .glb OUT. Returns (how, messages): how is 'package' or the CLI's path.
    The package is used when it imports and only search paths are given (its to_gltf writes the
    bytes `bspkit convert` writes); otherwise the CLI."""
    # the package's entry point takes the search paths; the other options go through the CLI
    plain = opt.get("lightmaps", True) and opt.get("props", True) and not opt.get("collision") and \
        opt.get("entities", True) and abs(opt.get("scale", 0.0254) - 0.0254) < 1e-8
    pkg = package() if use_package and plain else None
    if pkg is not None:
        try:
            pkg.open(src, game_dirs=tuple(opt.get("game_dirs", ())), wads=tuple(opt.get("wads", ()))).to_gltf(out)
            return "package", ""
        except Exception as e:  # noqa: BLE001 - the CLI, when there is one, says it again or succeeds
            if not find_cli(cli):
                raise ConvertError(str(e)) from e
    exe = find_cli(cli)
    if not exe:
        raise ConvertError("bspkit not found: install the bspkit Python package, put the bspkit program "
                           "on PATH or beside the add-on (bspkit_blender/bin/), or set its path in the "
                           "add-on's preferences")
    p = subprocess.run([exe, "convert"] + cli_args(src, out, **opt), capture_output=True, text=True,
                       errors="replace", check=False)
    if p.returncode != 0 or not os.path.isfile(out):
        raise ConvertError((p.stderr or p.stdout or f"bspkit exited {p.returncode}").strip())
    return exe, p.stderr.strip()


def game_facts(src, cli="", use_package=True):
    """The game's facts for SRC from the library's version rows (eye_height, spawn_classes,
    hull_mins, hull_maxs): through the package, else `bspkit info --json`; {} when neither
    answers (a model, a texture) so nothing here keeps a list of its own."""
    pkg = package() if use_package else None
    if pkg is not None:
        try:
            return pkg.open(src).game or {}
        except Exception:  # noqa: BLE001 - the CLI may still answer
            pass
    exe = find_cli(cli)
    if not exe:
        return {}
    p = subprocess.run([exe, "info", "--json", src], capture_output=True, text=True, errors="replace", check=False)
    try:
        return json.loads(p.stdout).get("game") or {} if p.returncode == 0 else {}
    except ValueError:
        return {}
