/* Fuzz the queries: load a map of any family, open a query view over it, then ask for random
 * points, segments (every hull, random boxes, every model), PVS / PAS rows and visible faces.
 * The random numbers are seeded from the input, so a crash replays from its file. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bspkit/query.h"
#include "fuzz_common.h"

static uint32_t next(uint32_t *s)
{
    *s = *s * 1664525u + 1013904223u;
    return *s >> 8;
}

static float coord(uint32_t *s, const bk_info *info, int axis)
{
    uint32_t r = next(s);
    switch (r & 7) {
    case 0: return 0;
    case 1: return (r & 8) ? 1e30f : -1e30f;
    case 2: return (float)((int32_t)(r >> 4) % 65536);
    default: {
        float lo = info->has_bounds ? info->mins[axis] : -4096, hi = info->has_bounds ? info->maxs[axis] : 4096;
        if (!(lo <= hi) || !isfinite(lo) || !isfinite(hi)) lo = -4096, hi = 4096;
        return lo + (hi - lo) * (float)((r >> 4) & 0xffff) / 65535.0f;
    }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bk_options opt;
    bk_file *f = fuzz_load(data, size, &opt);
    if (!f) return 0;
    bk_query *q = NULL;
    if (bk_query_open(f, &opt, &q) != BK_OK) {
        bk_file_free(f);
        return 0;
    }
    uint32_t seed = (uint32_t)size;
    for (size_t i = 0; i < size; i += 97) seed = seed * 31u + data[i];
    const bk_info *info = bk_file_info(f);
    bk_query_info qi;
    bk_query_get_info(q, &qi);
    size_t rb = bk_query_row_bytes(q);
    uint8_t *row = malloc(rb ? rb : 1);
    float many[3 * 48];
    for (int n = 0; n < 48; n++) {
        float a[3], b[3];
        for (int k = 0; k < 3; k++) {
            a[k] = coord(&seed, info, k);
            b[k] = coord(&seed, info, k);
        }
        memcpy(many + 3 * n, a, sizeof a);
        uint32_t model = qi.model_count ? next(&seed) % (qi.model_count + 1) : 0;
        bk_point_info pi;
        if (bk_query_point(q, model, a, &pi) == BK_OK && pi.cluster >= 0 && row) {
            bk_query_vis_row(q, BK_VIS_PVS, pi.cluster, row);
            bk_query_vis_row(q, BK_VIS_PAS, pi.cluster, row);
        }
        bk_trace_params tp;
        memset(&tp, 0, sizeof tp);
        tp.model = model;
        tp.hull = (int32_t)(next(&seed) % 5);
        if (next(&seed) & 1)
            for (int k = 0; k < 3; k++) {
                tp.maxs[k] = (float)(next(&seed) % 64);
                tp.mins[k] = -(float)(next(&seed) % 64);
            }
        tp.mask = (next(&seed) & 1) ? next(&seed) : 0;
        bk_trace_result tr;
        bk_query_trace(q, &tp, a, b, &tr);
        bk_query_points_visible(q, a, b);
        bk_query_cluster_visible(q, (int32_t)(next(&seed) % (qi.cluster_count + 2)) - 1,
                                 (int32_t)(next(&seed) % (qi.cluster_count + 2)) - 1);
        if (n < 4) {
            uint32_t count = 0;
            uint32_t faces[64];
            bk_query_visible_faces(q, a, faces, 64, &count);
        }
    }
    /* the same points at once (several tree walks side by side) */
    bk_point_info batch[48];
    bk_query_points(q, 0, 48, many, batch, NULL);
    free(row);
    bk_query_free(q);
    bk_file_free(f);
    return 0;
}
