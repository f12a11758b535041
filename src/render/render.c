/* bspkit/render.h: views (an eye, a spawn, a model's three-quarter view, a top-down overview), PVS
 * culling from the eye's cluster, the draw order, the picture's size checks and its PNG. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BK_ADVANCED_API /* the speed and memory knobs (bspkit/advanced.h) */
#include "bspkit/advanced.h"
#include "render_internal.h"

#define DEG (3.14159265358979f / 180.0f)

/* ---- player spawns ----------------------------------------------------------------------------- */
/* the game's facts for the scene's format (its version rows: eye height, spawn classes) */
static const bk_game *game_of(const bk_scene *s)
{
    return bk_format_game(bk_format_parse(bk_rt_extra(s->extras, s->extra_count, "format")));
}

static bool is_spawn_class(const bk_game *g, const char *c)
{
    if (!c || !g) return false;
    for (uint32_t i = 0; i < g->spawn_class_count; i++)
        if (strcmp(c, g->spawn_classes[i]) == 0) return true;
    return false;
}

/* bk_render_spawns, and given[i]: whether spawn i says where it looks (an angle or angles key) */
static void spawns(const bk_scene *s, float (*pos)[3], float *yaw, bool *given, uint32_t cap, uint32_t *count)
{
    uint32_t n = 0;
    const bk_game *g = game_of(s);
    float h = g ? g->eye_height : 0;
    for (uint32_t i = 0; i < s->node_count; i++) {
        const bk_node *nd = &s->nodes[i];
        if (!is_spawn_class(g, bk_rt_extra(nd->extras, nd->extra_count, "classname"))) continue;
        if (n < cap) {
            if (pos) {
                const char *o = bk_rt_extra(nd->extras, nd->extra_count, "origin");
                float p[3] = {0, 0, 0};
                if (!o || sscanf(o, "%f %f %f", &p[0], &p[1], &p[2]) != 3)
                    memcpy(p, nd->translation, sizeof p);
                for (int k = 0; k < 3; k++) pos[n][k] = isfinite(p[k]) ? p[k] : 0;
                pos[n][2] += h;
            }
            if (yaw) {
                const char *a = bk_rt_extra(nd->extras, nd->extra_count, "angles");
                const char *a1 = bk_rt_extra(nd->extras, nd->extra_count, "angle");
                float pyr[3] = {0, 0, 0};
                bool has = true;
                if (a && sscanf(a, "%f %f %f", &pyr[0], &pyr[1], &pyr[2]) >= 2) yaw[n] = pyr[1];
                else if (a1) yaw[n] = strtof(a1, NULL);
                else yaw[n] = 0, has = false;
                if (!isfinite(yaw[n])) yaw[n] = 0, has = false;
                if (given) given[n] = has;
            }
        }
        n++;
    }
    *count = n;
}

void bk_render_spawns(const bk_scene *s, float (*pos)[3], float *yaw, uint32_t cap, uint32_t *count)
{
    spawns(s, pos, yaw, NULL, cap, count);
}

/* ---- where a spawn without an angle looks ------------------------------------------------------- */
/* The distance from o along the unit direction d to the nearest opaque, drawn triangle of the
 * world (vis: the PVS flags, or NULL), at most far. Sky and tool faces, the sky box and blended
 * surfaces do not stop it: through them the view goes on. Moller-Trumbore, both sides. */
static float free_distance(const bk_renderer *r, const uint8_t *vis, const float o[3], const float d[3], float far)
{
    float best = far;
    for (uint64_t t = 0; t < r->tri_count; t++) {
        const rtri *tr = &r->tri[t];
        const rmat *m = &r->mat[tr->mat];
        if ((vis && !vis[t]) || tr->follow || tr->sky3d || m->pass != RP_OPAQUE || m->tool) continue;
        const float *a = r->vert[tr->v[0]].p, *b = r->vert[tr->v[1]].p, *c = r->vert[tr->v[2]].p;
        float e1[3], e2[3], s[3], p[3], q[3];
        for (int k = 0; k < 3; k++) e1[k] = b[k] - a[k], e2[k] = c[k] - a[k], s[k] = o[k] - a[k];
        p[0] = d[1] * e2[2] - d[2] * e2[1], p[1] = d[2] * e2[0] - d[0] * e2[2], p[2] = d[0] * e2[1] - d[1] * e2[0];
        float det = e1[0] * p[0] + e1[1] * p[1] + e1[2] * p[2];
        if (fabsf(det) < 1e-9f) continue;
        float inv = 1 / det, u = (s[0] * p[0] + s[1] * p[1] + s[2] * p[2]) * inv;
        if (u < 0 || u > 1) continue;
        q[0] = s[1] * e1[2] - s[2] * e1[1], q[1] = s[2] * e1[0] - s[0] * e1[2], q[2] = s[0] * e1[1] - s[1] * e1[0];
        float w = (d[0] * q[0] + d[1] * q[1] + d[2] * q[2]) * inv;
        if (w < 0 || u + w > 1) continue;
        float dist = (e2[0] * q[0] + e2[1] * q[1] + e2[2] * q[2]) * inv;
        if (dist > 0 && dist < best) best = dist;
    }
    return best;
}

