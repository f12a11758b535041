/* The page's door into libbspkit (compiled to WebAssembly by scripts/build-web): a handful of
 * functions the Web Worker (web/worker.js) calls, each over the public API only. One map at a
 * time: bkw_open loads it (its WADs, .pk3s, VPKs and folders as search paths, as --wad and
 * --game-dir do), bkw_convert makes its .glb in memory, and the queries answer in JSON. Strings
 * returned stay valid until the next call. Files live in the worker's in-memory file system
 * (Emscripten's MEMFS), where the worker wrote them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <emscripten.h>

#include <bspkit/archive.h>
#include <bspkit/bspkit.h>
#include <bspkit/decompile.h>
#include <bspkit/query.h>
#include <bspkit/scene.h>

#define API EMSCRIPTEN_KEEPALIVE

static struct {
    bk_file *file;
    uint8_t *bytes;            /* a member read from an archive (the file borrows it) */
    bk_query *query;
    char *paths_text;          /* the search paths, '\n'-separated, split in place */
    const char *paths[64];
    bk_options opt;
    char name[1024], base[1024];
    char err[2048];
    uint32_t warnings;
    uint8_t *glb;
    size_t glb_size;
    bk_export_stats st;
    bool converted;
    char *out;                 /* the last string handed out */
    char *source;              /* bkw_decompile's text, until bkw_decompile_release */
    size_t source_size;
    const char *source_ext;
} S;

static void on_diag(void *user, const bk_diag *d)
{
    (void)user;
    if (d->severity == BK_SEV_WARNING) S.warnings++;
    if (d->severity == BK_SEV_ERROR && !S.err[0]) bk_diag_format(d, S.err, sizeof S.err);
}

static void close_all(void)
{
    bk_query_free(S.query);
    bk_file_free(S.file);
    bk_free(S.bytes);
    bk_free(S.glb);
    free(S.paths_text);
    bk_free(S.out);
    bk_free(S.source);
    memset(&S, 0, sizeof S);
}

/* a string to hand out: kept until the next one */
static const char *give(char *s)
{
    bk_free(S.out);
    S.out = s;
    return s ? s : "";
}

/* a growing text buffer for the JSON answers */
typedef struct sb {
    char *p;
    size_t n, cap;
} sb;

static void sb_put(sb *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        size_t cap = (b->cap ? b->cap * 2 : 256) + n;
        char *p = bk_malloc(cap);
        if (!p) return;
        if (b->p) memcpy(p, b->p, b->n);
        bk_free(b->p);
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
}

