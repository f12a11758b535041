/* The PNG decoder of src/common/png_decode.c on PNGs made here with every row filter of the
 * specification (none, sub, up, average, Paeth), RGB and RGBA, the stream split over several
 * IDAT chunks: the pixels come back as they were. A colour key (tRNS) leaves the image to
 * stb_image; a cut stream, a bad filter byte and another size are errors, never a crash. The
 * same rows come a row at a time (bk_png_decode_rows), whole or the first ones only. */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "check.h"
#include "common/bk_internal.h"

static void put32(uint8_t *p, uint32_t v) { p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v; }

static size_t chunk(uint8_t *o, const char *type, const uint8_t *data, uint32_t n)
{
    put32(o, n);
    memcpy(o + 4, type, 4);
    if (n) memcpy(o + 8, data, n);
    put32(o + 8 + n, (uint32_t)crc32(crc32(0, o + 4, 4), data, n));
    return 12 + n;
}

static int pred(int f, int a, int b, int c)
{
    int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    switch (f) {
    case 1: return a;
    case 2: return b;
    case 3: return (a + b) >> 1;
    case 4: return pa <= pb && pa <= pc ? a : (pb <= pc ? b : c);
    default: return 0;
    }
}

/* a PNG of px (bpp 3 or 4 bytes a pixel), row y filtered with (y + first) % 5, its stream in
 * `parts` IDAT chunks, a tRNS chunk with trns; *n its size (free it) */
static uint8_t *make_png(const uint8_t *px, uint32_t w, uint32_t h, int bpp, int first, int parts, bool trns, size_t *n)
{
    size_t stride = (size_t)w * bpp + 1, raw_n = stride * h;
    uint8_t *raw = malloc(raw_n);
    for (uint32_t y = 0; y < h; y++) {
        int f = (int)((y + (uint32_t)first) % 5);
        raw[y * stride] = (uint8_t)f;
        for (size_t i = 0; i < (size_t)w * bpp; i++) {
            const uint8_t *row = px + (size_t)y * w * bpp, *up = y ? row - (size_t)w * bpp : NULL;
            int a = i >= (size_t)bpp ? row[i - bpp] : 0, b = up ? up[i] : 0, c = up && i >= (size_t)bpp ? up[i - bpp] : 0;
            raw[y * stride + 1 + i] = (uint8_t)(row[i] - pred(f, a, b, c));
        }
    }
    uLongf zn = compressBound((uLong)raw_n);
    uint8_t *z = malloc(zn);
    compress2(z, &zn, raw, (uLong)raw_n, 6);
    uint8_t *o = malloc(64 + zn + 12 * (size_t)parts + 32), ih[13];
    static const uint8_t sig[8] = {137, 'P', 'N', 'G', 13, 10, 26, 10};
    memcpy(o, sig, 8);
    size_t at = 8;
    put32(ih, w), put32(ih + 4, h);
    ih[8] = 8, ih[9] = bpp == 4 ? 6 : 2, ih[10] = ih[11] = ih[12] = 0;
    at += chunk(o + at, "IHDR", ih, 13);
    const uint8_t key[6] = {0, 1, 0, 2, 0, 3};
    if (trns) at += chunk(o + at, "tRNS", key, 6);
    for (int p = 0; p < parts; p++) {
        size_t a = zn * (size_t)p / (size_t)parts, b = zn * (size_t)(p + 1) / (size_t)parts;
        at += chunk(o + at, "IDAT", z + a, (uint32_t)(b - a));
    }
    at += chunk(o + at, "IEND", NULL, 0);
    free(raw);
    free(z);
    *n = at;
    return o;
}

/* bk_png_decode_rows: each row handed over is the whole decode's row, in order */
typedef struct rows_seen { const uint8_t *all; uint32_t w, next; bool same; } rows_seen;

static void seen_row(void *user, uint32_t y, const uint8_t *rgba)
{
    rows_seen *r = user;
    r->same &= y == r->next && memcmp(rgba, r->all + (size_t)y * r->w * 4, (size_t)r->w * 4) == 0;
    r->next++;
}

