"""Object lifetime and threads (issue #37: F1, F2, F7, F12 of the 2026-11-28 red team): every
accessor after close(), after `del` of the map with its arrays still held, during close() from
8 threads, scenes from 8 threads on one LZMA Source map, and bad arguments. Each call either
works (arrays over the library's memory keep it) or raises bspkit.Error; under the sanitizer
build (ctest `python` in build-asan) a read of freed memory aborts the run."""
import gc
import glob
import os
import threading
import time
import warnings

import numpy as np
import pytest

import bspkit
from conftest import FETCHED, ROOT, SHARED, need

SAMPLE = os.path.join(ROOT, "samples", "bsp_tool_quake_mp_lobby.bsp")           # Quake 3, 120 KiB: read
GOLDSRC = os.path.join(SHARED, "corpus", "goldsrc", "cs16_aim_map.bsp")          # 340 KiB: mapped
LZMA = os.path.join(SHARED, "corpus", "source", "tf2c_v20_lzma_vipr_downfall.bsp")
SOURCE = os.path.join(SHARED, "corpus", "source", "tf2_v20_bsp_tool_mp_lobby.bsp")


def dpm_model():
    dpms = sorted(glob.glob(os.path.join(FETCHED, "dpm", "*.dpm")))
    return dpms[0] if dpms else None


# every public member of Map that reaches the library, and how to call it; a member added to Map
# and missing here fails test_every_map_member_is_covered
def _calls(path_out):
    P = np.zeros((2, 3), np.float32)
    return {
        "format": lambda m: m.format,
        "version": lambda m: m.version,
        "data": lambda m: m.data,
        "lumps": lambda m: m.lumps,
        "info": lambda m: m.info,
        "game": lambda m: m.game,
        "entities": lambda m: m.entities,
        "lump": lambda m: m.lump(0),
        "arrays": lambda m: m.arrays,
        "array": lambda m: m.array("planes"),
        "array_info": lambda m: m.array_info("planes"),
        "scene": lambda m: m.scene(textures=False),
        "to_gltf": lambda m: m.to_gltf(path_out, textures=False),
        "textures": lambda m: m.textures(),
        "query_info": lambda m: m.query_info,
        "point": lambda m: m.point(P),
        "trace": lambda m: m.trace(P, P[::-1]),
        "pvs": lambda m: m.pvs(0),
        "visible": lambda m: m.visible(P, P),
        "static_props": lambda m: m.static_props,
        "static_prop_names": lambda m: m.static_prop_names,
        "pak": lambda m: m.pak,
        "bones": lambda m: m.bones,
        "frames": lambda m: m.frames,
        "pose": lambda m: m.pose(0),
        "set_entities": lambda m: m.set_entities([[("classname", "worldspawn")]]),
        "set_lump": lambda m: m.set_lump(0, b""),
        "pak_add": lambda m: m.pak_add("x.txt", b"x"),
        "pak_remove": lambda m: m.pak_remove("nothing/*"),
        "save": lambda m: m.save(path_out),
        "to_bytes": lambda m: m.to_bytes(),
        "decompile": lambda m: m.decompile(str(path_out) + ".map"),
    }


NOT_LIBRARY = {"close", "path"}  # the members that never touch the library's memory


def test_every_map_member_is_covered(tmp_path):
    public = {n for n in dir(bspkit.Map) if not n.startswith("_")} | {"path"}
    assert public - NOT_LIBRARY == set(_calls(tmp_path / "x.glb")), "Map gained or lost a member: cover it here"
    # the Archive and Scene members the tests below call after close() / free()
    assert {n for n in dir(bspkit.Archive) if not n.startswith("_")} == {"close", "infolist", "namelist", "read"}
    assert {n for n in dir(bspkit.Scene) if not n.startswith("_")} == {"free", "glb", "to_gltf"}


def views_of(m):
    """Every array, view and archive of m that shares the library's memory, with a copy of each."""
    out = {"data": m.data}
    for name in m.arrays:
        out["array " + name] = m.array(name)
    if m.format == "source":
        out["static_props"] = m.static_props
    if m.format == "dpm":
        out["bones"] = m.bones
    s = m.scene(textures=False)
    for i, mesh in enumerate(s.meshes[:3]):
        for j, p in enumerate(mesh.primitives[:2]):
            out["scene %d.%d positions" % (i, j)] = p.positions
            if p.indices is not None:
                out["scene %d.%d indices" % (i, j)] = p.indices
    copies = {k: bytes(v) if isinstance(v, memoryview) else v.copy() for k, v in out.items()}
    return out, copies


def same(a, b):
    """The same values, field by field (a struct's padding is not copied), NaN equal to NaN."""
    if a.dtype.names:
        return all(same(a[f], b[f]) for f in a.dtype.names)
    return a.shape == b.shape and np.ascontiguousarray(a).tobytes() == np.ascontiguousarray(b).tobytes()


def check_views(views, copies):
    for k, v in views.items():
        if isinstance(v, memoryview):
            assert bytes(v) == copies[k], k
        else:
            assert same(v, copies[k]), k


