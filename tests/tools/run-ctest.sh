#!/usr/bin/env bash
# make test's ctest run: `ctest --output-on-failure ARGS...` in BUILD, then every test it skipped
# with the reason the test printed and the one command that enables them (tests/tools/skipped.py).
# Exits with ctest's status: a skip is not a failure, a failure stays one.
# usage: run-ctest.sh BUILD [CTEST ARGS...]
BUILD=$1; shift
here=$(cd "$(dirname "$0")" && pwd)
junit=$(cd "$BUILD" && pwd)/Testing/run-ctest-junit.xml
mkdir -p "$(dirname "$junit")" && rm -f "$junit"
(cd "$BUILD" && ctest --output-on-failure --output-junit "$junit" "$@"); rc=$?
echo
python3 "$here/skipped.py" "$junit" || echo "run-ctest.sh: no list of skipped tests (no readable $junit)"
exit $rc
