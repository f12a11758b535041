/* A scene prepared for the rasteriser: every image a material reads decoded once, with mip
 * levels; every material's brightness and blending read from the scene (the same values the glTF
 * writer puts in the file, so the picture follows the scene builders); every triangle of every
 * node in world space; and, with a query, the clusters each triangle lies in (PVS culling). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "query/query_internal.h"
#include "scene/scene_build.h"
#include "render_internal.h"

const char *bk_rt_extra(const bk_kv *kv, uint32_t n, const char *key)
{
    const char *v = NULL;
    for (uint32_t i = 0; i < n; i++)
        if (kv[i].key && strcmp(kv[i].key, key) == 0) v = kv[i].value;
    return v;
}

/* ---- textures ---------------------------------------------------------------------------- */
/* the next mip level: a 2x2 box filter of straight RGBA, as generateMipmap does */
static uint8_t *half_level(const uint8_t *src, uint32_t w, uint32_t h, uint32_t nw, uint32_t nh)
{
    uint8_t *d = bk_malloc((size_t)nw * nh * 4);
    if (!d) return NULL;
    for (uint32_t y = 0; y < nh; y++) {
        uint32_t y0 = y * 2 < h ? y * 2 : h - 1, y1 = y * 2 + 1 < h ? y * 2 + 1 : h - 1;
        for (uint32_t x = 0; x < nw; x++) {
            uint32_t x0 = x * 2 < w ? x * 2 : w - 1, x1 = x * 2 + 1 < w ? x * 2 + 1 : w - 1;
            const uint8_t *a = src + ((size_t)y0 * w + x0) * 4, *b = src + ((size_t)y0 * w + x1) * 4;
            const uint8_t *c = src + ((size_t)y1 * w + x0) * 4, *e = src + ((size_t)y1 * w + x1) * 4;
            uint8_t *o = d + ((size_t)y * nw + x) * 4;
            for (int k = 0; k < 4; k++) o[k] = (uint8_t)((a[k] + b[k] + c[k] + e[k] + 2) >> 2);
        }
    }
    return d;
}

static void free_levels(rtex *t)
{
    for (uint32_t l = t->first; l < t->levels; l++) bk_free(t->px[l]);
    memset(t->px, 0, sizeof t->px);
    t->levels = t->first = 0;
}

/* an opaque level's RGBA as RGB in the same block, shrunk to its size and a byte of padding */
static uint8_t *to_rgb(uint8_t *px, uint32_t w, uint32_t h)
{
    size_t n = (size_t)w * h;
    for (size_t i = 0; i < n; i++) memmove(px + i * 3, px + i * 4, 3);
    px[n * 3] = 0;
    uint8_t *p = bk_realloc(px, n * 3 + 1);
    return p ? p : px;
}

static bool opaque(const uint8_t *px, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (px[i * 4 + 3] != 255) return false;
    return true;
}

/* Levels `first` .. 1x1 of t's image: the image decoded, halved down to `first` with each finer
 * level freed once the next is made (one full-size decode alive at a time), the rest kept, as RGB
 * when every texel is opaque (a quarter less). The levels are the ones a full chain has, byte for
 * byte: each is made from the one before (as RGBA, then packed). */
