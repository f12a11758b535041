/* Quake 3 decoder internals shared by the loader (q3.c), the scene builder (q3_scene.c) and the
 * shader / texture resolver (q3_shader.c). */
#ifndef BK_Q3_INTERNAL_H
#define BK_Q3_INTERNAL_H

#include "bspkit/q3.h"
#include "../family.h"

/* On-disk sizes (qfiles.h) */
#define Q3_HEADER_SIZE (8 + 17 * 8)
#define Q3_SHADER_SIZE 72
#define Q3_PLANE_SIZE 16
#define Q3_NODE_SIZE 36
#define Q3_LEAF_SIZE 48
#define Q3_MODEL_SIZE 40
#define Q3_BRUSH_SIZE 12
#define Q3_BRUSHSIDE_SIZE 8
#define Q3_VERT_SIZE 44
#define Q3_FOG_SIZE 72
#define Q3_SURFACE_SIZE 104
#define Q3_LIGHTMAP_BYTES (128 * 128 * 3)
#define Q3_GRIDCELL_SIZE 8
/* The family's rows (q3_desc.c): lumps, and the references the checker applies */
enum {
    BK_Q3_REF_NODE_PLANE, BK_Q3_REF_LEAF_SURFACES, BK_Q3_REF_LEAF_BRUSHES, BK_Q3_REF_LEAFSURFACE, BK_Q3_REF_LEAFBRUSH,
    BK_Q3_REF_MODEL_SURFACES, BK_Q3_REF_MODEL_BRUSHES, BK_Q3_REF_BRUSH_SIDES, BK_Q3_REF_BRUSH_SHADER,
    BK_Q3_REF_BRUSHSIDE_PLANE, BK_Q3_REF_BRUSHSIDE_SHADER, BK_Q3_REF_FOG_BRUSH, BK_Q3_REF_SURFACE_SHADER,
    BK_Q3_REF_COUNT
};
extern const bk_lump_desc bk_q3_lumps[BK_Q3_LUMP_COUNT];
extern const bk_ref_desc bk_q3_refs[BK_Q3_REF_COUNT];

/* external lm_NNNN.tga pages a map may name (the file names have four digits) */
#define Q3_MAX_EXTERNAL_LIGHTMAPS 10000

/* ---- shader scripts and texture lookup (q3_shader.c) ---- */
/* blend factors (GL_ONE, GL_DST_COLOR, ...) */
enum {
    Q3_BF_ZERO = 0, Q3_BF_ONE, Q3_BF_DST_COLOR, Q3_BF_ONE_MINUS_DST_COLOR, Q3_BF_SRC_ALPHA,
    Q3_BF_ONE_MINUS_SRC_ALPHA, Q3_BF_DST_ALPHA, Q3_BF_ONE_MINUS_DST_ALPHA, Q3_BF_SRC_COLOR,
    Q3_BF_ONE_MINUS_SRC_COLOR, Q3_BF_SRC_ALPHA_SATURATE
};
/* what a stage draws, and how its colour / alpha is generated */
enum { Q3_SRC_IMAGE = 0, Q3_SRC_LIGHTMAP, Q3_SRC_WHITE };
enum { Q3_GEN_CONST = 0, Q3_GEN_VERTEX, Q3_GEN_ONE_MINUS_VERTEX };
enum { Q3_AF_NONE = 0, Q3_AF_GT0, Q3_AF_LT128, Q3_AF_GE128 };
enum { Q3_TC_BASE = 0, Q3_TC_LIGHTMAP, Q3_TC_ENVIRONMENT, Q3_TC_VECTOR };
#define Q3_MAX_STAGES 8

typedef struct q3_stage {
    char *image;              /* map / clampMap / animMap's first frame; NULL for $lightmap, $whiteimage */
    uint8_t src;              /* Q3_SRC_* */
    uint8_t blended;          /* a blendFunc was given */
    uint8_t bsrc, bdst;       /* Q3_BF_*; ONE ZERO when not blended */
    uint8_t rgbgen, alphagen; /* Q3_GEN_*; the constant parts below */
    uint8_t alpha_func;       /* Q3_AF_* */
    uint8_t tcgen;            /* Q3_TC_* */
    uint8_t clamp;            /* clampMap */
    uint8_t uv_moving;        /* tcMod rotate / stretch / transform / turb: not the base UV space */
    uint8_t detail;           /* detail stage */
    float rgb[3];             /* rgbGen const / wave (mean) / identity (1) */
    float alpha;              /* alphaGen const / wave (mean); 1 by default */
    float tc_scale[2];        /* tcMod scale, accumulated */
} q3_stage;

