#!/usr/bin/env bash
# The library installs (cmake --install) with headers, a CMake package and a pkg-config file,
# and a program outside the tree builds against it both ways and runs.
# args: CLI SHARED FETCHED WORK BUILD_DIR SANITIZE
source "$BK_TESTS/lib.sh"
bk_init "$1" "$2" "$3" "$4"
BUILD=$5; SAN=$6
PREFIX=$WORK/prefix
check "cmake --install" cmake --install "$BUILD" --prefix "$PREFIX" >/dev/null
check "header installed" test -f "$PREFIX/include/bspkit/bspkit.h"
check "scene header installed" test -f "$PREFIX/include/bspkit/scene.h"
pc=$(find "$PREFIX" -name bspkit.pc | head -1)
check "pkg-config file installed" test -n "$pc"
check "CMake package installed" test -n "$(find "$PREFIX" -name bspkitConfig.cmake)"
mkdir -p "$WORK/consumer"
cat > "$WORK/consumer/main.c" <<'C'
#include <bspkit/bspkit.h>
#include <stdio.h>
int main(void)
{
    bk_file *f = NULL;
    bk_result r = bk_file_load_memory("nope", 4, NULL, &f);
    printf("%s\n", bk_strerror(r));
    return r == BK_EMAGIC ? 0 : 1;
}
C
SANFLAGS=""
[[ $SAN == ON ]] && SANFLAGS="-fsanitize=address,undefined"
export PKG_CONFIG_PATH=$(dirname "$pc")
if cc $SANFLAGS "$WORK/consumer/main.c" -o "$WORK/consumer/pc" $(pkg-config --cflags --libs --static bspkit) 2>"$WORK/.err"; then
    ok; check "pkg-config consumer runs" "$WORK/consumer/pc"
else fail "pkg-config consumer does not build"; head "$WORK/.err" >&2; fi
cat > "$WORK/consumer/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.18)
project(consumer C)
find_package(bspkit REQUIRED)
add_executable(consumer main.c)
target_link_libraries(consumer PRIVATE bspkit::bspkit)
target_compile_options(consumer PRIVATE $SANFLAGS)
target_link_options(consumer PRIVATE $SANFLAGS)
CM
if cmake -S "$WORK/consumer" -B "$WORK/consumer/build" -DCMAKE_PREFIX_PATH="$PREFIX" >/dev/null 2>"$WORK/.err" &&
   cmake --build "$WORK/consumer/build" >/dev/null 2>>"$WORK/.err"; then
    ok; check "CMake consumer runs" "$WORK/consumer/build/consumer"
