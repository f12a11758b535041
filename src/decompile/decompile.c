/* bk_decompile, the front door: the family's op fills the neutral brush model, the writer of the
 * asked format turns it into text. And the model's shared steps: each brush's face polygons (its
 * sides clipped by each other, in double precision), bevel sides and brushes that do not close
 * found from them, the three points written for each side. */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "decompile.h"

#define BIG 1048576.0   /* half the side of the square a face polygon is cut from */
#define MAXV 256        /* vertices of one face polygon */
#define CLIP_EPS 1e-6
#define FACE_WIDTH 0.01 /* a face narrower than this (area / longest edge, units) is none: a bevel
                         * touching an edge, off it by the float planes' rounding */

/* ---- filling ------------------------------------------------------------------------------ */
#define GROW(m, arr, count, cap, n)                                                               \
    bk_grow((void **)&(m)->arr, &(m)->cap, (m)->count + (n), sizeof *(m)->arr)

bk_result bk_dmap_entity(bk_dmap *m, const bk_entity *src, const char *classname, uint32_t *index)
{
    BK_TRY(GROW(m, ents, ent_count, ent_cap, 1));
    bk_dentity *e = &m->ents[m->ent_count];
    memset(e, 0, sizeof *e);
    e->src = src;
    e->classname = classname;
    e->first_kv = m->kv_count;
    e->first_ref = m->ref_count;
    *index = m->ent_count++;
    return BK_OK;
}

bk_result bk_dmap_kv(bk_dmap *m, uint32_t ent, const char *key, const char *fmt, ...)
{
    if (ent + 1 != m->ent_count || m->ents[ent].first_kv + m->ents[ent].kv_count != m->kv_count) return BK_EARG;
    BK_TRY(GROW(m, kvs, kv_count, kv_cap, 1));
    if (m->strs.size > UINT32_MAX / 2) return BK_ELIMIT;
    uint32_t k = (uint32_t)m->strs.size;
    bk_buf_append(&m->strs, key, strlen(key) + 1);
    uint32_t v = (uint32_t)m->strs.size;
    va_list ap;
    va_start(ap, fmt);
    char small[256];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) return BK_EARG;
    if ((size_t)n < sizeof small) {
        bk_buf_append(&m->strs, small, (size_t)n + 1);
    } else {
        char *big = bk_malloc((size_t)n + 1);
        if (!big) return BK_ENOMEM;
        va_start(ap, fmt);
        vsnprintf(big, (size_t)n + 1, fmt, ap);
        va_end(ap);
        bk_buf_append(&m->strs, big, (size_t)n + 1);
        bk_free(big);
    }
    if (m->strs.failed) return BK_ENOMEM;
    m->kvs[m->kv_count][0] = k;
    m->kvs[m->kv_count++][1] = v;
    m->ents[ent].kv_count++;
    return BK_OK;
}

bk_result bk_dmap_ref(bk_dmap *m, uint32_t ent, uint32_t side)
{
    if (ent + 1 != m->ent_count || side >= m->side_count) return BK_EARG;
    BK_TRY(GROW(m, refs, ref_count, ref_cap, 1));
    m->refs[m->ref_count++] = side;
    m->ents[ent].ref_count++;
    return BK_OK;
}

const char *bk_dentity_class(const bk_dentity *e)
{
    const char *cn = e->src ? bk_entity_get(e->src, "classname") : e->classname;
    return cn ? cn : "";
}

int32_t bk_dentity_model(const bk_entity *e, uint32_t model_count)
{
    const char *v = bk_entity_get(e, "model");
    if (!v || v[0] != '*') return -1;
    char *end;
    long n = strtol(v + 1, &end, 10);
    return *end || n < 1 || (uint64_t)n >= model_count ? -1 : (int32_t)n;
}

bool bk_dentity_origin(const bk_entity *e, double o[3])
{
    const char *v = bk_entity_get(e, "origin");
    float f[3];
    o[0] = o[1] = o[2] = 0;
    if (!v || !bk_parse_vec3(v, f)) return false;
    for (int k = 0; k < 3; k++) o[k] = f[k];
    return true;
}

