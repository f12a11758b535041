/* Texture sampling for the rasteriser (raster.c, its only user): bilinear and trilinear samples
 * of a texture's RGBA8 levels in fixed point, one pixel packed in a word or in SSE2 lanes, the
 * same rounding either way, and the level of detail. */
#ifndef BK_RENDER_SAMPLE_H
#define BK_RENDER_SAMPLE_H

#include <math.h>
#include <string.h>

#include "render_internal.h"
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* ---- texture sampling ---------------------------------------------------------------------- */
/* floor of |x| < 2^31 without a library call (no SSE4.1 in the baseline) */
static inline int32_t ifloor(float x)
{
    int32_t i = (int32_t)x;
    return x < (float)i ? i - 1 : i;
}

/* two RGBA8 texels (packed, R lowest) mixed by f / 256, two channels per multiply */
static inline uint32_t lerp_px(uint32_t a, uint32_t b, uint32_t f)
{
    uint32_t g = 256 - f;
    /* rounded: + 128 in each lane (at most 255 x 256 + 128 < 2^16, no carry into the next) */
    uint32_t rb = (((a & 0x00ff00ffu) * g + (b & 0x00ff00ffu) * f + 0x00800080u) >> 8) & 0x00ff00ffu;
    uint32_t ag = (((a >> 8) & 0x00ff00ffu) * g + ((b >> 8) & 0x00ff00ffu) * f + 0x00800080u) & 0xff00ff00u;
    return rb | ag;
}

/* A texel at byte offset off of a row: RGBA, or RGB (an opaque level: rtex bpp 3) with the alpha
 * byte read past it (the next texel's red, or the level's byte of padding) replaced by 255. */
static inline uint32_t texel(const uint8_t *row, uint32_t off, uint32_t amask)
{
    uint32_t v;
    memcpy(&v, row + off, 4);
    return v | amask;
}

static inline uint32_t amask_of(uint32_t bpp) { return bpp == 3 ? 0xff000000u : 0; }

/* Bilinear samples in fixed point: the sample point in texels x 256 (minus half a texel), its low
 * 8 bits the weights. The float is truncated, not floored: below zero that is 1/256 of a texel.
 * Where to read: the two rows, the two columns (as byte offsets), the weights, the alpha mask. */
typedef struct bl_at { const uint8_t *r0, *r1; uint32_t x0, x1, fx, fy, amask; } bl_at;

/* a repeating level whose sides are powers of two: the wrap is a mask (of the unsigned value,
 * whose low bits are those of the signed one) */
static inline bl_at at_pot(const uint8_t *px, uint32_t w, uint32_t h, uint32_t bpp, float u, float v)
{
    float x = u * (float)(w * 256) - 128, y = v * (float)(h * 256) - 128;
    if (!(x > -1e15f && x < 1e15f)) x = 0; /* NaN too */
    if (!(y > -1e15f && y < 1e15f)) y = 0;
    uint64_t ix = (uint64_t)(int64_t)x, iy = (uint64_t)(int64_t)y;
    uint32_t x0 = (uint32_t)(ix >> 8) & (w - 1), y0 = (uint32_t)(iy >> 8) & (h - 1);
    bl_at a = {px + (size_t)y0 * w * bpp, px + (size_t)((y0 + 1) & (h - 1)) * w * bpp, x0 * bpp,
               ((x0 + 1) & (w - 1)) * bpp, (uint32_t)ix & 255, (uint32_t)iy & 255, amask_of(bpp)};
    return a;
}

/* clamped to the edge texels: the point clamped to [0, side - 1] */
static inline bl_at at_clamp(const uint8_t *px, uint32_t w, uint32_t h, uint32_t bpp, float u, float v)
{
    float x = u * (float)(w * 256) - 128, y = v * (float)(h * 256) - 128;
    float mx = (float)((w - 1) * 256), my = (float)((h - 1) * 256);
    x = x > 0 ? (x < mx ? x : mx) : 0; /* NaN: 0 */
    y = y > 0 ? (y < my ? y : my) : 0;
    uint32_t ix = (uint32_t)x, iy = (uint32_t)y, x0 = ix >> 8, y0 = iy >> 8;
    bl_at a = {px + (size_t)y0 * w * bpp, px + (size_t)(y0 + (y0 + 1 < h)) * w * bpp, x0 * bpp,
               (x0 + (x0 + 1 < w)) * bpp, ix & 255, iy & 255, amask_of(bpp)};
    return a;
}

/* A lightmap held as blocks (rtex blk, RGB), its figures in locals for a triangle's pixels (the
 * byte stores of a row could alias the texture's fields). */
