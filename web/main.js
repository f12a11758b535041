// bspkit viewer: opens a user's own maps and models in the browser. The library (WebAssembly, in
// a Web Worker) converts them to glTF in memory; three.js draws the result the way the engine
// does (web/engine-material.js, shared with the test renderer). Automation: window.bspkitViewer.
import * as THREE from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { engineMaterial, loadBlendTextures, skyOrder, followSky, placeCamera, renderWithGamma } from './engine-material.js';

const UNIT = 0.0254;                 // metres per engine unit: the library's default export scale
const BK_OPT_COLLISION = 1 << 7;
const $ = (id) => document.getElementById(id);

// ---- the worker ----------------------------------------------------------------------------
let worker = null, nextId = 1;
const pending = new Map();
function startWorker() {
  if (worker) worker.terminate();
  const url = URL.createObjectURL(new Blob([$('worker-src').textContent], { type: 'text/javascript' }));
  worker = new Worker(url);
  worker.onmessage = (e) => {
    const m = e.data;
    if (m.progress) { status(m.progress + '…'); return; }
    const p = pending.get(m.id);
    if (!p) return;
    pending.delete(m.id);
    if (m.ok) p.resolve(m.result); else p.reject(new Error(m.error));
  };
  worker.onerror = (e) => { e.preventDefault(); for (const p of pending.values()) p.reject(new Error('worker: ' + e.message)); pending.clear(); };
}
function call(op, args, transfer) {
  const id = nextId++;
  return new Promise((resolve, reject) => { pending.set(id, { resolve, reject }); worker.postMessage({ id, op, args }, transfer || []); });
}
startWorker();

// ---- drawing -----------------------------------------------------------------------------------
const renderer = new THREE.WebGLRenderer({ antialias: true, preserveDrawingBuffer: true });
renderer.setPixelRatio(1);
$('view').appendChild(renderer.domElement);
const scene = new THREE.Scene();
scene.background = new THREE.Color(0x202830);
const camera = new THREE.PerspectiveCamera(74, 4 / 3, 4 * UNIT, 2000);
let fovX = 90;
function resize() {
  const W = innerWidth, H = innerHeight;
  renderer.setSize(W, H);
  camera.aspect = W / H;
  camera.fov = 2 * Math.atan(Math.tan(fovX * Math.PI / 360) * H / W) * 180 / Math.PI;
  camera.updateProjectionMatrix();
  dirty = true;
}
let dirty = true;
addEventListener('resize', resize);

const S = { root: null, gltf: null, stats: null, entities: [], files: null, map: null, skybox: null, gamma: 1,
  spawns: [], spawnIndex: -1, mixer: null, action: null, playing: true, yaw: 0, pitch: 0, blend: {}, marker: null, pvs: null };

function status(t) { $('status').textContent = t; }
function showError(msg) { const e = $('err'); e.textContent = msg; e.style.top = ($('bar').offsetHeight + 6) + 'px'; e.style.display = msg ? 'block' : 'none'; }
// what the game never draws, as the library's scene builder marked it (material extras.neverDrawn)
const isNeverDrawn = (m) => !!m && (m.userData || {}).neverDrawn === 'true';

function materialMode() {
  const t = $('t-tex').checked, l = $('t-lm').checked;
  return t && l ? 'full' : t ? 'texture' : l ? 'lightmap' : 'lightmap';
}
function applyMaterials() {
  if (!S.root) return;
  const mode = materialMode();
  S.root.traverse((o) => {
    if (!o.isMesh) return;
    if (!o.userData.orig) o.userData.orig = o.material;
    if (o.userData.collision) return;
    const old = o.material;
    o.material = engineMaterial(o.userData.orig, o.geometry, mode, S.blend);
    if (old !== o.userData.orig) old.dispose();
    skyOrder(o);
  });
  dirty = true;
}
function applyVisibility() {
  if (!S.root) return;
  const trig = $('t-trig').checked, props = $('t-props').checked, coll = $('t-coll').checked;
  S.root.traverse((o) => {
    const ud = o.userData || {};
    if (o.name === 'collision' && o !== S.root) { o.visible = coll; return; }
    if (ud.classname && /^trigger_|^func_(areaportal|clip|buyzone|bomb_target|hostage_rescue)/.test(ud.classname)) o.visible = trig;
    else if (ud.classname === 'prop_static' || ud.isProp || (ud.model && /\.mdl$/i.test(ud.model) && /^prop_/.test(ud.classname || ''))) o.visible = props;
    if (o.isMesh && !o.userData.collision) {
      if (isNeverDrawn(o.userData.orig || o.material)) o.visible = trig;
    }
  });
  applyPvs();
  dirty = true;
}