bk_result bk_dmap_models_by_entity(bk_dmap *m, const bk_file *f, uint32_t model_count, const char *orphan_class,
                                   bk_dmodel_fn add, void *ctx)
{
    const bk_entities *es = bk_file_entities(f);
    bool *used = bk_calloc(model_count ? model_count : 1, 1);
    if (!used) return BK_ENOMEM;
    bk_result r = BK_OK;
    for (uint32_t i = 0; r == BK_OK && es && i < es->count; i++) {
        const bk_entity *e = &es->items[i];
        const char *cn = bk_entity_get(e, "classname");
        bool world = cn && strcmp(cn, "worldspawn") == 0;
        uint32_t ent;
        r = bk_dmap_entity(m, e, NULL, &ent);
        if (r != BK_OK) break;
        int32_t model = world ? 0 : bk_dentity_model(e, model_count);
        if (model < 0 || (uint32_t)model >= model_count) continue;
        if (used[model]) {
            bk_report(&m->ctx, BK_SEV_WARNING, BK_EFORMAT, "entities", i, e->offset,
                      "model *%d is named by an earlier entity too: its brushes are written once", model);
            continue;
        }
        used[model] = true;
        double o[3] = {0, 0, 0};
        if (!world) bk_dentity_origin(e, o);
        memcpy(m->ents[ent].origin, o, sizeof o);
        r = add(ctx, (uint32_t)model, ent, o);
    }
    /* a world without a worldspawn entity (or models no entity names) still has its brushes */
    for (uint32_t mi = 0; r == BK_OK && mi < model_count; mi++) {
        if (used[mi]) continue;
        uint32_t ent;
        r = bk_dmap_entity(m, NULL, mi ? orphan_class : "worldspawn", &ent);
        if (r == BK_OK) {
            if (mi) bk_report(&m->ctx, BK_SEV_WARNING, BK_ENOTFOUND, "models", mi, BK_NO_OFFSET,
                              "model *%u is named by no entity: written as a %s", mi, orphan_class);
            r = add(ctx, mi, ent, (double[3]){0, 0, 0});
        }
    }
    bk_free(used);
    return r;
}

uint32_t bk_dmap_world(const bk_dmap *m)
{
    for (uint32_t i = 0; i < m->ent_count; i++)
        if (strcmp(bk_dentity_class(&m->ents[i]), "worldspawn") == 0) return i;
    return 0;
}

void bk_dmap_brush_begin(bk_dmap *m) { m->open_side = m->side_count; }

bk_result bk_dmap_side(bk_dmap *m, const float n[3], float d, uint32_t src, bk_dside **out)
{
    BK_TRY(GROW(m, sides, side_count, side_cap, 1));
    bk_dside *s = &m->sides[m->side_count++];
    memset(s, 0, sizeof *s);
    for (int k = 0; k < 3; k++) s->n[k] = n[k];
    s->d = d;
    s->src = src;
    if (out) *out = s;
    return BK_OK;
}

static double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static void cross3(const double a[3], const double b[3], double o[3])
{
    o[0] = a[1] * b[2] - a[2] * b[1], o[1] = a[2] * b[0] - a[0] * b[2], o[2] = a[0] * b[1] - a[1] * b[0];
}

/* a big square on the plane, wound counter-clockwise seen from the side n points to */
int bk_dpoly_square(const double n[3], double d, double v[][3])
{
    int ax = 0;
    for (int k = 1; k < 3; k++)
        if (fabs(n[k]) > fabs(n[ax])) ax = k;
    double up[3] = {0, 0, 0};
    up[ax == 2 ? 0 : 2] = 1;
    double dd = dot3(up, n);
    for (int k = 0; k < 3; k++) up[k] -= dd * n[k];
    double l = sqrt(dot3(up, up));
    for (int k = 0; k < 3; k++) up[k] /= l;
    double rt[3];
    cross3(up, n, rt);
    for (int k = 0; k < 3; k++) {
        double c = n[k] * d;
        v[0][k] = c - rt[k] * BIG - up[k] * BIG;
        v[1][k] = c + rt[k] * BIG - up[k] * BIG;
        v[2][k] = c + rt[k] * BIG + up[k] * BIG;
        v[3][k] = c - rt[k] * BIG + up[k] * BIG;
    }
    return 4;
}

