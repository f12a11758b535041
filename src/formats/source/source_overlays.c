/* Source overlays (info_overlay decals, lump 45): one quad per overlay, in a node "overlays" under
 * the world.
 *
 * A record is Valve's doverlay_t (public/bspfile.h), 352 bytes: int id, short texinfo, ushort face
 * count (low 14 bits) and render order (top 2), int faces[64], float u[2], v[2], Vector
 * uvpoints[4], origin, basis_normal. vbsp (utils/vbsp/overlay.cpp) keeps only the normal of the
 * overlay's basis and hides the rest in the corners' unused z: BasisU is (uv0.z, uv1.z, uv2.z), and
 * uv3.z == 1 says BasisV points the other way. The engine builds BasisV = normal x BasisU (negated
 * when flagged), puts corner k at origin + uv_k.x * U + uv_k.y * V and gives it the texture
 * coordinates (u0,v0), (u0,v1), (u1,v1), (u1,v0) for k = 0..3. It then clips that quad to each
 * face of the list; we do not clip: the whole quad is drawn, pushed OVERLAY_PUSH units along the
 * normal so it does not z-fight with the face under it. Overlays with no face are skipped, as the
 * engine skips them. */
#include <math.h>
#include <string.h>

#include "../../scene/scene_build.h"
#include "source_scene.h"

#define OVERLAY_SIZE 352u
#define OVERLAY_FACES 64u
#define OVERLAY_PUSH 0.1f

typedef struct overlay {
    int32_t id, texinfo;
    uint32_t face_count, render_order;
    int32_t first_face;
    float u[2], v[2], uv[4][3], origin[3], normal[3];
} overlay;

static void read_overlay(const uint8_t *r, overlay *o)
{
    o->id = bk_rd_i32le(r);
    o->texinfo = bk_rd_i16le(r + 4);
    uint16_t fc = bk_rd_u16le(r + 6);
    o->face_count = fc & 0x3fffu;
    o->render_order = fc >> 14;
    o->first_face = bk_rd_i32le(r + 8);
    const uint8_t *q = r + 8 + 4 * OVERLAY_FACES;
    o->u[0] = bk_rd_f32le(q), o->u[1] = bk_rd_f32le(q + 4), o->v[0] = bk_rd_f32le(q + 8), o->v[1] = bk_rd_f32le(q + 12);
    q += 16;
    for (int k = 0; k < 4; k++)
        for (int c = 0; c < 3; c++) o->uv[k][c] = bk_rd_f32le(q + 12 * k + 4 * c);
    q += 48;
    for (int c = 0; c < 3; c++) o->origin[c] = bk_rd_f32le(q + 4 * c), o->normal[c] = bk_rd_f32le(q + 12 + 4 * c);
}

