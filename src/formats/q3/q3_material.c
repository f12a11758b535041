/* Quake 3 shaders -> glTF materials, read the way the game's engine draws them.
 *
 * ioquake3 (Quake 3, OpenArena) draws a shader's stages one after the other, each blended into
 * the frame buffer with its blendFunc. A still picture of that is, per texel of the base
 * texture, a sum of products: textures, constants, the lightmap L, the vertex colour V and the
 * background D (what was drawn behind). The stages are folded into such a sum symbolically
 * (q3_expr); then the terms are sorted:
 *   - terms with D say how the surface lets the background through: nothing (opaque), 1 (add),
 *     1 - alpha (alpha blend), a colour (multiply);
 *   - terms with L are the lit colour: baseColor, multiplied by the lightmap;
 *   - the rest is light of its own, drawn on top: emissive (or, with no lightmap at all, an unlit
 *     base colour).
 * A sum that is one texture times a constant is written as that texture and a factor; anything
 * else is composed into a new texture at the resolution of the textures it uses. Stages that do
 * not share the base texture's coordinates (environment maps, tcGen, rotating or stretching
 * tcMods, non-integer scales) enter with their mean colour, as do vertex colours and alphas
 * (except where the vertex colour can ride in COLOR_0), and animated or waving values with their
 * mean over time.
 *
 * DarkPlaces (Nexuiz, Xonotic) reads the same scripts differently: q3_material_dp.c. */
#include <math.h>
#include <stdio.h>

#include "scene/scene_build.h"
#include "q3_internal.h"

/* ---- which surfaces are drawn -------------------------------------------------------------- */

#define Q3_SURF_NODRAW 0x80   /* surfaceflags.h: "don't generate a drawsurface at all" */

bool bk_q3_shader_hidden(q3_builder *b, int32_t shader)
{
    if (shader < 0 || (uint32_t)shader >= b->m->shader_count) return false;
    /* q3map2 -patchmeta keeps each patch for collision only, flagged nodraw in the map's shader
     * lump (the drawn copy is stored as triangles); the renderers skip such surfaces
     * (ioquake3 tr_bsp.c ParseMesh) */
    if (b->m->shaders[shader].surface_flags & Q3_SURF_NODRAW) return true;
    if (!b->defs) return false;
    const q3_shader_def *d = b->defs[shader];
    if (!d) return false;
    if (d->has_skyparms || d->nodraw) return true;
    /* a script without a stage draws nothing (caulk-like tool shaders, fog volumes' faces) */
    return d->stage_count == 0;
}

/* Whether the game never draws the shader's surfaces: nodraw in the map's shader lump or the
 * script, a script without a stage (not the sky), or, with no script found, one of the tool
 * shaders of the games' common/ folder (baseq3 scripts/common.shader: all are surfaceparm nodraw;
 * DarkPlaces games name it textures/common/). */
static bool q3_never_drawn(q3_builder *b, int32_t shader)
{
    if (shader < 0 || (uint32_t)shader >= b->m->shader_count) return false;
    if (b->m->shaders[shader].surface_flags & Q3_SURF_NODRAW) return true;
    const q3_shader_def *d = b->defs ? b->defs[shader] : NULL;
    if (d) return d->nodraw || (d->stage_count == 0 && !d->has_skyparms && !d->sky);
    static const char *const tools[] = {"caulk", "clip", "trigger", "hint", "skip", "nodraw", "nodrawnonsolid",
                                        "origin", "areaportal", "clusterportal", "weapclip", "botclip",
                                        "full_clip", "missileclip", "invisible", "donotenter", "nodrop",
                                        "cushion", "lightgrid", "playerclip", "slick"};
    const char *n = b->m->shaders[shader].name;
    if (bk_strncasecmp_prefix(n, "textures/")) n += 9;   /* Nexuiz / Xonotic: textures/common/caulk */
    if (!bk_strncasecmp_prefix(n, "common/")) return false;
    for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++)
        if (bk_strcasecmp(n + 7, tools[i]) == 0) return true;
    return false;
}

/* ---- the stage algebra (ioquake3) ---------------------------------------------------------- */

enum { F_RGB = 0, F_A, F_1M_RGB, F_1M_A };
#define MAXF 4
#define MAXT 40

typedef struct q3_term {
    float k[3];
    uint8_t nf, L, D, V;
    uint8_t fs[MAXF], fm[MAXF];   /* factor: stage, F_* */
} q3_term;

typedef struct q3_expr {
    q3_term t[MAXT];
    uint32_t n;
} q3_expr;

/* what each stage's image contributes: per texel (in the base texture's coordinates), or its mean */
typedef struct stage_img {
    q3_img *img;               /* per-texel image, or NULL */
    float mean[4];             /* mean RGBA of the stage's image (1 when none) */
    float sx, sy;              /* texture coordinate scale */
    bool clamp;
} stage_img;

typedef struct q3_eval {
    q3_builder *b;
    const q3_shader_def *def;
    stage_img st[Q3_MAX_STAGES];
    float vmean[4];            /* mean vertex colour (shifted like the lightmap) and alpha */
    bool missing;              /* a stage image could not be found */
} q3_eval;

static float fmean(const q3_eval *e, const q3_term *t, int i, int c)
{
    const float *m = e->st[t->fs[i]].mean;
    switch (t->fm[i]) {
    case F_RGB: return m[c];
    case F_A: return m[3];
    case F_1M_RGB: return 1.0f - m[c];
    default: return 1.0f - m[3];
    }
}

