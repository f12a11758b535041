/* A Source map opened with BK_OPT_DEFER_GEOMETRY: entities, static props and the pakfile at open,
 * the geometry (and its LZMA lumps) decoded on first need, with the same result as a whole load
 * on every corpus map; a bad geometry lump fails at bk_file_complete with the located error a
 * whole load gives, leaving the geometry empty; completion from several threads at once; scenes of
 * one LZMA map from several threads at once.
 * argv[1] = shared dir. */
#include <dirent.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BK_ADVANCED_API
#include "bspkit/advanced.h"
#include "bspkit/scene.h"
#include "bspkit/source.h"
#include "../unit/check.h"

typedef struct diags {
    uint32_t errors;
    bk_diag first;
} diags;

static void on_diag(void *user, const bk_diag *d)
{
    diags *g = user;
    if (d->severity == BK_SEV_ERROR && g->errors++ == 0) g->first = *d;
}

static uint8_t *slurp(const char *path, size_t *n)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    fseek(fp, 0, SEEK_END);
    long len = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    uint8_t *d = len > 0 ? malloc((size_t)len) : NULL;
    if (d && fread(d, 1, (size_t)len, fp) != (size_t)len) {
        free(d);
        d = NULL;
    }
    fclose(fp);
    *n = d ? (size_t)len : 0;
    return d;
}

static bool same_info(const bk_info *a, const bk_info *b)
{
    if (a->count_count != b->count_count || a->lump_count != b->lump_count) return false;
    for (uint32_t i = 0; i < a->count_count; i++)
        if (strcmp(a->counts[i].name, b->counts[i].name) || a->counts[i].value != b->counts[i].value) return false;
    for (uint32_t i = 0; i < a->lump_count; i++)
        if (a->lumps[i].count != b->lumps[i].count || a->lumps[i].uncompressed != b->lumps[i].uncompressed) return false;
    return true;
}

/* one map whole and deferred: the same entities and props at open, the same map once completed */
static bool check_map(const char *path)
{
    bk_file *whole = NULL, *lazy = NULL;
    if (bk_file_open(path, NULL, &whole) != BK_OK) return false; /* a map the library refuses */
    bk_options opt = {.flags = BK_OPT_DEFER_GEOMETRY};
    CHECK(bk_file_open(path, &opt, &lazy) == BK_OK);
    if (!lazy) {
        bk_file_free(whole);
        return false;
    }
    const bk_source_map *w = bk_source_map_of(whole), *p = bk_source_map_partial(lazy);
    CHECK(w && p && bk_source_map_partial(whole) == w);
    CHECK(p->face_count == 0 && p->faces == NULL && p->plane_count == 0 && p->leaf_count == 0);
    CHECK(bk_file_entities(lazy)->count == bk_file_entities(whole)->count);
    CHECK(p->static_prop_count == w->static_prop_count && p->static_prop_name_count == w->static_prop_name_count);
    CHECK(p->static_prop_count == 0 ||
          memcmp(p->static_props, w->static_props, sizeof *p->static_props * p->static_prop_count) == 0);
    CHECK(p->pakfile_entries == w->pakfile_entries && p->detail_prop_count == w->detail_prop_count);
    /* LZMA geometry lumps are still compressed; the entities are decoded */
    for (int i = 0; i < BK_SRC_LUMP_COUNT; i++)
        if (p->lumps[i].compressed && p->lumps[i].size && i != BK_SRC_LUMP_ENTITIES && i != BK_SRC_LUMP_GAME_LUMP)
            CHECK(p->lumps[i].data == NULL);
    CHECK(bk_file_complete(lazy, NULL) == BK_OK && bk_file_complete(lazy, NULL) == BK_OK);
    CHECK(bk_source_map_of(lazy) == p && p->face_count == w->face_count && p->plane_count == w->plane_count &&
          p->leaf_count == w->leaf_count && p->cluster_count == w->cluster_count);
    CHECK(p->face_count == 0 || memcmp(p->faces, w->faces, sizeof *p->faces * p->face_count) == 0);
    CHECK(same_info(bk_file_info(lazy), bk_file_info(whole)));
    CHECK(bk_file_complete(whole, NULL) == BK_OK); /* a whole load has nothing to finish */
    bk_file_free(whole);
    bk_file_free(lazy);
    return true;
}

