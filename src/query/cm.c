/* Box traces through a brush family's collision model (see cm.h).
 *
 * The box is first centred: a box [mins, maxs] moved from start is the same as a symmetric box
 * of half-size ext moved from start + centre. A brush side's plane pushed out by that box moves
 * by |n|.ext; a swept point then enters the brush at the last plane it crosses going in and
 * leaves at the first it crosses going out. The tree walk splits the move at every node plane
 * (widened by the box) and visits the leaves along it in order, so the first hit ends the
 * walk early. Nothing is allocated and nothing shared is written: traces may run in parallel. */
#include <math.h>

#include "cm.h"


void bk_cm_free(bk_cm *cm)
{
    if (!cm) return;
    bk_free(cm->planes);
    bk_free(cm->nodes);
    bk_free(cm->leafs);
    bk_free(cm->leafbrushes);
    bk_free(cm->leafmeshes);
    bk_free(cm->sides);
    bk_free(cm->brushes);
    bk_free(cm->tris);
    bk_free(cm->meshes);
    bk_free(cm->models);
    bk_free(cm->side_planes);
    bk_free(cm->lbrushes);
    bk_free(cm->tnodes);
    bk_free(cm->mnodes);
    bk_free(cm->mitems);
    bk_free(cm->mroot);
    bk_cm_point_index_free(cm);
    memset(cm, 0, sizeof *cm);
}

