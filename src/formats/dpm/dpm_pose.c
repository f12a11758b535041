/* DPM pose evaluation: the format's rendering process, steps 1-4.1.
 *   1. one or two poses are looked up by number
 *   2. bone poses (matrices) are interpolated
 *   3. bones are composed with their parents in order (parents are always lower)
 *   4.1 vertices are skinned: the 3x4 transforms of each influence are added (weights are built in)
 * No allocation; the only work per vertex is one 3x4 transform per influence. */
#include <math.h>

#include "dpm_internal.h"

void bk_dpm_mat_mul(const float *a, const float *b, float *o)
{
    float r[12];
    for (int i = 0; i < 3; i++) {
        const float *ar = a + i * 4;
        for (int j = 0; j < 4; j++) r[i * 4 + j] = ar[0] * b[j] + ar[1] * b[4 + j] + ar[2] * b[8 + j];
        r[i * 4 + 3] += ar[3];
    }
    memcpy(o, r, sizeof r);
}

static void quat_from_rot(const float *c0, const float *c1, const float *c2, float *q)
{
    /* rotation matrix with columns c0 c1 c2: m[r][c] */
    float m00 = c0[0], m10 = c0[1], m20 = c0[2];
    float m01 = c1[0], m11 = c1[1], m21 = c1[2];
    float m02 = c2[0], m12 = c2[1], m22 = c2[2];
    float tr = m00 + m11 + m22;
    if (tr > 0) {
        float s = sqrtf(tr + 1.0f) * 2;
        q[3] = 0.25f * s;
        q[0] = (m21 - m12) / s;
        q[1] = (m02 - m20) / s;
        q[2] = (m10 - m01) / s;
    } else if (m00 > m11 && m00 > m22) {
        float s = sqrtf(1.0f + m00 - m11 - m22) * 2;
        q[3] = (m21 - m12) / s;
        q[0] = 0.25f * s;
        q[1] = (m01 + m10) / s;
        q[2] = (m02 + m20) / s;
    } else if (m11 > m22) {
        float s = sqrtf(1.0f + m11 - m00 - m22) * 2;
        q[3] = (m02 - m20) / s;
        q[0] = (m01 + m10) / s;
        q[1] = 0.25f * s;
        q[2] = (m12 + m21) / s;
    } else {
        float s = sqrtf(1.0f + m22 - m00 - m11) * 2;
        q[3] = (m10 - m01) / s;
        q[0] = (m02 + m20) / s;
        q[1] = (m12 + m21) / s;
        q[2] = 0.25f * s;
    }
    float n = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(n > 1e-12f) || !isfinite(n)) {
        q[0] = q[1] = q[2] = 0;
        q[3] = 1;
        return;
    }
    for (int i = 0; i < 4; i++) q[i] /= n;
    if (q[3] < 0)
        for (int i = 0; i < 4; i++) q[i] = -q[i];
}

void bk_dpm_mat_decompose(const float *m, float *t, float *q, float *s)
{
    t[0] = m[3], t[1] = m[7], t[2] = m[11];
    float c[3][3];
    for (int j = 0; j < 3; j++) {
        for (int i = 0; i < 3; i++) c[j][i] = m[i * 4 + j];
        float len = sqrtf(c[j][0] * c[j][0] + c[j][1] * c[j][1] + c[j][2] * c[j][2]);
        s[j] = len;
        if (len > 1e-12f)
            for (int i = 0; i < 3; i++) c[j][i] /= len;
    }
    /* a mirroring matrix: put the reflection into the x scale */
    float det = c[0][0] * (c[1][1] * c[2][2] - c[1][2] * c[2][1]) - c[1][0] * (c[0][1] * c[2][2] - c[0][2] * c[2][1]) +
                c[2][0] * (c[0][1] * c[1][2] - c[0][2] * c[1][1]);
    if (det < 0) {
        s[0] = -s[0];
        for (int i = 0; i < 3; i++) c[0][i] = -c[0][i];
    }
    quat_from_rot(c[0], c[1], c[2], q);
}

static void compose_trs(const float *t, const float *q, const float *s, float *m)
{
    float x = q[0], y = q[1], z = q[2], w = q[3];
    float r[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - z * w),     2 * (x * z + y * w),
                  2 * (x * y + z * w),     1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
                  2 * (x * z - y * w),     2 * (y * z + x * w),     1 - 2 * (x * x + y * y)};
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) m[i * 4 + j] = r[i * 3 + j] * s[j];
        m[i * 4 + 3] = t[i];
    }
}

static void slerp_mat(const float *a, const float *b, float t, float *out)
{
    float ta[3], qa[4], sa[3], tb[3], qb[4], sb[3], tt[3], qq[4], ss[3];
    bk_dpm_mat_decompose(a, ta, qa, sa);
    bk_dpm_mat_decompose(b, tb, qb, sb);
    float d = qa[0] * qb[0] + qa[1] * qb[1] + qa[2] * qb[2] + qa[3] * qb[3];
    if (d < 0) {
        d = -d;
        for (int i = 0; i < 4; i++) qb[i] = -qb[i];
    }
    float wa = 1 - t, wb = t;
    if (d < 0.9995f) {
        float th = acosf(d), sn = sinf(th);
        wa = sinf((1 - t) * th) / sn;
        wb = sinf(t * th) / sn;
    }
    float n = 0;
    for (int i = 0; i < 4; i++) {
        qq[i] = wa * qa[i] + wb * qb[i];
        n += qq[i] * qq[i];
    }
    n = sqrtf(n);
    for (int i = 0; i < 4; i++) qq[i] = n > 0 ? qq[i] / n : (i == 3);
    for (int i = 0; i < 3; i++) {
        tt[i] = ta[i] + (tb[i] - ta[i]) * t;
        ss[i] = sa[i] + (sb[i] - sa[i]) * t;
    }
    compose_trs(tt, qq, ss, out);
}

