/* bk_file_array: every decoded array of every family, described from the rows, on corpus files of
 * each family (Quake, GoldSrc, BSP2, Source with LZMA lumps and a deferred load, Quake 3, DPM):
 *  - each array's count x element size lies inside one block the library allocated (an allocator
 *    here records them all) or inside the file's own bytes, and every byte of it is read;
 *  - its fields lie inside the element, in offset order, without overlap, their names unique, and
 *    the array names unique;
 *  - the pointers and counts are those the family accessors' public structs hold;
 *  - a lump's array has the lump directory's element count (bk_file_info), where it gives one;
 *  - a deferred Source load is finished by the first call, from several threads at once;
 *  - bad arguments: BK_EINDEX past the last, BK_EARG without out, BK_EUNSUPPORTED for a WAD3;
 *  - bk_lump_bytes gives every directory entry's bytes (decompressed: its uncompressed size). */
#include <dirent.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "check.h"
#define BK_ADVANCED_API
#include "bspkit/advanced.h"
#include "bspkit/bspkit.h"
#include "bspkit/dpm.h"
#include "bspkit/q3.h"
#include "bspkit/quake.h"
#include "bspkit/source.h"

/* ---- an allocator that knows its blocks ---------------------------------------------------- */
typedef struct blk {
    size_t size;
    struct blk *next, *prev;
    size_t pad_; /* keeps the payload 16-byte aligned on 64-bit hosts */
} blk;
static blk g_blocks = {0, &g_blocks, &g_blocks, 0};
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static void *a_alloc(void *u, size_t n)
{
    (void)u;
    blk *b = malloc(sizeof *b + n);
    if (!b) return NULL;
    b->size = n;
    pthread_mutex_lock(&g_lock);
    b->next = g_blocks.next, b->prev = &g_blocks, g_blocks.next->prev = b, g_blocks.next = b;
    pthread_mutex_unlock(&g_lock);
    return b + 1;
}
static void a_free(void *u, void *p)
{
    (void)u;
    blk *b = (blk *)p - 1;
    pthread_mutex_lock(&g_lock);
    b->prev->next = b->next, b->next->prev = b->prev;
    pthread_mutex_unlock(&g_lock);
    free(b);
}
static void *a_realloc(void *u, void *p, size_t n)
{
    if (!p) return a_alloc(u, n);
    blk *old = (blk *)p - 1;
    void *q = a_alloc(u, n);
    if (!q) return NULL;
    memcpy(q, p, old->size < n ? old->size : n);
    a_free(u, p);
    return q;
}
/* whether [p, p + n) lies inside one live block or the file's bytes */
static bool inside(const bk_file *f, const uint8_t *p, uint64_t n)
{
    size_t fs;
    const uint8_t *fd = bk_file_data(f, &fs);
    if (fd && p >= fd && n <= fs && (uint64_t)(p - fd) <= fs - n) return true;
    bool ok = false;
    pthread_mutex_lock(&g_lock);
    for (blk *b = g_blocks.next; !ok && b != &g_blocks; b = b->next) {
        const uint8_t *s = (const uint8_t *)(b + 1);
        ok = p >= s && n <= b->size && (uint64_t)(p - s) <= b->size - n;
    }
    pthread_mutex_unlock(&g_lock);
    return ok;
}

static uint32_t type_size(bk_array_type t)
{
    switch (t) {
    case BK_ARRAY_U16: case BK_ARRAY_I16: return 2;
    case BK_ARRAY_U32: case BK_ARRAY_I32: case BK_ARRAY_F32: return 4;
    case BK_ARRAY_U64: return 8;
    default: return 1;
    }
}

static const bk_array_info *find(const bk_array_info *a, uint32_t n, const char *name)
{
    for (uint32_t i = 0; i < n; i++)
        if (!strcmp(a[i].name, name)) return &a[i];
    return NULL;
}
/* an array's pointer and count are the public struct's */
#define SAME(arr, name, ptr, cnt)                                                                  \
    do {                                                                                           \
        const bk_array_info *x_ = find(arr, n, name);                                              \
        CHECK(x_ != NULL);                                                                         \
        if (x_ && !(x_->count == (uint64_t)(ptr ? (cnt) : 0) && (!x_->count || x_->data == (const void *)(ptr)))) \
            fprintf(stderr, "%s: %s: %llu at %p, the struct: %llu at %p\n", path, name,             \
                    (unsigned long long)x_->count, x_->data, (unsigned long long)(cnt), (const void *)(ptr)); \
        CHECK(x_ && x_->count == (uint64_t)(ptr ? (cnt) : 0) && (!x_->count || x_->data == (const void *)(ptr))); \
    } while (0)

