/* Valve Texture Format (VTF 7.0-7.5): the header, the 7.3+ resource directory, and the pixels of
 * the largest mip of the first frame (every face of a cube map, one under the other) decoded to
 * RGBA8. Every size, offset and mip computed from the header is checked against the file before a
 * byte is read. DXT blocks are decoded here (they are part of this format family's craft and a
 * few dozen lines); RGBA16161616F (HDR) is tone-mapped: each channel x -> x / (1 + x) after the
 * scale vtex applies (none), then the sRGB curve, so 1.0 reaches about 188 and no value clips. */
#include <math.h>
#include <stdio.h>

#include "scene/scene_build.h"
#include "../format.h"
#include "bspkit/source.h"

enum {
    VTF_RGBA8888 = 0, VTF_ABGR8888 = 1, VTF_RGB888 = 2, VTF_BGR888 = 3, VTF_RGB565 = 4, VTF_I8 = 5, VTF_IA88 = 6,
    VTF_P8 = 7, VTF_A8 = 8, VTF_RGB888_BLUESCREEN = 9, VTF_BGR888_BLUESCREEN = 10, VTF_ARGB8888 = 11,
    VTF_BGRA8888 = 12, VTF_DXT1 = 13, VTF_DXT3 = 14, VTF_DXT5 = 15, VTF_BGRX8888 = 16, VTF_BGR565 = 17,
    VTF_BGRX5551 = 18, VTF_BGRA4444 = 19, VTF_DXT1_ONEBITALPHA = 20, VTF_BGRA5551 = 21, VTF_UV88 = 22,
    VTF_UVWQ8888 = 23, VTF_RGBA16161616F = 24, VTF_RGBA16161616 = 25, VTF_UVLX8888 = 26, VTF_FORMAT_COUNT
};

static const char *const k_fmt_names[VTF_FORMAT_COUNT] = {
    "RGBA8888", "ABGR8888", "RGB888", "BGR888", "RGB565", "I8", "IA88", "P8", "A8", "RGB888_BLUESCREEN",
    "BGR888_BLUESCREEN", "ARGB8888", "BGRA8888", "DXT1", "DXT3", "DXT5", "BGRX8888", "BGR565", "BGRX5551",
    "BGRA4444", "DXT1_ONEBITALPHA", "BGRA5551", "UV88", "UVWQ8888", "RGBA16161616F", "RGBA16161616", "UVLX8888"};

const char *bk_vtf_format_name(int32_t format)
{
    return format >= 0 && format < VTF_FORMAT_COUNT ? k_fmt_names[format] : "unknown";
}

/* bytes of one w x h image in format f (0 for an unknown or unsupported format) */
static uint64_t image_bytes(int32_t f, uint32_t w, uint32_t h)
{
    uint64_t bw = (w + 3) / 4, bh = (h + 3) / 4;
    if (bw == 0) bw = 1;
    if (bh == 0) bh = 1;
    switch (f) {
    case VTF_DXT1: case VTF_DXT1_ONEBITALPHA: return bw * bh * 8;
    case VTF_DXT3: case VTF_DXT5: return bw * bh * 16;
    case VTF_RGBA8888: case VTF_ABGR8888: case VTF_ARGB8888: case VTF_BGRA8888: case VTF_BGRX8888:
    case VTF_UVWQ8888: case VTF_UVLX8888: return (uint64_t)w * h * 4;
    case VTF_RGB888: case VTF_BGR888: case VTF_RGB888_BLUESCREEN: case VTF_BGR888_BLUESCREEN: return (uint64_t)w * h * 3;
    case VTF_RGB565: case VTF_BGR565: case VTF_BGRX5551: case VTF_BGRA4444: case VTF_BGRA5551: case VTF_IA88:
    case VTF_UV88: return (uint64_t)w * h * 2;
    case VTF_I8: case VTF_P8: case VTF_A8: return (uint64_t)w * h;
    case VTF_RGBA16161616F: case VTF_RGBA16161616: return (uint64_t)w * h * 8;
    default: return 0;
    }
}

