/* Quake 3 IBSP v46 / v47 decoder: one small loader per lump (after cm_load.c), each checking its
 * lump's size against its entry size, reading fields byte by byte, and checking every index it
 * holds. Then the cross-lump checks (surfaces -> vertices/indices/shaders/lightmaps/fogs, ...),
 * the light grid dimensions and the visibility header. */
#include <math.h>
#include <stdio.h>

#include "scene/scene_build.h"
#include "q3_internal.h"

#define k_lumps bk_q3_lumps /* the lump rows (q3_desc.c) */

typedef struct q3_lump {
    uint64_t ofs, len;
    uint32_t count;
    bool ok;
} q3_lump;

/* The decoded map and what only the loader and q3_destroy need to know (kept out of the public
 * struct): which arrays lie in the file's own bytes (bit = lump) rather than being allocated. */
typedef struct q3_impl {
    bk_q3_map map;
    uint32_t in_place;
} q3_impl;

typedef struct q3_loader {
    bk_file *f;
    bk_ctx *ctx;
    bk_q3_map *m;
    uint32_t *in_place;
    q3_lump l[BK_Q3_LUMP_COUNT];
} q3_loader;

#define LN(i) k_lumps[i].name
#define EOFS(L, i, k) (L->l[i].ofs + (uint64_t)(k) * k_lumps[i].entry[0])

/* IBSP 46 / 47; other IBSP versions and Raven's and Ritual's relatives are claimed only to be
 * rejected with a clear message */
static int q3_probe(const uint8_t *d, size_t n)
{
    if (n < 8) return 0;
    const bk_version_desc *v = bk_family_version(&bk_family_q3, d, n);
    if (v && v->supported) return 2;
    return bk_family_ident(&bk_family_q3, d, n) ? 1 : 0;
}

static void q3_destroy(void *impl)
{
    q3_impl *q = impl;
    if (!q) return;
    bk_q3_map *m = &q->map;
    uint32_t ip = q->in_place;
    bk_free(m->shaders);
    bk_free_own(m->planes, ip, BK_Q3_LUMP_PLANES);
    bk_free_own(m->nodes, ip, BK_Q3_LUMP_NODES);
    bk_free_own(m->leafs, ip, BK_Q3_LUMP_LEAFS);
    bk_free_own(m->leafsurfaces, ip, BK_Q3_LUMP_LEAFSURFACES);
    bk_free_own(m->leafbrushes, ip, BK_Q3_LUMP_LEAFBRUSHES);
    bk_free_own(m->models, ip, BK_Q3_LUMP_MODELS);
    bk_free_own(m->brushes, ip, BK_Q3_LUMP_BRUSHES);
    bk_free_own(m->brushsides, ip, BK_Q3_LUMP_BRUSHSIDES);
    bk_free_own(m->verts, ip, BK_Q3_LUMP_DRAWVERTS);
    bk_free_own(m->indexes, ip, BK_Q3_LUMP_DRAWINDEXES);
    bk_free(m->fogs);
    bk_free_own(m->surfaces, ip, BK_Q3_LUMP_SURFACES);
    bk_free(q);
}

static const uint8_t *lump_ptr(const q3_loader *L, int i) { return L->f->data + L->l[i].ofs; }

/* Allocate count elements for lump i (count already bounded by the lump length). */
static void *lump_alloc(q3_loader *L, int i, size_t elem, bk_result *res)
{
    *res = BK_OK;
    return bk_alloc_array(L->ctx, L->l[i].count, elem, res);
}

/* Lump i as an array of elem-byte elements: its own bytes when they can be read in place
 * (bk_lump_in_place: no copy, no new pages), else allocated for the caller to decode into
 * (*in_place false), or NULL when skip (nothing kept). */
static void *lump_array(q3_loader *L, int i, size_t elem, bool skip, bool *in_place, bk_result *res)
{
    *res = BK_OK;
    void *a = bk_lump_in_place(lump_ptr(L, i), L->l[i].count, (k_lumps[i].in_place & 1) && elem == k_lumps[i].entry[0],
                               L->in_place, i);
    *in_place = a != NULL;
    if (a) return a;
    return skip ? NULL : lump_alloc(L, i, elem, res);
}

