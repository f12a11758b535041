#!/usr/bin/env bash
# `pip install ./python` with another BSPKIT_BUILD_DIR links that build's library (registered in
# ctest as `python_rebuild`). pip builds in place (python/build/), and setuptools relinks only what
# looks older than its inputs: an install against a second build folder whose libbspkit.a is older
# (a sanitizer build made before) kept the first library. setup.py keys the build on the library's
# identity; this installs one source folder three times and asks the extension which library it
# links (bspkit._native.lib.bkpy_library()): A, then B (a copy of A dated 2000), then B again
# (no relink: the extension's file stays as it was), then B with its library file replaced by
# another one dated 2001 (relinked, though older than the extension).
# usage: rebuild.sh WORK BUILD_DIR
set -u
WORK=$(realpath -m "$1"); BUILD=$(realpath "$2")
. "$(dirname "$0")/venv.sh"
bk_py_venv "$WORK" "$BUILD" "cffi, numpy, setuptools, wheel, pip"
mkdir -p "$WORK/B" && cp "$BUILD/libbspkit.a" "$BUILD/bspkit.pc" "$WORK/B/" && touch -d 2000-01-01 "$WORK/B/libbspkit.a"
fails=0
install() {   # install LIBRARY_DIR: install the package from $WORK/src against it
    BSPKIT_SOURCE_DIR=$ROOT BSPKIT_BUILD_DIR=$1 "$WORK/venv/bin/python" -m pip install -q --no-build-isolation \
        --no-deps --force-reinstall "$WORK/src" >"$WORK/pip.log" 2>&1 || { cat "$WORK/pip.log"; exit 1; }
}
links() {     # links LIBRARY_DIR WHAT: the installed extension links LIBRARY_DIR/libbspkit.a
    local got
    got=$(cd "$WORK" && LD_PRELOAD=$PRELOAD "$WORK/venv/bin/python" -c 'import bspkit._native as n; print(n.ffi.string(n.lib.bkpy_library()).decode())')
    if [[ $got == "$1/libbspkit.a" ]]; then echo "ok: $2 links $got"
    else echo "FAIL: $2 links $got, not $1/libbspkit.a"; fails=$((fails + 1)); fi
}
so() { find "$WORK/src/build" -name '_native*.so' -printf '%p %T@\n' 2>/dev/null | sort; }
install "$BUILD"; links "$BUILD" "the first install"
install "$WORK/B"; links "$WORK/B" "an install with another, older library"
before=$(so)
install "$WORK/B"; links "$WORK/B" "the same install again"
if [[ -n $before && $(so) == "$before" ]]; then echo "ok: the same library again is not relinked"
else echo "FAIL: the same library again relinked the extension ($before -> $(so))"; fails=$((fails + 1)); fi
# another library file at the same path (a build folder rebuilt, or another build's copy), older
# than the extension: relinked
cp "$BUILD/libbspkit.a" "$WORK/B/libbspkit.a.new" && mv "$WORK/B/libbspkit.a.new" "$WORK/B/libbspkit.a"
touch -d 2001-01-01 "$WORK/B/libbspkit.a"
install "$WORK/B"; links "$WORK/B" "an install after B's library was replaced"
if [[ $(so) != "$before" ]]; then echo "ok: another library at the same path is relinked"
else echo "FAIL: another library at the same path was not relinked (the extension kept the old one)"; fails=$((fails + 1)); fi
[[ $fails == 0 ]]
