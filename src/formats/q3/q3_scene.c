/* Quake 3 map -> bk_scene: one mesh per model (world, *1, *2, ...), one primitive per material;
 * planar and triangle-soup surfaces from their vertices and indices, bezier patches tessellated
 * into one grid per patch, flares as points; lightmap pages (from the lump or external
 * lm_NNNN.tga files) packed into one atlas with the lightmap UVs remapped; shader names resolved
 * to images through shader scripts and the search paths. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <sys/stat.h>

#include "q3_internal.h"

typedef struct page_rect {
    bool ok;
    uint32_t x, y, w, h;
} page_rect;

typedef struct q3_builder {
    const bk_file *f;
    const bk_q3_map *m;
    const bk_options *opt;
    bk_scene *s;
    bk_vfs *vfs;
    q3_shader_lib lib;
    int32_t patch_level;
    float overbright;          /* bits; <= 0: none */
    const char *engine;        /* the engine whose brightness the default follows, or NULL */
    /* lightmaps */
    page_rect *pages;
    uint32_t page_count;
    int32_t atlas_image;
    float atlas_w, atlas_h;
    /* materials: [shader * 3 + kind] -> scene material, -1 until made */
    int32_t *mat;
    /* images by name (textures shared between shaders) */
    char **img_names;
    int32_t *img_index;
    uint32_t img_count, img_cap, img_idx_cap;
    uint64_t vert_budget;       /* vertices left before the element limit */
    bool flip;                  /* reverse the file's winding to glTF's counter-clockwise */
} q3_builder;

/* ---- helpers ------------------------------------------------------------------------------- */

static void warn(q3_builder *b) { b->s->warning_count++; }

/* R_ColorShiftLightingBytes: scale by 2^shift, and if a channel overflows scale all three
 * down together so the hue is kept. */
static void color_shift(uint8_t *rgb, float k)
{
    if (k <= 1.0f) return;
    float r = rgb[0] * k, g = rgb[1] * k, bl = rgb[2] * k;
    float mx = r > g ? r : g;
    if (bl > mx) mx = bl;
    if (mx > 255.0f) {
        float sc = 255.0f / mx;
        r *= sc;
        g *= sc;
        bl *= sc;
    }
    rgb[0] = (uint8_t)(r + 0.5f > 255 ? 255 : r + 0.5f);
    rgb[1] = (uint8_t)(g + 0.5f > 255 ? 255 : g + 0.5f);
    rgb[2] = (uint8_t)(bl + 0.5f > 255 ? 255 : bl + 0.5f);
}

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
    if (!a) return BK_ENOMEM;
    uint32_t *ids = calloc(n, sizeof *ids);
    uint8_t *px = NULL;
    if (!ids) {
        bk_atlas_free(a);
        return BK_ENOMEM;
    }
    char mname[128];
    map_name(b->opt->name, mname, sizeof mname);
    /* only pages some surface uses: deluxe maps (q3map2 -deluxe interleaves light direction pages
     * at odd numbers) and unused pages stay out of the atlas */
    uint8_t *used = calloc(n, 1);
    if (!used) {
        free(ids);
        bk_atlas_free(a);
        return BK_ENOMEM;
    }
    for (uint32_t i = 0; i < m->surface_count; i++) {
        int32_t lm = m->surfaces[i].lightmap;
        if (lm >= 0 && (uint32_t)lm < n && m->surfaces[i].type != BK_Q3_MST_FLARE) used[lm] = 1;
    }
    uint32_t added = 0, missing_run = 0;
    for (uint32_t i = 0; i < n && r == BK_OK; i++) {
        if (!used[i]) continue;
        /* external pages: give up after a long run of missing files (a map without its lightmaps) */
        if (missing_run >= 16) break;
        uint32_t w = 128, h = 128;
        if (m->lightmap_count) {
            px = malloc(128 * 128 * 4);
            if (!px) {
                r = BK_ENOMEM;
                break;
            }
            const uint8_t *src = m->lightmaps + (size_t)i * Q3_LIGHTMAP_BYTES;
            for (size_t k = 0; k < 128 * 128; k++) {
                memcpy(px + k * 4, src + k * 3, 3);
                px[k * 4 + 3] = 255;
            }
        } else {
            /* external: maps/NAME/lm_NNNN.tga in the search paths, or NAME/lm_NNNN.tga beside the map */
            char p1[300], p2[300];
            snprintf(p1, sizeof p1, "maps/%s/lm_%04u.tga", mname, i);
            snprintf(p2, sizeof p2, "%s/lm_%04u.tga", mname, i);
            uint8_t *buf = NULL;
            size_t sz = 0;
            if (!b->vfs || !mname[0] ||
                (bk_vfs_read(b->vfs, p1, 64u << 20, &buf, &sz) != BK_OK &&
                 bk_vfs_read(b->vfs, p2, 64u << 20, &buf, &sz) != BK_OK)) {
                warn(b);
                missing_run++;
                continue;
            }
            missing_run = 0;
            r = bk_image_decode(buf, sz, 4096, &px, &w, &h);
            free(buf);
            if (r != BK_OK) {
                r = BK_OK;
                warn(b);
                continue;
            }
        }
        float gain = b->overbright > 0 ? powf(2.0f, b->overbright) : 1.0f;
        for (size_t k = 0; k < (size_t)w * h; k++) color_shift(px + k * 4, gain);
        r = bk_atlas_add(a, w, h, px, &ids[i]);
        free(px);
        px = NULL;
        if (r == BK_ELIMIT) {
            r = BK_OK;
            warn(b);
            continue;
        }
        if (r == BK_OK) {
            b->pages[i].ok = true;
            b->pages[i].w = w;
            b->pages[i].h = h;
            added++;
        }
    }
    if (r == BK_OK && added) {
        r = bk_atlas_pack(a);
        if (r == BK_ELIMIT) {
            /* too many pages for one 8192 atlas: keep the scene, drop the lightmaps */
            warn(b);
            for (uint32_t i = 0; i < n; i++) b->pages[i].ok = false;
            r = BK_OK;
        } else if (r == BK_OK) {
            for (uint32_t i = 0; i < n; i++)
                if (b->pages[i].ok) bk_atlas_rect(a, ids[i], &b->pages[i].x, &b->pages[i].y);
            uint32_t W, H;
            bk_atlas_size(a, &W, &H);
            b->atlas_w = (float)W;
            b->atlas_h = (float)H;
            r = bk_atlas_to_image(a, b->s, "lightmap_atlas", &b->atlas_image);
        }
    }
    free(used);
    free(ids);
    bk_atlas_free(a);
    return r;
}

