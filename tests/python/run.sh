#!/usr/bin/env bash
# The Python package's pytest suite (tests/python), registered in ctest as `python`:
# builds the package (cffi, API mode) against this build's libbspkit.a into a virtual environment
# over Debian's python3 in WORK, then runs pytest with the corpus paths.
# usage: run.sh CLI SHARED FETCHED WORK BUILD_DIR
set -u
CLI=$(realpath "$1"); SHARED=$(realpath -m "$2"); FETCHED=$(realpath -m "$3"); WORK=$(realpath -m "$4"); BUILD=$(realpath "$5")
. "$(dirname "$0")/venv.sh"
bk_py_venv "$WORK" "$BUILD" "cffi, numpy, pytest, setuptools, wheel, pip"
# a sanitizer build: PRELOAD and the link flags come from venv.sh
BSPKIT_SOURCE_DIR=$ROOT BSPKIT_BUILD_DIR=$BUILD "$WORK/venv/bin/python" -m pip install -q --no-build-isolation \
    --no-deps "$WORK/src" >"$WORK/pip.log" 2>&1 || { cat "$WORK/pip.log"; exit 1; }
cd "$ROOT/tests/python" || exit 1
BSPKIT_CLI=$CLI BSPKIT_SHARED=$SHARED BSPKIT_FETCHED=$FETCHED BSPKIT_WORK=$WORK LD_PRELOAD=$PRELOAD \
    "$WORK/venv/bin/python" -m pytest -q -p no:cacheprovider -x --durations=5 . || exit 1
# the suite without the corpora (a checkout without ../shared, the fetched maps not there yet):
# what needs them skips, saying so, and nothing fails
mkdir -p "$WORK/no-corpus"
BSPKIT_CLI=$CLI BSPKIT_SHARED=$WORK/no-corpus BSPKIT_FETCHED=$WORK/no-corpus BSPKIT_WORK=$WORK LD_PRELOAD=$PRELOAD \
    "$WORK/venv/bin/python" -m pytest -q -p no:cacheprovider -rs . >"$WORK/no-corpus.log" 2>&1
rc=$?
if [[ $rc != 0 ]] || ! grep -q 'SKIPPED.*corpus' "$WORK/no-corpus.log"; then
    cat "$WORK/no-corpus.log"
    echo "FAIL: without the corpora the suite must pass with skips (pytest exit $rc)"
    exit 1
fi
echo "ok: without the corpora: $(tail -n 1 "$WORK/no-corpus.log")"
