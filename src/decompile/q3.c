/* Quake 3 (IBSP v46 / v47) into the neutral brush model: each entity with the brushes and patches
 * of its model (*N), each side on its lump plane with its shader. Brush sides store no texture
 * axes: they are fitted, as brush primitives' texture matrix, to a drawn triangle lying on the side
 * with the same shader (q3map2 computes a face's st from that matrix in world space), else left to
 * the writer's default. q3map2's bevels (axial and edge planes added after the mapper's sides)
 * touch the brush along an edge or a corner only: the sides without a face are dropped. */
#include <math.h>
#include <stdlib.h>

#include "bspkit/q3.h"
#include "decompile.h"

#define Q3_CONTENTS_DETAIL 0x8000000

/* ---- drawn triangles, found by their plane -------------------------------------------------- */
typedef struct tri {
    double n[3], d, c[3];      /* plane and centroid, world space */
    uint32_t v[3];             /* draw vertices */
    int32_t shader;
    int32_t next;              /* in its cell's list */
} tri;

typedef struct tri_index {
    tri *tris;      uint32_t count, cap;
    int32_t *heads; uint32_t mask;   /* cells by hashed quantised plane */
} tri_index;

#define QN 128.0   /* normal cells: 1/128 */
#define QD 0.5     /* distance cells: 2 units */
#define EPS_N 1e-3
#define EPS_D 0.05

static uint32_t cell_hash(int64_t a, int64_t b, int64_t c, int64_t d)
{
    uint64_t h = (uint64_t)a * 0x9E3779B97F4A7C15ull ^ (uint64_t)b * 0xC2B2AE3D27D4EB4Full ^
                 (uint64_t)c * 0x165667B19E3779F9ull ^ (uint64_t)d * 0x27D4EB2F165667C5ull;
    return (uint32_t)(h ^ (h >> 29));
}

static void cell_of(const double n[3], double d, int64_t q[4])
{
    for (int k = 0; k < 3; k++) q[k] = (int64_t)floor(n[k] * QN);
    q[3] = (int64_t)floor(d * QD);
}

static bk_result index_model(const bk_q3_map *q, const bk_q3_model *mo, const double o[3], tri_index *ix)
{
    for (int32_t si = mo->first_surface; si < mo->first_surface + mo->num_surfaces; si++) {
        const bk_q3_surface *s = &q->surfaces[si];
        if (s->type != BK_Q3_MST_PLANAR && s->type != BK_Q3_MST_TRIANGLE_SOUP) continue;
        for (int32_t t = 0; t + 2 < s->num_indexes; t += 3) {
            tri tr = {.shader = s->shader};
            double p[3][3];
            bool ok = true;
            for (int k = 0; k < 3; k++) {
                int64_t vi = (int64_t)s->first_vert + q->indexes[s->first_index + t + k];
                if (vi < 0 || vi >= q->vert_count) ok = false;
                else tr.v[k] = (uint32_t)vi;
            }
            if (!ok) continue;
            for (int k = 0; k < 3; k++)
                for (int c = 0; c < 3; c++) p[k][c] = q->verts[tr.v[k]].xyz[c] + o[c];
            double u[3], w[3];
            for (int c = 0; c < 3; c++) u[c] = p[1][c] - p[0][c], w[c] = p[2][c] - p[0][c];
            /* drawn clockwise seen from the front: the face normal is w x u */
            tr.n[0] = w[1] * u[2] - w[2] * u[1], tr.n[1] = w[2] * u[0] - w[0] * u[2], tr.n[2] = w[0] * u[1] - w[1] * u[0];
            double l = sqrt(tr.n[0] * tr.n[0] + tr.n[1] * tr.n[1] + tr.n[2] * tr.n[2]);
            if (!(l > 1e-6)) continue;
            for (int c = 0; c < 3; c++) tr.n[c] /= l, tr.c[c] = (p[0][c] + p[1][c] + p[2][c]) / 3;
            tr.d = tr.n[0] * p[0][0] + tr.n[1] * p[0][1] + tr.n[2] * p[0][2];
            BK_TRY(bk_grow((void **)&ix->tris, &ix->cap, ix->count + 1, sizeof *ix->tris));
            ix->tris[ix->count++] = tr;
        }
    }
    uint32_t cells = 64;
    while (cells < ix->count * 2u && cells < (1u << 30)) cells <<= 1;
    ix->heads = bk_malloc(sizeof *ix->heads * cells);
    if (!ix->heads) return BK_ENOMEM;
    ix->mask = cells - 1;
    for (uint32_t i = 0; i < cells; i++) ix->heads[i] = -1;
    for (uint32_t i = 0; i < ix->count; i++) {
        int64_t c[4];
        cell_of(ix->tris[i].n, ix->tris[i].d, c);
        uint32_t h = cell_hash(c[0], c[1], c[2], c[3]) & ix->mask;
        ix->tris[i].next = ix->heads[h];
        ix->heads[h] = (int32_t)i;
    }
    return BK_OK;
}

