/* Navigation meshes (include/bspkit/nav.h): the map's collision model as walkable input, turned
 * into Recast's axes and handed to the Recast/Detour shim (recast_shim.cpp). docs/navmesh.md */
#include <math.h>
#include <stdio.h>
#include <string.h>

#define BK_ADVANCED_API /* bk_file_complete */
#include "bspkit/advanced.h"
#include "bspkit/nav.h"
#include "bspkit/query.h"
#include "../formats/family.h"
#include "../formats/format.h"
#include "../scene/collision.h"
#include "../scene/scene_build.h"
#include "nav_shim.h"

/* The highest step walked up without a jump, per family. Every engine bspkit reads uses 18 units:
 * Quake's sv_phys.c / sv_move.c STEPSIZE, GoldSrc's pm_shared.c (movevars stepsize, the
 * sv_stepsize default 18), Quake 3's bg_local.h STEPSIZE, Source's gamemovement.cpp
 * (player->m_Local.m_flStepSize, sv_stepsize 18). */
static float family_step(bk_format f)
{
    switch (f) {
    case BK_FORMAT_QUAKE1: case BK_FORMAT_BSP2: case BK_FORMAT_GOLDSRC: case BK_FORMAT_QUAKE3: case BK_FORMAT_SOURCE:
        return 18.0f;
    default:
        return 18.0f;
    }
}

bk_result bk_nav_default_agent(const bk_file *f, bk_nav_agent *out)
{
    if (!f || !out) return BK_EARG;
    const bk_game *g = bk_file_game(f);
    if (!g) return BK_EUNSUPPORTED;
    float wx = g->hull_max[0] - g->hull_min[0], wy = g->hull_max[1] - g->hull_min[1];
    out->radius = 0.5f * (wx > wy ? wx : wy);
    out->height = g->hull_max[2] - g->hull_min[2];
    out->step = family_step(f->format);
    out->slope = 45.0f;
    return out->radius > 0 && out->height > 0 ? BK_OK : BK_EUNSUPPORTED;
}

bk_result bk_nav_agent_check(const bk_nav_agent *a, char *why, size_t cap)
{
    const char *w = NULL;
    if (!a) w = "no agent";
    else if (!(a->radius > 0 && a->radius <= 1024)) w = "radius";
    else if (!(a->height > 0 && a->height <= 4096)) w = "height";
    else if (!(a->step >= 0 && a->step <= a->height)) w = "step";
    else if (!(a->slope >= 0 && a->slope <= 85)) w = "slope";
    if (!w) return BK_OK;
    if (why && cap && a)
        snprintf(why, cap,
                 "agent %s out of range (radius %g, height %g, step %g, slope %g): radius in (0, 1024], height in "
                 "(0, 4096], step in [0, height], slope in [0, 85] degrees",
                 w, (double)a->radius, (double)a->height, (double)a->step, (double)a->slope);
    else if (why && cap) snprintf(why, cap, "%s", w);
    return BK_EARG;
}

#ifdef BK_HAVE_RECAST

struct bk_navmesh {
    bk_nav_shim *shim;
    bk_nav_stats st;
    bk_nav_agent agent;
};

bool bk_nav_available(void) { return bk_nav_shim_load(NULL, 0); }

const char *bk_nav_unavailable_reason(void) { return bk_nav_shim_load(NULL, 0) ? NULL : bk_nav_shim_why(); }

/* engine (Z up) -> Recast (Y up), turning about X so that windings and handedness stay */
static void to_rc(const float *p, float *o) { o[0] = p[0], o[1] = p[2], o[2] = -p[1]; }
static void from_rc(const float *p, float *o) { o[0] = p[0], o[1] = -p[2], o[2] = p[1]; }

typedef struct walk_input {
    float *v;      /* Recast axes */
    int *t;
    uint32_t nv, nt, cap_v, cap_t;
    float *pl, *box;   /* convex solids: planes (n, d) and bounds across, Recast axes */
    int *first, *count;
    uint32_t npl, np, cap_pl, cap_box, cap_first, cap_count;
} walk_input;

static bk_result grow(void **p, uint32_t *cap, uint32_t need, size_t each)
{
    if (need <= *cap) return BK_OK;
    uint32_t n = *cap ? *cap : 4096;
    while (n < need) {
        if (n > UINT32_MAX / 2 || (uint64_t)n * 2 * each > ((uint64_t)1 << 34)) return BK_ELIMIT;
        n *= 2;
    }
    void *q = bk_realloc(*p, (size_t)n * each);
    if (!q) return BK_ENOMEM;
    *p = q;
    *cap = n;
    return BK_OK;
}

