/* ZSoft PCX as Quake 2 uses it (qfiles.h pcx_t): a 128-byte header, RLE rows of bytes_per_line
 * 8-bit indexes, then 0x0C and a 768-byte palette at the end of the file. Also the 24-bit kind
 * (3 planes: each row's red, green and blue lines in turn, no palette) that some community skies
 * are (the corpus's kolddusty2). Every size is checked before a byte is allocated; a run past the
 * end of the data is a located error. */
#include "common/bk_internal.h"
#include "bspkit/quake2.h"

#define PCX_HEADER 128u
#define PCX_TAIL 769u   /* 0x0C + 256 x RGB */

bk_result bk_pcx_decode(const void *data, size_t size, const bk_options *opt, uint8_t **rgba, uint32_t *w,
                        uint32_t *h, uint8_t palette_out[768])
{
    if (!data || !rgba || !w || !h) return BK_EARG;
    *rgba = NULL;
    *w = *h = 0;
    bk_ctx ctx;
    bk_ctx_init(&ctx, opt, false);
    const uint8_t *d = data;
    if (size < PCX_HEADER)
        BK_ERR(&ctx, BK_ETRUNCATED, "header", BK_NO_INDEX, 0, "%zu bytes: shorter than a PCX header (128 bytes)", size);
    if (d[0] != 0x0a) BK_ERR(&ctx, BK_EMAGIC, "header", BK_NO_INDEX, 0, "not a PCX (first byte 0x%02x, not 0x0a)", d[0]);
    if (d[2] != 1 || d[3] != 8 || (d[65] != 1 && d[65] != 3))
        BK_ERR(&ctx, BK_EUNSUPPORTED, "header", BK_NO_INDEX, 2,
               "encoding %u, %u bits per pixel, %u planes: only RLE (1), 8 bits, 1 plane (256 colours) or 3 (RGB) "
               "are read",
               d[2], d[3], d[65]);
    uint32_t planes = d[65];
    if (planes == 1 && size < PCX_HEADER + PCX_TAIL)
        BK_ERR(&ctx, BK_ETRUNCATED, "palette", BK_NO_INDEX, 0,
               "%zu bytes: shorter than a PCX header and its palette (128 + 769 bytes)", size);
    uint32_t xmin = bk_rd_u16le(d + 4), ymin = bk_rd_u16le(d + 6), xmax = bk_rd_u16le(d + 8), ymax = bk_rd_u16le(d + 10);
    uint32_t bpl = bk_rd_u16le(d + 66);
    if (xmax < xmin || ymax < ymin)
        BK_ERR(&ctx, BK_EFORMAT, "header", BK_NO_INDEX, 4, "window %u,%u .. %u,%u is empty", xmin, ymin, xmax, ymax);
    uint32_t width = xmax - xmin + 1, height = ymax - ymin + 1;
    uint32_t maxdim = ctx.opt.limits.max_texture_dim;
    if (width > maxdim || height > maxdim)
        BK_ERR(&ctx, BK_ELIMIT, "header", BK_NO_INDEX, 4, "%ux%u: over limits.max_texture_dim (%u)", width, height, maxdim);
    if (bpl < width)
        BK_ERR(&ctx, BK_EFORMAT, "header", BK_NO_INDEX, 66, "%u bytes per line for a picture %u wide", bpl, width);
    size_t end = planes == 1 ? size - PCX_TAIL : size;
    if (planes == 1 && d[end] != 0x0c)
        BK_ERR(&ctx, BK_EFORMAT, "palette", BK_NO_INDEX, end,
               "no 256-colour palette at the end (0x%02x where 0x0c should be)", d[end]);
    /* a run (2 bytes) makes at most 63 bytes: more than that per RLE byte is not in the file */
    uint64_t need = (uint64_t)bpl * planes * height;
    if (need > (uint64_t)(end - PCX_HEADER) * 32)
        BK_ERR(&ctx, BK_ETRUNCATED, "pixels", BK_NO_INDEX, PCX_HEADER,
               "%ux%u (%u bytes per line) cannot come from %zu bytes of RLE data", width, height, bpl, end - PCX_HEADER);
    size_t npix = (size_t)width * height;
    if ((uint64_t)npix * 4 > ctx.opt.limits.max_alloc_bytes)
        BK_ERR(&ctx, BK_ELIMIT, "pixels", BK_NO_INDEX, PCX_HEADER, "%ux%u: over limits.max_alloc_bytes", width, height);
    uint8_t *out = bk_malloc(npix * 4);
    if (!out) return BK_ENOMEM;
    const uint8_t *pal = planes == 1 ? d + end + 1 : NULL;
    size_t pos = PCX_HEADER;
    uint32_t run = 0;
    uint8_t val = 0;
    for (uint32_t y = 0; y < height; y++) {
        uint8_t *row = out + (size_t)y * width * 4;
        for (uint32_t x = 0; x < bpl * planes; x++) {
            if (!run) {
                if (pos >= end) {
                    bk_free(out);
                    BK_ERR(&ctx, BK_ETRUNCATED, "pixels", y, pos, "row %u: the RLE data ends at byte %u of %u", y, x,
                           bpl * planes);
                    return BK_ETRUNCATED;
                }
                uint8_t b = d[pos++];
                if ((b & 0xc0) == 0xc0) {
                    run = b & 0x3f;
                    if (pos >= end) {
                        bk_free(out);
                        BK_ERR(&ctx, BK_ETRUNCATED, "pixels", y, pos, "row %u: a run's value is past the RLE data", y);
                        return BK_ETRUNCATED;
                    }
                    val = d[pos++];
                    if (!run) { /* a run of 0: nothing */
                        x--;
                        continue;
                    }
                } else {
                    run = 1;
                    val = b;
                }
            }
            run--;
            uint32_t plane = x / bpl, px = x % bpl;
            if (px >= width) continue;
            if (pal) {
                const uint8_t *c = pal + 3u * val;
                row[px * 4 + 0] = c[0];
                row[px * 4 + 1] = c[1];
                row[px * 4 + 2] = c[2];
            } else {
                row[px * 4 + plane] = val;
            }
            row[px * 4 + 3] = 255;
        }
    }
    if (palette_out) {
        if (pal) memcpy(palette_out, pal, 768);
        else memset(palette_out, 0, 768);
    }
    *rgba = out;
    *w = width;
    *h = height;
    return BK_OK;
}
