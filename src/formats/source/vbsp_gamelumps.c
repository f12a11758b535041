/* Source VBSP game lumps: the directory (plain or LZMA-compressed entries, console-relative
 * offsets), static props by version and entry size (public/gamebspfile.h), detail prop counts. */
#include "vbsp_loader.h"

#define SPRP_ID 0x73707270u /* 'sprp' */
#define DPRP_ID 0x64707270u /* 'dprp' */

/* ---- game lumps --------------------------------------------------------------------------- */

typedef struct sprp_layout {
    int32_t version;
    uint32_t size;
    uint32_t fields;
} sprp_layout;

#define F_FF BK_SPROP_FORCED_FADE
#define F_DX BK_SPROP_DX_LEVEL
#define F_CPU BK_SPROP_CPU_GPU_LEVEL
#define F_DIF BK_SPROP_DIFFUSE
#define F_X360 BK_SPROP_DISABLE_X360
#define F_FX BK_SPROP_FLAGS_EX
#define F_SC BK_SPROP_SCALE
#define F_LMR BK_SPROP_LIGHTMAP_RES
/* (version, entry size) -> fields. Several games share a version number with different layouts
 * (TF2/SDK 2013 v10 is 72 bytes, CS:GO v10 is 76), so the entry size decides. */
static const sprp_layout k_sprp[] = {
    {4, 56, 0},
    {5, 60, F_FF},
    {6, 64, F_FF | F_DX},
    {7, 68, F_FF | F_DX | F_DIF},
    {7, 72, F_FF | F_DX | F_LMR},
    {8, 68, F_FF | F_CPU | F_DIF},
    {9, 72, F_FF | F_CPU | F_DIF | F_X360},
    {10, 72, F_FF | F_DX | F_LMR},
    {10, 76, F_FF | F_CPU | F_DIF | F_X360 | F_FX},
    {11, 80, F_FF | F_CPU | F_DIF | F_X360 | F_FX | F_SC},
    {12, 80, F_FF | F_CPU | F_DIF | F_X360 | F_FX | F_SC},
};

/* 'dprp' by game-lump version (public/gamebspfile.h: DETAIL_PROP_LUMP_VERSION 4 added the sprite
 * dictionary; DetailObjectLump_t is 52 bytes): whether the sprite dictionary follows the model
 * names, and the size of a detail prop read (0: counted only). The one place the version decides. */
typedef struct dprp_layout {
    int32_t first, last;    /* the game-lump versions of the row */
    bool sprites;
    uint32_t prop_size;
} dprp_layout;
static const dprp_layout k_dprp[] = {
    {INT32_MIN, 3, false, 0},
    {4, 4, true, 52},
    {5, INT32_MAX, true, 0},
};

static const dprp_layout *dprp_row(int32_t version)
{
    for (size_t i = 0; i < BK_ARRAY_LEN(k_dprp); i++)
        if (version >= k_dprp[i].first && version <= k_dprp[i].last) return &k_dprp[i];
    return &k_dprp[0];
}

static const char *gl_name(uint32_t id, char *buf) { return bk_source_fourcc(id, buf); }

