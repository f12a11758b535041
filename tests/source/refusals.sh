#!/usr/bin/env bash
# validate reports whatever another command refuses, by the same checks (hostile copies of real
# maps made at run time, tests/source/hostile_pak.py): pakfile entries that pak extract refuses
# (../../x, an absolute path, a drive letter, ..\..\x), an entry declaring 4 GiB or more than its
# pakfile could hold, a damaged central directory that pak list and textures refuse, an empty lump
# whose offset lies outside the file (the writer refuses it), and a model whose numlocalanim is
# 0x7fffffff. Each: validate exits 1 with a located error, and the other command fails too.
source "$BK_TESTS/lib.sh"
bk_init "$@"
PY=/usr/bin/python3
H=$BK_TESTS/source/hostile_pak.py
lego=$CORPUS/source/css_v20_gg_lego_arena_x.bsp
[[ -f $lego ]] || { echo "SKIP: corpus missing"; exit 77; }
expect_exit 0 "$CLI" validate "$lego"
i=0
for name in ../../x /etc/x 'C:x' '..\..\x'; do
    i=$((i + 1))
    $PY "$H" "$lego" "$WORK/name$i.bsp" name "$name"
    expect_exit 1 "$CLI" validate "$WORK/name$i.bsp"
    check "validate: entry named $name" grep -q "pakfile\[0\] @[0-9]*: error: entry '.*not a safe relative path" "$WORK/.out"
    expect_exit 1 "$CLI" pak "$WORK/name$i.bsp" extract -o "$WORK/x$i"
    check "pak extract refuses $name the same way" grep -q "not a safe relative path" "$WORK/.err"
done
$PY "$H" "$lego" "$WORK/4g.bsp" size 0xffffffff
expect_exit 1 "$CLI" validate "$WORK/4g.bsp"
check "validate: an entry declaring 4 GiB" grep -q "pakfile\[0\] .*declares 4294967295 bytes.*over the limit" "$WORK/.out"
expect_exit 1 "$CLI" pak "$WORK/4g.bsp" extract -o "$WORK/x4g"
$PY "$H" "$lego" "$WORK/big.bsp" size 0x20000000
expect_exit 1 "$CLI" validate "$WORK/big.bsp"
check "validate: an entry declaring 512 MiB in a 3 MB map" grep -q "declares 536870912 bytes" "$WORK/.out"
$PY "$H" "$lego" "$WORK/cd.bsp" cd
expect_exit 1 "$CLI" validate "$WORK/cd.bsp"
check "validate: a damaged central directory" grep -q "pakfile @[0-9]*: error: the embedded zip cannot be read" "$WORK/.out"
expect_exit 1 "$CLI" pak "$WORK/cd.bsp" list
expect_exit 1 "$CLI" textures "$WORK/cd.bsp" -o "$WORK/tcd"
$PY "$H" "$lego" "$WORK/empty.bsp" emptyofs
expect_exit 1 "$CLI" validate "$WORK/empty.bsp"
check "validate: an empty lump outside the file" grep -q "error: empty lump at offset [0-9]* lies outside" "$WORK/.out"
"$CLI" entities "$lego" > "$WORK/e.txt"
expect_exit 1 "$CLI" entities "$WORK/empty.bsp" --import "$WORK/e.txt" -o "$WORK/e.bsp"
check "the writer writes nothing" test ! -e "$WORK/e.bsp"
# a model: numlocalanim 0x7fffffff (studiohdr_t offset 180)
$PY "$BK_TESTS/source/make_mdl.py" "$WORK/gen" >/dev/null
m=$WORK/gen/game/models/bspkit_test
expect_exit 0 "$CLI" validate "$m/box_v48.mdl"
$PY -c 'import struct,sys; d=bytearray(open(sys.argv[1],"rb").read()); struct.pack_into("<i",d,180,0x7fffffff); open(sys.argv[1],"wb").write(d)' "$m/box_v48.mdl"
expect_exit 1 "$CLI" validate "$m/box_v48.mdl"
check "validate: numlocalanim 0x7fffffff" grep -q "localanim @180: error: 2147483647 animations" "$WORK/.out"
expect_exit 1 "$CLI" convert "$m/box_v48.mdl" -o "$WORK/m.glb"
bk_done
