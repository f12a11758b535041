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
bk_done
