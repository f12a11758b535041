/* One builder of the collision model (cm.h) for the brush families: Quake 3 and Source differ
 * only in how their elements read (the accessors of a bk_cm_desc) and in what their curved
 * surfaces are (patches, displacements); counting, the limit, the arrays, the order of the
 * meshes and the finish are the same and live here. */
#define BK_ADVANCED_API /* the speed and memory knobs (bspkit/advanced.h) */
#include "bspkit/advanced.h"
#include "cm.h"

/* How many meshes and triangles the candidates make; BK_ELIMIT (reported) past the limit. */
static bk_result count_curves(const bk_cm_desc *d, bk_ctx *ctx, uint32_t *nmesh, uint64_t *ntri)
{
    *nmesh = 0;
    *ntri = 0;
    for (uint32_t i = 0; i < d->curve_count; i++) {
        uint64_t n = d->curve_tris(d->map, i);
        if (!n) continue;
        (*nmesh)++;
        *ntri += n;
    }
    if (*ntri > ctx->opt.limits.max_elements) {
        bk_report(ctx, BK_SEV_ERROR, BK_ELIMIT, d->curve_lump, BK_NO_INDEX, BK_NO_OFFSET,
                  "%llu %s exceed the element limit", (unsigned long long)*ntri, d->curve_what);
        return BK_ELIMIT;
    }
    return BK_OK;
}

static bk_result alloc_arrays(bk_cm *cm, const bk_cm_desc *d, bk_ctx *ctx, uint32_t nmesh, uint64_t ntri)
{
    bk_result r = BK_OK;
    cm->planes = bk_alloc_array(ctx, d->plane_count, sizeof *cm->planes, &r);
    cm->nodes = bk_alloc_array(ctx, d->node_count, sizeof *cm->nodes, &r);
    cm->leafs = bk_alloc_array(ctx, d->leaf_count, sizeof *cm->leafs, &r);
    cm->leafbrushes = bk_alloc_array(ctx, d->leafbrush_count, sizeof *cm->leafbrushes, &r);
    cm->sides = bk_alloc_array(ctx, d->side_count, sizeof *cm->sides, &r);
    cm->brushes = bk_alloc_array(ctx, d->brush_count, sizeof *cm->brushes, &r);
    cm->models = bk_alloc_array(ctx, d->model_count, sizeof *cm->models, &r);
    cm->tris = bk_alloc_array(ctx, (size_t)ntri, sizeof *cm->tris, &r);
    cm->meshes = bk_alloc_array(ctx, nmesh, sizeof *cm->meshes, &r);
    return r;
}

static void copy_elements(bk_cm *cm, const bk_cm_desc *d)
{
    const void *m = d->map;
    cm->plane_count = d->plane_count;
    for (uint32_t i = 0; i < d->plane_count; i++) d->plane(m, i, &cm->planes[i]);
    cm->node_count = d->node_count;
    for (uint32_t i = 0; i < d->node_count; i++) d->node(m, i, &cm->nodes[i]);
    cm->leaf_count = d->leaf_count;
    for (uint32_t i = 0; i < d->leaf_count; i++) d->leaf(m, i, &cm->leafs[i]);
    cm->leafbrush_count = d->leafbrush_count;
    for (uint32_t i = 0; i < d->leafbrush_count; i++) cm->leafbrushes[i] = d->leafbrush(m, i);
    cm->side_count = d->side_count;
    for (uint32_t i = 0; i < d->side_count; i++) d->side(m, i, &cm->sides[i]);
    cm->brush_count = d->brush_count;
    for (uint32_t i = 0; i < d->brush_count; i++) d->brush(m, i, &cm->brushes[i]);
}

/* the meshes in candidate order; mesh_of[i]: the first mesh of candidate i or later */
static void build_meshes(bk_cm *cm, const bk_cm_desc *d, uint32_t *mesh_of, float *scratch)
{
    for (uint32_t i = 0; i < d->curve_count; i++) {
        mesh_of[i] = cm->mesh_count;
        if (!d->curve_tris(d->map, i)) continue;
        bk_cm_mesh *me = &cm->meshes[cm->mesh_count++];
        me->first_tri = cm->tri_count;
        me->num_tris = d->curve_mesh(d->map, i, cm->tris + cm->tri_count, me, scratch);
        cm->tri_count += me->num_tris;
        bk_cm_mesh_bounds(cm, me);
    }
    mesh_of[d->curve_count] = cm->mesh_count;
}

bk_result bk_cm_build(bk_cm *cm, const bk_cm_desc *d, bk_ctx *ctx)
{
    memset(cm, 0, sizeof *cm);
    uint32_t nmesh;
    uint64_t ntri;
    BK_TRY(count_curves(d, ctx, &nmesh, &ntri));
    bk_result r = alloc_arrays(cm, d, ctx, nmesh, ntri);
    uint32_t *mesh_of = bk_alloc_array(ctx, (size_t)d->curve_count + 1, sizeof *mesh_of, &r);
    float *scratch = d->scratch_floats ? bk_alloc_array(ctx, d->scratch_floats, sizeof *scratch, &r) : NULL;
    if (r != BK_OK) {
        bk_free(scratch);
        bk_free(mesh_of);
        bk_cm_free(cm);
        return r;
    }
    cm->leaf_contents_from_brushes = d->leaf_contents_from_brushes;
    copy_elements(cm, d);
    build_meshes(cm, d, mesh_of, scratch);
    cm->model_count = d->model_count;
    for (uint32_t i = 0; i < d->model_count; i++) d->model(d->map, i, cm, mesh_of, &cm->models[i]);
    bk_free(scratch);
    bk_free(mesh_of);
    bk_cm_finish(cm);
    r = bk_cm_trace_index(cm, ctx);
    bool few = ctx && (ctx->opt.flags & BK_OPT_FEW_POINTS);
    if (r == BK_OK && !few) r = bk_cm_point_index(cm, ctx);
    if (r == BK_OK) r = bk_cm_point_grid(cm, ctx, !few);   /* the nodes with their planes inline, always */
    if (r != BK_OK) bk_cm_free(cm);
    return r;
}
