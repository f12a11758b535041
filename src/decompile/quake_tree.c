/* Quake 1, BSP2 and GoldSrc into the neutral brush model: these maps keep no brushes, only the BSP
 * tree, so the brushes are rebuilt from it (the way ericw-tools' `bsputil --decompile` does it).
 *
 * - Regions. Each model's hull-0 tree is walked from its head node; a leaf that is not empty
 *   (solid, water, slime, lava, sky, GoldSrc's currents) is a convex region bounded by the planes of
 *   its path (each turned to face out of it) and by the model's bounds, a little outside them. A
 *   subtree whose leaves all hold the same contents is one region (its node's).
 * - Merging. Two regions of the same contents and model that touch across one plane (one's side
 *   on it facing the other's) become one brush when their union is convex: the planes of both that
 *   hold the other wholly behind them bound a convex body containing both, and it is their union
 *   exactly when its volume is the sum of theirs. Repeated until nothing merges.
 * - Textures. A side takes the texture and texture vectors of the drawn face on its plane facing
 *   out of it whose centre lies inside the side (else one overlapping it); a side with none gets
 *   `skip` (Quake; ericw qbsp) / `SKIP` (GoldSrc; VHLT), or, on a liquid or sky brush, a texture of
 *   the brush's own contents, so that the compilers give the brush its contents back. Sides with a
 *   face come first (the classic qbsp reads a brush's contents from its first side).
 * - Brush entities: their model's tree, moved by their "origin" key (the compilers store such a
 *   model around it), texture offsets moved with it, and an origin brush at the origin. */
#include <math.h>
#include <stdlib.h>

#include "bspkit/quake.h"
#include "decompile.h"

#define MARGIN 16.0        /* the bounds a region is closed by: the model's, this much outside */
#define BIG 1048576.0
#define MAXV 128
#define BEHIND 0.01        /* a vertex this close to a plane is on it */
#define MAX_DEPTH 512      /* planes on one path (the corpus's deepest: see docs/decompile.md) */
#define MAX_PLANES (MAX_DEPTH + 6)

typedef struct rplane {
    double n[3], d;        /* n.p <= d inside */
    uint32_t id;           /* (plane index << 1 | flipped); bounds planes: (plane_count + k) << 1 */
} rplane;

typedef struct region {
    uint32_t first_plane, plane_count;   /* into tree.planes: only those with a face */
    uint32_t first_vert, vert_count;     /* into tree.verts: its faces' corners */
    double vol, mins[3], maxs[3];
    int32_t contents;
    uint32_t src;                        /* the node or leaf it came from, for reports */
    bool alive;
} region;

typedef struct tree {
    const bk_quake_bsp *q;
    bk_dmap *m;
    rplane *planes;  uint32_t plane_count, plane_cap;
    double (*verts)[3]; uint32_t vert_count, vert_cap;
    region *regs;    uint32_t reg_count, reg_cap;
    int8_t *uniform; /* per node: 1 all leaves one contents, 0 mixed, -1 not known yet */
    int32_t *ucont;  /* that contents */
    uint64_t visits, walks, visit_budget;
    rplane path[MAX_DEPTH + 6];
    uint32_t empty_regions;
    int32_t at_node, at_side;   /* the node and child walked into last (for reports) */
} tree;

static double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static void cross3(const double a[3], const double b[3], double o[3])
{
    o[0] = a[1] * b[2] - a[2] * b[1], o[1] = a[2] * b[0] - a[0] * b[2], o[2] = a[0] * b[1] - a[1] * b[0];
}

/* ---- convex bodies from planes ------------------------------------------------------------ */
/* The body of planes p[0..n): the planes that bound it (with a face) kept, in order, into
 * t->planes as a new range, its corners into t->verts, its volume. false: it encloses nothing or
 * is open (r untouched but for contents). */
