/* Lumps as JSON and back (bk_lump_to_json, bk_edit_set_lump_json, src/formats/lump_json.c):
 *  - every lump of every map of ../shared/corpus (GoldSrc, Quake 1, BSP2, Source) and one Quake 3
 *    map in four: the JSON reads back to the lump's exact (decompressed) bytes, and an edit that
 *    imports every lump's JSON saves a file byte-identical to the map;
 *  - a changed element is written, reads back, and leaves every other lump's bytes alone (a Source
 *    LZMA lump is stored LZMA-compressed again);
 *  - hostile JSON (wrong types, missing and unknown fields, out-of-range values, huge arrays, bad
 *    base64; for Source's occlusion lump of three counted arrays also sections missing, twice or
 *    unknown and counts that disagree) is refused with a located error and changes nothing.
 * argv: SHARED FETCHED WORK. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/check.h"
#include "bspkit/write.h"
#include "formats/family.h"

static uint8_t *slurp(const char *path, size_t *n)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    fseek(fp, 0, SEEK_END);
    long sz = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    uint8_t *d = malloc(sz > 0 ? (size_t)sz : 1);
    *n = d && fread(d, 1, (size_t)sz, fp) == (size_t)sz ? (size_t)sz : 0;
    fclose(fp);
    return d;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* the .bsp files of dir (sorted, unusual_* left out), one in `every` */
static int list_maps(const char *dir, int every, char **out, int cap)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    char *names[512];
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL && n < 512;) {
        size_t l = strlen(e->d_name);
        if (l < 5 || strcmp(e->d_name + l - 4, ".bsp") || strncmp(e->d_name, "unusual_", 8) == 0) continue;
        names[n] = malloc(strlen(dir) + l + 2);
        sprintf(names[n], "%s/%s", dir, e->d_name);
        n++;
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], by_name);
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (i % every == 0 && k < cap) out[k++] = names[i];
        else free(names[i]);
    }
    return k;
}

typedef struct tally {
    int maps, lumps, field_lumps, bad;
    uint64_t elements;
} tally;

/* path read and loaded from memory (the file keeps pointing into *data: free it after the file);
 * NULL, with nothing to free, when either fails */
static bk_file *load_map(const char *path, uint8_t **data)
{
    size_t n;
    bk_file *f = NULL;
    *data = slurp(path, &n);
    if (*data && bk_file_load_memory(*data, n, NULL, &f) == BK_OK) return f;
    free(*data);
    *data = NULL;
    return NULL;
}

/* every lump: JSON -> bytes identical; all of them imported at once -> the file byte-identical */
static void round_trip(const char *path, tally *t)
{
    uint8_t *data;
    bk_file *f = load_map(path, &data);
    if (!f) {
        fprintf(stderr, "%s: does not load\n", path);
        t->bad++;
        return;
    }
    size_t n;
    bk_file_data(f, &n);
    bk_edit *e = NULL;
    CHECK(bk_edit_begin(f, NULL, &e) == BK_OK);
    bk_lump_shape s;
    uint32_t i = 0;
    for (; bk_lump_shape_at(f, i, &s) == BK_OK; i++) {
        char *js = NULL;
        size_t jn = 0;
        bk_lump_view v;
        uint8_t *back = NULL;
        size_t bn = 0;
        bk_diag d;
        memset(&d, 0, sizeof d);
        bool ok = bk_lump_to_json(f, s.name, &js, &jn) == BK_OK && bk_lump_view_of(f, i, &v) == BK_OK &&
                  bk_lump_json_read(f, i, js, jn, NULL, &back, &bn, &d) == BK_OK && bn == v.size &&
                  (bn == 0 || memcmp(back, v.data, bn) == 0) && bk_edit_set_lump_json(e, s.name, js, jn, NULL) == BK_OK;
        if (!ok) {
            fprintf(stderr, "%s: lump %s does not round-trip (%zu -> %zu bytes) %s\n", path, s.name, (size_t)s.size, bn,
                    d.message);
            t->bad++;
        }
        t->lumps++;
        if (s.field_count) {
            t->field_lumps++;
            t->elements += s.size / s.entry_size;
        }
        bk_free(js);
        bk_free(back);
    }
    CHECK(i > 0);
    uint8_t *out = NULL;
    size_t on = 0;
    bool same = bk_edit_save_memory(e, &out, &on) == BK_OK && on == n && memcmp(out, data, n) == 0;
    if (!same) {
        fprintf(stderr, "%s: importing every lump's JSON does not give the map back\n", path);
        t->bad++;
    }
    bk_free(out);
    bk_edit_free(e);
    bk_file_free(f);
    free(data);
    t->maps++;
}

