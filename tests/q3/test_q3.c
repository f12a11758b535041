/* Quake 3 unit tests: a hand-built IBSP (every lump) loaded, broken on purpose, tessellated and
 * queried through the public API; shader-script parsing; a real map's light grid and PVS. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "bspkit/dpm.h"
#include "bspkit/q3.h"
#include "bspkit/query.h"
#include "bspkit/scene.h"
#include "../unit/check.h"
#include "scene/scene_build.h"
#include "common/bk_internal.h"
#include "formats/q3/q3_internal.h"

/* ---- a tiny map built lump by lump ---- */
typedef struct mb {
    uint8_t lump[17][4096];
    uint32_t len[17];
} mb;

static void put_i32(mb *b, int l, int32_t v)
{
    bk_wr_u32le(b->lump[l] + b->len[l], (uint32_t)v);
    b->len[l] += 4;
}
static void put_f32(mb *b, int l, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    put_i32(b, l, (int32_t)u);
}
static void put_name(mb *b, int l, const char *s)
{
    memset(b->lump[l] + b->len[l], 0, 64);
    memcpy(b->lump[l] + b->len[l], s, strlen(s));
    b->len[l] += 64;
}
static void put_vert(mb *b, float x, float y, float z, float s, float t)
{
    int l = BK_Q3_LUMP_DRAWVERTS;
    put_f32(b, l, x); put_f32(b, l, y); put_f32(b, l, z);
    put_f32(b, l, s); put_f32(b, l, t);
    put_f32(b, l, s); put_f32(b, l, t);   /* lightmap coords */
    put_f32(b, l, 0); put_f32(b, l, 0); put_f32(b, l, 1);
    put_i32(b, l, (int32_t)0xff808080u);
}
static void put_surface(mb *b, int type, int fv, int nv, int fi, int ni, int lm, int pw, int ph)
{
    int l = BK_Q3_LUMP_SURFACES;
    int32_t h[12] = {0, -1, type, fv, nv, fi, ni, lm, 0, 0, 4, 4};
    for (int i = 0; i < 12; i++) put_i32(b, l, h[i]);
    for (int i = 0; i < 12; i++) put_f32(b, l, i == 11 ? 1.0f : 0.0f);
    put_i32(b, l, pw);
    put_i32(b, l, ph);
}

/* 1 shader, planes, 1 node -> 2 leafs in clusters 0 and 1, 1 model with a planar quad and a
 * 5x3 patch (two pieces) whose middle control row rises to z=64, a light grid sized for the
 * bounds, 1 lightmap page, vis with cluster 0 seeing 1 but not the reverse. */
