/* Quake 3 map -> bk_scene: one mesh per model (world, *1, *2, ...), one primitive per material;
 * planar and triangle-soup surfaces from their vertices and indices, bezier patches tessellated
 * into one grid per patch, flares as points; lightmap pages (from the lump or external
 * lm_NNNN.tga files) packed into one atlas with the lightmap UVs remapped; shader names resolved
 * to images through shader scripts and the search paths. */
#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <sys/stat.h>

#include "scene/scene_build.h"
#include "q3_internal.h"

/* ---- helpers ------------------------------------------------------------------------------- */


float bk_q3_gain(const q3_builder *b) { return b->gain; }

/* The map's name ("q3dm1" from ".../maps/q3dm1.bsp" or "x.pk3:maps/q3dm1.bsp"). */
static void map_name(const char *path, char *out, size_t cap)
{
    out[0] = 0;
    if (!path) return;
    const char *b = path;
    for (const char *p = path; *p; p++)
        if (*p == '/' || *p == '\\' || *p == ':') b = p + 1;
    size_t n = strlen(b);
    if (n > 4 && bk_strcasecmp(b + n - 4, ".bsp") == 0) n -= 4;
    if (n >= cap) n = cap - 1;
    memcpy(out, b, n);
    out[n] = 0;
}

/* ---- lightmaps ----------------------------------------------------------------------------- */

/* Internal pages are drawn straight into the atlas image (no copy of them is kept): RGB from the
 * lump, with the engine's brightness shift. */
typedef struct page_fill {
    const bk_q3_map *m;
    const uint32_t *page_of_id;
    float gain;
    int ambient;    /* added after the shift (DarkPlaces' r_ambient), 0..255 */
    /* external pages: read again from the search paths when drawn (their sizes: b->pages) */
    q3_builder *b;
    const char *mname;
} page_fill;

static void add_ambient(uint8_t *o, int add)
{
    for (int c = 0; c < 3; c++) o[c] = (uint8_t)(o[c] + add > 255 ? 255 : o[c] + add);
}

/* n RGBA texels of an external page with the engine's brightness shift, then the ambient */
static void shift_texels(uint8_t *px, size_t n, float gain, int ambient)
{
    for (size_t k = 0; k < n; k++) {
        bk_q3_color_shift(px + k * 4, gain);
        if (ambient) add_ambient(px + k * 4, ambient);
    }
}

/* a page drawn into the atlas, bpp bytes a texel (4: RGBA, 3: an RGB atlas drawn in place) */
static inline void fill_page_bpp(const page_fill *pf, uint32_t id, uint8_t *dst, size_t stride, int bpp)
{
    const uint8_t *src = pf->m->lightmaps + (size_t)pf->page_of_id[id] * Q3_LIGHTMAP_BYTES;
    /* bk_q3_color_shift by table: a texel whose brightest channel does not overflow takes each
     * channel's shifted byte (the same float product, so the same bytes); the others go through
     * the function, which scales all three down together */
    uint8_t shifted[256], over[256];
    for (int v = 0; v < 256; v++) {
        float f = (float)v * pf->gain;
        over[v] = pf->gain > 1.0f && f > 255.0f;
        shifted[v] = pf->gain > 1.0f ? (uint8_t)(f + 0.5f > 255 ? 255 : f + 0.5f) : (uint8_t)v;
    }
    for (uint32_t y = 0; y < 128; y++, dst += stride, src += 128 * 3) {
        for (uint32_t x = 0; x < 128; x++) {
            uint8_t *o = dst + x * (size_t)bpp;
            uint8_t r = src[x * 3], g = src[x * 3 + 1], bl = src[x * 3 + 2];
            uint8_t mx = r > g ? r : g;
            if (bl > mx) mx = bl;
            if (!over[mx]) {
                o[0] = shifted[r];
                o[1] = shifted[g];
                o[2] = shifted[bl];
            } else {
                o[0] = r;
                o[1] = g;
                o[2] = bl;
                bk_q3_color_shift(o, pf->gain);
            }
            if (bpp == 4) o[3] = 255;
            if (pf->ambient) add_ambient(o, pf->ambient);
        }
    }
}

/* the file of external page i (page_rect.file) */
static void page_path(const char *mname, uint32_t i, int file, char *out, size_t cap)
{
    if (file == 2) snprintf(out, cap, "%s/lm_%04u.tga", mname, i);
    else snprintf(out, cap, "maps/%s/lm_%04u.tga", mname, i);
}

/* An external page drawn into the atlas from its file, read and decoded again now (the pages are
 * not held from their first reading: a Nexuiz map's 26 pages of 512 x 512 are 27 MB as RGBA),
 * with the same shift and ambient; opaque black, with a warning, if the file does not decode to
 * the size its header gave when the scene was built. */
