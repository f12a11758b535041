/* Quake 1 (BSP29), BSP2 / 2PSB and GoldSrc (BSP30, incl. Blue Shift) map decoder.
 *
 * Header: int32 version (29 / 30) or magic "BSP2" / "2PSB", then 15 {int32 offset, int32 length}.
 * Every lump is checked against the file, every array lump against its entry size (one table row
 * per lump, one entry size per variant), and every cross-reference against its target array.
 * Lightmap sizes follow the engines' extents rule; BSPX extension lumps after the last lump are
 * listed (RGBLIGHTING and LMSHIFT are used). */
#include <math.h>
#include <stdio.h>

#include "bsp_loader.h"

static void q_destroy(void *impl)
{
    quake_impl *qi = impl;
    if (!qi) return;
    bk_quake_bsp *q = &qi->bsp;
    uint32_t ip = qi->in_place;
    bk_free_own(q->planes, ip, BK_Q1_LUMP_PLANES);
    bk_free(q->miptex);
    bk_free_own(q->vertices, ip, BK_Q1_LUMP_VERTICES);
    bk_free_own(q->nodes, ip, BK_Q1_LUMP_NODES);
    bk_free_own(q->texinfo, ip, BK_Q1_LUMP_TEXINFO);
    bk_free(q->faces);
    bk_free_own(q->clipnodes, ip, BK_Q1_LUMP_CLIPNODES);
    bk_free_own(q->leafs, ip, BK_Q1_LUMP_LEAFS);
    bk_free_own(q->marksurfaces, ip, BK_Q1_LUMP_MARKSURFACES);
    bk_free_own(q->edges, ip, BK_Q1_LUMP_EDGES);
    bk_free_own(q->surfedges, ip, BK_Q1_LUMP_SURFEDGES);
    bk_free_own(q->models, ip, BK_Q1_LUMP_MODELS);
    bk_free(q->bspx);
    bk_free(qi);
}

static int q_probe(const uint8_t *d, size_t n)
{
    if (!bk_family_version(&bk_family_quake, d, n)) return 0;
    return n >= HEADER_SIZE ? 2 : 1;
}

static bool text_starts_brace(const uint8_t *p, uint64_t len)
{
    for (uint64_t i = 0; i < len; i++) {
        if (p[i] == '{') return true;
        if (p[i] > ' ') return false;
    }
    return false;
}

/* ---- header ------------------------------------------------------------------------------ */
static bk_result read_header(loader *L)
{
    bk_quake_bsp *q = L->q;
    if (L->n < HEADER_SIZE)
        BK_ERR(L->ctx, BK_ETRUNCATED, "header", BK_NO_INDEX, 0, "file is %zu bytes, shorter than the %d-byte header",
               L->n, HEADER_SIZE);
    if (L->n < HEADER_SIZE) return BK_ETRUNCATED;
    const bk_version_desc *v = bk_family_version(&bk_family_quake, L->d, L->n);
    if (!v) {
        BK_ERR(L->ctx, BK_EVERSION, "header", BK_NO_INDEX, 0, "version %d is not 29 (Quake) or 30 (GoldSrc)",
               bk_rd_i32le(L->d));
        return BK_EVERSION;
    }
    L->f->version = v;
    L->var = v->column;
    q->variant = v->column == V_BSP2 ? BK_Q1_VARIANT_BSP2 : v->column == V_2PSB ? BK_Q1_VARIANT_2PSB : 0;
    q->version = v->version;
    q->format = v->format;
    const bk_dir_layout *dir = v->dir;
    for (int i = 0; i < BK_Q1_LUMP_COUNT; i++) {
        L->slot[i] = (uint32_t)i;
        const uint8_t *e = L->d + dir->dir_offset + (size_t)dir->entry_size * i;
        bk_lump_span sp;
        BK_TRY(bk_lump_locate(L->ctx, k_lumps[i].name, dir->header_size, dir->overlap_warns,
                              bk_rd_i32le(e + dir->ofs_field), bk_rd_i32le(e + dir->len_field), L->n,
                              dir->dir_offset + (uint64_t)dir->entry_size * i, &sp));
        L->ofs[i] = sp.ofs;
        L->len[i] = sp.len;
    }
    /* Blue Shift: the first two header entries are swapped (planes, then entities) */
    if (v->traits & BK_VT_ENTITY_SWAP) {
        const uint8_t *p0 = L->d + L->ofs[0], *p1 = L->d + L->ofs[1];
        if (!text_starts_brace(p0, L->len[0]) && text_starts_brace(p1, L->len[1]) && L->len[0] % 20 == 0) {
            uint64_t t = L->ofs[0];
            L->ofs[0] = L->ofs[1];
            L->ofs[1] = t;
            t = L->len[0];
            L->len[0] = L->len[1];
            L->len[1] = t;
            L->slot[0] = 1;
            L->slot[1] = 0;
            q->bshift = 1;
            L->f->version = bk_quake_version_bshift();
        }
    }
    for (int i = 0; i < BK_Q1_LUMP_COUNT; i++) {
        q->lump_offset[i] = L->ofs[i];
        q->lump_length[i] = L->len[i];
    }
    return BK_OK;
}