function loadGlb(buf) {
  return new Promise((resolve, reject) => new GLTFLoader().parse(buf, '', resolve, reject));
}

function clearScene() {
  if (!S.root) return;
  scene.remove(S.root);
  S.root.traverse((o) => {
    if (o.isMesh) {
      o.geometry.dispose();
      for (const m of [o.material, o.userData.orig]) if (m) { for (const k of ['map', 'aoMap', 'emissiveMap', 'lightMap']) if (m[k] && m[k].dispose) m[k].dispose(); m.dispose(); }
    }
  });
  S.root = null;
}

async function show(res) {
  S.glbBytes = res.glb.slice(0);
  const gltf = await loadGlb(res.glb);
  clearScene();
  S.gltf = gltf;
  S.root = gltf.scene;
  S.stats = res.stats;
  S.entities = res.entities;
  S.blend = await loadBlendTextures(gltf);
  S.skybox = null;
  S.spawns = [];
  S.spawnIndex = -1;
  let tris = 0;
  S.root.traverse((o) => {
    if (o.name === 'skybox' && (o.userData || {}).followCamera) S.skybox = o;
    /* lights the lightmaps already hold (Source world lights): off, or they would light it twice */
    if (o.isLight && (o.userData || {}).baked === 'true') o.visible = false;
    if (o.name === 'collision') o.traverse((c) => {
      if (c.isMesh) { c.userData.collision = true; c.material = new THREE.MeshBasicMaterial({ color: 0xff8040, wireframe: true, transparent: true, opacity: 0.5 }); }
    });
    if (o.isMesh && !o.userData.collision) tris += o.geometry.index ? o.geometry.index.count / 3 : o.geometry.attributes.position.count / 3;
    const ud = o.userData || {};
    // the spawn classes of the map's game, from the library (stats.game, the version rows)
    if (ud.classname && ((S.stats.game || {}).spawnClasses || []).includes(ud.classname)) S.spawns.push(o);
  });
  S.stats.drawnTriangles = tris;
  S.gamma = +((S.root.userData || {}).displayGamma || 1);
  S.pvsBoxes = null;
  S.pvs = null;
  scene.add(S.root);
  applyMaterials();
  applyVisibility();
  // animations (DPM, MDL)
  S.mixer = null;
  $('timeline').style.display = gltf.animations.length ? 'inline' : 'none';
  if (gltf.animations.length) {
    S.mixer = new THREE.AnimationMixer(S.root);
    $('anims').innerHTML = '';
    gltf.animations.forEach((a, i) => { const o = document.createElement('option'); o.value = i; o.textContent = a.name || 'animation ' + i; $('anims').appendChild(o); });
    playAnim(0);
  }
  S.root.updateMatrixWorld(true);
  if (S.spawns.length) nextSpawn(); else frameAll();
  status(`${res.stats.format} v${res.stats.version}: ${res.stats.entities} entities, ${res.stats.triangles} triangles`);
  $('drop').style.display = 'none';
  if ($('t-pvs').checked) await updatePvs();
}

function frameAll() {
  if (S.skybox) S.skybox.visible = false;
  const box = new THREE.Box3().setFromObject(S.root);
  if (S.skybox) S.skybox.visible = true;
  const c = box.getCenter(new THREE.Vector3()), r = Math.max(box.getSize(new THREE.Vector3()).length() / 2, 0.01);
  camera.far = Math.max(r * 8, 10);
  const eye = c.clone().addScaledVector(new THREE.Vector3(1, 0.8, 1.2).normalize(), r * 1.6);
  // back to engine units and angles
  const d = c.clone().sub(eye).normalize();
  setCamera([eye.x / UNIT, -eye.z / UNIT, eye.y / UNIT], Math.atan2(-d.z, d.x) * 180 / Math.PI, -Math.asin(d.y) * 180 / Math.PI);
}