static void fill_external(void *user, uint32_t id, uint8_t *dst, size_t stride)
{
    const page_fill *pf = user;
    uint32_t i = pf->page_of_id[id];
    const page_rect *pr = &pf->b->pages[i];
    char path[300];
    page_path(pf->mname, i, pr->file, path, sizeof path);
    uint8_t *buf = NULL, *px = NULL;
    size_t sz = 0;
    uint32_t w = 0, h = 0;
    bk_result r = bk_vfs_read(pf->b->vfs, path, 64u << 20, &buf, &sz);
    if (r == BK_OK) r = bk_image_decode(buf, sz, 4096, &px, &w, &h);
    if (r == BK_OK && (w != pr->w || h != pr->h)) r = BK_EFORMAT;
    bk_free(buf);
    if (r != BK_OK) {
        bk_free(px);
        bk_scene_diag(pf->b->s, pf->b->opt, BK_SEV_WARNING, r, NULL, "lightmaps", i, BK_NO_OFFSET,
                      "external lightmap %s cannot be decoded to the %ux%u its header gives: %s; its page is black",
                      path, pr->w, pr->h, bk_strerror(r));
        for (uint32_t y = 0; y < pr->h; y++, dst += stride)
            for (uint32_t x = 0; x < pr->w; x++) memcpy(dst + (size_t)x * 4, (const uint8_t[4]){0, 0, 0, 255}, 4);
        return;
    }
    shift_texels(px, (size_t)w * h, pf->gain, pf->ambient);
    for (uint32_t y = 0; y < h; y++) memcpy(dst + y * stride, px + (size_t)y * w * 4, (size_t)w * 4);
    bk_free(px);
}

static void fill_page(void *user, uint32_t id, uint8_t *dst, size_t stride) { fill_page_bpp(user, id, dst, stride, 4); }
static void fill_page_rgb(void *user, uint32_t id, uint8_t *dst, size_t stride) { fill_page_bpp(user, id, dst, stride, 3); }

/* External page i: maps/NAME/lm_NNNN.tga in the search paths, or NAME/lm_NNNN.tga beside the map.
 * Its size (*w, *h) now and its pixels when the atlas is drawn (fill_external), or, for a header
 * stb_image cannot read alone, its pixels decoded now (*px, held until the atlas is drawn). false:
 * left out with a warning, *missing when it is not found. */
static bool external_page(q3_builder *b, const char *mname, uint32_t i, float gain, int ambient, uint32_t *w,
                          uint32_t *h, uint8_t **px, bool *missing)
{
    char p1[300], p2[300];
    page_path(mname, i, 1, p1, sizeof p1);
    page_path(mname, i, 2, p2, sizeof p2);
    uint8_t *buf = NULL;
    size_t sz = 0;
    int file = 0;
    *missing = false;
    if (b->vfs && mname[0])
        file = bk_vfs_read(b->vfs, p1, 64u << 20, &buf, &sz) == BK_OK   ? 1
               : bk_vfs_read(b->vfs, p2, 64u << 20, &buf, &sz) == BK_OK ? 2
                                                                        : 0;
    if (!file) {
        bk_scene_diag(b->s, b->opt, BK_SEV_WARNING, BK_ENOTFOUND, NULL, "lightmaps", i, BK_NO_OFFSET,
                      "external lightmap %s not found in the search paths (nor %s): surfaces on it are unlit", p1, p2);
        *missing = true;
        return false;
    }
    bk_result r = BK_OK;
    int iw = 0, ih = 0;
    if (sz <= INT_MAX && bk_stbi_info(buf, (int)sz, &iw, &ih) && iw > 0 && ih > 0 && iw <= 4096 && ih <= 4096) {
        *w = (uint32_t)iw, *h = (uint32_t)ih;
        b->pages[i].file = (uint8_t)file;
    } else {
        r = bk_image_decode(buf, sz, 4096, px, w, h);
        if (r == BK_OK) shift_texels(*px, (size_t)*w * *h, gain, ambient);
    }
    bk_free(buf);
    if (r != BK_OK) {
        bk_scene_diag(b->s, b->opt, BK_SEV_WARNING, r, NULL, "lightmaps", i, BK_NO_OFFSET,
                      "external lightmap %s cannot be decoded: %s", p1, bk_strerror(r));
        return false;
    }
    return true;
}

/* The added pages packed into one atlas, their places noted, the atlas as the scene's image; past
 * the largest atlas allowed, the scene keeps no lightmaps (a warning). */
static bk_result pack_pages(q3_builder *b, bk_atlas *a, const uint32_t *ids, uint32_t n, uint32_t added)
{
    const bk_q3_map *m = b->m;
    bk_result r = bk_atlas_pack(a);
    if (r == BK_ELIMIT) {
        /* too many pages for one atlas of the largest size allowed: keep the scene, drop the lightmaps */
        bk_scene_diag(b->s, b->opt, BK_SEV_WARNING, r, NULL, "lightmaps", BK_NO_INDEX, BK_NO_OFFSET,
                      "%u lightmap pages do not fit one atlas of the largest size allowed "
                      "(limits.max_atlas_size): the scene has no lightmaps", added);
        for (uint32_t i = 0; i < n; i++) b->pages[i].ok = false;
        return BK_OK;
    }
    if (r != BK_OK) return r;
    for (uint32_t i = 0; i < n; i++)
        if (b->pages[i].ok) bk_atlas_rect(a, ids[i], &b->pages[i].x, &b->pages[i].y);
    uint32_t W, H;
    bk_atlas_size(a, &W, &H);
    b->atlas_w = (float)W;
    b->atlas_h = (float)H;
    /* the pages are RGB in the file already: their atlas is kept as rows for the exporter's
     * faster deflate (beside the geometry), unless it outgrows the whole map */
    r = bk_atlas_to_scene_image(a, b->s, "lightmap_atlas", b->opt, b->f->size, &b->atlas_image);
    /* the pages are in the atlas now: a mapped input's lightmap pages can go */
    if (r == BK_OK && b->f->mapped && m->lightmap_count)
        bk_mapped_release(m->lightmaps, (size_t)m->lightmap_count * Q3_LIGHTMAP_BYTES);
    return r;
}

