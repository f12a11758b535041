# Sourced by run.sh and rebuild.sh: ROOT (the repository), PY (Debian's python3), and
# bk_py_venv WORK BUILD_DIR MODULES: exit 77 (ctest's skip) without PY and MODULES or without
# BUILD_DIR/libbspkit.a; else WORK emptied, WORK/src a copy of python/ (so that builds of several
# build folders never share python/build) and WORK/venv a venv over PY's packages; PRELOAD: the
# sanitizer runtimes to preload into Python in a sanitizer build (BK_PY_SANITIZE=1, set by ctest),
# whose instrumented archive the extension links with them (leaks are not checked: Python's own
# are many), else empty.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PY=/usr/bin/python3
bk_py_venv() {
    local work=$1 build=$2 mods=$3
    if ! [[ -x $PY ]] || ! $PY -c "import $mods" 2>/dev/null; then
        echo "SKIP: Debian's python3 with $mods missing (scripts/install-deps --python)"
        exit 77
    fi
    [[ -f $build/libbspkit.a ]] || { echo "SKIP: $build has no libbspkit.a (a shared-library build)"; exit 77; }
    rm -rf "$work"; mkdir -p "$work"
    cp -r "$ROOT/python" "$work/src" && rm -rf "$work/src/build" "$work/src/"*.egg-info "$work"/src/bspkit/_native*
    $PY -m venv --system-site-packages --without-pip "$work/venv" || exit 1
}
PRELOAD=
if [[ ${BK_PY_SANITIZE:-0} == 1 ]]; then
    export BSPKIT_LDFLAGS="-fsanitize=address,undefined" ASAN_OPTIONS=detect_leaks=0
    export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
    PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
fi
