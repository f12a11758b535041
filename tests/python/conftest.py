"""The package against the CLI: paths come from the environment run.sh sets
(BSPKIT_CLI, BSPKIT_SHARED, BSPKIT_FETCHED, BSPKIT_WORK)."""
import glob
import os
import subprocess

import pytest

CLI = os.environ.get("BSPKIT_CLI", "build/bspkit")
SHARED = os.environ.get("BSPKIT_SHARED", "../shared")
FETCHED = os.environ.get("BSPKIT_FETCHED", os.path.expanduser("~/.cache/bspkit-corpus"))
WORK = os.environ.get("BSPKIT_WORK", "/tmp/bspkit-pytest")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def corpus_maps():
    """Every map of ../shared/corpus, the repository's samples, and every 16th fetched Quake 3 map."""
    maps = sorted(glob.glob(os.path.join(SHARED, "corpus", "*", "*.bsp")))
    maps += sorted(glob.glob(os.path.join(ROOT, "samples", "*.bsp")))
    maps += sorted(glob.glob(os.path.join(FETCHED, "q3", "*", "*.bsp")))[::16]
    return maps


_READABLE = {}


def readable(path):
    """Whether the CLI reads the file (`bspkit info` exits 0)."""
    if path not in _READABLE:
        _READABLE[path] = subprocess.run([CLI, "info", path], capture_output=True).returncode == 0
    return _READABLE[path]


def pytest_generate_tests(metafunc):
    if "corpus_map" in metafunc.fixturenames:
        maps = [m for m in corpus_maps() if readable(m)]
        metafunc.parametrize("corpus_map", maps or [None], ids=[os.path.basename(m) for m in maps] or ["none"])
    if "unusual_map" in metafunc.fixturenames:
        maps = [m for m in corpus_maps() if not readable(m)]
        metafunc.parametrize("unusual_map", maps or [None], ids=[os.path.basename(m) for m in maps] or ["none"])


@pytest.fixture
def work(tmp_path):
    return tmp_path


def need(path):
    if path is None or not os.path.exists(path):
        pytest.skip("corpus missing: %s (run ../shared/scripts/fetch-corpus)" % path)
    return path
