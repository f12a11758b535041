/* Core pieces: entity text, cursor, checked arithmetic, atlas, scene builder, axis conversion,
 * and a glTF export read back and checked. */
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>
#include <float.h>

#include "check.h"
#define PX(s, i) bk_scene_pixels((s), (uint32_t)(i))
#define BK_ADVANCED_API
#include "bspkit/advanced.h"
#include "scene/scene_build.h"
#include "common/bk_internal.h"
#include "export/xform.h"
#include "bspkit/quake.h"

static void test_entities(void)
{
    const char txt[] = "{\n\"classname\" \"worldspawn\"\n\"classname\" \"worldspawn\"\n\"wad\" \"\\a.wad;b.wad\"\n}\n"
                       "// comment\n{ \"origin\" \"1 2 3\" bare word }";
    bk_entities e;
    uint64_t at = 0;
    /* not NUL-terminated: pass the length without the trailing NUL */
    CHECK(bk_entities_parse(txt, sizeof txt - 1, &e, &at) == BK_OK);
    CHECK(e.count == 2);
    CHECK(e.items[0].pair_count == 3);
    CHECK(strcmp(bk_entity_get(&e.items[0], "wad"), "\\a.wad;b.wad") == 0);
    CHECK(strcmp(bk_entity_get(&e.items[1], "bare"), "word") == 0);
    CHECK(bk_entity_get(&e.items[1], "nope") == NULL);
    bk_entities_free(&e);

    const char bad[] = "{ \"a\" \"b\" \"c\" }";
    CHECK(bk_entities_parse(bad, sizeof bad - 1, &e, &at) == BK_EFORMAT);
    CHECK(at == 14);
    const char unterminated[] = "{ \"a\" \"b";
    CHECK(bk_entities_parse(unterminated, sizeof unterminated - 1, &e, &at) == BK_EFORMAT);
    CHECK(bk_entities_parse("", 0, &e, &at) == BK_OK && e.count == 0);
}

static void test_numbers(void)
{
    const char *end;
    CHECK(bk_strtod("1.5", &end) == 1.5 && *end == 0);
    CHECK(bk_strtod("  -2e3x", &end) == -2000.0 && *end == 'x');
    CHECK(bk_strtod(".25", &end) == 0.25 && *end == 0);
    CHECK(bk_strtod("5.", &end) == 5.0 && *end == 0);
    CHECK(bk_strtod("7e", &end) == 7.0 && *end == 'e'); /* an exponent without digits is not taken */
    CHECK(bk_strtod("0.1", NULL) == 0.1);                /* correctly rounded on the fast path */
    CHECK(bk_strtod("123456789012345678901234", NULL) == 123456789012345678901234.0 ||
          fabs(bk_strtod("123456789012345678901234", NULL) / 1.23456789012345678901234e23 - 1) < 1e-15);
    const char *s = "abc";
    CHECK(bk_strtod(s, &end) == 0 && end == s);
    s = "-.";
    CHECK(bk_strtod(s, &end) == 0 && end == s);
    float v[3] = {9, 9, 9};
    CHECK(bk_parse_vec3("1 -2.5 3e1", v) && v[0] == 1 && v[1] == -2.5f && v[2] == 30);
    CHECK(!bk_parse_vec3("1 2", v) && v[0] == 1);       /* untouched on failure */
    CHECK(!bk_parse_vec3("1 2 1e999", v));              /* beyond float range */
    CHECK(!bk_parse_vec3(NULL, v));
    CHECK(bk_parse_floats("4 5 six", v, 3) == 2);
    /* the decimal point stays '.' whatever the locale (when the system has a comma locale) */
    const char *locs[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "C.UTF-8"};
    for (size_t i = 0; i < sizeof locs / sizeof *locs; i++)
        if (setlocale(LC_NUMERIC, locs[i])) break;
    char buf[32];
    CHECK(bk_fmt_num(buf, sizeof buf, 1.5, 6) == 3 && strcmp(buf, "1.5") == 0);
    CHECK(bk_strtod("2.75", NULL) == 2.75);
    CHECK(bk_fmt_num(buf, sizeof buf, NAN, 6) == 1 && strcmp(buf, "0") == 0);
    setlocale(LC_NUMERIC, "C");
    /* bk_fmt_num writes a float as printf's %.Ng does (its own integer path in range, printf's
     * beyond): every float bit pattern class (denormals, powers of ten, ties, huge values, negative
     * zero), at every precision the exporters use */
    uint32_t x = 0x9e3779b9u, bad = 0, n = 0;
    const float special[] = {0.0f, -0.0f, 1.0f, 0.5f, 0.25f, 1e-7f, 1e-38f, 1.4e-45f, 3.4e38f, 123456.5f, 0.0001f,
                             9.9999995f, 99999.95f, 0.3f, 1e10f, -1e10f, 65535.5f, 1.0e-5f};
    for (int prec = 1; prec <= 9; prec++) {
        for (uint32_t i = 0; i < 200000 + sizeof special / sizeof *special; i++) {
            float f;
            if (i < sizeof special / sizeof *special) {
                f = special[i];
            } else {
                x ^= x << 13, x ^= x >> 17, x ^= x << 5;
                uint32_t u = (i & 3) ? ((x & 0x807fffffu) | ((110u + (x >> 23) % 40u) << 23)) : x; /* most near 1 */
                memcpy(&f, &u, 4);
                if (!isfinite(f)) continue;
            }
            char want[64], got[64];
            snprintf(want, sizeof want, "%.*g", prec, (double)f);
            bk_fmt_num(got, sizeof got, (double)f, prec);
            n++;
            if (strcmp(want, got) != 0 && strcmp(want, "-0") != 0 && bad++ < 5)
                fprintf(stderr, "bk_fmt_num(%.9g, %d): %s, printf %s\n", (double)f, prec, got, want);
        }
    }
    CHECK(bad == 0 && n > 1000000);
}

/* one key per JSON object, the last value winning: small entities (pairwise) and large ones
 * (hashed) must give the same flags */
static void test_kv_last(void)
{
    enum { N = 5000 };
    static bk_kv kv[N];
    static char keys[N][16];
    static bool last[N];
    for (uint32_t i = 0; i < N; i++) {
        /* keys k0..k999 five times over, plus the first pair's key once more at the very end */
        snprintf(keys[i], sizeof keys[i], "k%u", i == N - 1 ? 0 : i % 1000);
        kv[i].key = keys[i];
        kv[i].value = keys[i];
    }
    for (uint32_t n = 0; n <= N; n += n < 40 ? 1 : 997) {
        memset(last, 7, sizeof last);
        CHECK(bk_kv_last(kv, n, last) == BK_OK);
        uint32_t bad = 0, kept = 0;
        for (uint32_t i = 0; i < n; i++) {
            bool later = false;
            for (uint32_t j = i + 1; j < n && !later; j++) later = strcmp(kv[i].key, kv[j].key) == 0;
            bad += last[i] != !later;
            kept += last[i] == 1;
        }
        CHECK(bad == 0);
        CHECK(kept == (n < 1000 ? n : 1000));
    }
}