/* replace factor i of t by its mean */
static void fold_factor(const q3_eval *e, q3_term *t, int i)
{
    for (int c = 0; c < 3; c++) t->k[c] *= fmean(e, t, i, c);
    for (int j = i; j + 1 < t->nf; j++) {
        t->fs[j] = t->fs[j + 1];
        t->fm[j] = t->fm[j + 1];
    }
    t->nf--;
}

static bool same_shape(const q3_term *a, const q3_term *b)
{
    if (a->nf != b->nf || a->L != b->L || a->D != b->D || a->V != b->V) return false;
    for (int i = 0; i < a->nf; i++)
        if (a->fs[i] != b->fs[i] || a->fm[i] != b->fm[i]) return false;
    return true;
}

static void sort_factors(q3_term *t)
{
    for (int i = 1; i < t->nf; i++)
        for (int j = i; j > 0 && (t->fs[j] * 4 + t->fm[j]) < (t->fs[j - 1] * 4 + t->fm[j - 1]); j--) {
            uint8_t s = t->fs[j], m = t->fm[j];
            t->fs[j] = t->fs[j - 1], t->fm[j] = t->fm[j - 1];
            t->fs[j - 1] = s, t->fm[j - 1] = m;
        }
}

/* add term t to x, merging it with a term of the same shape; when x is full the term's factors
 * are folded into their means until it merges */
static void add_term(const q3_eval *e, q3_expr *x, q3_term t)
{
    if (fabsf(t.k[0]) + fabsf(t.k[1]) + fabsf(t.k[2]) < 1e-6f) return;
    sort_factors(&t);
    for (;;) {
        for (uint32_t i = 0; i < x->n; i++)
            if (same_shape(&x->t[i], &t)) {
                for (int c = 0; c < 3; c++) x->t[i].k[c] += t.k[c];
                return;
            }
        if (x->n < MAXT) {
            x->t[x->n++] = t;
            return;
        }
        if (t.nf) fold_factor(e, &t, t.nf - 1);
        else {
            /* a full list of plain shapes: merge into the first term of the same L/D/V */
            for (uint32_t i = 0; i < x->n; i++)
                if (x->t[i].L == t.L && x->t[i].D == t.D && x->t[i].V == t.V) {
                    for (int c = 0; c < 3; c++) x->t[i].k[c] += t.k[c];
                    return;
                }
            return;
        }
    }
}

static void expr_const(q3_expr *x, float r, float g, float bl)
{
    x->n = 0;
    if (r == 0 && g == 0 && bl == 0) return;
    memset(&x->t[0], 0, sizeof x->t[0]);
    x->t[0].k[0] = r, x->t[0].k[1] = g, x->t[0].k[2] = bl;
    x->n = 1;
}

static void expr_add(const q3_eval *e, q3_expr *x, const q3_expr *y)
{
    for (uint32_t i = 0; i < y->n; i++) add_term(e, x, y->t[i]);
}

/* x * y into out (out may not alias) */
static void expr_mul(const q3_eval *e, const q3_expr *x, const q3_expr *y, q3_expr *out)
{
    out->n = 0;
    for (uint32_t i = 0; i < x->n; i++)
        for (uint32_t j = 0; j < y->n; j++) {
            q3_term t = x->t[i];
            const q3_term *u = &y->t[j];
            for (int c = 0; c < 3; c++) t.k[c] *= u->k[c];
            /* L*L, D*D, V*V: kept as one power (the engines clamp anyway) */
            t.L = (uint8_t)(t.L | u->L);
            t.D = (uint8_t)(t.D | u->D);
            t.V = (uint8_t)(t.V | u->V);
            for (int f = 0; f < u->nf; f++) {
                if (t.nf == MAXF) fold_factor(e, &t, 0);
                t.fs[t.nf] = u->fs[f];
                t.fm[t.nf] = u->fm[f];
                t.nf++;
            }
            add_term(e, out, t);
        }
}

/* 1 - x */
static void expr_one_minus(const q3_eval *e, const q3_expr *x, q3_expr *out)
{
    expr_const(out, 1, 1, 1);
    for (uint32_t i = 0; i < x->n; i++) {
        q3_term t = x->t[i];
        for (int c = 0; c < 3; c++) t.k[c] = -t.k[c];
        add_term(e, out, t);
    }
}

static void expr_alpha_of(const q3_expr *x, q3_expr *out)
{
    /* alpha expressions are kept as grey colour expressions: nothing to do but copy */
    *out = *x;
}

/* the blend factor f as an expression, for the colour of one stage */
static void blend_factor(const q3_eval *e, int f, const q3_expr *src, const q3_expr *src_a, const q3_expr *dst,
                         const q3_expr *dst_a, q3_expr *out)
{
    switch (f) {
    case Q3_BF_ZERO: expr_const(out, 0, 0, 0); break;
    case Q3_BF_ONE: expr_const(out, 1, 1, 1); break;
    case Q3_BF_DST_COLOR: *out = *dst; break;
    case Q3_BF_ONE_MINUS_DST_COLOR: expr_one_minus(e, dst, out); break;
    case Q3_BF_SRC_ALPHA:
    case Q3_BF_SRC_ALPHA_SATURATE: expr_alpha_of(src_a, out); break;
    case Q3_BF_ONE_MINUS_SRC_ALPHA: expr_one_minus(e, src_a, out); break;
    case Q3_BF_DST_ALPHA: expr_alpha_of(dst_a, out); break;
    case Q3_BF_ONE_MINUS_DST_ALPHA: expr_one_minus(e, dst_a, out); break;
    case Q3_BF_SRC_COLOR: *out = *src; break;
    case Q3_BF_ONE_MINUS_SRC_COLOR: expr_one_minus(e, src, out); break;
    default: expr_const(out, 1, 1, 1); break;
    }
}

