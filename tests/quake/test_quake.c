/* Quake 1 / GoldSrc / BSP2 / WAD3 decoder tests on the real corpus and on hostile variants.
 *
 *  - every real map loads; its lightmap sizes (extents rule) tile the lighting lump exactly:
 *    sorted by offset, each lit face's size equals the gap to the next face's offset (ericw-tools
 *    pads to 4 bytes) and the last one ends at the lump's end — an independent check of the rule;
 *  - the BSP2 remake of mp_lobby decodes to the same geometry as the BSP29 original (the light
 *    tool ran again, so light offsets differ);
 *  - hostile variants of a real map (bad lump ranges, sizes, counts, indices) fail with an error
 *    located at the right lump, element and byte offset; random corruption never crashes. */
#include <dirent.h>
#include <math.h>
#include <sys/mman.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/check.h"
#include "bspkit/quake.h"
#include "bspkit/scene.h"
#include "scene/scene_build.h"
#include "common/bk_internal.h"

static const char *g_shared;

typedef struct diag_log {
    int errors;
    char lump[32];
    int64_t index;
    uint64_t offset;
    char message[256];
} diag_log;

static void log_diag(void *user, const bk_diag *d)
{
    diag_log *l = user;
    if (d->severity != BK_SEV_ERROR) return;
    if (l->errors++ == 0) {
        snprintf(l->lump, sizeof l->lump, "%s", d->lump ? d->lump : "");
        l->index = d->index;
        l->offset = d->offset;
        snprintf(l->message, sizeof l->message, "%s", d->message);
    }
}

static uint8_t *read_all(const char *path, size_t *n)
{
    uint8_t *d = NULL;
    if (bk_read_file(path, 1u << 30, &d, n) != BK_OK) return NULL;
    return d;
}

static int cmp_u64pair(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* lit faces sorted by offset must tile the lighting lump */
static void check_lightmap_tiling(const char *name, const bk_quake_bsp *q)
{
    if (!q->lighting_size) return;
    uint64_t *v = calloc((size_t)q->face_count * 2 + 2, sizeof *v);
    uint32_t n = 0;
    uint32_t bpp = q->format == BK_FORMAT_GOLDSRC ? 3 : 1;
    for (uint32_t i = 0; i < q->face_count; i++) {
        const bk_q1_face *f = &q->faces[i];
        if (f->light_ofs < 0 || (q->texinfo[f->texinfo].flags & BK_Q1_TEX_SPECIAL)) continue;
        v[n * 2] = (uint64_t)f->light_ofs;
        v[n * 2 + 1] = (uint64_t)f->lm_size[0] * f->lm_size[1] * f->lm_styles * bpp;
        n++;
    }
    qsort(v, n, 2 * sizeof *v, cmp_u64pair);
    uint32_t exact = 0, checked = 0;
    for (uint32_t i = 0; i + 1 < n; i++) {
        if (v[i * 2] == v[i * 2 + 2]) continue;
        checked++;
        uint64_t end = v[i * 2] + v[i * 2 + 1], next = v[i * 2 + 2];
        if (end == next || ((end + 3) & ~(uint64_t)3) == next) exact++;
        else if (exact + 1 == checked) fprintf(stderr, "%s: face at %llu: size %llu, next at %llu\n", name,
                                              (unsigned long long)v[i * 2], (unsigned long long)v[i * 2 + 1],
                                              (unsigned long long)next);
    }
    CHECK(exact == checked);
    /* the GoldSrc lump (RGB) ends where the last lightmap does; BSPX RGB lighting is not used here */
    if (n && q->lighting_bpp == bpp) {
        uint64_t last = v[(n - 1) * 2] + v[(n - 1) * 2 + 1];
        CHECK(last == q->lighting_size || ((last + 3) & ~(uint64_t)3) == q->lighting_size);
    }
    printf("%s: %u lit faces, %u/%u lightmap gaps exact\n", name, n, exact, checked);
    free(v);
}

/* The next .bsp in folder d (dir its path) whose name does not start with skip: its path in path */
static const char *next_bsp(DIR *d, const char *dir, const char *skip, char *path, size_t cap)
{
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        size_t len = strlen(de->d_name);
        if (len < 5 || strcmp(de->d_name + len - 4, ".bsp") != 0 || strncmp(de->d_name, skip, strlen(skip)) == 0)
            continue;
        snprintf(path, cap, "%s/%s", dir, de->d_name);
        return de->d_name;
    }
    return NULL;
}