/* Entry count of an array lump (0 when its size is wrong, reported at its directory entry) */
static bk_result array_count(loader *L, int lump, uint32_t *count)
{
    return bk_lump_elements(L->ctx, k_lumps[lump].name, k_lumps[lump].entry[L->var], L->len[lump], hdr_at(L, lump),
                            count, NULL);
}

#define ALLOC(ptr, cnt)                                                                                  \
    do {                                                                                                 \
        bk_result a_r_ = BK_OK;                                                                          \
        (ptr) = bk_alloc_array(L->ctx, (cnt), sizeof *(ptr), &a_r_);                                     \
        if (!(ptr)) return a_r_ ? a_r_ : BK_ENOMEM;                                                      \
    } while (0)

/* Lump `lump` (count elements) as its own bytes when its row says it can be read in place in this
 * variant (bk_lump_in_place): no copy, no new pages. NULL: decode a copy. */
static void *in_place(loader *L, int lump, uint32_t count)
{
    return bk_lump_in_place(L->d + L->ofs[lump], count, (k_lumps[lump].in_place >> L->var) & 1, L->in_place,
                            lump);
}

/* A lump read in place that needs a change (a bad value cleared): copied after all */
void *bk_bsp_own_copy(loader *L, int lump, const void *arr, size_t bytes, bk_result *r)
{
    void *c = bk_alloc_array(L->ctx, bytes, 1, r);
    if (!c) return NULL;
    memcpy(c, arr, bytes);
    *L->in_place &= ~(1u << lump);
    return c;
}

/* ---- array lumps: decoded from their rows (quake_desc.c: stored fields -> public struct) ------ */
/* Lump `lump` as its typed array: read in place where its row allows, else decoded from the rows
 * (per: array elements per lump element, 3 for the vertices' floats). NULL: *r says why. */
static void *load_rows(loader *L, int lump, uint32_t per, uint32_t *count, bk_result *r)
{
    const bk_lump_desc *row = &k_lumps[lump];
    uint32_t c;
    *r = array_count(L, lump, &c);
    if (*r) return NULL;
    void *arr = in_place(L, lump, c);
    if (!arr) {
        arr = bk_alloc_array(L->ctx, (size_t)c * per, row->dst_size / per, r);
        if (!arr) {
            if (!*r) *r = BK_ENOMEM;
            return NULL;
        }
        bk_decode_rows(&row->fields[L->var], L->d + L->ofs[lump], row->entry[L->var], c, arr, row->dst_size, false);
    }
    *count = c;
    return arr;
}
#define LOAD_ROWS(arr, cnt, lump, per)                                                                   \
    do {                                                                                                 \
        bk_result lr_ = BK_OK;                                                                           \
        uint32_t lc_ = 0;                                                                                \
        (arr) = load_rows(L, (lump), (per), &lc_, &lr_);                                                 \
        if (!(arr)) return lr_;                                                                          \
        (cnt) = lc_;                                                                                     \
    } while (0)

/* what stays per lump: the checks and repairs of the decoded values */
static bk_result check_planes(loader *L)
{
    bk_quake_bsp *q = L->q;
    for (uint32_t i = 0; i < q->plane_count; i++) {
        const bk_q1_plane *pl = &q->planes[i];
        if (!finite_n(pl->normal, 3) || !isfinite(pl->dist))
            BK_ERR(L->ctx, BK_EFORMAT, "planes", i, elem_at(L, BK_Q1_LUMP_PLANES, i),
                   "plane has a non-finite normal or distance");
        else if (pl->type < 0 || pl->type > 5)
            BK_WARN(L->ctx, BK_EFORMAT, "planes", i, elem_at(L, BK_Q1_LUMP_PLANES, i), "plane type %d is not 0..5",
                    pl->type);
    }
    return BK_OK;
}