/* st = M (x, y, 1) through three vertices, x y on the plane's axis base: false when they are
 * in a line */
static bool fit_texmat(const bk_q3_map *q, const tri *t, const double o[3], const double bs[3], const double bt[3],
                       double mat[2][4])
{
    double a[3][3], s[3], tt[3];
    for (int k = 0; k < 3; k++) {
        const bk_q3_vertex *v = &q->verts[t->v[k]];
        double p[3] = {v->xyz[0] + o[0], v->xyz[1] + o[1], v->xyz[2] + o[2]};
        a[k][0] = p[0] * bs[0] + p[1] * bs[1] + p[2] * bs[2];
        a[k][1] = p[0] * bt[0] + p[1] * bt[1] + p[2] * bt[2];
        a[k][2] = 1;
        s[k] = v->st[0], tt[k] = v->st[1];
    }
    double det = a[0][0] * (a[1][1] - a[2][1]) - a[0][1] * (a[1][0] - a[2][0]) + (a[1][0] * a[2][1] - a[2][0] * a[1][1]);
    if (!(fabs(det) > 1e-9)) return false;
    for (int r = 0; r < 2; r++) {
        const double *y = r ? tt : s;
        /* Cramer's rule, the columns x, y, 1 replaced in turn */
        for (int c = 0; c < 3; c++) {
            double m[3][3];
            memcpy(m, a, sizeof m);
            for (int k = 0; k < 3; k++) m[k][c] = y[k];
            double dc = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                        m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
            mat[r][c] = dc / det;
        }
        mat[r][3] = 0;
        for (int c = 0; c < 3; c++)
            if (!isfinite(mat[r][c])) return false;
    }
    return true;
}

static bool same_shader(const bk_q3_map *q, int32_t a, int32_t b)
{
    if (a == b) return true;
    if (a < 0 || b < 0 || (uint32_t)a >= q->shader_count || (uint32_t)b >= q->shader_count) return false;
    return strcmp(q->shaders[a].name, q->shaders[b].name) == 0;
}

/* the axes of side s (shader sh): from a triangle on its plane, inside its face */
static void side_axes(const bk_q3_map *q, bk_dmap *m, bk_dside *s, int32_t sh, const tri_index *ix, const double o[3])
{
    int64_t lo[4], hi[4];
    double nlo[3], nhi[3];
    for (int k = 0; k < 3; k++) nlo[k] = s->n[k] - EPS_N, nhi[k] = s->n[k] + EPS_N;
    cell_of(nlo, s->d - EPS_D, lo);
    cell_of(nhi, s->d + EPS_D, hi);
    double bs[3], bt[3];
    bk_bp_axis_base(s->n, bs, bt);
    for (int64_t a = lo[0]; a <= hi[0]; a++)
        for (int64_t b = lo[1]; b <= hi[1]; b++)
            for (int64_t c = lo[2]; c <= hi[2]; c++)
                for (int64_t d = lo[3]; d <= hi[3]; d++)
                    for (int32_t i = ix->heads[cell_hash(a, b, c, d) & ix->mask]; i >= 0; i = ix->tris[i].next) {
                        const tri *t = &ix->tris[i];
                        if (fabs(t->d - s->d) > EPS_D || !same_shader(q, t->shader, sh)) continue;
                        if (fabs(t->n[0] - s->n[0]) > EPS_N || fabs(t->n[1] - s->n[1]) > EPS_N ||
                            fabs(t->n[2] - s->n[2]) > EPS_N)
                            continue;
                        if (!bk_dside_contains(m, s, t->c, 0.1)) continue;
                        if (fit_texmat(q, t, o, bs, bt, s->axes)) {
                            s->has_axes = true;
                            return;
                        }
                    }
}

