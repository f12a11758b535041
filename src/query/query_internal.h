/* The contract between the query front door (src/query/query.c) and each family's query code
 * (src/formats/<family>/<family>_query.c). A family fills one bk_query_ops table; the front door
 * does the argument checks and everything that is the same for every family (contents names,
 * PVS counting, visible faces, line of sight between points). */
#ifndef BK_QUERY_INTERNAL_H
#define BK_QUERY_INTERNAL_H

#include "bspkit/query.h"
#include "../formats/family.h"

typedef struct bk_query_ops {
    /* Build the family's view (f already loaded cleanly) and fill info. Bad visibility rows are
     * reported through ctx (warnings) and later decode as all-visible. */
    bk_result (*open)(const bk_file *f, bk_ctx *ctx, void **state, bk_query_info *info);
    void (*destroy)(void *state);
    /* model < info.model_count, pos finite (checked by the front door) */
    bk_result (*point)(const void *state, uint32_t model, const float pos[3], bk_point_info *out);
    /* optional: point for count points (pos 3 floats each), leaves scratch of count entries; the
     * first error is returned, every out filled */
    bk_result (*points)(const void *state, uint32_t model, size_t count, const float *pos, int32_t *leaves,
                        bk_point_info *out);
    /* cluster in [0, info.cluster_count); row has bk_query_row_bytes bytes, zeroed by the caller */
    bk_result (*vis_row)(const void *state, bk_vis_kind kind, int32_t cluster, uint8_t *row);
    /* leaf in [0, info.leaf_count) */
    int32_t (*leaf_cluster)(const void *state, int32_t leaf);
    uint32_t (*leaf_face_count)(const void *state, int32_t leaf);
    uint32_t (*leaf_face)(const void *state, int32_t leaf, uint32_t i);   /* < info.face_count */
    /* model, hull checked; mask already defaulted */
    bk_result (*trace)(const void *state, const bk_trace_params *p, const float start[3],
                       const float end[3], bk_trace_result *out);
    /* the brush families' collision model (src/query/cm.h), or NULL */
    const struct bk_cm *(*cm)(const void *state);
    /* the name of surface (a trace's bk_trace_result.surface) of the loaded file, or NULL */
    const char *(*surface_name)(const bk_file *f, int32_t surface);
    /* leaf in [0, info.leaf_count): its stored bounds */
    void (*leaf_bounds)(const void *state, int32_t leaf, float mins[3], float maxs[3]);
} bk_query_ops;

/* The start of every family's open: a map without what a query walks (!usable) is refused with
 * "the map has no <missing> to query"; else a zeroed state of size bytes. NULL and *r set on
 * failure. */
void *bk_query_state_new(bk_ctx *ctx, bool usable, const char *missing, size_t size, bk_result *r);

extern const bk_query_ops bk_query_ops_quake;   /* src/formats/quake/quake_query.c */
extern const bk_query_ops bk_query_ops_q3;      /* src/formats/q3/q3_query.c */
extern const bk_query_ops bk_query_ops_source;  /* src/formats/source/source_query.c */

struct bk_query {
    const bk_file *file;
    const bk_query_ops *ops;
    void *state;
    bk_query_info info;
    uint32_t *cluster_leaves;  /* leaves per cluster (info.cluster_count entries) */
};

/* For the library's renderer: the cluster of each of count points (pos: 3 floats a point) in the
 * world, -1 where bk_query_point gives none or fails. The same clusters as bk_query_point, found
 * by the tree walk alone where the family's contents need more (Quake 3's brushes). */
void bk_query_clusters(const bk_query *q, size_t count, const float *pos, int32_t *clusters);

/* Shared by the families' trace code: the engines' distance epsilon ("back off the hit by
 * 1/32 unit") and the neutral-contents helpers. */
#define BK_DIST_EPSILON 0.03125f

#endif