static void test_corpus_dir(const char *sub)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/corpus/%s", g_shared, sub);
    DIR *d = opendir(dir);
    if (!d) {
        printf("skip %s (missing)\n", dir);
        return;
    }
    char path[2048];
    const char *name;
    while ((name = next_bsp(d, dir, "unusual_quake2", path, sizeof path))) {
        bk_file *f = NULL;
        diag_log log = {0};
        bk_options opt = {0};
        opt.diag = log_diag;
        opt.diag_user = &log;
        bk_result r = bk_file_open(path, &opt, &f);
        CHECK(r == BK_OK);
        if (r != BK_OK) {
            fprintf(stderr, "%s: %s\n", path, log.message);
            continue;
        }
        const bk_quake_bsp *q = bk_file_impl(f, bk_file_format(f));
        CHECK(q != NULL);
        if (q) {
            check_lightmap_tiling(name, q);
            CHECK(q->model_count >= 1);
            /* the world's faces plus every brush model's faces cover each face at most once */
            uint64_t sum = 0;
            for (uint32_t i = 0; i < q->model_count; i++) sum += (uint64_t)q->models[i].face_count;
            CHECK(sum <= q->face_count);
        }
        /* scene: no textures, so it stays quick; every primitive index points inside */
        bk_scene *s = NULL;
        opt.flags = BK_OPT_NO_TEXTURES;
        CHECK(bk_file_build_scene(f, &opt, &s) == BK_OK);
        if (s) {
            for (uint32_t m = 0; m < s->mesh_count; m++)
                for (uint32_t p = 0; p < s->meshes[m].prim_count; p++) {
                    const bk_primitive *pr = &s->meshes[m].prims[p];
                    bool ok = pr->index_count % 3 == 0;
                    for (uint32_t k = 0; k < pr->index_count && ok; k++) ok = pr->indices[k] < pr->vertex_count;
                    CHECK(ok);
                }
            bk_scene_free(s);
        }
        bk_file_free(f);
    }
    closedir(d);
}

static void test_bsp2_matches_bsp29(void)
{
    char a[1024], b[1024];
    snprintf(a, sizeof a, "%s/corpus/quake1/bsp_tool_quake_mp_lobby.bsp", g_shared);
    snprintf(b, sizeof b, "%s/corpus/quake1/unusual_bsp2_remakequake_mp_lobby.bsp", g_shared);
    bk_file *fa = NULL, *fb = NULL;
    if (bk_file_open(a, NULL, &fa) != BK_OK || bk_file_open(b, NULL, &fb) != BK_OK) {
        CHECK(!"BSP29 / BSP2 pair loads");
        bk_file_free(fa);
        bk_file_free(fb);
        return;
    }
    CHECK(bk_file_format(fb) == BK_FORMAT_BSP2);
    CHECK(strcmp(bk_file_info(fb)->variant, "bsp2") == 0);
    const bk_quake_bsp *qa = bk_file_impl(fa, BK_FORMAT_QUAKE1), *qb = bk_file_impl(fb, BK_FORMAT_BSP2);
    CHECK(qa && qb);
    if (qa && qb) {
        CHECK(qa->face_count == qb->face_count && qa->node_count == qb->node_count && qa->leaf_count == qb->leaf_count &&
              qa->edge_count == qb->edge_count && qa->clipnode_count == qb->clipnode_count);
        bool same = true;
        for (uint32_t i = 0; same && i < qa->face_count && i < qb->face_count; i++)
            same = qa->faces[i].first_edge == qb->faces[i].first_edge && qa->faces[i].edge_count == qb->faces[i].edge_count &&
                   qa->faces[i].lm_size[0] == qb->faces[i].lm_size[0] && qa->faces[i].lm_size[1] == qb->faces[i].lm_size[1];
        CHECK(same);
        for (uint32_t i = 0; same && i < qa->node_count && i < qb->node_count; i++)
            same = qa->nodes[i].children[0] == qb->nodes[i].children[0] && qa->nodes[i].children[1] == qb->nodes[i].children[1];
        CHECK(same);
        for (uint32_t i = 0; same && i < qa->edge_count && i < qb->edge_count; i++)
            same = qa->edges[i].v[0] == qb->edges[i].v[0] && qa->edges[i].v[1] == qb->edges[i].v[1];
        CHECK(same);
    }
    bk_file_free(fa);
    bk_file_free(fb);
}

