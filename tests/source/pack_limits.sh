#!/usr/bin/env bash
# pak pack and assets against hostile game folders (red-team findings F5, F6, F10):
# * sizes are checked before anything is read: three 500 MB sparse sounds (1.5 GB, over the total)
#   and one 1.2 GB sound (over one entry's limit) are refused at once, with the limit named, in
#   well under 100 MB (peak RSS by /usr/bin/time) and nothing written; --dry-run lists a 900 MB
#   file's size without reading it (under 100 MB);
# * a 1.2 GB .vmt (the map's skybox face) is not read whole by assets or convert (a located
#   warning, under 100 MB);
# * a file or a folder that is a symbolic link out of the game folder is refused, naming the link
#   and where it points; --follow-links packs it;
# * a file that is there but cannot be read says why (Permission denied), not "not found".
# args: CLI SHARED FETCHED WORK
source "$BK_TESTS/lib.sh"
bk_init "$@"
M=$CORPUS/source/tf2_v20_bsp_tool_mp_lobby.bsp
need_file "$M"
[[ -x /usr/bin/time ]] || bk_skip "/usr/bin/time missing (GNU time, for peak memory)"

# a map whose ambient_generic entities play sound/big0.wav .. big3.wav
"$CLI" entities "$M" --json > "$WORK/e.json"
python3 - "$WORK/e.json" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))
e += [[["classname", "ambient_generic"], ["message", "big%d.wav" % i]] for i in range(4)]
json.dump(e, open(sys.argv[1], "w"))
PY
"$CLI" entities "$M" --import "$WORK/e.json" -o "$WORK/m.bsp" -q
need_file "$WORK/m.bsp"

# peak RSS in MB and wall seconds of the last run_timed, its exit code in RC
run_timed() {
    /usr/bin/time -v -o "$WORK/time.txt" "$@" >"$WORK/.out" 2>"$WORK/.err"
    RC=$?
    RSS=$(awk -F': ' '/Maximum resident/ {print int($2 / 1024)}' "$WORK/time.txt")
    SECS=$(awk -F': ' '/Elapsed \(wall/ {n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; print int(s)}' "$WORK/time.txt")
    echo "  $(basename "$1") ${*:2:3}...: exit $RC, ${RSS} MB, ${SECS} s"
}
under() { [[ $1 -lt $2 ]]; }

G=$WORK/g
mkdir -p "$G/sound"
for i in 0 1 2; do truncate -s 500M "$G/sound/big$i.wav"; done
run_timed "$CLI" pak "$WORK/m.bsp" pack --game-dir "$G" -o "$WORK/p.bsp"
check "three 500 MB files: refused (exit 1)" test "$RC" = 1
check "three 500 MB files: the total and its limit named" grep -q "the 3 files to pack come to 1572864000 bytes, over the limit of" "$WORK/.err"
check "three 500 MB files: refused in under 100 MB (${RSS} MB)" under "$RSS" 100
check "three 500 MB files: refused in under 10 s (${SECS} s)" under "$SECS" 10
check "three 500 MB files: nothing written" test ! -e "$WORK/p.bsp"
run_timed "$CLI" pak "$WORK/m.bsp" pack --game-dir "$G" --dry-run
check "--dry-run of three 500 MB files: refused as the real run is" test "$RC" = 1
check "--dry-run of three 500 MB files: under 100 MB (${RSS} MB)" under "$RSS" 100

# a pack that goes through: three 30 MB files (random, so nothing compresses them away) are held
# twice at the most (the rebuilt pakfile, then the map laid out), not four times (the files read,
# the zip, its copy as the lump and the map: 267 MB before): peak under 2.5x the packed bytes.
# A sanitizer's allocator keeps freed blocks in quarantine, so the bound is the release build's.
rm -f "$G"/sound/big*.wav
for i in 0 1 2; do head -c 30000000 /dev/urandom > "$G/sound/big$i.wav"; done
run_timed "$CLI" pak "$WORK/m.bsp" pack --game-dir "$G" -o "$WORK/p.bsp"
check "three 30 MB files: packed" test "$RC" = 0
if ! nm -an "$CLI" 2>/dev/null | grep -q __asan_init; then
    check "three 30 MB files: packed in under 225 MB, 2.5x the 90 MB (${RSS} MB)" under "$RSS" 225
fi
"$CLI" pak "$WORK/p.bsp" extract -o "$WORK/x" -q
check "three 30 MB files: each back as it was" cmp -s "$G/sound/big1.wav" "$WORK/x/sound/big1.wav"
rm -rf "$WORK/x" "$WORK/p.bsp"

rm -f "$G"/sound/big*.wav
truncate -s 1200M "$G/sound/big3.wav"
run_timed "$CLI" pak "$WORK/m.bsp" pack --game-dir "$G" -o "$WORK/p.bsp"
check "one 1.2 GB file: refused (exit 1)" test "$RC" = 1
check "one 1.2 GB file: over one entry's limit, said with the file's size" \
    grep -q "1258291200 bytes, over the limit of 1073741824 bytes for one pakfile entry" "$WORK/.err"
check "one 1.2 GB file: under 100 MB (${RSS} MB)" under "$RSS" 100
check "one 1.2 GB file: nothing written" test ! -e "$WORK/p.bsp"

