/* The sky box of the Quake-lineage engines (Quake 2's gl_warp.c layout, kept by Quake 3 and
 * Source): six images NAMErt, bk, lf, ft, up, dn on a cube centred on the viewer. In engine axes
 * (X forward, Y left, Z up), each side image upright with its left edge on the viewer's left
 * when facing it: rt at +X, bk at +Y, lf at -X, ft at -Y, up at +Z (image top towards -X), dn at
 * -Z (image top towards +X). Source's cube-map faces follow the same names (vtf.h
 * CubeMapFaceIndex_t: "BACK is in the +y direction", "FRONT in the -y direction"; vbsp's
 * cubemap.cpp builds the default cube maps from the skybox faces in that order). */
#include <math.h>

#include "scene/scene_build.h"

const char *const bk_sky_face_suffix[6] = {"rt", "bk", "lf", "ft", "up", "dn"};
const float bk_sky_neutral[3] = {0.305f, 0.376f, 0.485f};

void bk_sky_face_point(int f, float s, float t, float p[3])
{
    switch (f) {
    case 0: p[0] = 1, p[1] = -s, p[2] = t; break;      /* rt: +X */
    case 1: p[0] = s, p[1] = 1, p[2] = t; break;       /* bk: +Y */
    case 2: p[0] = -1, p[1] = s, p[2] = t; break;      /* lf: -X */
    case 3: p[0] = -s, p[1] = -1, p[2] = t; break;     /* ft: -Y */
    case 4: p[0] = -t, p[1] = -s, p[2] = 1; break;     /* up: +Z */
    default: p[0] = t, p[1] = -s, p[2] = -1; break;    /* dn: -Z */
    }
}

bk_result bk_sky_grid_triangles(bk_primitive *p, uint32_t first, uint32_t n)
{
    /* the winding: (a, a+1, a+n+1) is counter-clockwise around the normal of that corner */
    const float *P = p->position;
    uint32_t a = first, c1 = first + 1, c2 = first + n + 1;
    float e1[3], e2[3];
    for (int k = 0; k < 3; k++) {
        e1[k] = P[c1 * 3 + k] - P[a * 3 + k];
        e2[k] = P[c2 * 3 + k] - P[a * 3 + k];
    }
    float cr[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
    bool inward = cr[0] * P[a * 3] + cr[1] * P[a * 3 + 1] + cr[2] * P[a * 3 + 2] < 0;
    for (uint32_t y = 0; y < n; y++)
        for (uint32_t x = 0; x < n; x++) {
            uint32_t v0 = first + y * (n + 1) + x, v1 = v0 + 1, v2 = v0 + n + 1, v3 = v2 + 1;
            if (inward) {
                BK_TRY(bk_prim_add_triangle(p, v0, v1, v2));
                BK_TRY(bk_prim_add_triangle(p, v1, v3, v2));
            } else {
                BK_TRY(bk_prim_add_triangle(p, v0, v2, v1));
                BK_TRY(bk_prim_add_triangle(p, v1, v2, v3));
            }
        }
    return BK_OK;
}

bk_result bk_sky_add_face(bk_primitive *p, int f, float half)
{
    uint32_t first;
    BK_TRY(bk_prim_add_vertices(p, 4, &first));
    for (int y = 0; y < 2; y++)
        for (int x = 0; x < 2; x++) {
            float s = x ? 1.0f : -1.0f, t = y ? 1.0f : -1.0f, q[3];
            bk_sky_face_point(f, s, t, q);
            size_t v = first + (size_t)(y * 2 + x);
            float l = sqrtf(3.0f);
            for (int k = 0; k < 3; k++) {
                p->position[v * 3 + k] = q[k] * half;
                p->normal[v * 3 + k] = -q[k] / l;
            }
            p->uv0[v * 2] = (s + 1) * 0.5f;
            p->uv0[v * 2 + 1] = (1 - t) * 0.5f;
        }
    return bk_sky_grid_triangles(p, first, 1);
}