static void build(mb *b)
{
    memset(b, 0, sizeof *b);
    const char ent[] = "{\n\"classname\" \"worldspawn\"\n\"gridsize\" \"64 64 128\"\n}\n{\n\"classname\" \"light\"\n}\n";
    memcpy(b->lump[0], ent, sizeof ent);
    b->len[0] = sizeof ent;
    put_name(b, BK_Q3_LUMP_SHADERS, "textures/test/wall");
    put_i32(b, BK_Q3_LUMP_SHADERS, 0);
    put_i32(b, BK_Q3_LUMP_SHADERS, 1);
    /* plane x = 0 */
    put_f32(b, BK_Q3_LUMP_PLANES, 1); put_f32(b, BK_Q3_LUMP_PLANES, 0); put_f32(b, BK_Q3_LUMP_PLANES, 0);
    put_f32(b, BK_Q3_LUMP_PLANES, 0);
    int32_t node[9] = {0, -1, -2, -128, -128, -128, 128, 128, 128};
    for (int i = 0; i < 9; i++) put_i32(b, BK_Q3_LUMP_NODES, node[i]);
    for (int lf = 0; lf < 2; lf++) {
        int32_t leaf[12] = {lf, 0, -128, -128, -128, 128, 128, 128, 0, 1, 0, 1};
        for (int i = 0; i < 12; i++) put_i32(b, BK_Q3_LUMP_LEAFS, leaf[i]);
    }
    put_i32(b, BK_Q3_LUMP_LEAFSURFACES, 0);
    put_i32(b, BK_Q3_LUMP_LEAFBRUSHES, 0);
    /* model 0: bounds -128..128 (grid 5 x 5 x 3 cells) */
    for (int i = 0; i < 3; i++) put_f32(b, BK_Q3_LUMP_MODELS, -128);
    for (int i = 0; i < 3; i++) put_f32(b, BK_Q3_LUMP_MODELS, 128);
    put_i32(b, BK_Q3_LUMP_MODELS, 0); put_i32(b, BK_Q3_LUMP_MODELS, 2);
    put_i32(b, BK_Q3_LUMP_MODELS, 0); put_i32(b, BK_Q3_LUMP_MODELS, 1);
    put_i32(b, BK_Q3_LUMP_BRUSHES, 0); put_i32(b, BK_Q3_LUMP_BRUSHES, 1); put_i32(b, BK_Q3_LUMP_BRUSHES, 0);
    put_i32(b, BK_Q3_LUMP_BRUSHSIDES, 0); put_i32(b, BK_Q3_LUMP_BRUSHSIDES, 0);
    /* quad: 4 verts, 6 indexes */
    put_vert(b, 0, 0, 0, 0, 0); put_vert(b, 64, 0, 0, 1, 0); put_vert(b, 64, 64, 0, 1, 1); put_vert(b, 0, 64, 0, 0, 1);
    int32_t idx[6] = {0, 1, 2, 0, 2, 3};
    for (int i = 0; i < 6; i++) put_i32(b, BK_Q3_LUMP_DRAWINDEXES, idx[i]);
    /* 5x3 patch: rows y = 0, 32, 64; middle row z = 64 */
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 5; c++) put_vert(b, (float)c * 32, (float)r * 32, r == 1 ? 64.0f : 0.0f, c / 4.0f, r / 2.0f);
    put_surface(b, BK_Q3_MST_PLANAR, 0, 4, 0, 6, 0, 0, 0);
    put_surface(b, BK_Q3_MST_PATCH, 4, 15, 0, 0, 0, 5, 3);
    b->len[BK_Q3_LUMP_LIGHTMAPS] = 0; /* filled in write() */
    /* light grid 5 x 5 x 3 = 75 cells: ambient 10 20 30, directed 100, direction straight up */
    for (int i = 0; i < 75; i++) {
        uint8_t *c = b->lump[BK_Q3_LUMP_LIGHTGRID] + 8 * i;
        c[0] = 10; c[1] = 20; c[2] = 30; c[3] = c[4] = c[5] = 100; c[6] = 0; c[7] = 0;
    }
    b->len[BK_Q3_LUMP_LIGHTGRID] = 75 * 8;
    /* vis: 2 clusters, 1 byte each: 0 sees {0,1}, 1 sees {1} */
    put_i32(b, BK_Q3_LUMP_VISIBILITY, 2);
    put_i32(b, BK_Q3_LUMP_VISIBILITY, 1);
    b->lump[BK_Q3_LUMP_VISIBILITY][8] = 3;
    b->lump[BK_Q3_LUMP_VISIBILITY][9] = 2;
    b->len[BK_Q3_LUMP_VISIBILITY] = 10;
}

/* Serialise; the lightmap lump (one grey page) is appended last. */
static uint8_t *write_map(const mb *b, size_t *size)
{
    size_t total = 8 + 17 * 8 + Q3_LIGHTMAP_BYTES;
    for (int i = 0; i < 17; i++) total += b->len[i];
    uint8_t *d = calloc(1, total);
    memcpy(d, "IBSP", 4);
    bk_wr_u32le(d + 4, 46);
    size_t at = 8 + 17 * 8;
    for (int i = 0; i < 17; i++) {
        uint32_t len = i == BK_Q3_LUMP_LIGHTMAPS ? Q3_LIGHTMAP_BYTES : b->len[i];
        bk_wr_u32le(d + 8 + 8 * i, (uint32_t)at);
        bk_wr_u32le(d + 12 + 8 * i, len);
        if (i == BK_Q3_LUMP_LIGHTMAPS) memset(d + at, 64, len);
        else memcpy(d + at, b->lump[i], len);
        at += len;
    }
    *size = total;
    return d;
}

/* Load (and validate: both must agree). With out, the loaded file and its bytes are handed back
 * (the file borrows them; free the file, then the bytes). */