int bk_dpoly_clip(double v[][3], int n, const double pn[3], double pd, double out[][3], int cap)
{
    double dist[BK_DPOLY_MAX];
    int o = 0;
    if (cap > BK_DPOLY_MAX) cap = BK_DPOLY_MAX;
    if (n > cap) n = cap;
    for (int i = 0; i < n; i++) dist[i] = dot3(pn, v[i]) - pd;
    for (int i = 0; i < n && o < cap - 1; i++) {
        int j = (i + 1) % n;
        if (dist[i] <= CLIP_EPS) memcpy(out[o++], v[i], sizeof v[i]);
        if ((dist[i] < -CLIP_EPS && dist[j] > CLIP_EPS) || (dist[i] > CLIP_EPS && dist[j] < -CLIP_EPS)) {
            double t = dist[i] / (dist[i] - dist[j]);
            for (int k = 0; k < 3; k++) out[o][k] = v[i][k] + t * (v[j][k] - v[i][k]);
            o++;
        }
    }
    return o;
}

static double poly_area(double v[][3], int n, const double nrm[3]);

/* area over longest edge: about the narrow side of a sliver */
static double poly_width(double v[][3], int n, const double nrm[3])
{
    double longest = 0;
    for (int i = 0; i < n; i++) {
        const double *a = v[i], *b = v[(i + 1) % n];
        double e[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        longest = fmax(longest, sqrt(dot3(e, e)));
    }
    return longest > 0 ? poly_area(v, n, nrm) / longest : 0;
}

static double poly_area(double v[][3], int n, const double nrm[3])
{
    double sum[3] = {0, 0, 0};
    for (int i = 1; i + 1 < n; i++) {
        double a[3], b[3], c[3];
        for (int k = 0; k < 3; k++) a[k] = v[i][k] - v[0][k], b[k] = v[i + 1][k] - v[0][k];
        cross3(a, b, c);
        for (int k = 0; k < 3; k++) sum[k] += c[k];
    }
    return fabs(dot3(sum, nrm)) * 0.5;
}

/* each side's face polygon into m->wv (wv_count UINT32_MAX: no face, or a flagged bevel); the
 * faces found, and whether one reaches the far away (the planes do not close) */
static bk_result brush_faces(bk_dmap *m, uint32_t first, uint32_t count, const bool *bevel_flag, uint32_t *faces,
                             bool *open)
{
    static _Thread_local double a[MAXV][3], b[MAXV][3];
    *faces = 0;
    *open = false;
    for (uint32_t i = 0; i < count; i++) {
        bk_dside *s = &m->sides[first + i];
        s->wv_count = UINT32_MAX;
        if (bevel_flag && bevel_flag[i]) continue;
        int n = bk_dpoly_square(s->n, s->d, a);
        for (uint32_t j = 0; j < count && n >= 3; j++) {
            const bk_dside *c = &m->sides[first + j];
            if (j == i || (bevel_flag && bevel_flag[j])) continue;
            /* the same plane twice: the first one carries the face */
            if (fabs(c->d - s->d) < 1e-4 && dot3(c->n, s->n) > 1 - 1e-9) {
                if (j < i) n = 0;
                continue;
            }
            n = bk_dpoly_clip(a, n, c->n, c->d, b, MAXV);
            memcpy(a, b, sizeof a[0] * (size_t)n);
        }
        if (n < 3 || poly_width(a, n, s->n) < FACE_WIDTH) continue;
        for (int k = 0; k < n; k++)
            for (int c = 0; c < 3; c++)
                if (fabs(a[k][c]) > BIG * 0.5) *open = true;
        BK_TRY(GROW(m, wv, wv_count, wv_cap, (uint32_t)n));
        s->first_wv = m->wv_count;
        s->wv_count = (uint32_t)n;
        memcpy(m->wv[m->wv_count], a, sizeof a[0] * (size_t)n);
        m->wv_count += (uint32_t)n;
        (*faces)++;
    }
    return BK_OK;
}

bk_result bk_dmap_brush_end(bk_dmap *m, uint32_t src, uint32_t entity, const bool *bevel_flag, bool *kept)
{
    uint32_t first = m->open_side, count = m->side_count - first;
    uint32_t wv_start = m->wv_count, faces;
    bool open;
    *kept = false;
    BK_TRY(brush_faces(m, first, count, bevel_flag, &faces, &open));
    if (bevel_flag && (faces < 4 || open)) {
        /* a side the compiler flagged as its bevel is one the brush needs (seen in newer vbsp
         * builds): the sides are told apart by their faces alone */
        m->wv_count = wv_start;
        BK_TRY(brush_faces(m, first, count, NULL, &faces, &open));
        if (faces >= 4 && !open) m->stats.bevel_flags_ignored++;
    }
    if (faces < 4 || open) {
        bk_report(&m->ctx, BK_SEV_WARNING, BK_EFORMAT, m->brush_lump, src, BK_NO_OFFSET,
                  faces < 4 ? "brush %u: its %u planes enclose nothing (%u faces): left out"
                            : "brush %u: its %u planes do not close it (open towards the far away): left out",
                  src, count, faces);
        m->stats.brushes_dropped++;
        m->side_count = first;
        m->wv_count = wv_start;
        return BK_OK;
    }
    /* the sides with a face, in order */
    uint32_t w = first;
    for (uint32_t i = first; i < first + count; i++)
        if (m->sides[i].wv_count != UINT32_MAX) m->sides[w++] = m->sides[i];
    m->side_count = w;
    m->stats.bevels_dropped += count - (w - first);
    BK_TRY(GROW(m, brushes, brush_count, brush_cap, 1));
    m->brushes[m->brush_count++] = (bk_dbrush){first, w - first, src, entity};
    *kept = true;
    return BK_OK;
}

void bk_dmap_translate(bk_dmap *m, uint32_t first, uint32_t end, uint32_t pfirst, uint32_t pend, const double o[3])
{
    if (!o[0] && !o[1] && !o[2]) return;
    for (uint32_t b = first; b < end; b++)
        for (uint32_t i = 0; i < m->brushes[b].side_count; i++) {
            bk_dside *s = &m->sides[m->brushes[b].first_side + i];
            s->d += dot3(s->n, o);
            for (uint32_t k = 0; k < s->wv_count; k++)
                for (int c = 0; c < 3; c++) m->wv[s->first_wv + k][c] += o[c];
        }
    for (uint32_t p = pfirst; p < pend; p++) {
        const bk_dpatch *pa = &m->patches[p];
        for (uint32_t k = 0; k < pa->w * pa->h; k++)
            for (int c = 0; c < 3; c++) m->points[pa->first_point + k].xyz[c] += o[c];
    }
}

bk_result bk_dmap_patch(bk_dmap *m, const char *material, uint32_t w, uint32_t h, uint32_t src, uint32_t entity,
                        bk_dpoint **points)
{
    BK_TRY(GROW(m, patches, patch_count, patch_cap, 1));
    BK_TRY(GROW(m, points, point_count, point_cap, w * h));
    m->patches[m->patch_count++] = (bk_dpatch){material, w, h, m->point_count, src, entity};
    *points = &m->points[m->point_count];
    m->point_count += w * h;
    return BK_OK;
}

bool bk_dside_contains(const bk_dmap *m, const bk_dside *s, const double p[3], double eps)
{
    const double(*v)[3] = (const double(*)[3])m->wv + s->first_wv;
    uint32_t n = s->wv_count;
    for (uint32_t i = 0; i < n; i++) {
        const double *a = v[i], *b = v[(i + 1) % n];
        double e[3], c[3], ap[3];
        for (int k = 0; k < 3; k++) e[k] = b[k] - a[k], ap[k] = p[k] - a[k];
        double len = sqrt(dot3(e, e));
        if (len < 1e-9) continue;
        cross3(e, s->n, c);   /* points out of the polygon for a counter-clockwise winding */
        if (dot3(c, ap) / len > eps) return false;
    }
    return true;
}

void bk_bp_axis_base(const double n_in[3], double s[3], double t[3])
{
    double n[3];
    for (int k = 0; k < 3; k++) n[k] = fabs(n_in[k]) < 1e-6 ? 0.0 : n_in[k];
    double ry = -atan2(n[2], sqrt(n[1] * n[1] + n[0] * n[0]));
    double rz = atan2(n[1], n[0]);
    s[0] = -sin(rz), s[1] = cos(rz), s[2] = 0;
    t[0] = -sin(ry) * cos(rz), t[1] = -sin(ry) * sin(rz), t[2] = -cos(ry);
}

/* ---- three points per side ---------------------------------------------------------------- */
/* the plane of points a b c as the compilers take it: normal (c - a) x (b - a), normalised */
static bool plane_of(const double p[3][3], double n[3], double *d)
{
    double u[3], w[3];
    for (int k = 0; k < 3; k++) u[k] = p[2][k] - p[0][k], w[k] = p[1][k] - p[0][k];
    cross3(u, w, n);
    double l = sqrt(dot3(n, n));
    if (!(l > 1e-12)) return false;
    for (int k = 0; k < 3; k++) n[k] /= l;
    *d = dot3(n, p[0]);
    return true;
}

static bool same_plane(const bk_dside *s, const double p[3][3])
{
    double n[3], d;
    if (!plane_of(p, n, &d)) return false;
    for (int k = 0; k < 3; k++)
        if (fabs(n[k] - s->n[k]) > 1e-6) return false;
    return fabs(d - s->d) < 1e-4;
}

static void side_points(const bk_dmap *m, bk_dside *s)
{
    const double(*v)[3] = (const double(*)[3])m->wv + s->first_wv;
    uint32_t n = s->wv_count, ib = 0, ic = 0;
    double best = -1;
    for (uint32_t i = 1; i < n; i++) {
        double e[3];
        for (int k = 0; k < 3; k++) e[k] = v[i][k] - v[0][k];
        if (dot3(e, e) > best) best = dot3(e, e), ib = i;
    }
    best = -1;
    for (uint32_t i = 1; i < n; i++) {
        double e[3], f[3], c[3];
        for (int k = 0; k < 3; k++) e[k] = v[ib][k] - v[0][k], f[k] = v[i][k] - v[0][k];
        cross3(e, f, c);
        if (dot3(c, c) > best) best = dot3(c, c), ic = i;
    }
    double p[3][3];
    memcpy(p[0], v[0], sizeof p[0]);
    memcpy(p[1], v[ib], sizeof p[0]);
    memcpy(p[2], v[ic], sizeof p[0]);
    double pn[3], pd;
    if (plane_of(p, pn, &pd) && dot3(pn, s->n) < 0) { /* wind them as the compilers read them */
        memcpy(p[1], v[ic], sizeof p[0]);
        memcpy(p[2], v[ib], sizeof p[0]);
    }
    double r[3][3];
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++) r[i][k] = floor(p[i][k] + 0.5);
    s->integer_pts = same_plane(s, r);
    memcpy(s->pts, s->integer_pts ? r : p, sizeof s->pts);
}

