#!/usr/bin/env bash
# An edited lump that the map stored LZMA-compressed is written back compressed, as Valve's tools
# write it: on every LZMA corpus map (and a plain one, which stays plain) the entity lump is edited
# through `entities --import`, and lzma_check.py, reading the bytes with Python's own LZMA decoder,
# finds the lump stored as "LZMA", actualSize, lzmaSize, 5 property bytes, the stream; filelen ==
# 17 + lzmaSize; lump_t.fourCC == actualSize; the stream decoding to the original text with the
# added pair; every other lump's bytes, version and fourCC unchanged (the game lumps' bytes too,
# their directory's offsets moved with them). The result validates and converts.
source "$BK_TESTS/lib.sh"
bk_init "$@"
PY=/usr/bin/python3
need_dir "$CORPUS/source"
n=0
for f in "$CORPUS"/source/tf2c_v20_lzma_*.bsp "$CORPUS/source/tf2_v20_bsp_tool_test2.bsp"; do
    [[ -f $f ]] || continue
    m=$(basename "$f" .bsp)
    "$CLI" entities "$f" --json > "$WORK/$m.json" || { fail "$m: entities"; continue; }
    sed '0,/\["classname", "worldspawn"\]/s//["classname", "worldspawn"], ["bspkit_edit", "lzma"]/' "$WORK/$m.json" > "$WORK/$m.ed.json"
    expect_exit 0 "$CLI" entities "$f" --import "$WORK/$m.ed.json" -o "$WORK/$m.bsp"
    out=$($PY "$BK_TESTS/write/lzma_check.py" "$f" "$WORK/$m.bsp" '"bspkit_edit" "lzma"'); rc=$?
    echo "$m: $out"
    check "$m: $out" test $rc -eq 0
    expect_exit 0 "$CLI" validate "$WORK/$m.bsp"
    expect_exit 0 "$CLI" convert "$WORK/$m.bsp" -o "$WORK/$m.glb" -q
    n=$((n + 1))
    rm -f "$WORK/$m".*
done
check "maps edited ($n)" test $n -ge 5
bk_done