typedef struct lm_view {
    const uint8_t *const *blk;
    uint32_t bw, w, h;
    float sx, sy, mx, my;       /* texels x 256 per unit; the largest point, (side - 1) x 256 */
} lm_view;

static inline lm_view lm_view_of(const rtex *t)
{
    lm_view l = {(const uint8_t *const *)t->blk, t->bw, t->fw, t->fh, (float)(t->fw * 256), (float)(t->fh * 256),
                 (float)((t->fw - 1) * 256), (float)((t->fh - 1) * 256)};
    return l;
}

/* the point clamped to the image's edges as at_clamp does, its four texels read from the block of
 * the first (which holds the next column and row) */
static inline bl_at at_blocks(const lm_view *l, float u, float v)
{
    float x = u * l->sx - 128, y = v * l->sy - 128;
    x = x > 0 ? (x < l->mx ? x : l->mx) : 0; /* NaN: 0 */
    y = y > 0 ? (y < l->my ? y : l->my) : 0;
    uint32_t ix = (uint32_t)x, iy = (uint32_t)y, x0 = ix >> 8, y0 = iy >> 8;
    const uint8_t *b = l->blk[(y0 / RT_BLOCK) * l->bw + x0 / RT_BLOCK];
    uint32_t lx = x0 % RT_BLOCK, ly = y0 % RT_BLOCK;
    const uint8_t *r0 = b + (size_t)ly * RT_SIDE * 3;
    bl_at a = {r0, r0 + (y0 + 1 < l->h ? RT_SIDE * 3 : 0), lx * 3, (lx + (x0 + 1 < l->w)) * 3, ix & 255, iy & 255,
               0xff000000u};
    return a;
}

/* one axis of a repeating level of any size: the coordinate brought into [0, 1) first */
static inline void wrap_axis(float u, uint32_t w, uint32_t *i0, uint32_t *i1, uint32_t *f)
{
    if (!(fabsf(u) <= 1e6f)) u = 0; /* NaN too */
    u -= (float)ifloor(u);
    int32_t ix = (int32_t)(u * (float)(w * 256) - 128) + 256; /* 128 .. w * 256 + 128 */
    int32_t x0 = ix / 256 - 1;
    if (x0 < 0) x0 += (int32_t)w;
    if (x0 >= (int32_t)w) x0 = (int32_t)w - 1;
    *i0 = (uint32_t)x0;
    *i1 = x0 + 1 >= (int32_t)w ? 0 : (uint32_t)x0 + 1;
    *f = (uint32_t)ix & 255;
}

static inline bl_at at_level(const rtex *t, uint32_t l, float u, float v)
{
    uint32_t w = t->w[l], h = t->h[l];
    const uint8_t *px = t->px[l];
    uint32_t bpp = t->bpp;
    if (t->clamp) return at_clamp(px, w, h, bpp, u, v);
    if (t->pot) return at_pot(px, w, h, bpp, u, v);
    bl_at a;
    uint32_t y0, y1;
    wrap_axis(u, w, &a.x0, &a.x1, &a.fx);
    wrap_axis(v, h, &y0, &y1, &a.fy);
    a.r0 = px + (size_t)y0 * w * bpp, a.r1 = px + (size_t)y1 * w * bpp;
    a.x0 *= bpp, a.x1 *= bpp, a.amask = amask_of(bpp);
    return a;
}

static inline uint32_t bl_px(bl_at a)
{
    uint32_t top = lerp_px(texel(a.r0, a.x0, a.amask), texel(a.r0, a.x1, a.amask), a.fx);
    uint32_t bot = lerp_px(texel(a.r1, a.x0, a.amask), texel(a.r1, a.x1, a.amask), a.fx);
    return lerp_px(top, bot, a.fy);
}

/* a bilinear sample of level l, packed RGBA8 */
static inline uint32_t bilinear_px(const rtex *t, uint32_t l, float u, float v) { return bl_px(at_level(t, l, u, v)); }

#ifdef __SSE2__
/* The same in lanes, the same rounding as lerp_px: each channel of a next to b's, multiplied by
 * (256 - f, f) and summed in one step (pmaddwd), a x (256 - f) + b x f + 128 >> 8 in 32 bits.
 * Channels in 16-bit lanes, the four in lanes 0-3. */
static inline __m128i weights_v(uint32_t f) { return _mm_set1_epi32((int)((256 - f) | (f << 16))); }

static inline __m128i round8_v(__m128i x) { return _mm_srli_epi32(_mm_add_epi32(x, _mm_set1_epi32(128)), 8); }

