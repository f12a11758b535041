/* bk_set_allocator: every block the library allocates goes through the installed allocator, is
 * freed through it, and nothing is left behind; an allocator that fails gives BK_ENOMEM, never a
 * crash or a leak. The allocator here puts a header with a magic word in front of each block, so
 * a block freed with free() instead of bk_free, or a foreign pointer passed to bk_free, is caught
 * (abort here, or an invalid free under ASan). One file of every family the test can find. */
#include <dirent.h>
#include <execinfo.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#define BK_ADVANCED_API
#include "bspkit/advanced.h"
#include "bspkit/archive.h"
#include "bspkit/bspkit.h"
#include "bspkit/dpm.h"
#include "bspkit/query.h"
#include "bspkit/scene.h"
#include "bspkit/source.h"
#include "bspkit/write.h"
#include "scene/scene_build.h" /* the lookahead test builds a scene */

#define MAGIC 0x6b62616c6c6f6321ull /* "!collabk" */
typedef struct hdr {
    uint64_t magic;
    uint64_t size;
    struct hdr *next, *prev;
    void *bt[8];
} hdr;
static hdr g_list = {0, 0, &g_list, &g_list, {0}};
static void link_(hdr *h) { h->next = g_list.next; h->prev = &g_list; g_list.next->prev = h; g_list.next = h; backtrace(h->bt, 8); }
static void unlink_(hdr *h) { h->prev->next = h->next; h->next->prev = h->prev; }
static void dump_live(void) { for (hdr *h = g_list.next; h != &g_list; h = h->next) { fprintf(stderr, "-- live %zu\n", (size_t)h->size); backtrace_symbols_fd(h->bt, 8, 2); } }

typedef struct counter {
    long live, allocs, frees, reallocs;
    size_t bytes, peak; /* bytes live, and the most there were since peak was last set */
    long fail_at;   /* fail the fail_at-th allocation (1-based) and every later one; 0: never */
    long bad;       /* frees of blocks this allocator did not make */
} counter;
static counter g;
/* the glTF exporter allocates on a second thread too */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

static void *t_alloc_(void *user, size_t n)
{
    counter *c = user;
    if (c->fail_at && c->allocs + 1 >= c->fail_at) return NULL;
    hdr *h = malloc(sizeof *h + n);
    if (!h) return NULL;
    h->magic = MAGIC, h->size = n;
    link_(h);
    c->allocs++, c->live++;
    c->bytes += n;
    if (c->bytes > c->peak) c->peak = c->bytes;
    return h + 1;
}

static void *t_realloc_(void *user, void *p, size_t n)
{
    counter *c = user;
    hdr *h = (hdr *)p - 1;
    if (h->magic != MAGIC) {
        c->bad++;
        abort();
    }
    if (c->fail_at && c->allocs + 1 >= c->fail_at) return NULL;
    c->allocs++, c->reallocs++;
    h->magic = 0;
    unlink_(h);
    size_t old = h->size;
    hdr *q = realloc(h, sizeof *q + n);
    if (!q) {
        h->magic = MAGIC;
        link_(h);
        return NULL;
    }
    c->bytes += n - old; /* wraps and comes back when smaller: size_t arithmetic */
    if (c->bytes > c->peak) c->peak = c->bytes;
    q->magic = MAGIC, q->size = n;
    link_(q);
    return q + 1;
}

static void t_free_(void *user, void *p)
{
    counter *c = user;
    hdr *h = (hdr *)p - 1;
    if (h->magic != MAGIC) {
        c->bad++;
        fprintf(stderr, "bk_free of a block the allocator did not make: %p\n", p);
        abort();
    }
    h->magic = 0;
    unlink_(h);
    c->live--, c->frees++;
    c->bytes -= h->size;
    free(h);
}

static void *t_alloc(void *user, size_t n)
{
    pthread_mutex_lock(&g_lock);
    void *p = t_alloc_(user, n);
    pthread_mutex_unlock(&g_lock);
    return p;
}
static void *t_realloc(void *user, void *p, size_t n)
{
    pthread_mutex_lock(&g_lock);
    void *q = t_realloc_(user, p, n);
    pthread_mutex_unlock(&g_lock);
    return q;
}
static void t_free(void *user, void *p)
{
    pthread_mutex_lock(&g_lock);
    t_free_(user, p);
    pthread_mutex_unlock(&g_lock);
}

static const bk_allocator k_alloc = {t_alloc, t_realloc, t_free, &g, NULL} /* no calloc: bk_calloc clears */;

