// The viewer's Web Worker: libbspkit (WebAssembly, emscripten's glue in front of this file) opens
// and converts the files the page sends, so the page never freezes. Messages in: {id, op, args};
// out: {id, ok, result | error} and {progress: TEXT} while working. The files live in the
// worker's file system under /in (WORKERFS: read from the Files on demand), where the library
// reads them as the CLI reads a disk.
/* global BspkitModule */
let M = null;
const ready = BspkitModule({ print: () => {}, printErr: () => {} }).then((m) => { M = m; });

// The files are mounted, not copied: emscripten's WORKERFS reads a File (a Blob) on demand, so
// a 100 MB .pk3 costs only the bytes the library reads from it (its directory, one map).
// WORKERFS reads every call through FileReaderSync, and the library's stdio and minizip read in
// small pieces: reads go through a cache of 1 MiB blocks (64 at most, least recently used out).
const BLOCK = 1 << 20, blocks = new Map();
let reader = null;
function cachedRead(stream, buffer, offset, length, position) {
  const node = stream.node, size = node.size;
  if (position >= size) return 0;
  const end = Math.min(size, position + length);
  let done = 0;
  while (position + done < end) {
    const p = position + done, bi = Math.floor(p / BLOCK), key = node.id + ':' + bi;
    let blk = blocks.get(key);
    if (blk) blocks.delete(key);
    else {
      reader = reader || new FileReaderSync();
      blk = new Uint8Array(reader.readAsArrayBuffer(node.contents.slice(bi * BLOCK, Math.min(size, (bi + 1) * BLOCK))));
      if (blocks.size >= 64) blocks.delete(blocks.keys().next().value);
    }
    blocks.set(key, blk);
    const o = p - bi * BLOCK, n = Math.min(end - p, blk.length - o);
    buffer.set(blk.subarray(o, o + n), offset + done);
    done += n;
  }
  return done;
}

function mountFiles(files) {
  blocks.clear();
  const FS = M.FS;
  try { FS.unmount('/in'); } catch (e) { /* not mounted */ }
  try { FS.mkdir('/in'); } catch (e) { /* exists */ }
  const blobs = [], names = [];
  for (const f of files) {
    const rel = f.name.replace(/\\/g, '/').split('/').filter((s) => s && s !== '..' && s !== '.').join('/');
    if (!rel || names.includes(rel)) continue;
    blobs.push({ name: rel, data: f.blob });
    names.push(rel);
  }
  FS.filesystems.WORKERFS.stream_ops.read = cachedRead;
  FS.mount(FS.filesystems.WORKERFS, { blobs }, '/in');
  return names;
}

const ext = (n) => (n.match(/\.[^./]+$/) || [''])[0].toLowerCase();
// NAME_NNN.vpk are a VPK's data files, read beside its NAME_dir.vpk
const isSearchPath = (n) => ['.wad', '.pk3', '.zip', '.pk4'].includes(ext(n)) || (ext(n) === '.vpk' && !/_\d\d\d\.vpk$/i.test(n));

const ops = {
  // files: [{name, blob}], map: the file to open (a name, or 'ARCHIVE.pk3:maps/x.bsp'), flags: BK_OPT_*
  open({ files, map, flags }) {
    const t0 = performance.now();
    postMessage({ progress: 'mounting ' + files.length + ' file(s)' });
    const names = mountFiles(files);
    let path = map, member = '';
    const colon = map.indexOf(':');
    if (colon > 0 && ['.pk3', '.zip', '.pk4'].includes(ext(map.slice(0, colon)))) { path = map.slice(0, colon); member = map.slice(colon + 1); }
    const paths = names.filter((n) => n !== path && isSearchPath(n)).map((n) => '/in/' + n);
    if (member) paths.push('/in/' + path);   // the map's own archive serves its textures and shaders
    // a dropped folder (a game folder: baseoa/, cstrike/) is searched as --game-dir is, then all
    for (const d of new Set(names.filter((n) => n.includes('/')).map((n) => n.split('/')[0]))) paths.push('/in/' + d);
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
    const names = mountFiles(files);
    const out = [];
    for (const n of names)
      if (['.pk3', '.zip', '.pk4'].includes(ext(n)))
        for (const m of JSON.parse(M.ccall('bkw_list', 'string', ['string', 'string'], ['/in/' + n, e]))) out.push(n + ':' + m);
    return { result: out };
  },
  // the open map's editable source (.vmf / .map), as `bspkit decompile` writes it
  decompile() {
    const p = M._bkw_decompile();
    if (!p) throw new Error(M.UTF8ToString(M._bkw_error()) || 'decompile failed');
    const n = M._bkw_decompile_size();
    const bytes = M.HEAPU8.slice(p, p + n).buffer;
    const extension = M.UTF8ToString(M._bkw_decompile_ext());
    M._bkw_decompile_release();
    return { result: { bytes, ext: extension }, transfer: [bytes] };
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
