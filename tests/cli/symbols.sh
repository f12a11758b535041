#!/usr/bin/env bash
# Every global symbol libbspkit.a defines starts with bk_, so the library links beside a user's
# own code without collisions. The speed and memory knobs stand only behind the advanced.h fence.
# args: LIBRARY [INCLUDE_DIR]
lib=$1
inc=${2:-}
command -v nm >/dev/null || { echo "SKIP: nm missing"; exit 77; }
bad=$(nm -g --defined-only "$lib" 2>/dev/null | awk 'NF == 3 && $2 ~ /[TDBRCV]/ {print $3}' | grep -v '^bk_' | grep -vE '^(__odr_asan|__asan|__ubsan|__sancov|___asan)' | sort -u)
total=$(nm -g --defined-only "$lib" 2>/dev/null | awk 'NF == 3 && $2 ~ /[TDBRCV]/' | wc -l)
if [[ $total -eq 0 ]]; then echo "FAIL: no symbols read from $lib"; echo "0 passed, 1 failed"; exit 1; fi
if [[ -n $bad ]]; then
    echo "FAIL: global symbols without the bk_ prefix:"; echo "$bad" | sed 's/^/    /'
    echo "0 passed, 1 failed"; exit 1
fi
echo "$total global symbols, all bk_"
if [[ -n $inc ]] && command -v cc >/dev/null; then
    knobs='BK_OPT_DEFER_GEOMETRY|BK_OPT_FEW_POINTS|bk_file_release_pages|bk_file_into_scene|bk_scene_image_release|bk_scene_release_geometry|bk_renderer_prepare_release|bk_write_group_png_rgba_consume|bk_source_map_partial|bk_file_complete'
    # what a program including every default header sees (comments left out)
    seen=$(for h in "$inc"/bspkit/*.h; do [[ $h == */advanced.h ]] || echo "#include <bspkit/${h##*/}>"; done |
           cc -E -P -I "$inc" -x c - 2>&1 | grep -oE "$knobs" | sort -u)
    if [[ -n $seen ]]; then
        echo "FAIL: speed knobs in the default headers: $seen"; echo "1 passed, 1 failed"; exit 1
    fi
    if echo '#include <bspkit/advanced.h>' | cc -fsyntax-only -I "$inc" -x c - 2>/dev/null; then
        echo "FAIL: advanced.h compiles without BK_ADVANCED_API"; echo "1 passed, 1 failed"; exit 1
    fi
    if ! printf '#define BK_ADVANCED_API\n#include <bspkit/advanced.h>\n' | cc -fsyntax-only -I "$inc" -x c -; then
        echo "FAIL: advanced.h does not compile behind its fence"; echo "1 passed, 1 failed"; exit 1
    fi
    echo "no speed knob in the default headers; advanced.h fenced by BK_ADVANCED_API"
    echo "2 passed, 0 failed"
    exit 0
fi
echo "1 passed, 0 failed"