static void c565(uint16_t c, uint8_t *o)
{
    uint32_t r = (c >> 11) & 31, g = (c >> 5) & 63, b = c & 31;
    o[0] = (uint8_t)((r * 527 + 23) >> 6);
    o[1] = (uint8_t)((g * 259 + 33) >> 6);
    o[2] = (uint8_t)((b * 527 + 23) >> 6);
    o[3] = 255;
}

/* one DXT colour block: 4x4 texels into out (stride in pixels) */
static void dxt_colour(const uint8_t *b, uint8_t *out, uint32_t stride, bool dxt1, uint32_t bw, uint32_t bh)
{
    uint8_t pal[4][4];
    uint16_t c0 = bk_rd_u16le(b), c1 = bk_rd_u16le(b + 2);
    c565(c0, pal[0]);
    c565(c1, pal[1]);
    if (!dxt1 || c0 > c1) {
        for (int k = 0; k < 3; k++) {
            pal[2][k] = (uint8_t)((2 * pal[0][k] + pal[1][k] + 1) / 3);
            pal[3][k] = (uint8_t)((pal[0][k] + 2 * pal[1][k] + 1) / 3);
        }
        pal[2][3] = pal[3][3] = 255;
    } else {
        for (int k = 0; k < 3; k++) pal[2][k] = (uint8_t)((pal[0][k] + pal[1][k]) / 2), pal[3][k] = 0;
        pal[2][3] = 255;
        pal[3][3] = 0;   /* 1-bit alpha: transparent black */
    }
    uint32_t bits = bk_rd_u32le(b + 4);
    for (uint32_t y = 0; y < bh; y++)
        for (uint32_t x = 0; x < bw; x++) memcpy(out + ((size_t)y * stride + x) * 4, pal[(bits >> (2 * (y * 4 + x))) & 3], 4);
}

static void dxt5_alpha(const uint8_t *b, uint8_t *out, uint32_t stride, uint32_t bw, uint32_t bh)
{
    uint8_t a[8];
    a[0] = b[0];
    a[1] = b[1];
    if (a[0] > a[1]) {
        for (int i = 1; i < 7; i++) a[i + 1] = (uint8_t)(((7 - i) * a[0] + i * a[1] + 3) / 7);
    } else {
        for (int i = 1; i < 5; i++) a[i + 1] = (uint8_t)(((5 - i) * a[0] + i * a[1] + 2) / 5);
        a[6] = 0;
        a[7] = 255;
    }
    uint64_t bits = 0;
    for (int i = 0; i < 6; i++) bits |= (uint64_t)b[2 + i] << (8 * i);
    for (uint32_t y = 0; y < bh; y++)
        for (uint32_t x = 0; x < bw; x++) out[((size_t)y * stride + x) * 4 + 3] = a[(bits >> (3 * (y * 4 + x))) & 7];
}

static float half_to_float(uint16_t h)
{
    uint32_t s = (h >> 15) & 1, e = (h >> 10) & 31, m = h & 1023;
    float v;
    if (e == 0) v = ldexpf((float)m, -24);
    else if (e == 31) v = m ? 0.0f : 65504.0f;
    else v = ldexpf((float)(m | 1024), (int)e - 25);
    return s ? -v : v;
}

static uint8_t tonemap(float x)
{
    if (!(x > 0)) return 0;
    x = x / (1.0f + x);
    float srgb = x <= 0.0031308f ? 12.92f * x : 1.055f * powf(x, 1.0f / 2.4f) - 0.055f;
    int v = (int)lrintf(srgb * 255.0f);
    return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
}

