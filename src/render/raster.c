/* The rasteriser: triangles in draw order (opaque, sky layers where nothing opaque is, blended back
 * to front) are moved into camera space, clipped to the view volume, projected and binned into
 * 64x64 tiles; each
 * tile is then drawn by one of the threads (with a depth buffer of its own), pixel by pixel, as the fragment shader of
 * tests/tools/render.mjs --mode full does: perspective-correct texture (bilinear, trilinear
 * between mip levels) x lightmap, vertex colour where the material multiplies it, emission added,
 * alpha test, the material's blend against what is drawn, a depth buffer of 1 / depth. The texture
 * samples are sample.h's. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BK_ADVANCED_API /* the speed and memory knobs (bspkit/advanced.h) */
#include "bspkit/advanced.h"
#include "render_internal.h"
#include "sample.h"

#if defined(__GNUC__) || defined(__clang__)
#define RT_NOINLINE __attribute__((noinline))
#else
#define RT_NOINLINE
#endif

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define TILE 64
/* attributes carried through clipping: camera x y z, uv0, uv1, colour, world z */
enum { A_X, A_Y, A_Z, A_U0, A_V0, A_U1, A_V1, A_R, A_G, A_B, A_A, A_WZ, NA };
#define NI (NA - 3) /* interpolated: uv0 uv1 rgba wz */
#define MAXPOLY 12

typedef struct stri {
    float x[3], y[3];
    float q[3];                 /* 1 / depth (perspective) or 1 */
    float d[3];                 /* depth key: larger is nearer */
    float at[3][NI];            /* attribute x q */
    float dl1x, dl1y, dl2x, dl2y; /* barycentric gradients */
    float l1o, l2o;             /* barycentrics at pixel (0.5, 0.5) */
    uint32_t mat;
    bool sky3d;                 /* a 3D skybox's: drawn before the world, whose depth starts afresh */
    float shade;                /* model view: light from the face's normal, else 1 */
    int32_t x0, y0, x1, y1;     /* pixel bounds, inclusive */
} stri;

typedef struct raster_job {
    const bk_renderer *r;
    const rt_view *v;
    uint8_t *rgba;
    stri *tris;
    uint32_t *bin_start, *bin;  /* tile t's triangles: bin[bin_start[t] .. bin_start[t + 1]) */
    uint32_t tiles_x, tiles_y;
    uint32_t next_tile;
    bk_mutex lock;
    const uint8_t *gamma;       /* the display gamma as a table of the 256 values, or NULL */
} raster_job;

/* The tile a worker draws, with its depth buffer (1 / depth, larger is nearer): tiles are drawn
 * apart from one another, so the frame needs no depth buffer of its own (3.5 MB at 1280x720). */
/* a value interpolated over the triangle (one per vertex) as a plane: v0 + vx * x + vy * y */
typedef struct plane { float v0, vx, vy; } plane;

typedef struct rt_tile {
    int32_t x0, y0, w;          /* w: the tile's width inside the frame */
    float depth[TILE * TILE];
    /* a row's farthest depth (its minimum), so that a triangle wholly behind a row is not
     * walked pixel by pixel there; worked out again when the row has been written since */
    float row_min[TILE];
    bool row_dirty[TILE];
} rt_tile;

/* nothing drawn yet; the pixels past the frame's edge (never drawn) as near as can be, so that
 * they never keep a row from being hidden */
static void tile_clear_depth(rt_tile *tile)
{
    for (size_t i = 0; i < TILE * TILE; i++) tile->depth[i] = (int32_t)(i % TILE) < tile->w ? -INFINITY : INFINITY;
    for (int i = 0; i < TILE; i++) tile->row_min[i] = -INFINITY, tile->row_dirty[i] = false;
}

/* every pixel of row ry holds a depth above dmax: a triangle no nearer than dmax shows nowhere in
 * it (dmax -inf: the sky, which shows only where nothing was drawn) */
static inline bool row_hidden(rt_tile *tile, int32_t ry, float dmax)
{
    if (tile->row_dirty[ry]) {
        const float *d = tile->depth + (size_t)ry * TILE;   /* never NaN: a NaN fails every depth test */
#ifdef __SSE2__
        __m128 m4 = _mm_loadu_ps(d);
        for (int i = 4; i < TILE; i += 4) m4 = _mm_min_ps(m4, _mm_loadu_ps(d + i));
        m4 = _mm_min_ps(m4, _mm_shuffle_ps(m4, m4, _MM_SHUFFLE(1, 0, 3, 2)));
        m4 = _mm_min_ps(m4, _mm_shuffle_ps(m4, m4, _MM_SHUFFLE(2, 3, 0, 1)));
        tile->row_min[ry] = _mm_cvtss_f32(m4);
#else
        float m = d[0];
        for (int i = 1; i < TILE; i++) m = d[i] < m ? d[i] : m;
        tile->row_min[ry] = m;
#endif
        tile->row_dirty[ry] = false;
    }
    return dmax < tile->row_min[ry];
}

/* the nearest depth any pixel of t can have as the draw functions compute it (from barycentrics
 * or a plane stepped along the row), with room for their rounding */
static float tri_dmax(const stri *t, const plane *pd)
{
    float m = t->d[0] > t->d[1] ? t->d[0] : t->d[1];
    m = m > t->d[2] ? m : t->d[2];
    float mag = fabsf(pd->v0) + fabsf(pd->vx) * (float)(abs(t->x1) + TILE + 1) + fabsf(pd->vy) * (float)(abs(t->y1) + 1);
    float tol = 1e-4f * (fabsf(t->d[0]) + fabsf(t->d[1]) + fabsf(t->d[2])) + 2e-5f * mag;
    return isfinite(m) && isfinite(tol) ? m + tol : INFINITY;
}

/* ---- one pixel ------------------------------------------------------------------------------- */
typedef struct frag {
    float uv0[2], uv1[2], col[4], wz;
    float du[2], dv[2];         /* uv0 per pixel along x and y */
} frag;