/* replace element 0 of `lump` with `elem` (a JSON object), save, reload: the lump reads back with
 * it, every other lump's bytes are unchanged */
static void change_one(const char *path, const char *lump, const char *elem, const char *want)
{
    uint8_t *data;
    bk_file *f = load_map(path, &data), *g = NULL;
    if (!f) {
        CHECK(!"map loads");
        return;
    }
    char *js = NULL;
    size_t jn = 0;
    CHECK(bk_lump_to_json(f, lump, &js, &jn) == BK_OK);
    char *end = js ? strstr(js, "}") : NULL;   /* element 0: "[\n{...}" */
    CHECK(end != NULL);
    if (!end) return;
    size_t el = strlen(elem);
    char *mod = malloc(jn + el + 8);
    sprintf(mod, "[\n%s%s", elem, end + 1);
    bk_edit *e = NULL;
    uint8_t *out = NULL;
    size_t on = 0;
    CHECK(bk_edit_begin(f, NULL, &e) == BK_OK);
    CHECK(bk_edit_set_lump_json(e, lump, mod, strlen(mod), NULL) == BK_OK);
    bk_result r = bk_edit_save_memory(e, &out, &on);
    if (r != BK_OK) fprintf(stderr, "%s: edit of %s not saved: %s\n", path, lump, bk_result_name(r));
    CHECK(r == BK_OK);
    CHECK(out && bk_file_load_memory(out, on, NULL, &g) == BK_OK);
    if (g) {
        char *js2 = NULL;
        CHECK(bk_lump_to_json(g, lump, &js2, NULL) == BK_OK);
        CHECK(js2 && strncmp(js2 + 2, want, strlen(want)) == 0);
        if (js2 && strncmp(js2 + 2, want, strlen(want))) fprintf(stderr, "%s: read back %.200s\n", path, js2);
        uint32_t li = 0;
        bk_family_lump(f->family, lump, &li);
        bk_lump_shape s;
        int other = 0, same = 0;
        for (uint32_t i = 0; bk_lump_shape_at(f, i, &s) == BK_OK; i++) {
            bk_lump_view a, b;
            /* Source's game-lump directory holds absolute offsets: rewritten when it moves */
            if (strcmp(s.name, "game_lump") == 0) continue;
            if (i == li) {
                /* stored as the map stored it: LZMA-compressed again when it was */
                CHECK(bk_lump_view_of(f, i, &a) == BK_OK && bk_lump_view_of(g, i, &b) == BK_OK &&
                      b.compressed == a.compressed);
                continue;
            }
            other++;
            if (bk_lump_view_of(f, i, &a) == BK_OK && bk_lump_view_of(g, i, &b) == BK_OK && a.size == b.size &&
                (!a.size || memcmp(a.data, b.data, a.size) == 0) && a.compressed == b.compressed)
                same++;
            else
                fprintf(stderr, "%s: lump %s changed by an edit of %s\n", path, s.name, lump);
        }
        CHECK(other > 0 && same == other);
        bk_free(js2);
    }
    bk_file_free(g);
    bk_free(out);
    bk_edit_free(e);
    free(mod);
    bk_free(js);
    bk_file_free(f);
    free(data);
}