function nextSpawn() {
  if (!S.spawns.length) return;
  S.spawnIndex = (S.spawnIndex + 1) % S.spawns.length;
  const o = S.spawns[S.spawnIndex];
  const p = new THREE.Vector3();
  o.getWorldPosition(p);
  const yaw = +(o.userData.angle || ((o.userData.angles || '').split(/\s+/)[1]) || 0);
  setCamera([p.x / UNIT, -p.z / UNIT, p.y / UNIT + (((S.stats && S.stats.game) || {}).eyeHeight || 0)], yaw, 0);
}

function setCamera(pos, yawDeg, pitchDeg) {
  S.yaw = +yawDeg || 0;
  S.pitch = +pitchDeg || 0;
  if (S.root) {
    if (S.skybox) S.skybox.visible = false;
    const box = new THREE.Box3().setFromObject(S.root);
    if (S.skybox) S.skybox.visible = true;
    camera.far = Math.max(box.getSize(new THREE.Vector3()).length() / 2 * 8, 10);
  }
  placeCamera(camera, pos, S.yaw, S.pitch, UNIT);
  camera.updateProjectionMatrix();
  dirty = true;
  if ($('t-pvs').checked) updatePvs();
}
function enginePos() { return [camera.position.x / UNIT, -camera.position.z / UNIT, camera.position.y / UNIT]; }

function playAnim(i) {
  if (!S.mixer) return;
  S.mixer.stopAllAction();
  S.action = S.mixer.clipAction(S.gltf.animations[i]);
  S.action.play();
}

// ---- opening files -------------------------------------------------------------------------
const MAP_EXT = /\.(bsp|dpm|mdl)$/i;
// [{name, blob}]: a File is a Blob and goes to the worker as a handle (no copy)
async function readFiles(files) {
  const out = [];
  for (const f of files) {
    // a File (a Blob: its bytes() is a method, not the data), or {name, bytes}
    if (f instanceof Blob) out.push({ name: f.webkitRelativePath || f.name, blob: f });
    else out.push({ name: f.name, blob: f.blob instanceof Blob ? f.blob : new Blob([f.bytes]) });
  }
  return out;
}

async function open(files, opts = {}) {
  showError('');
  try {
    S.files = await readFiles(files);
    let map = opts.map || null;
    if (!map) {
      const direct = S.files.find((f) => MAP_EXT.test(f.name));
      if (direct) map = direct.name;
    }
    $('maps').style.display = 'none';
    if (!map || (!S.files.some((f) => f.name === map) && !/\.(pk[34]|zip):/i.test(map))) {
      // the maps inside the .pk3s: the one asked for, else the first; the others in the chooser
      const inside = await call('list', { files: S.files, ext: '.bsp' });
      if (inside.length) {
        const sel = $('maps');
        sel.innerHTML = '';
        for (const m of inside) { const o = document.createElement('option'); o.value = o.textContent = m; sel.appendChild(o); }
        sel.style.display = inside.length > 1 ? 'inline' : 'none';
        map = (map && inside.find((m) => m.toLowerCase().endsWith(map.toLowerCase()))) || inside[0];
        sel.value = map;
      } else if (!map) {
        const wads = S.files.filter((f) => /\.wad$/i.test(f.name));
        if (wads.length) throw new Error(wads.map((f) => f.name).join(', ') + ': a WAD holds textures only: drop it together with a map');
        throw new Error('no map or model among ' + S.files.map((f) => f.name).join(', '));
      }
    }
    return await openMap(map);
  } catch (e) {
    fail(e);
    throw e;
  }
}

async function openMap(map) {
  S.map = map;
  const t0 = performance.now();
  const flags = $('t-coll').checked ? BK_OPT_COLLISION : 0;
  // copies go to the worker (the page keeps the files for reopening)
  const res = await call('open', { files: S.files, map, flags });
  const t1 = performance.now();
  await show(res);
  res.stats.timings.total = performance.now() - t0;
  res.stats.timings.worker = t1 - t0;
  res.stats.timings.draw = performance.now() - t1;
  return stats();
}