else fail "CMake consumer does not build"; tail "$WORK/.err" >&2; fi
# each installed header stands alone, C11, without warnings, and names nothing the library keeps
# for itself (builder capacities, the PNG job, pixel packing, the scene builders, internal flags,
# the readers behind bk_archive and the archive calls of other shapes it replaced)
# (the fenced advanced.h with its define, and refused without it)
for h in "$PREFIX"/include/bspkit/*.h; do
    fence=""
    [ "$(basename "$h")" = advanced.h ] && fence="#define BK_ADVANCED_API"
    check "$(basename "$h") compiles alone" bash -c "printf '%s\n#include <bspkit/%s>\n' '$fence' '$(basename "$h")' |
        cc -std=c11 -Wall -Wextra -Wpedantic -Werror -fsyntax-only -I'$PREFIX/include' -x c -"
done
check "advanced.h is refused without BK_ADVANCED_API" bash -c "! echo '#include <bspkit/advanced.h>' |
    cc -std=c11 -fsyntax-only -I'$PREFIX/include' -x c - 2>/dev/null"
check "no private names in the installed headers" bash -c "! grep -nE '_cap_|png_job|BK_PACK_|bk_scene_add|bk_prim_|bk_atlas|bk_file_impl|COMPACT_IMAGES|RELEASE_INPUT|bk_zip|bk_vpk|bk_source_pak|bk_archive_(name|size|read_ex)[[:space:]]*\\(' '$PREFIX'/include/bspkit/*.h"
# an embedder built against the installed headers and library only runs the headers' examples on
# real maps: open, query, rewrite, the file into a scene, its images' pixels, a .glb in memory
if cc $SANFLAGS -std=c11 -Wall -Wextra -Werror "$BK_TESTS/cli/embedder.c" -o "$WORK/consumer/embedder" -I"$PREFIX/include" \
      $(pkg-config --libs --static bspkit) 2>"$WORK/.err"; then
    ok
    SRC=$(cd "$BK_TESTS/.." && pwd)
    check "embedder on the shipped sample" "$WORK/consumer/embedder" "$SRC/samples/bsp_tool_quake_mp_lobby.bsp"
    g=$(ls "$CORPUS"/goldsrc/*.bsp 2>/dev/null | head -1)
    if [[ -n $g ]]; then check "embedder on $(basename "$g")" "$WORK/consumer/embedder" "$g"
    else echo "note: no GoldSrc corpus map (../shared/corpus): that run skipped"; fi
    q=$FETCHED/q3/oa081/dm4ish.bsp; pk=$FETCHED/pk3/oa-pak1-maps.pk3
    if [[ -f $q && -f $pk ]]; then check "embedder on dm4ish and a pk3" "$WORK/consumer/embedder" "$q" "$pk"
    else echo "note: no Quake 3 corpus (fetch-corpus): that run skipped"; fi
else fail "the embedder does not build against the installed headers"; head "$WORK/.err" >&2; fi
# the installed package names no absolute path of this machine's libraries
no_abs_paths() { ! grep -qE '"/(usr|lib)[^"]*[.](so|a)' "$@"; }
check "the CMake package names no absolute library path" no_abs_paths $(find "$PREFIX" -name 'bspkitTargets*.cmake')
check "bk_version() answers" bash -c "cc -x c - -o '$WORK/v' -I'$PREFIX/include' <<< '#include <bspkit/bspkit.h>
#include <string.h>
int main(void){return strcmp(bk_version(), BK_VERSION_STRING) != 0;}' $(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --libs --static bspkit) $SANFLAGS && '$WORK/v'"
# a shared build exports exactly what include/bspkit/ declares, with a SONAME, and all of it builds:
# its tests, fuzz replay programs and benchmarks too (they call internals and cJSON: a static copy
# of the library links them), and its replays of the crashers run (skipped under ASan).
# Its build folder is kept beside the work folder from one run to the next: built incrementally
# from the current sources, as the main build is (a whole build each run was most of this test).
if [[ $SAN != ON ]] && command -v nm >/dev/null; then
    SRC=$(cd "$BK_TESTS/.." && pwd)
    SHARED=$WORK-shared
    if cmake -S "$SRC" -B "$SHARED" -DBUILD_SHARED_LIBS=ON -DCMAKE_BUILD_TYPE=Release >/dev/null 2>"$WORK/.err" &&
       cmake --build "$SHARED" -j2 >/dev/null 2>>"$WORK/.err"; then
        ok
        so=$(readlink -f "$SHARED/libbspkit.so")   # the library just built (not one of an older version)
        check "the shared library has a SONAME" bash -c "objdump -p '$so' | grep -q 'SONAME.*libbspkit.so.0'"
        nm -D --defined-only "$so" | awk '$2 == "T" {print $3}' | sed 's/@.*//' | sort -u > "$WORK/exported"
        cat "$SRC"/include/bspkit/*.h | grep -oE 'bk_[a-z0-9_]+[[:space:]]*\(' | sed 's/[[:space:]]*($//' | sort -u > "$WORK/declared"
        check "every exported function is declared in include/bspkit/" bash -c "comm -23 '$WORK/exported' '$WORK/declared' | (! grep .)"
        check "nothing internal is exported (bk_report, bk_alloc_array, bk_cm_trace, the archive readers)" bash -c "! grep -qE '^(bk_report|bk_alloc_array|bk_cm_trace|bk_archive_wrap|bk_zip_.*|bk_vpk_.*|bk_source_pak_.*)\$' '$WORK/exported'"
        check "the CLI runs on the shared library" "$SHARED/bspkit" info "$SRC/samples/ericw_q1_detail_fence2.bsp"
        check "the shared build's fuzz replays and unit_core pass" bash -c "cd '$SHARED' && ctest -R '^(fuzz_replay|unit_core)\$' >'$WORK/.ctest' 2>&1"
    else fail "shared build (with its tests)"; grep -E 'error|undefined' "$WORK/.err" | head -5 >&2; tail -5 "$WORK/.err" >&2; fi
fi
bk_done
