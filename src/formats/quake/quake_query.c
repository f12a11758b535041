/* Quake 1 / BSP2 / GoldSrc queries: point location in the node tree, the run-length PVS over
 * leaves, the PAS computed as the engines do (the union of the PVS rows of every leaf in a leaf's
 * PVS), and the clip-hull traces (hull 0 through the node tree with leaf contents, hulls 1-3
 * through the clipnodes from the model's headnode[hull]) with the engines' recursive hull check. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../query/query_internal.h"
#include "quake_internal.h"

/* the engines' contents values */
enum {
    Q1_EMPTY = -1, Q1_SOLID = -2, Q1_WATER = -3, Q1_SLIME = -4, Q1_LAVA = -5, Q1_SKY = -6,
    Q1_ORIGIN = -7, Q1_CLIP = -8, Q1_CURRENT_0 = -9, Q1_CURRENT_DOWN = -14, Q1_TRANSLUCENT = -15,
    Q1_LADDER = -16
};

#define Q1_DIST_EPSILON 0.03125f   /* the engines' 1/32 unit back-off from the hit plane */
#define Q1_MAX_DEPTH 2048          /* deeper trees are refused (recursion bound) */

typedef struct q1_cnode {
    int32_t plane;
    int32_t children[2];           /* >= 0 node, < 0 contents */
} q1_cnode;

typedef struct q1_hull {
    const q1_cnode *nodes;
    uint32_t count;
    int usable;                    /* acyclic and shallow enough to trace */
} q1_hull;

typedef struct q1_state {
    const bk_quake_bsp *b;
    bk_format format;
    uint32_t visleafs, row_bytes;
    uint8_t *row_bad;              /* per vis leaf: 1 = offset out of range / truncated row */
    uint32_t *row_bits;            /* per leaf: set bits of its PVS row */
    q1_cnode *hull0;               /* the node tree with leaf contents in place of leaves */
    q1_cnode *hullc;               /* the clipnodes */
    q1_hull hulls[2];              /* [0] node tree, [1] clipnodes */
    int tree_ok;                   /* node tree acyclic and bounded */
    uint32_t hull_count;
} q1_state;

static uint32_t q1_to_neutral(int32_t c)
{
    switch (c) {
    case Q1_EMPTY: return BK_CONTENTS_EMPTY;
    case Q1_SOLID: return BK_CONTENTS_SOLID;
    case Q1_WATER: return BK_CONTENTS_WATER;
    case Q1_SLIME: return BK_CONTENTS_SLIME;
    case Q1_LAVA: return BK_CONTENTS_LAVA;
    case Q1_SKY: return BK_CONTENTS_SKY;
    case Q1_ORIGIN: return BK_CONTENTS_ORIGIN;
    case Q1_CLIP: return BK_CONTENTS_PLAYERCLIP | BK_CONTENTS_MONSTERCLIP;
    case Q1_TRANSLUCENT: return BK_CONTENTS_TRANSLUCENT;
    case Q1_LADDER: return BK_CONTENTS_LADDER;
    default:
        if (c <= Q1_CURRENT_0 && c >= Q1_CURRENT_DOWN) return BK_CONTENTS_WATER | BK_CONTENTS_CURRENT;
        return BK_CONTENTS_OTHER;
    }
}

/* Decode (or OR into out) the run-length row at ofs. Returns 0 on success, 1 when the offset is out
 * of range, 2 when the data ends before the row does. A zero run past the row's end is clamped. */
static int q1_decode_row(const q1_state *s, int32_t ofs, uint8_t *out, int or_into)
{
    const uint8_t *v = s->b->visibility;
    size_t n = s->b->visibility_size;
    uint32_t rb = s->row_bytes;
    if (ofs < 0 || (size_t)ofs >= n) return 1;
    size_t i = (size_t)ofs;
    uint32_t o = 0;
    while (o < rb) {
        if (i >= n) return 2;
        uint8_t c = v[i++];
        if (c) {
            if (or_into) out[o] |= c;
            else out[o] = c;
            o++;
            continue;
        }
        if (i >= n) return 2;
        uint32_t run = v[i++];
        if (run > rb - o) run = rb - o;
        if (!or_into) memset(out + o, 0, run);
        o += run;
    }
    return 0;
}

static uint32_t q1_popcount(const uint8_t *row, uint32_t n)
{
    uint32_t c = 0;
    for (uint32_t i = 0; i < n; i++) c += (uint32_t)__builtin_popcount(row[i]);
    return c;
}

