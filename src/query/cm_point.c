/* The point index of a Quake 3 collision model (see cm.h).
 *
 * A Quake 3 leaf has no contents of its own: a point's contents are those of the brushes that
 * hold it, among the brushes its leaf lists (19 on average, up to 129 on a Nexuiz map). Most of
 * them either hold the whole leaf (structural brushes cut the tree along their sides) or only
 * touch it, so they are sorted once per leaf. Each leaf's region lies in a box found by walking
 * the tree from the root and cutting the box at every axial node plane (other planes leave it
 * as it is, so the box is never too small). A brush whose planes keep all eight corners of that
 * box inside by a margin holds every point of the leaf: its contents are ORed into the leaf's
 * `full` contents. A brush whose bounds miss the box holds none and is dropped. The rest are
 * copied eight to a block, their bounds side by side (a point is tested against eight bounds at
 * once), then their contents and where their non-axial planes are: a point reads a few blocks in
 * a row of memory, and the planes of the few brushes whose bounds it is in. A leaf with two blocks
 * or more is cut into 4x4x4 cells, each naming the blocks whose bounds reach into it, so a point
 * reads only those (a third of them on ons-reborn). */
#include <math.h>
#include <string.h>

#include "cm.h"

#define CORNER_MARGIN 0.01f   /* a corner this far inside every plane: no rounding can put a
                                 point of the box outside (coordinates are at most 2^17) */

typedef struct ptbox { float mins[3], maxs[3]; bool seen; } ptbox;

/* every leaf's box; leaves the tree does not reach keep seen == false */
static void leaf_boxes(const bk_cm *cm, int32_t head, ptbox *boxes)
{
    typedef struct { int32_t node; float mins[3], maxs[3]; } item;
    item stack[256];
    uint32_t top = 0, visited = 0;
    stack[top++] = (item){head, {-INFINITY, -INFINITY, -INFINITY}, {INFINITY, INFINITY, INFINITY}};
    while (top) {
        item it = stack[--top];
        if (it.node < 0) {
            uint32_t l = (uint32_t)(-1 - it.node);
            if (l >= cm->leaf_count) continue;
            ptbox *b = &boxes[l];
            for (int k = 0; k < 3; k++) {   /* a leaf reached twice (a malformed tree): the union */
                b->mins[k] = b->seen ? fminf(b->mins[k], it.mins[k]) : it.mins[k];
                b->maxs[k] = b->seen ? fmaxf(b->maxs[k], it.maxs[k]) : it.maxs[k];
            }
            b->seen = true;
            continue;
        }
        if ((uint32_t)it.node >= cm->node_count || ++visited > cm->node_count) return;
        if (top + 2 > 256) continue;   /* a tree this deep: its leaves stay unseen (tested in full) */
        const bk_cm_node *nd = &cm->nodes[it.node];
        const bk_cm_plane *pl = &cm->planes[nd->plane];
        item f = it, b = it;
        f.node = nd->children[0];   /* front: pdist >= 0 */
        b.node = nd->children[1];
        if (pl->type < 3) {
            if (pl->d > f.mins[pl->type]) f.mins[pl->type] = pl->d;
            if (pl->d < b.maxs[pl->type]) b.maxs[pl->type] = pl->d;
        }
        stack[top++] = f;
        stack[top++] = b;
    }
}

static inline float side_dist(const bk_cm_plane *p, const float v[3])
{
    return p->n[0] * v[0] + p->n[1] * v[1] + p->n[2] * v[2] - p->d;
}

/* 0: the brush misses the box, 1: it holds all of it, 2: it crosses it, 3: its bounds only
 * touch a face of the box (it can hold a point of the leaf only on that face) */
static int classify(const bk_cm *cm, const bk_cm_brush *br, const ptbox *box)
{
    if (br->num_sides == 0) return 0;
    for (int k = 0; k < 3; k++)
        if (br->mins[k] > box->maxs[k] || br->maxs[k] < box->mins[k]) return 0;
    for (int k = 0; k < 3; k++)
        if (br->maxs[k] == box->mins[k] || br->mins[k] == box->maxs[k]) return 3;
    for (int k = 0; k < 3; k++)
        if (!isfinite(box->mins[k]) || !isfinite(box->maxs[k])) return 2;
    for (uint32_t s = 0; s < br->num_sides; s++) {
        const bk_cm_plane *p = &cm->planes[cm->sides[br->first_side + s].plane];
        for (int c = 0; c < 8; c++) {
            float v[3] = {c & 1 ? box->maxs[0] : box->mins[0], c & 2 ? box->maxs[1] : box->mins[1],
                          c & 4 ? box->maxs[2] : box->mins[2]};
            if (side_dist(p, v) > -CORNER_MARGIN) return 2;
        }
    }
    return 1;
}

