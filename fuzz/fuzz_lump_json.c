/* Fuzz the lump JSON reader (bk_edit_set_lump_json, src/formats/lump_json.c) on a small Quake 1 map
 * made here, and a small Source map's occlusion lump (an object of three counted arrays): the
 * input's first byte picks the lump, the rest is the JSON (lump 0: the raw entity text, which must
 * pass what bk_edit_set_entities checks: worldspawn first, bspkit's limits). Whatever it accepts must
 * save (or be refused by the writer's validation) into a map that loads; the accepted lump printed
 * again (bk_lump_to_json) must read back to the same bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bspkit/write.h"
#include "formats/family.h"
#include "fuzz_common.h"

/* BSP29: worldspawn, two planes, three vertices, two edges, two surfedges, one solid leaf, one
 * model whose hull 0 is that leaf (no nodes: a head node 0 would name a node there is not) */
static size_t make_map(uint8_t *out)
{
    static const char ents[] = "{\n\"classname\" \"worldspawn\"\n}\n";
    float planes[] = {0, 0, 1, 0, 0, 1, 0, 0, 16, 0}, verts[] = {0, 0, 0, 0, 0, 0, 1, 2, 3};
    int32_t ptype[2] = {2, 0};
    uint8_t lump[15][96];
    uint32_t len[15] = {0};
    memset(lump, 0, sizeof lump);
    memcpy(lump[0], ents, sizeof ents), len[0] = sizeof ents;
    for (int i = 0; i < 2; i++) memcpy(lump[1] + 20 * i, planes + 5 * i, 16), memcpy(lump[1] + 20 * i + 16, &ptype[i], 4);
    len[1] = 40;
    memcpy(lump[3], verts, sizeof verts), len[3] = sizeof verts;
    uint16_t edges[4] = {0, 1, 0, 1};
    memcpy(lump[12], edges, 8), len[12] = 8;
    int32_t se[2] = {1, -1};
    memcpy(lump[13], se, 8), len[13] = 8;
    int32_t leaf[2] = {-2, -1};   /* CONTENTS_SOLID, no visibility; bounds, marksurfaces, ambience 0 */
    memcpy(lump[10], leaf, 8), len[10] = 28;
    float model[9] = {-1, -1, -1, 1, 1, 1, 0, 0, 0};
    int32_t mi[7] = {-1, -1, -1, -1, 0, 0, 0};
    memcpy(lump[14], model, 36), memcpy(lump[14] + 36, mi, 28), len[14] = 64;
    size_t at = 4 + 15 * 8;
    int32_t v = 29;
    memcpy(out, &v, 4);
    for (int i = 0; i < 15; i++) {
        at = (at + 3) & ~(size_t)3;
        uint32_t e[2] = {(uint32_t)at, len[i]};
        memcpy(out + 4 + 8 * i, e, 8);
        memcpy(out + at, lump[i], len[i]);
        at += len[i];
    }
    return at;
}

/* VBSP 20: worldspawn and an empty occlusion lump (lump version 2: three zero counts) */
static size_t make_source_map(uint8_t *out)
{
    static const char ents[] = "{\n\"classname\" \"worldspawn\"\n}\n";
    memset(out, 0, 1200);
    memcpy(out, "VBSP", 4);
    out[4] = 20;
    size_t at = 1036;
    memcpy(out + at, ents, sizeof ents);
    uint32_t e0[4] = {(uint32_t)at, sizeof ents, 0, 0};
    memcpy(out + 8, e0, 16);
    at = (at + sizeof ents + 3) & ~(size_t)3;
    uint32_t e9[4] = {(uint32_t)at, 12, 2, 0};
    memcpy(out + 8 + 16 * 9, e9, 16);
    return at + 12;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uint8_t qmap[4096], smap[1200];
    static size_t qmap_size, smap_size;
    if (!qmap_size) qmap_size = make_map(qmap), smap_size = make_source_map(smap);
    if (size < 1) return 0;
    /* a first byte from 0xf0: the Source map's occlusion lump (three counted arrays), else Quake lump % 15 */
    bool source = data[0] >= 0xf0;
    const uint8_t *map = source ? smap : qmap;
    size_t map_size = source ? smap_size : qmap_size;
    uint32_t lump = source ? 9u : data[0] % 15u;
    bk_options opt;
    memset(&opt, 0, sizeof opt);
    opt.limits.max_alloc_bytes = 64u << 20;
    opt.limits.max_elements = 1u << 20;
    bk_file *f = NULL;
    if (bk_file_load_memory(map, map_size, &opt, &f) != BK_OK) abort();   /* the map made above loads */
    bk_lump_shape s;
    if (bk_lump_shape_at(f, lump, &s) != BK_OK) abort();
    const char *json = (const char *)data + 1;
    size_t n = size - 1;
    bk_edit *e = NULL;
    bk_diag d;
    if (bk_edit_begin(f, &opt, &e) != BK_OK) abort();
    if (bk_edit_set_lump_json(e, s.name, json, n, &d) == BK_OK) {
        uint8_t *out = NULL;
        size_t on = 0;
        if (bk_edit_save_memory(e, &out, &on) == BK_OK) {
            bk_file *g = NULL;
            if (bk_file_load_memory(out, on, &opt, &g) != BK_OK) abort();   /* a saved map must load */
            /* the lump as stored prints and reads back to its own bytes */
            char *js = NULL;
            size_t jn = 0;
            uint32_t li = lump;
            bk_lump_view v;
            if (bk_lump_to_json(g, s.name, &js, &jn) == BK_OK && bk_lump_view_of(g, li, &v) == BK_OK) {
                uint8_t *back = NULL;
                size_t bn = 0;
                if (bk_lump_json_read(g, li, js, jn, &opt, &back, &bn, NULL) != BK_OK || bn != v.size ||
                    (bn && memcmp(back, v.data, bn) != 0))
                    abort();
                bk_free(back);
            }
            bk_free(js);
            bk_file_free(g);
            bk_free(out);
        }
    }
    bk_edit_free(e);
    bk_file_free(f);
    return 0;
}