/* one StaticPropLump_t of es bytes: the common fields, then those of the layout's version */
static void read_static_prop(bk_source_static_prop *s, const uint8_t *e, uint32_t es, uint32_t fields)
{
    bk_cursor pc = bk_cursor_make(e, es);
    for (int k = 0; k < 3; k++) s->origin[k] = bk_cur_f32le(&pc);
    for (int k = 0; k < 3; k++) s->angles[k] = bk_cur_f32le(&pc);
    s->model = bk_cur_u16le(&pc);
    s->first_leaf = bk_cur_u16le(&pc);
    s->leaf_count = bk_cur_u16le(&pc);
    s->solid = bk_cur_u8(&pc);
    s->flags = bk_cur_u8(&pc);
    s->skin = bk_cur_i32le(&pc);
    s->fade_min = bk_cur_f32le(&pc);
    s->fade_max = bk_cur_f32le(&pc);
    for (int k = 0; k < 3; k++) s->lighting_origin[k] = bk_cur_f32le(&pc);
    s->forced_fade_scale = 1.0f;
    s->scale = 1.0f;
    if (fields & F_FF) s->forced_fade_scale = bk_cur_f32le(&pc);
    if (fields & F_DX) {
        s->min_dx_level = bk_cur_u16le(&pc);
        s->max_dx_level = bk_cur_u16le(&pc);
    }
    if (fields & F_LMR) {
        /* the lightmapped layout (TF2, SDK 2013): the flags byte above is padding, the flags are
         * this uint32 (gamebspfile.h StaticPropLump_t, v10 of SDK 2013) */
        s->flags = bk_cur_u32le(&pc);
        s->lightmap_res[0] = bk_cur_u16le(&pc);
        s->lightmap_res[1] = bk_cur_u16le(&pc);
    }
    if (fields & F_CPU) {
        s->min_cpu_level = bk_cur_u8(&pc);
        s->max_cpu_level = bk_cur_u8(&pc);
        s->min_gpu_level = bk_cur_u8(&pc);
        s->max_gpu_level = bk_cur_u8(&pc);
    }
    if (fields & F_DIF)
        for (int k = 0; k < 4; k++) s->diffuse[k] = bk_cur_u8(&pc);
    if (fields & F_X360) {
        /* a bool (one byte), then the struct's three bytes of padding before the next int (or its
         * end): the padding is not zero on real maps (L4D2) */
        s->disable_x360 = bk_cur_u8(&pc);
        bk_cur_take(&pc, 3);
    }
    if (fields & F_FX) s->flags_ex = bk_cur_u32le(&pc);
    if (fields & F_SC) s->scale = bk_cur_f32le(&pc);
}

static bk_result load_sprp(vbsp_ld *L, const bk_source_game_lump *g)
{
    bk_source_map *p = L->p;
    bk_ctx *ctx = L->ctx;
    const char *ln = "game_lump:sprp";
    bk_cursor c = bk_cursor_make(g->data, g->size);
    uint64_t o = g->offset;
    p->sprp_version = g->version;
    int32_t nd = bk_cur_i32le(&c);
    if (c.bad || nd < 0 || (uint64_t)nd * 128 > c.size - c.pos) {
        BK_ERR(ctx, BK_ETRUNCATED, ln, BK_NO_INDEX, o, "model dictionary of %d names does not fit in %zu bytes", nd,
               g->size);
        return BK_OK;
    }
    char *block;
    ALLOC_N(block, (size_t)nd * 129 + 1);
    L->prop_name_block = block;
    ((vbsp_impl_full *)L->m)->extra.prop_name_block = block; /* owned by the map from here on */
    ALLOC_N(p->static_prop_names, (size_t)nd + 1);
    for (int32_t i = 0; i < nd; i++) {
        const uint8_t *s = bk_cur_take(&c, 128);
        bk_copy_name(block + (size_t)i * 129, 129, s, 128);
        p->static_prop_names[i] = block + (size_t)i * 129;
    }
    p->static_prop_name_count = (uint32_t)nd;
    int32_t nl = bk_cur_i32le(&c);
    if (c.bad || nl < 0 || (uint64_t)nl * 2 > c.size - c.pos) {
        BK_ERR(ctx, BK_ETRUNCATED, ln, BK_NO_INDEX, o, "leaf list of %d entries does not fit", nl);
        return BK_OK;
    }
    ALLOC_N(p->static_prop_leaves, (size_t)nl);
    for (int32_t i = 0; i < nl; i++) {
        uint16_t lf = bk_cur_u16le(&c);
        p->static_prop_leaves[i] = lf;
        if (p->leaf_count && lf >= p->leaf_count)
            BK_ERR(ctx, BK_EINDEX, ln, i, o, "prop leaf %u out of range (%u leafs)", lf, p->leaf_count);
    }
    p->static_prop_leaf_count = (uint32_t)nl;
    int32_t np = bk_cur_i32le(&c);
    if (c.bad || np < 0) {
        BK_ERR(ctx, BK_ETRUNCATED, ln, BK_NO_INDEX, o, "prop count missing or negative (%d)", np);
        return BK_OK;
    }
    size_t rest = c.size - c.pos;
    if (np == 0) {
        if (rest) BK_WARN(ctx, BK_EFORMAT, ln, BK_NO_INDEX, o, "%zu bytes after an empty prop list", rest);
        return BK_OK;
    }
    if (rest % (size_t)np || rest / (size_t)np < 56) {
        BK_ERR(ctx, BK_ELUMP_SIZE, ln, BK_NO_INDEX, o, "%zu bytes do not hold %d props of a known size", rest, np);
        return BK_OK;
    }
    if ((uint64_t)np > ctx->opt.limits.max_elements) {
        BK_ERR(ctx, BK_ELIMIT, ln, BK_NO_INDEX, o, "%d props is over the limit", np);
        return BK_OK;
    }
    uint32_t es = (uint32_t)(rest / (size_t)np);
    const sprp_layout *lay = NULL;
    for (size_t i = 0; i < BK_ARRAY_LEN(k_sprp) && !lay; i++)
        if (k_sprp[i].version == g->version && k_sprp[i].size == es) lay = &k_sprp[i];
    for (size_t i = 0; i < BK_ARRAY_LEN(k_sprp) && !lay; i++)
        if (k_sprp[i].size == es) {
            lay = &k_sprp[i];
            BK_WARN(ctx, BK_EFORMAT, ln, BK_NO_INDEX, o,
                    "version %u with %u-byte props: read with the version %d layout", g->version, es, lay->version);
        }
    uint32_t fields = lay ? lay->fields : 0;
    if (!lay)
        BK_WARN(ctx, BK_EUNSUPPORTED, ln, BK_NO_INDEX, o,
                "version %u with %u-byte props is not a known layout: only the common fields are read", g->version, es);
    p->sprp_entry_size = es;
    p->sprp_fields = fields;
    ALLOC_N(p->static_props, (size_t)np);
    p->static_prop_count = (uint32_t)np;
    for (int32_t i = 0; i < np; i++) {
        bk_source_static_prop *s = &p->static_props[i];
        read_static_prop(s, c.data + c.pos + (size_t)i * es, es, fields);
        uint64_t po = g->compressed ? g->offset : g->offset + c.pos + (uint64_t)i * es;
        if (!bk_finite3(s->origin) || !bk_finite3(s->angles) || !(s->scale - s->scale == 0.0f))
            BK_ERR(ctx, BK_EFORMAT, ln, i, po, "prop origin, angles or scale is not finite");
        if (s->model >= p->static_prop_name_count)
            BK_ERR(ctx, BK_EINDEX, ln, i, po, "model %u out of range (%u names)", s->model, p->static_prop_name_count);
        if (!bk_range_ok(s->first_leaf, s->leaf_count, p->static_prop_leaf_count))
            BK_ERR(ctx, BK_EINDEX, ln, i, po, "leaves %u+%u out of range (%u)", s->first_leaf, s->leaf_count,
                   p->static_prop_leaf_count);
    }
    return BK_OK;
}