/* Row of vis leaf L (1..visleafs): the stored row, or all-visible when it is absent or bad. */
static void q1_leaf_row(const q1_state *s, uint32_t leaf, uint8_t *row, int or_into)
{
    const bk_q1_leaf *l = &s->b->leafs[leaf];
    if (s->row_bad[leaf - 1] || l->vis_ofs < 0 || s->b->visibility_size == 0) {
        memset(row, 0xff, s->row_bytes);
        if (s->visleafs & 7) row[s->row_bytes - 1] = (uint8_t)((1u << (s->visleafs & 7)) - 1);
        return;
    }
    q1_decode_row(s, l->vis_ofs, row, or_into);
}

/* Depth-first check that the tree under every root is acyclic and at most Q1_MAX_DEPTH deep.
 * colour: 0 unseen, 1 on the path, 2 done. */
static int q1_check_tree(const q1_cnode *nodes, uint32_t count, const int32_t *roots, uint32_t nroots,
                         uint8_t *colour, int32_t *stack_node, uint8_t *stack_side)
{
    for (uint32_t r = 0; r < nroots; r++) {
        int32_t root = roots[r];
        if (root < 0 || (uint32_t)root == count) continue;   /* a leaf / an empty hull */
        if ((uint32_t)root > count) return 0;
        if (colour[root] == 2) continue;
        uint32_t sp = 0;
        stack_node[0] = root;
        stack_side[0] = 0;
        colour[root] = 1;
        sp = 1;
        while (sp) {
            int32_t n = stack_node[sp - 1];
            uint8_t side = stack_side[sp - 1];
            if (side == 2) {
                colour[n] = 2;
                sp--;
                continue;
            }
            stack_side[sp - 1] = (uint8_t)(side + 1);
            int32_t c = nodes[n].children[side];
            if (c < 0) continue;
            if ((uint32_t)c >= count || colour[c] == 1) return 0;
            if (colour[c] == 2) continue;
            if (sp >= Q1_MAX_DEPTH) return 0;
            colour[c] = 1;
            stack_node[sp] = c;
            stack_side[sp] = 0;
            sp++;
        }
    }
    return 1;
}

static void q1_destroy(void *state)
{
    q1_state *s = state;
    if (!s) return;
    free(s->row_bad);
    free(s->row_bits);
    free(s->hull0);
    free(s->hullc);
    free(s);
}

