#!/usr/bin/env bash
# Every global symbol libbspkit.a defines starts with bk_, so the library links beside a user's
# own code without collisions. args: LIBRARY
lib=$1
command -v nm >/dev/null || { echo "SKIP: nm missing"; exit 77; }
bad=$(nm -g --defined-only "$lib" 2>/dev/null | awk 'NF == 3 && $2 ~ /[TDBRCV]/ {print $3}' | grep -v '^bk_' | sort -u)
total=$(nm -g --defined-only "$lib" 2>/dev/null | awk 'NF == 3 && $2 ~ /[TDBRCV]/' | wc -l)
if [[ $total -eq 0 ]]; then echo "FAIL: no symbols read from $lib"; echo "0 passed, 1 failed"; exit 1; fi
if [[ -n $bad ]]; then
    echo "FAIL: global symbols without the bk_ prefix:"; echo "$bad" | sed 's/^/    /'
    echo "0 passed, 1 failed"; exit 1
fi
echo "$total global symbols, all bk_"
echo "1 passed, 0 failed"