static bk_result check_vertices(loader *L)
{
    bk_quake_bsp *q = L->q;
    for (uint32_t i = 0; i < q->vertex_count; i++) {
        if (finite_n(q->vertices + i * 3, 3)) continue;
        BK_ERR(L->ctx, BK_EFORMAT, "vertices", i, elem_at(L, BK_Q1_LUMP_VERTICES, i),
               "vertex has a non-finite coordinate");
        MAKE_OWN(q->vertices, BK_Q1_LUMP_VERTICES, (size_t)q->vertex_count * 3);
        q->vertices[i * 3] = q->vertices[i * 3 + 1] = q->vertices[i * 3 + 2] = 0;
    }
    return BK_OK;
}

static bk_result check_texinfo(loader *L)
{
    bk_quake_bsp *q = L->q;
    for (uint32_t i = 0; i < q->texinfo_count; i++) {
        if (finite_n(&q->texinfo[i].vecs[0][0], 8)) continue;
        BK_ERR(L->ctx, BK_EFORMAT, "texinfo", i, elem_at(L, BK_Q1_LUMP_TEXINFO, i), "texture vectors are not finite");
        MAKE_OWN(q->texinfo, BK_Q1_LUMP_TEXINFO, q->texinfo_count);
        memset(q->texinfo[i].vecs, 0, sizeof q->texinfo[i].vecs);
    }
    return BK_OK;
}

static bk_result decode_arrays(loader *L)
{
    bk_quake_bsp *q = L->q;
    LOAD_ROWS(q->planes, q->plane_count, BK_Q1_LUMP_PLANES, 1);
    BK_TRY(check_planes(L));
    LOAD_ROWS(q->vertices, q->vertex_count, BK_Q1_LUMP_VERTICES, 3);
    BK_TRY(check_vertices(L));
    LOAD_ROWS(q->nodes, q->node_count, BK_Q1_LUMP_NODES, 1);
    LOAD_ROWS(q->texinfo, q->texinfo_count, BK_Q1_LUMP_TEXINFO, 1);
    BK_TRY(check_texinfo(L));
    LOAD_ROWS(q->faces, q->face_count, BK_Q1_LUMP_FACES, 1);
    for (uint32_t i = 0; i < q->face_count; i++) q->faces[i].lm_shift = 4; /* BSPX LMSHIFT may change it */
    LOAD_ROWS(q->clipnodes, q->clipnode_count, BK_Q1_LUMP_CLIPNODES, 1);
    LOAD_ROWS(q->leafs, q->leaf_count, BK_Q1_LUMP_LEAFS, 1);
    LOAD_ROWS(q->marksurfaces, q->marksurface_count, BK_Q1_LUMP_MARKSURFACES, 1);
    LOAD_ROWS(q->edges, q->edge_count, BK_Q1_LUMP_EDGES, 1);
    LOAD_ROWS(q->surfedges, q->surfedge_count, BK_Q1_LUMP_SURFEDGES, 1);
    LOAD_ROWS(q->models, q->model_count, BK_Q1_LUMP_MODELS, 1);
    q->visibility = L->d + L->ofs[BK_Q1_LUMP_VISIBILITY];
    q->visibility_size = (size_t)L->len[BK_Q1_LUMP_VISIBILITY];
    q->lighting = L->d + L->ofs[BK_Q1_LUMP_LIGHTING];
    q->lighting_size = (size_t)L->len[BK_Q1_LUMP_LIGHTING];
    q->lighting_bpp = q->format == BK_FORMAT_GOLDSRC ? 3 : 1;
    return BK_OK;
}

