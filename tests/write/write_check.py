#!/usr/bin/python3
"""The Python side of tests/write/write.sh, every map in one process (the independent reader is
bspread.py, imported). Each map has a folder DIR/N holding `map` (its path) and the files the CLI
wrote there; prints "ok WHAT" or "FAIL: WHAT" per check.

usage: write_check.py edits-want DIR N...   e.json (the map's entities) -> want.json: a key added to
                                            worldspawn, an entity appended
       write_check.py edits DIR N...        got.json (the edited map's entities) equals want.json;
                                            every lump but the entities of ed.bsp keeps the map's crc32
                                            (Source: but the game lump); the reader finds the new
                                            entity in ed.bsp; props1 equals props0 (Source); prints
                                            "edited NAME" for every map checked
       write_check.py pak-first DIR N...    pl.json (pak list --json) -> "N COUNT FIRST" (the first entry
                                            that is not a folder)
       write_check.py pak DIR N...          pl2.json lists pl.json's entries less FIRST plus
                                            bspkit_test/blob.bin; zipfile reads pr.bsp's pakfile (every
                                            CRC) and its blob.bin equals blob.bin; every lump but the
                                            pakfile and the game lump keeps its crc32"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bspread  # noqa: E402


def say(good, what):
    print(("ok " if good else "FAIL: ") + what)


def lumps(path):
    """`bspread.py lumps PATH` as (index, offset, length, crc32) rows; [] where it fails (it printed
    nothing then)"""
    try:
        return bspread.lumps(open(path, "rb").read())
    except BaseException:  # noqa: B036 - the reader exits on a broken header
        return []


def read(d, f):
    return open(os.path.join(d, f), "rb").read()


def edits_want(d):
    e = json.load(open(os.path.join(d, "e.json")))
    e[0].append(["bspkit_test", "added by the writer test: café"])
    e.append([["classname", "info_null"], ["origin", "1 2 3"], ["targetname", "bspkit_added"]])
    json.dump(e, open(os.path.join(d, "want.json"), "w"), ensure_ascii=False)


def edits(d):
    m = read(d, "map").decode()
    n = os.path.basename(m)[:-4]
    try:
        same = json.load(open(os.path.join(d, "want.json"))) == json.load(open(os.path.join(d, "got.json")))
    except Exception:  # noqa: BLE001 - what does not read back fails
        same = False
    say(same, "%s: the entities read back exactly" % n)
    try:
        a, b = bspread.lumps(open(m, "rb").read()), bspread.lumps(read(d, "ed.bsp"))
    except BaseException:  # noqa: B036
        say(False, "%s: bspread" % n)
        return
    # every other lump keeps its bytes (Source: the game lump holds absolute offsets, so it may
    # change when it moves; its props are compared below); Blue Shift keeps its entities in the
    # second entry
    head = open(m, "rb").read(4)
    src = head == b"VBSP"
    ent = {0} if head in (b"IBSP", b"VBSP") else {0, 1}
    bad = [x[0] for x, y in zip(a, b) if x[0] not in ent and not (src and x[0] == 35) and x[3] != y[3]]
    if bad: print("changed lumps:", bad)
    say(not bad, "%s: every other lump's crc32 is unchanged" % n)
    try:
        seen = b"bspkit_added" in bspread.entity_text(read(d, "ed.bsp"))
    except BaseException:  # noqa: B036
        seen = False
    say(seen, "%s: the independent reader sees the new entity" % n)
    if os.path.exists(os.path.join(d, "props0")):
        say(read(d, "props0") == read(d, "props1"), "%s: static props read back the same" % n)
    print("edited", n)


def pak_first(d, i):
    try:
        entries = json.load(open(os.path.join(d, "pl.json")))
        cnt = entries["count"]
        names = [e["name"] for e in entries["entries"] if not e["name"].endswith("/")]
    except Exception:  # noqa: BLE001 - as the shell saw it: no count, no first name
        print(i, "", "")
        return
    print(i, cnt, names[0] if names else "")


def pak(d):
    m = read(d, "map").decode()
    n = os.path.basename(m)[:-4]
    first = read(d, "first").decode()
    try:
        a = [e["name"] for e in json.load(open(os.path.join(d, "pl.json")))["entries"]]
        b = [e["name"] for e in json.load(open(os.path.join(d, "pl2.json")))["entries"]]
        want = [x for x in a if x != first] + ["bspkit_test/blob.bin"]
        good = sorted(b) == sorted(want)
    except Exception:  # noqa: BLE001
        good = False
    say(good, "%s: the pakfile lists the old entries less the removed plus the new one" % n)
    px = os.path.join(d, "px")
    try:
        bspread.pak_extract(read(d, "pr.bsp"), px)
        good = True
    except BaseException as e:  # noqa: B036 - zipfile's errors and the reader's exit
        print(e, file=sys.stderr)
        good = False
    say(good, "%s: zipfile cannot read the edited pakfile" % n)
    out = os.path.join(px, "bspkit_test", "blob.bin")
    say(os.path.exists(out) and read(d, "blob.bin") == open(out, "rb").read(), "%s: the added file reads back through zipfile" % n)
    a, b = lumps(m), lumps(os.path.join(d, "pr.bsp"))
    say(not [x for x, y in zip(a, b) if x[0] not in (35, 40) and x[3] != y[3]],
        "%s: lumps other than the pakfile and game lump keep their bytes" % n)


if __name__ == "__main__":
    cmd, top, ids = sys.argv[1], sys.argv[2], sys.argv[3:]
    for i in ids:
        d = os.path.join(top, i)
        if cmd == "edits-want":
            try:
                edits_want(d)
            except Exception as e:  # noqa: BLE001 - no want.json: its import fails in the test
                print("%s: %s" % (d, e), file=sys.stderr)
        elif cmd == "edits": edits(d)
        elif cmd == "pak-first": pak_first(d, i)
        elif cmd == "pak": pak(d)
        else: sys.exit(__doc__)
