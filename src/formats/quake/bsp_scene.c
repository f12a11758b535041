/* Quake 1 / GoldSrc scene builder: a decoded bk_quake_bsp (bsp.c) becomes a format-neutral
 * scene: one mesh per brush model, materials from the map's own textures or its WADs (the
 * worldspawn "wad" key, followed through the search paths), the lightmap atlas, entity nodes. */
#include <math.h>
#include <stdio.h>

#include "quake_internal.h"
#include "../../scene/scene_build.h"

typedef struct wad_src {
    char *name;
    uint8_t *data;
    size_t size;
    bk_wad3 dir;
} wad_src;

typedef struct builder {
    const bk_file *f;
    const bk_quake_bsp *q;
    const bk_options *opt;
    bk_scene *s;
    bool gold;
    bool lit;                      /* the map has lightmaps and they are wanted */
    wad_src *wads;
    uint32_t wad_count, wad_cap;
    bool wads_loaded;
    uint64_t pixel_budget;         /* RGBA bytes textures may still decode to */
    int32_t *mat_of;               /* 2 per miptex slot (+2 for "no texture"): [lit] */
    int32_t lightmap_image;
    float lightmap_scale;          /* > 1: Quake's light range (the atlas as the engine keeps it, x this) */
    bool sky_said;                 /* GoldSrc: the sky box's images looked for (gold_sky) */
    uint8_t *mat_styles;           /* styled maps: 32 bytes a material, a bit per style its faces carry */
    uint32_t mat_styles_cap;       /* materials they have room for */
} builder;

static bool has_ext(const char *p, const char *ext)
{
    size_t n = strlen(p), e = strlen(ext);
    return n >= e && bk_strcasecmp(p + n - e, ext) == 0;
}

static void add_wad(builder *B, const char *name, uint8_t *data, size_t size)
{
    bk_wad3 dir;
    if (bk_wad3_parse(data, size, NULL, &dir) != BK_OK ||
        bk_grow((void **)&B->wads, &B->wad_cap, B->wad_count + 1, sizeof(wad_src)) != BK_OK) {
        bk_free(data);
        bk_scene_diag(B->s, B->opt, BK_SEV_WARNING, BK_EFORMAT, name, NULL, BK_NO_INDEX, BK_NO_OFFSET,
                      "not a usable WAD file: its textures are not looked up");
        return;
    }
    wad_src *w = &B->wads[B->wad_count++];
    w->name = bk_strdup(name);
    w->data = data;
    w->size = size;
    w->dir = dir;
}

static bool wad_known(const builder *B, const char *name)
{
    for (uint32_t i = 0; i < B->wad_count; i++)
        if (B->wads[i].name && bk_strcasecmp(B->wads[i].name, name) == 0) return true;
    return false;
}

/* --wad files first (the user's choice), then the worldspawn "wad" list found via the search paths */
static void load_wads(builder *B)
{
    if (B->wads_loaded) return;
    B->wads_loaded = true;
    const bk_options *o = B->opt;
    uint64_t maxb = bk_limits_of(o).max_file_bytes;
    for (uint32_t i = 0; i < o->search_path_count; i++) {
        const char *p = o->search_paths[i];
        if (!p || !has_ext(p, ".wad")) continue;
        const char *bn = strrchr(p, '/');
        bn = bn ? bn + 1 : p;
        if (wad_known(B, bn)) continue;
        uint8_t *data;
        size_t size;
        bk_result rr = bk_read_file_opt(o, p, maxb, &data, &size);
        if (rr == BK_OK) add_wad(B, bn, data, size);
        else bk_scene_diag(B->s, o, BK_SEV_WARNING, rr, p, NULL, BK_NO_INDEX, BK_NO_OFFSET, "WAD not read: %s", bk_strerror(rr));
    }
    if (!B->f->entities.count) return;
    const char *list = bk_entity_get(&B->f->entities.items[0], "wad");
    if (!list || !*list) return;
    bk_vfs *vfs = bk_vfs_new_game(o);
    if (!vfs) return;
    const char *p = list;
    while (*p) {
        const char *e = strchr(p, ';');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char path[512];
        if (len > 0 && len < sizeof path) {
            memcpy(path, p, len);
            path[len] = 0;
            while (len && (unsigned char)path[len - 1] <= ' ') path[--len] = 0;
            char *bn = path;
            for (char *c = path; *c; c++)
                if (*c == '\\' || *c == '/') bn = c + 1;
            /* base name, then "gamedir/base" (the last two components) */
            char two[512] = "";
            if (bn > path + 1) {
                char *q2 = bn - 2;
                while (q2 > path && q2[-1] != '\\' && q2[-1] != '/') q2--;
                snprintf(two, sizeof two, "%s", q2);
            }
            if (*bn && !wad_known(B, bn)) {
                uint8_t *data = NULL;
                size_t size = 0;
                if (bk_vfs_read(vfs, bn, maxb, &data, &size) == BK_OK ||
                    (two[0] && bk_vfs_read(vfs, two, maxb, &data, &size) == BK_OK))
                    add_wad(B, bn, data, size);
            }
        }
        if (!e) break;
        p = e + 1;
    }
    bk_vfs_free(vfs);
}