/* ---- textures lump -------------------------------------------------------------------------- */
static bk_result decode_textures(loader *L)
{
    bk_quake_bsp *q = L->q;
    uint64_t lofs = L->ofs[BK_Q1_LUMP_TEXTURES], llen = L->len[BK_Q1_LUMP_TEXTURES];
    const uint8_t *lump = L->d + lofs;
    const char *LN = "textures";
    if (llen == 0) return BK_OK;
    if (llen < 4) {
        BK_ERR(L->ctx, BK_ETRUNCATED, LN, BK_NO_INDEX, lofs, "lump of %llu bytes cannot hold the texture count",
               (unsigned long long)llen);
        return BK_OK;
    }
    int32_t n = bk_rd_i32le(lump);
    if (n < 0 || (uint64_t)n > (llen - 4) / 4) {
        BK_ERR(L->ctx, BK_ELUMP_RANGE, LN, BK_NO_INDEX, lofs,
               "texture count %d does not fit the %llu-byte lump", n, (unsigned long long)llen);
        return BK_OK;
    }
    ALLOC(q->miptex, (size_t)n);
    q->miptex_count = (uint32_t)n;
    bool gold = q->format == BK_FORMAT_GOLDSRC;
    for (uint32_t i = 0; i < (uint32_t)n; i++) {
        bk_q1_miptex *m = &q->miptex[i];
        int32_t mo = bk_rd_i32le(lump + 4 + 4 * (size_t)i);
        uint64_t dir_at = lofs + 4 + 4 * (uint64_t)i;
        m->dir_offset = mo;
        m->file_offset = BK_NO_OFFSET;
        if (mo == -1) continue; /* slot left empty by the compiler */
        if (mo < 0 || !bk_span_ok((uint64_t)mo, MIPTEX_HDR, llen)) {
            m->dir_offset = -1;
            BK_ERR(L->ctx, BK_ELUMP_RANGE, LN, i, dir_at, "miptex offset %d lies outside the %llu-byte lump", mo,
                   (unsigned long long)llen);
            continue;
        }
        const uint8_t *mt = lump + mo;
        uint64_t at = lofs + (uint64_t)mo;
        m->file_offset = at;
        bk_copy_name(m->name, sizeof m->name, mt, 16);
        m->width = bk_rd_u32le(mt + 16);
        m->height = bk_rd_u32le(mt + 20);
        for (int k = 0; k < 4; k++) m->mip_offsets[k] = bk_rd_u32le(mt + 24 + 4 * k);
        if (!m->width || !m->height || m->width > BK_Q1_MAX_TEX_DIM || m->height > BK_Q1_MAX_TEX_DIM) {
            BK_ERR(L->ctx, BK_EFORMAT, LN, i, at + 16, "texture '%s' has a bad size %ux%u", m->name, m->width,
                   m->height);
            m->width = m->height = 16;
            m->mip_offsets[0] = 0;
            continue;
        }
        if ((m->width & 15) || (m->height & 15))
            BK_WARN(L->ctx, BK_EFORMAT, LN, i, at + 16, "texture '%s' size %ux%u is not a multiple of 16", m->name,
                    m->width, m->height);
        if (m->mip_offsets[0] == 0) {
            if (m->mip_offsets[1] || m->mip_offsets[2] || m->mip_offsets[3])
                BK_WARN(L->ctx, BK_EFORMAT, LN, i, at + 24,
                        "texture '%s' has no mip 0 but other mip offsets; treated as external", m->name);
            continue; /* external: looked up in WAD files */
        }
        bool bad = false;
        for (int k = 0; k < 4 && !bad; k++) {
            uint64_t mw = m->width >> k, mh = m->height >> k;
            if (!mw) mw = 1;
            if (!mh) mh = 1;
            if (!bk_span_ok((uint64_t)mo + m->mip_offsets[k], mw * mh, llen)) {
                bad = true;
                BK_ERR(L->ctx, BK_ELUMP_RANGE, LN, i, at + 24 + 4 * (uint64_t)k,
                       "texture '%s' mip %d (offset %u, %llux%llu) lies outside the lump", m->name, k,
                       m->mip_offsets[k], (unsigned long long)mw, (unsigned long long)mh);
            }
        }
        if (bad) continue;
        if (gold) {
            uint64_t pofs = (uint64_t)mo + m->mip_offsets[3] + (uint64_t)(m->width / 8) * (m->height / 8);
            if (!bk_span_ok(pofs, 2, llen)) {
                BK_ERR(L->ctx, BK_ETRUNCATED, LN, i, lofs + pofs, "texture '%s' has no palette after mip 3", m->name);
                continue;
            }
            uint32_t nc = bk_rd_u16le(lump + pofs);
            if (nc > 256 || !bk_span_ok(pofs + 2, (uint64_t)nc * 3, llen)) {
                BK_ERR(L->ctx, BK_ETRUNCATED, LN, i, lofs + pofs, "texture '%s' palette of %u colours does not fit",
                       m->name, nc);
                continue;
            }
            if (nc != 256)
                BK_WARN(L->ctx, BK_EFORMAT, LN, i, lofs + pofs, "texture '%s' palette has %u colours, not 256",
                        m->name, nc);
            m->palette = lump + pofs + 2;
            m->palette_colors = nc;
        }
        m->pixels = lump + mo + m->mip_offsets[0];
        m->embedded = 1;
    }
    return BK_OK;
}

