/* The query front door: opens the family backend that matches a loaded file, checks the
 * caller's arguments, and answers the format-neutral questions (contents names, "can A see B",
 * the faces visible from a point) from the backend's rows and leaves. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "query_families.h"
#include "query_internal.h"

static const char *const k_contents_names[32] = {
    "solid", "window", "grate", "water", "slime", "lava", "sky", "playerclip", "monsterclip", "fog",
    "ladder", "translucent", "current", "origin", "trigger", "detail", "areaportal", "opaque",
    "moveable", "debris", "body", "nodrop", "teleporter", NULL, NULL, NULL, NULL, NULL, NULL, NULL,
    NULL, "other"};

const char *bk_contents_name(uint32_t bit)
{
    if (bit == 0 || (bit & (bit - 1))) return NULL;
    return k_contents_names[__builtin_ctz(bit)];
}

size_t bk_contents_format(uint32_t contents, char *buf, size_t cap)
{
    size_t n = 0;
    if (!buf || cap == 0) return 0;
    buf[0] = 0;
    if (contents == 0) {
        strncpy(buf, "empty", cap - 1);
        buf[cap - 1] = 0;
        return strlen(buf);
    }
    for (int i = 0; i < 32; i++) {
        if (!(contents & (1u << i))) continue;
        const char *name = k_contents_names[i] ? k_contents_names[i] : "other";
        size_t len = strlen(name) + (n ? 1 : 0);
        if (n + len >= cap) break;
        if (n) buf[n++] = '|';
        memcpy(buf + n, name, strlen(name));
        n += strlen(name);
        buf[n] = 0;
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
        int found = 0;
        if (len == 5 && strncmp(p, "empty", 5) == 0) found = 1;
        for (int i = 0; i < 32 && !found; i++) {
            const char *name = k_contents_names[i];
            if (name && strlen(name) == len && strncmp(p, name, len) == 0) {
                bits |= 1u << i;
                found = 1;
            }
        }
        if (!found) return BK_EARG;
        p = *e ? e + 1 : e;
    }
    *out = bits;
    return BK_OK;
}

static const bk_query_ops *ops_for(bk_format f)
{
    switch (f) {
    case BK_FORMAT_QUAKE1:
    case BK_FORMAT_BSP2:
    case BK_FORMAT_GOLDSRC: return &bk_query_ops_quake;
#ifdef BK_HAVE_Q3_QUERY
    case BK_FORMAT_QUAKE3: return &bk_query_ops_q3;
#endif
#ifdef BK_HAVE_SOURCE_QUERY
    case BK_FORMAT_SOURCE: return &bk_query_ops_source;
#endif
    default: return NULL;
    }
}

bk_result bk_query_open(const bk_file *f, const bk_options *opt, bk_query **out)
{
    if (!out) return BK_EARG;
    *out = NULL;
    bk_ctx ctx;
    bk_ctx_init(&ctx, opt, false);
    if (!f) return BK_EARG;
    if (!ctx.file && f->name) ctx.file = f->name;
    const bk_query_ops *ops = ops_for(f->format);
    if (!ops) {
        bk_report(&ctx, BK_SEV_ERROR, BK_EUNSUPPORTED, NULL, BK_NO_INDEX, BK_NO_OFFSET,
                  "%s files have no %s to query",
                  bk_format_name(f->format),
                  f->format == BK_FORMAT_WAD3 || f->format == BK_FORMAT_DPM ? "BSP tree"
                                                                             : "query backend in this build");
        return BK_EUNSUPPORTED;
    }
    bk_query *q = calloc(1, sizeof *q);
    if (!q) return BK_ENOMEM;
    q->file = f;
    q->ops = ops;
    bk_result r = ops->open(f, &ctx, &q->state, &q->info);
    if (r != BK_OK) {
        free(q);
        return r;
    }
    *out = q;
    return BK_OK;
}

void bk_query_free(bk_query *q)
{
    if (!q) return;
    if (q->ops && q->ops->destroy) q->ops->destroy(q->state);
    free(q);
}

void bk_query_get_info(const bk_query *q, bk_query_info *out)
{
    if (!out) return;
    if (!q) {
        memset(out, 0, sizeof *out);
        return;
    }
    *out = q->info;
}

bk_result bk_query_point(const bk_query *q, uint32_t model, const float pos[3], bk_point_info *out)
{
    if (!q || !pos || !out) return BK_EARG;
    if (!bk_finite3(pos)) return BK_EARG;
    if (model >= q->info.model_count) return BK_EINDEX;
    return q->ops->point(q->state, model, pos, out);
}

size_t bk_query_row_bytes(const bk_query *q)
{
    return q ? ((size_t)q->info.cluster_count + 7) / 8 : 0;
}

bk_result bk_query_vis_row(const bk_query *q, bk_vis_kind kind, int32_t cluster, uint8_t *row)
{
    if (!q || !row || (kind != BK_VIS_PVS && kind != BK_VIS_PAS)) return BK_EARG;
    if (q->info.cluster_count == 0) return kind == BK_VIS_PAS ? BK_EUNSUPPORTED : BK_OK;
    if (cluster < 0 || (uint32_t)cluster >= q->info.cluster_count) return BK_EINDEX;
    if (kind == BK_VIS_PAS && !q->info.has_pas) return BK_EUNSUPPORTED;
    return q->ops->vis_row(q->state, kind, cluster, row);
}

int bk_query_cluster_visible(const bk_query *q, int32_t a, int32_t b)
{
    if (!q) return 0;
    if (a < 0 || b < 0 || q->info.cluster_count == 0) return 1;
    if ((uint32_t)a >= q->info.cluster_count || (uint32_t)b >= q->info.cluster_count) return 1;
    size_t rb = bk_query_row_bytes(q);
    uint8_t stack[4096];
    uint8_t *row = rb <= sizeof stack ? stack : malloc(rb);
    if (!row) return 1;
    int vis = 1;
    if (q->ops->vis_row(q->state, BK_VIS_PVS, a, row) == BK_OK) vis = (row[b >> 3] >> (b & 7)) & 1;
    if (row != stack) free(row);
    return vis;
}

int bk_query_points_visible(const bk_query *q, const float a[3], const float b[3])
{
    bk_point_info pa, pb;
    if (!q || !a || !b) return 0;
    if (bk_query_point(q, 0, a, &pa) != BK_OK || bk_query_point(q, 0, b, &pb) != BK_OK) return 0;
    return bk_query_cluster_visible(q, pa.cluster, pb.cluster);
}

bk_result bk_query_visible_faces(const bk_query *q, const float pos[3], uint32_t *faces, uint32_t cap,
                                 uint32_t *count)
{
    if (!q || !pos || !count) return BK_EARG;
    *count = 0;
    bk_point_info pi;
    BK_TRY(bk_query_point(q, 0, pos, &pi));
    size_t rb = bk_query_row_bytes(q);
    uint8_t *row = rb ? malloc(rb) : NULL;
    uint8_t *seen = calloc((q->info.face_count + 7) / 8 + 1, 1);
    if ((rb && !row) || !seen) {
        free(row);
        free(seen);
        return BK_ENOMEM;
    }
    /* no vis data: everything; solid / outside the vis leaves: nothing */
    int all = rb == 0;
    if (!all && pi.cluster >= 0 && q->ops->vis_row(q->state, BK_VIS_PVS, pi.cluster, row) != BK_OK) all = 1;
    for (uint32_t leaf = 0; leaf < q->info.leaf_count; leaf++) {
        int32_t c = q->ops->leaf_cluster(q->state, (int32_t)leaf);
        if (c < 0) continue;
        if (!all && (pi.cluster < 0 || !((row[c >> 3] >> (c & 7)) & 1))) continue;
        uint32_t n = q->ops->leaf_face_count(q->state, (int32_t)leaf);
        for (uint32_t i = 0; i < n; i++) {
            uint32_t fi = q->ops->leaf_face(q->state, (int32_t)leaf, i);
            if (fi < q->info.face_count) seen[fi >> 3] |= (uint8_t)(1u << (fi & 7));
        }
    }
    uint32_t total = 0;
    for (uint32_t fi = 0; fi < q->info.face_count; fi++) {
        if (!((seen[fi >> 3] >> (fi & 7)) & 1)) continue;
        if (faces && total < cap) faces[total] = fi;
        total++;
    }
    *count = total;
    free(row);
    free(seen);
    return BK_OK;
}

bk_result bk_query_trace(const bk_query *q, const bk_trace_params *p, const float start[3],
                         const float end[3], bk_trace_result *out)
{
    if (!q || !start || !end || !out) return BK_EARG;
    bk_trace_params def;
    if (!p) {
        memset(&def, 0, sizeof def);
        p = &def;
    }
    if (!bk_finite3(start) || !bk_finite3(end) || !bk_finite3(p->mins) || !bk_finite3(p->maxs)) return BK_EARG;
    for (int i = 0; i < 3; i++)
        if (p->mins[i] > p->maxs[i]) return BK_EARG;
    if (p->model >= q->info.model_count) return BK_EINDEX;
    return q->ops->trace(q->state, p, start, end, out);
}
