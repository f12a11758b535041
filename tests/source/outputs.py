#!/usr/bin/python3
"""Source I/O outputs of every pair of a map, parsed independently of bspkit (its entity lump read
by tests/write/bspread.py), compared with `bspkit entities MAP --outputs --json`.
A value is an output when it splits into exactly five fields, by 0x1B where the value holds one
(the game's CEventAction, source-sdk-2013 src/game/server/cbase.cpp), else by ','; the delay a
decimal number and times a 32-bit integer, or either empty (the game's 0 and -1). Vampire: The
Masquerade - Bloodlines (v17) writes seven ','-separated fields: the five, a Python statement the
game runs when the output fires ('script') and a seventh ('extra', empty in the corpus).
usage: outputs.py CLI MAP  -> prints 'N outputs of M pairs'; exit 1 on any difference"""
import json, re, subprocess, sys, os
sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'write'))
import bspread

DELAY = re.compile(r'[ \t\n\v\f\r]*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\Z')
TIMES = re.compile(r'[ \t\n\v\f\r]*[+-]?\d+\Z')

def text(s):
    b = s.encode('latin-1')     # bspread: the bytes as latin-1 code points
    try:
        return b.decode('utf-8')
    except UnicodeDecodeError:
        return s

def parse(v):
    esc = '\x1b' in v
    parts = v.split('\x1b' if esc else ',')
    if len(parts) != 5 and (len(parts) != 7 or esc):
        return None
    t, i, p, d, n = parts[:5]
    if d == '':
        delay = 0.0
    elif len(d.encode('latin-1')) < 64 and DELAY.match(d):
        delay = float(d)
    else:
        return None
    if n == '':
        times = -1
    elif len(n.encode('latin-1')) < 64 and TIMES.match(n) and -2**31 <= int(n) < 2**31:
        times = int(n)
    else:
        return None
    return t, i, p, delay, times, parts[5:]

cli, path = sys.argv[1], sys.argv[2]
data = open(path, 'rb').read()
ents = bspread.pairs(bspread.entity_text(data))
want = []
npairs = 0
for ei, ent in enumerate(ents):
    for k, (key, val) in enumerate(ent):
        npairs += 1
        o = parse(val)
        if o:
            want.append({'entity': ei, 'pair': k, 'output': text(key), 'target': text(o[0]), 'input': text(o[1]),
                         'parameter': text(o[2]), 'delay': o[3], 'times': o[4]})
            if o[5]:
                want[-1].update(script=text(o[5][0]), extra=text(o[5][1]))
got = json.loads(subprocess.run([cli, 'entities', path, '--outputs', '--json'], check=True,
                                capture_output=True).stdout)
bad = 0
if len(got) != len(want):
    print('%s: %d outputs, want %d' % (path, len(got), len(want)))
    bad += 1
for g, w in zip(got, want):
    if g != w and not (abs(g['delay'] - w['delay']) <= 1e-12 * max(1, abs(w['delay'])) and
                       {**g, 'delay': 0} == {**w, 'delay': 0}):
        print('%s: got %s\n    want %s' % (path, g, w))
        bad += 1
        if bad > 5:
            break
seven = sum('script' in w for w in want)
print('%s: %d outputs of %d pairs%s%s' % (os.path.basename(path), len(want), npairs,
                                       ' (%d of seven fields)' % seven if seven else '', ' DIFFER' if bad else ''))
sys.exit(1 if bad else 0)
