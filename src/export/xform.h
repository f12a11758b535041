/* Engine (Z up, units) -> glTF (Y up, metres) conversion shared by the exporters.
 *
 * C = s * R with R(x, y, z) = (x, z, -y): a -90 degree turn about X, right-handed to
 * right-handed, the same mapping Blender's glTF exporter uses. Every node transform T
 * becomes C T C^-1, so hierarchies, skins and animations stay consistent. */
#ifndef BK_XFORM_H
#define BK_XFORM_H

#include <math.h>

#include "../common/bk_internal.h"

typedef struct bk_xform {
    float s;      /* metres per unit */
    bool rotate;  /* false: keep engine axes */
} bk_xform;

static inline bk_xform bk_xform_make(const bk_export_options *o)
{
    bk_xform x;
    x.s = (o && o->scale > 0.0f && isfinite(o->scale)) ? o->scale : 0.0254f;
    x.rotate = !(o && o->keep_z_up);
    return x;
}

/* direction (no scale) */
static inline void bk_xf_dir(const bk_xform *x, const float *in, float *out)
{
    float a = in[0], b = in[1], c = in[2];
    if (x->rotate) {
        out[0] = a; out[1] = c; out[2] = -b;
    } else {
        out[0] = a; out[1] = b; out[2] = c;
    }
}

static inline void bk_xf_point(const bk_xform *x, const float *in, float *out)
{
    bk_xf_dir(x, in, out);
    out[0] *= x->s; out[1] *= x->s; out[2] *= x->s;
}

static inline void bk_quat_mul(const float *a, const float *b, float *o)
{
    float x = a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1];
    float y = a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0];
    float z = a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3];
    float w = a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2];
    o[0] = x; o[1] = y; o[2] = z; o[3] = w;
}

/* q' = qR q qR^-1, normalised; identity for non-finite input */
static inline void bk_xf_quat(const bk_xform *x, const float *q, float *out)
{
    float in[4] = {q[0], q[1], q[2], q[3]};
    float n = sqrtf(in[0] * in[0] + in[1] * in[1] + in[2] * in[2] + in[3] * in[3]);
    if (!(n > 1e-12f) || !isfinite(n)) {
        out[0] = out[1] = out[2] = 0; out[3] = 1;
        return;
    }
    for (int i = 0; i < 4; i++) in[i] /= n;
    if (!x->rotate) {
        memcpy(out, in, sizeof in);
        return;
    }
    const float h = 0.70710678118654752f;
    const float qr[4] = {-h, 0, 0, h}, qi[4] = {h, 0, 0, h};
    float t[4];
    bk_quat_mul(qr, in, t);
    bk_quat_mul(t, qi, out);
    n = sqrtf(out[0] * out[0] + out[1] * out[1] + out[2] * out[2] + out[3] * out[3]);
    for (int i = 0; i < 4; i++) out[i] /= n;
}

/* scale of a node: axes permuted, no unit scale */
static inline void bk_xf_scale(const bk_xform *x, const float *in, float *out)
{
    if (x->rotate) {
        out[0] = in[0]; out[1] = in[2]; out[2] = in[1];
    } else {
        out[0] = in[0]; out[1] = in[1]; out[2] = in[2];
    }
}

/* column-major 4x4: M' = C M C^-1 */
static inline void bk_xf_mat4(const bk_xform *x, const float *m, float *out)
{
    /* C as a 3x3 (column-major) times s; C^-1 = R^T / s */
    float R[9];
    if (x->rotate) {
        /* columns: R*e_x = (1,0,0), R*e_y = (0,0,-1), R*e_z = (0,1,0) */
        const float r[9] = {1, 0, 0, 0, 0, -1, 0, 1, 0};
        memcpy(R, r, sizeof R);
    } else {
        const float r[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
        memcpy(R, r, sizeof R);
    }
    /* out3 = R * M3 * R^T ; out translation = s * R * t */
    float A[9];
    for (int c = 0; c < 3; c++)
        for (int r = 0; r < 3; r++) {
            float v = 0;
            for (int k = 0; k < 3; k++) v += R[k * 3 + r] * m[c * 4 + k];
            A[c * 3 + r] = v;
        }
    for (int c = 0; c < 3; c++)
        for (int r = 0; r < 3; r++) {
            float v = 0;
            for (int k = 0; k < 3; k++) v += A[k * 3 + r] * R[k * 3 + c]; /* R^T[k][c] = R[c][k] */
            out[c * 4 + r] = v;
        }
    float t[3] = {m[12], m[13], m[14]};
    for (int r = 0; r < 3; r++) out[12 + r] = x->s * (R[0 * 3 + r] * t[0] + R[1 * 3 + r] * t[1] + R[2 * 3 + r] * t[2]);
    out[3] = out[7] = out[11] = 0;
    out[15] = 1;
}

#endif