/* The yaw towards the most open direction from eye: 32 level rays, each direction scored by the
 * mean free distance of the rays within a quarter turn's middle half around it (what a 90-degree
 * view mostly shows), capped at the scene's size; ties to the smaller yaw. */
#define OPEN_RAYS 32
static float open_yaw(const bk_renderer *r, const uint8_t *vis, const float eye[3])
{
    float far = 0, dist[OPEN_RAYS];
    for (int k = 0; k < 3; k++) far += (r->maxs[k] - r->mins[k]) * (r->maxs[k] - r->mins[k]);
    far = isfinite(far) && far > 1 ? sqrtf(far) : 1;
    for (int i = 0; i < OPEN_RAYS; i++) {
        float a = (float)i * (360.0f / OPEN_RAYS) * DEG, d[3] = {cosf(a), sinf(a), 0};
        dist[i] = free_distance(r, vis, eye, d, far);
    }
    int best = 0;
    float best_score = -1;
    for (int i = 0; i < OPEN_RAYS; i++) {
        float sum = 0;
        for (int j = -OPEN_RAYS / 16; j <= OPEN_RAYS / 16; j++) sum += dist[(i + j + OPEN_RAYS) % OPEN_RAYS];
        if (sum > best_score * 1.0001f) best_score = sum, best = i;
    }
    return (float)best * (360.0f / OPEN_RAYS);
}

/* ---- draw order -------------------------------------------------------------------------------- */
/* The order cmp_key gives, by an LSD radix sort of (pass, layer, depth) keys, byte by byte: stable,
 * so equal keys keep their triangles' order, as cmp_key's last rule does. A float's bits made to
 * sort as unsigned integers: the sign bit set for positives, every bit flipped for negatives (-0
 * made +0 first: cmp_key finds them equal). false (nothing done) where a key does not fit: a pass
 * or layer out of range, a NaN depth, or no memory; qsort then. */
static uint32_t float_key(float f)
{
    if (f == 0) f = 0;
    uint32_t u;
    memcpy(&u, &f, 4);
    return u & 0x80000000u ? ~u : u | 0x80000000u;
}

typedef struct rkey { uint64_t key; uint64_t at; } rkey;

static bool radix_order(rt_order *k, uint64_t n)
{
    rkey *a = bk_malloc((size_t)n * sizeof *a), *b = bk_malloc((size_t)n * sizeof *b);
    rt_order *o = bk_malloc((size_t)n * sizeof *o);
    bool ok = a && b && o;
    for (uint64_t i = 0; ok && i < n; i++) {
        ok = k[i].pass >= 0 && k[i].pass < 16 && k[i].layer >= 0 && k[i].layer < 4096 && !isnan(k[i].depth);
        a[i].key = (uint64_t)k[i].pass << 44 | (uint64_t)k[i].layer << 32 | float_key(k[i].depth);
        a[i].at = i;
    }
    for (int shift = 0; ok && shift < 48; shift += 8) {
        uint64_t count[256] = {0};
        for (uint64_t i = 0; i < n; i++) count[(a[i].key >> shift) & 255]++;
        if (count[(a[0].key >> shift) & 255] == n) continue;   /* one digit for all: nothing moves */
        uint64_t run = 0;
        for (int d = 0; d < 256; d++) {
            uint64_t c = count[d];
            count[d] = run;
            run += c;
        }
        for (uint64_t i = 0; i < n; i++) b[count[(a[i].key >> shift) & 255]++] = a[i];
        rkey *t = a;
        a = b, b = t;
    }
    if (ok) {
        for (uint64_t i = 0; i < n; i++) o[i] = k[a[i].at];
        memcpy(k, o, (size_t)n * sizeof *o);
    }
    bk_free(a);
    bk_free(b);
    bk_free(o);
    return ok;
}

