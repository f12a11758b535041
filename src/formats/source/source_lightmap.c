/* Source lightmaps: every lit face's RGBE luxels through the tone curve into one atlas image. */
#include <math.h>

#include "source_scene.h"

/* ColorRGBExp32 -> 8-bit: linear = c * 2^exp / 255, then a 1/2.2 gamma curve, clamped */
static uint8_t tonemap(uint8_t c, int8_t e)
{
    double lin = ldexp((double)c, e) / 255.0;
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
} tone_rows;

static const uint8_t *tone_row(tone_rows *t, uint8_t e)
{
    if (!t->made[e]) {
        for (int c = 0; c < 256; c++) t->v[e][c] = tonemap((uint8_t)c, (int8_t)e);
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
