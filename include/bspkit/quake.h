/*
 * bspkit — typed view of Quake 1 (BSP29), BSP2 / 2PSB and GoldSrc (BSP30) maps, and WAD3 archives.
 *
 * Get it with bk_quake_bsp_of(f) after a successful load, and bk_wad3_of(f) for a WAD. Every index inside has been checked by the loader:
 * a loaded file's planes, children, edges, surfedges, marksurfaces, texinfo, miptex and lightmap
 * offsets all point inside their arrays. Pointers into the file's bytes live as long as the file.
 * Fields are widened to the BSP2 sizes (32-bit indices, float bounding boxes) for every variant.
 */
#ifndef BSPKIT_QUAKE_H
#define BSPKIT_QUAKE_H

#include "bspkit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* header lump order (BSP29/BSP2/BSP30; Blue Shift swaps the first two header entries) */
enum {
    BK_Q1_LUMP_ENTITIES = 0, BK_Q1_LUMP_PLANES, BK_Q1_LUMP_TEXTURES, BK_Q1_LUMP_VERTICES,
    BK_Q1_LUMP_VISIBILITY, BK_Q1_LUMP_NODES, BK_Q1_LUMP_TEXINFO, BK_Q1_LUMP_FACES,
    BK_Q1_LUMP_LIGHTING, BK_Q1_LUMP_CLIPNODES, BK_Q1_LUMP_LEAFS, BK_Q1_LUMP_MARKSURFACES,
    BK_Q1_LUMP_EDGES, BK_Q1_LUMP_SURFEDGES, BK_Q1_LUMP_MODELS, BK_Q1_LUMP_COUNT
};

enum { BK_Q1_VARIANT_NONE = 0, BK_Q1_VARIANT_BSP2 = 1, BK_Q1_VARIANT_2PSB = 2 };

#define BK_Q1_TEX_SPECIAL 1u   /* texinfo flag: sky / liquid, no lightmap */

typedef struct bk_q1_plane {
    float normal[3];
    float dist;
    int32_t type;
} bk_q1_plane;

typedef struct bk_q1_miptex {
    char name[17];
    uint32_t width, height;
    uint32_t mip_offsets[4];       /* relative to the miptex header; all 0 = external texture */
    int32_t dir_offset;            /* offset in the texture lump; -1 = slot left empty by the compiler */
    uint64_t file_offset;          /* absolute offset of the 40-byte header, or BK_NO_OFFSET */
    bool embedded;                 /* pixels present in the map */
    const uint8_t *pixels;         /* mip 0: width*height palette indexes (NULL if not embedded) */
    const uint8_t *palette;        /* GoldSrc: palette_colors RGB triples; NULL for Quake (standard palette) */
    uint32_t palette_colors;
} bk_q1_miptex;

typedef struct bk_q1_node {
    int32_t plane;
    int32_t children[2];           /* >= 0 node, < 0 leaf ~child */
    float mins[3], maxs[3];
    uint32_t first_face, face_count;
} bk_q1_node;

typedef struct bk_q1_texinfo {
    float vecs[2][4];              /* s = dot(v, vecs[0].xyz) + vecs[0][3]; t likewise */
    int32_t miptex;
    uint32_t flags;
} bk_q1_texinfo;

typedef struct bk_q1_face {
    uint32_t plane;
    uint32_t side;                 /* non-zero: the face looks along -normal */
    uint32_t first_edge;           /* into surfedges */
    uint32_t edge_count;
    uint32_t texinfo;
    uint8_t styles[4];             /* 255 = unused */
    int32_t light_ofs;             /* byte offset in lighting, -1 = none */
    /* computed by the loader with the engines' extents rule */
    int32_t tex_mins[2];           /* texture-space origin of luxel (0,0) */
    uint32_t lm_size[2];           /* luxels: extents / luxel size + 1 */
    uint32_t lm_shift;             /* log2 luxel size (4 = 16 units; BSPX LMSHIFT may change it) */
    uint32_t lm_styles;            /* styles before the first 255 */
} bk_q1_face;

typedef struct bk_q1_clipnode {
    int32_t plane;
    int32_t children[2];           /* >= 0 clipnode, < 0 contents */
} bk_q1_clipnode;