static int g_fams[4]; /* files checked per family: quake, q3, source, dpm */
static uint64_t g_arrays, g_bytes;

static void check_file(const char *path, bk_file *f)
{
    uint32_t n = bk_file_array_count(f);
    CHECK(n > 0);
    bk_array_info *a = calloc(n ? n : 1, sizeof *a);
    for (uint32_t i = 0; i < n; i++) {
        bk_result r = bk_file_array(f, i, &a[i]);
        if (r != BK_OK) fprintf(stderr, "%s: array %u: %s\n", path, i, bk_strerror(r));
        CHECK(r == BK_OK);
        const bk_array_info *x = &a[i];
        CHECK(x->name && *x->name && x->elem_size > 0 && x->field_count > 0 && x->field_count <= BK_ARRAY_MAX_FIELDS);
        for (uint32_t j = 0; j < i; j++) CHECK(strcmp(a[j].name, x->name) != 0);
        /* the element: fields in order, inside, apart, named once */
        uint32_t end = 0;
        for (uint32_t k = 0; k < x->field_count; k++) {
            const bk_array_field *fd = &x->fields[k];
            uint32_t sz = fd->count * type_size(fd->type);
            bool ok = fd->name && *fd->name && fd->count == fd->shape[0] * fd->shape[1] * fd->shape[2] &&
                      fd->offset >= end && fd->offset + sz <= x->elem_size;
            if (!ok) fprintf(stderr, "%s: %s.%s: offset %u, %u bytes, element %u\n", path, x->name, fd->name, fd->offset, sz, x->elem_size);
            CHECK(ok);
            end = fd->offset + sz;
            for (uint32_t j = 0; j < k; j++) CHECK(strcmp(x->fields[j].name, fd->name) != 0);
        }
        /* the data: inside the library's memory or the file, every byte readable */
        CHECK((x->count == 0) == (x->data == NULL));
        if (x->count) {
            uint64_t bytes = x->count * x->elem_size;
            bool in = inside(f, x->data, bytes);
            if (!in) fprintf(stderr, "%s: %s: %llu bytes not inside one block\n", path, x->name, (unsigned long long)bytes);
            CHECK(in);
            const uint8_t *p = x->data;
            unsigned sum = 0;
            for (uint64_t b = 0; in && b < bytes; b++) sum += p[b];
            g_bytes += bytes + (sum & 0);
        }
        /* a lump's array has the directory's element count where the element is the lump's */
        const bk_info *inf = bk_file_info(f);
        if (x->lump >= 0 && (uint32_t)x->lump < inf->lump_count && inf->lumps[x->lump].count >= 0 &&
            (!strcmp(x->name, "planes") || !strcmp(x->name, "vertices") || !strcmp(x->name, "edges") ||
             !strcmp(x->name, "surfedges") || !strcmp(x->name, "brushsides") || !strcmp(x->name, "models"))) {
            if (x->count != (uint64_t)inf->lumps[x->lump].count)
                fprintf(stderr, "%s: %s: %llu, the directory %lld\n", path, x->name, (unsigned long long)x->count,
                        (long long)inf->lumps[x->lump].count);
            CHECK(x->count == (uint64_t)inf->lumps[x->lump].count);
        }
        g_arrays++;
    }
    /* bk_lump_bytes: every directory entry's bytes, decoded where stored compressed */
    const bk_info *inf = bk_file_info(f);
    size_t fsize;
    const uint8_t *fdata = bk_file_data(f, &fsize);
    for (uint32_t i = 0; i < inf->lump_count; i++) {
        const bk_lump_info *l = &inf->lumps[i];
        const uint8_t *ld;
        size_t ln;
        bk_result r = bk_lump_bytes(f, i, &ld, &ln);
        bool ok = r == BK_OK && ln == (l->compressed ? l->uncompressed : l->length) && (ln == 0) == (ld == NULL) &&
                  (l->compressed || !ln || ld == fdata + l->offset);
        if (!ok) fprintf(stderr, "%s: lump %u (%s): %s, %zu bytes\n", path, i, l->name, bk_strerror(r), ln);
        CHECK(ok);
    }
    const uint8_t *ld;
    size_t ln;
    CHECK(bk_lump_bytes(f, inf->lump_count, &ld, &ln) == BK_EINDEX);
    bk_array_info past;
    CHECK(bk_file_array(f, n, &past) == BK_EINDEX);
    CHECK(bk_file_array(f, 0, NULL) == BK_EARG);
    /* the public structs say the same */
    const bk_quake_bsp *q = bk_quake_bsp_of(f);
    const bk_q3_map *m3 = bk_q3_map_of(f);
    const bk_source_map *s = bk_source_map_of(f);
    const bk_dpm_model *d = bk_dpm_model_of(f);
    if (q) {
        g_fams[0]++;
        SAME(a, "planes", q->planes, q->plane_count);
        SAME(a, "vertices", q->vertices, q->vertex_count);
        SAME(a, "faces", q->faces, q->face_count);
        SAME(a, "leafs", q->leafs, q->leaf_count);
        SAME(a, "edges", q->edges, q->edge_count);
        SAME(a, "marksurfaces", q->marksurfaces, q->marksurface_count);
        SAME(a, "models", q->models, q->model_count);
        SAME(a, "miptex", q->miptex, q->miptex_count);
        SAME(a, "lighting", q->lighting, q->lighting_size);
        SAME(a, "bspx", q->bspx, q->bspx_count);
    }
    if (m3) {
        g_fams[1]++;
        SAME(a, "shaders", m3->shaders, m3->shader_count);
        SAME(a, "verts", m3->verts, m3->vert_count);
        SAME(a, "indexes", m3->indexes, m3->index_count);
        SAME(a, "surfaces", m3->surfaces, m3->surface_count);
        SAME(a, "lightmaps", m3->lightmaps, m3->lightmap_count);
        SAME(a, "lightgrid", m3->grid.cells, m3->grid.cell_count);
    }
    if (s) {
        g_fams[2]++;
        SAME(a, "vertices", s->vertices, s->vertex_count);
        SAME(a, "faces", s->faces, s->face_count);
        SAME(a, "leafs", s->leafs, s->leaf_count);
        SAME(a, "dispverts", s->dispverts, s->dispvert_count);
        SAME(a, "static_props", s->static_props, s->static_prop_count);
        SAME(a, "game_lumps", s->game_lumps, s->game_lump_count);
        SAME(a, "pakfile", s->pakfile, s->pakfile_size);
    }
    if (d) {
        g_fams[3]++;
        SAME(a, "bones", d->bones, d->bone_count);
        SAME(a, "meshes", d->meshes, d->mesh_count);
        SAME(a, "frames", d->frames, d->frame_count);
    }
    free(a);
}

