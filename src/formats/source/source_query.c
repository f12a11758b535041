/* Source queries: the leaf / cluster / area and contents of a point, the compressed PVS and PAS
 * rows of the visibility lump, and box traces through the brushes (src/query/cm.c) and the
 * displacements (their triangle meshes, as the engine collides with them). */
#include <math.h>

#include "../../query/cm.h"
#include "vbsp_internal.h"

/* Source contents bits (bspflags.h) */
static uint32_t src_neutral(int32_t c)
{
    uint32_t u = (uint32_t)c, n = 0;
    if (u & 0x1) n |= BK_CONTENTS_SOLID;
    if (u & 0x2) n |= BK_CONTENTS_WINDOW;
    if (u & 0x8) n |= BK_CONTENTS_GRATE;
    if (u & 0x10) n |= BK_CONTENTS_SLIME;
    if (u & 0x20) n |= BK_CONTENTS_WATER;
    if (u & 0x80) n |= BK_CONTENTS_OPAQUE;
    if (u & 0x4000) n |= BK_CONTENTS_MOVEABLE;
    if (u & 0x8000) n |= BK_CONTENTS_AREAPORTAL;
    if (u & 0x10000) n |= BK_CONTENTS_PLAYERCLIP;
    if (u & 0x20000) n |= BK_CONTENTS_MONSTERCLIP;
    if (u & 0xfc0000) n |= BK_CONTENTS_CURRENT;
    if (u & 0x1000000) n |= BK_CONTENTS_ORIGIN;
    if (u & 0x2000000) n |= BK_CONTENTS_BODY;
    if (u & 0x4000000) n |= BK_CONTENTS_DEBRIS;
    if (u & 0x8000000) n |= BK_CONTENTS_DETAIL;
    if (u & 0x10000000) n |= BK_CONTENTS_TRANSLUCENT;
    if (u & 0x20000000) n |= BK_CONTENTS_LADDER;
    uint32_t known = 0x1 | 0x2 | 0x4 | 0x8 | 0x10 | 0x20 | 0x40 | 0x80 | 0x100 | 0x800 | 0x1000 | 0x2000 | 0x4000 |
                     0x8000 | 0x10000 | 0x20000 | 0xfc0000 | 0x1000000 | 0x2000000 | 0x4000000 | 0x8000000 |
                     0x10000000 | 0x20000000 | 0x40000000;
    if (u & ~known) n |= BK_CONTENTS_OTHER;
    return n;
}

typedef struct srcstate {
    bk_cm cm;                  /* first: the shared trace reads the state as a bk_cm */
    const bk_source_map *m;
    const uint8_t *vis;        /* the visibility lump */
    size_t vis_size;
    uint8_t *row_bad;          /* [cluster*2 + kind]: 1 = truncated, decoded as all visible */
} srcstate;

static void sv(float *d, const float *s) { d[0] = s[0], d[1] = s[1], d[2] = s[2]; }

static bool disp_ok(const bk_source_map *p, uint32_t fi)
{
    const bk_source_face *f = &p->faces[fi];
    return f->dispinfo >= 0 && (uint32_t)f->dispinfo < p->dispinfo_count && f->numedges == 4 &&
           p->dispinfo[f->dispinfo].power >= 2 && p->dispinfo[f->dispinfo].power <= 4 &&
           p->dispinfo[f->dispinfo].vert_start >= 0 &&
           bk_range_ok((uint64_t)p->dispinfo[f->dispinfo].vert_start,
                       (uint64_t)((1u << p->dispinfo[f->dispinfo].power) + 1) * ((1u << p->dispinfo[f->dispinfo].power) + 1),
                       p->dispvert_count);
}

/* The displaced grid's triangles (bk_src_disp_grid: the same points and diagonals as the scene's). */
static uint32_t disp_tris(const bk_source_map *p, uint32_t fi, bk_cm_tri *out, float *grid)
{
    float q[4][3];
    uint32_t side = bk_src_disp_grid(p, fi, q, grid, NULL);
    uint32_t nt = 0;
    for (uint32_t y = 0; y + 1 < side; y++)
        for (uint32_t x = 0; x + 1 < side; x++) {
            uint32_t t[6];
            bk_src_disp_cell(side, x, y, t);
            for (int h = 0; h < 6; h += 3) {
                bk_cm_tri *T = &out[nt];
                for (int k = 0; k < 3; k++) sv(T->v[k], &grid[t[h + k] * 3]);
                if (bk_cm_tri_finish(T)) nt++;   /* a degenerate one collides with nothing */
            }
        }
    return nt;
}

static bool decode_row(const uint8_t *vis, size_t size, uint32_t ofs, uint32_t clusters, uint8_t *row)
{
    return bk_vis_rle_decode(vis, size, ofs, clusters, row);
}

