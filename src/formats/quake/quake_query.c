/* GoldSrc / Quake 1 / BSP2 queries: point location down the node tree, the run-length PVS over
 * leaves (and the PAS the engines derive from it), and traces through the clip hulls.
 *
 * The hulls are the engines' own: hull 0 is the node tree with the leaves' contents, hulls 1..3
 * are the clipnode trees the compiler built for boxes (expanded brushes), entered at the model's
 * headnode[hull]. A box trace is a point trace through the hull built for that box. */
#include <math.h>

#include "../../query/cm.h"
#include "quake_internal.h"
#include "bspkit/quake.h"


typedef struct qstate {
    const bk_quake_bsp *m;
    uint32_t visleafs;         /* clusters: leaves 1..visleafs */
    uint8_t *row_bad;          /* per cluster: 1 = offset or run-length data unusable */
    uint32_t hulls;            /* 4 GoldSrc, 3 Quake */
    int goldsrc;
    int tree_ok[2];            /* [0] the node tree, [1] the clipnodes: acyclic, at most
                                * Q_MAX_DEPTH deep (checked at open; else queries are refused) */
} qstate;

#define Q_MAX_DEPTH 2048       /* deeper trees are refused: it bounds the traces' recursion */

uint32_t bk_quake_contents_neutral(int32_t c)
{
    switch (c) {
    case Q1C_EMPTY: return BK_CONTENTS_EMPTY;
    case Q1C_SOLID: return BK_CONTENTS_SOLID;
    case Q1C_WATER: return BK_CONTENTS_WATER;
    case Q1C_SLIME: return BK_CONTENTS_SLIME;
    case Q1C_LAVA: return BK_CONTENTS_LAVA;
    case Q1C_SKY: return BK_CONTENTS_SKY;
    case Q1C_ORIGIN: return BK_CONTENTS_ORIGIN;
    case Q1C_CLIP: return BK_CONTENTS_PLAYERCLIP | BK_CONTENTS_MONSTERCLIP;
    case Q1C_TRANSLUCENT: return BK_CONTENTS_TRANSLUCENT;
    case Q1C_LADDER: return BK_CONTENTS_LADDER;
    default:
        if (c <= Q1C_CURRENT_0 && c >= Q1C_CURRENT_DOWN) return BK_CONTENTS_WATER | BK_CONTENTS_CURRENT;
        return BK_CONTENTS_OTHER;
    }
}

/* ---- the PVS: run-length rows over leaves 1..visleafs ------------------------------------ */

/* Decode one row into row (zeroed, (visleafs+7)/8 bytes). Returns false on truncated data. */
static bool decode_row(const bk_quake_bsp *m, uint32_t visleafs, int32_t ofs, uint8_t *row)
{
    return ofs >= 0 && bk_vis_rle_decode(m->visibility, m->visibility_size, (uint64_t)ofs, visleafs, row);
}

/* Depth-first walk from every root: false if a child is out of range, a node is its own
 * ancestor (a cycle, which the loader's range checks let through), or a path is deeper than
 * Q_MAX_DEPTH. A root equal to count is the compilers' empty hull. colour: 0 new, 1 on the
 * path, 2 done; stk / side: Q_MAX_DEPTH entries. Linear in the nodes. */
static bool check_tree(const bk_quake_bsp *m, int clip, const int32_t *roots, uint32_t nroots, uint8_t *colour,
                       int32_t *stk, uint8_t *side)
{
    uint32_t count = clip ? m->clipnode_count : m->node_count;
    for (uint32_t r = 0; r < nroots; r++) {
        int32_t root = roots[r];
        if (root < 0 || (uint32_t)root == count) continue;
        if ((uint32_t)root > count) return false;
        if (colour[root] == 2) continue;
        uint32_t sp = 1;
        stk[0] = root;
        side[0] = 0;
        colour[root] = 1;
        while (sp) {
            int32_t n = stk[sp - 1];
            if (side[sp - 1] == 2) {
                colour[n] = 2;
                sp--;
                continue;
            }
            int k = side[sp - 1]++;
            int32_t c = clip ? m->clipnodes[n].children[k] : m->nodes[n].children[k];
            if (c < 0) continue;
            if ((uint32_t)c >= count || colour[c] == 1) return false;
            if (colour[c] == 2) continue;
            if (sp >= Q_MAX_DEPTH) return false;
            colour[c] = 1;
            stk[sp] = c;
            side[sp] = 0;
            sp++;
        }
    }
    return true;
}

