// Drive the viewer page (build/web/index.html) in headless Chromium from file:// and compare it
// with the CLI. usage: node viewer.mjs PAGE CLI WORK CASES.json
// CASES: [{name, files: [paths], map?, cli: CLI input spec, cliArgs: [...], shot: bool, broken?: bool}]
// Prints one JSON line per check; exits 1 if any failed.
import { chromium } from '../tools/node_modules/playwright-core/index.mjs';
import { execFileSync } from 'child_process';
import { writeFileSync, readFileSync, mkdirSync } from 'fs';
import path from 'path';
import { fileURLToPath } from 'url';

const here = path.dirname(fileURLToPath(import.meta.url));
const [page_, cli, work, casesFile] = process.argv.slice(2);
const cases = JSON.parse(readFileSync(casesFile, 'utf8'));
mkdirSync(work, { recursive: true });
const W = 800, H = 600;
let bad = 0;
let sourceChecked = false;
const check = (name, pass, detail) => { if (!pass) bad++; console.log(JSON.stringify({ check: name, pass: !!pass, ...detail })); };

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
    '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
const page = await browser.newPage({ viewport: { width: W, height: H } });
const pageErrors = [];
page.on('pageerror', (e) => pageErrors.push(e.message));
// offline: nothing but the file itself may be fetched
await page.route(/^(?!file:|data:|blob:)/, (r) => { pageErrors.push('network: ' + r.request().url()); r.abort(); });
await page.goto('file://' + path.resolve(page_));
await page.waitForFunction(() => window.bspkitViewer);

async function openFiles(files, map) {
  await page.evaluate(() => {
    let i = document.getElementById('test-in');
    if (!i) { i = document.createElement('input'); i.type = 'file'; i.multiple = true; i.id = 'test-in'; i.style.display = 'none'; document.body.appendChild(i); }
  });
  await page.setInputFiles('#test-in', files);
  return page.evaluate(async (map) => {
    try { return { ok: true, stats: await window.bspkitViewer.open([...document.getElementById('test-in').files], map ? { map } : {}) }; }
    catch (e) { return { ok: false, error: String(e.message || e), shown: document.getElementById('err').textContent }; }
  }, map || null);
}

const cliJson = (args) => JSON.parse(execFileSync(cli, args, { encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['ignore', 'pipe', 'ignore'] }));

// root-mean-square difference of two PNGs' RGB, 0..1 (decoded by the browser, in a blank page)
let blank = null;
const rmseOf = async (fa, fb) => (blank ||= await browser.newPage()).evaluate(async ([a, b]) => {
  const load = (src) => new Promise((res, rej) => { const i = new Image(); i.onload = () => res(i); i.onerror = rej; i.src = src; });
  const [ia, ib] = await Promise.all([load(a), load(b)]);
  const px = (im) => { const c = document.createElement('canvas'); c.width = im.width; c.height = im.height; const g = c.getContext('2d'); g.drawImage(im, 0, 0); return g.getImageData(0, 0, im.width, im.height).data; };
  const pa = px(ia), pb = px(ib);
  if (pa.length !== pb.length) return 1;
  let s = 0;
  for (let i = 0; i < pa.length; i += 4) for (let k = 0; k < 3; k++) { const d = (pa[i + k] - pb[i + k]) / 255; s += d * d; }
  return Math.sqrt(s / (pa.length / 4 * 3));
}, ['data:image/png;base64,' + readFileSync(fa).toString('base64'), 'data:image/png;base64,' + readFileSync(fb).toString('base64')]).catch(() => 1);

// the screenshots from the spawns against the reference renderer (tests/tools/render.mjs) of the
// page's .glb and of the CLI's, from the same eye: every case's pictures drawn in one browser run
const refs = [];
async function shotsAgainstReference() {
  if (!refs.length) return;
  const args = [path.join(here, '../tools/render.mjs'), '--out', work, '--mode', 'full', '--size', `${W}x${H}`, '--min-coverage', '0'];
  for (const r of refs) args.push('--camera', r.camera, r.pageGlb, r.glbPath);
  execFileSync('node', args, { encoding: 'utf8' });
  for (const { name, shot, pvsShot, pageGlb } of refs) {
    const refShot = path.join(work, path.basename(pageGlb, '.glb') + '.png');   // render.mjs names it after the .glb
    const rmse = await rmseOf(shot, refShot);
    // and of the CLI's own .glb of the same input: the WebAssembly conversion against the native one
    const cliShot = path.join(work, name + '.cli.png');
    const rmseCli = await rmseOf(shot, cliShot);
    check(`${name}: screenshot within 3% RMSE of the reference render of the CLI's .glb`, rmseCli <= 0.03, { rmse: rmseCli, ref: cliShot });
    check(`${name}: screenshot from the spawn within 3% RMSE of the reference render`, rmse <= 0.03, { rmse, shot, ref: refShot });
    // control: the metric does see a difference (the PVS picture has the bar and another yaw)
    const control = await rmseOf(shot, pvsShot);
    check(`${name}: the picture metric is live (another picture differs)`, control > 0.01, { rmse: control });
  }
}