static bk_result load_header(q3_loader *L)
{
    bk_file *f = L->f;
    bk_ctx *ctx = L->ctx;
    const uint8_t *d = f->data;
    const bk_version_desc *v = bk_family_version(&bk_family_q3, d, f->size);
    if (f->size < 8 || memcmp(d, "IBSP", 4) != 0) {
        char m[5] = {0};
        if (f->size >= 4) memcpy(m, d, 4);
        BK_ERR(ctx, BK_EUNSUPPORTED, "header", BK_NO_INDEX, 0,
               "'%s' maps (Raven / Ritual engines) are not supported; only IBSP v46 and v47", m);
        return BK_EUNSUPPORTED;
    }
    int32_t ver = bk_rd_i32le(d + 4);
    if (!v || !v->supported) {
        if (v) /* a version recognised to be refused */
            BK_ERR(ctx, BK_EVERSION, "header", BK_NO_INDEX, 4,
                   "IBSP version %d is a %s map, not Quake 3; only IBSP v46 (Quake 3) and v47 "
                   "(RTCW / Wolfenstein: ET) are supported", (int)ver, v->name);
        else
            BK_ERR(ctx, BK_EVERSION, "header", BK_NO_INDEX, 4,
                   "IBSP version %d is not supported; only v46 (Quake 3) and v47 (RTCW / ET)", (int)ver);
        return BK_EVERSION; /* the header decides everything: stop even in validate mode */
    }
    if (f->size < Q3_HEADER_SIZE) {
        BK_ERR(ctx, BK_ETRUNCATED, "header", BK_NO_INDEX, 0, "file is %zu bytes, the IBSP header needs %d",
               f->size, Q3_HEADER_SIZE);
        return BK_ETRUNCATED;
    }
    f->version = v;
    L->m->version = ver;
    f->info.version = ver;
    snprintf(f->info.variant, sizeof f->info.variant, "%s", v->variant);
    const bk_dir_layout *dir = v->dir;
    BK_TRY(bk_info_set_lumps(&f->info, BK_Q3_LUMP_COUNT));
    for (int i = 0; i < BK_Q3_LUMP_COUNT; i++) {
        uint64_t dofs = dir->dir_offset + (uint64_t)i * dir->entry_size;
        int32_t ofs = bk_rd_i32le(d + dofs + dir->ofs_field), len = bk_rd_i32le(d + dofs + dir->len_field);
        bk_lump_info *li = &f->info.lumps[i];
        snprintf(li->name, sizeof li->name, "%s", LN(i));
        li->offset = (uint64_t)(uint32_t)ofs;
        li->length = (uint64_t)(uint32_t)len;
        li->uncompressed = li->length;
        li->count = -1;
        q3_lump *q = &L->l[i];
        q->ok = false;
        q->count = 0;
        bk_lump_span sp;
        BK_TRY(bk_lump_locate(ctx, LN(i), dir->header_size, dir->overlap_warns, ofs, len, f->size, dofs, &sp));
        if (!sp.ok) continue;
        if (i == BK_Q3_LUMP_VISIBILITY && sp.len != 0 && sp.len < 8) {
            BK_ERR(ctx, BK_ELUMP_SIZE, LN(i), BK_NO_INDEX, dofs, "visibility lump of %d bytes has no 8-byte header",
                   (int)len);
            continue;
        }
        bool counted;
        BK_TRY(bk_lump_elements(ctx, LN(i), k_lumps[i].entry[0], sp.len, dofs, &q->count, &counted));
        if (!counted) continue;
        q->ofs = sp.ofs;
        q->len = sp.len;
        q->ok = true;
        if (k_lumps[i].entry[0] > 1 || i == BK_Q3_LUMP_LEAFSURFACES) li->count = q->count;
    }
    return BK_OK;
}


static bool finite_f(float x) { return x - x == 0.0f; }

/* Lump i's count elements at p decoded from its rows (q3_desc.c: stored fields -> public struct) */
static void decode_rows(int i, const uint8_t *p, uint32_t count, void *a)
{
    bk_decode_rows(&k_lumps[i].fields[0], p, k_lumps[i].entry[0], count, a, k_lumps[i].dst_size, false);
}
/* Lump i as its typed array *arr (count in *count): read in place, or decoded from the rows, or
 * NULL when skip (a file only checked keeps none; the caller checks element by element) */
#define LOAD_ROWS(lump_, arr_, cnt_, skip_)                                                                \
    do {                                                                                              \
        bool ip_;                                                                                     \
        bk_result r_ = BK_OK;                                                                         \
        (arr_) = lump_array(L, (lump_), sizeof *(arr_), (skip_), &ip_, &r_);                                 \
        if (r_ != BK_OK) return r_;                                                                   \
        (cnt_) = L->l[lump_].count;                                                                      \
        if (!ip_ && (arr_)) decode_rows((lump_), lump_ptr(L, (lump_)), (cnt_), (arr_));                        \
    } while (0)

/* shaders and fogs: their names copied up to the NUL (never read in place) */
static bk_result load_shaders(q3_loader *L)
{
    bk_q3_map *m = L->m;
    bk_ctx *ctx = L->ctx;
    bk_result r = BK_OK;
    m->shaders = lump_alloc(L, BK_Q3_LUMP_SHADERS, sizeof *m->shaders, &r);
    if (!m->shaders) return r;
    m->shader_count = L->l[BK_Q3_LUMP_SHADERS].count;
    const uint8_t *p = lump_ptr(L, BK_Q3_LUMP_SHADERS);
    decode_rows(BK_Q3_LUMP_SHADERS, p, m->shader_count, m->shaders);
    for (uint32_t i = 0; i < m->shader_count; i++, p += Q3_SHADER_SIZE) {
        bk_copy_name(m->shaders[i].name, sizeof m->shaders[i].name, p, 64);
        if (memchr(p, 0, 64) == NULL)
            BK_WARN(ctx, BK_EFORMAT, LN(BK_Q3_LUMP_SHADERS), i, EOFS(L, BK_Q3_LUMP_SHADERS, i),
                    "shader name is not NUL-terminated within 64 bytes");
        if (m->shaders[i].name[0] == 0)
            BK_WARN(ctx, BK_EFORMAT, LN(BK_Q3_LUMP_SHADERS), i, EOFS(L, BK_Q3_LUMP_SHADERS, i), "empty shader name");
    }
    return BK_OK;
}