function fail(e) {
  const msg = String((e && e.message) || e);
  showError(msg);
  status('error');
  // a trap inside the library leaves its state unknown: start a fresh worker
  if (/RuntimeError|abort|unreachable|memory access/i.test(msg)) startWorker();
}

function stats() {
  if (!S.stats) return null;
  let collision = 0;
  if (S.root) S.root.traverse((o) => { if (o.isMesh && o.userData.collision) collision++; });
  const s = { ...S.stats, map: S.map, pvs: S.pvs, drawnTriangles: S.drawnTriangles, collisionMeshes: collision };
  return JSON.parse(JSON.stringify(s));
}

async function trace(from, to) {
  return call('trace', { from, to, hull: 0 });
}

// ---- PVS mode: draw only the leaves in the PVS of the camera's cluster ----------------------
// The library gives the bounds of every leaf of the row (bk_query_leaf_bounds); a triangle is
// drawn when its centre lies in one of them (faces lie on their leaves' walls; a face of a hidden
// leaf inside a visible leaf's box is drawn too: never less than the engine draws).
let pvsBusy = false;
async function updatePvs() {
  if (!$('t-pvs').checked || !S.stats || !S.stats.query) {
    if (S.pvsBoxes) { S.pvsBoxes = null; S.pvs = null; applyPvs(); }
    return S.pvs;
  }
  if (pvsBusy) return S.pvs;
  pvsBusy = true;
  try {
    const pos = enginePos();
    const info = await call('point', { pos });
    if (!S.pvsBoxes || !S.pvs || info.cluster !== S.pvs.cluster) {
      const r = await call('pvs', { pos });
      S.pvsBoxes = r.boxes;
      S.pvs = { ...info, drawnLeaves: r.leaves };
      applyPvs();
    } else S.pvs = { ...S.pvs, ...info };
    S.pvs.drawnTriangles = S.drawnTriangles;
    status(`PVS of cluster ${S.pvs.cluster}: ${S.pvs.drawnLeaves} leaves, ${S.pvs.visibleFaces} faces, ${S.drawnTriangles} triangles drawn`);
  } finally { pvsBusy = false; }
  return S.pvs;
}

const isSkyMesh = (o) => {
  for (let p = o; p; p = p.parent) if (p.name === 'skybox') return true;
  return !!((o.userData.orig || o.material).userData || {}).sky;
};
const shown = (o) => { for (let p = o; p; p = p.parent) if (!p.visible) return false; return true; };
function applyPvs() {
  if (!S.root) return;
  const boxes = $('t-pvs').checked ? S.pvsBoxes : null;
  const CELL = 512, grid = new Map();
  const key = (x, y, z) => x + ',' + y + ',' + z;
  if (boxes) for (let i = 0; i < boxes.length; i += 6) {
    const lo = [0, 1, 2].map((k) => Math.floor((boxes[i + k] - 1) / CELL)), hi = [0, 1, 2].map((k) => Math.floor((boxes[i + 3 + k] + 1) / CELL));
    for (let x = lo[0]; x <= hi[0]; x++) for (let y = lo[1]; y <= hi[1]; y++) for (let z = lo[2]; z <= hi[2]; z++) {
      const k = key(x, y, z);
      if (!grid.has(k)) grid.set(k, []);
      grid.get(k).push(i);
    }
  }
  const inPvs = (e) => {
    const list = grid.get(key(Math.floor(e[0] / CELL), Math.floor(e[1] / CELL), Math.floor(e[2] / CELL)));
    if (!list) return false;
    for (const i of list)
      if (e[0] >= boxes[i] - 1 && e[1] >= boxes[i + 1] - 1 && e[2] >= boxes[i + 2] - 1 &&
          e[0] <= boxes[i + 3] + 1 && e[1] <= boxes[i + 4] + 1 && e[2] <= boxes[i + 5] + 1) return true;
    return false;
  };
  let drawn = 0;
  const v = new THREE.Vector3(), e = [0, 0, 0];
  S.root.updateMatrixWorld(true);
  S.root.traverse((o) => {
    if (!o.isMesh || o.userData.collision) return;
    const g = o.geometry;
    if (!('fullIndex' in o.userData)) o.userData.fullIndex = g.index;
    const full = o.userData.fullIndex;
    if (!boxes || isSkyMesh(o)) {
      if (g.index !== full) g.setIndex(full);
    } else {
      const pos = g.attributes.position, n = full ? full.count : pos.count, keep = [];
      for (let t = 0; t + 2 < n; t += 3) {
        const a = full ? full.getX(t) : t, b = full ? full.getX(t + 1) : t + 1, c = full ? full.getX(t + 2) : t + 2;
        v.set((pos.getX(a) + pos.getX(b) + pos.getX(c)) / 3, (pos.getY(a) + pos.getY(b) + pos.getY(c)) / 3,
          (pos.getZ(a) + pos.getZ(b) + pos.getZ(c)) / 3).applyMatrix4(o.matrixWorld);
        e[0] = v.x / UNIT; e[1] = -v.z / UNIT; e[2] = v.y / UNIT;
        if (inPvs(e)) keep.push(a, b, c);
      }
      g.setIndex(keep);
    }
    if (shown(o)) drawn += (g.index ? g.index.count : g.attributes.position.count) / 3;
  });
  S.drawnTriangles = drawn;
  dirty = true;
}

