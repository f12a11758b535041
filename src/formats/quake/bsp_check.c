/* The Quake BSP loader's reference checks: the family's ref rows (quake_desc.c) through the one
 * checker, then what is not "an index below a count", one small function per lump: node and
 * clipnode children (a node or ~leaf; a clipnode or contents), PVS rows, lightmap extents,
 * head nodes per hull. A bad index is reset to a safe one (the engines would crash on it). */
#include <stdio.h>

#include "bsp_loader.h"

/* ---- cross references ------------------------------------------------------------------------ */
/* sky and liquid ("*") textures, and GoldSrc's "!" water: drawn without a lightmap */
bool bk_quake_special_texture(const char *name, bool gold)
{
    if (bk_strcasecmp(name, "sky") == 0 || (name[0] && (name[0] == 's' || name[0] == 'S') &&
                                             (name[1] == 'k' || name[1] == 'K') && (name[2] == 'y' || name[2] == 'Y')))
        return true;
    if (name[0] == '*') return true;
    if (gold && name[0] == '!') return true;
    return false;
}

/* The engines' CalcSurfaceExtents: texture-space bounds accumulated in double (as the x87 build
 * of the light tools did) and stored to float, then floor / ceil in luxel units. */
static bk_result face_extents(loader *L, uint32_t fi)
{
    bk_quake_bsp *q = L->q;
    bk_q1_face *fc = &q->faces[fi];
    const bk_q1_texinfo *ti = &q->texinfo[fc->texinfo];
    float mins[2] = {999999.0f, 999999.0f}, maxs[2] = {-999999.0f, -999999.0f};
    for (uint32_t k = 0; k < fc->edge_count; k++) {
        int32_t se = q->surfedges[fc->first_edge + k];
        uint32_t e = se < 0 ? (uint32_t)(-(int64_t)se) : (uint32_t)se;
        if (e >= q->edge_count) return BK_OK; /* reported elsewhere */
        uint32_t vi = q->edges[e].v[se < 0 ? 1 : 0];
        if (vi >= q->vertex_count) return BK_OK;
        const float *v = q->vertices + (size_t)vi * 3;
        for (int j = 0; j < 2; j++) {
            double dv = (double)v[0] * (double)ti->vecs[j][0] + (double)v[1] * (double)ti->vecs[j][1] +
                        (double)v[2] * (double)ti->vecs[j][2] + (double)ti->vecs[j][3];
            if (!(fabs(dv) < 1e30)) { /* no lightmap can be that large; keeps the float cast defined */
                fc->lm_size[0] = fc->lm_size[1] = 0;
                return BK_OK;
            }
            float val = (float)dv;
            if (val < mins[j]) mins[j] = val;
            if (val > maxs[j]) maxs[j] = val;
        }
    }
    float scale = (float)(1u << fc->lm_shift);
    for (int j = 0; j < 2; j++) {
        double bmin = floor(mins[j] / scale), bmax = ceil(maxs[j] / scale);
        double size = bmax - bmin + 1;
        if (!(bmin > -1e6 && bmax < 1e6) || size < 1 || size > 100000) {
            fc->lm_size[0] = fc->lm_size[1] = 0;
            return BK_OK;
        }
        fc->tex_mins[j] = (int32_t)bmin * (int32_t)scale;
        fc->lm_size[j] = (uint32_t)size;
    }
    return BK_OK;
}

/* Repair of an element the reference checker found bad: the index reset to one that is safe to
 * follow (an array read in place is copied first) */