static void free_wads(builder *B)
{
    for (uint32_t i = 0; i < B->wad_count; i++) {
        bk_free(B->wads[i].name);
        bk_free(B->wads[i].data);
        bk_wad3_clear(&B->wads[i].dir);
    }
    bk_free(B->wads);
}

/* Decode a texture slot to RGBA (or, with BK_OPT_COMPACT_IMAGES, keep it as palette indices):
 * embedded pixels, or a WAD3 entry of the same name. */
static bk_result texture_pixels(builder *B, const bk_q1_miptex *m, uint8_t **px, bool *pal8, uint32_t *w,
                                uint32_t *h, const char **source)
{
    *px = NULL;
    *pal8 = (B->opt->flags & BK_OPT_COMPACT_IMAGES) != 0;
    int mode = m->name[0] == '{' ? BK_PAL_MASK255 : BK_PAL_OPAQUE;
    /* miptex entries may share pixels in hostile files: bound what all textures decode to */
    uint64_t cost = (uint64_t)m->width * m->height * 4;
    if (cost > B->pixel_budget) return BK_ELIMIT;
    B->pixel_budget -= cost;
    if (m->embedded) {
        size_t npx = (size_t)m->width * m->height;
        const uint8_t *pal = B->gold ? m->palette : bk_quake_palette();
        uint32_t ncolors = B->gold ? m->palette_colors : 256;
        if (*pal8) {
            BK_TRY(bk_pal_pack(m->pixels, npx, pal, ncolors, mode, px));
            /* the scene has its copy: a mapped input's pages of the mip chain can go */
            if (B->f->mapped && (B->opt->flags & BK_OPT_RELEASE_INPUT)) {
                size_t at = (size_t)(m->pixels - B->f->data), span = npx + npx / 4 + npx / 16 + npx / 64;
                if (at < B->f->size) bk_mapped_release(m->pixels, span < B->f->size - at ? span : B->f->size - at);
            }
        } else {
            *px = bk_malloc(npx * 4);
            if (!*px) return BK_ENOMEM;
            bk_pal_expand(m->pixels, npx, pal, ncolors, mode, *px);
        }
        *w = m->width;
        *h = m->height;
        *source = "embedded";
        return BK_OK;
    }
    load_wads(B);
    for (uint32_t i = 0; i < B->wad_count; i++) {
        int32_t k = bk_wad3_find(&B->wads[i].dir, m->name);
        if (k < 0) continue;
        const bk_wad3_entry *e = &B->wads[i].dir.entries[k];
        if (e->type != BK_WAD_TYPE_MIPTEX && e->type != BK_WAD_TYPE_DECAL) continue;
        const uint8_t *mt = B->wads[i].data + e->filepos;
        bk_result r = *pal8 ? bk_miptex_to_pal8(mt, e->disksize, NULL, mode, px, w, h)
                            : bk_miptex_to_rgba(mt, e->disksize, NULL, mode, px, w, h);
        if (r == BK_ENOMEM) return r;
        if (r == BK_OK) {
            *source = B->wads[i].name;
            return BK_OK;
        }
    }
    return BK_ENOTFOUND;
}

static bool face_special(const builder *B, const bk_q1_face *fc)
{
    const bk_q1_texinfo *ti = &B->q->texinfo[fc->texinfo];
    if (ti->flags & BK_Q1_TEX_SPECIAL) return true;
    if (ti->miptex >= 0 && B->q->miptex[ti->miptex].dir_offset >= 0)
        return bk_quake_special_texture(B->q->miptex[ti->miptex].name, B->gold);
    return false;
}

/* Compiler tool textures the engines never draw (trigger volumes, clip, origin brushes...). */
static bool is_tool_texture(const char *name)
{
    static const char *const k_tools[] = {"trigger", "aaatrigger", "clip", "origin", "skip", "hint", "null",
                                          "nodraw", "bevel", "clipbevel"};
    for (size_t i = 0; i < BK_ARRAY_LEN(k_tools); i++)
        if (bk_strcasecmp(name, k_tools[i]) == 0) return true;
    return false;
}

/* GoldSrc's sky: the engine never draws the map's "sky" texture there but the sky box
 * gfx/env/NAME{rt,bk,lf,ft,up,dn}.tga of the game folder (worldspawn's skyname; "desert" without
 * one), which bspkit does not draw. The sky material is the neutral sky colour (bk_sky_neutral:
 * never black, whatever the WAD's placeholder "sky" looks like), marked extras.sky "faces" with
 * the skyname, and the images not found in the game folders are named in a warning. */