static bk_result q1_open(const bk_file *f, bk_ctx *ctx, void **state, bk_query_info *info)
{
    const bk_quake_bsp *b = f->impl;
    bk_result r = BK_OK;
    if (!b || b->model_count == 0) {
        BK_ERR(ctx, BK_EFORMAT, "models", BK_NO_INDEX, BK_NO_OFFSET, "the map has no world model");
        return BK_EFORMAT;
    }
    q1_state *s = calloc(1, sizeof *s);
    if (!s) return BK_ENOMEM;
    s->b = b;
    s->format = f->format;
    int32_t vl = b->models[0].visleafs;
    if (vl < 0 || (uint32_t)vl >= b->leaf_count) {
        BK_WARN(ctx, BK_EINDEX, "models", 0, b->lump_offset[BK_Q1_LUMP_MODELS],
                "world visleafs %d outside 0..%u: visibility ignored", (int)vl, b->leaf_count ? b->leaf_count - 1 : 0);
        vl = 0;
    }
    s->visleafs = b->visibility_size ? (uint32_t)vl : 0;
    s->row_bytes = (s->visleafs + 7) / 8;
    s->row_bad = bk_alloc_array(ctx, s->visleafs, 1, &r);
    s->row_bits = bk_alloc_array(ctx, b->leaf_count, sizeof(uint32_t), &r);
    uint8_t *row = bk_alloc_array(ctx, s->row_bytes, 1, &r);
    s->hull0 = bk_alloc_array(ctx, b->node_count, sizeof(q1_cnode), &r);
    s->hullc = bk_alloc_array(ctx, b->clipnode_count, sizeof(q1_cnode), &r);
    size_t most = b->node_count > b->clipnode_count ? b->node_count : b->clipnode_count;
    uint8_t *colour = bk_alloc_array(ctx, most, 1, &r);
    int32_t *stk = bk_alloc_array(ctx, Q1_MAX_DEPTH, sizeof(int32_t), &r);
    uint8_t *stks = bk_alloc_array(ctx, Q1_MAX_DEPTH, 1, &r);
    int32_t *roots = bk_alloc_array(ctx, (size_t)b->model_count * 3, sizeof(int32_t), &r);
    if (!s->row_bad || !s->row_bits || !row || !s->hull0 || !s->hullc || !colour || !stk || !stks || !roots) {
        free(row); free(colour); free(stk); free(stks); free(roots);
        q1_destroy(s);
        return r != BK_OK ? r : BK_ENOMEM;
    }

    /* visibility: check every vis leaf's row once, count its bits */
    uint64_t vis_base = b->lump_offset[BK_Q1_LUMP_VISIBILITY];
    uint32_t bad = 0;
    for (uint32_t L = 1; L <= s->visleafs; L++) {
        int32_t ofs = b->leafs[L].vis_ofs;
        if (ofs >= 0) {
            int e = q1_decode_row(s, ofs, row, 0);
            if (e) {
                s->row_bad[L - 1] = 1;
                if (bad++ >= 20) {
                } else if (e == 1) {
                    BK_WARN(ctx, BK_ELUMP_RANGE, "visibility", L, BK_NO_OFFSET,
                            "leaf %u: PVS offset %d outside the %zu-byte visibility lump; treated as all-visible",
                            L, (int)ofs, b->visibility_size);
                } else {
                    BK_WARN(ctx, BK_ETRUNCATED, "visibility", L, vis_base + (uint64_t)ofs,
                            "leaf %u: PVS row at offset %d ends before its %u bytes; treated as all-visible",
                            L, (int)ofs, s->row_bytes);
                }
            }
        }
        q1_leaf_row(s, L, row, 0);
        s->row_bits[L] = q1_popcount(row, s->row_bytes);
    }
    if (bad > 20)
        BK_WARN(ctx, BK_ETRUNCATED, "visibility", BK_NO_INDEX, BK_NO_OFFSET, "%u bad PVS rows in all", bad);
    if (s->visleafs == 0)
        for (uint32_t L = 0; L < b->leaf_count; L++) s->row_bits[L] = b->leaf_count ? b->leaf_count - 1 : 0;
    free(row);

    /* hull 0: node children as clipnode children, leaves replaced by their contents */
    for (uint32_t i = 0; i < b->node_count; i++) {
        s->hull0[i].plane = b->nodes[i].plane;
        for (int k = 0; k < 2; k++) {
            int32_t c = b->nodes[i].children[k];
            s->hull0[i].children[k] = c >= 0 ? c : b->leafs[~c].contents;
            /* a leaf whose contents is not negative would read as a node: make it solid */
            if (c < 0 && s->hull0[i].children[k] >= 0) s->hull0[i].children[k] = Q1_SOLID;
        }
    }
    for (uint32_t i = 0; i < b->clipnode_count; i++) {
        s->hullc[i].plane = b->clipnodes[i].plane;
        s->hullc[i].children[0] = b->clipnodes[i].children[0];
        s->hullc[i].children[1] = b->clipnodes[i].children[1];
    }
    s->hull_count = f->format == BK_FORMAT_GOLDSRC ? 4 : 3;

    for (uint32_t m = 0; m < b->model_count; m++) roots[m] = b->models[m].headnode[0];
    s->hulls[0].nodes = s->hull0;
    s->hulls[0].count = b->node_count;
    s->hulls[0].usable = q1_check_tree(s->hull0, b->node_count, roots, b->model_count, colour, stk, stks);
    if (!s->hulls[0].usable)
        BK_WARN(ctx, BK_EFORMAT, "nodes", BK_NO_INDEX, b->lump_offset[BK_Q1_LUMP_NODES],
                "the node tree has a cycle or is deeper than %d: point queries and hull 0 traces refused",
                Q1_MAX_DEPTH);
    uint32_t nr = 0;
    for (uint32_t m = 0; m < b->model_count; m++)
        for (uint32_t h = 1; h < s->hull_count; h++) roots[nr++] = b->models[m].headnode[h];
    memset(colour, 0, most);
    s->hulls[1].nodes = s->hullc;
    s->hulls[1].count = b->clipnode_count;
    s->hulls[1].usable = q1_check_tree(s->hullc, b->clipnode_count, roots, nr, colour, stk, stks);
    if (!s->hulls[1].usable)
        BK_WARN(ctx, BK_EFORMAT, "clipnodes", BK_NO_INDEX, b->lump_offset[BK_Q1_LUMP_CLIPNODES],
                "a headnode is out of range, or the clipnodes have a cycle or are deeper than %d: "
                "hull 1-%u traces refused", Q1_MAX_DEPTH, s->hull_count - 1);
    free(colour); free(stk); free(stks); free(roots);

    info->format = f->format;
    info->model_count = b->model_count;
    info->leaf_count = b->leaf_count;
    info->cluster_count = s->visleafs;
    info->face_count = b->face_count;
    info->hull_count = s->hull_count;
    info->has_pas = s->visleafs ? 1 : 0;
    *state = s;
    return BK_OK;
}