static bk_result check_trees(const bk_quake_bsp *m, bk_ctx *ctx, qstate *s)
{
    bk_result r = BK_OK;
    size_t most = m->node_count > m->clipnode_count ? m->node_count : m->clipnode_count;
    uint8_t *colour = bk_alloc_array(ctx, most, 1, &r);
    int32_t *stk = bk_alloc_array(ctx, Q_MAX_DEPTH, sizeof *stk, &r);
    uint8_t *side = bk_alloc_array(ctx, Q_MAX_DEPTH, 1, &r);
    int32_t *roots = bk_alloc_array(ctx, (size_t)m->model_count * 3, sizeof *roots, &r);
    if (colour && stk && side && roots) {
        for (uint32_t i = 0; i < m->model_count; i++) roots[i] = m->models[i].headnode[0];
        s->tree_ok[0] = check_tree(m, 0, roots, m->model_count, colour, stk, side);
        if (!s->tree_ok[0])
            BK_WARN(ctx, BK_EFORMAT, "nodes", BK_NO_INDEX, m->lump_offset[BK_Q1_LUMP_NODES],
                    "the node tree has a cycle or is deeper than %d levels: point queries and hull 0 traces "
                    "are refused", Q_MAX_DEPTH);
        uint32_t n = 0;
        for (uint32_t i = 0; i < m->model_count; i++)
            for (uint32_t h = 1; h < s->hulls; h++) roots[n++] = m->models[i].headnode[h];
        memset(colour, 0, most);
        s->tree_ok[1] = check_tree(m, 1, roots, n, colour, stk, side);
        if (!s->tree_ok[1])
            BK_WARN(ctx, BK_EFORMAT, "clipnodes", BK_NO_INDEX, m->lump_offset[BK_Q1_LUMP_CLIPNODES],
                    "the clipnodes have a cycle, a head out of range or are deeper than %d levels: hull 1-%u "
                    "traces are refused", Q_MAX_DEPTH, s->hulls - 1);
    }
    bk_free(colour);
    bk_free(stk);
    bk_free(side);
    bk_free(roots);
    return r;
}

static bk_result q_open(const bk_file *f, bk_ctx *ctx, void **state, bk_query_info *info)
{
    const bk_quake_bsp *m = bk_file_impl(f, f->format);
    bk_result r0 = BK_OK;
    qstate *s = bk_query_state_new(ctx, m && m->model_count && m->leaf_count, "world model or no leaves", sizeof *s,
                                   &r0);
    if (!s) return r0;
    s->m = m;
    s->goldsrc = m->format == BK_FORMAT_GOLDSRC;
    s->hulls = s->goldsrc ? 4 : 3;
    int32_t vl = m->models[0].visleafs;
    if (vl < 0) vl = 0;
    if ((uint32_t)vl > m->leaf_count - 1) {
        BK_WARN(ctx, BK_EINDEX, "models", 0, BK_NO_OFFSET,
                "world visleafs %d exceeds the %u leaves after leaf 0; clipped", vl, m->leaf_count - 1);
        vl = (int32_t)(m->leaf_count - 1);
    }
    s->visleafs = m->visibility_size ? (uint32_t)vl : 0;
    if (s->visleafs) {
        bk_result r = BK_OK;
        s->row_bad = bk_alloc_array(ctx, s->visleafs, 1, &r);
        size_t nbytes = ((size_t)s->visleafs + 7) / 8;
        uint8_t *row = bk_alloc_array(ctx, nbytes, 1, &r);
        if (!s->row_bad || !row) {
            bk_free(row);
            bk_free(s->row_bad);
            bk_free(s);
            return r;
        }
        uint64_t vbase = m->lump_offset[BK_Q1_LUMP_VISIBILITY];
        for (uint32_t c = 0; c < s->visleafs; c++) {
            int32_t ofs = m->leafs[c + 1].vis_ofs;
            if (ofs < 0) continue;                /* no row: everything visible */
            memset(row, 0, nbytes);
            if ((size_t)ofs >= m->visibility_size) {
                s->row_bad[c] = 1;
                BK_WARN(ctx, BK_ELUMP_RANGE, "leafs", c + 1, BK_NO_OFFSET,
                        "PVS offset %d lies outside the %zu-byte visibility lump; treated as all visible",
                        ofs, m->visibility_size);
            } else if (!decode_row(m, s->visleafs, ofs, row)) {
                s->row_bad[c] = 1;
                BK_WARN(ctx, BK_ETRUNCATED, "visibility", c + 1, vbase + (uint64_t)ofs,
                        "PVS row of leaf %u runs past the end of the lump; treated as all visible", c + 1);
            }
        }
        bk_free(row);
    }
    bk_result tr = check_trees(m, ctx, s);
    if (tr != BK_OK) {
        bk_free(s->row_bad);
        bk_free(s);
        return tr;
    }
    info->model_count = m->model_count;
    info->leaf_count = m->leaf_count;
    info->cluster_count = s->visleafs;
    info->face_count = m->face_count;
    info->hull_count = s->hulls;
    info->has_pas = s->visleafs ? 1 : 0;
    *state = s;
    return BK_OK;
}