/* one rule set for entities -> nodes, whatever the family */
static void test_entity_nodes(void)
{
    const char txt[] = "{ \"classname\" \"light\" \"origin\" \"1 2 3\" \"angle\" \"90\" }\n"
                       "{ \"classname\" \"worldspawn\" \"message\" \"hi\" }\n"
                       "{ \"classname\" \"func_door\" \"model\" \"*1\" \"origin\" \"10 0 0\" \"angle\" \"90\" }\n"
                       "{ \"classname\" \"info_null\" \"targetname\" \"up\" \"angle\" \"-1\" }\n"
                       "{ \"classname\" \"func_wall\" \"model\" \"*9\" }\n";
    bk_entities e;
    uint64_t at;
    CHECK(bk_entities_parse(txt, sizeof txt - 1, &e, &at) == BK_OK && e.count == 5);
    int32_t meshes[3] = {0, 1, 2};
    bk_entity_layout lay = {meshes, 3, 0, NULL, NULL};
    bk_scene *s = bk_scene_new();
    int32_t mi;
    for (int k = 0; k < 3; k++) CHECK(bk_scene_add_mesh(s, "m", &mi) == BK_OK && mi == k);
    CHECK(bk_scene_add_entity_nodes(s, &e, NULL, &lay) == BK_OK);
    /* worldspawn, light, door, info_null, func_wall (model 9 does not exist: a point entity), *2 */
    CHECK(s->node_count == 6);
    if (s->node_count == 6) {
        CHECK(strcmp(s->nodes[0].name, "worldspawn") == 0 && s->nodes[0].mesh == 0 &&
              s->nodes[0].extra_count == 2 && strcmp(s->nodes[0].extras[1].value, "hi") == 0);
        CHECK(strcmp(s->nodes[1].name, "light") == 0 && s->nodes[1].mesh == -1 && s->nodes[1].translation[2] == 3);
        /* yaw 90 about Z */
        CHECK(fabsf(s->nodes[1].rotation[2] - 0.70710678f) < 1e-6f && fabsf(s->nodes[1].rotation[3] - 0.70710678f) < 1e-6f);
        /* a brush entity is placed at its origin, and its "angle" (a move direction) does not turn it */
        CHECK(strcmp(s->nodes[2].name, "func_door *1") == 0 && s->nodes[2].mesh == 1 &&
              s->nodes[2].translation[0] == 10 && s->nodes[2].rotation[3] == 1);
        /* angle -1: looking up (pitch -90 about Y) */
        CHECK(strcmp(s->nodes[3].name, "up") == 0 && fabsf(s->nodes[3].rotation[1] + 0.70710678f) < 1e-6f);
        CHECK(s->nodes[4].mesh == -1);
        CHECK(strcmp(s->nodes[5].name, "*2") == 0 && s->nodes[5].mesh == 2);
    }
    bk_scene_free(s);
    /* Source turns brush entities by "angles"; without entities only the geometry is kept */
    s = bk_scene_new();
    bk_options o;
    memset(&o, 0, sizeof o);
    o.flags |= BK_OPT_NO_ENTITIES;
    lay.flags = BK_ENT_ROTATE_BRUSH;
    for (int k = 0; k < 3; k++) CHECK(bk_scene_add_mesh(s, "m", &mi) == BK_OK && mi == k);
    CHECK(bk_scene_add_entity_nodes(s, &e, &o, &lay) == BK_OK);
    CHECK(s->node_count == 3 && s->nodes[1].mesh == 1 && fabsf(s->nodes[1].rotation[2] - 0.70710678f) < 1e-6f &&
          s->nodes[0].extra_count == 0);
    bk_scene_free(s);
    bk_entities_free(&e);
}

/* the default limits live in one place; a small atlas limit drops lightmaps, not the map */
static void test_limits(void)
{
    bk_limits l = bk_limits_of(NULL);
    CHECK(l.max_alloc_bytes == (uint64_t)1 << 30 && l.max_atlas_size == 8192 && l.max_texture_dim == 8192);
    CHECK(l.max_scene_vertices == l.max_alloc_bytes / 64 && l.max_work == (uint64_t)64 << 20);
    CHECK(bk_limits_embedded_budget(&l, 1000) == 8000 + ((uint64_t)64 << 20));
    l.max_decoded_bytes = 5000;
    CHECK(bk_limits_embedded_budget(&l, 1000) == 5000);
    bk_options o;
    memset(&o, 0, sizeof o);
    o.limits.max_alloc_bytes = 6400;
    CHECK(bk_limits_of(&o).max_scene_vertices == 100 && bk_limits_of(&o).max_elements == (uint64_t)64 << 20);
}

static void test_atlas_limit(const char *src_dir)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/samples/bsp_tool_quake_mp_lobby.bsp", src_dir);
    bk_file *f = NULL;
    if (bk_file_open(path, NULL, &f) != BK_OK) {
        CHECK(!"sample opens");
        return;
    }
    bk_options o;
    memset(&o, 0, sizeof o);
    bk_scene *s = NULL;
    CHECK(bk_file_build_scene(f, &o, &s) == BK_OK);
    uint32_t lightmaps = 0;
    for (uint32_t i = 0; s && i < s->image_count; i++) lightmaps += s->images[i].is_lightmap;
    CHECK(lightmaps == 1);
    bk_scene_free(s);
    o.limits.max_atlas_size = 16;
    CHECK(bk_file_build_scene(f, &o, &s) == BK_OK);
    lightmaps = 0;
    for (uint32_t i = 0; s && i < s->image_count; i++) lightmaps += s->images[i].is_lightmap;
    CHECK(lightmaps == 0 && s && s->warning_count > 0 && s->mesh_count > 0);
    bk_scene_free(s);
    bk_file_free(f);
}

/* a program's own file reading: every file the library reads goes through it */
typedef struct hook_state {
    const char *real;
    int calls;
} hook_state;

static bk_result hook_read(void *user, const char *path, uint64_t max_bytes, uint8_t **data, size_t *size)
{
    hook_state *h = user;
    h->calls++;
    if (strcmp(path, "virtual/lobby.bsp") != 0) return BK_ENOTFOUND;
    FILE *fp = fopen(h->real, "rb");
    if (!fp) return BK_EIO;
    *data = bk_malloc(1 << 16);
    *size = *data ? fread(*data, 1, 1 << 16, fp) : 0;
    fclose(fp);
    return *size && *size <= max_bytes ? BK_OK : BK_EIO;
}

static void test_read_hook(const char *src_dir)
{
    char real[1024];
    snprintf(real, sizeof real, "%s/samples/bsp_tool_quake_mp_lobby.bsp", src_dir);
    hook_state h = {real, 0};
    bk_options o;
    memset(&o, 0, sizeof o);
    o.read_file = hook_read;
    o.read_file_user = &h;
    bk_file *f = NULL;
    CHECK(bk_file_open("virtual/lobby.bsp", &o, &f) == BK_OK && h.calls == 1 && bk_quake_bsp_of(f) != NULL);
    bk_file_free(f);
    f = NULL;
    CHECK(bk_file_open(real, &o, &f) == BK_ENOTFOUND && f == NULL && h.calls == 2);
}

/* bk_strset: each name once without case, in the order added, through many rehashes */
static void test_strset(void)
{
    bk_strset set = {0};
    char name[64];
    bool added = false;
    int wrong = 0;
    for (int round = 0; round < 2; round++)
        for (int i = 0; i < 20000; i++) {
            snprintf(name, sizeof name, round ? "MATERIALS/Wall_%d.VMT" : "materials/wall_%d.vmt", i);
            if (bk_strset_add(&set, name, &added) != BK_OK || added != (round == 0)) wrong++;
        }
    CHECK(wrong == 0);
    CHECK(set.count == 20000);
    CHECK(set.count == 20000 && strcmp(set.items[0], "materials/wall_0.vmt") == 0 &&
          strcmp(set.items[19999], "materials/wall_19999.vmt") == 0);
    CHECK(bk_strset_add(&set, "materials/wall_20000.vmt", &added) == BK_OK && added && set.count == 20001);
    bk_strset_free(&set);
    CHECK(set.count == 0 && set.items == NULL);
}

static void test_cursor(void)
{
    const uint8_t d[6] = {1, 0, 0, 0, 0xff, 0xff};
    bk_cursor c = bk_cursor_make(d, sizeof d);
    CHECK(bk_cur_u32le(&c) == 1);
    CHECK(bk_cur_i16le(&c) == -1);
    CHECK(!c.bad);
    CHECK(bk_cur_u32le(&c) == 0 && c.bad);
    CHECK(bk_cur_u8(&c) == 0); /* sticky */
    CHECK(bk_span_ok(2, 4, 6) && !bk_span_ok(3, 4, 6) && !bk_span_ok(UINT64_MAX, 2, 6));
    CHECK(bk_range_ok(0, 0, 0) && !bk_range_ok(1, UINT64_MAX, 10));
    size_t out;
    CHECK(!bk_mul_ok(SIZE_MAX / 2 + 1, 2, &out));
    CHECK(bk_rd_f32be((const uint8_t *)"\x3f\x80\x00\x00") == 1.0f);
}

/* scene image packed unpacks to want (plain's pixels) and encodes to the same PNG as plain */
static bool same_image(const bk_scene *s, int32_t plain, int32_t packed, const uint8_t *want)
{
    uint8_t *un = NULL;
    const bk_image *im = &s->images[plain];
    bool ok = bk_scene_image_rgba(s, (uint32_t)packed, &un) == BK_OK && un &&
              memcmp(un, want, (size_t)im->width * im->height * 4) == 0;
    bk_free(un);
    bk_buf p1 = {0}, p2 = {0};
    ok = ok && bk_png_encode_image(s, (uint32_t)plain, 1, &p1) == BK_OK &&
         bk_png_encode_image(s, (uint32_t)packed, 1, &p2) == BK_OK && p1.size > 0 && p1.size == p2.size &&
         memcmp(p1.data, p2.data, p1.size) == 0;
    bk_buf_free(&p1);
    bk_buf_free(&p2);
    return ok;
}