/* json refused as BK_EFORMAT / BK_ELIMIT, the error naming `has` at element `index` */
static void refused(bk_file *f, const bk_options *opt, const char *lump, const char *json, bk_result code,
                    int64_t index, const char *has)
{
    bk_edit *e = NULL;
    bk_diag d;
    memset(&d, 0, sizeof d);
    CHECK(bk_edit_begin(f, opt, &e) == BK_OK);
    bk_result r = bk_edit_set_lump_json(e, lump, json, strlen(json), &d);
    bool ok = r == code && d.index == index && d.lump && strcmp(d.lump, lump) == 0 && strstr(d.message, has) &&
              d.offset != BK_NO_OFFSET && strstr(d.message, "line ");
    if (!ok)
        fprintf(stderr, "hostile %s %.60s: got %s [%lld] '%s', want %s [%lld] '%s'\n", lump, json, bk_result_name(r),
                (long long)d.index, d.message, bk_result_name(code), (long long)index, has);
    CHECK(ok);
    /* nothing changed: the edit saves the map as it was */
    uint8_t *out = NULL;
    size_t on = 0, n = 0;
    const uint8_t *orig = bk_file_data(f, &n);
    CHECK(bk_edit_save_memory(e, &out, &on) == BK_OK && on == n && memcmp(out, orig, n) == 0);
    bk_free(out);
    bk_edit_free(e);
}