static bool shade(const bk_renderer *r, const rmat *m, const rt_view *v, const frag *f, float light, float c[4])
{
    for (int k = 0; k < 4; k++) c[k] = m->base[k];
    if (m->tex >= 0) {
        const rtex *t = &r->tex[m->tex];
        float lod2 = lod_of(t, f->du, f->dv);
        float s[4];
        sample(t, f->uv0[0], f->uv0[1], lod2, s);
        if (m->tex2 >= 0) {
            float s2[4], b = f->col[3] < 0 ? 0 : (f->col[3] > 1 ? 1 : f->col[3]);
            sample(&r->tex[m->tex2], f->uv0[0], f->uv0[1], lod2, s2);
            for (int k = 0; k < 4; k++) s[k] += (s2[k] - s[k]) * b;
        }
        for (int k = 0; k < 4; k++) c[k] *= s[k];
    }
    if (m->cutoff > 0 && c[3] < m->cutoff) return false;
    if (m->vc)
        for (int k = 0; k < 3; k++) c[k] *= f->col[k];
    if (m->lm >= 0) {
        float l[4];
        const lm_view lv = lm_view_of(&r->tex[m->lm]);
        unpack_px(bl_px(at_blocks(&lv, f->uv1[0], f->uv1[1])), l);
        for (int k = 0; k < 3; k++) c[k] *= l[k] * m->lm_scale;
    }
    if (m->emissive[0] > 0 || m->emissive[1] > 0 || m->emissive[2] > 0) {
        float e[4] = {1, 1, 1, 1};
        if (m->em >= 0) sample(&r->tex[m->em], f->uv0[0], f->uv0[1], 0, e);
        for (int k = 0; k < 3; k++) c[k] += m->emissive[k] * e[k];
    }
    for (int k = 0; k < 3; k++) c[k] = c[k] > 1 ? 1 : (c[k] < 0 ? 0 : c[k] * light);
    if (v->overview) {
        float h = v->hz1 > v->hz0 ? (f->wz - v->hz0) / (v->hz1 - v->hz0) : 1;
        h = h < 0 ? 0 : (h > 1 ? 1 : h);
        for (int k = 0; k < 3; k++) c[k] *= 0.3f + 0.7f * h;
    }
    return true;
}

static inline uint8_t to8(float x)
{
    x = x < 0 ? 0 : (x > 1 ? 1 : x);
    return (uint8_t)(x * 255.0f + 0.5f);
}

static void blend_out(uint8_t *dst, const float c[4], uint8_t mode)
{
    float a = c[3] < 0 ? 0 : (c[3] > 1 ? 1 : c[3]);
    for (int k = 0; k < 3; k++) {
        float d = dst[k] * (1.0f / 255.0f), o;
        switch (mode) {
        case RB_ALPHA: o = c[k] * a + d * (1 - a); break;
        case RB_ADD: o = c[k] * a + d; break;
        case RB_MULTIPLY: o = d * c[k]; break;
        default: o = c[k]; break;
        }
        dst[k] = to8(o);
    }
}

/* ---- one triangle inside one tile ---------------------------------------------------------- */
/* the pixels of row y inside the triangle, from the three barycentrics' lines (with a pixel of
 * slack each side: the per-pixel test stays the judge); false when none */
static bool row_span(const stri *t, int32_t y, int32_t x0, int32_t x1, int32_t *xa, int32_t *xb)
{
    float b1 = t->l1o + t->dl1y * (float)y, b2 = t->l2o + t->dl2y * (float)y, b0 = 1 - b1 - b2;
    float s[3][2] = {{b0, -(t->dl1x + t->dl2x)}, {b1, t->dl1x}, {b2, t->dl2x}};
    float lo = (float)x0, hi = (float)x1;
    for (int e = 0; e < 3; e++) {
        /* (ternaries, not fmaxf / fminf: those are library calls without -ffast-math) */
        if (s[e][1] > 1e-12f) {
            float c = -s[e][0] / s[e][1] - 1;
            lo = c > lo ? c : lo;
        } else if (s[e][1] < -1e-12f) {
            float c = -s[e][0] / s[e][1] + 1;
            hi = c < hi ? c : hi;
        }
        else if (s[e][0] < -1e-5f) hi = lo - 1;
    }
    if (!(lo <= hi)) return false;
    *xa = (int32_t)lo, *xb = (int32_t)hi + 1;
    if (*xa < x0) *xa = x0;
    if (*xb > x1) *xb = x1;
    return *xa <= *xb;
}


static plane plane_of(const stri *t, float a0, float a1, float a2)
{
    plane p;
    p.vx = (a1 - a0) * t->dl1x + (a2 - a0) * t->dl2x;
    p.vy = (a1 - a0) * t->dl1y + (a2 - a0) * t->dl2y;
    p.v0 = a0 + (a1 - a0) * t->l1o + (a2 - a0) * t->l2o;
    return p;
}

static inline float plane_at(const plane *p, int32_t x, int32_t y) { return p->v0 + p->vx * (float)x + p->vy * (float)y; }

/* round(x / 255) for x = a x b of two 8-bit values: (x + 128 + ((x + 128) >> 8)) >> 8, exact */
static inline uint32_t div255(uint32_t x)
{
    x += 128;
    return (x + (x >> 8)) >> 8;
}

/* what an opaque material without blend, alpha test or emission multiplies: texture (or white) x
 * base colour x vertex colour x lightmap x gain, each product rounded to 8 bits */
typedef struct fast_mat {
    const rtex *tex, *lm;       /* NULL: none */
    lm_view lv;                 /* lm's */
    uint32_t base;              /* packed RGBA8 */
    bool white, vc;             /* base is white; multiply the vertex colour */
    uint32_t gain;              /* lightmap scale x 256 */
} fast_mat;

static bool fast_of(const raster_job *j, const stri *t, const rmat *m, fast_mat *o)
{
    if (m->pass != RP_OPAQUE || m->blend != RB_NONE || m->tex2 >= 0 || m->cutoff > 0 || m->emissive[0] > 0 ||
        m->emissive[1] > 0 || m->emissive[2] > 0 || j->v->overview || t->shade != 1 ||
        !(m->lm_scale >= 0 && m->lm_scale <= 16))
        return false;
    o->tex = m->tex >= 0 ? &j->r->tex[m->tex] : NULL;
    o->lm = m->lm >= 0 ? &j->r->tex[m->lm] : NULL;
    if (o->lm) o->lv = lm_view_of(o->lm);
    o->base = 0;
    for (int k = 0; k < 4; k++) o->base |= (uint32_t)to8(m->base[k]) << (8 * k);
    o->white = (o->base | 0xff000000u) == 0xffffffffu;
    o->vc = m->vc;
    o->gain = (uint32_t)(m->lm_scale * 256 + 0.5f);
    return true;
}

/* the last step: c (8-bit channels) x l x gain, rounded, clamped */
static inline uint32_t apply_gain(uint32_t c, uint32_t l, uint32_t gain)
{
    uint32_t out = 0xff000000u;
    for (int k = 0; k < 3; k++) {
        uint32_t val = ((c >> (8 * k)) & 255) * ((l >> (8 * k)) & 255);
        val = gain == 256 ? div255(val) : (val * gain + 255 * 128) / (255 * 256);
        out |= (val > 255 ? 255 : val) << (8 * k);
    }
    return out;
}

static inline uint32_t mul_px(uint32_t a, uint32_t b)
{
    uint32_t o = 0;
    for (int k = 0; k < 4; k++) o |= div255(((a >> (8 * k)) & 255) * ((b >> (8 * k)) & 255)) << (8 * k);
    return o;
}

#ifdef __SSE2__
static inline __m128i div255_v(__m128i x)
{
    x = _mm_add_epi16(x, _mm_set1_epi16(128));
    return _mm_srli_epi16(_mm_add_epi16(x, _mm_srli_epi16(x, 8)), 8);
}