/* the corners in the world and their texture coordinates; false when the record cannot be drawn */
static bool overlay_quad(const overlay *o, float pos[4][3], float uv[4][2], float nrm[3])
{
    float len = sqrtf(o->normal[0] * o->normal[0] + o->normal[1] * o->normal[1] + o->normal[2] * o->normal[2]);
    if (!(len > 1e-6f) || !isfinite(len)) return false;
    const float *n = o->normal;
    float bu[3] = {o->uv[0][2], o->uv[1][2], o->uv[2][2]};
    float bv[3] = {n[1] * bu[2] - n[2] * bu[1], n[2] * bu[0] - n[0] * bu[2], n[0] * bu[1] - n[1] * bu[0]};
    if (o->uv[3][2] == 1.0f)
        for (int c = 0; c < 3; c++) bv[c] = -bv[c];
    for (int c = 0; c < 3; c++) nrm[c] = n[c] / len;
    for (int k = 0; k < 4; k++) {
        for (int c = 0; c < 3; c++) {
            pos[k][c] = o->origin[c] + o->uv[k][0] * bu[c] + o->uv[k][1] * bv[c] + OVERLAY_PUSH * nrm[c];
            if (!isfinite(pos[k][c])) return false;
        }
    }
    uv[0][0] = o->u[0], uv[0][1] = o->v[0];
    uv[1][0] = o->u[0], uv[1][1] = o->v[1];
    uv[2][0] = o->u[1], uv[2][1] = o->v[1];
    uv[3][0] = o->u[1], uv[3][1] = o->v[0];
    return true;
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

static bk_result emit_overlay(sb *b, int32_t mesh, int32_t *prim_of, const overlay *o, uint32_t i, uint32_t *drawn)
{
    const bk_source_map *p = b->p;
    float pos[4][3], uv[4][2], nrm[3];
    if (o->texinfo < 0 || (uint32_t)o->texinfo >= p->texinfo_count || !overlay_quad(o, pos, uv, nrm)) {
        bk_scene_diag(b->s, b->opt, BK_SEV_WARNING, BK_EFORMAT, NULL, "overlays", (int64_t)i,
                      (int64_t)(p->lumps[BK_SRC_LUMP_OVERLAYS].offset + (uint64_t)i * OVERLAY_SIZE),
                      "overlay %d has a texinfo out of range or a degenerate basis: not drawn", o->id);
        return BK_OK;
    }
    if (b->vertex_budget < 4) return BK_ELIMIT;
    (*drawn)++;
    b->vertex_budget -= 4;
    int32_t mat;
    BK_TRY(bk_src_overlay_material(b, o->texinfo, &mat));
    bool lm = b->lm_image >= 0;
    bk_mesh *m = &b->s->meshes[mesh];
    if (prim_of[mat] < 0) {
        bk_primitive *pr;
        BK_TRY(bk_mesh_add_primitive(m, mat, BK_PRIM_TRIANGLES, BK_ATTR_NORMAL | BK_ATTR_UV0 | (lm ? BK_ATTR_UV1 : 0), &pr));
        prim_of[mat] = (int32_t)(m->prim_count - 1);
    }
    bk_primitive *pr = &m->prims[prim_of[mat]];
    uint32_t first;
    BK_TRY(bk_prim_add_vertices(pr, 4, &first));
    /* the lightmap of the first face, when it is a planar face that has one */
    uint32_t lf = (uint32_t)o->first_face;
    bool lit = o->first_face >= 0 && lf < p->face_count && p->faces[lf].dispinfo < 0 && b->face_rect && b->face_rect[lf];
    for (uint32_t k = 0; k < 4; k++) {
        uint32_t vi = first + k;
        memcpy(&pr->position[vi * 3], pos[k], sizeof pos[k]);
        memcpy(&pr->normal[vi * 3], nrm, sizeof nrm);
        memcpy(&pr->uv0[vi * 2], uv[k], sizeof uv[k]);
        if (pr->uv1) {
            if (lit) overlay_lm_uv(b, lf, pos[k], &pr->uv1[vi * 2]);
            else pr->uv1[vi * 2] = pr->uv1[vi * 2 + 1] = 0;
        }
    }
    /* counter-clockwise seen from the side the normal points to */
    float e1[3], e2[3], cr[3];
    for (int c = 0; c < 3; c++) e1[c] = pos[1][c] - pos[0][c], e2[c] = pos[2][c] - pos[0][c];
    cr[0] = e1[1] * e2[2] - e1[2] * e2[1], cr[1] = e1[2] * e2[0] - e1[0] * e2[2], cr[2] = e1[0] * e2[1] - e1[1] * e2[0];
    if (cr[0] * nrm[0] + cr[1] * nrm[1] + cr[2] * nrm[2] < 0) {
        BK_TRY(bk_prim_add_triangle(pr, first, first + 2, first + 1));
        return bk_prim_add_triangle(pr, first, first + 3, first + 2);
    }
    BK_TRY(bk_prim_add_triangle(pr, first, first + 1, first + 2));
    return bk_prim_add_triangle(pr, first, first + 2, first + 3);
}

bk_result bk_src_add_overlays(sb *b, const bk_source_lump *l, int32_t world)
{
    if (!l->data || l->size < OVERLAY_SIZE) return BK_OK;
    uint64_t n = l->size / OVERLAY_SIZE;
    if (l->size % OVERLAY_SIZE)
        bk_scene_diag(b->s, b->opt, BK_SEV_WARNING, BK_EFORMAT, NULL, "overlays", BK_NO_INDEX, (int64_t)l->offset,
                      "the overlay lump's %llu bytes are not a whole number of %u-byte records: the rest is ignored",
                      (unsigned long long)l->size, OVERLAY_SIZE);
    uint32_t with_faces = 0, drawn = 0;
    for (uint64_t i = 0; i < n; i++) with_faces += (bk_rd_u16le(l->data + i * OVERLAY_SIZE + 6) & 0x3fffu) != 0;
    if (!with_faces) return BK_OK;
    int32_t mesh, node;
    BK_TRY(bk_scene_add_mesh(b->s, "overlays", &mesh));
    /* material -> primitive; materials made here are appended, so the table grows with them */
    uint32_t cap = b->s->material_count + b->p->texdata_count + 2;
    int32_t *prim_of = bk_malloc((size_t)cap * sizeof *prim_of);
    if (!prim_of) return BK_ENOMEM;
    for (uint32_t k = 0; k < cap; k++) prim_of[k] = -1;
    bk_result r = BK_OK;
    for (uint64_t i = 0; i < n && r == BK_OK; i++) {
        overlay o;
        read_overlay(l->data + i * OVERLAY_SIZE, &o);
        if (!o.face_count) continue;
        if (b->s->material_count >= cap) {
            r = BK_EARG;
            break;
        }
        r = emit_overlay(b, mesh, prim_of, &o, (uint32_t)i, &drawn);
    }
    bk_free(prim_of);
    if (r == BK_OK) r = bk_scene_add_node(b->s, "overlays", world, mesh, &node);
    if (r == BK_OK) {
        char cnt[16];
        snprintf(cnt, sizeof cnt, "%u", drawn);
        r = bk_kv_append(&b->s->nodes[node].extras, &b->s->nodes[node].extra_count, "overlay_count", cnt);
    }
    return r;
}
