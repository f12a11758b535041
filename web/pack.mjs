// Assemble the one-file page: node web/pack.mjs GLUE.js WORKER.js VIEWER.js TEMPLATE.html OUT.html
// The worker's script (emscripten's glue with the wasm inlined, then web/worker.js) goes into a
// <script type="text/plain"> the page turns into a Blob URL; the viewer bundle goes in a <script>.
import { readFileSync, writeFileSync, renameSync } from 'fs';
const [glue, worker, viewer, template, out] = process.argv.slice(2);
// "</script" inside inlined code would end the element early
const safe = (s) => s.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
const workerSrc = readFileSync(glue, 'utf8') + '\n' + readFileSync(worker, 'utf8');
let html = readFileSync(template, 'utf8');
const put = (marker, text) => {
  const i = html.indexOf(marker);
  if (i < 0) throw new Error(`${template}: no ${marker}`);
  html = html.slice(0, i) + text + html.slice(i + marker.length);
};
// the worker text is only ever read back as text: escaping "</script" as "<\/script" changes no
// JavaScript meaning inside strings or regexes there either
put('/*WORKER*/', safe(workerSrc));
put('/*VIEWER*/', safe(readFileSync(viewer, 'utf8')));
writeFileSync(out + '.tmp', html);
renameSync(out + '.tmp', out);
