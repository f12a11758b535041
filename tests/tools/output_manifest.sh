#!/bin/sh
# A manifest of what one bspkit binary prints and writes for a set of maps and models: per file
# `info --json`, `validate --json`, `lump --json` and every lump as JSON, `convert` to .glb and an
# unmodified rewrite (.bsp / .dpm), each as "FILE COMMAND exit-code md5". Two binaries' manifests
# compared with diff show any change of behaviour (a refactor must leave them identical):
#   tests/tools/output_manifest.sh /tmp/bspkit-before before.txt FILES...
#   tests/tools/output_manifest.sh build/bspkit after.txt FILES... && diff before.txt after.txt
# The .glb carries the generator's version string only, so the same source gives the same bytes.
set -u
bin=$1; out=$2; shift 2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
: >"$out"
run() { # name command...
    name=$1; shift
    "$@" >"$tmp/o" 2>"$tmp/e"; rc=$?
    echo "$f $name $rc $(cat "$tmp/o" "$tmp/e" | sed "s#$tmp#TMP#g; s#$bin#BIN#g" | md5sum | cut -c1-32)" >>"$out"
}
for f in "$@"; do
    run info "$bin" info "$f" --json
    run validate "$bin" validate "$f" --json
    case $f in
    *.dpm)
        run convert-glb "$bin" convert "$f" -o "$tmp/x.glb" -q
        echo "$f glb $(md5sum <"$tmp/x.glb" 2>/dev/null | cut -c1-32)" >>"$out"; rm -f "$tmp/x.glb"
        run rewrite "$bin" convert "$f" -o "$tmp/x.dpm" -q
        echo "$f dpm $(md5sum <"$tmp/x.dpm" 2>/dev/null | cut -c1-32)" >>"$out"; rm -f "$tmp/x.dpm"
        ;;
    *)
        run lumps "$bin" lump "$f" --json
        for l in $("$bin" lump "$f" --json 2>/dev/null | /usr/bin/python3 -c 'import json,sys
try:
    d=json.load(sys.stdin)
except Exception:
    sys.exit(0)
for x in (d.get("lumps", d) if isinstance(d, dict) else d):
    print(x["name"])'); do
            run "lump:$l" "$bin" lump "$f" "$l" --json
        done
        run convert-glb "$bin" convert "$f" -o "$tmp/x.glb" -q
        echo "$f glb $(md5sum <"$tmp/x.glb" 2>/dev/null | cut -c1-32)" >>"$out"; rm -f "$tmp/x.glb"
        run rewrite "$bin" convert "$f" -o "$tmp/x.bsp" -q
        echo "$f bsp $(md5sum <"$tmp/x.bsp" 2>/dev/null | cut -c1-32)" >>"$out"; rm -f "$tmp/x.bsp"
        ;;
    esac
done