static bk_result load_planes(q3_loader *L)
{
    bk_q3_map *m = L->m;
    bk_ctx *ctx = L->ctx;
    /* only queries read the planes: a file only checked keeps none */
    LOAD_ROWS(BK_Q3_LUMP_PLANES, m->planes, m->plane_count, ctx->check_only);
    const uint8_t *p = lump_ptr(L, BK_Q3_LUMP_PLANES);
    for (uint32_t i = 0; i < m->plane_count; i++, p += Q3_PLANE_SIZE) {
        bk_q3_plane scratch, *pl = m->planes ? &m->planes[i] : &scratch;
        if (!m->planes) decode_rows(BK_Q3_LUMP_PLANES, p, 1, &scratch);
        if (!bk_finite3(pl->normal) || !finite_f(pl->dist))
            BK_ERR(ctx, BK_EFORMAT, LN(BK_Q3_LUMP_PLANES), i, EOFS(L, BK_Q3_LUMP_PLANES, i), "non-finite plane");
    }
    return BK_OK;
}

static bk_result load_models(q3_loader *L)
{
    bk_q3_map *m = L->m;
    LOAD_ROWS(BK_Q3_LUMP_MODELS, m->models, m->model_count, false);
    for (uint32_t i = 0; i < m->model_count; i++) {
        const bk_q3_model *e = &m->models[i];
        if (!bk_finite3(e->mins) || !bk_finite3(e->maxs))
            BK_ERR(L->ctx, BK_EFORMAT, LN(BK_Q3_LUMP_MODELS), i, EOFS(L, BK_Q3_LUMP_MODELS, i), "non-finite bounds");
    }
    return BK_OK;
}

static bk_result load_vertices(q3_loader *L)
{
    bk_q3_map *m = L->m;
    bk_ctx *ctx = L->ctx;
    /* nothing else checked reads the vertices: a file only checked keeps none (the largest lump) */
    LOAD_ROWS(BK_Q3_LUMP_DRAWVERTS, m->verts, m->vert_count, ctx->check_only);
    const uint8_t *p = lump_ptr(L, BK_Q3_LUMP_DRAWVERTS);
    uint32_t bad_attr = 0;
    for (uint32_t i = 0; i < m->vert_count; i++, p += Q3_VERT_SIZE) {
        bk_q3_vertex scratch, *v = m->verts ? &m->verts[i] : &scratch;
        if (!m->verts) decode_rows(BK_Q3_LUMP_DRAWVERTS, p, 1, &scratch);
        if (!bk_finite3(v->xyz) || fabsf(v->xyz[0]) > 1e9f || fabsf(v->xyz[1]) > 1e9f || fabsf(v->xyz[2]) > 1e9f)
            BK_ERR(ctx, BK_EFORMAT, LN(BK_Q3_LUMP_DRAWVERTS), i, EOFS(L, BK_Q3_LUMP_DRAWVERTS, i),
                   "non-finite or absurd vertex position");
        if (!bk_finite3(v->normal) || !finite_f(v->st[0]) || !finite_f(v->st[1]) || !finite_f(v->lm[0]) ||
            !finite_f(v->lm[1])) {
            if (bad_attr++ == 0)
                BK_WARN(ctx, BK_EFORMAT, LN(BK_Q3_LUMP_DRAWVERTS), i, EOFS(L, BK_Q3_LUMP_DRAWVERTS, i),
                        "non-finite normal or texture coordinate (cleaned on export)");
        }
    }
    return BK_OK;
}

static bk_result load_fogs(q3_loader *L)
{
    bk_q3_map *m = L->m;
    bk_result r = BK_OK;
    m->fogs = lump_alloc(L, BK_Q3_LUMP_FOGS, sizeof *m->fogs, &r);
    if (!m->fogs) return r;
    m->fog_count = L->l[BK_Q3_LUMP_FOGS].count;
    const uint8_t *p = lump_ptr(L, BK_Q3_LUMP_FOGS);
    decode_rows(BK_Q3_LUMP_FOGS, p, m->fog_count, m->fogs);
    for (uint32_t i = 0; i < m->fog_count; i++, p += Q3_FOG_SIZE)
        bk_copy_name(m->fogs[i].shader, sizeof m->fogs[i].shader, p, 64);
    return BK_OK;
}