static bk_result gold_sky(builder *B, int32_t mi)
{
    bk_material *mat = &B->s->materials[mi];
    mat->unlit = 1;
    mat->lightmap_image = -1;
    mat->base_image = -1;
    memcpy(mat->base_color, bk_sky_neutral, sizeof bk_sky_neutral);
    mat->base_color[3] = 1;
    const char *name = B->f->entities.count ? bk_entity_get(&B->f->entities.items[0], "skyname") : NULL;
    if (!name || !*name) name = "desert";
    BK_TRY(bk_kv_append(&mat->extras, &mat->extra_count, "sky", "faces"));
    BK_TRY(bk_kv_append(&mat->extras, &mat->extra_count, "skyname", name));
    if (B->sky_said) return BK_OK;
    B->sky_said = true;
    char missing[6 * 240] = "";
    int n = 0;
    bk_vfs *vfs = bk_vfs_new_game(B->opt);
    for (int f = 0; f < 6; f++) {
        char path[240];
        snprintf(path, sizeof path, "gfx/env/%.200s%s.tga", name, bk_sky_face_suffix[f]);
        uint8_t *data = NULL;
        size_t size;
        if (vfs && bk_vfs_read(vfs, path, bk_limits_of(B->opt).max_file_bytes, &data, &size) == BK_OK) {
            bk_free(data);
            continue;
        }
        snprintf(missing + strlen(missing), sizeof missing - strlen(missing), "%s%s", n++ ? ", " : "", path);
    }
    bk_vfs_free(vfs);
    if (n)
        bk_scene_diag(B->s, B->opt, BK_SEV_WARNING, BK_ENOTFOUND, NULL, "entities", BK_NO_INDEX, BK_NO_OFFSET,
                      "sky %s: %s not found (the game folder's gfx/env/: --game-dir): the sky drawn in a "
                      "neutral colour",
                      name, missing);
    else
        bk_scene_diag(B->s, B->opt, BK_SEV_INFO, BK_OK, NULL, "entities", BK_NO_INDEX, BK_NO_OFFSET,
                      "sky %s: gfx/env/%s*.tga found but not drawn (GoldSrc sky boxes are not converted): the "
                      "sky drawn in a neutral colour",
                      name, name);
    return BK_OK;
}

static bk_result get_material(builder *B, int32_t miptex, bool lit, int32_t *out)
{
    const bk_quake_bsp *q = B->q;
    uint32_t slot = (miptex < 0 ? q->miptex_count : (uint32_t)miptex) * 2 + (lit ? 1 : 0);
    if (B->mat_of[slot] >= 0) {
        *out = B->mat_of[slot];
        return BK_OK;
    }
    const bk_q1_miptex *m = miptex >= 0 ? &q->miptex[miptex] : NULL;
    char name[64];
    if (!m || m->dir_offset < 0) snprintf(name, sizeof name, "missing_%d", miptex);
    else snprintf(name, sizeof name, "%s", m->name[0] ? m->name : "unnamed");
    char mname[80];
    /* sky and liquids are never lit; another texture drawn without its lightmap gets a suffix */
    bool plain = lit || !B->lit || (m && m->dir_offset >= 0 && bk_quake_special_texture(m->name, B->gold));
    snprintf(mname, sizeof mname, "%s%s", name, plain ? "" : "#nolightmap");
    int32_t mi;
    BK_TRY(bk_scene_add_material(B->s, mname, &mi));
    bk_material *mat = &B->s->materials[mi];
    mat->never_drawn = m && m->dir_offset >= 0 && is_tool_texture(m->name);
    mat->base_image = -1;
    mat->lightmap_image = lit ? B->lightmap_image : -1;
    mat->base_color[0] = mat->base_color[1] = mat->base_color[2] = mat->base_color[3] = 1.0f;
    mat->alpha_mode = BK_ALPHA_OPAQUE;
    mat->alpha_cutoff = 0.5f;
    if (m && m->dir_offset >= 0 && bk_quake_special_texture(m->name, B->gold)) mat->unlit = 1;
    if (m && m->name[0] == '{') mat->alpha_mode = BK_ALPHA_MASK;
    BK_TRY(bk_kv_append(&B->s->materials[mi].extras, &B->s->materials[mi].extra_count, "texture", name));
    if (B->gold && bk_strcasecmp(name, "sky") == 0) {
        BK_TRY(gold_sky(B, mi));
        B->mat_of[slot] = mi;
        *out = mi;
        return BK_OK;
    }
    if (lit && B->lightmap_scale > 1.0f)
        BK_TRY(bk_kv_append(&B->s->materials[mi].extras, &B->s->materials[mi].extra_count, "lightmapScale", "2"));
    bool missing = true;
    if (m && m->dir_offset >= 0 && !(B->opt->flags & BK_OPT_NO_TEXTURES)) {
        /* one image per texture, shared by its lit and unlit materials */
        int32_t img = -1;
        uint32_t other = slot ^ 1u;
        if (B->mat_of[other] >= 0) img = B->s->materials[B->mat_of[other]].base_image;
        const char *src = NULL;
        if (img < 0) {
            uint8_t *px;
            uint32_t w, h;
            bool pal8;
            bk_result r = texture_pixels(B, m, &px, &pal8, &w, &h, &src);
            if (r == BK_ENOMEM) return r;
            if (r == BK_OK) {
                r = pal8 ? bk_scene_add_packed_image(B->s, name, w, h, BK_PACK_PAL8, px, (size_t)w * h + 1024, NULL,
                                                     -1, &img)
                         : bk_scene_add_image(B->s, name, w, h, px, &img);
                if (r != BK_OK) {
                    bk_free(px);
                    return r;
                }
            }
        } else {
            src = "shared";
        }
        mat = &B->s->materials[mi];
        if (img >= 0) {
            mat->base_image = img;
            missing = false;
            if (src && strcmp(src, "shared") != 0)
                BK_TRY(bk_kv_append(&mat->extras, &mat->extra_count, "source", src));
        }
    } else if (m && m->dir_offset >= 0) {
        missing = false; /* textures not wanted: not "missing" */
    }
    mat = &B->s->materials[mi];
    if (missing) {
        mat->base_color[0] = mat->base_color[1] = mat->base_color[2] = 0.5f;
        BK_TRY(bk_kv_append(&mat->extras, &mat->extra_count, "missing", "true"));
        B->s->warning_count++;
    }
    B->mat_of[slot] = mi;
    *out = mi;
    return BK_OK;
}