/* Blue Shift: the same GoldSrc map with its first two header entries swapped loads the same. */
static void test_bshift(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/corpus/goldsrc/dod_snowtest_test_small.bsp", g_shared);
    size_t n;
    uint8_t *d = read_all(path, &n);
    CHECK(d != NULL);
    if (!d) return;
    uint8_t *m = malloc(n);
    memcpy(m, d, n);
    uint8_t tmp[8];
    memcpy(tmp, m + 4, 8);
    memcpy(m + 4, m + 12, 8);
    memcpy(m + 12, tmp, 8);
    bk_file *a = NULL, *b = NULL;
    CHECK(bk_file_load_memory(d, n, NULL, &a) == BK_OK);
    CHECK(bk_file_load_memory(m, n, NULL, &b) == BK_OK);
    if (a && b) {
        CHECK(strcmp(bk_file_info(b)->variant, "bshift") == 0);
        CHECK(bk_file_entities(a)->count == bk_file_entities(b)->count && bk_file_entities(b)->count == 5);
        const bk_quake_bsp *qa = bk_file_impl(a, BK_FORMAT_GOLDSRC), *qb = bk_file_impl(b, BK_FORMAT_GOLDSRC);
        CHECK(qa->plane_count == qb->plane_count && qb->bshift == 1 && qa->bshift == 0);
        /* info lists the lumps in header order: planes first */
        CHECK(strcmp(bk_file_info(b)->lumps[0].name, "planes") == 0);
    }
    bk_file_free(a);
    bk_file_free(b);
    free(m);
    free(d);
}

/* 2PSB (BSP2 with 16-bit bounding boxes): rebuilt here from the BSP2 map, it must decode to the
 * same tree. Nodes and leafs shrink from 44 to 32 bytes; every other lump is copied. */
static void test_2psb(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/corpus/quake1/unusual_bsp2_remakequake_mp_lobby.bsp", g_shared);
    size_t n;
    uint8_t *d = read_all(path, &n);
    CHECK(d != NULL);
    if (!d) return;
    uint8_t *o = calloc(n + 64, 1);
    memcpy(o, "2PSB", 4);
    size_t pos = 124;
    for (int i = 0; i < 15; i++) {
        uint32_t lo = bk_rd_u32le(d + 4 + 8 * i), ll = bk_rd_u32le(d + 8 + 8 * i);
        pos = (pos + 3) & ~(size_t)3;
        uint32_t nl = ll;
        if (i == BK_Q1_LUMP_NODES || i == BK_Q1_LUMP_LEAFS) {
            nl = ll / 44 * 32;
            for (uint32_t k = 0; k < ll / 44; k++) {
                const uint8_t *s = d + lo + k * 44;
                uint8_t *t = o + pos + k * 32;
                size_t bb = i == BK_Q1_LUMP_NODES ? 12 : 8;
                memcpy(t, s, bb);
                for (int c = 0; c < 6; c++) {
                    float v = bk_rd_f32le(s + bb + 4 * c);
                    int16_t sv = (int16_t)v;
                    t[bb + 2 * c] = (uint8_t)sv;
                    t[bb + 2 * c + 1] = (uint8_t)((uint16_t)sv >> 8);
                }
                memcpy(t + bb + 12, s + bb + 24, 44 - bb - 24);
            }
        } else {
            memcpy(o + pos, d + lo, ll);
        }
        bk_wr_u32le(o + 4 + 8 * i, (uint32_t)pos);
        bk_wr_u32le(o + 8 + 8 * i, nl);
        pos += nl;
    }
    bk_file *a = NULL, *b = NULL;
    CHECK(bk_file_load_memory(d, n, NULL, &a) == BK_OK);
    CHECK(bk_file_load_memory(o, pos, NULL, &b) == BK_OK);
    if (a && b) {
        CHECK(strcmp(bk_file_info(b)->variant, "2psb") == 0);
        const bk_quake_bsp *qa = bk_file_impl(a, BK_FORMAT_BSP2), *qb = bk_file_impl(b, BK_FORMAT_BSP2);
        CHECK(qa->node_count == qb->node_count && qa->leaf_count == qb->leaf_count);
        bool same = true;
        for (uint32_t i = 0; same && i < qa->node_count; i++)
            same = qa->nodes[i].children[1] == qb->nodes[i].children[1] && qa->nodes[i].face_count == qb->nodes[i].face_count &&
                   qa->nodes[i].maxs[2] == qb->nodes[i].maxs[2];
        for (uint32_t i = 0; same && i < qa->leaf_count; i++)
            same = qa->leafs[i].marksurface_count == qb->leafs[i].marksurface_count &&
                   qa->leafs[i].contents == qb->leafs[i].contents && qa->leafs[i].mins[0] == qb->leafs[i].mins[0];
        CHECK(same);
    }
    bk_file_free(a);
    bk_file_free(b);
    free(o);
    free(d);
}

