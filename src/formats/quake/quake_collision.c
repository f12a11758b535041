/* The collision op of GoldSrc / Quake / BSP2 (bk_family.collision): hull 0's solid and liquid
 * leaves as convex pieces, each the node planes on the path from the root to the leaf, closed by
 * the world model's bounds (src/scene/collision.c builds the nodes). */
#include "bspkit/query.h"
#include "../../scene/collision.h"
#include "quake_internal.h"

typedef struct q1walk {
    bk_collision *b;
    const bk_quake_bsp *m;
    bk_halfspace stack[300];
    uint32_t depth;
    uint32_t steps;
} q1walk;

static bk_result q1_walk(q1walk *w, int32_t num)
{
    if (++w->steps > 4 * w->m->node_count + 16) return BK_OK;   /* a cyclic tree */
    if (num < 0) {
        uint32_t leaf = (uint32_t)(-1 - num);
        int32_t c = leaf < w->m->leaf_count ? w->m->leafs[leaf].contents : Q1C_SOLID;
        /* the solid and liquid leaves (and ladders): sky, clip and empty leaves are not pieces */
        uint32_t nc = bk_quake_contents_neutral(c) & (BK_CONTENTS_SOLID | BK_CONTENTS_WATER | BK_CONTENTS_SLIME |
                                                      BK_CONTENTS_LAVA | BK_CONTENTS_LADDER | BK_CONTENTS_CURRENT);
        if (!nc) return BK_OK;
        return bk_collision_add_convex(w->b, w->stack, w->depth, nc);
    }
    if ((uint32_t)num >= w->m->node_count || w->depth + 1 >= sizeof w->stack / sizeof w->stack[0]) return BK_OK;
    const bk_q1_node *nd = &w->m->nodes[num];
    const bk_q1_plane *p = &w->m->planes[nd->plane];
    /* front: n.x >= d, kept as -n.x <= -d */
    bk_halfspace *h = &w->stack[w->depth++];
    for (int k = 0; k < 3; k++) h->n[k] = -p->normal[k];
    h->d = -p->dist;
    BK_TRY(q1_walk(w, nd->children[0]));
    for (int k = 0; k < 3; k++) h->n[k] = p->normal[k];
    h->d = p->dist;
    BK_TRY(q1_walk(w, nd->children[1]));
    w->depth--;
    return BK_OK;
}

bk_result bk_collision_quake_hull0(const bk_file *f, bk_collision *b)
{
    const bk_quake_bsp *m = bk_quake_bsp_of(f);
    if (!m) return BK_EARG;
    if (!m->model_count) return BK_OK;
    q1walk w;
    memset(&w, 0, sizeof w);
    w.b = b;
    w.m = m;
    const bk_q1_model *md = &m->models[0];
    for (int k = 0; k < 3; k++) {
        bk_halfspace *a = &w.stack[w.depth++], *c = &w.stack[w.depth++];
        memset(a, 0, sizeof *a);
        memset(c, 0, sizeof *c);
        a->n[k] = 1;
        a->d = md->maxs[k] + 1;
        c->n[k] = -1;
        c->d = -(md->mins[k] - 1);
    }
    return q1_walk(&w, md->headnode[0]);
}