// ---- input: fly camera, clicks --------------------------------------------------------------
const keys = new Set();
addEventListener('keydown', (e) => { if (e.target.tagName !== 'INPUT' || e.target.type === 'checkbox') keys.add(e.code); });
addEventListener('keyup', (e) => keys.delete(e.code));
let drag = null;
const canvas = renderer.domElement;
const touches = new Map();   // two fingers: drag up / down to move forward / back
canvas.style.touchAction = 'none';
canvas.addEventListener('pointerdown', (e) => {
  touches.set(e.pointerId, e.clientY);
  drag = touches.size > 1 ? null : { x: e.clientX, y: e.clientY, moved: 0 };
  canvas.setPointerCapture(e.pointerId);
});
canvas.addEventListener('pointermove', (e) => {
  if (touches.size < 2 || !touches.has(e.pointerId)) return;
  const dy = e.clientY - touches.get(e.pointerId);
  touches.set(e.pointerId, e.clientY);
  const f = [Math.cos(S.yaw * Math.PI / 180), Math.sin(S.yaw * Math.PI / 180), 0];
  placeCamera(camera, enginePos().map((x, i) => x - f[i] * dy), S.yaw, S.pitch, UNIT);
  dirty = true;
});
for (const ev of ['pointerup', 'pointercancel']) canvas.addEventListener(ev, (e) => touches.delete(e.pointerId));
canvas.addEventListener('pointermove', (e) => {
  if (!drag) return;
  const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
  drag.moved += Math.abs(dx) + Math.abs(dy);
  drag.x = e.clientX; drag.y = e.clientY;
  S.yaw -= dx * 0.25;
  S.pitch = Math.max(-89, Math.min(89, S.pitch + dy * 0.25));
  placeCamera(camera, enginePos(), S.yaw, S.pitch, UNIT);
  dirty = true;
});
canvas.addEventListener('pointerup', (e) => {
  const d = drag;
  drag = null;
  if (d && d.moved < 5) click(e).catch((err) => showError(String(err.message || err)));
});

async function click(e) {
  if (!S.root) return;
  const ndc = new THREE.Vector2(e.clientX / innerWidth * 2 - 1, -(e.clientY / innerHeight) * 2 + 1);
  const rc = new THREE.Raycaster();
  rc.setFromCamera(ndc, camera);
  if ($('t-trace').checked) {
    const from = enginePos();
    const d = rc.ray.direction;
    const dir = [d.x, -d.z, d.y];
    const to = from.map((v, i) => v + dir[i] * 16384);
    const tr = await trace(from, to);
    if (!S.marker) { S.marker = new THREE.Mesh(new THREE.SphereGeometry(4 * UNIT, 12, 8), new THREE.MeshBasicMaterial({ color: 0xff2040, depthTest: false })); S.marker.renderOrder = 999; scene.add(S.marker); }
    if (tr.endpos) S.marker.position.set(tr.endpos[0] * UNIT, tr.endpos[2] * UNIT, -tr.endpos[1] * UNIT);
    panel('trace', Object.entries(tr).map(([k, v]) => [k, Array.isArray(v) ? v.map((x) => +x.toFixed(3)).join(' ') : String(v)]));
    dirty = true;
    return;
  }
  const hits = rc.intersectObject(S.root, true).filter((h) => h.object.visible && !h.object.userData.collision);
  if (!hits.length) { $('panel').style.display = 'none'; return; }
  let o = hits[0].object;
  while (o && o !== S.root && !(o.userData && o.userData.classname)) o = o.parent;
  const ud = (o && o.userData) || {};
  const ent = findEntity(ud);
  const pairs = ent || Object.entries(ud).filter(([k, v]) => typeof v === 'string').map(([k, v]) => [k, v]);
  panel((o && o.name) || hits[0].object.name, pairs.length ? pairs : [['material', (hits[0].object.userData.orig || hits[0].object.material).name]]);
}