typedef struct bk_q1_leaf {
    int32_t contents;
    int32_t vis_ofs;               /* -1 = no PVS */
    float mins[3], maxs[3];
    uint32_t first_marksurface, marksurface_count;
    uint8_t ambient[4];
} bk_q1_leaf;

typedef struct bk_q1_edge {
    uint32_t v[2];
} bk_q1_edge;

typedef struct bk_q1_model {
    float mins[3], maxs[3], origin[3];
    int32_t headnode[4];           /* [0] node tree, [1..3] clipnode hulls */
    int32_t visleafs;
    int32_t first_face, face_count;
} bk_q1_model;

typedef struct bk_q1_bspx_lump {
    char name[25];
    uint64_t offset, length;       /* absolute */
} bk_q1_bspx_lump;

typedef struct bk_quake_bsp {
    bk_format format;              /* QUAKE1, BSP2 or GOLDSRC */
    int32_t version;               /* 29 or 30 (BSP2 / 2PSB report 29) */
    uint32_t variant;              /* BK_Q1_VARIANT_* */
    bool bshift;                   /* Blue Shift swapped entities / planes header entries */
    uint64_t lump_offset[BK_Q1_LUMP_COUNT], lump_length[BK_Q1_LUMP_COUNT];

    const char *entity_text;       /* up to the first NUL, not terminated */
    size_t entity_len;

    bk_q1_plane *planes;       uint32_t plane_count;
    bk_q1_miptex *miptex;      uint32_t miptex_count;
    float *vertices;           uint32_t vertex_count;     /* 3 per vertex */
    const uint8_t *visibility; size_t visibility_size;
    bk_q1_node *nodes;         uint32_t node_count;
    bk_q1_texinfo *texinfo;    uint32_t texinfo_count;
    bk_q1_face *faces;         uint32_t face_count;
    const uint8_t *lighting;   size_t lighting_size;
    uint32_t lighting_bpp;     /* bytes per luxel: 3 GoldSrc / BSPX RGBLIGHTING, 1 Quake */
    bk_q1_clipnode *clipnodes; uint32_t clipnode_count;
    bk_q1_leaf *leafs;         uint32_t leaf_count;
    uint32_t *marksurfaces;    uint32_t marksurface_count;
    bk_q1_edge *edges;         uint32_t edge_count;
    int32_t *surfedges;        uint32_t surfedge_count;
    bk_q1_model *models;       uint32_t model_count;
    bk_q1_bspx_lump *bspx;     uint32_t bspx_count;
} bk_quake_bsp;

/* ---- WAD3 ---------------------------------------------------------------------------- */
enum {
    BK_WAD_TYPE_DECAL = 0x40,      /* miptex layout; palette's last colour tints, index = alpha */
    BK_WAD_TYPE_QPIC = 0x42,
    BK_WAD_TYPE_MIPTEX = 0x43,
    BK_WAD_TYPE_FONT = 0x46
};

typedef struct bk_wad3_entry {
    char name[17];
    uint32_t filepos, disksize, size;
    uint8_t type, compression;
    uint32_t width, height;        /* from the entry's own header, 0 if unknown type */
} bk_wad3_entry;

typedef struct bk_wad3 {
    bk_wad3_entry *entries;
    uint32_t count;
} bk_wad3;

/* Index of the entry named name (case-insensitive), or -1. */
int32_t bk_wad3_find(const bk_wad3 *w, const char *name);

/* The standard Quake palette (256 RGB triples) used for BSP29 / BSP2 textures. */
const uint8_t *bk_quake_palette(void);

/* The decoded map of a loaded Quake 1 / BSP2 / GoldSrc file, or NULL (every family has one such
 * accessor: bk_quake_bsp_of, bk_wad3_of, bk_q3_map_of, bk_source_map_of, bk_dpm_model_of). */
const bk_quake_bsp *bk_quake_bsp_of(const bk_file *f);
/* The directory of a loaded WAD3, or NULL. */
const bk_wad3 *bk_wad3_of(const bk_file *f);

#ifdef __cplusplus
}
#endif
#endif