/* entry n of the lists: brush br with its non-axial planes copied at *np */
static void put_brush(bk_cm *cm, bk_cm_ptindex *ix, uint64_t n, const bk_cm_brush *br, const uint32_t *plane_of)
{
    uint32_t b = (uint32_t)(br - cm->brushes);
    bk_cm_ptblock *bl = &ix->blocks[n / BK_CM_LANES];
    unsigned j = (unsigned)(n % BK_CM_LANES);
    for (int k = 0; k < 3; k++) bl->lo[k][j] = br->mins[k], bl->hi[k][j] = br->maxs[k];
    bl->contents[j] = br->contents;
    bl->native[j] = br->native;
    bl->first_plane[j] = plane_of[b];
    bl->num_planes[j] = plane_of[b + 1] - plane_of[b];
}

/* a padding entry: empty bounds, no planes, no contents */
static void put_pad(bk_cm_ptindex *ix, uint64_t n)
{
    bk_cm_ptblock *bl = &ix->blocks[n / BK_CM_LANES];
    unsigned j = (unsigned)(n % BK_CM_LANES);
    for (int k = 0; k < 3; k++) bl->lo[k][j] = INFINITY, bl->hi[k][j] = -INFINITY;
    bl->contents[j] = 0, bl->native[j] = 0, bl->first_plane[j] = 0, bl->num_planes[j] = 0;
}

/* entry *n: br (counted only while ix->blocks is NULL) */
static void put_entry(bk_cm *cm, bk_cm_ptindex *ix, uint64_t *n, const bk_cm_brush *br, const uint32_t *plane_of)
{
    if (ix->blocks) put_brush(cm, ix, *n, br, plane_of);
    ++*n;
}

static void pad_entries(bk_cm_ptindex *ix, uint64_t *n)
{
    for (; *n % BK_CM_LANES; ++*n)
        if (ix->blocks) put_pad(ix, *n);
}

/* leaf l's lists: the brushes crossing it, then those touching it */
static void leaf_lists(bk_cm *cm, const ptbox *boxes, bk_cm_ptindex *ix, uint32_t l, uint64_t *n, const uint32_t *plane_of)
{
    const bk_cm_leaf *lf = &cm->leafs[l];
    bk_cm_ptleaf tmp, *pl = ix->blocks ? &ix->leafs[l] : &tmp;
    memset(pl, 0, sizeof *pl);
    pl->first = (uint32_t)*n;
    for (int k = 0; k < 3; k++) {   /* a leaf the walk did not reach: every brush's bounds */
        pl->box[k] = boxes[l].seen ? boxes[l].mins[k] : ix->all_mins[k];
        pl->box[3 + k] = boxes[l].seen ? boxes[l].maxs[k] : ix->all_maxs[k];
    }
    for (int pass = 2; pass <= 3; pass++) {
        if (pass == 3) pl->mid = (uint32_t)*n;
        for (uint32_t i = 0; i < lf->num_brushes; i++) {
            const bk_cm_brush *br = &cm->brushes[cm->leafbrushes[lf->first_brush + i]];
            int c = boxes[l].seen ? classify(cm, br, &boxes[l]) : 2;
            if (c == 1 && pass == 2) pl->full |= br->contents, pl->full_native |= br->native;
            if (c == pass) put_entry(cm, ix, n, br, plane_of);
        }
        pad_entries(ix, n);
    }
    pl->end = (uint32_t)*n;
}

/* count (ix->blocks == NULL) or fill every leaf's lists, each padded to a multiple of eight */
static uint64_t sort_brushes(bk_cm *cm, const ptbox *boxes, bk_cm_ptindex *ix, const uint32_t *plane_of)
{
    uint64_t n = 0;
    for (uint32_t l = 0; l < cm->leaf_count; l++) leaf_lists(cm, boxes, ix, l, &n, plane_of);
    return n;
}