// the entity (every pair, repeated keys too) a node's extras came from: the node keeps each
// key's last value; the first entity agreeing on all of them
function findEntity(ud) {
  if (!ud.classname) return null;
  const keys = Object.keys(ud).filter((k) => typeof ud[k] === 'string');
  for (const e of S.entities) {
    const last = {};
    for (const [k, v] of e) last[k] = v;
    if (last.classname !== ud.classname) continue;
    if (keys.every((k) => !(k in last) || last[k] === ud[k])) return e;
  }
  return null;
}

function panel(title, rows) {
  const p = $('panel');
  p.innerHTML = '';
  const h = document.createElement('b');
  h.textContent = title;
  p.appendChild(h);
  const t = document.createElement('table');
  for (const [k, v] of rows) {
    const tr = t.insertRow();
    tr.insertCell().textContent = k;
    tr.insertCell().textContent = v;
  }
  p.appendChild(t);
  p.style.top = ($('bar').offsetHeight + 6) + 'px';
  p.style.display = 'block';
  window.__panel = rows;
}

// ---- the frame loop ------------------------------------------------------------------------
let last = performance.now();
function frame(now) {
  const dt = Math.min((now - last) / 1000, 0.1);
  last = now;
  const speed = (keys.has('ShiftLeft') || keys.has('ShiftRight') ? 1200 : 320) * dt;
  const f = [Math.cos(S.yaw * Math.PI / 180) * Math.cos(S.pitch * Math.PI / 180), Math.sin(S.yaw * Math.PI / 180) * Math.cos(S.pitch * Math.PI / 180), -Math.sin(S.pitch * Math.PI / 180)];
  const r = [Math.sin(S.yaw * Math.PI / 180), -Math.cos(S.yaw * Math.PI / 180), 0];
  let mv = [0, 0, 0];
  const add = (v, s) => { mv = mv.map((x, i) => x + v[i] * s); };
  if (keys.has('KeyW')) add(f, speed);
  if (keys.has('KeyS')) add(f, -speed);
  if (keys.has('KeyD')) add(r, speed);
  if (keys.has('KeyA')) add(r, -speed);
  if (keys.has('Space')) add([0, 0, 1], speed);
  if (keys.has('KeyC')) add([0, 0, 1], -speed);
  if (mv.some((x) => x)) {
    placeCamera(camera, enginePos().map((x, i) => x + mv[i]), S.yaw, S.pitch, UNIT);
    dirty = true;
    if ($('t-pvs').checked) updatePvs();
  }
  if (S.mixer && S.playing) {
    S.mixer.update(dt);
    const d = S.action.getClip().duration || 1;
    $('scrub').value = String(Math.round((S.action.time % d) / d * 1000));
    dirty = true;
  }
  if (dirty) draw();
  requestAnimationFrame(frame);
}
function draw() {
  dirty = false;
  if (S.skybox) followSky(S.skybox, camera);
  renderWithGamma(renderer, scene, camera, S.gamma, renderer.domElement.width, renderer.domElement.height);
}