static inline __m128i unpack_v(uint32_t c) { return _mm_unpacklo_epi8(_mm_cvtsi32_si128((int)c), _mm_setzero_si128()); }
#endif

/* one pixel of a fast material, packed RGBA8 (alpha 255); col: the vertex colour x 255 */
static inline uint32_t fast_px(const fast_mat *f, float u, float v, float lod2, float s, float t, const float col[3])
{
#ifdef __SSE2__
    __m128i c = f->tex ? sample_v(f->tex, u, v, lod2) : _mm_set1_epi16(255);
    if (!f->white) c = div255_v(_mm_mullo_epi16(c, unpack_v(f->base)));
    if (f->vc) {
        __m128i vc = _mm_cvttps_epi32(_mm_add_ps(_mm_setr_ps(col[0], col[1], col[2], 255), _mm_set1_ps(0.5f)));
        vc = _mm_packs_epi32(vc, vc);
        vc = _mm_min_epi16(_mm_max_epi16(vc, _mm_setzero_si128()), _mm_set1_epi16(255));
        c = div255_v(_mm_mullo_epi16(c, vc));
    }
    if (f->lm) {
        __m128i tl = _mm_mullo_epi16(c, bl_v(at_blocks(&f->lv, s, t)));
        if (f->gain == 256) return 0xff000000u | (uint32_t)_mm_cvtsi128_si32(_mm_packus_epi16(div255_v(tl), tl));
        uint64_t p = (uint64_t)_mm_cvtsi128_si64(tl);
        uint32_t out = 0xff000000u;
        for (int k = 0; k < 3; k++) {
            uint32_t val = ((uint32_t)(p >> (16 * k)) & 0xffff) * f->gain;
            val = (val + 255 * 128) / (255 * 256);
            out |= (val > 255 ? 255 : val) << (8 * k);
        }
        return out;
    }
    return 0xff000000u | (uint32_t)_mm_cvtsi128_si32(_mm_packus_epi16(c, c));
#else
    uint32_t c = f->tex ? sample_px(f->tex, u, v, lod2) : 0xffffffffu;
    if (!f->white) c = mul_px(c, f->base);
    if (f->vc) {
        uint32_t vc = 0xff000000u;
        for (int k = 0; k < 3; k++) vc |= (uint32_t)(col[k] < 0 ? 0 : (col[k] > 255 ? 255 : col[k] + 0.5f)) << (8 * k);
        c = mul_px(c, vc);
    }
    if (f->lm) return apply_gain(c, bl_px(at_blocks(&f->lv, s, t)), f->gain);
    return c | 0xff000000u;
#endif
}

/* The common material (opaque, a texture x lightmap x gain, white base, nothing else) in integers:
 * every value stepped along the row, the texture's level of detail once every 4 pixels. Kept apart
 * from draw_fast, which does the same for any fast material: inlined into one another, or with
 * the general one's tests, the common case runs 10-40% slower (measured). */
static RT_NOINLINE void draw_common(raster_job *j, const stri *t, const rmat *m, int32_t x0, int32_t y0, int32_t x1, int32_t y1,
                                    rt_tile *tile, float dmax)
{
    const bk_renderer *r = j->r;
    const rtex *tex = &r->tex[m->tex];
    const lm_view lv = lm_view_of(&r->tex[m->lm]);
    uint32_t gain = (uint32_t)(m->lm_scale * 256 + 0.5f), W = j->v->w;
    plane pd = plane_of(t, t->d[0], t->d[1], t->d[2]), pq = plane_of(t, t->q[0], t->q[1], t->q[2]);
    plane pa[4];
    for (int k = 0; k < 4; k++) pa[k] = plane_of(t, t->at[0][k], t->at[1][k], t->at[2][k]);
    const float eps = -1e-5f;
    float *const tdepth = tile->depth; /* locals: the byte stores below could alias the tile */
    const int32_t dx0 = tile->x0, dy0 = tile->y0;
    for (int32_t y = y0; y <= y1; y++) {
        int32_t xa, xb;
        if (row_hidden(tile, y - tile->y0, dmax) || !row_span(t, y, x0, x1, &xa, &xb)) continue;
        tile->row_dirty[y - tile->y0] = true;
        float l1 = t->l1o + t->dl1y * (float)y + t->dl1x * (float)xa;
        float l2 = t->l2o + t->dl2y * (float)y + t->dl2x * (float)xa;
        float d = plane_at(&pd, xa, y), q = plane_at(&pq, xa, y);
        float U = plane_at(&pa[0], xa, y), V = plane_at(&pa[1], xa, y);
        float S = plane_at(&pa[2], xa, y), T = plane_at(&pa[3], xa, y);
        int32_t lod_x = xa;
        float lod2 = 0;
        float *depth = tdepth + (size_t)(y - dy0) * TILE;
        uint8_t *row = j->rgba + (size_t)y * W * 4;
        for (int32_t x = xa; x <= xb; x++, l1 += t->dl1x, l2 += t->dl2x, d += pd.vx, q += pq.vx, U += pa[0].vx,
                     V += pa[1].vx, S += pa[2].vx, T += pa[3].vx) {
            if (1 - l1 - l2 < eps || l1 < eps || l2 < eps || d < depth[x - dx0] || !(q > 0)) continue;
            float iq = 1 / q, u = U * iq, v = V * iq;
            if (x >= lod_x) {
                /* the level of detail changes slowly along a row: once every 4 pixels */
                float du[2] = {(pa[0].vx - u * pq.vx) * iq, (pa[0].vy - u * pq.vy) * iq};
                float dv[2] = {(pa[1].vx - v * pq.vx) * iq, (pa[1].vy - v * pq.vy) * iq};
                lod2 = lod_of(tex, du, dv), lod_x = x + 4;
            }
            bl_at la = at_blocks(&lv, S * iq, T * iq);
            uint32_t out = 0xff000000u;
#ifdef __SSE2__
            __m128i tl = _mm_mullo_epi16(sample_v(tex, u, v, lod2), bl_v(la)); /* t x l <= 65025 */
            if (gain == 256) {
                /* round(t x l / 255) = (x + (x >> 8)) >> 8 with x = t x l + 128 (exact for 8-bit products) */
                __m128i e = _mm_add_epi16(tl, _mm_set1_epi16(128));
                e = _mm_srli_epi16(_mm_add_epi16(e, _mm_srli_epi16(e, 8)), 8);
                out |= (uint32_t)_mm_cvtsi128_si32(_mm_packus_epi16(e, e));
            } else {
                uint64_t p = (uint64_t)_mm_cvtsi128_si64(tl);
                for (int k = 0; k < 3; k++) {
                    uint32_t val = ((uint32_t)(p >> (16 * k)) & 0xffff) * gain;
                    val = (val + 255 * 128) / (255 * 256);
                    out |= (val > 255 ? 255 : val) << (8 * k);
                }
            }
            out |= 0xff000000u;
#else
            /* texture x lightmap x gain in integers: round(t * l * gain / 255) */
            uint32_t tc = sample_px(tex, u, v, lod2), lc = bl_px(la);
            for (int k = 0; k < 3; k++) {
                uint32_t val = ((tc >> (8 * k)) & 255) * ((lc >> (8 * k)) & 255) * gain;
                val = (val + 255 * 128) / (255 * 256);
                out |= (val > 255 ? 255 : val) << (8 * k);
            }
#endif
            memcpy(row + (size_t)x * 4, &out, 4);
            depth[x - dx0] = d;
        }
    }
}

