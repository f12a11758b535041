#!/usr/bin/python3
"""The entity round trips of tests/write/entities.sh, every map in one Python process (the pairs
read by bspread.py's reader, exactly as `bspread.py pairs` prints them).

usage: entities_check.py pairs DIR MAP...       for the Nth map, DIR/N/: p0.json (its pairs), name
                                                (the map's name) and worldspawn (1 when its first
                                                entity is one); reader.err instead when the reader fails
       entities_check.py compare DIR DUPS N...  for each map folder DIR/N: the JSON import (j.bsp),
                                                the text import (t.bsp) and the text form (e.txt)
                                                hold p0's pairs, byte for byte as JSON; the JSON
                                                (e.json, UTF-8) holds them; a line "name repeated-pairs
                                                most-in-one-entity" added to DUPS
Prints "ok WHAT" or "FAIL: WHAT" per check."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bspread  # noqa: E402


def pairs_json(path):
    """what `bspread.py pairs PATH` prints, or None where it fails"""
    try:
        return json.dumps(bspread.file_pairs(open(path, "rb").read()))
    except BaseException:  # noqa: B036 - the reader exits on a broken header (SystemExit)
        return None


def first_pass(out, maps):
    for i, path in enumerate(maps):
        d = os.path.join(out, str(i))
        os.makedirs(d, exist_ok=True)
        open(os.path.join(d, "name"), "w").write(os.path.basename(path)[:-4])
        p0 = pairs_json(path)
        if p0 is None:
            open(os.path.join(d, "reader.err"), "w").write("the reader failed\n")
            continue
        open(os.path.join(d, "p0.json"), "w").write(p0)
        e = json.loads(p0)
        first_is_world = bool(e) and dict(e[0]).get("classname", "").lower() == "worldspawn"
        open(os.path.join(d, "worldspawn"), "w").write("1" if first_is_world else "0")


def utf8(s):
    """the JSON is UTF-8: bytes that are not UTF-8 are read as Latin-1"""
    b = s.encode("latin-1")
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        return s


def json_holds(p0, ejson, name, dups):
    raw = json.loads(p0)
    want = [[[utf8(k), utf8(v)] for k, v in e] for e in raw]
    got = json.load(open(ejson, encoding="utf-8"))
    # repeated keys: pairs whose key came earlier in the same entity
    reps = [sum(1 for i, (k, _) in enumerate(e) if k in {x for x, _ in e[:i]}) for e in raw]
    with open(dups, "a") as f:
        f.write("%s %d %d\n" % (name, sum(reps), max(reps or [0])))
    return got == want


def compare(out, dups, ids):
    for i in ids:
        d = os.path.join(out, i)
        name = open(os.path.join(d, "name")).read()
        p0 = open(os.path.join(d, "p0.json")).read()
        for what, f in (("JSON import gives the original pairs, byte for byte", "j.bsp"),
                        ("text import gives the original pairs, byte for byte", "t.bsp"),
                        ("the text form holds the original pairs", "e.txt")):
            good = pairs_json(os.path.join(d, f)) == p0
            print(("ok " if good else "FAIL: ") + "%s: %s" % (name, what))
        try:
            good = json_holds(p0, os.path.join(d, "e.json"), name, dups)
        except Exception:  # noqa: BLE001 - JSON that does not read fails the check
            good = False
        print(("ok " if good else "FAIL: ") + "%s: the JSON holds the original pairs" % name)


if __name__ == "__main__":
    if sys.argv[1] == "pairs":
        first_pass(sys.argv[2], sys.argv[3:])
    elif sys.argv[1] == "compare":
        compare(sys.argv[2], sys.argv[3], sys.argv[4:])
    else:
        sys.exit(__doc__)
