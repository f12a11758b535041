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

static bk_result load_areas(vbsp_ld *L)
{
    bk_source_map *p = L->p;
    uint32_t n;
    BK_TRY(lump_count(L, BK_SRC_LUMP_AREAPORTALS, &n));
    ALLOC_N(p->areaportals, n);
    p->areaportal_count = n;
    BK_TRY(lump_count(L, BK_SRC_LUMP_AREAS, &n));
    ALLOC_N(p->areas, n);
    p->area_count = n;
    const uint8_t *d = p->lumps[BK_SRC_LUMP_AREAS].data;
    for (uint32_t i = 0; i < n; i++, d += 8) {
        p->areas[i].num_portals = bk_rd_i32le(d);
        p->areas[i].first_portal = bk_rd_i32le(d + 4);
    }
    BK_TRY(bk_vbsp_check_lump_refs(L, BK_SRC_LUMP_AREAS));
    BK_TRY(lump_count(L, BK_SRC_LUMP_CLIPPORTALVERTS, &p->clip_portal_vert_count));
    d = p->lumps[BK_SRC_LUMP_AREAPORTALS].data;
    for (uint32_t i = 0; i < p->areaportal_count; i++, d += 12) {
        bk_source_areaportal *a = &p->areaportals[i];
        a->portal_key = bk_rd_u16le(d);
        a->other_area = bk_rd_u16le(d + 2);
        a->first_clip_vert = bk_rd_u16le(d + 4);
        a->num_clip_verts = bk_rd_u16le(d + 6);
        a->planenum = bk_rd_i32le(d + 8);
    }
    return bk_vbsp_check_lump_refs(L, BK_SRC_LUMP_AREAPORTALS);
}

static bk_result load_brushes(vbsp_ld *L)
{
    bk_source_map *p = L->p;
    uint32_t n;
    BK_TRY(lump_count(L, BK_SRC_LUMP_BRUSHSIDES, &n));
    ALLOC_N(p->brushsides, n);
    p->brushside_count = n;
    const uint8_t *d = p->lumps[BK_SRC_LUMP_BRUSHSIDES].data;
    for (uint32_t i = 0; i < n; i++, d += 8) {
        bk_source_brushside *b = &p->brushsides[i];
        b->planenum = bk_rd_u16le(d);
        b->texinfo = bk_rd_i16le(d + 2);
        b->dispinfo = bk_rd_i16le(d + 4);
        b->bevel = bk_rd_i16le(d + 6);
    }
    BK_TRY(bk_vbsp_check_lump_refs(L, BK_SRC_LUMP_BRUSHSIDES));
    BK_TRY(lump_count(L, BK_SRC_LUMP_BRUSHES, &n));
    ALLOC_N(p->brushes, n);
    p->brush_count = n;
    d = p->lumps[BK_SRC_LUMP_BRUSHES].data;
    for (uint32_t i = 0; i < n; i++, d += 12) {
        p->brushes[i].firstside = bk_rd_i32le(d);
        p->brushes[i].numsides = bk_rd_i32le(d + 4);
        p->brushes[i].contents = bk_rd_i32le(d + 8);
    }
    return bk_vbsp_check_lump_refs(L, BK_SRC_LUMP_BRUSHES);
}

/* the leafs' lists: faces and brushes */
static bk_result load_leaf_lists(vbsp_ld *L)
{
    bk_source_map *p = L->p;
    uint32_t n;
    BK_TRY(lump_count(L, BK_SRC_LUMP_LEAFFACES, &n));
    ALLOC_N(p->leaffaces, n);
    p->leafface_count = n;
    const uint8_t *d = p->lumps[BK_SRC_LUMP_LEAFFACES].data;
    for (uint32_t i = 0; i < n; i++) p->leaffaces[i] = bk_rd_u16le(d + 2 * (size_t)i);
    BK_TRY(bk_vbsp_check_lump_refs(L, BK_SRC_LUMP_LEAFFACES));
    BK_TRY(lump_count(L, BK_SRC_LUMP_LEAFBRUSHES, &n));
    ALLOC_N(p->leafbrushes, n);
    p->leafbrush_count = n;
    d = p->lumps[BK_SRC_LUMP_LEAFBRUSHES].data;
    for (uint32_t i = 0; i < n; i++) p->leafbrushes[i] = bk_rd_u16le(d + 2 * (size_t)i);
    return bk_vbsp_check_lump_refs(L, BK_SRC_LUMP_LEAFBRUSHES);
}