static int cmp_key(const void *a, const void *b)
{
    const rt_order *x = a, *y = b;
    if (x->pass != y->pass) return x->pass < y->pass ? -1 : 1;
    if (x->layer != y->layer) return x->layer < y->layer ? -1 : 1;
    if (x->depth != y->depth) return x->depth < y->depth ? -1 : 1;
    return x->tri < y->tri ? -1 : (x->tri > y->tri);
}

static bool wanted(const bk_renderer *r, const rt_view *v, uint64_t t)
{
    const rmat *m = &r->mat[r->tri[t].mat];
    if (v->overview && (m->tool || m->pass == RP_SKY || r->tri[t].follow || r->tri[t].sky3d)) return false;
    return !v->vis || v->vis[t];
}

/* every corner of tr outside one of the view's planes, by a margin that no rounding of the clipper
 * (raster.c) can cross: it would clip tr away, so it is not sorted and set up at all */
static bool outside_view(const bk_renderer *r, const rt_view *v, const float planes[6][4], int np, const rtri *tr)
{
    float c[3][3], big = 0;
    for (int i = 0; i < 3; i++) {
        const float *p = r->vert[tr->v[i]].p, *o = tr->follow ? r->sky_origin : v->eye;
        float d[3] = {p[0] - o[0], p[1] - o[1], p[2] - o[2]};
        c[i][0] = d[0] * v->right[0] + d[1] * v->right[1] + d[2] * v->right[2];
        c[i][1] = d[0] * v->up[0] + d[1] * v->up[1] + d[2] * v->up[2];
        c[i][2] = d[0] * v->fwd[0] + d[1] * v->fwd[1] + d[2] * v->fwd[2];
        big = fmaxf(big, fabsf(c[i][0]) + fabsf(c[i][1]) + fabsf(c[i][2]));
    }
    if (!isfinite(big)) return false;
    float margin = 1e-3f + 1e-4f * big;
    for (int k = 0; k < np; k++) {
        const float *pl = planes[k];
        bool out = true;
        for (int i = 0; i < 3 && out; i++)
            out = pl[0] * c[i][0] + pl[1] * c[i][1] + pl[2] * c[i][2] + pl[3] < -margin;
        if (out) return true;
    }
    return false;
}

/* the scene's triangles in the order they are drawn: opaque, sky layers, blended far to near;
 * those wholly outside the view are left out */
bk_result bk_rt_draw_order(const bk_renderer *r, const rt_view *v, rt_order **out, uint64_t *count)
{
    rt_order *k = bk_malloc((size_t)(r->tri_count ? r->tri_count : 1) * sizeof(rt_order));
    if (!k) return BK_ENOMEM;
    uint64_t n = 0;
    bool any3d = false;
    float planes[6][4];
    int np = bk_rt_view_planes(v, planes);
    for (uint64_t t = 0; t < r->tri_count && !any3d; t++) any3d = r->tri[t].sky3d && wanted(r, v, t);
    for (uint64_t t = 0; t < r->tri_count; t++) {
        if (!wanted(r, v, t)) continue;
        const rtri *tr = &r->tri[t];
        if (!v->exhaustive && outside_view(r, v, planes, np, tr)) continue;
        const rmat *m = &r->mat[tr->mat];
        float z = 0;
        if (m->pass != RP_SKY)
            for (int i = 0; i < 3; i++) {
                const float *p = r->vert[tr->v[i]].p;
                z += (p[0] - v->eye[0]) * v->fwd[0] + (p[1] - v->eye[1]) * v->fwd[1] + (p[2] - v->eye[2]) * v->fwd[2];
            }
        if (any3d) {
            /* sky first, then the 3D skybox (its blends after its opaque), then the world, whose
             * depth starts afresh: as the engine draws them */
            k[n].pass = m->pass == RP_SKY ? 0 : tr->sky3d ? 1 : m->pass + 1;
            k[n].layer = m->pass == RP_SKY ? m->sky_layer : (tr->sky3d && m->pass == RP_BLEND);
        } else {
            /* the sky after the opaque surfaces, on the pixels they left empty (the same picture as
             * sky first, under everything, without shading every sky pixel the walls then cover) */
            k[n].pass = m->pass == RP_SKY ? 1 : (m->pass == RP_OPAQUE ? 0 : 2);
            k[n].layer = m->pass == RP_SKY ? m->sky_layer : 0;
        }
        /* sky: in order; opaque: near first (what is hidden fails the depth test before it is
         * shaded); blended: far first */
        k[n].depth = m->pass == RP_OPAQUE ? z : (m->pass == RP_BLEND ? -z : 0);
        k[n].tri = (uint32_t)t;
        n++;
    }
    if (v->exhaustive || n < 256 || !radix_order(k, n)) qsort(k, (size_t)n, sizeof *k, cmp_key);
    *out = k;
    *count = n;
    return BK_OK;
}

