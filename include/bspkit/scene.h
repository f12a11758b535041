/*
 * bspkit format-neutral scene: what every decoder builds and every exporter reads.
 *
 * Coordinates are kept as the engine stores them (Z up, engine units); exporters convert
 * (see bk_export_options). Arrays are owned by the scene and freed by bk_scene_free.
 */
#ifndef BSPKIT_SCENE_H
#define BSPKIT_SCENE_H

#include <stdbool.h>

#include "bspkit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How a packed image holds its pixels (scenes built with BK_OPT_COMPACT_IMAGES). */
enum {
    BK_PACK_NONE = 0,   /* rgba holds the pixels (or the image has none: an external texture) */
    BK_PACK_RGB_UP = 1, /* packed: opaque RGB as PNG rows (a filter byte, then width*3 bytes): row 0 plain
                         * (filter 0), every other row minus the row above (filter 2, "up"), bytewise */
    BK_PACK_PAL8 = 2,   /* packed: a 256-entry RGBA palette (1024 bytes), then one index per pixel */
    BK_PACK_CODEC = 3,  /* packed: the source's own encoding (e.g. a VTF's DXT blocks), unpacked by unpack */
    BK_PACK_PNG = 4     /* packed: a whole PNG file (8-bit RGB or RGBA), written as it is by the exporters at
                         * their default PNG level */
};

typedef struct bk_image {
    char *name;                /* texture / shader / lightmap name */
    uint32_t width, height;
    uint8_t *rgba;             /* width*height*4 bytes, straight alpha; NULL while packed */
    uint32_t has_alpha;        /* any pixel with alpha < 255 */
    uint32_t is_lightmap;      /* sampled with clamp-to-edge */
    uint32_t clamp;            /* sampled with clamp-to-edge but mipmapped (sky box faces, clampMap) */
    /* pixels kept packed until needed (BK_OPT_COMPACT_IMAGES): read them with bk_image_unpack */
    uint32_t packing;          /* BK_PACK_* */
    uint8_t *packed;           /* packed_size bytes, owned by the scene */
    size_t packed_size;
    /* BK_PACK_CODEC: writes the width*height*4 RGBA pixels of packed to out */
    bk_result (*unpack)(const uint8_t *packed, size_t size, uint32_t w, uint32_t h, uint8_t *out);
} bk_image;

/* Whether an image has pixels (held as rgba or packed); external textures have none. */
bool bk_image_has_pixels(const bk_image *im);
/* The pixels as width*height*4 RGBA in a new block (*rgba, bk_free it): a copy of rgba, or the
 * packed pixels unpacked. BK_EARG for an image without pixels. */
bk_result bk_image_unpack(const bk_image *im, uint8_t **rgba);

typedef enum bk_alpha_mode { BK_ALPHA_OPAQUE = 0, BK_ALPHA_MASK = 1, BK_ALPHA_BLEND = 2 } bk_alpha_mode;

typedef struct bk_material {
    char *name;
    int32_t base_image;        /* index into images, or -1 (placeholder colour) */
    int32_t lightmap_image;    /* index into images (read with uv1), or -1 */
    float base_color[4];
    bk_alpha_mode alpha_mode;
    float alpha_cutoff;
    uint32_t double_sided;
    uint32_t unlit;            /* sky / fullbright / nodraw-like */
    bk_kv *extras;             /* e.g. "shader", "vmt", "missing" */
    uint32_t extra_count;
    /* light the surface gives off, added after lighting: emissive_image (read with uv0) times
     * emissive (a factor 0..1 each), times emissive_strength (>= 1; KHR_materials_emissive_strength) */
    int32_t emissive_image;    /* index into images, or -1 */
    float emissive[3];         /* 0 0 0: none */
    float emissive_strength;   /* 1: plain */
    int32_t normal_image;      /* tangent-space normal map (uv0), or -1 */
    int32_t specular_image;    /* specular colour (uv0; KHR_materials_specular), or -1 */
    /* a second base texture (uv0) blended over base_image by the vertex colour's alpha (0: base,
     * 1: this one), as Source's WorldVertexTransition draws $basetexture2; or -1. glTF has no
     * slot for it: the exporter names its texture in extras.blendTexture */
    int32_t blend_image;
} bk_material;

enum { BK_PRIM_TRIANGLES = 0, BK_PRIM_POINTS = 1, BK_PRIM_LINES = 2 };

