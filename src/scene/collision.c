/* Collision as data (BK_OPT_COLLISION): the solid volumes of a map's world as convex pieces, for
 * engines and tools that need colliders (Godot, Unity, navmesh builders). Each piece is the
 * intersection of half-spaces: a brush's side planes (Quake 3, Source), or the node planes on the
 * path from the root to a solid or liquid leaf of hull 0 (GoldSrc / Quake), closed by the model's
 * bounds. Quake 3 patches and Source displacements, which are not convex, come as one triangle
 * mesh each. Every piece is a node under a node named "collision", named by its contents
 * (collision_solid_12, collision_water_3, ...), with extras collision=true and contents, and a
 * material that viewers draw fully transparent: the pieces are there for tools, hidden for eyes. */
#include <math.h>
#include <stdio.h>

#include "scene/scene_build.h"
#include "../query/cm.h"
#include "../query/query_internal.h"
#include "collision.h"

typedef bk_halfspace hplane;   /* keep n.p <= d */

#define BIG 131072.0f
#define MAXV 64

/* a big square on plane p, wound so that its normal is p.n */
static int base_winding(const hplane *p, float v[][3])
{
    int ax = 0;
    for (int k = 1; k < 3; k++)
        if (fabsf(p->n[k]) > fabsf(p->n[ax])) ax = k;
    float up[3] = {0, 0, 0};
    up[ax == 2 ? 0 : 2] = 1;
    float dd = up[0] * p->n[0] + up[1] * p->n[1] + up[2] * p->n[2];
    for (int k = 0; k < 3; k++) up[k] -= dd * p->n[k];
    float l = sqrtf(up[0] * up[0] + up[1] * up[1] + up[2] * up[2]);
    for (int k = 0; k < 3; k++) up[k] /= l;
    float rt[3] = {up[1] * p->n[2] - up[2] * p->n[1], up[2] * p->n[0] - up[0] * p->n[2], up[0] * p->n[1] - up[1] * p->n[0]};
    float c[3] = {p->n[0] * p->d, p->n[1] * p->d, p->n[2] * p->d};
    for (int k = 0; k < 3; k++) {
        v[0][k] = c[k] - rt[k] * BIG + up[k] * BIG;
        v[1][k] = c[k] + rt[k] * BIG + up[k] * BIG;
        v[2][k] = c[k] + rt[k] * BIG - up[k] * BIG;
        v[3][k] = c[k] - rt[k] * BIG - up[k] * BIG;
    }
    return 4;
}

/* keep the part of polygon v (n points) where p.n . x <= p.d (+ a hair) */
static int clip(float v[][3], int n, const hplane *p, float out[][3])
{
    float dist[MAXV];
    for (int i = 0; i < n; i++) dist[i] = p->n[0] * v[i][0] + p->n[1] * v[i][1] + p->n[2] * v[i][2] - p->d;
    int m = 0;
    for (int i = 0; i < n && m < MAXV - 1; i++) {
        int j = (i + 1) % n;
        if (dist[i] <= 0.01f) memcpy(out[m++], v[i], sizeof out[0]);
        if ((dist[i] < -0.01f && dist[j] > 0.01f) || (dist[i] > 0.01f && dist[j] < -0.01f)) {
            float t = dist[i] / (dist[i] - dist[j]);
            for (int k = 0; k < 3; k++) out[m][k] = v[i][k] + t * (v[j][k] - v[i][k]);
            m++;
        }
    }
    return m;
}

struct bk_collision {
    bk_scene *s;
    int32_t parent, material;
    uint32_t counts[32];
    uint32_t pieces;
    uint64_t budget;           /* vertices left */
    const bk_options *opt;
};  /* the family's builder adds its pieces to it */
typedef bk_collision cbuild;

static const char *contents_label(uint32_t c)
{
    static const uint32_t order[] = {BK_CONTENTS_SOLID, BK_CONTENTS_PLAYERCLIP, BK_CONTENTS_MONSTERCLIP,
                                     BK_CONTENTS_WINDOW, BK_CONTENTS_GRATE, BK_CONTENTS_WATER, BK_CONTENTS_SLIME,
                                     BK_CONTENTS_LAVA, BK_CONTENTS_LADDER, BK_CONTENTS_TRIGGER, BK_CONTENTS_FOG};
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
        if (c & order[i]) return bk_contents_name(order[i]);
    return "other";
}