static int file_exists(const char *p)
{
    FILE *f = fopen(p, "rb");
    if (f) fclose(f);
    return f != NULL;
}

/* first *.bsp of a folder (sorted by readdir order is enough: any real file will do) */
static int first_bsp(const char *dir, char *out, size_t cap)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    struct dirent *e;
    char best[512] = "";
    while ((e = readdir(d))) {
        size_t l = strlen(e->d_name);
        if (l > 4 && strcmp(e->d_name + l - 4, ".bsp") == 0 && (!best[0] || strcmp(e->d_name, best) < 0))
            snprintf(best, sizeof best, "%s", e->d_name);
    }
    closedir(d);
    if (!best[0]) return 0;
    snprintf(out, cap, "%s/%s", dir, best);
    return 1;
}

/* Everything the library does with one file: open, scene, every exporter, query, edit, the
 * family's own extras. Returns the first failure (BK_ENOMEM when the allocator says no). */
static bk_result exercise(const char *path, const char *work)
{
    bk_options o;
    memset(&o, 0, sizeof o);
    bk_file *f = NULL;
    bk_scene *s = NULL;
    bk_query *q = NULL;
    bk_edit *e = NULL;
    uint8_t *mem = NULL;
    size_t n = 0;
    char out[1024];
    bk_result r = bk_file_open(path, &o, &f);
    if (r == BK_OK) r = bk_file_build_scene(f, &o, &s);
    /* the pixels a program reads: a block of its own for each image */
    for (uint32_t i = 0; r == BK_OK && i < s->image_count && i < 6; i++) {
        uint8_t *px = NULL;
        if (bk_scene_image_has_pixels(s, i)) r = bk_scene_image_rgba(s, i, &px);
        bk_free(px);
    }
    if (r == BK_OK) r = bk_export_glb_memory(s, NULL, &mem, &n, NULL);
    bk_free(mem);
    mem = NULL;
    if (r == BK_OK) {
        snprintf(out, sizeof out, "%s/alloc.gltf", work);
        r = bk_export_gltf(s, NULL, out, NULL);
    }
    if (r == BK_OK) {
        snprintf(out, sizeof out, "%s/alloc.obj", work);
        r = bk_export_obj(s, NULL, out, NULL);
    }
    bk_scene_free(s);
    s = NULL;
    if (r == BK_OK && bk_file_format(f) != BK_FORMAT_DPM) {
        r = bk_query_open(f, &o, &q);
        if (r == BK_EUNSUPPORTED) r = BK_OK;
        if (r == BK_OK && q) {
            bk_point_info pi;
            float p0[3] = {0, 0, 0}, p1[3] = {64, 64, 64};
            bk_trace_params tp;
            memset(&tp, 0, sizeof tp);
            bk_trace_result tr;
            (void)bk_query_point(q, 0, p0, &pi);
            (void)bk_query_trace(q, &tp, p0, p1, &tr);
        }
        bk_query_free(q);
    }
    if (r == BK_OK && (bk_file_format(f) == BK_FORMAT_QUAKE1 || bk_file_format(f) == BK_FORMAT_GOLDSRC ||
                       bk_file_format(f) == BK_FORMAT_QUAKE3 || bk_file_format(f) == BK_FORMAT_SOURCE)) {
        r = bk_edit_begin(f, &o, &e);
        if (r == BK_OK) r = bk_edit_set_entities(e, bk_file_entities(f));
        if (r == BK_OK) r = bk_edit_save_memory(e, &mem, &n);
        bk_free(mem);
        mem = NULL;
        bk_edit_free(e);
    }
    if (r == BK_OK && bk_file_format(f) == BK_FORMAT_SOURCE) {
        bk_archive *pak = NULL;
        r = bk_archive_open_pakfile(f, &o, &pak);
        for (uint32_t i = 0; r == BK_OK && pak && i < bk_archive_count(pak) && i < 8; i++) {
            r = bk_archive_read(pak, i, UINT64_MAX, &mem, &n);
            bk_free(mem);
            mem = NULL;
        }
        bk_archive_close(pak);
    }
    if (r == BK_OK && bk_file_format(f) == BK_FORMAT_DPM) {
        r = bk_dpm_save_memory(bk_dpm_model_of(f), 0, &mem, &n, NULL);
        bk_free(mem);
        mem = NULL;
        static const char fg[] = "0 1 10 1 // idle\n1 5 15 0 // run\n";
        bk_dpm_framegroup *groups = NULL;
        uint32_t ng = 0, line = 0;
        if (r == BK_OK) r = bk_dpm_framegroups_parse(fg, sizeof fg - 1, bk_dpm_model_of(f)->frame_count, &groups, &ng, &line);
        bk_free(groups);
    }
    /* the entities as a program re-reads them: parsed from the text, the JSON flags, freed */
    const bk_entities *fe = bk_file_entities(f);
    if (r == BK_OK && f && fe->count) {
        bk_entities parsed = {0};
        uint64_t at = 0;
        static const char text[] = "{\n\"classname\" \"worldspawn\"\n\"wad\" \"a;b\"\n}\n";
        r = bk_entities_parse(text, sizeof text - 1, &parsed, &at);
        bool last[64];
        if (r == BK_OK && fe->items[0].pair_count <= 64) r = bk_kv_last(fe->items[0].pairs, fe->items[0].pair_count, last);
        bk_entities_free(&parsed);
    }
    bk_file_free(f);
    f = NULL;
    /* a conversion's way: the file goes into the scene */
    if (r == BK_OK) r = bk_file_open(path, &o, &f);
    if (r == BK_OK) r = bk_file_into_scene(f, &o, &s);
    if (r == BK_OK) r = bk_export_glb_memory(s, NULL, &mem, &n, NULL);
    bk_free(mem);
    mem = NULL;
    bk_scene_free(s);
    s = NULL;
    if (r == BK_OK) {
        char *u = bk_utf8_from_8bit("caf\xe9");
        r = u ? BK_OK : BK_ENOMEM;
        bk_free(u);
    }
    return r;
}

