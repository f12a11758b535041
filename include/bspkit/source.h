/*
 * bspkit — Source engine VBSP maps (versions 17, 19, 20, 21; both v21 lump-table layouts).
 *
 * bk_source_map_of() gives the decoded, validated map of a loaded file. Every array below is
 * checked: indices stored in one array point inside the array they name. LZMA-compressed lumps
 * and game lumps are decoded already (bk_source_lump.data holds the decoded bytes).
 * Coordinates are engine units, Z up, as stored in the file.
 */
#ifndef BSPKIT_SOURCE_H
#define BSPKIT_SOURCE_H

#include "bspkit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* bk_options flags of Source scenes (bits beside bspkit.h's) */
enum {
    BK_OPT_NO_PROPS = 1u << 3, /* no static-prop nodes */
    BK_OPT_HDR = 1u << 8,      /* the HDR lighting (lighting_hdr, faces_hdr) where a map has both; without
                                * it the LDR lighting, and the HDR one only where the LDR lump is empty.
                                * HDR lighting is exposed as the engine's auto exposure settles
                                * (docs/source.md) */
    BK_OPT_NO_SKY3D = 1u << 9, /* no "skybox_3d" node (the area around sky_camera drawn scaled around
                                * the map, as the engine draws its 3D skybox) */
};

enum {
    BK_SRC_LUMP_ENTITIES = 0, BK_SRC_LUMP_PLANES = 1, BK_SRC_LUMP_TEXDATA = 2, BK_SRC_LUMP_VERTEXES = 3,
    BK_SRC_LUMP_VISIBILITY = 4, BK_SRC_LUMP_NODES = 5, BK_SRC_LUMP_TEXINFO = 6, BK_SRC_LUMP_FACES = 7,
    BK_SRC_LUMP_LIGHTING = 8, BK_SRC_LUMP_OCCLUSION = 9, BK_SRC_LUMP_LEAFS = 10, BK_SRC_LUMP_EDGES = 12,
    BK_SRC_LUMP_SURFEDGES = 13,
    BK_SRC_LUMP_MODELS = 14, BK_SRC_LUMP_WORLDLIGHTS = 15, BK_SRC_LUMP_LEAFFACES = 16, BK_SRC_LUMP_LEAFBRUSHES = 17,
    BK_SRC_LUMP_BRUSHES = 18, BK_SRC_LUMP_BRUSHSIDES = 19, BK_SRC_LUMP_AREAS = 20,
    BK_SRC_LUMP_AREAPORTALS = 21, BK_SRC_LUMP_DISPINFO = 26, BK_SRC_LUMP_ORIGINALFACES = 27,
    BK_SRC_LUMP_DISP_VERTS = 33, BK_SRC_LUMP_GAME_LUMP = 35, BK_SRC_LUMP_PRIMITIVES = 37,
    BK_SRC_LUMP_PAKFILE = 40, BK_SRC_LUMP_CLIPPORTALVERTS = 41, BK_SRC_LUMP_CUBEMAPS = 42,
    BK_SRC_LUMP_TEXDATA_STRING_DATA = 43, BK_SRC_LUMP_TEXDATA_STRING_TABLE = 44, BK_SRC_LUMP_OVERLAYS = 45,
    BK_SRC_LUMP_DISP_TRIS = 48, BK_SRC_LUMP_WATEROVERLAYS = 50, BK_SRC_LUMP_LIGHTING_HDR = 53, BK_SRC_LUMP_WORLDLIGHTS_HDR = 54,
    BK_SRC_LUMP_FACES_HDR = 58,
    BK_SRC_LUMP_COUNT = 64
};

/* texinfo flags used by the scene builder */
enum {
    BK_SRC_SURF_LIGHT = 0x1, BK_SRC_SURF_SKY2D = 0x2, BK_SRC_SURF_SKY = 0x4, BK_SRC_SURF_WARP = 0x8,
    BK_SRC_SURF_TRANS = 0x10, BK_SRC_SURF_TRIGGER = 0x40, BK_SRC_SURF_NODRAW = 0x80, BK_SRC_SURF_HINT = 0x100,
    BK_SRC_SURF_SKIP = 0x200, BK_SRC_SURF_NOLIGHT = 0x400, BK_SRC_SURF_BUMPLIGHT = 0x800
};

