/*
 * bspkit — DarkPlaces DPM skeletal models (type 2, "DARKPLACESMODEL\0", big-endian).
 *
 * A loaded DPM (bk_dpm_model_of(f)) is a bk_dpm_model: bones (parents always lower
 * than their children), meshes of variable-length vertices (1..n bone influences each), and
 * frames (one parent-relative 3x4 matrix per bone). Everything here has been range-checked by
 * the loader: bone parents, bone numbers and triangle indices are all in range.
 *
 * Influences are stored as the file stores them: origin and normal are ALREADY multiplied by the
 * influence ("weighting is already built into these"), so a skinned vertex is
 *     pos = sum_i ( R_b * origin_i + influence_i * t_b ),   nrm = sum_i R_b * normal_i
 * where [R_b | t_b] is the model-space matrix of bone b.
 *
 * Pose evaluation (the rendering process of the format's notes) is public and allocation-free:
 *   float bones[12 * model->bone_count];
 *   bk_dpm_pose(model, frame_a, frame_b, t, BK_DPM_LERP_MATRIX, bones);
 *   bk_dpm_skin(model, mesh, bones, positions, normals);
 */
#ifndef BSPKIT_DPM_H
#define BSPKIT_DPM_H

#include "bspkit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* bk_options flag of DPM scenes (bits beside bspkit.h's) */
enum {
    BK_OPT_NO_ANIMATIONS = 1u << 5, /* skeleton only */
};

/* DarkPlaces models' own options, chained from bk_options.ext (the first of this type is read):
 *     bk_dpm_options dpm = {.ext.type = BK_OPTIONS_DPM, .framegroups_path = "x.framegroups"};
 *     opt.ext = &dpm.ext; */
enum { BK_OPTIONS_DPM = 2 };     /* bk_options_ext types are unique across the headers */
typedef struct bk_dpm_options {
    bk_options_ext ext;             /* .type = BK_OPTIONS_DPM */
    const char *framegroups_path;   /* the .framegroups file (NULL: MODEL.framegroups beside the model) */
} bk_dpm_options;

#define BK_DPM_NAME_LEN 32            /* on-disk name fields; names here are NUL-terminated */
#define BK_DPM_BONEFLAG_ATTACHMENT 1u /* protect the bone from removal by the optimising saver */

typedef struct bk_dpm_bone {
    char name[BK_DPM_NAME_LEN + 1];
    int32_t parent;                   /* -1 or a lower bone index */
    uint32_t flags;                   /* BK_DPM_BONEFLAG_* */
} bk_dpm_bone;

/* One bone influence of a vertex (32 bytes on disk). origin and normal are pre-weighted. */
typedef struct bk_dpm_influence {
    float origin[3];
    float influence;
    float normal[3];
    uint32_t bone;
} bk_dpm_influence;

typedef struct bk_dpm_mesh {
    char shader[BK_DPM_NAME_LEN + 1];
    uint32_t vertex_count;
    uint32_t triangle_count;
    uint32_t *first_influence;        /* vertex_count + 1 entries: influences of vertex v are
                                         [first_influence[v], first_influence[v+1]) */
    bk_dpm_influence *influences;
    uint32_t influence_count;
    float *texcoords;                 /* 2 per vertex, as stored (0,0 = top-left, like glTF) */
    uint32_t *indices;                /* 3 per triangle, each < vertex_count */
    uint32_t *groupids;               /* 1 per triangle (meaning up to the game) */
} bk_dpm_mesh;

typedef struct bk_dpm_frame {
    char name[BK_DPM_NAME_LEN + 1];
    float mins[3], maxs[3], yawradius, allradius;
    float *pose;                      /* bone_count 3x4 row-major matrices, parent-relative */
} bk_dpm_frame;

typedef struct bk_dpm_model {
    float mins[3], maxs[3], yawradius, allradius;
    bk_dpm_bone *bones;
    uint32_t bone_count;
    bk_dpm_mesh *meshes;
    uint32_t mesh_count;
    bk_dpm_frame *frames;
    uint32_t frame_count;
    uint32_t max_influences;          /* largest influence count of any vertex */
} bk_dpm_model;

/* The decoded model of a loaded DPM file, or NULL when f is not a DPM. */
const bk_dpm_model *bk_dpm_model_of(const bk_file *f);

/* ---- pose evaluation ------------------------------------------------------------------- */

typedef enum bk_dpm_lerp {
    /* Blend the parent-relative 3x4 matrices component-wise, as DarkPlaces does (the format's
     * "boneposes (matrices) are interpolated"). Exact at t = 0 and t = 1, cheapest. */
    BK_DPM_LERP_MATRIX = 0,
    /* Decompose each relative matrix into translation, rotation (quaternion) and scale, slerp the
     * rotation, lerp the rest. Keeps rigid bones rigid between keys that are far apart. */
    BK_DPM_LERP_SLERP = 1
} bk_dpm_lerp;