static bk_result load_expect2(mb *b, bk_file **out, uint8_t **bytes)
{
    size_t n;
    uint8_t *d = write_map(b, &n);
    bk_file *f = NULL;
    bk_result r = bk_file_load_memory(d, n, NULL, &f);
    uint32_t e = 0, w = 0;
    bk_result rv = bk_validate_memory(d, n, NULL, &e, &w);
    CHECK((r == BK_OK) == (rv == BK_OK));
    if (out && r == BK_OK) {
        *out = f;
        *bytes = d;
        return r;
    }
    bk_file_free(f);
    free(d);
    return r;
}
static bk_result load_expect(mb *b) { return load_expect2(b, NULL, NULL); }

static void test_synthetic(const char *workdir)
{
    mb b;
    build(&b);
    if (workdir) { /* kept for the fuzzer's seeds (tests/q3/data/synthetic.bsp) */
        size_t n;
        uint8_t *d = write_map(&b, &n);
        char path[1024];
        snprintf(path, sizeof path, "%s/q3_synthetic.bsp", workdir);
        FILE *fp = fopen(path, "wb");
        if (fp) {
            fwrite(d, 1, n, fp);
            fclose(fp);
        }
        free(d);
    }
    bk_file *f = NULL;
    uint8_t *bytes = NULL;
    CHECK(load_expect2(&b, &f, &bytes) == BK_OK);
    if (!f) return;
    const bk_q3_map *m = bk_q3_map_of(f);
    CHECK(m != NULL);
    if (!m) return;
    CHECK(m->surface_count == 2 && m->patch_count == 1 && m->lightmap_count == 1);
    CHECK(m->grid.bounds[0] == 5 && m->grid.bounds[1] == 5 && m->grid.bounds[2] == 3 && m->grid.cells);
    bk_q3_light lt;
    float p[3] = {10, 20, 30};
    CHECK(bk_q3_lightgrid_sample(m, p, &lt) == BK_OK);
    CHECK(fabsf(lt.ambient[0] - 10) < 0.01f && fabsf(lt.ambient[2] - 30) < 0.01f);
    CHECK(fabsf(lt.dir[2] - 1) < 0.001f);
    float left[3] = {-10, 0, 0}, right[3] = {10, 0, 0};
    bk_query *q = NULL;
    bk_point_info at_l = {0}, at_r = {0};
    CHECK(bk_query_open(f, NULL, &q) == BK_OK && bk_query_point(q, 0, right, &at_r) == BK_OK &&
          bk_query_point(q, 0, left, &at_l) == BK_OK);
    CHECK(at_r.leaf == 0 && at_l.leaf == 1 && at_l.cluster == 1);
    CHECK(bk_query_cluster_visible(q, 0, 1) && !bk_query_cluster_visible(q, 1, 0));
    CHECK(bk_query_cluster_visible(q, -1, 0));
    bk_query_free(q);

    /* tessellation: level 4 -> (2*4+1) x (1*4+1) grid, 2*8*4 triangles, mid row at z = 32 */
    bk_q3_options q3 = {.ext.type = BK_OPTIONS_Q3, .patch_level = 4};
    bk_options o = {0};
    o.ext = &q3.ext;
    o.flags = BK_OPT_NO_TEXTURES;
    bk_scene *s = NULL;
    CHECK(bk_scene_build(f, &o, 0, &s) == BK_OK); /* images as RGBA */
    if (s) {
        uint32_t tris = 0, verts = 0, at_mid = 0;
        for (uint32_t i = 0; i < s->mesh_count; i++)
            for (uint32_t j = 0; j < s->meshes[i].prim_count; j++) {
                const bk_primitive *pr = &s->meshes[i].prims[j];
                tris += pr->index_count / 3;
                verts += pr->vertex_count;
                for (uint32_t v = 0; v < pr->vertex_count; v++)
                    if (fabsf(pr->position[v * 3 + 1] - 32) < 1e-4f && fabsf(pr->position[v * 3 + 2] - 32) < 1e-4f)
                        at_mid++;
                CHECK(pr->uv1 != NULL);
            }
        CHECK(tris == 2 + 2 * 8 * 4);
        CHECK(verts == 4 + 9 * 5);
        CHECK(at_mid == 9); /* the whole middle grid row, both pieces, at the curve's height */
        CHECK(s->image_count == 1 && s->images[0].is_lightmap);
        /* overbright 1 (default): 64 -> 128 */
        CHECK(s->image_count == 1 && s->images[0].width >= 128 && bk_scene_pixels(s, 0)->rgba[0] == 128);
        bk_scene_free(s);
    }
    /* bk_options.ext: the Quake 3 options found behind another family's, the first of two read
     * (level 2: 2*4*2 patch triangles); a cycle in the chain is followed no further than 64 */
    bk_dpm_options other = {.ext.type = BK_OPTIONS_DPM};
    bk_q3_options q3b = {.ext.type = BK_OPTIONS_Q3, .patch_level = 7};
    q3.patch_level = 2;
    other.ext.next = &q3.ext;
    q3.ext.next = &q3b.ext;
    o.ext = &other.ext;
    for (int pass = 0; pass < 2; pass++) {
        s = NULL;
        CHECK(bk_scene_build(f, &o, 0, &s) == BK_OK);
        uint32_t tris = 0;
        for (uint32_t i = 0; s && i < s->mesh_count; i++)
            for (uint32_t j = 0; j < s->meshes[i].prim_count; j++) tris += s->meshes[i].prims[j].index_count / 3;
        CHECK(tris == (pass == 0 ? 2 + 2 * 4 * 2 : 2 + 2 * 8 * 4)); /* pass 1: no Quake 3 options: 4 */
        bk_scene_free(s);
        /* pass 1: a chain of DPM options pointing at itself */
        other.ext.next = &other.ext;
    }
    bk_file_free(f);
    free(bytes);
}