/* Quake's light range by default: the atlas as the engine keeps a luxel (light x style "m",
 * 264/256, clamped) and lit materials say lightmapScale 2 (drawn x 2, then clamped at white);
 * --overbright N bakes x 2^N into the atlas (clamped) with no scale; < 0 keeps it as stored. */
static const bk_image *find_lightmap(const bk_scene *s)
{
    for (uint32_t i = 0; s && i < s->image_count; i++)
        if (s->images[i].is_lightmap) return &s->images[i];
    return NULL;
}

/* lit materials with extras lightmapScale = "2", and those without */
static void count_scaled(const bk_scene *s, uint32_t *scaled, uint32_t *lit)
{
    *scaled = *lit = 0;
    for (uint32_t i = 0; i < s->material_count; i++) {
        if (s->materials[i].lightmap_image < 0) continue;
        (*lit)++;
        for (uint32_t k = 0; k < s->materials[i].extra_count; k++)
            if (!strcmp(s->materials[i].extras[k].key, "lightmapScale") && !strcmp(s->materials[i].extras[k].value, "2"))
                (*scaled)++;
    }
}

static void test_overbright(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/corpus/quake1/progs_dump_pd_heal.bsp", g_shared);
    bk_file *f = NULL;
    if (bk_file_open(path, NULL, &f) != BK_OK) {
        CHECK(!"pd_heal loads");
        return;
    }
    bk_options o = {0};
    o.flags = BK_OPT_NO_TEXTURES;
    bk_scene *a = NULL, *b = NULL, *c = NULL;
    CHECK(bk_scene_build(f, &o, 0, &a) == BK_OK); /* images as RGBA */
    o.overbright = -1.0f;
    CHECK(bk_scene_build(f, &o, 0, &b) == BK_OK);
    o.overbright = 1.0f;
    CHECK(bk_scene_build(f, &o, 0, &c) == BK_OK);
    const bk_image *la = find_lightmap(a), *lb = find_lightmap(b), *lc = find_lightmap(c);
    const uint8_t *pa = la ? bk_scene_pixels(a, (uint32_t)(la - a->images))->rgba : NULL;
    const uint8_t *pb = lb ? bk_scene_pixels(b, (uint32_t)(lb - b->images))->rgba : NULL;
    const uint8_t *pc = lc ? bk_scene_pixels(c, (uint32_t)(lc - c->images))->rgba : NULL;
    CHECK(la && lb && lc && la->width == lb->width && la->height == lb->height && lc->width == lb->width &&
          lc->height == lb->height);
    if (la && lb && lc && pa && pb && pc && la->width == lb->width && la->height == lb->height &&
        lc->width == lb->width && lc->height == lb->height) {
        size_t n = (size_t)la->width * la->height * 4, bad = 0, bad2 = 0, brighter = 0;
        for (size_t i = 0; i < n; i++) {
            float v = (float)pb[i] * (264.0f / 256.0f);
            unsigned want = (i % 4 == 3) ? pb[i] : (v > 255.0f ? 255u : (unsigned)(v + 0.5f));
            unsigned want2 = (i % 4 == 3) ? pb[i] : (pb[i] * 2u > 255u ? 255u : pb[i] * 2u);
            if (pa[i] != want) bad++;
            if (pc[i] != want2) bad2++;
            if (pa[i] > pb[i]) brighter++;
        }
        CHECK(bad == 0);
        CHECK(bad2 == 0);
        CHECK(brighter > 0);
    }
    uint32_t scaled, lit;
    count_scaled(a, &scaled, &lit);
    CHECK(lit > 0 && scaled == lit);
    count_scaled(b, &scaled, &lit);
    CHECK(lit > 0 && scaled == 0);
    count_scaled(c, &scaled, &lit);
    CHECK(lit > 0 && scaled == 0);
    bk_scene_free(a);
    bk_scene_free(b);
    bk_scene_free(c);
    bk_file_free(f);
}