/* a face with a texinfo out of range: an error of the faces lump a whole load stops at */
static void check_bad_geometry(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/tf2_v20_bsp_tool_test2.bsp", dir);
    size_t n;
    uint8_t *d = slurp(path, &n);
    if (!d) return;
    uint32_t ofs = (uint32_t)d[8 + 16 * BK_SRC_LUMP_FACES] | (uint32_t)d[9 + 16 * BK_SRC_LUMP_FACES] << 8 |
                   (uint32_t)d[10 + 16 * BK_SRC_LUMP_FACES] << 16 | (uint32_t)d[11 + 16 * BK_SRC_LUMP_FACES] << 24;
    CHECK(ofs + 56 * 2 <= n);
    d[ofs + 56 + 10] = 0xff; /* face 1's texinfo (int16 at 10): 32767 */
    d[ofs + 56 + 11] = 0x7f;
    diags whole = {0}, lazy = {0};
    bk_options opt = {.name = "bad.bsp", .diag = on_diag, .diag_user = &whole};
    bk_file *f = NULL;
    bk_result rw = bk_file_load_memory(d, n, &opt, &f);
    CHECK(rw != BK_OK && f == NULL && whole.errors == 1 && strcmp(whole.first.lump, "faces") == 0 &&
          whole.first.index == 1);
    /* deferred: opens (entities and props read), fails at completion with the same report */
    opt.flags = BK_OPT_DEFER_GEOMETRY;
    opt.diag_user = &lazy;
    CHECK(bk_file_load_memory(d, n, &opt, &f) == BK_OK && lazy.errors == 0);
    if (f) {
        CHECK(bk_file_entities(f)->count > 0);
        CHECK(bk_file_complete(f, &opt) == rw && lazy.errors == 1);
        CHECK(strcmp(lazy.first.lump, whole.first.lump) == 0 && lazy.first.index == whole.first.index &&
              lazy.first.offset == whole.first.offset && strcmp(lazy.first.message, whole.first.message) == 0 &&
              strcmp(lazy.first.file, "bad.bsp") == 0);
        /* done once: the same result again, no second report; the geometry empty, never half-read */
        CHECK(bk_file_complete(f, &opt) == rw && lazy.errors == 1);
        const bk_source_map *m = bk_source_map_of(f);
        CHECK(m && m->face_count == 0 && m->faces == NULL && m->plane_count == 0 && m->planes == NULL &&
              m->vertex_count == 0 && m->edges == NULL);
        bk_scene *s = NULL;
        CHECK(bk_file_build_scene(f, NULL, &s) == rw && s == NULL);
        bk_file_free(f);
    }
    /* implicit: what needs the geometry finishes the load itself */
    opt.diag = NULL;
    CHECK(bk_file_load_memory(d, n, &opt, &f) == BK_OK);
    if (f) {
        const bk_source_map *m = bk_source_map_of(f);
        CHECK(m && m->face_count == 0 && bk_file_complete(f, NULL) == rw);
        bk_file_free(f);
    }
    free(d);
}

typedef struct racer {
    bk_file *f;
    uint32_t faces;
} racer;

static void *race(void *user)
{
    racer *r = user;
    const bk_source_map *m = bk_source_map_of(r->f);
    r->faces = m ? m->face_count : 0;
    return NULL;
}

/* completion asked for by several threads at once: done once, every thread sees it done */
static void check_threads(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/tf2c_v20_lzma_tdm_wintercastle.bsp", dir);
    bk_file *whole = NULL, *f = NULL;
    if (bk_file_open(path, NULL, &whole) != BK_OK) return;
    uint32_t want = bk_source_map_of(whole)->face_count;
    bk_file_free(whole);
    bk_options opt = {.flags = BK_OPT_DEFER_GEOMETRY};
    for (int round = 0; round < 4; round++) {
        CHECK(bk_file_open(path, &opt, &f) == BK_OK);
        if (!f) return;
        pthread_t th[4];
        racer r[4];
        for (int i = 0; i < 4; i++) {
            r[i] = (racer){f, 0};
            CHECK(pthread_create(&th[i], NULL, race, &r[i]) == 0);
        }
        for (int i = 0; i < 4; i++) {
            pthread_join(th[i], NULL);
            CHECK(r[i].faces == want && want > 0);
        }
        bk_file_free(f);
    }
}

/* a digest of what a scene builder reads from the map's LZMA lumps and the geometry around them:
 * the mesh vertices (positions, lightmap UVs), the lightmap atlas's pixels, node and light counts */
