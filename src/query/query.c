/* The query front door: one interface over every BSP family's trees (see bspkit/query.h).
 * Argument checks, contents names and everything that is the same for every family (counting
 * a PVS row, the faces visible from a point) live here; the tree walks and traces live in each
 * family's <family>_query.c. */
#include <math.h>
#include <stdio.h>

#define BK_ADVANCED_API /* the speed and memory knobs (bspkit/advanced.h) */
#include "bspkit/advanced.h"
#include "cm.h"
#include "query_internal.h"

static const struct { uint32_t bit; const char *name; } k_contents[] = {
    {BK_CONTENTS_SOLID, "solid"}, {BK_CONTENTS_WINDOW, "window"}, {BK_CONTENTS_GRATE, "grate"},
    {BK_CONTENTS_WATER, "water"}, {BK_CONTENTS_SLIME, "slime"}, {BK_CONTENTS_LAVA, "lava"},
    {BK_CONTENTS_SKY, "sky"}, {BK_CONTENTS_PLAYERCLIP, "playerclip"},
    {BK_CONTENTS_MONSTERCLIP, "monsterclip"}, {BK_CONTENTS_FOG, "fog"},
    {BK_CONTENTS_LADDER, "ladder"}, {BK_CONTENTS_TRANSLUCENT, "translucent"},
    {BK_CONTENTS_CURRENT, "current"}, {BK_CONTENTS_ORIGIN, "origin"},
    {BK_CONTENTS_TRIGGER, "trigger"}, {BK_CONTENTS_DETAIL, "detail"},
    {BK_CONTENTS_AREAPORTAL, "areaportal"}, {BK_CONTENTS_OPAQUE, "opaque"},
    {BK_CONTENTS_MOVEABLE, "moveable"}, {BK_CONTENTS_DEBRIS, "debris"}, {BK_CONTENTS_BODY, "body"},
    {BK_CONTENTS_NODROP, "nodrop"}, {BK_CONTENTS_TELEPORTER, "teleporter"},
    {BK_CONTENTS_OTHER, "other"},
};

const char *bk_contents_name(uint32_t bit)
{
    for (size_t i = 0; i < BK_ARRAY_LEN(k_contents); i++)
        if (k_contents[i].bit == bit) return k_contents[i].name;
    return NULL;
}

size_t bk_contents_format(uint32_t contents, char *buf, size_t cap)
{
    if (!buf || cap == 0) return 0;
    buf[0] = 0;
    size_t n = 0;
    if (contents == 0) {
        snprintf(buf, cap, "empty");
        return strlen(buf);
    }
    for (size_t i = 0; i < BK_ARRAY_LEN(k_contents); i++) {
        if (!(contents & k_contents[i].bit)) continue;
        int w = snprintf(buf + n, cap - n, "%s%s", n ? "|" : "", k_contents[i].name);
        if (w < 0 || (size_t)w >= cap - n) {
            buf[cap - 1] = 0;
            return strlen(buf);
        }
        n += (size_t)w;
    }
    return n;
}

bk_result bk_contents_parse(const char *text, uint32_t *out)
{
    if (!text || !out) return BK_EARG;
    uint32_t bits = 0;
    const char *p = text;
    while (*p) {
        const char *e = p;
        while (*e && *e != '|' && *e != ',') e++;
        size_t len = (size_t)(e - p);
        bool found = false;
        if (len == 3 && strncmp(p, "all", 3) == 0) {
            bits = UINT32_MAX;
            found = true;
        } else if (len == 5 && strncmp(p, "empty", 5) == 0) {
            found = true;
        }
        for (size_t i = 0; !found && i < BK_ARRAY_LEN(k_contents); i++) {
            if (strlen(k_contents[i].name) == len && strncmp(p, k_contents[i].name, len) == 0) {
                bits |= k_contents[i].bit;
                found = true;
            }
        }
        if (!found && len) return BK_EARG;
        p = *e ? e + 1 : e;
    }
    *out = bits;
    return BK_OK;
}

void *bk_query_state_new(bk_ctx *ctx, bool usable, const char *missing, size_t size, bk_result *r)
{
    if (!usable) {
        bk_report(ctx, BK_SEV_ERROR, BK_EFORMAT, "models", BK_NO_INDEX, BK_NO_OFFSET, "the map has no %s to query",
                  missing);
        *r = BK_EFORMAT;
        return NULL;
    }
    void *s = bk_calloc(1, size);
    if (!s) *r = BK_ENOMEM;
    return s;
}