/* leaf lf's cells' masks (see BK_CM_SUB) into m, and its inv; false for a leaf without them */
static bool leaf_mask(const bk_cm_ptindex *ix, bk_cm_ptleaf *lf, uint32_t *m)
{
    uint32_t nb = (lf->mid - lf->first) / BK_CM_LANES;
    lf->sub = UINT32_MAX;
    if (nb < 2 || nb > 32) return false;
    double w[3], margin = 0.0625;
    for (int k = 0; k < 3; k++) {
        if (!isfinite(lf->box[k]) || !isfinite(lf->box[3 + k]) || !(lf->box[3 + k] > lf->box[k])) return false;
        w[k] = ((double)lf->box[3 + k] - lf->box[k]) / BK_CM_SUB;
        lf->inv[k] = (float)(BK_CM_SUB / ((double)lf->box[3 + k] - lf->box[k]));
        /* a point's cell comes from float arithmetic: it may err by a few units in the last place */
        margin = fmax(margin, (fabs(lf->box[k]) + fabs(lf->box[3 + k])) * 0x1p-18);
    }
    if (!m) return true;
    memset(m, 0, sizeof *m * BK_CM_SUB * BK_CM_SUB * BK_CM_SUB);
    for (uint32_t e = lf->first; e < lf->mid; e++) {
        const bk_cm_ptblock *b = &ix->blocks[e / BK_CM_LANES];
        unsigned j = e % BK_CM_LANES;
        uint32_t from[3], to[3];   /* the cells along each axis whose widened span meets the brush's bounds */
        bool any = true;
        for (int k = 0; k < 3 && any; k++) {
            from[k] = BK_CM_SUB, to[k] = 0;
            for (uint32_t i = 0; i < BK_CM_SUB; i++)
                if (b->lo[k][j] <= lf->box[k] + (i + 1) * w[k] + margin && b->hi[k][j] >= lf->box[k] + i * w[k] - margin) {
                    if (from[k] == BK_CM_SUB) from[k] = i;
                    to[k] = i;
                }
            any = from[k] < BK_CM_SUB;   /* a padding entry (empty bounds) meets none */
        }
        for (uint32_t z = from[2]; any && z <= to[2]; z++)
            for (uint32_t y = from[1]; y <= to[1]; y++)
                for (uint32_t x = from[0]; x <= to[0]; x++)
                    m[(z * BK_CM_SUB + y) * BK_CM_SUB + x] |= 1u << ((e - lf->first) / BK_CM_LANES);
    }
    return true;
}

/* the masks of every leaf with two to 32 blocks of crossing brushes */
static bk_result leaf_masks(bk_cm *cm, bk_ctx *ctx, bk_cm_ptindex *ix)
{
    enum { CELLS = BK_CM_SUB * BK_CM_SUB * BK_CM_SUB };
    uint32_t n = 0;
    for (uint32_t l = 0; l < cm->leaf_count; l++) n += leaf_mask(ix, &ix->leafs[l], NULL);
    if (n == 0) return BK_OK;
    bk_result r = BK_OK;
    ix->masks = bk_alloc_array(ctx, (size_t)n * CELLS, sizeof *ix->masks, &r);
    if (r != BK_OK) return r;
    n = 0;
    for (uint32_t l = 0; l < cm->leaf_count; l++)
        if (leaf_mask(ix, &ix->leafs[l], ix->masks + (size_t)n * CELLS)) ix->leafs[l].sub = n++ * CELLS;
    return BK_OK;
}