/* decode one w x h image of format f from src (image_bytes(f, w, h) bytes) into out (w*h*4) */
static bk_result decode(int32_t f, const uint8_t *s, uint32_t w, uint32_t h, uint8_t *out)
{
    size_t n = (size_t)w * h;
    if (f == VTF_DXT1 || f == VTF_DXT1_ONEBITALPHA || f == VTF_DXT3 || f == VTF_DXT5) {
        size_t bs = (f == VTF_DXT1 || f == VTF_DXT1_ONEBITALPHA) ? 8 : 16;
        uint32_t bw = (w + 3) / 4, bh = (h + 3) / 4;
        for (uint32_t by = 0; by < bh; by++)
            for (uint32_t bx = 0; bx < bw; bx++) {
                const uint8_t *b = s + ((size_t)by * bw + bx) * bs;
                uint8_t *o = out + ((size_t)by * 4 * w + bx * 4) * 4;
                uint32_t cw = w - bx * 4 < 4 ? w - bx * 4 : 4, ch = h - by * 4 < 4 ? h - by * 4 : 4;
                dxt_colour(bs == 8 ? b : b + 8, o, w, bs == 8, cw, ch);
                if (f == VTF_DXT3) {
                    for (uint32_t y = 0; y < ch; y++)
                        for (uint32_t x = 0; x < cw; x++) {
                            uint32_t nib = (b[(y * 4 + x) / 2] >> (4 * ((y * 4 + x) & 1))) & 15;
                            o[((size_t)y * w + x) * 4 + 3] = (uint8_t)(nib * 17);
                        }
                } else if (f == VTF_DXT5) {
                    dxt5_alpha(b, o, w, cw, ch);
                }
            }
        return BK_OK;
    }
    for (size_t i = 0; i < n; i++) {
        uint8_t *o = out + i * 4;
        const uint8_t *p;
        uint16_t v;
        switch (f) {
        case VTF_RGBA8888: p = s + i * 4; o[0] = p[0], o[1] = p[1], o[2] = p[2], o[3] = p[3]; break;
        case VTF_ABGR8888: p = s + i * 4; o[0] = p[3], o[1] = p[2], o[2] = p[1], o[3] = p[0]; break;
        /* not the name's order: the files (VTFLib/VTFEdit, which write nearly all of them, and
         * srctools) hold G, B, A, R */
        case VTF_ARGB8888: p = s + i * 4; o[0] = p[3], o[1] = p[0], o[2] = p[1], o[3] = p[2]; break;
        case VTF_BGRA8888: p = s + i * 4; o[0] = p[2], o[1] = p[1], o[2] = p[0], o[3] = p[3]; break;
        case VTF_BGRX8888: p = s + i * 4; o[0] = p[2], o[1] = p[1], o[2] = p[0], o[3] = 255; break;
        /* bump and du/dv maps, not pictures: U, V, W (or L) as red, green, blue; Q as alpha */
        case VTF_UVWQ8888: p = s + i * 4; o[0] = p[0], o[1] = p[1], o[2] = p[2], o[3] = p[3]; break;
        case VTF_UVLX8888: p = s + i * 4; o[0] = p[0], o[1] = p[1], o[2] = p[2], o[3] = 255; break;
        case VTF_RGB888: case VTF_RGB888_BLUESCREEN: p = s + i * 3; o[0] = p[0], o[1] = p[1], o[2] = p[2], o[3] = 255; break;
        case VTF_BGR888: case VTF_BGR888_BLUESCREEN: p = s + i * 3; o[0] = p[2], o[1] = p[1], o[2] = p[0], o[3] = 255; break;
        /* named by the bytes' order: RGB565 has red in the low bits, BGR565 blue */
        case VTF_RGB565: v = bk_rd_u16le(s + i * 2); c565(v, o); { uint8_t t = o[0]; o[0] = o[2]; o[2] = t; } break;
        case VTF_BGR565: v = bk_rd_u16le(s + i * 2); c565(v, o); break;
        case VTF_BGRX5551: case VTF_BGRA5551:
            v = bk_rd_u16le(s + i * 2);
            o[2] = (uint8_t)((v & 31) * 255 / 31), o[1] = (uint8_t)(((v >> 5) & 31) * 255 / 31);
            o[0] = (uint8_t)(((v >> 10) & 31) * 255 / 31), o[3] = f == VTF_BGRA5551 && !(v >> 15) ? 0 : 255;
            break;
        case VTF_BGRA4444:
            v = bk_rd_u16le(s + i * 2);
            o[2] = (uint8_t)((v & 15) * 17), o[1] = (uint8_t)(((v >> 4) & 15) * 17);
            o[0] = (uint8_t)(((v >> 8) & 15) * 17), o[3] = (uint8_t)(((v >> 12) & 15) * 17);
            break;
        case VTF_I8: o[0] = o[1] = o[2] = s[i], o[3] = 255; break;
        case VTF_IA88: o[0] = o[1] = o[2] = s[i * 2], o[3] = s[i * 2 + 1]; break;
        case VTF_A8: o[0] = o[1] = o[2] = 0, o[3] = s[i]; break;
        case VTF_UV88: o[0] = s[i * 2], o[1] = s[i * 2 + 1], o[2] = 0, o[3] = 255; break;
        case VTF_RGBA16161616F:
            for (int k = 0; k < 3; k++) o[k] = tonemap(half_to_float(bk_rd_u16le(s + i * 8 + 2 * (size_t)k)));
            { float a = half_to_float(bk_rd_u16le(s + i * 8 + 6)); o[3] = (uint8_t)(a <= 0 ? 0 : a >= 1 ? 255 : lrintf(a * 255)); }
            break;
        case VTF_RGBA16161616:
            for (int k = 0; k < 4; k++) o[k] = (uint8_t)(bk_rd_u16le(s + i * 8 + 2 * (size_t)k) >> 8);
            break;
        default: return BK_EUNSUPPORTED;   /* P8 (palette formats vtex never writes) */
        }
        /* the bluescreen formats key pure blue out: such texels are transparent */
        if ((f == VTF_RGB888_BLUESCREEN || f == VTF_BGR888_BLUESCREEN) && o[0] == 0 && o[1] == 0 && o[2] == 255)
            o[2] = o[3] = 0;
    }
    return BK_OK;
}