bk_result bk_query_open(const bk_file *f, const bk_options *opt, bk_query **out)
{
    if (!f || !out) return BK_EARG;
    *out = NULL;
    BK_TRY(bk_file_complete((bk_file *)f, opt)); /* a deferred load, its diagnostics to opt */
    bk_ctx ctx;
    bk_ctx_init(&ctx, opt, true);
    if (!ctx.file) ctx.file = f->name;
    const bk_query_ops *ops = f->family->query;
    if (!ops) {
        bk_report(&ctx, BK_SEV_ERROR, BK_EUNSUPPORTED, NULL, BK_NO_INDEX, BK_NO_OFFSET,
                  "queries are not supported for %s files (only BSP maps have trees)",
                  bk_format_name(f->format));
        return BK_EUNSUPPORTED;
    }
    bk_query *q = bk_calloc(1, sizeof *q);
    if (!q) return BK_ENOMEM;
    q->file = f;
    q->ops = ops;
    q->info.format = f->format;
    bk_result r = ops->open(f, &ctx, &q->state, &q->info);
    if (r == BK_OK && q->info.cluster_count) {
        q->cluster_leaves = bk_alloc_array(&ctx, q->info.cluster_count, sizeof(uint32_t), &r);
        if (q->cluster_leaves) {
            for (uint32_t l = 0; l < q->info.leaf_count; l++) {
                int32_t c = ops->leaf_cluster(q->state, (int32_t)l);
                if (c >= 0 && (uint32_t)c < q->info.cluster_count) q->cluster_leaves[c]++;
            }
        }
    }
    if (r != BK_OK) {
        bk_query_free(q);
        return r;
    }
    *out = q;
    return BK_OK;
}

void bk_query_free(bk_query *q)
{
    if (!q) return;
    if (q->state && q->ops->destroy) q->ops->destroy(q->state);
    bk_free(q->cluster_leaves);
    bk_free(q);
}

void bk_query_get_info(const bk_query *q, bk_query_info *out)
{
    if (q && out) *out = q->info;
}

bk_result bk_query_point(const bk_query *q, uint32_t model, const float pos[3], bk_point_info *out)
{
    if (!q || !pos || !out) return BK_EARG;
    if (model >= q->info.model_count) return BK_EINDEX;
    if (!bk_finite3(pos)) return BK_EARG;
    return q->ops->point(q->state, model, pos, out);
}

void bk_query_clusters(const bk_query *q, size_t count, const float *pos, int32_t *clusters)
{
    const bk_cm *cm = q->ops->cm ? q->ops->cm(q->state) : NULL;
    if (!cm || !cm->model_count || cm->models[0].headnode < 0) {
        for (size_t i = 0; i < count; i++) {
            bk_point_info pi;
            clusters[i] = bk_query_point(q, 0, pos + 3 * i, &pi) == BK_OK ? pi.cluster : -1;
        }
        return;
    }
    enum { CHUNK = 256 };
    float p[3 * CHUNK];
    int32_t leaves[CHUNK];
    for (size_t i = 0; i < count; i += CHUNK) {
        size_t n = count - i < CHUNK ? count - i : CHUNK;
        for (size_t j = 0; j < n; j++) {   /* a point bk_query_point refuses: the origin, then -1 */
            bool ok = bk_finite3(pos + 3 * (i + j));
            for (int k = 0; k < 3; k++) p[3 * j + k] = ok ? pos[3 * (i + j) + k] : 0;
            clusters[i + j] = ok ? 0 : -1;
        }
        bk_cm_point_leaves(cm, cm->models[0].headnode, n, p, leaves);
        for (size_t j = 0; j < n; j++)
            if (clusters[i + j] == 0)
                clusters[i + j] = leaves[j] >= 0 && (uint32_t)leaves[j] < q->info.leaf_count
                                      ? q->ops->leaf_cluster(q->state, leaves[j])
                                      : -1;
    }
}

/* every float of v[0, n) finite (no exponent of all ones): a loop without branches, which the
 * compiler does in vector lanes */
static bool all_finite(const float *v, size_t n)
{
    uint32_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t b;
        memcpy(&b, v + i, sizeof b);
        bad |= (b & 0x7f800000u) == 0x7f800000u;
    }
    return !bad;
}

