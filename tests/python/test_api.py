"""The package's own surface: Source props and pakfile against the CLI, PVS rows and "can A see
B" against `bspkit query`, arrays without copies, editing and saving, DPM poses, bad input
raising bspkit.Error (never crashing the interpreter), the GIL released during queries."""
import glob
import json
import os
import subprocess
import threading
import time

import numpy as np
import pytest

import bspkit
from conftest import CLI, FETCHED, ROOT, SHARED, corpus_maps, need, readable

SRC = os.path.join(SHARED, "corpus", "source")
SAMPLE = os.path.join(ROOT, "samples", "bsp_tool_quake_mp_lobby.bsp")


def cli_json(*args, stdin=None):
    r = subprocess.run([CLI] + [str(a) for a in args], input=stdin, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def source_maps():
    return [m for m in sorted(glob.glob(os.path.join(SRC, "*.bsp"))) if readable(m)]


def test_static_props_match_cli():
    maps = source_maps()
    if not maps:
        pytest.skip("no Source corpus")
    seen = 0
    for path in maps:
        m = bspkit.open(path)
        want = cli_json("props", path, "--json")
        sp = m.static_props
        assert len(sp) == len(want["static_props"]), path
        assert m.static_prop_names == want["models"], path
        for got, w in zip(sp, want["static_props"]):
            assert m.static_prop_names[got["model"]] == w["model"]
            np.testing.assert_array_equal(got["origin"], np.float32(w["origin"]))
            np.testing.assert_array_equal(got["angles"], np.float32(w["angles"]))
            assert (int(got["skin"]), int(got["solid"]), int(got["flags"])) == (w["skin"], w["solid"], w["flags"])
            seen += 1
    assert seen > 100


def test_pakfile_matches_cli_and_reads():
    maps = source_maps()
    if not maps:
        pytest.skip("no Source corpus")
    for path in maps[:6]:
        m = bspkit.open(path)
        try:
            pak = m.pak
        except bspkit.NotFoundError:
            continue
        want = cli_json("pak", path, "list", "--json")
        assert pak.namelist() == [e["name"] for e in want["entries"]]
        for e in pak.infolist()[:5]:
            if not e.is_dir:
                assert len(pak.read(e.name)) == e.size
                assert e.name in pak
        with pytest.raises(KeyError):
            pak.read("no/such/file.vmt")


def test_pvs_and_visibility_match_cli():
    maps = [m for m in corpus_maps() if readable(m) and "wad3" not in m]
    checked = 0
    for path in maps[::4]:
        m = bspkit.open(path)
        qi = m.query_info
        if qi["clusters"] == 0:
            continue
        for c in sorted({0, qi["clusters"] // 2, qi["clusters"] - 1}):
            want = cli_json("query", path, "--pvs", c, "--json")
            assert list(np.flatnonzero(m.pvs(c))) == want["visible"], (path, c)
            checked += 1
        pts = np.array([[float(x) for x in e["origin"].split()] for e in m.entities
                        if "origin" in e and len(e["origin"].split()) == 3][:20], np.float32)
        if len(pts) >= 2:
            a, b = pts[:-1], pts[1:]
            lines = "".join("%.9g %.9g %.9g %.9g %.9g %.9g\n" % (tuple(x) + tuple(y)) for x, y in zip(a, b))
            out = subprocess.run([CLI, "query", path, "--batch"], input=lines, capture_output=True, text=True).stdout
            assert list(m.visible(a, b)) == [json.loads(l)["visible"] for l in out.splitlines()]
    if checked <= 5 and not os.path.isdir(os.path.join(SHARED, "corpus")):
        pytest.skip("%d PVS rows checked (the repository's samples): the shared corpus %s is absent" % (checked, SHARED))
    assert checked > 5


def test_arrays_are_views_not_copies():
    m = bspkit.open(need(SAMPLE))
    assert {"planes", "vertices", "faces", "leafs", "nodes", "models"} <= set(m.arrays)
    v = m.array("vertices")
    assert v.shape[1] == 3 and v.dtype == np.float32 and not v.flags.writeable and not v.flags.owndata
    assert len(v) == m.info["counts"]["vertices"]
    planes = m.array("planes")
    assert planes.dtype.names[:2] == ("normal", "dist")
    # the array keeps the map alive when the map object goes
    del m
    assert np.isfinite(planes["dist"]).all()
    with pytest.raises(bspkit.NotFoundError):
        bspkit.open(SAMPLE).array("nope")


def test_typed_arrays_of_each_family_match_their_counts():
    q3 = sorted(glob.glob(os.path.join(FETCHED, "q3", "*", "*.bsp")))[:1]
    src = [p for p in glob.glob(os.path.join(SRC, "*.bsp")) if "lego" in p]
    for path in q3 + src:
        m = bspkit.open(path)
        counts = m.info["counts"]
        for name in m.arrays:
            a = m.array(name)
            assert not a.flags.writeable
            if name in counts:
                assert len(a) == counts[name], (path, name)
        if m.format == "quake3":
            lm = m.array("lightmaps")
            assert lm.shape[1:] == (128, 128, 3) and lm.nbytes == m.lumps[14].size
        if m.format == "source":
            assert len(m.array("static_prop_leaves")) >= len(m.static_props)


def test_arrays_as_the_library_describes_them():
    """Map.arrays / array / array_info come from bk_file_array, for every family alike: each
    array's length is its count, a structured element is the library's element size with its
    fields at their offsets, and where the element is one field of numbers the view is those
    numbers; the deferred Source map's props are read without decoding its geometry."""
    q3 = sorted(glob.glob(os.path.join(FETCHED, "q3", "*", "*.bsp")))[:1]
    dpm = sorted(glob.glob(os.path.join(FETCHED, "dpm", "*.dpm")))[:1]
    src = [p for p in glob.glob(os.path.join(SRC, "*.bsp")) if "lzma" in p][:1]
    seen = set()
    for path in [need(SAMPLE)] + q3 + dpm + src:
        m = bspkit.open(path)
        if m.format == "source":
            assert len(m.static_props) >= 0 and m._deferred  # the props without the geometry
        for name in m.arrays:
            info, a = m.array_info(name), m.array(name)
            assert info["name"] == name and len(a) == info["count"], (path, name)
            if a.dtype.names:
                assert a.dtype.itemsize == info["elem_size"]
                assert list(a.dtype.names) == [f["name"] for f in info["fields"]]
                assert [a.dtype.fields[f["name"]][1] for f in info["fields"]] == [f["offset"] for f in info["fields"]]
            else:
                assert a.dtype.itemsize * int(np.prod(a.shape[1:], dtype=np.int64)) == info["elem_size"]
            assert not a.flags.writeable
        seen.add(m.format)
    assert "quake1" in seen or "goldsrc" in seen
    with pytest.raises(bspkit.NotFoundError, match="planes"):
        bspkit.open(SAMPLE).array_info("nope")


def test_mdl_arrays(tmp_path):
    """A Source model's arrays through bk_file_array, on make_mdl.py's synthetic v48 box (counts
    from its expected JSON, written independently of the decoder)."""
    import sys
    subprocess.run([sys.executable, os.path.join(ROOT, "tests", "source", "make_mdl.py"), str(tmp_path)], check=True,
                   stdout=subprocess.DEVNULL)
    want = json.load(open(tmp_path / "expected" / "box_v48.json"))
    m = bspkit.open(tmp_path / "game" / "models" / "bspkit_test" / "box_v48.mdl")
    assert m.format == "mdl" and set(m.arrays) == {"bones", "bodyparts", "vertices", "indices", "meshes"}
    assert len(m.array("bones")) == want["bones"] and len(m.array("bodyparts")) == want["bodyparts"]
    assert len(m.array("meshes")) == want["meshes"] and len(m.array("vertices")) == want["vertices"]
    assert len(m.array("indices")) == 3 * want["triangles"] and (m.array("indices") < want["vertices"]).all()
    assert m.array("bones")["pose_to_bone"].shape == (want["bones"], 3, 4)
    assert ((m.array("vertices")["bone_count"] >= 1) & (m.array("vertices")["bone_count"] <= 3)).all()


def test_scene_arrays():
    m = bspkit.open(need(SAMPLE))
    s = m.scene()
    prim = s.meshes[0].primitives[0]
    assert prim.positions.shape[1] == 3 and prim.indices.max() < len(prim.positions)
    assert prim.normals.shape == prim.positions.shape and prim.uvs.shape == (len(prim.positions), 2)
    img = next(i for i in s.images if i.pixels is not None)
    assert img.pixels.shape == (img.height, img.width, 4) and img.pixels.dtype == np.uint8
    assert any(n.extras for n in s.nodes)
    assert s.glb()[:4] == b"glTF"
    del s  # arrays outlive their scene object
    assert prim.positions.sum() == prim.positions.sum()


def test_scene_lightstyles_and_layers():
    """progs_dump_start: styles 0, 2, 5 with their stock patterns; the layers are the lump's
    lightmaps apart, and the lightmap at rest is their sum (style 2 at 'a', 5 at 'j')"""
    s = bspkit.open(need(os.path.join(SHARED, "corpus", "quake1", "progs_dump_start.bsp"))).scene(textures=False)
    st = {l.style: l for l in s.lightstyles}
    assert sorted(st) == [0, 2, 5] and st[2].rest_value == 0 and st[5].rest_value == 198
    assert st[2].value(0.0) == 0 and st[2].value(1.3) == 13 * 22 and st[0].value(7.0) == 264
    mat = next(m for m in s.materials if [k for k, _ in m.light_layers] == [0, 5])
    base = s.images[mat.lightmap_image].pixels[..., :3].astype(np.float32)
    acc = sum(s.images[i].pixels[..., :3].astype(np.float32) * st[k].rest_value for k, i in mat.light_layers)
    want = np.minimum(255, np.floor(acc / 264 * np.float32(s.lightstyle_gain) + 0.5))
    # style 2's layer adds nothing at rest; where no face is, both are black
    assert np.abs(base - want).max() <= 1
    plain = bspkit.open(need(SAMPLE)).scene(textures=False)
    assert plain.lightstyles == [] and all(not m.light_layers for m in plain.materials)


def test_scene_lights_and_sky3d_option():
    path = need(os.path.join(SRC, "tf2c_v20_dom_fightpit.bsp"))
    m = bspkit.open(path)
    s = m.scene(textures=False, props=False)
    lit = [n for n in s.nodes if n.light >= 0]
    assert s.lights and len(lit) == len(s.lights)
    assert all(dict(l.extras).get("baked") == "true" for l in s.lights)
    assert {l.type for l in s.lights} <= {"point", "spot", "directional"}
    assert any(n.name == "skybox_3d" for n in s.nodes)
    assert not any(n.name == "skybox_3d" for n in m.scene(textures=False, props=False, sky3d=False).nodes)


def test_lump_bytes_and_typed_lump_agree():
    m = bspkit.open(need(SAMPLE))
    raw = m.lump("vertices")
    assert np.array_equal(np.frombuffer(raw, "<f4").reshape(-1, 3), m.array("vertices"))
    assert m.lump(0) == m.lump("entities")


def test_bytes_input_and_pk3_member():
    data = open(need(SAMPLE), "rb").read()
    a, b = bspkit.open(data), bspkit.open(SAMPLE)
    assert [e.pairs for e in a.entities] == [e.pairs for e in b.entities]
    pk3s = sorted(glob.glob(os.path.join(FETCHED, "pk3", "*maps*.pk3")))
    if pk3s:
        with bspkit.Archive._open_path(pk3s[0]) as z:
            name = next(n for n in z.namelist() if n.endswith(".bsp"))
        m = bspkit.open("%s:%s" % (pk3s[0], name))
        assert m.format == "quake3" and len(m.entities) > 0


def _hostile(data):
    """Truncations, garbage, and copies with header words overwritten."""
    rng = np.random.default_rng(7)
    out = [b"", b"IBSP", data[:8], data[:64], data[: len(data) // 2], data[:-1], bytes(rng.integers(0, 256, 4096, np.uint8))]
    for _ in range(12):
        d = bytearray(data)
        for _ in range(4):
            i = int(rng.integers(4, min(len(d), 1024) - 4))
            d[i:i + 4] = bytes(rng.integers(0, 256, 4, np.uint8))
        out.append(bytes(d))
    return out


def test_bad_input_raises_never_crashes():
    maps = [m for m in corpus_maps() if readable(m)]
    by_family = {}
    for p in maps:
        by_family.setdefault(os.path.dirname(p), p)
    raised = 0
    for path in by_family.values():
        data = open(path, "rb").read()
        for bad in _hostile(data):
            try:
                m = bspkit.open(bad, name="hostile.bsp")
            except bspkit.Error as e:
                raised += 1
                assert "hostile.bsp" in str(e) or e.file == "hostile.bsp"
                continue
            # whatever loads must answer every call without crashing
            m.entities, m.lumps, m.info
            try:
                m.scene()
                if m.format not in ("wad3",):
                    m.point(np.zeros((4, 3)))
                    m.trace(np.zeros((4, 3)), np.ones((4, 3)) * 100)
            except bspkit.Error:
                raised += 1
    assert raised > 10
    with pytest.raises(bspkit.NotFoundError) as ei:
        bspkit.open("/nonexistent/map.bsp")
    assert isinstance(ei.value, FileNotFoundError)
    with pytest.raises(bspkit.FormatError):
        bspkit.open(b"\0" * 100)


def test_error_carries_location():
    data = bytearray(open(need(SAMPLE), "rb").read())
    data[8:12] = (len(data) + 100).to_bytes(4, "little")  # the first lump ends past the file
    path = os.path.join(os.environ.get("BSPKIT_WORK", "/tmp"), "bad_lump.bsp")
    open(path, "wb").write(data)
    with pytest.raises(bspkit.Error) as ei:
        bspkit.open(path)
    e = ei.value
    r = subprocess.run([CLI, "info", path], capture_output=True, text=True)
    assert str(e) in r.stderr and e.file == path and e.lump is not None
    assert e.kind == "lump-range" or e.code in (4, 5)


def test_edit_entities_lump_and_save(tmp_path):
    m = bspkit.open(need(SAMPLE))
    out = tmp_path / "same.bsp"
    m.save(out)
    assert out.read_bytes() == open(SAMPLE, "rb").read()  # no edit: byte-identical
    ents = [list(e) for e in m.entities]
    ents[0].append(("message", "edited from Python"))
    ents[0].append(("message", "twice"))
    m2 = bspkit.open(SAMPLE)
    m2.set_entities(ents)
    out2 = tmp_path / "edited.bsp"
    m2.save(out2)
    e = bspkit.open(out2).entities[0]
    assert e["message"] == "twice" and e.get_all("message")[-2:] == ["edited from Python", "twice"]
    with pytest.raises(bspkit.FormatError):
        bspkit.open(SAMPLE).set_entities([[("classname", 'bad"quote')]])
    # a failed save leaves the target as it was
    m3 = bspkit.open(SAMPLE)
    with pytest.raises(bspkit.Error):
        m3.save(tmp_path / "no" / "such" / "dir.bsp")


def test_edit_pakfile(tmp_path):
    maps = source_maps()
    if not maps:
        pytest.skip("no Source corpus")
    path = next(p for p in maps if "lego" in p) if any("lego" in p for p in maps) else maps[0]
    m = bspkit.open(path)
    m.pak_add("materials/python/hello.txt", b"hello")
    n = m.pak_remove("materials/maps/**.vtf")
    out = tmp_path / "pak.bsp"
    m.save(out)
    p2 = bspkit.open(out).pak
    assert p2.read("materials/python/hello.txt") == b"hello"
    assert len(p2) == len(m.pak) + 1 - n
    # edits after a save apply on top of it (a save hands the pakfile edits over to the rebuilt
    # lump): the second file joins the first, the removal holds, and saving again is the same
    m.pak_add("materials/python/second.txt", b"2")
    out2 = tmp_path / "pak2.bsp"
    m.save(out2)
    m.save(tmp_path / "pak3.bsp")
    p3 = bspkit.open(out2).pak
    assert p3.read("materials/python/hello.txt") == b"hello"
    assert p3.read("materials/python/second.txt") == b"2"
    assert len(p3) == len(p2) + 1
    assert (tmp_path / "pak3.bsp").read_bytes() == out2.read_bytes()
    assert m.pak_remove("materials/python/*.txt") == 2


def test_dpm_bones_and_pose():
    dpms = sorted(glob.glob(os.path.join(FETCHED, "dpm", "*.dpm")))
    if not dpms:
        pytest.skip("no DPM corpus")
    m = bspkit.open(dpms[0])
    b = m.bones
    assert len(b) > 0 and b["parent"][0] == -1
    p = m.pose(0)
    assert p.shape == (len(b), 3, 4) and np.isfinite(p).all()
    if len(m.frames) > 1:
        half = m.pose(0, 1, 0.5)
        assert np.allclose(half, m.pose(0, 1, 0.5))


def test_queries_release_the_gil():
    maps = [m for m in corpus_maps() if readable(m) and os.path.basename(m).startswith(("css_", "ns_"))]
    if not maps:
        pytest.skip("no corpus")
    m = bspkit.open(maps[0])
    rng = np.random.default_rng(3)
    a = rng.uniform(-2000, 2000, (1_600_000, 3)).astype(np.float32)
    b = a + rng.uniform(-500, 500, a.shape).astype(np.float32)
    m.trace(a[:10], b[:10])
    ticks = []
    stop = threading.Event()

    def ticker():
        while not stop.is_set():
            ticks.append(time.perf_counter())
            time.sleep(0.001)

    t = threading.Thread(target=ticker)
    t0 = time.perf_counter()
    t.start()
    m.trace(a, b)
    t1 = time.perf_counter()
    stop.set()
    t.join()
    inside = [x for x in ticks if t0 < x < t1]
    # with the GIL held the ticker could not run during the call (a C call holding it for 2 s lets
    # through 3 ticks); released, it ticks about every millisecond: ask for 8, and one per 200 ms
    # (a machine loaded by other tests schedules the ticker late)
    assert t1 - t0 > 0.05, "too few traces to see the ticker"
    assert len(inside) >= max(8, (t1 - t0) / 0.2), (t1 - t0, len(inside))
    # split over threads: the same answers
    one, two = m.trace(a[:50_000], b[:50_000]), m.trace(a[:50_000], b[:50_000], threads=3)
    assert one.tobytes() == two.tobytes()
    assert m.point(a[:50_000]).tobytes() == m.point(a[:50_000], threads=2).tobytes()


def test_failed_gltf_write_raises_with_the_reason(tmp_path):
    m = bspkit.open(need(SAMPLE))
    target = tmp_path / "missing" / "x.glb"
    with pytest.raises(bspkit.IOError_) as ei:
        m.to_gltf(target)
    assert str(target) in str(ei.value) and isinstance(ei.value, OSError)
    assert not target.parent.exists()
    m.to_gltf(tmp_path / "x.gltf")  # .gltf + .bin by the extension
    assert (tmp_path / "x.gltf").exists() and (tmp_path / "x.bin").exists()


def test_vpk_open_reads_what_was_packed(tmp_path):
    """A VPK v2 made by the tests' own writer (tests/source/vpk_write.py) from a map's pakfile."""
    maps = [p for p in source_maps() if "lego" in p]
    if not maps:
        pytest.skip("no Source corpus")
    pak = bspkit.open(maps[0]).pak
    files = {}
    for name in pak.namelist()[:12]:
        files[name.lower()] = pak.read(name)
        (tmp_path / "src" / name.lower()).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "src" / name.lower()).write_bytes(files[name.lower()])
    subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "tests", "source", "vpk_write.py"), tmp_path / "src",
                    tmp_path / "vpk" / "pak01"], check=True, capture_output=True)
    with bspkit.vpk.open(tmp_path / "vpk" / "pak01_dir.vpk") as v:
        assert sorted(v.namelist()) == sorted(files)
        for name, data in files.items():
            assert v.read(name) == data
    (tmp_path / "notvpk.vpk").write_bytes(b"\0" * 64)
    with pytest.raises(bspkit.FormatError):
        bspkit.vpk.open(tmp_path / "notvpk.vpk")


def test_textures_as_numpy():
    wads = sorted(glob.glob(os.path.join(SHARED, "corpus", "wad3", "*.wad")))
    if not wads:
        pytest.skip("no WAD3 corpus")
    m = bspkit.open(wads[0])
    imgs = m.textures().images
    assert m.format == "wad3" and len(imgs) == m.lumps[0].count  # every directory entry
    shown = [i for i in imgs[:20] if i.pixels is not None]
    assert shown and all(i.pixels.shape == (i.height, i.width, 4) for i in shown)
    assert any(i.pixels[..., :3].std() > 0 for i in shown)


def test_warnings_go_through_python_warnings():
    path = os.path.join(SHARED, "corpus", "quake1", "ericw_q1_cube.bsp")
    need(path)
    r = subprocess.run([CLI, "info", path], capture_output=True, text=True)
    assert "warning:" in r.stderr
    with pytest.warns(bspkit.Warning) as rec:
        bspkit.open(path)
    assert any(str(w.message) in r.stderr for w in rec)


def test_bad_arguments_raise():
    m = bspkit.open(need(SAMPLE))
    with pytest.raises(bspkit.ArgumentError):
        m.trace([0, 0, 0], [0, 0, 1], mins=(-1, -1, -1))
    with pytest.raises(bspkit.ArgumentError):
        m.point(np.zeros((4, 2)))
    with pytest.raises(bspkit.ArgumentError):
        m.trace([0, 0, 0], [0, 0, 1], mask="solid|nonsense")
    with pytest.raises(bspkit.BadIndexError):
        m.point([0, 0, 0], model=10_000)
    with pytest.raises(bspkit.BadIndexError):
        m.pvs(1_000_000)
    with pytest.raises(bspkit.UnsupportedError):
        m.static_props
    with pytest.raises(bspkit.NotFoundError):
        m.lump("no-such-lump")
    assert m.trace([0, 0, 0], [[0, 0, 1], [0, 0, 2]]).shape == (2,)  # broadcast
    m.close()
    with pytest.raises(ValueError):
        m.entities


def test_source_geometry_decoded_on_first_use(tmp_path):
    """bspkit.open reads a Source map's entities and props without decoding its geometry; the
    first use of the geometry decodes it (the same map as a whole load), and an error in it is
    raised there with the CLI's located message, again at every later use."""
    lzma = [p for p in source_maps() if "lzma" in os.path.basename(p)]
    if not lzma:
        pytest.skip("no LZMA Source map in the corpus")
    m = bspkit.open(lzma[0])
    assert len(m.entities) > 0 and len(m.static_props) >= 0 and m.format == "source"
    assert m._deferred  # nothing asked for the geometry yet
    assert m.info["counts"]["faces"] == cli_json("info", lzma[0], "--json")["counts"]["faces"]
    assert not m._deferred and len(m.array("faces")) == m.info["counts"]["faces"]
    # face 1's texinfo out of range: a whole load refuses the map at the faces lump
    path = need(os.path.join(SRC, "tf2_v20_bsp_tool_test2.bsp"))
    data = bytearray(open(path, "rb").read())
    ofs = int.from_bytes(data[8 + 16 * 7:12 + 16 * 7], "little")  # lump 7: faces, 56 bytes each
    data[ofs + 56 + 10:ofs + 56 + 12] = (32767).to_bytes(2, "little")
    bad = tmp_path / "bad_face.bsp"
    bad.write_bytes(bytes(data))
    r = subprocess.run([CLI, "info", str(bad)], capture_output=True, text=True)
    assert r.returncode != 0
    m = bspkit.open(bad)
    assert len(m.entities) > 0
    for _ in range(2):
        with pytest.raises(bspkit.Error) as ei:
            m.info
        assert str(ei.value) in r.stderr and ei.value.lump == "faces" and ei.value.index == 1
    with pytest.raises(bspkit.Error):
        m.trace(np.zeros((1, 3)), np.ones((1, 3)))


def test_game_facts_come_from_the_library_and_match_the_cli():
    """Map.game and bspkit.game read the version rows (bk_game); `bspkit info --json` says the same."""
    maps = {"goldsrc": os.path.join(SHARED, "corpus", "goldsrc", "cs16_aim_map.bsp"),
            "quake1": os.path.join(SHARED, "corpus", "quake1", "progs_dump_start.bsp"),
            "source": os.path.join(SHARED, "corpus", "source", "css_v19_fy_iceworld.bsp")}
    for fmt, path in maps.items():
        need(path)
        with bspkit.open(path) as m:
            g = m.game
            assert m.format == fmt and g == bspkit.game(fmt)
        cli = json.loads(subprocess.run([CLI, "info", "--json", path], capture_output=True, check=True).stdout)["game"]
        assert g["eye_height"] == cli["eye_height"] and g["spawn_classes"] == cli["spawn_classes"]
        assert list(g["hull_mins"]) == cli["hull_mins"] and list(g["hull_maxs"]) == cli["hull_maxs"]
        assert g["hull_mins"][2] < 0 or fmt == "source"   # Source's origin is at the feet
    eyes = {f: bspkit.game(f)["eye_height"] for f in ("quake1", "bsp2", "goldsrc", "quake3", "source")}
    assert eyes["quake1"] == eyes["bsp2"] and eyes["goldsrc"] > eyes["quake1"] and eyes["source"] > eyes["quake3"]
    assert bspkit.game("vtf") is None and bspkit.game("nonsense") is None


def test_never_drawn_is_a_scene_material_flag():
    path = os.path.join(SHARED, "corpus", "source", "css_v19_fy_iceworld.bsp")
    need(path)
    with bspkit.open(path) as m:
        with m.scene(textures=False) as s:
            assert s.materials and all(isinstance(x.never_drawn, bool) for x in s.materials)
            # the Source builder draws no tool face: what reaches the scene is drawn
            assert not any(x.never_drawn for x in s.materials)
            verts = s.meshes[0].primitives[0].positions if s.meshes and s.meshes[0].primitives else None
        # a Scene is a context manager: its end frees it (an array taken from it stays readable)
        assert not s.meshes
        with pytest.raises(bspkit.ClosedError):
            s.glb()
        if verts is not None:
            assert np.isfinite(verts).all()