/* the same factor for the alpha channel (colour factors read alpha there) */
static int alpha_factor(int f)
{
    switch (f) {
    case Q3_BF_DST_COLOR: return Q3_BF_DST_ALPHA;
    case Q3_BF_ONE_MINUS_DST_COLOR: return Q3_BF_ONE_MINUS_DST_ALPHA;
    case Q3_BF_SRC_COLOR: return Q3_BF_SRC_ALPHA;
    case Q3_BF_ONE_MINUS_SRC_COLOR: return Q3_BF_ONE_MINUS_SRC_ALPHA;
    default: return f;
    }
}

static bool in_base_space(const q3_stage *st)
{
    /* scaled stages (detail textures above all) would need a composed texture many times the
     * size to keep their detail: they enter with their mean */
    return st->tcgen == Q3_TC_BASE && !st->uv_moving && !st->detail && st->tc_scale[0] == 1.0f &&
           st->tc_scale[1] == 1.0f;
}

static void stage_source(q3_eval *e, int si, int kind, q3_expr *src, q3_expr *src_a)
{
    const q3_stage *st = &e->def->stage[si];
    q3_term t;
    memset(&t, 0, sizeof t);
    for (int c = 0; c < 3; c++) t.k[c] = st->rgb[c];
    if (st->rgbgen == Q3_GEN_VERTEX) t.V = 1;
    else if (st->rgbgen == Q3_GEN_ONE_MINUS_VERTEX)
        for (int c = 0; c < 3; c++) t.k[c] *= 1.0f - (e->vmean[c] > 1 ? 1 : e->vmean[c]);
    q3_term a;
    memset(&a, 0, sizeof a);
    a.k[0] = a.k[1] = a.k[2] = st->alpha;
    if (st->alphagen == Q3_GEN_VERTEX) a.k[0] = a.k[1] = a.k[2] = a.k[0] * e->vmean[3];
    else if (st->alphagen == Q3_GEN_ONE_MINUS_VERTEX) a.k[0] = a.k[1] = a.k[2] = a.k[0] * (1.0f - e->vmean[3]);
    if (st->src == Q3_SRC_LIGHTMAP) {
        /* vertex-lit surfaces get the white image for $lightmap */
        if (kind != 0) t.L = 1;
    } else if (st->src == Q3_SRC_IMAGE) {
        t.nf = 1, t.fs[0] = (uint8_t)si, t.fm[0] = F_RGB;
        a.nf = 1, a.fs[0] = (uint8_t)si, a.fm[0] = F_A;
        if (!e->st[si].img) {
            fold_factor(e, &t, 0);
            fold_factor(e, &a, 0);
        }
    }
    src->n = 0;
    src_a->n = 0;
    add_term(e, src, t);
    add_term(e, src_a, a);
}

/* Fold the stages of def into the final colour expression; *mask_stage: the first alpha-tested
 * stage (-1: none) */
static void fold_stages(q3_eval *e, int kind, q3_expr *color, int *mask_stage)
{
    q3_expr dst, dst_a, src, src_a, f1, f2, p1, p2, na;
    q3_term bg;
    memset(&bg, 0, sizeof bg);
    bg.k[0] = bg.k[1] = bg.k[2] = 1.0f;
    bg.D = 1;
    dst.n = 0;
    add_term(e, &dst, bg);           /* the frame buffer starts as the background */
    expr_const(&dst_a, 1, 1, 1);
    *mask_stage = -1;
    for (uint32_t i = 0; i < e->def->stage_count; i++) {
        const q3_stage *st = &e->def->stage[i];
        stage_source(e, (int)i, kind, &src, &src_a);
        if (st->alpha_func && *mask_stage < 0) *mask_stage = (int)i;
        /* colour */
        blend_factor(e, st->bsrc, &src, &src_a, &dst, &dst_a, &f1);
        blend_factor(e, st->bdst, &src, &src_a, &dst, &dst_a, &f2);
        expr_mul(e, &src, &f1, &p1);
        expr_mul(e, &dst, &f2, &p2);
        expr_add(e, &p1, &p2);
        /* alpha */
        blend_factor(e, alpha_factor(st->bsrc), &src_a, &src_a, &dst_a, &dst_a, &f1);
        blend_factor(e, alpha_factor(st->bdst), &src_a, &src_a, &dst_a, &dst_a, &f2);
        expr_mul(e, &src_a, &f1, &na);
        expr_mul(e, &dst_a, &f2, &f1);
        expr_add(e, &na, &f1);
        dst = p1;
        dst_a = na;
    }
    *color = dst;
}

/* ---- composing textures -------------------------------------------------------------------- */

static float sample(const q3_img *im, float u, float v, bool clamp, int c)
{
    float x = u * (float)im->w - 0.5f, y = v * (float)im->h - 0.5f;
    float fx = floorf(x), fy = floorf(y);
    float ax = x - fx, ay = y - fy;
    long x0 = (long)fx, y0 = (long)fy;
    float acc = 0;
    for (int j = 0; j < 2; j++)
        for (int i = 0; i < 2; i++) {
            long xi = x0 + i, yi = y0 + j;
            if (clamp) {
                xi = xi < 0 ? 0 : (xi >= (long)im->w ? (long)im->w - 1 : xi);
                yi = yi < 0 ? 0 : (yi >= (long)im->h ? (long)im->h - 1 : yi);
            } else {
                xi %= (long)im->w;
                yi %= (long)im->h;
                if (xi < 0) xi += im->w;
                if (yi < 0) yi += im->h;
            }
            float wgt = (i ? ax : 1 - ax) * (j ? ay : 1 - ay);
            acc += wgt * im->rgba[((size_t)yi * im->w + (size_t)xi) * 4 + c];
        }
    return acc / 255.0f;
}