static void test_broken(void)
{
    mb b;
    /* an index outside its surface's vertices */
    build(&b);
    bk_wr_u32le(b.lump[BK_Q3_LUMP_DRAWINDEXES] + 8, 4);
    CHECK(load_expect(&b) == BK_EINDEX);
    /* an even patch width */
    build(&b);
    bk_wr_u32le(b.lump[BK_Q3_LUMP_SURFACES] + 104 + 96, 4);
    CHECK(load_expect(&b) == BK_EFORMAT);
    /* a lightmap page past the lump */
    build(&b);
    bk_wr_u32le(b.lump[BK_Q3_LUMP_SURFACES] + 28, 7);
    CHECK(load_expect(&b) == BK_EINDEX);
    /* surface vertices past the vertex lump (hostile count) */
    build(&b);
    bk_wr_u32le(b.lump[BK_Q3_LUMP_SURFACES] + 16, 0x7fffffff);
    CHECK(load_expect(&b) == BK_EINDEX);
    /* shader index */
    build(&b);
    bk_wr_u32le(b.lump[BK_Q3_LUMP_SURFACES], 1);
    CHECK(load_expect(&b) == BK_EINDEX);
    /* node child leaf */
    build(&b);
    bk_wr_u32le(b.lump[BK_Q3_LUMP_NODES] + 8, (uint32_t)-9);
    CHECK(load_expect(&b) == BK_EINDEX);
    /* vis claims more than it holds */
    build(&b);
    bk_wr_u32le(b.lump[BK_Q3_LUMP_VISIBILITY], 100000);
    bk_wr_u32le(b.lump[BK_Q3_LUMP_VISIBILITY] + 4, 100000);
    CHECK(load_expect(&b) == BK_ETRUNCATED);
    /* lump size not a multiple of its entry */
    build(&b);
    b.len[BK_Q3_LUMP_MODELS] -= 4;
    CHECK(load_expect(&b) == BK_ELUMP_SIZE);
    /* surface type 5 is ET's foliage: unknown in v46 */
    build(&b);
    bk_wr_u32le(b.lump[BK_Q3_LUMP_SURFACES] + 8, 5);
    CHECK(load_expect(&b) == BK_EFORMAT);
    /* leaf brush range */
    build(&b);
    bk_wr_u32le(b.lump[BK_Q3_LUMP_LEAFS] + 44, 2);
    CHECK(load_expect(&b) == BK_EINDEX);
    /* light grid of the wrong size: a warning, the grid unusable */
    build(&b);
    b.len[BK_Q3_LUMP_LIGHTGRID] -= 8;
    bk_file *f = NULL;
    uint8_t *bytes = NULL;
    CHECK(load_expect2(&b, &f, &bytes) == BK_OK);
    if (f) {
        const bk_q3_map *m = bk_q3_map_of(f);
        bk_q3_light lt;
        float p[3] = {0, 0, 0};
        CHECK(m->grid.cells == NULL && m->grid.cell_count == 74 && m->grid.expected_cells == 75);
        CHECK(bk_q3_lightgrid_sample(m, p, &lt) == BK_ENOTFOUND);
        bk_file_free(f);
        free(bytes);
    }
}