/* every PVS / PAS row decoded once: a bad one is reported and marked (then read as all visible) */
static bk_result check_rows(bk_ctx *ctx, const bk_source_map *m, srcstate *s)
{
    bk_result r = BK_OK;
    size_t nbytes = ((size_t)m->cluster_count + 7) / 8;
    uint8_t *row = bk_alloc_array(ctx, nbytes, 1, &r);
    if (!row) return r;
    for (uint32_t c = 0; c < m->cluster_count; c++)
        for (int k = 0; k < 2; k++) {
            uint32_t ofs = bk_rd_u32le(s->vis + 4 + 8 * (size_t)c + 4 * (size_t)k);
            if (!decode_row(s->vis, s->vis_size, ofs, m->cluster_count, row)) {
                s->row_bad[c * 2 + (uint32_t)k] = 1;
                BK_WARN(ctx, BK_ETRUNCATED, "visibility", c, m->lumps[BK_SRC_LUMP_VISIBILITY].offset + ofs,
                        "%s row of cluster %u runs past the end of the lump; treated as all visible",
                        k ? "PAS" : "PVS", c);
            }
        }
    bk_free(row);
    return BK_OK;
}

static void src_destroy(void *state)
{
    srcstate *s = state;
    if (!s) return;
    bk_free(s->row_bad);
    bk_cm_free(&s->cm);
    bk_free(s);
}

static const bk_source_map *srcm(const void *map) { return map; }

static void src_plane(const void *map, uint32_t i, bk_cm_plane *o)
{
    sv(o->n, srcm(map)->planes[i].normal);
    o->d = srcm(map)->planes[i].dist;
}
static void src_node(const void *map, uint32_t i, bk_cm_node *o)
{
    const bk_source_node *n = &srcm(map)->nodes[i];
    o->plane = (uint32_t)n->planenum;
    o->children[0] = n->children[0];
    o->children[1] = n->children[1];
}
static void src_leaf(const void *map, uint32_t i, bk_cm_leaf *o)
{
    const bk_source_leaf *l = &srcm(map)->leafs[i];
    o->first_brush = l->firstleafbrush;
    o->num_brushes = l->numleafbrushes;
    o->native = l->contents;
    o->contents = src_neutral(l->contents);
}
static uint32_t src_leafbrush(const void *map, uint32_t i) { return srcm(map)->leafbrushes[i]; }
static void src_side(const void *map, uint32_t i, bk_cm_side *o)
{
    const bk_source_brushside *bs = &srcm(map)->brushsides[i];
    o->plane = bs->planenum;
    o->surface = bs->texinfo;
    o->bevel = (uint8_t)(bs->bevel != 0);
}
static void src_brush(const void *map, uint32_t i, bk_cm_brush *o)
{
    const bk_source_brush *b = &srcm(map)->brushes[i];
    o->first_side = (uint32_t)b->firstside;
    o->num_sides = (uint32_t)b->numsides;
    o->native = b->contents;
    o->contents = src_neutral(b->contents);
}
static uint64_t src_curve_tris(const void *map, uint32_t i)
{
    const bk_source_map *m = map;
    if (!disp_ok(m, i)) return 0;
    uint32_t side = 1u << m->dispinfo[m->faces[i].dispinfo].power;
    return (uint64_t)side * side * 2;
}
static uint32_t src_curve_mesh(const void *map, uint32_t i, bk_cm_tri *out, bk_cm_mesh *me, float *grid)
{
    const bk_source_map *m = map;
    const bk_source_dispinfo *di = &m->dispinfo[m->faces[i].dispinfo];
    /* displacements are solid to everything unless their contents say otherwise */
    int32_t c = di->contents ? di->contents : 1;
    me->native = c;
    me->contents = src_neutral(c) | BK_CONTENTS_SOLID;
    me->surface = m->faces[i].texinfo;
    return disp_tris(m, i, out, grid);
}
static void src_model(const void *map, uint32_t i, const bk_cm *cm, const uint32_t *mesh_of, bk_cm_model *o)
{
    o->headnode = srcm(map)->models[i].headnode;
    if (i == 0) o->num_meshes = cm->mesh_count;   /* displacements are the world's */
}

static bk_result src_open(const bk_file *f, bk_ctx *ctx, void **state, bk_query_info *info)
{
    const bk_source_map *m = bk_source_map_of(f);
    bk_result r = BK_OK;
    srcstate *s = bk_query_state_new(ctx, m && m->model_count && m->leaf_count && m->node_count,
                                     "world model, nodes or leaves", sizeof *s, &r);
    if (!s) return r;
    s->m = m;
    /* decoded again if a scene build with BK_OPT_RELEASE_INPUT gave it back */
    if ((r = bk_source_lump_bytes(f, BK_SRC_LUMP_VISIBILITY, &s->vis, &s->vis_size)) != BK_OK) {
        bk_free(s);
        return r;
    }
    const bk_cm_desc d = {
        .map = m, .plane_count = m->plane_count, .node_count = m->node_count, .leaf_count = m->leaf_count,
        .leafbrush_count = m->leafbrush_count, .side_count = m->brushside_count, .brush_count = m->brush_count,
        .model_count = m->model_count, .plane = src_plane, .node = src_node, .leaf = src_leaf,
        .leafbrush = src_leafbrush, .side = src_side, .brush = src_brush, .curve_count = m->face_count,
        .curve_tris = src_curve_tris, .curve_mesh = src_curve_mesh, .scratch_floats = 17 * 17 * 3,
        .curve_lump = "dispinfo", .curve_what = "displacement triangles", .model = src_model,
    };
    if ((r = bk_cm_build(&s->cm, &d, ctx)) == BK_OK && s->vis && m->cluster_count) {
        s->row_bad = bk_alloc_array(ctx, (size_t)m->cluster_count * 2, 1, &r);
        /* check every row once, so bad ones are reported at open and never followed later */
        if (s->row_bad) r = check_rows(ctx, m, s);
    }
    if (r != BK_OK) {
        src_destroy(s);
        return r;
    }
    info->model_count = m->model_count;
    info->leaf_count = m->leaf_count;
    info->cluster_count = s->row_bad ? m->cluster_count : 0;
    info->face_count = m->face_count;
    info->hull_count = 0;
    info->has_pas = s->row_bad ? 1 : 0;
    *state = s;
    return BK_OK;
}