static float term_value(const q3_eval *e, const q3_term *t, float u, float v, int c)
{
    float val = t->k[c];
    for (int i = 0; i < t->nf && val != 0; i++) {
        const stage_img *si = &e->st[t->fs[i]];
        int ch = (t->fm[i] == F_A || t->fm[i] == F_1M_A) ? 3 : c;
        float x = sample(si->img, u * si->sx, v * si->sy, si->clamp, ch);
        val *= (t->fm[i] == F_1M_RGB || t->fm[i] == F_1M_A) ? 1.0f - x : x;
    }
    return val;
}

static void expr_size(const q3_eval *e, const q3_expr *x, uint32_t *w, uint32_t *h)
{
    for (uint32_t i = 0; i < x->n; i++)
        for (int f = 0; f < x->t[i].nf; f++) {
            const stage_img *si = &e->st[x->t[i].fs[f]];
            uint32_t iw = si->img->w, ih = si->img->h;
            if (iw > *w) *w = iw;
            if (ih > *h) *h = ih;
        }
}

/* the pixels of every image x reads texel by texel, decoded again where only the file was kept */
static bk_result expr_pixels(const q3_eval *e, const q3_expr *x)
{
    for (uint32_t i = 0; i < x->n; i++)
        for (int f = 0; f < x->t[i].nf; f++) BK_TRY(bk_q3_img_pixels(e->st[x->t[i].fs[f]].img));
    return BK_OK;
}

/* and let go once composed: a map's compositions do not hold all their sources decoded at once */
static void expr_drop_pixels(const q3_eval *e, const q3_expr *x)
{
    for (uint32_t i = 0; x && i < x->n; i++)
        for (int f = 0; f < x->t[i].nf; f++) bk_q3_img_drop_pixels(e->st[x->t[i].fs[f]].img);
}

/* The composition's w x h texels into px, each colour channel divided by div, then clamped;
 * returns the largest colour channel before the division. */
static float compose_texels(const q3_eval *e, const q3_expr *x, const q3_expr *a, uint32_t w, uint32_t h,
                            float div, uint8_t *px, bool *alpha)
{
    float mx = 0;
    *alpha = false;
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t xx = 0; xx < w; xx++) {
            float u = ((float)xx + 0.5f) / (float)w, v = ((float)y + 0.5f) / (float)h;
            uint8_t *o = px + ((size_t)y * w + xx) * 4;
            for (int c = 0; c < 3; c++) {
                float s = 0;
                for (uint32_t i = 0; i < x->n; i++) s += term_value(e, &x->t[i], u, v, c);
                s = s < 0 ? 0 : s;
                if (s > mx) mx = s;
                s /= div;
                o[c] = (uint8_t)((s > 1 ? 1 : s) * 255.0f + 0.5f);
            }
            float al = 1;
            if (a) {
                al = 0;
                for (uint32_t i = 0; i < a->n; i++) al += term_value(e, &a->t[i], u, v, 0);
            }
            o[3] = (uint8_t)((al < 0 ? 0 : (al > 1 ? 1 : al)) * 255.0f + 0.5f);
            *alpha |= o[3] < 255;
        }
    return mx;
}

/* the composition of x (and a) into a new scene image, from the pixels expr_pixels gave; with
 * scale, a colour over 1 is divided by the largest: texels made twice then, rather than held as
 * floats (16 bytes a texel, 16 MB for a 1024 x 1024 composition) */
static bk_result compose_pixels(q3_eval *e, const char *name, const q3_expr *x, const q3_expr *a, float *scale,
                                int32_t *out)
{
    uint32_t w = 0, h = 0;
    expr_size(e, x, &w, &h);
    if (a) expr_size(e, a, &w, &h);
    if (!w || !h) w = h = 1;
    while (w > 1024 || h > 1024) {
        w = (w + 1) / 2;
        h = (h + 1) / 2;
    }
    uint8_t *px = bk_malloc((size_t)w * h * 4);
    if (!px) return BK_ENOMEM;
    bool alpha;
    float mx = compose_texels(e, x, a, w, h, 1, px, &alpha);
    if (scale) {
        *scale = mx > 1 ? mx : 1;
        if (mx > 1) compose_texels(e, x, a, w, h, mx, px, &alpha);
    }
    /* a scene built for the library's own commands keeps an opaque one as RGB rows (a quarter less) */
    if (!alpha && (e->b->opt->flags & BK_OPT_COMPACT_IMAGES)) return bk_scene_add_rgb_image(e->b->s, name, w, h, px, out);
    bk_result r = bk_scene_add_image(e->b->s, name, w, h, px, out);
    if (r != BK_OK) bk_free(px);
    else e->b->s->images[*out].has_alpha = alpha;
    return r;
}

/* Compose colour expression x (and alpha expression a, NULL: opaque) into an image. *scale
 * receives the divisor applied when the colour exceeds 1 (NULL: clamp instead). */
static bk_result compose(q3_eval *e, const char *name, const q3_expr *x, const q3_expr *a, float *scale,
                         int32_t *out)
{
    bk_result r = expr_pixels(e, x);
    if (r == BK_OK && a) r = expr_pixels(e, a);
    if (r == BK_OK) r = compose_pixels(e, name, x, a, scale, out);
    expr_drop_pixels(e, x);
    expr_drop_pixels(e, a);
    return r;
}