bk_result bk_cm_point_index(bk_cm *cm, bk_ctx *ctx)
{
    bk_cm_ptindex *ix = &cm->pt;
    if (!cm->leaf_contents_from_brushes || cm->model_count == 0 || cm->models[0].headnode < 0) return BK_OK;
    bk_result r = BK_OK;
    ptbox *boxes = bk_alloc_array(ctx, cm->leaf_count ? cm->leaf_count : 1, sizeof *boxes, &r);
    uint32_t *plane_of = bk_alloc_array(ctx, (size_t)cm->brush_count + 1, sizeof *plane_of, &r);
    if (r != BK_OK) goto done;
    leaf_boxes(cm, cm->models[0].headnode, boxes);
    uint64_t nplanes = 0;
    for (uint32_t b = 0; b < cm->brush_count; b++) {
        plane_of[b] = (uint32_t)nplanes;
        const bk_cm_brush *br = &cm->brushes[b];
        for (uint32_t s = 0; s < br->num_sides; s++)
            nplanes += bk_cm_axis(&cm->planes[cm->sides[br->first_side + s].plane], NULL) < 0;
    }
    plane_of[cm->brush_count] = (uint32_t)nplanes;   /* <= side_count */
    for (int k = 0; k < 3; k++) ix->all_mins[k] = INFINITY, ix->all_maxs[k] = -INFINITY;
    for (uint32_t b = 0; b < cm->brush_count; b++)
        for (int k = 0; k < 3; k++) {
            if (cm->brushes[b].num_sides == 0) continue;   /* holds nothing */
            ix->all_mins[k] = fminf(ix->all_mins[k], cm->brushes[b].mins[k]);
            ix->all_maxs[k] = fmaxf(ix->all_maxs[k], cm->brushes[b].maxs[k]);
        }
    /* a point outside every brush's bounds never reaches the lists (its contents are 0): each
     * leaf's box is cut to those bounds, so the leaves around the world get finite boxes too */
    for (uint32_t l = 0; l < cm->leaf_count; l++)
        for (int k = 0; k < 3 && boxes[l].seen; k++) {
            boxes[l].mins[k] = fmaxf(boxes[l].mins[k], ix->all_mins[k]);
            boxes[l].maxs[k] = fminf(boxes[l].maxs[k], ix->all_maxs[k]);
        }
    uint64_t nentries = sort_brushes(cm, boxes, ix, plane_of);   /* <= leafbrush_count + 14 a leaf */
    if (nentries > UINT32_MAX - BK_CM_LANES) r = BK_ELIMIT;
    ix->leafs = bk_alloc_array(ctx, cm->leaf_count ? cm->leaf_count : 1, sizeof *ix->leafs, &r);
    ix->planes = bk_alloc_array(ctx, nplanes ? nplanes : 1, sizeof *ix->planes, &r);
    ix->blocks = bk_alloc_array(ctx, nentries ? nentries / BK_CM_LANES : 1, sizeof *ix->blocks, &r);
    if (r != BK_OK) {
        bk_cm_point_index_free(cm);
        goto done;
    }
    for (uint32_t b = 0, o = 0; b < cm->brush_count; b++) {
        const bk_cm_brush *br = &cm->brushes[b];
        for (uint32_t s = 0; s < br->num_sides; s++) {
            const bk_cm_plane *p = &cm->planes[cm->sides[br->first_side + s].plane];
            if (bk_cm_axis(p, NULL) >= 0) continue;
            ix->planes[o][0] = p->n[0], ix->planes[o][1] = p->n[1], ix->planes[o][2] = p->n[2];
            ix->planes[o++][3] = p->d;
        }
    }
    sort_brushes(cm, boxes, ix, plane_of);
    r = leaf_masks(cm, ctx, ix);
    if (r != BK_OK) bk_cm_point_index_free(cm);
done:
    bk_free(plane_of);
    bk_free(boxes);
    return r;
}

void bk_cm_point_index_free(bk_cm *cm)
{
    bk_cm_ptindex *ix = &cm->pt;
    bk_free(ix->leafs);
    bk_free(ix->blocks);
    bk_free(ix->planes);
    bk_free(ix->masks);
    memset(ix, 0, sizeof *ix);
    bk_free(cm->grid.start);
    bk_free(cm->grid.answer);
    bk_free(cm->grid.nodes);
    memset(&cm->grid, 0, sizeof cm->grid);
    bk_free(cm->outer.start);
    bk_free(cm->outer.answer);
    memset(&cm->outer, 0, sizeof cm->outer);
    cm->cell_value_count = 0;
}

