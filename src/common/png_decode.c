/* PNG decoding straight into the caller's RGBA, with libspng (Debian libspng-dev): it inflates and
 * unfilters a row at a time into the output, so a decode holds the picture once. stb_image holds
 * the inflated rows, its own pixels, an RGB-to-RGBA copy, and bk_image_decode a copy of those for
 * the caller's allocator: up to five times an image, 50 MB for the 11.5 MB lightmap atlas of a
 * Nexuiz map. Taken here: 8-bit RGB and RGBA without interlace or colour key (what bspkit writes
 * for its atlases, and most textures), where both decoders give the same bytes; anything else is
 * stb_image's, as before. Like stb_image, the chunks' CRCs and the stream's Adler-32 are not
 * held against a picture. */
#include <spng.h>

#include "bk_internal.h"

static const struct spng_alloc k_alloc = {bk_malloc, bk_realloc, bk_calloc, bk_free};

/* a decoder over data, or NULL */
static spng_ctx *open_png(const uint8_t *data, size_t size, struct spng_ihdr *ih)
{
    spng_ctx *c = spng_ctx_new2((struct spng_alloc *)&k_alloc, SPNG_CTX_IGNORE_ADLER32);
    if (!c) return NULL;
    if (spng_set_crc_action(c, SPNG_CRC_USE, SPNG_CRC_USE) || spng_set_png_buffer(c, data, size) ||
        spng_set_image_limits(c, (1u << 28) - 1, (1u << 28) - 1) || spng_get_ihdr(c, ih)) {
        spng_ctx_free(c);
        return NULL;
    }
    return c;
}

bool bk_png_simple(const uint8_t *data, size_t size, uint32_t *w, uint32_t *h)
{
    struct spng_ihdr ih;
    spng_ctx *c = open_png(data, size, &ih);
    if (!c) return false;
    struct spng_trns trns;   /* a colour key makes an RGB image's alpha: stb_image's */
    bool simple = ih.bit_depth == 8 && (ih.color_type == SPNG_COLOR_TYPE_TRUECOLOR ||
                                        ih.color_type == SPNG_COLOR_TYPE_TRUECOLOR_ALPHA) &&
                  ih.interlace_method == SPNG_INTERLACE_NONE && spng_get_trns(c, &trns) == SPNG_ECHUNKAVAIL;
    spng_ctx_free(c);
    *w = ih.width, *h = ih.height;
    return simple && ih.width && ih.height;
}

static bk_result result_of(int e)
{
    switch (e) {
    case 0: return BK_OK;
    case SPNG_EMEM: return BK_ENOMEM;
    case SPNG_EOF: case SPNG_EIDAT_TOO_SHORT: return BK_ETRUNCATED;   /* the file ends before the picture */
    case SPNG_EZLIB: case SPNG_EZLIB_INIT: case SPNG_EIDAT_STREAM: return BK_EDECOMPRESS;
    default: return BK_EFORMAT;   /* a bad filter byte, chunk or size */
    }
}

bk_result bk_png_decode_into(const uint8_t *data, size_t size, uint32_t w, uint32_t h, uint8_t *out)
{
    uint32_t pw, ph;
    if (!bk_png_simple(data, size, &pw, &ph)) return BK_EUNSUPPORTED;
    if (pw != w || ph != h) return BK_EFORMAT;
    struct spng_ihdr ih;
    spng_ctx *c = open_png(data, size, &ih);
    if (!c) return BK_ENOMEM;
    size_t need = 0;
    int e = spng_decoded_image_size(c, SPNG_FMT_RGBA8, &need);
    if (!e && need != (size_t)w * h * 4) e = SPNG_EOVERFLOW;
    if (!e) e = spng_decode_image(c, out, need, SPNG_FMT_RGBA8, 0);
    spng_ctx_free(c);
    return result_of(e);
}

bk_result bk_png_decode_rows(const uint8_t *data, size_t size, uint32_t w, uint32_t h, uint32_t rows, bk_row_fn fn,
                             void *user)
{
    uint32_t pw, ph;
    if (!bk_png_simple(data, size, &pw, &ph)) return BK_EUNSUPPORTED;
    if (pw != w || ph != h) return BK_EFORMAT;
    if (rows > h) rows = h;
    struct spng_ihdr ih;
    spng_ctx *c = open_png(data, size, &ih);
    uint8_t *row = c ? bk_malloc((size_t)w * 4) : NULL;
    int e = row ? spng_decode_image(c, NULL, 0, SPNG_FMT_RGBA8, SPNG_DECODE_PROGRESSIVE) : SPNG_EMEM;
    for (uint32_t y = 0; !e && y < rows; y++) {
        e = spng_decode_row(c, row, (size_t)w * 4);
        if (e == SPNG_EOI && y + 1 == h) e = 0; /* the picture's last row */
        if (!e) fn(user, y, row);
    }
    bk_free(row);
    spng_ctx_free(c);
    return result_of(e);
}