static void q_destroy(void *state)
{
    qstate *s = state;
    if (!s) return;
    bk_free(s->row_bad);
    bk_free(s);
}

static void pvs_row(const qstate *s, int32_t cluster, uint8_t *row)
{
    size_t nbytes = ((size_t)s->visleafs + 7) / 8;
    int32_t ofs = s->m->leafs[cluster + 1].vis_ofs;
    if (ofs < 0 || s->row_bad[cluster] || !decode_row(s->m, s->visleafs, ofs, row)) {
        memset(row, 0xff, nbytes);
        if (s->visleafs & 7) row[nbytes - 1] = (uint8_t)((1u << (s->visleafs & 7)) - 1);
    }
}

static bk_result q_vis_row(const void *state, bk_vis_kind kind, int32_t cluster, uint8_t *row)
{
    const qstate *s = state;
    pvs_row(s, cluster, row);
    if (kind == BK_VIS_PVS) return BK_OK;
    /* PAS as the engines build it at load: the union of the PVS rows of every leaf in this
     * leaf's PVS (what can be heard is what is visible from anything visible). */
    size_t nbytes = ((size_t)s->visleafs + 7) / 8;
    uint8_t stack_a[4096], stack_b[4096];
    uint8_t *own = nbytes <= sizeof stack_a ? stack_a : bk_malloc(nbytes);
    uint8_t *tmp = nbytes <= sizeof stack_b ? stack_b : bk_malloc(nbytes);
    if (!own || !tmp) {
        if (own != stack_a) bk_free(own);
        if (tmp != stack_b) bk_free(tmp);
        return BK_ENOMEM;
    }
    memcpy(own, row, nbytes);
    for (uint32_t c = 0; c < s->visleafs; c++) {
        if (!((own[c >> 3] >> (c & 7)) & 1)) continue;
        memset(tmp, 0, nbytes);
        pvs_row(s, (int32_t)c, tmp);
        for (size_t i = 0; i < nbytes; i++) row[i] |= tmp[i];
    }
    if (own != stack_a) bk_free(own);
    if (tmp != stack_b) bk_free(tmp);
    return BK_OK;
}

static int32_t q_leaf_cluster(const void *state, int32_t leaf)
{
    const qstate *s = state;
    return leaf >= 1 && (uint32_t)leaf <= s->visleafs ? leaf - 1 : -1;
}
static uint32_t q_leaf_face_count(const void *state, int32_t leaf)
{
    const qstate *s = state;
    return s->m->leafs[leaf].marksurface_count;
}
static uint32_t q_leaf_face(const void *state, int32_t leaf, uint32_t i)
{
    const qstate *s = state;
    uint64_t k = (uint64_t)s->m->leafs[leaf].first_marksurface + i;
    return k < s->m->marksurface_count ? s->m->marksurfaces[k] : UINT32_MAX;
}