/* ---- hostile variants ------------------------------------------------------------------------ */

static uint32_t lump_ofs(const uint8_t *d, int i) { return bk_rd_u32le(d + 4 + 8 * i); }
static uint32_t lump_len(const uint8_t *d, int i) { return bk_rd_u32le(d + 8 + 8 * i); }

/* Load a mutated copy; expect an error whose first report names lump, index and offset. */
static void expect_error(const uint8_t *orig, size_t n, void (*mutate)(uint8_t *, size_t), const char *lump,
                         int64_t index, uint64_t offset, const char *what)
{
    uint8_t *d = malloc(n);
    memcpy(d, orig, n);
    mutate(d, n);
    diag_log log = {0};
    bk_options opt = {0};
    opt.diag = log_diag;
    opt.diag_user = &log;
    bk_file *f = NULL;
    bk_result r = bk_file_load_memory(d, n, &opt, &f);
    bool ok = r != BK_OK && log.errors >= 1 && strcmp(log.lump, lump) == 0 && log.index == index &&
              (offset == BK_NO_OFFSET || log.offset == offset);
    if (!ok)
        fprintf(stderr, "hostile '%s': result %d, first error %s[%lld] @%llu: %s (want %s[%lld] @%llu)\n", what, r,
                log.lump, (long long)log.index, (unsigned long long)log.offset, log.message, lump, (long long)index,
                (unsigned long long)offset);
    CHECK(ok);
    bk_file_free(f);
    /* validate mode reports at least that and never crashes */
    uint32_t errs = 0, warns = 0;
    diag_log vlog = {0};
    opt.diag_user = &vlog;
    CHECK(bk_validate_memory(d, n, &opt, &errs, &warns) != BK_OK && errs >= 1);
    free(d);
}

/* the mutations work on a BSP29 map (vektar_bg: unaligned lumps) */
static void m_planes_out(uint8_t *d, size_t n) { bk_wr_u32le(d + 8 + 8 * 1, (uint32_t)n); }
static void m_faces_len(uint8_t *d, size_t n) { (void)n; bk_wr_u32le(d + 8 + 8 * 7, lump_len(d, 7) - 3); }
static void m_neg_ofs(uint8_t *d, size_t n) { (void)n; bk_wr_u32le(d + 4 + 8 * 12, 0x80000000u); }
static void m_face_plane(uint8_t *d, size_t n) { (void)n; d[lump_ofs(d, 7) + 20] = 0xff; d[lump_ofs(d, 7) + 21] = 0xff; }
static void m_face_edges(uint8_t *d, size_t n) { (void)n; bk_wr_u32le(d + lump_ofs(d, 7) + 4, 0x7fffffffu); }
static void m_face_texinfo(uint8_t *d, size_t n) { (void)n; d[lump_ofs(d, 7) + 10] = 0xff; d[lump_ofs(d, 7) + 11] = 0x7f; }
static void m_face_light(uint8_t *d, size_t n) { (void)n; bk_wr_u32le(d + lump_ofs(d, 7) + 16, 0x7ffffff0u); }
static void m_edge_vertex(uint8_t *d, size_t n) { (void)n; d[lump_ofs(d, 12) + 4 * 2] = 0xff; d[lump_ofs(d, 12) + 4 * 2 + 1] = 0xff; }
static void m_surfedge(uint8_t *d, size_t n) { (void)n; bk_wr_u32le(d + lump_ofs(d, 13) + 4 * 3, 0x80000000u); }
static void m_node_child(uint8_t *d, size_t n) { (void)n; d[lump_ofs(d, 5) + 4] = 0x00; d[lump_ofs(d, 5) + 5] = 0x7f; }
static void m_node_plane(uint8_t *d, size_t n) { (void)n; bk_wr_u32le(d + lump_ofs(d, 5), 100000); }
static void m_leaf_marks(uint8_t *d, size_t n) { (void)n; d[lump_ofs(d, 10) + 28 + 22] = 0xff; d[lump_ofs(d, 10) + 28 + 23] = 0xff; }
static void m_leaf_vis(uint8_t *d, size_t n) { (void)n; bk_wr_u32le(d + lump_ofs(d, 10) + 28 + 4, 0x10000000u); }
static void m_mark_face(uint8_t *d, size_t n) { (void)n; d[lump_ofs(d, 11)] = 0xff; d[lump_ofs(d, 11) + 1] = 0xff; }
static void m_texinfo_miptex(uint8_t *d, size_t n) { (void)n; bk_wr_u32le(d + lump_ofs(d, 6) + 32, 999); }
static void m_tex_count(uint8_t *d, size_t n) { (void)n; bk_wr_u32le(d + lump_ofs(d, 2), 0x7fffffffu); }
static void m_tex_ofs(uint8_t *d, size_t n) { (void)n; bk_wr_u32le(d + lump_ofs(d, 2) + 4, 0x00ffffffu); }
static void m_tex_size(uint8_t *d, size_t n)
{
    (void)n;
    uint32_t mt = lump_ofs(d, 2) + bk_rd_u32le(d + lump_ofs(d, 2) + 4);
    bk_wr_u32le(d + mt + 16, 4096);
    bk_wr_u32le(d + mt + 20, 4096);
}
static void m_clip_child(uint8_t *d, size_t n) { (void)n; d[lump_ofs(d, 9) + 4] = 0xff; d[lump_ofs(d, 9) + 5] = 0x7f; }
static void m_model_faces(uint8_t *d, size_t n) { (void)n; bk_wr_u32le(d + lump_ofs(d, 14) + 60, 1000000); }
static void m_entities(uint8_t *d, size_t n) { (void)n; d[lump_ofs(d, 0)] = '}'; }
static void m_version(uint8_t *d, size_t n) { (void)n; bk_wr_u32le(d, 31); }