/* stable counting sort of n items of size sz by their entity (at entity_at inside each) */
static bk_result by_entity(bk_dmap *m, void *items, uint32_t n, size_t sz, size_t entity_at, bool patches)
{
    uint32_t *start = bk_calloc((size_t)m->ent_count + 1, sizeof *start);
    uint8_t *tmp = bk_malloc(sz * (n ? n : 1));
    if (!start || !tmp) {
        bk_free(start);
        bk_free(tmp);
        return BK_ENOMEM;
    }
    uint8_t *p = items;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t e;
        memcpy(&e, p + i * sz + entity_at, sizeof e);
        start[e + 1]++;
    }
    for (uint32_t e = 0; e < m->ent_count; e++) {
        start[e + 1] += start[e];
        if (patches) m->ents[e].first_patch = start[e], m->ents[e].patch_count = start[e + 1] - start[e];
        else m->ents[e].first_brush = start[e], m->ents[e].brush_count = start[e + 1] - start[e];
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t e;
        memcpy(&e, p + i * sz + entity_at, sizeof e);
        memcpy(tmp + (size_t)start[e]++ * sz, p + i * sz, sz);
    }
    if (n) memcpy(items, tmp, sz * n);
    bk_free(start);
    bk_free(tmp);
    return BK_OK;
}