/* A collision piece that is a closed convex solid (its triangles' planes bound all its vertices,
 * with a floor and a ceiling): its planes join w as one solid; true. A mesh (patch,
 * displacement) stays triangles: false. */
static bool add_solid(walk_input *w, const bk_primitive *pr, bk_result *r)
{
    enum { MAXP = 64 };
    float pl[MAXP][4];
    int n = 0;
    bool up = false, down = false;
    *r = BK_OK;
    if (!pr->normal) return false;
    for (uint32_t t = 0; t + 2 < pr->index_count; t += 3) {
        uint32_t i0 = pr->indices[t];
        if (i0 >= pr->vertex_count) return false;
        const float *nn = &pr->normal[i0 * 3], *v = &pr->position[i0 * 3];
        float d = nn[0] * v[0] + nn[1] * v[1] + nn[2] * v[2];
        int k = 0;
        for (; k < n; k++)
            if (fabsf(pl[k][0] - nn[0]) < 1e-5f && fabsf(pl[k][1] - nn[1]) < 1e-5f && fabsf(pl[k][2] - nn[2]) < 1e-5f &&
                fabsf(pl[k][3] - d) < 0.01f)
                break;
        if (k < n) continue;
        if (n == MAXP) return false;
        pl[n][0] = nn[0], pl[n][1] = nn[1], pl[n][2] = nn[2], pl[n][3] = d;
        up = up || nn[2] > 1e-6f, down = down || nn[2] < -1e-6f;
        n++;
    }
    if (!up || !down || n < 4) return false;
    float lo[2] = {1e30f, 1e30f}, hi[2] = {-1e30f, -1e30f};
    for (uint32_t i = 0; i < pr->vertex_count; i++) {
        const float *v = &pr->position[i * 3];
        for (int k = 0; k < n; k++)
            if (pl[k][0] * v[0] + pl[k][1] * v[1] + pl[k][2] * v[2] > pl[k][3] + 0.1f) return false;
        float q[3];
        to_rc(v, q);
        lo[0] = fminf(lo[0], q[0]), hi[0] = fmaxf(hi[0], q[0]);
        lo[1] = fminf(lo[1], q[2]), hi[1] = fmaxf(hi[1], q[2]);
    }
    if ((*r = grow((void **)&w->pl, &w->cap_pl, w->npl + (uint32_t)n, sizeof(float) * 4)) != BK_OK ||
        (*r = grow((void **)&w->box, &w->cap_box, w->np + 1, sizeof(float) * 4)) != BK_OK ||
        (*r = grow((void **)&w->first, &w->cap_first, w->np + 1, sizeof(int))) != BK_OK ||
        (*r = grow((void **)&w->count, &w->cap_count, w->np + 1, sizeof(int))) != BK_OK)
        return true;
    for (int k = 0; k < n; k++) {
        float *o = &w->pl[(w->npl + (uint32_t)k) * 4];
        to_rc(pl[k], o);   /* a normal turns as a point does (a rotation) */
        o[3] = pl[k][3];
    }
    w->first[w->np] = (int)w->npl, w->count[w->np] = n;
    float *b = &w->box[w->np * 4];
    b[0] = lo[0], b[1] = lo[1], b[2] = hi[0], b[3] = hi[1];
    w->npl += (uint32_t)n;
    w->np++;
    return true;
}

/* the player-solid pieces of the collision scene in Recast's axes: convex solids as planes, the
 * rest as one indexed mesh */