static inline float q1_plane_dist(const bk_q1_plane *pl, const float p[3])
{
    if (pl->type >= 0 && pl->type < 3) return p[pl->type] - pl->dist;
    return pl->normal[0] * p[0] + pl->normal[1] * p[1] + pl->normal[2] * p[2] - pl->dist;
}

/* contents at p in the (checked) hull tree from num */
static int32_t q1_hull_contents(const q1_state *s, const q1_cnode *nodes, int32_t num, const float p[3])
{
    const bk_q1_plane *planes = s->b->planes;
    while (num >= 0) {
        const q1_cnode *n = &nodes[num];
        num = n->children[q1_plane_dist(&planes[n->plane], p) < 0];
    }
    return num;
}

static bk_result q1_point(const void *state, uint32_t model, const float pos[3], bk_point_info *out)
{
    const q1_state *s = state;
    const bk_quake_bsp *b = s->b;
    memset(out, 0, sizeof *out);
    out->leaf = -1;
    out->cluster = -1;
    out->area = -1;
    if (model >= b->model_count) return BK_EINDEX;
    if (!s->hulls[0].usable) return BK_EFORMAT;
    int32_t num = b->models[model].headnode[0];
    if (num < 0 ? (uint32_t)~num >= b->leaf_count : (uint32_t)num >= b->node_count) return BK_EINDEX;
    while (num >= 0) {
        const bk_q1_node *n = &b->nodes[num];
        num = n->children[q1_plane_dist(&b->planes[n->plane], pos) < 0];
    }
    uint32_t leaf = (uint32_t)~num;
    const bk_q1_leaf *l = &b->leafs[leaf];
    out->leaf = (int32_t)leaf;
    out->native_contents = l->contents;
    out->contents = q1_to_neutral(l->contents);
    memcpy(out->leaf_mins, l->mins, sizeof out->leaf_mins);
    memcpy(out->leaf_maxs, l->maxs, sizeof out->leaf_maxs);
    if (leaf >= 1 && leaf <= s->visleafs) out->cluster = (int32_t)leaf - 1;
    if (out->cluster >= 0 || (s->visleafs == 0 && leaf != 0)) {
        out->visible_leaves = s->row_bits[leaf];
        out->visible_clusters = s->visleafs ? s->row_bits[leaf] : 0;
    }
    return BK_OK;
}

static bk_result q1_vis_row(const void *state, bk_vis_kind kind, int32_t cluster, uint8_t *row)
{
    const q1_state *s = state;
    if (s->visleafs == 0) return kind == BK_VIS_PAS ? BK_EUNSUPPORTED : BK_OK;
    if (cluster < 0 || (uint32_t)cluster >= s->visleafs) return BK_EINDEX;
    q1_leaf_row(s, (uint32_t)cluster + 1, row, 0);
    if (kind == BK_VIS_PVS) return BK_OK;
    /* the engines' PHS: OR the PVS row of every leaf this leaf can see (bit k = leaf k + 1).
     * The origin's bits are read again from its run-length data, so no scratch row is needed. */
    uint32_t n = s->visleafs;
    const bk_q1_leaf *origin = &s->b->leafs[cluster + 1];
    int all = s->row_bad[cluster] || origin->vis_ofs < 0;
    if (all) {
        /* all-visible already */
        return BK_OK;
    }
    /* walk the origin's run-length data again: each set bit names a leaf whose row is OR-ed */
    const uint8_t *v = s->b->visibility;
    size_t vn = s->b->visibility_size, i = (size_t)origin->vis_ofs;
    uint32_t o = 0;
    while (o < s->row_bytes && i < vn) {
        uint8_t c = v[i++];
        if (!c) {
            if (i >= vn) break;
            o += v[i++];
            continue;
        }
        for (int k = 0; k < 8; k++) {
            if (!(c & (1u << k))) continue;
            uint32_t idx = o * 8 + (uint32_t)k + 1;
            if (idx > n) continue;
            q1_leaf_row(s, idx, row, 1);
        }
        o++;
    }
    return BK_OK;
}