bk_result bk_dmap_finish(bk_dmap *m)
{
    BK_TRY(by_entity(m, m->brushes, m->brush_count, sizeof *m->brushes, offsetof(bk_dbrush, entity), false));
    BK_TRY(by_entity(m, m->patches, m->patch_count, sizeof *m->patches, offsetof(bk_dpatch, entity), true));
    for (uint32_t i = 0; i < m->side_count; i++) side_points(m, &m->sides[i]);
    m->stats.entities = m->ent_count;
    m->stats.brushes = m->brush_count;
    m->stats.sides = m->side_count;
    m->stats.patches = m->patch_count;
    return BK_OK;
}

/* ---- text ---------------------------------------------------------------------------------- */
void bk_put_num(bk_buf *o, double v, int decimals)
{
    char t[64];
    if (!isfinite(v)) v = 0;
    int n = snprintf(t, sizeof t, "%.*f", decimals, v);
    if (n <= 0 || (size_t)n >= sizeof t) n = snprintf(t, sizeof t, "0");
    /* snprintf follows the C locale the library never changes; drop trailing zeros */
    for (int i = 0; i < n; i++)
        if (t[i] == ',') t[i] = '.';
    if (memchr(t, '.', (size_t)n)) {
        while (n > 0 && t[n - 1] == '0') n--;
        if (n > 0 && t[n - 1] == '.') n--;
    }
    if (n == 2 && t[0] == '-' && t[1] == '0') t[0] = '0', n = 1;
    bk_buf_append(o, t, (size_t)n);
}