static bk_result repair_ref(void *user, uint32_t ref, uint32_t i, uint32_t k)
{
    loader *L = user;
    bk_quake_bsp *q = L->q;
    switch (ref) {
    case BK_Q1_REF_EDGE_VERTEX:
        MAKE_OWN(q->edges, BK_Q1_LUMP_EDGES, q->edge_count);
        q->edges[i].v[k] = 0;
        break;
    case BK_Q1_REF_SURFEDGE:
        MAKE_OWN(q->surfedges, BK_Q1_LUMP_SURFEDGES, q->surfedge_count);
        q->surfedges[i] = 0;
        break;
    case BK_Q1_REF_TEXINFO_MIPTEX:
        MAKE_OWN(q->texinfo, BK_Q1_LUMP_TEXINFO, q->texinfo_count);
        q->texinfo[i].miptex = -1;
        break;
    case BK_Q1_REF_FACE_PLANE: q->faces[i].plane = 0; break;
    case BK_Q1_REF_FACE_EDGES: q->faces[i].first_edge = q->faces[i].edge_count = 0; break;
    case BK_Q1_REF_FACE_TEXINFO: q->faces[i].texinfo = 0; break;
    case BK_Q1_REF_MARKSURFACE:
        MAKE_OWN(q->marksurfaces, BK_Q1_LUMP_MARKSURFACES, q->marksurface_count);
        q->marksurfaces[i] = 0;
        break;
    case BK_Q1_REF_LEAF_MARKS:
        MAKE_OWN(q->leafs, BK_Q1_LUMP_LEAFS, q->leaf_count);
        q->leafs[i].first_marksurface = q->leafs[i].marksurface_count = 0;
        break;
    case BK_Q1_REF_NODE_PLANE:
        MAKE_OWN(q->nodes, BK_Q1_LUMP_NODES, q->node_count);
        q->nodes[i].plane = 0;
        break;
    case BK_Q1_REF_NODE_FACES:
        MAKE_OWN(q->nodes, BK_Q1_LUMP_NODES, q->node_count);
        q->nodes[i].first_face = q->nodes[i].face_count = 0;
        break;
    case BK_Q1_REF_CLIPNODE_PLANE:
        MAKE_OWN(q->clipnodes, BK_Q1_LUMP_CLIPNODES, q->clipnode_count);
        q->clipnodes[i].plane = 0;
        break;
    case BK_Q1_REF_MODEL_FACES:
        MAKE_OWN(q->models, BK_Q1_LUMP_MODELS, q->model_count);
        q->models[i].first_face = q->models[i].face_count = 0;
        break;
    default: break;
    }
    if (ref >= BK_Q1_REF_FACE_PLANE && ref <= BK_Q1_REF_FACE_TEXINFO && L->face_bad)
        L->face_bad[i] |= (uint8_t)(1u << (ref - BK_Q1_REF_FACE_PLANE));
    return BK_OK;
}

/* The reference checker over lump `lump` (the rows of quake_desc.c) */
static bk_result check_lump_refs(loader *L, int lump)
{
    const bk_quake_bsp *q = L->q;
    const uint32_t counts[BK_Q1_LUMP_COUNT] = {
        [BK_Q1_LUMP_PLANES] = q->plane_count,         [BK_Q1_LUMP_TEXTURES] = q->miptex_count,
        [BK_Q1_LUMP_VERTICES] = q->vertex_count,      [BK_Q1_LUMP_NODES] = q->node_count,
        [BK_Q1_LUMP_TEXINFO] = q->texinfo_count,      [BK_Q1_LUMP_FACES] = q->face_count,
        [BK_Q1_LUMP_CLIPNODES] = q->clipnode_count,   [BK_Q1_LUMP_LEAFS] = q->leaf_count,
        [BK_Q1_LUMP_MARKSURFACES] = q->marksurface_count, [BK_Q1_LUMP_EDGES] = q->edge_count,
        [BK_Q1_LUMP_SURFEDGES] = q->surfedge_count,   [BK_Q1_LUMP_MODELS] = q->model_count,
    };
    bk_ref_lump lumps[BK_Q1_LUMP_COUNT];
    for (int i = 0; i < BK_Q1_LUMP_COUNT; i++) {
        lumps[i].data = L->d + L->ofs[i];
        lumps[i].count = counts[i];
        lumps[i].ofs = L->ofs[i];
        lumps[i].compressed = false;
    }
    const bk_ref_input in = {&bk_family_quake, (uint8_t)L->var, lumps, repair_ref, L};
    return bk_check_refs(L->ctx, &in, (uint32_t)lump);
}