/* ---- from expression to material ----------------------------------------------------------- */

/* The engines multiply in gamma space; glTF's factors are linear: a gamma-space multiplier k
 * (0..1) is written as its sRGB decoding, and a strength above 1 as k^2.2, so that a viewer
 * working in linear space shows about what the engine shows. */
float bk_q3_to_linear(float k)
{
    if (!(k > 0)) return 0;
    if (k > 1) return powf(k, 2.2f);
    return k <= 0.04045f ? k / 12.92f : powf((k + 0.055f) / 1.055f, 2.4f);
}

/* a term that is a constant (k) */
static bool is_const_term(const q3_term *t) { return t->nf == 0; }

/* The expression as one image with a factor, when it is that; *img NULL for a constant. */
static bool single_image(const q3_eval *e, const q3_expr *x, q3_img **img, float k[3], int want_mode)
{
    if (x->n != 1) return false;
    const q3_term *t = &x->t[0];
    if (t->nf > 1) return false;
    if (t->nf == 1) {
        const stage_img *si = &e->st[t->fs[0]];
        if (t->fm[0] != want_mode || si->sx != 1.0f || si->sy != 1.0f) return false;
        *img = si->img;
    } else {
        *img = NULL;
    }
    memcpy(k, t->k, sizeof t->k);
    return true;
}

static void split(const q3_expr *x, q3_expr *with_d, q3_expr *lit, q3_expr *own)
{
    with_d->n = lit->n = own->n = 0;
    for (uint32_t i = 0; i < x->n; i++) {
        q3_term t = x->t[i];
        if (t.D) {
            t.D = 0;
            t.L = 0; /* the background seen through a lightmapped surface: the lightmap ignored */
            with_d->t[with_d->n++] = t;
        } else if (t.L) {
            t.L = 0;
            lit->t[lit->n++] = t;
        } else {
            own->t[own->n++] = t;
        }
    }
}

/* substitute the mean vertex colour for V in every term (or, keep_v, leave V to COLOR_0) */
static void resolve_v(const q3_eval *e, q3_expr *x)
{
    for (uint32_t i = 0; i < x->n; i++)
        if (x->t[i].V) {
            for (int c = 0; c < 3; c++) x->t[i].k[c] *= e->vmean[c] > 1 ? 1 : e->vmean[c];
            x->t[i].V = 0;
        }
}

/* merge terms again after substitutions */
static void renormalise(const q3_eval *e, q3_expr *x)
{
    q3_expr y;
    y.n = 0;
    for (uint32_t i = 0; i < x->n; i++) add_term(e, &y, x->t[i]);
    *x = y;
}

static float expr_mean(const q3_eval *e, const q3_expr *x)
{
    float s = 0;
    for (uint32_t i = 0; i < x->n; i++) {
        float v = 0;
        for (int c = 0; c < 3; c++) {
            float k = x->t[i].k[c];
            for (int f = 0; f < x->t[i].nf; f++) k *= fmean(e, &x->t[i], f, c);
            v += k;
        }
        s += v / 3;
    }
    return s;
}

/* Is x = 1 - X with X a single term? Then X into *alpha. */
static bool one_minus_single(const q3_expr *x, q3_term *alpha)
{
    if (x->n != 2) return false;
    int one = -1;
    for (int i = 0; i < 2; i++)
        if (is_const_term(&x->t[i]) && fabsf(x->t[i].k[0] - 1) < 1e-4f && fabsf(x->t[i].k[1] - 1) < 1e-4f &&
            fabsf(x->t[i].k[2] - 1) < 1e-4f)
            one = i;
    if (one < 0) return false;
    *alpha = x->t[1 - one];
    for (int c = 0; c < 3; c++) alpha->k[c] = -alpha->k[c];
    return alpha->k[0] > 0;
}

/* remove factor (stage, mode) from every term of x; false when a term lacks it */
static bool divide_factor(q3_expr *x, uint8_t stage, uint8_t mode, float k)
{
    for (uint32_t i = 0; i < x->n; i++) {
        q3_term *t = &x->t[i];
        int at = -1;
        for (int f = 0; f < t->nf; f++)
            if (t->fs[f] == stage && t->fm[f] == mode) at = f;
        if (at < 0 && mode != 255) return false;
    }
    for (uint32_t i = 0; i < x->n; i++) {
        q3_term *t = &x->t[i];
        for (int f = 0; f < t->nf; f++)
            if (t->fs[f] == stage && t->fm[f] == mode) {
                for (int j = f; j + 1 < t->nf; j++) t->fs[j] = t->fs[j + 1], t->fm[j] = t->fm[j + 1];
                t->nf--;
                break;
            }
        for (int c = 0; c < 3; c++) t->k[c] /= k;
    }
    return true;
}

bool bk_q3_has_extra(const bk_material *m, const char *k)
{
    for (uint32_t i = 0; i < m->extra_count; i++)
        if (strcmp(m->extras[i].key, k) == 0) return true;
    return false;
}

bk_result bk_q3_set_extra(bk_scene *s, int32_t mi, const char *k, const char *v)
{
    bk_material *m = &s->materials[mi];
    return bk_kv_append(&m->extras, &m->extra_count, k, v);
}