static void check_round_trip(uint32_t w, uint32_t h, int bpp, int first, int parts)
{
    uint8_t *px = malloc((size_t)w * h * bpp);
    uint32_t seed = w * 131 + h * 7 + (uint32_t)bpp;
    for (size_t i = 0; i < (size_t)w * h * bpp; i++) {
        seed = seed * 1103515245u + 12345u;
        px[i] = (uint8_t)(i % 7 == 0 ? (seed >> 16) : (i * 3 + (seed >> 28))); /* smooth and noisy */
    }
    size_t n;
    uint8_t *png = make_png(px, w, h, bpp, first, parts, false, &n);
    uint32_t pw = 0, ph = 0;
    CHECK(bk_png_simple(png, n, &pw, &ph) && pw == w && ph == h);
    uint8_t *out = NULL;
    CHECK(bk_image_decode(png, n, 4096, &out, &pw, &ph) == BK_OK && out && pw == w && ph == h);
    bool same = out != NULL;
    for (size_t i = 0; same && i < (size_t)w * h; i++)
        for (int c = 0; c < 4; c++) same &= out[i * 4 + c] == (c < bpp ? px[i * bpp + c] : 255);
    CHECK(same);
    if (!same) fprintf(stderr, "%ux%u bpp %d filters from %d: pixels differ\n", w, h, bpp, first);
    /* row by row: the same rows; asked for the first half only, the decode stops there */
    if (same) {
        rows_seen rs = {out, w, 0, true};
        CHECK(bk_png_decode_rows(png, n, w, h, h, seen_row, &rs) == BK_OK && rs.same && rs.next == h);
        rows_seen half = {out, w, 0, true};
        CHECK(bk_png_decode_rows(png, n, w, h, (h + 1) / 2, seen_row, &half) == BK_OK && half.same &&
              half.next == (h + 1) / 2);
        rows_seen none = {out, w, 0, true};
        CHECK(bk_png_decode_rows(png, n, w + 1, h, h, seen_row, &none) == BK_EFORMAT && none.next == 0);
    }
    /* into a block of the wrong size: refused */
    uint8_t *big = malloc((size_t)(w + 1) * h * 4);
    CHECK(bk_png_decode_into(png, n, w + 1, h, big) == BK_EFORMAT);
    /* the stream cut short (in its first half): an error at any cut */
    for (size_t cut = 33; cut < n / 2; cut += n / 15 + 1) CHECK(bk_png_decode_into(png, cut, w, h, big) != BK_OK);
    free(big);
    bk_free(out);
    free(png);
    free(px);
}

int main(void)
{
    for (int first = 0; first < 5; first++) {
        check_round_trip(1, 1, 3, first, 1);
        check_round_trip(5, 7, 4, first, 3);
        check_round_trip(33, 17, 3, first, 2);
        check_round_trip(64, 40, 4, first, 5);
    }
    /* a colour key: stb_image's job (it makes the alpha) */
    uint8_t px[4 * 3] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    size_t n;
    uint8_t *png = make_png(px, 2, 2, 3, 0, 1, true, &n);
    uint32_t w, h;
    CHECK(!bk_png_simple(png, n, &w, &h));
    free(png);
    /* a filter byte past 4 */
    png = make_png(px, 2, 2, 3, 0, 1, false, &n);
    uint8_t raw[14] = {5, 0, 1, 2, 3, 4, 5, 0, 6, 7, 8, 9, 10, 11}, z[64], out[16];
    uLongf zn = sizeof z;
    compress2(z, &zn, raw, sizeof raw, 6);
    size_t at = 33;
    at += chunk(png + at, "IDAT", z, (uint32_t)zn);
    at += chunk(png + at, "IEND", NULL, 0);
    CHECK(bk_png_decode_into(png, at, 2, 2, out) == BK_EFORMAT);
    free(png);
    /* bspkit's own PNG (filter up) */
    uint8_t img[8 * 4 * 4];
    for (size_t i = 0; i < sizeof img; i++) img[i] = (uint8_t)(i * 37);
    for (size_t i = 3; i < sizeof img; i += 4) img[i] = 255;
    bk_buf b;
    memset(&b, 0, sizeof b);
    uint8_t back[sizeof img];
    CHECK(bk_png_encode(img, 8, 4, false, 0, &b) == BK_OK && bk_png_decode_into(b.data, b.size, 8, 4, back) == BK_OK &&
          memcmp(back, img, sizeof img) == 0);
    bk_buf_free(&b);
    return CHECK_DONE();
}
