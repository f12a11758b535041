#!/usr/bin/python3
"""The CLI's expected outputs (issue 38), in the manner of zstd's tests/cli-tests.

Each case is tests/cli-tests/<group>/<name>.cmd: the arguments of one bspkit command line (shell
words; '#' lines are comments). Beside it, what that command must do:
  <name>.stdout     its standard output, exactly (no file: nothing); with --json it must
                    also parse as JSON (one document or one per line)
  <name>.stderr     its standard error, exactly (no file: nothing), or
  <name>.stderr.re  one Python regular expression per line of standard error, each matching
                    the whole line; a line '...' stands for any lines (or none)
  <name>.exit       its exit status (no file: 0)
In the arguments {corpus} is ../shared/corpus, {fetched} the fetched corpus
(~/.cache/bspkit-corpus), {samples} the checkout's samples/, {data} tests/cli-tests/data and {work}
a fresh folder for the case (also its working directory). Outputs are compared with those folders
written back as the same names, and "bspkit X.Y.Z" as "bspkit VERSION", so they do not depend on
where the checkout or the corpus lies. A case whose input under {corpus} or {fetched} is absent is
skipped, with a message.

  run.py --bspkit build/bspkit [--shared ../shared] [--fetched DIR] [--work DIR] [--update] [NAME...]

NAME (a substring of "<group>/<name>") picks cases. --update writes the outputs as they are now
into the expected files (a .stderr.re stays: it is checked, never rewritten); read the diff before
committing it. Exit status: 0 all ran cases passed, 1 a mismatch, 77 every case skipped.
"""
import argparse
import difflib
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TIMEOUT = 60


def cases(filters):
    found = []
    for group in sorted(os.listdir(HERE)):
        gdir = os.path.join(HERE, group)
        if not os.path.isdir(gdir) or group == "data":
            continue
        for f in sorted(os.listdir(gdir)):
            if f.endswith(".cmd"):
                name = group + "/" + f[:-4]
                if not filters or any(x in name for x in filters):
                    found.append((name, os.path.join(gdir, f[:-4])))
    return found


def read(path):
    with open(path, encoding="utf-8", errors="surrogateescape") as fh:
        return fh.read()


def write(path, text):
    if text:
        with open(path, "w", encoding="utf-8", errors="surrogateescape") as fh:
            fh.write(text)
    elif os.path.exists(path):
        os.remove(path)


def arguments(base):
    words = []
    for line in read(base + ".cmd").splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            words += shlex.split(line)
    return words


def missing_input(words, places):
    """The first argument under {corpus} or {fetched} that is not there (ARCHIVE:member: the archive)."""
    for w in words:
        for key in ("{corpus}", "{fetched}"):
            if key in w:
                path = w.replace(key, places[key])
                at = path.find(".pk3:")
                if at >= 0:
                    path = path[:at + 4]
                if not os.path.exists(path):
                    return key, path
    return None, None


def fill(word, places):
    for key, path in places.items():
        word = word.replace(key, path)
    return word


def normalise(text, places):
    # longest folder first, so that {work} inside another folder keeps its own name
    for key, path in sorted(places.items(), key=lambda kv: -len(kv[1])):
        text = text.replace(path, key)
    text = re.sub(r"\bbspkit \d+\.\d+\.\d+\b", "bspkit VERSION", text)
    # a glTF names the file it came from (asset extras): its size moves with the checkout's path
    return re.sub(r"(\.(?:glb|gltf): )\d+ bytes", r"\1N bytes", text)


def diff(what, want, got):
    lines = difflib.unified_diff(want.splitlines(True), got.splitlines(True),
                                 "expected " + what, "actual " + what)
    return "".join(l if l.endswith("\n") else l + "\n\\ no newline\n" for l in lines)


def pattern_regex(pats):
    return "".join("(?:.*\n)*?" if p == "..." else "(?:%s)\n" % p for p in pats)


def stderr_matches(patterns, got):
    """Each pattern line matches one whole line of standard error; a line '...' any lines (none too)."""
    pats = patterns.splitlines()
    text = got if got.endswith("\n") or not got else got + "\n"
    if re.fullmatch(pattern_regex(pats), text):
        return ""
    # the first pattern that the lines cannot follow, and the line there
    k = len(pats)
    while k > 0 and not re.match(pattern_regex(pats[:k]), text):
        k -= 1
    m = re.match(pattern_regex(pats[:k]), text)
    rest = text[m.end():].splitlines()
    line = len(text[:m.end()].splitlines()) + 1
    return "stderr line %d: %r, expected %r (pattern %d of .stderr.re)\nactual stderr:\n%s" % (
        line, rest[0] if rest else "(end)", pats[k] if k < len(pats) else "(end)", k + 1,
        "".join("    " + l + "\n" for l in got.splitlines()))


def not_json(text):
    """What is wrong with --json output: one JSON document, or one per line."""
    try:
        json.loads(text)
        return ""
    except ValueError as e:
        whole = str(e)
    for n, line in enumerate(text.splitlines(), 1):
        try:
            json.loads(line)
        except ValueError:
            return "stdout of --json is not JSON (%s), nor JSON lines (line %d)\n" % (whole, n)
    return ""


