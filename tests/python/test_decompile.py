"""Map.decompile writes the bytes `bspkit decompile` writes and returns its --json counts; a map
or format it cannot give raises, and leaves the path as it was."""
import json
import os
import subprocess

import pytest

import bspkit
from conftest import CLI, SHARED, need

SOURCE = os.path.join(SHARED, "corpus", "source", "tf2_v20_bsp_tool_test2.bsp")
QUAKE1 = os.path.join(SHARED, "corpus", "quake1", "bsp_tool_quake_mp_lobby.bsp")


def test_decompile_matches_cli(work):
    m = bspkit.open(need(SOURCE))
    mine, theirs = work / "mine.vmf", work / "theirs.vmf"
    st = m.decompile(mine)
    r = subprocess.run([CLI, "decompile", SOURCE, "-o", str(theirs), "--json"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    want = json.loads(r.stdout)
    assert mine.read_bytes() == theirs.read_bytes()
    assert mine.read_text().startswith("versioninfo")
    for k in ("entities", "brushes", "sides", "displacements", "static_props", "overlays", "format", "bytes"):
        assert st[k] == want[k], k
    assert st["static_props"] > 0 and st["displacements"] > 0


def test_decompile_refusals(work):
    m = bspkit.open(need(SOURCE))
    out = work / "keep.map"
    out.write_text("before")
    with pytest.raises(bspkit.Error):
        m.decompile(out)            # a Source map decompiles to .vmf only
    assert out.read_text() == "before"
    with pytest.raises(ValueError):
        m.decompile(work / "x.txt")
    if os.path.exists(QUAKE1):      # brushes rebuilt from the tree, as a Valve 220 .map
        q = bspkit.open(QUAKE1)
        st = q.decompile(work / "q.map")
        assert st["format"] == "map" and st["brushes"] > 0 and st["tree_regions"] >= st["brushes"]
        assert '"mapversion" "220"' in (work / "q.map").read_text(encoding="latin-1")
        with pytest.raises(bspkit.ArgumentError):
            q.decompile(work / "q.vmf")  # a Quake map decompiles to .map only
        assert not (work / "q.vmf").exists()
