/*
 * bspkit/query.h — point location, PVS / PAS and traces: one interface for every BSP family
 * (GoldSrc / Quake 1 / BSP2, Quake 3, Source).
 *
 *     bk_query *q;
 *     if (bk_query_open(file, &opt, &q) != BK_OK) ...;     // BK_EUNSUPPORTED for WAD3 / DPM
 *     bk_point_info pi;  bk_query_point(q, 0, pos, &pi);
 *     bk_trace_params tp = {0};  tp.hull = 1;             // or tp.mins / tp.maxs for a box
 *     bk_trace_result tr; bk_query_trace(q, &tp, from, to, &tr);
 *
 * A bk_query is a read-only view over a loaded bk_file (which must outlive it). Building it may
 * allocate (decoded visibility offsets, precomputed brush bounds); the queries themselves allocate
 * nothing and may run concurrently from many threads on one bk_query.
 *
 * Clusters: Quake 3 and Source store visibility per cluster. GoldSrc / Quake 1 store it per leaf;
 * there the cluster of leaf L (1 <= L <= the world's vis leaves) is L - 1, and leaf 0 (the shared
 * solid leaf) has cluster -1. Rows are bit arrays over clusters, bit c = (row[c >> 3] >> (c & 7)) & 1.
 * Coordinates are engine units, Z up, as stored in the file.
 */
#ifndef BSPKIT_QUERY_H
#define BSPKIT_QUERY_H

#include "bspkit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Format-neutral contents bits. Each family maps its own contents values / flags onto these;
 * the native value is reported beside them. */
enum {
    BK_CONTENTS_EMPTY = 0,
    BK_CONTENTS_SOLID = 1u << 0,
    BK_CONTENTS_WINDOW = 1u << 1,       /* Source CONTENTS_WINDOW */
    BK_CONTENTS_GRATE = 1u << 2,        /* Source CONTENTS_GRATE */
    BK_CONTENTS_WATER = 1u << 3,
    BK_CONTENTS_SLIME = 1u << 4,
    BK_CONTENTS_LAVA = 1u << 5,
    BK_CONTENTS_SKY = 1u << 6,          /* Quake / GoldSrc CONTENTS_SKY */
    BK_CONTENTS_PLAYERCLIP = 1u << 7,
    BK_CONTENTS_MONSTERCLIP = 1u << 8,
    BK_CONTENTS_FOG = 1u << 9,          /* Quake 3 CONTENTS_FOG */
    BK_CONTENTS_LADDER = 1u << 10,
    BK_CONTENTS_TRANSLUCENT = 1u << 11,
    BK_CONTENTS_CURRENT = 1u << 12,     /* GoldSrc current_* / Source CONTENTS_CURRENT_* */
    BK_CONTENTS_ORIGIN = 1u << 13,
    BK_CONTENTS_TRIGGER = 1u << 14,     /* Q3 / Source trigger */
    BK_CONTENTS_DETAIL = 1u << 15,
    BK_CONTENTS_AREAPORTAL = 1u << 16,
    BK_CONTENTS_OPAQUE = 1u << 17,      /* Source CONTENTS_OPAQUE / blocks LOS */
    BK_CONTENTS_MOVEABLE = 1u << 18,
    BK_CONTENTS_DEBRIS = 1u << 19,
    BK_CONTENTS_BODY = 1u << 20,        /* Q3 body / Source monster */
    BK_CONTENTS_NODROP = 1u << 21,
    BK_CONTENTS_TELEPORTER = 1u << 22
};
/* a native value with no neutral name (a macro: bit 31 is outside an enum's int range) */
#define BK_CONTENTS_OTHER 0x80000000u
/* Default trace mask: what a player collides with (solid, window, grate, playerclip, body). */
#define BK_MASK_PLAYERSOLID (BK_CONTENTS_SOLID | BK_CONTENTS_WINDOW | BK_CONTENTS_GRATE | \
                             BK_CONTENTS_PLAYERCLIP | BK_CONTENTS_MOVEABLE | BK_CONTENTS_BODY)
/* Only what is solid to everything (bullets, line of sight in the engines' SOLID mask). */
#define BK_MASK_SOLID (BK_CONTENTS_SOLID | BK_CONTENTS_WINDOW | BK_CONTENTS_GRATE | BK_CONTENTS_MOVEABLE)

/* Name of one bit ("solid", "water", ...), or NULL if bit is not exactly one known bit. */
const char *bk_contents_name(uint32_t bit);
/* "empty" or the set names joined by '|' ("water|current"); always NUL-terminates buf. */
size_t bk_contents_format(uint32_t contents, char *buf, size_t cap);
/* Parse "solid|playerclip" (or "solid,playerclip") into bits; BK_EARG on an unknown name. */
bk_result bk_contents_parse(const char *text, uint32_t *out);

typedef struct bk_query bk_query;

bk_result bk_query_open(const bk_file *f, const bk_options *opt, bk_query **out);
void bk_query_free(bk_query *q);

typedef struct bk_query_info {
    bk_format format;
    uint32_t model_count;      /* model 0 = world, then brush models (*1, *2, ...) */
    uint32_t leaf_count;
    uint32_t cluster_count;    /* 0 when the map has no visibility data (everything visible) */
    uint32_t face_count;
    uint32_t hull_count;       /* GoldSrc / Quake: 4 (hulls 0..3); 0 for box-tracing families */
    bool has_pas;              /* bk_query_vis_row(..., BK_VIS_PAS, ...) has data */
} bk_query_info;
void bk_query_get_info(const bk_query *q, bk_query_info *out);