#define VTF_ENVMAP 0x4000u

/* Parse and check the header; fill v. data_ofs: where the high-res data starts. */
/* A header problem ends the parse in every mode: nothing after it can be trusted. */
#define VTF_FAIL(ctx, code, lump, index, offset, ...)                                              \
    do {                                                                                          \
        bk_report((ctx), BK_SEV_ERROR, (code), (lump), (int64_t)(index), (uint64_t)(offset), __VA_ARGS__); \
        return (code);                                                                            \
    } while (0)

static bk_result parse(const uint8_t *d, size_t n, bk_ctx *ctx, bk_vtf *v)
{
    memset(v, 0, sizeof *v);
    if (n < 64 || memcmp(d, "VTF", 4) != 0)
        VTF_FAIL(ctx, n < 64 ? BK_ETRUNCATED : BK_EMAGIC, "header", BK_NO_INDEX, 0, "not a VTF file (or shorter than a header)");
    v->version_major = bk_rd_u32le(d + 4);
    v->version_minor = bk_rd_u32le(d + 8);
    if (v->version_major != 7 || v->version_minor > 5)
        VTF_FAIL(ctx, BK_EVERSION, "header", BK_NO_INDEX, 4, "VTF version %u.%u (7.0-7.5 are read)", v->version_major,
               v->version_minor);
    v->header_size = bk_rd_u32le(d + 12);
    v->width = bk_rd_u16le(d + 16);
    v->height = bk_rd_u16le(d + 18);
    v->flags = bk_rd_u32le(d + 20);
    v->frames = bk_rd_u16le(d + 24);
    v->first_frame = bk_rd_u16le(d + 26);
    for (int k = 0; k < 3; k++) v->reflectivity[k] = bk_rd_f32le(d + 32 + 4 * (size_t)k);
    v->bumpmap_scale = bk_rd_f32le(d + 48);
    v->format = bk_rd_i32le(d + 52);
    v->mip_count = d[56];
    v->lowres_format = bk_rd_i32le(d + 57);
    v->lowres_width = d[61];
    v->lowres_height = d[62];
    v->depth = v->version_minor >= 2 && n >= 65 ? bk_rd_u16le(d + 63) : 1;
    if (v->depth == 0) v->depth = 1;
    if (v->frames == 0) v->frames = 1;
    v->faces = (v->flags & VTF_ENVMAP) ? (v->version_minor < 5 && v->first_frame != 0xffff ? 7 : 6) : 1;
    if (v->width == 0 || v->height == 0 || v->mip_count == 0 || v->mip_count > 16)
        VTF_FAIL(ctx, BK_EFORMAT, "header", BK_NO_INDEX, 16, "size %ux%u with %u mips is not an image", v->width, v->height,
               v->mip_count);
    if (v->header_size > n || v->header_size < 64)
        VTF_FAIL(ctx, BK_ELUMP_RANGE, "header", BK_NO_INDEX, 12, "header size %u outside the %zu-byte file", v->header_size, n);
    if (image_bytes(v->format, v->width, v->height) == 0)
        VTF_FAIL(ctx, BK_EUNSUPPORTED, "header", BK_NO_INDEX, 52, "image format %d (%s) is not decoded", v->format,
               bk_vtf_format_name(v->format));
    /* the high-res data: every mip (smallest first) x frames x faces x depth */
    uint64_t total = 0, largest_ofs = 0;
    for (int m = (int)v->mip_count - 1; m >= 0; m--) {
        uint32_t mw = v->width >> m, mh = v->height >> m, md = v->depth >> m;
        if (!mw) mw = 1;
        if (!mh) mh = 1;
        if (!md) md = 1;
        uint64_t one = image_bytes(v->format, mw, mh);
        if (m == 0) largest_ofs = total;
        total += one * v->frames * v->faces * md;
        if (total > n) break;
    }
    uint64_t low = v->lowres_format >= 0 && v->lowres_width ? image_bytes(v->lowres_format, v->lowres_width, v->lowres_height) : 0;
    uint64_t hi_ofs;
    if (v->version_minor >= 3) {
        if (n < 80) VTF_FAIL(ctx, BK_ETRUNCATED, "header", BK_NO_INDEX, 68, "7.3 header shorter than 80 bytes");
        v->resource_count = bk_rd_u32le(d + 68);
        if (!bk_span_ok(80, (uint64_t)v->resource_count * 8, n) || v->resource_count > 32)
            VTF_FAIL(ctx, BK_ELUMP_RANGE, "resources", BK_NO_INDEX, 68, "%u resources do not fit the file", v->resource_count);
        hi_ofs = UINT64_MAX;
        for (uint32_t i = 0; i < v->resource_count; i++) {
            const uint8_t *r = d + 80 + 8 * (size_t)i;
            uint32_t tag = (uint32_t)r[0] | ((uint32_t)r[1] << 8) | ((uint32_t)r[2] << 16);
            if (tag == 0x30) hi_ofs = bk_rd_u32le(r + 4);
            if (tag == 0x01) v->lowres_offset = bk_rd_u32le(r + 4);
        }
        if (hi_ofs == UINT64_MAX) VTF_FAIL(ctx, BK_EFORMAT, "resources", BK_NO_INDEX, 80, "no high-res image resource");
    } else {
        v->lowres_offset = v->header_size;
        hi_ofs = (uint64_t)v->header_size + low;
    }
    if (!bk_span_ok(hi_ofs, total, n))
        VTF_FAIL(ctx, BK_ETRUNCATED, "image", BK_NO_INDEX, hi_ofs,
               "%ux%u %s, %u mips x %u frames x %u faces: %llu bytes from offset %llu run past the %zu-byte file",
               v->width, v->height, bk_vtf_format_name(v->format), v->mip_count, v->frames, v->faces,
               (unsigned long long)total, (unsigned long long)hi_ofs, n);
    if (low && !bk_span_ok(v->lowres_offset, low, n)) v->lowres_offset = 0;   /* no usable thumbnail */
    v->image_offset = hi_ofs + largest_ofs;
    v->image_bytes = image_bytes(v->format, v->width, v->height);
    return BK_OK;
}

