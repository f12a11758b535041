#!/usr/bin/env bash
# Writes that never tear (src/common/safewrite.c), on real maps: a .gltf + .bin pair whose second
# file cannot be written keeps the old pair byte for byte; an in-place edit keeps the map's mode,
# owner, and symbolic link (the link's target is updated); a textures folder and an .obj output are
# replaced as a whole or not at all; errors name the file and the system's reason (EISDIR); no
# temporary is left after a failure or after SIGTERM / SIGHUP in the middle of a batch; pak add
# reads /proc files whole and refuses /dev/zero. (ENOSPC, EROFS, EACCES, a failed rename: safe_root.sh)
source "$BK_TESTS/lib.sh"
bk_init "$@"
G=$CORPUS/goldsrc
SRC=$CORPUS/source/css_v19_gg_aim_shotty.bsp
Q=$CORPUS/quake1/progs_dump_pd_heal.bsp   # 18 textures of its own
for f in "$G/hltopdown_test_tiny.bsp" "$G/cs16_aim_map.bsp" "$SRC" "$Q"; do
    [[ -f $f ]] || { echo "SKIP: $f missing"; exit 77; }
done

# ---- a .gltf + .bin pair is replaced as a whole ------------------------------------------------
# a.gltf is a link into a folder where nothing can be created: the new .bin can be written, the
# new .gltf cannot. As root the folder's permissions do not hold, so the writer runs as nobody.
as_user=()
if [[ $(id -u) == 0 ]]; then
    if command -v setpriv >/dev/null && setpriv --reuid=nobody --regid=nogroup --clear-groups true 2>/dev/null; then
        as_user=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
    else
        as_user=(skip)
    fi
fi
if [[ ${as_user[0]:-} == skip ]]; then
    echo "SKIP (part): no setpriv to run as nobody: the unwritable-folder pair check"
else
    P=$WORK/pair; mkdir -p "$P/locked"
    "$CLI" convert "$G/hltopdown_test_tiny.bsp" -o "$P/a.gltf" >/dev/null
    mv "$P/a.gltf" "$P/locked/a.gltf"; ln -s locked/a.gltf "$P/a.gltf"
    chmod 555 "$P/locked"; chmod 644 "$P/a.bin" "$P/locked/a.gltf"; chmod 777 "$P"
    md5sum "$P/a.bin" "$P/locked/a.gltf" > "$WORK/pair.md5"
    expect_exit 1 "${as_user[@]}" "$CLI" convert "$G/cs16_aim_map.bsp" -o "$P/a.gltf"
    check "the old .gltf + .bin pair is kept byte for byte when the .gltf cannot be written" md5sum -c --quiet "$WORK/pair.md5"
    check "the error names the .gltf and says why" grep -q "a.gltf: error: cannot create: Permission denied" "$WORK/.err"
    check "a.gltf is still a link" test -L "$P/a.gltf"
    only_files "pair folder" "$P" a.bin a.gltf locked
    only_files "locked folder" "$P/locked" a.gltf
fi
# a folder named like the .bin: refused before anything is written, the old .gltf kept
D=$WORK/dirbin; mkdir -p "$D"
"$CLI" convert "$G/hltopdown_test_tiny.bsp" -o "$D/a.gltf" >/dev/null
rm "$D/a.bin"; mkdir "$D/a.bin"
cp "$D/a.gltf" "$WORK/old.gltf"
expect_exit 1 "$CLI" convert "$G/cs16_aim_map.bsp" -o "$D/a.gltf"
check "a folder named like the .bin: 'Is a directory', located at the .bin" grep -q "a.bin: error: cannot write: Is a directory; .*a.gltf not written" "$WORK/.err"
check "the old .gltf is kept" cmp -s "$D/a.gltf" "$WORK/old.gltf"
only_files "a.bin as a folder" "$D" a.bin a.gltf

# ---- in-place edits keep the file's identity -------------------------------------------------
M=$WORK/mode; mkdir -p "$M"
cp "$G/cs16_aim_map.bsp" "$M/m.bsp"; chmod 640 "$M/m.bsp"
"$CLI" entities "$M/m.bsp" --json > "$M/e0.json"
python3 -c 'import json, sys; e = json.load(open(sys.argv[1])); e[0].append(["bspkit_mode", "1"]); json.dump(e, open(sys.argv[2], "w"))' \
    "$M/e0.json" "$M/e.json"; rm "$M/e0.json"