static void test_shaders(void)
{
    const char txt[] =
        "// comment\ntextures/a/sky\n{\n surfaceparm sky\n skyparms env/x - -\n}\n"
        "textures/a/grate\n{\n cull none /* c */\n {\n map $lightmap\n }\n {\n map textures/a/grate.tga\n"
        "  alphaFunc GE128\n }\n}\n"
        "textures/a/anim { { animMap 2 textures/a/f1.tga textures/a/f2.tga\n blendfunc blend\n } }\n"
        "textures/a/ed\n{\n qer_editorimage textures/a/ed_e.jpg\n { map $whiteimage } }\n"
        "textures/a/sky { broken second definition }\n";
    q3_shader_lib lib = {0};
    CHECK(bk_q3_shaders_parse(&lib, txt, sizeof txt - 1) == BK_OK);
    const q3_shader_def *d = bk_q3_shaders_find(&lib, "TEXTURES/A/SKY");
    CHECK(d && d->sky && d->unlit && d->image && strcmp(d->image, "env/x_ft") == 0);
    d = bk_q3_shaders_find(&lib, "textures/a/grate");
    CHECK(d && d->two_sided && d->alpha_test && d->image && strcmp(d->image, "textures/a/grate.tga") == 0);
    d = bk_q3_shaders_find(&lib, "textures/a/anim");
    CHECK(d && d->blend && d->image && strcmp(d->image, "textures/a/f1.tga") == 0);
    d = bk_q3_shaders_find(&lib, "textures/a/ed");
    CHECK(d && d->image && strcmp(d->image, "textures/a/ed_e.jpg") == 0);
    CHECK(bk_q3_shaders_find(&lib, "textures/a/none") == NULL);
    bk_q3_shaders_free(&lib);
    /* garbage never fails */
    const char junk[] = "}}}{{{ \" unterminated\n /* open comment";
    CHECK(bk_q3_shaders_parse(&lib, junk, sizeof junk - 1) == BK_OK);
    bk_q3_shaders_free(&lib);
    /* the engine's base stage: an environment-mapped stage is not the texture; lightmap and
     * additive stages are noted */
    const char stages[] = "textures/a/xlight\n{\n{\nmap textures/a/env.tga\ntcGen environment\n}\n"
                          "{\nmap textures/a/xlight.tga\nblendFunc filter\n}\n{\nmap $lightmap\n}\n}\n"
                          "textures/a/flame\n{\n{\nmap textures/a/flame.tga\nblendFunc GL_ONE GL_ONE\n}\n}\n";
    CHECK(bk_q3_shaders_parse(&lib, stages, sizeof stages - 1) == BK_OK);
    d = bk_q3_shaders_find(&lib, "textures/a/xlight");
    CHECK(d && d->image && strcmp(d->image, "textures/a/xlight.tga") == 0 && d->lightmap_stage && d->stages == 3);
    d = bk_q3_shaders_find(&lib, "textures/a/flame");
    CHECK(d && d->additive && !d->lightmap_stage && d->stages == 1);
    bk_q3_shaders_free(&lib);
    /* the stages as the engine reads them: sources, blend factors, generators, sky and fog */
    const char full[] =
        "textures/a/full\n{\n{\nmap $lightmap\n}\n{\nmap textures/a/t.tga\nblendFunc GL_DST_COLOR GL_SRC_COLOR\n"
        "tcMod scale 4 2\ndetail\nrgbGen const ( 0.5 0.25 1 )\n}\n{\nclampMap textures/a/g.tga\nblendFunc add\n"
        "rgbGen wave sawtooth 0 1 0 1\nalphaGen const 0.5\n}\n{\nmap $whiteimage\nrgbGen vertex\nalphaFunc GT0\n"
        "tcGen environment\n}\n}\n"
        "textures/a/sky2\n{\nskyParms env/box 0 env/near\n{\nmap textures/a/c.tga\nblendFunc blend\n}\n}\n"
        "textures/a/fog\n{\nsurfaceparm fog\nfogparms ( 0.5 0.25 0 ) 300\n}\n";
    CHECK(bk_q3_shaders_parse(&lib, full, sizeof full - 1) == BK_OK);
    d = bk_q3_shaders_find(&lib, "textures/a/full");
    CHECK(d && d->stage_count == 4 && d->lightmap_stage && d->lighting);
    if (d && d->stage_count == 4) {
        const q3_stage *st = d->stage;
        CHECK(st[0].src == Q3_SRC_LIGHTMAP && !st[0].blended);
        CHECK(st[1].src == Q3_SRC_IMAGE && strcmp(st[1].image, "textures/a/t.tga") == 0 && st[1].blended &&
              st[1].bsrc == Q3_BF_DST_COLOR && st[1].bdst == Q3_BF_SRC_COLOR && st[1].tc_scale[0] == 4 &&
              st[1].tc_scale[1] == 2 && st[1].detail && st[1].rgb[1] == 0.25f);
        CHECK(st[2].clamp && st[2].bsrc == Q3_BF_ONE && st[2].bdst == Q3_BF_ONE && st[2].rgb[0] == 0.5f &&
              st[2].alpha == 0.5f);
        CHECK(st[3].src == Q3_SRC_WHITE && st[3].rgbgen == Q3_GEN_VERTEX && st[3].alpha_func == Q3_AF_GT0 &&
              st[3].tcgen == Q3_TC_ENVIRONMENT);
    }
    d = bk_q3_shaders_find(&lib, "textures/a/sky2");
    CHECK(d && d->has_skyparms && d->sky && d->farbox && strcmp(d->farbox, "env/box") == 0 && d->cloud_height == 0 &&
          d->nearbox && strcmp(d->nearbox, "env/near") == 0 && d->stage_count == 1 && d->stage[0].blended);
    d = bk_q3_shaders_find(&lib, "textures/a/fog");
    CHECK(d && d->has_fogparms && d->fog_color[1] == 0.25f && d->fog_distance == 300 && d->stage_count == 0);
    bk_q3_shaders_free(&lib);
    /* a stray word before a shader's name must not cost that shader */
    const char stray[] = "stray\ntextures/a/after\n{\n{\nmap textures/a/after.tga\n}\n}\n";
    CHECK(bk_q3_shaders_parse(&lib, stray, sizeof stray - 1) == BK_OK);
    d = bk_q3_shaders_find(&lib, "textures/a/after");
    CHECK(d && d->image && strcmp(d->image, "textures/a/after.tga") == 0);
    bk_q3_shaders_free(&lib);
}

