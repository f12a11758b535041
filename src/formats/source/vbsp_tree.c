/* Source VBSP tree lumps: visibility, areas and portals, brushes, leaf lists, leafs (both
 * versions), nodes and models, one loader per lump with its references checked. */
#include "vbsp_loader.h"

/* visibility: numclusters, then {pvs, pas} byte offsets per cluster */
static bk_result load_visibility(vbsp_ld *L)
{
    bk_source_map *p = L->p;
    bk_ctx *ctx = L->ctx;
    const bk_source_lump *vis = &p->lumps[BK_SRC_LUMP_VISIBILITY];
    if (vis->size >= 4) {
        int32_t nc = bk_rd_i32le(vis->data);
        if (nc < 0 || (uint64_t)nc * 8 > vis->size - 4) {
            BK_ERR(ctx, BK_ELUMP_SIZE, "visibility", BK_NO_INDEX, vis->offset,
                   "%d clusters do not fit in %zu bytes", nc, vis->size);
        } else {
            p->cluster_count = (uint32_t)nc;
            for (int32_t c = 0; c < nc; c++)
                for (int k = 0; k < 2; k++) {
                    int32_t bo = bk_rd_i32le(vis->data + 4 + 8 * (size_t)c + 4 * k);
                    if (bo < 0 || (size_t)bo >= vis->size)
                        BK_ERR(ctx, BK_EINDEX, "visibility", c, eofs(L, BK_SRC_LUMP_VISIBILITY, 4 + 8 * (uint64_t)c, 1),
                               "%s offset %d outside the %zu-byte lump", k ? "PAS" : "PVS", bo, vis->size);
                }
        }
    } else if (vis->size) {
        BK_ERR(ctx, BK_ELUMP_SIZE, "visibility", BK_NO_INDEX, vis->offset, "lump of %zu bytes has no header", vis->size);
    }

    return BK_OK;
}

/* the tree's arrays are decoded from their rows (source_desc.c); what stays here is what each needs
 * checked beyond the reference rows */
static bk_result load_areas(vbsp_ld *L)
{
    bk_source_map *p = L->p;
    /* the portals first: the areas' references count them */
    DECODE_ROWS(p->areaportals, BK_SRC_LUMP_AREAPORTALS, 1, p->areaportal_count);
    DECODE_ROWS(p->areas, BK_SRC_LUMP_AREAS, 1, p->area_count);
    BK_TRY(bk_vbsp_check_lump_refs(L, BK_SRC_LUMP_AREAS));
    BK_TRY(lump_count(L, BK_SRC_LUMP_CLIPPORTALVERTS, &p->clip_portal_vert_count));
    return bk_vbsp_check_lump_refs(L, BK_SRC_LUMP_AREAPORTALS);
}

static bk_result load_brushes(vbsp_ld *L)
{
    bk_source_map *p = L->p;
    DECODE_ROWS(p->brushsides, BK_SRC_LUMP_BRUSHSIDES, 1, p->brushside_count);
    BK_TRY(bk_vbsp_check_lump_refs(L, BK_SRC_LUMP_BRUSHSIDES));
    DECODE_ROWS(p->brushes, BK_SRC_LUMP_BRUSHES, 1, p->brush_count);
    return bk_vbsp_check_lump_refs(L, BK_SRC_LUMP_BRUSHES);
}

/* the leafs' lists: faces and brushes */
static bk_result load_leaf_lists(vbsp_ld *L)
{
    bk_source_map *p = L->p;
    DECODE_ROWS(p->leaffaces, BK_SRC_LUMP_LEAFFACES, 1, p->leafface_count);
    BK_TRY(bk_vbsp_check_lump_refs(L, BK_SRC_LUMP_LEAFFACES));
    DECODE_ROWS(p->leafbrushes, BK_SRC_LUMP_LEAFBRUSHES, 1, p->leafbrush_count);
    return bk_vbsp_check_lump_refs(L, BK_SRC_LUMP_LEAFBRUSHES);
}