/* one DetailObjectLump_t (52 bytes, gamebspfile.h) */
static void read_detail(bk_cursor *c, bk_source_detail_prop *d)
{
    for (int k = 0; k < 3; k++) d->origin[k] = bk_cur_f32le(c);
    for (int k = 0; k < 3; k++) d->angles[k] = bk_cur_f32le(c);
    d->model = bk_cur_u16le(c);
    d->leaf = bk_cur_u16le(c);
    for (int k = 0; k < 4; k++) d->lighting[k] = bk_cur_u8(c);
    d->light_styles = bk_cur_u32le(c);
    d->light_style_count = bk_cur_u8(c);
    d->sway_amount = bk_cur_u8(c);
    d->shape_angle = bk_cur_u8(c);
    d->shape_size = bk_cur_u8(c);
    d->orientation = bk_cur_u8(c);
    bk_cur_skip(c, 3);
    d->type = bk_cur_u8(c);
    bk_cur_skip(c, 3);
    d->scale = bk_cur_f32le(c);
}

/* 'dprp': the model names, the sprites (version 4) and the props one by one (version 4's 52-byte
 * entries; another layout is counted only) */
static bk_result load_dprp(vbsp_ld *L, const bk_source_game_lump *g)
{
    bk_source_map *p = L->p;
    const char *ln = "game_lump:dprp";
    bk_cursor c = bk_cursor_make(g->data, g->size);
    p->dprp_version = g->version;
    int32_t nm = bk_cur_i32le(&c);
    if (c.bad || nm < 0 || (uint64_t)nm * 128 > c.size - c.pos) {
        BK_WARN(L->ctx, BK_ETRUNCATED, ln, BK_NO_INDEX, g->offset, "detail model dictionary (%d) does not fit", nm);
        return BK_OK;
    }
    /* the names and their pointers in one block */
    char **names = bk_malloc(((size_t)nm + 1) * sizeof(char *) + (size_t)nm * 129 + 1);
    if (!names) return BK_ENOMEM;
    p->detail_model_names = names;
    char *block = (char *)(names + nm + 1);
    for (int32_t i = 0; i < nm; i++) {
        names[i] = block + (size_t)i * 129;
        bk_copy_name(names[i], 129, bk_cur_take(&c, 128), 128);
    }
    names[nm] = NULL;
    p->detail_model_count = (uint32_t)nm;
    const dprp_layout *lay = dprp_row(g->version);
    if (lay->sprites) {
        int32_t ns = bk_cur_i32le(&c);
        if (c.bad || ns < 0 || (uint64_t)ns * 32 > c.size - c.pos) {
            BK_WARN(L->ctx, BK_ETRUNCATED, ln, BK_NO_INDEX, g->offset, "detail sprite dictionary (%d) does not fit", ns);
            return BK_OK;
        }
        ALLOC_N(p->detail_sprites, (size_t)ns + 1);
        for (int32_t i = 0; i < ns; i++) {
            bk_source_detail_sprite *sp = &p->detail_sprites[i];
            float *v[4] = {sp->ul, sp->lr, sp->tex_ul, sp->tex_lr};
            for (int k = 0; k < 8; k++) v[k / 2][k % 2] = bk_cur_f32le(&c);
        }
        p->detail_sprite_count = (uint32_t)ns;
    }
    if (c.size - c.pos < 4) return BK_OK;
    int32_t no = bk_cur_i32le(&c);
    if (no < 0 || (uint64_t)no > c.size - c.pos) {
        BK_WARN(L->ctx, BK_ETRUNCATED, ln, BK_NO_INDEX, g->offset, "%d detail props do not fit", no);
        return BK_OK;
    }
    p->detail_prop_count = (uint32_t)no;
    if (!lay->prop_size || (uint64_t)no * lay->prop_size > c.size - c.pos) {
        BK_WARN(L->ctx, BK_EUNSUPPORTED, ln, BK_NO_INDEX, g->offset,
                "%d detail props of version %d in %zu bytes: counted, not read (version 4: 52 bytes each)", no,
                g->version, c.size - c.pos);
        return BK_OK;
    }
    ALLOC_N(p->detail_props, (size_t)no + 1);
    for (int32_t i = 0; i < no; i++) {
        bk_source_detail_prop *d = &p->detail_props[i];
        read_detail(&c, d);
        if (d->type == BK_DETAIL_MODEL ? d->model >= p->detail_model_count : d->model >= p->detail_sprite_count)
            BK_WARN(L->ctx, BK_EINDEX, ln, i, g->offset, "detail prop %s %u out of range (%u)",
                    d->type == BK_DETAIL_MODEL ? "model" : "sprite", d->model,
                    d->type == BK_DETAIL_MODEL ? p->detail_model_count : p->detail_sprite_count);
    }
    return BK_OK;
}