/* BSPX lumps that change how faces are read: LMSHIFT (a lightmap scale per face) and RGBLIGHTING */
static const bk_q1_bspx_lump *face_bspx(loader *L)
{
    bk_quake_bsp *q = L->q;
    bk_ctx *ctx = L->ctx;
    const bk_q1_bspx_lump *lms = bk_bsp_find_bspx(q, "LMSHIFT");
    if (lms && lms->length != q->face_count) {
        BK_WARN(ctx, BK_ELUMP_SIZE, "bspx", BK_NO_INDEX, lms->offset, "LMSHIFT has %llu bytes for %u faces; ignored",
                (unsigned long long)lms->length, q->face_count);
        lms = NULL;
    }
    const bk_q1_bspx_lump *rgb = bk_bsp_find_bspx(q, "RGBLIGHTING");
    if (rgb && q->lighting_bpp == 1) {
        if (rgb->length == (uint64_t)q->lighting_size * 3) {
            q->lighting = L->d + rgb->offset;
            q->lighting_size = (size_t)rgb->length;
            q->lighting_bpp = 3;
        } else {
            BK_WARN(ctx, BK_ELUMP_SIZE, "bspx", BK_NO_INDEX, rgb->offset,
                    "RGBLIGHTING is %llu bytes, not 3 x the %zu-byte lighting lump; ignored",
                    (unsigned long long)rgb->length, q->lighting_size);
        }
    }
    return lms;
}

/* A face's lightmap against the lighting lump (after its extents) */
static bk_result check_face_light(loader *L, uint32_t i, uint64_t at, uint32_t light_field)
{
    bk_quake_bsp *q = L->q;
    bk_ctx *ctx = L->ctx;
    bk_q1_face *fc = &q->faces[i];
    bool gold = q->format == BK_FORMAT_GOLDSRC;
    if (fc->light_ofs == -1 || q->lighting_size == 0 || fc->lm_styles == 0) return BK_OK;
    const bk_q1_texinfo *ti = &q->texinfo[fc->texinfo];
    bool special = (ti->flags & BK_Q1_TEX_SPECIAL) != 0;
    if (ti->miptex >= 0 && q->miptex[ti->miptex].dir_offset >= 0 && bk_quake_special_texture(q->miptex[ti->miptex].name, gold))
        special = true;
    if (special) return BK_OK;
    uint64_t need = (uint64_t)fc->lm_size[0] * fc->lm_size[1] * fc->lm_styles * q->lighting_bpp;
    uint64_t lo = (uint64_t)(int64_t)fc->light_ofs * (q->lighting_bpp == 3 && !gold ? 3 : 1);
    if (fc->light_ofs < 0 || lo >= q->lighting_size) {
        BK_ERR(ctx, BK_EINDEX, "faces", i, at + light_field, "lightmap offset %d lies outside the %zu-byte lighting lump",
               fc->light_ofs, q->lighting_size);
        fc->light_ofs = -1;
    } else if (fc->lm_size[0] == 0 || !bk_span_ok(lo, need, q->lighting_size)) {
        /* the start is fine, the extents rule says it runs past the end: engines would read
         * beyond the lump; keep the map, drop this face's lightmap */
        BK_WARN(ctx, BK_ELUMP_RANGE, "faces", i, at + light_field,
                "lightmap at offset %d (%ux%u luxels, %u styles) runs past the end of the %zu-byte lighting "
                "lump; the face is left unlit", fc->light_ofs, fc->lm_size[0], fc->lm_size[1], fc->lm_styles,
                q->lighting_size);
        fc->light_ofs = -1;
    }
    return BK_OK;
}