typedef struct bk_source_lump {
    uint64_t offset, length;   /* where the lump lies in the file */
    int32_t version;           /* lump_t.version */
    uint32_t fourcc;           /* lump_t.fourCC (the uncompressed size for LZMA lumps) */
    bool compressed;           /* stored with Valve's LZMA header; data holds the decoded bytes */
    const uint8_t *data;       /* decoded bytes (NULL when empty, and while a compressed lump the
                                * loader did not read is still undecoded: bk_source_lump_bytes) */
    size_t size;               /* decoded size */
} bk_source_lump;

typedef struct bk_source_plane { float normal[3]; float dist; int32_t type; } bk_source_plane;

typedef struct bk_source_face {
    uint32_t planenum;
    uint8_t side, on_node;
    int32_t firstedge, numedges;
    int32_t texinfo;           /* -1: none */
    int32_t dispinfo;          /* -1: not a displacement */
    int32_t fog_volume;
    uint8_t styles[4];         /* 255: unused slot */
    int32_t lightofs;          /* byte offset into the lighting lump, -1: unlit */
    float area;
    int32_t lm_mins[2];        /* LightmapTextureMinsInLuxels */
    int32_t lm_size[2];        /* LightmapTextureSizeInLuxels (samples are size+1 per axis) */
    int32_t orig_face;         /* -1: none */
    uint32_t num_prims, first_prim;
    uint32_t smoothing_groups;
} bk_source_face;

typedef struct bk_source_texinfo {
    float tex_vecs[2][4];      /* texels: s = dot(pos, v.xyz) + v.w */
    float lm_vecs[2][4];       /* luxels */
    int32_t flags;             /* BK_SRC_SURF_* */
    int32_t texdata;           /* -1: none */
} bk_source_texinfo;

typedef struct bk_source_texdata {
    float reflectivity[3];
    int32_t name_id;
    int32_t width, height, view_width, view_height;
    const char *name;          /* material path (without "materials/" and ".vmt"), never NULL */
} bk_source_texdata;

typedef struct bk_source_node {
    int32_t planenum;
    int32_t children[2];       /* >= 0 node, < 0: leaf -1-child */
    int16_t mins[3], maxs[3];
    uint16_t firstface, numfaces;
    int16_t area;
} bk_source_node;

typedef struct bk_source_leaf {
    int32_t contents;
    int16_t cluster;           /* -1: outside */
    uint16_t area, flags;
    int16_t mins[3], maxs[3];
    uint16_t firstleafface, numleaffaces, firstleafbrush, numleafbrushes;
    int16_t leaf_water_data;
} bk_source_leaf;

typedef struct bk_source_model {
    float mins[3], maxs[3], origin[3];
    int32_t headnode, firstface, numfaces;
} bk_source_model;

typedef struct bk_source_brush { int32_t firstside, numsides, contents; } bk_source_brush;
typedef struct bk_source_brushside { uint16_t planenum; int16_t texinfo, dispinfo, bevel; } bk_source_brushside;
typedef struct bk_source_area { int32_t num_portals, first_portal; } bk_source_area;
typedef struct bk_source_areaportal {
    uint16_t portal_key, other_area, first_clip_vert, num_clip_verts;
    int32_t planenum;
} bk_source_areaportal;

typedef struct bk_source_dispinfo {
    float start[3];            /* startPosition: the corner the vertex grid starts at */
    int32_t vert_start, tri_start;
    int32_t power;             /* 2..4: (2^power+1)^2 vertices */
    int32_t min_tess;
    float smoothing_angle;
    int32_t contents;
    uint32_t map_face;
    int32_t lm_alpha_start, lm_sample_start;
} bk_source_dispinfo;

typedef struct bk_source_dispvert { float vec[3]; float dist; float alpha; } bk_source_dispvert;

/* Which optional static-prop fields the file's layout carries */
enum {
    BK_SPROP_FORCED_FADE = 1u << 0, BK_SPROP_DX_LEVEL = 1u << 1, BK_SPROP_CPU_GPU_LEVEL = 1u << 2,
    BK_SPROP_DIFFUSE = 1u << 3, BK_SPROP_DISABLE_X360 = 1u << 4, BK_SPROP_FLAGS_EX = 1u << 5,
    BK_SPROP_SCALE = 1u << 6, BK_SPROP_LIGHTMAP_RES = 1u << 7
};

