"""The package answers what the CLI answers, on every corpus map: entities pair by pair, the lump
table, point leafs, trace fractions, glTF bytes; files it cannot read raise the CLI's message."""
import json
import subprocess

import numpy as np
import pytest

import bspkit
from conftest import CLI, need


def cli(*args, stdin=None):
    return subprocess.run([CLI] + [str(a) for a in args], input=stdin, capture_output=True, text=True)


def test_entities_pair_by_pair(corpus_map):
    need(corpus_map)
    m = bspkit.open(corpus_map)
    want = json.loads(cli("entities", corpus_map, "--json").stdout)
    got = [e.pairs for e in m.entities]
    assert got == [[tuple(p) for p in e] for e in want]
    for e, w in zip(m.entities, want):
        last = {}
        for k, v in w:
            last[k] = v
        for k in last:  # the last value wins, every value kept in order
            assert e[k] == last[k]
            assert e.get_all(k) == [v for kk, v in w if kk == k]


def test_lumps_and_info(corpus_map):
    need(corpus_map)
    m = bspkit.open(corpus_map)
    want = json.loads(cli("info", corpus_map, "--json").stdout)
    assert m.format == want["format"] and m.version == want["version"]
    assert m.info["counts"] == want["counts"]
    assert [(l.name, l.offset, l.size, l.crc32) for l in m.lumps] == \
        [(l["name"], l["offset"], l["length"], l.get("crc32")) for l in want["lumps"]]
    for l in m.lumps[:4]:
        if not l.compressed:
            assert len(m.lump(l.name)) == l.size


def _probe_points(m, n=200, seed=1):
    """Entity origins and random points inside the bounds (plus 5% outside)."""
    pts = []
    for e in m.entities:
        o = e.get("origin")
        if o:
            try:
                v = [float(x) for x in o.split()]
            except ValueError:
                continue
            if len(v) == 3:
                pts.append(v)
    rng = np.random.default_rng(seed)
    b = m.info.get("bounds") or {"mins": [-4096] * 3, "maxs": [4096] * 3}
    lo, hi = np.array(b["mins"]) - 64, np.array(b["maxs"]) + 64
    pts += list(rng.uniform(lo, hi, size=(n, 3)))
    return np.array(pts[: n + 100], np.float32)


def _lines(a):
    return "".join("%.9g %.9g %.9g\n" % tuple(p) for p in a)


def test_points_match_cli(corpus_map):
    m = bspkit.open(need(corpus_map))
    if m.format in ("wad3", "dpm"):
        pytest.skip("no queries")
    p = _probe_points(m)
    got = m.point(p)
    out = cli("query", corpus_map, "--batch", stdin=_lines(p)).stdout.splitlines()
    want = [json.loads(l) for l in out]
    assert len(want) == len(p)
    assert [g["leaf"] for g in got] == [w["leaf"] for w in want]
    assert [int(g["cluster"]) for g in got] == [w["cluster"] for w in want]
    assert [int(g["area"]) for g in got] == [w["area"] for w in want]
    assert [bspkit.contents_names(int(g["contents"])) for g in got] == [w["contents"] for w in want]


@pytest.mark.parametrize("box", [False, True])
def test_traces_match_cli(corpus_map, box):
    m = bspkit.open(need(corpus_map))
    if m.format in ("wad3", "dpm"):
        pytest.skip("no queries")
    a = _probe_points(m, 150)
    rng = np.random.default_rng(2)
    b = (a + rng.uniform(-600, 600, size=a.shape)).astype(np.float32)
    b[::3, 2] = a[::3, 2] - 1024  # every third straight down
    kw = {"mins": (-16, -16, -24), "maxs": (16, 16, 32)} if box else {}
    got = m.trace(a, b, **kw)
    args = ["trace", corpus_map, "--batch"]
    if box:
        args += ["--mins", -16, -16, -24, "--maxs", 16, 16, 32]
    lines = "".join("%.9g %.9g %.9g %.9g %.9g %.9g\n" % (tuple(x) + tuple(y)) for x, y in zip(a, b))
    want = [json.loads(l) for l in cli(*args, stdin=lines).stdout.splitlines()]
    assert len(want) == len(a)
    assert [float(g["fraction"]) for g in got] == [np.float32(w["fraction"]) for w in want]
    assert [bool(g["startsolid"]) for g in got] == [w["startsolid"] for w in want]
    np.testing.assert_array_equal(got["endpos"], np.array([w["endpos"] for w in want], np.float32))


def test_gltf_bytes_match_convert(corpus_map, work):
    m = bspkit.open(need(corpus_map))
    mine, theirs = work / "py.glb", work / "cli.glb"
    m.to_gltf(mine)
    r = cli("convert", corpus_map, "-o", theirs, "-q")
    assert r.returncode == 0, r.stderr
    assert mine.read_bytes() == theirs.read_bytes()


@pytest.mark.parametrize("index", [0, 7, 14])
def test_dpm_gltf_bytes_match_convert(index, work):
    import glob
    from conftest import FETCHED
    dpms = sorted(glob.glob(FETCHED + "/dpm/*.dpm"))
    if len(dpms) <= index:
        pytest.skip("no DPM corpus")
    mine, theirs = work / "py.glb", work / "cli.glb"
    bspkit.open(dpms[index]).to_gltf(mine)
    r = cli("convert", dpms[index], "-o", theirs, "-q")
    assert r.returncode == 0, r.stderr
    assert mine.read_bytes() == theirs.read_bytes()


def test_unusual_maps_raise_the_cli_message(unusual_map):
    need(unusual_map)
    with pytest.raises(bspkit.Error) as ei:
        bspkit.open(unusual_map)
    r = cli("info", unusual_map)
    assert r.returncode == 1
    assert str(ei.value) in r.stderr  # the same located message: FILE: LUMP @OFFSET: error: ...
    assert isinstance(ei.value, (bspkit.VersionError, bspkit.UnsupportedError, bspkit.FormatError))
    assert ei.value.file == unusual_map