/* ---- trees: hull 0 (nodes + leaves) and hulls 1..3 (clipnodes) ---------------------------- */

/* n . p - dist. Not the engines' shortcut for a plane whose type names an axis (p[type] - dist):
 * that is the same number when the normal is that axis, and the wrong side when it is not - a
 * GoldSrc compiler wrote type 0 for normal (-1, 0, 4e-15) on ns_co_core.bsp, and the leaves were
 * cut by the normal (docs/queries.md). */
static inline float plane_dist(const bk_q1_plane *pl, const float p[3])
{
    return pl->normal[0] * p[0] + pl->normal[1] * p[1] + pl->normal[2] * p[2] - pl->dist;
}

typedef struct hull_view {
    const bk_quake_bsp *m;
    int clip;                  /* 0: nodes/leaves, 1: clipnodes */
} hull_view;

/* Children are checked by the loader; a walk is still bounded by the node count so that a
 * cycle (which the loader does not forbid) cannot hang a query. */
static inline bool hv_node(const hull_view *h, int32_t num, const bk_q1_plane **pl, int32_t ch[2])
{
    if (h->clip) {
        if ((uint32_t)num >= h->m->clipnode_count) return false;
        const bk_q1_clipnode *n = &h->m->clipnodes[num];
        if ((uint32_t)n->plane >= h->m->plane_count) return false;
        *pl = &h->m->planes[n->plane];
        ch[0] = n->children[0];
        ch[1] = n->children[1];
    } else {
        if ((uint32_t)num >= h->m->node_count) return false;
        const bk_q1_node *n = &h->m->nodes[num];
        if ((uint32_t)n->plane >= h->m->plane_count) return false;
        *pl = &h->m->planes[n->plane];
        ch[0] = n->children[0];
        ch[1] = n->children[1];
    }
    return true;
}

/* contents of a negative child */
static inline int32_t hv_contents(const hull_view *h, int32_t child)
{
    if (h->clip) return child;
    uint32_t leaf = (uint32_t)(-1 - child);
    return leaf < h->m->leaf_count ? h->m->leafs[leaf].contents : Q1C_SOLID;
}

static int32_t hv_point_contents(const hull_view *h, int32_t num, const float p[3])
{
    uint32_t guard = (h->clip ? h->m->clipnode_count : h->m->node_count) + 1;
    while (num >= 0) {
        const bk_q1_plane *pl;
        int32_t ch[2];
        if (!guard-- || !hv_node(h, num, &pl, ch)) return Q1C_SOLID;
        num = plane_dist(pl, p) < 0 ? ch[1] : ch[0];
    }
    return hv_contents(h, num);
}

static bk_result q_point(const void *state, uint32_t model, const float pos[3], bk_point_info *out)
{
    const qstate *s = state;
    const bk_quake_bsp *m = s->m;
    hull_view h = {m, 0};
    if (!s->tree_ok[0]) return BK_EFORMAT;
    int32_t num = m->models[model].headnode[0];
    uint32_t guard = m->node_count + 1;
    while (num >= 0) {
        const bk_q1_plane *pl;
        int32_t ch[2];
        if (!guard-- || !hv_node(&h, num, &pl, ch)) return BK_EINDEX;
        num = plane_dist(pl, pos) < 0 ? ch[1] : ch[0];
    }
    uint32_t leaf = (uint32_t)(-1 - num);
    if (leaf >= m->leaf_count) return BK_EINDEX;
    const bk_q1_leaf *lf = &m->leafs[leaf];
    memset(out, 0, sizeof *out);
    out->leaf = (int32_t)leaf;
    out->native_contents = lf->contents;
    out->contents = bk_quake_contents_neutral(lf->contents);
    out->cluster = q_leaf_cluster(s, (int32_t)leaf);
    out->area = -1;
    memcpy(out->leaf_mins, lf->mins, sizeof out->leaf_mins);
    memcpy(out->leaf_maxs, lf->maxs, sizeof out->leaf_maxs);
    return BK_OK;
}

