/*
 * bspkit — Quake 3 IBSP (v46 Quake III Arena / OpenArena / Nexuiz, v47 RTCW / Wolf:ET).
 *
 * The decoded, validated map of a bk_file of format BK_FORMAT_QUAKE3:
 *     const bk_q3_map *m = bk_q3_map_of(file);
 * Point location, visibility and traces are in bspkit/query.h, the same for every BSP family.
 * Every array below has been range-checked by the loader: every index a structure holds points
 * inside its target array. Arrays are owned by the bk_file; the raw lightmap, light grid and
 * visibility bytes point into the file's own data (which must outlive the bk_file when it was
 * loaded with bk_file_load_memory).
 *
 * The layouts follow Quake III's code/qcommon/qfiles.h (dshader_t, dplane_t, dnode_t, dleaf_t,
 * dmodel_t, dbrush_t, dbrushside_t, drawVert_t, dfog_t, dsurface_t).
 */
#ifndef BSPKIT_Q3_H
#define BSPKIT_Q3_H

#include "bspkit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* bk_options flag of Quake 3 scenes (bits beside bspkit.h's) */
enum {
    BK_OPT_SKIP_FLARES = 1u << 2, /* drop flare surfaces (default keeps them as points) */
};

/* Quake 3's own options, chained from bk_options.ext (the first of this type is read):
 *     bk_q3_options q3 = {.ext.type = BK_OPTIONS_Q3, .patch_level = 8};
 *     opt.ext = &q3.ext; */
enum { BK_OPTIONS_Q3 = 1 };      /* bk_options_ext types are unique across the headers */
typedef struct bk_q3_options {
    bk_options_ext ext;             /* .type = BK_OPTIONS_Q3 */
    int32_t patch_level;            /* patch subdivision per 3x3 piece edge, 1..64; 0 = default (4) */
} bk_q3_options;

enum {
    BK_Q3_LUMP_ENTITIES = 0, BK_Q3_LUMP_SHADERS, BK_Q3_LUMP_PLANES, BK_Q3_LUMP_NODES, BK_Q3_LUMP_LEAFS,
    BK_Q3_LUMP_LEAFSURFACES, BK_Q3_LUMP_LEAFBRUSHES, BK_Q3_LUMP_MODELS, BK_Q3_LUMP_BRUSHES,
    BK_Q3_LUMP_BRUSHSIDES, BK_Q3_LUMP_DRAWVERTS, BK_Q3_LUMP_DRAWINDEXES, BK_Q3_LUMP_FOGS,
    BK_Q3_LUMP_SURFACES, BK_Q3_LUMP_LIGHTMAPS, BK_Q3_LUMP_LIGHTGRID, BK_Q3_LUMP_VISIBILITY,
    BK_Q3_LUMP_COUNT
};

/* surface types (mapSurfaceType_t) */
enum { BK_Q3_MST_BAD = 0, BK_Q3_MST_PLANAR = 1, BK_Q3_MST_PATCH = 2, BK_Q3_MST_TRIANGLE_SOUP = 3, BK_Q3_MST_FLARE = 4,
       BK_Q3_MST_FOLIAGE = 5 /* Wolfenstein: ET (v47) only: checked, not drawn */ };

#define BK_Q3_LIGHTMAP_SIZE 128   /* lightmap pages in the lump are 128 x 128 RGB */

typedef struct bk_q3_shader {
    char name[65];
    int32_t surface_flags, content_flags;
} bk_q3_shader;

typedef struct bk_q3_plane {
    float normal[3];
    float dist;
} bk_q3_plane;

typedef struct bk_q3_node {
    int32_t plane;
    int32_t children[2];      /* >= 0: node; < 0: leaf -(child + 1) */
    int32_t mins[3], maxs[3];
} bk_q3_node;

typedef struct bk_q3_leaf {
    int32_t cluster;          /* -1: opaque */
    int32_t area;
    int32_t mins[3], maxs[3];
    int32_t first_leafsurface, num_leafsurfaces;
    int32_t first_leafbrush, num_leafbrushes;
} bk_q3_leaf;

typedef struct bk_q3_model {
    float mins[3], maxs[3];
    int32_t first_surface, num_surfaces;
    int32_t first_brush, num_brushes;
} bk_q3_model;