def every_call_raises_closed(m, tmp_path):
    for name, call in _calls(str(tmp_path / "after_close.glb")).items():
        with pytest.raises(bspkit.Error) as ei:
            call(m)
        assert isinstance(ei.value, bspkit.ClosedError) and isinstance(ei.value, ValueError), name
    assert not (tmp_path / "after_close.glb").exists()


MAPS = {"quake3-read": SAMPLE, "goldsrc-mapped": GOLDSRC, "source-lzma": LZMA, "dpm": "dpm"}


def open_case(case, from_bytes=False):
    path = dpm_model() if case == "dpm" else MAPS[case]
    need(path)
    if from_bytes:
        return bspkit.open(open(path, "rb").read(), name=os.path.basename(path))
    return bspkit.open(path)


@pytest.mark.parametrize("from_bytes", [False, True], ids=["path", "bytes"])
@pytest.mark.parametrize("case", sorted(MAPS))
def test_views_outlive_close_and_calls_raise(case, from_bytes, tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bspkit.Warning)
        m = open_case(case, from_bytes)
        views, copies = views_of(m)
        pak = m.pak if m.format == "source" else None
        names = pak.namelist() if pak is not None else []
        member = next((n for n in names if not n.endswith("/")), None)
        want = pak.read(member) if member else None
        m.close()
        m.close()  # idempotent
        check_views(views, copies)
        every_call_raises_closed(m, tmp_path)
        assert repr(m) == "<bspkit.Map closed>"
        if pak is not None:  # the pakfile holds the map's bytes
            assert pak.namelist() == names
            if member:
                assert pak.read(member) == want
            pak.close()
            pak.close()
            for call in (lambda: pak.namelist(), lambda: len(pak), lambda: pak.read(member or "x"),
                         lambda: (member or "x") in pak, lambda: pak.infolist()):
                with pytest.raises(bspkit.ClosedError):
                    call()
        check_views(views, copies)


@pytest.mark.parametrize("case", sorted(MAPS))
def test_views_outlive_the_with_block_and_del(case):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bspkit.Warning)
        with open_case(case) as m:
            views, copies = views_of(m)
        check_views(views, copies)
        m = open_case(case, from_bytes=True)
        views, copies = views_of(m)
        del m
        gc.collect()
        check_views(views, copies)


def test_scene_arrays_and_images_outlive_free(tmp_path):
    m = bspkit.open(need(SAMPLE))
    s = m.scene()
    m.close()
    pos = s.meshes[0].primitives[0].positions
    want = pos.copy()
    img = next(i for i in s.images if i.width > 0)
    s.free()
    s.free()
    assert np.array_equal(pos, want)
    assert img.pixels.shape == (img.height, img.width, 4)
    for call in (lambda: s.glb(), lambda: s.to_gltf(str(tmp_path / "s.glb"))):
        with pytest.raises(bspkit.ClosedError):
            call()


def in_threads(n, work, then=None):
    """work(k) for k in 0..n-1, each in a thread of its own, released together behind a barrier
    (then(), when given, runs in this thread as they start); what each raised, as text."""
    go = threading.Barrier(n + 1)
    errors = []

    def run(k):
        go.wait()
        try:
            work(k)
        except BaseException as e:  # noqa: B902 - anything is the failure reported
            errors.append("thread %d: %r" % (k, e))
    ts = [threading.Thread(target=run, args=(k,)) for k in range(n)]
    for t in ts:
        t.start()
    go.wait()
    if then:
        then()
    for t in ts:
        t.join()
    return errors


def test_close_during_calls_from_8_threads():
    """8 threads trace, point, read arrays and build scenes while the main thread closes the map:
    every call works or raises ClosedError; then 8 threads close one map at once, 10 times."""
    path = need(GOLDSRC)
    A = np.random.default_rng(1).uniform(-3000, 3000, (20000, 3)).astype("f4")
    for rep in range(4):
        m = bspkit.open(path)
        m.point([0, 0, 0])
        outcome, held = [], []

        def work(k):
            for _ in range(3):
                try:
                    if k % 4 == 0:
                        m.trace(A, A[::-1])
                    elif k % 4 == 1:
                        m.point(A)
                    elif k % 4 == 2:
                        held.append(m.array("planes"))
                    else:
                        m.scene(textures=False, lightmaps=False)
                    outcome.append("ok")
                except bspkit.ClosedError:
                    outcome.append("closed")

        def close_soon():
            time.sleep(0.002 * rep)  # the calls in flight, or about to start
            m.close()
        assert in_threads(8, work, close_soon) == []
        assert len(outcome) == 24
        for p in held:
            assert np.isfinite(p["dist"]).all()
    for rep in range(10):
        m = bspkit.open(path)
        m.point([0, 0, 0])
        assert in_threads(8, lambda k: m.close()) == []
        with pytest.raises(bspkit.ClosedError):
            m.point([0, 0, 0])


def scene_digest(s):
    return (len(s.meshes), len(s.materials), len(s.images), len(s.nodes), len(s.lights),
            tuple((len(p.positions), float(p.positions.sum(dtype=np.float64))) for mh in s.meshes for p in mh.primitives),
            tuple((i.name, i.width, i.height) for i in s.images))