static bk_result load_texture(const bk_scene *s, uint32_t image, uint32_t first, rtex *t)
{
    uint8_t *px;
    BK_TRY(bk_scene_image_rgba(s, image, &px));
    uint32_t w = t->fw, h = t->fh, l = 0;
    t->pot = w && h && !(w & (w - 1)) && !(h & (h - 1));
    t->first = first;
    t->bpp = opaque(px, (size_t)w * h) ? 3 : 4;
    for (;;) {
        bool keep = l >= first, last = !t->mips || l + 1 >= RT_MAX_LEVELS || (w == 1 && h == 1);
        if (keep) t->w[l] = w, t->h[l] = h, t->levels = l + 1;
        uint8_t *next = NULL;
        uint32_t nw = w > 1 ? w / 2 : 1, nh = h > 1 ? h / 2 : 1;
        if (!last && !(next = half_level(px, w, h, nw, nh))) {
            if (keep) t->px[l] = px;
            else bk_free(px);
            return BK_ENOMEM;
        }
        if (keep || (last && t->first > l)) {
            /* kept, or the last level when the one asked for is past 1x1 */
            if (!keep) t->first = l, t->w[l] = w, t->h[l] = h, t->levels = l + 1;
            t->px[l] = t->bpp == 3 ? to_rgb(px, w, h) : px;
        } else {
            bk_free(px);
        }
        if (last) break;
        px = next, w = nw, h = nh, l++;
    }
    for (uint32_t k = 0; k < t->first; k++) t->px[k] = t->px[t->first], t->w[k] = t->w[t->first], t->h[k] = t->h[t->first];
    return BK_OK;
}

bk_result bk_rt_texture_load(bk_renderer *r, int32_t i, uint32_t first)
{
    if (i < 0 || (uint32_t)i >= r->tex_count) return BK_OK;
    rtex *t = &r->tex[i];
    if (!t->mips) first = 0;
    if (t->loaded && t->first <= first) return BK_OK;
    free_levels(t); /* a view that needs finer levels than the last: decoded again */
    t->loaded = true;
    return load_texture(r->s, (uint32_t)t->image, first, t);
}

const uint8_t bk_rt_zero_block[RT_BLOCK_BYTES];

typedef struct block_fill {
    rtex *t;
    const uint8_t *fresh;       /* per block: decoded now */
} block_fill;

/* image row y into the fresh blocks it reaches: row y % RT_BLOCK of its block row, and the last
 * row of the block row above when it is that one's next */
static void fill_row(void *user, uint32_t y, const uint8_t *rgba)
{
    const block_fill *f = user;
    const rtex *t = f->t;
    uint32_t by = y / RT_BLOCK, ly = y % RT_BLOCK;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            if (ly || !by) break;
            by--, ly = RT_BLOCK;
        }
        if (by >= t->bh) continue;
        for (uint32_t bx = 0; bx < t->bw; bx++) {
            if (!f->fresh[by * t->bw + bx]) continue;
            uint32_t x0 = bx * RT_BLOCK, n = t->fw - x0 < RT_SIDE ? t->fw - x0 : RT_SIDE;
            uint8_t *d = t->blk[by * t->bw + bx] + (size_t)ly * RT_SIDE * 3;
            const uint8_t *src = rgba + (size_t)x0 * 4;
            for (uint32_t x = 0; x < n; x++) memcpy(d + x * 3, src + x * 4, 3); /* RGB: a lightmap's alpha is not read */
        }
    }
}

static void free_blocks(rtex *t)
{
    if (!t->blk) return;
    for (size_t i = 0; i < (size_t)t->bw * t->bh; i++)
        if (t->blk[i] != bk_rt_zero_block) bk_free(t->blk[i]);
    bk_free(t->blk);
    t->blk = NULL;
}