static void test_hostile(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/corpus/quake1/vektar_bg.bsp", g_shared);
    size_t n;
    uint8_t *d = read_all(path, &n);
    CHECK(d != NULL);
    if (!d) return;
    uint64_t fo = lump_ofs(d, 7), eo = lump_ofs(d, 12), so = lump_ofs(d, 13), no = lump_ofs(d, 5), lo = lump_ofs(d, 10),
             mo = lump_ofs(d, 11), to = lump_ofs(d, 6), xo = lump_ofs(d, 2), co = lump_ofs(d, 9), ho = lump_ofs(d, 14);
    expect_error(d, n, m_planes_out, "planes", BK_NO_INDEX, 4 + 8 * 1, "planes lump past the end");
    expect_error(d, n, m_faces_len, "faces", BK_NO_INDEX, 4 + 8 * 7, "faces length not a multiple of 20");
    expect_error(d, n, m_neg_ofs, "edges", BK_NO_INDEX, 4 + 8 * 12, "negative lump offset");
    expect_error(d, n, m_face_plane, "faces", 1, fo + 20, "face plane index");
    expect_error(d, n, m_face_edges, "faces", 0, fo, "face first edge");
    expect_error(d, n, m_face_texinfo, "faces", 0, fo, "face texinfo");
    expect_error(d, n, m_face_light, "faces", 0, fo + 16, "face lightmap offset");
    expect_error(d, n, m_edge_vertex, "edges", 2, eo + 8, "edge vertex");
    expect_error(d, n, m_surfedge, "surfedges", 3, so + 12, "surfedge INT_MIN");
    expect_error(d, n, m_node_child, "nodes", 0, no + 4, "node child");
    expect_error(d, n, m_node_plane, "nodes", 0, no, "node plane");
    expect_error(d, n, m_leaf_marks, "leafs", 1, lo + 28, "leaf marksurfaces");
    expect_error(d, n, m_leaf_vis, "leafs", 1, lo + 28 + 4, "leaf vis offset");
    expect_error(d, n, m_mark_face, "marksurfaces", 0, mo, "marksurface face");
    expect_error(d, n, m_texinfo_miptex, "texinfo", 0, to + 32, "texinfo miptex");
    expect_error(d, n, m_tex_count, "textures", BK_NO_INDEX, xo, "huge texture count");
    expect_error(d, n, m_tex_ofs, "textures", 0, xo + 4, "miptex offset");
    expect_error(d, n, m_tex_size, "textures", 0, BK_NO_OFFSET, "miptex 4096x4096 pixels outside the lump");
    expect_error(d, n, m_clip_child, "clipnodes", 0, co + 4, "clipnode child");
    expect_error(d, n, m_model_faces, "models", 0, ho + 56, "model faces");
    expect_error(d, n, m_entities, "entities", BK_NO_INDEX, lump_ofs(d, 0), "entity text");
    expect_error(d, n, m_version, "header", BK_NO_INDEX, 0, "version 31");

    /* every truncation and a sweep of byte corruptions: never a crash, errors always located */
    uint32_t failures = 0, loads = 0;
    for (size_t cut = 0; cut < n; cut += (cut < 200 ? 1 : 97)) {
        bk_file *f = NULL;
        if (bk_file_load_memory(d, cut, NULL, &f) == BK_OK) loads++;
        else failures++;
        bk_file_free(f);
    }
    CHECK(loads == 0); /* every lump ends before the file does: any cut loses data */
    uint8_t *m = malloc(n);
    uint32_t seed = 12345;
    for (int iter = 0; iter < 3000; iter++) {
        memcpy(m, d, n);
        for (int k = 0; k < 4; k++) {
            seed = seed * 1103515245u + 12345u;
            size_t at = (seed >> 8) % n;
            seed = seed * 1103515245u + 12345u;
            m[at] = (uint8_t)(seed >> 16);
        }
        bk_file *f = NULL;
        uint32_t e, w;
        bk_validate_memory(m, n, NULL, &e, &w);
        if (bk_file_load_memory(m, n, NULL, &f) == BK_OK) {
            bk_scene *s = NULL;
            bk_options o = {0};
            if (bk_file_build_scene(f, &o, &s) == BK_OK) bk_scene_free(s);
            s = NULL;
            if (bk_file_extract_images(f, &o, &s) == BK_OK) bk_scene_free(s);
        }
        bk_file_free(f);
    }
    free(m);
    free(d);
    printf("hostile: %u truncations refused\n", failures);
}

