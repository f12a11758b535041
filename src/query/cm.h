/* A collision model for the brush families (Quake 3, Source): the tree, convex brushes and
 * triangle meshes (Quake 3 patches, Source displacements), in one neutral shape that the
 * families fill at bk_query_open and one trace routine walks. The design follows the engines'
 * own collision maps: a swept box is tested against every brush of every leaf it passes through,
 * each brush by the planes of its sides pushed out by the box. */
#ifndef BK_CM_H
#define BK_CM_H

#include "query_internal.h"
#ifdef __SSE2__
#include <emmintrin.h>
#endif

typedef struct bk_cm_plane {
    float n[3];
    float d;
    int type;                  /* 0..2 axial, 3 not */
} bk_cm_plane;

typedef struct bk_cm_node {
    uint32_t plane;
    int32_t children[2];       /* >= 0 node, < 0 leaf -1-child */
} bk_cm_node;

typedef struct bk_cm_leaf {
    uint32_t first_brush, num_brushes;   /* into leafbrushes */
    uint32_t first_mesh, num_meshes;     /* into leafmeshes */
    uint32_t contents;         /* BK_CONTENTS_* of the leaf itself (Source); 0 for Quake 3 */
    int32_t native;
} bk_cm_leaf;

typedef struct bk_cm_side {
    uint32_t plane;
    int32_t surface;           /* shader / texinfo, -1 none */
    uint8_t bevel;
} bk_cm_side;

typedef struct bk_cm_brush {
    uint32_t first_side, num_sides;
    uint32_t contents;         /* BK_CONTENTS_* */
    int32_t native;
    float mins[3], maxs[3];    /* from the axial sides; +-inf when unknown */
} bk_cm_brush;

typedef struct bk_cm_tri {
    float v[3][3];
    float n[3], d;             /* unit normal and distance */
} bk_cm_tri;

typedef struct bk_cm_mesh {
    uint32_t first_tri, num_tris;
    float mins[3], maxs[3];
    uint32_t contents;
    int32_t native;
    int32_t surface;
} bk_cm_mesh;

typedef struct bk_cm_model {
    int32_t headnode;          /* -1: no tree (Quake 3 brush models): test its brushes directly */
    uint32_t first_brush, num_brushes;   /* brushes (not leafbrushes) */
    uint32_t first_mesh, num_meshes;
} bk_cm_model;

/* The point index (Quake 3, where a point's contents are those of the brushes holding it): per
 * leaf, the contents of the brushes that hold the leaf's whole region, and the brushes that
 * only cross it or touch it, each with its bounds and its non-axial planes (cm_point.c).
 *
 * Eight entries of a leaf's brush lists side by side, so that a point is tested against the
 * bounds of eight at once: each brush's bounds (its axial sides), contents and its non-axial
 * planes (into planes, a brush's next to each other). Each leaf's two lists start at a multiple
 * of eight, padded with entries whose bounds are empty (lo +inf, hi -inf). */
#define BK_CM_LANES 8
typedef struct bk_cm_ptblock {
    float lo[3][BK_CM_LANES], hi[3][BK_CM_LANES];
    uint32_t contents[BK_CM_LANES];
    int32_t native[BK_CM_LANES];
    uint32_t first_plane[BK_CM_LANES], num_planes[BK_CM_LANES];
} bk_cm_ptblock;

/* What a point in a leaf needs, in one place: its entries [first, mid) cross the leaf, [mid, end)
 * only touch it (multiples of 8); full: the contents of the brushes holding the whole leaf; box:
 * the box its region lies in (mins, maxs). */
typedef struct bk_cm_ptleaf {
    uint32_t first, mid, end;
    uint32_t full;
    int32_t full_native;
    float box[6];
    uint32_t sub;              /* its cells' block masks in masks (UINT32_MAX: none) */
    float inv[3];              /* BK_CM_SUB / the box's size: a point's cell along each axis */
} bk_cm_ptleaf;

/* which of the eight brushes of block b have bounds meeting the box [lo, hi] (bit j: lane j; a
 * point is the box [p, p]) */