static bk_result add_piece_node(cbuild *b, uint32_t contents, int32_t *mesh_out, bk_primitive **prim)
{
    const char *label = contents_label(contents);
    uint32_t slot = 0;
    for (; slot < 31 && !(contents_label(1u << slot) == label && (contents & (1u << slot))); slot++) {
    }
    char name[96];
    snprintf(name, sizeof name, "collision_%s_%u", label, b->counts[slot & 31]++);
    int32_t mesh, node;
    BK_TRY(bk_scene_add_mesh(b->s, name, &mesh));
    BK_TRY(bk_mesh_add_primitive(&b->s->meshes[mesh], b->material, BK_PRIM_TRIANGLES, BK_ATTR_NORMAL, prim));
    BK_TRY(bk_scene_add_node(b->s, name, b->parent, mesh, &node));
    bk_node *nd = &b->s->nodes[node];
    BK_TRY(bk_kv_append(&nd->extras, &nd->extra_count, "collision", "true"));
    char cn[256];
    bk_contents_format(contents, cn, sizeof cn);
    BK_TRY(bk_kv_append(&nd->extras, &nd->extra_count, "contents", cn));
    *mesh_out = mesh;
    b->pieces++;
    return BK_OK;
}

/* one convex piece from its half-spaces */
bk_result bk_collision_add_convex(cbuild *b, const hplane *pl, uint32_t n, uint32_t contents)
{
    static _Thread_local float poly[MAXV][3], tmp[MAXV][3];
    bk_primitive *pr = NULL;
    int32_t mesh = -1;
    for (uint32_t i = 0; i < n; i++) {
        int m = base_winding(&pl[i], poly);
        for (uint32_t j = 0; j < n && m >= 3; j++) {
            if (j == i) continue;
            /* the same plane twice would cut the face away: skip exact repeats */
            if (pl[j].n[0] == pl[i].n[0] && pl[j].n[1] == pl[i].n[1] && pl[j].n[2] == pl[i].n[2] && pl[j].d == pl[i].d) {
                if (j < i) m = 0;   /* the first copy makes the face */
                continue;
            }
            m = clip(poly, m, &pl[j], tmp);
            memcpy(poly, tmp, sizeof(float) * 3 * (size_t)m);
        }
        if (m < 3) continue;
        if (b->budget < (uint64_t)m) return BK_ELIMIT;
        b->budget -= (uint64_t)m;
        if (!pr) BK_TRY(add_piece_node(b, contents, &mesh, &pr));
        uint32_t first;
        BK_TRY(bk_prim_add_vertices(pr, (uint32_t)m, &first));
        for (int k = 0; k < m; k++) {
            memcpy(&pr->position[(first + (uint32_t)k) * 3], poly[k], sizeof poly[k]);
            memcpy(&pr->normal[(first + (uint32_t)k) * 3], pl[i].n, sizeof pl[i].n);
        }
        /* the winding runs clockwise seen from outside (base_winding's order): flip for glTF */
        for (int k = 1; k + 1 < m; k++) BK_TRY(bk_prim_add_triangle(pr, first, first + (uint32_t)k + 1, first + (uint32_t)k));
    }
    return BK_OK;
}

static bk_result cm_collision(cbuild *b, const bk_cm *cm);

/* The family's query view's collision model (bk_cm), as convex pieces */
bk_result bk_collision_brushes(const bk_file *f, cbuild *b)
{
    bk_query *q = NULL;
    bk_options qo = b->opt ? *b->opt : (bk_options){0};
    qo.diag = NULL;   /* the load already reported what is wrong with the file */
    bk_result r = bk_query_open(f, &qo, &q);
    if (r == BK_OK && q->ops->cm) r = cm_collision(b, q->ops->cm(q->state));
    bk_query_free(q);
    return r;
}