/* Which vertex attributes a primitive carries. */
enum {
    BK_ATTR_NORMAL = 1u << 0,
    BK_ATTR_UV0 = 1u << 1,
    BK_ATTR_UV1 = 1u << 2,     /* lightmap UVs */
    BK_ATTR_COLOR = 1u << 3,   /* RGBA, 0..1 */
    BK_ATTR_SKIN = 1u << 4     /* 4 joints (uint16) + 4 weights */
};

typedef struct bk_primitive {
    int32_t material;          /* index into materials, or -1 */
    uint32_t mode;             /* BK_PRIM_* */
    uint32_t attrs;            /* BK_ATTR_* present */
    uint32_t vertex_count;
    float *position;           /* 3 per vertex */
    float *normal;             /* 3 per vertex, or NULL */
    float *uv0;                /* 2 per vertex, or NULL */
    float *uv1;                /* 2 per vertex, or NULL */
    uint8_t *color;            /* 4 per vertex (RGBA, 255 = 1.0), or NULL */
    uint16_t *joints;          /* 4 per vertex, or NULL */
    float *weights;            /* 4 per vertex, or NULL */
    uint32_t index_count;
    uint32_t *indices;         /* NULL for non-indexed points */
    uint32_t vcap_, icap_;     /* builder capacity */
} bk_primitive;

typedef struct bk_mesh {
    char *name;
    bk_primitive *prims;
    uint32_t prim_count, prim_cap_;
} bk_mesh;

typedef struct bk_node {
    char *name;
    int32_t parent;            /* -1 for roots */
    int32_t mesh;              /* -1 for none */
    int32_t skin;              /* -1 for none */
    float translation[3];
    float rotation[4];         /* quaternion x, y, z, w */
    float scale[3];
    bk_kv *extras;             /* entity key/values etc., kept in order */
    uint32_t extra_count;
} bk_node;

typedef struct bk_skin {
    char *name;
    int32_t *joints;           /* node indices */
    uint32_t joint_count;
    float *inverse_bind;       /* 16 per joint, column-major, in engine coordinates */
    int32_t skeleton;          /* root joint node, or -1 */
} bk_skin;

enum { BK_PATH_TRANSLATION = 0, BK_PATH_ROTATION = 1, BK_PATH_SCALE = 2 };
enum { BK_INTERP_LINEAR = 0, BK_INTERP_STEP = 1 };

typedef struct bk_channel {
    int32_t node;
    uint32_t path;             /* BK_PATH_* */
    uint32_t interpolation;    /* BK_INTERP_* */
    uint32_t key_count;
    float *times;              /* seconds, strictly increasing */
    float *values;             /* 3 (T, S) or 4 (R, xyzw) per key */
} bk_channel;

typedef struct bk_animation {
    char *name;
    bk_channel *channels;
    uint32_t channel_count, channel_cap_;
} bk_animation;

typedef struct bk_scene {
    char *name;
    bk_image *images;       uint32_t image_count, image_cap_;
    bk_material *materials; uint32_t material_count, material_cap_;
    bk_mesh *meshes;        uint32_t mesh_count, mesh_cap_;
    bk_node *nodes;         uint32_t node_count, node_cap_;
    bk_skin *skins;         uint32_t skin_count, skin_cap_;
    bk_animation *anims;    uint32_t anim_count, anim_cap_;
    bk_kv *extras;          uint32_t extra_count;   /* scene-level facts: format, version */
    /* warnings gathered while building (missing textures, dropped influences...) */
    uint32_t warning_count;
    /* private: a PNG the library is still making on a second thread (a Quake 3 lightmap atlas,
     * when built with BK_OPT_RELEASE_INPUT): that image's pixels must not be changed or freed
     * other than by bk_scene_free, which waits for it */
    struct bk_png_bg *png_job_;
} bk_scene;

/* Build the scene of a loaded file. */
bk_result bk_file_build_scene(const bk_file *f, const bk_options *opt, bk_scene **out);
/* Embedded images of a file (textures of a map, every entry of a WAD) as RGBA, in a scene
 * that holds images only. */
bk_result bk_file_extract_images(const bk_file *f, const bk_options *opt, bk_scene **out);

void bk_scene_free(bk_scene *s);
/* Re-encode every name and extra that is not valid UTF-8 (bytes >= 0x80 as Latin-1); the
 * scenes bk_file_build_scene / bk_file_extract_images return are already clean. */
bk_result bk_scene_fix_utf8(bk_scene *s);