static uint32_t q1_leaf_face_count(const void *state, int32_t leaf)
{
    const q1_state *s = state;
    if (leaf < 0 || (uint32_t)leaf >= s->b->leaf_count) return 0;
    const bk_q1_leaf *l = &s->b->leafs[leaf];
    if (!bk_range_ok(l->first_marksurface, l->marksurface_count, s->b->marksurface_count)) return 0;
    return l->marksurface_count;
}

static uint32_t q1_leaf_face(const void *state, int32_t leaf, uint32_t i)
{
    const q1_state *s = state;
    return s->b->marksurfaces[s->b->leafs[leaf].first_marksurface + i];
}

static int32_t q1_leaf_cluster(const void *state, int32_t leaf)
{
    const q1_state *s = state;
    return leaf >= 1 && (uint32_t)leaf <= s->visleafs ? leaf - 1 : -1;
}

typedef struct q1_trace {
    const q1_state *s;
    const q1_cnode *nodes;
    int32_t head;
    uint32_t mask;
    uint32_t budget;               /* recursion steps left (bounds shared subtrees) */
    bk_trace_result *tr;
    int inopen, inwater, aborted;
} q1_trace;

static inline int q1_blocks(const q1_trace *t, int32_t c)
{
    return (q1_to_neutral(c) & t->mask) != 0;
}

/* The engines' recursive hull check, with "solid" meaning "a contents in the mask". Returns 1 when
 * the segment [p1f, p2f] got through, 0 when it stopped. */
static int q1_hull_check(q1_trace *t, int32_t num, float p1f, float p2f, const float p1[3], const float p2[3])
{
    bk_trace_result *tr = t->tr;
    if (t->budget == 0) {
        t->aborted = 1;
        return 0;
    }
    t->budget--;
    if (num < 0) {
        if (!q1_blocks(t, num)) {
            tr->allsolid = 0;
            if (num == Q1_EMPTY) t->inopen = 1;
            else t->inwater = 1;
        } else {
            tr->startsolid = 1;
            tr->native_contents = num;
            tr->contents = q1_to_neutral(num);
        }
        return 1;
    }
    const q1_cnode *node = &t->nodes[num];
    const bk_q1_plane *pl = &t->s->b->planes[node->plane];
    float t1 = q1_plane_dist(pl, p1), t2 = q1_plane_dist(pl, p2);
    if (t1 >= 0 && t2 >= 0) return q1_hull_check(t, node->children[0], p1f, p2f, p1, p2);
    if (t1 < 0 && t2 < 0) return q1_hull_check(t, node->children[1], p1f, p2f, p1, p2);
    float frac = t1 < 0 ? (t1 + Q1_DIST_EPSILON) / (t1 - t2) : (t1 - Q1_DIST_EPSILON) / (t1 - t2);
    if (frac < 0) frac = 0;
    if (frac > 1) frac = 1;
    float midf = p1f + (p2f - p1f) * frac, mid[3];
    for (int i = 0; i < 3; i++) mid[i] = p1[i] + frac * (p2[i] - p1[i]);
    int side = t1 < 0;
    if (!q1_hull_check(t, node->children[side], p1f, midf, p1, mid)) return 0;
    int32_t other = q1_hull_contents(t->s, t->nodes, node->children[side ^ 1], mid);
    if (!q1_blocks(t, other)) return q1_hull_check(t, node->children[side ^ 1], midf, p2f, mid, p2);
    if (tr->allsolid) return 0;
    if (!side) {
        memcpy(tr->normal, pl->normal, sizeof tr->normal);
        tr->dist = pl->dist;
    } else {
        for (int i = 0; i < 3; i++) tr->normal[i] = -pl->normal[i];
        tr->dist = -pl->dist;
    }
    tr->native_contents = other;
    tr->contents = q1_to_neutral(other);
    /* the engines back off in tenths while the hit point still lies in solid */
    while (q1_blocks(t, q1_hull_contents(t->s, t->nodes, t->head, mid))) {
        frac -= 0.1f;
        if (frac < 0) {
            tr->fraction = midf;
            memcpy(tr->endpos, mid, sizeof mid);
            return 0;
        }
        midf = p1f + (p2f - p1f) * frac;
        for (int i = 0; i < 3; i++) mid[i] = p1[i] + frac * (p2[i] - p1[i]);
    }
    tr->fraction = midf;
    memcpy(tr->endpos, mid, sizeof mid);
    return 0;
}

