/* The displacement grid of a Source face, one construction for the scene (scene.c) and the
 * collision model (source_query.c): the same points in the same order, the same triangles. */
#include <math.h>

#include "vbsp_internal.h"

static void vcopy(float *d, const float *s) { d[0] = s[0], d[1] = s[1], d[2] = s[2]; }

uint32_t bk_src_disp_grid(const bk_source_map *p, uint32_t fi, float q[4][3], float *pos, float *base)
{
    const bk_source_face *f = &p->faces[fi];
    const bk_source_dispinfo *di = &p->dispinfo[f->dispinfo];
    /* corners, rotated so the first is the one nearest startPosition */
    float c[4][3];
    int best = 0;
    float bestd = INFINITY;
    for (int k = 0; k < 4; k++) {
        vcopy(c[k], bk_src_face_vertex(p, f, k));
        float dx = c[k][0] - di->start[0], dy = c[k][1] - di->start[1], dz = c[k][2] - di->start[2];
        float d2 = dx * dx + dy * dy + dz * dz;
        if (d2 < bestd) bestd = d2, best = k;
    }
    for (int k = 0; k < 4; k++) vcopy(q[k], c[(best + k) % 4]);
    uint32_t side = (1u << di->power) + 1;
    float inv = 1.0f / (float)(side - 1);
    for (uint32_t y = 0; y < side; y++) {
        float t = (float)y * inv, l[3], r[3];
        for (int k = 0; k < 3; k++) {
            l[k] = q[0][k] + (q[1][k] - q[0][k]) * t;
            r[k] = q[3][k] + (q[2][k] - q[3][k]) * t;
        }
        for (uint32_t x = 0; x < side; x++) {
            float u = (float)x * inv, b[3];
            for (int k = 0; k < 3; k++) b[k] = l[k] + (r[k] - l[k]) * u;
            const bk_source_dispvert *dv = &p->dispverts[(uint32_t)di->vert_start + y * side + x];
            uint32_t vi = y * side + x;
            for (int k = 0; k < 3; k++) pos[vi * 3 + k] = b[k] + dv->vec[k] * dv->dist;
            if (base) vcopy(&base[vi * 3], b);
        }
    }
    return side;
}

void bk_src_disp_cell(uint32_t side, uint32_t x, uint32_t y, uint32_t t[6])
{
    uint32_t i0 = y * side + x, i1 = i0 + 1, i2 = i0 + side, i3 = i2 + 1;
    if (((x + y) & 1) == 0) {
        const uint32_t tt[6] = {i0, i1, i3, i0, i3, i2};
        memcpy(t, tt, sizeof tt);
    } else {
        const uint32_t tt[6] = {i0, i1, i2, i1, i3, i2};
        memcpy(t, tt, sizeof tt);
    }
}