/* ---- building (used by decoders; also public for tools that make scenes) --------------- */
bk_scene *bk_scene_new(void);
/* The scene takes ownership of rgba (malloc'd). Returns the image index in *out. */
bk_result bk_scene_add_image(bk_scene *s, const char *name, uint32_t w, uint32_t h, uint8_t *rgba,
                             int32_t *out);
/* The same for packed pixels (BK_PACK_*; the scene takes ownership of packed, malloc'd). has_alpha:
 * 0 or 1, or -1 to work it out (BK_PACK_RGB_UP: 0; BK_PACK_PAL8: from the palette entries used). unpack
 * only for BK_PACK_CODEC. The size is checked against width and height. */
bk_result bk_scene_add_packed_image(bk_scene *s, const char *name, uint32_t w, uint32_t h, uint32_t packing,
                                    uint8_t *packed, size_t size,
                                    bk_result (*unpack)(const uint8_t *, size_t, uint32_t, uint32_t, uint8_t *),
                                    int has_alpha, int32_t *out);
bk_result bk_scene_add_material(bk_scene *s, const char *name, int32_t *out);
bk_result bk_scene_add_mesh(bk_scene *s, const char *name, int32_t *out);
bk_result bk_scene_add_node(bk_scene *s, const char *name, int32_t parent, int32_t mesh, int32_t *out);
bk_result bk_scene_add_skin(bk_scene *s, const char *name, uint32_t joint_count, int32_t *out);
bk_result bk_scene_add_animation(bk_scene *s, const char *name, int32_t *out);
bk_result bk_animation_add_channel(bk_animation *a, int32_t node, uint32_t path, uint32_t key_count,
                                   bk_channel **out);
/* *out points into m->prims: valid until the next primitive is added to m (the array may move);
 * keep its index (m->prim_count - 1) across adds. The same holds for the scene's other arrays. */
bk_result bk_mesh_add_primitive(bk_mesh *m, int32_t material, uint32_t mode, uint32_t attrs,
                                bk_primitive **out);
/* Grow the primitive by n vertices; *first receives the index of the first new vertex.
 * The new vertices' attribute slots are zeroed (weights: 1,0,0,0). */
bk_result bk_prim_add_vertices(bk_primitive *p, uint32_t n, uint32_t *first);
bk_result bk_prim_add_indices(bk_primitive *p, const uint32_t *idx, uint32_t n);
/* Room for `vertices` more vertices and `indices` more indices, allocated to that size at once: a
 * builder that knows its counts saves the copies and spare room of growing by doubling. */
bk_result bk_prim_reserve(bk_primitive *p, uint32_t vertices, uint32_t indices);
bk_result bk_prim_add_triangle(bk_primitive *p, uint32_t a, uint32_t b, uint32_t c);
/* Append a key/value to a node / material / scene extras list (copies both strings). */
bk_result bk_kv_append(bk_kv **list, uint32_t *count, const char *key, const char *value);
/* Add the collision geometry of map f to s (what BK_OPT_COLLISION does in bk_file_build_scene):
 * convex pieces of the world's brushes (Quake 3, Source) or hull-0 leaves (GoldSrc / Quake),
 * triangle meshes for patches and displacements, as nodes under a node named "collision". */
bk_result bk_scene_add_collision(const bk_file *f, const bk_options *opt, bk_scene *s);
/* Look up a material by name; -1 if none. */
int32_t bk_scene_find_material(const bk_scene *s, const char *name);

/* ---- lightmap atlas ------------------------------------------------------------------ */
/* Two phases: add every rectangle, pack once, then read each rectangle's position. */
typedef struct bk_atlas bk_atlas;
/* max_size: largest width/height of the atlas (0: 8192, see bk_limits.max_atlas_size); pad: border
 * of duplicated edge texels kept around each rectangle (1 recommended for bilinear filtering). */
bk_atlas *bk_atlas_new(uint32_t max_size, uint32_t pad);
/* Copy a w x h RGBA rectangle into the atlas; *id identifies it. rgba may be NULL: the rectangle is
 * then drawn by the fill callback when the image is made (no copy of its pixels is kept). */
bk_result bk_atlas_add(bk_atlas *a, uint32_t w, uint32_t h, const uint8_t *rgba, uint32_t *id);
/* Draws rectangle id (added without pixels) at dst: its w x h RGBA texels, rows stride bytes apart. */
typedef void (*bk_atlas_fill_fn)(void *user, uint32_t id, uint8_t *dst, size_t stride);
void bk_atlas_set_fill(bk_atlas *a, bk_atlas_fill_fn fn, void *user);
/* Optional: the same rectangles drawn as RGB (3 bytes a texel, no alpha) straight into an RGB
 * atlas (bk_atlas_to_rgb_image), with set_fill's user pointer; without it they are drawn as RGBA
 * and copied. */
