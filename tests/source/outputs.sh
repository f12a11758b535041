#!/usr/bin/env bash
# Source I/O outputs split into target, input, parameter, delay and times (entities --outputs
# --json) on every Source corpus map, against an independent parser (source/outputs.py over the
# entity lump read by write/bspread.py); the plain --json pairs keep the raw values.
source "$BK_TESTS/lib.sh"
bk_init "$@"
need_dir "$CORPUS/source"
/usr/bin/python3 -c 'import lzma' 2>/dev/null || bk_skip "python3 without lzma"
shopt -s nullglob
total=0
for m in "$CORPUS"/source/*.bsp; do
    case $(basename "$m") in unusual_*) continue ;; esac
    if /usr/bin/python3 "$BK_TESTS/source/outputs.py" "$CLI" "$m" >"$WORK/o.txt" 2>&1; then ok; else fail "outputs of $(basename "$m")"; cat "$WORK/o.txt" >&2; fi
    total=$((total + $(sed -n 's/.*: \([0-9]*\) outputs of.*/\1/p' "$WORK/o.txt" | tail -1)))
done
echo "$total outputs compared"
# Vampire: The Masquerade - Bloodlines' seven-field outputs (40 and 50 on the two corpus maps)
for m in sm_bailbonds_1:40 sp_genesisdevice_1:50; do
    f=$CORPUS/source/vtmb_v17_${m%:*}.bsp
    need_file "$f"
    check "${m%:*}: ${m#*:} seven-field outputs" test "$("$CLI" entities "$f" --outputs --json 2>/dev/null | grep -o '"script":' | wc -l)" -eq "${m#*:}"
done
expect_stdout_has $'\tnewplayer\tToggle\t\t0\t1\tccmd.createplayer\t' "$CLI" entities "$CORPUS/source/vtmb_v17_sp_genesisdevice_1.bsp" --outputs
check "the corpus has outputs to compare ($total)" test "$total" -ge 200
# the raw pair stays in the pair form
M=$CORPUS/source/l4d2_v21_ths_map_cannals_escape01.bsp
need_file "$M"
expect_stdout_has '"OnMapSpawn", "tonemap_global_infected\u001bSetAutoExposureMin\u001b1\u001b0\u001b-1"' "$CLI" entities "$M" --json
expect_stdout_has $'tonemap_global_infected\tSetAutoExposureMin\t1\t0\t-1' "$CLI" entities "$M" --outputs
bk_done
