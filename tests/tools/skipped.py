#!/usr/bin/env python3
"""What a ctest run left out, at the end of `make test`: every skipped test with the reason it
printed (its SKIP: line), and the one command that enables them (the scripts/install-deps options
the reasons name). Reads the JUnit file of `ctest --output-junit FILE`.

usage: skipped.py JUNIT.xml   (exit 0; exit 2 when the file cannot be read)"""
import re
import sys
import xml.etree.ElementTree as ET


def skipped(path):
    """[(test, reason)] for the skipped tests of a ctest JUnit file, in its order"""
    out = []
    for tc in ET.parse(path).getroot().iter('testcase'):
        if tc.get('status') != 'skipped' and tc.find('skipped') is None:
            continue
        text = ''.join(e.text or '' for e in tc.iter('system-out'))
        why = [ln.strip() for ln in text.splitlines() if re.match(r'\s*SKIP\b:?', ln)]
        out.append((tc.get('name'), why[-1] if why else '(no reason printed)'))
    return out


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    try:
        rows = skipped(sys.argv[1])
    except (OSError, ET.ParseError) as e:
        print(f'skipped.py: {sys.argv[1]}: {e}', file=sys.stderr)
        return 2
    if not rows:
        print('make test: no test skipped')
        return 0
    print(f'make test: {len(rows)} test{"s" if len(rows) > 1 else ""} skipped (not failed, not run):')
    width = max(len(n) for n, _ in rows)
    for name, why in rows:
        why = re.sub(r'^SKIP:?\s*', '', why)
        print(f'  {name:<{width}}  {why}')
    opts = []
    for _, why in rows:
        for o in re.findall(r'scripts/install-deps((?:\s+--[a-z]+)+)', why):
            opts += [x for x in o.split() if x not in opts]
    corpus = any(re.search(r'corpus|MANIFEST|fetch-corpus', why) for _, why in rows)
    if opts:
        print(f'to run them: scripts/install-deps {" ".join(opts)} && make test')
    if corpus:
        print('the corpus ones: ../shared/corpus beside the checkout (or cmake -DBSPKIT_SHARED_DIR=...), '
              'and make corpus for the Quake 3 / DPM maps')
    return 0


if __name__ == '__main__':
    sys.exit(main())
