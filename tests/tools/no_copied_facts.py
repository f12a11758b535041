#!/usr/bin/env python3
"""The bindings copy no fact of the library (issue 38): no player-spawn class, no tool texture
name and no enum number of the library's own in python/, blender/ or web/. They read them from
the library instead (bk_game through bspkit.game / Map.game, `bspkit info --json` and the page's
stats.game; bk_material.never_drawn as Material.never_drawn and the glTF's extras.neverDrawn;
lib.BK_* names). Nor does the Python package know a family's struct: its arrays come from
bk_file_array, so no count field guessed from an array's name ("leaves" -> "leaf_count"), no
branch on a family's name, no round of the families' accessors (bk_quake_bsp_of, bk_q3_map_of, ...).

The names come from the library's own rows and lists (src/formats/*/*.c), so a fact added there is
guarded here too. usage: no_copied_facts.py [ROOT [BINDINGS_ROOT]]; exit 1 and one line per copy found."""
import re
import sys
from pathlib import Path

ROOT = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[2])
# where the bindings are read (default ROOT): another checkout's, to see this test fail on it
BINDINGS = Path(sys.argv[2]) if len(sys.argv) > 2 else ROOT

# (file relative to ROOT, the name found): uses that are not a copy of the library's list
ALLOW = {
    ("python/bspkit/_query.py", "playerclip"),    # a contents name in a docstring (bk_contents_parse)
    ("web/main.js", "areaportal"),                # entity classes func_areaportal / func_clip
    ("web/main.js", "clip"),
}


def literals(block: str):
    return re.findall(r'"([^"\\]*)"', block)


def library_lists():
    spawns, tools = set(), set()
    for src in sorted((ROOT / "src" / "formats").glob("*/*.c")):
        text = src.read_text(errors="replace")
        for m in re.finditer(r"static const char \*const (\w+)\[\] = \{(.*?)\};", text, re.S):
            name, body = m.group(1), m.group(2)
            if name.endswith("_spawns"):
                spawns.update(literals(body))
            elif name in ("tools", "k_tools"):
                tools.update(literals(body))
    return spawns, tools


def bindings():
    for pattern in ("python/bspkit/*.py", "blender/bspkit_blender/*.py", "web/*.js", "web/*.html"):
        yield from sorted(BINDINGS.glob(pattern))


# the Python package guessing what the library describes (bk_file_array): a count member's name
# made from an array's, a branch on a family's name, several family accessors tried in turn
FAMILIES = "source|quake|quake1|quake3|q3|goldsrc|bsp2|dpm|mdl|wad3|vtf"
GUESS = [
    (re.compile(r"""["'][^"'\n]*_count["']|\[:-[12]\]\s*\+\s*["']"""),
     "a count member named from the array's name (read bk_file_array's count)"),
    (re.compile(r"""(?:==|!=)\s*["'](?:%s)["']|["'](?:%s)["']\s*(?:==|!=|in\b)""" % (FAMILIES, FAMILIES)),
     "a branch on the family's name (ask the library: bk_file_array, bk_lump_bytes)"),
    (re.compile(r"bk_\w+_(?:of|partial)\b.*bk_\w+_(?:of|partial)\b"),
     "the families' accessors tried in turn (bk_file_array lists every array)"),
    (re.compile(r"_family_struct|_count_field"), "the name guessing bk_file_array replaced"),
]


def guessed_names():
    bad = []
    for path in sorted(BINDINGS.glob("python/bspkit/*.py")):
        rel = path.relative_to(BINDINGS).as_posix()
        if rel == "python/bspkit/_build.py":
            continue  # the extension's build: C text
        for no, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            for rx, why in GUESS:
                if rx.search(line):
                    bad.append("%s:%d: %s" % (rel, no, why))
    return bad


def main() -> int:
    spawns, tools = library_lists()
    if len(spawns) < 10 or len(tools) < 10:
        print("no_copied_facts: the library's lists were not found (%d spawn classes, %d tool names)"
              % (len(spawns), len(tools)))
        return 1
    bad = []
    # a spawn class, whole or as the prefix a regular expression builds them from
    spawn_re = re.compile(r"info_player_|team_CTF_|" + "|".join(re.escape(s) for s in sorted(spawns)), re.I)
    # a tool name as a string literal of its own, or as one alternative of a regular expression
    alt = "|".join(re.escape(t) for t in sorted(tools, key=len, reverse=True))
    tool_re = re.compile(r"""["'](?:[\w/\\]*/)?(%s)["']|(?<=\|)(%s)(?=[|)$])|(?<=[(|])(%s)(?=\|)""" % (alt, alt, alt))
    # an int-keyed table of names: a C enum copied as numbers
    enum_re = re.compile(r"\{\s*-?\d+\s*:\s*[\"'A-Za-z_]")
    for path in bindings():
        rel = path.relative_to(BINDINGS).as_posix()
        for no, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            for m in spawn_re.finditer(line):
                if (rel, m.group(0)) not in ALLOW:
                    bad.append("%s:%d: spawn class %r (read bk_game.spawn_classes)" % (rel, no, m.group(0)))
            for m in tool_re.finditer(line):
                name = m.group(1) or m.group(2) or m.group(3)
                if (rel, name) not in ALLOW:
                    bad.append("%s:%d: tool texture %r (read never_drawn)" % (rel, no, name))
            if path.suffix == ".py" and enum_re.search(line):
                bad.append("%s:%d: a table keyed by numbers (use lib.BK_* names)" % (rel, no))
    bad += guessed_names()
    for b in bad:
        print(b)
    print("no_copied_facts: %d spawn classes and %d tool names of the library, %d copies in the bindings"
          % (len(spawns), len(tools), len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