bk_result bk_vtf_parse(const uint8_t *d, size_t n, const bk_options *opt, bk_vtf *out)
{
    if (!d || !out) return BK_EARG;
    bk_ctx ctx;
    bk_ctx_init(&ctx, opt, false);
    return parse(d, n, &ctx, out);
}

bk_result bk_vtf_decode(const uint8_t *d, size_t n, const bk_vtf *v, uint32_t face, uint8_t *rgba)
{
    if (!d || !v || !rgba || face >= v->faces) return BK_EARG;
    uint64_t ofs = v->image_offset + (uint64_t)face * v->image_bytes;   /* frame 0, slice 0 */
    if (v->depth > 1) ofs = v->image_offset + (uint64_t)face * v->image_bytes * v->depth;
    if (!bk_span_ok(ofs, v->image_bytes, n)) return BK_ETRUNCATED;
    return decode(v->format, d + ofs, v->width, v->height, rgba);
}

static float srgb_to_linear(uint8_t c)
{
    float x = (float)c / 255.0f;
    return x <= 0.04045f ? x / 12.92f : powf((x + 0.055f) / 1.055f, 2.4f);
}

bk_result bk_vtf_decode_linear(const uint8_t *d, size_t n, const bk_vtf *v, bool rgbs, float *rgb)
{
    if (!d || !v || !rgb) return BK_EARG;
    size_t px = (size_t)v->width * v->height;
    if (!rgbs && (v->format == VTF_RGBA16161616F || v->format == VTF_RGBA16161616)) {
        if (!bk_span_ok(v->image_offset, v->image_bytes, n) || v->image_bytes < (uint64_t)px * 8) return BK_ETRUNCATED;
        const uint8_t *s = d + v->image_offset;
        for (size_t i = 0; i < px; i++)
            for (int k = 0; k < 3; k++) {
                uint16_t h = bk_rd_u16le(s + i * 8 + 2 * (size_t)k);
                rgb[i * 3 + k] = v->format == VTF_RGBA16161616F ? half_to_float(h) : (float)h * (16.0f / 65535.0f);
            }
        return BK_OK;
    }
    uint8_t *t = bk_malloc(px * 4);
    if (!t) return BK_ENOMEM;
    bk_result r = bk_vtf_decode(d, n, v, 0, t);
    for (size_t i = 0; r == BK_OK && i < px; i++)
        for (int k = 0; k < 3; k++)
            rgb[i * 3 + k] = rgbs ? (float)t[i * 4 + k] * (float)t[i * 4 + 3] * (8.0f / (255.0f * 255.0f))
                                  : srgb_to_linear(t[i * 4 + k]);
    bk_free(t);
    return r;
}