static int open_check(const char *path, uint32_t flags)
{
    bk_options o = {0};
    o.flags = flags;
    bk_file *f = NULL;
    if (bk_file_open(path, &o, &f) != BK_OK) return 0;
    check_file(path, f);
    bk_file_free(f);
    return 1;
}

/* files of one folder ending in ext, at most max */
static int each(const char *dir, const char *ext, int max, uint32_t flags)
{
    struct dirent **de = NULL;
    int k = scandir(dir, &de, NULL, alphasort), n = 0;
    for (int i = 0; i < k; i++) {
        size_t l = strlen(de[i]->d_name), e = strlen(ext);
        if (n < max && l >= e && !strcmp(de[i]->d_name + l - e, ext)) {
            char path[8192];
            snprintf(path, sizeof path, "%s/%s", dir, de[i]->d_name);
            n += open_check(path, flags);
        }
        free(de[i]);
    }
    free(de);
    return n;
}

/* a deferred Source load of an LZMA map: the first calls, from four threads at once, finish it */
typedef struct job { const bk_file *f; uint32_t n; int bad; } job;
static void *run(void *p)
{
    job *j = p;
    for (uint32_t i = 0; i < j->n; i++) {
        bk_array_info x;
        j->bad += bk_file_array(j->f, i, &x) != BK_OK;
    }
    return NULL;
}
static int deferred(const char *dir)
{
    DIR *dp = opendir(dir);
    int n = 0;
    struct dirent *de;
    while (dp && n < 3 && (de = readdir(dp))) {
        size_t l = strlen(de->d_name);
        if (l < 4 || strcmp(de->d_name + l - 4, ".bsp") || !strstr(de->d_name, "lzma")) continue;
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        bk_options o = {0};
        o.flags = BK_OPT_DEFER_GEOMETRY;
        bk_file *f = NULL;
        if (bk_file_open(path, &o, &f) != BK_OK) continue;
        const bk_source_map *part = bk_source_map_partial(f);
        bool was_empty = part && part->face_count == 0;
        /* the props are there at the open: reading them leaves the geometry deferred */
        int32_t sp = bk_file_array_index(f, "static_props");
        bk_array_info x;
        CHECK(sp >= 0 && bk_file_array(f, (uint32_t)sp, &x) == BK_OK);
        CHECK(x.count == part->static_prop_count && part->face_count == 0);
        CHECK(bk_file_array_index(f, "no such array") == -1);
        job j[4];
        pthread_t t[4];
        for (int k = 0; k < 4; k++) {
            j[k] = (job){f, bk_file_array_count(f), 0};
            pthread_create(&t[k], NULL, run, &j[k]);
        }
        for (int k = 0; k < 4; k++) {
            pthread_join(t[k], NULL);
            CHECK(j[k].bad == 0);
        }
        CHECK(was_empty);
        check_file(path, f); /* and then as a whole load */
        bk_file_free(f);
        n++;
    }
    if (dp) closedir(dp);
    return n;
}