/* Lightmap rectangles: one per lit face, plus a black luxel for lit faces without data. A
 * rectangle's texels are drawn straight into the atlas images from the lighting lump: the base
 * image (every style of the face summed, each at its value at rest) and, when the map has styles,
 * one layer per style (the same rectangles, the face's lightmap for that style as stored). */
typedef struct lm_state {
    bk_atlas *atlas;
    uint32_t *rect_of;             /* per face: atlas id + 1, 0 = none */
    uint32_t *face_of;             /* per atlas id: face, or UINT32_MAX for the black luxel */
    uint32_t black_id;
    bool has_black;
    const bk_quake_bsp *q;
    bool gold;
    float gain;
    bool styled;                   /* a lit face carries a style other than 0: layers are drawn */
    uint8_t used[32];              /* the styles lit faces carry, a bit each */
    int layer;                     /* being drawn: -1 the base image, else that style's layer */
    uint32_t rest[256];            /* each style's value at rest */
    int32_t layer_image[256];      /* each style's layer image, or -1 */
} lm_state;

static bool face_has_light(const bk_q1_face *fc)
{
    return fc->light_ofs >= 0 && fc->lm_styles > 0 && fc->lm_size[0] > 0;
}

static void fill_black(uint8_t *dst, size_t stride, uint32_t w, uint32_t h)
{
    for (uint32_t y = 0; y < h; y++, dst += stride)
        for (uint32_t x = 0; x < w; x++) memcpy(dst + (size_t)x * 4, (const uint8_t[4]){0, 0, 0, 255}, 4);
}

static void fill_face(void *user, uint32_t id, uint8_t *dst, size_t stride)
{
    const lm_state *lm = user;
    const bk_quake_bsp *q = lm->q;
    uint32_t face = lm->face_of[id];
    if (face == UINT32_MAX) {
        fill_black(dst, stride, 1, 1);
        return;
    }
    const bk_q1_face *fc = &q->faces[face];
    uint32_t w = fc->lm_size[0], h = fc->lm_size[1];
    size_t bpp = q->lighting_bpp, plane = (size_t)w * h * bpp;
    const uint8_t *src = q->lighting + (size_t)fc->light_ofs * (bpp == 3 && !lm->gold ? 3 : 1);
    /* the styles summed (base), or the one drawn alone (a layer: none of the face's is black) */
    uint32_t ns = 0, value[4];
    const uint8_t *from[4];
    for (uint32_t k = 0; k < fc->lm_styles; k++) {
        if (lm->layer >= 0 && fc->styles[k] != lm->layer) continue;
        from[ns] = src + k * plane;
        value[ns++] = lm->layer >= 0 ? 264 : lm->rest[fc->styles[k]];
    }
    float gain = lm->layer >= 0 ? 1.0f : lm->gain;
    if (!ns) {
        fill_black(dst, stride, w, h);
        return;
    }
    for (uint32_t y = 0; y < h; y++, dst += stride) {
        size_t row = (size_t)y * w * bpp;
        for (uint32_t x = 0; x < w; x++) {
            uint8_t *o = dst + (size_t)x * 4;
            for (size_t c = 0; c < bpp; c++) { /* a gray luxel once, for its three channels */
                size_t at = row + x * bpp + c;
                uint32_t acc = 0;
                for (uint32_t k = 0; k < ns; k++) acc += from[k][at] * value[k];
                o[c] = bk_lightstyle_texel(acc, gain);
            }
            if (bpp == 1) o[1] = o[2] = o[0];
            o[3] = 255;
        }
    }
}

/* Quake's renderers keep a luxel as light x the style's value / 256 (style 0 "m": 264), clamped at
 * 255, and draw texture x lightmap x 2 clamped at white: 128 is full light and brighter light
 * raises a texture up to twice its colour. By default the atlas is that lightmap and the materials
 * say lightmapScale 2 (the renderers multiply, then clamp). GoldSrc lightmaps are kept.
 * opt->overbright N instead bakes x 2^N into the atlas, clamped (<0: as stored). */