static inline unsigned bk_cm_block_meets(const bk_cm_ptblock *b, const float lo[3], const float hi[3])
{
    unsigned m = 0;
#ifdef __SSE2__
    for (int h = 0; h < BK_CM_LANES; h += 4) {
        __m128 in = _mm_castsi128_ps(_mm_set1_epi32(-1));
        for (int k = 0; k < 3; k++) {
            in = _mm_and_ps(in, _mm_cmple_ps(_mm_loadu_ps(&b->lo[k][h]), _mm_set1_ps(hi[k])));
            in = _mm_and_ps(in, _mm_cmpge_ps(_mm_loadu_ps(&b->hi[k][h]), _mm_set1_ps(lo[k])));
        }
        m |= (unsigned)_mm_movemask_ps(in) << h;
    }
#else
    for (unsigned j = 0; j < BK_CM_LANES; j++)
        m |= (unsigned)((b->lo[0][j] <= hi[0]) & (b->hi[0][j] >= lo[0]) & (b->lo[1][j] <= hi[1]) &
                        (b->hi[1][j] >= lo[1]) & (b->lo[2][j] <= hi[2]) & (b->hi[2][j] >= lo[2]))
             << j;
#endif
    return m;
}

/* A leaf with two to 32 blocks of crossing brushes is cut into BK_CM_SUB^3 cells over its box;
 * each cell keeps which blocks have a brush whose bounds reach into it (bit b: the leaf's block
 * b), so a point tests those blocks only. */
#define BK_CM_SUB 4

typedef struct bk_cm_ptindex {
    bk_cm_ptleaf *leafs;       /* leaf_count; NULL: no index */
    float all_mins[3], all_maxs[3];   /* bounds of every brush: no brush holds a point outside */
    bk_cm_ptblock *blocks;     /* entry n is lane n % 8 of block n / 8 */
    float (*planes)[4];
    uint32_t *masks;           /* BK_CM_SUB^3 a leaf with masks */
} bk_cm_ptindex;

/* The start grid of model 0's tree: a point in cell (i,j,k) needs no node above start[cell]
 * (the deepest node whose planes leave the whole cell, widened by a margin, on one side). */
typedef struct bk_cm_fnode {
    float n[3], d;             /* the node's plane, inline */
    int32_t children[2];
} bk_cm_fnode;

typedef struct bk_cm_grid {
    double origin[3], cell[3], inv[3];
    uint32_t dim[3];
    int32_t *start;            /* NULL: walk from the root */
    uint8_t *answer;           /* a cell inside one leaf whose points all have the same contents:
                                  1 + their index in bk_cm.cell_values; else 0 (or NULL: none) */
    bk_cm_fnode *nodes;        /* node_count nodes with their planes, for point walks; or NULL */
    double margin;             /* how far a plane must be from a cell to decide it */
} bk_cm_grid;

/* What the sweep reads, laid out for it (bk_cm_trace_index, part of bk_cm_build): every brush
 * side's plane inline (by side index), every leaf's brushes as a run of their bounds and contents
 * in leaf order (by leafbrush index), read in sequence instead of one load through leafbrushes a
 * brush, and the nodes with their planes inline (one load a node instead of two). */
typedef struct bk_cm_sideplane {
    float n[3], d;
} bk_cm_sideplane;

typedef struct bk_cm_tnode {
    float n[3], d;             /* the node's plane, inline */
    int32_t children[2];
    int32_t type;              /* the plane's */
    int32_t pad_;
} bk_cm_tnode;

typedef struct bk_cm_lbrush {
    float mins[3], maxs[3];    /* the brush's bounds */
    uint32_t contents;         /* 0 for a brush without sides (it collides with nothing) */
    uint32_t brush;
} bk_cm_lbrush;

/* A bounding volume tree over a model's meshes (bk_cm_trace_index): a node holds the bounds of
 * its meshes; n > 0: a leaf, meshes mitems[a .. a+n); n == 0: children a and a + 1. */
typedef struct bk_cm_mnode {
    float mins[3], maxs[3];
    uint32_t a, n;
} bk_cm_mnode;