static bk_result check_faces(loader *L)
{
    bk_quake_bsp *q = L->q;
    bk_ctx *ctx = L->ctx;
    const bk_q1_bspx_lump *lms = face_bspx(L);
    bk_result r = BK_OK;
    L->face_bad = bk_alloc_array(ctx, q->face_count ? q->face_count : 1, 1, &r);
    if (!L->face_bad) return r;
    r = check_lump_refs(L, BK_Q1_LUMP_FACES);
    /* compilers give each face its own surfedges; hostile files can point every face at the same
     * long range, so the edges walked over all faces are bounded */
    uint64_t edge_budget = (uint64_t)q->surfedge_count * 4 + 65536, edges_walked = 0;
    if (edge_budget > ctx->opt.limits.max_work) edge_budget = ctx->opt.limits.max_work;
    bool over_budget = false;
    uint32_t light_field = bk_lump_field(&k_lumps[BK_Q1_LUMP_FACES], (uint8_t)L->var, "lightofs")->offset;
    for (uint32_t i = 0; i < q->face_count && r == BK_OK; i++) {
        bk_q1_face *fc = &q->faces[i];
        uint64_t at = elem_at(L, BK_Q1_LUMP_FACES, i);
        uint8_t bad = L->face_bad[i];
        if (!(bad & 2) && fc->edge_count < 3) {
            BK_WARN(ctx, BK_EFORMAT, "faces", i, at, "face has %u edges; it is not drawn", fc->edge_count);
            bad |= 8;
        }
        fc->lm_styles = 0;
        while (fc->lm_styles < 4 && fc->styles[fc->lm_styles] != 255) fc->lm_styles++;
        if (lms) {
            uint8_t sh = L->d[lms->offset + i];
            if (sh > 10) BK_WARN(ctx, BK_EFORMAT, "bspx", i, lms->offset + i, "LMSHIFT %u is too large; 4 used", sh);
            else fc->lm_shift = sh;
        }
        if (bad || q->texinfo_count == 0) continue;
        edges_walked += fc->edge_count;
        if (edges_walked > edge_budget) {
            if (!over_budget)
                r = bk_report(ctx, BK_SEV_ERROR, BK_ELIMIT, "faces", i, at,
                              "faces use %llu surfedges in all, far more than the %u there are (overlapping ranges)",
                              (unsigned long long)edges_walked, q->surfedge_count);
            over_budget = true;
            fc->edge_count = 0;
            continue;
        }
        face_extents(L, i);
        r = check_face_light(L, i, at, light_field);
    }
    bk_free(L->face_bad);
    L->face_bad = NULL;
    return r;
}

/* A leaf's PVS row: visibility offset inside the lump, and the zero-run-length row long enough for
 * the world's visleafs (within a total work budget: rows are walked per leaf) */
static bk_result check_leaf_vis(loader *L, uint32_t i, uint64_t rowbytes, uint64_t *vis_budget)
{
    bk_quake_bsp *q = L->q;
    bk_ctx *ctx = L->ctx;
    bk_q1_leaf *lf = &q->leafs[i];
    uint64_t at = elem_at(L, BK_Q1_LUMP_LEAFS, i);
    if (q->visibility_size == 0) return BK_OK; /* unvised map: engines ignore every offset (no PVS data at all) */
    if (lf->vis_ofs < -1 || (lf->vis_ofs >= 0 && (uint64_t)lf->vis_ofs >= q->visibility_size)) {
        BK_ERR(ctx, BK_EINDEX, "leafs", i, at + 4, "visibility offset %d outside the %zu-byte visibility lump",
               lf->vis_ofs, q->visibility_size);
        MAKE_OWN(q->leafs, BK_Q1_LUMP_LEAFS, q->leaf_count);
        q->leafs[i].vis_ofs = -1;
        return BK_OK;
    }
    if (lf->vis_ofs < 0 || !rowbytes || !*vis_budget) return BK_OK;
    uint64_t p = (uint64_t)lf->vis_ofs, out = 0;
    while (out < rowbytes && p < q->visibility_size) {
        if (*vis_budget == 0) {
            BK_WARN(ctx, BK_ELIMIT, "leafs", i, at + 4, "PVS rows from here on are not checked (work limit)");
            out = rowbytes;
            break;
        }
        (*vis_budget)--;
        if (q->visibility[p]) {
            out++;
            p++;
        } else {
            if (p + 1 >= q->visibility_size) {
                p = q->visibility_size;
                break;
            }
            out += q->visibility[p + 1];
            p += 2;
        }
    }
    if (out < rowbytes)
        BK_WARN(ctx, BK_ETRUNCATED, "leafs", i, at + 4, "PVS row at visibility offset %d runs past the end of the lump",
                lf->vis_ofs);
    return BK_OK;
}