static bk_result body(tree *t, const rplane *p, uint32_t n, region *r, bool *closed)
{
    static _Thread_local double a[MAXV][3], b[MAXV][3];
    *closed = false;
    uint32_t pstart = t->plane_count, vstart = t->vert_count;
    double vol6 = 0, mins[3] = {INFINITY, INFINITY, INFINITY}, maxs[3] = {-INFINITY, -INFINITY, -INFINITY};
    bool open = false;
    for (uint32_t i = 0; i < n; i++) {
        int c = bk_dpoly_square(p[i].n, p[i].d, a);
        bool dup = false;
        for (uint32_t j = 0; j < n && c >= 3; j++) {
            if (j == i) continue;
            if (p[j].id == p[i].id || (fabs(p[j].d - p[i].d) < 1e-6 && dot3(p[j].n, p[i].n) > 1 - 1e-12)) {
                if (j < i) dup = true;
                continue;
            }
            c = bk_dpoly_clip(a, c, p[j].n, p[j].d, b, MAXV);
            memcpy(a, b, sizeof a[0] * (size_t)c);
        }
        if (dup || c < 3) continue;
        /* area; a sliver narrower than 0.001 unit is an edge or a corner touching the plane */
        double s[3] = {0, 0, 0}, longest = 0;
        for (int k = 1; k + 1 < c; k++) {
            double e1[3], e2[3], x[3];
            for (int q = 0; q < 3; q++) e1[q] = a[k][q] - a[0][q], e2[q] = a[k + 1][q] - a[0][q];
            cross3(e1, e2, x);
            for (int q = 0; q < 3; q++) s[q] += x[q];
        }
        for (int k = 0; k < c; k++) {
            double e[3];
            for (int q = 0; q < 3; q++) e[q] = a[(k + 1) % c][q] - a[k][q];
            longest = fmax(longest, sqrt(dot3(e, e)));
        }
        double area2 = fabs(dot3(s, p[i].n));
        if (!(longest > 0) || area2 * 0.5 / longest < 1e-3) continue;
        /* the divergence theorem: volume = sum of area * distance over 3 */
        vol6 += area2 * p[i].d;
        BK_TRY(bk_grow((void **)&t->planes, &t->plane_cap, t->plane_count + 1, sizeof *t->planes));
        t->planes[t->plane_count++] = p[i];
        BK_TRY(bk_grow((void **)&t->verts, &t->vert_cap, t->vert_count + (uint32_t)c, sizeof *t->verts));
        for (int k = 0; k < c; k++) {
            for (int q = 0; q < 3; q++) {
                if (fabs(a[k][q]) > BIG * 0.5) open = true;
                mins[q] = fmin(mins[q], a[k][q]), maxs[q] = fmax(maxs[q], a[k][q]);
            }
            memcpy(t->verts[t->vert_count++], a[k], sizeof a[k]);
        }
    }
    uint32_t faces = t->plane_count - pstart;
    if (faces < 4 || open || !(vol6 > 1e-6)) {
        t->plane_count = pstart;
        t->vert_count = vstart;
        return BK_OK;
    }
    r->first_plane = pstart, r->plane_count = faces;
    r->first_vert = vstart, r->vert_count = t->vert_count - vstart;
    r->vol = vol6 / 6;
    memcpy(r->mins, mins, sizeof mins);
    memcpy(r->maxs, maxs, sizeof maxs);
    r->alive = true;
    *closed = true;
    return BK_OK;
}

/* ---- regions from the tree ---------------------------------------------------------------- */
static int32_t leaf_contents(const bk_quake_bsp *q, int32_t child)
{
    uint32_t leaf = (uint32_t)(-1 - child);
    return leaf < q->leaf_count ? q->leafs[leaf].contents : -2;
}

/* whether every leaf under child holds one contents (*c) */
static bk_result uniform(tree *t, int32_t child, uint32_t depth, bool *u, int32_t *c)
{
    const bk_quake_bsp *q = t->q;
    if (child < 0) {
        *u = true, *c = leaf_contents(q, child);
        return BK_OK;
    }
    if ((uint32_t)child >= q->node_count) return BK_EFORMAT;
    if (t->uniform[child] >= 0) {
        *u = t->uniform[child], *c = t->ucont[child];
        return BK_OK;
    }
    if (depth >= MAX_DEPTH || ++t->visits > t->visit_budget) {
        bk_report(&t->m->ctx, BK_SEV_ERROR, BK_EFORMAT, "nodes", child, BK_NO_OFFSET,
                  "the tree is deeper than %u planes or reaches a node twice: not decompiled", MAX_DEPTH);
        return BK_EFORMAT;
    }
    bool u0, u1;
    int32_t c0, c1;
    BK_TRY(uniform(t, q->nodes[child].children[0], depth + 1, &u0, &c0));
    BK_TRY(uniform(t, q->nodes[child].children[1], depth + 1, &u1, &c1));
    *u = u0 && u1 && c0 == c1;
    *c = c0;
    t->uniform[child] = *u;
    t->ucont[child] = c0;
    return BK_OK;
}