/* ---- materials ----------------------------------------------------------------------------- */

static bk_result get_image(q3_builder *b, const char *name, int32_t *out)
{
    *out = -1;
    for (uint32_t i = 0; i < b->img_count; i++)
        if (bk_strcasecmp(b->img_names[i], name) == 0) {
            *out = b->img_index[i];
            return BK_OK;
        }
    uint8_t *rgba = NULL;
    uint32_t w = 0, h = 0;
    int32_t idx = -1;
    if (bk_q3_load_image(b->vfs, name, bk_limits_of(b->opt).max_texture_dim, &rgba, &w, &h) == BK_OK) {
        bk_result r = bk_scene_add_image(b->s, name, w, h, rgba, &idx);
        if (r != BK_OK) {
            free(rgba);
            return r;
        }
    }
    uint32_t c2 = b->img_idx_cap;
    BK_TRY(bk_grow((void **)&b->img_names, &b->img_cap, b->img_count + 1, sizeof(char *)));
    BK_TRY(bk_grow((void **)&b->img_index, &c2, b->img_count + 1, sizeof(int32_t)));
    b->img_idx_cap = c2;
    b->img_names[b->img_count] = bk_strdup(name);
    if (!b->img_names[b->img_count]) return BK_ENOMEM;
    b->img_index[b->img_count++] = idx;
    *out = idx;
    return BK_OK;
}

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