static void lm_gain(builder *B, lm_state *lm)
{
    float shift = B->opt->overbright;
    bool engine_range = shift == 0.0f && !lm->gold;
    if (!(shift > 0.0f) || shift > 4.0f) shift = shift > 4.0f ? 4.0f : 0.0f;
    lm->gain = engine_range ? 264.0f / 256.0f : powf(2.0f, shift);
    B->lightmap_scale = engine_range ? 2.0f : 1.0f;
}

/* The styles the lit faces carry; with one other than 0, the scene's light styles and their values
 * at rest (stock patterns, switchable lights from the entities). */
static bk_result lm_styles(builder *B, lm_state *lm)
{
    const bk_quake_bsp *q = B->q;
    for (uint32_t i = 0; i < q->face_count; i++) {
        const bk_q1_face *fc = &q->faces[i];
        if (fc->edge_count < 3 || face_special(B, fc) || !face_has_light(fc)) continue;
        for (uint32_t k = 0; k < fc->lm_styles; k++) {
            lm->used[fc->styles[k] >> 3] |= (uint8_t)(1u << (fc->styles[k] & 7));
            if (fc->styles[k] != 0) lm->styled = true;
        }
    }
    for (int k = 0; k < 256; k++) lm->rest[k] = 264, lm->layer_image[k] = -1;
    lm->layer = -1;
    if (!lm->styled) return BK_OK;
    BK_TRY(bk_lightstyles_from_entities(B->s, &B->f->entities, lm->gold, lm->used));
    for (uint32_t k = 0; k < 255; k++) lm->rest[k] = bk_lightstyle_rest(B->s, k);
    B->s->lightstyle_gain = lm->gain;
    return BK_OK;
}

/* one rectangle per lit face (the black luxel for those without light data), bounded by the lump */
static bk_result lm_add_rects(builder *B, lm_state *lm)
{
    const bk_quake_bsp *q = B->q;
    uint64_t luxel_budget = (uint64_t)q->lighting_size * 2 + (1u << 20);
    for (uint32_t i = 0; i < q->face_count; i++) {
        const bk_q1_face *fc = &q->faces[i];
        if (fc->edge_count < 3 || face_special(B, fc)) continue;
        uint32_t id;
        if (!face_has_light(fc)) {
            if (!lm->has_black) {
                BK_TRY(bk_atlas_add(lm->atlas, 1, 1, NULL, &lm->black_id));
                lm->face_of[lm->black_id] = UINT32_MAX;
                lm->has_black = true;
            }
            lm->rect_of[i] = lm->black_id + 1;
            continue;
        }
        uint32_t w = fc->lm_size[0], h = fc->lm_size[1];
        size_t npx = (size_t)w * h;
        /* faces may share lightmap data in hostile files: bound the atlas by the lump's size */
        if (npx > luxel_budget) return BK_ELIMIT;
        luxel_budget -= npx;
        BK_TRY(bk_atlas_add(lm->atlas, w, h, NULL, &id));
        lm->face_of[id] = i;
        lm->rect_of[i] = id + 1;
    }
    return BK_OK;
}

/* the base image, then each style's layer; one byte (Quake) or three (GoldSrc) a luxel become three
 * and padding: streamed (Quake's layers stay one byte) */
static bk_result lm_draw(builder *B, lm_state *lm)
{
    lm->layer = -1;
    BK_TRY(bk_atlas_to_scene_image(lm->atlas, B->s, "lightmap", B->opt, B->f->size / 2, &B->lightmap_image));
    /* a layer is the whole atlas: hostile files naming many styles on small lightmaps are bounded
     * (real maps: a few styles, the layers a few times the lump, progs_dump_start 3.7) */
    uint32_t aw, ah, n = 0;
    bk_atlas_size(lm->atlas, &aw, &ah);
    for (int k = 0; k < 255; k++) n += (lm->used[k >> 3] >> (k & 7)) & 1;
    if (lm->styled && (uint64_t)n * aw * ah > (uint64_t)B->q->lighting_size * 8 + (4u << 20)) {
        bk_scene_diag(B->s, B->opt, BK_SEV_WARNING, BK_ELIMIT, NULL, "lighting", BK_NO_INDEX, BK_NO_OFFSET,
                      "%u light styles on a %u x %u atlas: far more than the lighting lump holds; the lightmap "
                      "is their sum at rest, without a layer per style", n, aw, ah);
        lm->styled = false;
    }
    for (int k = 0; lm->styled && k < 255; k++) {
        if (!((lm->used[k >> 3] >> (k & 7)) & 1)) continue;
        char name[32];
        snprintf(name, sizeof name, "lightmap_style%d", k);
        lm->layer = k;
        /* Quake's gray lightmaps as they are stored: one byte a texel */
        if (B->q->lighting_bpp == 1) BK_TRY(bk_atlas_to_gray_image(lm->atlas, B->s, name, &lm->layer_image[k]));
        else BK_TRY(bk_atlas_to_scene_image(lm->atlas, B->s, name, B->opt, B->f->size / 2, &lm->layer_image[k]));
    }
    lm->layer = -1;
    return BK_OK;
}