bk_result bk_vtf_pack(const uint8_t *d, size_t n, const bk_vtf *v, uint8_t **packed, size_t *size)
{
    *packed = NULL;
    if (!d || !v || v->image_bytes > SIZE_MAX - 4 || !bk_span_ok(v->image_offset, v->image_bytes, n)) return BK_EARG;
    if (image_bytes(v->format, v->width, v->height) != v->image_bytes) return BK_EUNSUPPORTED;
    uint8_t *p = bk_malloc((size_t)v->image_bytes + 4);
    if (!p) return BK_ENOMEM;
    bk_wr_u32le(p, (uint32_t)v->format);
    memcpy(p + 4, d + v->image_offset, (size_t)v->image_bytes);
    *packed = p;
    *size = (size_t)v->image_bytes + 4;
    return BK_OK;
}

bk_result bk_vtf_unpack(const uint8_t *packed, size_t size, uint32_t w, uint32_t h, uint8_t *rgba)
{
    if (size < 4) return BK_EARG;
    int32_t format = (int32_t)bk_rd_u32le(packed);
    uint64_t need = image_bytes(format, w, h);
    if (!need || need != size - 4) return BK_EARG;
    return decode(format, packed + 4, w, h, rgba);
}

bk_result bk_vtf_packed_alpha(const uint8_t *packed, size_t size, uint32_t w, uint32_t h, bool *alpha)
{
    *alpha = false;
    if (size < 4) return BK_EARG;
    int32_t format = (int32_t)bk_rd_u32le(packed);
    uint64_t need = image_bytes(format, w, h), strip = image_bytes(format, w, 4);
    if (!need || need != size - 4 || !strip) return BK_EARG;
    /* four rows at a time (one row of DXT blocks): a strip's worth of RGBA, not the image's */
    uint8_t *tmp = bk_malloc((size_t)w * 16);
    if (!tmp) return BK_ENOMEM;
    bk_result r = BK_OK;
    for (uint32_t y = 0; y < h && r == BK_OK && !*alpha; y += 4) {
        uint32_t rows = h - y < 4 ? h - y : 4;
        r = decode(format, packed + 4 + (size_t)(y / 4) * strip, w, rows, tmp);
        for (size_t i = 0, n = (size_t)w * rows; r == BK_OK && i < n && !*alpha; i++) *alpha = tmp[i * 4 + 3] != 255;
    }
    bk_free(tmp);
    return r;
}