/* ---- the renderer -------------------------------------------------------------------------------- */
bk_result bk_renderer_new(const bk_scene *s, const bk_query *q, bk_renderer **out)
{
    *out = NULL;
    if (!s) return BK_EARG;
    bk_renderer *r = bk_calloc(1, sizeof *r);
    if (!r) return BK_ENOMEM;
    r->s = s;
    r->q = q;
    bk_result res = bk_rt_prepare(r);
    if (res != BK_OK) {
        bk_renderer_free(r);
        return res;
    }
    *out = r;
    return BK_OK;
}

void bk_renderer_free(bk_renderer *r)
{
    if (!r) return;
    bk_rt_release(r);
    bk_free(r);
}

static void angles_basis(rt_view *v, float yaw, float pitch)
{
    float cy = cosf(yaw * DEG), sy = sinf(yaw * DEG), cp = cosf(pitch * DEG), sp = sinf(pitch * DEG);
    v->fwd[0] = cp * cy, v->fwd[1] = cp * sy, v->fwd[2] = -sp;
    v->right[0] = sy, v->right[1] = -cy, v->right[2] = 0;
    v->up[0] = sp * cy, v->up[1] = sp * sy, v->up[2] = cp;
}

/* which triangles the eye's PVS holds (NULL: no culling) */
static bk_result pvs_flags(const bk_renderer *r, const float eye[3], bool no_pvs, uint8_t **vis, int32_t *cluster,
                           uint64_t *count)
{
    *vis = NULL;
    *cluster = -1;
    *count = r->tri_count;
    if (!r->q) return BK_OK;
    bk_point_info pi;
    BK_TRY(bk_query_point(r->q, 0, eye, &pi));
    if (pi.contents & BK_CONTENTS_SOLID) return BK_EARG;
    if (pi.cluster < 0 || !r->tri_cluster || no_pvs) return BK_OK;
    *cluster = pi.cluster;
    size_t rb = bk_query_row_bytes(r->q);
    uint8_t *row = bk_malloc(rb ? rb : 1);
    uint8_t *f = bk_malloc((size_t)(r->tri_count ? r->tri_count : 1));
    if (!row || !f) {
        bk_free(row);
        bk_free(f);
        return BK_ENOMEM;
    }
    bk_result res = bk_query_vis_row(r->q, BK_VIS_PVS, pi.cluster, row);
    if (res != BK_OK) memset(row, 0xff, rb);
    uint64_t n = 0;
    for (uint64_t t = 0; t < r->tri_count; t++) {
        const int32_t *c = r->tri_cluster + t * 4;
        bool on = c[0] == -2;
        for (int i = 0; i < 4 && !on; i++)
            on = c[i] >= 0 && (uint32_t)c[i] < r->cluster_count && ((row[c[i] >> 3] >> (c[i] & 7)) & 1);
        f[t] = on;
        n += on;
    }
    bk_free(row);
    *vis = f;
    *count = n;
    return BK_OK;
}

static bk_result check_size(const bk_render_options *o, bool overview, uint32_t *w, uint32_t *h)
{
    *w = o->width, *h = o->height;
    if (*w == 0 && *h == 0) *w = overview ? 1024 : 1280, *h = overview ? 1024 : 720;
    if (*w < 1 || *h < 1 || *w > BK_RENDER_MAX_SIDE || *h > BK_RENDER_MAX_SIDE ||
        (uint64_t)*w * *h > BK_RENDER_MAX_PIXELS)
        return BK_ELIMIT;
    return BK_OK;
}