/* ---- Quake 3 / Source: brushes, and the triangle meshes ------------------------------------- */
static bk_result cm_collision(cbuild *b, const bk_cm *cm)
{
    const bk_cm_model *m0 = &cm->models[0];
    /* the world's brushes: Quake 3 lists them on the model; Source reaches them through the leaves */
    uint8_t *seen = bk_calloc(cm->brush_count + 1, 1);
    if (!seen) return BK_ENOMEM;
    if (m0->num_brushes) {
        for (uint32_t i = 0; i < m0->num_brushes && m0->first_brush + i < cm->brush_count; i++) seen[m0->first_brush + i] = 1;
    } else {
        for (uint32_t l = 0; l < cm->leaf_count; l++)
            for (uint32_t i = 0; i < cm->leafs[l].num_brushes; i++) {
                uint32_t k = cm->leafs[l].first_brush + i;
                if (k < cm->leafbrush_count && cm->leafbrushes[k] < cm->brush_count) seen[cm->leafbrushes[k]] = 1;
            }
    }
    bk_result r = BK_OK;
    hplane pl[128];
    for (uint32_t bi = 0; bi < cm->brush_count && r == BK_OK; bi++) {
        const bk_cm_brush *br = &cm->brushes[bi];
        if (!seen[bi] || !br->contents || br->num_sides < 4) continue;
        uint32_t n = 0;
        for (uint32_t s = 0; s < br->num_sides && n < 128; s++) {
            const bk_cm_plane *p = &cm->planes[cm->sides[br->first_side + s].plane];
            memcpy(pl[n].n, p->n, sizeof pl[n].n);
            pl[n++].d = p->d;
        }
        r = bk_collision_add_convex(b, pl, n, br->contents);
    }
    bk_free(seen);
    for (uint32_t mi = 0; mi < m0->num_meshes && r == BK_OK; mi++) {
        const bk_cm_mesh *me = &cm->meshes[m0->first_mesh + mi];
        if (!me->contents || !me->num_tris) continue;
        if (b->budget < (uint64_t)me->num_tris * 3) return BK_ELIMIT;
        b->budget -= (uint64_t)me->num_tris * 3;
        bk_primitive *pr;
        int32_t mesh;
        r = add_piece_node(b, me->contents, &mesh, &pr);
        uint32_t first;
        if (r == BK_OK) r = bk_prim_add_vertices(pr, me->num_tris * 3, &first);
        for (uint32_t t = 0; t < me->num_tris && r == BK_OK; t++) {
            const bk_cm_tri *T = &cm->tris[me->first_tri + t];
            for (int k = 0; k < 3; k++) {
                memcpy(&pr->position[(first + t * 3 + (uint32_t)k) * 3], T->v[k], sizeof T->v[k]);
                memcpy(&pr->normal[(first + t * 3 + (uint32_t)k) * 3], T->n, sizeof T->n);
            }
            r = bk_prim_add_triangle(pr, first + t * 3, first + t * 3 + 1, first + t * 3 + 2);
        }
    }
    return r;
}

bk_result bk_scene_add_collision(const bk_file *f, const bk_options *opt, bk_scene *s, bk_collision_fill fill)
{
    if (!f || !s || !fill) return BK_EARG;
    cbuild b;
    memset(&b, 0, sizeof b);
    b.s = s;
    b.opt = opt;
    uint64_t max_alloc = opt && opt->limits.max_alloc_bytes ? opt->limits.max_alloc_bytes : ((uint64_t)1 << 30);
    b.budget = max_alloc / 64;
    BK_TRY(bk_scene_add_material(s, "collision", &b.material));
    bk_material *mat = &s->materials[b.material];
    mat->base_color[0] = 1.0f, mat->base_color[1] = 0.2f, mat->base_color[2] = 0.8f, mat->base_color[3] = 0.0f;
    mat->alpha_mode = BK_ALPHA_BLEND;
    mat->unlit = 1;
    mat->double_sided = 1;
    mat->lightmap_image = -1;
    mat->base_image = -1;
    BK_TRY(bk_kv_append(&mat->extras, &mat->extra_count, "collision", "true"));
    BK_TRY(bk_scene_add_node(s, "collision", -1, -1, &b.parent));
    bk_node *pn = &s->nodes[b.parent];
    BK_TRY(bk_kv_append(&pn->extras, &pn->extra_count, "collision", "true"));
    bk_result r = fill(f, &b);
    if (r == BK_ELIMIT) /* more collision than the limits allow: what fits is kept */
        bk_scene_diag(s, opt, BK_SEV_WARNING, r, NULL, "collision", BK_NO_INDEX, BK_NO_OFFSET,
                      "more collision geometry than the limits allow (limits.max_scene_vertices): the rest is left out");
    return r == BK_ELIMIT ? BK_OK : r;
}