/* The hull the engines pick for a box, and the offset from the box's origin to the hull's. */
static int q1_hull_for_box(const q1_state *s, const float mins[3], const float maxs[3], float offset[3])
{
    static const float k_q1[3][3] = {{0, 0, 0}, {-16, -16, -24}, {-32, -32, -24}};
    static const float k_hl[4][3] = {{0, 0, 0}, {-16, -16, -36}, {-32, -32, -32}, {-16, -16, -18}};
    float sx = maxs[0] - mins[0], sz = maxs[2] - mins[2];
    int h;
    if (s->format == BK_FORMAT_GOLDSRC) {
        if (sx <= 8) h = 0;
        else if (sx <= 36) h = sz <= 36 ? 3 : 1;
        else h = 2;
        for (int i = 0; i < 3; i++) offset[i] = h ? k_hl[h][i] - mins[i] : 0;
    } else {
        if (sx < 3) h = 0;
        else if (sx <= 32) h = 1;
        else h = 2;
        for (int i = 0; i < 3; i++) offset[i] = h ? k_q1[h][i] - mins[i] : 0;
    }
    return h;
}

static bk_result q1_trace_fn(const void *state, const bk_trace_params *p, const float start[3],
                             const float end[3], bk_trace_result *out)
{
    const q1_state *s = state;
    const bk_quake_bsp *b = s->b;
    memset(out, 0, sizeof *out);
    out->fraction = 1;
    out->surface = -1;
    memcpy(out->endpos, end, sizeof out->endpos);
    if (p->model >= b->model_count) return BK_EINDEX;
    float offset[3] = {0, 0, 0};
    int hull = p->hull;
    int boxed = 0;
    for (int i = 0; i < 3; i++) boxed |= p->mins[i] != 0 || p->maxs[i] != 0;
    if (boxed) hull = q1_hull_for_box(s, p->mins, p->maxs, offset);
    if (hull < 0 || (uint32_t)hull >= s->hull_count) return BK_EINDEX;
    const q1_hull *h = &s->hulls[hull ? 1 : 0];
    if (!h->usable) return BK_EFORMAT;
    int32_t head = b->models[p->model].headnode[hull];
    if (head >= 0 && (uint32_t)head > h->count) return BK_EINDEX;
    if (head >= 0 && (uint32_t)head == h->count) {
        /* the compilers' empty hull (non-solid model): nothing to hit */
        out->native_contents = Q1_EMPTY;
        return BK_OK;
    }
    if (head < 0 && hull == 0) {
        /* a single-leaf model: its leaf's contents */
        uint32_t leaf = (uint32_t)~head;
        head = leaf < b->leaf_count ? b->leafs[leaf].contents : Q1_SOLID;
        if (head >= 0) head = Q1_SOLID;
    }
    float a[3], z[3];
    for (int i = 0; i < 3; i++) {
        a[i] = start[i] + offset[i];
        z[i] = end[i] + offset[i];
    }
    q1_trace t = {s, h->nodes, head, p->mask ? p->mask : BK_MASK_PLAYERSOLID, 0, out, 0, 0, 0};
    t.budget = 4u * h->count + 4096u;
    out->allsolid = 1;
    memcpy(out->endpos, z, sizeof z);
    q1_hull_check(&t, head, 0, 1, a, z);
    if (t.aborted) {
        memset(out, 0, sizeof *out);
        out->fraction = 1;
        out->surface = -1;
        memcpy(out->endpos, end, sizeof out->endpos);
        return BK_ELIMIT;
    }
    if (out->allsolid) out->startsolid = 1;
    if (out->allsolid) out->fraction = 0;   /* the engines' callers treat allsolid as no movement */
    for (int i = 0; i < 3; i++) out->endpos[i] -= offset[i];
    if (out->allsolid) memcpy(out->endpos, start, sizeof out->endpos);
    return BK_OK;
}

const bk_query_ops bk_query_ops_quake = {
    q1_open, q1_destroy, q1_point, q1_vis_row, q1_leaf_face_count, q1_leaf_face, q1_leaf_cluster, q1_trace_fn,
};
