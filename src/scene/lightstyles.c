/* Light styles (Quake 1, GoldSrc, BSP2): the stock patterns, a style's value at a time, which
 * light switches a switchable style, and a styled lightmap redrawn from its layers.
 *
 * Facts, from GPL sources (read for facts only, nothing copied):
 *  - the stock patterns 0-11 are the ones id's QuakeC sets at map start (world.qc, worldspawn);
 *    Half-Life's game code sets the same and 12 (dlls/world.cpp, CWorld::Precache);
 *  - a value is (letter - 'a') x 22 for the letter at floor(time x 10) modulo the pattern's length,
 *    256 for a style never set (id's r_light.c / QuakeSpasm's gl_rlight.c, R_AnimateLight);
 *  - the light compilers give each targetnamed light a style from 32 up and write it into its
 *    "style" key; the game sets that style to "a" when its light has spawnflag 1 (START_OFF), else
 *    "m" (Quake's misc.qc light / light_fluoro; Half-Life's dlls/lights.cpp CLight::Spawn, which
 *    takes the light's "pattern" key instead of "m" when it has one). */
#include <stdlib.h>

#include "scene/scene_build.h"
#include "../common/bk_internal.h"

static const char *const k_stock[13] = {
    "m",
    "mmnmmommommnonmmonqnmmo",
    "abcdefghijklmnopqrstuvwxyzyxwvutsrqponmlkjihgfedcba",
    "mmmmmaaaaammmmmaaaaaabcdefgabcdefg",
    "mamamamamama",
    "jklmnopqrstuvwxyzyxwvutsrqponmlkj",
    "nmonqnmomnmomomno",
    "mmmaaaabcdefgmmmmaaaammmaamm",
    "mmmaaammmaaammmabcdefaaaammmmabcdefmmmaaaa",
    "aaaaaaaazzzzzzzz",
    "mmamammmmammamamaaamammma",
    "abcdefghijklmnopqrrqponmlkjihgfedcba",
    "mmnnmmnnnmmnn", /* GoldSrc only: underwater */
};

const char *bk_lightstyle_stock(uint32_t style, bool goldsrc)
{
    if (style < 12 || (goldsrc && style == 12)) return k_stock[style];
    return NULL;
}

uint32_t bk_lightstyle_value(const char *pattern, double t)
{
    size_t n = pattern ? strlen(pattern) : 0;
    if (!n) return 256;
    /* the engines step an integer clock: frames before the map's start count as time 0 */
    double tenths = t > 0 && t < 1e15 ? t * 10.0 : 0.0;
    size_t k = (size_t)((uint64_t)tenths % n);
    int v = (unsigned char)pattern[k] - 'a';
    if (v < 0) v = 0;
    if (v > 25) v = 25;
    return (uint32_t)v * 22;
}

static bool is_light(const bk_entity *e)
{
    const char *c = bk_entity_get(e, "classname");
    return c && strncmp(c, "light", 5) == 0;
}

static bool int_key(const bk_entity *e, const char *key, long *out)
{
    const char *v = bk_entity_get(e, key);
    if (!v || !*v) return false;
    char *end;
    long x = strtol(v, &end, 10);
    if (end == v) return false;
    *out = x;
    return true;
}

bk_result bk_lightstyles_from_entities(bk_scene *s, const bk_entities *ents, bool goldsrc, const uint8_t used[32])
{
    uint32_t n = 0;
    for (uint32_t k = 0; k < 255; k++) n += (used[k >> 3] >> (k & 7)) & 1;
    if (!n) return BK_OK;
    s->lightstyles = bk_calloc(n, sizeof *s->lightstyles);
    if (!s->lightstyles) return BK_ENOMEM;
    for (uint32_t k = 0; k < 255; k++) {
        if (!((used[k >> 3] >> (k & 7)) & 1)) continue;
        bk_lightstyle *ls = &s->lightstyles[s->lightstyle_count++];
        ls->style = k;
        const char *pat = bk_lightstyle_stock(k, goldsrc);
        const bk_entity *light = NULL;
        if (k >= 32 && k < 64 && ents)
            for (uint32_t i = 0; i < ents->count; i++) {
                long st;
                if (is_light(&ents->items[i]) && int_key(&ents->items[i], "style", &st) && st == (long)k)
                    light = &ents->items[i];
            }
        if (light) {
            long flags = 0;
            int_key(light, "spawnflags", &flags);
            const char *tn = bk_entity_get(light, "targetname");
            const char *own = goldsrc ? bk_entity_get(light, "pattern") : NULL;
            ls->start_off = (flags & 1) != 0;
            pat = own && *own ? own : "m";
            if (tn && *tn && !(ls->targetname = bk_strdup(tn))) return BK_ENOMEM;
        }
        ls->pattern = bk_strdup(pat ? pat : "");
        if (!ls->pattern) return BK_ENOMEM;
        ls->rest_value = ls->start_off ? 0 : bk_lightstyle_value(ls->pattern, 0);
    }
    return BK_OK;
}