static bk_result add_region(tree *t, uint32_t depth, int32_t contents, uint32_t src, bool leaf)
{
    BK_TRY(bk_grow((void **)&t->regs, &t->reg_cap, t->reg_count + 1, sizeof *t->regs));
    region *r = &t->regs[t->reg_count];
    memset(r, 0, sizeof *r);
    r->contents = contents;
    r->src = src;
    bool closed;
    BK_TRY(body(t, t->path, depth + 6, r, &closed));
    if (closed) t->reg_count++;
    else {
        t->empty_regions++;
        if (leaf)
            bk_report(&t->m->ctx, BK_SEV_INFO, BK_EFORMAT, "nodes", t->at_node, BK_NO_OFFSET,
                      "the region of child %d (leaf %u, contents %d): its %u planes enclose nothing (a sliver "
                      "of the float planes): left out", t->at_side, src, contents, depth + 6);
        else
            bk_report(&t->m->ctx, BK_SEV_INFO, BK_EFORMAT, "nodes", src, BK_NO_OFFSET,
                      "the region under the node (contents %d): its %u planes enclose nothing (a sliver of "
                      "the float planes): left out", contents, depth + 6);
    }
    return BK_OK;
}

/* path[0..6) the bounds, path[6 + depth) the planes down to child */
static bk_result walk(tree *t, int32_t child, uint32_t depth)
{
    const bk_quake_bsp *q = t->q;
    if (child < 0) {
        int32_t c = leaf_contents(q, child);
        return c == -1 ? BK_OK : add_region(t, depth, c, (uint32_t)(-1 - child), true);
    }
    bool u;
    int32_t c;
    BK_TRY(uniform(t, child, depth, &u, &c));
    if (u) return c == -1 ? BK_OK : add_region(t, depth, c, (uint32_t)child, false);
    if (depth >= MAX_DEPTH) return BK_EFORMAT;   /* uniform() reported it */
    if (++t->walks > t->visit_budget) {
        bk_report(&t->m->ctx, BK_SEV_ERROR, BK_EFORMAT, "nodes", child, BK_NO_OFFSET,
                  "the tree reaches node %d twice: not decompiled", child);
        return BK_EFORMAT;
    }
    const bk_q1_node *nd = &q->nodes[child];
    const bk_q1_plane *pl = &q->planes[nd->plane];
    rplane *p = &t->path[6 + depth];
    for (int side = 0; side < 2; side++) {
        /* front child: n.p >= d, so the side faces -n; back child: n.p <= d */
        double s = side ? 1 : -1;
        for (int k = 0; k < 3; k++) p->n[k] = s * pl->normal[k];
        p->d = s * pl->dist;
        p->id = (uint32_t)nd->plane << 1 | (side ? 0u : 1u);
        t->at_node = child, t->at_side = side;
        BK_TRY(walk(t, nd->children[side], depth + 1));
        p = &t->path[6 + depth];
    }
    return BK_OK;
}

/* ---- merging ------------------------------------------------------------------------------- */
typedef struct faceref {
    uint32_t id, reg;      /* plane id without its flip, the region */
    uint8_t flip;
} faceref;

static int cmp_faceref(const void *a, const void *b)
{
    const faceref *x = a, *y = b;
    if (x->id != y->id) return x->id < y->id ? -1 : 1;
    if (x->flip != y->flip) return x->flip - y->flip;
    return x->reg < y->reg ? -1 : x->reg > y->reg;
}

/* every vertex of r behind p */
static bool all_behind(const tree *t, const region *r, const rplane *p)
{
    for (uint32_t i = 0; i < r->vert_count; i++)
        if (dot3(p->n, t->verts[r->first_vert + i]) - p->d > BEHIND) return false;
    return true;
}

