/* The occlusion lump (9): func_occluder brushes the engine culls behind (bspfile.h): int count,
 * doccluderdata_t[count] (flags, firstpoly, polycount, mins, maxs, and from lump version 2 area:
 * 40 bytes; version 1's doccluderdataV1_t has no area: 36), int polycount,
 * doccluderpolydata_t[polycount] (firstvertexindex, vertexcount, planenum: 12 bytes), int
 * vertex-index count, int[] (indices into the vertexes lump). Nothing draws them: they are
 * counted (bspkit info) and their references checked, a problem a warning (the engine only culls
 * with them). */
#include "vbsp_loader.h"

/* the count at *at (advanced past it) and that many elements of es bytes after it */
static bool section(const bk_source_lump *l, size_t *at, size_t es, uint32_t *n)
{
    if (l->size < 4 || *at > l->size - 4) return false;
    int32_t c = bk_rd_i32le(l->data + *at);
    *at += 4;
    if (c < 0 || (uint64_t)c * es > l->size - *at) return false;
    *n = (uint32_t)c;
    return true;
}

static void check_refs(vbsp_ld *L, const bk_source_lump *l, size_t occ, size_t es, uint32_t n, size_t poly,
                       uint32_t np, size_t idx, uint32_t ni)
{
    const bk_source_map *p = L->p;
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *o = l->data + occ + (size_t)i * es;
        int32_t first = bk_rd_i32le(o + 4), count = bk_rd_i32le(o + 8);
        if (first < 0 || count < 0 || (uint64_t)first + (uint64_t)count > np)
            BK_WARN(L->ctx, BK_EINDEX, "occlusion", i, l->offset + occ + (size_t)i * es + 4,
                    "polygons %d+%d out of range (%u polygons)", first, count, np);
    }
    for (uint32_t i = 0; i < np; i++) {
        const uint8_t *q = l->data + poly + (size_t)i * 12;
        int32_t first = bk_rd_i32le(q), count = bk_rd_i32le(q + 4), plane = bk_rd_i32le(q + 8);
        if (first < 0 || count < 0 || (uint64_t)first + (uint64_t)count > ni)
            BK_WARN(L->ctx, BK_EINDEX, "occlusion", i, l->offset + poly + (size_t)i * 12,
                    "polygon %u: vertex indices %d+%d out of range (%u)", i, first, count, ni);
        if (plane < 0 || (uint32_t)plane >= p->plane_count)
            BK_WARN(L->ctx, BK_EINDEX, "occlusion", i, l->offset + poly + (size_t)i * 12 + 8,
                    "polygon %u: plane %d out of range (%u planes)", i, plane, p->plane_count);
    }
    for (uint32_t i = 0; i < ni; i++) {
        int32_t v = bk_rd_i32le(l->data + idx + (size_t)i * 4);
        if (v < 0 || (uint32_t)v >= p->vertex_count)
            BK_WARN(L->ctx, BK_EINDEX, "occlusion", i, l->offset + idx + (size_t)i * 4,
                    "vertex index %u: vertex %d out of range (%u vertexes)", i, v, p->vertex_count);
    }
}

bk_result bk_vbsp_load_occluders(vbsp_ld *L)
{
    const bk_source_lump *l = &L->p->lumps[BK_SRC_LUMP_OCCLUSION];
    if (!l->size) return BK_OK;
    /* compressed: decoded here, a lump that does not decode a warning (nothing else reads it) */
    bool lazy = bk_vbsp_lump_pending(L->f, BK_SRC_LUMP_OCCLUSION);
    bk_result r = bk_vbsp_lump_decode(L->f, BK_SRC_LUMP_OCCLUSION, NULL);
    if (r == BK_ENOMEM) return r;
    if (r != BK_OK || !l->data) {
        BK_WARN(L->ctx, r != BK_OK ? r : BK_EFORMAT, "occlusion", BK_NO_INDEX, l->offset,
                "the lump cannot be decoded (%s): occluders not read", bk_strerror(r));
        return BK_OK;
    }
    /* the occluders' size by the lump's version: the first section of its rows' column (40 bytes
     * from version 2, 36 before: source_desc.c) */
    const bk_lump_sections *secs = &k_lumps[BK_SRC_LUMP_OCCLUSION].sections[L->m->column[BK_SRC_LUMP_OCCLUSION]];
    size_t es = secs->count ? secs->rows[0].entry : 40, at = 0, occ, poly, idx;
    uint32_t n = 0, np = 0, ni = 0;
    bool ok = section(l, &at, es, &n);
    occ = at, at += (size_t)n * es;
    ok = ok && section(l, &at, 12, &np);
    poly = at, at += (size_t)np * 12;
    ok = ok && section(l, &at, 4, &ni);
    idx = at, at += (size_t)ni * 4;
    if (!ok || at != l->size) {
        BK_WARN(L->ctx, BK_ELUMP_SIZE, "occlusion", BK_NO_INDEX, l->offset,
                "%zu bytes are not the counted occluders (%zu-byte, lump version %d), polygons and vertex "
                "indices: not read", l->size, es, l->version);
        if (lazy) bk_vbsp_lump_forget(L->f, BK_SRC_LUMP_OCCLUSION);
        return BK_OK;
    }
    check_refs(L, l, occ, es, n, poly, np, idx, ni);
    L->m->occluder_count = n;
    L->m->occluder_poly_count = np;
    if (lazy) bk_vbsp_lump_forget(L->f, BK_SRC_LUMP_OCCLUSION);   /* given back: read again when asked for */
    return BK_OK;
}