uint32_t bk_lightstyle_rest(const bk_scene *s, uint32_t style)
{
    for (uint32_t i = 0; i < s->lightstyle_count; i++)
        if (s->lightstyles[i].style == style) return s->lightstyles[i].rest_value;
    return 264;
}

void bk_lightstyle_values(const bk_scene *s, double t, uint32_t values[256])
{
    for (int k = 0; k < 256; k++) values[k] = 264;
    for (uint32_t i = 0; s && i < s->lightstyle_count; i++) {
        const bk_lightstyle *ls = &s->lightstyles[i];
        if (ls->style < 256) values[ls->style] = ls->start_off ? 0 : bk_lightstyle_value(ls->pattern, t);
    }
}

/* the base image b redrawn from the layers of the materials that read it */
static bk_result relight_image(bk_scene *s, int32_t b, const uint32_t values[256])
{
    const bk_image *im = &s->images[b];
    size_t n = (size_t)im->width * im->height;
    if (!n) return BK_OK;
    uint32_t *acc = bk_calloc(n * 3, sizeof *acc);
    if (!acc) return BK_ENOMEM;
    uint8_t done[256] = {0};
    bk_result r = BK_OK;
    for (uint32_t m = 0; r == BK_OK && m < s->material_count; m++) {
        const bk_material *mat = &s->materials[m];
        if (mat->lightmap_image != b) continue;
        for (uint32_t k = 0; r == BK_OK && k < mat->light_layer_count; k++) {
            const bk_light_layer *L = &mat->light_layers[k];
            if (L->style > 255 || done[L->style] || L->image < 0 || (uint32_t)L->image >= s->image_count) continue;
            done[L->style] = 1;
            const bk_image *li = &s->images[L->image];
            if (li->width != im->width || li->height != im->height) {
                r = BK_EFORMAT;
                break;
            }
            uint8_t *px;
            r = bk_scene_image_rgba(s, (uint32_t)L->image, &px);
            if (r != BK_OK) break;
            uint32_t v = values[L->style] < 65535 ? values[L->style] : 65535; /* the sum stays in 32 bits */
            for (size_t i = 0; i < n; i++)
                for (int c = 0; c < 3; c++) acc[i * 3 + c] += px[i * 4 + c] * v;
            bk_free(px);
        }
    }
    uint8_t *out = r == BK_OK ? bk_malloc(n * 4) : NULL;
    if (r == BK_OK && !out) r = BK_ENOMEM;
    if (r == BK_OK) {
        for (size_t i = 0; i < n; i++) {
            for (int c = 0; c < 3; c++) out[i * 4 + c] = bk_lightstyle_texel(acc[i * 3 + c], s->lightstyle_gain);
            out[i * 4 + 3] = 255;
        }
        r = bk_scene_set_image_rgba(s, (uint32_t)b, out);
    }
    bk_free(acc);
    return r;
}

bk_result bk_scene_relight(bk_scene *s, const uint32_t values[256])
{
    if (!s || !values) return BK_EARG;
    for (uint32_t m = 0; m < s->material_count; m++) {
        int32_t b = s->materials[m].lightmap_image;
        if (!s->materials[m].light_layer_count || b < 0 || (uint32_t)b >= s->image_count) continue;
        bool seen = false; /* each base image once */
        for (uint32_t j = 0; j < m && !seen; j++) seen = s->materials[j].light_layer_count && s->materials[j].lightmap_image == b;
        if (!seen) BK_TRY(relight_image(s, b, values));
    }
    return BK_OK;
}