bk_result bk_query_points(const bk_query *q, uint32_t model, size_t count, const float *pos, bk_point_info *out,
                          size_t *bad)
{
    if (bad) *bad = 0;
    if (!q || (count && (!pos || !out))) return BK_EARG;
    if (model >= q->info.model_count) return BK_EINDEX;
    if (!all_finite(pos, 3 * count))
        for (size_t i = 0; i < count; i++)
            if (!bk_finite3(pos + 3 * i)) {
                if (bad) *bad = i;
                return BK_EARG;
            }
    bk_result r = BK_OK;
    enum { CHUNK = 256 };
    int32_t leaves[CHUNK];
    for (size_t i = 0; i < count; i += CHUNK) {
        size_t n = count - i < CHUNK ? count - i : CHUNK;
        bk_result rc = BK_OK;
        if (q->ops->points) {
            rc = q->ops->points(q->state, model, n, pos + 3 * i, leaves, out + i);
        } else {
            for (size_t j = 0; j < n; j++) {
                bk_result rj = q->ops->point(q->state, model, pos + 3 * (i + j), out + i + j);
                if (rc == BK_OK) rc = rj;
            }
        }
        if (rc != BK_OK && r == BK_OK) {
            r = rc;
            for (size_t j = 0; bad && j < n; j++)
                if (out[i + j].leaf < 0 && model == 0) {
                    *bad = i + j;
                    break;
                }
        }
    }
    return r;
}

size_t bk_query_row_bytes(const bk_query *q)
{
    return q ? ((size_t)q->info.cluster_count + 7) / 8 : 0;
}

bk_result bk_query_vis_row(const bk_query *q, bk_vis_kind kind, int32_t cluster, uint8_t *row)
{
    if (!q || !row) return BK_EARG;
    if (kind != BK_VIS_PVS && kind != BK_VIS_PAS) return BK_EARG;
    if (cluster < 0 || (uint32_t)cluster >= q->info.cluster_count) return BK_EINDEX;
    if (kind == BK_VIS_PAS && !q->info.has_pas) return BK_EUNSUPPORTED;
    memset(row, 0, bk_query_row_bytes(q));
    return q->ops->vis_row(q->state, kind, cluster, row);
}

/* A row on the stack when it fits (the common case), else on the heap. */
#define ROW_STACK 8192
typedef struct row_buf {
    uint8_t stack[ROW_STACK];
    uint8_t *p;
} row_buf;

static bk_result row_get(const bk_query *q, int32_t cluster, row_buf *rb)
{
    size_t n = bk_query_row_bytes(q);
    rb->p = n <= ROW_STACK ? rb->stack : bk_malloc(n);
    if (!rb->p) return BK_ENOMEM;
    return bk_query_vis_row(q, BK_VIS_PVS, cluster, rb->p);
}
static void row_done(row_buf *rb)
{
    if (rb->p && rb->p != rb->stack) bk_free(rb->p);
    rb->p = NULL;
}

static inline bool bit(const uint8_t *row, uint32_t c) { return (row[c >> 3] >> (c & 7)) & 1; }

bk_result bk_query_cluster_counts(const bk_query *q, int32_t cluster, uint32_t *visible_leaves,
                                  uint32_t *visible_clusters)
{
    if (!q) return BK_EARG;
    uint32_t vl = 0, vc = 0;
    if (q->info.cluster_count == 0) {
        vl = q->info.leaf_count;
    } else if (cluster >= 0) {
        if ((uint32_t)cluster >= q->info.cluster_count) return BK_EINDEX;
        row_buf rb;
        bk_result r = row_get(q, cluster, &rb);
        if (r != BK_OK) {
            row_done(&rb);
            return r;
        }
        for (uint32_t c = 0; c < q->info.cluster_count; c++) {
            if (!bit(rb.p, c)) continue;
            vc++;
            vl += q->cluster_leaves[c];
        }
        row_done(&rb);
    }
    if (visible_leaves) *visible_leaves = vl;
    if (visible_clusters) *visible_clusters = vc;
    return BK_OK;
}

bk_result bk_query_leaf_bounds(const bk_query *q, int32_t leaf, float mins[3], float maxs[3], int32_t *cluster)
{
    if (!q || !mins || !maxs) return BK_EARG;
    if (leaf < 0 || (uint32_t)leaf >= q->info.leaf_count) return BK_EINDEX;
    q->ops->leaf_bounds(q->state, leaf, mins, maxs);
    if (cluster) *cluster = q->ops->leaf_cluster(q->state, leaf);
    return BK_OK;
}