int main(int argc, char **argv)
{
    bk_allocator al = {a_alloc, a_realloc, a_free, NULL, NULL};
    CHECK(bk_set_allocator(&al) == BK_OK);
    CHECK(bk_file_array_count(NULL) == 0);
    bk_array_info x;
    CHECK(bk_file_array(NULL, 0, &x) == BK_EARG);
    if (argc < 3) {
        printf("no corpus folders given\n");
        return 77;
    }
    char dir[4096];
    int files = 0;
    static const char *const shared[] = {"quake1", "goldsrc", "hexen2", "source"};
    for (size_t i = 0; i < sizeof shared / sizeof shared[0]; i++) {
        snprintf(dir, sizeof dir, "%s/corpus/%s", argv[1], shared[i]);
        files += each(dir, ".bsp", 40, 0);
    }
    snprintf(dir, sizeof dir, "%s/corpus/source", argv[1]);
    int def = deferred(dir);
    /* a WAD3 has no arrays */
    snprintf(dir, sizeof dir, "%s/corpus/wad3", argv[1]);
    DIR *dp = opendir(dir);
    struct dirent *de;
    while (dp && (de = readdir(dp))) {
        size_t l = strlen(de->d_name);
        if (l < 4 || strcasecmp(de->d_name + l - 4, ".wad")) continue;
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        bk_file *f = NULL;
        if (bk_file_open(path, NULL, &f) != BK_OK) continue;
        CHECK(bk_file_array_count(f) == 0 && bk_file_array(f, 0, &x) == BK_EUNSUPPORTED);
        bk_file_free(f);
        break;
    }
    if (dp) closedir(dp);
    static const char *const q3[] = {"oa081", "oa088", "nexuiz"};
    for (size_t i = 0; i < sizeof q3 / sizeof q3[0]; i++) {
        snprintf(dir, sizeof dir, "%s/q3/%s", argv[2], q3[i]);
        files += each(dir, ".bsp", 4, 0);
    }
    snprintf(dir, sizeof dir, "%s/dpm", argv[2]);
    files += each(dir, ".dpm", 6, 0);
    printf("%d files (%d Quake-family, %d Quake 3, %d Source, %d DPM; %d Source deferred): %llu arrays, %llu bytes read\n",
           files, g_fams[0], g_fams[1], g_fams[2], g_fams[3], def, (unsigned long long)g_arrays,
           (unsigned long long)g_bytes);
    if (files == 0) {
        printf("no corpus files under %s or %s\n", argv[1], argv[2]);
        return 77;
    }
    /* the shared corpus holds every family's maps but Quake 3's and DPM's (fetched) */
    if (g_fams[0] + g_fams[2]) CHECK(g_fams[0] >= 10 && g_fams[2] >= 5 && def >= 1);
    return CHECK_DONE();
}