static void test_atlas(void)
{
    bk_atlas *a = bk_atlas_new(64, 1);
    uint8_t px[4 * 15 * 15];
    for (size_t i = 0; i < sizeof px; i++) px[i] = (uint8_t)(i % 4 == 3 ? 255 : 37 * i); /* opaque, like lightmaps */
    uint32_t ids[5];
    for (int i = 0; i < 5; i++) CHECK(bk_atlas_add(a, 10, (uint32_t)(2 + i), px, &ids[i]) == BK_OK);
    CHECK(bk_atlas_pack(a) == BK_OK);
    uint32_t w, h;
    bk_atlas_size(a, &w, &h);
    CHECK(w <= 64 && h <= 64);
    CHECK((uint64_t)w * h <= 14 * 30); /* 5 rectangles of 12 x 4..8 with padding: 12 x 30 texels, nearly tight */
    /* rectangles (with padding) do not overlap */
    for (int i = 0; i < 5; i++)
        for (int j = i + 1; j < 5; j++) {
            uint32_t xi, yi, xj, yj;
            bk_atlas_rect(a, ids[i], &xi, &yi);
            bk_atlas_rect(a, ids[j], &xj, &yj);
            uint32_t hi = 2 + (uint32_t)i, hj = 2 + (uint32_t)j;
            bool apart = xi + 10 + 1 <= xj - 1 || xj + 10 + 1 <= xi - 1 || yi + hi + 1 <= yj - 1 || yj + hj + 1 <= yi - 1;
            CHECK(apart);
        }
    bk_scene *s = bk_scene_new();
    int32_t img;
    CHECK(bk_atlas_to_image(a, s, "lm", &img) == BK_OK && s->images[img].is_lightmap);
    /* the same atlas kept as RGB rows (BK_PACK_RGB_UP) unpacks to the same pixels, and encodes to the
     * same PNG */
    int32_t rgb;
    CHECK(bk_atlas_to_rgb_image(a, s, "lm_rgb", &rgb) == BK_OK && s->images[rgb].is_lightmap &&
          PX(s, rgb)->rgba == NULL && PX(s, rgb)->packing == BK_PACK_RGB_UP && !s->images[rgb].has_alpha);
    CHECK(same_image(s, img, rgb, PX(s, img)->rgba));
    bk_atlas_free(a);
    /* an opaque RGBA image packed as RGB rows in its own block (Quake 3's compositions): the same
     * pixels back, the same PNG, at odd sizes too */
    static const uint32_t sizes[3][2] = {{1, 1}, {3, 5}, {37, 2}};
    for (int k = 0; k < 3; k++) {
        uint32_t sw = sizes[k][0], sh = sizes[k][1];
        uint8_t *rgba = bk_malloc((size_t)sw * sh * 4), *want = bk_malloc((size_t)sw * sh * 4);
        CHECK(rgba && want);
        if (!rgba || !want) break;
        for (size_t i = 0; i < (size_t)sw * sh * 4; i++) rgba[i] = (uint8_t)(i % 4 == 3 ? 255 : (i * 37 + k * 11) & 255);
        memcpy(want, rgba, (size_t)sw * sh * 4);
        int32_t plain, packed;
        uint8_t *copy = bk_malloc((size_t)sw * sh * 4);
        CHECK(copy != NULL);
        if (copy) memcpy(copy, want, (size_t)sw * sh * 4);
        CHECK(copy && bk_scene_add_image(s, "plain", sw, sh, copy, &plain) == BK_OK);
        CHECK(bk_scene_add_rgb_image(s, "rgb", sw, sh, rgba, &packed) == BK_OK && PX(s, packed)->packing == BK_PACK_RGB_UP &&
              !s->images[packed].has_alpha);
        CHECK(same_image(s, plain, packed, want));
        bk_free(want);
    }
    bk_scene_free(s);
    bk_atlas *big = bk_atlas_new(16, 1);
    CHECK(bk_atlas_add(big, 15, 15, px, NULL) == BK_OK);
    CHECK(bk_atlas_add(big, 17, 2, px, NULL) == BK_ELIMIT); /* wider than the atlas */
    CHECK(bk_atlas_pack(big) == BK_ELIMIT); /* 17x17 with padding cannot fit 16x16 */
    bk_atlas_free(big);
}

/* Many rectangles (a large map's lightmaps; the packing's trials are then shared with a second
 * thread): none overlaps another or its padding, all are inside, the atlas is tight, and packing
 * the same rectangles again gives the same layout. */
static void test_atlas_many(void)
{
    enum { N = 2000 };
    static uint32_t wh[N * 2], xy[N * 2];
    bk_atlas *a[2] = {bk_atlas_new(4096, 1), bk_atlas_new(4096, 1)};
    uint32_t seed = 777;
    uint64_t area = 0;
    bool ok = a[0] && a[1];
    for (uint32_t i = 0; i < N && ok; i++) {
        seed = seed * 1103515245u + 12345u;
        wh[i * 2] = 1 + (seed >> 16) % 17, wh[i * 2 + 1] = 1 + (seed >> 8) % 17; /* 1..17 luxels a side */
        area += (uint64_t)(wh[i * 2] + 2) * (wh[i * 2 + 1] + 2);
        for (int k = 0; k < 2; k++) ok = ok && bk_atlas_add(a[k], wh[i * 2], wh[i * 2 + 1], NULL, NULL) == BK_OK;
    }
    CHECK(ok && bk_atlas_pack(a[0]) == BK_OK && bk_atlas_pack(a[1]) == BK_OK);
    uint32_t w, h, w1, h1;
    bk_atlas_size(a[0], &w, &h);
    bk_atlas_size(a[1], &w1, &h1);
    CHECK(w == w1 && h == h1 && (uint64_t)w * h <= area * 5 / 4);
    bool same = true, inside = true, apart = true;
    for (uint32_t i = 0; i < N; i++) {
        uint32_t x1, y1;
        bk_atlas_rect(a[0], i, &xy[i * 2], &xy[i * 2 + 1]);
        bk_atlas_rect(a[1], i, &x1, &y1);
        same &= x1 == xy[i * 2] && y1 == xy[i * 2 + 1];
        inside &= xy[i * 2] >= 1 && xy[i * 2 + 1] >= 1 && xy[i * 2] + wh[i * 2] + 1 <= w &&
                  xy[i * 2 + 1] + wh[i * 2 + 1] + 1 <= h;
    }
    for (uint32_t i = 0; i < N; i++)
        for (uint32_t j = i + 1; j < N; j++) {
            /* padded boxes [x-1, x+w+1) may touch, not overlap */
            uint32_t xi = xy[i * 2] - 1, yi = xy[i * 2 + 1] - 1, xj = xy[j * 2] - 1, yj = xy[j * 2 + 1] - 1;
            if (!(xi + wh[i * 2] + 2 <= xj || xj + wh[j * 2] + 2 <= xi || yi + wh[i * 2 + 1] + 2 <= yj ||
                  yj + wh[j * 2 + 1] + 2 <= yi))
                apart = false;
        }
    CHECK(same && inside && apart);
    bk_atlas_free(a[0]);
    bk_atlas_free(a[1]);
}

/* fill callback of test_atlas_png: rectangle id's texels from its id and position (opaque) */
static void fill_test(void *user, uint32_t id, uint8_t *dst, size_t stride)
{
    const uint32_t *wh = user;
    for (uint32_t y = 0; y < wh[id * 2 + 1]; y++)
        for (uint32_t x = 0; x < wh[id * 2]; x++) {
            uint8_t *t = dst + y * stride + x * 4;
            t[0] = (uint8_t)(id * 7 + x), t[1] = (uint8_t)(id * 13 + y * 3), t[2] = (uint8_t)(x ^ y ^ id), t[3] = 255;
        }
}

/* bk_json_num and bk_json_str write numbers and strings as cJSON does (the exporter mixes the two
 * in one JSON) */