static bk_result try_merge(tree *t, uint32_t ia, uint32_t ib, uint32_t shared, bool *merged)
{
    static _Thread_local rplane cand[2 * MAX_PLANES];
    *merged = false;
    region *a = &t->regs[ia], *b = &t->regs[ib];
    uint32_t n = 0;
    for (int w = 0; w < 2; w++) {
        const region *r = w ? b : a, *o = w ? a : b;
        for (uint32_t i = 0; i < r->plane_count && n < 2 * MAX_PLANES; i++) {
            const rplane *p = &t->planes[r->first_plane + i];
            if (p->id >> 1 == shared) continue;
            bool seen = false;
            for (uint32_t j = 0; j < n && !seen; j++) seen = cand[j].id == p->id;
            if (!seen && all_behind(t, o, p)) cand[n++] = *p;
        }
    }
    region nr;
    memset(&nr, 0, sizeof nr);
    uint32_t pmark = t->plane_count, vmark = t->vert_count;
    bool closed;
    BK_TRY(body(t, cand, n, &nr, &closed));
    double want = a->vol + b->vol;
    if (!closed || fabs(nr.vol - want) > 1e-6 * want + 1e-3) {
        t->plane_count = pmark, t->vert_count = vmark;
        return BK_OK;
    }
    nr.contents = a->contents;
    nr.src = a->src < b->src ? a->src : b->src;
    BK_TRY(bk_grow((void **)&t->regs, &t->reg_cap, t->reg_count + 1, sizeof *t->regs));
    t->regs[ia].alive = t->regs[ib].alive = false;
    t->regs[t->reg_count++] = nr;
    *merged = true;
    return BK_OK;
}

static bool boxes_touch(const region *a, const region *b)
{
    for (int k = 0; k < 3; k++)
        if (a->mins[k] > b->maxs[k] + BEHIND || b->mins[k] > a->maxs[k] + BEHIND) return false;
    return true;
}

static bk_result merge_all(tree *t, uint32_t first)
{
    faceref *fr = NULL;
    uint32_t cap = 0;
    bk_result r = BK_OK;
    for (int pass = 0; pass < 64 && r == BK_OK; pass++) {
        uint32_t n = 0;
        for (uint32_t i = first; r == BK_OK && i < t->reg_count; i++) {
            const region *g = &t->regs[i];
            if (!g->alive) continue;
            r = bk_grow((void **)&fr, &cap, n + g->plane_count, sizeof *fr);
            for (uint32_t k = 0; r == BK_OK && k < g->plane_count; k++) {
                uint32_t id = t->planes[g->first_plane + k].id;
                fr[n++] = (faceref){id >> 1, i, (uint8_t)(id & 1)};
            }
        }
        if (r != BK_OK) break;
        qsort(fr, n, sizeof *fr, cmp_faceref);
        uint32_t merges = 0;
        for (uint32_t s = 0; s < n && r == BK_OK;) {
            uint32_t e = s, mid;
            while (e < n && fr[e].id == fr[s].id) e++;
            for (mid = s; mid < e && fr[mid].flip == 0; mid++) {}
            for (uint32_t i = s; i < mid && r == BK_OK; i++)
                for (uint32_t j = mid; j < e && r == BK_OK; j++) {
                    uint32_t ia = fr[i].reg, ib = fr[j].reg;
                    if (!t->regs[ia].alive) break;
                    if (!t->regs[ib].alive || t->regs[ia].contents != t->regs[ib].contents ||
                        !boxes_touch(&t->regs[ia], &t->regs[ib]))
                        continue;
                    bool merged;
                    r = try_merge(t, ia, ib, fr[s].id, &merged);
                    if (merged) merges++;
                }
            s = e;
        }
        if (!merges) break;
    }
    bk_free(fr);
    return r;
}

/* ---- textures ------------------------------------------------------------------------------ */
typedef struct facekey {
    uint32_t plane, side, face;
} facekey;

static int cmp_facekey(const void *a, const void *b)
{
    const facekey *x = a, *y = b;
    if (x->plane != y->plane) return x->plane < y->plane ? -1 : 1;
    if (x->side != y->side) return x->side < y->side ? -1 : 1;
    return x->face < y->face ? -1 : x->face > y->face;
}

static void face_vertex(const bk_quake_bsp *q, const bk_q1_face *f, uint32_t k, double v[3])
{
    int32_t se = q->surfedges[f->first_edge + k];
    const bk_q1_edge *e = &q->edges[se >= 0 ? se : -(int64_t)se];
    uint32_t vi = e->v[se >= 0 ? 0 : 1];
    for (int c = 0; c < 3; c++) v[c] = q->vertices[3 * vi + c];
}

static bool gold(const bk_quake_bsp *q) { return q->format == BK_FORMAT_GOLDSRC; }