def main():
    ap = argparse.ArgumentParser(description="bspkit CLI expected-output tests")
    ap.add_argument("--bspkit", required=True)
    ap.add_argument("--shared", default=os.path.join(ROOT, "..", "shared"))
    ap.add_argument("--fetched", default=os.path.expanduser("~/.cache/bspkit-corpus"))
    ap.add_argument("--work", default=os.path.join(ROOT, "build", "tests", "work", "cli_tests"))
    ap.add_argument("--update", action="store_true")
    ap.add_argument("names", nargs="*")
    a = ap.parse_args()
    bspkit = os.path.abspath(a.bspkit)
    work = os.path.realpath(a.work)
    places = {"{corpus}": os.path.realpath(os.path.join(a.shared, "corpus")),
              "{fetched}": os.path.realpath(a.fetched),
              "{samples}": os.path.join(ROOT, "samples"),
              "{data}": os.path.join(HERE, "data")}
    env = dict(os.environ, LC_ALL="C", TZ="UTC")
    env.pop("BSPKIT_THREADS", None)
    todo = cases(a.names)
    if not todo:
        print("no case matches %s" % " ".join(a.names), file=sys.stderr)
        return 1
    passed, failed, skipped, updated = 0, [], [], []
    # an expected file without its .cmd (a case renamed or removed) would never be checked again
    for group in sorted(os.listdir(HERE)):
        gdir = os.path.join(HERE, group)
        if os.path.isdir(gdir) and group != "data":
            for f in sorted(os.listdir(gdir)):
                stem = re.sub(r"\.(stdout|stderr|stderr\.re|exit)$", "", f)
                if stem != f and not os.path.exists(os.path.join(gdir, stem + ".cmd")):
                    print("FAIL %s/%s: no %s.cmd beside it" % (group, f, stem))
                    failed.append(group + "/" + f)
    for name, base in todo:
        words = arguments(base)
        key, absent = missing_input(words, places)
        if absent:
            print("SKIP %s: %s missing (%s)" % (name, absent, "../shared/scripts/fetch-corpus fetches it"
                  if key == "{fetched}" else "../shared/corpus/MANIFEST.md; make corpus"))
            skipped.append(name)
            continue
        cwd = os.path.join(work, name)
        shutil.rmtree(cwd, ignore_errors=True)   # only the case's own folder: --work may be anywhere
        os.makedirs(cwd)
        p = dict(places, **{"{work}": cwd})
        argv = [bspkit] + [fill(w, p) for w in words]
        try:
            r = subprocess.run(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                               timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            print("FAIL %s: no answer in %d s" % (name, TIMEOUT))
            failed.append(name)
            continue
        out = normalise(r.stdout.decode("utf-8", "surrogateescape"), p)
        err = normalise(r.stderr.decode("utf-8", "surrogateescape"), p)
        code = r.returncode
        report = ""
        if code < 0:
            report += "killed by signal %d\n" % -code
        want_out = read(base + ".stdout") if os.path.exists(base + ".stdout") else ""
        want_code = int(read(base + ".exit")) if os.path.exists(base + ".exit") else 0
        if os.path.exists(base + ".stderr.re"):
            report_err = stderr_matches(read(base + ".stderr.re"), err)
            want_err = None
        else:
            want_err = read(base + ".stderr") if os.path.exists(base + ".stderr") else ""
            report_err = diff("stderr", want_err, err) if err != want_err else ""
        if a.update and code >= 0:
            changed = (out != want_out or code != want_code or (want_err is not None and err != want_err))
            write(base + ".stdout", out)
            if want_err is not None:
                write(base + ".stderr", err)
            write(base + ".exit", "%d\n" % code if code else "")
            if changed:
                updated.append(name)
            bad_json = not_json(out) if "--json" in words and out else ""
            if (report_err and want_err is None) or bad_json:
                print("FAIL %s (written, but):\n%s%s" % (name, bad_json, report_err if want_err is None else ""))
                failed.append(name)
            else:
                passed += 1
            continue
        if code != want_code:
            report += "exit status %d, expected %d\n" % (code, want_code)
        if "--json" in words and out:
            report += not_json(out)
        if out != want_out:
            report += diff("stdout", want_out, out)
        report += report_err
        if report:
            print("FAIL %s: bspkit %s\n%s" % (name, " ".join(words), report))
            failed.append(name)
        else:
            passed += 1
    if updated:
        print("updated: " + " ".join(updated))
    print("%d passed, %d failed, %d skipped" % (passed, len(failed), len(skipped)))
    if failed:
        print("failed: " + " ".join(failed))
        return 1
    if not passed:
        print("SKIP: no case ran, their inputs are missing (../shared/corpus/MANIFEST.md; "
              "../shared/scripts/fetch-corpus)")
        return 77
    return 0


if __name__ == "__main__":
    sys.exit(main())
