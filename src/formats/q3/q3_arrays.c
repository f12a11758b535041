/* The decoded arrays of a Quake 3 map's public struct (bk_q3_map, include/bspkit/q3.h) for
 * bk_file_array: where each lies, and the members its lump rows (q3_desc.c) do not decode. */
#include "q3_internal.h"

#define M BK_MEMBER
/* names: the loader ends them with a NUL (the file's 64 bytes need not) */
static const bk_array_member m_shader[] = {M(bk_q3_shader, "shader", CHARS, name, 65)};
static const bk_array_member m_fog[] = {M(bk_q3_fog, "shader", CHARS, shader, 65)};
#undef M
/* a lightmap page: rows top first, RGB */
static const bk_array_member m_lightmap[] = {
    {"rgb", BK_ARRAY_U8, 0, {BK_Q3_LIGHTMAP_SIZE, BK_Q3_LIGHTMAP_SIZE, 3}}};
/* a light grid cell as stored (q3_desc.c's gridcell row) */
static const bk_array_member m_gridcell[] = {{"ambient_light", BK_ARRAY_U8, 0, {3}},
                                             {"directed_light", BK_ARRAY_U8, 3, {3}},
                                             {"lat_long", BK_ARRAY_U8, 6, {2}}};

#define A(name, lump, ptr, cnt, elem, more) BK_ARRAY(bk_q3_map, name, BK_Q3_LUMP_##lump, ptr, cnt, elem, more)
#define P(name, lump, ptr, cnt, elem) BK_ARRAY_PLAIN(bk_q3_map, name, BK_Q3_LUMP_##lump, ptr, cnt, elem)
static const bk_array_desc k_arrays[] = {
    A("shaders", SHADERS, shaders, shader_count, bk_q3_shader, m_shader),
    P("planes", PLANES, planes, plane_count, bk_q3_plane),
    P("nodes", NODES, nodes, node_count, bk_q3_node),
    P("leafs", LEAFS, leafs, leaf_count, bk_q3_leaf),
    P("leafsurfaces", LEAFSURFACES, leafsurfaces, leafsurface_count, int32_t),
    P("leafbrushes", LEAFBRUSHES, leafbrushes, leafbrush_count, int32_t),
    P("models", MODELS, models, model_count, bk_q3_model),
    P("brushes", BRUSHES, brushes, brush_count, bk_q3_brush),
    P("brushsides", BRUSHSIDES, brushsides, brushside_count, bk_q3_brushside),
    P("verts", DRAWVERTS, verts, vert_count, bk_q3_vertex),
    P("indexes", DRAWINDEXES, indexes, index_count, int32_t),
    A("fogs", FOGS, fogs, fog_count, bk_q3_fog, m_fog),
    P("surfaces", SURFACES, surfaces, surface_count, bk_q3_surface),
    A("lightmaps", LIGHTMAPS, lightmaps, lightmap_count, uint8_t[BK_Q3_LIGHTMAP_SIZE * BK_Q3_LIGHTMAP_SIZE * 3],
      m_lightmap),
    A("lightgrid", LIGHTGRID, grid.cells, grid.cell_count, uint8_t[8], m_gridcell),
};
#undef A
#undef P

static const void *decoded(const bk_file *f) { return bk_q3_map_of(f); }
const bk_array_set bk_arrays_q3 = {decoded, NULL, k_arrays, BK_ARRAY_LEN(k_arrays)};