def test_scenes_from_8_threads_on_an_lzma_map():
    """The Source scene builder decodes the LZMA lighting, overlay and world-light lumps for itself
    and gives them back: 8 builders (and lump readers) at once on one map build the scene one
    builder alone builds."""
    path = need(LZMA)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", bspkit.Warning)
        want = scene_digest(bspkit.open(path).scene(textures=False, props=False))
        for rep in range(2):
            m = bspkit.open(path)
            got = []

            def build(k):
                if k == 7:  # the lump reader keeps what it decodes; the builders' holds share it
                    for name in ("lighting", "overlays", "worldlights", "lighting_hdr"):
                        m.lump(name)
                else:
                    got.append(scene_digest(m.scene(textures=False, props=False)))
            assert in_threads(8, build) == []
            assert len(got) == 7 and all(g == want for g in got)


def test_scenes_and_reads_from_8_threads_on_other_families():
    """The calls bspkit.h names thread-safe on one file, at once, on a Quake 3 and a GoldSrc map."""
    for path in (need(SAMPLE), GOLDSRC if os.path.exists(GOLDSRC) else SAMPLE):
        m = bspkit.open(path)
        want = scene_digest(m.scene(textures=False))
        got = []

        def work(k):
            if k % 2:
                got.append(scene_digest(m.scene(textures=False)))
            else:
                m.info, m.entities, m.array("planes"), m.textures(), m.query_info
        assert in_threads(8, work) == [] and len(got) == 4 and all(g == want for g in got)


# ---- arguments (F12) ---------------------------------------------------------------------------


def test_nul_in_paths_raises_value_error(tmp_path):
    path = need(SAMPLE)
    m = bspkit.open(path)
    out = tmp_path / "x.bsp"
    calls = {
        "open": lambda: bspkit.open(path + "\0junk"),
        "open game_dirs": lambda: bspkit.open(path, game_dirs=[str(tmp_path) + "\0x"]),
        "open wads": lambda: bspkit.open(path, wads=["a.wad\0b"]),
        "open name": lambda: bspkit.open(open(path, "rb").read(), name="x\0y"),
        "save": lambda: m.save(str(out) + "\0.bak"),
        "to_gltf": lambda: m.to_gltf(str(tmp_path / "x.glb") + "\0.bak"),
        "scene to_gltf": lambda: m.scene(textures=False).to_gltf(str(tmp_path / "y.glb") + "\0.bak"),
        "vpk": lambda: bspkit.vpk.open(str(tmp_path / "a_dir.vpk") + "\0x"),
        "pk3 member": lambda: bspkit.open(str(tmp_path / "a.pk3") + "\0:maps/x.bsp"),
        "set_entities": lambda: m.set_entities([[("classname", "worldspawn"), ("message", "a\0b")]]),
        "pak_add": lambda: m.pak_add("a\0b.txt", b""),
        "mask": lambda: m.trace([0, 0, 0], [0, 0, 1], mask="solid\0water"),
    }
    for what, call in calls.items():
        with pytest.raises(ValueError) as ei:
            call()
        assert isinstance(ei.value, bspkit.ArgumentError), what
        assert "null byte" in str(ei.value), what
    assert os.listdir(tmp_path) == []


def test_out_of_range_integers_raise_argument_error():
    m = bspkit.open(need(SAMPLE))
    P = np.zeros((1, 3))
    calls = {
        "point model -1": lambda: m.point(P, model=-1),
        "point model 2**32": lambda: m.point(P, model=2**32),
        "trace model -1": lambda: m.trace(P, P, model=-1),
        "trace mask -1": lambda: m.trace(P, P, mask=-1),
        "trace mask 2**32": lambda: m.trace(P, P, mask=2**32),
        "trace hull 2**31": lambda: m.trace(P, P, hull=2**31),
        "pvs 2**31": lambda: m.pvs(2**31),
        "pvs -2**31-1": lambda: m.pvs(-2**31 - 1),
        "scene patch_level": lambda: m.scene(patch_level=2**31),
        "glb png_level": lambda: m.scene(textures=False).glb(png_level=-2**40),
    }
    for what, call in calls.items():
        with pytest.raises(bspkit.ArgumentError) as ei:
            call()
        assert isinstance(ei.value, ValueError) and not isinstance(ei.value, OverflowError), what
        assert "out of range" in str(ei.value), what
    with pytest.raises(TypeError):
        m.point(P, model=1.5)


def test_a_nan_point_is_named_by_its_index():
    m = bspkit.open(need(SAMPLE))
    P = np.zeros((600, 3), np.float32)
    P[437, 1] = np.nan
    for call in (lambda: m.point(P), lambda: m.trace(P, np.zeros(3)), lambda: m.trace(np.zeros(3), P, threads=4)):
        with pytest.raises(bspkit.ArgumentError) as ei:
            call()
        assert ei.value.index == 437 and "point 437" in str(ei.value), str(ei.value)