static bk_result build_lightmaps(builder *B, lm_state *lm)
{
    const bk_quake_bsp *q = B->q;
    bk_ctx tmp;
    bk_ctx_init(&tmp, B->opt, false);
    bk_result r = BK_OK;
    lm->rect_of = bk_alloc_array(&tmp, q->face_count, sizeof(uint32_t), &r);
    if (!lm->rect_of) return r;
    lm->face_of = bk_alloc_array(&tmp, (size_t)q->face_count + 1, sizeof(uint32_t), &r);
    if (!lm->face_of) return r;
    lm->atlas = bk_atlas_new(tmp.opt.limits.max_atlas_size, 1);
    if (!lm->atlas) return BK_ENOMEM;
    lm->q = q;
    lm->gold = B->gold;
    bk_atlas_set_fill(lm->atlas, fill_face, lm);
    lm_gain(B, lm);
    BK_TRY(lm_styles(B, lm));
    BK_TRY(lm_add_rects(B, lm));
    BK_TRY(bk_atlas_pack(lm->atlas));
    BK_TRY(lm_draw(B, lm));
    /* the lighting is in the atlas now: a mapped input's pages of it can go */
    if (B->f->mapped) bk_mapped_release(q->lighting, q->lighting_size);
    return BK_OK;
}

typedef struct face_ref {
    int32_t mat;
    uint32_t face;
} face_ref;

static int cmp_face_ref(const void *a, const void *b)
{
    const face_ref *x = a, *y = b;
    if (x->mat != y->mat) return x->mat < y->mat ? -1 : 1;
    return x->face < y->face ? -1 : (x->face > y->face);
}

/* double -> float without undefined behaviour for values beyond float's range */
static float to_float(double d)
{
    if (!(d == d)) return 0.0f;
    if (d > 3.0e38) return 3.0e38f;
    if (d < -3.0e38) return -3.0e38f;
    return (float)d;
}

static bk_result emit_face(builder *B, const lm_state *lm, bk_primitive *p, uint32_t fi, uint32_t aw, uint32_t ah)
{
    const bk_quake_bsp *q = B->q;
    const bk_q1_face *fc = &q->faces[fi];
    const bk_q1_texinfo *ti = &q->texinfo[fc->texinfo];
    const bk_q1_plane *pl = &q->planes[fc->plane];
    float nrm[3] = {pl->normal[0], pl->normal[1], pl->normal[2]};
    if (fc->side) nrm[0] = -nrm[0], nrm[1] = -nrm[1], nrm[2] = -nrm[2];
    float tw = 64, th = 64;
    if (ti->miptex >= 0 && q->miptex[ti->miptex].dir_offset >= 0 && q->miptex[ti->miptex].width) {
        tw = (float)q->miptex[ti->miptex].width;
        th = (float)q->miptex[ti->miptex].height;
    }
    uint32_t n = fc->edge_count, first;
    BK_TRY(bk_prim_add_vertices(p, n, &first));
    uint32_t rid = lm && lm->rect_of ? lm->rect_of[fi] : 0;
    uint32_t rx = 0, ry = 0;
    if (rid) bk_atlas_rect(lm->atlas, rid - 1, &rx, &ry);
    bool black = rid && lm->has_black && rid - 1 == lm->black_id;
    float newell[3] = {0, 0, 0};
    for (uint32_t k = 0; k < n; k++) {
        int32_t se = q->surfedges[fc->first_edge + k];
        uint32_t e = se < 0 ? (uint32_t)(-(int64_t)se) : (uint32_t)se;
        uint32_t vi = q->edges[e].v[se < 0 ? 1 : 0];
        const float *v = q->vertices + (size_t)vi * 3;
        uint32_t o = first + k;
        memcpy(p->position + o * 3, v, 12);
        memcpy(p->normal + o * 3, nrm, 12);
        double s = (double)v[0] * ti->vecs[0][0] + (double)v[1] * ti->vecs[0][1] + (double)v[2] * ti->vecs[0][2] +
                   ti->vecs[0][3];
        double t = (double)v[0] * ti->vecs[1][0] + (double)v[1] * ti->vecs[1][1] + (double)v[2] * ti->vecs[1][2] +
                   ti->vecs[1][3];
        p->uv0[o * 2] = to_float(s / tw);
        p->uv0[o * 2 + 1] = to_float(t / th);
        if (p->uv1) {
            double lu, lv;
            if (black || !rid) {
                lu = rx + 0.5;
                lv = ry + 0.5;
            } else {
                double sc = (double)(1u << fc->lm_shift);
                lu = rx + (s - fc->tex_mins[0]) / sc + 0.5;
                lv = ry + (t - fc->tex_mins[1]) / sc + 0.5;
            }
            p->uv1[o * 2] = to_float(lu / aw);
            p->uv1[o * 2 + 1] = to_float(lv / ah);
        }
        const float *a = v;
        int32_t se2 = q->surfedges[fc->first_edge + (k + 1) % n];
        uint32_t e2 = se2 < 0 ? (uint32_t)(-(int64_t)se2) : (uint32_t)se2;
        const float *b = q->vertices + (size_t)q->edges[e2].v[se2 < 0 ? 1 : 0] * 3;
        newell[0] += (a[1] - b[1]) * (a[2] + b[2]);
        newell[1] += (a[2] - b[2]) * (a[0] + b[0]);
        newell[2] += (a[0] - b[0]) * (a[1] + b[1]);
    }
    /* glTF front faces wind counter-clockwise; Quake stores faces clockwise seen from the front */
    bool flip = newell[0] * nrm[0] + newell[1] * nrm[1] + newell[2] * nrm[2] < 0;
    for (uint32_t k = 1; k + 1 < n; k++) {
        if (flip) BK_TRY(bk_prim_add_triangle(p, first, first + k + 1, first + k));
        else BK_TRY(bk_prim_add_triangle(p, first, first + k, first + k + 1));
    }
    return BK_OK;
}