/* ---- traces ------------------------------------------------------------------------------ */

typedef struct trace_work {
    const hull_view *h;
    int32_t head;
    uint32_t mask;
    bk_trace_result *tr;
    bool allsolid, startsolid;
    uint32_t depth_guard;
    uint32_t budget;           /* recursion steps left: bounds a trace through shared subtrees */
    bool aborted;
} trace_work;

static inline bool blocks(const trace_work *w, int32_t contents)
{
    return (bk_quake_contents_neutral(contents) & w->mask) != 0;
}

/* Returns false when the move is stopped (tr filled). The engines' recursive hull check:
 * descend while both ends are on one side of a node's plane; where they straddle it, split
 * at the crossing (kept DIST_EPSILON on the near side), go down the near side first, and if
 * the far side is blocking at the split point, the split is the impact. */
static bool rec_trace(trace_work *w, int32_t num, float p1f, float p2f, const float p1[3], const float p2[3],
                      uint32_t depth)
{
    if (num < 0) {
        int32_t c = hv_contents(w->h, num);
        if (!blocks(w, c)) {
            w->allsolid = false;
        } else {
            w->startsolid = true;
            w->tr->native_contents = c;
            w->tr->contents = bk_quake_contents_neutral(c);
        }
        return true;
    }
    if (depth > w->depth_guard) return true;   /* a cyclic tree: give up on this branch */
    if (w->budget == 0) {
        w->aborted = true;
        return false;
    }
    w->budget--;
    const bk_q1_plane *pl;
    int32_t ch[2];
    if (!hv_node(w->h, num, &pl, ch)) return true;
    float t1 = plane_dist(pl, p1), t2 = plane_dist(pl, p2);
    if (t1 >= 0 && t2 >= 0) return rec_trace(w, ch[0], p1f, p2f, p1, p2, depth + 1);
    if (t1 < 0 && t2 < 0) return rec_trace(w, ch[1], p1f, p2f, p1, p2, depth + 1);

    float frac = t1 < 0 ? (t1 + BK_DIST_EPSILON) / (t1 - t2) : (t1 - BK_DIST_EPSILON) / (t1 - t2);
    if (frac < 0) frac = 0;
    if (frac > 1) frac = 1;
    float midf = p1f + (p2f - p1f) * frac, mid[3];
    for (int i = 0; i < 3; i++) mid[i] = p1[i] + frac * (p2[i] - p1[i]);
    int side = t1 < 0;

    if (!rec_trace(w, ch[side], p1f, midf, p1, mid, depth + 1)) return false;
    int32_t far_c = hv_point_contents(w->h, ch[side ^ 1], mid);
    if (!blocks(w, far_c)) return rec_trace(w, ch[side ^ 1], midf, p2f, mid, p2, depth + 1);
    if (w->allsolid) return false;   /* never got out of the solid area */

    /* the far side is blocking at mid: that is the impact, on this plane */
    float sgn = side ? -1.0f : 1.0f;
    for (int i = 0; i < 3; i++) w->tr->normal[i] = sgn * pl->normal[i];
    w->tr->dist = sgn * pl->dist;
    w->tr->native_contents = far_c;
    w->tr->contents = bk_quake_contents_neutral(far_c);
    /* float error can leave mid inside the solid: back off until it is out, as the engines do */
    int tries = 0;
    while (blocks(w, hv_point_contents(w->h, w->head, mid))) {
        frac -= 0.1f;
        if (frac < 0 || ++tries > 10) {
            w->tr->fraction = midf;
            memcpy(w->tr->endpos, mid, sizeof mid);
            return false;
        }
        midf = p1f + (p2f - p1f) * frac;
        for (int i = 0; i < 3; i++) mid[i] = p1[i] + frac * (p2[i] - p1[i]);
    }
    w->tr->fraction = midf;
    memcpy(w->tr->endpos, mid, sizeof mid);
    return false;
}

