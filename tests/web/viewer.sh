#!/usr/bin/env bash
# The viewer page (make web: build/web/index.html) in headless Chromium from file://, driven by
# tests/web/viewer.mjs: a GoldSrc map with its WAD, a Quake 3 map inside a .pk3, a Source map
# with static props and a DPM open; stats() agrees with bspkit info / convert (entities,
# triangles, the .glb's size), trace() with bspkit trace on the same segment, the PVS query
# answers from the spawn, the screenshot from the spawn is within 3% RMSE of the reference
# renderer's picture of the page's own .glb (pictures kept in the work folder), and a broken
# file shows the library's located error without an uncaught exception (the next file still
# opens). Skips (77) without emscripten, Chromium or the npm tools.
source "$BK_TESTS/lib.sh"
bk_init "$@"
ROOT=$(cd "$BK_TESTS/.." && pwd)
BUILD=$(cd "$(dirname "$CLI")" && pwd)
command -v emcc >/dev/null || bk_skip "emscripten not installed (scripts/install-deps --web)"
command -v esbuild >/dev/null || bk_skip "esbuild not installed (scripts/install-deps --web)"
command -v chromium >/dev/null || bk_skip "chromium not installed (scripts/install-deps --test)"
[[ -f $BK_TESTS/tools/node_modules/playwright-core/package.json ]] || bk_skip "npm test tools missing (scripts/install-deps --test)"
apt-get source --print-uris -qq zlib >/dev/null 2>&1 || ls -d "$BUILD"/web-deps/zlib-* >/dev/null 2>&1 || bk_skip "no deb-src for apt-get source (scripts/install-deps --web)"
need_file "$CORPUS/goldsrc/ns_ns_lost.bsp" "$CORPUS/wad3/ns_lost.wad" "$CORPUS/source/css_v20_gg_creepyvan.bsp"

if (cd "$ROOT" && JOBS=${JOBS:-2} scripts/build-web "$BUILD") > "$WORK/build.log" 2>&1; then ok
else fail "make web"; tail -20 "$WORK/build.log" >&2; bk_done; fi
PAGE=$BUILD/web/index.html
size=$(stat -c %s "$PAGE"); gz=$(gzip -9c "$PAGE" | wc -c)
echo "page: $size bytes, $gz gzipped"
check "the page is at most 3 MB ($size bytes)" test "$size" -le 3145728
check "the page is at most 1 MB gzipped ($gz bytes)" test "$gz" -le 1048576

# a broken map: the GoldSrc map cut short
head -c 3000 "$CORPUS/goldsrc/ns_ns_lost.bsp" > "$WORK/broken.bsp"
cases="[{\"name\":\"broken\",\"files\":[\"$WORK/broken.bsp\"],\"broken\":true}"
cases+=",{\"name\":\"goldsrc\",\"files\":[\"$CORPUS/goldsrc/ns_ns_lost.bsp\",\"$CORPUS/wad3/ns_lost.wad\"],\"cli\":\"$CORPUS/goldsrc/ns_ns_lost.bsp\",\"cliArgs\":[\"--wad\",\"$CORPUS/wad3/ns_lost.wad\"],\"format\":\"goldsrc\",\"shot\":true,\"collision\":true}"
cases+=",{\"name\":\"source\",\"files\":[\"$CORPUS/source/css_v20_gg_creepyvan.bsp\"],\"cli\":\"$CORPUS/source/css_v20_gg_creepyvan.bsp\",\"format\":\"source\",\"shot\":true}"
pk3=$FETCHED/pk3/oa081-pak1-maps.pk3
if [[ -f $pk3 ]]; then
    cases+=",{\"name\":\"quake3\",\"files\":[\"$pk3\"],\"map\":\"maps/aggressor.bsp\",\"cli\":\"$pk3:maps/aggressor.bsp\",\"format\":\"quake3\",\"shot\":true}"
else echo "note: $pk3 absent (make corpus): Quake 3 part skipped"; fi
dpm=$FETCHED/dpm/spiderbot.dpm
if [[ -f $dpm ]]; then
    cases+=",{\"name\":\"dpm\",\"files\":[\"$dpm\",\"$dpm.framegroups\"],\"cli\":\"$dpm\",\"format\":\"dpm\",\"animations\":true}"
else echo "note: $dpm absent (make corpus): DPM part skipped"; fi
cases+="]"
echo "$cases" > "$WORK/cases.json"
if node "$BK_TESTS/web/viewer.mjs" "$PAGE" "$CLI" "$WORK/out" "$WORK/cases.json" > "$WORK/viewer.log" 2>&1; then ok
else fail "viewer checks"; fi
cat "$WORK/viewer.log"
bk_done
