#!/usr/bin/env python3
"""Checks of one map's navmesh (bspkit navmesh / path), against what the map itself says:
- the mesh is not empty, and every polygon vertex lies within the world model's bounds
  (lump models, element 0);
- every player spawn (the game's spawn classes) lies over a walkable polygon, within a few
  units across and below it by at most a player's height;
- a path between two spawns on the same floor exists, its corners lie over the mesh, and its
  length is at least the straight line between its ends.
Prints PASS/FAIL lines and one REACH line (the share of items and weapons reached from the first
spawn, from the navmesh JSON). Usage: nav_check.py CLI MAP OUTBASE"""
import json
import math
import subprocess
import sys

cli, path, out = sys.argv[1:4]
fails = 0


def check(ok, what):
    global fails
    print(("PASS " if ok else "FAIL ") + what)
    if not ok:
        fails += 1


def run_json(*args):
    r = subprocess.run([cli, *args], capture_output=True, text=True)
    if r.returncode != 0:
        return None, r.stderr
    return json.loads(r.stdout), r.stderr


summary, err = run_json("navmesh", path, "-o", out, "--json", "-q")
if summary is None:
    check(False, f"navmesh of {path}: {err.strip()}")
    sys.exit(1)

polys = []
verts = []
with open(out + ".obj") as f:
    for line in f:
        if line.startswith("v "):
            verts.append(tuple(float(x) for x in line.split()[1:4]))
        elif line.startswith("f "):
            polys.append([verts[int(i) - 1] for i in line.split()[1:]])
check(len(polys) > 0 and len(polys) == summary["polygons"], f"{len(polys)} polygons in the OBJ, as the JSON says")

models, _ = run_json("lump", path, "models", "--json")
lo, hi = models[0]["mins"], models[0]["maxs"]
tol = 1 + summary["tiles"]["cell_height"]
outside = [v for v in verts if any(v[k] < lo[k] - tol or v[k] > hi[k] + tol for k in range(3))]
check(not outside, f"every vertex within the world's bounds {lo} {hi} ({len(outside)} outside, e.g. {outside[:2]})")


def over(p, poly):
    """(horizontal distance from p to the polygon, the polygon's height there)"""
    n = len(poly)
    sgn = 0
    inside = True
    best = 1e30
    for i in range(n):
        a, b = poly[i], poly[(i + 1) % n]
        ex, ey = b[0] - a[0], b[1] - a[1]
        c = ex * (p[1] - a[1]) - ey * (p[0] - a[0])
        if abs(c) > 1e-6:
            s = 1 if c > 0 else -1
            if sgn == 0:
                sgn = s
            elif s != sgn:
                inside = False
        el = ex * ex + ey * ey
        t = 0 if el == 0 else max(0, min(1, ((p[0] - a[0]) * ex + (p[1] - a[1]) * ey) / el))
        best = min(best, math.hypot(p[0] - a[0] - t * ex, p[1] - a[1] - t * ey))
    # the polygon's plane (Newell) for its height at p
    nx = ny = nz = 0.0
    for i in range(n):
        a, b = poly[i], poly[(i + 1) % n]
        nx += (a[1] - b[1]) * (a[2] + b[2])
        ny += (a[2] - b[2]) * (a[0] + b[0])
        nz += (a[0] - b[0]) * (a[1] + b[1])
    cx = sum(v[0] for v in poly) / n
    cy = sum(v[1] for v in poly) / n
    cz = sum(v[2] for v in poly) / n
    z = cz if abs(nz) < 1e-9 else cz - (nx * (p[0] - cx) + ny * (p[1] - cy)) / nz
    return (0.0 if inside else best), z


def on_mesh(p, across, below, above):
    for poly in polys:
        d, z = over(p, poly)
        if d <= across and p[2] - below <= z <= p[2] + above:
            return True
    return False


ents, _ = run_json("entities", path, "--json")
ents = [dict(e) for e in ents]
# the multiplayer spawns: Counter-Strike's teams where the map has them (its info_player_start is
# often a stray point), else deathmatch and single-player starts
team = ("info_player_terrorist", "info_player_counterterrorist")
spawn_classes = team if any(e.get("classname") in team for e in ents) else ("info_player_deathmatch", "info_player_start")
spawns = []
for e in ents:
    if e.get("classname") in spawn_classes and "origin" in e:
        try:
            spawns.append(tuple(float(x) for x in e["origin"].split()))
        except ValueError:
            pass
agent = summary["agent"]
# an origin is the player's centre (Quake, GoldSrc) or a point a little above the floor (Quake 3,
# Source): the floor lies below it by at most a player's height; "a few units" across: a cell
# and a half of voxel rounding
cs = summary["tiles"]["cell_size"]
onm = [s for s in spawns if on_mesh(s, 1.5 * cs, agent["height"], 8)]
check(len(spawns) > 0, f"{len(spawns)} spawns")
check(len(onm) == len(spawns), f"{len(onm)} of {len(spawns)} spawns over a walkable polygon "
      f"(off: {[s for s in spawns if s not in onm][:3]})")

# two spawns on one floor (same height), far enough apart for a path to mean something
pair = None
for i, a in enumerate(onm):
    for b in onm[i + 1:]:
        if abs(a[2] - b[2]) < 1 and math.hypot(a[0] - b[0], a[1] - b[1]) > 128:
            pair = (a, b)
            break
    if pair:
        break
if pair:
    a, b = pair
    pj, err = run_json("path", path, "--from", *map(str, a), "--to", *map(str, b), "--json")
    check(pj is not None and pj["found"], f"a path between spawns {a} and {b} ({err.strip()[:200]})")
    if pj and pj["found"]:
        pts = pj["points"]
        s, e = pts[0], pts[-1]
        straight = math.dist(s, e)
        check(pj["length"] >= straight - 0.01, f"path length {pj['length']:.1f} >= the straight line {straight:.1f}")
        flat = math.hypot(a[0] - b[0], a[1] - b[1])
        check(pj["length"] >= flat - 3 * cs, f"path length {pj['length']:.1f} >= the spawns' distance {flat:.1f} "
              f"less the ends' snapping")
        off = [p for p in pts if not on_mesh(p, 1.0, 2 * agent["step"], 2 * agent["step"])]
        check(not off, f"every corner of the path lies on the mesh (off: {off[:3]})")
else:
    print(f"NOTE no two spawns on one floor in {path}")

seeds = summary["seeds"]
print(f"REACH {path} items {seeds['items']} reached {seeds['items_reached']} polygons {len(polys)}")
sys.exit(1 if fails else 0)