/* the sample script in tests/q3/data (also a fuzz seed) */
static void test_sample_script(void)
{
    FILE *fp = fopen(BK_Q3_DATA "/sample.shader", "rb");
    CHECK(fp != NULL);
    if (!fp) return;
    char buf[4096];
    size_t n = fread(buf, 1, sizeof buf, fp);
    fclose(fp);
    q3_shader_lib lib = {0};
    CHECK(bk_q3_shaders_parse(&lib, buf, n) == BK_OK && lib.count == 3);
    const q3_shader_def *d = bk_q3_shaders_find(&lib, "textures/bk/sky");
    CHECK(d && d->sky && d->image && strcmp(d->image, "textures/bk/clouds.tga") == 0);
    d = bk_q3_shaders_find(&lib, "textures/bk/grate");
    CHECK(d && d->two_sided && d->alpha_test && !d->blend && strcmp(d->image, "textures/bk/grate.tga") == 0);
    d = bk_q3_shaders_find(&lib, "textures/bk/glass");
    CHECK(d && d->blend && strcmp(d->image, "textures/bk/glass1.jpg") == 0);
    bk_q3_shaders_free(&lib);
}

typedef struct diag_log {
    int lightmap_warnings;
    int64_t last_index;
} diag_log;

static void collect_diag(void *user, const bk_diag *d)
{
    diag_log *l = user;
    if (d->severity == BK_SEV_WARNING && d->lump && strcmp(d->lump, "lightmaps") == 0 &&
        strstr(d->message, "max_atlas_size")) {
        l->lightmap_warnings++;
        l->last_index = d->index;
    }
}