rm -f "$G"/sound/big*.wav
truncate -s 900M "$G/sound/big1.wav"
run_timed "$CLI" pak "$WORK/m.bsp" pack --game-dir "$G" --dry-run
check "--dry-run of a 900 MB file: exit 0" test "$RC" = 0
check "--dry-run lists its size" grep -q "sound/big1.wav  (943718400 bytes" "$WORK/.out"
check "--dry-run does not read it: under 100 MB (${RSS} MB)" under "$RSS" 100
rm -f "$G"/sound/big*.wav

# a 1.2 GB VMT: the map's skybox face; assets does not read it whole
S=$WORK/sky
mkdir -p "$S/materials/skybox"
truncate -s 1200M "$S/materials/skybox/sky_tf2_04rt.vmt"
run_timed "$CLI" assets "$M" --game-dir "$S" --json
check "a 1.2 GB VMT: assets under 100 MB (${RSS} MB)" under "$RSS" 100
check "a 1.2 GB VMT: listed as found" python3 -c '
import json, sys
by = {a["file"]: a for a in json.load(open(sys.argv[1]))["assets"]}
sys.exit(0 if by["materials/skybox/sky_tf2_04rt.vmt"]["found"] else 1)' "$WORK/.out"
check "a 1.2 GB VMT: a warning with the VMT limit" grep -q "over the limit of 1048576 bytes for a VMT" "$WORK/.err"
run_timed "$CLI" convert "$M" --game-dir "$S" -o "$WORK/sky.glb"
check "a 1.2 GB VMT: convert goes on (exit 0)" test "$RC" = 0
check "a 1.2 GB VMT: convert under 100 MB (${RSS} MB)" under "$RSS" 100
check "a 1.2 GB VMT: convert warns, located" \
    grep -q "materials/skybox/sky_tf2_04rt.vmt: warning: material not read: 1258291200 bytes, over the limit" "$WORK/.err"
rm -rf "$S"

# symbolic links out of the game folder
L=$WORK/links
mkdir -p "$L/g/materials/skybox" "$L/outside/secret"
echo OUTSIDE-SECRET > "$L/outside.txt"
ln -s ../../../outside.txt "$L/g/materials/skybox/sky_tf2_04rt.vmt"
run_timed "$CLI" pak "$M" pack --game-dir "$L/g" -o "$WORK/l.bsp"
check "a linked file out of the game folder: refused (exit 1)" test "$RC" = 1
check "the message names the link and says where it points" \
    grep -q "materials/skybox/sky_tf2_04rt.vmt is a symbolic link to $L/outside.txt, outside the game folder" "$WORK/.err"
check "nothing written" test ! -e "$WORK/l.bsp"
expect_exit 1 "$CLI" pak "$M" pack --game-dir "$L/g" --dry-run
expect_exit 0 "$CLI" pak "$M" pack --game-dir "$L/g" --follow-links -o "$WORK/l.bsp" -q
"$CLI" pak "$WORK/l.bsp" extract -o "$WORK/lx" >/dev/null 2>&1
check "--follow-links packs the file it points to" grep -q OUTSIDE-SECRET "$WORK/lx/materials/skybox/sky_tf2_04rt.vmt"
# a linked folder
rm -rf "$L/g/materials/skybox"
echo OUTSIDE-SECRET > "$L/outside/secret/sky_tf2_04bk.vmt"
ln -s ../../outside/secret "$L/g/materials/skybox"
expect_stderr_has "is a symbolic link to $L/outside/secret/sky_tf2_04bk.vmt, outside" \
    "$CLI" pak "$M" pack --game-dir "$L/g" -o "$WORK/l2.bsp"
check "a linked folder: nothing written" test ! -e "$WORK/l2.bsp"
# a link that stays inside the folder is packed as before
rm "$L/g/materials/skybox"; mkdir -p "$L/g/materials/skybox" "$L/g/shared"
echo inside > "$L/g/shared/sky.vmt"
ln -s ../../shared/sky.vmt "$L/g/materials/skybox/sky_tf2_04rt.vmt"
expect_exit 0 "$CLI" pak "$M" pack --game-dir "$L/g" -o "$WORK/l3.bsp" -q

# a file that cannot be read: "Permission denied", not "not found" (as an unprivileged user: root
# reads anything)
U=$WORK/perm
mkdir -p "$U/g/sound"
echo x > "$U/g/sound/big0.wav"
chmod 000 "$U/g/sound/big0.wav"
cp "$WORK/m.bsp" "$U/m.bsp"
chmod 755 "$WORK" "$U" "$U/g" "$U/g/sound"; chmod 644 "$U/m.bsp"
as_user=()
if [[ $(id -u) == 0 ]]; then as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups); fi
if [[ $(id -u) != 0 ]] || "${as_user[@]}" test -x "$CLI" -a -r "$U/m.bsp" 2>/dev/null; then
    expect_stderr_has "sound/big0.wav: Permission denied" "${as_user[@]}" "$CLI" pak "$U/m.bsp" pack --game-dir "$U/g" --dry-run
    expect_exit 1 "${as_user[@]}" "$CLI" pak "$U/m.bsp" pack --game-dir "$U/g" --dry-run
else
    echo "  (the unreadable-file check needs $CLI readable by uid 65534: left out)"
fi
bk_done