/* every array lump from its rows; a loader of its own only where a lump has checks of its own */
static bk_result load_arrays(q3_loader *L)
{
    bk_q3_map *m = L->m;
    BK_TRY(load_shaders(L));
    BK_TRY(load_planes(L));
    LOAD_ROWS(BK_Q3_LUMP_NODES, m->nodes, m->node_count, false);
    LOAD_ROWS(BK_Q3_LUMP_LEAFS, m->leafs, m->leaf_count, false);
    LOAD_ROWS(BK_Q3_LUMP_LEAFSURFACES, m->leafsurfaces, m->leafsurface_count, false);
    LOAD_ROWS(BK_Q3_LUMP_LEAFBRUSHES, m->leafbrushes, m->leafbrush_count, false);
    LOAD_ROWS(BK_Q3_LUMP_DRAWINDEXES, m->indexes, m->index_count, false);
    BK_TRY(load_models(L));
    LOAD_ROWS(BK_Q3_LUMP_BRUSHES, m->brushes, m->brush_count, false);
    LOAD_ROWS(BK_Q3_LUMP_BRUSHSIDES, m->brushsides, m->brushside_count, false);
    BK_TRY(load_vertices(L));
    BK_TRY(load_fogs(L));
    LOAD_ROWS(BK_Q3_LUMP_SURFACES, m->surfaces, m->surface_count, false);
    m->lightmaps = lump_ptr(L, BK_Q3_LUMP_LIGHTMAPS);
    m->lightmap_count = L->l[BK_Q3_LUMP_LIGHTMAPS].count;
    return BK_OK;
}

/* ---- cross-reference checks --------------------------------------------------------------- */

/* The reference checker over lump `lump` (the rows of q3_desc.c) */
static bk_result check_lump_refs(q3_loader *L, int lump)
{
    bk_ref_lump lumps[BK_Q3_LUMP_COUNT];
    for (int i = 0; i < BK_Q3_LUMP_COUNT; i++) {
        lumps[i].data = lump_ptr(L, i);
        lumps[i].count = L->l[i].count;
        lumps[i].ofs = L->l[i].ofs;
        lumps[i].compressed = false;
    }
    const bk_ref_input in = {&bk_family_q3, 0, lumps, NULL, NULL};
    return bk_check_refs(L->ctx, &in, (uint32_t)lump);
}

/* What the rows cannot say: an index against a count only known here (*ok false when bad) */
static bk_result check_index(q3_loader *L, int lump, int64_t i, const char *what, int64_t val, uint64_t count,
                             bool *ok)
{
    if (val >= 0 && (uint64_t)val < count) return BK_OK;
    *ok = false;
    BK_ERR(L->ctx, BK_EINDEX, LN(lump), i, EOFS(L, lump, i), "%s %d out of range (0..%u)", what, (int)val,
           (unsigned)count);
    return BK_OK;
}

static bk_result check_range(q3_loader *L, int lump, int64_t i, const char *what, int32_t first, int32_t n,
                             uint32_t count, bool *ok)
{
    if (first >= 0 && n >= 0 && bk_range_ok((uint64_t)first, (uint64_t)n, count)) return BK_OK;
    *ok = false;
    BK_ERR(L->ctx, BK_EINDEX, LN(lump), i, EOFS(L, lump, i), "%s range [%d, %d+%d) outside 0..%u", what, (int)first,
           (int)first, (int)n, (unsigned)count);
    return BK_OK;
}

/* node children: >= 0 a node, else -1 - leaf */
static bk_result check_nodes(q3_loader *L)
{
    bk_q3_map *m = L->m;
    BK_TRY(check_lump_refs(L, BK_Q3_LUMP_NODES));
    bool ok = true;
    /* the world's tree starts at node 0 (ioquake3's CMod_LoadNodes: "Map with no nodes") */
    if (m->node_count == 0)
        BK_ERR(L->ctx, BK_EFORMAT, LN(BK_Q3_LUMP_NODES), BK_NO_INDEX, L->l[BK_Q3_LUMP_NODES].ofs,
               "no nodes: the world's tree starts at node 0 (the engine refuses a map without)");
    for (uint32_t i = 0; i < m->node_count; i++)
        for (int c = 0; c < 2; c++) {
            int32_t ch = m->nodes[i].children[c];
            if (ch >= 0) BK_TRY(check_index(L, BK_Q3_LUMP_NODES, i, "child node", ch, m->node_count, &ok));
            else BK_TRY(check_index(L, BK_Q3_LUMP_NODES, i, "child leaf", -(int64_t)ch - 1, m->leaf_count, &ok));
        }
    return BK_OK;
}

/* leaf cluster and area: -1 (none) or an index. A cluster holds one leaf at least, so it is below
 * the leaf count (the engine sizes its cluster table by the largest); with visibility it is below
 * the visibility's cluster count too (check_vis) */
static bk_result check_leafs(q3_loader *L)
{
    bk_q3_map *m = L->m;
    BK_TRY(check_lump_refs(L, BK_Q3_LUMP_LEAFS));
    for (uint32_t i = 0; i < m->leaf_count; i++) {
        const bk_q3_leaf *e = &m->leafs[i];
        if (e->cluster < -1 || (e->cluster >= 0 && (uint32_t)e->cluster >= m->leaf_count))
            BK_ERR(L->ctx, BK_EINDEX, LN(BK_Q3_LUMP_LEAFS), i, EOFS(L, BK_Q3_LUMP_LEAFS, i),
                   "cluster %d out of range (-1 for none, or below the %u leafs: a cluster holds one at least)",
                   (int)e->cluster, (unsigned)m->leaf_count);
        if (e->area < -1)
            BK_ERR(L->ctx, BK_EINDEX, LN(BK_Q3_LUMP_LEAFS), i, EOFS(L, BK_Q3_LUMP_LEAFS, i),
                   "area %d out of range (-1 for none, or an area index)", (int)e->area);
    }
    return BK_OK;
}