/* the whole scene from outside, as render.html's default view (direction 1, 0.8, 1.2 in glTF
 * axes: engine x, -z, y ... i.e. from +x, -y, above) */
static void model_view(const bk_renderer *r, rt_view *v, bk_render_info *info)
{
    float c[3], rad = 0;
    for (int k = 0; k < 3; k++) {
        c[k] = (r->mins[k] + r->maxs[k]) / 2;
        rad += (r->maxs[k] - r->mins[k]) * (r->maxs[k] - r->mins[k]);
    }
    rad = sqrtf(rad) / 2;
    if (!(rad > 1e-3f)) rad = 1e-3f;
    float d[3] = {1, -1.2f, 0.8f}, l = sqrtf(1 + 1.44f + 0.64f);
    for (int k = 0; k < 3; k++) v->eye[k] = c[k] + d[k] / l * rad * 1.6f;
    float yaw = atan2f(-d[1], -d[0]) / DEG, pitch = asinf(d[2] / l) / DEG;
    angles_basis(v, yaw, pitch);
    float fy = 25 * DEG;
    v->ty = tanf(fy);
    v->tx = v->ty * (float)v->w / (float)v->h;
    v->znear = rad / 1000;
    info->yaw = yaw, info->pitch = pitch;
}

static bk_result overview_view(const bk_renderer *r, const bk_render_options *o, rt_view *v, bk_render_info *info)
{
    float zmin = r->mins[2], zmax = r->maxs[2];
    if (o->z_range) {
        if (!(o->z_min < o->z_max) || !isfinite(o->z_min) || !isfinite(o->z_max)) return BK_EARG;
        zmin = o->z_min, zmax = o->z_max;
    } else if (r->spawn_count) {
        float (*p)[3] = bk_malloc((size_t)r->spawn_count * sizeof *p);
        if (!p) return BK_ENOMEM;
        uint32_t n;
        bk_render_spawns(r->s, p, NULL, r->spawn_count, &n);
        float top = -INFINITY;
        for (uint32_t i = 0; i < n && i < r->spawn_count; i++) top = fmaxf(top, p[i][2]);
        bk_free(p);
        if (isfinite(top) && top + 128 < zmax) zmax = top + 128;
    }
    v->ortho = v->overview = true;
    float cx = (r->mins[0] + r->maxs[0]) / 2, cy = (r->mins[1] + r->maxs[1]) / 2;
    float ex = (r->maxs[0] - r->mins[0]) * 1.04f + 16, ey = (r->maxs[1] - r->mins[1]) * 1.04f + 16;
    float scale = fmaxf(ex / (float)v->w, ey / (float)v->h);
    v->tx = scale * (float)v->w / 2, v->ty = scale * (float)v->h / 2;
    v->eye[0] = cx, v->eye[1] = cy, v->eye[2] = zmax;
    v->fwd[0] = 0, v->fwd[1] = 0, v->fwd[2] = -1;
    v->right[0] = 1, v->right[1] = 0, v->right[2] = 0;
    v->up[0] = 0, v->up[1] = 1, v->up[2] = 0;
    v->znear = 0, v->zfar = zmax - zmin;
    v->hz0 = zmin, v->hz1 = zmax;
    info->pos_x = cx - v->tx, info->pos_y = cy + v->ty, info->scale = scale;
    info->z_min = zmin, info->z_max = zmax;
    info->pitch = 90;
    return BK_OK;
}

static void mark_spawns(const bk_renderer *r, const bk_render_info *info, uint8_t *rgba)
{
    uint32_t n = r->spawn_count;
    float (*p)[3] = bk_malloc((size_t)(n ? n : 1) * sizeof *p);
    if (!p) return;
    bk_render_spawns(r->s, p, NULL, n, &n);
    for (uint32_t i = 0; i < n && i < r->spawn_count; i++) {
        float px = (p[i][0] - info->pos_x) / info->scale, py = (info->pos_y - p[i][1]) / info->scale;
        for (int dy = -4; dy <= 4; dy++)
            for (int dx = -4; dx <= 4; dx++) {
                if (dx * dx + dy * dy > 16) continue;
                long x = lroundf(px - 0.5f) + dx, y = lroundf(py - 0.5f) + dy;
                if (x < 0 || y < 0 || x >= (long)info->width || y >= (long)info->height) continue;
                uint8_t *q = rgba + ((size_t)y * info->width + (size_t)x) * 4;
                bool rim = dx * dx + dy * dy > 9;
                q[0] = rim ? 0 : 255, q[1] = rim ? 0 : 220, q[2] = rim ? 0 : 40;
            }
    }
    bk_free(p);
}

