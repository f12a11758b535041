/* Scene images as PNG: whichever way the builder packed an image's pixels (RGBA, rows ready for
 * deflate, a palette, a PNG made in the background), the cheapest way to a PNG file. */
#include <string.h>

#include "scene_build.h"

bk_result bk_png_encode_pixels(const bk_image *im, const bk_pixels *px, int level, bk_buf *out)
{
    if (!im->width || !im->height || (!px->rgba && (!px->packed || px->packing == BK_PACK_NONE))) return BK_EARG;
    if (px->rgba) return bk_png_encode(px->rgba, im->width, im->height, im->has_alpha != 0, level, out);
    if (px->packing == BK_PACK_RGB_UP) {
        if (px->packed_size != ((size_t)im->width * 3 + 1) * im->height) return BK_EARG;
        return bk_png_deflate(px->packed, px->packed_size, im->width, im->height, 2, NULL, level, out);
    }
    if (px->packing == BK_PACK_PNG && level <= 0) /* made at the default level already */
        return bk_buf_append(out, px->packed, px->packed_size) ? BK_OK : BK_ENOMEM;
    if (px->packing == BK_PACK_PAL8) {
        /* an indexed PNG: the same pixels in a quarter of the bytes to deflate */
        size_t w = im->width, h = im->height;
        if (px->packed_size != w * h + 1024) return BK_EARG;
        uint8_t plte[768], trns[256];
        size_t trns_n = 0;
        for (int c = 0; c < 256; c++) {
            memcpy(plte + c * 3, px->packed + c * 4, 3);
            trns[c] = px->packed[c * 4 + 3];
            if (trns[c] != 255) trns_n = (size_t)c + 1;
        }
        uint8_t *raw = bk_malloc((w + 1) * h);
        if (!raw) return BK_ENOMEM;
        for (size_t y = 0; y < h; y++) {
            raw[y * (w + 1)] = 0;   /* no filter: differences of palette indices mean nothing */
            memcpy(raw + y * (w + 1) + 1, px->packed + 1024 + y * w, w);
        }
        bk_png_palette pal = {plte, trns, sizeof plte, trns_n};
        bk_result r = bk_png_deflate(raw, (w + 1) * h, im->width, im->height, 3, &pal, level, out);
        bk_free(raw);
        return r;
    }
    /* other packings are unpacked into the end of the block that then becomes the PNG's rows in
     * place: each row moved down for its filter byte (and to 3 bytes a pixel without alpha), then
     * "up" filtered from the bottom, so no RGBA copy is held beside the filtered rows */
    size_t w = im->width, h = im->height, n;
    if (!bk_mul_ok(w, h, &n) || n > ((size_t)1 << 28)) return BK_ELIMIT;
    bool alpha = im->has_alpha != 0;
    size_t bpp = alpha ? 4 : 3, stride = w * bpp + 1;
    uint8_t *raw = bk_malloc(n * 4 + h);
    if (!raw) return BK_ENOMEM;
    bk_result r = bk_unpack_pixels(im, px, raw + h);
    if (r != BK_OK) {
        bk_free(raw);
        return r;
    }
    for (size_t y = 0; y < h; y++) {
        /* the row's new place starts before its old one (y + 1 <= h), so a forward copy is safe */
        const uint8_t *src = raw + h + y * w * 4;
        uint8_t *dst = raw + y * stride;
        if (alpha) {
            memmove(dst + 1, src, w * 4);
        } else {
            for (size_t x = 0; x < w; x++) {
                dst[1 + x * 3] = src[x * 4];
                dst[1 + x * 3 + 1] = src[x * 4 + 1];
                dst[1 + x * 3 + 2] = src[x * 4 + 2];
            }
        }
        dst[0] = y ? 2 : 0;
    }
    for (size_t y = h; y-- > 1;) {
        uint8_t *row = raw + y * stride + 1;
        const uint8_t *up = row - stride;
        for (size_t i = 0; i < w * bpp; i++) row[i] = (uint8_t)(row[i] - up[i]);
    }
    r = bk_png_deflate(raw, stride * h, im->width, im->height, alpha ? 6 : 2, NULL, level, out);
    bk_free(raw);
    return r;
}

bk_result bk_png_encode_image(const bk_scene *s, uint32_t i, int level, bk_buf *out)
{
    if (!s || i >= s->image_count) return BK_EARG;
    return bk_png_encode_pixels(&s->images[i], bk_scene_pixels(s, i), level, out);
}

bk_result bk_write_group_png(bk_write_group *g, const bk_scene *s, uint32_t i, const char *path)
{
    if (!g || !path || !bk_scene_image_has_pixels(s, i)) return BK_EARG;
    bk_buf b = {0};
    bk_result r = bk_png_encode_image(s, i, 0, &b);
    if (r == BK_OK) r = bk_wtx_add(g, path, b.data, b.size);
    bk_buf_free(&b);
    return r;
}

bk_result bk_scene_image_write_png(const bk_scene *s, uint32_t i, const char *path)
{
    if (!bk_scene_image_has_pixels(s, i)) return BK_EARG;
    bk_wtx *t;
    BK_TRY(bk_wtx_begin(&t));
    bk_result r = bk_write_group_png(t, s, i, path);
    if (r != BK_OK) {
        bk_wtx_abort(t);
        return r;
    }
    return bk_wtx_commit(t);
}