/* a fog's visible side: a side of its brush */
static bk_result check_fogs(q3_loader *L)
{
    bk_q3_map *m = L->m;
    BK_TRY(check_lump_refs(L, BK_Q3_LUMP_FOGS));
    bool ok = true;
    for (uint32_t i = 0; i < m->fog_count; i++) {
        const bk_q3_fog *g = &m->fogs[i];
        if (g->brush >= 0 && (uint32_t)g->brush < m->brush_count && g->visible_side != -1)
            BK_TRY(check_index(L, BK_Q3_LUMP_FOGS, i, "visible side", g->visible_side, m->brushes[g->brush].num_sides,
                               &ok));
    }
    return BK_OK;
}

static bk_result check_surfaces(q3_loader *L);
static bk_result check_vis(q3_loader *L);

static bk_result check_refs(q3_loader *L)
{
    bk_q3_map *m = L->m;
    BK_TRY(check_nodes(L));
    BK_TRY(check_leafs(L));
    BK_TRY(check_lump_refs(L, BK_Q3_LUMP_LEAFSURFACES));
    BK_TRY(check_lump_refs(L, BK_Q3_LUMP_LEAFBRUSHES));
    if (m->model_count < k_lumps[BK_Q3_LUMP_MODELS].min_count)
        BK_ERR(L->ctx, BK_EFORMAT, LN(BK_Q3_LUMP_MODELS), BK_NO_INDEX, L->l[BK_Q3_LUMP_MODELS].ofs,
               "no models: a map needs at least the world model");
    BK_TRY(check_lump_refs(L, BK_Q3_LUMP_MODELS));
    BK_TRY(check_lump_refs(L, BK_Q3_LUMP_BRUSHES));
    BK_TRY(check_lump_refs(L, BK_Q3_LUMP_BRUSHSIDES));
    BK_TRY(check_fogs(L));
    BK_TRY(check_surfaces(L));
    return check_vis(L);
}

/* A surface's own checks after its shader (a row): type, lightmap, vertex and index ranges, the
 * indexes inside its vertices, the patch size. vrange: its vertices can be followed. */
static bk_result check_surface(q3_loader *L, uint32_t i, bool ok, uint32_t *max_lm, bool *any_lm)
{
    bk_q3_map *m = L->m;
    bk_ctx *ctx = L->ctx;
    const bk_q3_surface *s = &m->surfaces[i];
    const int lu = BK_Q3_LUMP_SURFACES;
    if (s->type == BK_Q3_MST_FOLIAGE && (L->f->version->traits & BK_VT_FOLIAGE)) {
        /* ET foliage: a small mesh instanced over a surface; its mesh is checked like a soup */
        m->foliage_count++;
    } else if (s->type < BK_Q3_MST_PLANAR || s->type > BK_Q3_MST_FLARE) {
        BK_ERR(ctx, BK_EFORMAT, LN(lu), i, EOFS(L, lu, i), "unknown surface type %d", (int)s->type);
        return BK_OK;
    }
    if (s->type == BK_Q3_MST_PATCH) m->patch_count++;
    if (s->type == BK_Q3_MST_FLARE) m->flare_count++;
    if (s->lightmap >= 0) {
        *any_lm = true;
        if ((uint32_t)s->lightmap > *max_lm && s->lightmap < Q3_MAX_EXTERNAL_LIGHTMAPS) *max_lm = (uint32_t)s->lightmap;
        if (m->lightmap_count > 0) BK_TRY(check_index(L, lu, i, "lightmap", s->lightmap, m->lightmap_count, &ok));
        else if (s->lightmap >= Q3_MAX_EXTERNAL_LIGHTMAPS)
            BK_ERR(ctx, BK_EINDEX, LN(lu), i, EOFS(L, lu, i),
                   "lightmap %d with an empty lightmap lump: more external lightmaps than plausible (%d)",
                   (int)s->lightmap, Q3_MAX_EXTERNAL_LIGHTMAPS);
    } else if (s->lightmap < -4) {
        BK_TRY(check_index(L, lu, i, "lightmap", s->lightmap, m->lightmap_count, &ok));
    }
    BK_TRY(check_range(L, lu, i, "vertex", s->first_vert, s->num_verts, m->vert_count, &ok));
    bool vrange = ok;
    if (s->type == BK_Q3_MST_PLANAR || s->type == BK_Q3_MST_TRIANGLE_SOUP || s->type == BK_Q3_MST_FOLIAGE) {
        bool irange = true;
        BK_TRY(check_range(L, lu, i, "index", s->first_index, s->num_indexes, m->index_count, &irange));
        if (s->num_indexes % 3 != 0)
            BK_ERR(ctx, BK_EFORMAT, LN(lu), i, EOFS(L, lu, i), "%d indexes is not a whole number of triangles",
                   (int)s->num_indexes);
        for (int32_t k = 0; irange && vrange && k < s->num_indexes; k++) {
            int32_t ix = m->indexes[s->first_index + k];
            if (ix < 0 || ix >= s->num_verts) {
                uint64_t at = L->l[BK_Q3_LUMP_DRAWINDEXES].ofs + 4 * ((uint64_t)s->first_index + (uint64_t)k);
                BK_ERR(ctx, BK_EINDEX, LN(BK_Q3_LUMP_DRAWINDEXES), (int64_t)s->first_index + k, at,
                       "index %d of surface %u outside its %d vertices", (int)ix, i, (int)s->num_verts);
                break;
            }
        }
    } else if (s->type == BK_Q3_MST_PATCH) {
        if (s->patch_w < 3 || s->patch_h < 3 || !(s->patch_w & 1) || !(s->patch_h & 1)) {
            BK_ERR(ctx, BK_EFORMAT, LN(lu), i, EOFS(L, lu, i), "patch size %dx%d: both sides must be odd and at least 3",
                   (int)s->patch_w, (int)s->patch_h);
        } else if ((int64_t)s->patch_w * s->patch_h != (int64_t)s->num_verts) {
            BK_ERR(ctx, BK_EFORMAT, LN(lu), i, EOFS(L, lu, i), "patch %dx%d needs %lld control points, has %d",
                   (int)s->patch_w, (int)s->patch_h, (long long)s->patch_w * s->patch_h, (int)s->num_verts);
        }
    }
    return BK_OK;
}