/* Any fast material (fast_of) in integers, as draw_common does. */
static RT_NOINLINE void draw_fast(raster_job *j, const stri *t, const fast_mat *fm, int32_t x0, int32_t y0, int32_t x1,
                                  int32_t y1, rt_tile *tile, float dmax)
{
    const fast_mat f = *fm; /* a local copy: the stores below (bytes) could alias it */
    const rtex *tex = f.tex;
    uint32_t W = j->v->w;
    plane pd = plane_of(t, t->d[0], t->d[1], t->d[2]), pq = plane_of(t, t->q[0], t->q[1], t->q[2]);
    plane pa[7]; /* u v s t r g b, each x q */
    for (int k = 0; k < 7; k++) pa[k] = plane_of(t, t->at[0][k], t->at[1][k], t->at[2][k]);
    const float eps = -1e-5f;
    float *const tdepth = tile->depth; /* locals: the byte stores below could alias the tile */
    const int32_t dx0 = tile->x0, dy0 = tile->y0;
    for (int32_t y = y0; y <= y1; y++) {
        int32_t xa, xb;
        if (row_hidden(tile, y - tile->y0, dmax) || !row_span(t, y, x0, x1, &xa, &xb)) continue;
        tile->row_dirty[y - tile->y0] = true;
        float l1 = t->l1o + t->dl1y * (float)y + t->dl1x * (float)xa;
        float l2 = t->l2o + t->dl2y * (float)y + t->dl2x * (float)xa;
        float d = plane_at(&pd, xa, y), q = plane_at(&pq, xa, y), a[7];
        for (int k = 0; k < 7; k++) a[k] = plane_at(&pa[k], xa, y);
        int32_t lod_x = xa;
        float lod2 = 0;
        float *depth = tdepth + (size_t)(y - dy0) * TILE;
        uint8_t *row = j->rgba + (size_t)y * W * 4;
        for (int32_t x = xa; x <= xb; x++, l1 += t->dl1x, l2 += t->dl2x, d += pd.vx, q += pq.vx) {
            if (1 - l1 - l2 >= eps && l1 >= eps && l2 >= eps && d >= depth[x - dx0] && q > 0) {
                float iq = 1 / q, u = a[0] * iq, v = a[1] * iq, col[3] = {0, 0, 0};
                if (tex && x >= lod_x) {
                    /* the level of detail changes slowly along a row: once every 4 pixels */
                    float du[2] = {(pa[0].vx - u * pq.vx) * iq, (pa[0].vy - u * pq.vy) * iq};
                    float dv[2] = {(pa[1].vx - v * pq.vx) * iq, (pa[1].vy - v * pq.vy) * iq};
                    lod2 = lod_of(tex, du, dv), lod_x = x + 4;
                }
                if (f.vc)
                    for (int k = 0; k < 3; k++) col[k] = a[4 + k] * iq * 255;
                uint32_t out = fast_px(&f, u, v, lod2, a[2] * iq, a[3] * iq, col);
                memcpy(row + (size_t)x * 4, &out, 4);
                depth[x - dx0] = d;
            }
            a[0] += pa[0].vx, a[1] += pa[1].vx, a[2] += pa[2].vx, a[3] += pa[3].vx;
            if (f.vc) a[4] += pa[4].vx, a[5] += pa[5].vx, a[6] += pa[6].vx;
        }
    }
}

static void draw_tri(raster_job *j, const stri *t, rt_tile *tile, int32_t tx1, int32_t ty1)
{
    int32_t tx0 = tile->x0, ty0 = tile->y0;
    const bk_renderer *r = j->r;
    const rmat *m = &r->mat[t->mat];
    bool sky = m->pass == RP_SKY, write = m->pass == RP_OPAQUE;
    int32_t x0 = t->x0 > tx0 ? t->x0 : tx0, x1 = t->x1 < tx1 ? t->x1 : tx1;
    int32_t y0 = t->y0 > ty0 ? t->y0 : ty0, y1 = t->y1 < ty1 ? t->y1 : ty1;
    uint32_t W = j->v->w;
    plane pd = plane_of(t, t->d[0], t->d[1], t->d[2]);
    float dmax = j->v->exhaustive ? INFINITY : sky ? -INFINITY : tri_dmax(t, &pd);
    fast_mat fm;
    if (fast_of(j, t, m, &fm)) {
        if (fm.tex && fm.lm && fm.white && !fm.vc) draw_common(j, t, m, x0, y0, x1, y1, tile, dmax);
        else draw_fast(j, t, &fm, x0, y0, x1, y1, tile, dmax);
        return;
    }
    /* the attributes this material reads: uv0 (2), uv1 (4), colour (8), world z (9) */
    int na = j->v->overview ? NI : (m->vc || m->tex2 >= 0) ? 8 : m->lm >= 0 ? 4 : 2;
    float a[NI];
    memset(a, 0, sizeof a);
    a[4] = a[5] = a[6] = a[7] = 1;
    /* gradients of q and of uv0 x q, for the mip level */
    plane pq = plane_of(t, t->q[0], t->q[1], t->q[2]);
    plane pu = plane_of(t, t->at[0][0], t->at[1][0], t->at[2][0]), pv = plane_of(t, t->at[0][1], t->at[1][1], t->at[2][1]);
    for (int32_t y = y0; y <= y1; y++) {
        int32_t xa, xb;
        if (row_hidden(tile, y - tile->y0, dmax) || !row_span(t, y, x0, x1, &xa, &xb)) continue;
        if (write) tile->row_dirty[y - tile->y0] = true;
        float l1 = t->l1o + t->dl1y * (float)y + t->dl1x * (float)xa;
        float l2 = t->l2o + t->dl2y * (float)y + t->dl2x * (float)xa;
        for (int32_t x = xa; x <= xb; x++, l1 += t->dl1x, l2 += t->dl2x) {
            float l0 = 1 - l1 - l2;
            const float eps = -1e-5f;
            if (l0 < eps || l1 < eps || l2 < eps) continue;
            size_t pi = (size_t)y * W + (size_t)x;
            float *dp = tile->depth + (size_t)(y - ty0) * TILE + (size_t)(x - tx0);
            float d = l0 * t->d[0] + l1 * t->d[1] + l2 * t->d[2];
            if (sky ? *dp != -INFINITY : d < *dp) continue;
            float q = l0 * t->q[0] + l1 * t->q[1] + l2 * t->q[2];
            if (!(q > 0)) continue;
            float iq = 1 / q;
            frag f;
            for (int k = 0; k < na; k++) a[k] = (l0 * t->at[0][k] + l1 * t->at[1][k] + l2 * t->at[2][k]) * iq;
            f.uv0[0] = a[0], f.uv0[1] = a[1], f.uv1[0] = a[2], f.uv1[1] = a[3];
            for (int k = 0; k < 4; k++) f.col[k] = a[4 + k];
            f.wz = a[8];
            f.du[0] = (pu.vx - f.uv0[0] * pq.vx) * iq, f.du[1] = (pu.vy - f.uv0[0] * pq.vy) * iq;
            f.dv[0] = (pv.vx - f.uv0[1] * pq.vx) * iq, f.dv[1] = (pv.vy - f.uv0[1] * pq.vy) * iq;
            float c[4];
            if (!shade(r, m, j->v, &f, t->shade, c)) continue;
            blend_out(j->rgba + pi * 4, c, m->blend);
            if (write) *dp = d;
        }
    }
}