/* A detail prop (gamebspfile.h DetailObjectLump_t, 'dprp' version 4, 52 bytes). */
enum { BK_DETAIL_MODEL = 0, BK_DETAIL_SPRITE = 1, BK_DETAIL_SHAPE_CROSS = 2, BK_DETAIL_SHAPE_TRI = 3 };
typedef struct bk_source_detail_prop {
    float origin[3], angles[3];       /* angles: pitch, yaw, roll in degrees */
    uint16_t model;                   /* type BK_DETAIL_MODEL: index into detail_model_names; else into
                                       * detail_sprites */
    uint16_t leaf;
    uint8_t lighting[4];              /* ColorRGBExp32 */
    uint32_t light_styles;
    uint8_t light_style_count, sway_amount, shape_angle, shape_size, orientation, type;
    float scale;                      /* sprites */
} bk_source_detail_prop;
/* A detail sprite's rectangle and texture coordinates (DetailSpriteDictLump_t). */
typedef struct bk_source_detail_sprite {
    float ul[2], lr[2], tex_ul[2], tex_lr[2];
} bk_source_detail_sprite;
/* A cubemap sample (bspfile.h dcubemapsample_t, 16 bytes): its VTF is materials/maps/MAP/cX_Y_Z.vtf
 * (and .hdr.vtf) in the pakfile. */
typedef struct bk_source_cubemap {
    int32_t origin[3];
    uint8_t size;                     /* 0: the default size; else 1 << (size - 1) texels a side */
} bk_source_cubemap;

typedef struct bk_source_static_prop {
    float origin[3];
    float angles[3];           /* pitch, yaw, roll in degrees (Source QAngle) */
    uint32_t model;            /* index into static_prop_names */
    uint32_t first_leaf, leaf_count;   /* range of static_prop_leaves */
    uint8_t solid;
    uint32_t flags;            /* STATIC_PROP_* (the 72-byte lightmapped layout's uint32, else the byte) */
    int32_t skin;
    float fade_min, fade_max;
    float lighting_origin[3];
    float forced_fade_scale;
    uint16_t min_dx_level, max_dx_level;
    uint8_t min_cpu_level, max_cpu_level, min_gpu_level, max_gpu_level;
    uint8_t diffuse[4];
    uint32_t disable_x360;
    uint32_t flags_ex;         /* the second flags word of later layouts (BK_SPROP_FLAGS_EX) */
    float scale;               /* uniform scale (1 where the layout has none) */
    uint16_t lightmap_res[2];
} bk_source_static_prop;

typedef struct bk_source_game_lump {
    uint32_t id;               /* four characters, e.g. 'sprp' = 0x73707270 */
    uint16_t flags, version;
    uint64_t offset, length;   /* as in the directory (length = uncompressed size when compressed) */
    bool compressed;
    const uint8_t *data;       /* decoded bytes */
    size_t size;
} bk_source_game_lump;

