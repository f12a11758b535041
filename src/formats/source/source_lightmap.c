/* Source lightmaps: every lit face's RGBE luxels through the tone curve into one atlas image. */
#include <math.h>
#include <stdio.h>

#include "scene/scene_build.h"
#include "source_scene.h"

/* ColorRGBExp32 -> 8-bit: linear = c * 2^exp / 255 (times the exposure: 1 for LDR lighting), then
 * a 1/2.2 gamma curve, clamped */
static uint8_t tonemap(uint8_t c, int8_t e, double exposure)
{
    double lin = ldexp((double)c, e) / 255.0 * exposure;
    if (!(lin > 0)) return 0;
    double g = pow(lin, 1.0 / 2.2);
    return (uint8_t)(g >= 1.0 ? 255 : g * 255.0 + 0.5);
}

/* tonemap() for every colour byte of one exponent, made the first time the exponent is met (a map
 * uses a few dozen of the 256: a row of 256 pow() calls each instead of one per channel of every
 * luxel) */
typedef struct tone_rows {
    uint8_t v[256][256];   /* [exponent byte][colour byte] */
    uint8_t made[256];
    double exposure;
} tone_rows;

static const uint8_t *tone_row(tone_rows *t, uint8_t e)
{
    if (!t->made[e]) {
        for (int c = 0; c < 256; c++) t->v[e][c] = tonemap((uint8_t)c, (int8_t)e, t->exposure);
        t->made[e] = 1;
    }
    return t->v[e];
}

/* Draws face rectangle id straight into the atlas image: the lighting lump's RGBE luxels through
 * the tone curve. */
typedef struct lm_fill {
    const sb *b;
    uint32_t *face_of;         /* per atlas id */
    tone_rows *tone;
} lm_fill;

static void fill_face(void *user, uint32_t id, uint8_t *dst, size_t stride)
{
    const lm_fill *lf = user;
    const bk_source_face *f = &lf->b->faces[lf->face_of[id]];
    uint32_t w = (uint32_t)f->lm_size[0] + 1, h = (uint32_t)f->lm_size[1] + 1;
    const uint8_t *src = lf->b->light->data + f->lightofs;
    for (uint32_t y = 0; y < h; y++, dst += stride, src += (size_t)w * 4) {
        for (uint32_t x = 0; x < w; x++) {
            const uint8_t *row = tone_row(lf->tone, src[x * 4 + 3]);
            for (int c = 0; c < 3; c++) dst[x * 4 + c] = row[src[x * 4 + c]];
            dst[x * 4 + 3] = 255;
        }
    }
}

/* ---- HDR exposure ------------------------------------------------------------------------------
 * The engine shows HDR lighting through its auto exposure (source-sdk-2013
 * src/game/client/viewpostprocess.cpp, GetTargetTonemapScalar, mat_tonemap_algorithm 1): the scale
 * settles where the brightest mat_tonemap_percent_bright_pixels (2 %) of the screen sit at
 * mat_tonemap_percent_target (60 %) luminance, raised until the median reaches mat_tonemap_min_avglum
 * (3 %), within mat_autoexposure_min / max (0.5 .. 2) or what the map's env_tonemap_controller is
 * told by its outputs (SetAutoExposureMin/Max, SetTonemapPercentBrightPixels/Target). The screen is
 * not known here: the lightmap's own luxels stand for it. */
typedef struct tone_params {
    double lo, hi, bright, target;
} tone_params;

static void tone_controller(const bk_entities *es, tone_params *tp)
{
    *tp = (tone_params){0.5, 2.0, 2.0, 60.0};
    if (!es) return;
    for (uint32_t i = 0; i < es->count; i++)
        for (uint32_t k = 0; k < es->items[i].pair_count; k++) {
            bk_output o;
            if (bk_output_parse(es->items[i].pairs[k].value, &o) != BK_OK) continue;
            /* the target: an entity of class env_tonemap_controller (L4D2's _infected / _ghost ones
             * are for other players' views) */
            bool ctl = false;
            for (uint32_t j = 0; j < es->count && !ctl && o.target[0]; j++) {
                const char *cls = bk_entity_get(&es->items[j], "classname"), *tn = bk_entity_get(&es->items[j], "targetname");
                ctl = cls && tn && strcmp(cls, "env_tonemap_controller") == 0 && bk_strcasecmp(tn, o.target) == 0;
            }
            const char *end = NULL;
            double v = ctl ? bk_strtod(o.parameter, &end) : 0;
            if (ctl && end != o.parameter && v > 0 && v < 1e4) {
                if (bk_strcasecmp(o.input, "SetAutoExposureMin") == 0) tp->lo = v;
                else if (bk_strcasecmp(o.input, "SetAutoExposureMax") == 0) tp->hi = v;
                else if (bk_strcasecmp(o.input, "SetTonemapPercentBrightPixels") == 0 && v < 100) tp->bright = v;
                else if (bk_strcasecmp(o.input, "SetTonemapPercentTarget") == 0 && v < 100) tp->target = v;
            }
            bk_output_free(&o);
        }
    if (tp->hi < tp->lo) tp->hi = tp->lo;
}

#define EXP_BINS 2048       /* log2 luminance from 2^-20 to 2^12, 64 bins an octave */
static double bin_lum(uint32_t i) { return exp2((i + 0.5) / 64.0 - 20.0); }

/* the luminance below which `pct` percent of the luxels lie */
static double percentile(const uint64_t *h, uint64_t n, double pct)
{
    uint64_t want = (uint64_t)(n * pct / 100.0), acc = 0;
    for (uint32_t i = 0; i < EXP_BINS; i++)
        if ((acc += h[i]) > want) return bin_lum(i);
    return bin_lum(EXP_BINS - 1);
}