static bk_result load_leafs(vbsp_ld *L)
{
    bk_source_map *p = L->p;
    bk_ctx *ctx = L->ctx;
    uint32_t n;
    /* leafs: lump version 0 (v19/v20 era) carries a 24-byte ambient light cube (56 bytes);
     * version 1 and Bloodlines' v17 leafs are 32 bytes */
    int32_t lv = p->lumps[BK_SRC_LUMP_LEAFS].version;
    size_t les = (lv == 0 && p->version != 17) ? 56 : 32;
    size_t lsz = p->lumps[BK_SRC_LUMP_LEAFS].size, other = les == 56 ? 32 : 56;
    if (lsz % les && lsz % other == 0) {
        BK_WARN(ctx, BK_EFORMAT, "leafs", BK_NO_INDEX, p->lumps[BK_SRC_LUMP_LEAFS].offset,
                "lump version %d suggests %zu-byte leafs but the size fits %zu-byte ones: read as those", lv, les,
                other);
        les = other;
    }
    p->leaf_version = les == 56 ? 0 : 1;
    BK_TRY(lump_count_sized(L, BK_SRC_LUMP_LEAFS, les, &n));
    ALLOC_N(p->leafs, n);
    p->leaf_count = n;
    const uint8_t *d = p->lumps[BK_SRC_LUMP_LEAFS].data;
    for (uint32_t i = 0; i < n; i++, d += les) {
        bk_source_leaf *l = &p->leafs[i];
        l->contents = bk_rd_i32le(d);
        l->cluster = bk_rd_i16le(d + 4);
        uint16_t af = bk_rd_u16le(d + 6);
        l->area = af & 0x1ff;
        l->flags = af >> 9;
        for (int k = 0; k < 3; k++) {
            l->mins[k] = bk_rd_i16le(d + 8 + 2 * k);
            l->maxs[k] = bk_rd_i16le(d + 14 + 2 * k);
        }
        l->firstleafface = bk_rd_u16le(d + 20);
        l->numleaffaces = bk_rd_u16le(d + 22);
        l->firstleafbrush = bk_rd_u16le(d + 24);
        l->numleafbrushes = bk_rd_u16le(d + 26);
        l->leaf_water_data = bk_rd_i16le(d + 28);
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
    BK_TRY(lump_count(L, BK_SRC_LUMP_NODES, &n));
    ALLOC_N(p->nodes, n);
    p->node_count = n;
    const uint8_t *d = p->lumps[BK_SRC_LUMP_NODES].data;
    for (uint32_t i = 0; i < n; i++, d += 32) {
        bk_source_node *nd = &p->nodes[i];
        nd->planenum = bk_rd_i32le(d);
        nd->children[0] = bk_rd_i32le(d + 4);
        nd->children[1] = bk_rd_i32le(d + 8);
        for (int k = 0; k < 3; k++) {
            nd->mins[k] = bk_rd_i16le(d + 12 + 2 * k);
            nd->maxs[k] = bk_rd_i16le(d + 18 + 2 * k);
        }
        nd->firstface = bk_rd_u16le(d + 24);
        nd->numfaces = bk_rd_u16le(d + 26);
        nd->area = bk_rd_i16le(d + 28);
    }
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
    BK_TRY(lump_count(L, BK_SRC_LUMP_MODELS, &n));
    ALLOC_N(p->models, n);
    p->model_count = n;
    const uint8_t *d = p->lumps[BK_SRC_LUMP_MODELS].data;
    for (uint32_t i = 0; i < n; i++, d += 48) {
        bk_source_model *md = &p->models[i];
        for (int k = 0; k < 3; k++) {
            md->mins[k] = bk_rd_f32le(d + 4 * k);
            md->maxs[k] = bk_rd_f32le(d + 12 + 4 * k);
            md->origin[k] = bk_rd_f32le(d + 24 + 4 * k);
        }
        md->headnode = bk_rd_i32le(d + 36);
        md->firstface = bk_rd_i32le(d + 40);
        md->numfaces = bk_rd_i32le(d + 44);
    }
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