/* base colour from expression x (alpha from expression a, or NULL) */
static bk_result put_base(q3_eval *e, int32_t mi, const char *shader, q3_expr *x, q3_expr *a, bool need_opaque)
{
    bk_scene *s = e->b->s;
    if (a && a->n == 0) a = NULL;
    if (x->n == 0) {
        bk_material *m = &s->materials[mi];
        m->base_color[0] = m->base_color[1] = m->base_color[2] = 0;
        return BK_OK;
    }
    q3_img *img = NULL, *aimg = NULL;
    float k[3], ak[3] = {1, 1, 1};
    /* a factor a little above 1 is clamped rather than composed into a new texture */
    bool direct = single_image(e, x, &img, k, F_RGB) && k[0] <= 1.02f && k[1] <= 1.02f && k[2] <= 1.02f;
    /* the alpha: none, a constant, or the same image's own alpha */
    if (direct && !a && need_opaque && img && img->has_alpha) direct = false;
    if (direct && a) {
        if (!single_image(e, a, &aimg, ak, F_A) || (aimg && aimg != img)) direct = false;
        if (aimg && a->t[0].nf && img &&
            (e->st[a->t[0].fs[0]].sx != 1.0f || e->st[a->t[0].fs[0]].sy != 1.0f))
            direct = false;
    }
    if (direct) {
        bk_material *m = &s->materials[mi];
        for (int c = 0; c < 3; c++) m->base_color[c] = bk_q3_to_linear(k[c] > 1 ? 1 : k[c]);
        if (a) m->base_color[3] = ak[0] > 1 ? 1 : (ak[0] < 0 ? 0 : ak[0]);
        return img ? bk_q3_img_scene(e->b, img, &m->base_image) : BK_OK;
    }
    char name[300];
    snprintf(name, sizeof name, "%.250s#base", shader);
    int32_t idx;
    BK_TRY(compose(e, name, x, a, NULL, &idx));
    bk_material *m = &s->materials[mi];
    m->base_image = idx;
    m->base_color[0] = m->base_color[1] = m->base_color[2] = m->base_color[3] = 1;
    return bk_q3_set_extra(s, mi, "baseComposed", "true");
}

static bk_result put_emissive(q3_eval *e, int32_t mi, const char *shader, const q3_expr *x)
{
    bk_scene *s = e->b->s;
    if (x->n == 0) return BK_OK;
    q3_img *img = NULL;
    float k[3];
    if (single_image(e, x, &img, k, F_RGB)) {
        float mx = k[0] > k[1] ? k[0] : k[1];
        if (k[2] > mx) mx = k[2];
        if (!(mx > 1e-4f)) return BK_OK;
        float str = mx > 1 ? mx : 1;
        bk_material *m = &s->materials[mi];
        for (int c = 0; c < 3; c++) m->emissive[c] = bk_q3_to_linear(k[c] / str);
        m->emissive_strength = bk_q3_to_linear(str);
        return img ? bk_q3_img_scene(e->b, img, &m->emissive_image) : BK_OK;
    }
    char name[300];
    snprintf(name, sizeof name, "%.250s#emissive", shader);
    int32_t idx;
    float scale = 1;
    BK_TRY(compose(e, name, x, NULL, &scale, &idx));
    bk_material *m = &s->materials[mi];
    m->emissive_image = idx;
    m->emissive[0] = m->emissive[1] = m->emissive[2] = 1;
    m->emissive_strength = bk_q3_to_linear(scale);
    return bk_q3_set_extra(s, mi, "emissiveComposed", "true");
}

/* the implicit shader of a surface without a script: lightmap x texture, or texture x vertex colour */
static void implicit_def(q3_shader_def *d, q3_stage *st, const char *image, int kind)
{
    memset(d, 0, sizeof *d);
    memset(st, 0, 2 * sizeof *st);
    for (int i = 0; i < 2; i++) {
        st[i].bsrc = Q3_BF_ONE, st[i].bdst = Q3_BF_ZERO;
        st[i].rgb[0] = st[i].rgb[1] = st[i].rgb[2] = 1;
        st[i].alpha = 1;
        st[i].tc_scale[0] = st[i].tc_scale[1] = 1;
    }
    d->stage = st;
    if (kind == 0) {
        st[0].src = Q3_SRC_IMAGE, st[0].image = (char *)image, st[0].rgbgen = Q3_GEN_VERTEX;
        d->stage_count = 1;
    } else {
        st[0].src = Q3_SRC_LIGHTMAP;
        st[1].src = Q3_SRC_IMAGE, st[1].image = (char *)image;
        st[1].blended = 1, st[1].bsrc = Q3_BF_DST_COLOR, st[1].bdst = Q3_BF_ZERO;
        d->stage_count = 2;
        d->lightmap_stage = 1;
    }
}

/* mean vertex colour (shifted like the lightmap) and alpha of the shader's surfaces of one kind */
static void vertex_mean(q3_builder *b, int32_t shader, int kind, float out[4])
{
    double sum[4] = {0, 0, 0, 0};
    uint64_t n = 0;
    const bk_q3_map *m = b->m;
    float gain = bk_q3_gain(b);
    for (uint32_t i = 0; i < m->surface_count && n < 200000; i++) {
        const bk_q3_surface *s = &m->surfaces[i];
        if (s->shader != shader || s->type == BK_Q3_MST_FLARE) continue;
        if ((kind == 0) != (s->lightmap < 0)) continue;
        for (int32_t v = 0; v < s->num_verts; v++) {
            const bk_q3_vertex *vx = &m->verts[s->first_vert + v];
            uint8_t c[3] = {vx->color[0], vx->color[1], vx->color[2]};
            bk_q3_color_shift(c, gain);
            for (int k = 0; k < 3; k++) sum[k] += c[k];
            sum[3] += vx->color[3];
            n++;
        }
    }
    for (int k = 0; k < 4; k++) out[k] = n ? (float)(sum[k] / (double)n / 255.0) : 1.0f;
}