typedef struct bk_q3_brush {
    int32_t first_side, num_sides;
    int32_t shader;
} bk_q3_brush;

typedef struct bk_q3_brushside {
    int32_t plane;
    int32_t shader;
} bk_q3_brushside;

typedef struct bk_q3_vertex {
    float xyz[3];
    float st[2];              /* texture coordinates (0,0 = top-left) */
    float lm[2];              /* lightmap coordinates, 0..1 inside the surface's lightmap page */
    float normal[3];
    uint8_t color[4];
} bk_q3_vertex;

typedef struct bk_q3_fog {
    char shader[65];
    int32_t brush;
    int32_t visible_side;     /* -1 or a side index inside the brush */
} bk_q3_fog;

typedef struct bk_q3_surface {
    int32_t shader, fog, type;
    int32_t first_vert, num_verts;
    int32_t first_index, num_indexes;
    int32_t lightmap;         /* page, or < 0 (-3 vertex-lit, -1 none) */
    int32_t lm_x, lm_y, lm_w, lm_h;
    float lm_origin[3];
    float lm_vecs[3][3];      /* for flares: [0] colour; for planar: [2] normal */
    int32_t patch_w, patch_h;
} bk_q3_surface;

typedef struct bk_q3_lightgrid {
    float size[3];            /* worldspawn "gridsize" (default 64 64 128) */
    float origin[3];          /* world position of cell (0,0,0) */
    int32_t bounds[3];        /* cells per axis */
    uint64_t expected_cells;  /* bounds[0]*bounds[1]*bounds[2] */
    uint64_t cell_count;      /* cells in the lump (8 bytes each) */
    const uint8_t *cells;     /* ambient RGB, directed RGB, longitude, latitude; NULL if unusable */
} bk_q3_lightgrid;

typedef struct bk_q3_map {
    int32_t version;          /* 46 or 47 */
    bk_q3_shader *shaders;          uint32_t shader_count;
    bk_q3_plane *planes;            uint32_t plane_count;
    bk_q3_node *nodes;              uint32_t node_count;
    bk_q3_leaf *leafs;              uint32_t leaf_count;
    int32_t *leafsurfaces;          uint32_t leafsurface_count;
    int32_t *leafbrushes;           uint32_t leafbrush_count;
    bk_q3_model *models;            uint32_t model_count;
    bk_q3_brush *brushes;           uint32_t brush_count;
    bk_q3_brushside *brushsides;    uint32_t brushside_count;
    bk_q3_vertex *verts;            uint32_t vert_count;
    int32_t *indexes;               uint32_t index_count;
    bk_q3_fog *fogs;                uint32_t fog_count;
    bk_q3_surface *surfaces;        uint32_t surface_count;
    /* lightmap pages in the lump: lightmap_count * 128*128*3 bytes, RGB rows top first */
    const uint8_t *lightmaps;       uint32_t lightmap_count;
    /* the lump is empty but surfaces use pages 0..external_lightmaps-1: the map was built with
     * external lightmaps (maps/NAME/lm_NNNN.tga), as many Nexuiz maps are */
    uint32_t external_lightmaps;
    uint32_t patch_count, flare_count, foliage_count;
    bk_q3_lightgrid grid;
    /* visibility: cluster_count clusters, bytes_per_cluster bytes of PVS bits each */
    int32_t cluster_count, bytes_per_cluster;
    const uint8_t *vis;             /* NULL when the map has no visibility data */
} bk_q3_map;

/* The decoded map of f, or NULL if f is not a Quake 3 map. */
const bk_q3_map *bk_q3_map_of(const bk_file *f);

/* Light at a point from the light grid, trilinearly interpolated between the 8 surrounding
 * cells (cells inside walls, all black, are skipped, as the engine does). Colours 0..255 as
 * stored (no overbright shift); dir is the unit vector towards the light. BK_ENOTFOUND when the
 * map has no usable light grid. */
typedef struct bk_q3_light {
    float ambient[3];
    float directed[3];
    float dir[3];
} bk_q3_light;
bk_result bk_q3_lightgrid_sample(const bk_q3_map *m, const float pos[3], bk_q3_light *out);

#ifdef __cplusplus
}
#endif
#endif