expect_exit 0 "$CLI" entities "$M/m.bsp" --import "$M/e.json" -o "$M/m.bsp"
check "entities --import -o SAME keeps mode 0640" test "$(stat -c %a "$M/m.bsp")" = 640
check "the edit is in the map" grep -q bspkit_mode <("$CLI" entities "$M/m.bsp")
if [[ $(id -u) == 0 ]]; then
    chown nobody:nogroup "$M/m.bsp"
    expect_exit 0 "$CLI" convert "$M/m.bsp" -o "$M/m.bsp"
    check "a rewrite by root keeps the owner nobody:nogroup" test "$(stat -c %U:%G "$M/m.bsp")" = nobody:nogroup
fi
# a new file: 0666 less the umask (not mkstemp's 0600)
( umask 027; "$CLI" convert "$G/hltopdown_test_tiny.bsp" -o "$M/new.glb" >/dev/null )
check "a new file is 0666 less the umask (027: 640)" test "$(stat -c %a "$M/new.glb")" = 640
# a symbolic link stays a link, its target is updated
mkdir -p "$M/real"; cp "$G/cs16_aim_map.bsp" "$M/real/t.bsp"; ln -s real/t.bsp "$M/link.bsp"
expect_exit 0 "$CLI" entities "$M/link.bsp" --import "$M/e.json" -o "$M/link.bsp"
check "the map's link is still a link" test -L "$M/link.bsp"
check "the link's target has the edit" grep -q bspkit_mode <("$CLI" entities "$M/real/t.bsp")
# hard links: the name written gets the new file, the other name keeps the old contents
cp "$G/cs16_aim_map.bsp" "$M/h1.bsp"; ln "$M/h1.bsp" "$M/h2.bsp"
expect_exit 0 "$CLI" entities "$M/h1.bsp" --import "$M/e.json" -o "$M/h1.bsp"
check "hard link: the name written has the edit" grep -q bspkit_mode <("$CLI" entities "$M/h1.bsp")
check "hard link: the other name keeps the old contents" cmp -s "$M/h2.bsp" "$G/cs16_aim_map.bsp"
only_files "in-place edits" "$M" m.bsp e.json new.glb real link.bsp h1.bsp h2.bsp
only_files "link target folder" "$M/real" t.bsp