static void test_wad(void)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/corpus/wad3/ericw_hlwad.wad", g_shared);
    size_t n;
    uint8_t *d = read_all(path, &n);
    CHECK(d != NULL);
    if (!d) return;
    bk_file *f = NULL;
    CHECK(bk_file_load_memory(d, n, NULL, &f) == BK_OK);
    const bk_wad3 *w = bk_file_impl(f, BK_FORMAT_WAD3);
    CHECK(w && w->count == 2);
    if (w && w->count) CHECK(bk_wad3_find(w, w->entries[0].name) == 0);
    bk_file_free(f);
    /* directory pointing past the end, entry past the end, WAD2 */
    uint8_t *m = malloc(n);
    memcpy(m, d, n);
    bk_wr_u32le(m + 4, 0x10000000u);
    diag_log log = {0};
    bk_options opt = {0};
    opt.diag = log_diag;
    opt.diag_user = &log;
    CHECK(bk_file_load_memory(m, n, &opt, &f) != BK_OK && strcmp(log.lump, "header") == 0);
    memcpy(m, d, n);
    uint32_t dir = bk_rd_u32le(m + 8);
    bk_wr_u32le(m + dir + 32 + 4, 0x7fffffffu);
    memset(&log, 0, sizeof log);
    CHECK(bk_file_load_memory(m, n, &opt, &f) != BK_OK && strcmp(log.lump, "directory") == 0 && log.index == 1 &&
          log.offset == dir + 32);
    memcpy(m, d, n);
    memcpy(m, "WAD2", 4);
    memset(&log, 0, sizeof log);
    CHECK(bk_file_load_memory(m, n, &opt, &f) == BK_EUNSUPPORTED && strstr(log.message, "WAD2") != NULL);
    /* corruption sweep */
    uint32_t seed = 99;
    for (int iter = 0; iter < 2000; iter++) {
        memcpy(m, d, n);
        for (int k = 0; k < 3; k++) {
            seed = seed * 1103515245u + 12345u;
            size_t at = (seed >> 8) % n;
            seed = seed * 1103515245u + 12345u;
            m[at] = (uint8_t)(seed >> 16);
        }
        f = NULL;
        if (bk_file_load_memory(m, n, NULL, &f) == BK_OK) {
            bk_scene *s = NULL;
            if (bk_file_extract_images(f, NULL, &s) == BK_OK) bk_scene_free(s);
        }
        bk_file_free(f);
    }
    free(m);
    free(d);
}