bk_result bk_vtf_decode_thumbnail(const uint8_t *d, size_t n, const bk_vtf *v, uint8_t *rgba)
{
    if (!d || !v || !rgba || !v->lowres_offset || !v->lowres_width) return BK_ENOTFOUND;
    uint64_t bytes = image_bytes(v->lowres_format, v->lowres_width, v->lowres_height);
    if (!bytes || !bk_span_ok(v->lowres_offset, bytes, n)) return BK_ENOTFOUND;
    return decode(v->lowres_format, d + v->lowres_offset, v->lowres_width, v->lowres_height, rgba);
}

/* ---- as a file format: info, validate, textures ------------------------------------------------- */

static int vtf_probe(const uint8_t *d, size_t n) { return n >= 4 && memcmp(d, "VTF", 4) == 0 ? 2 : 0; }

static void vtf_destroy(void *impl) { bk_free(impl); }

static bk_result vtf_load(bk_file *f, bk_ctx *ctx)
{
    bk_vtf *v = bk_calloc(1, sizeof *v);
    if (!v) return BK_ENOMEM;
    bk_result r = parse(f->data, f->size, ctx, v);
    if (r != BK_OK) {
        bk_free(v);
        return r;
    }
    f->impl = v;
    f->format = BK_FORMAT_VTF;
    f->info.format = BK_FORMAT_VTF;
    f->info.version = (int32_t)v->version_minor;
    snprintf(f->info.variant, sizeof f->info.variant, "7.%u %s", v->version_minor, bk_vtf_format_name(v->format));
    bk_info_count(&f->info, "width", v->width);
    bk_info_count(&f->info, "height", v->height);
    bk_info_count(&f->info, "mips", v->mip_count);
    bk_info_count(&f->info, "frames", v->frames);
    bk_info_count(&f->info, "faces", v->faces);
    bk_info_count(&f->info, "depth", v->depth);
    return BK_OK;
}

static bk_result vtf_extract(const bk_file *f, const bk_options *opt, bk_scene *out)
{
    (void)opt;
    const bk_vtf *v = f->impl;
    /* every face of a cube map, one under the other */
    uint64_t px = (uint64_t)v->width * v->height * v->faces;
    if (px > ((uint64_t)1 << 28)) return BK_ELIMIT;
    uint8_t *rgba = bk_malloc((size_t)px * 4);
    if (!rgba) return BK_ENOMEM;
    size_t face_bytes = (size_t)v->width * v->height * 4;
    for (uint32_t k = 0; k < v->faces; k++) {
        bk_result r = bk_vtf_decode(f->data, f->size, v, k, rgba + k * face_bytes);
        if (r != BK_OK) {
            bk_free(rgba);
            return r;
        }
    }
    int32_t idx;
    const char *name = f->name ? f->name : "texture";
    const char *b = strrchr(name, '/');
    char nm[256];
    snprintf(nm, sizeof nm, "%s", b ? b + 1 : name);
    char *dot = strrchr(nm, '.');
    if (dot && bk_strcasecmp(dot, ".vtf") == 0) *dot = 0;
    bk_result r = bk_scene_add_image(out, nm, v->width, v->height * v->faces, rgba, &idx);
    if (r != BK_OK) bk_free(rgba);
    return r;
}

const bk_format_ops bk_ops_vtf = {BK_FORMAT_VTF, vtf_probe, vtf_load, vtf_destroy, NULL, vtf_extract, NULL, NULL};
