/* The C side of the Recast/Detour shim (recast_shim.cpp): the only place that calls Debian's
 * librecast (C++). Everything here is in Recast's axes (Y up; nav.c turns bspkit's Z-up engine
 * coordinates into them: x = X, y = Z, z = -Y). */
#ifndef BK_NAV_SHIM_H
#define BK_NAV_SHIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The shim is a module of its own (libbspkit_nav.so, built with -DBK_NAV_MODULE), opened the first
 * time a navmesh is built (nav_load.c): Recast, Detour and the C++ runtime are loaded by the
 * programs that build navmeshes, not by every program that links bspkit (loading libstdc++ alone
 * is about 1.8 M instructions of symbol lookup at start-up, more than a small map's validate).
 * There its entry points are named bk_navmod_*; nav_load.c's bk_nav_shim_* call them. */
#ifdef BK_NAV_MODULE
#define BK_NAV_ENTRY __attribute__((visibility("default")))
#define bk_nav_shim_build bk_navmod_build
#define bk_nav_shim_free bk_navmod_free
#define bk_nav_shim_polys bk_navmod_polys
#define bk_nav_shim_nearest bk_navmod_nearest
#define bk_nav_shim_path bk_navmod_path
#define bk_nav_shim_save bk_navmod_save
#else
#define BK_NAV_ENTRY
/* the module opened and its entry points found: true; false with the reason in why */
bool bk_nav_shim_load(char *why, size_t cap);
/* after bk_nav_shim_load said false: why (the paths tried, what each said) */
const char *bk_nav_shim_why(void);
#endif

typedef struct bk_nav_shim bk_nav_shim;

typedef struct bk_nav_shim_cfg {
    float cell_size, cell_height;     /* voxel size across and up */
    float radius, height, climb;      /* the agent, world units */
    float slope;                      /* degrees */
    int tile_cells;                   /* tile edge in cells */
    float bmin[3], bmax[3];           /* the input's bounds */
    float lid;                        /* a solid's top this high is the world's closing lid, no floor */
} bk_nav_shim_cfg;

typedef struct bk_nav_shim_stats {
    uint32_t tiles_x, tiles_z, tiles;   /* the grid, and the tiles that hold polygons */
    uint32_t polys, verts, walkable_tris;
    uint32_t max_tile_polys;
} bk_nav_shim_stats;

/* The walkable input: open triangle meshes (patches, displacements: 3 ints per triangle), and
 * closed convex solids, each the intersection of planes n.p <= d (4 floats per plane; piece i has
 * planes first[i] .. first[i] + count[i] - 1, its bounds across in box[i * 4]: x0, z0, x1, z1),
 * which fill their whole volume in the heightfield (a thick floor is solid through, not two skins
 * with room between them). */
typedef struct bk_nav_shim_input {
    const float *verts;
    int nverts;
    const int *tris;
    int ntris;
    const float *planes;
    const int *first, *count;
    const float *box;
    int npieces;
} bk_nav_shim_input;

/* Build a tiled Detour navmesh from the input. 0 on success; else a
 * message in err and -1 (bad input), -2 (out of memory), -3 (a limit: too many tiles, polygons,
 * vertices). Never a partial mesh: a tile that fails fails the build. */
BK_NAV_ENTRY int bk_nav_shim_build(const bk_nav_shim_input *in, const bk_nav_shim_cfg *cfg,
                      bk_nav_shim **out, bk_nav_shim_stats *st, char *err, size_t cap);
BK_NAV_ENTRY void bk_nav_shim_free(bk_nav_shim *m);
/* every polygon in order: fn(user, verts (3 per vertex), nverts, area, tile) */
typedef void (*bk_nav_shim_poly_fn)(void *user, const float *v, int nv, int area, int tile);
BK_NAV_ENTRY void bk_nav_shim_polys(const bk_nav_shim *m, bk_nav_shim_poly_fn fn, void *user);
/* the nearest point on the mesh within half-extents ext; 0, or -1 when none */
BK_NAV_ENTRY int bk_nav_shim_nearest(const bk_nav_shim *m, const float p[3], const float ext[3], float out[3]);
/* a straight path from a to b (each snapped to the mesh within ext): *pts (malloc, 3 floats per
 * point, free()), *npts. 0 found, 1 only a partial path (b is not reached: pts end at the
 * nearest point to it), -1 a or b off the mesh, -2 out of memory */
BK_NAV_ENTRY int bk_nav_shim_path(const bk_nav_shim *m, const float a[3], const float b[3], const float ext[3], float **pts,
                     int *npts);
/* the navmesh as bytes (malloc, free()): see docs/navmesh.md for the layout */
BK_NAV_ENTRY int bk_nav_shim_save(const bk_nav_shim *m, uint8_t **data, size_t *size);

#ifdef __cplusplus
}
#endif
#endif
