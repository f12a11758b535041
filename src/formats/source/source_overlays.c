/* Source overlays (info_overlay decals, lump 45; water overlays, lump 50): each overlay clipped to
 * the faces of its list, in a node "overlays" ("water_overlays") under the world.
 *
 * A record is Valve's doverlay_t (public/bspfile.h), 352 bytes: int id, short texinfo, ushort face
 * count (low 14 bits) and render order (top 2), int faces[64], float u[2], v[2], Vector
 * uvpoints[4], origin, basis_normal. Water overlays (lump 50, info_overlay_transition: the shore
 * along water) are dwateroverlay_t, the same fields with faces[256] (1120 bytes), drawn the same
 * way in a node "water_overlays". vbsp (utils/vbsp/overlay.cpp) keeps only the normal of the
 * overlay's basis and hides the rest in the corners' unused z: BasisU is (uv0.z, uv1.z, uv2.z), and
 * uv3.z == 1 says BasisV points the other way. The engine builds BasisV = normal x BasisU (negated
 * when flagged), puts corner k at origin + uv_k.x * U + uv_k.y * V and gives it the texture
 * coordinates (u0,v0), (u0,v1), (u1,v1), (u1,v0) for k = 0..3.
 *
 * As the engine does, the quad is not drawn whole but clipped to each face of its list: in the
 * overlay's plane (face points projected along the overlay's normal), the quad with its texture
 * coordinates is cut by the face's polygon, and what is left is carried back along the normal onto
 * the face's plane. On a displacement the quad is cut by each triangle of the undisplaced grid
 * and each point is carried to the displaced triangle at the same barycentric coordinates, so the
 * decal lies on the surface. Pieces are pushed OVERLAY_PUSH units along their face's (or their
 * displaced triangle's) normal so they do not z-fight with it, once more for each step of their
 * render order (0-3: the engine draws a higher order over a lower one on the same face). Overlays with no face are skipped,
 * as the engine skips them; faces seen edge-on from the overlay's normal are skipped. */
#include <math.h>
#include <string.h>

#include "../../scene/scene_build.h"
#include "source_scene.h"

#define OVERLAY_FACES_MAX 256u   /* WATEROVERLAY_BSP_FACE_COUNT; OVERLAY_BSP_FACE_COUNT is 64 */
#define OVERLAY_PUSH 0.1f
#define OVERLAY_MIN_COS 0.01f   /* |face normal . overlay normal| below this: edge-on, skipped */
#define OVERLAY_MIN_AREA 1e-4f  /* pieces smaller than this (square units, overlay plane): dropped */
#define DISP_PIECE_MAX 8u       /* a quad cut by a triangle: 7 points (4 + 3) at most, 8 kept room for */

/* a kind of overlay record: its lump, size and face slots, and the node it is drawn in */
typedef struct ovl_kind {
    const char *lump, *node;
    int lump_index;
    uint32_t size, faces;
} ovl_kind;

static const ovl_kind k_overlays = {"overlays", "overlays", BK_SRC_LUMP_OVERLAYS, 352, 64};
static const ovl_kind k_water_overlays = {"wateroverlays", "water_overlays", BK_SRC_LUMP_WATEROVERLAYS, 1120, 256};

typedef struct overlay {
    int32_t id, texinfo;
    uint32_t face_count, render_order;
    int32_t faces[OVERLAY_FACES_MAX];
    float u[2], v[2], uv[4][3], origin[3], normal[3];
} overlay;

/* the overlay's frame: a world point is o + x u + y v + z n; du, dv give x, y back (dual basis) */
typedef struct frame {
    float o[3], u[3], v[3], n[3], du[3], dv[3];
} frame;

/* a point of a piece: overlay-plane coordinates and texture coordinates */
typedef struct cpt {
    float x, y, s, t;
} cpt;

/* what one overlay's clipping works in: two point buffers of cap points, and a face's polygon */
typedef struct clipbuf {
    cpt *a, *b;
    float *poly;   /* 2 floats per point */
    uint32_t cap;
} clipbuf;