/* Lumps are read in place where their layout is the file's (planes, vertices, texinfo, surfedges,
 * models; BSP2's wide lumps): the library must never write into the input, also when it repairs a
 * bad reference in validate mode. Real maps with aligned lumps, each with one bad value, in a
 * read-only mapping (a write would crash the test): validate reports it, load and build go on. */
static void read_only_case(const char *name, const uint8_t *orig, size_t n, int lump, size_t at, const void *val,
                           size_t vn, bool expect_errors)
{
    size_t len = (n + 4095) & ~(size_t)4095;
    uint8_t *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(m != MAP_FAILED);
    if (m == MAP_FAILED) return;
    memcpy(m, orig, n);
    if (lump >= 0 && lump_len(m, lump) >= at + vn) memcpy(m + lump_ofs(m, lump) + at, val, vn);
    CHECK(mprotect(m, len, PROT_READ) == 0);
    uint32_t e = 0, w = 0;
    bk_result vr = bk_validate_memory(m, n, NULL, &e, &w);
    if (expect_errors && !(vr != BK_OK && e >= 1)) fprintf(stderr, "%s: lump %d +%zu: no error reported\n", name, lump, at);
    CHECK(expect_errors ? vr != BK_OK && e >= 1 : vr == BK_OK);
    bk_file *f = NULL;
    if (bk_file_load_memory(m, n, NULL, &f) == BK_OK) {
        bk_scene *s = NULL;
        if (bk_scene_build(f, NULL, BK_OPT_RELEASE_INPUT | BK_OPT_COMPACT_IMAGES, &s) == BK_OK) {
            uint8_t *glb = NULL;
            size_t gn = 0;
            CHECK(bk_export_glb_memory(s, NULL, &glb, &gn, NULL) == BK_OK && gn > 0);
            bk_free(glb);
            bk_scene_free(s);
        }
    }
    bk_file_free(f);
    munmap(m, len);
}

static void test_read_only_input(const char *sub)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/corpus/%s", g_shared, sub);
    DIR *dh = opendir(dir);
    if (!dh) return;
    int tested = 0;
    char path[2048];
    const char *name;
    while (tested < 3 && (name = next_bsp(dh, dir, "unusual_", path, sizeof path))) {
        size_t n;
        uint8_t *d = read_all(path, &n);
        if (!d) continue;
        bool aligned = n > 4 + 8 * 15;
        for (int i = 0; aligned && i < 15; i++) aligned = lump_ofs(d, i) % 4 == 0;
        uint32_t e = 0, w = 0;
        if (!aligned || bk_validate_memory(d, n, NULL, &e, &w) != BK_OK) {
            free(d);
            continue;
        }
        tested++;
        float nan = NAN;
        int32_t big = 0x7fffff00, neg = -5;
        read_only_case(name, d, n, -1, 0, NULL, 0, false);           /* as it is */
        read_only_case(name, d, n, 3, 12, &nan, 4, true);            /* a vertex coordinate */
        read_only_case(name, d, n, 6, 32, &big, 4, true);            /* a texinfo's miptex */
        read_only_case(name, d, n, 6, 4, &nan, 4, true);             /* a texinfo's vector */
        read_only_case(name, d, n, 13, 4, &big, 4, true);            /* a surfedge */
        read_only_case(name, d, n, 14, 56, &neg, 4, true);           /* model 0's first face */
        read_only_case(name, d, n, 1, 20, &nan, 4, true);            /* a plane's normal */
        read_only_case(name, d, n, 12, 4, &big, 4, true);            /* an edge's vertex */
        free(d);
    }
    closedir(dh);
    CHECK(tested > 0);
    printf("read-only input: %d %s maps with aligned lumps, 8 cases each\n", tested, sub);
}

int main(int argc, char **argv)
{
    g_shared = argc > 1 ? argv[1] : "../shared";
    char corpus[4096];
    snprintf(corpus, sizeof corpus, "%s/corpus", g_shared);
    DIR *probe = opendir(corpus);
    if (!probe) {
        printf("SKIP: %s missing\n", corpus);
        return 77;
    }
    closedir(probe);
    test_corpus_dir("goldsrc");
    test_corpus_dir("quake1");
    test_bsp2_matches_bsp29();
    test_bshift();
    test_overbright();
    test_2psb();
    test_hostile();
    test_read_only_input("quake1");
    test_read_only_input("goldsrc");
    test_wad();
    return CHECK_DONE();
}
