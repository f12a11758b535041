#!/usr/bin/env bash
# bspkit query / trace on real GoldSrc and Quake 1 maps:
#  - PVS and PAS rows agree with the independent decoder tests/query/pvs.py on every map;
#  - --point, --see, --visible-faces, trace --hull / --mins --maxs / --mask and --batch answer
#    with consistent JSON; bad arguments and non-map files fail with a message, never a crash.
source "$BK_TESTS/lib.sh"
bk_init "$@"
need_dir "$CORPUS/goldsrc"
command -v python3 >/dev/null || { echo "SKIP: python3 missing"; exit 77; }
shopt -s nullglob
pmaps=()
for f in "$CORPUS"/goldsrc/*.bsp "$CORPUS"/quake1/*.bsp; do
    [[ $(basename "$f") == unusual_quake2* ]] || pmaps+=("$f")
done
# one Python process for every map's PVS / PAS rows
python3 "$BK_TESTS/query/pvs.py" "$CLI" "${pmaps[@]}" > "$WORK/pvs.txt" 2>&1
while read -r verdict rest; do
    if [[ $verdict == PASS ]]; then ok; else fail "pvs rows of $rest"; grep -F "$rest" "$WORK/pvs.txt" | head -3 >&2; fi
done < <(grep -E '^(PASS|FAIL) ' "$WORK/pvs.txt")
check "pvs rows of every map (${#pmaps[@]})" test "$(grep -cE '^(PASS|FAIL) ' "$WORK/pvs.txt")" = "${#pmaps[@]}"

M=$CORPUS/goldsrc/cs16_fy_pool_day.bsp
# a spawn: its point, a trace down per hull (GoldSrc hulls stand 36 / 32 / 18 units above the floor)
read -r X Y Z < <("$CLI" entities "$M" --json | python3 -c '
import json, sys
e = [e for e in map(dict, json.load(sys.stdin)) if e.get("classname") == "info_player_start"][0]
print(e["origin"])')
"$CLI" query "$M" --point $X $Y $Z --json >"$WORK/p.json"
check "point json" python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
assert j["contents"] == "empty" and j["cluster"] == j["leaf"] - 1 and j["visible_leaves"] > 0, j
assert all(a - 1 <= p <= b + 1 for a, p, b in zip(j["leaf_mins"], map(float, sys.argv[2:]), j["leaf_maxs"])), j
' "$WORK/p.json" $X $Y $Z
floor=""
for h in 0 1 2 3; do
    "$CLI" trace "$M" --from $X $Y $Z --to $X $Y -4096 --hull $h --json >"$WORK/t$h.json"
    floor="$floor $(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j["plane"]["dist"], j["endpos"][2] - j["plane"]["dist"])' "$WORK/t$h.json")"
done
# the same floor seen through each hull: the hull planes lie 36 / 32 / 18 above hull 0's, and every
# trace stops DIST_EPSILON (1/32) in front of the plane it hits
check "hull heights" python3 -c '
import sys
v = [float(x) for x in sys.argv[1:]]
dist, gap = v[0::2], v[1::2]
want = [0, 36, 32, 18]
assert all(abs(d - dist[0] - w) < 0.1 for d, w in zip(dist, want)), dist
assert all(0 < g <= 0.0313 for g in gap), gap   # DIST_EPSILON above the plane hit
' $floor
# a box the engine would put in hull 1 lands where hull 1 does
"$CLI" trace "$M" --from $X $Y $Z --to $X $Y -4096 --mins -16 -16 -36 --maxs 16 16 36 --json >"$WORK/box.json"
check "box = hull 1" cmp -s <(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["endpos"])' "$WORK/box.json") \
    <(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["endpos"])' "$WORK/t1.json")
# batch: one JSON object per line, the same answers as single queries, errors per line
printf '%s %s %s\n\n1 2\n%s %s %s\n' $X $Y $Z $X $Y $Z | "$CLI" query "$M" --batch >"$WORK/b.jsonl"; rc=$?
check "batch exit 1 on a bad line" test $rc = 1
check "batch lines" python3 -c '
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
single = json.load(open(sys.argv[2]))
assert len(lines) == 3 and lines[0] == single and lines[2] == single and "error" in lines[1], lines
' "$WORK/b.jsonl" "$WORK/p.json"
printf '%s %s %s %s %s -4096\n' $X $Y $Z $X $Y | "$CLI" trace "$M" --batch --hull 1 >"$WORK/tb.jsonl"
check "trace batch = single" python3 -c '
import json, sys
a = json.loads(open(sys.argv[1]).readline()); b = json.load(open(sys.argv[2]))
assert a == b, (a, b)' "$WORK/tb.jsonl" "$WORK/t1.json"
# long lines: a 5000-byte point (leading spaces and zeros) is one query, not five; one answer
# line per input line, in order; a trace the same; a line past the limit (1 MiB) is refused
# with its number and the next line still answered
pad=$(printf '%2000s' '')
zeros=$(printf '0%.0s' $(seq 3000))
zp() { if [[ $1 == -* ]]; then echo "-$zeros${1#-}"; else echo "$zeros$1"; fi; }
printf '%s%s %s %s\n%s %s %s\n%s%s %s %s %s %s -4096\n' "$pad" "$(zp $X)" $Y $Z $X $Y $Z "$pad" "$(zp $X)" $Y $Z $X $Y \
    >"$WORK/long.txt"
check "the long line is 5000 bytes or more" test "$(head -1 "$WORK/long.txt" | wc -c)" -ge 5000
"$CLI" query "$M" --batch <"$WORK/long.txt" >"$WORK/long.jsonl"; rc=$?
check "long-line batch: one answer per line" python3 -c '
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
single = json.load(open(sys.argv[2]))
assert len(lines) == 3, [l.get("error") for l in lines]
assert lines[0] == single and lines[1] == single and "visible" in lines[2], lines
' "$WORK/long.jsonl" "$WORK/p.json"
check "long-line batch exit 0" test $rc = 0
sed -n 3p "$WORK/long.txt" | "$CLI" trace "$M" --batch --hull 1 >"$WORK/longt.jsonl"
check "long-line trace = single" python3 -c '
import json, sys
l = open(sys.argv[1]).readlines(); b = json.load(open(sys.argv[2]))
assert len(l) == 1 and json.loads(l[0]) == b, l' "$WORK/longt.jsonl" "$WORK/t1.json"
python3 -c 'import sys; sys.stdout.write(" " * (1 << 20) + "1 2 3\n" + sys.argv[1] + "\n")' "$X $Y $Z" |
    "$CLI" query "$M" --batch >"$WORK/huge.jsonl"; rc=$?
check "over-long line refused with its number" python3 -c '
import json, sys
l = [json.loads(x) for x in open(sys.argv[1])]
assert len(l) == 2 and l[0]["line"] == 1 and "longer than" in l[0]["error"] and l[1] == json.load(open(sys.argv[2])), l
' "$WORK/huge.jsonl" "$WORK/p.json"
check "over-long line exit 1" test $rc = 1
expect_stdout_has '"visible":true' "$CLI" query "$M" --see $X $Y $Z $X $Y $Z --json
"$CLI" query "$M" --point $X $Y $Z --visible-faces --json >"$WORK/vf.json"
faces=$("$CLI" info "$M" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["counts"]["faces"])')
check "visible faces within the map" python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
assert 0 < j["visible_faces"] <= int(sys.argv[2]), j
' "$WORK/vf.json" "$faces"
# refusals
expect_exit 2 "$CLI" trace "$M" --from 0 0 0
expect_exit 2 "$CLI" trace "$M" --from 0 0 0 --to 0 0 1 --hull 4
expect_exit 2 "$CLI" trace "$M" --from 0 0 0 --to 0 0 1 --mask sollid
expect_exit 2 "$CLI" query "$M" --point 0 0 nan
expect_exit 1 "$CLI" query "$M" --point 0 0 0 --model 100000
expect_exit 1 "$CLI" query "$M" --pvs 100000
# a hostile copy: every node's first child pointed at the head node (cycles the loader's range
# checks let through): a located warning when the query opens, refusals, no crash or hang
python3 - "$M" "$WORK/cyclic.bsp" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
ofs, ln = struct.unpack_from("<ii", d, 4 + 8 * 5)
head = struct.unpack_from("<i", d, struct.unpack_from("<i", d, 4 + 8 * 14)[0] + 36)[0]
for i in range(ln // 24):
    struct.pack_into("<h", d, ofs + 24 * i + 4, head)
open(sys.argv[2], "wb").write(d)
PY
expect_stderr_has "nodes @" "$CLI" query "$WORK/cyclic.bsp" --point 0 0 0
expect_exit 1 "$CLI" query "$WORK/cyclic.bsp" --point 0 0 0
expect_exit 1 "$CLI" trace "$WORK/cyclic.bsp" --from 0 0 0 --to 0 0 -512 --hull 0
expect_exit 0 "$CLI" trace "$WORK/cyclic.bsp" --from $X $Y $Z --to $X $Y -4096 --hull 1
for w in "$CORPUS"/wad3/*.wad; do
    expect_stderr_has "not supported" "$CLI" query "$w" --point 0 0 0
    break
done
bk_done