static bk_result build_lightmaps(q3_builder *b)
{
    const bk_q3_map *m = b->m;
    b->atlas_image = -1;
    uint32_t n = m->lightmap_count ? m->lightmap_count : m->external_lightmaps;
    if (n == 0 || (b->opt->flags & BK_OPT_NO_LIGHTMAPS)) return BK_OK;
    bk_ctx tmp;
    bk_ctx_init(&tmp, b->opt, false);
    bk_result r = BK_OK;
    b->pages = bk_alloc_array(&tmp, n, sizeof(page_rect), &r);
    if (!b->pages) return r;
    b->page_count = n;
    bk_atlas *a = bk_atlas_new(tmp.opt.limits.max_atlas_size, 1);
    uint32_t *ids = bk_calloc(n, sizeof *ids), *page_of_id = bk_calloc(n, sizeof *page_of_id);
    /* only pages some surface uses: deluxe maps (q3map2 -deluxe interleaves light direction pages
     * at odd numbers) and unused pages stay out of the atlas */
    uint8_t *used = bk_calloc(n, 1);
    uint8_t *px = NULL;
    if (!a || !ids || !page_of_id || !used) {
        r = BK_ENOMEM;
        goto done;
    }
    char mname[128];
    map_name(b->opt->name, mname, sizeof mname);
    for (uint32_t i = 0; i < m->surface_count; i++) {
        int32_t lm = m->surfaces[i].lightmap;
        if (lm >= 0 && (uint32_t)lm < n && m->surfaces[i].type != BK_Q3_MST_FLARE) used[lm] = 1;
    }
    float gain = bk_q3_gain(b);
    int ambient = b->ambient > 0 ? (int)(b->ambient * 255.0f + 0.5f) : 0;
    page_fill pf = {m, page_of_id, gain, ambient, b, mname};
    if (m->lightmap_count) {
        bk_atlas_set_fill(a, fill_page, &pf);
        bk_atlas_set_fill_rgb(a, fill_page_rgb);
    } else {
        /* one thread (the search paths are read), each page decoded once */
        bk_atlas_set_fill(a, fill_external, &pf);
        bk_atlas_set_fill_held(a, true);
    }
    uint32_t added = 0, missing_run = 0;
    for (uint32_t i = 0; i < n && r == BK_OK; i++) {
        if (!used[i]) continue;
        /* external pages: give up after a long run of missing files (a map without its lightmaps) */
        if (missing_run >= 16) break;
        uint32_t w = 128, h = 128;
        if (!m->lightmap_count) {
            bool missing;
            bool ok = external_page(b, mname, i, gain, ambient, &w, &h, &px, &missing);
            missing_run = missing ? missing_run + 1 : 0;
            if (!ok) continue;
        }
        /* internal pages (px NULL) are drawn by fill_page, external ones by fill_external */
        r = bk_atlas_add(a, w, h, px, &ids[i]);
        bk_free(px);
        px = NULL;
        if (r == BK_ELIMIT) {
            bk_scene_diag(b->s, b->opt, BK_SEV_WARNING, r, NULL, "lightmaps", i, BK_NO_OFFSET,
                          "lightmap page of %ux%u is larger than the atlas allows (limits.max_atlas_size): left out",
                          w, h);
            r = BK_OK;
            continue;
        }
        if (r == BK_OK) {
            page_of_id[ids[i]] = i;
            b->pages[i].ok = true;
            b->pages[i].w = w;
            b->pages[i].h = h;
            added++;
        }
    }
    if (r == BK_OK && added) r = pack_pages(b, a, ids, n, added);
done:
    bk_free(used);
    bk_free(ids);
    bk_free(page_of_id);
    bk_atlas_free(a);
    return r;
}

/* ---- materials ----------------------------------------------------------------------------- */

/* The lightmap brightness the game's engine shows, by the game its files come from: ioquake3
 * (OpenArena, Quake 3) windowed multiplies lightmaps by 4 (overbright 2, with a hue-keeping
 * clamp), DarkPlaces (Nexuiz, Xonotic) by 2. Told apart by the names of the search paths and the
 * map's own path; unknown games keep x2. */
static float default_overbright(const bk_options *opt, const char **engine)
{
    const char *ioq3[] = {"baseoa", "openarena", "/oa-", "oa-pak", "oa081", "oa088", "baseq3", "missionpack"};
    const char *dp[] = {"nexuiz", "xonotic", "/data/"};
    for (int pass = 0; pass < 2; pass++) {
        uint32_t n = opt->search_path_count + 1;
        for (uint32_t k = 0; k < n; k++) {
            const char *p = k < opt->search_path_count ? opt->search_paths[k] : (opt->name ? opt->name : "");
            char low[1024];
            size_t i = 0;
            for (; p[i] && i + 1 < sizeof low; i++) low[i] = (char)(p[i] >= 'A' && p[i] <= 'Z' ? p[i] + 32 : p[i]);
            low[i] = 0;
            const char **list = pass ? dp : ioq3;
            size_t cnt = pass ? sizeof dp / sizeof dp[0] : sizeof ioq3 / sizeof ioq3[0];
            for (size_t j = 0; j < cnt; j++)
                if (strstr(low, list[j])) {
                    *engine = pass ? "darkplaces" : "ioquake3";
                    return pass ? 1.0f : 2.0f;
                }
        }
    }
    *engine = NULL;
    return 1.0f;
}

/* ---- geometry ------------------------------------------------------------------------------ */