typedef struct bk_source_map {
    int32_t version;
    bool l4d2_layout;          /* v21 lump_t stored as {version, ofs, len, fourCC} */
    int32_t map_revision;
    bk_source_lump lumps[BK_SRC_LUMP_COUNT];

    bk_source_plane *planes;          uint32_t plane_count;
    float *vertices;                  uint32_t vertex_count;      /* 3 per vertex */
    uint32_t *edges;                  uint32_t edge_count;        /* 2 per edge */
    int32_t *surfedges;               uint32_t surfedge_count;
    bk_source_face *faces;            uint32_t face_count;
    bk_source_face *orig_faces;       uint32_t orig_face_count;
    bk_source_face *hdr_faces;        uint32_t hdr_face_count;    /* lump 58, may be empty */
    bk_source_texinfo *texinfo;       uint32_t texinfo_count;
    bk_source_texdata *texdata;       uint32_t texdata_count;
    bk_source_node *nodes;            uint32_t node_count;
    bk_source_leaf *leafs;            uint32_t leaf_count;
    uint32_t leaf_version;            /* 0: 56-byte leafs with an ambient light cube, 1: 32 bytes */
    uint16_t *leaffaces;              uint32_t leafface_count;
    uint16_t *leafbrushes;            uint32_t leafbrush_count;
    bk_source_brush *brushes;         uint32_t brush_count;
    bk_source_brushside *brushsides;  uint32_t brushside_count;
    bk_source_model *models;          uint32_t model_count;
    bk_source_area *areas;            uint32_t area_count;
    bk_source_areaportal *areaportals; uint32_t areaportal_count;
    uint32_t cluster_count;           /* from the visibility lump */
    bk_source_dispinfo *dispinfo;     uint32_t dispinfo_count;
    bk_source_dispvert *dispverts;    uint32_t dispvert_count;
    uint16_t *disptris;               uint32_t disptri_count;
    uint32_t cubemap_count, overlay_count, primitive_count, clip_portal_vert_count;

    bk_source_game_lump *game_lumps;  uint32_t game_lump_count;

    /* static props ('sprp') */
    int32_t sprp_version;             /* -1: no sprp game lump */
    uint32_t sprp_entry_size;         /* bytes per prop, which tells the layout apart */
    uint32_t sprp_fields;             /* BK_SPROP_* present */
    char **static_prop_names;         uint32_t static_prop_name_count;
    uint16_t *static_prop_leaves;     uint32_t static_prop_leaf_count;
    bk_source_static_prop *static_props; uint32_t static_prop_count;

    /* detail props ('dprp'), summarised */
    int32_t dprp_version;             /* -1: none */
    uint32_t detail_model_count, detail_sprite_count, detail_prop_count;

    /* the embedded zip (lump 40) */
    const uint8_t *pakfile;           size_t pakfile_size;
    int32_t pakfile_entries;          /* -1: not a readable zip */

    /* detail props one by one ('dprp' version 4; NULL when absent or of another layout, with a
     * warning): detail_model_count names, detail_sprite_count sprites, detail_prop_count props */
    char **detail_model_names;
    bk_source_detail_sprite *detail_sprites;
    bk_source_detail_prop *detail_props;
} bk_source_map;

/* The decoded map of f, or NULL when f is not a Source map (a deferred load, advanced.h, is
 * finished first). */
const bk_source_map *bk_source_map_of(const bk_file *f);
/* The decoded bytes of lump idx (BK_SRC_LUMP_*). A compressed lump the loader does not read
 * (lighting, physics, ambient light, ...) is decoded on the first call, outside validation, so
 * commands pay only for what they use; it then stays until the file is freed. Thread-safe (also
 * alongside scene builds, which decode the lumps they read for themselves and give them back). */
bk_result bk_source_lump_bytes(const bk_file *f, int idx, const uint8_t **data, size_t *size);

/* The map's cubemap samples (lump 42, decoded when compressed): *out an array to bk_free (NULL
 * when there are none), *count its length. BK_EFORMAT when the lump is not a whole number of
 * 16-byte samples. */
bk_result bk_source_cubemaps(const bk_file *f, bk_source_cubemap **out, uint32_t *count);

/* Four-character name of a game lump id ("sprp"), into buf[5]. */
const char *bk_source_fourcc(uint32_t id, char buf[5]);

/* The embedded pakfile is read with bk_archive_open_pakfile (bspkit/archive.h). */

/* ---- VTF textures (Valve Texture Format 7.0-7.5) ------------------------------------------ */
typedef struct bk_vtf {
    uint32_t version_major, version_minor;
    uint32_t header_size;
    uint32_t width, height, depth;
    uint32_t flags;            /* TEXTUREFLAGS_* (0x4000: cube map) */
    uint32_t frames, first_frame, faces, mip_count;
    float reflectivity[3];     /* vtex's average linear colour of the image */
    float bumpmap_scale;
    int32_t format, lowres_format;
    uint32_t lowres_width, lowres_height;
    uint32_t resource_count;   /* 7.3+ */
    uint64_t image_offset;     /* the largest mip of frame 0, face 0 */
    uint64_t image_bytes;      /* bytes of one face of it */
    uint64_t lowres_offset;    /* the thumbnail, or 0 */
} bk_vtf;

