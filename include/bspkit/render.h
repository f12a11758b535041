/*
 * bspkit/render.h — a software renderer: a scene (bspkit/scene.h) drawn as the engine shows it,
 * without a GPU. Same brightness rules as the glTF (docs/gltf.md "How to draw it like the engine"):
 * texture x lightmap in gamma space (the gain is baked into the atlas), vertex colour where the
 * material says multiply, emission added, alpha test, additive / multiply / alpha blends drawn
 * after the opaque surfaces, back to front, sky materials first behind everything (the Quake 3
 * skybox node centred on the eye), the scene's displayGamma on the finished picture.
 *
 *     bk_render_options ro = {0};                 // 1280x720 from the first player spawn
 *     uint8_t *rgba; bk_render_info ri;
 *     if (bk_render(scene, query, &ro, &rgba, &ri) == BK_OK) {
 *         bk_render_write_png(rgba, ri.width, ri.height, "map.png");
 *         bk_free(rgba);
 *     }
 *
 * query (bspkit/query.h, may be NULL) gives PVS culling from the eye's cluster; the scene must
 * then come from the same file (bk_file_build_scene), which the query reads.
 * Coordinates are engine units, Z up; yaw turns about Z from +X, pitch > 0 looks down (Quake).
 */
#ifndef BSPKIT_RENDER_H
#define BSPKIT_RENDER_H

#include "bspkit.h"
#include "query.h"
#include "scene.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum bk_render_view {
    BK_VIEW_AUTO = 0,      /* the first player spawn if there is one, else BK_VIEW_MODEL */
    BK_VIEW_EYE = 1,       /* eye, yaw, pitch */
    BK_VIEW_SPAWN = 2,     /* player spawn number `spawn` (1 = the first), at the game's eye height,
                            * along its angle; without one, the most open level direction */
    BK_VIEW_MODEL = 3,     /* the whole scene from a three-quarter view outside it (models) */
    BK_VIEW_OVERVIEW = 4   /* orthographic, top down, shaded by height (radar overviews) */
} bk_render_view;

/* The largest width / height, and pixels of one picture */
#define BK_RENDER_MAX_SIDE 16384u
#define BK_RENDER_MAX_PIXELS (64u * 1024u * 1024u)

typedef struct bk_render_options {
    uint32_t width, height;   /* 0 x 0: 1280 x 720 (overview: 1024 x 1024); each 1..BK_RENDER_MAX_SIDE */
    bk_render_view view;
    float eye[3];             /* BK_VIEW_EYE */
    float yaw, pitch;         /* degrees */
    float fov;                /* horizontal, degrees (1..170); 0 = 90 */
    uint32_t spawn;           /* BK_VIEW_SPAWN: 1 = the first player spawn */
    /* overview: the slice of heights drawn (z_min < z_max); without it, from the world's floor to
     * 128 units above the highest spawn's eye (ceilings cut), or the whole world without spawns */
    bool z_range;
    float z_min, z_max;
    bool mark_spawns;         /* overview: a marker on every player spawn */
    bool no_pvs;              /* draw every triangle (no PVS culling) */
    uint32_t threads;         /* tiles drawn at once; 0 = the machine's cores */
} bk_render_options;

typedef struct bk_render_info {
    uint32_t width, height;
    float eye[3], yaw, pitch; /* the view used */
    int32_t cluster;          /* the eye's cluster (-1: none, or no PVS) */
    uint64_t triangles;       /* triangles of the scene */
    uint64_t triangles_pvs;   /* left after PVS culling */
    uint64_t triangles_drawn; /* left after frustum / back-face culling, drawn */
    uint32_t spawn_count;     /* player spawns found */
    /* overview: world (x, y) -> pixel ((x - pos_x) / scale, (pos_y - y) / scale) */
    float pos_x, pos_y, scale;
    float z_min, z_max;       /* overview: the slice drawn */
} bk_render_info;

/* A scene prepared for drawing (triangles in world space, their clusters when a query is given;
 * textures decoded when a view first draws them, with the mip levels it samples, and lightmaps in
 * blocks, those a view reads): draw many views of it cheaply. s and q must outlive it. */
typedef struct bk_renderer bk_renderer;
bk_result bk_renderer_new(const bk_scene *s, const bk_query *q, bk_renderer **out);
/* One picture: *rgba receives width * height * 4 bytes (opaque RGBA, rows top down; bk_free it).
 * BK_EARG for a size out of range, a spawn the map does not have, an eye inside a solid leaf
 * (with a query), a bad fov or z range; info (may be NULL) says what was drawn. */
bk_result bk_renderer_draw(bk_renderer *r, const bk_render_options *o, uint8_t **rgba, bk_render_info *info);
/* Decode what the view o draws (its textures, at the mip levels its pixels sample) without
 * drawing it, for a program that then draws only that view (bk_renderer_draw with the same o). */
bk_result bk_renderer_prepare(bk_renderer *r, const bk_render_options *o);
void bk_renderer_free(bk_renderer *r);
/* bk_renderer_new + bk_renderer_draw + bk_renderer_free */
bk_result bk_render(const bk_scene *s, const bk_query *q, const bk_render_options *o, uint8_t **rgba,
                    bk_render_info *info);
/* The player spawns of a scene (info_player_start / _deathmatch, team starts), in node order:
 * *count of them; with pos / yaw non-NULL, at most cap eye positions (the game's eye height
 * above the origin) and yaws written. */
void bk_render_spawns(const bk_scene *s, float (*pos)[3], float *yaw, uint32_t cap, uint32_t *count);

/* An opaque RGBA picture as a PNG at path (temporary file, then renamed), or as one file of a
 * write group (renamed at bk_write_group_commit). */
bk_result bk_render_write_png(const uint8_t *rgba, uint32_t w, uint32_t h, const char *path);
bk_result bk_write_group_png_rgba(bk_write_group *g, const uint8_t *rgba, uint32_t w, uint32_t h, const char *path);

#ifdef __cplusplus
}
#endif
#endif