static void raster_worker(void *user)
{
    raster_job *j = user;
    const rt_view *v = j->v;
    rt_tile tile;
    for (;;) {
        bk_mutex_lock(&j->lock);
        uint32_t t = j->next_tile++;
        bk_mutex_unlock(&j->lock);
        if (t >= j->tiles_x * j->tiles_y) break;
        int32_t tx0 = (int32_t)(t % j->tiles_x) * TILE, ty0 = (int32_t)(t / j->tiles_x) * TILE;
        tile.x0 = tx0, tile.y0 = ty0;
        int32_t tx1 = tx0 + TILE - 1, ty1 = ty0 + TILE - 1;
        if (tx1 >= (int32_t)v->w) tx1 = (int32_t)v->w - 1;
        if (ty1 >= (int32_t)v->h) ty1 = (int32_t)v->h - 1;
        tile.w = tx1 - tx0 + 1;
        const uint8_t clear[4] = {0x20, 0x28, 0x30, 255};
        uint32_t clear_px;
        memcpy(&clear_px, clear, 4);
        for (int32_t y = ty0; y <= ty1; y++) {
            uint8_t *row = j->rgba + ((size_t)y * v->w + (size_t)tx0) * 4;
            for (int32_t x = 0; x <= tx1 - tx0; x++) memcpy(row + (size_t)x * 4, &clear_px, 4);
        }
        tile_clear_depth(&tile);
        bool behind = false; /* a 3D skybox drawn: the world's depth starts afresh after it */
        for (uint32_t i = j->bin_start[t]; i < j->bin_start[t + 1]; i++) {
            const stri *st = &j->tris[j->bin[i]];
            if (behind && !st->sky3d) tile_clear_depth(&tile);
            behind = st->sky3d;
            draw_tri(j, st, &tile, tx1, ty1);
        }
        if (j->gamma) {
            const uint8_t *g = j->gamma;
            for (int32_t y = ty0; y <= ty1; y++) {
                uint8_t *row = j->rgba + ((size_t)y * v->w + (size_t)tx0) * 4;
                for (int32_t x = 0; x <= tx1 - tx0; x++) {   /* a pixel as one word: R lowest, A kept */
                    uint32_t c;
                    memcpy(&c, row + (size_t)x * 4, 4);
                    c = (c & 0xff000000u) | (uint32_t)g[c & 255] | (uint32_t)g[(c >> 8) & 255] << 8 |
                        (uint32_t)g[(c >> 16) & 255] << 16;
                    memcpy(row + (size_t)x * 4, &c, 4);
                }
            }
        }
    }
}

/* ---- setup: camera space, clipping, projection --------------------------------------------- */
typedef struct setup {
    const bk_renderer *r;
    const rt_view *v;
    float planes[6][4];
    int plane_count;
    stri *tris;
    uint64_t count, cap;
    bk_result err;
} setup;

int bk_rt_view_planes(const rt_view *v, float planes[6][4])
{
    if (v->ortho) {
        float a[6][4] = {{0, 0, 1, -v->znear}, {0, 0, -1, v->zfar}, {-1, 0, 0, v->tx}, {1, 0, 0, v->tx},
                         {0, -1, 0, v->ty}, {0, 1, 0, v->ty}};
        memcpy(planes, a, sizeof a);
        return 6;
    }
    float a[5][4] = {{0, 0, 1, -v->znear}, {-1, 0, v->tx, 0}, {1, 0, v->tx, 0}, {0, -1, v->ty, 0}, {0, 1, v->ty, 0}};
    memcpy(planes, a, sizeof a);
    return 5;
}

static void view_planes(setup *s) { s->plane_count = bk_rt_view_planes(s->v, s->planes); }

static int clip_poly(const setup *s, float (*in)[NA], int n, float (*tmp)[NA])
{
    float (*src)[NA] = in, (*dst)[NA] = tmp;
    for (int p = 0; p < s->plane_count && n >= 3; p++) {
        const float *pl = s->planes[p];
        int m = 0;
        for (int i = 0; i < n; i++) {
            const float *a = src[i], *b = src[(i + 1) % n];
            float da = pl[0] * a[0] + pl[1] * a[1] + pl[2] * a[2] + pl[3];
            float db = pl[0] * b[0] + pl[1] * b[1] + pl[2] * b[2] + pl[3];
            if (da >= 0 && m < MAXPOLY) memcpy(dst[m++], a, sizeof(float) * NA);
            if ((da >= 0) != (db >= 0) && m < MAXPOLY) {
                float t = da / (da - db);
                for (int k = 0; k < NA; k++) dst[m][k] = a[k] + (b[k] - a[k]) * t;
                m++;
            }
        }
        float (*sw)[NA] = src;
        src = dst, dst = sw, n = m;
    }
    if (src != in)
        for (int i = 0; i < n; i++) memcpy(in[i], src[i], sizeof(float) * NA);
    return n;
}