/* the styles of a lit face counted on its material (a styled map's) */
static bk_result mark_styles(builder *B, int32_t mat, const bk_q1_face *fc)
{
    uint32_t cap = B->mat_styles_cap;
    BK_TRY(bk_grow((void **)&B->mat_styles, &B->mat_styles_cap, (uint32_t)mat + 1, 32));
    if (B->mat_styles_cap != cap) memset(B->mat_styles + (size_t)cap * 32, 0, (size_t)(B->mat_styles_cap - cap) * 32);
    for (uint32_t k = 0; k < fc->lm_styles; k++)
        B->mat_styles[(size_t)mat * 32 + (fc->styles[k] >> 3)] |= (uint8_t)(1u << (fc->styles[k] & 7));
    return BK_OK;
}

/* each lit material of a styled map: its styles' layers, ascending */
static bk_result attach_layers(builder *B, const lm_state *lm)
{
    for (uint32_t m = 0; m < B->mat_styles_cap && m < B->s->material_count; m++) {
        const uint8_t *bits = B->mat_styles + (size_t)m * 32;
        uint32_t n = 0;
        for (int k = 0; k < 255; k++) n += (bits[k >> 3] >> (k & 7)) & 1;
        if (!n) continue;
        bk_material *mat = &B->s->materials[m];
        mat->light_layers = bk_calloc(n, sizeof *mat->light_layers);
        if (!mat->light_layers) return BK_ENOMEM;
        for (int k = 0; k < 255; k++)
            if ((bits[k >> 3] >> (k & 7)) & 1)
                mat->light_layers[mat->light_layer_count++] = (bk_light_layer){(uint32_t)k, lm->layer_image[k]};
    }
    return BK_OK;
}

static bk_result build_model_mesh(builder *B, const lm_state *lm, uint32_t mi, const char *name, int32_t *mesh_out)
{
    const bk_quake_bsp *q = B->q;
    const bk_q1_model *m = &q->models[mi];
    *mesh_out = -1;
    if (m->face_count <= 0) return BK_OK;
    face_ref *refs = bk_malloc((size_t)m->face_count * sizeof *refs);
    if (!refs) return BK_ENOMEM;
    uint32_t nref = 0;
    bk_result r = BK_OK;
    for (int32_t k = 0; k < m->face_count; k++) {
        uint32_t fi = (uint32_t)(m->first_face + k);
        const bk_q1_face *fc = &q->faces[fi];
        if (fc->edge_count < 3) continue;
        int32_t mt = q->texinfo[fc->texinfo].miptex;
        if (mt >= 0 && q->miptex[mt].dir_offset >= 0 && is_tool_texture(q->miptex[mt].name)) continue;
        bool lit = B->lit && !face_special(B, fc);
        int32_t mat;
        r = get_material(B, q->texinfo[fc->texinfo].miptex, lit, &mat);
        if (r == BK_OK && lit && lm->styled && face_has_light(fc)) r = mark_styles(B, mat, fc);
        if (r != BK_OK) break;
        refs[nref].mat = mat;
        refs[nref].face = fi;
        nref++;
    }
    if (r == BK_OK && nref) {
        qsort(refs, nref, sizeof *refs, cmp_face_ref);
        int32_t mesh;
        r = bk_scene_add_mesh(B->s, name, &mesh);
        uint32_t aw = 1, ah = 1;
        if (lm->atlas) bk_atlas_size(lm->atlas, &aw, &ah);
        for (uint32_t k = 0; r == BK_OK && k < nref;) {
            int32_t mat = refs[k].mat;
            bool lit = B->s->materials[mat].lightmap_image >= 0;
            bk_primitive *p;
            r = bk_mesh_add_primitive(&B->s->meshes[mesh], mat, BK_PRIM_TRIANGLES,
                                      BK_ATTR_NORMAL | BK_ATTR_UV0 | (lit ? BK_ATTR_UV1 : 0), &p);
            /* the material's faces' room at once (fans: n vertices, n - 2 triangles a face) */
            uint64_t nv = 0;
            uint32_t end = k;
            for (; end < nref && refs[end].mat == mat; end++) nv += q->faces[refs[end].face].edge_count;
            if (r == BK_OK && nv <= UINT32_MAX / 3) r = bk_prim_reserve(p, (uint32_t)nv, (uint32_t)(nv * 3 - (end - k) * 6));
            for (; r == BK_OK && k < end; k++) r = emit_face(B, lit ? lm : NULL, p, refs[k].face, aw, ah);
        }
        if (r == BK_OK) *mesh_out = mesh;
    }
    bk_free(refs);
    return r;
}