static void test_real(const char *fetched)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/q3/oa081/dm4ish.bsp", fetched);
    bk_file *f = NULL;
    if (bk_file_open(path, NULL, &f) != BK_OK) {
        printf("real map not available: %s (skipped)\n", path);
        return;
    }
    const bk_q3_map *m = bk_q3_map_of(f);
    CHECK(m && m->grid.cells && m->vis && m->cluster_count > 0);
    bk_query *q = NULL;
    CHECK(bk_query_open(f, NULL, &q) == BK_OK);
    /* every player start is inside the world, in a cluster that sees itself, with some light */
    const bk_entities *es = bk_file_entities(f);
    uint32_t starts = 0;
    for (uint32_t i = 0; i < es->count; i++) {
        const char *cn = bk_entity_get(&es->items[i], "classname");
        const char *org = bk_entity_get(&es->items[i], "origin");
        float p[3];
        if (!cn || !org || strncmp(cn, "info_player", 11) != 0 || sscanf(org, "%f %f %f", &p[0], &p[1], &p[2]) != 3)
            continue;
        starts++;
        bk_point_info pi = {0};
        CHECK(q && bk_query_point(q, 0, p, &pi) == BK_OK);
        int32_t c = pi.cluster;
        CHECK(c >= 0 && c < m->cluster_count);
        CHECK(bk_query_cluster_visible(q, c, c));
        bk_q3_light lt;
        CHECK(bk_q3_lightgrid_sample(m, p, &lt) == BK_OK);
        CHECK(lt.ambient[0] + lt.ambient[1] + lt.ambient[2] + lt.directed[0] > 0);
    }
    CHECK(starts > 0);
    bk_query_free(q);

    /* a scene builder's problems arrive as located diagnostics: pages larger than the atlas
     * allows are each named by their lightmap index (they were a bare count before) */
    diag_log dl = {0};
    bk_options o;
    memset(&o, 0, sizeof o);
    o.limits.max_atlas_size = 64;
    o.diag = collect_diag;
    o.diag_user = &dl;
    bk_scene *s = NULL;
    CHECK(bk_file_build_scene(f, &o, &s) == BK_OK && s);
    if (s) printf("dm4ish with a 64-pixel atlas: %d lightmap warnings of %u\n", dl.lightmap_warnings, s->warning_count);
    CHECK(dl.lightmap_warnings > 0 && s && s->warning_count >= (uint32_t)dl.lightmap_warnings);
    CHECK(dl.last_index >= 0);
    bk_scene_free(s);

    /* a conversion's atlas PNG is deflated on a second thread while the geometry is built and
     * written (BK_OPT_RELEASE_INPUT): the glTF is the same as without, to a file and in memory, at
     * the default level (the thread's PNG) and at another (the exporter's own) */
    bk_scene *plain = NULL, *bg = NULL;
    CHECK(bk_file_build_scene(f, NULL, &plain) == BK_OK);
    CHECK(bk_scene_build(f, NULL, BK_OPT_COMPACT_IMAGES | BK_OPT_RELEASE_INPUT, &bg) == BK_OK);
    if (plain && bg) {
        CHECK(bg->image_count == plain->image_count && bg->image_count > 0 &&
              bk_scene_pixels(bg, 0)->packing == BK_PACK_RGB_UP);
        for (int level = 0; level <= 1; level++) {
            bk_export_options xo;
            memset(&xo, 0, sizeof xo);
            xo.png_level = level;
            uint8_t *a = NULL, *b = NULL;
            size_t an = 0, bn = 0;
            CHECK(bk_export_glb_memory(plain, &xo, &a, &an, NULL) == BK_OK);
            CHECK(bk_export_glb_memory(bg, &xo, &b, &bn, NULL) == BK_OK);
            CHECK(a && b && an == bn && memcmp(a, b, an) == 0);
            /* to a file (the PNG viewed where it lies, its place filled in after): the same too */
            char out[2][64];
            uint8_t *fb[2] = {NULL, NULL};
            size_t fn[2] = {0, 0};
            for (int k = 0; k < 2; k++) {
                snprintf(out[k], sizeof out[k], "q3_unit_bg_%d_%d.glb", level, k);
                CHECK(bk_export_gltf(k ? bg : plain, &xo, out[k], NULL) == BK_OK);
                CHECK(bk_read_file(out[k], 1u << 30, &fb[k], &fn[k]) == BK_OK);
                remove(out[k]);
            }
            CHECK(fb[0] && fb[1] && fn[0] == fn[1] && fn[0] > an / 2 && memcmp(fb[0], fb[1], fn[0]) == 0);
            bk_free(fb[0]);
            bk_free(fb[1]);
            bk_free(a);
            bk_free(b);
        }
        /* with a second processor there is a thread's PNG, and it is what the exporter makes of
         * the rows; without build, none */
        const uint8_t *png = NULL;
        size_t pn = 0;
        CHECK(*bk_scene_png_job(plain) == NULL);
        if (bk_cpu_count() > 1) {
            bk_buf mine = {0};
            CHECK(bk_png_bg_get(bg, 0, &png, &pn) && bk_png_encode_image(bg, 0, 0, &mine) == BK_OK &&
                  mine.size == pn && memcmp(mine.data, png, pn) == 0);
            bk_buf_free(&mine);
        }
    }
    bk_scene_free(plain);
    bk_scene_free(bg);
    bk_file_free(f);
}