bk_result bk_rt_lightmap_load(bk_renderer *r, int32_t i, const uint8_t *want)
{
    if (i < 0 || (uint32_t)i >= r->tex_count) return BK_OK;
    rtex *t = &r->tex[i];
    size_t n = (size_t)t->bw * t->bh;
    if (!t->blk) {
        t->blk = bk_malloc(n * sizeof *t->blk);
        if (!t->blk) return BK_ENOMEM;
        for (size_t k = 0; k < n; k++) t->blk[k] = (uint8_t *)bk_rt_zero_block;
    }
    uint8_t *fresh = bk_calloc(n, 1);
    if (!fresh) return BK_ENOMEM;
    uint32_t rows = 0;
    bk_result res = BK_OK;
    for (size_t k = 0; k < n && res == BK_OK; k++) {
        if (!want[k] || t->blk[k] != bk_rt_zero_block) continue;
        /* zeroed: the texels past the image's edge (never read) are zeros too */
        uint8_t *b = bk_calloc(RT_BLOCK_BYTES, 1);
        if (!b) res = BK_ENOMEM;
        else t->blk[k] = b, fresh[k] = 1;
        uint32_t last = (uint32_t)(k / t->bw + 1) * RT_BLOCK + 1; /* rows down to the next block's first */
        if (last > rows) rows = last;
    }
    block_fill f = {t, fresh};
    if (res == BK_OK && rows) res = bk_scene_image_rows(r->s, (uint32_t)t->image, rows, fill_row, &f);
    if (res != BK_OK) /* the blocks begun now are not held */
        for (size_t k = 0; k < n; k++)
            if (fresh[k] && t->blk[k] != bk_rt_zero_block) bk_free(t->blk[k]), t->blk[k] = (uint8_t *)bk_rt_zero_block;
    bk_free(fresh);
    return res;
}

/* image -> texture index, given a slot on first use (-1: no image, or no pixels to draw); the
 * pixels are decoded when a triangle that reads them is drawn. An image read as a lightmap is a
 * texture of its own (map's second half): held in blocks, one level, clamped. */
static bk_result texture_of(bk_renderer *r, int32_t *map, int32_t image, bool lightmap, int32_t *out)
{
    *out = -1;
    if (image < 0 || (uint32_t)image >= r->s->image_count || !bk_scene_image_has_pixels(r->s, (uint32_t)image))
        return BK_OK;
    if (lightmap) map += r->s->image_count;
    if (map[image] >= 0) {
        *out = map[image];
        return BK_OK;
    }
    rtex *t = &r->tex[r->tex_count];
    memset(t, 0, sizeof *t);
    t->image = image;
    t->mips = !lightmap && !r->s->images[image].is_lightmap;
    t->clamp = lightmap || r->s->images[image].is_lightmap || r->s->images[image].clamp;
    t->fw = r->s->images[image].width;
    t->fh = r->s->images[image].height;
    t->blocks = lightmap;
    t->bw = (t->fw + RT_BLOCK - 1) / RT_BLOCK, t->bh = (t->fh + RT_BLOCK - 1) / RT_BLOCK;
    map[image] = (int32_t)r->tex_count;
    *out = (int32_t)r->tex_count++;
    return BK_OK;
}

/* ---- materials ----------------------------------------------------------------------------- */
static float to_srgb(float c)
{
    if (!isfinite(c) || c <= 0) return 0;
    if (c >= 1) return 1;
    return c <= 0.0031308f ? c * 12.92f : 1.055f * powf(c, 1.0f / 2.4f) - 0.055f;
}

/* a sky by its name (Quake's sky textures, a sky shader or material without the sky extra) */
static bool is_sky_name(const char *n)
{
    if (!n) return false;
    const char *slash = strrchr(n, '/');
    return bk_strncasecmp_prefix(slash ? slash + 1 : n, "sky");
}