void bk_put_points(bk_buf *o, const bk_dside *s, bool vmf)
{
    /* exact points: as many decimals as it takes the plane to read back the same */
    int dec = 0;
    if (!s->integer_pts) {
        static const int tries[] = {3, 6, 9, 12};
        dec = 12;
        for (size_t t = 0; t < BK_ARRAY_LEN(tries); t++) {
            double r[3][3];
            /* the values as printed and read back (printf rounds halves to even) */
            for (int i = 0; i < 3; i++)
                for (int k = 0; k < 3; k++) {
                    char num[64];
                    snprintf(num, sizeof num, "%.*f", tries[t], s->pts[i][k]);
                    r[i][k] = strtod(num, NULL);
                }
            if (same_plane(s, r)) {
                dec = tries[t];
                break;
            }
        }
    }
    for (int i = 0; i < 3; i++) {
        bk_buf_append(o, vmf ? (i ? " (" : "(") : (i ? " ( " : "( "), vmf ? (i ? 2u : 1u) : (i ? 3u : 2u));
        for (int k = 0; k < 3; k++) {
            if (k) bk_buf_append(o, " ", 1);
            bk_put_num(o, s->pts[i][k], dec);
        }
        bk_buf_append(o, vmf ? ")" : " )", vmf ? 1u : 2u);
    }
}