static bk_result load_leafs(vbsp_ld *L)
{
    bk_source_map *p = L->p;
    bk_ctx *ctx = L->ctx;
    uint32_t n;
    /* the leafs' column by their lump version (the rows: 56 bytes with an ambient light cube, or 32);
     * a size that fits only the other leaf size is read as that (a repair, warned) */
    const bk_lump_desc *row = &k_lumps[BK_SRC_LUMP_LEAFS];
    int32_t lv = p->lumps[BK_SRC_LUMP_LEAFS].version;
    uint8_t *col = &L->m->column[BK_SRC_LUMP_LEAFS];
    size_t les = row->entry[*col];
    size_t lsz = p->lumps[BK_SRC_LUMP_LEAFS].size, other = les == row->entry[0] ? row->entry[1] : row->entry[0];
    if (lsz % les && lsz % other == 0) {
        BK_WARN(ctx, BK_EFORMAT, "leafs", BK_NO_INDEX, p->lumps[BK_SRC_LUMP_LEAFS].offset,
                "lump version %d suggests %zu-byte leafs but the size fits %zu-byte ones: read as those", lv, les,
                other);
        les = other;
        *col = les == row->entry[0] ? 0 : 1;
    }
    p->leaf_version = les == row->entry[0] ? 0 : 1;
    DECODE_ROWS(p->leafs, BK_SRC_LUMP_LEAFS, 1, n);
    p->leaf_count = n;
    /* area:9 and flags:7 share one word, decoded whole into area: parted here */
    for (uint32_t i = 0; i < n; i++) {
        bk_source_leaf *l = &p->leafs[i];
        l->flags = l->area >> 9;
        l->area &= 0x1ff;
    }
    BK_TRY(bk_vbsp_check_lump_refs(L, BK_SRC_LUMP_LEAFS));
    /* cluster and area: against counts only known here (area is 9 bits of a shared word) */
    for (uint32_t i = 0; i < n; i++) {
        const bk_source_leaf *l = &p->leafs[i];
        uint64_t o = eofs(L, BK_SRC_LUMP_LEAFS, i, les);
        if (p->cluster_count && (l->cluster < -1 || l->cluster >= (int32_t)p->cluster_count))
            BK_ERR(ctx, BK_EINDEX, "leafs", i, o, "cluster %d out of range (%u clusters)", l->cluster, p->cluster_count);
        if (p->area_count && l->area >= p->area_count)
            BK_ERR(ctx, BK_EINDEX, "leafs", i, o, "area %u out of range (%u areas)", l->area, p->area_count);
    }
    return BK_OK;
}

/* node children: >= 0 a node, else -1 - leaf */
static bk_result load_nodes(vbsp_ld *L)
{
    bk_source_map *p = L->p;
    uint32_t n;
    DECODE_ROWS(p->nodes, BK_SRC_LUMP_NODES, 1, n);
    p->node_count = n;
    BK_TRY(bk_vbsp_check_lump_refs(L, BK_SRC_LUMP_NODES));
    for (uint32_t i = 0; i < n; i++)
        for (int k = 0; k < 2; k++) {
            int32_t c = p->nodes[i].children[k];
            if (c >= 0 ? (uint32_t)c >= n : (uint64_t)(-(int64_t)c - 1) >= p->leaf_count)
                BK_ERR(L->ctx, BK_EINDEX, "nodes", i, eofs(L, BK_SRC_LUMP_NODES, i, 32),
                       "child %d out of range (%u nodes, %u leafs)", c, n, p->leaf_count);
        }
    return BK_OK;
}

static bk_result load_models(vbsp_ld *L)
{
    bk_source_map *p = L->p;
    uint32_t n;
    DECODE_ROWS(p->models, BK_SRC_LUMP_MODELS, 1, n);
    p->model_count = n;
    BK_TRY(bk_vbsp_check_lump_refs(L, BK_SRC_LUMP_MODELS));
    if (n == 0 && p->face_count)
        BK_ERR(L->ctx, BK_EFORMAT, "models", BK_NO_INDEX, p->lumps[BK_SRC_LUMP_MODELS].offset,
               "map has faces but no world model");
    return BK_OK;
}

/* the tree and what it reaches, one loader per lump (as Quake III's CMod_Load<Lump>) */
bk_result bk_vbsp_load_tree(vbsp_ld *L)
{
    BK_TRY(load_visibility(L));
    BK_TRY(load_areas(L));
    BK_TRY(load_brushes(L));
    BK_TRY(load_leaf_lists(L));
    BK_TRY(load_leafs(L));
    BK_TRY(load_nodes(L));
    return load_models(L);
}