/* Writing a .glb file, the exporter's second thread encodes the PNGs while the geometry goes
 * out, and the images come after the geometry in the buffer: it must not run ahead holding every
 * PNG until the writer gets to them. 48 incompressible 256x256 RGBA images (12 MiB of PNG) behind
 * two million vertices: the export's extra memory stays under half the PNGs' bytes. */
static void test_png_lookahead(const char *work)
{
    bk_scene *s = bk_scene_new();
    CHECK(s != NULL);
    if (!s) return;
    enum { N = 48, W = 256 };
    uint32_t seed = 2463534242u;
    bool ok = true;
    for (int i = 0; i < N && ok; i++) {
        uint8_t *px = bk_malloc((size_t)W * W * 4);
        ok = px != NULL;
        for (size_t k = 0; ok && k < (size_t)W * W * 4; k++) {
            seed ^= seed << 13, seed ^= seed >> 17, seed ^= seed << 5;
            px[k] = (uint8_t)seed;
        }
        char name[16];
        snprintf(name, sizeof name, "noise%d", i);
        int32_t img, mat;
        ok = ok && bk_scene_add_image(s, name, W, W, px, &img) == BK_OK;
        ok = ok && bk_scene_add_material(s, name, &mat) == BK_OK;
        if (ok) s->materials[mat].base_image = img;
    }
    int32_t mesh;
    bk_primitive *p = NULL;
    uint32_t first = 0, nv = 2u << 20;
    ok = ok && bk_scene_add_mesh(s, "m", &mesh) == BK_OK &&
         bk_mesh_add_primitive(&s->meshes[mesh], 0, BK_PRIM_TRIANGLES, BK_ATTR_NORMAL, &p) == BK_OK &&
         bk_prim_add_vertices(p, nv, &first) == BK_OK;
    for (uint32_t v = 0; ok && v < nv; v++) {
        p->position[v * 3] = (float)(v % 1000), p->position[v * 3 + 1] = (float)(v / 1000), p->position[v * 3 + 2] = (float)(v % 3);
        p->normal[v * 3 + 2] = 1.0f;
    }
    for (uint32_t v = 0; ok && v + 2 < nv; v += 3) ok = bk_prim_add_triangle(p, v, v + 1, v + 2) == BK_OK;
    ok = ok && bk_scene_add_node(s, "n", -1, mesh, NULL) == BK_OK;
    CHECK(ok);
    char path[1100];
    snprintf(path, sizeof path, "%s/lookahead.glb", work);
    pthread_mutex_lock(&g_lock);
    size_t before = g.bytes;
    g.peak = g.bytes;
    pthread_mutex_unlock(&g_lock);
    bk_export_stats st;
    CHECK(ok && bk_export_gltf(s, NULL, path, &st) == BK_OK && st.images == N);
    size_t extra = g.peak - before, png = (size_t)N * W * W * 4;
    printf("export of %d noise images behind %u vertices: %zu KiB above the scene at most (PNGs: %zu KiB)\n", N, nv,
           extra >> 10, png >> 10);
    CHECK(extra < png / 2);
    remove(path);
    bk_scene_free(s);
}