/* surfaces: the renderer's inputs */
static bk_result check_surfaces(q3_loader *L)
{
    bk_q3_map *m = L->m;
    bk_ctx *ctx = L->ctx;
    BK_TRY(check_lump_refs(L, BK_Q3_LUMP_SURFACES));
    uint32_t max_lm = 0, bad_fogs = 0;
    int64_t first_bad_fog = -1;
    bool any_lm = false;
    for (uint32_t i = 0; i < m->surface_count; i++) {
        const bk_q3_surface *s = &m->surfaces[i];
        /* DarkPlaces and the Quake 3 renderer both live with a bad fog number (real maps,
         * e.g. OpenArena's aggressor, have them): a warning, and no fog */
        if (s->fog != -1 && (s->fog < 0 || (uint32_t)s->fog >= m->fog_count)) {
            if (bad_fogs++ == 0) first_bad_fog = i;
        }
        bool shader_ok = s->shader >= 0 && (uint32_t)s->shader < m->shader_count; /* reported by its row */
        BK_TRY(check_surface(L, i, shader_ok, &max_lm, &any_lm));
    }
    if (bad_fogs)
        BK_WARN(ctx, BK_EINDEX, LN(BK_Q3_LUMP_SURFACES), first_bad_fog, EOFS(L, BK_Q3_LUMP_SURFACES, first_bad_fog),
                "%u surface(s) name a fog outside 0..%u (first here); treated as no fog", bad_fogs, m->fog_count);
    if (m->lightmap_count == 0 && any_lm) m->external_lightmaps = max_lm + 1;
    return BK_OK;
}

/* the visibility header, and the leafs' clusters against it */
static bk_result check_vis(q3_loader *L)
{
    bk_q3_map *m = L->m;
    bk_ctx *ctx = L->ctx;
    bool ok = true;
    /* visibility header */
    const q3_lump *vl = &L->l[BK_Q3_LUMP_VISIBILITY];
    if (vl->ok && vl->len >= 8) {
        const uint8_t *p = lump_ptr(L, BK_Q3_LUMP_VISIBILITY);
        int32_t nc = bk_rd_i32le(p), bpc = bk_rd_i32le(p + 4);
        uint64_t need = (uint64_t)(nc < 0 ? 0 : nc) * (uint64_t)(bpc < 0 ? 0 : bpc);
        if (nc < 0 || bpc < 0 || (uint64_t)bpc * 8 < (uint64_t)nc) {
            BK_ERR(ctx, BK_EFORMAT, LN(BK_Q3_LUMP_VISIBILITY), BK_NO_INDEX, vl->ofs,
                   "%d clusters with %d bytes per cluster is inconsistent", (int)nc, (int)bpc);
        } else if (need > vl->len - 8) {
            BK_ERR(ctx, BK_ETRUNCATED, LN(BK_Q3_LUMP_VISIBILITY), BK_NO_INDEX, vl->ofs,
                   "%d clusters x %d bytes need %llu bytes, the lump holds %llu", (int)nc, (int)bpc,
                   (unsigned long long)need, (unsigned long long)(vl->len - 8));
        } else {
            m->cluster_count = nc;
            m->bytes_per_cluster = bpc;
            m->vis = p + 8;
        }
    }
    for (uint32_t i = 0; i < m->leaf_count; i++) {
        int32_t c = m->leafs[i].cluster;
        if (c >= 0 && m->vis && c >= m->cluster_count) {
            BK_TRY(check_index(L, BK_Q3_LUMP_LEAFS, i, "cluster", c, (uint32_t)m->cluster_count, &ok));
        }
    }
    return BK_OK;
}