typedef struct q3_shader_def {
    char *name;               /* as written in the script */
    char *image;              /* first stage's map image (NULL if none) */
    uint32_t sky, nodraw, two_sided, alpha_test, blend, unlit;
    uint32_t stages;          /* stage blocks in the shader */
    uint32_t lightmap_stage;  /* a stage maps $lightmap: the engine multiplies the lightmap in */
    uint32_t additive;        /* the base stage adds to what is behind (blendFunc add / GL_ONE GL_ONE) */
    q3_stage *stage;          /* the first Q3_MAX_STAGES stage blocks, in order */
    uint32_t stage_count;
    /* skyParms FARBOX CLOUDHEIGHT NEARBOX ("-": none) */
    uint32_t has_skyparms;
    char *farbox, *nearbox;   /* NULL for "-" */
    float cloud_height;       /* 0 in the script means the engine's 512 */
    /* fogParms ( R G B ) DISTANCE */
    uint32_t has_fogparms;
    float fog_color[3], fog_distance;
    uint32_t lighting;        /* DarkPlaces' notion: a $lightmap stage or vertex-lit colour */
    uint32_t polygon_offset;
    uint32_t file;            /* which script, in name order */
} q3_shader_def;

typedef struct q3_shader_lib {
    q3_shader_def *defs;
    uint32_t count, cap;
    uint32_t files;           /* scripts parsed */
    bool last_file_wins;      /* a name defined in two scripts: ioquake3 takes the later script's */
} q3_shader_lib;

/* Parse every scripts/NAME.shader found through v, in name order. Never fails on bad scripts:
 * unparsable text is skipped. */
bk_result bk_q3_shaders_load(bk_vfs *v, q3_shader_lib *lib);
/* Parse one script's text into lib (exposed for tests / fuzzing). */
bk_result bk_q3_shaders_parse(q3_shader_lib *lib, const char *text, size_t len);
const q3_shader_def *bk_q3_shaders_find(const q3_shader_lib *lib, const char *name);
void bk_q3_shaders_free(q3_shader_lib *lib);
/* Read an image named like a shader/texture: strip any extension, try .tga, .jpg, .png.
 * *rgba is malloc'd; file (may be NULL) receives the file's own bytes (malloc'd, *file_size). */
bk_result bk_q3_load_image(bk_vfs *v, const char *name, uint32_t max_dim, uint8_t **rgba, uint32_t *w, uint32_t *h,
                           uint8_t **file, size_t *file_size);

bk_result bk_q3_build_scene(const bk_file *f, const bk_options *opt, bk_scene *s);

/* ---- scene building (q3_scene.c, q3_material.c, q3_sky.c) ---- */
typedef struct page_rect {
    bool ok;
    uint32_t x, y, w, h;
    uint8_t file;       /* an external page drawn from its file: 1 maps/NAME/lm_NNNN.tga, 2 NAME/lm_NNNN.tga */
} page_rect;

/* a decoded image, looked up once by name */
typedef struct q3_img {
    char *name;                /* as first asked for (the scene image's name) */
    char *key;                 /* the name without its extension (what lookups match) */
    uint8_t *rgba;             /* the pixels, or NULL while only file holds them (bk_q3_img_pixels) */
    uint8_t *file;             /* BK_OPT_COMPACT_IMAGES: the file's bytes, when smaller than the pixels;
                                * the scene keeps the image as these (decoded when read) */
    size_t file_size;
    bool rgba_given, file_given; /* owned by the scene once added to it (the cache still reads them) */
    uint32_t w, h;
    int32_t scene;             /* scene image index, or -1 until used directly */
    bool has_alpha;
    float mean[4];             /* mean RGBA, 0..1 */
} q3_img;