/* Model-space bone matrices (bone_count x 12 floats, row-major 3x4) for frame_a blended towards
 * frame_b by t in [0, 1] (t = 0 or frame_a == frame_b: frame_a only), composed with the parents
 * in bone order. BK_EARG for frame numbers out of range. */
bk_result bk_dpm_pose(const bk_dpm_model *m, uint32_t frame_a, uint32_t frame_b, float t, bk_dpm_lerp mode,
                      float *out_bones);
/* Same, from caller-made parent-relative matrices (completely dynamic animation). */
void bk_dpm_pose_from_relative(const bk_dpm_model *m, const float *relative, float *out_bones);

/* Skin every vertex of one mesh with model-space bone matrices from bk_dpm_pose.
 * out_pos: 3 floats per vertex; out_nrm: 3 per vertex (unit length) or NULL. */
bk_result bk_dpm_skin(const bk_dpm_model *m, uint32_t mesh, const float *bones, float *out_pos, float *out_nrm);

/* 3x4 helpers (row-major [R|t]). */
void bk_dpm_mat_mul(const float *a, const float *b, float *out);      /* out = a * b */
/* Decompose a 3x4 into translation, rotation quaternion (x, y, z, w; normalised) and scale. */
void bk_dpm_mat_decompose(const float *m, float *t, float *q, float *s);

/* ---- framegroups ----------------------------------------------------------------------- */

typedef struct bk_dpm_framegroup {
    char name[64];                    /* from the line's // comment, else "groupN" */
    uint32_t first, count;
    float fps;
    bool loop;
    uint32_t line;                    /* 1-based line in the file */
    bool clamped;                     /* the range ran past the last frame and was cut */
} bk_dpm_framegroup;

/* Parse a .framegroups text ("first count fps loop [// name]" per line). Ranges are clamped to
 * frame_count (clamped set); groups that start past the end are dropped. *out: bk_free it.
 * BK_EFORMAT (with *err_line) for a line that is not four numbers. */
bk_result bk_dpm_framegroups_parse(const char *text, size_t len, uint32_t frame_count, bk_dpm_framegroup **out,
                                   uint32_t *count, uint32_t *err_line);

/* ---- the optimising saver ------------------------------------------------------------------ */

typedef struct bk_dpm_save_stats {
    uint32_t bones_in, bones_out;       /* unused bones dropped (attachments and ancestors kept) */
    char dropped_bones[200];            /* names of the dropped bones, comma-separated (cut short) */
    uint64_t vertices_in, vertices_out; /* vertices no triangle uses dropped */
    uint64_t triangles;
    double acmr_before, acmr_after;     /* average cache miss ratio (FIFO cache of 16) */
    uint64_t bytes;
} bk_dpm_save_stats;

/* Flags of the saver (its own, not bk_options'). */
enum {
    BK_DPM_KEEP_ALL_BONES = 1u << 0, /* keep unreferenced, unflagged bones (tags found by name) */
};

/* Serialise m as a DPM with unused bones (no influence, no attachment flag, name not "tag_*", not
 * an ancestor of a kept bone) and unused vertices removed and triangles / vertices reordered
 * for the vertex cache (Tom Forsyth's linear-speed algorithm, vertices by first use). *out:
 * bk_free it. The result skins to the same positions for every frame. flags: BK_DPM_KEEP_ALL_BONES
 * keeps unreferenced, unflagged bones too (tags that gamecode finds by a name not starting with
 * "tag_"), or 0. */
bk_result bk_dpm_save_memory(const bk_dpm_model *m, uint32_t flags, uint8_t **out, size_t *out_size,
                             bk_dpm_save_stats *stats);
/* The same, written to path through a temporary file and a rename. */
bk_result bk_dpm_save(const bk_dpm_model *m, uint32_t flags, const char *path, bk_dpm_save_stats *stats);
/* bk_file_write of a DPM file with the saver's flags (bk_file_write gives 0): what was dropped and
 * the cache figures are told through opt's diag as one info diagnostic. */
bk_result bk_dpm_file_write(const bk_file *f, const bk_options *opt, uint32_t flags, const char *path);

/* Average cache miss ratio of a triangle list with a FIFO cache of cache_size entries. */
double bk_dpm_acmr(const uint32_t *indices, uint32_t triangle_count, uint32_t vertex_count, uint32_t cache_size);

#ifdef __cplusplus
}
#endif
#endif
