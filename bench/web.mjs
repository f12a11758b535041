// Open + convert in the viewer page (build/web/index.html, headless Chromium) against the native
// CLI's convert of the same input, best of 3 each. usage: node bench/web.mjs PAGE CLI FILE[,EXTRA...]...
// (a FILE of the form ARCHIVE.pk3:maps/x.bsp opens the archive in the page and that map)
// Prints one JSON line per input: page worker time (write into the in-memory file system, open,
// convert to .glb), the whole open() (with three.js parsing and drawing), the CLI, the ratio.
import { chromium } from '../tests/tools/node_modules/playwright-core/index.mjs';
import { execFileSync } from 'child_process';
import path from 'path';
const [pageFile, cli, ...inputs] = process.argv.slice(2);
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader'] });
const page = await browser.newPage({ viewport: { width: 800, height: 600 } });
await page.goto('file://' + path.resolve(pageFile));
await page.evaluate(() => { const i = document.createElement('input'); i.type = 'file'; i.multiple = true; i.id = 'b-in'; document.body.appendChild(i); });
for (const spec of inputs) {
  const [main, ...extra] = spec.split(',');
  const m = main.match(/^(.*\.pk3):(.*)$/);
  const files = [m ? m[1] : main, ...extra];
  await page.setInputFiles('#b-in', files);
  const runs = [];
  for (let k = 0; k < 3; k++)
    runs.push(await page.evaluate(async (map) => (await window.bspkitViewer.open([...document.getElementById('b-in').files], map ? { map } : {})).timings, m ? m[2] : null));
  const best = (f) => Math.min(...runs.map(f));
  const cliRuns = [];
  for (let k = 0; k < 3; k++) {
    const args = ['convert', main, '-o', '/tmp/bench-web.glb', '-q'];
    for (const e of extra) args.push(/\.wad$/i.test(e) ? '--wad' : '--game-dir', e);
    const t = process.hrtime.bigint();
    execFileSync(cli, args, { stdio: 'ignore' });
    cliRuns.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  const c = Math.min(...cliRuns), w = best((t) => t.worker);
  console.log(JSON.stringify({ input: path.basename(main), cli_ms: +c.toFixed(1), worker_ms: +w.toFixed(1), ratio: +(w / c).toFixed(2),
    write_ms: +best((t) => t.write).toFixed(1), open_ms: +best((t) => t.open).toFixed(1), convert_ms: +best((t) => t.convert).toFixed(1),
    draw_ms: +best((t) => t.draw).toFixed(1), total_ms: +best((t) => t.total).toFixed(1) }));
}
await browser.close();