// ---- controls -----------------------------------------------------------------------------
$('pick').addEventListener('change', (e) => open([...e.target.files]).catch(() => {}));
// a folder (textures, materials, a game folder) joins the files open now, and the map reopens
$('pickdir').addEventListener('change', (e) => {
  const more = [...e.target.files];
  const keep = (S.files || []).map((f) => ({ name: f.name, blob: f.blob }));
  open([...keep, ...more], S.map ? { map: S.map } : {}).catch(() => {});
});
addEventListener('dragover', (e) => e.preventDefault());
addEventListener('drop', async (e) => {
  e.preventDefault();
  const files = [];
  const walk = async (entry, prefix) => {
    if (entry.isFile) files.push(await new Promise((res, rej) => entry.file((f) => res({ name: prefix + f.name, file: f }), rej)));
    else if (entry.isDirectory) {
      const rd = entry.createReader();
      for (;;) {
        const batch = await new Promise((res, rej) => rd.readEntries(res, rej));
        if (!batch.length) break;
        for (const c of batch) await walk(c, prefix + entry.name + '/');
      }
    }
  };
  for (const it of e.dataTransfer.items) { const en = it.webkitGetAsEntry && it.webkitGetAsEntry(); if (en) await walk(en, ''); }
  open(files.map((f) => ({ name: f.name, blob: f.file }))).catch(() => {});
});
$('maps').addEventListener('change', (e) => openMap(e.target.value).catch(fail));
$('spawn').addEventListener('click', nextSpawn);

// the open map's source from the library (bk_decompile in the worker), saved as NAME.vmf / NAME.map
async function downloadSource() {
  if (!S.map) return null;
  try {
    status('decompiling');
    const { bytes, ext: e } = await call('decompile', {});
    const base = S.map.split(/[/:]/).pop().replace(/\.[^.]*$/, '');
    const a = document.createElement('a');
    a.href = URL.createObjectURL(new Blob([bytes], { type: 'text/plain' }));
    a.download = base + '.' + e;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 10000);
    status('wrote ' + a.download);
    return a.download;
  } catch (err) {
    fail(err);
    return null;
  }
}
$('source').addEventListener('click', downloadSource);
for (const id of ['t-tex', 't-lm']) $(id).addEventListener('change', applyMaterials);
for (const id of ['t-trig', 't-props']) $(id).addEventListener('change', applyVisibility);
// collision: the map converted again with BK_OPT_COLLISION the first time it is asked for
$('t-coll').addEventListener('change', () => {
  if (S.map && $('t-coll').checked && S.root && !S.root.getObjectByName('collision')) S.busy = openMap(S.map).catch(fail);
  else applyVisibility();
});
$('t-pvs').addEventListener('change', () => updatePvs());
$('anims').addEventListener('change', (e) => playAnim(+e.target.value));
$('play').addEventListener('click', () => { S.playing = !S.playing; $('play').textContent = S.playing ? '❚❚' : '▶'; });
$('scrub').addEventListener('input', (e) => {
  if (!S.action) return;
  S.playing = false;
  $('play').textContent = '▶';
  S.action.time = +e.target.value / 1000 * S.action.getClip().duration;
  S.mixer.update(0);
  dirty = true;
});

resize();
requestAnimationFrame(frame);

window.bspkitViewer = {
  open, stats, setCamera, trace,
  entities: () => S.entities,
  point: (pos) => call('point', { pos }),
  // draw now (a test's screenshot), without the bar
  render(hideUi = true) {
    for (const id of ['bar', 'err', 'panel', 'drop']) if (hideUi) $(id).style.visibility = 'hidden'; else $(id).style.visibility = '';
    draw();
    return true;
  },
  spawns: () => S.spawns.map((o) => { const p = new THREE.Vector3(); o.getWorldPosition(p); return { classname: o.userData.classname, origin: [p.x / UNIT, -p.z / UNIT, p.y / UNIT], angle: +(o.userData.angle || 0) }; }),
  // the .glb the library made, base64 (a test renders it with the reference renderer)
  glb: () => new Promise((resolve) => { const r = new FileReader(); r.onload = () => resolve(String(r.result).split(',')[1]); r.readAsDataURL(new Blob([S.glbBytes])); }),
  // a toggle by name; a promise that settles when what it started (a reconversion) is done
  async setToggle(name, on) { const el = $('t-' + name); S.busy = null; el.checked = !!on; el.dispatchEvent(new Event('change')); await S.busy; return stats(); },
  // PVS mode on (off: pvs(false)); the camera cluster's counts and the triangles drawn
  pvs: async (on = true) => { $('t-pvs').checked = !!on; return updatePvs(); },
};