static void emit(setup *s, float (*pv)[NA], int a, int b, int c, uint32_t mat, bool sky3d, bool cull, float light)
{
    const rt_view *v = s->v;
    stri t;
    const int idx[3] = {a, b, c};
    float hw = (float)v->w * 0.5f, hh = (float)v->h * 0.5f;
    for (int i = 0; i < 3; i++) {
        const float *p = pv[idx[i]];
        float z = p[A_Z];
        if (v->ortho) {
            t.x[i] = hw * (1 + p[A_X] / v->tx);
            t.y[i] = hh * (1 - p[A_Y] / v->ty);
            t.q[i] = 1;
            t.d[i] = v->zfar - z;
        } else {
            if (!(z > 0)) return;
            t.x[i] = hw * (1 + p[A_X] / (z * v->tx));
            t.y[i] = hh * (1 - p[A_Y] / (z * v->ty));
            t.q[i] = 1 / z;
            t.d[i] = t.q[i];
        }
        for (int k = 0; k < NI; k++) t.at[i][k] = p[3 + k] * t.q[i];
    }
    float area = (t.x[1] - t.x[0]) * (t.y[2] - t.y[0]) - (t.x[2] - t.x[0]) * (t.y[1] - t.y[0]);
    if (!(fabsf(area) > 1e-12f)) return;
    if (cull && area > 0) return; /* counter-clockwise with y up is the front (glTF) */
    float minx = fminf(t.x[0], fminf(t.x[1], t.x[2])), maxx = fmaxf(t.x[0], fmaxf(t.x[1], t.x[2]));
    float miny = fminf(t.y[0], fminf(t.y[1], t.y[2])), maxy = fmaxf(t.y[0], fmaxf(t.y[1], t.y[2]));
    t.x0 = (int32_t)floorf(fmaxf(minx - 0.5f, 0));
    t.y0 = (int32_t)floorf(fmaxf(miny - 0.5f, 0));
    t.x1 = (int32_t)ceilf(fminf(maxx - 0.5f, (float)v->w - 1));
    t.y1 = (int32_t)ceilf(fminf(maxy - 0.5f, (float)v->h - 1));
    if (t.x0 > t.x1 || t.y0 > t.y1) return;
    /* l1 = edge(v2, v0, p) / area, l2 = edge(v0, v1, p) / area, edge(a, b, p) =
     * (b.x - a.x)(p.y - a.y) - (b.y - a.y)(p.x - a.x) */
    float ia = 1 / area;
    t.dl1x = -(t.y[0] - t.y[2]) * ia, t.dl1y = (t.x[0] - t.x[2]) * ia;
    t.dl2x = -(t.y[1] - t.y[0]) * ia, t.dl2y = (t.x[1] - t.x[0]) * ia;
    t.l1o = ((t.x[0] - t.x[2]) * (0.5f - t.y[2]) - (t.y[0] - t.y[2]) * (0.5f - t.x[2])) * ia;
    t.l2o = ((t.x[1] - t.x[0]) * (0.5f - t.y[0]) - (t.y[1] - t.y[0]) * (0.5f - t.x[0])) * ia;
    t.mat = mat;
    t.sky3d = sky3d;
    t.shade = light;
    if (s->count == s->cap) {
        uint64_t n = s->cap ? s->cap * 2 : 4096;
        if (n > SIZE_MAX / sizeof(stri) || n > UINT32_MAX) {
            s->err = BK_ELIMIT;
            return;
        }
        stri *q = bk_realloc(s->tris, (size_t)n * sizeof(stri));
        if (!q) {
            s->err = BK_ENOMEM;
            return;
        }
        s->tris = q, s->cap = n;
    }
    s->tris[s->count++] = t;
}

/* one scene triangle: camera space, clip, project; true when something of it is on screen */
static bool setup_tri(setup *s, const rtri *tr)
{
    const bk_renderer *r = s->r;
    const rt_view *v = s->v;
    const rmat *m = &r->mat[tr->mat];
    float poly[MAXPOLY][NA], tmp[MAXPOLY][NA];
    for (int i = 0; i < 3; i++) {
        const rvert *vx = &r->vert[tr->v[i]];
        float d[3];
        for (int k = 0; k < 3; k++) d[k] = vx->p[k] - (tr->follow ? r->sky_origin[k] : v->eye[k]);
        float *o = poly[i];
        o[A_X] = d[0] * v->right[0] + d[1] * v->right[1] + d[2] * v->right[2];
        o[A_Y] = d[0] * v->up[0] + d[1] * v->up[1] + d[2] * v->up[2];
        o[A_Z] = d[0] * v->fwd[0] + d[1] * v->fwd[1] + d[2] * v->fwd[2];
        o[A_U0] = vx->uv0[0], o[A_V0] = vx->uv0[1], o[A_U1] = vx->uv1[0], o[A_V1] = vx->uv1[1];
        for (int k = 0; k < 4; k++) o[A_R + k] = vx->col[k];
        o[A_WZ] = vx->p[2];
    }
    float light = 1;
    if (v->model_light) {
        /* a model has no lightmap: a light from over the eye's left shoulder, by the face's normal */
        float e1[3], e2[3], nrm[3];
        for (int k = 0; k < 3; k++) e1[k] = poly[1][k] - poly[0][k], e2[k] = poly[2][k] - poly[0][k];
        nrm[0] = e1[1] * e2[2] - e1[2] * e2[1], nrm[1] = e1[2] * e2[0] - e1[0] * e2[2], nrm[2] = e1[0] * e2[1] - e1[1] * e2[0];
        float l = sqrtf(nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2]);
        float d = l > 0 ? (-0.4f * nrm[0] + 0.5f * nrm[1] - 0.77f * nrm[2]) / l : 0;
        light = 0.45f + 0.55f * fabsf(d);
    }
    int n = clip_poly(s, poly, 3, tmp);
    if (n < 3) return false;
    uint64_t before = s->count;
    for (int i = 1; i + 1 < n; i++) emit(s, poly, 0, i, i + 1, tr->mat, tr->sky3d, !m->double_sided, light);
    return s->count > before;
}

static bk_result bin_tiles(raster_job *j, uint64_t count)
{
    uint32_t nt = j->tiles_x * j->tiles_y;
    j->bin_start = bk_calloc((size_t)nt + 1, sizeof(uint32_t));
    if (!j->bin_start) return BK_ENOMEM;
    uint64_t total = 0;
    for (uint64_t i = 0; i < count; i++) {
        const stri *t = &j->tris[i];
        for (int32_t ty = t->y0 / TILE; ty <= t->y1 / TILE; ty++)
            for (int32_t tx = t->x0 / TILE; tx <= t->x1 / TILE; tx++) j->bin_start[(uint32_t)ty * j->tiles_x + (uint32_t)tx]++;
        total += (uint64_t)(t->y1 / TILE - t->y0 / TILE + 1) * (uint64_t)(t->x1 / TILE - t->x0 / TILE + 1);
    }
    if (total > UINT32_MAX) return BK_ELIMIT;
    j->bin = bk_malloc((size_t)(total ? total : 1) * sizeof(uint32_t));
    if (!j->bin) return BK_ENOMEM;
    uint32_t run = 0;
    for (uint32_t t = 0; t <= nt; t++) {
        uint32_t c = t < nt ? j->bin_start[t] : 0;
        j->bin_start[t] = run;
        run += c;
    }
    uint32_t *fill = bk_malloc((size_t)nt * sizeof(uint32_t));
    if (!fill) return BK_ENOMEM;
    memcpy(fill, j->bin_start, (size_t)nt * sizeof(uint32_t));
    for (uint64_t i = 0; i < count; i++) {
        const stri *t = &j->tris[i];
        for (int32_t ty = t->y0 / TILE; ty <= t->y1 / TILE; ty++)
            for (int32_t tx = t->x0 / TILE; tx <= t->x1 / TILE; tx++)
                j->bin[fill[(uint32_t)ty * j->tiles_x + (uint32_t)tx]++] = (uint32_t)i;
    }
    bk_free(fill);
    return BK_OK;
}

