/* The contract between the query front door (src/query/query.c) and each family's query code
 * (src/formats/<family>/<family>_query.c). A family fills one bk_query_ops table. */
#ifndef BK_QUERY_INTERNAL_H
#define BK_QUERY_INTERNAL_H

#include "bspkit/query.h"
#include "../formats/format.h"

typedef struct bk_query_ops {
    /* Build the family's view (f already loaded cleanly). Report bad visibility rows through ctx. */
    bk_result (*open)(const bk_file *f, bk_ctx *ctx, void **state, bk_query_info *info);
    void (*destroy)(void *state);
    bk_result (*point)(const void *state, uint32_t model, const float pos[3], bk_point_info *out);
    bk_result (*vis_row)(const void *state, bk_vis_kind kind, int32_t cluster, uint8_t *row);
    /* faces of one leaf: *first into a face-index list the family exposes through leaf_face */
    uint32_t (*leaf_face_count)(const void *state, int32_t leaf);
    uint32_t (*leaf_face)(const void *state, int32_t leaf, uint32_t i);
    int32_t (*leaf_cluster)(const void *state, int32_t leaf);
    bk_result (*trace)(const void *state, const bk_trace_params *p, const float start[3],
                       const float end[3], bk_trace_result *out);
} bk_query_ops;

extern const bk_query_ops bk_query_ops_quake;   /* src/formats/quake/quake_query.c */
extern const bk_query_ops bk_query_ops_q3;      /* src/formats/q3/q3_query.c */
extern const bk_query_ops bk_query_ops_source;  /* src/formats/source/source_query.c */

struct bk_query {
    const bk_file *file;
    const bk_query_ops *ops;
    void *state;
    bk_query_info info;
};

#endif