static bk_result prepare_material(bk_renderer *r, int32_t *map, const bk_material *m, rmat *o)
{
    memset(o, 0, sizeof *o);
    BK_TRY(texture_of(r, map, m->base_image, false, &o->tex));
    BK_TRY(texture_of(r, map, m->blend_image, false, &o->tex2));
    if (!m->unlit) BK_TRY(texture_of(r, map, m->lightmap_image, true, &o->lm));
    else o->lm = -1;
    for (int c = 0; c < 3; c++) o->base[c] = to_srgb(m->base_color[c]);
    float a = m->base_color[3];
    o->base[3] = isfinite(a) ? (a < 0 ? 0 : (a > 1 ? 1 : a)) : 1;
    bool any_em = false;
    for (int c = 0; c < 3; c++) any_em |= isfinite(m->emissive[c]) && m->emissive[c] > 0;
    o->em = -1;
    if (any_em) {
        float es = isfinite(m->emissive_strength) && m->emissive_strength > 1 && !m->unlit ? m->emissive_strength : 1;
        es = powf(es, 1 / 2.2f);
        for (int c = 0; c < 3; c++) o->emissive[c] = to_srgb(m->emissive[c]) * es;
        BK_TRY(texture_of(r, map, m->emissive_image, false, &o->em));
    }
    if (m->alpha_mode == BK_ALPHA_MASK)
        o->cutoff = isfinite(m->alpha_cutoff) && m->alpha_cutoff >= 0 ? m->alpha_cutoff : 0.5f;
    const char *bl = bk_rt_extra(m->extras, m->extra_count, "blend");
    if (bl && strcmp(bl, "add") == 0) o->blend = RB_ADD;
    else if (bl && strcmp(bl, "multiply") == 0) o->blend = RB_MULTIPLY;
    else if (bl || m->alpha_mode == BK_ALPHA_BLEND) o->blend = RB_ALPHA;
    const char *vc = bk_rt_extra(m->extras, m->extra_count, "vertexColor");
    o->vc = vc && strcmp(vc, "multiply") == 0;
    const char *ls = bk_rt_extra(m->extras, m->extra_count, "lightmapScale");
    o->lm_scale = ls ? strtof(ls, NULL) : 1.0f;
    if (!isfinite(o->lm_scale) || o->lm_scale < 0) o->lm_scale = 1;
    const char *sky = bk_rt_extra(m->extras, m->extra_count, "sky");
    const char *layer = bk_rt_extra(m->extras, m->extra_count, "skyLayer");
    o->sky_layer = layer ? (int32_t)strtol(layer, NULL, 10) : 0;
    o->pass = sky ? RP_SKY : (o->blend ? RP_BLEND : RP_OPAQUE);
    o->double_sided = m->double_sided || sky;
    /* what the game never draws, as the family's scene builder marked it */
    o->tool = sky || m->never_drawn || is_sky_name(m->name) ||
              (m->unlit && m->name && bk_strncasecmp_prefix(m->name, "sky"));
    return BK_OK;
}

static bk_result prepare_materials(bk_renderer *r)
{
    const bk_scene *s = r->s;
    r->mat = bk_calloc(s->material_count + 1, sizeof(rmat));
    r->tex = bk_calloc((size_t)s->image_count * 2 + 1, sizeof(rtex));
    int32_t *map = bk_malloc(((size_t)s->image_count * 2 + 1) * sizeof(int32_t));
    if (!r->mat || !r->tex || !map) {
        bk_free(map);
        return BK_ENOMEM;
    }
    for (size_t i = 0; i < (size_t)s->image_count * 2; i++) map[i] = -1;
    bk_result res = BK_OK;
    for (uint32_t i = 0; i < s->material_count && res == BK_OK; i++)
        res = prepare_material(r, map, &s->materials[i], &r->mat[i]);
    /* the material of primitives without one: white, opaque */
    rmat *d = &r->mat[s->material_count];
    memset(d, 0, sizeof *d);
    d->tex = d->tex2 = d->lm = d->em = -1;
    for (int c = 0; c < 4; c++) d->base[c] = 1;
    d->lm_scale = 1;
    d->pass = RP_OPAQUE;
    r->mat_count = s->material_count + 1;
    bk_free(map);
    return res;
}

/* ---- geometry ------------------------------------------------------------------------------ */
typedef struct xform { float m[12]; } xform; /* 3x4, row major: p' = M * (p, 1) */