static bk_result make_view(const bk_renderer *r, const bk_render_options *o, rt_view *v, bk_render_info *info)
{
    bk_render_view kind = o->view;
    if (kind == BK_VIEW_AUTO) kind = r->spawn_count ? BK_VIEW_SPAWN : BK_VIEW_MODEL;
    float fov = o->fov == 0 ? 90 : o->fov;
    if (!(fov >= 1 && fov <= 170)) return BK_EARG;
    v->tx = tanf(fov * DEG / 2);
    v->ty = v->tx * (float)v->h / (float)v->w;
    v->znear = 4;
    if (kind == BK_VIEW_OVERVIEW) return overview_view(r, o, v, info);
    if (kind == BK_VIEW_MODEL) {
        model_view(r, v, info);
        v->model_light = r->spawn_count == 0 && r->q == NULL;
        return BK_OK;
    }
    float yaw = o->yaw, pitch = o->pitch;
    if (kind == BK_VIEW_SPAWN) {
        uint32_t want = o->view == BK_VIEW_AUTO ? 1 : o->spawn;
        if (want < 1 || want > r->spawn_count) return BK_EARG;
        float (*p)[3] = bk_malloc((size_t)r->spawn_count * sizeof *p);
        float *y = bk_malloc((size_t)r->spawn_count * sizeof *y);
        uint32_t n;
        if (!p || !y) {
            bk_free(p);
            bk_free(y);
            return BK_ENOMEM;
        }
        bool *given = bk_malloc((size_t)r->spawn_count * sizeof *given);
        if (!given) {
            bk_free(p);
            bk_free(y);
            return BK_ENOMEM;
        }
        spawns(r->s, p, y, given, r->spawn_count, &n);
        memcpy(v->eye, p[want - 1], sizeof v->eye);
        yaw = y[want - 1], pitch = 0;
        v->open_yaw = !given[want - 1];   /* turned to the most open direction once the PVS is known */
        bk_free(p);
        bk_free(y);
        bk_free(given);
    } else {
        memcpy(v->eye, o->eye, sizeof v->eye);
    }
    if (!isfinite(v->eye[0]) || !isfinite(v->eye[1]) || !isfinite(v->eye[2]) || !isfinite(yaw) || !isfinite(pitch) ||
        fabsf(v->eye[0]) > 1e7f || fabsf(v->eye[1]) > 1e7f || fabsf(v->eye[2]) > 1e7f)
        return BK_EARG;
    angles_basis(v, yaw, pitch);
    info->yaw = yaw, info->pitch = pitch;
    return BK_OK;
}

/* the view o asks for, and which triangles its PVS holds (*vis, NULL: all; bk_free it) */
static bk_result view_of(const bk_renderer *r, const bk_render_options *o, rt_view *v, bk_render_info *ri,
                         uint8_t **vis)
{
    *vis = NULL;
    memset(ri, 0, sizeof *ri);
    memset(v, 0, sizeof *v);
    BK_TRY(check_size(o, o->view == BK_VIEW_OVERVIEW, &v->w, &v->h));
    ri->width = v->w, ri->height = v->h;
    BK_TRY(make_view(r, o, v, ri));
    memcpy(ri->eye, v->eye, sizeof ri->eye);
    ri->triangles = r->tri_count;
    ri->spawn_count = r->spawn_count;
    long cores = bk_cpu_count();
    v->threads = o->threads ? o->threads : (uint32_t)(cores > 0 ? (cores > 64 ? 64 : cores) : 1);
    v->display_gamma = v->overview ? 1 : r->display_gamma;
    ri->cluster = -1;
    ri->triangles_pvs = r->tri_count;
    if (!v->ortho && o->view != BK_VIEW_MODEL && (o->view != BK_VIEW_AUTO || r->spawn_count))
        BK_TRY(pvs_flags(r, v->eye, o->no_pvs, vis, &ri->cluster, &ri->triangles_pvs));
    v->vis = *vis;
    if (v->open_yaw) {
        /* a spawn that says not where it looks: towards the most open direction (not a wall) */
        ri->yaw = open_yaw(r, *vis, v->eye);
        angles_basis(v, ri->yaw, ri->pitch);
    }
    return BK_OK;
}