bk_result bk_vbsp_load_game_lumps(vbsp_ld *L)
{
    bk_source_map *p = L->p;
    bk_ctx *ctx = L->ctx;
    const bk_source_lump *gl = &p->lumps[BK_SRC_LUMP_GAME_LUMP];
    p->sprp_version = -1;
    p->dprp_version = -1;
    if (gl->size == 0) return BK_OK;
    if (gl->size < 4) {
        BK_ERR(ctx, BK_ETRUNCATED, "game_lump", BK_NO_INDEX, gl->offset, "directory of %zu bytes has no count", gl->size);
        return BK_OK;
    }
    int32_t n = bk_rd_i32le(gl->data);
    if (n < 0 || (uint64_t)n * 16 > gl->size - 4) {
        BK_ERR(ctx, BK_ELUMP_SIZE, "game_lump", BK_NO_INDEX, gl->offset, "%d entries do not fit in %zu bytes", n, gl->size);
        return BK_OK;
    }
    ALLOC_N(p->game_lumps, (size_t)n);
    ALLOC_N(L->gl_owned, (size_t)n);
    vbsp_impl_full *F = (vbsp_impl_full *)L->m;
    F->extra.gl_owned = L->gl_owned;
    F->extra.gl_count = (uint32_t)n;
    p->game_lump_count = (uint32_t)n;
    for (int32_t i = 0; i < n; i++) {
        const uint8_t *e = gl->data + 4 + 16 * (size_t)i;
        bk_source_game_lump *g = &p->game_lumps[i];
        g->id = bk_rd_u32le(e);
        g->flags = bk_rd_u16le(e + 4);
        g->version = bk_rd_u16le(e + 6);
        int32_t ofs = bk_rd_i32le(e + 8), len = bk_rd_i32le(e + 12);
        uint64_t eo = gl->compressed ? gl->offset : gl->offset + 4 + 16 * (uint64_t)i;
        char nm[5];
        gl_name(g->id, nm);
        if (g->id == 0) {
            if (i != n - 1 || ofs != 0 || len != 0)
                BK_WARN(ctx, BK_EFORMAT, "game_lump", i, eo, "id-0 entry that is not a final empty terminator");
            continue;
        }
        if (ofs < 0 || len < 0) {
            BK_ERR(ctx, BK_ELUMP_RANGE, "game_lump", i, eo, "'%s': negative offset %d or length %d", nm, ofs, len);
            continue;
        }
        g->offset = (uint64_t)ofs;
        g->length = (uint64_t)len;
        if (g->flags & 1) {
            /* compressed: filelen is the uncompressed size; the LZMA header gives the span */
            if ((uint64_t)ofs >= L->f->size) {
                BK_ERR(ctx, BK_ELUMP_RANGE, "game_lump", i, eo, "'%s' at %d lies outside the file", nm, ofs);
                continue;
            }
            uint8_t *out;
            size_t out_size, used;
            const char *why;
            bk_result r = bk_vbsp_lzma_take(L->m, L->f->data + ofs, L->f->size - (size_t)ofs, L->m->lzma_budget, &out, &out_size,
                                    &used, &why);
            if (r == BK_ENOMEM) return r;
            if (r != BK_OK) {
                BK_ERR(ctx, r, "game_lump", i, (uint64_t)ofs, "'%s' LZMA: %s", nm, why);
                continue;
            }
            L->m->lzma_budget -= out_size;
            L->gl_owned[i] = out;
            g->data = out;
            g->size = out_size;
            g->compressed = 1;
            if (out_size != (uint64_t)len)
                BK_WARN(ctx, BK_EFORMAT, "game_lump", i, eo, "'%s' decodes to %zu bytes, the directory says %d", nm,
                        out_size, len);
        } else {
            uint64_t at = (uint64_t)ofs;
            if (!bk_span_ok(at, (uint64_t)len, L->f->size) && !gl->compressed &&
                bk_span_ok(gl->offset + at, (uint64_t)len, L->f->size)) {
                /* console builds store offsets relative to the game lump */
                at = gl->offset + at;
                BK_WARN(ctx, BK_EFORMAT, "game_lump", i, eo, "'%s' offset %d read relative to the game lump", nm, ofs);
            }
            if (!bk_span_ok(at, (uint64_t)len, L->f->size)) {
                BK_ERR(ctx, BK_ELUMP_RANGE, "game_lump", i, eo, "'%s' at %d with %d bytes runs past the end of the file",
                       nm, ofs, len);
                continue;
            }
            g->offset = at;
            g->data = L->f->data + at;
            g->size = (size_t)len;
        }
        if (g->id == SPRP_ID && p->sprp_version < 0) BK_TRY(load_sprp(L, g));
        else if (g->id == DPRP_ID && p->dprp_version < 0) BK_TRY(load_dprp(L, g));
    }
    return BK_OK;
}

/* The static props' leaves against the leafs, for a load that read the game lumps before the tree
 * (BK_OPT_DEFER_GEOMETRY): the check load_sprp makes when the leafs are there already. */
bk_result bk_vbsp_check_prop_leaves(vbsp_ld *L)
{
    const bk_source_map *p = L->p;
    const bk_source_game_lump *g = NULL;
    for (uint32_t i = 0; i < p->game_lump_count && !g; i++)
        if (p->game_lumps[i].id == SPRP_ID) g = &p->game_lumps[i];
    if (!g || !p->leaf_count) return BK_OK;
    for (uint32_t i = 0; i < p->static_prop_leaf_count; i++)
        if (p->static_prop_leaves[i] >= p->leaf_count)
            BK_ERR(L->ctx, BK_EINDEX, "game_lump:sprp", i, g->offset, "prop leaf %u out of range (%u leafs)",
                   p->static_prop_leaves[i], p->leaf_count);
    return BK_OK;
}