static uint64_t fnv(uint64_t h, const void *p, size_t n) /* h and the bytes' CRC-32, mixed */
{
    return (h ^ bk_crc32(p, n)) * 1099511628211u;
}

static uint64_t scene_digest(bk_scene *s)
{
    uint64_t h = 14695981039346656037u;
    uint32_t counts[4] = {s->mesh_count, s->node_count, s->light_count, s->image_count};
    h = fnv(h, counts, sizeof counts);
    for (uint32_t i = 0; i < s->mesh_count; i++)
        for (uint32_t k = 0; k < s->meshes[i].prim_count; k++) {
            const bk_primitive *p = &s->meshes[i].prims[k];
            h = fnv(h, p->position, (size_t)p->vertex_count * 12);
            if (p->uv1) h = fnv(h, p->uv1, (size_t)p->vertex_count * 8);
        }
    for (uint32_t i = 0; i < s->image_count; i++) {
        uint8_t *rgba = NULL;
        if (!s->images[i].is_lightmap || bk_scene_image_rgba(s, i, &rgba) != BK_OK) continue;
        h = fnv(h, rgba, (size_t)s->images[i].width * s->images[i].height * 4);
        bk_free(rgba);
    }
    return h;
}

typedef struct builder {
    const bk_file *f;
    int k;
    uint64_t digest;
    bk_result r;
} builder;

static const bk_options k_scene_opt = {.flags = BK_OPT_NO_TEXTURES | BK_OPT_NO_PROPS};

static void *build(void *user)
{
    builder *b = user;
    if (b->k == 0) { /* a lump reader: what it decodes stays, the builders' holds share it */
        static const int lumps[] = {BK_SRC_LUMP_LIGHTING, BK_SRC_LUMP_OVERLAYS, BK_SRC_LUMP_WORLDLIGHTS,
                                    BK_SRC_LUMP_LIGHTING_HDR};
        for (size_t i = 0; i < sizeof lumps / sizeof *lumps && b->r == BK_OK; i++) {
            const uint8_t *d;
            size_t n;
            b->r = bk_source_lump_bytes(b->f, lumps[i], &d, &n);
            if (b->r == BK_OK && n) b->digest = fnv(b->digest, d, n);
        }
        return NULL;
    }
    bk_scene *s = NULL;
    b->r = bk_file_build_scene(b->f, &k_scene_opt, &s);
    if (b->r == BK_OK) b->digest = scene_digest(s);
    bk_scene_free(s);
    return NULL;
}

/* scenes of one LZMA map built by 7 threads at once while an 8th reads the same lumps: each the
 * scene one builder alone makes (the builders decode the lighting, overlays and world lights for
 * themselves and give them back: they once freed them under each other) */
static void check_scene_threads(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/tf2c_v20_lzma_vipr_downfall.bsp", dir);
    bk_file *f = NULL;
    if (bk_file_open(path, NULL, &f) != BK_OK) return;
    bk_scene *s = NULL;
    CHECK(bk_file_build_scene(f, &k_scene_opt, &s) == BK_OK);
    uint64_t want = s ? scene_digest(s) : 0;
    bk_scene_free(s);
    bk_file_free(f);
    for (int round = 0; round < 3; round++) {
        CHECK(bk_file_open(path, NULL, &f) == BK_OK);
        if (!f) return;
        pthread_t th[8];
        builder b[8];
        for (int i = 0; i < 8; i++) {
            b[i] = (builder){f, i, 0, BK_OK};
            CHECK(pthread_create(&th[i], NULL, build, &b[i]) == 0);
        }
        for (int i = 0; i < 8; i++) {
            pthread_join(th[i], NULL);
            CHECK(b[i].r == BK_OK);
            if (i) CHECK(b[i].digest == want);
        }
        bk_file_free(f);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) return 2;
    char dir[2048];
    snprintf(dir, sizeof dir, "%s/corpus/source", argv[1]);
    DIR *dp = opendir(dir);
    if (!dp) {
        printf("SKIP: %s missing\n", dir);
        return 77;
    }
    struct dirent *de;
    uint32_t maps = 0;
    while ((de = readdir(dp))) {
        size_t l = strlen(de->d_name);
        if (l < 5 || strcmp(de->d_name + l - 4, ".bsp") != 0) continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        maps += check_map(path);
    }
    closedir(dp);
    CHECK(maps >= 20);
    check_bad_geometry(dir);
    check_threads(dir);
    check_scene_threads(dir);
    printf("%u maps\n", maps);
    return CHECK_DONE();
}