static void run_tiles(raster_job *j, uint32_t threads)
{
    bk_mutex_init(&j->lock);
    j->next_tile = 0;
    bk_thread th[64];
    uint32_t started = 0;
    for (uint32_t i = 1; i < threads && i < 64; i++) {
        if (!bk_thread_start(&th[started], raster_worker, j)) break;
        started++;
    }
    raster_worker(j);
    for (uint32_t i = 0; i < started; i++) bk_thread_join(&th[i]);
    bk_mutex_destroy(&j->lock);
}

/* ---- the mip levels a view samples ------------------------------------------------------------ */
/* squared distance from the origin to the triangle a, b, c of the plane (0 when it holds it) */
static double origin_dist2(const double a[2], const double b[2], const double c[2])
{
    const double *v[3] = {a, b, c};
    double area = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
    bool inside = area != 0;
    double best = INFINITY;
    for (int i = 0; i < 3; i++) {
        const double *p = v[i], *q = v[(i + 1) % 3];
        double ex = q[0] - p[0], ey = q[1] - p[1], el = ex * ex + ey * ey;
        /* the origin on the inner side of every edge: inside */
        if ((ex * -p[1] - ey * -p[0]) * area < 0) inside = false;
        double t = el > 0 ? -(p[0] * ex + p[1] * ey) / el : 0;
        t = t < 0 ? 0 : (t > 1 ? 1 : t);
        double dx = p[0] + t * ex, dy = p[1] + t * ey;
        if (dx * dx + dy * dy < best) best = dx * dx + dy * dy;
    }
    return inside ? 0 : best;
}

/* the values a pixel's level of detail comes from at a corner: q, and the numerators of the texel
 * footprint's axes (each affine in x, y: du/dx = (U_x q - U q_x) / q^2, in texels) */
typedef struct lod_corner { double q, n[4]; } lod_corner;

/* A lower bound of max(rx, ry) (lod_of) over the triangle a, b, c: rx = (nux^2 + nvx^2) / q^4 is
 * at least the least of its numerator on the triangle (the origin's distance to the numerators'
 * image, a triangle too) over the largest q^4 (at a corner); the same for ry. Where q changes by
 * more than an eighth over the triangle, its four halves are bounded apart (to depth 4). */
static double rho_bound(const lod_corner *a, const lod_corner *b, const lod_corner *c, int depth)
{
    double qmin = fmin(a->q, fmin(b->q, c->q)), qmax = fmax(a->q, fmax(b->q, c->q));
    if (!(qmin > 0)) return 0;
    if (qmax > qmin * 1.125 && depth < 4) {
        lod_corner ab, bc, ca;
        ab.q = (a->q + b->q) / 2, bc.q = (b->q + c->q) / 2, ca.q = (c->q + a->q) / 2;
        for (int k = 0; k < 4; k++)
            ab.n[k] = (a->n[k] + b->n[k]) / 2, bc.n[k] = (b->n[k] + c->n[k]) / 2, ca.n[k] = (c->n[k] + a->n[k]) / 2;
        double m = rho_bound(a, &ab, &ca, depth + 1);
        m = fmin(m, rho_bound(&ab, b, &bc, depth + 1));
        m = fmin(m, rho_bound(&ca, &bc, c, depth + 1));
        return fmin(m, rho_bound(&ab, &bc, &ca, depth + 1));
    }
    double ax[2] = {a->n[0], a->n[1]}, bx[2] = {b->n[0], b->n[1]}, cx[2] = {c->n[0], c->n[1]};
    double ay[2] = {a->n[2], a->n[3]}, by[2] = {b->n[2], b->n[3]}, cy[2] = {c->n[2], c->n[3]};
    double q4 = qmax * qmax * qmax * qmax;
    return fmax(origin_dist2(ax, bx, cx), origin_dist2(ay, by, cy)) / q4;
}

/* The finest level any pixel of t samples of a texture of tw x th texels. A pixel's level of
 * detail is half the log2 of max(rx, ry), the squared lengths of the texel footprint's two
 * screen axes (lod_of), which is at least the footprint's area |det J|. Under a perspective
 * projection det J = D / q^3 (u = U / q, v = V / q with U, V, q affine in x, y), so its smallest
 * value on the triangle is at a corner: the corners' least area bounds every pixel's level from
 * below. Where the footprint is long and thin (a floor seen from eye height) its area says less
 * than its length: rho_bound bounds max(rx, ry) itself, and the larger bound is used. The pixel's
 * own figures are floats and fast_log2 is within 0.01 of log2: a tenth of a level of slack. */
static uint32_t finest_level(const stri *t, uint32_t tw, uint32_t th)
{
    plane pq = plane_of(t, t->q[0], t->q[1], t->q[2]);
    plane pu = plane_of(t, t->at[0][0], t->at[1][0], t->at[2][0]), pv = plane_of(t, t->at[0][1], t->at[1][1], t->at[2][1]);
    double least = INFINITY;
    lod_corner c[3];
    for (int i = 0; i < 3; i++) {
        double q = t->q[i], U = t->at[i][0], V = t->at[i][1];
        c[i].q = q;
        c[i].n[0] = ((double)pu.vx * q - U * pq.vx) * tw, c[i].n[1] = ((double)pv.vx * q - V * pq.vx) * th;
        c[i].n[2] = ((double)pu.vy * q - U * pq.vy) * tw, c[i].n[3] = ((double)pv.vy * q - V * pq.vy) * th;
        /* the footprint's area |det J| in texels, from the same numerators */
        double area = fabs(c[i].n[0] * c[i].n[3] - c[i].n[2] * c[i].n[1]) / (q * q * q * q);
        if (area < least) least = area;
    }
    double rho = rho_bound(&c[0], &c[1], &c[2], 0);
    if (isfinite(rho) && rho > least) least = rho;
    if (!(least > 1) || !isfinite(least)) return 0;
    double lod = 0.5 * log2(least) - 0.1;
    return lod >= RT_MAX_LEVELS ? RT_MAX_LEVELS : (lod >= 1 ? (uint32_t)lod : 0);
}

static void lower(uint8_t *need, int32_t tex, uint32_t level)
{
    if (tex >= 0 && level < need[tex]) need[tex] = (uint8_t)level;
}

/* the blocks of lightmap lm that triangles from..count of s read (the texels at their corners'
 * coordinates, with two of slack for the floats, and every texel between), set in want; every
 * block for a coordinate that is not finite */
