# Shared helpers for the shell tests. Each test ends with bk_done, which prints
# "N passed, M failed" and exits non-zero on any failure, or when no check ran at all (as the C
# harness, unit/check.h, does). Data a test needs and does not find is a skip (exit 77) with a
# message: need_dir / need_file, never a silent `[[ -f ... ]] || continue`.
set -u
PASS=0
FAILS=0
bk_init() {
    CLI=$1; SHARED=$2; FETCHED=$3; WORK=$4
    CORPUS=$SHARED/corpus
    rm -rf "$WORK"; mkdir -p "$WORK"
}
ok() { PASS=$((PASS + 1)); }
fail() { FAILS=$((FAILS + 1)); echo "FAIL: $*" >&2; }
check() { local what=$1; shift; if "$@"; then ok; else fail "$what"; fi; }
# expect_exit CODE CMD...: run CMD, compare its exit code
expect_exit() {
    local want=$1; shift
    "$@" >"$WORK/.out" 2>"$WORK/.err"; local got=$?
    if [[ $got == "$want" ]]; then ok; else fail "exit $got (want $want): $*"; sed 's/^/    /' "$WORK/.err" | head -5 >&2; fi
    if [[ $got -ge 128 ]]; then fail "crashed (signal $((got - 128))): $*"; fi
}
expect_stdout_has() {
    local pat=$1; shift
    "$@" >"$WORK/.out" 2>"$WORK/.err"
    if grep -qF -- "$pat" "$WORK/.out"; then ok; else fail "stdout lacks '$pat': $*"; fi
}
expect_stderr_has() {
    local pat=$1; shift
    "$@" >"$WORK/.out" 2>"$WORK/.err"
    if grep -qF -- "$pat" "$WORK/.err"; then ok; else fail "stderr lacks '$pat': $*"; fi
}
# skip (exit 77) when a fetched corpus folder is missing
# (after a failed check, a skip would hide it: the test fails instead)
bk_skip() {
    echo "SKIP: $*"
    if (( FAILS > 0 )); then echo "$PASS passed, $FAILS failed before the skip" >&2; exit 1; fi
    exit 77
}
need_dir() { [[ -d $1 ]] || bk_skip "$1 missing (run ../shared/scripts/fetch-corpus)"; }
need_numpy() { [[ -x /usr/bin/python3 ]] && /usr/bin/python3 -c 'import numpy' 2>/dev/null || bk_skip "/usr/bin/python3 with numpy missing"; }
# the array maps: the corpus's real GoldSrc, Quake 1 and Source maps (not its unusual_* ones)
corpus_maps() {
    need_dir "$CORPUS/goldsrc"; need_dir "$CORPUS/quake1"; need_dir "$CORPUS/source"
    maps=()
    local f
    for f in "$CORPUS"/goldsrc/*.bsp "$CORPUS"/quake1/*.bsp "$CORPUS"/source/*.bsp; do
        case $(basename "$f") in unusual_*) ;; *) maps+=("$f") ;; esac
    done
}
# skip (exit 77) when a named corpus file is missing: the corpus is a fixed list
# (../shared/corpus/MANIFEST.md, make corpus), so a missing file is an incomplete corpus
need_file() {
    local f
    for f in "$@"; do
        [[ -e $f ]] || bk_skip "$f missing (../shared/corpus/MANIFEST.md; make corpus fetches the rest)"
    done
}
# validate .glb/.gltf files with the Khronos validator (tests/tools/validate-gltf.mjs)
gltf_validate() {
    node "$BK_TESTS/tools/validate-gltf.mjs" "$@"
}
# render .glb files with three.js in headless Chromium (tests/tools/render.mjs); PNG previews
# go to the folder given first; fails if a file does not load or draws (almost) nothing
gltf_render() {
    local out=$1; shift
    node "$BK_TESTS/tools/render.mjs" --out "$out" "$@"
}
# import .glb files into Blender headless (tests/tools/blender_import.py); skips (77) when
# Blender is not installed (scripts/install-deps --blender); pass --armature / --actions to
# require them
blender_import() {
    command -v blender >/dev/null || { echo "SKIP: blender not installed (scripts/install-deps --blender)"; exit 77; }
    PATH=/usr/bin:/bin blender -b --python-exit-code 1 --python "$BK_TESTS/tools/blender_import.py" -- "$@" 2>&1 |
        grep -E '^(imported|INVALID)'
    return "${PIPESTATUS[0]}"
}
# only_files WHAT DIR NAME...: DIR holds exactly the NAMEs (no temporary or stray file left)
only_files() {
    local what=$1 d=$2; shift 2
    local x; x=$( ( cd "$d" && ls -A ) | grep -vxF -f <(printf '%s\n' "$@") || true)
    if [[ -z $x ]]; then ok; else fail "$what: left behind: $x"; fi
}
bk_done() {
    echo "$PASS passed, $FAILS failed"
    if (( PASS + FAILS == 0 )); then echo "FAIL: no check ran" >&2; return 1; fi
    [[ $FAILS == 0 ]]
}