bool bk_cm_tri_finish(bk_cm_tri *T)
{
    float e1[3], e2[3];
    for (int k = 0; k < 3; k++) e1[k] = T->v[1][k] - T->v[0][k], e2[k] = T->v[2][k] - T->v[0][k];
    float n[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
    float len = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    if (!(len > 1e-6f)) return false;
    for (int k = 0; k < 3; k++) T->n[k] = n[k] / len;
    T->d = T->n[0] * T->v[0][0] + T->n[1] * T->v[0][1] + T->n[2] * T->v[0][2];
    return true;
}

void bk_cm_mesh_bounds(const bk_cm *cm, bk_cm_mesh *me)
{
    for (int k = 0; k < 3; k++) me->mins[k] = INFINITY, me->maxs[k] = -INFINITY;
    for (uint32_t t = 0; t < me->num_tris; t++)
        for (int v = 0; v < 3; v++)
            for (int k = 0; k < 3; k++) {
                float x = cm->tris[me->first_tri + t].v[v][k];
                if (x < me->mins[k]) me->mins[k] = x;
                if (x > me->maxs[k]) me->maxs[k] = x;
            }
}

bool bk_vis_rle_decode(const uint8_t *vis, size_t size, uint64_t ofs, uint32_t clusters, uint8_t *row)
{
    size_t nbytes = ((size_t)clusters + 7) / 8, out = 0;
    if (ofs >= size) return false;
    const uint8_t *p = vis + ofs, *end = vis + size;
    while (out < nbytes) {
        if (p >= end) return false;
        if (*p) {
            row[out++] = *p++;
            continue;
        }
        if (p + 1 >= end) return false;
        out += p[1];   /* zero bytes (already zero); a run past the end is clipped */
        p += 2;
    }
    if (clusters & 7) row[nbytes - 1] &= (uint8_t)((1u << (clusters & 7)) - 1);
    return true;
}

void bk_cm_finish(bk_cm *cm)
{
    for (uint32_t i = 0; i < cm->plane_count; i++) {
        bk_cm_plane *p = &cm->planes[i];
        float sign;
        int k = bk_cm_axis(p, &sign);
        p->type = k >= 0 && sign > 0 ? k : 3;
    }
    for (uint32_t b = 0; b < cm->brush_count; b++) {
        bk_cm_brush *br = &cm->brushes[b];
        for (int k = 0; k < 3; k++) br->mins[k] = -INFINITY, br->maxs[k] = INFINITY;
        for (uint32_t s = 0; s < br->num_sides; s++) {
            const bk_cm_plane *p = &cm->planes[cm->sides[br->first_side + s].plane];
            float sign;
            int k = bk_cm_axis(p, &sign);
            if (k >= 0 && sign > 0 && p->d < br->maxs[k]) br->maxs[k] = p->d;
            if (k >= 0 && sign < 0 && -p->d > br->mins[k]) br->mins[k] = -p->d;
        }
    }
}

/* the bounds of meshes it[0 .. n) */
static void mesh_run_bounds(const bk_cm *cm, const uint32_t *it, uint32_t n, float mn[3], float mx[3])
{
    for (int k = 0; k < 3; k++) mn[k] = INFINITY, mx[k] = -INFINITY;
    for (uint32_t i = 0; i < n; i++) {
        const bk_cm_mesh *me = &cm->meshes[it[i]];
        for (int k = 0; k < 3; k++) {
            if (me->mins[k] < mn[k]) mn[k] = me->mins[k];
            if (me->maxs[k] > mx[k]) mx[k] = me->maxs[k];
        }
    }
}

enum { MLEAF = 4, MDEPTH = 48 };

/* node `at` over mitems[a .. a+n): a leaf of up to MLEAF meshes, else the run split at the middle
 * of its centres' longest extent (in half when they all fall on one side); *used counts nodes */
static void mesh_tree(bk_cm *cm, uint32_t at, uint32_t a, uint32_t n, uint32_t *used, uint32_t depth)
{
    bk_cm_mnode *nd = &cm->mnodes[at];
    uint32_t *it = cm->mitems + a;
    mesh_run_bounds(cm, it, n, nd->mins, nd->maxs);
    if (n <= MLEAF || depth >= MDEPTH) {
        nd->a = a, nd->n = n;
        return;
    }
    float cmn[3] = {INFINITY, INFINITY, INFINITY}, cmx[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t i = 0; i < n; i++) {
        const bk_cm_mesh *me = &cm->meshes[it[i]];
        for (int k = 0; k < 3; k++) {
            float c = (me->mins[k] + me->maxs[k]) * 0.5f;
            if (c < cmn[k]) cmn[k] = c;
            if (c > cmx[k]) cmx[k] = c;
        }
    }
    int ax = 0;
    for (int k = 1; k < 3; k++)
        if (cmx[k] - cmn[k] > cmx[ax] - cmn[ax]) ax = k;
    float split = (cmn[ax] + cmx[ax]) * 0.5f;
    uint32_t lo = 0;
    for (uint32_t i = 0; i < n; i++) {
        const bk_cm_mesh *me = &cm->meshes[it[i]];
        if ((me->mins[ax] + me->maxs[ax]) * 0.5f < split) {
            uint32_t x = it[i];
            it[i] = it[lo], it[lo++] = x;
        }
    }
    if (lo == 0 || lo == n) lo = n / 2;
    uint32_t c = *used;
    *used += 2;
    nd->a = c, nd->n = 0;
    mesh_tree(cm, c, a, lo, used, depth + 1);
    mesh_tree(cm, c + 1, a + lo, n - lo, used, depth + 1);
}

/* the mesh trees of every model with meshes (a model whose run leaves the meshes has none) */
static bk_result mesh_trees(bk_cm *cm, bk_ctx *ctx)
{
    bk_result r = BK_OK;
    uint64_t items = 0;
    for (uint32_t m = 0; m < cm->model_count; m++) items += cm->models[m].num_meshes;
    if (items > UINT32_MAX / 2) return BK_OK;   /* no trees: every mesh tested, as before */
    cm->mroot = bk_alloc_array(ctx, cm->model_count, sizeof *cm->mroot, &r);
    cm->mitems = bk_alloc_array(ctx, items ? items : 1, sizeof *cm->mitems, &r);
    cm->mnodes = bk_alloc_array(ctx, 2 * items + 1, sizeof *cm->mnodes, &r);
    if (r != BK_OK) {
        BK_FREE_NULL(cm->mroot);
        BK_FREE_NULL(cm->mitems);
        BK_FREE_NULL(cm->mnodes);
        return r;
    }
    uint32_t at = 0, used = 0;
    for (uint32_t m = 0; m < cm->model_count; m++) {
        const bk_cm_model *md = &cm->models[m];
        cm->mroot[m] = UINT32_MAX;
        if (md->num_meshes == 0 || md->first_mesh > cm->mesh_count || md->num_meshes > cm->mesh_count - md->first_mesh)
            continue;
        for (uint32_t i = 0; i < md->num_meshes; i++) cm->mitems[at + i] = md->first_mesh + i;
        cm->mroot[m] = used++;
        mesh_tree(cm, cm->mroot[m], at, md->num_meshes, &used, 0);
        at += md->num_meshes;
    }
    return BK_OK;
}

/* the trace index given back (a failed build leaves none) */
static void trace_index_free(bk_cm *cm)
{
    BK_FREE_NULL(cm->side_planes);
    BK_FREE_NULL(cm->lbrushes);
    BK_FREE_NULL(cm->tnodes);
}

bk_result bk_cm_trace_index(bk_cm *cm, bk_ctx *ctx)
{
    bk_result r = BK_OK;
    cm->side_planes = bk_alloc_array(ctx, cm->side_count, sizeof *cm->side_planes, &r);
    cm->lbrushes = bk_alloc_array(ctx, cm->leafbrush_count, sizeof *cm->lbrushes, &r);
    cm->tnodes = bk_alloc_array(ctx, cm->node_count, sizeof *cm->tnodes, &r);
    if (r != BK_OK) {
        trace_index_free(cm);
        return r;
    }
    for (uint32_t i = 0; i < cm->node_count; i++) {
        const bk_cm_plane *p = &cm->planes[cm->nodes[i].plane];
        bk_cm_tnode *t = &cm->tnodes[i];
        memcpy(t->n, p->n, sizeof p->n);
        t->d = p->d;
        t->type = p->type;
        memcpy(t->children, cm->nodes[i].children, sizeof t->children);
    }
    for (uint32_t i = 0; i < cm->side_count; i++) {
        const bk_cm_plane *p = &cm->planes[cm->sides[i].plane];
        memcpy(cm->side_planes[i].n, p->n, sizeof p->n);
        cm->side_planes[i].d = p->d;
    }
    for (uint32_t i = 0; i < cm->leafbrush_count; i++) {
        const bk_cm_brush *br = &cm->brushes[cm->leafbrushes[i]];
        bk_cm_lbrush *lb = &cm->lbrushes[i];
        memcpy(lb->mins, br->mins, sizeof lb->mins);
        memcpy(lb->maxs, br->maxs, sizeof lb->maxs);
        lb->contents = br->num_sides ? br->contents : 0;
        lb->brush = cm->leafbrushes[i];
    }
    r = mesh_trees(cm, ctx);
    if (r != BK_OK) trace_index_free(cm);
    return r;
}

static inline float pdist(const bk_cm_plane *p, const float v[3])
{
    if (p->type < 3) return v[p->type] - p->d;
    return p->n[0] * v[0] + p->n[1] * v[1] + p->n[2] * v[2] - p->d;
}

/* p's cell of g: the node its walk starts at, and the cell's answer (0: none) */
static inline bool grid_start(const bk_cm_grid *g, const float p[3], int32_t *node, uint8_t *ans)
{
    if (!g->start) return false;
    double fi = (p[0] - g->origin[0]) * g->inv[0], fj = (p[1] - g->origin[1]) * g->inv[1],
           fk = (p[2] - g->origin[2]) * g->inv[2];
    if (!(fi >= 0 && fi < g->dim[0] && fj >= 0 && fj < g->dim[1] && fk >= 0 && fk < g->dim[2])) return false;
    size_t cell = ((size_t)fk * g->dim[1] + (size_t)fj) * g->dim[0] + (size_t)fi;
    *node = g->start[cell];
    *ans = g->answer ? g->answer[cell] : 0;
    return true;
}

/* where a walk from head starts: p's cell of the start grid for model 0's root, or of the coarser
 * one around it; *ans gets the cell's answer (0: none, or not model 0's root) */
static inline int32_t walk_start(const bk_cm *cm, int32_t head, const float p[3], uint8_t *ans)
{
    int32_t n = head;
    *ans = 0;
    if (head == cm->models[0].headnode && !grid_start(&cm->grid, p, &n, ans)) grid_start(&cm->outer, p, &n, ans);
    return n;
}

static inline int32_t walk_end(const bk_cm *cm, int32_t n)
{
    uint32_t leaf = (uint32_t)(-1 - n);
    return n < 0 && leaf < cm->leaf_count ? (int32_t)leaf : -1;
}

/* bk_cm_point_leaf, and the answer of the start cell (0: none) */
static int32_t point_leaf(const bk_cm *cm, int32_t head, const float p[3], uint8_t *ans)
{
    int32_t n = walk_start(cm, head, p, ans);
    const bk_cm_fnode *fn = cm->grid.nodes;
    for (uint32_t guard = 0; n >= 0; guard++) {
        if ((uint32_t)n >= cm->node_count || guard > cm->node_count) return -1;
        if (fn) {   /* the same distances (an axial plane's zero terms add nothing), one load a node */
            const bk_cm_fnode *nd = &fn[n];
            n = nd->children[nd->n[0] * p[0] + nd->n[1] * p[1] + nd->n[2] * p[2] - nd->d < 0];
        } else {
            const bk_cm_node *nd = &cm->nodes[n];
            n = nd->children[pdist(&cm->planes[nd->plane], p) >= 0 ? 0 : 1];
        }
    }
    return walk_end(cm, n);
}

int32_t bk_cm_point_leaf(const bk_cm *cm, int32_t head, const float p[3])
{
    uint8_t ans;
    return point_leaf(cm, head, p, &ans);
}

/* A walk is a chain of dependent loads and compares, so one point at a time leaves the core
 * waiting; BATCH walks side by side keep it busy. A slot whose walk reaches its leaf takes the
 * next point at once, so the slots stay full however the walks' depths differ. */
#define BATCH 8
static void point_leaves(const bk_cm *cm, int32_t head, size_t count, const float *pos, int32_t *leaves, uint8_t *ans)
{
    const bk_cm_fnode *fn = cm->grid.nodes;
    uint8_t a;
    if (!fn) {
        for (size_t i = 0; i < count; i++) leaves[i] = point_leaf(cm, head, pos + 3 * i, ans ? &ans[i] : &a);
        return;
    }
    int32_t n[BATCH];
    size_t at[BATCH], next = 0;
    uint32_t steps[BATCH];
    int live = 0;
    for (int j = 0; j < BATCH; j++) {
        at[j] = next < count ? next++ : SIZE_MAX;
        if (at[j] == SIZE_MAX) continue;
        n[j] = walk_start(cm, head, pos + 3 * at[j], ans ? &ans[at[j]] : &a), steps[j] = 0, live++;
    }
    while (live) {
        for (int j = 0; j < BATCH; j++) {
            if (at[j] == SIZE_MAX) continue;
            if (n[j] >= 0 && (uint32_t)n[j] < cm->node_count && steps[j] <= cm->node_count) {
                const float *p = pos + 3 * at[j];
                const bk_cm_fnode *nd = &fn[n[j]];
                n[j] = nd->children[nd->n[0] * p[0] + nd->n[1] * p[1] + nd->n[2] * p[2] - nd->d < 0];
                steps[j]++;
                continue;
            }
            /* at a leaf (or a broken tree: no leaf); the slot takes the next point */
            leaves[at[j]] = n[j] >= 0 ? -1 : walk_end(cm, n[j]);
            at[j] = next < count ? next++ : SIZE_MAX;
            if (at[j] == SIZE_MAX) live--;
            else n[j] = walk_start(cm, head, pos + 3 * at[j], ans ? &ans[at[j]] : &a), steps[j] = 0;
        }
    }
}

void bk_cm_point_leaves(const bk_cm *cm, int32_t head, size_t count, const float *pos, int32_t *leaves)
{
    point_leaves(cm, head, count, pos, leaves, NULL);
}

static bool brush_holds(const bk_cm *cm, const bk_cm_brush *br, const float p[3])
{
    if (br->num_sides == 0) return false;
    for (uint32_t s = 0; s < br->num_sides; s++)
        if (pdist(&cm->planes[cm->sides[br->first_side + s].plane], p) > 0) return false;
    return true;
}

static inline unsigned lowest_bit(unsigned m)
{
#if defined(__GNUC__) || defined(__clang__)
    return (unsigned)__builtin_ctz(m);
#else
    unsigned j = 0;
    while (!(m >> j & 1)) j++;
    return j;
#endif
}

/* which of the eight brushes of block b have p inside their bounds (bit j: brush 8b+j) */
static inline unsigned block_hits(const bk_cm_ptblock *b, const float p[3])
{
    return bk_cm_block_meets(b, p, p);
}

/* lane j of block b, a brush whose bounds hold p: p is inside its other planes too */
static inline bool entry_holds(const bk_cm_ptindex *ix, const bk_cm_ptblock *b, unsigned j, const float p[3])
{
    for (uint32_t k = 0; k < b->num_planes[j]; k++) {
        const float *pl = ix->planes[b->first_plane[j] + k];
        if (pl[0] * p[0] + pl[1] * p[1] + pl[2] * p[2] - pl[3] > 0) return false;
    }
    return true;
}

static inline bool outside_all(const bk_cm_ptindex *ix, const float p[3])
{
    return p[0] > ix->all_maxs[0] || p[0] < ix->all_mins[0] || p[1] > ix->all_maxs[1] || p[1] < ix->all_mins[1] ||
           p[2] > ix->all_maxs[2] || p[2] < ix->all_mins[2];
}

static inline bool on_box_face(const float bx[6], const float p[3])
{
    return p[0] == bx[0] || p[1] == bx[1] || p[2] == bx[2] || p[0] == bx[3] || p[1] == bx[4] || p[2] == bx[5];
}

/* where the mask of p's cell of leaf lf is in masks (UINT32_MAX: the leaf has none) */
static inline uint32_t leaf_cell(const bk_cm_ptleaf *lf, const float p[3])
{
    if (lf->sub == UINT32_MAX) return UINT32_MAX;
    uint32_t c = 0;
    for (int k = 2; k >= 0; k--) {
        float f = (p[k] - lf->box[k]) * lf->inv[k];
        c = c * BK_CM_SUB + (f <= 0 ? 0 : f >= BK_CM_SUB - 1 ? BK_CM_SUB - 1 : (uint32_t)f);
    }
    return lf->sub + c;
}

/* which blocks of leaf lf's crossing brushes may hold a point whose leaf_cell is at (bit b: block
 * first / 8 + b; every one for a leaf without masks, the blocks past the 32nd included) */
static inline uint32_t leaf_blocks(const bk_cm_ptindex *ix, const bk_cm_ptleaf *lf, uint32_t at)
{
    if (at != UINT32_MAX) return ix->masks[at];
    uint32_t nb = (lf->mid - lf->first) / BK_CM_LANES;
    return nb >= 32 ? UINT32_MAX : (1u << nb) - 1;
}

/* brush j of block b, whose bounds hold p: its contents into c and nat when its planes hold p
 * too (not tested when they would add nothing) */
static inline void entry_add(const bk_cm_ptindex *ix, const bk_cm_ptblock *b, unsigned j, const float p[3], uint32_t *c,
                             int32_t *nat)
{
    if ((*c & b->contents[j]) == b->contents[j] && (*nat & b->native[j]) == b->native[j]) return;
    if (entry_holds(ix, b, j, p)) *c |= b->contents[j], *nat |= b->native[j];
}

/* the brushes [a, z) (multiples of 8) whose bounds hold p are tested against their other planes
 * (of the first 32 blocks, those mask leaves in; every one after them) */
static void indexed_run(const bk_cm_ptindex *ix, uint32_t a, uint32_t z, uint32_t mask, const float p[3], uint32_t *c,
                        int32_t *nat)
{
    uint32_t nb = (z - a) / BK_CM_LANES;
    for (uint32_t b0 = a / BK_CM_LANES, done = 0; done < nb; done += 32, b0 += 32, mask = UINT32_MAX) {
        uint32_t left = nb - done;   /* 32 blocks at a time, the mask for the first 32 */
        for (mask &= left >= 32 ? UINT32_MAX : (1u << left) - 1; mask; mask &= mask - 1) {
            const bk_cm_ptblock *b = &ix->blocks[b0 + lowest_bit(mask)];
            for (unsigned m = block_hits(b, p); m; m &= m - 1) entry_add(ix, b, lowest_bit(m), p, c, nat);
        }
    }
}

static uint32_t indexed_contents(const bk_cm *cm, uint32_t l, const float p[3], int32_t *native)
{
    const bk_cm_ptindex *ix = &cm->pt;
    if (outside_all(ix, p)) {
        *native = 0;   /* outside every brush's bounds (so no brush holds the whole leaf either) */
        return 0;
    }
    const bk_cm_ptleaf *lf = &ix->leafs[l];
    uint32_t c = lf->full;
    int32_t nat = lf->full_native;
    indexed_run(ix, lf->first, lf->mid, leaf_blocks(ix, lf, leaf_cell(lf, p)), p, &c, &nat);
    if (on_box_face(lf->box, p)) indexed_run(ix, lf->mid, lf->end, UINT32_MAX, p, &c, &nat);
    *native = nat;
    return c;
}

/* bk_cm_leaf_contents of model 0 for count points whose leaves are known (and their start cells'
 * answers, ans: 0 for none), with the point index.
 * A point waits on memory three times (its leaf's entry, the bounds of the leaf's brushes, the
 * planes of the few whose bounds hold it); a point at a time, the core waits each time. So the
 * points go through each step in groups, and each step asks for what the next will read. */
static void world_contents(const bk_cm *cm, size_t count, const float *pos, const int32_t *leaves, const uint8_t *ans,
                           uint32_t *contents, int32_t *native)
{
    const bk_cm_ptindex *ix = &cm->pt;
    if (!ix->leafs || cm->models[0].headnode < 0) {
        for (size_t i = 0; i < count; i++) contents[i] = bk_cm_leaf_contents(cm, 0, leaves[i], pos + 3 * i, &native[i]);
        return;
    }
    enum { GROUP = 16, HITS = 6 };
    for (size_t base = 0; base < count; base += GROUP) {
        size_t n = count - base < GROUP ? count - base : GROUP;
        const float *P = pos + 3 * base;
        const int32_t *L = leaves + base;
        uint32_t *C = contents + base, hit[GROUP][HITS], mask[GROUP];
        int32_t *N = native + base;
        int nhit[GROUP];
        const uint8_t *A = ans + base;
        for (size_t i = 0; i < n; i++)
            if (L[i] >= 0 && !A[i]) PREFETCH(&ix->leafs[L[i]]);
        for (size_t i = 0; i < n; i++) {   /* done now (its cell's answer, outside every brush, broken, on a
                                              face of the leaf's box) or the leaf's first blocks asked for */
            const float *p = P + 3 * i;
            nhit[i] = -1;
            if (A[i]) {
                C[i] = cm->cell_values[A[i] - 1].contents, N[i] = cm->cell_values[A[i] - 1].native;
                continue;
            }
            if (L[i] < 0) {
                C[i] = bk_cm_leaf_contents(cm, 0, L[i], p, &N[i]);
                continue;
            }
            if (outside_all(ix, p)) {
                C[i] = 0, N[i] = 0;
                continue;
            }
            const bk_cm_ptleaf *lf = &ix->leafs[L[i]];
            if (on_box_face(lf->box, p)) {
                C[i] = indexed_contents(cm, (uint32_t)L[i], p, &N[i]);   /* the touching brushes too */
                continue;
            }
            if (lf->mid - lf->first > 32 * BK_CM_LANES) {   /* more blocks than a mask has bits */
                C[i] = indexed_contents(cm, (uint32_t)L[i], p, &N[i]);
                continue;
            }
            C[i] = lf->full, N[i] = lf->full_native, nhit[i] = 0;
            mask[i] = leaf_cell(lf, p);
            if (mask[i] != UINT32_MAX) PREFETCH(&ix->masks[mask[i]]);
        }
        for (size_t i = 0; i < n; i++) {   /* the blocks its cell of the leaf names; the first two asked for */
            if (nhit[i] < 0) continue;
            const bk_cm_ptleaf *lf = &ix->leafs[L[i]];
            mask[i] = leaf_blocks(ix, lf, mask[i]);
            for (uint32_t m = mask[i], asked = 0; m && asked < 2; m &= m - 1, asked++) {
                const char *b = (const char *)&ix->blocks[lf->first / BK_CM_LANES + lowest_bit(m)];
                for (int line = 0; line < (int)sizeof(bk_cm_ptblock); line += 64) PREFETCH(b + line);
            }
        }
        for (size_t i = 0; i < n; i++) {   /* those whose bounds hold it; their planes asked for */
            const float *p = P + 3 * i;
            const bk_cm_ptleaf *lf = nhit[i] >= 0 ? &ix->leafs[L[i]] : NULL;
            for (uint32_t bm = lf ? mask[i] : 0; bm && nhit[i] >= 0; bm &= bm - 1) {
                uint32_t b = lf->first / BK_CM_LANES + lowest_bit(bm);
                for (unsigned m = block_hits(&ix->blocks[b], p); m; m &= m - 1) {
                    unsigned j = lowest_bit(m);
                    if (nhit[i] == HITS) {   /* more than it keeps: the whole way */
                        C[i] = indexed_contents(cm, (uint32_t)L[i], p, &N[i]);
                        nhit[i] = -1;
                        break;
                    }
                    hit[i][nhit[i]++] = b * BK_CM_LANES + j;
                    PREFETCH(ix->planes[ix->blocks[b].first_plane[j]]);
                }
            }
        }
        for (size_t i = 0; i < n; i++) {   /* their planes */
            const float *p = P + 3 * i;
            for (int h = 0; h < nhit[i]; h++) {
                entry_add(ix, &ix->blocks[hit[i][h] / BK_CM_LANES], hit[i][h] % BK_CM_LANES, p, &C[i], &N[i]);
            }
        }
    }
}

void bk_cm_world_points(const bk_cm *cm, size_t count, const float *pos, int32_t *leaves, uint32_t *contents,
                        int32_t *native)
{
    enum { CHUNK = 256 };
    uint8_t ans[CHUNK];
    int32_t head = cm->models[0].headnode;
    for (size_t base = 0; base < count; base += CHUNK) {
        size_t n = count - base < CHUNK ? count - base : CHUNK;
        if (head >= 0) {
            point_leaves(cm, head, n, pos + 3 * base, leaves + base, ans);
        } else {
            for (size_t i = 0; i < n; i++) leaves[base + i] = -1, ans[i] = 0;
        }
        world_contents(cm, n, pos + 3 * base, leaves + base, ans, contents + base, native + base);
    }
}

uint32_t bk_cm_world_point(const bk_cm *cm, const float p[3], int32_t *leaf, int32_t *native)
{
    int32_t head = cm->models[0].headnode;
    uint8_t ans = 0;
    *leaf = head >= 0 ? point_leaf(cm, head, p, &ans) : -1;
    if (ans) {
        *native = cm->cell_values[ans - 1].native;
        return cm->cell_values[ans - 1].contents;
    }
    return bk_cm_leaf_contents(cm, 0, *leaf, p, native);
}

uint32_t bk_cm_leaf_contents(const bk_cm *cm, uint32_t model, int32_t l, const float p[3], int32_t *native)
{
    uint32_t c = 0;
    int32_t nat = 0;
    const bk_cm_model *m = &cm->models[model];
    if (m->headnode >= 0) {
        if (l < 0) {
            if (native) *native = 0;
            return BK_CONTENTS_SOLID;
        }
        const bk_cm_leaf *lf = &cm->leafs[l];
        if (model == 0 && cm->pt.leafs) {
            c = indexed_contents(cm, (uint32_t)l, p, &nat);
        } else {
            c = lf->contents;
            nat = lf->native;
            if (cm->leaf_contents_from_brushes) {
                for (uint32_t i = 0; i < lf->num_brushes; i++) {
                    const bk_cm_brush *br = &cm->brushes[cm->leafbrushes[lf->first_brush + i]];
                    if (brush_holds(cm, br, p)) c |= br->contents, nat |= br->native;
                }
            }
        }
    } else {
        for (uint32_t i = 0; i < m->num_brushes; i++) {
            const bk_cm_brush *br = &cm->brushes[m->first_brush + i];
            if (brush_holds(cm, br, p)) c |= br->contents, nat |= br->native;
        }
    }
    if (native) *native = nat;
    return c;
}

uint32_t bk_cm_point_contents(const bk_cm *cm, uint32_t model, const float p[3], int32_t *native, int32_t *leaf)
{
    const bk_cm_model *m = &cm->models[model];
    int32_t l = m->headnode >= 0 ? bk_cm_point_leaf(cm, m->headnode, p) : -1;
    if (leaf) *leaf = l;
    return bk_cm_leaf_contents(cm, model, l, p, native);
}

/* ---- the sweep --------------------------------------------------------------------------- */

#define CLIP_EPS 0.125f
#define TRI_THICK 1.0f  /* depth of the solid slab a triangle is given (more than 2 * CLIP_EPS) */   /* the engines keep a stopped box this far off the surface it hit */

enum { SEEN_BITS = 1 << 16 };   /* 8 KiB of the trace's stack */

typedef struct tw {
    const bk_cm *cm;
    float start[3], end[3];    /* centred */
    float ext[3];              /* half-size of the box */
    float smin[3], smax[3];    /* bounds of the whole sweep, box included */
    uint32_t mask;
    bool point;
    bk_trace_result *tr;
    float dir[3];              /* end - start */
    float inv[3];              /* 1 / dir[k], or 0 where the move does not go along k */
    /* The brushes already clipped to no effect (a brush is in every leaf it reaches, and a long
     * move crosses many of them; as the engine's checkcount, but a brush that changed the
     * result is clipped again in every leaf as before, so that of a start in one brush and a hit
     * on another the contents are the same last ones as before): a bit per brush, in blocks of
     * SEEN_BLOCK brushes, a block valid only once its bit in `blocks` is set (it is zeroed then),
     * so a trace clears one word (a short trace that marks nothing writes nothing more). On the
     * trace's stack: traces may run in parallel. Maps with more brushes than SEEN_BITS clip them
     * again as before. A brush that changed nothing cannot change anything later in the same
     * trace: the fraction only falls, and starting inside does not depend on the leaf. */
    bool dedup;
    uint64_t blocks;
    uint64_t seen[SEEN_BITS / 64];
} tw;

enum { SEEN_BLOCK = SEEN_BITS / 64 };   /* brushes per bit of tw.blocks (1024: 128 bytes of seen) */

/* whether brush b was clipped to no effect already in this trace */
static inline bool brush_seen(const tw *w, uint32_t b)
{
    return w->dedup && (w->blocks >> (b / SEEN_BLOCK) & 1) && (w->seen[b >> 6] >> (b & 63) & 1);
}

static inline void brush_mark(tw *w, uint32_t b)
{
    if (!w->dedup) return;
    uint64_t vb = (uint64_t)1 << (b / SEEN_BLOCK);
    if (!(w->blocks & vb)) {
        w->blocks |= vb;
        memset(&w->seen[b / SEEN_BLOCK * (SEEN_BLOCK / 64)], 0, SEEN_BLOCK / 8);
    }
    w->seen[b >> 6] |= (uint64_t)1 << (b & 63);
}

/* Whether the move, its box included, comes within pad of the box [mn, mx] before the fraction
 * already found: the segment clipped against the box's slabs. A convex set (brush, or a triangle
 * made solid) lies inside its bounds, so a move that misses them by more than CLIP_EPS (and the
 * rounding of the distances) can neither start in it nor enter it before what was already hit:
 * clip_convex would change nothing, and the answers are the same without it. */
static inline bool sweep_meets(const tw *w, const float mn[3], const float mx[3], float pad)
{
    float t0 = 0, t1 = w->tr->fraction;
    for (int k = 0; k < 3; k++) {
        float lo = mn[k] - w->ext[k] - pad, hi = mx[k] + w->ext[k] + pad, s = w->start[k];
        if (w->inv[k] == 0) {
            if (s < lo || s > hi) return false;
            continue;
        }
        float ta = (lo - s) * w->inv[k], tb = (hi - s) * w->inv[k];
        if (ta > tb) {
            float x = ta;
            ta = tb, tb = x;
        }
        if (ta > t0) t0 = ta;
        if (tb < t1) t1 = tb;
        if (t0 > t1) return false;
    }
    return true;
}

typedef bk_cm_sideplane cplane;

/* MAXS: the sides of a brush the sweep reads (a brush with more keeps its first MAXS) */
enum { MAXS = 128 };

/* Clip the move against one convex set of planes (a brush, or a triangle made solid); sides: a
 * brush's, for the surface hit, or NULL. true when it changed the result. */
static bool clip_convex(tw *w, const cplane *pl, uint32_t n, const bk_cm_side *sides, uint32_t contents,
                        int32_t native, int32_t surface_default)
{
    /* first every plane's distances, and whether one is in front all the way (or left no
     * closer): then the move misses the whole set, whichever plane says so (most sets) */
    float d1s[MAXS], d2s[MAXS];
    int miss = 0;
    for (uint32_t i = 0; i < n; i++) {
        const float *nn = pl[i].n;
        float dist = pl[i].d + fabsf(nn[0]) * w->ext[0] + fabsf(nn[1]) * w->ext[1] + fabsf(nn[2]) * w->ext[2];
        float d1 = nn[0] * w->start[0] + nn[1] * w->start[1] + nn[2] * w->start[2] - dist;
        float d2 = nn[0] * w->end[0] + nn[1] * w->end[1] + nn[2] * w->end[2] - dist;
        d1s[i] = d1;
        d2s[i] = d2;
        miss |= (d1 > 0) & ((d2 >= CLIP_EPS) | (d2 >= d1));
    }
    if (miss) return false;
    float enter = -1, leave = 1;
    int hit = -1;
    bool startout = false, getout = false;
    for (uint32_t i = 0; i < n; i++) {
        float d1 = d1s[i], d2 = d2s[i];
        if (d2 > 0) getout = true;
        if (d1 > 0) startout = true;
        if (d1 <= 0 && d2 <= 0) continue;
        if (d1 > d2) {          /* entering */
            float f = (d1 - CLIP_EPS) / (d1 - d2);
            if (f < 0) f = 0;
            if (f > enter) enter = f, hit = (int)i;
        } else {                /* leaving */
            float f = (d1 + CLIP_EPS) / (d1 - d2);
            if (f > 1) f = 1;
            if (f < leave) leave = f;
        }
    }
    bk_trace_result *tr = w->tr;
    if (!startout) {
        tr->startsolid = 1;
        if (!getout) {
            tr->allsolid = 1;
            tr->fraction = 0;
        }
        tr->contents = contents;
        tr->native_contents = native;
        return true;
    }
    if (enter < leave && enter > -1 && enter < tr->fraction && hit >= 0) {
        if (enter < 0) enter = 0;
        tr->fraction = enter;
        memcpy(tr->normal, pl[hit].n, sizeof tr->normal);
        tr->dist = pl[hit].d;
        tr->contents = contents;
        tr->native_contents = native;
        tr->surface = sides ? sides[hit].surface : surface_default;
        return true;
    }
    return false;
}

/* the brush's sides against the move (its contents and bounds already passed) */
static bool clip_brush(tw *w, const bk_cm_brush *br)
{
    const bk_cm *cm = w->cm;
    uint32_t n = br->num_sides < MAXS ? br->num_sides : MAXS;
    return clip_convex(w, cm->side_planes + br->first_side, n, cm->sides + br->first_side, br->contents, br->native, -1);
}

static void trace_brush(tw *w, const bk_cm_brush *br)
{
    if (!(br->contents & w->mask) || br->num_sides == 0) return;
    for (int k = 0; k < 3; k++)
        if (w->smin[k] > br->maxs[k] || w->smax[k] < br->mins[k]) return;
    clip_brush(w, br);
}

/* A triangle collides as a thin solid: its plane both ways, a plane through each edge, and the
 * axial planes of its bounds (the bevels that keep a box from catching on an edge). */
static void trace_tri(tw *w, const bk_cm_tri *t, const bk_cm_mesh *m)
{
    float tmin[3], tmax[3];
    for (int k = 0; k < 3; k++) {
        float a = t->v[0][k], b = t->v[1][k], c = t->v[2][k];
        float lo = a < b ? a : b, hi = a < b ? b : a;
        tmin[k] = c < lo ? c : lo;
        tmax[k] = c > hi ? c : hi;
        if (w->smin[k] > tmax[k] + 1 || w->smax[k] < tmin[k] - 1) return;
    }
    /* the solid triangle lies within its bounds widened by TRI_THICK */
    if (!sweep_meets(w, tmin, tmax, TRI_THICK + 1)) return;
    cplane pl[11];
    uint32_t n = 0;
    /* two-sided: a slab TRI_THICK deep behind the surface as seen from the start, so that a
     * move from either side stops on the surface itself (a slab of no depth would be entered
     * and left at the same fraction, and missed) */
    float sgn = t->n[0] * w->start[0] + t->n[1] * w->start[1] + t->n[2] * w->start[2] - t->d >= 0 ? 1.0f : -1.0f;
    for (int k = 0; k < 3; k++) pl[n].n[k] = sgn * t->n[k];
    pl[n++].d = sgn * t->d;
    for (int k = 0; k < 3; k++) pl[n].n[k] = -sgn * t->n[k];
    pl[n++].d = -(sgn * t->d - TRI_THICK);
    for (int e = 0; e < 3; e++) {
        const float *a = t->v[e], *b = t->v[(e + 1) % 3];
        float ed[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        float en[3] = {ed[1] * t->n[2] - ed[2] * t->n[1], ed[2] * t->n[0] - ed[0] * t->n[2],
                       ed[0] * t->n[1] - ed[1] * t->n[0]};
        float len = sqrtf(en[0] * en[0] + en[1] * en[1] + en[2] * en[2]);
        if (!(len > 1e-6f)) continue;
        for (int k = 0; k < 3; k++) en[k] /= len;
        /* outward: away from the opposite vertex */
        const float *o = t->v[(e + 2) % 3];
        float d = en[0] * a[0] + en[1] * a[1] + en[2] * a[2];
        if (en[0] * o[0] + en[1] * o[1] + en[2] * o[2] > d) {
            for (int k = 0; k < 3; k++) en[k] = -en[k];
            d = -d;
        }
        memcpy(pl[n].n, en, sizeof en);
        pl[n++].d = d;
    }
    /* the bevels hold the slab too: widen them by its depth, or a flat triangle's bounds would
     * have no thickness along its normal */
    for (int k = 0; k < 3; k++) {
        memset(pl[n].n, 0, sizeof pl[n].n);
        pl[n].n[k] = 1;
        pl[n++].d = tmax[k] + TRI_THICK;
        memset(pl[n].n, 0, sizeof pl[n].n);
        pl[n].n[k] = -1;
        pl[n++].d = -(tmin[k] - TRI_THICK);
    }
    clip_convex(w, pl, n, NULL, m->contents, m->native, m->surface);
}

static void trace_mesh(tw *w, const bk_cm_mesh *m)
{
    if (!(m->contents & w->mask)) return;
    for (int k = 0; k < 3; k++)
        if (w->smin[k] > m->maxs[k] + 1 || w->smax[k] < m->mins[k] - 1) return;
    if (!sweep_meets(w, m->mins, m->maxs, TRI_THICK + 1)) return;
    for (uint32_t i = 0; i < m->num_tris && w->tr->fraction > 0; i++) trace_tri(w, &w->cm->tris[m->first_tri + i], m);
}

/* The model's meshes through its mesh tree: those whose bounds the move meets (up to what it
 * already hit), then tested in their order in the model's run, as the plain loop tests them (so
 * that of two hits at the same fraction the same one is kept). false when the model has no tree
 * or more meshes meet the move than this keeps: then the caller tests every mesh. */
static bool trace_model_meshes(tw *w, uint32_t model)
{
    const bk_cm *cm = w->cm;
    if (!cm->mroot || cm->mroot[model] == UINT32_MAX) return false;
    enum { CAND = 256 };
    uint32_t cand[CAND], stack[MDEPTH + 2], nc = 0, sp = 0;
    stack[sp++] = cm->mroot[model];
    while (sp) {
        const bk_cm_mnode *nd = &cm->mnodes[stack[--sp]];
        if (!sweep_meets(w, nd->mins, nd->maxs, TRI_THICK + 1)) continue;
        if (nd->n == 0) {
            stack[sp++] = nd->a;
            stack[sp++] = nd->a + 1;
            continue;
        }
        if (nc + nd->n > CAND) return false;
        for (uint32_t i = 0; i < nd->n; i++) cand[nc++] = cm->mitems[nd->a + i];
    }
    for (uint32_t i = 1; i < nc; i++) {   /* in the run's order (few: insertion) */
        uint32_t x = cand[i], j = i;
        for (; j > 0 && cand[j - 1] > x; j--) cand[j] = cand[j - 1];
        cand[j] = x;
    }
    for (uint32_t i = 0; i < nc && !w->tr->allsolid; i++) trace_mesh(w, &cm->meshes[cand[i]]);
    return true;
}

static void trace_leaf(tw *w, const bk_cm_leaf *lf)
{
    const bk_cm *cm = w->cm;
    /* trace_brush's tests in the same order, the leaf's brushes read in sequence */
    const bk_cm_lbrush *lb = cm->lbrushes + lf->first_brush;
    for (uint32_t i = 0; i < lf->num_brushes && !w->tr->allsolid; i++) {
        const bk_cm_lbrush *b = &lb[i];
        if (!(b->contents & w->mask) || w->smin[0] > b->maxs[0] || w->smax[0] < b->mins[0] ||
            w->smin[1] > b->maxs[1] || w->smax[1] < b->mins[1] || w->smin[2] > b->maxs[2] || w->smax[2] < b->mins[2])
            continue;
        /* a brush lies within its bounds (its axial sides; +-inf without them) */
        if (brush_seen(w, b->brush)) continue;
        if (!sweep_meets(w, b->mins, b->maxs, 1) || !clip_brush(w, &cm->brushes[b->brush])) brush_mark(w, b->brush);
    }
    for (uint32_t i = 0; i < lf->num_meshes && !w->tr->allsolid; i++)
        trace_mesh(w, &cm->meshes[cm->leafmeshes[lf->first_mesh + i]]);
}

static void trace_tree(tw *w, int32_t num, float p1f, float p2f, const float p1[3], const float p2[3],
                       uint32_t depth)
{
    const bk_cm *cm = w->cm;
    if (w->tr->fraction <= p1f || w->tr->allsolid) return;   /* already hit something nearer */
    if (num < 0) {
        uint32_t l = (uint32_t)(-1 - num);
        if (l < cm->leaf_count) trace_leaf(w, &cm->leafs[l]);
        return;
    }
    if ((uint32_t)num >= cm->node_count || depth > cm->node_count) return;
    const bk_cm_tnode *pl = &cm->tnodes[num], *nd = pl;
    float t1, t2, offset;
    if (pl->type < 3) {
        t1 = p1[pl->type] - pl->d;
        t2 = p2[pl->type] - pl->d;
        offset = w->ext[pl->type];
    } else {
        t1 = pl->n[0] * p1[0] + pl->n[1] * p1[1] + pl->n[2] * p1[2] - pl->d;
        t2 = pl->n[0] * p2[0] + pl->n[1] * p2[1] + pl->n[2] * p2[2] - pl->d;
        offset = w->point ? 0 : fabsf(pl->n[0]) * w->ext[0] + fabsf(pl->n[1]) * w->ext[1] + fabsf(pl->n[2]) * w->ext[2];
    }
    if (t1 >= offset + 1 && t2 >= offset + 1) {
        trace_tree(w, nd->children[0], p1f, p2f, p1, p2, depth + 1);
        return;
    }
    if (t1 < -offset - 1 && t2 < -offset - 1) {
        trace_tree(w, nd->children[1], p1f, p2f, p1, p2, depth + 1);
        return;
    }
    int side;
    float frac, frac2;
    if (t1 < t2) {
        float idist = 1.0f / (t1 - t2);
        side = 1;
        frac2 = (t1 + offset + BK_DIST_EPSILON) * idist;
        frac = (t1 - offset + BK_DIST_EPSILON) * idist;
    } else if (t1 > t2) {
        float idist = 1.0f / (t1 - t2);
        side = 0;
        frac2 = (t1 - offset - BK_DIST_EPSILON) * idist;
        frac = (t1 + offset + BK_DIST_EPSILON) * idist;
    } else {
        side = 0;
        frac = 1;
        frac2 = 0;
    }
    float mid[3], midf;
    if (frac < 0) frac = 0;
    if (frac > 1) frac = 1;
    midf = p1f + (p2f - p1f) * frac;
    for (int k = 0; k < 3; k++) mid[k] = p1[k] + frac * (p2[k] - p1[k]);
    trace_tree(w, nd->children[side], p1f, midf, p1, mid, depth + 1);
    if (frac2 < 0) frac2 = 0;
    if (frac2 > 1) frac2 = 1;
    midf = p1f + (p2f - p1f) * frac2;
    for (int k = 0; k < 3; k++) mid[k] = p1[k] + frac2 * (p2[k] - p1[k]);
    trace_tree(w, nd->children[side ^ 1], midf, p2f, mid, p2, depth + 1);
}

void bk_cm_trace(const bk_cm *cm, const bk_trace_params *p, const float start[3], const float end[3],
                 bk_trace_result *tr)
{
    tw w;   /* every field set below (no memset: seen is read only where blocks says it was written) */
    w.blocks = 0;
    w.cm = cm;
    w.dedup = cm->brush_count <= SEEN_BITS;
    w.mask = p->mask;
    w.tr = tr;
    float c[3];
    for (int k = 0; k < 3; k++) {
        c[k] = (p->mins[k] + p->maxs[k]) * 0.5f;
        w.ext[k] = (p->maxs[k] - p->mins[k]) * 0.5f;
        w.start[k] = start[k] + c[k];
        w.end[k] = end[k] + c[k];
        /* finite (bk_query_trace checks): a compare, not libm's fminf / fmaxf calls */
        float lo = w.start[k] < w.end[k] ? w.start[k] : w.end[k], hi = w.start[k] < w.end[k] ? w.end[k] : w.start[k];
        w.smin[k] = lo - w.ext[k] - 1;
        w.smax[k] = hi + w.ext[k] + 1;
    }
    w.point = w.ext[0] == 0 && w.ext[1] == 0 && w.ext[2] == 0;
    for (int k = 0; k < 3; k++) {
        w.dir[k] = w.end[k] - w.start[k];
        /* a move this short along k stays within the pad of where it starts */
        w.inv[k] = fabsf(w.dir[k]) > 1e-6f ? 1.0f / w.dir[k] : 0.0f;
    }
    tr->fraction = 1;
    const bk_cm_model *m = &cm->models[p->model];
    if (m->headnode >= 0) {
        trace_tree(&w, m->headnode, 0, 1, w.start, w.end, 0);
    } else {
        for (uint32_t i = 0; i < m->num_brushes && !tr->allsolid; i++) trace_brush(&w, &cm->brushes[m->first_brush + i]);
    }
    /* meshes (patches, displacements) belong to the model, each tested against its bounds */
    if (!trace_model_meshes(&w, p->model))
        for (uint32_t i = 0; i < m->num_meshes && !tr->allsolid; i++) trace_mesh(&w, &cm->meshes[m->first_mesh + i]);
    if (tr->fraction >= 1) {
        tr->fraction = 1;
        memcpy(tr->endpos, end, sizeof tr->endpos);
        if (!tr->startsolid) tr->contents = 0, tr->native_contents = 0;
        memset(tr->normal, 0, sizeof tr->normal);
        tr->dist = 0;
    } else {
        for (int k = 0; k < 3; k++) tr->endpos[k] = start[k] + tr->fraction * (end[k] - start[k]);
    }
}

bk_result bk_cm_state_trace(const void *state, const bk_trace_params *p, const float start[3], const float end[3],
                            bk_trace_result *tr)
{
    bk_cm_trace((const bk_cm *)state, p, start, end, tr);
    return BK_OK;
}

const bk_cm *bk_cm_state(const void *state) { return (const bk_cm *)state; }