int main(int argc, char **argv)
{
    const char *shared = argc > 1 ? argv[1] : "";
    const char *fetched = argc > 2 ? argv[2] : "";
    const char *work = argc > 3 ? argv[3] : (getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");

    /* bad allocators are refused; a good one is taken while nothing is live */
    bk_allocator half = {t_alloc, NULL, t_free, &g, NULL};
    CHECK(bk_set_allocator(&half) == BK_EARG);
    CHECK(bk_set_allocator(&k_alloc) == BK_OK);
    /* and refused while one of its blocks is live */
    void *blk = bk_malloc(10);
    CHECK(blk != NULL && g.live == 1);
    CHECK(bk_set_allocator(NULL) == BK_EARG);
    bk_free(blk);
    CHECK(g.live == 0);

    char files[8][1100];
    int nf = 0;
    snprintf(files[nf++], sizeof files[0], "%s/samples/bsp_tool_quake_mp_lobby.bsp", SOURCE_DIR);
    snprintf(files[nf++], sizeof files[0], "%s/tests/dpm/synth.dpm", SOURCE_DIR);
    char dir[1100];
    const char *sub[] = {"goldsrc", "source"};
    for (int i = 0; i < 2; i++) {
        snprintf(dir, sizeof dir, "%s/corpus/%s", shared, sub[i]);
        if (first_bsp(dir, files[nf], sizeof files[0])) nf++;
    }
    snprintf(dir, sizeof dir, "%s/q3/oa081", fetched);
    if (first_bsp(dir, files[nf], sizeof files[0])) nf++;

    /* a pk3's members read into blocks of the allocator, and the archive closed */
    char pk3[1100];
    snprintf(pk3, sizeof pk3, "%s/pk3/oa-pak1-maps.pk3", fetched);
    if (file_exists(pk3)) {
        long before = g.allocs;
        bk_archive *z = NULL;
        CHECK(bk_archive_open(pk3, NULL, &z) == BK_OK);
        for (uint32_t i = 0; z && i < bk_archive_count(z) && i < 4; i++) {
            uint8_t *d = NULL;
            size_t dn = 0;
            CHECK(bk_archive_read(z, i, (uint64_t)1 << 28, &d, &dn) == BK_OK && dn == bk_archive_entry_at(z, i)->size);
            bk_free(d);
        }
        bk_archive_close(z);
        CHECK(g.allocs - before > 4 && g.live == 0);
    } else {
        printf("skip: %s missing (fetch-corpus)\n", pk3);
    }

    for (int i = 0; i < nf; i++) {
        if (!file_exists(files[i])) {
            fprintf(stderr, "missing %s\n", files[i]);
            CHECK(0);
            continue;
        }
        long before = g.allocs;
        bk_result r = exercise(files[i], work);
        if (r != BK_OK) fprintf(stderr, "%s: %s\n", files[i], bk_strerror(r));
        CHECK(r == BK_OK);
        /* the work went through the allocator, and every block came back */
        CHECK(g.allocs - before > 20);
        if (g.live) fprintf(stderr, "%s: %ld blocks live after everything was freed\n", files[i], g.live);
        CHECK(g.live == 0);
    }
    CHECK(g.bad == 0);

    /* an allocator that runs out: at allocations spread through a whole run of each file in turn,
     * BK_ENOMEM (or another located failure), never a crash, never a leak */
    long failures = 0, points = 0;
    for (int i = 0; i < nf; i++) {
        long a0 = g.allocs;
        CHECK(exercise(files[i], work) == BK_OK);
        long total = g.allocs - a0, stride = total > 80 ? total / 80 : 1;
        for (long k = 1; k <= total; k += stride) {
            g.allocs = 0;
            g.fail_at = k;
            bk_result r = exercise(files[i], work);
            g.fail_at = 0;
            points++;
            if (r != BK_OK) failures++;
            if (g.live) {
                fprintf(stderr, "%s: failing allocation %ld of %ld: %ld blocks leaked (%s)\n", files[i], k, total,
                        g.live, bk_strerror(r));
                CHECK(g.live == 0);
                dump_live();
                g.live = 0;
                break;
            }
        }
        printf("%s: %ld allocations in a run\n", files[i], total);
    }
    CHECK(failures > 0);
    test_png_lookahead(work);
    CHECK(g.live == 0);
    CHECK(bk_set_allocator(NULL) == BK_OK);
    printf("%d files, %ld runs with a failing allocator, %ld of them failed cleanly\n", nf, points, failures);
    return CHECK_DONE();
}