bool bk_query_cluster_visible(const bk_query *q, int32_t a, int32_t b)
{
    if (!q || a < 0 || b < 0 || q->info.cluster_count == 0) return 1;
    if ((uint32_t)a >= q->info.cluster_count || (uint32_t)b >= q->info.cluster_count) return 1;
    row_buf rb;
    int vis = 1;
    if (row_get(q, a, &rb) == BK_OK) vis = bit(rb.p, (uint32_t)b);
    row_done(&rb);
    return vis;
}

bool bk_query_points_visible(const bk_query *q, const float a[3], const float b[3])
{
    bk_point_info pa, pb;
    if (bk_query_point(q, 0, a, &pa) != BK_OK || bk_query_point(q, 0, b, &pb) != BK_OK) return 0;
    if (pa.cluster < 0 || pb.cluster < 0) return q->info.cluster_count == 0;
    return bk_query_cluster_visible(q, pa.cluster, pb.cluster);
}

bk_result bk_query_visible_faces(const bk_query *q, const float pos[3], uint32_t *faces, uint32_t cap,
                                 uint32_t *count)
{
    if (!q || !pos || !count) return BK_EARG;
    *count = 0;
    bk_point_info pi;
    BK_TRY(bk_query_point(q, 0, pos, &pi));
    if (q->info.cluster_count && pi.cluster < 0) return BK_OK;   /* in solid / outside: nothing */
    uint8_t *seen = bk_calloc(((size_t)q->info.face_count + 7) / 8 + 1, 1);
    if (!seen) return BK_ENOMEM;
    row_buf rb = {.p = NULL};
    bk_result r = BK_OK;
    if (q->info.cluster_count) r = row_get(q, pi.cluster, &rb);
    for (uint32_t l = 0; r == BK_OK && l < q->info.leaf_count; l++) {
        if (q->info.cluster_count) {
            int32_t c = q->ops->leaf_cluster(q->state, (int32_t)l);
            if (c < 0 || (uint32_t)c >= q->info.cluster_count || !bit(rb.p, (uint32_t)c)) continue;
        }
        uint32_t n = q->ops->leaf_face_count(q->state, (int32_t)l);
        for (uint32_t i = 0; i < n; i++) {
            uint32_t fi = q->ops->leaf_face(q->state, (int32_t)l, i);
            if (fi < q->info.face_count) seen[fi >> 3] |= (uint8_t)(1u << (fi & 7));
        }
    }
    row_done(&rb);
    uint32_t total = 0;
    for (uint32_t fi = 0; r == BK_OK && fi < q->info.face_count; fi++) {
        if (!bit(seen, fi)) continue;
        if (faces && total < cap) faces[total] = fi;
        total++;
    }
    bk_free(seen);
    *count = total;
    return r;
}

bk_result bk_query_trace(const bk_query *q, const bk_trace_params *p, const float start[3],
                         const float end[3], bk_trace_result *out)
{
    if (!q || !start || !end || !out) return BK_EARG;
    bk_trace_params tp;
    if (p) tp = *p;
    else memset(&tp, 0, sizeof tp);
    if (tp.model >= q->info.model_count) return BK_EINDEX;
    if (!bk_finite3(start) || !bk_finite3(end) || !bk_finite3(tp.mins) || !bk_finite3(tp.maxs)) return BK_EARG;
    for (int i = 0; i < 3; i++)
        if (tp.mins[i] > tp.maxs[i]) return BK_EARG;
    if (q->info.hull_count && (tp.hull < -1 || (tp.hull >= 0 && (uint32_t)tp.hull >= q->info.hull_count)))
        return BK_EINDEX;
    if (tp.mask == 0) tp.mask = BK_MASK_PLAYERSOLID;
    memset(out, 0, sizeof *out);
    out->fraction = 1.0f;
    out->surface = -1;
    memcpy(out->endpos, end, sizeof out->endpos);
    return q->ops->trace(q->state, &tp, start, end, out);
}

const char *bk_query_surface_name(const bk_query *q, int32_t surface)
{
    if (!q || surface < 0) return NULL;
    return q->ops->surface_name ? q->ops->surface_name(q->file, surface) : NULL;
}
