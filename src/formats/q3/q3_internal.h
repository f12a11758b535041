/* Quake 3 decoder internals shared by the loader (q3.c), the scene builder (q3_scene.c) and the
 * shader / texture resolver (q3_shader.c). */
#ifndef BK_Q3_INTERNAL_H
#define BK_Q3_INTERNAL_H

#include "bspkit/q3.h"
#include "../format.h"

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
/* external lm_NNNN.tga pages a map may name (the file names have four digits) */
#define Q3_MAX_EXTERNAL_LIGHTMAPS 10000

/* ---- shader scripts and texture lookup (q3_shader.c) ---- */
typedef struct q3_shader_def {
    char *name;               /* as written in the script */
    char *image;              /* first stage's map image (NULL if none) */
    uint32_t sky, nodraw, two_sided, alpha_test, blend, unlit;
    uint32_t stages;          /* stage blocks in the shader */
    uint32_t lightmap_stage;  /* a stage maps $lightmap: the engine multiplies the lightmap in */
    uint32_t additive;        /* the base stage adds to what is behind (blendFunc add / GL_ONE GL_ONE) */
} q3_shader_def;

typedef struct q3_shader_lib {
    q3_shader_def *defs;
    uint32_t count, cap;
    uint32_t files;           /* scripts parsed */
} q3_shader_lib;

/* Parse every scripts/NAME.shader found through v (first definition of a name wins, as in the
 * engine). Never fails on bad scripts: unparsable text is skipped. */
bk_result bk_q3_shaders_load(bk_vfs *v, q3_shader_lib *lib);
/* Parse one script's text into lib (exposed for tests / fuzzing). */
bk_result bk_q3_shaders_parse(q3_shader_lib *lib, const char *text, size_t len);
const q3_shader_def *bk_q3_shaders_find(const q3_shader_lib *lib, const char *name);
void bk_q3_shaders_free(q3_shader_lib *lib);
/* Read an image named like a shader/texture: strip any extension, try .tga, .jpg, .png.
 * *rgba is malloc'd. */
bk_result bk_q3_load_image(bk_vfs *v, const char *name, uint32_t max_dim, uint8_t **rgba, uint32_t *w, uint32_t *h);

bk_result bk_q3_build_scene(const bk_file *f, const bk_options *opt, bk_scene *s);

#endif