/* ---- the start grid ------------------------------------------------------------------------
 * A point walks the tree from the root through some 25 nodes on a Quake 3 map, one branch
 * mispredicted in two: that walk, not the brushes, is most of a point query. The grid skips its
 * top: each cell keeps the deepest node that every point of the cell reaches. Cells are filled
 * by halving blocks of cells and walking each block down as far as its box stays on one side
 * of the planes, so the build costs about one walk per cell. A plane decides a box only when
 * the whole box, widened by GRID_WIDEN, is farther than GRID_MARGIN from it (computed in
 * double): a point that the float arithmetic of the query puts in a cell is in its widened box,
 * and no float rounding of its plane distance (at most a few hundredths at 2^16) can send it to
 * the other side. */
#define GRID_MAX_CELLS (1u << 18)
#define GRID_MIN_CELL 16.0
#define GRID_WIDEN 0.0625
#define GRID_OUTER_CELLS (1u << 15)
#define GRID_OUTER_MIN 1024.0

typedef struct gridb { const bk_cm *cm; bk_cm_grid *g; uint32_t guard; } gridb;

/* the least and the largest of n . v - d over the box [lo, hi], in double */
static void plane_range(const float n[3], float d, const double lo[3], const double hi[3], double *mn, double *mx)
{
    *mn = *mx = -(double)d;
    for (int k = 0; k < 3; k++) {
        double a = (double)n[k] * lo[k], c = (double)n[k] * hi[k];
        *mn += a < c ? a : c;
        *mx += a < c ? c : a;
    }
}

/* the box of cells a .. z - 1 of g (z exclusive along each axis), widened by GRID_WIDEN */
static void cells_box(const bk_cm_grid *g, const uint32_t a[3], const uint32_t z[3], double lo[3], double hi[3])
{
    for (int k = 0; k < 3; k++) {
        lo[k] = g->origin[k] + a[k] * g->cell[k] - GRID_WIDEN;
        hi[k] = g->origin[k] + z[k] * g->cell[k] + GRID_WIDEN;
    }
}

static int32_t descend_box(const gridb *b, int32_t node, const double lo[3], const double hi[3])
{
    const bk_cm *cm = b->cm;
    for (uint32_t guard = 0; node >= 0 && guard <= cm->node_count; guard++) {
        if ((uint32_t)node >= cm->node_count) return node;
        const bk_cm_node *nd = &cm->nodes[node];
        const bk_cm_plane *pl = &cm->planes[nd->plane];
        double mn, mx;
        plane_range(pl->n, pl->d, lo, hi, &mn, &mx);
        if (mn > b->g->margin) node = nd->children[0];
        else if (mx < -b->g->margin) node = nd->children[1];
        else break;
    }
    return node;
}

static void fill_block(const gridb *b, int32_t node, const uint32_t a[3], const uint32_t z[3], int depth)
{
    bk_cm_grid *g = b->g;
    double lo[3], hi[3];
    cells_box(g, a, z, lo, hi);
    node = descend_box(b, node, lo, hi);
    int axis = 0;
    for (int k = 1; k < 3; k++)
        if (z[k] - a[k] > z[axis] - a[axis]) axis = k;
    if (node < 0 || z[axis] - a[axis] == 1 || depth > 64) {
        for (uint32_t k = a[2]; k < z[2]; k++)
            for (uint32_t j = a[1]; j < z[1]; j++)
                for (uint32_t i = a[0]; i < z[0]; i++) g->start[((size_t)k * g->dim[1] + j) * g->dim[0] + i] = node;
        return;
    }
    uint32_t mid[3] = {a[0], a[1], a[2]}, end[3] = {z[0], z[1], z[2]};
    mid[axis] = end[axis] = a[axis] + (z[axis] - a[axis]) / 2;
    fill_block(b, node, a, end, depth + 1);
    fill_block(b, node, mid, z, depth + 1);
}

/* ---- the cells' answers ------------------------------------------------------------------
 * A cell inside one leaf often lies wholly inside or wholly outside each brush of that leaf (the
 * leaves of an open map are large, its brushes' sides cross few cells): every point of it then
 * has the same contents, kept in the cell, and a point there needs neither a walk nor a brush.
 * A side decides the cell only when the cell's widened box is farther than the grid's margin from
 * it (in double), so no float rounding of the query can put a point of the cell on its other side. */

/* 0: no point of the box is in brush j of block b, 1: every point is, 2: either may be. Its bounds
 * are its axial sides, compared exactly; its other planes decide only beyond the margin. */