static void node_local(const bk_node *n, xform *o)
{
    float x = n->rotation[0], y = n->rotation[1], z = n->rotation[2], w = n->rotation[3];
    float l = sqrtf(x * x + y * y + z * z + w * w);
    if (!(l > 0) || !isfinite(l)) x = y = z = 0, w = 1, l = 1;
    x /= l, y /= l, z /= l, w /= l;
    float R[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w),
                  2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
                  2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)};
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            float sc = isfinite(n->scale[j]) && n->scale[j] != 0 ? n->scale[j] : 1;
            o->m[i * 4 + j] = R[i * 3 + j] * sc;
        }
        o->m[i * 4 + 3] = isfinite(n->translation[i]) ? n->translation[i] : 0;
    }
}

static void xf_mul(const xform *a, const xform *b, xform *o)
{
    xform t;
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 4; j++) {
            float v = j == 3 ? a->m[i * 4 + 3] : 0;
            for (int k = 0; k < 3; k++) v += a->m[i * 4 + k] * b->m[k * 4 + j];
            t.m[i * 4 + j] = v;
        }
    }
    *o = t;
}

static bk_result grow(void **p, uint64_t *cap, uint64_t need, size_t el)
{
    if (need <= *cap) return BK_OK;
    uint64_t n = *cap ? *cap : 1024;
    while (n < need) n *= 2;
    if (n > SIZE_MAX / el) return BK_EOVERFLOW;
    void *q = bk_realloc(*p, (size_t)(n * el));
    if (!q) return BK_ENOMEM;
    *p = q;
    *cap = n;
    return BK_OK;
}

static bool finite3(const float *p) { return isfinite(p[0]) && isfinite(p[1]) && isfinite(p[2]); }

static bk_result add_prim(bk_renderer *r, const bk_primitive *p, const xform *x, bool follow, bool sky3d)
{
    if (!p->position) return BK_OK;
    if (p->mode != BK_PRIM_TRIANGLES || p->vertex_count < 3) {
        /* points and lines are not drawn, but belong to the scene's extent (as three.js counts it) */
        for (uint32_t i = 0; i < p->vertex_count && !follow && !sky3d; i++) {
            const float *q = p->position + (size_t)i * 3;
            float w[3];
            for (int k = 0; k < 3; k++)
                w[k] = x->m[k * 4] * q[0] + x->m[k * 4 + 1] * q[1] + x->m[k * 4 + 2] * q[2] + x->m[k * 4 + 3];
            if (!finite3(w)) continue;
            for (int k = 0; k < 3; k++) r->mins[k] = fminf(r->mins[k], w[k]), r->maxs[k] = fmaxf(r->maxs[k], w[k]);
        }
        return BK_OK;
    }
    uint32_t mat = p->material >= 0 && (uint32_t)p->material < r->s->material_count ? (uint32_t)p->material
                                                                                    : r->mat_count - 1;
    uint64_t base = r->vert_count;
    BK_TRY(grow((void **)&r->vert, &r->vert_cap, base + p->vertex_count, sizeof(rvert)));
    for (uint32_t i = 0; i < p->vertex_count; i++) {
        rvert *v = &r->vert[base + i];
        const float *q = p->position + (size_t)i * 3;
        for (int k = 0; k < 3; k++)
            v->p[k] = x->m[k * 4] * q[0] + x->m[k * 4 + 1] * q[1] + x->m[k * 4 + 2] * q[2] + x->m[k * 4 + 3];
        for (int k = 0; k < 2; k++) {
            v->uv0[k] = p->uv0 && isfinite(p->uv0[i * 2 + k]) ? p->uv0[(size_t)i * 2 + k] : 0;
            v->uv1[k] = p->uv1 && isfinite(p->uv1[i * 2 + k]) ? p->uv1[(size_t)i * 2 + k] : 0;
        }
        for (int k = 0; k < 4; k++) v->col[k] = p->color ? p->color[(size_t)i * 4 + k] / 255.0f : 1.0f;
        if (!follow && !sky3d && finite3(v->p))
            for (int k = 0; k < 3; k++) {
                if (v->p[k] < r->mins[k]) r->mins[k] = v->p[k];
                if (v->p[k] > r->maxs[k]) r->maxs[k] = v->p[k];
            }
    }
    r->vert_count += p->vertex_count;
    uint64_t n = p->indices ? p->index_count / 3 : p->vertex_count / 3;
    BK_TRY(grow((void **)&r->tri, &r->tri_cap, r->tri_count + n, sizeof(rtri)));
    for (uint64_t t = 0; t < n; t++) {
        uint32_t a = p->indices ? p->indices[t * 3] : (uint32_t)(t * 3);
        uint32_t b = p->indices ? p->indices[t * 3 + 1] : (uint32_t)(t * 3 + 1);
        uint32_t c = p->indices ? p->indices[t * 3 + 2] : (uint32_t)(t * 3 + 2);
        if (a >= p->vertex_count || b >= p->vertex_count || c >= p->vertex_count || a == b || b == c || a == c)
            continue;
        if (!finite3(r->vert[base + a].p) || !finite3(r->vert[base + b].p) || !finite3(r->vert[base + c].p))
            continue;
        rtri *o = &r->tri[r->tri_count++];
        o->v[0] = (uint32_t)(base + a) - 0, o->v[1] = (uint32_t)(base + b), o->v[2] = (uint32_t)(base + c);
        o->mat = mat;
        o->follow = follow;
        o->sky3d = sky3d;
    }
    return BK_OK;
}