/* Parse and check a VTF header against its n bytes (every offset and size computed from it). */
bk_result bk_vtf_parse(const uint8_t *data, size_t n, const bk_options *opt, bk_vtf *out);
/* The largest mip of frame 0 of one face into rgba (width * height * 4 bytes, RGBA8). */
bk_result bk_vtf_decode(const uint8_t *data, size_t n, const bk_vtf *v, uint32_t face, uint8_t *rgba);
/* The low-resolution thumbnail (lowres_width * lowres_height * 4 bytes); BK_ENOTFOUND if none. */
bk_result bk_vtf_decode_thumbnail(const uint8_t *data, size_t n, const bk_vtf *v, uint8_t *rgba);
/* "DXT1", "BGR888", ... */
const char *bk_vtf_format_name(int32_t format);

/* VPK archives are read with bk_archive_open (bspkit/archive.h). */

/* ---- finding a map's assets where the engine looks: the pakfile, then each search path
 * (NAME_dir.vpk, a folder's *_dir.vpk, loose files, case-insensitive) ------------------------ */
typedef struct bk_source_assets bk_source_assets;
bk_result bk_source_assets_open(const bk_file *f, const bk_options *opt, bk_source_assets **out);
/* true if path ("materials/x.vmt", "models/y.mdl") is found; for a .vmt, *basetexture receives its
 * $basetexture (a patch material follows its include) */
bool bk_source_assets_find(bk_source_assets *a, const char *path, char *basetexture, size_t cap);
/* where it looks, for messages: "the map's pakfile, dir1, x_dir.vpk" */
void bk_source_assets_where(const bk_source_assets *a, char *buf, size_t cap);
/* The bytes of path (bk_free them) from the first place the engine would find it; where (cap
 * bytes, may be NULL) gets "pakfile" or the VPK's or folder's path. BK_ENOTFOUND when it is
 * nowhere; a file that is there but does not read is BK_EIO (BK_ELIMIT past limits.max_file_bytes),
 * where still set. With data and size both NULL nothing is read: only where it is (an archive
 * lists it, a folder holds it). */
bk_result bk_source_assets_read(bk_source_assets *a, const char *path, uint8_t **data, size_t *size, char *where,
                                size_t cap);
/* What bk_source_assets_read would read for path, found without reading it (`pak pack` checks
 * sizes and links with it before it reads anything). */
typedef struct bk_source_asset_info {
    char where[1024];   /* "pakfile", a VPK's or folder's path */
    char disk[4096];    /* a loose file's path on disk; "" for an archive's entry */
    uint64_t size;      /* an archive entry's listed size, a loose file's size on disk */
    bool outside;       /* a loose file whose real path (symbolic links followed) is not inside the
                         * folder it was found in: a link out of the game folder */
} bk_source_asset_info;
/* BK_ENOTFOUND when path is nowhere */
bk_result bk_source_assets_stat(bk_source_assets *a, const char *path, bk_source_asset_info *info);
/* One file a map needs: kind ("material", "texture", "model", "sound"), the name it is known by,
 * the file's path ("materials/x.vmt", lower case, '/'), where it was found ("pakfile", a VPK's or
 * folder's path; "" when missing) and whether it may be absent (a model's .phy). */
typedef struct bk_source_asset {
    const char *kind, *name, *file, *where;
    bool found, optional;
} bk_source_asset;
typedef void (*bk_source_asset_fn)(void *user, const bk_source_asset *asset);
/* Every file map f needs, each once, to fn: its faces', overlays', sprites' and ropes' materials
 * and the textures their VMTs name, the 2D skybox's six faces, its models (static props and
 * entities') with their VVD, VTX, PHY and their skins' materials, and its entities' sounds.
 * a is a lookup opened on f. BK_ELIMIT when the list was cut at 65,536 files. */
bk_result bk_source_assets_list(bk_source_assets *a, const bk_file *f, const bk_options *opt, bk_source_asset_fn fn,
                                void *user);
void bk_source_assets_close(bk_source_assets *a);

/* ---- Source studio models: MDL (studiohdr_t v44-v49) + VVD (IDSV v4) + VTX (v7) ----------- */
/* Model files come in three parts: MODEL.mdl (skeleton, materials, body parts, meshes), MODEL.vvd
 * (the vertices of every LOD, with a fixup table that orders them for LOD 0) and MODEL.dx90.vtx
 * (or .vtx / .dx80.vtx / .sw.vtx: triangle strips per LOD). bk_mdl_decode reads all three, checks
 * every offset and count against the file sizes and the three checksums against each other, and
 * keeps LOD 0. Coordinates are engine units, Z up, in the bind pose (every bone at its default
 * position), as the VVD stores them. */