static bk_result check_leafs(loader *L)
{
    bk_quake_bsp *q = L->q;
    BK_TRY(check_lump_refs(L, BK_Q1_LUMP_LEAFS));
    /* vis rows are as long as the world's visleafs need */
    uint64_t rowbytes = 0, vis_budget = L->ctx->opt.limits.max_work;
    if (q->model_count && q->models[0].visleafs > 0) rowbytes = ((uint64_t)q->models[0].visleafs + 7) / 8;
    for (uint32_t i = 0; i < q->leaf_count; i++) BK_TRY(check_leaf_vis(L, i, rowbytes, &vis_budget));
    /* the engines tell a leaf from a node by its contents below 0 (Quake's Mod_PointInLeaf and
     * SV_RecursiveHullCheck): 0 or more would be walked as a node */
    for (uint32_t i = 0; i < q->leaf_count; i++)
        if (q->leafs[i].contents >= 0)
            BK_ERR(L->ctx, BK_EFORMAT, "leafs", i, elem_at(L, BK_Q1_LUMP_LEAFS, i),
                   "contents %d: a leaf's contents are below 0 (CONTENTS_EMPTY -1, SOLID -2, ...); the engines walk 0 "
                   "and above as a node", (int)q->leafs[i].contents);
    return BK_OK;
}

/* node children: >= 0 a node, else ~leaf */
static bk_result check_nodes(loader *L)
{
    bk_quake_bsp *q = L->q;
    bk_ctx *ctx = L->ctx;
    BK_TRY(check_lump_refs(L, BK_Q1_LUMP_NODES));
    for (uint32_t i = 0; i < q->node_count; i++) {
        uint64_t at = elem_at(L, BK_Q1_LUMP_NODES, i);
        for (int k = 0; k < 2; k++) {
            int32_t ch = q->nodes[i].children[k];
            if (ch >= 0 ? (uint32_t)ch >= q->node_count : (uint32_t)(~ch) >= q->leaf_count) {
                BK_ERR(ctx, BK_EINDEX, "nodes", i, at + 4, "child %d points %s %d out of range (%u nodes, %u leafs)", k,
                       ch >= 0 ? "at node" : "at leaf", ch >= 0 ? ch : ~ch, q->node_count, q->leaf_count);
                MAKE_OWN(q->nodes, BK_Q1_LUMP_NODES, q->node_count);
                q->nodes[i].children[k] = -1;
            } else if (ch >= 0 && (uint32_t)ch <= i) {
                BK_WARN(ctx, BK_EINDEX, "nodes", i, at + 4, "child %d points back at node %d (loop risk)", k, ch);
            }
        }
    }
    return BK_OK;
}