static const char *tex_name(const bk_quake_bsp *q, const bk_q1_face *f)
{
    const bk_q1_texinfo *ti = &q->texinfo[f->texinfo];
    if (ti->miptex < 0 || (uint32_t)ti->miptex >= q->miptex_count || !q->miptex[ti->miptex].name[0]) return NULL;
    return q->miptex[ti->miptex].name;
}

/* the face in keys[lo, hi) whose centre lies inside side s (else one with a corner inside it) */
static int64_t find_face(const bk_quake_bsp *q, const bk_dmap *m, const bk_dside *s, const facekey *keys,
                         uint32_t lo, uint32_t hi)
{
    int64_t any = -1;
    for (uint32_t i = lo; i < hi; i++) {
        const bk_q1_face *f = &q->faces[keys[i].face];
        if (!tex_name(q, f) || !f->edge_count) continue;
        double c[3] = {0, 0, 0}, v[3];
        for (uint32_t k = 0; k < f->edge_count; k++) {
            face_vertex(q, f, k, v);
            for (int x = 0; x < 3; x++) c[x] += v[x] / f->edge_count;
            if (any < 0 && bk_dside_contains(m, s, v, -0.05)) any = keys[i].face;
        }
        if (bk_dside_contains(m, s, c, 0.05)) return keys[i].face;
    }
    return any;
}

static void range_of(const facekey *keys, uint32_t n, uint32_t plane, uint32_t side, uint32_t *lo, uint32_t *hi)
{
    uint32_t a = 0, b = n;
    while (a < b) {
        uint32_t mid = a + (b - a) / 2;
        if (keys[mid].plane < plane || (keys[mid].plane == plane && keys[mid].side < side)) a = mid + 1;
        else b = mid;
    }
    *lo = a;
    while (a < n && keys[a].plane == plane && keys[a].side == side) a++;
    *hi = a;
}

/* whether a texture name gives a brush a contents of its own (sky, a liquid) */
static bool contents_name(const bk_quake_bsp *q, const char *n)
{
    return bk_strncasecmp_prefix(n, "sky") || n[0] == (gold(q) ? '!' : '*');
}

/* a texture that gives contents c back: one of the map's, else the usual name */
static const char *contents_texture(const bk_quake_bsp *q, int32_t c)
{
    bool g = gold(q);
    const char *pre = c == -6 ? "sky" : c == -5 ? (g ? "!lava" : "*lava") : c == -4 ? (g ? "!slime" : "*slime")
                                                                             : (g ? "!" : "*");
    for (uint32_t i = 0; i < q->miptex_count; i++) {
        const char *n = q->miptex[i].name;
        if (!bk_strncasecmp_prefix(n, pre)) continue;
        if ((c == -3 || c <= -9) && (bk_strncasecmp_prefix(n + 1, "lava") || bk_strncasecmp_prefix(n + 1, "slime")))
            continue;
        return n;
    }
    return c == -6 ? "sky" : c == -5 ? (g ? "!lava" : "*lava") : c == -4 ? (g ? "!slime" : "*slime")
                                                                 : (g ? "!water" : "*water");
}

/* ---- a model ------------------------------------------------------------------------------ */
/* Each side of brush db (region g) on a plane of the map gets the texture and axes of the face
 * drawn out of the brush there (keys: the model's faces by plane and side); *own: the first. */
static void texture_sides(const bk_quake_bsp *q, bk_dmap *m, const region *g, const bk_dbrush *db,
                          const facekey *keys, uint32_t nf, const char **own)
{
    for (uint32_t k = 0; k < db->side_count; k++) {
        bk_dside *s = &m->sides[db->first_side + k];
        s->contents = (uint32_t)g->contents;
        s->material = NULL;
        uint32_t pid = s->src >> 1, flip = s->src & 1;
        if (pid >= q->plane_count) continue;   /* a bounds side */
        /* the face drawn out of the brush: on the plane, looking along the side's normal */
        uint32_t a, b;
        range_of(keys, nf, pid, flip, &a, &b);
        int64_t fi = find_face(q, m, s, keys, a, b);
        if (fi < 0 && g->contents != -2) {   /* a liquid's surface drawn from inside it */
            range_of(keys, nf, pid, flip ^ 1, &a, &b);
            fi = find_face(q, m, s, keys, a, b);
            /* not a wall's face seen from the liquid: that one is the solid brush's */
            if (fi >= 0 && !contents_name(q, tex_name(q, &q->faces[fi]))) fi = -1;
        }
        if (fi < 0) continue;
        const bk_q1_face *f = &q->faces[fi];
        const bk_q1_texinfo *ti = &q->texinfo[f->texinfo];
        s->material = tex_name(q, f);
        for (int row = 0; row < 2; row++)
            for (int c = 0; c < 4; c++) s->axes[row][c] = ti->vecs[row][c];
        s->has_axes = true;
        if (!*own) *own = s->material;
    }
}