void bk_put_quoted(bk_buf *o, const char *s)
{
    bk_buf_append(o, "\"", 1);
    for (const char *p = s; *p; p++) {
        const char *q = p;
        while (*q && *q != '"' && *q != '\n' && *q != '\r') q++;
        bk_buf_append(o, p, (size_t)(q - p));
        if (!*q) break;
        bk_buf_append(o, *q == '"' ? "'" : " ", 1);
        p = q;
    }
    bk_buf_append(o, "\"", 1);
}

/* ---- the front door ---------------------------------------------------------------------- */
const char *bk_decompile_format_ext(bk_decompile_format fmt)
{
    return fmt == BK_DECOMPILE_VMF ? "vmf"
           : fmt == BK_DECOMPILE_MAP_Q3 || fmt == BK_DECOMPILE_MAP_VALVE || fmt == BK_DECOMPILE_MAP_QUAKE ? "map"
                                                                                                         : NULL;
}

static void dmap_free(bk_dmap *m)
{
    bk_free(m->ents);
    bk_free(m->brushes);
    bk_free(m->sides);
    bk_free(m->wv);
    bk_free(m->patches);
    bk_free(m->points);
    bk_free(m->kvs);
    bk_free(m->refs);
    bk_buf_free(&m->strs);
}

bk_result bk_decompile(const bk_file *f, const bk_options *opt, bk_decompile_format fmt, char **out, size_t *len,
                       bk_decompile_stats *stats)
{
    if (!f || !out) return BK_EARG;
    *out = NULL;
    if (len) *len = 0;
    if (stats) memset(stats, 0, sizeof *stats);
    const bk_family *fam = bk_family_of(f);
    bk_format ff = bk_file_format(f);
    bk_decompile_format own = ff == BK_FORMAT_SOURCE   ? BK_DECOMPILE_VMF
                              : ff == BK_FORMAT_QUAKE3 ? BK_DECOMPILE_MAP_Q3
                              : ff == BK_FORMAT_QUAKE1 || ff == BK_FORMAT_BSP2 || ff == BK_FORMAT_GOLDSRC
                                  ? BK_DECOMPILE_MAP_VALVE
                                  : BK_DECOMPILE_AUTO;
    if (fmt == BK_DECOMPILE_AUTO) fmt = own;
    if (own == BK_DECOMPILE_MAP_VALVE && fmt == BK_DECOMPILE_MAP_QUAKE) own = fmt;   /* the classic axes */
    bk_dmap m;
    memset(&m, 0, sizeof m);
    bk_options o = opt ? *opt : (bk_options){0};
    if (!o.name) o.name = f->name;
    bk_ctx_init(&m.ctx, &o, true);
    m.f = f;
    m.opt = &o;
    m.brush_lump = "brushes";
    if (!fam || !fam->decompile || fmt != own) {
        bk_report(&m.ctx, BK_SEV_ERROR, BK_EUNSUPPORTED, NULL, BK_NO_INDEX, BK_NO_OFFSET,
                  !fam || !fam->decompile ? "decompile: not supported yet for %s maps"
                                          : "decompile: a %s map decompiles to its own family's format",
                  bk_format_name(ff));
        return BK_EUNSUPPORTED;
    }
    m.stats.format = fmt;
    bk_result r = fam->decompile(f, &m);
    bk_buf b = {0};
    if (r == BK_OK) {
        r = bk_dmap_finish(&m);
        if (r == BK_OK)
            r = fmt == BK_DECOMPILE_VMF    ? bk_write_vmf(&m, &b)
                : fmt == BK_DECOMPILE_MAP_Q3 ? bk_write_map_q3(&m, &b)
                                             : bk_write_map_quake(&m, &b, fmt == BK_DECOMPILE_MAP_VALVE);
    }
    if (r == BK_OK) r = bk_buf_take_string(&b, out, len);
    else bk_buf_free(&b);
    if (r == BK_OK && stats) *stats = m.stats;
    dmap_free(&m);
    return r;
}