/* clipnode children: >= 0 a clipnode, else contents */
static bk_result check_clipnodes(loader *L)
{
    bk_quake_bsp *q = L->q;
    bk_ctx *ctx = L->ctx;
    BK_TRY(check_lump_refs(L, BK_Q1_LUMP_CLIPNODES));
    for (uint32_t i = 0; i < q->clipnode_count; i++) {
        uint64_t at = elem_at(L, BK_Q1_LUMP_CLIPNODES, i);
        for (int k = 0; k < 2; k++) {
            int32_t ch = q->clipnodes[i].children[k];
            if (ch >= 0 && (uint32_t)ch >= q->clipnode_count) {
                BK_ERR(ctx, BK_EINDEX, "clipnodes", i, at + 4, "child %d points at clipnode %d out of range (%u clipnodes)",
                       k, ch, q->clipnode_count);
                MAKE_OWN(q->clipnodes, BK_Q1_LUMP_CLIPNODES, q->clipnode_count);
                q->clipnodes[i].children[k] = -2;
            } else if (ch < -15) {
                BK_WARN(ctx, BK_EFORMAT, "clipnodes", i, at + 4, "child %d holds unknown contents %d", k, ch);
            }
        }
    }
    return BK_OK;
}

/* head nodes (hull 0: a node or ~leaf; hulls 1-3: clipnodes, the count itself an empty hull),
 * visleafs, bounds */
static bk_result check_models(loader *L)
{
    bk_quake_bsp *q = L->q;
    bk_ctx *ctx = L->ctx;
    BK_TRY(check_lump_refs(L, BK_Q1_LUMP_MODELS));
    for (uint32_t i = 0; i < q->model_count; i++) {
        const bk_q1_model *m = &q->models[i];
        uint64_t at = elem_at(L, BK_Q1_LUMP_MODELS, i);
        int32_t h0 = m->headnode[0];
        if (h0 >= 0 ? (uint32_t)h0 >= q->node_count : (uint32_t)(~h0) >= q->leaf_count)
            BK_ERR(ctx, BK_EINDEX, "models", i, at + 36, "head node %d out of range (%u nodes)", h0, q->node_count);
        int empty_hulls = 0;
        for (int k = 1; k < 4; k++) {
            int32_t h = m->headnode[k];
            if (h >= 0 && (uint32_t)h == q->clipnode_count) empty_hulls++;
            else if (h >= 0 && (uint32_t)h > q->clipnode_count)
                BK_ERR(ctx, BK_EINDEX, "models", i, at + 36 + 4 * (uint64_t)k,
                       "hull %d head clipnode %d out of range (%u clipnodes)", k, h, q->clipnode_count);
        }
        if (empty_hulls)
            BK_WARN(ctx, BK_EINDEX, "models", i, at + 40,
                    "%d clipping hull(s) start at clipnode %u, the clipnode count: empty hulls (as compilers write for "
                    "non-solid models)", empty_hulls, q->clipnode_count);
        if (m->visleafs < 0 || (uint32_t)m->visleafs > q->leaf_count)
            BK_WARN(ctx, BK_EINDEX, "models", i, at + 52, "visleafs %d exceeds the %u leafs", m->visleafs, q->leaf_count);
        if (!finite_n(m->mins, 9))
            BK_ERR(ctx, BK_EFORMAT, "models", i, at, "bounding box or origin is not finite");
    }
    if (q->model_count < k_lumps[BK_Q1_LUMP_MODELS].min_count)
        BK_ERR(ctx, BK_EFORMAT, "models", BK_NO_INDEX, hdr_at(L, BK_Q1_LUMP_MODELS), "map has no models (the world is model 0)");
    return BK_OK;
}

/* Every reference, lump by lump: the rows through the checker, the rest in small functions */
bk_result bk_bsp_check_refs(loader *L)
{
    BK_TRY(check_lump_refs(L, BK_Q1_LUMP_EDGES));
    BK_TRY(check_lump_refs(L, BK_Q1_LUMP_SURFEDGES));
    BK_TRY(check_lump_refs(L, BK_Q1_LUMP_TEXINFO));
    BK_TRY(check_faces(L));
    BK_TRY(check_lump_refs(L, BK_Q1_LUMP_MARKSURFACES));
    BK_TRY(check_leafs(L));
    BK_TRY(check_nodes(L));
    BK_TRY(check_clipnodes(L));
    return check_models(L);
}