typedef struct bk_cm {
    bk_cm_plane *planes;   uint32_t plane_count;
    bk_cm_node *nodes;     uint32_t node_count;
    bk_cm_leaf *leafs;     uint32_t leaf_count;
    uint32_t *leafbrushes; uint32_t leafbrush_count;
    uint32_t *leafmeshes;  uint32_t leafmesh_count;
    bk_cm_side *sides;     uint32_t side_count;
    bk_cm_brush *brushes;  uint32_t brush_count;
    bk_cm_tri *tris;       uint32_t tri_count;
    bk_cm_mesh *meshes;    uint32_t mesh_count;
    bk_cm_model *models;   uint32_t model_count;
    int leaf_contents_from_brushes;   /* Quake 3: a point's contents are its brushes' */
    bk_cm_ptindex pt;
    bk_cm_grid grid;
    bk_cm_grid outer;                 /* a coarser start grid around grid's box (its nodes unused) */
    struct { uint32_t contents; int32_t native; } cell_values[255];   /* the grids' answers */
    uint32_t cell_value_count;
    bk_cm_sideplane *side_planes;     /* side_count */
    bk_cm_lbrush *lbrushes;           /* leafbrush_count */
    bk_cm_tnode *tnodes;              /* node_count */
    bk_cm_mnode *mnodes;              /* the mesh trees of every model */
    uint32_t *mitems;                 /* their meshes, each model's a permutation of its run */
    uint32_t *mroot;                  /* model_count: its tree's root in mnodes (UINT32_MAX: none) */
} bk_cm;

/* ask for the cache line at a before it is read */
#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(a) __builtin_prefetch(a)
#else
#define PREFETCH(a) ((void)(a))
#endif

void bk_cm_free(bk_cm *cm);
/* A triangle whose three corners are set: its unit normal and distance. false when degenerate
 * (it collides with nothing and is to be dropped). */
bool bk_cm_tri_finish(bk_cm_tri *t);
/* A mesh's bounds from its triangles. */
void bk_cm_mesh_bounds(const bk_cm *cm, bk_cm_mesh *me);
/* The run-length visibility row GoldSrc, Quake and Source share (a zero byte is followed by a
 * count of zero bytes) at ofs in vis, for `clusters` bits, into row (zeroed by the caller).
 * false when the data runs out first. */
bool bk_vis_rle_decode(const uint8_t *vis, size_t size, uint64_t ofs, uint32_t clusters, uint8_t *row);
/* The axis (0..2) of a plane whose normal is exactly +1 or -1 along it (*sign gets which), else -1:
 * such sides are a brush's bounds. */
static inline int bk_cm_axis(const bk_cm_plane *p, float *sign)
{
    for (int k = 0; k < 3; k++)
        if ((p->n[k] == 1.0f || p->n[k] == -1.0f) && p->n[(k + 1) % 3] == 0.0f && p->n[(k + 2) % 3] == 0.0f) {
            if (sign) *sign = p->n[k];
            return k;
        }
    return -1;
}
/* Fill plane type (axial or not) and each brush's bounds from its axial sides. */
void bk_cm_finish(bk_cm *cm);
/* Lay out what the sweep reads (side_planes, lbrushes, tnodes, the mesh trees) after bk_cm_finish (BK_ENOMEM /
 * BK_ELIMIT: none of them, and the model is not to be used). */
bk_result bk_cm_trace_index(bk_cm *cm, bk_ctx *ctx);
/* The leaf holding p, walking from node `head` (>= 0), or -1 when the tree is broken. For the
 * root of model 0 the walk starts at p's cell of the start grid (cm_point.c). */
int32_t bk_cm_point_leaf(const bk_cm *cm, int32_t head, const float p[3]);
/* bk_cm_point_leaf for count points (pos: 3 floats each), several walks side by side. */
void bk_cm_point_leaves(const bk_cm *cm, int32_t head, size_t count, const float *pos, int32_t *leaves);
/* The contents at p (leaf contents | every brush of the leaf holding p that contains it); when
 * leaf is not NULL it gets the leaf of a model with a tree (-1 otherwise or when broken). */
uint32_t bk_cm_point_contents(const bk_cm *cm, uint32_t model, const float p[3], int32_t *native,
                              int32_t *leaf);