static bk_result gather(const bk_scene *s, walk_input *w, float mins[3], float maxs[3], uint32_t *all_tris)
{
    const uint32_t solid = BK_MASK_PLAYERSOLID | BK_CONTENTS_SKY;
    const uint32_t pass = BK_CONTENTS_TRIGGER | BK_CONTENTS_WATER | BK_CONTENTS_SLIME | BK_CONTENTS_LAVA |
                          BK_CONTENTS_FOG | BK_CONTENTS_LADDER;
    for (int k = 0; k < 3; k++) mins[k] = 1e30f, maxs[k] = -1e30f;
    *all_tris = 0;
    for (uint32_t ni = 0; ni < s->node_count; ni++) {
        const bk_node *nd = &s->nodes[ni];
        if (nd->mesh < 0) continue;
        const char *cn = NULL;
        for (uint32_t e = 0; e < nd->extra_count; e++)
            if (strcmp(nd->extras[e].key, "contents") == 0) cn = nd->extras[e].value;
        uint32_t c = 0;
        if (!cn || bk_contents_parse(cn, &c) != BK_OK) continue;
        const bk_mesh *me = &s->meshes[nd->mesh];
        for (uint32_t pi = 0; pi < me->prim_count; pi++) {
            const bk_primitive *pr = &me->prims[pi];
            if (pr->mode != BK_PRIM_TRIANGLES || !pr->indices) continue;
            *all_tris += pr->index_count / 3;
            if (!(c & solid) || (c & pass)) continue;
            for (uint32_t i = 0; i < pr->vertex_count; i++)
                for (int k = 0; k < 3; k++)
                    mins[k] = fminf(mins[k], pr->position[i * 3 + k]), maxs[k] = fmaxf(maxs[k], pr->position[i * 3 + k]);
            bk_result rs;
            if (add_solid(w, pr, &rs)) {
                BK_TRY(rs);
                continue;
            }
            uint32_t base = w->nv;
            if (pr->vertex_count > UINT32_MAX - base) return BK_ELIMIT;
            BK_TRY(grow((void **)&w->v, &w->cap_v, base + pr->vertex_count, sizeof(float) * 3));
            for (uint32_t i = 0; i < pr->vertex_count; i++) {
                to_rc(&pr->position[i * 3], &w->v[(base + i) * 3]);
            }
            w->nv += pr->vertex_count;
            uint32_t nt = pr->index_count / 3;
            BK_TRY(grow((void **)&w->t, &w->cap_t, w->nt + nt, sizeof(int) * 3));
            for (uint32_t i = 0; i < nt * 3; i++) {
                if (pr->indices[i] >= pr->vertex_count) return BK_EFORMAT;
                w->t[w->nt * 3 + i] = (int)(base + pr->indices[i]);
            }
            w->nt += nt;
        }
    }
    return BK_OK;
}

/* The brush families close the world's outside with its bounds (GoldSrc / Quake: the solid
 * leaves outside the map end at the world model's box): the top of that lid is no floor. */
static void drop_lid(walk_input *w, float top)
{
    uint32_t o = 0;
    for (uint32_t t = 0; t < w->nt; t++) {
        int *tr = &w->t[t * 3];
        bool lid = true;
        for (int k = 0; k < 3; k++) lid = lid && w->v[tr[k] * 3 + 1] >= top - 0.5f;
        if (lid) continue;
        memmove(&w->t[o * 3], tr, sizeof(int) * 3);
        o++;
    }
    w->nt = o;
}

