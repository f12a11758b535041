/* PNG decoding straight into the caller's RGBA: the deflated rows are inflated one at a time and
 * unfiltered into place (PNG specification, 2nd edition, 9.2-9.4), so a decode holds the picture
 * once. stb_image holds the inflated rows, its own pixels, an RGB-to-RGBA copy, and bk_image_decode
 * a copy of those for the caller's allocator: up to five times an image, 50 MB for the 11.5 MB
 * lightmap atlas of a Nexuiz map. Taken here: 8-bit RGB and RGBA without interlace (what bspkit
 * writes for its atlases, and most textures); anything else is BK_EUNSUPPORTED, for stb_image. */
#include <zlib.h>

#include "bk_internal.h"

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint8_t paeth(int a, int b, int c)
{
    int p = a + b - c, pa = p > a ? p - a : a - p, pb = p > b ? p - b : b - p, pc = p > c ? p - c : c - p;
    return (uint8_t)(pa <= pb && pa <= pc ? a : (pb <= pc ? b : c));
}

/* row (filter byte, then n bytes of bpp-byte pixels) unfiltered in place against up (NULL: the
 * first row, all zero) */
static bool unfilter(uint8_t *row, const uint8_t *up, size_t n, size_t bpp)
{
    uint8_t f = row[0], *d = row + 1;
    const uint8_t *u = up ? up + 1 : NULL;
    for (size_t i = 0; i < n; i++) {
        int a = i >= bpp ? d[i - bpp] : 0, b = u ? u[i] : 0, c = i >= bpp && u ? u[i - bpp] : 0;
        switch (f) {
        case 0: break;
        case 1: d[i] = (uint8_t)(d[i] + a); break;
        case 2: d[i] = (uint8_t)(d[i] + b); break;
        case 3: d[i] = (uint8_t)(d[i] + ((a + b) >> 1)); break;
        case 4: d[i] = (uint8_t)(d[i] + paeth(a, b, c)); break;
        default: return false;
        }
    }
    return true;
}

/* the next IDAT's data from *pos on (false: none left before IEND or the end) */
static bool next_idat(const uint8_t *data, size_t size, size_t *pos, const uint8_t **chunk, size_t *len)
{
    while (*pos + 12 <= size) {
        size_t n = be32(data + *pos);
        const uint8_t *type = data + *pos + 4;
        if (n > size - *pos - 12) return false;
        *pos += 12 + n;
        if (memcmp(type, "IDAT", 4) == 0 && n) {
            *chunk = type + 4, *len = n;
            return true;
        }
        if (memcmp(type, "IEND", 4) == 0) return false;
    }
    return false;
}

static bk_result inflate_rows(z_stream *z, const uint8_t *data, size_t size, size_t pos, uint32_t w, uint32_t h,
                              size_t bpp, uint8_t *rows, uint8_t *out)
{
    size_t n = (size_t)w * bpp, stride = n + 1;
    uint8_t *cur = rows, *up = NULL;
    for (uint32_t y = 0; y < h; y++) {
        z->next_out = cur, z->avail_out = (uInt)stride;
        while (z->avail_out) {
            if (!z->avail_in) {
                const uint8_t *c;
                size_t len;
                if (!next_idat(data, size, &pos, &c, &len) || len > UINT32_MAX) return BK_ETRUNCATED;
                z->next_in = (Bytef *)(uintptr_t)c, z->avail_in = (uInt)len;
            }
            int zr = inflate(z, Z_NO_FLUSH);
            if (zr == Z_STREAM_END && z->avail_out) return BK_ETRUNCATED;
            /* the stream's own checksum is not the picture's (stb_image does not read it): an
             * error once every byte of the last row is out is not one */
            if (zr == Z_DATA_ERROR && !z->avail_out && y + 1 == h) break;
            if ((zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR) || (zr == Z_BUF_ERROR && z->avail_in))
                return BK_EDECOMPRESS;
        }
        if (!unfilter(cur, up, n, bpp)) return BK_EFORMAT;
        uint8_t *o = out + (size_t)y * w * 4;
        if (bpp == 4) memcpy(o, cur + 1, n);
        else
            for (uint32_t x = 0; x < w; x++)
                o[x * 4] = cur[1 + x * 3], o[x * 4 + 1] = cur[2 + x * 3], o[x * 4 + 2] = cur[3 + x * 3], o[x * 4 + 3] = 255;
        up = cur;
        cur = cur == rows ? rows + stride : rows;
    }
    return BK_OK;
}

bool bk_png_simple(const uint8_t *data, size_t size, uint32_t *w, uint32_t *h)
{
    static const uint8_t sig[8] = {137, 'P', 'N', 'G', 13, 10, 26, 10};
    if (size < 33 || memcmp(data, sig, 8) != 0 || be32(data + 8) != 13 || memcmp(data + 12, "IHDR", 4) != 0)
        return false;
    const uint8_t *ih = data + 16;
    uint8_t depth = ih[8], ctype = ih[9];
    if (depth != 8 || (ctype != 2 && ctype != 6) || ih[10] || ih[11] || ih[12]) return false;
    /* a colour key (tRNS) makes an RGB image's alpha; Apple's CgBI changes the stream */
    for (size_t pos = 33; pos + 12 <= size;) {
        size_t n = be32(data + pos);
        const uint8_t *type = data + pos + 4;
        if (memcmp(type, "tRNS", 4) == 0 || memcmp(type, "CgBI", 4) == 0) return false;
        if (memcmp(type, "IDAT", 4) == 0 || n > size - pos - 12) break;
        pos += 12 + n;
    }
    *w = be32(ih), *h = be32(ih + 4);
    return *w && *h && *w < (1u << 28);
}

bk_result bk_png_decode_into(const uint8_t *data, size_t size, uint32_t w, uint32_t h, uint8_t *out)
{
    uint32_t pw, ph;
    if (!bk_png_simple(data, size, &pw, &ph)) return BK_EUNSUPPORTED;
    if (pw != w || ph != h) return BK_EFORMAT;
    size_t bpp = data[25] == 6 ? 4 : 3;
    uint8_t *rows = bk_malloc(((size_t)w * bpp + 1) * 2);
    if (!rows) return BK_ENOMEM;
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit(&z) != Z_OK) {
        bk_free(rows);
        return BK_ENOMEM;
    }
    bk_result r = inflate_rows(&z, data, size, 33, w, h, bpp, rows, out);
    inflateEnd(&z);
    bk_free(rows);
    return r;
}