# a DPM re-saved in place through a link (the fetched corpus): mode and link kept
dpm=$(ls "$FETCHED"/dpm/*.dpm 2>/dev/null | head -1)
if [[ -n $dpm ]]; then
    mkdir -p "$M/models"; cp "$dpm" "$M/models/m.dpm"; chmod 600 "$M/models/m.dpm"; ln -s models/m.dpm "$M/m.dpm"
    expect_exit 0 "$CLI" convert "$M/m.dpm" -o "$M/m.dpm"
    check "DPM re-save through a link: still a link" test -L "$M/m.dpm"
    check "DPM re-save: mode 0600 kept" test "$(stat -c %a "$M/models/m.dpm")" = 600
    rm -r "$M/m.dpm" "$M/models"
else
    echo "SKIP (part): no fetched DPM models: the DPM re-save check"
fi

# ---- errors say what happened --------------------------------------------------------------
mkdir -p "$WORK/isdir/x.bsp"
expect_exit 1 "$CLI" convert "$G/cs16_aim_map.bsp" -o "$WORK/isdir/x.bsp"
check "-o a folder: 'Is a directory' with the path" grep -q "isdir/x.bsp: error: cannot write: Is a directory" "$WORK/.err"
expect_exit 1 "$CLI" convert "$G/cs16_aim_map.bsp" -o "$WORK/nofolder/x.glb"
check "-o into a missing folder: 'No such file or directory'" grep -q "nofolder/x.glb: error: cannot create: No such file or directory" "$WORK/.err"

# ---- a textures folder and an OBJ output are replaced as a whole or not at all ----------------
T=$WORK/tex; mkdir -p "$T"
last=$("$CLI" textures "$Q" -o "$WORK/tex_all" | tail -2 | head -1 | cut -d' ' -f1)
last=$(basename "$last")
[[ $last == *.png ]] || fail "textures: no last PNG name ($last)"
mkdir "$T/$last"     # the name of the last texture written is taken by a folder
expect_exit 1 "$CLI" textures "$Q" -o "$T"
check "textures: a failing PNG says why" grep -q "$last: error: cannot write: Is a directory" "$WORK/.err"
only_files "textures -o DIR: no PNG of a failed run lands" "$T" "$last"
O=$WORK/obj; mkdir -p "$O/m.obj"
expect_exit 1 "$CLI" convert "$Q" -o "$O/m.obj"
only_files "obj: no .mtl, PNG or textures folder of a failed output" "$O" m.obj
mkdir -p "$WORK/obj_ok"
expect_exit 0 "$CLI" convert "$Q" -o "$WORK/obj_ok/m.obj"
check "obj: a good output has its PNGs" test -n "$(ls "$WORK/obj_ok/m_textures/" 2>/dev/null)"
# the PNGs are exactly those the .mtl names (the lightmap atlas, which OBJ's one UV set cannot use,
# is not written)
check "obj: the PNGs written are the ones the .mtl names" \
    test "$(grep -E '^(map_|norm)' "$WORK/obj_ok/m.mtl" | awk '{print $2}' | sed 's|^m_textures/||' | sort -u)" \
         = "$(ls "$WORK/obj_ok/m_textures/" | sort)"
check "obj: no lightmap atlas beside an OBJ" bash -c "! ls '$WORK/obj_ok/m_textures/' | grep -q lightmap"

# pak extract: one output too; a file that is a link is replaced, not followed out of DIR
SP=$CORPUS/source/css_v19_test_speakers.bsp   # 4 pakfile entries
if [[ -f $SP ]]; then
    X=$WORK/extract; d=$X/materials/maps/test_speakers
    mkdir -p "$d/c-24_86_117.vtf"      # the last entry's name is taken by a folder
    expect_exit 1 "$CLI" pak "$SP" extract -o "$X"
    check "pak extract: a failing entry says why" grep -q "c-24_86_117.vtf: error: cannot write: Is a directory" "$WORK/.err"
    check "pak extract: no file of a failed extraction lands" test -z "$(find "$X" -type f)"
    rmdir "$d/c-24_86_117.vtf"
    echo outside > "$WORK/outside.txt"; ln -s "$WORK/outside.txt" "$d/cubemapdefault.vtf"
    expect_exit 0 "$CLI" pak "$SP" extract -o "$X"
    check "pak extract: a link in DIR is replaced by the file" test ! -L "$d/cubemapdefault.vtf" -a -s "$d/cubemapdefault.vtf"
    check "pak extract: the link's old target is untouched" grep -qx outside "$WORK/outside.txt"
else
    echo "SKIP (part): $SP missing: the pak extract checks"
fi

# ---- pak add reads whole files, refuses devices ---------------------------------------------
expect_exit 0 "$CLI" pak "$SRC" add status.txt=/proc/self/status -o "$WORK/pak.bsp"
check "pak add /proc/self/status: a non-empty entry" awk '$3 == "status.txt" && $1 > 0 {f = 1} END {exit !f}' <("$CLI" pak "$WORK/pak.bsp" list)
expect_exit 0 "$CLI" pak "$SRC" add piped.txt=<(printf 'from a pipe') -o "$WORK/pak2.bsp"
check "pak add from a pipe: its 11 bytes" awk '$3 == "piped.txt" && $1 == 11 {f = 1} END {exit !f}' <("$CLI" pak "$WORK/pak2.bsp" list)
expect_exit 1 "$CLI" pak "$SRC" add zero=/dev/zero -o "$WORK/pak3.bsp"
check "pak add /dev/zero: refused, located at /dev/zero" grep -q "^/dev/zero: error: " "$WORK/.err"
check "pak add /dev/zero: nothing written" test ! -e "$WORK/pak3.bsp"

# ---- no temporary after SIGTERM / SIGHUP in the middle of a batch ------------------------------
maps=("$CORPUS"/goldsrc/*.bsp "$CORPUS"/quake1/*.bsp "$CORPUS"/source/*.bsp)
caught=0
for sig in TERM HUP TERM HUP TERM HUP; do
    B=$WORK/batch_$sig$caught; mkdir -p "$B"
    "$CLI" convert "${maps[@]}" -o "$B/" -j 1 -q >/dev/null 2>&1 &
    pid=$!
    # wait for a temporary (anything but a finished NAME.glb) to exist, then signal
    for _ in $(seq 4000); do
        [[ -n $(cd "$B" && ls -A | grep -v '^[^.].*\.glb$') ]] && break
        kill -0 $pid 2>/dev/null || break
    done
    kill -$sig $pid 2>/dev/null && caught=$((caught + 1))
    wait $pid
    x=$(cd "$B" && ls -A | grep -v '^[^.].*\.glb$' || true)
    [[ -z $x ]] && ok || fail "SIG$sig mid-batch left behind: $x"
done
check "the batches were signalled while running" test $caught -ge 3
bk_done
