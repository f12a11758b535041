#!/usr/bin/env python3
"""Compare bspkit's JSON output (info, props, pak) for each map with the independent reference
reader's record. usage: compare.py REF.json WORKDIR  -> one 'PASS ...' or 'FAIL ...' line per check."""
import json
import os
import sys


def main():
    ref = json.load(open(sys.argv[1]))
    work = sys.argv[2]
    for r in ref:
        b = os.path.splitext(os.path.basename(r["file"]))[0]
        try:
            info = json.load(open(os.path.join(work, b + ".info.json")))
            props = json.load(open(os.path.join(work, b + ".props.json")))
            pak = json.load(open(os.path.join(work, b + ".pak.json")))
        except (OSError, ValueError) as e:
            print("FAIL %s: cannot read bspkit output: %s" % (b, e))
            continue
        c = info["counts"]
        checks = [
            ("entities", c.get("entities"), r["entities"]),
            ("faces", c.get("faces"), r["faces"]),
            ("models", c.get("models"), r["models"]),
            ("textures", c.get("textures"), r["texdata"]),
            ("displacements", c.get("displacements"), r["dispinfo"]),
            # each displacement uses (2^p+1)^2 vertices; together they fill the vertex lump
            ("displacement vertices", c.get("disp_verts"), r["disp_verts_expected"]),
            ("static props", len(props["static_props"]), r["static_props"] or 0),
            ("prop models", len(props["models"]), r["static_prop_dict"] or 0),
            ("format", info.get("format"), "source"),
            ("version", info.get("version"), r["version"]),
            ("layout", "l4d2" if info.get("variant") == "l4d2" else "standard", r["layout"]),
        ]
        if r.get("pak_entries") is not None:
            checks.append(("pakfile entries", pak["count"], r["pak_entries"]))
            checks.append(("pakfile entries (info)", c.get("pakfile_entries"), r["pak_entries"]))
        for name, got, want in checks:
            print("%s %s %s: bspkit %s, reference %s" % ("PASS" if got == want else "FAIL", b, name, got, want))


if __name__ == "__main__":
    main()