void bk_dpm_pose_from_relative(const bk_dpm_model *m, const float *rel, float *out)
{
    for (uint32_t i = 0; i < m->bone_count; i++) {
        int32_t p = m->bones[i].parent;
        if (p >= 0 && (uint32_t)p < i) bk_dpm_mat_mul(out + (size_t)p * 12, rel + (size_t)i * 12, out + (size_t)i * 12);
        else memcpy(out + (size_t)i * 12, rel + (size_t)i * 12, 12 * sizeof(float));
    }
}

bk_result bk_dpm_pose(const bk_dpm_model *m, uint32_t fa, uint32_t fb, float t, bk_dpm_lerp mode, float *out)
{
    if (!m || !out || fa >= m->frame_count || fb >= m->frame_count || !isfinite(t)) return BK_EARG;
    if (t <= 0.0f || fa == fb) {
        bk_dpm_pose_from_relative(m, m->frames[fa].pose, out);
        return BK_OK;
    }
    if (t >= 1.0f) {
        bk_dpm_pose_from_relative(m, m->frames[fb].pose, out);
        return BK_OK;
    }
    const float *pa = m->frames[fa].pose, *pb = m->frames[fb].pose;
    for (uint32_t i = 0; i < m->bone_count; i++) {
        float rel[12];
        const float *a = pa + (size_t)i * 12, *b = pb + (size_t)i * 12;
        if (mode == BK_DPM_LERP_SLERP) slerp_mat(a, b, t, rel);
        else
            for (int k = 0; k < 12; k++) rel[k] = a[k] + (b[k] - a[k]) * t;
        int32_t p = m->bones[i].parent;
        if (p >= 0 && (uint32_t)p < i) bk_dpm_mat_mul(out + (size_t)p * 12, rel, out + (size_t)i * 12);
        else memcpy(out + (size_t)i * 12, rel, sizeof rel);
    }
    return BK_OK;
}

/* Positions (and normals) of vertices [0, n): the hot loop, kept free of branches on options. */
static void skin_pn(const bk_dpm_influence *restrict in, const uint32_t *restrict fi, uint32_t n,
                    const float *restrict bones, float *restrict out_pos, float *restrict out_nrm)
{
    for (uint32_t v = 0; v < n; v++) {
        float px = 0, py = 0, pz = 0, nx = 0, ny = 0, nz = 0;
        for (uint32_t j = fi[v], e = fi[v + 1]; j < e; j++) {
            const bk_dpm_influence *x = &in[j];
            const float *b = bones + (size_t)x->bone * 12;
            float ox = x->origin[0], oy = x->origin[1], oz = x->origin[2], f = x->influence;
            float qx = x->normal[0], qy = x->normal[1], qz = x->normal[2];
            px += b[0] * ox + b[1] * oy + b[2] * oz + b[3] * f;
            py += b[4] * ox + b[5] * oy + b[6] * oz + b[7] * f;
            pz += b[8] * ox + b[9] * oy + b[10] * oz + b[11] * f;
            nx += b[0] * qx + b[1] * qy + b[2] * qz;
            ny += b[4] * qx + b[5] * qy + b[6] * qz;
            nz += b[8] * qx + b[9] * qy + b[10] * qz;
        }
        float *o = out_pos + (size_t)v * 3;
        o[0] = px, o[1] = py, o[2] = pz;
        float l2 = nx * nx + ny * ny + nz * nz;
        float s = l2 > 1e-24f ? 1.0f / sqrtf(l2) : 0.0f;
        float *q = out_nrm + (size_t)v * 3;
        q[0] = nx * s, q[1] = ny * s, q[2] = nz * s;
    }
}

static void skin_p(const bk_dpm_influence *restrict in, const uint32_t *restrict fi, uint32_t n,
                   const float *restrict bones, float *restrict out_pos)
{
    for (uint32_t v = 0; v < n; v++) {
        float px = 0, py = 0, pz = 0;
        for (uint32_t j = fi[v], e = fi[v + 1]; j < e; j++) {
            const bk_dpm_influence *x = &in[j];
            const float *b = bones + (size_t)x->bone * 12;
            float ox = x->origin[0], oy = x->origin[1], oz = x->origin[2], f = x->influence;
            px += b[0] * ox + b[1] * oy + b[2] * oz + b[3] * f;
            py += b[4] * ox + b[5] * oy + b[6] * oz + b[7] * f;
            pz += b[8] * ox + b[9] * oy + b[10] * oz + b[11] * f;
        }
        float *o = out_pos + (size_t)v * 3;
        o[0] = px, o[1] = py, o[2] = pz;
    }
}

bk_result bk_dpm_skin(const bk_dpm_model *m, uint32_t mesh, const float *bones, float *out_pos, float *out_nrm)
{
    if (!m || !bones || !out_pos || mesh >= m->mesh_count) return BK_EARG;
    const bk_dpm_mesh *me = &m->meshes[mesh];
    if (!me->influences || !me->first_influence) return BK_OK;
    if (out_nrm) skin_pn(me->influences, me->first_influence, me->vertex_count, bones, out_pos, out_nrm);
    else skin_p(me->influences, me->first_influence, me->vertex_count, bones, out_pos);
    return BK_OK;
}