typedef struct q3_builder {
    const bk_file *f;
    const bk_q3_map *m;
    const bk_options *opt;
    bk_scene *s;
    bk_vfs *vfs;
    q3_shader_lib lib;
    int32_t patch_level;
    float overbright;          /* bits; <= 0: none */
    float gain;                /* 2^overbright, or 1 (bk_q3_gain) */
    const char *engine;        /* the engine whose brightness the default follows, or NULL */
    bool darkplaces;           /* DarkPlaces' reading of shaders (Nexuiz, Xonotic) */
    float ambient;             /* light DarkPlaces adds to lightmaps (r_ambient / 64), 0..1 */
    float display_gamma;       /* the game's display gamma (DarkPlaces' v_gamma), 0: none known */
    /* lightmaps */
    page_rect *pages;
    uint32_t page_count;
    int32_t atlas_image;
    float atlas_w, atlas_h;
    /* materials: [shader * 3 + kind] -> scene material, -1 until made */
    int32_t *mat;
    /* shader -> script definition (NULL: none), looked up once */
    const q3_shader_def **defs;
    /* images by name (textures shared between shaders; NULL entries: not found) */
    char **miss_names;
    uint32_t miss_count, miss_cap;
    q3_img **imgs;
    uint32_t img_count, img_cap;
    uint64_t vert_budget;       /* vertices left before the element limit */
    bool flip;                  /* reverse the file's winding to glTF's counter-clockwise */
    uint32_t nodraw_patches;    /* patches left out: flagged nodraw in the map's shader lump */
} q3_builder;

/* lightmap gain the atlas holds (2^overbright) */
float bk_q3_gain(const q3_builder *b);
/* R_ColorShiftLightingBytes: scale by k, keeping the hue when a channel overflows (inline: it runs
 * for every bright lightmap texel) */
static inline void bk_q3_color_shift(uint8_t *rgb, float k)
{
    if (k <= 1.0f) return;
    float r = rgb[0] * k, g = rgb[1] * k, bl = rgb[2] * k;
    float mx = r > g ? r : g;
    if (bl > mx) mx = bl;
    if (mx > 255.0f) {
        float sc = 255.0f / mx;
        r *= sc;
        g *= sc;
        bl *= sc;
    }
    rgb[0] = (uint8_t)(r + 0.5f > 255 ? 255 : r + 0.5f);
    rgb[1] = (uint8_t)(g + 0.5f > 255 ? 255 : g + 0.5f);
    rgb[2] = (uint8_t)(bl + 0.5f > 255 ? 255 : bl + 0.5f);
}
/* a gamma-space multiplier as glTF's linear factor (sRGB decoding; k^2.2 above 1) */
float bk_q3_to_linear(float k);
/* The image of that name (extension optional), decoded once; NULL when not found. */
q3_img *bk_q3_img_get(q3_builder *b, const char *name);
/* The image as a scene image (added on first use). */
bk_result bk_q3_img_scene(q3_builder *b, q3_img *im, int32_t *out);
/* im->rgba decoded again from im->file if it was let go */
bk_result bk_q3_img_pixels(q3_img *im);
/* im->rgba let go again when im->file can give it back (after a composition read it) */
void bk_q3_img_drop_pixels(q3_img *im);
void bk_q3_imgs_free(q3_builder *b);
/* The material of a shader for one kind of surface: 0 vertex-lit (no lightmap page), 1 lightmapped,
 * 2 flare. Shader stages are read the way the game's engine draws them. */
bk_result bk_q3_get_material(q3_builder *b, int32_t shader, int kind, int32_t *out);
/* Whether surfaces of this shader are left out: flagged nodraw in the map's shader lump
 * (q3map2 -patchmeta's collision-only patches) or by `surfaceparm nodraw`, sky (drawn as the
 * skybox), shaders whose script has no stage (caulk-like, fog volumes without a surface). */
bool bk_q3_shader_hidden(q3_builder *b, int32_t shader);
/* q3_material.c, shared with q3_material_dp.c: an extra of material mi, whether it has one, a
 * name without its extension */
bk_result bk_q3_set_extra(bk_scene *s, int32_t mi, const char *k, const char *v);
bool bk_q3_has_extra(const bk_material *m, const char *k);
void bk_q3_strip_ext(const char *name, char *out, size_t cap);
/* q3_material_dp.c: material mi as DarkPlaces draws shader (def may be NULL: no script) */
bk_result bk_q3_material_dp(q3_builder *b, int32_t mi, const q3_shader_def *def, const char *shader, int kind);
/* The skybox (six faces around the map) and cloud layers of the map's sky shader, under a node
 * named "skybox"; nothing when the map has no skyParms sky. */
bk_result bk_q3_build_sky(q3_builder *b);

#endif