bk_result bk_navmesh_build(const bk_file *f, const bk_options *opt, const bk_nav_agent *agent, bk_navmesh **out)
{
    if (!f || !out) return BK_EARG;
    *out = NULL;
    bk_ctx ctx;
    bk_ctx_init(&ctx, opt, false);
    if (!ctx.file) ctx.file = f->name;
    bk_nav_agent a;
    if (agent) a = *agent;
    else if (bk_nav_default_agent(f, &a) != BK_OK || !f->family || !f->family->collision)
        return bk_report(&ctx, BK_SEV_ERROR, BK_EUNSUPPORTED, "navmesh", BK_NO_INDEX, BK_NO_OFFSET,
                         "navmesh: not supported for %s files", bk_format_name(f->format));
    if (!f->family || !f->family->collision)
        return bk_report(&ctx, BK_SEV_ERROR, BK_EUNSUPPORTED, "navmesh", BK_NO_INDEX, BK_NO_OFFSET,
                         "navmesh: not supported for %s files (no collision model)", bk_format_name(f->format));
    char why[1200];
    if (bk_nav_agent_check(&a, why, sizeof why) != BK_OK)
        return bk_report(&ctx, BK_SEV_ERROR, BK_EARG, "navmesh", BK_NO_INDEX, BK_NO_OFFSET, "%s", why);
    if (!bk_nav_shim_load(why, sizeof why))
        return bk_report(&ctx, BK_SEV_ERROR, BK_EUNSUPPORTED, "navmesh", BK_NO_INDEX, BK_NO_OFFSET, "%s", why);
    BK_TRY(bk_file_complete((bk_file *)f, opt));
    bk_scene *s = bk_scene_new();
    if (!s) return BK_ENOMEM;
    bk_options so = ctx.opt;
    so.diag = NULL;   /* what the collision model leaves out is said by convert --collision */
    bk_result r = bk_scene_add_collision(f, &so, s, f->family->collision);
    walk_input w = {0};
    float mins[3], maxs[3];
    uint32_t all = 0;
    if (r == BK_OK) r = gather(s, &w, mins, maxs, &all);
    bk_scene_free(s);
    if (r == BK_OK && w.nt) drop_lid(&w, maxs[2]);
    if (r == BK_OK && !w.nt && !w.np)
        r = bk_report(&ctx, BK_SEV_ERROR, BK_EFORMAT, "navmesh", BK_NO_INDEX, BK_NO_OFFSET,
                      "no solid geometry to walk on (%u collision triangles, none solid to a player)", all);
    bk_navmesh *m = NULL;
    if (r == BK_OK) {
        m = bk_calloc(1, sizeof *m);
        if (!m) r = BK_ENOMEM;
    }
    if (r == BK_OK) {
        bk_nav_shim_cfg c;
        memset(&c, 0, sizeof c);
        c.radius = a.radius, c.height = a.height, c.climb = a.step, c.slope = a.slope;
        /* voxels: half the radius across (Recast.h advises radius/2..radius/3), 2 units up so that
         * 18-unit steps are 9 whole cells; coarser up where a span's 13 height bits would not reach
         * the map's full height (RC_SPAN_HEIGHT_BITS) */
        c.cell_size = fmaxf(a.radius / 2.0f, 1.0f);
        c.cell_height = fmaxf(2.0f, (maxs[2] - mins[2] + 64.0f) / 8000.0f);
        if (a.step > 0 && c.cell_height > a.step) c.cell_height = a.step;
        c.tile_cells = 64;
        c.lid = maxs[2] - 0.5f;
        float lo[3] = {mins[0], mins[1], mins[2] - 8.0f}, hi[3] = {maxs[0], maxs[1], maxs[2] + 8.0f};
        float p0[3], p1[3];
        to_rc(lo, p0);
        to_rc(hi, p1);
        for (int k = 0; k < 3; k++) c.bmin[k] = fminf(p0[k], p1[k]), c.bmax[k] = fmaxf(p0[k], p1[k]);
        bk_nav_shim_stats st;
        char err[300];
        bk_nav_shim_input in = {w.v, (int)w.nv, w.t, (int)w.nt, w.pl, w.first, w.count, w.box, (int)w.np};
        int e = bk_nav_shim_build(&in, &c, &m->shim, &st, err, sizeof err);
        if (e) {
            r = e == -2 ? BK_ENOMEM : e == -3 ? BK_ELIMIT : BK_EFORMAT;
            bk_report(&ctx, BK_SEV_ERROR, r, "navmesh", BK_NO_INDEX, BK_NO_OFFSET, "%s", err);
        } else {
            m->agent = a;
            m->st.tiles = st.tiles, m->st.tiles_x = st.tiles_x, m->st.tiles_y = st.tiles_z;
            m->st.polygons = st.polys, m->st.vertices = st.verts;
            m->st.input_triangles = w.nt, m->st.walkable_triangles = st.walkable_tris;
            m->st.input_solids = w.np;
            m->st.cell_size = c.cell_size, m->st.cell_height = c.cell_height;
            memcpy(m->st.mins, mins, sizeof mins);
            memcpy(m->st.maxs, maxs, sizeof maxs);
        }
    }
    bk_free(w.v);
    bk_free(w.t);
    bk_free(w.pl);
    bk_free(w.box);
    bk_free(w.first);
    bk_free(w.count);
    if (r != BK_OK) {
        bk_navmesh_free(m);
        return r;
    }
    *out = m;
    return BK_OK;
}

void bk_navmesh_free(bk_navmesh *m)
{
    if (!m) return;
    bk_nav_shim_free(m->shim);
    bk_free(m);
}

void bk_navmesh_stats(const bk_navmesh *m, bk_nav_stats *out)
{
    if (m && out) *out = m->st;
}

typedef struct poly_pass {
    bk_nav_poly_fn fn;
    void *user;
} poly_pass;

static void poly_cb(void *user, const float *v, int nv, int area, int tile)
{
    poly_pass *pp = user;
    float z[6 * 3];
    for (int i = 0; i < nv && i < 6; i++) from_rc(&v[i * 3], &z[i * 3]);
    pp->fn(pp->user, z, (uint32_t)nv, (uint32_t)area, (uint32_t)tile);
}