static void test_json_num(void)
{
    double v[64 + 2000];
    size_t n = 0;
    static const double fixed[] = {0, -0.0, 1, -1, 288, 34962, 2147483647.0, 2147483648.0, 4294967295.0,
                                   -2147483649.0, 1e15, 1e15 + 2, 999999999999999.0, 123456789012345.0, 1e16,
                                   0.1f, 0.1, 1.1175999641418457, -0.50800001621246338, 2.54, 0.5, 1e-7, 3.4e38,
                                   1e300, -1e-300, 5e-324, DBL_MAX, -DBL_MAX, 0.0254, 1.0 / 3};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) v[n++] = fixed[i];
    uint32_t seed = 99;
    for (int i = 0; i < 2000; i++) {
        seed = seed * 1103515245u + 12345u;
        float f = (float)((int32_t)seed) / (float)(1u << (seed % 31));
        v[n++] = i % 2 ? (double)f : (double)f * 1.000001;
    }
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        bk_buf b = {0};
        bk_json_num(&b, v[i]);
        bk_buf_append(&b, "", 1);
        cJSON *c = cJSON_CreateNumber(v[i]);
        char *t = cJSON_PrintUnformatted(c);
        if (!t || !b.data || strcmp(t, (char *)b.data) != 0) {
            if (bad++ < 5) fprintf(stderr, "json number %.17g: cJSON %s, bspkit %s\n", v[i], t ? t : "?", b.data ? (char *)b.data : "?");
        }
        cJSON_free(t);
        cJSON_Delete(c);
        bk_buf_free(&b);
    }
    CHECK(bad == 0);
    /* strings: every byte value, quotes, backslashes and control characters among them */
    char str[64];
    for (int i = 0; i < 600; i++) {
        seed = seed * 1103515245u + 12345u;
        size_t len = i < 256 ? 1 : seed % 60;
        for (size_t k = 0; k < len; k++) {
            seed = seed * 1103515245u + 12345u;
            str[k] = (char)(i < 256 ? (i ? i : (int)'a') : (int)(1 + (seed >> 8) % 255));
        }
        str[len] = 0;
        bk_buf b = {0};
        bk_json_str(&b, str);
        bk_buf_append(&b, "", 1);
        cJSON *c = cJSON_CreateString(str);
        char *t = cJSON_PrintUnformatted(c);
        if (!t || !b.data || strcmp(t, (char *)b.data) != 0) bad++;
        cJSON_free(t);
        cJSON_Delete(c);
        bk_buf_free(&b);
    }
    CHECK(bad == 0);
    bk_buf nb = {0};
    bk_json_num(&nb, NAN);
    bk_json_num(&nb, INFINITY);
    CHECK(nb.size == 8 && memcmp(nb.data, "nullnull", 8) == 0);
    bk_buf_free(&nb);
}

/* PNGs decode to the pixels encoded, on every deflate path (zlib with a window sized to a small
 * image; for a larger one ISA-L at the default level and 1 when built with it, libdeflate),
 * RGBA and RGB, patterns and noise, at the default, the old default and the extreme levels */
static void test_png_roundtrip(void)
{
    static const uint32_t dims[][2] = {{1, 1}, {20, 15}, {64, 64}, {200, 100}, {513, 257}, {1024, 700}};
    for (size_t d = 0; d < sizeof dims / sizeof dims[0]; d++) {
        uint32_t w = dims[d][0], h = dims[d][1];
        /* patterns, and noise that does not deflate (the encoders' room for output that grows) */
        for (int alpha = 0; alpha < 4; alpha++) {
            bool noise = alpha >= 2;
            bk_scene *s = bk_scene_new();
            uint8_t *px = bk_malloc((size_t)w * h * 4);
            uint32_t seed = 777;
            for (size_t i = 0; i < (size_t)w * h; i++) {
                px[i * 4] = (uint8_t)(i * 7), px[i * 4 + 1] = (uint8_t)(i / w * 3), px[i * 4 + 2] = (uint8_t)(i % 251);
                px[i * 4 + 3] = alpha & 1 ? (uint8_t)(i * 13) : 255;
                for (int c = 0; noise && c < 4; c++) {
                    seed = seed * 1103515245u + 12345u;
                    if (c < 3 || alpha & 1) px[i * 4 + c] = (uint8_t)(seed >> 16);
                }
            }
            int32_t idx = -1;
            CHECK(bk_scene_add_image(s, "t", w, h, px, &idx) == BK_OK && idx >= 0);
            if (idx < 0) {
                bk_scene_free(s);
                continue;
            }
            s->images[idx].has_alpha = alpha & 1;
            /* the default and 1 (ISA-L for large images when built with it), libdeflate's 3 and 12,
             * zlib for small images */
            static const int levels[] = {0, 1, 3, 12};
            for (size_t l = 0; l < 4; l++) {
                bk_buf png = {0};
                uint8_t *back = NULL;
                uint32_t bw = 0, bh = 0;
                CHECK(bk_png_encode_image(s, (uint32_t)idx, levels[l], &png) == BK_OK &&
                      bk_image_decode(png.data, png.size, 4096, &back, &bw, &bh) == BK_OK);
                CHECK(back && bw == w && bh == h && memcmp(back, PX(s, idx)->rgba, (size_t)w * h * 4) == 0);
                bk_free(back);
                bk_buf_free(&png);
            }
            bk_scene_free(s);
        }
    }
}

/* An atlas deflated band by band as it is drawn (BK_PACK_PNG) has the pixels of the one drawn
 * whole: rectangles of the arena and of the fill callback, some across the bands (a wide atlas
 * makes bands of 16 rows), with their padding. */
static void test_atlas_png(void)
{
    bk_atlas *a = bk_atlas_new(8192, 1);
    enum { N = 1200 };
    static uint32_t wh[N * 2];
    static uint8_t px[4 * 60 * 60];
    for (size_t i = 0; i < sizeof px; i++) px[i] = (uint8_t)(i % 4 == 3 ? 255 : 31 * i + i / 240);
    uint32_t seed = 12345;
    bool ok = bk_atlas_add(a, 8000, 3, NULL, NULL) == BK_OK; /* makes the atlas wide: thin bands */
    for (uint32_t i = 1; i < N && ok; i++) {
        seed = seed * 1103515245u + 12345u;
        wh[i * 2] = 4 + (seed >> 16) % 56, wh[i * 2 + 1] = 2 + (seed >> 8) % 58;
        ok = bk_atlas_add(a, wh[i * 2], wh[i * 2 + 1], i % 3 ? NULL : px, NULL) == BK_OK;
    }
    wh[0] = 8000, wh[1] = 3;
    bk_atlas_set_fill(a, fill_test, wh);
    CHECK(ok && bk_atlas_pack(a) == BK_OK);
    uint32_t w, h;
    bk_atlas_size(a, &w, &h);
    CHECK(w >= 8000 && h > 2 * 16); /* more than two bands */
    bk_scene *s = bk_scene_new();
    int32_t whole = -1, png = -1;
    CHECK(bk_atlas_to_image(a, s, "lm", &whole) == BK_OK && bk_atlas_to_png_image(a, s, "lm_png", 0, &png) == BK_OK);
    if (whole >= 0 && png >= 0) {
        const bk_image *im = &s->images[png];
        const bk_pixels *ip = PX(s, png);
        CHECK(ip->packing == BK_PACK_PNG && ip->rgba == NULL && im->is_lightmap && !im->has_alpha && im->width == w &&
              im->height == h);
        /* smaller than its RGB rows: it is the deflated image */
        CHECK(ip->packed_size < ((size_t)w * 3 + 1) * h / 2);
        uint8_t *un = NULL;
        CHECK(bk_scene_image_rgba(s, (uint32_t)png, &un) == BK_OK && un && memcmp(un, PX(s, whole)->rgba, (size_t)w * h * 4) == 0);
        bk_free(un);
        /* the exporters' default level writes it as it is; another level encodes it again */
        bk_buf p0 = {0}, p1 = {0}, q1 = {0};
        CHECK(bk_png_encode_image(s, (uint32_t)png, 0, &p0) == BK_OK && p0.size == ip->packed_size &&
              memcmp(p0.data, ip->packed, p0.size) == 0);
        CHECK(bk_png_encode_image(s, (uint32_t)png, 1, &p1) == BK_OK && bk_png_encode_image(s, (uint32_t)whole, 1, &q1) == BK_OK &&
              p1.size == q1.size && memcmp(p1.data, q1.data, p1.size) == 0);
        bk_buf_free(&p0);
        bk_buf_free(&p1);
        bk_buf_free(&q1);
    }
    /* a PNG handed to the scene must say the size it is added with */
    uint8_t *copy = bk_malloc(PX(s, png)->packed_size);
    memcpy(copy, PX(s, png)->packed, PX(s, png)->packed_size);
    CHECK(bk_scene_add_packed_image(s, "bad", w + 1, h, BK_PACK_PNG, copy, PX(s, png)->packed_size, NULL, 0, NULL) ==
          BK_EARG);
    bk_free(copy);
    bk_scene_free(s);
    bk_atlas_free(a);
}