/* Light grid dimensions from model 0's bounds and the worldspawn "gridsize" (tr_bsp.c). */
static bk_result check_lightgrid(q3_loader *L)
{
    bk_q3_map *m = L->m;
    bk_ctx *ctx = L->ctx;
    bk_q3_lightgrid *g = &m->grid;
    g->size[0] = 64;
    g->size[1] = 64;
    g->size[2] = 128;
    const char *gs = NULL;
    if (L->f->entities.count > 0) gs = bk_entity_get(&L->f->entities.items[0], "gridsize");
    if (gs) {
        float v[3];
        if (bk_parse_vec3(gs, v) && v[0] >= 1 && v[1] >= 1 && v[2] >= 1 &&
            v[0] < 1e6f && v[1] < 1e6f && v[2] < 1e6f) {
            memcpy(g->size, v, sizeof v);
        } else {
            BK_WARN(ctx, BK_EFORMAT, "entities", 0, BK_NO_OFFSET, "worldspawn gridsize '%s' is not three positive numbers",
                    gs);
        }
    }
    const q3_lump *gl = &L->l[BK_Q3_LUMP_LIGHTGRID];
    g->cell_count = gl->ok ? gl->count : 0;
    if (m->model_count == 0 || !gl->ok || gl->len == 0) return BK_OK;
    const bk_q3_model *w = &m->models[0];
    uint64_t total = 1;
    bool sane = true;
    for (int k = 0; k < 3; k++) {
        double lo = g->size[k] * ceil(w->mins[k] / g->size[k]);
        double hi = g->size[k] * floor(w->maxs[k] / g->size[k]);
        double n = (hi - lo) / g->size[k] + 1;
        if (!(n >= 1 && n < 1e6)) {
            sane = false;
            break;
        }
        g->origin[k] = (float)lo;
        g->bounds[k] = (int32_t)n;
        total *= (uint64_t)g->bounds[k];
    }
    if (!sane) {
        BK_WARN(ctx, BK_EFORMAT, LN(BK_Q3_LUMP_LIGHTGRID), BK_NO_INDEX, gl->ofs,
                "world bounds give no usable light grid");
        memset(g->bounds, 0, sizeof g->bounds);
        return BK_OK;
    }
    g->expected_cells = total;
    if (total != g->cell_count) {
        BK_WARN(ctx, BK_ELUMP_SIZE, LN(BK_Q3_LUMP_LIGHTGRID), BK_NO_INDEX, gl->ofs,
                "light grid mismatch: the lump holds %llu cells, the world bounds and gridsize %g %g %g give "
                "%d x %d x %d = %llu (the engine ignores the grid)",
                (unsigned long long)g->cell_count, g->size[0], g->size[1], g->size[2], (int)g->bounds[0],
                (int)g->bounds[1], (int)g->bounds[2], (unsigned long long)total);
        return BK_OK;
    }
    g->cells = lump_ptr(L, BK_Q3_LUMP_LIGHTGRID);
    return BK_OK;
}

static bk_result q3_load(bk_file *f, bk_ctx *ctx)
{
    q3_loader L;
    memset(&L, 0, sizeof L);
    L.f = f;
    L.ctx = ctx;
    bk_result r = BK_OK;
    q3_impl *q = bk_alloc_array(ctx, 1, sizeof(q3_impl), &r);
    if (!q) return r;
    L.m = &q->map;
    L.in_place = &q->in_place;
    f->impl = q;
    BK_TRY(load_header(&L));
    if (ctx->errors && !ctx->keep_going) return ctx->first_error;
    BK_TRY(load_arrays(&L));
    const q3_lump *el = &L.l[BK_Q3_LUMP_ENTITIES];
    if (el->ok) {
        /* the text usually ends with a NUL */
        size_t n = (size_t)el->len;
        const uint8_t *t = lump_ptr(&L, BK_Q3_LUMP_ENTITIES);
        const uint8_t *z = memchr(t, 0, n);
        if (z) n = (size_t)(z - t);
        BK_TRY(bk_load_entities(f, ctx, "entities", t, n, el->ofs));
    }
    BK_TRY(check_refs(&L));
    BK_TRY(check_lightgrid(&L));
    /* everything but the lightmaps (which the scene's atlas reads) and the arrays read in place
     * now lives in arrays, or is read again only by queries: let a mapped input's pages go */
    for (int i = 0; i < BK_Q3_LUMP_COUNT; i++)
        if (i != BK_Q3_LUMP_LIGHTMAPS && L.l[i].ok && !(q->in_place & (1u << i)))
            bk_input_decoded(ctx, lump_ptr(&L, i), (size_t)L.l[i].len);

    bk_q3_map *m = L.m;
    bk_info *in = &f->info;
    bk_info_count(in, "entities", f->entities.count);
    bk_info_count(in, "surfaces", m->surface_count);
    bk_info_count(in, "faces", m->surface_count);
    bk_info_count(in, "models", m->model_count);
    bk_info_count(in, "shaders", m->shader_count);
    bk_info_count(in, "textures", m->shader_count);
    bk_info_count(in, "vertices", m->vert_count);
    bk_info_count(in, "indices", m->index_count);
    bk_info_count(in, "planes", m->plane_count);
    bk_info_count(in, "nodes", m->node_count);
    bk_info_count(in, "leafs", m->leaf_count);
    bk_info_count(in, "leafsurfaces", m->leafsurface_count);
    bk_info_count(in, "leafbrushes", m->leafbrush_count);
    bk_info_count(in, "brushes", m->brush_count);
    bk_info_count(in, "brushsides", m->brushside_count);
    bk_info_count(in, "fogs", m->fog_count);
    bk_info_count(in, "lightmaps", m->lightmap_count ? m->lightmap_count : m->external_lightmaps);
    bk_info_count(in, "external_lightmaps", m->external_lightmaps);
    bk_info_count(in, "patches", m->patch_count);
    bk_info_count(in, "flares", m->flare_count);
    if (m->foliage_count) bk_info_count(in, "foliage", m->foliage_count);
    bk_info_count(in, "lightgrid_cells", m->grid.cell_count);
    bk_info_count(in, "vis_clusters", (uint64_t)m->cluster_count);
    return BK_OK;
}

