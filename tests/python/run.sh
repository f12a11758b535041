#!/usr/bin/env bash
# The Python package's pytest suite (tests/python), registered in ctest as `python`:
# builds the package (cffi, API mode) against this build's libbspkit.a into a virtual environment
# over Debian's python3 in WORK, then runs pytest with the corpus paths.
# usage: run.sh CLI SHARED FETCHED WORK BUILD_DIR
set -u
CLI=$(realpath "$1"); SHARED=$(realpath -m "$2"); FETCHED=$(realpath -m "$3"); WORK=$(realpath -m "$4"); BUILD=$(realpath "$5")
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PY=/usr/bin/python3
if ! [[ -x $PY ]] || ! $PY -c 'import cffi, numpy, pytest, setuptools, wheel, pip' 2>/dev/null; then
    echo "SKIP: Debian's python3 with cffi, numpy, pytest, setuptools, wheel, pip missing (scripts/install-deps --python)"
    exit 77
fi
[[ -f $BUILD/libbspkit.a ]] || { echo "SKIP: $BUILD has no libbspkit.a (a shared-library build)"; exit 77; }
rm -rf "$WORK"; mkdir -p "$WORK"
# a copy of python/, so that builds of several build folders never share python/build
cp -r "$ROOT/python" "$WORK/src" && rm -rf "$WORK/src/build" "$WORK/src/"*.egg-info "$WORK"/src/bspkit/_native*
$PY -m venv --system-site-packages --without-pip "$WORK/venv" || exit 1
# a sanitizer build (BK_PY_SANITIZE=1, set by ctest): link the instrumented archive with the
# sanitizer runtimes and preload them into Python; leaks are not checked (Python's own are many)
PRELOAD=
if [[ ${BK_PY_SANITIZE:-0} == 1 ]]; then
    export BSPKIT_LDFLAGS="-fsanitize=address,undefined" ASAN_OPTIONS=detect_leaks=0
    export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
    PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
fi
BSPKIT_SOURCE_DIR=$ROOT BSPKIT_BUILD_DIR=$BUILD "$WORK/venv/bin/python" -m pip install -q --no-build-isolation \
    --no-deps "$WORK/src" >"$WORK/pip.log" 2>&1 || { cat "$WORK/pip.log"; exit 1; }
cd "$ROOT/tests/python" || exit 1
BSPKIT_CLI=$CLI BSPKIT_SHARED=$SHARED BSPKIT_FETCHED=$FETCHED BSPKIT_WORK=$WORK LD_PRELOAD=$PRELOAD \
    exec "$WORK/venv/bin/python" -m pytest -q -p no:cacheprovider -x --durations=5 . 