/* The engines' box sizes for hulls 1..3 (clip_mins), used to pick a hull for a box and to
 * offset the move so that the box's mins land where the hull's do. */
static const float k_hull_mins_gs[4][3] = {{0, 0, 0}, {-16, -16, -36}, {-32, -32, -32}, {-16, -16, -18}};
static const float k_hull_mins_q1[4][3] = {{0, 0, 0}, {-16, -16, -24}, {-32, -32, -24}, {0, 0, 0}};

static int pick_hull(const qstate *s, const float mins[3], const float maxs[3])
{
    float sx = maxs[0] - mins[0], sz = maxs[2] - mins[2];
    if (sx < 3) return 0;
    if (sx <= 32) return s->goldsrc && sz < 54 ? 3 : 1;
    return 2;
}

static bk_result q_trace(const void *state, const bk_trace_params *p, const float start[3], const float end[3],
                         bk_trace_result *tr)
{
    const qstate *s = state;
    const bk_quake_bsp *m = s->m;
    int hull = p->hull >= 0 ? p->hull : pick_hull(s, p->mins, p->maxs);
    float off[3] = {0, 0, 0};
    if (p->hull < 0 && hull > 0) {
        const float *cm = s->goldsrc ? k_hull_mins_gs[hull] : k_hull_mins_q1[hull];
        for (int i = 0; i < 3; i++) off[i] = cm[i] - p->mins[i];
    }
    float a[3], b[3];
    for (int i = 0; i < 3; i++) {
        a[i] = start[i] + off[i];
        b[i] = end[i] + off[i];
    }
    hull_view h = {m, hull > 0};
    int32_t head = m->models[p->model].headnode[hull];
    if (hull > 0 && (head < 0 || (uint32_t)head >= m->clipnode_count)) {
        /* an empty hull (a model compiled without it): nothing to hit */
        memcpy(tr->endpos, end, sizeof tr->endpos);
        return BK_OK;
    }
    if (!s->tree_ok[hull > 0]) return BK_EFORMAT;
    uint32_t count = hull ? m->clipnode_count : m->node_count;
    trace_work w = {&h, head, p->mask, tr, true, false, Q_MAX_DEPTH, 4u * count + 4096u, false};
    rec_trace(&w, head, 0.0f, 1.0f, a, b, 0);
    if (w.aborted) {
        /* more steps than a tree of this size can need: shared subtrees built to blow up */
        memset(tr, 0, sizeof *tr);
        tr->fraction = 1;
        tr->surface = -1;
        memcpy(tr->endpos, end, sizeof tr->endpos);
        return BK_ELIMIT;
    }
    tr->startsolid = w.startsolid;
    tr->allsolid = w.allsolid;
    if (w.allsolid) {
        tr->startsolid = 1;
        tr->fraction = 0;
        memcpy(tr->endpos, start, sizeof tr->endpos);
        return BK_OK;
    }
    if (tr->fraction < 1) {
        for (int i = 0; i < 3; i++) tr->endpos[i] -= off[i];
    } else {
        memcpy(tr->endpos, end, sizeof tr->endpos);
        if (!w.startsolid) {
            tr->contents = 0;
            tr->native_contents = Q1C_EMPTY;
        }
    }
    return BK_OK;
}

static void q_leaf_bounds(const void *state, int32_t leaf, float mins[3], float maxs[3])
{
    const bk_q1_leaf *lf = &((const qstate *)state)->m->leafs[leaf];
    memcpy(mins, lf->mins, 3 * sizeof *mins);
    memcpy(maxs, lf->maxs, 3 * sizeof *maxs);
}

const bk_query_ops bk_query_ops_quake = {
    .open = q_open,
    .destroy = q_destroy,
    .point = q_point,
    .vis_row = q_vis_row,
    .leaf_cluster = q_leaf_cluster,
    .leaf_face_count = q_leaf_face_count,
    .leaf_face = q_leaf_face,
    .trace = q_trace,
    .leaf_bounds = q_leaf_bounds,
};