/* The sides with a face first, and on a solid brush those whose texture gives a contents (a wall
 * textured sky facing a sky brush) last: the classic qbsp reads a brush's contents from its first
 * side. The sides without a face get own's texture (or the contents'). */
static bk_result order_sides(const bk_quake_bsp *q, bk_dmap *m, const region *g, const bk_dbrush *db, const char *own)
{
    bk_dside *sd = &m->sides[db->first_side];
    uint32_t w = 0, faced = 0;
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t k = w; k < db->side_count; k++) {
            bool special = sd[k].material && contents_name(q, sd[k].material);
            if (sd[k].material && (pass || special == (g->contents != -2))) {
                bk_dside tmp = sd[w];
                sd[w++] = sd[k];
                sd[k] = tmp;
            }
        }
    faced = w;
    const char *fill = g->contents == -2 || (g->contents < -6 && g->contents > -9) ? (gold(q) ? "SKIP" : "skip")
                       : own ? own
                             : contents_texture(q, g->contents);
    uint32_t first_special = 0;
    while (first_special < faced && !(g->contents == -2 && contents_name(q, sd[first_special].material)))
        first_special++;
    /* solid: [plain faces] [hidden sides] [faces textured sky or liquid] */
    for (uint32_t k = faced; k < db->side_count; k++) sd[k].material = fill;
    if (g->contents == -2 && first_special < faced && faced < db->side_count) {
        uint32_t nspecial = faced - first_special, nhidden = db->side_count - faced;
        bk_dside *tmp = bk_malloc(sizeof *tmp * nspecial);
        if (!tmp) return BK_ENOMEM;
        memcpy(tmp, sd + first_special, sizeof *tmp * nspecial);
        memmove(sd + first_special, sd + faced, sizeof *tmp * nhidden);
        memcpy(sd + first_special + nhidden, tmp, sizeof *tmp * nspecial);
        bk_free(tmp);
    }
    m->stats.sides_face_axes += faced;
    m->stats.sides_tool += db->side_count - faced;
    return BK_OK;
}

/* A brush entity's model is stored around its origin: its brushes from first_brush moved back,
 * their texture offsets too, and the origin brush the compilers take the origin from added. */
static bk_result add_origin(tree *t, uint32_t model, uint32_t ent, uint32_t first_brush, const double o[3])
{
    bk_dmap *m = t->m;
    bk_dmap_translate(m, first_brush, m->brush_count, 0, 0, o);
    for (uint32_t bi = first_brush; bi < m->brush_count; bi++)
        for (uint32_t k = 0; k < m->brushes[bi].side_count; k++) {
            bk_dside *s = &m->sides[m->brushes[bi].first_side + k];
            if (s->has_axes)
                for (int row = 0; row < 2; row++) s->axes[row][3] -= dot3(s->axes[row], o);
        }
    bk_dmap_brush_begin(m);
    for (int k = 0; k < 6; k++) {
        float n[3] = {0, 0, 0};
        n[k % 3] = k < 3 ? 1.0f : -1.0f;
        float d = (float)(k < 3 ? o[k % 3] + 8 : -(o[k % 3] - 8));
        bk_dside *s;
        BK_TRY(bk_dmap_side(m, n, d, UINT32_MAX, &s));
        s->material = gold(t->q) ? "ORIGIN" : "origin";
        s->contents = (uint32_t)-7;
    }
    bool kept;
    return bk_dmap_brush_end(m, model, ent, NULL, &kept);
}