static int box_in_entry(const bk_cm_ptindex *ix, const bk_cm_ptblock *b, unsigned j, const double lo[3],
                        const double hi[3], double margin)
{
    int held = 1;
    for (int k = 0; k < 3; k++) {
        if (b->lo[k][j] > hi[k] || b->hi[k][j] < lo[k]) return 0;   /* and a padding entry */
        if (b->lo[k][j] > lo[k] || b->hi[k][j] < hi[k]) held = 2;
    }
    for (uint32_t s = 0; s < b->num_planes[j]; s++) {
        const float *p = ix->planes[b->first_plane[j] + s];
        double mn, mx;
        plane_range(p, p[3], lo, hi, &mn, &mx);
        if (mn > margin) return 0;
        if (!(mx < -margin)) held = 2;
    }
    return held;
}

/* index + 1 of (contents, native) in cm's answers, added if new; 0 when the table is full */
static uint8_t answer_of(bk_cm *cm, uint32_t contents, int32_t native)
{
    uint32_t i = 0;
    for (; i < cm->cell_value_count; i++)
        if (cm->cell_values[i].contents == contents && cm->cell_values[i].native == native) return (uint8_t)(i + 1);
    if (i == sizeof cm->cell_values / sizeof cm->cell_values[0]) return 0;
    cm->cell_values[i].contents = contents, cm->cell_values[i].native = native;
    cm->cell_value_count++;
    return (uint8_t)(i + 1);
}


/* the contents of every point of the box [lo, hi], which lies in leaf lf's region; false when
 * they may differ. Outside every brush's bounds: none. Inside them: the leaf's full contents
 * (brushes holding the leaf's whole region) and those of its listed brushes that hold the box. */
static bool cell_answer(const bk_cm_ptindex *ix, const bk_cm_ptleaf *lf, const double lo[3], const double hi[3],
                        double margin, uint32_t *c, int32_t *nat)
{
    *c = 0, *nat = 0;
    bool inside = true;
    for (int k = 0; k < 3; k++) {
        if (lo[k] > ix->all_maxs[k] || hi[k] < ix->all_mins[k]) return true;
        inside = inside && lo[k] >= ix->all_mins[k] && hi[k] <= ix->all_maxs[k];
    }
    if (!inside) return false;
    *c = lf->full, *nat = lf->full_native;
    float flo[3], fhi[3];   /* the box in floats, never smaller: eight bounds at a time pick the brushes to look at */
    for (int k = 0; k < 3; k++) {
        flo[k] = (float)lo[k], fhi[k] = (float)hi[k];
        if (flo[k] > lo[k]) flo[k] = nextafterf(flo[k], -INFINITY);
        if (fhi[k] < hi[k]) fhi[k] = nextafterf(fhi[k], INFINITY);
    }
    for (uint32_t blk = lf->first / BK_CM_LANES; blk < lf->end / BK_CM_LANES; blk++) {
        const bk_cm_ptblock *b = &ix->blocks[blk];
        unsigned near = bk_cm_block_meets(b, flo, fhi);
        for (unsigned j = 0; near; j++, near >>= 1) {
            if (!(near & 1)) continue;
            int h = box_in_entry(ix, b, j, lo, hi, margin);
            if (h == 2) return false;
            if (h == 1) *c |= b->contents[j], *nat |= b->native[j];
        }
    }
    return true;
}

/* the answer of every cell of g whose walk ends at its start, where the brushes decide it */
static bk_result grid_answers(bk_cm *cm, bk_ctx *ctx, bk_cm_grid *g)
{
    bk_result r = BK_OK;
    size_t cells = (size_t)g->dim[0] * g->dim[1] * g->dim[2];
    g->answer = bk_alloc_array(ctx, cells, 1, &r);
    if (r != BK_OK) return r;
    size_t cell = 0;
    for (uint32_t k = 0; k < g->dim[2]; k++)
        for (uint32_t j = 0; j < g->dim[1]; j++)
            for (uint32_t i = 0; i < g->dim[0]; i++, cell++) {
                uint32_t l = (uint32_t)(-1 - g->start[cell]), c;
                int32_t nat;
                g->answer[cell] = 0;
                if (g->start[cell] >= 0 || l >= cm->leaf_count) continue;
                uint32_t at[3] = {i, j, k}, to[3] = {i + 1, j + 1, k + 1};
                double lo[3], hi[3];
                cells_box(g, at, to, lo, hi);
                if (cell_answer(&cm->pt, &cm->pt.leafs[l], lo, hi, g->margin, &c, &nat)) g->answer[cell] = answer_of(cm, c, nat);
            }
    return BK_OK;
}