static void builder_init(builder *B, const bk_file *f, const bk_options *opt, bk_scene *s)
{
    memset(B, 0, sizeof *B);
    B->f = f;
    B->q = f->impl;
    B->opt = opt;
    B->s = s;
    B->gold = B->q->format == BK_FORMAT_GOLDSRC;
    bk_limits lim = bk_limits_of(opt);
    B->pixel_budget = bk_limits_embedded_budget(&lim, f->size); /* decoded texture pixels: bounded by the file */
}

bk_result bk_quake_build_scene(const bk_file *f, const bk_options *opt, bk_scene *s)
{
    const bk_quake_bsp *q = f->impl;
    builder B;
    builder_init(&B, f, opt, s);
    B.lightmap_image = -1;
    B.lightmap_scale = 1.0f;
    B.lit = !(opt->flags & BK_OPT_NO_LIGHTMAPS) && q->lighting_size > 0;
    bk_result r = BK_OK;
    lm_state lm;
    memset(&lm, 0, sizeof lm);
    size_t nslots = ((size_t)q->miptex_count + 1) * 2;
    B.mat_of = bk_malloc(nslots * sizeof *B.mat_of);
    if (!B.mat_of) return BK_ENOMEM;
    for (size_t i = 0; i < nslots; i++) B.mat_of[i] = -1;
    s->name = bk_strdup(f->name ? f->name : "map");

    if (B.lit) {
        r = build_lightmaps(&B, &lm);
        if (r == BK_ELIMIT) {
            /* too many luxels for one atlas: go on without lightmaps */
            bk_scene_diag(s, opt, BK_SEV_WARNING, BK_ELIMIT, NULL, "lighting", BK_NO_INDEX, BK_NO_OFFSET,
                          "the lightmaps do not fit a %u x %u atlas (limits.max_atlas_size): converted unlit",
                          bk_limits_of(opt).max_atlas_size, bk_limits_of(opt).max_atlas_size);
            B.lit = false;
            r = BK_OK;
            for (uint32_t i = 0; i < s->lightstyle_count; i++) {
                bk_free(s->lightstyles[i].pattern);
                bk_free(s->lightstyles[i].targetname);
            }
            bk_free(s->lightstyles);
            s->lightstyles = NULL;
            s->lightstyle_count = 0;
        }
    }
    /* one mesh per brush model, then the entities' nodes */
    int32_t *model_mesh = NULL;
    if (r == BK_OK) {
        model_mesh = bk_malloc((q->model_count ? q->model_count : 1) * sizeof *model_mesh);
        if (!model_mesh) r = BK_ENOMEM;
    }
    for (uint32_t i = 0; r == BK_OK && i < q->model_count; i++) {
        char name[32];
        if (i == 0) snprintf(name, sizeof name, "worldspawn");
        else snprintf(name, sizeof name, "*%u", i);
        r = build_model_mesh(&B, &lm, i, name, &model_mesh[i]);
    }
    if (r == BK_OK && B.lit && lm.styled) r = attach_layers(&B, &lm);
    if (r == BK_OK) {
        bk_entity_layout lay = {model_mesh, q->model_count, 0, NULL, NULL};
        r = bk_scene_add_entity_nodes(s, &f->entities, opt, &lay);
    }
    bk_free(model_mesh);
    bk_atlas_free(lm.atlas);
    bk_free(lm.face_of);
    bk_free(lm.rect_of);
    bk_free(B.mat_of);
    bk_free(B.mat_styles);
    free_wads(&B);
    return r;
}

/* Embedded textures of the map (external ones as empty images, so they are counted). */
bk_result bk_quake_extract_images(const bk_file *f, const bk_options *opt, bk_scene *s)
{
    const bk_quake_bsp *q = f->impl;
    builder B;
    builder_init(&B, f, opt, s);
    for (uint32_t i = 0; i < q->miptex_count; i++) {
        const bk_q1_miptex *m = &q->miptex[i];
        if (m->dir_offset < 0) continue;
        int32_t idx;
        if (!m->embedded) {
            BK_TRY(bk_scene_add_image(s, m->name, 0, 0, NULL, &idx));
            continue;
        }
        uint8_t *px;
        uint32_t w, h;
        const char *src;
        bool pal8;
        BK_TRY(texture_pixels(&B, m, &px, &pal8, &w, &h, &src));
        bk_result r = pal8 ? bk_scene_add_packed_image(s, m->name, w, h, BK_PACK_PAL8, px, (size_t)w * h + 1024, NULL,
                                                       -1, &idx)
                           : bk_scene_add_image(s, m->name, w, h, px, &idx);
        if (r != BK_OK) {
            bk_free(px);
            return r;
        }
    }
    return BK_OK;
}