static void hostile(const char *path)
{
    uint8_t *data;
    bk_file *f = load_map(path, &data);
    if (!f) {
        CHECK(!"map loads");
        return;
    }
    const char *P = "planes";
    refused(f, NULL, P, "", BK_EFORMAT, BK_NO_INDEX, "expected '['");
    refused(f, NULL, P, "{\"normal\": [0, 0, 1]}", BK_EFORMAT, BK_NO_INDEX, "expected '['");
    refused(f, NULL, P, "[{\"normal\": \"up\", \"dist\": 0, \"type\": 0}]", BK_EFORMAT, 0, "\"normal\"");
    refused(f, NULL, P, "[{\"normal\": [0, 0, 1], \"dist\": 0, \"type\": 0},\n{\"normal\": [0, 0], \"dist\": 0, \"type\": 0}]",
            BK_EFORMAT, 1, "array of 3");
    refused(f, NULL, P, "[{\"normal\": [0, 0, 1], \"dist\": 0}]", BK_EFORMAT, 0, "missing field \"type\"");
    refused(f, NULL, P, "[{\"normal\": [0, 0, 1], \"dist\": 0, \"type\": 0, \"typo\": 1}]", BK_EFORMAT, 0,
            "unknown field \"typo\"");
    refused(f, NULL, P, "[{\"normal\": [0, 0, 1], \"dist\": 0, \"type\": 3000000000}]", BK_EFORMAT, 0, "range");
    refused(f, NULL, P, "[{\"normal\": [0, 0, 1], \"dist\": 0, \"type\": 1.5}]", BK_EFORMAT, 0, "integer");
    refused(f, NULL, P, "[{\"normal\": [0, 0, 1e39], \"dist\": 0, \"type\": 0}]", BK_EFORMAT, 0, "\"normal\"[2]");
    refused(f, NULL, P, "[{\"normal\": [0, 0, 1], \"dist\": \"0xZZ\", \"type\": 0}]", BK_EFORMAT, 0, "hex");
    refused(f, NULL, P, "[{\"normal\": [0, 0, 1], \"dist\": null, \"type\": 0}]", BK_EFORMAT, 0, "null");
    refused(f, NULL, P, "[{\"normal\": [0, 0, 1], \"dist\": 0, \"type\": 0}", BK_EFORMAT, 0, "after element 0");
    refused(f, NULL, P, "[{\"normal\": [0, 0, 1], \"dist\": 0, \"type\": 0}] x", BK_EFORMAT, BK_NO_INDEX, "text after");
    refused(f, NULL, P, "[{\"normal\": [0, 0, 1], \"dist\": 0, \"type\": 0}, 7]", BK_EFORMAT, 1, "expected '{'");
    refused(f, NULL, P, "[{\"normal\": [0, 0, 1], \"dist\": 0, \"type\": 0, }]", BK_EFORMAT, 0, "not valid JSON");
    refused(f, NULL, "edges", "[{\"v\": [70000, 0]}]", BK_EFORMAT, 0, "\"v\"[0]");
    refused(f, NULL, "edges", "[{\"v\": [-1, 0]}]", BK_EFORMAT, 0, "range");
    /* huge arrays: past max_elements, refused at the element over it */
    bk_options lim;
    memset(&lim, 0, sizeof lim);
    lim.limits.max_elements = 1000;
    size_t cap = 2000 * 48 + 16, at = 0;
    char *big = malloc(cap);
    at += (size_t)sprintf(big, "[");
    for (int i = 0; i < 1500; i++) at += (size_t)sprintf(big + at, "%s{\"v\": [0, 1]}", i ? "," : "");
    sprintf(big + at, "]");
    refused(f, &lim, "edges", big, BK_ELIMIT, 1000, "over the limit");
    free(big);
    /* an element that does not close in a long text, a deep nest */
    refused(f, NULL, "edges", "[{\"v\": [0, 1]}, {\"v\": [[[[[[[[[[[[", BK_EFORMAT, 1, "does not close");
    /* opaque lumps: base64 */
    const char *L = "lighting";
    refused(f, NULL, L, "[]", BK_EFORMAT, BK_NO_INDEX, "expected an object");
    refused(f, NULL, L, "{\"encoding\": \"hex\", \"data\": \"\"}", BK_EFORMAT, BK_NO_INDEX, "\"encoding\"");
    refused(f, NULL, L, "{\"encoding\": \"base64\", \"data\": \"AAA\"}", BK_EFORMAT, BK_NO_INDEX, "multiple of 4");
    refused(f, NULL, L, "{\"encoding\": \"base64\", \"data\": \"A=AA\"}", BK_EFORMAT, BK_NO_INDEX, "not base64");
    refused(f, NULL, L, "{\"encoding\": \"base64\", \"data\": \"AAAA\", \"size\": 4}", BK_EFORMAT, BK_NO_INDEX, "\"size\"");
    refused(f, NULL, L, "{\"lump\": \"planes\", \"encoding\": \"base64\", \"data\": \"\"}", BK_EFORMAT, BK_NO_INDEX, "\"lump\"");
    refused(f, NULL, L, "{\"encoding\": \"base64\", \"data\": \"\", \"extra\": 1}", BK_EFORMAT, BK_NO_INDEX, "unknown key");
    /* an unknown lump name; and references an import breaks are refused by the writer's validation */
    bk_edit *e = NULL;
    CHECK(bk_edit_begin(f, NULL, &e) == BK_OK);
    CHECK(bk_edit_set_lump_json(e, "nosuch", "[]", 2, NULL) == BK_ENOTFOUND);
    CHECK(bk_edit_set_lump_json(e, "edges", "[{\"v\": [0, 65535]}]", 19, NULL) == BK_OK);
    uint8_t *out = NULL;
    size_t on = 0;
    CHECK(bk_edit_save_memory(e, &out, &on) != BK_OK && out == NULL);
    bk_edit_free(e);
    bk_file_free(f);
    free(data);
}

/* the occlusion lump of a Source map: an object of three counted arrays (occluders, polys,
 * vertex_indices); hostile ones refused, located (the section in the message), nothing changed */
