// Validate .glb / .gltf files with the Khronos glTF validator.
// usage: node validate-gltf.mjs [--require-skin] [--require-animation] FILE...
// Prints one line per file; exits 1 if any file has an error (or lacks a required part).
import { createRequire } from 'module';
import { readFileSync } from 'fs';
import path from 'path';
import { fileURLToPath } from 'url';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, 'package.json'));
const validator = require('gltf-validator');

const args = process.argv.slice(2);
const requireSkin = args.includes('--require-skin');
const requireAnim = args.includes('--require-animation');
const files = args.filter((a) => !a.startsWith('--'));
let bad = 0;
for (const f of files) {
  const data = new Uint8Array(readFileSync(f));
  const report = await validator.validateBytes(data, {
    uri: path.basename(f),
    maxIssues: 50,
    externalResourceFunction: (uri) =>
      Promise.resolve(new Uint8Array(readFileSync(path.join(path.dirname(f), decodeURIComponent(uri))))),
  });
  const i = report.issues;
  const info = report.info || {};
  let problems = [];
  if (i.numErrors > 0) problems.push(`${i.numErrors} errors`);
  if (requireSkin && !(info.hasSkins || info.skinCount > 0)) problems.push('no skin');
  if (requireAnim && !(info.animationCount > 0)) problems.push('no animation');
  const summary = `${f}: ${i.numErrors} errors, ${i.numWarnings} warnings, ${i.numInfos} infos` +
    ` (${info.drawCallCount ?? '?'} draw calls, ${info.totalVertexCount ?? '?'} vertices)`;
  if (problems.length) {
    bad++;
    console.log(`INVALID ${summary}: ${problems.join(', ')}`);
    for (const m of i.messages.filter((m) => m.severity === 0).slice(0, 10))
      console.log(`   ${m.code} ${m.pointer ?? ''}: ${m.message}`);
  } else {
    console.log(`valid ${summary}`);
  }
}
process.exit(bad ? 1 : 0);