/* ---- public API ---------------------------------------------------------------------------- */

const bk_q3_map *bk_q3_map_of(const bk_file *f) { return bk_file_impl(f, BK_FORMAT_QUAKE3); }

bk_result bk_q3_lightgrid_sample(const bk_q3_map *m, const float pos[3], bk_q3_light *out)
{
    if (!m || !pos || !out) return BK_EARG;
    memset(out, 0, sizeof *out);
    const bk_q3_lightgrid *g = &m->grid;
    if (!g->cells) return BK_ENOTFOUND;
    int32_t base[3];
    float frac[3];
    for (int k = 0; k < 3; k++) {
        float v = (pos[k] - g->origin[k]) / g->size[k];
        if (!(v == v)) v = 0;
        float fl = floorf(v);
        if (fl < 0) {
            fl = 0;
            v = 0;
        }
        if (fl > (float)(g->bounds[k] - 1)) {
            fl = (float)(g->bounds[k] - 1);
            v = fl;
        }
        base[k] = (int32_t)fl;
        frac[k] = v - fl;
    }
    float total = 0, dir[3] = {0, 0, 0};
    for (int i = 0; i < 8; i++) {
        int32_t c[3];
        float factor = 1;
        bool skip = false;
        for (int k = 0; k < 3; k++) {
            int bit = (i >> k) & 1;
            c[k] = base[k] + bit;
            if (c[k] >= g->bounds[k]) {
                skip = true;
                break;
            }
            factor *= bit ? frac[k] : 1 - frac[k];
        }
        if (skip) continue;
        size_t idx = (size_t)c[0] + (size_t)c[1] * (size_t)g->bounds[0] +
                     (size_t)c[2] * (size_t)g->bounds[0] * (size_t)g->bounds[1];
        const uint8_t *d = g->cells + idx * Q3_GRIDCELL_SIZE;
        if (d[0] + d[1] + d[2] + d[3] + d[4] + d[5] == 0) continue; /* inside a wall */
        total += factor;
        for (int k = 0; k < 3; k++) {
            out->ambient[k] += factor * d[k];
            out->directed[k] += factor * d[3 + k];
        }
        float lng = d[6] * (float)(2 * 3.14159265358979 / 256), lat = d[7] * (float)(2 * 3.14159265358979 / 256);
        dir[0] += factor * cosf(lat) * sinf(lng);
        dir[1] += factor * sinf(lat) * sinf(lng);
        dir[2] += factor * cosf(lng);
    }
    if (total > 0 && total < 0.99f) {
        for (int k = 0; k < 3; k++) {
            out->ambient[k] /= total;
            out->directed[k] /= total;
        }
    }
    float len = sqrtf(dir[0] * dir[0] + dir[1] * dir[1] + dir[2] * dir[2]);
    if (len > 0)
        for (int k = 0; k < 3; k++) out->dir[k] = dir[k] / len;
    return BK_OK;
}

static bk_result q3_extract_images(const bk_file *f, const bk_options *opt, bk_scene *s);

const bk_format_ops bk_ops_q3 = {BK_FORMAT_QUAKE3, q3_probe, q3_load, q3_destroy, bk_q3_build_scene,
                                 q3_extract_images, NULL, NULL};

/* The lightmap pages of the lump as 128x128 images (the map's only embedded pixels). */
static bk_result q3_extract_images(const bk_file *f, const bk_options *opt, bk_scene *s)
{
    (void)opt;
    const bk_q3_map *m = f->impl;
    for (uint32_t i = 0; i < m->lightmap_count; i++) {
        const uint8_t *src = m->lightmaps + (size_t)i * Q3_LIGHTMAP_BYTES;
        uint8_t *px = bk_malloc(128 * 128 * 4);
        if (!px) return BK_ENOMEM;
        for (size_t k = 0; k < 128 * 128; k++) {
            px[k * 4] = src[k * 3];
            px[k * 4 + 1] = src[k * 3 + 1];
            px[k * 4 + 2] = src[k * 3 + 2];
            px[k * 4 + 3] = 255;
        }
        char name[32];
        snprintf(name, sizeof name, "lm_%04u", i);
        int32_t idx;
        bk_result r = bk_scene_add_image(s, name, 128, 128, px, &idx);
        if (r != BK_OK) {
            bk_free(px);
            return r;
        }
        s->images[idx].is_lightmap = 1;
    }
    return BK_OK;
}
