#!/usr/bin/python3
"""HDR lighting (tests/source/hdr.sh): for every Source corpus map, which lighting lump it has
(read here, not by bspkit); every map with HDR lighting only is converted and
 - its atlas is lit: mean brightness at least 0.12 and, where the corpus has LDR-lit maps of the same
   game (the name's prefix before _v), within 0.6x .. 1.6x of their mean;
 - the exposure bspkit reports (scene extras lightmap_hdr_exposure) is the engine's auto exposure
   computed here from the luxels (the brightest bright% at target%, the median at least 3 %, within
   the exposure range the map's outputs give its env_tonemap_controller, else 0.5 .. 2), within 5 %.
usage: hdr.py CLI CORPUS_SOURCE_DIR WORKDIR"""
import glob, json, os, struct, subprocess, sys
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, '..', 'tools'))
sys.path.insert(0, os.path.join(here, '..', 'write'))
import numpy as np
import atlas_check as A
import bspread

tab_of = A.src_tab

def outputs(ents):
    for e in ents:
        for k, v in e:
            f = v.split('\x1b' if '\x1b' in v else ',')
            if len(f) == 5:
                yield f

def exposure_range(ents):
    lo, hi, bright, target = 0.5, 2.0, 2.0, 60.0
    names = {dict(e).get('targetname', '').lower() for e in ents if dict(e).get('classname') == 'env_tonemap_controller'}
    names.discard('')
    for t, inp, p, _, _ in outputs(ents):
        if t.lower() not in names:
            continue
        try:
            v = float(p)
        except ValueError:
            continue
        if not 0 < v < 1e4:
            continue
        inp = inp.lower()
        if inp == 'setautoexposuremin': lo = v
        elif inp == 'setautoexposuremax': hi = v
        elif inp == 'settonemappercentbrightpixels' and v < 100: bright = v
        elif inp == 'settonemappercenttarget' and v < 100: target = v
    return lo, max(hi, lo), bright, target

def expected_exposure(data, ents):
    t = tab_of(data)
    light, faces = A.src_lump(data, t, 53), A.src_lump(data, t, 58) or A.src_lump(data, t, 7)
    ys = []
    for i in range(len(faces) // 56):
        styles = faces[56 * i + 16:56 * i + 20]
        lofs = struct.unpack_from('<i', faces, 56 * i + 20)[0]
        size = struct.unpack_from('<2i', faces, 56 * i + 36)
        if lofs < 0 or styles[0] == 255 or min(size) < 0:
            continue
        n = (size[0] + 1) * (size[1] + 1)
        if lofs + 4 * n > len(light):
            continue
        px = np.frombuffer(light, dtype=np.uint8, count=4 * n, offset=lofs).reshape(-1, 4)
        lin = np.ldexp(px[:, :3].astype(np.float64), px[:, 3].view(np.int8).astype(np.int32)[:, None]) / 255.0
        ys.append(lin @ np.array([0.2125, 0.7154, 0.0721]))
    y = np.concatenate(ys)
    lo, hi, bright, target = exposure_range(ents)
    s = target / 100.0 / max(np.percentile(y, 100 - bright), 2.0 ** -20)
    med = np.percentile(y, 50)
    if med > 0:
        s = max(s, 0.03 / med)
    return min(max(s, lo), hi), s, (lo, hi)

def convert(cli, bsp, out, *extra):
    subprocess.run([cli, 'convert', bsp, '-o', out, '--no-textures', '-q', *extra], check=True)
    j = A.load_glb(out)[0]
    atlas = A.glb_lightmap(out)[0]
    ex = (j.get('scenes') or [{}])[0].get('extras', {}).get('lightmap_hdr_exposure')
    return (atlas[:, :, :3].mean() / 255.0 if atlas is not None else None), (float(ex) if ex else None)

def main(cli, src, work):
    bad = 0
    maps = {}
    for bsp in sorted(glob.glob(os.path.join(src, '*.bsp'))):
        name = os.path.basename(bsp)
        if name.startswith('unusual_') or open(bsp, 'rb').read(8)[4:8] == struct.pack('<i', 17):
            continue
        d = open(bsp, 'rb').read()
        t = tab_of(d)
        maps[name] = (bsp, len(A.src_lump(d, t, 8)), len(A.src_lump(d, t, 53)))
    ldr_means = {}
    for name, (bsp, ldr, hdr) in maps.items():
        if ldr:
            m, ex = convert(cli, bsp, os.path.join(work, name + '.glb'))
            ldr_means.setdefault(name.split('_v')[0], []).append(m)
            if ex is not None:
                print(f'FAIL {name}: LDR lighting reported an HDR exposure'); bad += 1
    hdr_only = [n for n, (_, ldr, hdr) in maps.items() if hdr and not ldr]
    for name in hdr_only:
        bsp = maps[name][0]
        d = open(bsp, 'rb').read()
        ents = bspread.pairs(bspread.entity_text(d))
        m, ex = convert(cli, bsp, os.path.join(work, name + '.glb'))
        want, raw, rng = expected_exposure(d, ents)
        game = name.split('_v')[0]
        ref = np.mean(ldr_means[game]) if game in ldr_means else None
        ok = m is not None and m >= 0.12 and ex is not None and abs(ex - want) <= 0.05 * want
        if ref is not None:
            ok = ok and 0.6 * ref <= m <= 1.6 * ref
        print(f'{"ok" if ok else "FAIL"} {name}: HDR only, atlas mean {m:.3f}, exposure {ex} (computed here {want:.3g}: '
              f'auto {raw:.3g} within {rng[0]:g}..{rng[1]:g}); LDR maps of {game}: '
              + (f'{ref:.3f} ({len(ldr_means[game])})' if ref is not None else 'none in the corpus'))
        bad += not ok
    # --hdr where both are there: the HDR lump, exposed; the default stays LDR
    both = [n for n, (_, ldr, hdr) in maps.items() if hdr and ldr]
    for name in both:
        bsp = maps[name][0]
        d = open(bsp, 'rb').read()
        m, ex = convert(cli, bsp, os.path.join(work, name + '.hdr.glb'), '--hdr')
        want = expected_exposure(d, bspread.pairs(bspread.entity_text(d)))[0]
        ok = ex is not None and abs(ex - want) <= 0.05 * want
        print(f'{"ok" if ok else "FAIL"} {name} --hdr: atlas mean {m:.3f}, exposure {ex} (computed here {want:.3g})')
        bad += not ok
    print(f'{len(hdr_only)} HDR-only maps, {len(both)} with both')
    if not hdr_only:
        print('FAIL: no HDR-only map in the corpus'); bad += 1
    return 1 if bad else 0

if __name__ == '__main__':
    sys.exit(main(*sys.argv[1:4]))