static bk_result add_model(tree *t, uint32_t model, uint32_t ent, const double o[3])
{
    const bk_quake_bsp *q = t->q;
    bk_dmap *m = t->m;
    const bk_q1_model *mo = &q->models[model];
    int32_t head = mo->headnode[0];
    uint32_t rfirst = t->reg_count;
    double lo[3], hi[3];
    for (int k = 0; k < 3; k++) {
        lo[k] = floor(mo->mins[k]) - MARGIN, hi[k] = ceil(mo->maxs[k]) + MARGIN;
        if (!(lo[k] > -BIG / 4 && hi[k] < BIG / 4 && lo[k] < hi[k])) {
            bk_report(&m->ctx, BK_SEV_WARNING, BK_EFORMAT, "models", model, BK_NO_OFFSET,
                      "model *%u: bounds out of reach (%g .. %g): left out", model, mo->mins[k], mo->maxs[k]);
            return BK_OK;
        }
    }
    for (int k = 0; k < 6; k++) {
        rplane *p = &t->path[k];
        memset(p->n, 0, sizeof p->n);
        p->n[k % 3] = k < 3 ? 1 : -1;
        p->d = k < 3 ? hi[k % 3] : -lo[k % 3];
        p->id = (q->plane_count + (uint32_t)k) << 1;
    }
    if (head >= 0 && (uint32_t)head >= q->node_count) return BK_OK;   /* the loader checked it */
    BK_TRY(walk(t, head, 0));
    uint32_t found = t->reg_count - rfirst;
    m->stats.tree_regions += found;
    BK_TRY(merge_all(t, rfirst));

    /* the model's faces by plane and side */
    uint32_t nf = 0, f0 = (uint32_t)mo->first_face;
    facekey *keys = bk_malloc(sizeof *keys * ((size_t)mo->face_count + 1));
    if (!keys) return BK_ENOMEM;
    for (uint32_t i = 0; i < (uint32_t)mo->face_count; i++) {
        const bk_q1_face *f = &q->faces[f0 + i];
        keys[nf++] = (facekey){f->plane, f->side ? 1u : 0u, f0 + i};
    }
    qsort(keys, nf, sizeof *keys, cmp_facekey);

    bk_result r = BK_OK;
    uint32_t first_brush = m->brush_count;
    for (uint32_t ri = rfirst; r == BK_OK && ri < t->reg_count; ri++) {
        const region *g = &t->regs[ri];
        if (!g->alive) continue;
        bk_dmap_brush_begin(m);
        for (uint32_t k = 0; r == BK_OK && k < g->plane_count; k++) {
            const rplane *p = &t->planes[g->first_plane + k];
            float n[3] = {(float)p->n[0], (float)p->n[1], (float)p->n[2]};
            r = bk_dmap_side(m, n, (float)p->d, p->id, NULL);
        }
        bool kept = false;
        if (r == BK_OK) r = bk_dmap_brush_end(m, g->src, ent, NULL, &kept);
        if (r != BK_OK || !kept) continue;
        const bk_dbrush *db = &m->brushes[m->brush_count - 1];
        const char *own = NULL;   /* the texture of one of its faces */
        texture_sides(q, m, g, db, keys, nf, &own);
        r = order_sides(q, m, g, db, own);
    }
    bk_free(keys);
    if (r != BK_OK) return r;
    if (o[0] || o[1] || o[2]) return add_origin(t, model, ent, first_brush, o);
    return BK_OK;
}

static bk_result tree_add_model(void *ctx, uint32_t model, uint32_t ent, const double o[3])
{
    return add_model(ctx, model, ent, o);
}

bk_result bk_decompile_quake(const bk_file *f, bk_dmap *m)
{
    const bk_quake_bsp *q = bk_quake_bsp_of(f);
    if (!q) return BK_EARG;
    m->brush_lump = "nodes";
    tree *t = bk_calloc(1, sizeof *t);
    if (!t) return BK_ENOMEM;
    t->q = q;
    t->m = m;
    t->uniform = bk_malloc(q->node_count + 1);
    t->ucont = bk_malloc(sizeof *t->ucont * ((size_t)q->node_count + 1));
    t->visit_budget = (uint64_t)q->node_count + 16;
    bk_result r = t->uniform && t->ucont ? BK_OK : BK_ENOMEM;
    if (r == BK_OK) memset(t->uniform, -1, q->node_count + 1);
    if (r == BK_OK) r = bk_dmap_models_by_entity(m, f, q->model_count, "func_wall", tree_add_model, t);
    m->stats.brushes_dropped += t->empty_regions;
    bk_free(t->uniform);
    bk_free(t->ucont);
    bk_free(t->planes);
    bk_free(t->verts);
    bk_free(t->regs);
    bk_free(t);
    return r;
}