/* ---- BSPX ----------------------------------------------------------------------------------- */
const bk_q1_bspx_lump *bk_bsp_find_bspx(const bk_quake_bsp *q, const char *name)
{
    for (uint32_t i = 0; i < q->bspx_count; i++)
        if (strcmp(q->bspx[i].name, name) == 0) return &q->bspx[i];
    return NULL;
}

static bk_result decode_bspx(loader *L)
{
    bk_quake_bsp *q = L->q;
    uint64_t end = HEADER_SIZE;
    for (int i = 0; i < BK_Q1_LUMP_COUNT; i++)
        if (L->len[i] && L->ofs[i] + L->len[i] > end) end = L->ofs[i] + L->len[i];
    uint64_t at = (end + 3) & ~(uint64_t)3;
    if (!(bk_span_ok(at, 8, L->n) && memcmp(L->d + at, "BSPX", 4) == 0)) {
        at = end;
        if (!(bk_span_ok(at, 8, L->n) && memcmp(L->d + at, "BSPX", 4) == 0)) return BK_OK;
    }
    uint32_t n = bk_rd_u32le(L->d + at + 4);
    if (!bk_span_ok(at + 8, (uint64_t)n * 32, L->n)) {
        BK_ERR(L->ctx, BK_ELUMP_RANGE, "bspx", BK_NO_INDEX, at + 4, "BSPX directory of %u entries runs past the end", n);
        return BK_OK;
    }
    ALLOC(q->bspx, n);
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *p = L->d + at + 8 + (size_t)i * 32;
        bk_q1_bspx_lump *b = &q->bspx[q->bspx_count];
        bk_copy_name(b->name, sizeof b->name, p, 24);
        uint32_t o = bk_rd_u32le(p + 24), l = bk_rd_u32le(p + 28);
        if (!bk_span_ok(o, l, L->n)) {
            BK_ERR(L->ctx, BK_ELUMP_RANGE, "bspx", i, at + 8 + (uint64_t)i * 32,
                   "BSPX lump '%s' (offset %u, length %u) lies outside the file", b->name, o, l);
            continue;
        }
        b->offset = o;
        b->length = l;
        q->bspx_count++;
    }
    return BK_OK;
}

/* ---- info ------------------------------------------------------------------------------------ */
static void fill_info(loader *L)
{
    bk_quake_bsp *q = L->q;
    bk_info *in = &L->f->info;
    in->format = q->format;
    in->version = q->version;
    snprintf(in->variant, sizeof in->variant, "%s", L->f->version->variant);
    if (bk_info_set_lumps(in, BK_Q1_LUMP_COUNT + q->bspx_count) == BK_OK) {
        for (int s = 0; s < BK_Q1_LUMP_COUNT; s++) {
            int i = s; /* the lump in header slot s (Blue Shift: the entities in slot 1) */
            if (s == L->f->version->entity_slot) i = BK_Q1_LUMP_ENTITIES;
            else if (s == BK_Q1_LUMP_ENTITIES) i = L->f->version->entity_slot;
            bk_lump_info *l = &in->lumps[s];
            snprintf(l->name, sizeof l->name, "%s", k_lumps[i].name);
            l->offset = L->ofs[i];
            l->length = L->len[i];
            l->uncompressed = L->len[i];
            uint32_t es = k_lumps[i].entry[L->var];
            l->count = es ? (int64_t)(L->len[i] / es) : -1;
            if (i == BK_Q1_LUMP_TEXTURES) l->count = q->miptex_count;
            if (i == BK_Q1_LUMP_ENTITIES) l->count = L->f->entities.count;
        }
        for (uint32_t b = 0; b < q->bspx_count; b++) {
            bk_lump_info *l = &in->lumps[BK_Q1_LUMP_COUNT + b];
            snprintf(l->name, sizeof l->name, "bspx:%s", q->bspx[b].name);
            l->offset = q->bspx[b].offset;
            l->length = l->uncompressed = q->bspx[b].length;
            l->count = -1;
        }
    }
    uint32_t emb = 0, ext = 0, miss = 0;
    for (uint32_t i = 0; i < q->miptex_count; i++) {
        if (q->miptex[i].dir_offset < 0) miss++;
        else if (q->miptex[i].embedded) emb++;
        else ext++;
    }
    bk_info_count(in, "entities", L->f->entities.count);
    bk_info_count(in, "faces", q->face_count);
    bk_info_count(in, "models", q->model_count);
    bk_info_count(in, "textures", q->miptex_count);
    bk_info_count(in, "vertices", q->vertex_count);
    bk_info_count(in, "planes", q->plane_count);
    bk_info_count(in, "nodes", q->node_count);
    bk_info_count(in, "leafs", q->leaf_count);
    bk_info_count(in, "edges", q->edge_count);
    bk_info_count(in, "surfedges", q->surfedge_count);
    bk_info_count(in, "texinfo", q->texinfo_count);
    bk_info_count(in, "clipnodes", q->clipnode_count);
    bk_info_count(in, "marksurfaces", q->marksurface_count);
    bk_info_count(in, "lighting_bytes", L->len[BK_Q1_LUMP_LIGHTING]);
    bk_info_count(in, "visibility_bytes", q->visibility_size);
    bk_info_count(in, "entity_bytes", q->entity_len);
    bk_info_count(in, "textures_embedded", emb);
    bk_info_count(in, "textures_external", ext);
    bk_info_count(in, "textures_missing", miss);
    bk_info_count(in, "bspx_lumps", q->bspx_count);
}