static void note_blocks(const setup *s, const rtex *lm, uint64_t from, uint8_t *want)
{
    float w = (float)lm->fw, h = (float)lm->fh;
    for (uint64_t i = from; i < s->count; i++) {
        const stri *t = &s->tris[i];
        float x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
        for (int k = 0; k < 3; k++) {
            float x = t->at[k][2] / t->q[k] * w - 0.5f, y = t->at[k][3] / t->q[k] * h - 0.5f;
            if (!(x > -1e9f && x < 1e9f && y > -1e9f && y < 1e9f)) {
                x0 = y0 = -INFINITY, x1 = y1 = INFINITY;
                break;
            }
            x0 = fminf(x0, x), y0 = fminf(y0, y), x1 = fmaxf(x1, x), y1 = fmaxf(y1, y);
        }
        /* texels -> blocks, clamped to the image */
        uint32_t bx0 = x0 - 2 > 0 ? (uint32_t)fminf((x0 - 2) / RT_BLOCK, (float)(lm->bw - 1)) : 0;
        uint32_t by0 = y0 - 2 > 0 ? (uint32_t)fminf((y0 - 2) / RT_BLOCK, (float)(lm->bh - 1)) : 0;
        uint32_t bx1 = x1 + 2 > 0 ? (uint32_t)fminf((x1 + 2) / RT_BLOCK, (float)(lm->bw - 1)) : 0;
        uint32_t by1 = y1 + 2 > 0 ? (uint32_t)fminf((y1 + 2) / RT_BLOCK, (float)(lm->bh - 1)) : 0;
        for (uint32_t by = by0; by <= by1; by++) memset(want + (size_t)by * lm->bw + bx0, 1, bx1 - bx0 + 1);
    }
}

/* the levels triangles from..count of s (one scene triangle's pieces) sample of each texture of
 * their material: the base texture and its blend partner at the level the base's footprint gives
 * (shade samples both at it), the lightmap and emission at level 0; and the lightmap's blocks
 * they read (want: per texture, per block) */
static void note_levels(const setup *s, const rmat *m, uint64_t from, uint8_t *need, uint8_t **want)
{
    const bk_renderer *r = s->r;
    if (m->lm >= 0 && r->tex[m->lm].blocks && want[m->lm]) {
        const rtex *lm = &r->tex[m->lm];
        if (s->v->exhaustive) /* every block: the tests compare its picture with the blocks' */
            memset(want[m->lm], 1, (size_t)lm->bw * lm->bh);
        else
            note_blocks(s, lm, from, want[m->lm]);
    }
    uint32_t level = RT_MAX_LEVELS;
    if (s->v->exhaustive) /* every level held: the tests compare its picture with the bound's */
        level = 0;
    else if (m->tex >= 0 && r->tex[m->tex].mips)
        for (uint64_t i = from; i < s->count && level; i++) {
            uint32_t l = finest_level(&s->tris[i], r->tex[m->tex].fw, r->tex[m->tex].fh);
            if (l < level) level = l;
        }
    else
        level = 0;
    lower(need, m->tex, level);
    lower(need, m->tex2, level);
    lower(need, m->lm, 0);
    lower(need, m->em, 0);
}

/* the scene's images that no texture v draws reads (need: 0xff) released */
static void release_undrawn(const bk_renderer *r, const uint8_t *need, bk_scene *release)
{
    uint8_t *drawn = bk_calloc(r->s->image_count + 1, 1);
    if (!drawn) return; /* kept: only memory is lost */
    for (uint32_t i = 0; i < r->tex_count; i++)
        if (need[i] != 0xff) drawn[r->tex[i].image] = 1;
    for (uint32_t i = 0; i < r->s->image_count; i++)
        if (!drawn[i]) bk_scene_image_release(release, i);
    bk_free(drawn);
}

/* The triangles v draws, set up (s), and their textures decoded at the levels they sample;
 * release: see bk_rt_load. */
static bk_result setup_view(bk_renderer *r, const rt_view *v, setup *s, uint64_t *drawn, bk_scene *release)
{
    *drawn = 0;
    rt_order *order = NULL;
    uint64_t n = 0;
    BK_TRY(bk_rt_draw_order(r, v, &order, &n));
    uint8_t *need = bk_malloc(r->tex_count ? r->tex_count : 1);
    uint8_t **want = bk_calloc(r->tex_count ? r->tex_count : 1, sizeof *want);
    bool ok = need && want;
    for (uint32_t i = 0; ok && i < r->tex_count; i++)
        if (r->tex[i].blocks) ok = (want[i] = bk_calloc((size_t)r->tex[i].bw * r->tex[i].bh, 1)) != NULL;
    if (!ok) {
        s->err = BK_ENOMEM;
        goto done;
    }
    memset(need, 0xff, r->tex_count ? r->tex_count : 1);
    view_planes(s);
    for (uint64_t i = 0; i < n && s->err == BK_OK; i++) {
        uint64_t from = s->count;
        if (setup_tri(s, &r->tri[order[i].tri])) {
            (*drawn)++;
            note_levels(s, &r->mat[r->tri[order[i].tri].mat], from, need, want);
        }
    }
    bk_free(order);
    order = NULL;
    if (release && s->err == BK_OK) release_undrawn(r, need, release);
    /* decoded now, one after another, before the tiles are drawn on many threads */
    for (uint32_t i = 0; i < r->tex_count && s->err == BK_OK; i++)
        if (need[i] != 0xff) {
            s->err = r->tex[i].blocks ? bk_rt_lightmap_load(r, (int32_t)i, want[i])
                                      : bk_rt_texture_load(r, (int32_t)i, need[i]);
            if (release) bk_scene_image_release(release, (uint32_t)r->tex[i].image);
        }
done:
    bk_free(order);
    bk_free(need);
    for (uint32_t i = 0; want && i < r->tex_count; i++) bk_free(want[i]);
    bk_free(want);
    return s->err;
}

bk_result bk_rt_load(bk_renderer *r, const rt_view *v, bk_scene *release)
{
    setup s = {r, v, {{0}}, 0, NULL, 0, 0, BK_OK};
    uint64_t drawn;
    bk_result res = setup_view(r, v, &s, &drawn, release);
    bk_free(s.tris);
    return res;
}

bk_result bk_rt_draw(bk_renderer *r, const rt_view *v, uint8_t *rgba, uint64_t *drawn)
{
    setup s = {r, v, {{0}}, 0, NULL, 0, 0, BK_OK};
    bk_result res = setup_view(r, v, &s, drawn, NULL);
    raster_job j;
    memset(&j, 0, sizeof j);
    j.r = r, j.v = v, j.rgba = rgba, j.tris = s.tris;
    j.tiles_x = (v->w + TILE - 1) / TILE, j.tiles_y = (v->h + TILE - 1) / TILE;
    if (res == BK_OK) res = bin_tiles(&j, s.count);
    uint8_t gamma[256];
    if (fabsf(v->display_gamma - 1) > 1e-3f) {
        for (int i = 0; i < 256; i++) gamma[i] = to8(powf((float)i / 255.0f, 1 / v->display_gamma));
        j.gamma = gamma;
    }
    if (res == BK_OK) run_tiles(&j, v->threads ? v->threads : 1);
    bk_free(j.bin_start);
    bk_free(j.bin);
    bk_free(s.tris);
    return res;
}
