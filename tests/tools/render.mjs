// Render glTF files with three.js in headless Chromium and save PNG previews.
// usage: node render.mjs [--out DIR] [--min-coverage F] [--mode pbr|full|lightmap|texture]
//                        [--view outside|start] [--yaw DEG] [--size WxH]
//                        [--camera 'X Y Z YAW PITCH'] [--fov DEG] [--unit M] FILE.glb...
// (modes and views: see render.html; --camera is an eye position in engine units with the
// engine's yaw and pitch in degrees (pitch > 0 looks down, as in Quake), --fov the horizontal
// field of view (default 90 with --camera), --unit the metres per engine unit the file was
// written with (default 0.0254, bspkit's default --scale))
// Options apply to the files after them: `--camera A f1.glb --camera B f2.glb` draws each file
// from its own eye in one browser run (--size and --out are global).
// Prints one JSON line per file; exits 1 if a file fails to load or covers less than
// --min-coverage of the frame (default 0.05).
import http from 'http';
import { readFileSync, existsSync, mkdirSync } from 'fs';
import path from 'path';
import { fileURLToPath } from 'url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
let out = null, minCov = 0.05, W = 800, H = 600;
const view = new URLSearchParams();
const files = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--out') out = args[++i];
  else if (args[i] === '--min-coverage') minCov = +args[++i];
  else if (args[i] === '--size') { [W, H] = args[++i].split('x').map(Number); view.set('w', W); view.set('h', H); }
  else if (['--mode', '--view', '--yaw', '--camera', '--fov', '--unit'].includes(args[i])) view.set(args[i].slice(2), args[++i]);
  else files.push({ path: args[i], view: view.toString() });
}
if (out) mkdirSync(out, { recursive: true });
const types = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.glb': 'model/gltf-binary',
  '.gltf': 'model/gltf+json', '.bin': 'application/octet-stream', '.png': 'image/png' };
const server = http.createServer((req, res) => {
  const u = new URL(req.url, 'http://x');
  let p = null;
  if (u.pathname.startsWith('/tools/')) p = path.join(here, decodeURIComponent(u.pathname.slice(7)));
  /* the engine's material, shared with the viewer page */
  else if (u.pathname.startsWith('/web/')) p = path.join(here, '../../web', decodeURIComponent(u.pathname.slice(5)));
  else if (u.pathname.startsWith('/file/')) {
    const [idx, ...rest] = u.pathname.slice(6).split('/');
    const f = files[+idx] && files[+idx].path;
    if (f) p = rest.length ? path.join(path.dirname(f), decodeURIComponent(rest.join('/'))) : f;
  }
  if (!p || !existsSync(p)) { res.writeHead(404); res.end(); return; }
  res.writeHead(200, { 'content-type': types[path.extname(p)] || 'application/octet-stream' });
  res.end(readFileSync(p));
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const port = server.address().port;
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
    '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
let bad = 0;
// one page draws the files one after another (three.js loaded and the environment prefiltered
// once); a page that failed is replaced before the next file
let page = null;
for (let i = 0; i < files.length; i++) {
  const name = path.basename(files[i].path);
  let result;
  try {
    if (!page) {
      page = await browser.newPage({ viewport: { width: W, height: H } });
      await page.goto(`http://127.0.0.1:${port}/tools/render.html`);
      await page.waitForFunction(() => window.__draw);
    }
    await page.evaluate((query) => window.__draw(query), `src=/file/${i}/${encodeURIComponent(name)}&${files[i].view}`);
    await page.waitForFunction(() => window.__result, null, { timeout: 120000 });
    result = await page.evaluate(() => window.__result);
    if (out) await page.screenshot({ path: path.join(out, name.replace(/\.(glb|gltf)$/, '') + '.png') });
  } catch (e) {
    result = { ok: false, error: String(e.message || e).split('\n')[0] };
    if (page) await page.close().catch(() => {});
    page = null;
  }
  const pass = result.ok && result.coverage >= minCov;
  if (!pass) bad++;
  console.log(JSON.stringify({ file: files[i].path, pass, ...result }));
}
await browser.close();
server.close();
process.exit(bad ? 1 : 0);