static void hostile_occlusion(const char *path)
{
    uint8_t *data;
    bk_file *f = load_map(path, &data);
    if (!f) {
        CHECK(!"map loads");
        return;
    }
    const char *O = "occlusion";
#define OCC "{\"flags\": 0, \"firstpoly\": 0, \"polycount\": 1, \"mins\": [0, 0, 0], \"maxs\": [1, 1, 1], \"area\": 0}"
#define POLY "{\"firstvertexindex\": 0, \"vertexcount\": 3, \"planenum\": 0}"
    /* counts that disagree: an occluder's polygons past the polys, a polygon's indices past the indices */
    refused(f, NULL, O, "{\"occluders\": [" OCC ", " OCC "], \"polys\": [], \"vertex_indices\": []}", BK_EFORMAT, 0,
            "\"occluders\": \"firstpoly\" 0 + \"polycount\" 1: out of the 0 polys");
    refused(f, NULL, O, "{\"occluders\": [" OCC "], \"polys\": [" POLY "], \"vertex_indices\": [0, 1]}", BK_EFORMAT, 0,
            "\"polys\": \"firstvertexindex\" 0 + \"vertexcount\" 3: out of the 2 vertex_indices");
    /* wrong types, missing and unknown sections and fields */
    refused(f, NULL, O, "{\"occluders\": [], \"polys\": [], \"vertex_indices\": [0, \"1\"]}", BK_EFORMAT, 1,
            "\"vertex_indices\": field \"vertex_index\" (i32): expected a number");
    refused(f, NULL, O, "{\"occluders\": [], \"polys\": [], \"vertex_indices\": [0, 1.5]}", BK_EFORMAT, 1, "integer");
    refused(f, NULL, O, "{\"occluders\": [], \"polys\": [7]}", BK_EFORMAT, 0, "\"polys\": expected '{'");
    refused(f, NULL, O, "{\"occluders\": [], \"polys\": []}", BK_EFORMAT, BK_NO_INDEX, "missing section \"vertex_indices\"");
    refused(f, NULL, O, "{\"occluders\": [], \"occluders\": []}", BK_EFORMAT, BK_NO_INDEX, "given twice");
    refused(f, NULL, O, "{\"occluders\": [], \"leafs\": []}", BK_EFORMAT, BK_NO_INDEX, "not a section");
    refused(f, NULL, O, "{\"occluders\": [{\"flags\": 0}], \"polys\": [], \"vertex_indices\": []}", BK_EFORMAT, 0,
            "missing field \"firstpoly\"");
    refused(f, NULL, O, "{\"occluders\": \"none\", \"polys\": [], \"vertex_indices\": []}", BK_EFORMAT, BK_NO_INDEX,
            "expected '['");
    refused(f, NULL, O, "{\"occluders\": [], \"polys\": [], \"vertex_indices\": []} x", BK_EFORMAT, BK_NO_INDEX,
            "text after");
    refused(f, NULL, O, "[]", BK_EFORMAT, BK_NO_INDEX, "expected '{'");
#undef OCC
#undef POLY
    /* a huge array: past max_elements, refused at the element over it */
    bk_options lim;
    memset(&lim, 0, sizeof lim);
    lim.limits.max_elements = 1000;
    char *big = malloc(1500 * 8 + 128);
    size_t at = (size_t)sprintf(big, "{\"occluders\": [], \"polys\": [], \"vertex_indices\": [");
    for (int i = 0; i < 1500; i++) at += (size_t)sprintf(big + at, "%s%d", i ? ", " : "", i);
    sprintf(big + at, "]}");
    refused(f, &lim, O, big, BK_ELIMIT, 1000, "over the limit");
    free(big);
    bk_file_free(f);
    free(data);
}

