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
/* what makes q3map2 call a brush translucent (its surfaceparms lava, slime, water, areaportal,
 * playerclip, monsterclip, clusterportal, donotenter, botclip, origin, trans, trigger, nodrop;
 * alphashadow, lightfilter): any of its sides' shaders with one of these */
#define Q3_CONTENTS_TRANSLUCENT 0xE1738038u
#define Q3_SURF_TRANSLUCENT 0x18000u

/* ---- drawn triangles, found by their plane -------------------------------------------------- */
typedef struct tri {
    double n[3], d, c[3];      /* plane and centroid, world space */
    uint32_t v[3];             /* draw vertices */
    int32_t shader, surface;
    int32_t next;              /* in its cell's list */
    bool on_side;              /* inside a written side with its shader */
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
            tri tr = {.shader = s->shader, .surface = si};
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

/* the axes of side s (shader sh): from a triangle on its plane, inside its face; every triangle
 * the side explains so is marked */
static void side_axes(const bk_q3_map *q, bk_dmap *m, bk_dside *s, int32_t sh, tri_index *ix, const double o[3])
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
                        tri *t = &ix->tris[i];
                        if (fabs(t->d - s->d) > EPS_D || !same_shader(q, t->shader, sh)) continue;
                        if (fabs(t->n[0] - s->n[0]) > EPS_N || fabs(t->n[1] - s->n[1]) > EPS_N ||
                            fabs(t->n[2] - s->n[2]) > EPS_N)
                            continue;
                        if (!bk_dside_contains(m, s, t->c, 0.1)) continue;
                        t->on_side = true;
                        if (!s->has_axes && fit_texmat(q, t, o, bs, bt, s->axes)) s->has_axes = true;
                    }
}

/* q3map2's slot for an axial side: 0 -x, 1 +x, 2 -y, 3 +y, 4 -z, 5 +z (a normal component exactly
 * 1 or -1, as its float test); -1 for the others */
static int axial_slot(const bk_dside *s)
{
    for (int k = 0; k < 3; k++) {
        if ((float)s->n[k] == 1.0f) return 2 * k + 1;
        if ((float)s->n[k] == -1.0f) return 2 * k;
    }
    return -1;
}

/* q3map2 puts a brush's six axial sides first (-x +x -y +y -z +z), swapping each into its slot
 * from where it finds it, or from the end where it adds an axial bevel; the swaps move the other
 * sides too. The sides are written so that these swaps give the lump's order back: the axial
 * ones in their slots' order, the others placed by a dry run of the swaps on their indices. */
static bk_result compiler_side_order(bk_dmap *m, const bk_dbrush *db)
{
    uint32_t n = db->side_count, k = 0, ax = 0;
    bk_dside *sd = &m->sides[db->first_side];
    int slot_seen = -1;
    for (uint32_t i = 0; i < n; i++) {
        int sl = axial_slot(&sd[i]);
        if (sl < 0) continue;
        /* the lump's axial sides first and in their slots' order, as q3map2 leaves them; else
         * (another compiler) the lump's order is kept */
        if (i != ax || sl <= slot_seen) return BK_OK;
        slot_seen = sl;
        ax++;
    }
    k = n - ax;
    if (k < 2) return BK_OK;
    int32_t *lab = bk_malloc(sizeof *lab * (n + 6));
    bk_dside *tmp = bk_malloc(sizeof *tmp * k);
    if (!lab || !tmp) {
        bk_free(lab);
        bk_free(tmp);
        return BK_ENOMEM;
    }
    uint32_t size = 0;
    for (uint32_t i = 0; i < ax; i++) lab[size++] = -1 - axial_slot(&sd[i]);
    for (uint32_t j = 0; j < k; j++) lab[size++] = (int32_t)j;
    for (int order = 0; order < 6; order++) {
        uint32_t i = 0;
        while (i < size && lab[i] != -1 - order) i++;
        if (i == size) lab[size++] = -100; /* the bevel q3map2 adds */
        int32_t t = lab[order];
        lab[order] = lab[i], lab[i] = t;
    }
    /* the non-axial side written at index lab[r] lands at the r-th place: put the lump's r-th there */
    uint32_t r = 0;
    for (uint32_t i = 0; i < size; i++)
        if (lab[i] >= 0) tmp[lab[i]] = sd[ax + r++];
    memcpy(&sd[ax], tmp, sizeof *tmp * k);
    bk_free(lab);
    bk_free(tmp);
    return BK_OK;
}

static bool translucent(const bk_q3_map *q, const bk_q3_brush *br)
{
    for (int32_t k = 0; k < br->num_sides; k++) {
        int32_t sh = q->brushsides[br->first_side + k].shader;
        if (sh >= 0 && (uint32_t)sh < q->shader_count &&
            (((uint32_t)q->shaders[sh].content_flags & Q3_CONTENTS_TRANSLUCENT) ||
             ((uint32_t)q->shaders[sh].surface_flags & Q3_SURF_TRANSLUCENT)))
            return true;
    }
    return false;
}

/* q3map2 links each brush it reads at the head of its entity's list when it is opaque, at the end
 * when translucent: a model's brushes are its opaque ones in the reverse of the .map's order, then
 * its translucent ones in order. Written so (opaque reversed, translucent after), a recompile
 * gives the lump's order back. */
