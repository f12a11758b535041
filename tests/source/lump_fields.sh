#!/usr/bin/env bash
# Source's smaller lumps (cubemaps, overlays, primitives, vertex normals, face ids, leaf water and
# ambient data, overlay fades, map flags) as `bspkit lump --json` prints them, against the
# standard-library unpacking of Valve's bspfile.h structs in source/lump_fields.py, element by
# element on every corpus map (the import side is write_lump_json's round trip).
source "$BK_TESTS/lib.sh"
bk_init "$@"
need_dir "$CORPUS/source"
n=0
for f in "$CORPUS"/source/*.bsp; do
    m=$(basename "$f" .bsp)
    case $m in unusual_*) continue ;; esac
    /usr/bin/python3 "$BK_TESTS/source/lump_fields.py" "$CLI" "$f" >"$WORK/$m.txt" 2>&1
    check "$m: $(head -c 400 "$WORK/$m.txt")" test $? = 0
    n=$((n + 1))
done
check "every real corpus map checked ($n)" test "$n" -ge 25
check "overlays compared on some map" grep -lq '"overlays"' "$WORK"/*.txt
check "a version-1 leaf ambient lighting lump compared" grep -lq '"leaf_ambient_index"' "$WORK"/*.txt
bk_done