static void test_xform(void)
{
    bk_export_options o = {0};
    bk_xform x = bk_xform_make(&o);
    float up[3] = {0, 0, 1}, out[3];
    bk_xf_dir(&x, up, out);
    CHECK(fabsf(out[1] - 1) < 1e-6f && fabsf(out[0]) < 1e-6f && fabsf(out[2]) < 1e-6f);
    float p[3] = {100, 0, 0};
    bk_xf_point(&x, p, out);
    CHECK(fabsf(out[0] - 2.54f) < 1e-5f);
    /* a 90-degree yaw about engine Z becomes a turn about glTF Y */
    float h = 0.70710678f, q[4] = {0, 0, h, h}, qo[4];
    bk_xf_quat(&x, q, qo);
    CHECK(fabsf(qo[1] - h) < 1e-5f && fabsf(qo[3] - h) < 1e-5f && fabsf(qo[0]) < 1e-5f && fabsf(qo[2]) < 1e-5f);
    /* matrix conjugation agrees with point conversion: M = translate(1,2,3) */
    float m[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 2, 3, 1}, mo[16];
    bk_xf_mat4(&x, m, mo);
    float t[3] = {1, 2, 3}, to[3];
    bk_xf_point(&x, t, to);
    CHECK(fabsf(mo[12] - to[0]) < 1e-6f && fabsf(mo[13] - to[1]) < 1e-6f && fabsf(mo[14] - to[2]) < 1e-6f);
    CHECK(mo[0] == 1 && mo[5] == 1 && mo[10] == 1);
}

static bool stop_after_two(void *user, const void *data, size_t size)
{
    (void)data;
    (void)size;
    return ++*(int *)user <= 2;
}

static void test_export(const char *work)
{
    bk_scene *s = bk_scene_new();
    int32_t mat, mesh, node;
    CHECK(bk_scene_add_material(s, "wall", &mat) == BK_OK);
    CHECK(bk_scene_add_mesh(s, "m", &mesh) == BK_OK);
    bk_primitive *p;
    CHECK(bk_mesh_add_primitive(&s->meshes[mesh], mat, BK_PRIM_TRIANGLES, BK_ATTR_NORMAL | BK_ATTR_UV0, &p) == BK_OK);
    uint32_t first;
    CHECK(bk_prim_add_vertices(p, 3, &first) == BK_OK && first == 0);
    float pos[9] = {0, 0, 0, 64, 0, 0, 0, 64, NAN};
    memcpy(p->position, pos, sizeof pos);
    p->normal[2] = 2.0f; /* non-unit */
    /* others zero: fixed by the exporter */
    CHECK(bk_prim_add_triangle(p, 0, 1, 2) == BK_OK);
    CHECK(bk_prim_add_triangle(p, 0, 0, 1) == BK_OK); /* degenerate */
    CHECK(bk_scene_add_node(s, "world", -1, mesh, &node) == BK_OK);
    CHECK(bk_kv_append(&s->nodes[node].extras, &s->nodes[node].extra_count, "classname", "worldspawn") == BK_OK);
    char path[1024];
    snprintf(path, sizeof path, "%s/unit.glb", work);
    bk_export_stats st;
    CHECK(bk_export_gltf(s, NULL, path, &st) == BK_OK);
    CHECK(st.triangles == 1 && st.dropped_degenerate == 1);
    CHECK(st.cleaned_values >= 3); /* NaN position, non-unit normal, two zero normals */
    uint8_t *d;
    size_t n;
    CHECK(bk_read_file(path, 1 << 20, &d, &n) == BK_OK);
    CHECK(n > 20 && memcmp(d, "glTF", 4) == 0 && bk_rd_u32le(d + 8) == n);
    CHECK(bk_rd_u32le(d + 12) % 4 == 0);
    bool found = false;
    for (size_t i = 0; i + 12 <= n && !found; i++) found = memcmp(d + i, "\"worldspawn\"", 12) == 0;
    CHECK(found);
    /* the same .glb in memory, and through a callback that stops half way */
    uint8_t *mem = NULL;
    size_t mn = 0;
    CHECK(bk_export_glb_memory(s, NULL, &mem, &mn, NULL) == BK_OK && mn == n && memcmp(mem, d, n) == 0);
    bk_free(mem);
    int calls = 0;
    CHECK(bk_export_glb_to(s, NULL, stop_after_two, &calls, NULL) == BK_EIO && calls == 3);
    /* a file that cannot be written: an error, and no temporary file left behind */
    char bad[1100];
    snprintf(bad, sizeof bad, "%s/no_such_dir/x.glb", work);
    CHECK(bk_export_gltf(s, NULL, bad, NULL) == BK_EIO);
    bk_free(d);
    snprintf(path, sizeof path, "%s/unit.gltf", work);
    CHECK(bk_export_gltf(s, NULL, path, NULL) == BK_OK);
    snprintf(path, sizeof path, "%s/unit.bin", work);
    CHECK(bk_read_file(path, 1 << 20, &d, &n) == BK_OK && n > 0);
    bk_free(d);
    snprintf(path, sizeof path, "%s/unit.obj", work);
    CHECK(bk_export_obj(s, NULL, path, &st) == BK_OK && st.triangles == 1);
    snprintf(path, sizeof path, "%s/unit.txt", work);
    CHECK(bk_export_gltf(s, NULL, path, NULL) == BK_EARG);
    bk_scene_free(s);
}

/* a .glb's JSON and BIN chunks */
static bool glb_chunks(const uint8_t *d, size_t n, cJSON **json, const uint8_t **bin, size_t *bin_n)
{
    if (n < 20 || memcmp(d, "glTF", 4) != 0 || bk_rd_u32le(d + 8) != n) return false;
    size_t jl = bk_rd_u32le(d + 12);
    if (20 + jl > n) return false;
    *json = cJSON_ParseWithLength((const char *)d + 20, jl);
    *bin = NULL;
    *bin_n = 0;
    if (20 + jl + 8 <= n) {
        *bin_n = bk_rd_u32le(d + 20 + jl);
        *bin = d + 28 + jl;
        if (28 + jl + *bin_n != n) return false;
    }
    return *json != NULL;
}

/* Written to a file, a scene's PNGs go out as they are encoded (placeholders in the JSON written
 * over after); in memory they are encoded first. Both must be the same glTF, in every packing. */