static double hdr_exposure(const sb *b, const uint32_t *face_of, uint32_t count)
{
    tone_params tp;
    tone_controller(b->ents, &tp);
    uint64_t *h = bk_calloc(EXP_BINS, sizeof *h), n = 0;
    if (!h) return 1.0;
    for (uint32_t id = 0; id < count; id++) {
        const bk_source_face *f = &b->faces[face_of[id]];
        size_t lux = (size_t)(f->lm_size[0] + 1) * (size_t)(f->lm_size[1] + 1);
        const uint8_t *px = b->light->data + f->lightofs;
        for (size_t i = 0; i < lux; i++, px += 4) {
            double y = ldexp(0.2125 * px[0] + 0.7154 * px[1] + 0.0721 * px[2], (int8_t)px[3]) / 255.0;
            double bin = y > 0 ? (log2(y) + 20.0) * 64.0 : -1;
            h[bin < 0 ? 0 : bin >= EXP_BINS ? EXP_BINS - 1 : (uint32_t)bin]++;
            n++;
        }
    }
    double s = 1.0;
    if (n) {
        s = tp.target / 100.0 / percentile(h, n, 100.0 - tp.bright);
        double s2 = 0.03 / percentile(h, n, 50.0);
        if (s2 > s) s = s2;
        s = s < tp.lo ? tp.lo : s > tp.hi ? tp.hi : s;
    }
    bk_free(h);
    return s;
}

bk_result bk_src_build_lightmaps(sb *b)
{
    const bk_source_map *p = b->p;
    if ((b->opt->flags & BK_OPT_NO_LIGHTMAPS) || !b->light || !b->light->size || !p->face_count) return BK_OK;
    b->face_rect = bk_calloc(p->face_count, sizeof *b->face_rect);
    b->atlas = bk_atlas_new(bk_limits_of(b->opt).max_atlas_size, 1);
    if (!b->face_rect || !b->atlas) return BK_ENOMEM;
    uint64_t luxels = 0;
    lm_fill lf = {b, bk_malloc((size_t)p->face_count * sizeof(uint32_t)), bk_calloc(1, sizeof(tone_rows))};
    bk_result r = lf.face_of && lf.tone ? BK_OK : BK_ENOMEM;
    if (lf.tone) lf.tone->exposure = 1.0;
    bk_atlas_set_fill(b->atlas, fill_face, &lf);
    for (uint32_t i = 0; i < p->face_count && r == BK_OK; i++) {
        const bk_source_face *f = &b->faces[i];
        if (!bk_src_face_drawn(p, &p->faces[i]) || bk_src_texinfo_sky(p, p->faces[i].texinfo) || f->lightofs < 0 || f->styles[0] == 255)
            continue;
        if (f->lm_size[0] < 0 || f->lm_size[1] < 0 || f->lm_size[0] > 1024 || f->lm_size[1] > 1024) continue;
        uint32_t w = (uint32_t)f->lm_size[0] + 1, h = (uint32_t)f->lm_size[1] + 1;
        size_t n = (size_t)w * h;
        if (!bk_range_ok((uint64_t)f->lightofs, (uint64_t)n * 4, b->light->size)) continue;
        luxels += n;
        if (luxels > SRC_MAX_LUXELS) {
            /* more lighting than any real map has: keep the geometry, drop the lightmaps */
            bk_scene_diag(b->s, b->opt, BK_SEV_WARNING, BK_ELIMIT, NULL, "faces", (int64_t)i, BK_NO_OFFSET,
                          "more than %llu luxels: converted unlit", (unsigned long long)SRC_MAX_LUXELS);
            bk_free(lf.face_of);
            bk_free(lf.tone);
            memset(b->face_rect, 0, p->face_count * sizeof *b->face_rect);
            return BK_OK;
        }
        uint32_t id;
        r = bk_atlas_add(b->atlas, w, h, NULL, &id);
        if (r != BK_OK) break;
        lf.face_of[id] = i;
        b->face_rect[i] = id + 1;
    }
    if (r == BK_OK && b->hdr && bk_atlas_count(b->atlas) != 0) {
        lf.tone->exposure = b->hdr_exposure = hdr_exposure(b, lf.face_of, bk_atlas_count(b->atlas));
        char ex[32];
        snprintf(ex, sizeof ex, "%.4g", lf.tone->exposure);
        r = bk_kv_append(&b->s->extras, &b->s->extra_count, "lightmap_hdr_exposure", ex);
    }
    if (r == BK_OK && bk_atlas_count(b->atlas) != 0) {
        if (bk_atlas_pack(b->atlas) != BK_OK) {
            /* too much lighting for one atlas: keep the geometry, drop the lightmaps */
            bk_scene_diag(b->s, b->opt, BK_SEV_WARNING, BK_ELIMIT, NULL, "lighting", BK_NO_INDEX, BK_NO_OFFSET,
                          "the lightmaps do not fit one atlas (limits.max_atlas_size): converted unlit");
            memset(b->face_rect, 0, p->face_count * sizeof *b->face_rect);
        } else {
            /* lighting decoded from LZMA, or four bytes a luxel: streamed */
            r = bk_atlas_to_scene_image(b->atlas, b->s, "lightmap", b->opt, b->file_size / 2, &b->lm_image);
            if (r == BK_OK) bk_atlas_size(b->atlas, &b->atlas_w, &b->atlas_h);
        }
    }
    bk_free(lf.face_of);
    bk_free(lf.tone);
    return r;
}