static void prepare_stages(q3_eval *e)
{
    for (uint32_t i = 0; i < e->def->stage_count && i < Q3_MAX_STAGES; i++) {
        const q3_stage *st = &e->def->stage[i];
        stage_img *si = &e->st[i];
        memset(si, 0, sizeof *si);
        si->mean[0] = si->mean[1] = si->mean[2] = si->mean[3] = 1.0f;
        si->sx = si->sy = 1.0f;
        if (st->src != Q3_SRC_IMAGE) continue;
        q3_img *im = bk_q3_img_get(e->b, st->image);
        if (!im) {
            /* the engine's default image stands in: a mid grey */
            si->mean[0] = si->mean[1] = si->mean[2] = 0.5f;
            e->missing = true;
            continue;
        }
        memcpy(si->mean, im->mean, sizeof si->mean);
        if (in_base_space(st)) {
            si->img = im;
            si->sx = roundf(st->tc_scale[0]);
            si->sy = roundf(st->tc_scale[1]);
            si->clamp = st->clamp;
        }
    }
}

/* ioquake3's reading: the stage algebra */
static bk_result material_ioq3(q3_builder *b, int32_t mi, const q3_shader_def *def, const char *shader, int kind,
                               int32_t shader_index)
{
    q3_eval e;
    q3_expr color, with_d, lit, own;
    memset(&e, 0, sizeof e);
    e.b = b;
    e.def = def;
    vertex_mean(b, shader_index, kind, e.vmean);
    prepare_stages(&e);
    int mask_stage;
    fold_stages(&e, kind, &color, &mask_stage);
    bk_scene *s = b->s;
    if (e.missing) {
        BK_TRY(bk_q3_set_extra(s, mi, "missing", "true"));
        s->warning_count++;
    }
    /* COLOR_0 can carry V when the whole colour is (something) x V with no lightmap */
    bool keep_v = color.n > 0;
    for (uint32_t i = 0; i < color.n; i++)
        if (!color.t[i].V || color.t[i].L || color.t[i].D) keep_v = false;
    if (keep_v) {
        for (uint32_t i = 0; i < color.n; i++) color.t[i].V = 0;
        BK_TRY(bk_q3_set_extra(s, mi, "vertexColor", "multiply"));
    } else {
        resolve_v(&e, &color);
    }
    renormalise(&e, &color);
    split(&color, &with_d, &lit, &own);
    renormalise(&e, &with_d);
    bool lightmapped = lit.n > 0;
    bk_material *m = &s->materials[mi];
    if (!lightmapped) {
        m->lightmap_image = -1;
        m->unlit = 1;
    }
    /* how the background shows through */
    q3_expr alpha;
    alpha.n = 0;
    q3_term at;
    bool need_opaque = false;
    if (with_d.n == 0) {
        /* opaque; alpha-tested with the tested stage's alpha */
        if (mask_stage >= 0) {
            const q3_stage *st = &def->stage[mask_stage];
            q3_expr sa, sc;
            stage_source(&e, mask_stage, kind, &sc, &sa);
            alpha = sa;
            m = &s->materials[mi];
            m->alpha_mode = BK_ALPHA_MASK;
            m->alpha_cutoff = st->alpha_func == Q3_AF_GT0 ? 0.004f : 0.5f;
        }
    } else if (with_d.n == 1 && is_const_term(&with_d.t[0]) && with_d.t[0].k[0] > 0.999f &&
               with_d.t[0].k[1] > 0.999f && with_d.t[0].k[2] > 0.999f) {
        /* everything is added to the background: "add" adds colour x alpha, so a colour that is
         * X x (an alpha) becomes X with that alpha, and otherwise the alpha must be 1 */
        m->alpha_mode = BK_ALPHA_BLEND;
        BK_TRY(bk_q3_set_extra(s, mi, "blend", "add"));
        const q3_term *t0 = lit.n ? &lit.t[0] : (own.n ? &own.t[0] : NULL);
        for (int f = 0; t0 && f < t0->nf && !alpha.n; f++) {
            if (t0->fm[f] != F_A) continue;
            q3_expr l2 = lit, o2 = own;
            uint8_t fs = t0->fs[f];
            if (divide_factor(&l2, fs, F_A, 1) && divide_factor(&o2, fs, F_A, 1)) {
                lit = l2;
                own = o2;
                memset(&alpha.t[0], 0, sizeof alpha.t[0]);
                alpha.t[0].k[0] = alpha.t[0].k[1] = alpha.t[0].k[2] = 1;
                alpha.t[0].nf = 1, alpha.t[0].fs[0] = fs, alpha.t[0].fm[0] = F_A;
                alpha.n = 1;
            }
        }
        need_opaque = !alpha.n;
    } else if (one_minus_single(&with_d, &at) && at.nf <= 1 && (at.nf == 0 || at.fm[0] == F_A)) {
        /* alpha blending: colour = alpha x base */
        m->alpha_mode = BK_ALPHA_BLEND;
        float ak = (at.k[0] + at.k[1] + at.k[2]) / 3;
        if (!(ak > 1e-4f)) ak = 1e-4f;
        uint8_t fs = at.nf ? at.fs[0] : 0, fm = at.nf ? at.fm[0] : 255;
        q3_expr l2 = lit, o2 = own;
        if (divide_factor(&l2, fs, fm, ak) && divide_factor(&o2, fs, fm, ak)) {
            lit = l2;
            own = o2;
        }
        alpha.n = 1;
        alpha.t[0] = at;
    } else if (lit.n == 0 && own.n == 0) {
        /* the background multiplied by a colour */
        m->alpha_mode = BK_ALPHA_BLEND;
        BK_TRY(bk_q3_set_extra(s, mi, "blend", "multiply"));
        own = with_d;
    } else {
        /* anything else: the mean transmission as a plain alpha */
        float tr = expr_mean(&e, &with_d);
        if (tr > 0.75f) {
            m->alpha_mode = BK_ALPHA_BLEND;
            BK_TRY(bk_q3_set_extra(s, mi, "blend", "add"));
        } else {
            float op = 1 - (tr < 0 ? 0 : tr);
            if (op < 0.05f) op = 0.05f;
            m->alpha_mode = BK_ALPHA_BLEND;
            for (uint32_t i = 0; i < lit.n; i++)
                for (int c = 0; c < 3; c++) lit.t[i].k[c] /= op;
            for (uint32_t i = 0; i < own.n; i++)
                for (int c = 0; c < 3; c++) own.t[i].k[c] /= op;
            expr_const(&alpha, op, op, op);
        }
    }
    if (lightmapped) {
        BK_TRY(put_base(&e, mi, shader, &lit, alpha.n ? &alpha : NULL, need_opaque));
        BK_TRY(put_emissive(&e, mi, shader, &own));
    } else {
        BK_TRY(put_base(&e, mi, shader, &own, alpha.n ? &alpha : NULL, need_opaque));
    }
    m = &s->materials[mi];
    /* alpha modes need an alpha to work with */
    if (m->alpha_mode != BK_ALPHA_OPAQUE && m->base_image >= 0 && !s->images[m->base_image].has_alpha &&
        m->base_color[3] >= 0.999f && !bk_q3_has_extra(m, "blend"))
        m->alpha_mode = BK_ALPHA_OPAQUE;
    return BK_OK;
}

