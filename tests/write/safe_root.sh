#!/usr/bin/env bash
# Writes that never tear, where the failure needs root to stage (skipped otherwise, exit 77): a full
# disk (a small tmpfs) while the new .gltf is written keeps the old .gltf + .bin pair byte for
# byte; a rename that fails (an immutable .gltf) puts the .bin already renamed back; ENOSPC, EROFS
# and EACCES are reported by name with the path; no temporary is left behind.
source "$BK_TESTS/lib.sh"
bk_init "$@"
[[ $(id -u) == 0 ]] || { echo "SKIP: needs root (tmpfs mounts, chattr, setpriv)"; exit 77; }
G=$CORPUS/goldsrc
for f in "$G/hltopdown_test_tiny.bsp" "$G/cs16_aim_map.bsp"; do
    [[ -f $f ]] || { echo "SKIP: $f missing"; exit 77; }
done
parts=0
MNT=$WORK/mnt; mkdir -p "$MNT"
trap 'umount "$MNT" 2>/dev/null; chattr -i "$WORK/imm/a.gltf" 2>/dev/null' EXIT
kb() { echo $(( ($(stat -c %s "$1") + 4095) / 4096 * 4 )); }

# the new output's sizes, written where there is room
"$CLI" convert "$G/cs16_aim_map.bsp" -o "$WORK/new.gltf" >/dev/null
"$CLI" convert "$G/hltopdown_test_tiny.bsp" -o "$WORK/old.gltf" >/dev/null
if mount -t tmpfs -o size=4m tmpfs "$MNT" 2>/dev/null; then
    parts=$((parts + 1))
    # ---- a full disk while the .gltf is written: room for the old pair and the new .bin only
    cp "$WORK/old.gltf" "$MNT/a.gltf"; cp "$WORK/old.bin" "$MNT/a.bin"
    sed -i 's/old\.bin/a.bin/' "$MNT/a.gltf"
    md5sum "$MNT/a.gltf" "$MNT/a.bin" > "$WORK/pair.md5"
    size=$(( $(kb "$MNT/a.gltf") + $(kb "$MNT/a.bin") + $(kb "$WORK/new.bin") + 8 ))
    mount -o remount,size=${size}k "$MNT"
    expect_exit 1 "$CLI" convert "$G/cs16_aim_map.bsp" -o "$MNT/a.gltf"
    check "ENOSPC on the .gltf: the old pair is kept byte for byte" md5sum -c --quiet "$WORK/pair.md5"
    check "ENOSPC: 'No space left on device' with the path" grep -q "mnt/a.gltf: error: cannot write: No space left on device" "$WORK/.err"
    only_files "ENOSPC pair" "$MNT" a.gltf a.bin
    # ---- ENOSPC on a map
    rm -f "$MNT"/*
    mount -o remount,size=64k "$MNT"
    expect_exit 1 "$CLI" convert "$G/cs16_aim_map.bsp" -o "$MNT/x.bsp"
    check "ENOSPC on a map: said so" grep -q "mnt/x.bsp: error: cannot write: No space left on device; nothing written" "$WORK/.err"
    only_files "ENOSPC map" "$MNT"
    # ---- a read-only file system
    mount -o remount,ro "$MNT"
    expect_exit 1 "$CLI" convert "$G/cs16_aim_map.bsp" -o "$MNT/x.bsp"
    check "EROFS: 'Read-only file system' with the path" grep -q "mnt/x.bsp: error: cannot create: Read-only file system" "$WORK/.err"
    umount "$MNT"
else
    echo "SKIP (part): cannot mount a tmpfs here: ENOSPC and EROFS checks"
fi

# ---- a rename that fails half-way through a pair: the .bin already renamed is put back
I=$WORK/imm; mkdir -p "$I"
"$CLI" convert "$G/hltopdown_test_tiny.bsp" -o "$I/a.gltf" >/dev/null
md5sum "$I/a.gltf" "$I/a.bin" > "$WORK/imm.md5"
if chattr +i "$I/a.gltf" 2>/dev/null; then
    parts=$((parts + 1))
    expect_exit 1 "$CLI" convert "$G/cs16_aim_map.bsp" -o "$I/a.gltf"
    chattr -i "$I/a.gltf"
    check "a failed rename of the .gltf: the .bin renamed before it is put back" md5sum -c --quiet "$WORK/imm.md5"
    check "a failed rename: said so" grep -q "a.gltf: error: cannot replace: Operation not permitted" "$WORK/.err"
    only_files "failed rename" "$I" a.gltf a.bin
else
    echo "SKIP (part): chattr +i not supported here: the failed-rename check"
fi

# ---- permission denied (as nobody, in root's folder)
if command -v setpriv >/dev/null && setpriv --reuid=nobody --regid=nogroup --clear-groups true 2>/dev/null; then
    parts=$((parts + 1))
    mkdir -p "$WORK/rootonly"; chmod 755 "$WORK/rootonly"
    expect_exit 1 setpriv --reuid=nobody --regid=nogroup --clear-groups "$CLI" convert "$G/cs16_aim_map.bsp" -o "$WORK/rootonly/x.glb"
    check "EACCES: 'Permission denied' with the path" grep -q "rootonly/x.glb: error: cannot create: Permission denied" "$WORK/.err"
    only_files "EACCES" "$WORK/rootonly"
else
    echo "SKIP (part): no setpriv: the EACCES check"
fi
[[ $parts -gt 0 ]] || { echo "SKIP: nothing could be staged here"; exit 77; }
bk_done