void bk_atlas_set_fill_rgb(bk_atlas *a, bk_atlas_fill_fn fn);
/* Place every rectangle (tallest first, bottom-left on a skyline) into the smallest image found,
 * of any size (not a power of two). BK_ELIMIT when they cannot fit in max_size x max_size. */
bk_result bk_atlas_pack(bk_atlas *a);
uint32_t bk_atlas_count(const bk_atlas *a);
/* After packing: top-left texel of rectangle id (inside its padding). */
void bk_atlas_rect(const bk_atlas *a, uint32_t id, uint32_t *x, uint32_t *y);
void bk_atlas_size(const bk_atlas *a, uint32_t *w, uint32_t *h);
/* After packing: render into a new image of the scene (marked is_lightmap); texels outside every
 * rectangle and its padding are opaque black. */
bk_result bk_atlas_to_image(const bk_atlas *a, bk_scene *s, const char *name, int32_t *out);
/* The same image kept packed as RGB (BK_PACK_RGB_UP: three quarters of the memory, and the PNG encoder
 * deflates it as it is; lightmaps are opaque). */
bk_result bk_atlas_to_rgb_image(const bk_atlas *a, bk_scene *s, const char *name, int32_t *out);
/* The same image as a finished PNG (BK_PACK_PNG), deflated band by band as it is drawn (zlib; level
 * as bk_export_options.png_level, 0: fast): the atlas is never held whole, only its PNG. */
bk_result bk_atlas_to_png_image(const bk_atlas *a, bk_scene *s, const char *name, int level, int32_t *out);
void bk_atlas_free(bk_atlas *a);

/* ---- exporters ----------------------------------------------------------------------- */
typedef struct bk_export_options {
    float scale;              /* metres per engine unit; 0 = default 0.0254 (1 unit = 1 inch) */
    uint32_t keep_z_up;       /* 1: write engine axes unchanged (not glTF-conformant orientation) */
    const char *generator;    /* asset.generator; NULL = "bspkit VERSION" */
    int32_t png_level;        /* PNG deflate effort 1 (fastest) .. 12 (smallest); 0 = default: images
                               * over 64 KiB deflated by ISA-L's level 1 when the library is built
                               * with it (as 1 is), else libdeflate's 3 (2 .. 12 are libdeflate's) */
} bk_export_options;

/* What an export wrote, for reports. */
typedef struct bk_export_stats {
    uint64_t bytes;
    uint32_t meshes, primitives, nodes, materials, images, skins, animations;
    uint64_t vertices, triangles;
    uint64_t cleaned_values;  /* NaN/Inf replaced, zero normals fixed */
    uint64_t dropped_degenerate;
} bk_export_stats;

/* Receives output in pieces, in order; returns false to stop (the export then returns BK_EIO). */
typedef bool (*bk_write_fn)(void *user, const void *data, size_t size);
/* A .glb written through a callback (sockets, archives, a program's own buffers): the binary
 * buffer is handed over as is, not copied. */
bk_result bk_export_glb_to(const bk_scene *s, const bk_export_options *opt, bk_write_fn write, void *user,
                           bk_export_stats *stats);
/* A .glb in one malloc'd block (*out, free() it). */
bk_result bk_export_glb_memory(const bk_scene *s, const bk_export_options *opt, uint8_t **out, size_t *size,
                               bk_export_stats *stats);
/* .glb or .gltf (+ .bin) by path extension. Written to a temporary file and renamed. */
bk_result bk_export_gltf(const bk_scene *s, const bk_export_options *opt, const char *path,
                         bk_export_stats *stats);
/* .obj + .mtl (+ PNG textures beside them). */
bk_result bk_export_obj(const bk_scene *s, const bk_export_options *opt, const char *path,
                        bk_export_stats *stats);
/* Encode one image (held as rgba or packed) as PNG to path (temporary file + rename). */
bk_result bk_image_write_png(const bk_image *img, const char *path);
/* The same as one file of a write group (bspkit.h): renamed at bk_write_group_commit. */
bk_result bk_write_group_png(bk_write_group *g, const bk_image *img, const char *path);

#ifdef __cplusplus
}
#endif
#endif