static bk_result src_point_at(const srcstate *s, int32_t l, bk_point_info *out)
{
    const bk_source_map *m = s->m;
    memset(out, 0, sizeof *out);
    if (l < 0) return BK_EINDEX;
    const bk_source_leaf *lf = &m->leafs[l];
    out->leaf = l;
    out->native_contents = lf->contents;
    out->contents = src_neutral(lf->contents);
    out->cluster = lf->cluster;
    out->area = lf->area;
    for (int k = 0; k < 3; k++) out->leaf_mins[k] = lf->mins[k], out->leaf_maxs[k] = lf->maxs[k];
    return BK_OK;
}

static bk_result src_point(const void *state, uint32_t model, const float pos[3], bk_point_info *out)
{
    const srcstate *s = state;
    return src_point_at(s, bk_cm_point_leaf(&s->cm, s->cm.models[model].headnode, pos), out);
}

static bk_result src_points(const void *state, uint32_t model, size_t count, const float *pos, int32_t *leaves,
                            bk_point_info *out)
{
    const srcstate *s = state;
    bk_result r = BK_OK;
    bk_cm_point_leaves(&s->cm, s->cm.models[model].headnode, count, pos, leaves);
    for (size_t i = 0; i < count; i++) {
        bk_result ri = src_point_at(s, leaves[i], &out[i]);
        if (r == BK_OK) r = ri;
    }
    return r;
}

static bk_result src_vis_row(const void *state, bk_vis_kind kind, int32_t cluster, uint8_t *row)
{
    const srcstate *s = state;
    uint32_t n = s->m->cluster_count;
    int k = kind == BK_VIS_PAS;
    uint32_t ofs = bk_rd_u32le(s->vis + 4 + 8 * (size_t)cluster + 4 * (size_t)k);
    if (s->row_bad[(uint32_t)cluster * 2 + (uint32_t)k] || !decode_row(s->vis, s->vis_size, ofs, n, row)) {
        size_t nbytes = ((size_t)n + 7) / 8;
        memset(row, 0xff, nbytes);
        if (n & 7) row[nbytes - 1] = (uint8_t)((1u << (n & 7)) - 1);
    }
    return BK_OK;
}

static int32_t src_leaf_cluster(const void *state, int32_t leaf)
{
    const srcstate *s = state;
    return s->m->leafs[leaf].cluster;
}
static uint32_t src_leaf_face_count(const void *state, int32_t leaf)
{
    const srcstate *s = state;
    return s->m->leafs[leaf].numleaffaces;
}
static uint32_t src_leaf_face(const void *state, int32_t leaf, uint32_t i)
{
    const srcstate *s = state;
    uint64_t k = (uint64_t)s->m->leafs[leaf].firstleafface + i;
    return k < s->m->leafface_count ? s->m->leaffaces[k] : UINT32_MAX;
}

static const char *source_surface_name(const bk_file *f, int32_t surface)
{
    const bk_source_map *m = bk_source_map_of(f);
    if (!m || (uint32_t)surface >= m->texinfo_count) return NULL;
    int32_t td = m->texinfo[surface].texdata;
    return td >= 0 && (uint32_t)td < m->texdata_count ? m->texdata[td].name : NULL;
}

static void src_leaf_bounds(const void *state, int32_t leaf, float mins[3], float maxs[3])
{
    const bk_source_leaf *lf = &((const srcstate *)state)->m->leafs[leaf];
    for (int k = 0; k < 3; k++) mins[k] = lf->mins[k], maxs[k] = lf->maxs[k];
}

const bk_query_ops bk_query_ops_source = {
    .open = src_open,
    .destroy = src_destroy,
    .point = src_point,
    .points = src_points,
    .vis_row = src_vis_row,
    .leaf_cluster = src_leaf_cluster,
    .leaf_face_count = src_leaf_face_count,
    .leaf_face = src_leaf_face,
    .trace = bk_cm_state_trace,
    .cm = bk_cm_state,
    .surface_name = source_surface_name,
    .leaf_bounds = src_leaf_bounds,
};