int main(int argc, char **argv)
{
    if (argc < 4) return 2;
    char dir[1024];
    char *maps[600];
    int n = 0;
    static const char *sub[] = {"goldsrc", "quake1", "source"};
    for (int i = 0; i < 3; i++) {
        snprintf(dir, sizeof dir, "%s/corpus/%s", argv[1], sub[i]);
        n += list_maps(dir, 1, maps + n, 600 - n);
    }
    /* BSP2 (its wide lumps: the second column of the Quake rows) */
    snprintf(dir, sizeof dir, "%s/corpus/quake1/unusual_bsp2_remakequake_mp_lobby.bsp", argv[1]);
    FILE *bsp2 = fopen(dir, "rb");
    if (bsp2) {
        fclose(bsp2);
        maps[n] = malloc(strlen(dir) + 1);
        strcpy(maps[n++], dir);
    }
    int shared = n;
    static const char *q3[] = {"oa081", "oa088", "nexuiz"};
    for (int i = 0; i < 3; i++) {
        snprintf(dir, sizeof dir, "%s/q3/%s", argv[2], q3[i]);
        /* one in four; under the sanitizers (make asan sets ASAN_OPTIONS) one in sixteen: the same code */
        n += list_maps(dir, getenv("ASAN_OPTIONS") ? 16 : 4, maps + n, 600 - n);
    }
    if (shared == 0) {
        printf("SKIP: no maps in %s/corpus\n", argv[1]);
        return 77;
    }
    tally t = {0};
    for (int i = 0; i < n && !getenv("LUMP_JSON_QUICK"); i++) round_trip(maps[i], &t);
    printf("round trip: %d maps (%d Quake 3), %d lumps (%d with fields, %llu elements), %d failures\n", t.maps,
           n - shared, t.lumps, t.field_lumps, (unsigned long long)t.elements, t.bad);
    CHECK(t.bad == 0 && (t.maps == n || getenv("LUMP_JSON_QUICK")));

    char p[1024];
    snprintf(p, sizeof p, "%s/corpus/quake1/vektar_start.bsp", argv[1]);
    hostile(p);
    change_one(p, "vertices", "{\"point\": [1.5, -2.25, 1e+10]}", "{\"point\": [1.5, -2.25, 1e+10]}");
    snprintf(p, sizeof p, "%s/corpus/goldsrc/cs16_fy_snow.bsp", argv[1]);
    /* a float given by its bits (how a NaN or infinity is printed; the validator refuses a NaN plane) */
    change_one(p, "planes", "{\"normal\": [0, 0, 1], \"dist\": \"0x3fc00000\", \"type\": 2}",
               "{\"normal\": [0, 0, 1], \"dist\": 1.5, \"type\": 2}");
    /* a small map: the edits saved under a 1000-element limit must save */
    snprintf(p, sizeof p, "%s/corpus/source/gmod_v20_bspsrc_tooltextures.bsp", argv[1]);
    hostile_occlusion(p);
    snprintf(p, sizeof p, "%s/corpus/source/tf2c_v20_lzma_vipr_downfall.bsp", argv[1]);
    change_one(p, "vertexes", "{\"point\": [0.100000001, 2, 3]}", "{\"point\": [0.1, 2, 3]}");
    snprintf(p, sizeof p, "%s/corpus/source/l4d2_v21_ths_test_mechanic01.bsp", argv[1]);
    change_one(p, "texdata", "{\"reflectivity\": [0.5, 0.5, 0.5], \"name_string_table_id\": 0, \"width\": 7, "
               "\"height\": 8, \"view_width\": 9, \"view_height\": 10}",
               "{\"reflectivity\": [0.5, 0.5, 0.5], \"name_string_table_id\": 0, \"width\": 7, ");
    if (n > shared) {
        change_one(maps[shared], "shaders", "{\"shader\": \"textures/x\\\"y\", \"surface_flags\": 1, \"content_flags\": 1}",
                   "{\"shader\": \"textures/x\\\"y\", \"surface_flags\": 1, \"content_flags\": 1}");
    }
    for (int i = 0; i < n; i++) free(maps[i]);
    return CHECK_DONE();
}