/* bk_cm_point_contents with the leaf already found (l from bk_cm_point_leaf of the model's
 * head node; ignored for a model without a tree). */
uint32_t bk_cm_leaf_contents(const bk_cm *cm, uint32_t model, int32_t l, const float p[3], int32_t *native);
/* bk_cm_point_contents of model 0 (its leaf into *leaf): a point in a cell of the start grid
 * whose answer is known takes it, with no walk and no brush. */
uint32_t bk_cm_world_point(const bk_cm *cm, const float p[3], int32_t *leaf, int32_t *native);
/* bk_cm_world_point for count points: the same answers, faster in bulk. */
void bk_cm_world_points(const bk_cm *cm, size_t count, const float *pos, int32_t *leaves, uint32_t *contents,
                        int32_t *native);
/* Build the point index of a model-0 tree whose contents come from brushes (cm_point.c); the
 * answers are the same with or without it. */
bk_result bk_cm_point_index(bk_cm *cm, bk_ctx *ctx);
/* Lay out the nodes with their planes inline for point walks, and with start_grid the start grid
 * of model 0's tree (both brush families). */
bk_result bk_cm_point_grid(bk_cm *cm, bk_ctx *ctx, bool start_grid);
void bk_cm_point_index_free(bk_cm *cm);
/* Trace a box (mins/maxs) from start to end through model, stopping at contents in mask. */
void bk_cm_trace(const bk_cm *cm, const bk_trace_params *p, const float start[3], const float end[3],
                 bk_trace_result *tr);

/* What bk_cm_build needs from a family: its element counts, one accessor per kind of element
 * (each fills one zeroed element of the bk_cm), and its curved surfaces (Quake 3 patches,
 * Source displacements), each a candidate that may become one triangle mesh. `map` is passed
 * to every accessor. */
typedef struct bk_cm_desc {
    const void *map;
    uint32_t plane_count, node_count, leaf_count, leafbrush_count, side_count, brush_count, model_count;
    void (*plane)(const void *map, uint32_t i, bk_cm_plane *out);
    void (*node)(const void *map, uint32_t i, bk_cm_node *out);
    void (*leaf)(const void *map, uint32_t i, bk_cm_leaf *out);
    uint32_t (*leafbrush)(const void *map, uint32_t i);
    void (*side)(const void *map, uint32_t i, bk_cm_side *out);
    void (*brush)(const void *map, uint32_t i, bk_cm_brush *out);
    /* candidates 0..curve_count-1: curve_tris is how many triangles candidate i makes at most
     * (0: it is no mesh); curve_mesh writes them to out, fills me's contents, native and
     * surface and returns how many it kept (degenerate ones are dropped). scratch holds
     * scratch_floats floats. The limit report names curve_lump and curve_what ("%llu <what>
     * exceed the element limit"). */
    uint32_t curve_count;
    uint64_t (*curve_tris)(const void *map, uint32_t i);
    uint32_t (*curve_mesh)(const void *map, uint32_t i, bk_cm_tri *out, bk_cm_mesh *me, float *scratch);
    size_t scratch_floats;
    const char *curve_lump, *curve_what;
    /* one model; mesh_of[i] (i <= curve_count) is the index of the first mesh made from
     * candidate i or a later one */
    void (*model)(const void *map, uint32_t i, const bk_cm *cm, const uint32_t *mesh_of, bk_cm_model *out);
    bool leaf_contents_from_brushes;
} bk_cm_desc;

/* Fill cm from a family's description: count the curved triangles and check them against the
 * element limit, allocate every array, copy the elements, build the meshes in candidate order
 * (so a run of candidates is a run of meshes) and finish (bk_cm_finish). On failure cm is
 * left empty. */
bk_result bk_cm_build(bk_cm *cm, const bk_cm_desc *d, bk_ctx *ctx);

/* For query states whose first member is a bk_cm (Quake 3, Source): the ops table's trace and cm. */
bk_result bk_cm_state_trace(const void *state, const bk_trace_params *p, const float start[3], const float end[3],
                            bk_trace_result *tr);
const bk_cm *bk_cm_state(const void *state);

#endif