static bool is_collision(const bk_scene *s, int32_t i)
{
    for (int depth = 0; i >= 0 && (uint32_t)i < s->node_count && depth < 64; depth++) {
        if (s->nodes[i].name && strcmp(s->nodes[i].name, "collision") == 0 && s->nodes[i].parent < 0) return true;
        int32_t p = s->nodes[i].parent;
        if (p >= i) break;
        i = p;
    }
    return false;
}

static bk_result prepare_geometry(bk_renderer *r)
{
    const bk_scene *s = r->s;
    xform *world = bk_malloc(((size_t)s->node_count + 1) * sizeof(xform));
    if (!world) return BK_ENOMEM;
    for (int k = 0; k < 3; k++) r->mins[k] = INFINITY, r->maxs[k] = -INFINITY;
    bk_result res = BK_OK;
    for (uint32_t i = 0; i < s->node_count && res == BK_OK; i++) {
        const bk_node *n = &s->nodes[i];
        xform l;
        node_local(n, &l);
        if (n->parent >= 0 && (uint32_t)n->parent < i) xf_mul(&world[n->parent], &l, &world[i]);
        else world[i] = l;
        if (n->mesh < 0 || (uint32_t)n->mesh >= s->mesh_count || is_collision(s, (int32_t)i)) continue;
        const char *fc = bk_rt_extra(n->extras, n->extra_count, "followCamera");
        bool follow = fc && strcmp(fc, "true") == 0;
        const char *s3 = bk_rt_extra(n->extras, n->extra_count, "skybox3d");
        bool sky3d = s3 && strcmp(s3, "true") == 0;
        if (follow)
            for (int k = 0; k < 3; k++) r->sky_origin[k] = world[i].m[k * 4 + 3];
        const bk_mesh *m = &s->meshes[n->mesh];
        for (uint32_t p = 0; p < m->prim_count && res == BK_OK; p++) res = add_prim(r, &m->prims[p], &world[i], follow, sky3d);
    }
    bk_free(world);
    if (!(r->mins[0] <= r->maxs[0]))
        for (int k = 0; k < 3; k++) r->mins[k] = -1, r->maxs[k] = 1;
    return res;
}

/* ---- clusters of each triangle (PVS culling) -------------------------------------------------- */
/* Four points just in front of the triangle (its centre and its corners pulled a tenth of the way
 * in): the clusters holding them. The triangle is drawn when any of them is in the eye's PVS; a
 * triangle none of whose points lies in a cluster (all in solid) is always drawn. */