/* Most lumps are read in place (their layout is the file's): the library must never write into
 * the input. A real map in a read-only mapping (a write would crash the test), as it is and with a
 * bad vertex, surface and brush side: validate reports the bad ones, load, queries and a scene with
 * its glTF go on as usual; the arrays are the file's own bytes. */
static void test_read_only(const char *fetched)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/q3/oa081/dm4ish.bsp", fetched);
    uint8_t *d = NULL;
    size_t n = 0;
    if (bk_read_file(path, 1u << 30, &d, &n) != BK_OK) return;
    size_t len = (n + 4095) & ~(size_t)4095;
    for (int c = 0; c < 4; c++) {
        uint8_t *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        CHECK(m != MAP_FAILED);
        if (m == MAP_FAILED) break;
        memcpy(m, d, n);
        float nan = NAN;
        int32_t big = 0x7fffff00;
        uint32_t vo = bk_rd_u32le(m + 8 + 8 * BK_Q3_LUMP_DRAWVERTS), so = bk_rd_u32le(m + 8 + 8 * BK_Q3_LUMP_SURFACES),
                 bo = bk_rd_u32le(m + 8 + 8 * BK_Q3_LUMP_BRUSHSIDES);
        if (c == 1) memcpy(m + vo + 4, &nan, 4);  /* vertex 0's y */
        if (c == 2) memcpy(m + so + 12, &big, 4); /* surface 0's first vertex */
        if (c == 3) memcpy(m + bo, &big, 4);      /* brush side 0's plane */
        CHECK(mprotect(m, len, PROT_READ) == 0);
        uint32_t e = 0, w = 0;
        bk_result vr = bk_validate_memory(m, n, NULL, &e, &w);
        CHECK(c == 0 ? vr == BK_OK : vr != BK_OK && e >= 1);
        bk_file *f = NULL;
        if (bk_file_load_memory(m, n, NULL, &f) == BK_OK) {
            const bk_q3_map *q = bk_q3_map_of(f);
            CHECK(c == 0 && q && (const uint8_t *)q->verts == m + vo && (const uint8_t *)q->surfaces == m + so);
            bk_query *qq = NULL;
            bk_point_info pi;
            float p[3] = {0, 0, 0};
            if (bk_query_open(f, NULL, &qq) == BK_OK) (void)bk_query_point(qq, 0, p, &pi);
            bk_query_free(qq);
            bk_scene *s = NULL;
            CHECK(bk_scene_build(f, NULL, BK_OPT_RELEASE_INPUT | BK_OPT_COMPACT_IMAGES, &s) == BK_OK);
            uint8_t *glb = NULL;
            size_t gn = 0;
            CHECK(s && bk_export_glb_memory(s, NULL, &glb, &gn, NULL) == BK_OK && gn > 0);
            bk_free(glb);
            bk_scene_free(s);
        }
        bk_file_free(f);
        munmap(m, len);
    }
    bk_free(d);
}

int main(int argc, char **argv)
{
    test_synthetic(argc > 3 ? argv[3] : NULL);
    test_broken();
    test_shaders();
    test_sample_script();
    if (argc > 2) test_real(argv[2]);
    if (argc > 2) test_read_only(argv[2]);
    return CHECK_DONE();
}