/* a start grid g over [lo, hi] of at most about max_cells cells */
static bk_result make_grid(bk_cm *cm, bk_ctx *ctx, bk_cm_grid *g, const double lo[3], const double hi[3],
                           uint32_t max_cells)
{
    bk_result r = BK_OK;
    double vol = 1, far = 0;
    for (int k = 0; k < 3; k++) {
        vol *= hi[k] - lo[k];
        far = fmax(far, fmax(fabs(lo[k]), fabs(hi[k])));
    }
    /* float distances err by a few units in the last place of the coordinates: 0.03 at 2^16 */
    g->margin = fmax(0.0625, far * 0x1p-20);
    double side = fmax(cbrt(vol / max_cells), GRID_MIN_CELL);
    size_t cells = 1;
    for (int k = 0; k < 3; k++) {
        g->dim[k] = (uint32_t)fmin(ceil((hi[k] - lo[k]) / side), max_cells);
        if (g->dim[k] == 0) g->dim[k] = 1;
        g->cell[k] = (hi[k] - lo[k]) / g->dim[k];
        g->inv[k] = 1.0 / g->cell[k];
        g->origin[k] = lo[k];
        cells *= g->dim[k];
    }
    if (cells > 2 * (size_t)max_cells) return BK_OK;
    g->start = bk_alloc_array(ctx, cells, sizeof *g->start, &r);
    if (r != BK_OK) return r;
    gridb b = {cm, g, 0};
    uint32_t a[3] = {0, 0, 0};
    fill_block(&b, cm->models[0].headnode, a, g->dim, 0);
    return cm->pt.leafs ? grid_answers(cm, ctx, g) : BK_OK;
}

bk_result bk_cm_point_grid(bk_cm *cm, bk_ctx *ctx, bool start_grid)
{
    bk_cm_grid *g = &cm->grid;
    if (cm->model_count == 0 || cm->models[0].headnode < 0 || cm->node_count < 64) return BK_OK;
    bk_result r = BK_OK;
    g->nodes = bk_alloc_array(ctx, cm->node_count, sizeof *g->nodes, &r);
    if (r != BK_OK) return r;
    for (uint32_t i = 0; i < cm->node_count; i++) {
        const bk_cm_plane *pl = &cm->planes[cm->nodes[i].plane];
        memcpy(g->nodes[i].n, pl->n, sizeof pl->n);
        g->nodes[i].d = pl->d;
        memcpy(g->nodes[i].children, cm->nodes[i].children, sizeof g->nodes[i].children);
    }
    if (!start_grid) return BK_OK;
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t b = 0; b < cm->brush_count; b++)
        for (int k = 0; k < 3; k++)
            if (isfinite(cm->brushes[b].mins[k]) && isfinite(cm->brushes[b].maxs[k]) &&
                fabsf(cm->brushes[b].mins[k]) < 1e6f && fabsf(cm->brushes[b].maxs[k]) < 1e6f) {
                lo[k] = fmin(lo[k], cm->brushes[b].mins[k]);
                hi[k] = fmax(hi[k], cm->brushes[b].maxs[k]);
            }
    for (int k = 0; k < 3; k++)
        if (!(hi[k] > lo[k])) return BK_OK;
    BK_TRY(make_grid(cm, ctx, g, lo, hi, GRID_MAX_CELLS));
    /* around it, three times as wide each way and coarser: points outside every brush (below a
     * map's floor, around it) would otherwise walk from the root, as deep as the points inside */
    double olo[3], ohi[3];
    for (int k = 0; k < 3; k++) {
        double ext = fmax(hi[k] - lo[k], GRID_OUTER_MIN);
        olo[k] = lo[k] - ext, ohi[k] = hi[k] + ext;
    }
    return make_grid(cm, ctx, &cm->outer, olo, ohi, GRID_OUTER_CELLS);
}
