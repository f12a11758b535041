/*
 * bspkit format-neutral scene: what every decoder builds and every exporter reads.
 *
 *     bk_scene *s;
 *     if (bk_file_build_scene(file, &opt, &s) == BK_OK) {
 *         bk_export_gltf(s, NULL, "out.glb", NULL);
 *         bk_scene_free(s);
 *     }
 *
 * A scene is plain data to read: arrays with their counts, indices between them. Coordinates are
 * kept as the engine stores them (Z up, engine units); exporters convert (see bk_export_options).
 * Every array is owned by the scene and freed by bk_scene_free; the library builds scenes, a
 * program reads them (and may change values in place, not the arrays themselves).
 */
#ifndef BSPKIT_SCENE_H
#define BSPKIT_SCENE_H

#include <stdbool.h>

#include "bspkit.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bk_scene bk_scene;

/* An image of the scene. Its pixels (when it has any: an external texture has none) are read with
 * bk_scene_image_rgba, which gives them as RGBA whatever form the scene keeps them in. */
typedef struct bk_image {
    char *name;                /* texture / shader / lightmap name */
    uint32_t width, height;
    bool has_alpha;            /* any pixel with alpha < 255 */
    bool is_lightmap;          /* sampled with clamp-to-edge */
    bool clamp;                /* sampled with clamp-to-edge but mipmapped (sky box faces, clampMap) */
} bk_image;

/* Whether image i has pixels; external textures have none. */
bool bk_scene_image_has_pixels(const bk_scene *s, uint32_t i);
/* The pixels of image i as width*height*4 bytes of straight-alpha RGBA, in a new block (*rgba,
 * bk_free it). BK_EARG for an image without pixels or an index out of range. */
bk_result bk_scene_image_rgba(const bk_scene *s, uint32_t i, uint8_t **rgba);
/* Image i encoded as a PNG file at path (temporary file, then renamed). */
bk_result bk_scene_image_write_png(const bk_scene *s, uint32_t i, const char *path);
/* The same as one file of a write group (bspkit.h): renamed at bk_write_group_commit. */
bk_result bk_write_group_png(bk_write_group *g, const bk_scene *s, uint32_t i, const char *path);

/* A light style: faces carry up to four, each with a lightmap of its own, and the engine draws
 * their sum, each times its style's value now (bk_lightstyle_value of its pattern at the time).
 * Styles 0-11 (and GoldSrc's 12) have the games' stock patterns; 32-63 are the switchable ones the
 * light compilers give targetnamed lights: "m" when on, "a" when off. */
typedef struct bk_lightstyle {
    uint32_t style;            /* 0..254 */
    char *pattern;             /* its value a tenth of a second at a time, 'a' (0) .. 'm' (normal) ..
                                * 'z' (double); "" for a constant 256 (a style no one sets) */
    char *targetname;          /* switchable: the targetname of the light that switches it, or NULL */
    bool start_off;            /* switchable, and that light starts off (spawnflag 1): dark at rest */
    uint32_t rest_value;       /* its value at rest: 0 if start_off, else the pattern's at time 0 */
} bk_lightstyle;

/* One style of a material's lightmap: the image holds, for every face carrying that style, the
 * lightmap the file stores for it (the same texels as the lighting lump, gray or RGB), and black
 * elsewhere. */
typedef struct bk_light_layer {
    uint32_t style;
    int32_t image;             /* index into images */
} bk_light_layer;

typedef enum bk_alpha_mode { BK_ALPHA_OPAQUE = 0, BK_ALPHA_MASK = 1, BK_ALPHA_BLEND = 2 } bk_alpha_mode;

typedef struct bk_material {
    char *name;
    int32_t base_image;        /* index into images, or -1 (placeholder colour) */
    int32_t lightmap_image;    /* index into images (read with uv1), or -1 */
    float base_color[4];
    bk_alpha_mode alpha_mode;
    float alpha_cutoff;
    bool double_sided;
    bool unlit;                /* sky / fullbright / nodraw-like */
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
    /* the game never draws this surface (a compile tool: clip, trigger, hint, caulk, nodraw...);
     * set by the family's scene builder from what the file says (tool texture names, nodraw
     * surface flags, Source's tool materials). A viewer hides it or shows it on request. */
    bool never_drawn;
    /* Light styles (Quake 1, GoldSrc, BSP2; bk_lightstyle): when its faces carry a style other than
     * 0 alone, each style's lightmap apart, one image per style shared by every material, read with
     * uv1 like lightmap_image (which is their sum at rest, bk_scene_relight); else none. */
    bk_light_layer *light_layers;
    uint32_t light_layer_count;
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
} bk_primitive;

typedef struct bk_mesh {
    char *name;
    bk_primitive *prims;
    uint32_t prim_count;
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
    int32_t light;             /* index into the scene's lights, -1 for none */
} bk_node;

/* A light on a node (glTF KHR_lights_punctual). It shines along its node's local -Z (engine axes;
 * the glTF writer turns that into glTF's own -Z). Lights a map's lightmaps already hold say so in
 * their extras ("baked": "true"): a viewer that draws the lightmaps should leave them off. */