static const bk_render_options k_default_view;   /* o NULL: every option at its default (zero) */

bk_result bk_renderer_prepare(bk_renderer *r, const bk_render_options *o)
{
    return bk_renderer_prepare_release(r, o, NULL);
}

bk_result bk_renderer_prepare_release(bk_renderer *r, const bk_render_options *o, bk_scene *release)
{
    if (release && release != r->s) return BK_EARG;
    if (!o) o = &k_default_view;
    rt_view v;
    bk_render_info ri;
    uint8_t *vis;
    BK_TRY(view_of(r, o, &v, &ri, &vis));
    bk_result res = bk_rt_load(r, &v, release);
    bk_free(vis);
    return res;
}

bk_result bk_renderer_draw(bk_renderer *r, const bk_render_options *o, uint8_t **rgba, bk_render_info *info)
{
    return bk_rt_draw_view(r, o, false, rgba, info);
}

bk_result bk_rt_draw_view(bk_renderer *r, const bk_render_options *o, bool exhaustive, uint8_t **rgba,
                          bk_render_info *info)
{
    *rgba = NULL;
    if (!o) o = &k_default_view;
    rt_view v;
    bk_render_info ri;
    uint8_t *vis;
    BK_TRY(view_of(r, o, &v, &ri, &vis));
    v.exhaustive = exhaustive;
    uint8_t *px = bk_malloc((size_t)v.w * v.h * 4);
    if (!px) {
        bk_free(vis);
        return BK_ENOMEM;
    }
    bk_result res = bk_rt_draw(r, &v, px, &ri.triangles_drawn);
    bk_free(vis);
    if (res != BK_OK) {
        bk_free(px);
        return res;
    }
    if (v.overview && o->mark_spawns) mark_spawns(r, &ri, px);
    *rgba = px;
    if (info) *info = ri;
    return BK_OK;
}

bk_result bk_render(const bk_scene *s, const bk_query *q, const bk_render_options *o, uint8_t **rgba,
                    bk_render_info *info)
{
    *rgba = NULL;
    bk_renderer *r;
    BK_TRY(bk_renderer_new(s, q, &r));
    bk_result res = bk_renderer_draw(r, o, rgba, info);
    bk_renderer_free(r);
    return res;
}

/* ---- PNG ------------------------------------------------------------------------------------------ */
bk_result bk_write_group_png_rgba(bk_write_group *g, const uint8_t *rgba, uint32_t w, uint32_t h, const char *path)
{
    if (!g || !rgba || !path || !w || !h) return BK_EARG;
    bk_buf b;
    memset(&b, 0, sizeof b);
    bk_result r = bk_png_encode(rgba, w, h, false, 0, &b);
    if (r == BK_OK) r = bk_write_group_file(g, path, b.data, b.size);
    bk_buf_free(&b);
    return r;
}

bk_result bk_write_group_png_rgba_consume(bk_write_group *g, uint8_t *rgba, uint32_t w, uint32_t h,
                                          const char *path)
{
    if (!g || !rgba || !path || !w || !h) return BK_EARG;
    bk_buf b;
    memset(&b, 0, sizeof b);
    bk_result r = bk_png_encode_in_place(rgba, w, h, 0, &b);
    if (r == BK_OK) r = bk_write_group_file(g, path, b.data, b.size);
    bk_buf_free(&b);
    return r;
}

bk_result bk_render_write_png(const uint8_t *rgba, uint32_t w, uint32_t h, const char *path)
{
    bk_write_group *g;
    BK_TRY(bk_write_group_begin(&g, 0));
    bk_result r = bk_write_group_png_rgba(g, rgba, w, h, path);
    if (r != BK_OK) {
        bk_write_group_abort(g);
        return r;
    }
    return bk_write_group_commit(g);
}