static bk_result prepare_clusters(bk_renderer *r)
{
    if (!r->q) return BK_OK;
    bk_query_info qi;
    bk_query_get_info(r->q, &qi);
    if (!qi.cluster_count) return BK_OK;
    r->cluster_count = qi.cluster_count;
    if (r->tri_count > SIZE_MAX / (4 * sizeof(int32_t))) return BK_EOVERFLOW;
    r->tri_cluster = bk_malloc((size_t)r->tri_count * 4 * sizeof(int32_t));
    if (!r->tri_cluster) return BK_ENOMEM;
    enum { CHUNK = 256 };   /* triangles at a time: their points asked for at once */
    float pts[CHUNK * 12];
    for (uint64_t t0 = 0; t0 < r->tri_count; t0 += CHUNK) {
        uint64_t n = r->tri_count - t0 < CHUNK ? r->tri_count - t0 : CHUNK;
        for (uint64_t t = t0; t < t0 + n; t++) {
            const rtri *tr = &r->tri[t];
            const float *a = r->vert[tr->v[0]].p, *b = r->vert[tr->v[1]].p, *c = r->vert[tr->v[2]].p;
            float e1[3], e2[3], nrm[3], g[3];
            for (int k = 0; k < 3; k++) e1[k] = b[k] - a[k], e2[k] = c[k] - a[k], g[k] = (a[k] + b[k] + c[k]) / 3;
            nrm[0] = e1[1] * e2[2] - e1[2] * e2[1];
            nrm[1] = e1[2] * e2[0] - e1[0] * e2[2];
            nrm[2] = e1[0] * e2[1] - e1[1] * e2[0];
            float l = sqrtf(nrm[0] * nrm[0] + nrm[1] * nrm[1] + nrm[2] * nrm[2]);
            if (l > 0) for (int k = 0; k < 3; k++) nrm[k] /= l;
            const float *corner[4] = {g, a, b, c};
            float *p = pts + (t - t0) * 12;
            for (int i = 0; i < 4; i++)
                for (int k = 0; k < 3; k++) p[3 * i + k] = corner[i][k] + (g[k] - corner[i][k]) * 0.1f + nrm[k] * 0.5f;
        }
        int32_t *out = r->tri_cluster + t0 * 4;
        bk_query_clusters(r->q, (size_t)n * 4, pts, out);
        for (uint64_t t = t0; t < t0 + n; t++, out += 4) {
            const rtri *tr = &r->tri[t];
            /* seen through the sky from anywhere: not culled by the world's PVS; and none of its
             * points in a cluster (all in solid): always drawn */
            if (tr->follow || tr->sky3d || (out[0] < 0 && out[1] < 0 && out[2] < 0 && out[3] < 0))
                out[0] = out[1] = out[2] = out[3] = -2;
        }
    }
    return BK_OK;
}

bk_result bk_rt_prepare(bk_renderer *r)
{
    const char *g = bk_rt_extra(r->s->extras, r->s->extra_count, "displayGamma");
    r->display_gamma = g ? strtof(g, NULL) : 1.0f;
    if (!isfinite(r->display_gamma) || r->display_gamma < 0.1f || r->display_gamma > 10) r->display_gamma = 1;
    BK_TRY(prepare_materials(r));
    BK_TRY(prepare_geometry(r));
    BK_TRY(prepare_clusters(r));
    bk_render_spawns(r->s, NULL, NULL, 0, &r->spawn_count);
    return BK_OK;
}

void bk_rt_release(bk_renderer *r)
{
    for (uint32_t i = 0; i < r->tex_count; i++) free_levels(&r->tex[i]), free_blocks(&r->tex[i]);
    bk_free(r->tex);
    bk_free(r->mat);
    bk_free(r->vert);
    bk_free(r->tri);
    bk_free(r->tri_cluster);
}