static bk_result q_load(bk_file *f, bk_ctx *ctx)
{
    quake_impl *qi = bk_calloc(1, sizeof *qi);
    if (!qi) return BK_ENOMEM;
    bk_quake_bsp *q = &qi->bsp;
    f->impl = qi;
    loader L;
    memset(&L, 0, sizeof L);
    L.f = f;
    L.ctx = ctx;
    L.q = q;
    L.in_place = &qi->in_place;
    L.d = f->data;
    L.n = f->size;
    BK_TRY(read_header(&L));
    f->format = q->format;
    f->info.format = q->format;
    f->info.version = q->version;
    /* entities: text up to the first NUL (the lump need not be terminated) */
    const uint8_t *et = L.d + L.ofs[BK_Q1_LUMP_ENTITIES];
    size_t elen = (size_t)L.len[BK_Q1_LUMP_ENTITIES];
    const uint8_t *nul = elen ? memchr(et, 0, elen) : NULL;
    if (nul) elen = (size_t)(nul - et);
    q->entity_text = (const char *)et;
    q->entity_len = elen;
    BK_TRY(bk_load_entities(f, ctx, "entities", et, elen, L.ofs[BK_Q1_LUMP_ENTITIES]));
    BK_TRY(decode_arrays(&L));
    BK_TRY(decode_textures(&L));
    BK_TRY(decode_bspx(&L));
    BK_TRY(bk_bsp_check_refs(&L));
    /* the lumps decoded into arrays (not those read in place): a mapped input's pages of them can
     * go (they are read again from the file if anything asks) */
    static const int k_decoded[] = {BK_Q1_LUMP_PLANES, BK_Q1_LUMP_VERTICES, BK_Q1_LUMP_NODES, BK_Q1_LUMP_TEXINFO,
                                    BK_Q1_LUMP_FACES, BK_Q1_LUMP_CLIPNODES, BK_Q1_LUMP_LEAFS, BK_Q1_LUMP_MARKSURFACES,
                                    BK_Q1_LUMP_EDGES, BK_Q1_LUMP_SURFEDGES, BK_Q1_LUMP_MODELS};
    for (size_t i = 0; i < BK_ARRAY_LEN(k_decoded); i++)
        if (!(qi->in_place & (1u << k_decoded[i])))
            bk_input_decoded(ctx, L.d + L.ofs[k_decoded[i]], (size_t)L.len[k_decoded[i]]);
    fill_info(&L);
    return BK_OK;
}

const bk_quake_bsp *bk_quake_bsp_of(const bk_file *f) { return bk_file_impl(f, BK_FORMAT_GOLDSRC); }

const bk_format_ops bk_ops_quake = {BK_FORMAT_GOLDSRC,   q_probe, q_load, q_destroy, bk_quake_build_scene,
                                    bk_quake_extract_images, NULL, NULL};