/* ---- materials ----------------------------------------------------------------------------- */

bk_result bk_q3_get_material(q3_builder *b, int32_t shader, int kind, int32_t *out)
{
    size_t slot = (size_t)shader * 4 + (size_t)kind;
    if (b->mat[slot] >= 0) {
        *out = b->mat[slot];
        return BK_OK;
    }
    const bk_q3_shader *sh = &b->m->shaders[shader];
    bk_scene *s = b->s;
    int32_t mi;
    BK_TRY(bk_scene_add_material(s, sh->name, &mi));
    s->materials[mi].never_drawn = q3_never_drawn(b, shader);
    BK_TRY(bk_q3_set_extra(s, mi, "shader", sh->name));
    char num[32];
    snprintf(num, sizeof num, "0x%x", (unsigned)sh->surface_flags);
    BK_TRY(bk_q3_set_extra(s, mi, "surfaceFlags", num));
    snprintf(num, sizeof num, "0x%x", (unsigned)sh->content_flags);
    BK_TRY(bk_q3_set_extra(s, mi, "contentFlags", num));
    bool lit = kind == 1;
    if (lit) s->materials[mi].lightmap_image = b->atlas_image;
    const q3_shader_def *def = b->defs ? b->defs[shader] : NULL;
    if (def) {
        bk_material *m = &s->materials[mi];
        m->double_sided = def->two_sided;
        if (def->sky) {
            m->unlit = 1;
            BK_TRY(bk_q3_set_extra(s, mi, "sky", "true"));
        }
        if (def->has_fogparms) BK_TRY(bk_q3_set_extra(s, mi, "fog", "true"));
    }
    if (kind == 2) {
        s->materials[mi].unlit = 1;
        BK_TRY(bk_q3_set_extra(s, mi, "flare", "true"));
    } else if (!(b->opt->flags & BK_OPT_NO_TEXTURES)) {
        if (b->darkplaces) {
            BK_TRY(bk_q3_material_dp(b, mi, def, sh->name, kind));
        } else {
            q3_shader_def imp;
            q3_stage st[2];
            const q3_shader_def *d = def;
            if (!d || !d->stage_count) {
                /* no script (or one with no stage: a sky without skyParms stages, an editor image) */
                const char *image = def && def->image ? def->image : sh->name;
                if (!bk_q3_img_get(b, image)) image = sh->name;
                implicit_def(&imp, st, image, kind);
                d = &imp;
            }
            BK_TRY(material_ioq3(b, mi, d, sh->name, kind, shader));
        }
        bk_material *m = &s->materials[mi];
        if (m->lightmap_image >= 0 || (lit && !m->unlit) || (kind == 3 && !m->unlit)) {
            /* what the atlas holds: the engine's lightmap gain, baked in (a viewer multiplies by 1) */
            bk_fmt_num(num, sizeof num, bk_q3_gain(b), 6);
            BK_TRY(bk_q3_set_extra(s, mi, "lightmapGainBaked", num));
            if (b->ambient > 0) {
                bk_fmt_num(num, sizeof num, b->ambient, 6);
                BK_TRY(bk_q3_set_extra(s, mi, "lightmapAmbientBaked", num));
            }
            if (b->engine) BK_TRY(bk_q3_set_extra(s, mi, "engine", b->engine));
        } else if (lit && def && def->stage_count && !def->lightmap_stage) {
            BK_TRY(bk_q3_set_extra(s, mi, "lightmap", "none in the shader"));
        }
    } else if (lit) {
        bk_fmt_num(num, sizeof num, bk_q3_gain(b), 6);
        BK_TRY(bk_q3_set_extra(s, mi, "lightmapGainBaked", num));
        if (b->engine) BK_TRY(bk_q3_set_extra(s, mi, "engine", b->engine));
    }
    b->mat[slot] = mi;
    *out = mi;
    return BK_OK;
}