static void test_export_images(const char *work)
{
    bk_scene *s = bk_scene_new();
    uint8_t *rgba = bk_malloc(8 * 8 * 4), *pal = bk_malloc(1024 + 16 * 16);
    for (int i = 0; i < 8 * 8 * 4; i++) rgba[i] = (uint8_t)(i * 7 + (i % 4 == 3 ? 100 : 0));
    for (int i = 0; i < 1024; i++) pal[i] = (uint8_t)(i % 4 == 3 ? 255 : i * 3);
    for (int i = 0; i < 16 * 16; i++) pal[1024 + i] = (uint8_t)(i % 13);
    int32_t im0, im1, im2, mat, mesh;
    CHECK(bk_scene_add_image(s, "rgba", 8, 8, rgba, &im0) == BK_OK);
    CHECK(bk_scene_add_packed_image(s, "pal", 16, 16, BK_PACK_PAL8, pal, 1024 + 16 * 16, NULL, -1, &im1) == BK_OK);
    CHECK(bk_scene_add_image(s, "external", 0, 0, NULL, &im2) == BK_OK); /* no pixels: no PNG */
    bk_atlas *a = bk_atlas_new(64, 1);
    uint8_t px[4 * 5 * 3];
    for (size_t i = 0; i < sizeof px; i++) px[i] = (uint8_t)(i % 4 == 3 ? 255 : 11 * i);
    int32_t lm = -1;
    CHECK(bk_atlas_add(a, 5, 3, px, NULL) == BK_OK && bk_atlas_pack(a) == BK_OK &&
          bk_atlas_to_rgb_image(a, s, "lm", &lm) == BK_OK);
    bk_atlas_free(a);
    CHECK(bk_scene_add_material(s, "m", &mat) == BK_OK);
    s->materials[mat].base_image = im1;
    s->materials[mat].lightmap_image = lm;
    s->materials[mat].emissive_image = im0;
    s->materials[mat].emissive[0] = 1;
    CHECK(bk_scene_add_mesh(s, "m", &mesh) == BK_OK);
    bk_primitive *p;
    uint32_t first;
    CHECK(bk_mesh_add_primitive(&s->meshes[mesh], mat, BK_PRIM_TRIANGLES, BK_ATTR_UV0 | BK_ATTR_UV1, &p) == BK_OK);
    CHECK(bk_prim_add_vertices(p, 3, &first) == BK_OK);
    p->position[3] = p->position[7] = 1;
    CHECK(bk_prim_add_triangle(p, 0, 1, 2) == BK_OK);
    CHECK(bk_scene_add_node(s, "n", -1, mesh, NULL) == BK_OK);
    char path[1024];
    snprintf(path, sizeof path, "%s/unit_images.glb", work);
    bk_export_stats st;
    uint8_t *d = NULL, *mem = NULL;
    size_t n = 0, mn = 0;
    CHECK(bk_export_gltf(s, NULL, path, &st) == BK_OK && st.images == 3);
    CHECK(bk_read_file(path, 1 << 20, &d, &n) == BK_OK && st.bytes == n);
    CHECK(bk_export_glb_memory(s, NULL, &mem, &mn, NULL) == BK_OK);
    cJSON *jf = NULL, *jm = NULL;
    const uint8_t *bf = NULL, *bm = NULL;
    size_t bfn = 0, bmn = 0;
    CHECK(d && glb_chunks(d, n, &jf, &bf, &bfn));
    CHECK(mem && glb_chunks(mem, mn, &jm, &bm, &bmn));
    CHECK(jf && jm && cJSON_Compare(jf, jm, true));
    CHECK(bfn > 0 && bfn == bmn && memcmp(bf, bm, bfn) == 0);
    /* three PNGs in the buffer, each where its view says */
    const cJSON *views = cJSON_GetObjectItem(jf, "bufferViews"), *imgs = cJSON_GetObjectItem(jf, "images");
    CHECK(cJSON_GetArraySize(imgs) == 3);
    int pngs = 0;
    for (int i = 0; i < cJSON_GetArraySize(imgs); i++) {
        int v = cJSON_GetObjectItem(cJSON_GetArrayItem(imgs, i), "bufferView")->valueint;
        const cJSON *view = cJSON_GetArrayItem(views, v);
        double ofs = cJSON_GetObjectItem(view, "byteOffset")->valuedouble;
        double len = cJSON_GetObjectItem(view, "byteLength")->valuedouble;
        if (ofs >= 0 && len > 8 && ofs + len <= (double)bfn && memcmp(bf + (size_t)ofs, "\x89PNG", 4) == 0) pngs++;
    }
    CHECK(pngs == 3);
    cJSON_Delete(jf);
    cJSON_Delete(jm);
    bk_free(d);
    bk_free(mem);
    /* .gltf + .bin: the same JSON but for the buffer's uri */
    snprintf(path, sizeof path, "%s/unit_images.gltf", work);
    CHECK(bk_export_gltf(s, NULL, path, NULL) == BK_OK);
    CHECK(bk_read_file(path, 1 << 20, &d, &n) == BK_OK);
    cJSON *jg = d ? cJSON_ParseWithLength((const char *)d, n) : NULL;
    const cJSON *buf0 = jg ? cJSON_GetArrayItem(cJSON_GetObjectItem(jg, "buffers"), 0) : NULL;
    CHECK(buf0 && cJSON_GetObjectItem(buf0, "byteLength")->valuedouble == (double)bfn);
    cJSON_Delete(jg);
    bk_free(d);
    bk_scene_free(s);
}

static void test_null_file(void)
{
    /* the accessors answer for a file that failed to load instead of dereferencing NULL */
    size_t n = 123;
    CHECK(bk_file_entities(NULL) != NULL && bk_file_entities(NULL)->count == 0);
    CHECK(bk_file_data(NULL, &n) == NULL && n == 0);
    CHECK(bk_file_info(NULL) == NULL || bk_file_info(NULL)->lump_count == 0);
    CHECK(bk_file_impl(NULL, BK_FORMAT_QUAKE3) == NULL);
}

static void test_utf8(void)
{
    CHECK(bk_utf8_valid("plain") && bk_utf8_valid("caf\xc3\xa9") && !bk_utf8_valid("caf\xe9"));
    CHECK(!bk_utf8_valid("\xc0\x80") && !bk_utf8_valid("\xe2\x82"));
    /* surrogates, overlong three- and four-byte forms and values past U+10FFFF are not UTF-8 */
    CHECK(!bk_utf8_valid("\xed\xa0\x80") && !bk_utf8_valid("\xed\xbf\xbf"));
    CHECK(!bk_utf8_valid("\xe0\x80\x80") && !bk_utf8_valid("\xe0\x9f\xbf"));
    CHECK(!bk_utf8_valid("\xf0\x80\x80\x80") && !bk_utf8_valid("\xf0\x8f\xbf\xbf"));
    CHECK(!bk_utf8_valid("\xf4\x90\x80\x80"));
    CHECK(bk_utf8_valid("\xed\x9f\xbf") && bk_utf8_valid("\xee\x80\x80") && bk_utf8_valid("\xe0\xa0\x80"));
    CHECK(bk_utf8_valid("\xf0\x90\x80\x80") && bk_utf8_valid("\xf4\x8f\xbf\xbf"));
    char *u = bk_utf8_from_8bit("caf\xe9!");
    CHECK(u && strcmp(u, "caf\xc3\xa9!") == 0);
    bk_free(u);
    u = bk_utf8_from_8bit("caf\xc3\xa9");
    CHECK(u && strcmp(u, "caf\xc3\xa9") == 0); /* valid text is kept as it is */
    bk_free(u);
    bk_scene *s = bk_scene_new();
    int32_t n;
    CHECK(bk_scene_add_node(s, "n\xff", -1, -1, &n) == BK_OK);
    CHECK(bk_kv_append(&s->nodes[n].extras, &s->nodes[n].extra_count, "k\xe4", "v\xf6") == BK_OK);
    CHECK(bk_scene_fix_utf8(s) == BK_OK);
    CHECK(bk_utf8_valid(s->nodes[n].name) && bk_utf8_valid(s->nodes[n].extras[0].key) &&
          bk_utf8_valid(s->nodes[n].extras[0].value));
    CHECK(strcmp(s->nodes[n].extras[0].value, "v\xc3\xb6") == 0);
    bk_scene_free(s);
}

static void test_detect(void)
{
    CHECK(bk_detect("xx", 2) == BK_FORMAT_UNKNOWN);
    bk_file *f = NULL;
    CHECK(bk_file_load_memory("NOPE1234", 8, NULL, &f) == BK_EMAGIC && f == NULL);
    CHECK(bk_file_load_memory("", 0, NULL, &f) == BK_ETRUNCATED);
    CHECK(strcmp(bk_strerror(BK_EINDEX), "reference out of range") == 0);
    CHECK(strcmp(bk_format_name(BK_FORMAT_GOLDSRC), "goldsrc") == 0);
}


/* the zip reader: case-insensitive lookups with either separator, the first of duplicate names,
 * members inflated and CRC-checked, an empty archive, truncated and corrupted archives refused */
