/*
 * bspkit/advanced.h — the speed and memory knobs: calls that make a conversion, a render or a
 * large Source map cheaper by giving memory back early or leaving work out. They are fenced, as
 * zstd fences its static-linking-only API: a program that wants them says so, and takes on that
 * they may change between versions.
 *
 *     #define BK_ADVANCED_API
 *     #include <bspkit/advanced.h>
 *
 * Nothing here changes what is read or drawn; every call has a plain counterpart in the default
 * headers (bk_file_build_scene, bk_renderer_prepare, bk_write_group_png_rgba, bk_source_map_of).
 * Used by the CLI, the Python binding and the web page.
 */
#ifndef BSPKIT_ADVANCED_H
#define BSPKIT_ADVANCED_H

#ifndef BK_ADVANCED_API
#error "bspkit/advanced.h: #define BK_ADVANCED_API before including it (these calls may change between versions)"
#endif

#include "bspkit.h"
#include "render.h"
#include "scene.h"

#ifdef __cplusplus
extern "C" {
#endif

/* bk_options flags (bits beside bspkit.h's and the families') */
enum {
    BK_OPT_DEFER_GEOMETRY = 1u << 10, /* bk_file_open / bk_file_load_memory of a Source map: read its
                                       * directory, entities, game lumps (static and detail props) and
                                       * pakfile now; decode (LZMA) and check the geometry lumps on first
                                       * need (bk_file_complete). Other formats load whole as always */
    BK_OPT_FEW_POINTS = 1u << 11,     /* bk_query_open: leave out what makes many point queries fast (the
                                       * start grid and, on Quake 3, the point index: 1-10 MB on large
                                       * maps). The answers are the same, each walk starting from the
                                       * root; for a caller asking a few (a renderer's eye) */
};

/* Finish a load deferred by BK_OPT_DEFER_GEOMETRY: the geometry decoded and checked as a whole
 * load does it, its diagnostics through opt (its limits are the open's). Done once: later calls,
 * and a file loaded whole, return what the first gave (BK_OK). Everything that needs the geometry
 * finishes it first itself (bk_file_info, bk_source_map_of, scenes, queries, lumps, edits), its
 * diagnostics then unheard; on failure the geometry stays empty. Thread-safe. */
bk_result bk_file_complete(bk_file *f, const bk_options *opt);
/* The map as its open left it, a deferred load (BK_OPT_DEFER_GEOMETRY) not finished: the lump
 * table, game lumps, static and detail props and the pakfile are there, the geometry arrays empty
 * (counts 0) until bk_file_complete. A file loaded whole: bk_source_map_of's map. NULL when f is
 * not a Source map. */
const struct bk_source_map *bk_source_map_partial(const bk_file *f); /* bspkit/source.h */

/* A hint for a file kept open after what it is needed for is built (a scene, a query): the pages
 * of a mapped input that are resident go back to the system and are read from the file again when
 * touched; an input read into memory is left as it is. The file stays fully usable. Runs with no
 * other call on f. */
void bk_file_release_pages(const bk_file *f);

/* bk_file_build_scene for a program that needs nothing else from f (a conversion): f is freed by
 * this call, whether it succeeds or not, so building may give back what the file holds that the
 * scene does not need (resident pages of a mapped input, decoded lumps) as it goes, and a lightmap
 * atlas is encoded on a second thread while the rest is built and exported. Same scene as
 * bk_file_build_scene; lower peak memory and time. Runs with no other call on f. */
bk_result bk_file_into_scene(bk_file *f, const bk_options *opt, bk_scene **out);

/* Free image i's pixels, for a program done with them (a renderer that has decoded them); the
 * image stays, without pixels, as an external texture. */
void bk_scene_image_release(bk_scene *s, uint32_t i);
/* Free every primitive's vertices and indices, for a program done with them (a renderer that has
 * copied them: bk_renderer_new); the meshes stay, with empty primitives. */
void bk_scene_release_geometry(bk_scene *s);

/* bk_renderer_prepare, then every image of release (the renderer's scene, BK_EARG for another) is
 * released (bk_scene_image_release): those the view does not draw first, each other once decoded,
 * so the scene's images and the renderer's are not all held at once. The renderer keeps its own
 * copy; a view that needs more than was decoded then fails with BK_EARG. release NULL: the same as
 * bk_renderer_prepare. */
bk_result bk_renderer_prepare_release(bk_renderer *r, const bk_render_options *o, bk_scene *release);

/* bk_write_group_png_rgba for a program done with the picture: the PNG's filtered rows are made
 * in rgba's own memory (its pixels are lost; a copy of 2.6 MB at 1280x720 saved). */
bk_result bk_write_group_png_rgba_consume(bk_write_group *g, uint8_t *rgba, uint32_t w, uint32_t h,
                                          const char *path);

#ifdef __cplusplus
}
#endif
#endif