enum { BK_MDL_FLAG_STATIC_PROP = 0x10 };   /* studiohdr_t.flags: compiled with $staticprop */

typedef struct bk_mdl_bone {
    const char *name;
    int32_t parent;            /* -1: a root; else a bone before this one */
    float pos[3];              /* bind pose relative to the parent */
    float quat[4];             /* x, y, z, w */
    float pose_to_bone[12];    /* 3x4 row-major, model space -> bone space (the inverse bind pose) */
    uint32_t flags;
} bk_mdl_bone;

typedef struct bk_mdl_vertex {
    float pos[3];
    float normal[3];
    float uv[2];
    float weight[3];           /* the first bone_count are used */
    uint8_t bone[3];           /* indices into bones (checked) */
    uint8_t bone_count;        /* 1..3 */
} bk_mdl_vertex;

typedef struct bk_mdl_mesh {
    uint32_t bodypart;         /* index into bodyparts */
    uint32_t model;            /* which of the body part's models (the body-group choice); 0 = default */
    uint32_t skin_ref;         /* the column of the skin table that gives its texture */
    uint32_t first_vertex, vertex_count;   /* its LOD-0 vertices */
    uint32_t first_index, index_count;     /* its triangles: indices into vertices, 3 per triangle,
                                            * in the file's order (clockwise seen from the front) */
} bk_mdl_mesh;

typedef struct bk_mdl_bodypart {
    const char *name;
    uint32_t model_count;      /* the choices of this body group */
} bk_mdl_bodypart;

typedef struct bk_mdl {
    int32_t version;           /* 44..49 */
    int32_t checksum;          /* the same number in the MDL, VVD and VTX */
    char name[65];             /* the name it was compiled as, e.g. "props_c17\\oildrum001.mdl" */
    uint32_t flags;            /* studiohdr_t.flags (BK_MDL_FLAG_*) */
    float eye[3];
    float hull_min[3], hull_max[3];      /* movement hull */
    float view_min[3], view_max[3];      /* clipping box (often zero) */
    float mass;
    const char *surfaceprop;   /* "" when none */
    bk_mdl_bone *bones;                 uint32_t bone_count;
    const char **textures;              uint32_t texture_count;      /* material names */
    const char **cdmaterials;           uint32_t cdmaterial_count;   /* folders under materials/ */
    int16_t *skins;            /* skin_family_count x skin_ref_count texture indices (checked) */
    uint32_t skin_ref_count, skin_family_count;
    bk_mdl_bodypart *bodyparts;         uint32_t bodypart_count;
    uint32_t model_count, mdl_mesh_count, mdl_vertex_count;   /* totals from the MDL's tables */
    /* geometry, when the VVD and VTX were given (has_geometry) */
    bool has_geometry;
    uint32_t vvd_lod_count, vtx_lod_count, fixup_count;
    bk_mdl_vertex *vertices;            uint32_t vertex_count;       /* LOD 0, fixups applied */
    uint32_t *indices;                  uint32_t index_count;
    bk_mdl_mesh *meshes;                uint32_t mesh_count;         /* every model of every body part */
} bk_mdl;

/* Decode a model from its files' bytes (borrowed, only during the call). vvd and vtx may both be
 * NULL: the MDL's tables only (has_geometry = 0). Diagnostics name the part ("vvd fixups",
 * "vtx strip group", ...) and the offset inside that part's file. */
bk_result bk_mdl_decode(const uint8_t *mdl, size_t mdl_size, const uint8_t *vvd, size_t vvd_size, const uint8_t *vtx,
                        size_t vtx_size, const bk_options *opt, bk_mdl **out);
void bk_mdl_free(bk_mdl *m);
/* The decoded model of a loaded .mdl file, or NULL. Loading a file from disk reads its VVD and
 * VTX from the same folder (the names compared without case; .dx90.vtx, .vtx, .dx80.vtx, .sw.vtx
 * in that order); without them the model has no geometry and cannot be converted. */
const bk_mdl *bk_mdl_of(const bk_file *f);

#ifdef __cplusplus
}
#endif
#endif