static void test_archive(const char *src_dir)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/tests/data/zip/deflated.zip", src_dir);
    bk_archive *a = NULL;
    CHECK(bk_archive_open(path, NULL, &a) == BK_OK && bk_archive_count(a) == 3);
    int32_t i = bk_archive_find(a, "textures\\b.tga");
    CHECK(i >= 0 && bk_archive_entry_at(a, (uint32_t)i)->size == 300);
    uint8_t *d = NULL;
    size_t n = 0;
    CHECK(i >= 0 && bk_archive_read(a, (uint32_t)i, 1 << 20, &d, &n) == BK_OK && n == 300 && d[0] == 'x' && d[299] == 'x');
    bk_free(d);
    CHECK(i >= 0 && bk_archive_read(a, (uint32_t)i, 100, &d, &n) == BK_ELIMIT);
    CHECK(bk_archive_find(a, "/MAPS/A.BSP") >= 0 && bk_archive_find(a, "maps/b.bsp") < 0);
    bk_archive_close(a);
    /* the same bytes in memory, with one byte of a member's data flipped: the CRC says so */
    uint8_t *z = NULL;
    size_t zn = 0;
    CHECK(bk_read_file(path, 1 << 20, &z, &zn) == BK_OK);
    if (z) {
        CHECK(bk_archive_open_memory(z, zn, NULL, &a) == BK_OK);
        int32_t j = bk_archive_find(a, "maps/a.bsp");
        CHECK(j >= 0 && bk_archive_read(a, (uint32_t)j, 1 << 20, &d, &n) == BK_OK && n == 204 && memcmp(d, "IBSP", 4) == 0);
        bk_free(d);
        bk_archive_close(a);
        uint8_t *bad = bk_malloc(zn);
        memcpy(bad, z, zn);
        bad[40] ^= 0x55; /* inside the first member's stored data */
        if (bk_archive_open_memory(bad, zn, NULL, &a) == BK_OK) {
            j = bk_archive_find(a, "maps/a.bsp");
            CHECK(j >= 0 && bk_archive_read(a, (uint32_t)j, 1 << 20, &d, &n) != BK_OK);
            bk_archive_close(a);
        }
        /* cut short: no end record, no archive */
        CHECK(bk_archive_open_memory(z, zn / 2, NULL, &a) == BK_EFORMAT && a == NULL);
        bk_free(bad);
        bk_free(z);
    }
    snprintf(path, sizeof path, "%s/tests/data/zip/stored.zip", src_dir);
    CHECK(bk_archive_open(path, NULL, &a) == BK_OK);
    i = bk_archive_find(a, "SCRIPTS/X.SHADER");
    CHECK(i == 0 && bk_archive_read(a, 0, 1 << 20, &d, &n) == BK_OK && n > 3 && memcmp(d, "textures/a", 10) == 0);
    bk_free(d);
    bk_archive_close(a);
    snprintf(path, sizeof path, "%s/tests/data/zip/empty.zip", src_dir);
    CHECK(bk_archive_open(path, NULL, &a) == BK_OK && bk_archive_count(a) == 0 && bk_archive_find(a, "x") < 0);
    bk_archive_close(a);
    snprintf(path, sizeof path, "%s/tests/data/zip/none.zip", src_dir);
    CHECK(bk_archive_open(path, NULL, &a) == BK_ENOTFOUND);
}

/* bk_vfs: roots in order (an archive given open, a folder found without case), where a file is
 * without reading it, and an archive entry that is listed but does not read */
static void test_vfs(const char *src_dir, const char *work)
{
    char path[2048], dir[1024];
    snprintf(dir, sizeof dir, "%.900s/vfs_root", work);
    snprintf(path, sizeof path, "%s/Materials", dir);
    mkdir(dir, 0755);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/Materials/Wall.VMT", dir);
    FILE *fp = fopen(path, "wb");
    CHECK(fp != NULL);
    if (fp) {
        fputs("LightmappedGeneric {}", fp);
        fclose(fp);
    }
    uint8_t *z = NULL, *d = NULL;
    size_t zn = 0, n = 0;
    snprintf(path, sizeof path, "%s/tests/data/zip/deflated.zip", src_dir);
    CHECK(bk_read_file(path, 1 << 20, &z, &zn) == BK_OK);
    if (!z) return;
    z[40] ^= 0x55; /* maps/a.bsp's stored bytes: listed, but its CRC fails */
    bk_archive *a = NULL;
    CHECK(bk_archive_open_memory(z, zn, NULL, &a) == BK_OK);
    bk_vfs *v = bk_vfs_new(NULL);
    CHECK(v != NULL && bk_vfs_root_count(v) == 0 && bk_vfs_locate(v, "maps/a.bsp") == NULL);
    CHECK(bk_vfs_add_archive(v, a, "pakfile", true));
    CHECK(bk_vfs_add_folder(v, dir) && !bk_vfs_add_folder(v, path) && bk_vfs_root_count(v) == 2);
    CHECK(bk_vfs_has_root(v, "pakfile") && bk_vfs_has_root(v, dir) && !bk_vfs_has_root(v, "other"));
    const char *where = bk_vfs_locate(v, "MAPS\\A.BSP");
    CHECK(where && strcmp(where, "pakfile") == 0);
    CHECK(bk_vfs_read_from(v, "maps/a.bsp", 1 << 20, &d, &n, &where) != BK_OK && d == NULL);
    where = bk_vfs_locate(v, "materials/wall.vmt");
    CHECK(where && strcmp(where, dir) == 0);
    CHECK(bk_vfs_read_from(v, "/materials/WALL.vmt", 1 << 20, &d, &n, &where) == BK_OK && n == 21 &&
          where && strcmp(where, dir) == 0);
    bk_free(d);
    CHECK(bk_vfs_locate(v, "materials/none.vmt") == NULL && bk_vfs_locate(v, "materials") == NULL);
    CHECK(bk_vfs_read_from(v, "materials/none.vmt", 1 << 20, &d, &n, &where) == BK_ENOTFOUND && where == NULL);
    bk_vfs_free(v);   /* closes the archive it owns */
    bk_free(z);
}

typedef struct diag_count {
    int n;
    bool read_error;
} diag_count;

static void count_diag(void *user, const bk_diag *d)
{
    diag_count *c = user;
    c->n++;
    if (strstr(d->message, "cannot read file")) c->read_error = true;
}

/* bk_validate_file gives what bk_validate_memory gives on the same bytes, read (small file) or
 * mapped (256 KiB and more), and one located error for a file that cannot be read */
static void test_validate_file(const char *src_dir, const char *work)
{
    char small[1024], big[1024];
    snprintf(small, sizeof small, "%s/samples/bsp_tool_quake_mp_lobby.bsp", src_dir);
    snprintf(big, sizeof big, "%s/bk_validate_big.bsp", work);
    FILE *fp = fopen(small, "rb");
    static uint8_t buf[300 << 10];
    size_t n = fp ? fread(buf, 1, sizeof buf, fp) : 0;
    if (fp) fclose(fp);
    CHECK(n > 0 && n < (256u << 10));
    /* the same map with trailing bytes to pass the mapping threshold */
    fp = fopen(big, "wb");
    CHECK(fp && fwrite(buf, 1, sizeof buf, fp) == sizeof buf);
    if (fp) fclose(fp);
    const char *paths[2] = {small, big};
    size_t sizes[2] = {n, sizeof buf};
    for (int i = 0; i < 2; i++) {
        uint32_t fe = 9, fw = 9, me = 7, mw = 7;
        bk_format fmt = BK_FORMAT_UNKNOWN;
        bk_result rf = bk_validate_file(paths[i], NULL, &fmt, &fe, &fw);
        bk_result rm = bk_validate_memory(buf, sizes[i], NULL, &me, &mw);
        CHECK(rf == rm && fe == me && fw == mw && fmt == bk_detect(buf, sizes[i]) && fmt != BK_FORMAT_UNKNOWN);
    }
    remove(big);
    diag_count c = {0, false};
    bk_options o;
    memset(&o, 0, sizeof o);
    o.diag = count_diag;
    o.diag_user = &c;
    uint32_t e = 0, w = 0;
    bk_format fmt = BK_FORMAT_QUAKE1;
    CHECK(bk_validate_file(big, &o, &fmt, &e, &w) == BK_ENOTFOUND && e == 1 && c.n == 1 && c.read_error &&
          fmt == BK_FORMAT_UNKNOWN);
    CHECK(bk_validate_file(NULL, NULL, NULL, NULL, NULL) == BK_EARG);
}

/* Real maps built with BK_OPT_COMPACT_IMAGES (what bk_file_build_scene does) hold images packed, and
 * those unpack to exactly the pixels of a plain build and encode to the same PNG. */
/* resident file-backed memory of this process in kB (Linux), or -1 */
static long rss_file_kb(void)
{
    FILE *fp = fopen("/proc/self/status", "r");
    if (!fp) return -1;
    char line[256];
    long kb = -1;
    while (fgets(line, sizeof line, fp))
        if (strncmp(line, "RssFile:", 8) == 0) kb = strtol(line + 8, NULL, 10);
    fclose(fp);
    return kb;
}