static void sb_printf(sb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#include <stdarg.h>
static void sb_printf(sb *b, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0) sb_put(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

static void sb_str(sb *b, const char *s)
{
    sb_put(b, "\"", 1);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') sb_printf(b, "\\%c", c);
        else if (c < 0x20) sb_printf(b, "\\u%04x", c);
        else sb_put(b, (const char *)&c, 1);
    }
    sb_put(b, "\"", 1);
}

static void fail(bk_result r, const char *what)
{
    if (!S.err[0]) snprintf(S.err, sizeof S.err, "%s: error: %s", what, bk_strerror(r));
}

/* Open path (or member of the archive path, when member is not empty) with the search paths
 * (one per line) and BK_OPT_* flags. BK_OK or the result; bkw_error says why, located. */
API int bkw_open(const char *path, const char *member, const char *paths, uint32_t flags)
{
    close_all();
    S.paths_text = strdup(paths ? paths : "");
    uint32_t n = 0;
    for (char *p = S.paths_text, *nl; p && *p && n < 64; p = nl ? nl + 1 : NULL) {
        nl = strchr(p, '\n');
        if (nl) *nl = 0;
        if (*p) S.paths[n++] = p;
    }
    bool in_archive = member && *member;
    snprintf(S.name, sizeof S.name, in_archive ? "%s:%s" : "%s", path, member);
    snprintf(S.base, sizeof S.base, "%s", path);
    char *slash = strrchr(S.base, '/');
    if (slash) *slash = 0;
    else strcpy(S.base, ".");
    S.opt.name = S.name;
    S.opt.diag = on_diag;
    S.opt.flags = flags;
    S.opt.search_paths = S.paths;
    S.opt.search_path_count = n;
    S.opt.base_dir = S.base;
    bk_result r;
    if (in_archive) {
        bk_archive *a = NULL;
        r = bk_archive_open(path, &S.opt, &a);
        if (r != BK_OK) {
            fail(r, path);
            return r;
        }
        int32_t i = bk_archive_find(a, member);
        size_t size = 0;
        r = i < 0 ? BK_ENOTFOUND : bk_archive_read(a, (uint32_t)i, (uint64_t)1 << 31, &S.bytes, &size);
        bk_archive_close(a);
        if (r != BK_OK) {
            fail(r, S.name);
            return r;
        }
        r = bk_file_load_memory(S.bytes, size, &S.opt, &S.file);
    } else {
        r = bk_file_open(path, &S.opt, &S.file);
    }
    if (r != BK_OK) {
        fail(r, S.name);
        return r;
    }
    /* maps answer queries; models and WADs do not (BK_EUNSUPPORTED), which is no error */
    if (bk_query_open(S.file, &S.opt, &S.query) != BK_OK) S.query = NULL;
    S.err[0] = 0;   /* what the query refused is no error of the file's */
    return BK_OK;
}

API const char *bkw_error(void) { return S.err; }

/* The loaded file's scene as a .glb in memory (bkw_glb / bkw_glb_size), as `bspkit convert
 * FILE -o OUT.glb` writes it. */
API int bkw_convert(void)
{
    if (!S.file) return BK_EARG;
    bk_free(S.glb);
    S.glb = NULL;
    bk_scene *s = NULL;
    bk_result r = bk_file_build_scene(S.file, &S.opt, &s);
    if (r == BK_OK) r = bk_export_glb_memory(s, NULL, &S.glb, &S.glb_size, &S.st);
    if (s) S.warnings += s->warning_count;
    bk_scene_free(s);
    if (r != BK_OK) fail(r, S.name);
    S.converted = r == BK_OK;
    return r;
}

API uint8_t *bkw_glb(void) { return S.glb; }
API size_t bkw_glb_size(void) { return S.glb_size; }
/* the page has copied the .glb: give its memory back */
API void bkw_glb_release(void)
{
    bk_free(S.glb);
    S.glb = NULL;
    S.glb_size = 0;
}

/* The loaded map's editable source in memory (bkw_decompile_size bytes, NULL on failure:
 * bkw_error says why), as `bspkit decompile MAP -o OUT` writes it: .vmf for Source, .map for
 * Quake 3 (bkw_decompile_ext). Kept until bkw_decompile_release or the next open. */
API const char *bkw_decompile(void)
{
    if (!S.file) return NULL;
    bk_free(S.source);
    S.source = NULL;
    S.source_size = 0;
    S.err[0] = 0;
    bk_decompile_stats st;
    bk_result r = bk_decompile(S.file, &S.opt, BK_DECOMPILE_AUTO, &S.source, &S.source_size, &st);
    if (r != BK_OK) {
        fail(r, S.name);
        return NULL;
    }
    S.source_ext = bk_decompile_format_ext(st.format);
    return S.source;
}
API size_t bkw_decompile_size(void) { return S.source_size; }
API const char *bkw_decompile_ext(void) { return S.source_ext ? S.source_ext : ""; }
API void bkw_decompile_release(void)
{
    bk_free(S.source);
    S.source = NULL;
    S.source_size = 0;
}

/* {format, version, variant, entities, triangles, vertices, ..., counts: {...}, query: {...}} */
API const char *bkw_stats(void)
{
    if (!S.file) return "{}";
    sb b = {0};
    const bk_info *in = bk_file_info(S.file);
    sb_printf(&b, "{\"format\":\"%s\",\"version\":%d,\"variant\":", bk_format_name(in->format), in->version);
    sb_str(&b, in->variant);
    sb_printf(&b, ",\"entities\":%u,\"warnings\":%u", bk_file_entities(S.file)->count, S.warnings);
    if (S.converted)
        sb_printf(&b, ",\"triangles\":%llu,\"vertices\":%llu,\"meshes\":%u,\"primitives\":%u,\"nodes\":%u,"
                  "\"materials\":%u,\"images\":%u,\"animations\":%u,\"glbBytes\":%llu",
                  (unsigned long long)S.st.triangles, (unsigned long long)S.st.vertices, S.st.meshes,
                  S.st.primitives, S.st.nodes, S.st.materials, S.st.images, S.st.animations,
                  (unsigned long long)S.st.bytes);
    /* the game's facts from the library's version rows: the page keeps no list of its own */
    const bk_game *g = bk_file_game(S.file);
    if (g) {
        sb_printf(&b, ",\"game\":{\"eyeHeight\":%g,\"hullMin\":[%g,%g,%g],\"hullMax\":[%g,%g,%g],\"spawnClasses\":[",
                  g->eye_height, g->hull_min[0], g->hull_min[1], g->hull_min[2], g->hull_max[0], g->hull_max[1],
                  g->hull_max[2]);
        for (uint32_t i = 0; i < g->spawn_class_count; i++) {
            if (i) sb_put(&b, ",", 1);
            sb_str(&b, g->spawn_classes[i]);
        }
        sb_put(&b, "]}", 2);
    }
    sb_put(&b, ",\"counts\":{", 11);
    for (uint32_t i = 0; i < in->count_count; i++)
        sb_printf(&b, "%s\"%s\":%llu", i ? "," : "", in->counts[i].name, (unsigned long long)in->counts[i].value);
    sb_put(&b, "}", 1);
    if (S.query) {
        bk_query_info qi;
        bk_query_get_info(S.query, &qi);
        sb_printf(&b, ",\"query\":{\"models\":%u,\"leaves\":%u,\"clusters\":%u,\"faces\":%u,\"hulls\":%u}",
                  qi.model_count, qi.leaf_count, qi.cluster_count, qi.face_count, qi.hull_count);
    }
    sb_put(&b, "}", 1);
    return give(b.p);
}

/* bspkit entities --json: every pair in file order, repeated keys kept */
API const char *bkw_entities(void)
{
    if (!S.file) return "[]";
    char *out = NULL;
    if (bk_entities_to_json(bk_file_entities(S.file), &out, NULL) != BK_OK) return "[]";
    return give(out);
}

static void vec(sb *b, const char *k, const float v[3])
{
    sb_printf(b, "\"%s\":[%.9g,%.9g,%.9g]", k, (double)v[0], (double)v[1], (double)v[2]);
}

/* A point trace from a to b (hull: GoldSrc / Quake clip hull, 0 = a point; ignored elsewhere),
 * as `bspkit trace --json` answers it. */
API const char *bkw_trace(float ax, float ay, float az, float bx, float by, float bz, int hull)
{
    if (!S.query) return "{\"error\":\"not a map\"}";
    bk_query_info qi;
    bk_query_get_info(S.query, &qi);
    bk_trace_params tp;
    memset(&tp, 0, sizeof tp);
    tp.hull = qi.hull_count && hull >= 0 && (uint32_t)hull < qi.hull_count ? hull : 0;
    const float a[3] = {ax, ay, az}, e[3] = {bx, by, bz};
    bk_trace_result tr;
    bk_result r = bk_query_trace(S.query, &tp, a, e, &tr);
    sb b = {0};
    if (r != BK_OK) {
        sb_printf(&b, "{\"error\":\"%s\"}", bk_result_name(r));
        return give(b.p);
    }
    char cn[256];
    bk_contents_format(tr.contents, cn, sizeof cn);
    sb_printf(&b, "{\"fraction\":%.9g,", (double)tr.fraction);
    vec(&b, "endpos", tr.endpos);
    sb_put(&b, ",", 1);
    vec(&b, "normal", tr.normal);
    sb_printf(&b, ",\"dist\":%.9g,\"contents\":\"%s\",\"native_contents\":%d,\"startsolid\":%s,\"allsolid\":%s,"
              "\"surface\":%d,\"surface_name\":", (double)tr.dist, cn, tr.native_contents,
              tr.startsolid ? "true" : "false", tr.allsolid ? "true" : "false", tr.surface);
    const char *sn = tr.fraction < 1 ? bk_query_surface_name(S.query, tr.surface) : NULL;
    if (sn) sb_str(&b, sn);
    else sb_put(&b, "null", 4);
    sb_put(&b, "}", 1);
    return give(b.p);
}

/* Where a point is: leaf, cluster, contents, and what its cluster's PVS holds. */
API const char *bkw_point(float x, float y, float z)
{
    if (!S.query) return "{\"error\":\"not a map\"}";
    const float p[3] = {x, y, z};
    bk_point_info pi;
    bk_result r = bk_query_point(S.query, 0, p, &pi);
    sb b = {0};
    if (r != BK_OK) {
        sb_printf(&b, "{\"error\":\"%s\"}", bk_result_name(r));
        return give(b.p);
    }
    uint32_t vl = 0, vc = 0, vf = 0;
    bk_query_cluster_counts(S.query, pi.cluster, &vl, &vc);
    bk_query_visible_faces(S.query, p, NULL, 0, &vf);
    char cn[256];
    bk_contents_format(pi.contents, cn, sizeof cn);
    sb_printf(&b, "{\"leaf\":%d,\"cluster\":%d,\"area\":%d,\"contents\":\"%s\",\"visibleLeaves\":%u,"
              "\"visibleClusters\":%u,\"visibleFaces\":%u,", pi.leaf, pi.cluster, pi.area, cn, vl, vc, vf);
    vec(&b, "leafMins", pi.leaf_mins);
    sb_put(&b, ",", 1);
    vec(&b, "leafMaxs", pi.leaf_maxs);
    sb_put(&b, "}", 1);
    return give(b.p);
}

/* PVS mode: the camera's cluster and the bounds of every leaf in its PVS, as
 * {cluster, leaves, boxes: [minx, miny, minz, maxx, maxy, maxz, ...]}; with no visibility data,
 * every leaf; from inside solid (no cluster), none. */
API const char *bkw_pvs(float x, float y, float z)
{
    if (!S.query) return "{\"error\":\"not a map\"}";
    const float p[3] = {x, y, z};
    bk_point_info pi;
    sb b = {0};
    if (bk_query_point(S.query, 0, p, &pi) != BK_OK) pi.cluster = -1;
    bk_query_info qi;
    bk_query_get_info(S.query, &qi);
    uint8_t *row = NULL;
    if (qi.cluster_count && pi.cluster >= 0) {
        row = bk_malloc(bk_query_row_bytes(S.query) + 1);
        if (!row || bk_query_vis_row(S.query, BK_VIS_PVS, pi.cluster, row) != BK_OK) {
            bk_free(row);
            row = NULL;
        }
    }
    sb_printf(&b, "{\"cluster\":%d,\"boxes\":[", pi.cluster);
    uint32_t n = 0;
    bool all = qi.cluster_count == 0;
    for (uint32_t l = 0; (row || all) && l < qi.leaf_count; l++) {
        float mn[3], mx[3];
        int32_t c = -1;
        if (bk_query_leaf_bounds(S.query, (int32_t)l, mn, mx, &c) != BK_OK) continue;
        if (!all && (c < 0 || (uint32_t)c >= qi.cluster_count || !((row[c >> 3] >> (c & 7)) & 1))) continue;
        sb_printf(&b, "%s%g,%g,%g,%g,%g,%g", n++ ? "," : "", (double)mn[0], (double)mn[1], (double)mn[2],
                  (double)mx[0], (double)mx[1], (double)mx[2]);
    }
    bk_free(row);
    sb_printf(&b, "],\"leaves\":%u}", n);
    return give(b.p);
}

/* The names of an archive's entries ending in ext (".bsp": the maps of a .pk3), as a JSON array. */
API const char *bkw_list(const char *path, const char *ext)
{
    bk_archive *a = NULL;
    sb b = {0};
    sb_put(&b, "[", 1);
    if (bk_archive_open(path, NULL, &a) == BK_OK) {
        size_t el = strlen(ext);
        int k = 0;
        for (uint32_t i = 0; i < bk_archive_count(a); i++) {
            const char *nm = bk_archive_entry_at(a, i)->name;
            size_t nl = strlen(nm);
            if (nl < el || strcasecmp(nm + nl - el, ext) != 0) continue;
            if (k++) sb_put(&b, ",", 1);
            sb_str(&b, nm);
        }
        bk_archive_close(a);
    }
    sb_put(&b, "]", 1);
    return give(b.p);
}

API void bkw_close(void) { close_all(); }