void bk_navmesh_polygons(const bk_navmesh *m, bk_nav_poly_fn fn, void *user)
{
    if (!m || !fn) return;
    poly_pass pp = {fn, user};
    bk_nav_shim_polys(m->shim, poly_cb, &pp);
}

bk_result bk_navmesh_save(const bk_navmesh *m, uint8_t **data, size_t *size)
{
    if (!m || !data || !size) return BK_EARG;
    uint8_t *raw = NULL;
    size_t n = 0;
    if (bk_nav_shim_save(m->shim, &raw, &n)) return BK_ENOMEM;
    *data = bk_malloc(n);
    if (*data) memcpy(*data, raw, n);
    free(raw);
    *size = *data ? n : 0;
    return *data ? BK_OK : BK_ENOMEM;
}

bk_result bk_navmesh_nearest(const bk_navmesh *m, const float p[3], float dxy, float dz, float out[3])
{
    if (!m || !p || !out || !(dxy > 0) || !(dz > 0)) return BK_EARG;
    float q[3], ext[3] = {dxy, dz, dxy}, o[3];
    to_rc(p, q);
    if (bk_nav_shim_nearest(m->shim, q, ext, o)) return BK_ENOTFOUND;
    from_rc(o, out);
    return BK_OK;
}

bk_result bk_navmesh_path(const bk_navmesh *m, const float a[3], const float b[3], float **points, uint32_t *count,
                          float *length, bool *reached)
{
    if (!m || !a || !b || !points || !count || !length) return BK_EARG;
    *points = NULL, *count = 0, *length = 0;
    if (reached) *reached = false;
    float ra[3], rb[3], ext[3] = {2 * m->agent.radius, m->agent.height, 2 * m->agent.radius};
    to_rc(a, ra);
    to_rc(b, rb);
    float *pts = NULL;
    int n = 0;
    int e = bk_nav_shim_path(m->shim, ra, rb, ext, &pts, &n);
    if (e == -2) return BK_ENOMEM;
    if (e == -1) {
        free(pts);
        return BK_ENOTFOUND;
    }
    float *o = bk_malloc(sizeof(float) * 3 * (size_t)(n ? n : 1));
    if (!o) {
        free(pts);
        return BK_ENOMEM;
    }
    double len = 0;
    for (int i = 0; i < n; i++) {
        from_rc(&pts[i * 3], &o[i * 3]);
        if (i) {
            double d[3] = {o[i * 3] - o[i * 3 - 3], o[i * 3 + 1] - o[i * 3 - 2], o[i * 3 + 2] - o[i * 3 - 1]};
            len += sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        }
    }
    free(pts);
    *points = o, *count = (uint32_t)n, *length = (float)len;
    if (reached) *reached = e == 0;
    return e == 0 ? BK_OK : BK_ENOTFOUND;
}

#else /* built without Recast/Detour: every call says so */

bool bk_nav_available(void) { return false; }
const char *bk_nav_unavailable_reason(void)
{
    return "this bspkit was built without Recast/Detour (apt-get install librecast-dev, then rebuild)";
}
bk_result bk_navmesh_build(const bk_file *f, const bk_options *opt, const bk_nav_agent *a, bk_navmesh **out)
{
    (void)f, (void)opt, (void)a;
    if (out) *out = NULL;
    return BK_EUNSUPPORTED;
}
void bk_navmesh_free(bk_navmesh *m) { (void)m; }
void bk_navmesh_stats(const bk_navmesh *m, bk_nav_stats *out) { (void)m, (void)out; }
void bk_navmesh_polygons(const bk_navmesh *m, bk_nav_poly_fn fn, void *user) { (void)m, (void)fn, (void)user; }
bk_result bk_navmesh_save(const bk_navmesh *m, uint8_t **data, size_t *size)
{
    (void)m, (void)data, (void)size;
    return BK_EUNSUPPORTED;
}
bk_result bk_navmesh_nearest(const bk_navmesh *m, const float p[3], float dxy, float dz, float out[3])
{
    (void)m, (void)p, (void)dxy, (void)dz, (void)out;
    return BK_EUNSUPPORTED;
}
bk_result bk_navmesh_path(const bk_navmesh *m, const float a[3], const float b[3], float **points, uint32_t *count,
                          float *length, bool *reached)
{
    (void)m, (void)a, (void)b, (void)points, (void)count, (void)length, (void)reached;
    return BK_EUNSUPPORTED;
}

#endif