/* bk_file_release_pages: a mapped map's resident pages go back, the file reads the same after */
static void test_release_pages(const char *shared)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/corpus/source/tf2c_v20_lzma_tdm_wintercastle.bsp", shared);
    bk_file *f = NULL;
    if (bk_file_open(path, NULL, &f) != BK_OK) {
        printf("skip: %s not readable\n", path);
        return;
    }
    size_t n = 0;
    const uint8_t *d = bk_file_data(f, &n);
    uint64_t sum = 0;
    for (size_t i = 0; i < n; i++) sum = sum * 31 + d[i];
    long before = rss_file_kb();
    bk_file_release_pages(f);
    long after = rss_file_kb();
    if (before >= 0) {
        CHECK(before - after >= (long)(n / 1024) / 2);
        if (before - after < (long)(n / 1024) / 2) fprintf(stderr, "RssFile %ld -> %ld kB (file %zu kB)\n", before, after, n / 1024);
    }
    uint64_t again = 0;
    for (size_t i = 0; i < n; i++) again = again * 31 + d[i];
    CHECK(again == sum);
    bk_scene *s = NULL;
    CHECK(bk_file_build_scene(f, NULL, &s) == BK_OK && s && s->mesh_count > 0);
    bk_scene_free(s);
    bk_file_release_pages(NULL);
    bk_file_free(f);
}

static void test_compact_images(const char *shared, const char *fetched)
{
    char paths[4][1024];
    snprintf(paths[0], sizeof paths[0], "%s/corpus/goldsrc/cs16_fy_snow.bsp", shared);
    snprintf(paths[1], sizeof paths[1], "%s/corpus/quake1/progs_dump_start.bsp", shared);
    snprintf(paths[2], sizeof paths[2], "%s/corpus/source/css_v20_gg_lego_arena_x.bsp", shared);
    /* Quake 3 with its textures: the JPEG / compressed TGA ones stay as their files' bytes */
    snprintf(paths[3], sizeof paths[3], "%s/q3/oa081/ctf_inyard.bsp", fetched);
    char pk3[2][1024];
    snprintf(pk3[0], sizeof pk3[0], "%s/pk3/oa-pak4-textures.pk3", fetched);
    snprintf(pk3[1], sizeof pk3[1], "%s/pk3/oa-pak6-misc.pk3", fetched);
    const char *q3paths[2] = {pk3[0], pk3[1]};
    bk_options q3o;
    memset(&q3o, 0, sizeof q3o);
    q3o.search_paths = q3paths;
    q3o.search_path_count = 2;
    static const uint32_t want[4] = {1u << BK_PACK_RGB_UP | 1u << BK_PACK_PAL8, 1u << BK_PACK_RGB_UP | 1u << BK_PACK_PAL8,
                                     1u << BK_PACK_RGB_UP | 1u << BK_PACK_CODEC, 1u << BK_PACK_RGB_UP | 1u << BK_PACK_CODEC};
    for (int k = 0; k < 4; k++) {
        bk_file *f = NULL;
        if (bk_file_open(paths[k], NULL, &f) != BK_OK) {
            printf("skip: %s not readable\n", paths[k]);
            continue;
        }
        bk_scene *a = NULL, *b = NULL;
        const bk_options *o = k == 3 ? &q3o : NULL;
        CHECK(bk_scene_build(f, o, 0, &a) == BK_OK && bk_file_build_scene(f, o, &b) == BK_OK);
        if (!a || !b) {
            bk_scene_free(a);
            bk_scene_free(b);
            bk_file_free(f);
            continue;
        }
        CHECK(a->image_count == b->image_count && a->image_count > 0);
        size_t pal_rgb = 0, pal_idx = 0;
        uint32_t seen = 0, same = 0, n = a->image_count < b->image_count ? a->image_count : b->image_count;
        for (uint32_t i = 0; i < n; i++) {
            const bk_image *x = &a->images[i], *y = &b->images[i];
            const bk_pixels *xp = PX(a, i), *yp = PX(b, i);
            if (!xp->rgba) continue;
            if (yp->rgba == NULL) seen |= 1u << yp->packing;
            uint8_t *px = NULL;
            bk_buf p1 = {0}, p2 = {0};
            /* each step named, so a failure says which */
            const char *why = NULL;
            if (strcmp(x->name, y->name) || x->width != y->width || x->height != y->height)
                why = "name or size";
            else if (x->has_alpha != y->has_alpha || x->is_lightmap != y->is_lightmap)
                why = "alpha or lightmap flag";
            else if (bk_scene_image_rgba(b, i, &px) != BK_OK)
                why = "unpacking";
            else if (memcmp(px, xp->rgba, (size_t)x->width * x->height * 4) != 0)
                why = "pixels";
            else if (bk_png_encode_image(a, i, 1, &p1) != BK_OK || bk_png_encode_image(b, i, 1, &p2) != BK_OK)
                why = "PNG encoding";
            bool ok = why == NULL;
            if (ok && yp->packing == BK_PACK_PAL8) {
                /* written as an indexed PNG: other bytes, the same pixels */
                uint8_t *back = NULL;
                uint32_t bw = 0, bh = 0;
                ok = bk_image_decode(p2.data, p2.size, 1u << 14, &back, &bw, &bh) == BK_OK && bw == x->width &&
                     bh == x->height && memcmp(back, xp->rgba, (size_t)bw * bh * 4) == 0;
                if (!ok) fprintf(stderr, "decoded %ux%u\n", bw, bh);
                pal_rgb += p1.size, pal_idx += p2.size;
                bk_free(back);
            } else if (ok && (p1.size != p2.size || memcmp(p1.data, p2.data, p1.size) != 0)) {
                /* The same pixels must give the same PNG. A difference is told apart: the encoder
                 * giving other bytes for the same rows (run twice), or the rows themselves. */
                bk_buf p3 = {0};
                bool again = bk_png_encode_image(a, i, 1, &p3) == BK_OK && p3.size == p1.size &&
                             memcmp(p3.data, p1.data, p1.size) == 0;
                uint8_t *d1 = NULL, *d2 = NULL;
                uint32_t w1 = 0, h1 = 0, w2 = 0, h2 = 0;
                bool pix = bk_image_decode(p1.data, p1.size, 1u << 14, &d1, &w1, &h1) == BK_OK &&
                           bk_image_decode(p2.data, p2.size, 1u << 14, &d2, &w2, &h2) == BK_OK && w1 == w2 &&
                           h1 == h2 && memcmp(d1, d2, (size_t)w1 * h1 * 4) == 0;
                fprintf(stderr, "%s: image %u: PNG %zu vs %zu bytes; encoding it again gives %s bytes; decoded %s\n",
                        paths[k], i, p1.size, p2.size, again ? "the same" : "other", pix ? "the same" : "differently");
                /* the test is of the packing: an encoder that is not repeatable on one image is
                 * reported, not blamed on it, as long as the pixels agree */
                ok = !again && pix;
                why = ok ? NULL : "PNG bytes";
                bk_free(d1);
                bk_free(d2);
                bk_buf_free(&p3);
            }
            same += ok;
            if (!ok) fprintf(stderr, "%s: image %u (%s) differs when packed: %s\n", paths[k], i, x->name, why ? why : "indexed PNG");
            bk_free(px);
            bk_buf_free(&p1);
            bk_buf_free(&p2);
        }
        uint32_t with_px = 0;
        for (uint32_t i = 0; i < n; i++) with_px += PX(a, i)->rgba != NULL;
        CHECK(same == with_px && with_px > 0);
        /* the atlas: RGB rows, or a PNG deflated as drawn when those are over half the map's size */
        uint32_t atlas = 1u << BK_PACK_RGB_UP | 1u << BK_PACK_PNG;
        CHECK((seen & want[k] & ~atlas) == (want[k] & ~atlas) && (seen & atlas) != 0);
        CHECK(pal_idx <= pal_rgb); /* indexed PNGs: not larger in all */
        bk_scene_free(a);
        bk_scene_free(b);
        bk_file_free(f);
    }
}

int main(int argc, char **argv)
{
    /* outputs go to the work folder ctest gives, else the temporary folder (never the checkout) */
    const char *work = argc > 3 ? argv[3] : (getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    test_entities();
    test_kv_last();
    test_numbers();
    test_limits();
    test_atlas_limit(SOURCE_DIR);
    test_read_hook(SOURCE_DIR);
    test_archive(SOURCE_DIR);
    test_vfs(SOURCE_DIR, work);
    test_entity_nodes();
    test_cursor();
    test_strset();
    test_atlas();
    test_atlas_png();
    test_atlas_many();
    test_png_roundtrip();
    test_json_num();
    if (argc > 2) test_compact_images(argv[1], argv[2]);
    if (argc > 2) test_release_pages(argv[1]);
    test_xform();
    test_export(work);
    test_export_images(work);
    test_validate_file(SOURCE_DIR, work);
    test_detect();
    test_utf8();
    test_null_file();
    return CHECK_DONE();
}
