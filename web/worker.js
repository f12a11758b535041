// The viewer's Web Worker: libbspkit (WebAssembly, emscripten's glue in front of this file) opens
// and converts the files the page sends, so the page never freezes. Messages in: {id, op, args};
// out: {id, ok, result | error} and {progress: TEXT} while working. The files live in the
// worker's in-memory file system under /in, where the library reads them as the CLI reads a disk.
/* global BspkitModule */
let M = null;
const ready = BspkitModule({ print: () => {}, printErr: () => {} }).then((m) => { M = m; });

function rmTree(p) {
  const FS = M.FS;
  for (const n of FS.readdir(p)) {
    if (n === '.' || n === '..') continue;
    const q = p + '/' + n;
    if (FS.isDir(FS.stat(q).mode)) { rmTree(q); FS.rmdir(q); } else FS.unlink(q);
  }
}

function writeFiles(files) {
  const FS = M.FS;
  try { FS.stat('/in'); rmTree('/in'); } catch (e) { FS.mkdir('/in'); }
  const names = [];
  for (const f of files) {
    const rel = f.name.replace(/\\/g, '/').replace(/^\/+/, '').split('/').filter((s) => s && s !== '..' && s !== '.').join('/');
    const parts = rel.split('/');
    let d = '/in';
    for (const s of parts.slice(0, -1)) { d += '/' + s; try { FS.mkdir(d); } catch (e) { /* exists */ } }
    FS.writeFile('/in/' + rel, new Uint8Array(f.bytes));
    names.push(rel);
  }
  return names;
}

const ext = (n) => (n.match(/\.[^./]+$/) || [''])[0].toLowerCase();
// NAME_NNN.vpk are a VPK's data files, read beside its NAME_dir.vpk
const isSearchPath = (n) => ['.wad', '.pk3', '.zip', '.pk4'].includes(ext(n)) || (ext(n) === '.vpk' && !/_\d\d\d\.vpk$/i.test(n));

const ops = {
  // files: [{name, bytes}], map: the file to open (a name, or 'ARCHIVE.pk3:maps/x.bsp'), flags: BK_OPT_*
  open({ files, map, flags }) {
    const t0 = performance.now();
    postMessage({ progress: 'writing ' + files.length + ' file(s)' });
    const names = writeFiles(files);
    let path = map, member = '';
    const colon = map.indexOf(':');
    if (colon > 0 && ['.pk3', '.zip', '.pk4'].includes(ext(map.slice(0, colon)))) { path = map.slice(0, colon); member = map.slice(colon + 1); }
    const paths = names.filter((n) => n !== path && isSearchPath(n)).map((n) => '/in/' + n);
    if (member) paths.push('/in/' + path);   // the map's own archive serves its textures and shaders
    paths.push('/in');                        // loose files: textures, materials, models folders
    const t1 = performance.now();
    postMessage({ progress: 'loading ' + map });
    const rc = M.ccall('bkw_open', 'number', ['string', 'string', 'string', 'number'], ['/in/' + path, member, paths.join('\n'), flags | 0]);
    if (rc !== 0) throw new Error(M.UTF8ToString(M._bkw_error()));
    const t2 = performance.now();
    postMessage({ progress: 'converting to glTF' });
    const rc2 = M._bkw_convert();
    if (rc2 !== 0) throw new Error(M.UTF8ToString(M._bkw_error()));
    const t3 = performance.now();
    const p = M._bkw_glb(), n = M._bkw_glb_size();
    const glb = M.HEAPU8.slice(p, p + n).buffer;
    M._bkw_glb_release();
    const stats = JSON.parse(M.UTF8ToString(M._bkw_stats()));
    const entities = JSON.parse(M.UTF8ToString(M._bkw_entities()));
    const t4 = performance.now();
    stats.timings = { write: t1 - t0, open: t2 - t1, convert: t3 - t2, copy: t4 - t3 };
    return { result: { stats, entities, glb }, transfer: [glb] };
  },
  list({ files, ext: e }) {
    const names = writeFiles(files);
    const out = [];
    for (const n of names)
      if (['.pk3', '.zip', '.pk4'].includes(ext(n)))
        for (const m of JSON.parse(M.ccall('bkw_list', 'string', ['string', 'string'], ['/in/' + n, e]))) out.push(n + ':' + m);
    return { result: out };
  },
  trace({ from, to, hull }) {
    return { result: JSON.parse(M.UTF8ToString(M._bkw_trace(from[0], from[1], from[2], to[0], to[1], to[2], hull | 0))) };
  },
  pvs({ pos }) {
    return { result: JSON.parse(M.UTF8ToString(M._bkw_pvs(pos[0], pos[1], pos[2]))) };
  },
  point({ pos }) {
    return { result: JSON.parse(M.UTF8ToString(M._bkw_point(pos[0], pos[1], pos[2]))) };
  },
};

onmessage = async (e) => {
  const { id, op, args } = e.data;
  try {
    await ready;
    const { result, transfer } = ops[op](args);
    postMessage({ id, ok: true, result }, transfer || []);
  } catch (err) {
    // a WebAssembly trap (a bug, out of memory) is reported as an error too; the next open
    // starts over with fresh state
    postMessage({ id, ok: false, error: String((err && err.message) || err) });
  }
};
