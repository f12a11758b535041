/*
 * bspkit navigation meshes: where a player can walk, and paths between two points
 * (docs/navmesh.md). Built with Recast/Detour (Debian's librecast) from the map's collision model
 * (BK_OPT_COLLISION: solid, player clip, window and grate pieces; water, slime, lava, triggers and
 * the rest left out). Coordinates are the engine's (Z up, engine units) everywhere.
 *
 *     bk_nav_agent a;
 *     bk_nav_default_agent(file, &a);              // the family's player
 *     bk_navmesh *m;
 *     if (bk_navmesh_build(file, NULL, &a, &m) == BK_OK) { ...; bk_navmesh_free(m); }
 *
 * A build without librecast, or without its module, answers BK_EUNSUPPORTED (bk_nav_available(),
 * bk_nav_unavailable_reason()).
 */
#ifndef BSPKIT_NAV_H
#define BSPKIT_NAV_H

#include "bspkit.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bk_nav_agent {
    float radius;    /* half the player box's width */
    float height;    /* the player box's height */
    float step;      /* the highest step walked up without a jump */
    float slope;     /* the steepest walkable floor, degrees */
} bk_nav_agent;

/* true when this libbspkit was built with Recast/Detour and its module (libbspkit_nav.so, opened
 * on first use: docs/navmesh.md) loads */
bool bk_nav_available(void);
/* why navmeshes are not available (built without Recast/Detour, or the module that did not load,
 * with the paths tried); NULL when they are */
const char *bk_nav_unavailable_reason(void);
/* The family's player (bk_file_game: its standing box; the engine's step height, 45 degrees);
 * BK_EUNSUPPORTED for a file that is not a map. */
bk_result bk_nav_default_agent(const bk_file *f, bk_nav_agent *out);
/* BK_OK, or BK_EARG with a sentence in why (cap bytes) for sizes no player has: radius in
 * (0, 1024], height in (0, 4096], step in [0, height], slope in [0, 85]. */
bk_result bk_nav_agent_check(const bk_nav_agent *a, char *why, size_t cap);

typedef struct bk_navmesh bk_navmesh;

typedef struct bk_nav_stats {
    uint32_t tiles, tiles_x, tiles_y;     /* tiles holding polygons, of the grid tiles_x * tiles_y */
    uint32_t polygons, vertices;
    uint32_t input_solids;                /* convex solids, filled whole */
    uint32_t input_triangles, walkable_triangles;   /* patches, displacements: open meshes */
    float cell_size, cell_height;         /* the voxels, engine units */
    float mins[3], maxs[3];               /* the walkable input's bounds */
} bk_nav_stats;

/* Build the navmesh of map f for agent a (NULL: bk_nav_default_agent). Diagnostics (the reason
 * of a failure: no walkable floor, an agent too small for the map, ...) go to opt->diag,
 * located at the "navmesh" lump. Never a partial mesh: BK_ELIMIT rather than a tile left out. */
bk_result bk_navmesh_build(const bk_file *f, const bk_options *opt, const bk_nav_agent *a, bk_navmesh **out);
void bk_navmesh_free(bk_navmesh *m);
void bk_navmesh_stats(const bk_navmesh *m, bk_nav_stats *out);
/* Each walkable polygon (convex, at most 6 vertices, wound counter-clockwise seen from above),
 * in order: fn(user, xyz, vertex count, area id, tile). */
typedef void (*bk_nav_poly_fn)(void *user, const float *xyz, uint32_t n, uint32_t area, uint32_t tile);
void bk_navmesh_polygons(const bk_navmesh *m, bk_nav_poly_fn fn, void *user);
/* The navmesh as Detour tiles (the layout in docs/navmesh.md), to bk_free. */
bk_result bk_navmesh_save(const bk_navmesh *m, uint8_t **data, size_t *size);
/* The point of the mesh nearest p within (dxy horizontally, dz vertically); BK_ENOTFOUND when none. */
bk_result bk_navmesh_nearest(const bk_navmesh *m, const float p[3], float dxy, float dz, float out[3]);
/* The path from a to b (each snapped to the mesh: within 2 radii across and a player's height up
 * or down): *points (3 floats each, bk_free) from a's snapped point to b's, its length in *length.
 * BK_ENOTFOUND when a or b is off the mesh, or b cannot be reached from a (*points then is the
 * path to the nearest reachable point, *reached false). */
bk_result bk_navmesh_path(const bk_navmesh *m, const float a[3], const float b[3], float **points, uint32_t *count,
                          float *length, bool *reached);

#ifdef __cplusplus
}
#endif
#endif
