"""Checks of bspkit render's pictures (tests/render/*.sh), with the independent PNG reader.
  rmse A.png B.png MAX             RMSE of the RGB channels (0..1) at most MAX; prints it
  spawns OVERVIEW.png OVERVIEW.txt ENTITIES.json
                                   every player spawn, mapped through the .txt (pos_x, pos_y,
                                   scale for a 1024-pixel width), lands on a drawn pixel (not the
                                   background 0x202830) within 2 pixels
  drawn A.png MIN                  at least MIN of the picture differs from the background
  colour A.png R G B TOL           99% of the pixels within TOL of R G B (0..255) in each channel
Exit 0 when the check holds, 1 otherwise."""
import json
import re
import sys

import numpy as np

sys.path.insert(0, __import__('os').path.dirname(__file__))
from pngread import read_png  # noqa: E402

BG = np.array([0x20, 0x28, 0x30])
SPAWN = re.compile(r'^(info_player_(start|deathmatch|terrorist|counterterrorist|axis|allies|teamspawn)|'
                   r'info_team_start|team_CTF_(red|blue)(player|spawn))$')


def rgb(path):
    return read_png(path)[:, :, :3].astype(np.float64)


def drawn_mask(img):
    return np.abs(img - BG).sum(axis=2) > 6


def main():
    cmd = sys.argv[1]
    if cmd == 'rmse':
        a, b = rgb(sys.argv[2]), rgb(sys.argv[3])
        if a.shape != b.shape:
            print('sizes differ: %s %s' % (a.shape, b.shape))
            return 1
        e = float(np.sqrt(((a - b) ** 2).mean()) / 255)
        print('RMSE %.4f (max %s) mean %.1f / %.1f' % (e, sys.argv[4], a.mean(), b.mean()))
        return 0 if e <= float(sys.argv[4]) else 1
    if cmd == 'drawn':
        m = drawn_mask(rgb(sys.argv[2])).mean()
        print('drawn %.3f' % m)
        return 0 if m >= float(sys.argv[3]) else 1
    if cmd == 'colour':
        img, want, tol = rgb(sys.argv[2]), np.array([float(v) for v in sys.argv[3:6]]), float(sys.argv[6])
        near = (np.abs(img - want) <= tol).all(axis=2).mean()
        print('mean %s, %.3f within %g of %s' % (np.round(img.reshape(-1, 3).mean(axis=0), 1), near, tol, want))
        return 0 if near >= 0.99 else 1
    if cmd == 'spawns':
        img = rgb(sys.argv[2])
        h, w = img.shape[:2]
        txt = open(sys.argv[3]).read()
        val = {k: float(re.search(r'"%s"\s+"([-0-9.eE]+)"' % k, txt).group(1)) for k in ('pos_x', 'pos_y', 'scale')}
        upp = val['scale'] * 1024.0 / w      # CS's scale is for a 1024-pixel-wide overview
        ents = [dict(e) for e in json.load(open(sys.argv[4]))]
        mask = drawn_mask(img)
        n = bad = 0
        for e in ents:
            if not SPAWN.match(e.get('classname', '')) or 'origin' not in e:
                continue
            x, y, _ = (float(v) for v in e['origin'].split())
            px, py = (x - val['pos_x']) / upp, (val['pos_y'] - y) / upp
            ix, iy = int(px), int(py)
            n += 1
            win = mask[max(iy - 2, 0):iy + 3, max(ix - 2, 0):ix + 3]
            if not (0 <= ix < w and 0 <= iy < h) or not win.any():
                bad += 1
                print('spawn at %g %g -> pixel %.1f %.1f: not on a drawn pixel' % (x, y, px, py))
        print('%d spawns, %d off the drawn map' % (n, bad))
        return 0 if n and not bad else 1
    print(__doc__)
    return 2


if __name__ == '__main__':
    sys.exit(main())