typedef struct vtx {
    float xyz[3], st[2], lm[2], n[3], c[4];
} vtx;

static void vtx_from(vtx *o, const bk_q3_vertex *v)
{
    memcpy(o->xyz, v->xyz, sizeof o->xyz);
    memcpy(o->st, v->st, sizeof o->st);
    memcpy(o->lm, v->lm, sizeof o->lm);
    memcpy(o->n, v->normal, sizeof o->n);
    for (int k = 0; k < 4; k++) o->c[k] = v->color[k] / 255.0f;
}

/* a colour component of 0-1 (exact for the file's bytes, rounded where a patch interpolates) */
static uint8_t unit_byte(float f)
{
    return (uint8_t)(f > 0 ? (f < 1 ? f * 255.0f + 0.5f : 255) : 0);
}

static void put_vertex(q3_builder *b, bk_primitive *p, uint32_t at, const vtx *v, const page_rect *pg)
{
    memcpy(p->position + (size_t)at * 3, v->xyz, 12);
    if (p->normal) {
        float l = sqrtf(v->n[0] * v->n[0] + v->n[1] * v->n[1] + v->n[2] * v->n[2]);
        for (int k = 0; k < 3; k++) p->normal[(size_t)at * 3 + k] = l > 1e-12f ? v->n[k] / l : (k == 2 ? 1.0f : 0.0f);
    }
    if (p->uv0) memcpy(p->uv0 + (size_t)at * 2, v->st, 8);
    if (p->uv1 && pg) {
        p->uv1[(size_t)at * 2] = ((float)pg->x + v->lm[0] * (float)pg->w) / b->atlas_w;
        p->uv1[(size_t)at * 2 + 1] = ((float)pg->y + v->lm[1] * (float)pg->h) / b->atlas_h;
    }
    if (p->color) {
        /* the engine shifts vertex colours like the lightmap (R_ColorShiftLightingBytes) */
        float gain = bk_q3_gain(b);
        if (gain > 1.0f) {
            uint8_t c[3];
            for (int k = 0; k < 3; k++) c[k] = (uint8_t)(v->c[k] * 255.0f + 0.5f);
            bk_q3_color_shift(c, gain);
            memcpy(p->color + (size_t)at * 4, c, 3);
            p->color[(size_t)at * 4 + 3] = unit_byte(v->c[3]);
        } else {
            for (int k = 0; k < 4; k++) p->color[(size_t)at * 4 + k] = unit_byte(v->c[k]);
        }
    }
}

static bk_result budget(q3_builder *b, uint64_t n)
{
    if (n > b->vert_budget) return BK_ELIMIT;
    b->vert_budget -= n;
    return BK_OK;
}

static void add_tri(bk_primitive *p, uint32_t a, uint32_t c1, uint32_t c2, bool flip, bk_result *r)
{
    if (*r != BK_OK) return;
    *r = flip ? bk_prim_add_triangle(p, a, c2, c1) : bk_prim_add_triangle(p, a, c1, c2);
}

static bk_result emit_mesh_surface(q3_builder *b, bk_primitive *p, const bk_q3_surface *s, const page_rect *pg)
{
    BK_TRY(budget(b, (uint64_t)s->num_verts));
    uint32_t first;
    BK_TRY(bk_prim_add_vertices(p, (uint32_t)s->num_verts, &first));
    for (int32_t i = 0; i < s->num_verts; i++) {
        vtx v;
        vtx_from(&v, &b->m->verts[s->first_vert + i]);
        put_vertex(b, p, first + (uint32_t)i, &v, pg);
    }
    bk_result r = BK_OK;
    for (int32_t i = 0; i + 2 < s->num_indexes; i += 3) {
        const int32_t *ix = b->m->indexes + s->first_index + i;
        add_tri(p, first + (uint32_t)ix[0], first + (uint32_t)ix[1], first + (uint32_t)ix[2], b->flip, &r);
    }
    return r;
}

/* Biquadratic bezier weights */
static void bez(float t, float w[3])
{
    float it = 1.0f - t;
    w[0] = it * it;
    w[1] = 2.0f * t * it;
    w[2] = t * t;
}

/* One grid per patch: (w-1)/2 x (h-1)/2 pieces, each cut into L x L cells. Grid lines shared by
 * two pieces are evaluated once, so pieces cannot crack apart. */