for (const c of cases) {
  const t0 = Date.now();
  const r = await openFiles(c.files, c.map);
  const ms = Date.now() - t0;
  if (c.broken) {
    check(`${c.name}: a broken file is refused with the library's located message`,
      !r.ok && /error:/.test(r.shown) && r.shown === r.error, { error: r.error });
    continue;
  }
  if (!r.ok) { check(`${c.name}: opens`, false, { error: r.error }); continue; }
  const st = r.stats;
  check(`${c.name}: opens`, true, { ms, format: st.format, version: st.version, timings: st.timings });
  // entities and triangles as the CLI counts them
  const info = cliJson(['info', '--json', c.cli]);
  const cliEnt = (info.counts || {}).entities ?? 0;
  check(`${c.name}: entities as bspkit info`, st.entities === cliEnt, { page: st.entities, cli: cliEnt });
  const glbPath = path.join(work, c.name + '.cli.glb');
  const out = execFileSync(cli, ['convert', c.cli, '-o', glbPath, ...(c.cliArgs || [])], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  const tris = +((out.match(/(\d+) triangles/) || [])[1]);
  check(`${c.name}: triangles as bspkit convert`, st.triangles === tris, { page: st.triangles, cli: tris });
  // the page's .glb, for the reference render and to compare sizes
  const b64 = await page.evaluate(() => window.bspkitViewer.glb());
  const pageGlb = path.join(work, c.name + '.page.glb');
  writeFileSync(pageGlb, Buffer.from(b64, 'base64'));
  // the same scene; only the PNGs' deflate differs (the native build uses ISA-L for large images)
  check(`${c.name}: the page's .glb within 5% of the CLI's size`, Math.abs(readFileSync(pageGlb).length - readFileSync(glbPath).length) <= 0.05 * readFileSync(glbPath).length,
    { page: readFileSync(pageGlb).length, cli: readFileSync(glbPath).length });
  if (c.format) check(`${c.name}: format`, st.format === c.format, { page: st.format });
  if (c.animations) {
    const tl = await page.evaluate(() => ({ shown: getComputedStyle(document.getElementById('timeline')).display !== 'none',
      clips: document.getElementById('anims').options.length }));
    check(`${c.name}: animations on the timeline`, st.animations >= 1 && tl.shown && tl.clips === st.animations, { page: st.animations, ...tl });
  }
  if (!c.shot) continue;
  // from the first player spawn, eye height, along its yaw
  const spawns = await page.evaluate(() => window.bspkitViewer.spawns());
  check(`${c.name}: a player spawn`, spawns.length > 0, { spawns: spawns.length });
  if (!spawns.length) continue;
  const s = spawns[0];
  // the page puts the eye at the game's eye height, which the library says (info --json: game)
  const eyeHeight = (info.game || {}).eye_height || 0;
  check(`${c.name}: the page knows the game's eye height`, ((st.game || {}).eyeHeight ?? 0) === eyeHeight, { page: st.game, cli: info.game });
  const eye = [s.origin[0], s.origin[1], s.origin[2] + eyeHeight];
  // the trace tool against bspkit trace on the same segment
  const yaw = s.angle * Math.PI / 180;
  const to = [eye[0] + Math.cos(yaw) * 4096, eye[1] + Math.sin(yaw) * 4096, eye[2] - 512];
  const tr = await page.evaluate(([a, b]) => window.bspkitViewer.trace(a, b), [eye, to]);
  const ref = cliJson(['trace', c.cli, '--from', ...eye.map(String), '--to', ...to.map(String), '--json']);
  const close = (a, b) => a.every((v, i) => Math.abs(v - b[i]) < 1e-3);
  check(`${c.name}: trace as bspkit trace`, Math.abs(tr.fraction - ref.fraction) < 1e-6 && close(tr.endpos, ref.endpos) &&
    close(tr.normal, ref.plane.normal) && tr.contents === ref.contents, { page: tr, cli: ref });
  // PVS mode: from the spawn, fewer triangles drawn than the full view, and not none
  const pvs = await page.evaluate(async ([e]) => {
    window.bspkitViewer.setCamera(e, 0, 0);
    const full = window.bspkitViewer.stats().drawnTriangles;
    const p = await window.bspkitViewer.pvs(true);
    return { full, ...p };
  }, [eye]);
  check(`${c.name}: PVS mode draws fewer triangles than the full view`, pvs && pvs.drawnTriangles > 0 && pvs.drawnTriangles < pvs.full &&
    pvs.visibleFaces > 0 && pvs.visibleFaces <= (st.query || {}).faces, { pvs, faces: (st.query || {}).faces });
  const pvsShot = path.join(work, c.name + '.pvs.png');
  await page.evaluate(() => window.bspkitViewer.render(false));
  await page.screenshot({ path: pvsShot });
  await page.evaluate(() => { window.bspkitViewer.setToggle('pvs', false); window.bspkitViewer.pvs(false); window.bspkitViewer.setToggle('trig', true); });
  // the screenshot against the reference renderer's picture of the same .glb from the same eye
  await page.evaluate(([e, y]) => { window.bspkitViewer.setCamera(e, y, 0); window.bspkitViewer.render(true); }, [eye, s.angle]);
  const shot = path.join(work, c.name + '.viewer.png');
  await page.screenshot({ path: shot });
  await page.evaluate(() => window.bspkitViewer.render(false));
  // compared with the reference renderer's pictures after the last case (shotsAgainstReference)
  refs.push({ name: c.name, shot, pvsShot, pageGlb, glbPath, camera: `${eye.join(' ')} ${s.angle} 0` });
  // a click in the middle: the entity's keys (all pairs); with the trace tool, the library's trace
  await page.mouse.click(W / 2, H / 2);
  const rows = await page.evaluate(() => window.__panel || []);
  check(`${c.name}: a click shows keys`, rows.length > 0, { rows: rows.slice(0, 4) });
  await page.evaluate(() => window.bspkitViewer.setToggle('trace', true));
  await page.mouse.click(W / 2, H / 2);
  await page.waitForFunction(() => (window.__panel || []).some((r) => r[0] === 'fraction'), null, { timeout: 10000 }).catch(() => {});
  const trRows = await page.evaluate(() => window.__panel || []);
  check(`${c.name}: the trace tool answers a click`, trRows.some((r) => r[0] === 'fraction' && +r[1] < 1), { rows: trRows.slice(0, 3) });
  await page.evaluate(() => window.bspkitViewer.setToggle('trace', false));
  // collision: converted again with the collision geometry
  if (c.collision) {
    const cs = await page.evaluate(() => window.bspkitViewer.setToggle('coll', true));
    check(`${c.name}: the collision toggle adds collision meshes`, cs && cs.collisionMeshes > 0, { collisionMeshes: cs && cs.collisionMeshes });
    await page.evaluate(() => window.bspkitViewer.setToggle('coll', false));
  }
  // "Download source": the library's decompile in the worker, saved by the browser; the bytes
  // `bspkit decompile` writes (on the first Source or Quake 3 map)
  if (!sourceChecked && (st.format === 'source' || st.format === 'quake3')) {
    sourceChecked = true;
    const [dl] = await Promise.all([page.waitForEvent('download', { timeout: 60000 }), page.click('#source')]);
    const got = path.join(work, c.name + '.page.' + (st.format === 'source' ? 'vmf' : 'map'));
    await dl.saveAs(got);
    const want = path.join(work, c.name + '.cli.' + (st.format === 'source' ? 'vmf' : 'map'));
    execFileSync(cli, ['decompile', c.cli, '-o', want, '-q'], { stdio: 'ignore' });
    const text = readFileSync(got, 'latin1');
    check(`${c.name}: Download source gives the map's source, as bspkit decompile writes it`,
      (text.startsWith('versioninfo') || text.startsWith('{') || text.startsWith('//')) && readFileSync(want).equals(readFileSync(got)),
      { name: dl.suggestedFilename(), bytes: text.length });
  }
}
// (the viewer closed first: a model's animation would keep it drawing every frame meanwhile)
await page.close();
await shotsAgainstReference();
check('no uncaught exception on the page', pageErrors.length === 0, { errors: pageErrors.slice(0, 5) });
await browser.close();
process.exit(bad ? 1 : 0);
