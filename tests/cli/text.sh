#!/usr/bin/env bash
# Map text is 8-bit: entity values in a Windows code page must come out of --json and glTF as
# valid UTF-8 (read as Latin-1), while the text output keeps the bytes as they are. Output
# folders are created with their parents.
source "$BK_TESTS/lib.sh"
bk_init "$@"
SRC=$BK_TESTS/../samples/bsp_tool_quake_mp_lobby.bsp
# same length, so no offset moves: "builtin:Quake.fgd" -> "builtin:Qu\xe4ke.fgd"
python3 - "$SRC" "$WORK/latin1.bsp" <<'PY'
import sys
d = open(sys.argv[1], 'rb').read()
assert d.count(b'builtin:Quake.fgd') == 1
open(sys.argv[2], 'wb').write(d.replace(b'builtin:Quake.fgd', b'builtin:Qu\xe4ke.fgd'))
PY
expect_exit 0 "$CLI" validate "$WORK/latin1.bsp"
"$CLI" entities --json "$WORK/latin1.bsp" > "$WORK/e.json"
check "entities --json is UTF-8 JSON with the value read as Latin-1" python3 -c '
import json, sys
e = json.load(open(sys.argv[1], encoding="utf-8"))
w = dict(e[0])
assert w["_tb_def"] == "builtin:Qu\u00e4ke.fgd", w["_tb_def"]' "$WORK/e.json"
"$CLI" entities "$WORK/latin1.bsp" > "$WORK/e.txt"
check "text output keeps the original byte" grep -q $'Qu\xe4ke' "$WORK/e.txt"
expect_exit 0 "$CLI" convert "$WORK/latin1.bsp" -o "$WORK/latin1.glb"
check "glTF with 8-bit entity text passes the validator" gltf_validate "$WORK/latin1.glb"
check "the glTF carries the value as UTF-8" python3 -c '
import json, struct, sys
b = open(sys.argv[1], "rb").read()
n = struct.unpack("<I", b[12:16])[0]
assert "Qu\u00e4ke" in b[20:20 + n].decode("utf-8")' "$WORK/latin1.glb"
# an entity with 100000 pairs, every key twice: every pair in --json, one key per object with its
# later value in the glTF's node extras (a pairwise check took minutes here). bspkit refuses to write
# more than 8192 pairs in one entity (bk_limits.max_entity_pairs), so the lump is put in place here:
# appended to the file, lump 0 pointed at it
python3 - "$SRC" "$WORK/many.bsp" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
t = ["{", "\"classname\" \"worldspawn\""]
for r in range(2):
    t += ["\"k%d\" \"v%d_%d\"" % (i, i, r) for i in range(50000)]
t = ("\n".join(t + ["}", ""])).encode() + b"\0"
d += b"\0" * (-len(d) % 4)
struct.pack_into("<ii", d, 4, len(d), len(t))
open(sys.argv[2], "wb").write(d + t)
PY
expect_exit 0 "$CLI" validate "$WORK/many.bsp"
"$CLI" entities --json "$WORK/many.bsp" > "$WORK/many.json"
check "every pair of the 100001 is in --json, in file order" python3 -c '
import json, sys
e = json.load(open(sys.argv[1]))
assert len(e) == 1 and len(e[0]) == 100001, len(e[0])
assert e[0][1] == ["k0", "v0_0"] and e[0][50001] == ["k0", "v0_1"] and e[0][-1] == ["k49999", "v49999_1"]
w = dict(e[0])
assert all(w["k%d" % i] == "v%d_1" % i for i in range(50000))' "$WORK/many.json"
expect_exit 0 "$CLI" convert "$WORK/many.bsp" -o "$WORK/many.glb"
check "a key given twice keeps its later value in the glTF node extras" python3 -c '
import json, struct, sys
b = open(sys.argv[1], "rb").read()
j = json.loads(b[20:20 + struct.unpack("<I", b[12:16])[0]])
ex = [n["extras"] for n in j["nodes"] if n.get("extras", {}).get("classname") == "worldspawn"][0]
assert ex["k49999"] == "v49999_1" and sum(k.startswith("k") for k in ex) == 50000' "$WORK/many.glb"
expect_exit 0 "$CLI" textures "$SRC" -o "$WORK/deep/er/folder"
check "textures creates parent folders" test -n "$(ls "$WORK/deep/er/folder"/*.png 2>/dev/null)"
bk_done