enum { BK_LIGHT_POINT = 0, BK_LIGHT_SPOT = 1, BK_LIGHT_DIRECTIONAL = 2 };
typedef struct bk_light {
    char *name;
    uint32_t type;             /* BK_LIGHT_* */
    float color[3];            /* linear RGB, 0..1 */
    float intensity;           /* point / spot: at 1 engine unit, falling off with the square of the
                                * distance (the writer scales it to its unit); directional: as is */
    float range;               /* engine units; 0: unbounded */
    float inner_cone, outer_cone; /* spot: radians from the axis, 0 <= inner < outer <= pi/2 */
    bk_kv *extras;
    uint32_t extra_count;
} bk_light;

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
    uint32_t channel_count;
} bk_animation;

struct bk_scene {
    char *name;
    bk_image *images;       uint32_t image_count;
    bk_material *materials; uint32_t material_count;
    bk_mesh *meshes;        uint32_t mesh_count;
    bk_node *nodes;         uint32_t node_count;
    bk_skin *skins;         uint32_t skin_count;
    bk_animation *anims;    uint32_t anim_count;
    bk_kv *extras;          uint32_t extra_count;   /* scene-level facts: format, version */
    /* warnings gathered while building (missing textures, dropped influences...) */
    uint32_t warning_count;
    bk_light *lights;       uint32_t light_count;   /* nodes refer to them (bk_node.light) */
    /* the light styles the faces carry (ascending), when one is not style 0 (else none); a lightmap
     * texel is min(255, round(sum of its layers' texels x their style's value / 264 x
     * lightstyle_gain)) (bk_scene_relight) */
    bk_lightstyle *lightstyles; uint32_t lightstyle_count;
    float lightstyle_gain;
};

/* A style's value at time t seconds as Quake's R_AnimateLight gives it: the pattern's letter at
 * floor(10 t) modulo its length, ('a' = 0, 22 a letter: 'm' = 264, 'z' = 550); 256 for an empty
 * pattern. Letters outside a..z count as their distance from 'a', clamped to 0..25. */
uint32_t bk_lightstyle_value(const char *pattern, double t);
/* The stock pattern of a style the game's progs set at map start (Quake's world.qc: 0-11, Half-Life's
 * world.cpp: 0-12), or NULL. */
const char *bk_lightstyle_stock(uint32_t style, bool goldsrc);
/* Every style's value at time t (values: 256 of them): the scene's styles their pattern's (0 for a
 * switchable one whose light starts off), any other style 264 ("m"). */
void bk_lightstyle_values(const bk_scene *s, double t, uint32_t values[256]);
/* Redraw each styled lightmap of s (the images materials with light_layers read as lightmap_image)
 * from its layers, style k taking values[k] (256 values, bk_lightstyle_value's scale). A scene
 * without layers is left as it is (BK_OK). */
bk_result bk_scene_relight(bk_scene *s, const uint32_t values[256]);

/* Build the scene of a loaded file. Images keep their pixels in the form the file gives them
 * (palette indices, compressed blocks, a lightmap atlas already encoded as PNG) until an exporter
 * or bk_scene_image_rgba needs them, which keeps a large map's scene small. Several threads may
 * build scenes of one file at once (bspkit.h, threads). */
bk_result bk_file_build_scene(const bk_file *f, const bk_options *opt, bk_scene **out);
/* Embedded images of a file (textures of a map, every entry of a WAD) as RGBA, in a scene
 * that holds images only. */
bk_result bk_file_extract_images(const bk_file *f, const bk_options *opt, bk_scene **out);

void bk_scene_free(bk_scene *s);
/* Re-encode every name and extra that is not valid UTF-8 (bytes >= 0x80 as Latin-1); the
 * scenes bk_file_build_scene / bk_file_extract_images return are already clean. */
bk_result bk_scene_fix_utf8(bk_scene *s);

/* Look up a material by name; -1 if none. */
int32_t bk_scene_find_material(const bk_scene *s, const char *name);

/* ---- exporters ----------------------------------------------------------------------- */
typedef struct bk_export_options {
    float scale;              /* metres per engine unit; 0 = default 0.0254 (1 unit = 1 inch) */
    bool keep_z_up;           /* write engine axes unchanged (not glTF-conformant orientation) */
    const char *generator;    /* asset.generator; NULL = "bspkit VERSION" */
    int32_t png_level;        /* PNG deflate effort 1 (fastest) .. 12 (smallest); 0 = a fast default */
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
/* A .glb in one block (*out, bk_free it). */
bk_result bk_export_glb_memory(const bk_scene *s, const bk_export_options *opt, uint8_t **out, size_t *size,
                               bk_export_stats *stats);
/* .glb or .gltf (+ .bin) by path extension. Written to a temporary file and renamed. */
bk_result bk_export_gltf(const bk_scene *s, const bk_export_options *opt, const char *path,
                         bk_export_stats *stats);
/* .obj + .mtl (+ PNG textures beside them). */
bk_result bk_export_obj(const bk_scene *s, const bk_export_options *opt, const char *path,
                        bk_export_stats *stats);

#ifdef __cplusplus
}
#endif
#endif
