// Manual visual check (not run by ctest): render a converted map from its player start with the
// lightmap applied as a real lightmap (three.js in headless Chromium), and save a PNG.
//   node tests/quake/view/view.mjs MAP.glb OUT.png ["mode=lightmap|texture&yaw=90&outside=1"]
// Needs the test tools installed (scripts/install-deps --test: three, playwright-core).
import http from 'http';
import { readFileSync, existsSync } from 'fs';
import path from 'path';
import { createRequire } from 'module';
import { fileURLToPath } from 'url';
const here = path.dirname(fileURLToPath(import.meta.url));
const tools = path.join(here, '../../tools');
const require = createRequire(path.join(tools, 'package.json'));
const { chromium } = require('playwright-core');
const [file, out, extra] = process.argv.slice(2);
if (!file || !out) { console.error('usage: view.mjs MAP.glb OUT.png [query]'); process.exit(2); }
const server = http.createServer((req, res) => {
  const u = new URL(req.url, 'http://x');
  let p = null;
  if (u.pathname === '/view.html') p = path.join(here, 'view.html');
  else if (u.pathname.startsWith('/tools/')) p = path.join(tools, decodeURIComponent(u.pathname.slice(7)));
  else if (u.pathname === '/model.glb') p = file;
  if (!p || !existsSync(p)) { res.writeHead(404); res.end(); return; }
  res.writeHead(200, { 'content-type': p.endsWith('.js') ? 'text/javascript' : p.endsWith('.html') ? 'text/html' : 'application/octet-stream' });
  res.end(readFileSync(p));
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--use-angle=swiftshader', '--enable-unsafe-swiftshader'] });
const page = await browser.newPage({ viewport: { width: 960, height: 600 } });
await page.goto(`http://127.0.0.1:${server.address().port}/view.html?src=/model.glb&${extra || ''}`);
await page.waitForFunction(() => window.__result, null, { timeout: 120000 });
console.log(JSON.stringify(await page.evaluate(() => window.__result)));
await page.screenshot({ path: out });
await browser.close(); server.close();