typedef struct bk_point_info {
    int32_t leaf;              /* index into the leaves lump */
    uint32_t contents;         /* BK_CONTENTS_* */
    int32_t native_contents;   /* the family's own value (GoldSrc / Quake CONTENTS_* negative
                                * numbers, Quake 3 / Source bit flags) */
    int32_t cluster;           /* -1: none (solid / outside / no vis) */
    int32_t area;              /* Quake 3 / Source area, -1 elsewhere */
    float leaf_mins[3], leaf_maxs[3];  /* the leaf's stored bounds */
} bk_point_info;

/* The leaf holding pos in model's tree (0 = world). Fast: a walk down the tree, no allocation.
 * BK_EINDEX for a model out of range. */
bk_result bk_query_point(const bk_query *q, uint32_t model, const float pos[3], bk_point_info *out);
/* bk_query_point for count points at once: pos holds 3 floats a point, out count entries; the
 * answers are bk_query_point's, found several walks side by side (the way to ask for many
 * points: 2-3x the rate of one call a point on Quake 3 and Source maps). BK_EARG when a position
 * is not finite (nothing written; *bad gets its index when bad is not NULL); otherwise every
 * entry is filled and the first failure (BK_EINDEX: a broken tree) is returned with its index. */
bk_result bk_query_points(const bk_query *q, uint32_t model, size_t count, const float *pos, bk_point_info *out,
                          size_t *bad);

/* What the PVS row of a cluster holds: visible_clusters = its set bits; visible_leaves = the
 * leaves whose cluster is among them (GoldSrc / Quake: the set bits of the leaf's own row over
 * the world's vis leaves). With no visibility data, everything. cluster -1: 0 and 0. */
bk_result bk_query_cluster_counts(const bk_query *q, int32_t cluster, uint32_t *visible_leaves,
                                  uint32_t *visible_clusters);

/* Leaf leaf of the world tree (0 <= leaf < leaf_count): its stored bounds (as bk_point_info's
 * leaf_mins / leaf_maxs) and its cluster (may be NULL; -1: none), e.g. to draw only the leaves of
 * a PVS row. BK_EINDEX out of range. */
bk_result bk_query_leaf_bounds(const bk_query *q, int32_t leaf, float mins[3], float maxs[3], int32_t *cluster);

typedef enum bk_vis_kind { BK_VIS_PVS = 0, BK_VIS_PAS = 1 } bk_vis_kind;

/* Bytes a row needs: (cluster_count + 7) / 8. */
size_t bk_query_row_bytes(const bk_query *q);
/* Decode cluster's row into row (bk_query_row_bytes bytes). With no visibility data every bit is
 * set. A row whose offset is out of range or whose run-length data is truncated is reported
 * through opt->diag given to bk_query_open (located: lump, cluster, offset) when the query is
 * opened, and decodes as all-visible (the engines' fallback); the call returns BK_OK.
 * BK_EUNSUPPORTED for PAS where the map stores none (GoldSrc / Quake compute it: see has_pas). */
bk_result bk_query_vis_row(const bk_query *q, bk_vis_kind kind, int32_t cluster, uint8_t *row);
/* true if cluster b is in a's PVS (or either is -1 / no vis data). */
bool bk_query_cluster_visible(const bk_query *q, int32_t a, int32_t b);
/* true if the leaf holding b is potentially visible from the leaf holding a (world tree). */
bool bk_query_points_visible(const bk_query *q, const float a[3], const float b[3]);
/* The faces (indices into the faces / surfaces lump) of every leaf in the PVS of the leaf holding
 * pos, each once, in ascending order. faces may be NULL to count; *count receives the total,
 * at most cap are written. */
bk_result bk_query_visible_faces(const bk_query *q, const float pos[3], uint32_t *faces, uint32_t cap,
                                 uint32_t *count);

typedef struct bk_trace_params {
    uint32_t model;            /* 0 = world */
    int32_t hull;              /* GoldSrc / Quake: clip hull 0 point, 1 standing, 2 large,
                                * 3 crouching (Quake 1: 0..2); -1: the hull the engine picks for
                                * the box mins/maxs (the move is then offset as the engine does);
                                * ignored by the box families */
    float mins[3], maxs[3];    /* Quake 3 / Source: the swept box (all zero = a point / ray) */
    uint32_t mask;             /* BK_CONTENTS_* to stop at; 0 = BK_MASK_PLAYERSOLID */
} bk_trace_params;

typedef struct bk_trace_result {
    float fraction;            /* 0..1 of the way from start to end before the hit (1 = no hit) */
    float endpos[3];
    float normal[3];           /* the plane hit (zero when fraction == 1) */
    float dist;
    uint32_t contents;         /* BK_CONTENTS_* of what was hit (or of the start when startsolid) */
    int32_t native_contents;
    bool startsolid;           /* the start lies in something solid */
    bool allsolid;             /* the whole move lies in something solid */
    int32_t surface;           /* Quake 3 / Source: the brush side's texture / texinfo, or -1 */
} bk_trace_result;

/* The texture / shader name of a trace result's surface (Quake 3: the shader; Source: the
 * material of the texinfo), or NULL (GoldSrc / Quake hulls carry none, or surface is -1). */
const char *bk_query_surface_name(const bk_query *q, int32_t surface);

/* Sweep from start to end. Never allocates. BK_EINDEX for a model or hull out of range. */
bk_result bk_query_trace(const bk_query *q, const bk_trace_params *p, const float start[3],
                         const float end[3], bk_trace_result *out);

#ifdef __cplusplus
}
#endif
#endif