/* where one overlay's pieces go: the mesh "overlays" and a primitive per material, made when the
 * first piece needs them (an overlay cut away entirely leaves nothing behind) */
typedef struct emit_ctx {
    sb *b;
    const char *name;    /* the mesh's */
    int32_t *mesh;       /* -1: not made yet */
    int32_t *prim_of;    /* material -> primitive of the mesh, -1: none yet */
    int32_t texinfo;
    uint32_t pieces;     /* of this overlay */
    float push;          /* off its face: OVERLAY_PUSH a step of render order */
} emit_ctx;

static float dot3(const float *a, const float *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static void cross3(const float *a, const float *b, float *o)
{
    o[0] = a[1] * b[2] - a[2] * b[1], o[1] = a[2] * b[0] - a[0] * b[2], o[2] = a[0] * b[1] - a[1] * b[0];
}

static void read_overlay(const ovl_kind *kd, const uint8_t *r, overlay *o)
{
    o->id = bk_rd_i32le(r);
    o->texinfo = bk_rd_i16le(r + 4);
    uint16_t fc = bk_rd_u16le(r + 6);
    o->face_count = fc & 0x3fffu;
    o->render_order = fc >> 14;
    for (uint32_t k = 0; k < kd->faces; k++) o->faces[k] = bk_rd_i32le(r + 8 + 4 * k);
    const uint8_t *q = r + 8 + 4 * kd->faces;
    o->u[0] = bk_rd_f32le(q), o->u[1] = bk_rd_f32le(q + 4), o->v[0] = bk_rd_f32le(q + 8), o->v[1] = bk_rd_f32le(q + 12);
    q += 16;
    for (int k = 0; k < 4; k++)
        for (int c = 0; c < 3; c++) o->uv[k][c] = bk_rd_f32le(q + 12 * k + 4 * c);
    q += 48;
    for (int c = 0; c < 3; c++) o->origin[c] = bk_rd_f32le(q + 4 * c), o->normal[c] = bk_rd_f32le(q + 12 + 4 * c);
}

/* the overlay's frame and its quad (corners in the plane, texture coordinates); false when the
 * record cannot be drawn */
static bool overlay_frame(const overlay *o, frame *fr, cpt quad[4])
{
    float len = sqrtf(dot3(o->normal, o->normal));
    if (!(len > 1e-6f) || !isfinite(len)) return false;
    for (int c = 0; c < 3; c++) fr->o[c] = o->origin[c], fr->n[c] = o->normal[c] / len, fr->u[c] = o->uv[c][2];
    cross3(o->normal, fr->u, fr->v);
    if (o->uv[3][2] == 1.0f)
        for (int c = 0; c < 3; c++) fr->v[c] = -fr->v[c];
    float vn[3], nu[3];
    cross3(fr->v, fr->n, vn);
    cross3(fr->n, fr->u, nu);
    float det = dot3(fr->u, vn);
    if (!(fabsf(det) > 1e-6f) || !isfinite(det)) return false;
    for (int c = 0; c < 3; c++) fr->du[c] = vn[c] / det, fr->dv[c] = nu[c] / det;
    const float st[4][2] = {{o->u[0], o->v[0]}, {o->u[0], o->v[1]}, {o->u[1], o->v[1]}, {o->u[1], o->v[0]}};
    for (int k = 0; k < 4; k++) {
        quad[k] = (cpt){o->uv[k][0], o->uv[k][1], st[k][0], st[k][1]};
        if (!isfinite(quad[k].x) || !isfinite(quad[k].y) || !isfinite(quad[k].s) || !isfinite(quad[k].t)) return false;
    }
    for (int c = 0; c < 3; c++)
        if (!isfinite(fr->o[c]) || !isfinite(fr->du[c]) || !isfinite(fr->dv[c])) return false;
    return true;
}

/* a world point in the overlay's plane coordinates (projected along its normal) */
static void to_plane(const frame *fr, const float *w, float *xy)
{
    float d[3] = {w[0] - fr->o[0], w[1] - fr->o[1], w[2] - fr->o[2]};
    xy[0] = dot3(d, fr->du), xy[1] = dot3(d, fr->dv);
}

/* twice the signed area of polygon pts (2 floats a point) */
static float area2(const float *pts, uint32_t n)
{
    double a = 0;
    for (uint32_t k = 0; k < n; k++) {
        const float *p = &pts[k * 2], *q = &pts[((k + 1) % n) * 2];
        a += (double)p[0] * q[1] - (double)q[0] * p[1];
    }
    return (float)a;
}

/* the part of polygon in (n points) inside the convex polygon poly (m points, either winding), in
 * cb->a; its point count (0: nothing left). The texture coordinates are interpolated where an edge
 * is cut. Sutherland-Hodgman: one half-plane per edge of poly, each adding at most one point to a
 * convex polygon; a hostile quad that is not convex can gain more, and is dropped past max points
 * (cb holds max). */
static uint32_t clip_convex(clipbuf *cb, const cpt *in, uint32_t n, const float *poly, uint32_t m, uint32_t max)
{
    float sense = area2(poly, m) > 0 ? 1.0f : -1.0f;
    if (in != cb->a) memcpy(cb->a, in, n * sizeof *in);
    for (uint32_t e = 0; e < m && n >= 3; e++) {
        const float *p0 = &poly[e * 2], *p1 = &poly[((e + 1) % m) * 2];
        float ex = p1[0] - p0[0], ey = p1[1] - p0[1];
        uint32_t out = 0;
        for (uint32_t k = 0; k < n; k++) {
            const cpt *c = &cb->a[k], *d = &cb->a[(k + 1) % n];
            float sc = sense * (ex * (c->y - p0[1]) - ey * (c->x - p0[0]));
            float sd = sense * (ex * (d->y - p0[1]) - ey * (d->x - p0[0]));
            if (out + 2 > max) return 0;
            if (sc >= 0) cb->b[out++] = *c;
            if ((sc >= 0) != (sd >= 0)) {
                float t = sc / (sc - sd);
                cb->b[out++] = (cpt){c->x + (d->x - c->x) * t, c->y + (d->y - c->y) * t, c->s + (d->s - c->s) * t,
                                     c->t + (d->t - c->t) * t};
            }
        }
        cpt *sw = cb->a;
        cb->a = cb->b, cb->b = sw;
        n = out;
    }
    if (n < 3) return 0;
    float a = 0;
    for (uint32_t k = 0; k < n; k++) {
        const cpt *c = &cb->a[k], *d = &cb->a[(k + 1) % n];
        a += c->x * d->y - d->x * c->y;
    }
    return fabsf(a) * 0.5f >= OVERLAY_MIN_AREA ? n : 0;
}

static bk_result clipbuf_reserve(clipbuf *cb, uint32_t points)
{
    if (points <= cb->cap) return BK_OK;
    cpt *a = bk_realloc(cb->a, (size_t)points * sizeof *a);
    if (!a) return BK_ENOMEM;
    cb->a = a;
    cpt *b2 = bk_realloc(cb->b, (size_t)points * sizeof *b2);
    if (!b2) return BK_ENOMEM;
    cb->b = b2;
    float *poly = bk_realloc(cb->poly, (size_t)points * 2 * sizeof *poly);
    if (!poly) return BK_ENOMEM;
    cb->poly = poly;
    cb->cap = points;
    return BK_OK;
}

/* lightmap coordinates of pos on planar face fi, kept inside the face's own luxels */
static void overlay_lm_uv(const sb *b, uint32_t fi, const float *pos, float *out)
{
    const bk_source_face *f = &b->faces[fi];
    const bk_source_texinfo *ti = &b->p->texinfo[b->p->faces[fi].texinfo];
    uint32_t x, y;
    bk_atlas_rect(b->atlas, b->face_rect[fi] - 1, &x, &y);
    float l[2];
    for (int a = 0; a < 2; a++) {
        const float *vv = ti->lm_vecs[a];
        l[a] = pos[0] * vv[0] + pos[1] * vv[1] + pos[2] * vv[2] + vv[3] - (float)f->lm_mins[a];
        if (!(l[a] >= 0)) l[a] = 0;
        if (l[a] > (float)f->lm_size[a]) l[a] = (float)f->lm_size[a];
    }
    out[0] = ((float)x + l[0] + 0.5f) / (float)b->atlas_w;
    out[1] = ((float)y + l[1] + 0.5f) / (float)b->atlas_h;
}

/* one piece: n points at pos (pushed already), texture coordinates from pts, lightmap coordinates
 * lm (NULL: none), fanned into triangles counter-clockwise seen from nrm */
static bk_result emit_piece(emit_ctx *ec, const cpt *pts, uint32_t n, const float (*pos)[3], const float (*lm)[2],
                            const float *nrm)
{
    sb *b = ec->b;
    if (b->vertex_budget < n) return BK_ELIMIT;
    b->vertex_budget -= n;
    if (*ec->mesh < 0) BK_TRY(bk_scene_add_mesh(b->s, ec->name, ec->mesh));
    int32_t mat;
    BK_TRY(bk_src_overlay_material(b, ec->texinfo, &mat));
    bk_mesh *m = &b->s->meshes[*ec->mesh];
    if (ec->prim_of[mat] < 0) {
        bk_primitive *np;
        uint32_t attrs = BK_ATTR_NORMAL | BK_ATTR_UV0 | (b->lm_image >= 0 ? BK_ATTR_UV1 : 0);
        BK_TRY(bk_mesh_add_primitive(m, mat, BK_PRIM_TRIANGLES, attrs, &np));
        ec->prim_of[mat] = (int32_t)(m->prim_count - 1);
    }
    bk_primitive *pr = &m->prims[ec->prim_of[mat]];
    uint32_t first;
    BK_TRY(bk_prim_add_vertices(pr, n, &first));
    float nw[3] = {0, 0, 0};
    for (uint32_t k = 0; k < n; k++) {
        uint32_t vi = first + k;
        const float *a = pos[k], *c = pos[(k + 1) % n];
        nw[0] += (a[1] - c[1]) * (a[2] + c[2]);
        nw[1] += (a[2] - c[2]) * (a[0] + c[0]);
        nw[2] += (a[0] - c[0]) * (a[1] + c[1]);
        memcpy(&pr->position[vi * 3], pos[k], sizeof pos[k]);
        memcpy(&pr->normal[vi * 3], nrm, 3 * sizeof *nrm);
        pr->uv0[vi * 2] = pts[k].s, pr->uv0[vi * 2 + 1] = pts[k].t;
        if (pr->uv1) {
            if (lm) memcpy(&pr->uv1[vi * 2], lm[k], sizeof lm[k]);
            else pr->uv1[vi * 2] = pr->uv1[vi * 2 + 1] = 0;
        }
    }
    bool flip = dot3(nw, nrm) < 0;
    for (uint32_t k = 1; k + 1 < n; k++) {
        if (flip) BK_TRY(bk_prim_add_triangle(pr, first, first + k + 1, first + k));
        else BK_TRY(bk_prim_add_triangle(pr, first, first + k, first + k + 1));
    }
    ec->pieces++;
    return BK_OK;
}

/* the overlay on planar face fi: the quad cut by the face's polygon, carried onto its plane */
static bk_result clip_planar(emit_ctx *ec, clipbuf *cb, const frame *fr, const cpt quad[4], uint32_t fi)
{
    sb *b = ec->b;
    const bk_source_map *p = b->p;
    const bk_source_face *f = &p->faces[fi];
    const bk_source_plane *pl = &p->planes[f->planenum];
    float nlen = sqrtf(dot3(pl->normal, pl->normal));
    if (!(nlen > 1e-6f)) return BK_OK;
    float fn[3] = {pl->normal[0] / nlen, pl->normal[1] / nlen, pl->normal[2] / nlen}, fd = pl->dist / nlen;
    float den = dot3(fn, fr->n);
    if (!(fabsf(den) >= OVERLAY_MIN_COS)) return BK_OK;
    uint32_t m = (uint32_t)f->numedges;
    BK_TRY(clipbuf_reserve(cb, m + 5));
    for (uint32_t k = 0; k < m; k++) to_plane(fr, bk_src_face_vertex(p, f, (int32_t)k), &cb->poly[k * 2]);
    uint32_t n = clip_convex(cb, quad, 4, cb->poly, m, m + 5);
    if (!n) return BK_OK;
    float (*pos)[3] = bk_malloc((size_t)n * sizeof *pos);
    float (*lm)[2] = bk_malloc((size_t)n * sizeof *lm);
    bool lit = b->face_rect && b->face_rect[fi];
    bk_result r = pos && lm ? BK_OK : BK_ENOMEM;
    for (uint32_t k = 0; k < n && r == BK_OK; k++) {
        float w[3];
        for (int c = 0; c < 3; c++) w[c] = fr->o[c] + cb->a[k].x * fr->u[c] + cb->a[k].y * fr->v[c];
        float t = (fd - dot3(fn, w)) / den;
        for (int c = 0; c < 3; c++) w[c] += t * fr->n[c];
        if (lit) overlay_lm_uv(b, fi, w, lm[k]);
        for (int c = 0; c < 3; c++) pos[k][c] = w[c] + ec->push * fn[c];
    }
    if (r == BK_OK) r = emit_piece(ec, cb->a, n, (const float(*)[3])pos, lit ? (const float(*)[2])lm : NULL, fn);
    bk_free(pos);
    bk_free(lm);
    return r;
}

/* the pieces of the quad over one triangle of displacement fi: t are grid indices, xy their
 * undisplaced points in the overlay's plane, disp the displaced grid, fn the base face's normal */
static bk_result clip_disp_tri(emit_ctx *ec, clipbuf *cb, const cpt quad[4], uint32_t fi, uint32_t side,
                               const uint32_t t[3], const float *xy, const float *disp, const float *fn)
{
    float tri[6];
    for (int k = 0; k < 3; k++) tri[k * 2] = xy[t[k] * 2], tri[k * 2 + 1] = xy[t[k] * 2 + 1];
    float a2 = area2(tri, 3);
    if (!(fabsf(a2) > 1e-6f)) return BK_OK;
    uint32_t n = clip_convex(cb, quad, 4, tri, 3, DISP_PIECE_MAX);
    if (!n) return BK_OK;
    const float *P[3] = {&disp[t[0] * 3], &disp[t[1] * 3], &disp[t[2] * 3]};
    float e1[3], e2[3], nrm[3];
    for (int c = 0; c < 3; c++) e1[c] = P[1][c] - P[0][c], e2[c] = P[2][c] - P[0][c];
    cross3(e1, e2, nrm);
    float len = sqrtf(dot3(nrm, nrm));
    if (!(len > 1e-6f)) return BK_OK;
    if (dot3(nrm, fn) < 0) len = -len;
    for (int c = 0; c < 3; c++) nrm[c] /= len;
    float pos[DISP_PIECE_MAX][3], lm[DISP_PIECE_MAX][2];
    sb *b = ec->b;
    bool lit = b->face_rect && b->face_rect[fi];
    float inv = 1.0f / (float)(side - 1);
    for (uint32_t k = 0; k < n; k++) {
        /* barycentric coordinates in the undisplaced triangle */
        float l1 = ((cb->a[k].x - tri[0]) * (tri[5] - tri[1]) - (cb->a[k].y - tri[1]) * (tri[4] - tri[0])) / a2;
        float l2 = ((tri[2] - tri[0]) * (cb->a[k].y - tri[1]) - (tri[3] - tri[1]) * (cb->a[k].x - tri[0])) / a2;
        float l0 = 1 - l1 - l2, l[3] = {l0, l1, l2}, gu = 0, gv = 0;
        for (int c = 0; c < 3; c++) pos[k][c] = l0 * P[0][c] + l1 * P[1][c] + l2 * P[2][c] + ec->push * nrm[c];
        for (int j = 0; j < 3; j++) gu += l[j] * (float)(t[j] % side) * inv, gv += l[j] * (float)(t[j] / side) * inv;
        if (lit) bk_src_lm_uv_param(b, fi, gu, gv, lm[k]);
    }
    return emit_piece(ec, cb->a, n, (const float(*)[3])pos, lit ? (const float(*)[2])lm : NULL, nrm);
}

/* the overlay draped over displacement fi: cut by each triangle of its grid */
static bk_result clip_disp(emit_ctx *ec, clipbuf *cb, const frame *fr, const cpt quad[4], uint32_t fi)
{
    const bk_source_map *p = ec->b->p;
    const bk_source_plane *pl = &p->planes[p->faces[fi].planenum];
    float nlen = sqrtf(dot3(pl->normal, pl->normal));
    if (!(nlen > 1e-6f)) return BK_OK;
    float fn[3] = {pl->normal[0] / nlen, pl->normal[1] / nlen, pl->normal[2] / nlen};
    if (!(fabsf(dot3(fn, fr->n)) >= OVERLAY_MIN_COS)) return BK_OK;
    float q[4][3], disp[17 * 17 * 3], base[17 * 17 * 3], xy[17 * 17 * 2];   /* power <= 4 (face_drawn) */
    uint32_t side = bk_src_disp_grid(p, fi, q, disp, base);
    for (uint32_t k = 0; k < side * side; k++) to_plane(fr, &base[k * 3], &xy[k * 2]);
    float lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
    for (int k = 0; k < 4; k++) {
        lo[0] = fminf(lo[0], quad[k].x), hi[0] = fmaxf(hi[0], quad[k].x);
        lo[1] = fminf(lo[1], quad[k].y), hi[1] = fmaxf(hi[1], quad[k].y);
    }
    BK_TRY(clipbuf_reserve(cb, DISP_PIECE_MAX));
    for (uint32_t y = 0; y + 1 < side; y++)
        for (uint32_t x = 0; x + 1 < side; x++) {
            uint32_t t[6];
            bk_src_disp_cell(side, x, y, t);
            for (int h = 0; h < 6; h += 3) {
                bool out = false;
                for (int ax = 0; ax < 2 && !out; ax++) {
                    float a = xy[t[h] * 2 + ax], bb = xy[t[h + 1] * 2 + ax], c = xy[t[h + 2] * 2 + ax];
                    out = fmaxf(a, fmaxf(bb, c)) < lo[ax] || fminf(a, fminf(bb, c)) > hi[ax];
                }
                if (!out) BK_TRY(clip_disp_tri(ec, cb, quad, fi, side, &t[h], xy, disp, fn));
            }
        }
    return BK_OK;
}

/* a warning located at overlay i of kind kd: "overlay ID " then what */
static void warn(sb *b, const ovl_kind *kd, uint32_t i, int32_t id, const char *what)
{
    bk_scene_diag(b->s, b->opt, BK_SEV_WARNING, BK_EFORMAT, NULL, kd->lump, (int64_t)i,
                  (int64_t)(b->p->lumps[kd->lump_index].offset + (uint64_t)i * kd->size), "overlay %d %s", id, what);
}

static bk_result emit_overlay(sb *b, const ovl_kind *kd, int32_t *mesh, int32_t *prim_of, clipbuf *cb,
                              const overlay *o, uint32_t i, uint32_t *drawn)
{
    const bk_source_map *p = b->p;
    frame fr;
    cpt quad[4];
    if (o->texinfo < 0 || (uint32_t)o->texinfo >= p->texinfo_count) {
        warn(b, kd, i, o->id, "has a texinfo out of range: not drawn");
        return BK_OK;
    }
    if (!overlay_frame(o, &fr, quad)) {
        warn(b, kd, i, o->id, "has a degenerate basis or corners that are not finite: not drawn");
        return BK_OK;
    }
    uint32_t nf = o->face_count;
    if (nf > kd->faces) {
        warn(b, kd, i, o->id, kd->faces == 64 ? "has a face count over 64, the most a record holds: its 64 faces are used"
                                             : "has a face count over 256, the most a record holds: its 256 faces are used");
        nf = kd->faces;
    }
    emit_ctx ec = {b, kd->node, mesh, prim_of, o->texinfo, 0, OVERLAY_PUSH * (float)(1 + o->render_order)};
    bool bad_face = false;
    for (uint32_t k = 0; k < nf; k++) {
        int32_t fi = o->faces[k];
        if (fi < 0 || (uint32_t)fi >= p->face_count) {
            if (!bad_face) warn(b, kd, i, o->id, "lists faces out of range: they are skipped");
            bad_face = true;
            continue;
        }
        const bk_source_face *f = &p->faces[fi];
        if (!bk_src_face_drawn(p, f) || f->numedges < 3) continue;
        if (f->dispinfo >= 0) BK_TRY(clip_disp(&ec, cb, &fr, quad, (uint32_t)fi));
        else BK_TRY(clip_planar(&ec, cb, &fr, quad, (uint32_t)fi));
    }
    *drawn += ec.pieces > 0;
    return BK_OK;
}

bk_result bk_src_add_overlays(sb *b, bool water, int32_t world)
{
    const ovl_kind *kd = water ? &k_water_overlays : &k_overlays;
    const bk_source_lump *l = &b->p->lumps[kd->lump_index];
    if (!l->data || l->size < kd->size) return BK_OK;
    uint64_t n = l->size / kd->size;
    if (l->size % kd->size)
        bk_scene_diag(b->s, b->opt, BK_SEV_WARNING, BK_EFORMAT, NULL, kd->lump, BK_NO_INDEX, (int64_t)l->offset,
                      "the lump's %llu bytes are not a whole number of %u-byte records: the rest is ignored",
                      (unsigned long long)l->size, kd->size);
    uint32_t with_faces = 0, drawn = 0;
    for (uint64_t i = 0; i < n; i++) with_faces += (bk_rd_u16le(l->data + i * kd->size + 6) & 0x3fffu) != 0;
    if (!with_faces) return BK_OK;
    int32_t mesh = -1, node;
    /* material -> primitive; materials made here are appended, so the table grows with them */
    uint32_t cap = b->s->material_count + b->p->texdata_count + 2;
    int32_t *prim_of = bk_malloc((size_t)cap * sizeof *prim_of);
    if (!prim_of) return BK_ENOMEM;
    for (uint32_t k = 0; k < cap; k++) prim_of[k] = -1;
    clipbuf cb = {0};
    bk_result r = BK_OK;
    for (uint64_t i = 0; i < n && r == BK_OK; i++) {
        overlay o;
        read_overlay(kd, l->data + i * kd->size, &o);
        if (!o.face_count) continue;
        if (b->s->material_count >= cap) {
            r = BK_EARG;
            break;
        }
        r = emit_overlay(b, kd, &mesh, prim_of, &cb, &o, (uint32_t)i, &drawn);
    }
    bk_free(cb.a);
    bk_free(cb.b);
    bk_free(cb.poly);
    bk_free(prim_of);
    if (r == BK_OK) r = bk_scene_add_node(b->s, kd->node, world, mesh, &node);
    if (r == BK_OK) {
        char cnt[16];
        snprintf(cnt, sizeof cnt, "%u", drawn);
        r = bk_kv_append(&b->s->nodes[node].extras, &b->s->nodes[node].extra_count, "overlay_count", cnt);
    }
    return r;
}