static bk_result compiler_order(const bk_q3_map *q, bk_dmap *m, uint32_t first)
{
    uint32_t n = m->brush_count - first, k = 0;
    if (n < 2) return BK_OK;
    bk_dbrush *tmp = bk_malloc(sizeof *tmp * n);
    if (!tmp) return BK_ENOMEM;
    for (uint32_t b = m->brush_count; b-- > first;)
        if (!translucent(q, &q->brushes[m->brushes[b].src])) tmp[k++] = m->brushes[b];
    for (uint32_t b = first; b < m->brush_count; b++)
        if (translucent(q, &q->brushes[m->brushes[b].src])) tmp[k++] = m->brushes[b];
    memcpy(&m->brushes[first], tmp, sizeof *tmp * n);
    bk_free(tmp);
    return BK_OK;
}

/* drawn triangles no written side explains: geometry the compiler added to the brushes' (the
 * triangles of misc_model entities it baked in, decals, foliage) is not written; said once per
 * model, with the surface and shader of the first */
static void report_unwritten(const bk_q3_map *q, bk_dmap *m, uint32_t model, const tri_index *ix)
{
    uint32_t n = 0, surfaces = 0;
    int32_t first = -1, last = -1;
    for (uint32_t i = 0; i < ix->count; i++) {
        const tri *t = &ix->tris[i];
        if (t->on_side) continue;
        n++;
        if (t->surface != last) surfaces++, last = t->surface;
        if (first < 0) first = t->surface;
    }
    m->stats.triangles_unwritten += n;
    if (!n) return;
    int32_t sh = q->surfaces[first].shader;
    bk_report(&m->ctx, BK_SEV_WARNING, BK_EUNSUPPORTED, "surfaces", first, BK_NO_OFFSET,
              "model *%u: %u drawn triangles (%u surfaces, the first with %s) lie on no brush side with "
              "their shader: misc_model geometry, decals or other surfaces the compiler added, not written",
              model, n, surfaces, sh >= 0 && (uint32_t)sh < q->shader_count ? q->shaders[sh].name : "noshader");
}

static bk_result add_model(const bk_q3_map *q, bk_dmap *m, uint32_t model, uint32_t ent, const double o[3])
{
    const bk_q3_model *mo = &q->models[model];
    uint32_t first = m->brush_count, pfirst = m->patch_count;
    bool *bevel = NULL;
    uint32_t bevel_cap = 0;
    bk_result r = BK_OK;
    for (int32_t bi = mo->first_brush; r == BK_OK && bi < mo->first_brush + mo->num_brushes; bi++) {
        const bk_q3_brush *br = &q->brushes[bi];
        r = bk_grow((void **)&bevel, &bevel_cap, (uint32_t)br->num_sides + 1, sizeof *bevel);
        if (r != BK_OK) break;
        bk_dmap_brush_begin(m);
        for (int32_t k = 0; r == BK_OK && k < br->num_sides; k++) {
            const bk_q3_brushside *bs = &q->brushsides[br->first_side + k];
            const bk_q3_plane *pl = &q->planes[bs->plane];
            /* q3map2 writes its bevels with no shader ("noshader"): some touch the brush along a
             * long edge with a sliver of a face the float planes leave them */
            bevel[k] = bs->shader >= 0 && (uint32_t)bs->shader < q->shader_count &&
                       strcmp(q->shaders[bs->shader].name, "noshader") == 0;
            r = bk_dmap_side(m, pl->normal, pl->dist, (uint32_t)(br->first_side + k), NULL);
        }
        bool kept = false;
        if (r == BK_OK) r = bk_dmap_brush_end(m, (uint32_t)bi, ent, bevel, &kept);
        if (r != BK_OK || !kept) continue;
        const bk_dbrush *db = &m->brushes[m->brush_count - 1];
        r = compiler_side_order(m, db);
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
    bk_free(bevel);
    BK_TRY(r);
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
    r = index_model(q, mo, o, &ix);
    for (uint32_t b = first; r == BK_OK && b < m->brush_count; b++)
        for (uint32_t k = 0; k < m->brushes[b].side_count; k++) {
            bk_dside *s = &m->sides[m->brushes[b].first_side + k];
            side_axes(q, m, s, q->brushsides[s->src].shader, &ix, o);
            if (s->has_axes) m->stats.sides_face_axes++;
            else m->stats.sides_default_axes++;
        }
    if (r == BK_OK) report_unwritten(q, m, model, &ix);
    if (r == BK_OK) r = compiler_order(q, m, first);
    bk_free(ix.tris);
    bk_free(ix.heads);
    return r;
}

typedef struct q3_models { const bk_q3_map *q; bk_dmap *m; } q3_models;

static bk_result q3_add_model(void *ctx, uint32_t model, uint32_t ent, const double o[3])
{
    const q3_models *c = ctx;
    return add_model(c->q, c->m, model, ent, o);
}

bk_result bk_decompile_q3(const bk_file *f, bk_dmap *m)
{
    const bk_q3_map *q = bk_q3_map_of(f);
    if (!q) return BK_EARG;
    q3_models c = {q, m};
    return bk_dmap_models_by_entity(m, f, q->model_count, "func_group", q3_add_model, &c);
}