static bk_result emit_patch(q3_builder *b, bk_primitive *p, const bk_q3_surface *s, const page_rect *pg)
{
    const uint32_t L = (uint32_t)b->patch_level;
    const uint32_t pw = (uint32_t)(s->patch_w - 1) / 2, ph = (uint32_t)(s->patch_h - 1) / 2;
    const uint64_t gw = (uint64_t)pw * L + 1, gh = (uint64_t)ph * L + 1;
    if (gw > UINT32_MAX / 4 || gh > UINT32_MAX / 4) return BK_ELIMIT;
    uint64_t nv = gw * gh;
    BK_TRY(budget(b, nv));
    if (nv > UINT32_MAX / 2) return BK_ELIMIT;
    uint32_t first;
    BK_TRY(bk_prim_add_vertices(p, (uint32_t)nv, &first));
    const bk_q3_vertex *ctrl = b->m->verts + s->first_vert;
    const uint32_t cw = (uint32_t)s->patch_w;
    for (uint64_t gy = 0; gy < gh; gy++) {
        uint32_t py = (uint32_t)(gy / L);
        if (py >= ph) py = ph - 1;
        float wv[3];
        bez((float)(gy - (uint64_t)py * L) / (float)L, wv);
        for (uint64_t gx = 0; gx < gw; gx++) {
            uint32_t px = (uint32_t)(gx / L);
            if (px >= pw) px = pw - 1;
            float wu[3];
            bez((float)(gx - (uint64_t)px * L) / (float)L, wu);
            vtx o;
            memset(&o, 0, sizeof o);
            for (int j = 0; j < 3; j++)
                for (int i = 0; i < 3; i++) {
                    const bk_q3_vertex *c = &ctrl[(size_t)(2 * py + (uint32_t)j) * cw + 2 * px + (uint32_t)i];
                    float k = wu[i] * wv[j];
                    for (int a = 0; a < 3; a++) {
                        o.xyz[a] += k * c->xyz[a];
                        o.n[a] += k * c->normal[a];
                    }
                    for (int a = 0; a < 2; a++) {
                        o.st[a] += k * c->st[a];
                        o.lm[a] += k * c->lm[a];
                    }
                    for (int a = 0; a < 4; a++) o.c[a] += k * (c->color[a] / 255.0f);
                }
            for (int a = 0; a < 4; a++) o.c[a] = o.c[a] < 0 ? 0 : (o.c[a] > 1 ? 1 : o.c[a]);
            put_vertex(b, p, first + (uint32_t)(gy * gw + gx), &o, pg);
        }
    }
    /* winding: face the triangles the way the control points' normals point */
    double facing = 0;
    const float *P = p->position + (size_t)first * 3;
    const float *N = p->normal ? p->normal + (size_t)first * 3 : NULL;
    for (uint64_t y = 0; N && y + 1 < gh; y++)
        for (uint64_t x = 0; x + 1 < gw; x++) {
            size_t a = (size_t)(y * gw + x), c1 = a + 1, c2 = a + (size_t)gw;
            float e1[3], e2[3];
            for (int k = 0; k < 3; k++) {
                e1[k] = P[c1 * 3 + k] - P[a * 3 + k];
                e2[k] = P[c2 * 3 + k] - P[a * 3 + k];
            }
            float cr[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
            facing += (double)cr[0] * N[a * 3] + (double)cr[1] * N[a * 3 + 1] + (double)cr[2] * N[a * 3 + 2];
        }
    /* (a, a+1, a+gw) is counter-clockwise around cr; keep it when cr agrees with the normals */
    bool ccw = facing >= 0;
    bk_result r = BK_OK;
    for (uint64_t y = 0; y + 1 < gh && r == BK_OK; y++)
        for (uint64_t x = 0; x + 1 < gw; x++) {
            uint32_t a = first + (uint32_t)(y * gw + x), c1 = a + 1, c2 = a + (uint32_t)gw, c3 = c2 + 1;
            add_tri(p, a, c1, c2, !ccw, &r);
            add_tri(p, c1, c3, c2, !ccw, &r);
        }
    return r;
}

static bk_result emit_flare(q3_builder *b, bk_primitive *p, const bk_q3_surface *s)
{
    BK_TRY(budget(b, 1));
    uint32_t at;
    BK_TRY(bk_prim_add_vertices(p, 1, &at));
    memcpy(p->position + (size_t)at * 3, s->lm_origin, 12);
    if (p->color) {
        for (int k = 0; k < 3; k++) {
            float c = s->lm_vecs[0][k];
            p->color[(size_t)at * 4 + k] = unit_byte(c); /* NaN: 0 */
        }
        p->color[(size_t)at * 4 + 3] = 255;
    }
    return BK_OK;
}

/* Find or make the primitive of (material, mode) in mesh; slots caches prim index + 1. */
static bk_result get_prim(bk_scene *sc, int32_t mesh, int32_t mat, uint32_t mode, uint32_t attrs, uint32_t *slots,
                          bk_primitive **out)
{
    uint32_t *slot = &slots[(size_t)mat * 2 + (mode == BK_PRIM_POINTS)];
    bk_mesh *me = &sc->meshes[mesh];
    if (*slot) {
        *out = &me->prims[*slot - 1];
        return BK_OK;
    }
    BK_TRY(bk_mesh_add_primitive(me, mat, mode, attrs, out));
    *slot = me->prim_count;
    return BK_OK;
}

static bk_result build_model(q3_builder *b, uint32_t mi, int32_t *out_mesh)
{
    *out_mesh = -1;
    const bk_q3_map *m = b->m;
    const bk_q3_model *md = &m->models[mi];
    uint32_t *slots = NULL;
    uint32_t slot_n = 0;
    int32_t mesh = -1;
    bk_result r = BK_OK;
    for (int32_t k = 0; k < md->num_surfaces && r == BK_OK; k++) {
        const bk_q3_surface *s = &m->surfaces[md->first_surface + k];
        if (s->type == BK_Q3_MST_FLARE && (b->opt->flags & BK_OPT_SKIP_FLARES)) continue;
        if (s->type == BK_Q3_MST_FOLIAGE) {
            bk_scene_diag(b->s, b->opt, BK_SEV_WARNING, BK_EUNSUPPORTED, NULL, "surfaces", md->first_surface + k,
                          BK_NO_OFFSET, "foliage surface (Wolfenstein: ET) left out: its instances are not placed");
            continue;
        }
        if (s->type != BK_Q3_MST_FLARE && (s->num_verts == 0 || (s->type != BK_Q3_MST_PATCH && s->num_indexes < 3)))
            continue;
        /* nodraw, sky (drawn as the skybox) and shaders with nothing to draw */
        if (s->type != BK_Q3_MST_FLARE && bk_q3_shader_hidden(b, s->shader)) {
            b->nodraw_patches += s->type == BK_Q3_MST_PATCH && (m->shaders[s->shader].surface_flags & 0x80);
            continue;
        }
        const page_rect *pg = NULL;
        if (s->type != BK_Q3_MST_FLARE && b->atlas_image >= 0 && s->lightmap >= 0 &&
            (uint32_t)s->lightmap < b->page_count && b->pages[s->lightmap].ok)
            pg = &b->pages[s->lightmap];
        /* kind: 0 vertex-lit, 1 lightmapped, 2 flare, 3 lightmapped without a page (no atlas) */
        int kind = s->type == BK_Q3_MST_FLARE ? 2 : (pg ? 1 : (s->lightmap >= 0 ? 3 : 0));
        int32_t mat;
        r = bk_q3_get_material(b, s->shader, kind, &mat);
        if (r != BK_OK) break;
        if (mesh < 0) {
            char name[64];
            snprintf(name, sizeof name, mi == 0 ? "world" : "*%u", mi);
            r = bk_scene_add_mesh(b->s, name, &mesh);
            if (r != BK_OK) break;
        }
        if ((uint32_t)mat * 2 + 2 > slot_n) {
            uint32_t nn = b->s->material_count * 2 + 16;
            uint32_t *ns = bk_realloc(slots, (size_t)nn * sizeof *ns);
            if (!ns) {
                r = BK_ENOMEM;
                break;
            }
            memset(ns + slot_n, 0, (size_t)(nn - slot_n) * sizeof *ns);
            slots = ns;
            slot_n = nn;
        }
        bk_primitive *p;
        if (s->type == BK_Q3_MST_FLARE) {
            r = get_prim(b->s, mesh, mat, BK_PRIM_POINTS, BK_ATTR_COLOR, slots, &p);
            if (r == BK_OK) r = emit_flare(b, p, s);
            continue;
        }
        uint32_t attrs = BK_ATTR_NORMAL | BK_ATTR_UV0 | BK_ATTR_COLOR | (pg ? BK_ATTR_UV1 : 0);
        r = get_prim(b->s, mesh, mat, BK_PRIM_TRIANGLES, attrs, slots, &p);
        if (r != BK_OK) break;
        if (s->type == BK_Q3_MST_PATCH) r = emit_patch(b, p, s, pg);
        else r = emit_mesh_surface(b, p, s, pg);
    }
    bk_free(slots);
    *out_mesh = mesh;
    return r;
}

/* ---- nodes --------------------------------------------------------------------------------- */

/* ---- movers at their start positions ------------------------------------------------------ */

static bool key_vec(const bk_entity *e, const char *key, float v[3]) { return bk_parse_vec3(bk_entity_get(e, key), v); }

static bool key_float(const bk_entity *e, const char *key, float *v)
{
    return bk_parse_floats(bk_entity_get(e, key), v, 1) == 1;
}

/* G_SetMovedir / SetMovedir: angle -1 up, -2 down, else the angles' forward vector (DarkPlaces'
 * games also take a "movedir" key) */
static void set_movedir(const q3_builder *b, const bk_entity *e, float d[3])
{
    float ang[3] = {0, 0, 0}, yaw;
    if (b->darkplaces && key_vec(e, "movedir", d) && (d[0] != 0 || d[1] != 0 || d[2] != 0)) {
        float l = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        for (int k = 0; k < 3; k++) d[k] /= l;
        return;
    }
    /* "angle" and "angles" both set the angles; the later key wins, as the spawn code reads them */
    for (uint32_t i = 0; i < e->pair_count; i++) {
        const char *k = e->pairs[i].key;
        if (strcmp(k, "angle") == 0 && bk_parse_floats(e->pairs[i].value, &yaw, 1) == 1) {
            ang[0] = 0, ang[1] = yaw, ang[2] = 0;
        } else if (strcmp(k, "angles") == 0) {
            bk_parse_vec3(e->pairs[i].value, ang);
        }
    }
    if (ang[0] == 0 && ang[1] == -1 && ang[2] == 0) {
        d[0] = 0, d[1] = 0, d[2] = 1;
    } else if (ang[0] == 0 && ang[1] == -2 && ang[2] == 0) {
        d[0] = 0, d[1] = 0, d[2] = -1;
    } else {
        const float r = 3.14159265358979f / 180.0f;
        float p = ang[0] * r, y = ang[1] * r;
        d[0] = cosf(p) * cosf(y);
        d[1] = cosf(p) * sinf(y);
        d[2] = -sinf(p);
    }
}

/* Where the game puts a brush entity when the map starts (engine coordinates, the offset from its
 * model as stored): the "origin" key (models built with an origin brush are stored around it),
 * then doors that start open moved to their open position (size along the move direction less
 * the lip), plats lowered, trains at their first path_corner. *what says which, or NULL. */
static void start_position(const q3_builder *b, const bk_entity *e, const bk_q3_model *md, float t[3],
                           const char **what)
{
    const bk_entities *ents = &b->f->entities;
    *what = NULL;
    t[0] = t[1] = t[2] = 0;
    float o[3];
    if (key_vec(e, "origin", o)) memcpy(t, o, sizeof o);
    const char *cn = bk_entity_get(e, "classname");
    if (!cn) return;
    float size[3];
    for (int k = 0; k < 3; k++) size[k] = md->maxs[k] - md->mins[k];
    if (!bk_finite3(size)) return;
    const char *sf = bk_entity_get(e, "spawnflags");
    long flags = sf ? strtol(sf, NULL, 10) : 0;
    if (strcmp(cn, "func_door") == 0 && (flags & 1)) {
        float d[3], lip = 8;
        set_movedir(b, e, d);
        key_float(e, "lip", &lip);
        if (b->darkplaces && lip == 0) lip = 8;   /* Nexuiz: "if (!self.lip) self.lip = 8" */
        float dist;
        if (b->darkplaces) {
            /* fabs(movedir * size) */
            dist = fabsf(d[0] * size[0] + d[1] * size[1] + d[2] * size[2]) - lip;
        } else {
            /* DotProduct(abs_movedir, size) */
            dist = fabsf(d[0]) * size[0] + fabsf(d[1]) * size[1] + fabsf(d[2]) * size[2] - lip;
        }
        for (int k = 0; k < 3; k++) t[k] += d[k] * dist;
        *what = "door starts open";
    } else if (strcmp(cn, "func_plat") == 0) {
        float h, lip = 8;
        if (b->darkplaces) {
            /* lowered by size_z - 8 unless something triggers it */
            if (bk_entity_get(e, "targetname")) return;
            h = size[2] - 8;
        } else {
            key_float(e, "lip", &lip);
            if (!key_float(e, "height", &h)) h = size[2] - lip;
        }
        t[2] -= h;
        *what = "plat starts lowered";
    } else if (strcmp(cn, "func_train") == 0) {
        const char *tg = bk_entity_get(e, "target");
        for (uint32_t i = 0; tg && i < ents->count; i++) {
            const char *tn = bk_entity_get(&ents->items[i], "targetname");
            float c[3];
            if (!tn || strcmp(tn, tg) != 0 || !key_vec(&ents->items[i], "origin", c)) continue;
            /* ioquake3: the train's origin on the corner; DarkPlaces' games: its mins on it */
            for (int k = 0; k < 3; k++) t[k] = b->darkplaces ? c[k] - md->mins[k] : c[k];
            *what = "train at its first corner";
            break;
        }
    }
}

/* the shared entity-node builder asks where each brush entity starts */
static const char *mover_start(void *user, const bk_entity *e, uint32_t model, float t[3])
{
    const q3_builder *b = user;
    const char *what = NULL;
    float o[3];
    start_position(b, e, &b->m->models[model], o, &what);
    if (bk_finite3(o)) memcpy(t, o, sizeof o);
    return what;
}

/* ---- the game's own settings ---------------------------------------------------------------- */

/* Read cvar assignments from a DarkPlaces game's configs (default.cfg and what it execs): the last
 * "[set|seta] v_gamma X" and "[set|seta] r_ambient X" win. */
static void read_game_cfg(q3_builder *b, const char *name, int depth)
{
    uint8_t *buf = NULL;
    size_t n = 0;
    if (depth > 3 || bk_vfs_read(b->vfs, name, 1u << 20, &buf, &n) != BK_OK) return;
    char line[512];
    size_t i = 0;
    while (i < n) {
        size_t k = 0;
        while (i < n && buf[i] != '\n' && buf[i] != ';') {
            if (k + 1 < sizeof line) line[k++] = (char)buf[i];
            i++;
        }
        i++;
        line[k] = 0;
        char w[3][128] = {{0}};
        int nw = sscanf(line, " %127s %127s %127s", w[0], w[1], w[2]);
        if (nw < 2 || strncmp(w[0], "//", 2) == 0) continue;
        int at = (bk_strcasecmp(w[0], "set") == 0 || bk_strcasecmp(w[0], "seta") == 0) ? 1 : 0;
        if (at == 1 && nw < 3) continue;
        const char *key = w[at], *val = w[at + 1];
        if (bk_strcasecmp(key, "exec") == 0 && at == 0) {
            read_game_cfg(b, val, depth + 1);
            continue;
        }
        float v;
        if (bk_parse_floats(val[0] == '"' ? val + 1 : val, &v, 1) != 1) continue;
        if (bk_strcasecmp(key, "v_gamma") == 0 && v > 0.1f && v < 10) b->display_gamma = v;
        else if (bk_strcasecmp(key, "r_ambient") == 0 && v >= 0 && v <= 128) b->ambient = v / 64.0f;
    }
    bk_free(buf);
}

/* Which winding do the file's planar triangles use relative to their normals? Counted over the
 * map, so odd surfaces cannot decide it. */
static bool planar_is_clockwise(const bk_q3_map *m)
{
    long votes = 0;
    for (uint32_t i = 0; i < m->surface_count; i++) {
        const bk_q3_surface *s = &m->surfaces[i];
        if (s->type != BK_Q3_MST_PLANAR || s->num_indexes < 3 || s->num_verts < 3) continue;
        const int32_t *ix = m->indexes + s->first_index;
        const bk_q3_vertex *v0 = &m->verts[s->first_vert + ix[0]], *v1 = &m->verts[s->first_vert + ix[1]],
                           *v2 = &m->verts[s->first_vert + ix[2]];
        float e1[3], e2[3];
        for (int k = 0; k < 3; k++) {
            e1[k] = v1->xyz[k] - v0->xyz[k];
            e2[k] = v2->xyz[k] - v0->xyz[k];
        }
        float cr[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
        float d = cr[0] * v0->normal[0] + cr[1] * v0->normal[1] + cr[2] * v0->normal[2];
        if (d > 0) votes++;
        else if (d < 0) votes--;
        if (labs(votes) > 64) break;
    }
    return votes < 0;
}

bk_result bk_q3_build_scene(const bk_file *f, const bk_options *opt, bk_scene *s)
{
    const bk_q3_map *m = f->impl;
    if (!m || m->model_count == 0) return BK_EFORMAT;
    q3_builder b;
    memset(&b, 0, sizeof b);
    b.f = f;
    b.m = m;
    b.opt = opt;
    b.s = s;
    /* default 4 cuts per piece edge: about the engine's look (r_subdivisions 4 keeps the chord error
     * near 4 units on typical arches) at a third of level 8's triangles */
    const bk_q3_options *q3o = (const bk_q3_options *)bk_options_find(opt, BK_OPTIONS_Q3);
    int32_t level = q3o ? q3o->patch_level : 0;
    b.patch_level = level > 0 ? (level > 64 ? 64 : level) : 4;
    float game_default = default_overbright(opt, &b.engine);
    b.darkplaces = b.engine && strcmp(b.engine, "darkplaces") == 0;
    b.overbright = opt->overbright == 0 ? game_default : (opt->overbright < 0 ? 0.0f : opt->overbright);
    if (b.overbright > 8) b.overbright = 8;
    b.gain = b.overbright > 0 ? powf(2.0f, b.overbright) : 1.0f;
    bk_ctx tmp;
    bk_ctx_init(&tmp, opt, false);
    /* every output vertex costs ~56 bytes of attributes plus its share of indices: bound the
     * whole scene by the single-allocation limit, so a hostile patch cannot ask for gigabytes */
    b.vert_budget = tmp.opt.limits.max_elements;
    if (b.vert_budget > tmp.opt.limits.max_scene_vertices) b.vert_budget = tmp.opt.limits.max_scene_vertices;
    b.flip = planar_is_clockwise(m);
    bk_result r = BK_OK;
    bool need_vfs = !(opt->flags & BK_OPT_NO_TEXTURES) ||
                    (m->external_lightmaps && !(opt->flags & BK_OPT_NO_LIGHTMAPS));
    if (need_vfs) {
        b.vfs = bk_vfs_new_game(opt);
        if (!b.vfs) return BK_ENOMEM;
    }
    b.lib.last_file_wins = !b.darkplaces;
    if (!(opt->flags & BK_OPT_NO_TEXTURES)) r = bk_q3_shaders_load(b.vfs, &b.lib);
    /* DarkPlaces games: the light their configs add to lightmaps, and their display gamma */
    if (r == BK_OK && b.darkplaces && b.vfs && !(opt->flags & BK_OPT_NO_TEXTURES)) read_game_cfg(&b, "default.cfg", 0);
    if (r == BK_OK) r = build_lightmaps(&b);
    /* a conversion's atlas PNG is deflated on the second core while the geometry is built and
     * written (the exporter takes it from there; it waited on the deflate before) */
    if (r == BK_OK && b.atlas_image >= 0 && (opt->flags & BK_OPT_RELEASE_INPUT)) bk_png_bg_start(s, b.atlas_image);
    int32_t *meshes = NULL;
    if (r == BK_OK) {
        b.mat = bk_alloc_array(&tmp, (size_t)m->shader_count * 4 + 1, sizeof(int32_t), &r);
        if (b.mat) b.defs = bk_alloc_array(&tmp, (size_t)m->shader_count + 1, sizeof(*b.defs), &r);
        meshes = bk_alloc_array(&tmp, m->model_count, sizeof(int32_t), &r);
    }
    if (r == BK_OK && b.mat && b.defs && meshes) {
        for (size_t i = 0; i < (size_t)m->shader_count * 4; i++) b.mat[i] = -1;
        for (uint32_t i = 0; i < m->shader_count; i++) b.defs[i] = bk_q3_shaders_find(&b.lib, m->shaders[i].name);
        for (uint32_t i = 0; i < m->model_count && r == BK_OK; i++) r = build_model(&b, i, &meshes[i]);
        if (r == BK_OK) {
            bk_entity_layout lay = {meshes, m->model_count, 0, mover_start, &b};
            r = bk_scene_add_entity_nodes(b.s, &f->entities, opt, &lay);
        }
        if (r == BK_OK) r = bk_q3_build_sky(&b);
        if (r == BK_OK && b.nodraw_patches)
            bk_scene_diag(s, opt, BK_SEV_INFO, BK_OK, NULL, "surfaces", BK_NO_INDEX, BK_NO_OFFSET,
                          "%u patches left out: flagged nodraw in the map's shaders (q3map2 -patchmeta keeps "
                          "them for collision; the drawn copy is stored as triangles)",
                          b.nodraw_patches);
    }
    if (r == BK_OK && b.display_gamma > 0 && fabsf(b.display_gamma - 1.0f) > 1e-3f) {
        char g[32];
        bk_fmt_num(g, sizeof g, b.display_gamma, 6);
        r = bk_kv_append(&s->extras, &s->extra_count, "displayGamma", g);
    }
    char mname[128];
    map_name(opt->name, mname, sizeof mname);
    if (r == BK_OK && mname[0]) {
        s->name = bk_strdup(mname);
        if (!s->name) r = BK_ENOMEM;
    }
    bk_free(meshes);
    bk_free(b.mat);
    bk_free(b.defs);
    bk_q3_imgs_free(&b);
    bk_free(b.pages);
    bk_q3_shaders_free(&b.lib);
    bk_vfs_free(b.vfs);
    return r;
}