static bk_result add_model(const bk_q3_map *q, bk_dmap *m, uint32_t model, uint32_t ent, const double o[3])
{
    const bk_q3_model *mo = &q->models[model];
    uint32_t first = m->brush_count, pfirst = m->patch_count;
    for (int32_t bi = mo->first_brush; bi < mo->first_brush + mo->num_brushes; bi++) {
        const bk_q3_brush *br = &q->brushes[bi];
        bk_dmap_brush_begin(m);
        for (int32_t k = 0; k < br->num_sides; k++) {
            const bk_q3_brushside *bs = &q->brushsides[br->first_side + k];
            const bk_q3_plane *pl = &q->planes[bs->plane];
            bk_dside *s;
            BK_TRY(bk_dmap_side(m, pl->normal, pl->dist, (uint32_t)(br->first_side + k), &s));
        }
        bool kept;
        BK_TRY(bk_dmap_brush_end(m, (uint32_t)bi, ent, NULL, &kept));
        if (!kept) continue;
        const bk_dbrush *db = &m->brushes[m->brush_count - 1];
        bool detail = br->shader >= 0 && (q->shaders[br->shader].content_flags & Q3_CONTENTS_DETAIL);
        if (detail) m->stats.detail_brushes++;
        for (uint32_t k = 0; k < db->side_count; k++) {
            bk_dside *s = &m->sides[db->first_side + k];
            int32_t sh = q->brushsides[s->src].shader;
            s->material = sh >= 0 ? q->shaders[sh].name : "noshader";
            if (!s->material[0]) s->material = "noshader";
            s->contents = detail ? Q3_CONTENTS_DETAIL : 0;
        }
    }
    for (int32_t si = mo->first_surface; si < mo->first_surface + mo->num_surfaces; si++) {
        const bk_q3_surface *su = &q->surfaces[si];
        if (su->type != BK_Q3_MST_PATCH) continue;
        if (su->patch_w < 3 || su->patch_h < 3 || !(su->patch_w & 1) || !(su->patch_h & 1) ||
            (int64_t)su->patch_w * su->patch_h != su->num_verts) {
            bk_report(&m->ctx, BK_SEV_WARNING, BK_EFORMAT, "surfaces", si, BK_NO_OFFSET,
                      "patch of %d x %d control points over %d vertices: left out", su->patch_w, su->patch_h,
                      su->num_verts);
            continue;
        }
        bk_dpoint *pt;
        const char *mat = su->shader >= 0 ? q->shaders[su->shader].name : "noshader";
        BK_TRY(bk_dmap_patch(m, mat, (uint32_t)su->patch_w, (uint32_t)su->patch_h, (uint32_t)si, ent, &pt));
        for (int32_t k = 0; k < su->num_verts; k++) {
            const bk_q3_vertex *v = &q->verts[su->first_vert + k];
            for (int c = 0; c < 3; c++) pt[k].xyz[c] = v->xyz[c];
            pt[k].st[0] = v->st[0], pt[k].st[1] = v->st[1];
        }
    }
    /* q3map2 stores a brush entity's geometry around its origin and computes st in world space */
    bk_dmap_translate(m, first, m->brush_count, pfirst, m->patch_count, o);
    tri_index ix = {0};
    bk_result r = index_model(q, mo, o, &ix);
    for (uint32_t b = first; r == BK_OK && b < m->brush_count; b++)
        for (uint32_t k = 0; k < m->brushes[b].side_count; k++) {
            bk_dside *s = &m->sides[m->brushes[b].first_side + k];
            side_axes(q, m, s, q->brushsides[s->src].shader, &ix, o);
            if (s->has_axes) m->stats.sides_face_axes++;
            else m->stats.sides_default_axes++;
        }
    bk_free(ix.tris);
    bk_free(ix.heads);
    return r;
}

bk_result bk_decompile_q3(const bk_file *f, bk_dmap *m)
{
    const bk_q3_map *q = bk_q3_map_of(f);
    if (!q) return BK_EARG;
    const bk_entities *es = bk_file_entities(f);
    bool *used = bk_calloc(q->model_count ? q->model_count : 1, 1);
    if (!used) return BK_ENOMEM;
    bk_result r = BK_OK;
    for (uint32_t i = 0; r == BK_OK && i < es->count; i++) {
        const bk_entity *e = &es->items[i];
        const char *cn = bk_entity_get(e, "classname");
        bool world = cn && strcmp(cn, "worldspawn") == 0;
        uint32_t ent;
        r = bk_dmap_entity(m, e, NULL, &ent);
        if (r != BK_OK) break;
        int32_t model = world ? 0 : bk_dentity_model(e, q->model_count);
        if (model < 0 || (uint32_t)model >= q->model_count) continue;
        if (used[model]) {
            bk_report(&m->ctx, BK_SEV_WARNING, BK_EFORMAT, "entities", i, e->offset,
                      "model *%d is named by an earlier entity too: its brushes are written once", model);
            continue;
        }
        used[model] = true;
        double o[3] = {0, 0, 0};
        if (!world) bk_dentity_origin(e, o);
        memcpy(m->ents[ent].origin, o, sizeof o);
        r = add_model(q, m, (uint32_t)model, ent, o);
    }
    /* a world without a worldspawn entity (or models no entity names) still has its brushes */
    for (uint32_t mi = 0; r == BK_OK && mi < q->model_count; mi++) {
        if (used[mi]) continue;
        uint32_t ent;
        r = bk_dmap_entity(m, NULL, mi ? "func_group" : "worldspawn", &ent);
        if (r == BK_OK) {
            if (mi) bk_report(&m->ctx, BK_SEV_WARNING, BK_ENOTFOUND, "models", mi, BK_NO_OFFSET,
                              "model *%u is named by no entity: written as a func_group", mi);
            r = add_model(q, m, mi, ent, (double[3]){0, 0, 0});
        }
    }
    bk_free(used);
    return r;
}