/* kind: 0 vertex-lit / no lightmap, 1 lightmapped, 2 flare (points: colour only, no texture) */
static bk_result get_material(q3_builder *b, int32_t shader, int kind, int32_t *out)
{
    size_t slot = (size_t)shader * 3 + (size_t)kind;
    bool lit = kind == 1;
    if (b->mat[slot] >= 0) {
        *out = b->mat[slot];
        return BK_OK;
    }
    const bk_q3_shader *sh = &b->m->shaders[shader];
    int32_t mi;
    BK_TRY(bk_scene_add_material(b->s, sh->name, &mi));
    bk_material *mat = &b->s->materials[mi];
    BK_TRY(bk_kv_append(&mat->extras, &mat->extra_count, "shader", sh->name));
    char num[32];
    snprintf(num, sizeof num, "0x%x", (unsigned)sh->surface_flags);
    BK_TRY(bk_kv_append(&mat->extras, &mat->extra_count, "surfaceFlags", num));
    snprintf(num, sizeof num, "0x%x", (unsigned)sh->content_flags);
    BK_TRY(bk_kv_append(&mat->extras, &mat->extra_count, "contentFlags", num));
    if (lit) {
        mat->lightmap_image = b->atlas_image;
        /* what the atlas already holds: the engine's lightmap gain, baked in (a viewer multiplies by 1) */
        bk_fmt_num(num, sizeof num, b->overbright > 0 ? powf(2.0f, b->overbright) : 1.0f, 6);
        BK_TRY(bk_kv_append(&mat->extras, &mat->extra_count, "lightmapGainBaked", num));
        if (b->engine) BK_TRY(bk_kv_append(&mat->extras, &mat->extra_count, "engine", b->engine));
    }
    const q3_shader_def *def = bk_q3_shaders_find(&b->lib, sh->name);
    if (def) {
        mat->double_sided = def->two_sided;
        mat->unlit = def->unlit;
        if (def->alpha_test) mat->alpha_mode = BK_ALPHA_MASK;
        else if (def->blend || def->additive) mat->alpha_mode = BK_ALPHA_BLEND;
        if (def->additive) BK_TRY(bk_kv_append(&mat->extras, &mat->extra_count, "blend", "add"));
        if (def->sky) BK_TRY(bk_kv_append(&mat->extras, &mat->extra_count, "sky", "true"));
        /* a shader with stages but no $lightmap stage is not lightmapped by the engine */
        if (lit && def->stages && !def->lightmap_stage && !def->sky) {
            mat->lightmap_image = -1;
            BK_TRY(bk_kv_append(&mat->extras, &mat->extra_count, "lightmap", "none in the shader"));
        }
    }
    if (kind == 2) {
        mat->unlit = 1;
        BK_TRY(bk_kv_append(&mat->extras, &mat->extra_count, "flare", "true"));
    } else if (!(b->opt->flags & BK_OPT_NO_TEXTURES)) {
        int32_t img = -1;
        if (def && def->image) BK_TRY(get_image(b, def->image, &img));
        if (img < 0) BK_TRY(get_image(b, sh->name, &img));
        mat = &b->s->materials[mi];
        if (img >= 0) {
            mat->base_image = img;
            if (mat->alpha_mode != BK_ALPHA_OPAQUE && !b->s->images[img].has_alpha && !(def && def->additive))
                mat->alpha_mode = BK_ALPHA_OPAQUE;
        } else {
            /* placeholder: a mid grey so the surface still reads, the name kept */
            mat->base_color[0] = mat->base_color[1] = mat->base_color[2] = 0.5f;
            BK_TRY(bk_kv_append(&mat->extras, &mat->extra_count, "missing", "true"));
            warn(b);
        }
    }
    b->mat[slot] = mi;
    *out = mi;
    return BK_OK;
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
    if (p->color) memcpy(p->color + (size_t)at * 4, v->c, 16);
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
            p->color[(size_t)at * 4 + k] = c > 0 && c <= 1 ? c : (c > 1 ? 1.0f : 0.0f);
        }
        p->color[(size_t)at * 4 + 3] = 1.0f;
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
            warn(b); /* ET foliage instances are not placed */
            continue;
        }
        if (s->type != BK_Q3_MST_FLARE && (s->num_verts == 0 || (s->type != BK_Q3_MST_PATCH && s->num_indexes < 3)))
            continue;
        const page_rect *pg = NULL;
        if (s->type != BK_Q3_MST_FLARE && b->atlas_image >= 0 && s->lightmap >= 0 &&
            (uint32_t)s->lightmap < b->page_count && b->pages[s->lightmap].ok)
            pg = &b->pages[s->lightmap];
        int32_t mat;
        r = get_material(b, s->shader, s->type == BK_Q3_MST_FLARE ? 2 : (pg != NULL), &mat);
        if (r != BK_OK) break;
        if (mesh < 0) {
            char name[64];
            snprintf(name, sizeof name, mi == 0 ? "world" : "*%u", mi);
            r = bk_scene_add_mesh(b->s, name, &mesh);
            if (r != BK_OK) break;
        }
        if ((uint32_t)mat * 2 + 2 > slot_n) {
            uint32_t nn = b->s->material_count * 2 + 16;
            uint32_t *ns = realloc(slots, (size_t)nn * sizeof *ns);
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
    free(slots);
    *out_mesh = mesh;
    return r;
}

/* ---- nodes --------------------------------------------------------------------------------- */

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
    b.patch_level = opt->patch_level > 0 ? (opt->patch_level > 64 ? 64 : opt->patch_level) : 4;
    float game_default = default_overbright(opt, &b.engine);
    b.overbright = opt->overbright == 0 ? game_default : (opt->overbright < 0 ? 0.0f : opt->overbright);
    if (b.overbright > 8) b.overbright = 8;
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
    if (!(opt->flags & BK_OPT_NO_TEXTURES)) r = bk_q3_shaders_load(b.vfs, &b.lib);
    if (r == BK_OK) r = build_lightmaps(&b);
    int32_t *meshes = NULL;
    if (r == BK_OK) {
        b.mat = bk_alloc_array(&tmp, (size_t)m->shader_count * 3 + 1, sizeof(int32_t), &r);
        meshes = bk_alloc_array(&tmp, m->model_count, sizeof(int32_t), &r);
    }
    if (r == BK_OK && b.mat && meshes) {
        for (size_t i = 0; i < (size_t)m->shader_count * 3; i++) b.mat[i] = -1;
        for (uint32_t i = 0; i < m->model_count && r == BK_OK; i++) r = build_model(&b, i, &meshes[i]);
        if (r == BK_OK) {
            bk_entity_layout lay = {meshes, m->model_count, 0};
            r = bk_scene_add_entity_nodes(b.s, &f->entities, opt, &lay);
        }
    }
    char mname[128];
    map_name(opt->name, mname, sizeof mname);
    if (r == BK_OK && mname[0]) {
        s->name = bk_strdup(mname);
        if (!s->name) r = BK_ENOMEM;
    }
    free(meshes);
    free(b.mat);
    for (uint32_t i = 0; i < b.img_count; i++) free(b.img_names[i]);
    free(b.img_names);
    free(b.img_index);
    free(b.pages);
    bk_q3_shaders_free(&b.lib);
    bk_vfs_free(b.vfs);
    return r;
}
