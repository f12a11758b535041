#!/usr/bin/env bash
# make test's ctest run (tests/tools/run-ctest.sh) on a small CTest project of its own: the tests
# that skipped are listed with the reason each printed, with the one scripts/install-deps command
# that enables them; the exit status stays ctest's (0 with skips, 8 with a failure).
# args: CLI SHARED FETCHED WORK
source "$BK_TESTS/lib.sh"
bk_init "$@"
P=$WORK/project
mkdir -p "$P"
cat > "$P/CMakeLists.txt" <<'CM'
cmake_minimum_required(VERSION 3.18)
project(summary NONE)
enable_testing()
add_test(NAME passes COMMAND true)
add_test(NAME needs_web COMMAND bash -c "echo 'SKIP: emscripten not installed (scripts/install-deps --web)'; exit 77")
add_test(NAME needs_blender COMMAND bash -c "echo note; echo 'SKIP: blender not installed (scripts/install-deps --blender)'; exit 77")
add_test(NAME needs_corpus COMMAND bash -c "echo 'SKIP: /x/corpus/a.bsp missing (../shared/corpus/MANIFEST.md; make corpus fetches the rest)'; exit 77")
add_test(NAME fails COMMAND false)
set_tests_properties(needs_web needs_blender needs_corpus PROPERTIES SKIP_RETURN_CODE 77)
CM
check "the project configures" bash -c "cmake -S '$P' -B '$P/build' >/dev/null"
bash "$BK_TESTS/tools/run-ctest.sh" "$P/build" -E '^fails$' >"$WORK/out" 2>&1; rc=$?
check "skips alone: exit 0 (got $rc)" test "$rc" = 0
check "three tests named as skipped" grep -q '3 tests skipped' "$WORK/out"
for t in "needs_web .*emscripten not installed" "needs_blender .*blender not installed" "needs_corpus .*corpus/a.bsp missing"; do
    check "listed with its reason: $t" grep -qE "^  $t" "$WORK/out"
done
check "the one command that enables them" grep -qxF 'to run them: scripts/install-deps --web --blender && make test' "$WORK/out"
check "where the corpus comes from" grep -q 'BSPKIT_SHARED_DIR' "$WORK/out"
check "the test that passed is not listed" bash -c "! grep -q '^  passes' '$WORK/out'"
bash "$BK_TESTS/tools/run-ctest.sh" "$P/build" >"$WORK/out2" 2>&1; rc=$?
check "a failure still fails (exit $rc)" test "$rc" != 0
check "... and the skips are still listed" grep -q '3 tests skipped' "$WORK/out2"
bash "$BK_TESTS/tools/run-ctest.sh" "$P/build" -R '^passes$' >"$WORK/out3" 2>&1; rc=$?
check "nothing skipped: said so (exit $rc)" grep -q 'no test skipped' "$WORK/out3"
# make test runs ctest through it
check "make test runs run-ctest.sh" grep -qE '^test:' "$BK_TESTS/../Makefile"
check "... in the test target" bash -c "sed -n '/^test:/,/^\$/p' '$BK_TESTS/../Makefile' | grep -q 'tests/tools/run-ctest.sh'"
(( FAILS )) && cat "$WORK/out" >&2
bk_done