static inline __m128i lerp_v(__m128i a, __m128i b, uint32_t f)
{
    __m128i x = round8_v(_mm_madd_epi16(_mm_unpacklo_epi16(a, b), weights_v(f)));
    return _mm_packs_epi32(x, x);
}

static inline __m128i bl_v(bl_at a)
{
    const __m128i z = _mm_setzero_si128(), wx = weights_v(a.fx);
    /* each row's two texels channel by channel (x0's next to x1's), mixed along x */
    __m128i top = _mm_unpacklo_epi8(_mm_unpacklo_epi8(_mm_cvtsi32_si128((int)texel(a.r0, a.x0, a.amask)),
                                                      _mm_cvtsi32_si128((int)texel(a.r0, a.x1, a.amask))), z);
    __m128i bot = _mm_unpacklo_epi8(_mm_unpacklo_epi8(_mm_cvtsi32_si128((int)texel(a.r1, a.x0, a.amask)),
                                                      _mm_cvtsi32_si128((int)texel(a.r1, a.x1, a.amask))), z);
    top = round8_v(_mm_madd_epi16(top, wx));   /* 32-bit lanes, each at most 255 */
    bot = round8_v(_mm_madd_epi16(bot, wx));
    /* then the two rows, top's channel next to bottom's, along y */
    __m128i y = round8_v(_mm_madd_epi16(_mm_or_si128(top, _mm_slli_epi32(bot, 16)), weights_v(a.fy)));
    return _mm_packs_epi32(y, y);
}

/* trilinear as sample_px, in lanes */
static inline __m128i sample_v(const rtex *t, float u, float v, float lod2)
{
    float lod = 0.5f * lod2;
    if (t->levels <= 1 || !(lod > 0)) return bl_v(at_level(t, 0, u, v));
    if (lod >= (float)(t->levels - 1)) return bl_v(at_level(t, t->levels - 1, u, v));
    uint32_t l0 = (uint32_t)lod;
    uint32_t f = (uint32_t)((lod - (float)l0) * 256 + 0.5f);
    __m128i c = bl_v(at_level(t, l0, u, v));
    if (f >= 4) c = lerp_v(c, bl_v(at_level(t, l0 + 1, u, v)), f);
    return c;
}
#endif

static inline void unpack_px(uint32_t c, float o[4])
{
    const float k = 1.0f / 255.0f;
    o[0] = (float)(c & 255) * k, o[1] = (float)((c >> 8) & 255) * k;
    o[2] = (float)((c >> 16) & 255) * k, o[3] = (float)(c >> 24) * k;
}

static inline void bilinear(const rtex *t, uint32_t l, float u, float v, float o[4]) { unpack_px(bilinear_px(t, l, u, v), o); }

/* log2 of x > 0 to about 0.01: the exponent, and the mantissa through a quadratic */
static inline float fast_log2(float x)
{
    if (!(x > 1e-30f)) return -100;
    if (!(x < 1e30f)) return 100;
    uint32_t b;
    memcpy(&b, &x, 4);
    float e = (float)((int32_t)((b >> 23) & 255) - 127);
    b = (b & 0x007fffffu) | 0x3f800000u;
    float m;
    memcpy(&m, &b, 4); /* 1 .. 2 */
    return e + (-0.34484843f * m + 2.02466578f) * m - 1.67487759f;
}

/* lod2: log2 of the squared texels-per-pixel footprint at level 0; packed RGBA8 */
static inline uint32_t sample_px(const rtex *t, float u, float v, float lod2)
{
    float lod = 0.5f * lod2;
    if (t->levels <= 1 || !(lod > 0)) return bilinear_px(t, 0, u, v);
    if (lod >= (float)(t->levels - 1)) return bilinear_px(t, t->levels - 1, u, v);
    uint32_t l0 = (uint32_t)lod;
    uint32_t f = (uint32_t)((lod - (float)l0) * 256 + 0.5f);
    uint32_t c = bilinear_px(t, l0, u, v);
    if (f >= 4) c = lerp_px(c, bilinear_px(t, l0 + 1, u, v), f);
    return c;
}

static inline void sample(const rtex *t, float u, float v, float lod2, float o[4]) { unpack_px(sample_px(t, u, v, lod2), o); }

/* the level of detail at a pixel: log2 of the squared texels per pixel (the larger axis) */
static inline float lod_of(const rtex *t, const float du[2], const float dv[2])
{
    float tw = (float)t->fw, th = (float)t->fh;
    float ax = du[0] * tw, ay = dv[0] * th, bx = du[1] * tw, by = dv[1] * th;
    float rx = ax * ax + ay * ay, ry = bx * bx + by * by;
    return fast_log2(rx > ry ? rx : ry);
}

#endif
