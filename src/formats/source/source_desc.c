/* The Source family (VBSP 17 Bloodlines, 19, 20, 21, and 21 with Left 4 Dead 2's directory order;
 * big-endian console PSBV and Respawn's rBSP recognised only to be refused) as rows: versions,
 * the 64 lumps with their element fields (Valve's public/bspfile.h, in snake_case), the
 * references the one checker applies, and the family's operations. Column 0: 56-byte leafs (lump
 * version 0), 1: 32-byte leafs (lump version 1), 2: Bloodlines' v17 (32-byte leafs, 104-byte
 * faces). A version row gives the usual column; the loader moves between 0 and 1 by the leafs
 * lump's version and size. Also the minimal families of Source's VTF textures and MDL models. */
#include <stdio.h>

#include "vbsp_internal.h"
#include "../../query/query_internal.h"

static const bk_dir_layout k_dir = {8, BK_SRC_LUMP_COUNT, 16, 0, 4, VBSP_HEADER_SIZE, 4, false};
/* {version, offset, length, fourCC} */
static const bk_dir_layout k_dir_l4d2 = {8, BK_SRC_LUMP_COUNT, 16, 4, 8, VBSP_HEADER_SIZE, 4, false};

/* What the game reads of an entity lump (a write past it warns): keys and values into
 * char[MAPKEY_MAXLENGTH] (2048, cutting longer ones; source-sdk-2013
 * src/game/shared/mapentities_shared.h/.cpp); vbsp refuses more than MAX_MAP_ENTITIES 8192 entities
 * (src/public/bspfile.h). Not vbsp's MAX_KEY 32 / MAX_VALUE 1024 (bsplib.cpp ParseEpair): real
 * Left 4 Dead 2 maps have 32- and 39-byte keys (clip_3D_skybox_near_to_world_far_offset), so later
 * compilers allow more. */
static const bk_entity_limits k_source_ents = {"Source's", 2047, 2047, 0, 0, 8192};

/* The game's facts (bk_game): the origin is at the feet, the eye VEC_VIEW (0, 0, 64) above it, the
 * box VEC_HULL_MIN (-16, -16, 0) .. VEC_HULL_MAX (16, 16, 72) (source-sdk-2013
 * src/game/shared/shareddefs.h, gamerules.cpp g_DefaultViewVectors). Spots: info_player_start,
 * info_player_deathmatch (Half-Life 2: Deathmatch also), Counter-Strike: Source's
 * info_player_terrorist / _counterterrorist, Day of Defeat: Source's info_player_axis / _allies,
 * Team Fortress 2's info_player_teamspawn. */
static const char *const k_source_spawns[] = {"info_player_start", "info_player_deathmatch", "info_player_terrorist",
                                              "info_player_counterterrorist", "info_player_axis",
                                              "info_player_allies", "info_player_teamspawn"};
static const bk_game k_source_game = {64, k_source_spawns, 7, {-16, -16, 0}, {16, 16, 72}};

static const bk_version_desc k_versions[] = {
    {"VBSP", 17, 4, "Source v17 (Vampire: Bloodlines)", "vtmb", BK_FORMAT_SOURCE, 2, &k_dir, 0, true, &k_source_ents,
     .game = &k_source_game},
    {"VBSP", 19, 4, "Source v19", "", BK_FORMAT_SOURCE, 0, &k_dir, 0, true, &k_source_ents, .game = &k_source_game},
    {"VBSP", 20, 4, "Source v20", "", BK_FORMAT_SOURCE, 0, &k_dir, 0, true, &k_source_ents, .game = &k_source_game},
    {"VBSP", 21, 4, "Source v21", "", BK_FORMAT_SOURCE, 0, &k_dir, 0, true, &k_source_ents, .game = &k_source_game},
    /* the same bytes at the start; told apart by the loader (which directory order places the lumps) */
    {"VBSP", 21, 4, "Source v21 (L4D2 lump order)", "l4d2", BK_FORMAT_SOURCE, 0, &k_dir_l4d2, 0, true, &k_source_ents,
     .game = &k_source_game},
    {"PSBV", 0, -1, "big-endian console VBSP", "", BK_FORMAT_SOURCE, 0, NULL, 0, false, NULL, .game = NULL},
    {"rBSP", 0, -1, "Respawn rBSP", "", BK_FORMAT_SOURCE, 0, NULL, 0, false, NULL, .game = NULL},
};

const bk_version_desc *bk_vbsp_version_l4d2(void) { return &k_versions[4]; }

#define F(n_, t_, o_, c_) {.name = n_, .type = BK_FT_##t_, .offset = o_, .count = c_}
static const bk_field f_plane[] = {F("normal", F32, 0, 3), F("dist", F32, 12, 1), F("type", I32, 16, 1)};
static const bk_field f_texdata[] = {F("reflectivity", F32, 0, 3),      F("name_string_table_id", I32, 12, 1),
                                     F("width", I32, 16, 1),            F("height", I32, 20, 1),
                                     F("view_width", I32, 24, 1),       F("view_height", I32, 28, 1)};
static const bk_field f_vertex[] = {F("point", F32, 0, 3)};
static const bk_field f_node[] = {F("planenum", I32, 0, 1), F("children", I32, 4, 2), F("mins", I16, 12, 3),
                                  F("maxs", I16, 18, 3),   F("firstface", U16, 24, 1), F("numfaces", U16, 26, 1),
                                  F("area", I16, 28, 1),   F("padding", BYTES, 30, 2)};
static const bk_field f_texinfo[] = {F("texture_vecs", F32, 0, 8), F("lightmap_vecs", F32, 32, 8),
                                     F("flags", I32, 64, 1), F("texdata", I32, 68, 1)};
static const bk_field f_face[] = {
    F("planenum", U16, 0, 1),       F("side", U8, 2, 1),           F("on_node", U8, 3, 1),
    F("firstedge", I32, 4, 1),      F("numedges", I16, 8, 1),      F("texinfo", I16, 10, 1),
    F("dispinfo", I16, 12, 1),      F("surface_fog_volume_id", I16, 14, 1), F("styles", U8, 16, 4),
    F("lightofs", I32, 20, 1),      F("area", F32, 24, 1),         F("lightmap_texture_mins_in_luxels", I32, 28, 2),
    F("lightmap_texture_size_in_luxels", I32, 36, 2), F("orig_face", I32, 44, 1), F("num_prims", U16, 48, 1),
    F("first_prim_id", U16, 50, 1), F("smoothing_groups", U32, 52, 1)};
/* Bloodlines: 32 bytes of average colours first, eight style bytes and two more sets of eight */
static const bk_field f_face17[] = {
    F("avg_light_color", BYTES, 0, 32), F("planenum", U16, 32, 1),   F("side", U8, 34, 1),
    F("on_node", U8, 35, 1),          F("firstedge", I32, 36, 1),     F("numedges", I16, 40, 1),
    F("texinfo", I16, 42, 1),         F("dispinfo", I16, 44, 1),      F("surface_fog_volume_id", I16, 46, 1),
    F("styles", U8, 48, 8),           F("day_styles", U8, 56, 8),     F("night_styles", U8, 64, 8),
    F("lightofs", I32, 72, 1),        F("area", F32, 76, 1),          F("lightmap_texture_mins_in_luxels", I32, 80, 2),
    F("lightmap_texture_size_in_luxels", I32, 88, 2), F("orig_face", I32, 96, 1), F("smoothing_groups", U32, 100, 1)};
/* area:9 and flags:7 share one 16-bit word */
#define LEAF_FIELDS                                                                                             \
    F("contents", I32, 0, 1), F("cluster", I16, 4, 1), F("area_flags", U16, 6, 1), F("mins", I16, 8, 3),        \
        F("maxs", I16, 14, 3), F("firstleafface", U16, 20, 1), F("numleaffaces", U16, 22, 1),                   \
        F("firstleafbrush", U16, 24, 1), F("numleafbrushes", U16, 26, 1), F("leaf_water_data_id", I16, 28, 1)
static const bk_field f_leaf[] = {LEAF_FIELDS, F("padding", BYTES, 30, 2)};
static const bk_field f_leaf0[] = {LEAF_FIELDS, F("ambient_lighting", BYTES, 30, 24), F("padding", BYTES, 54, 2)};
#undef LEAF_FIELDS
static const bk_field f_edge[] = {F("v", U16, 0, 2)};
static const bk_field f_surfedge[] = {F("edge", I32, 0, 1)};
static const bk_field f_model[] = {F("mins", F32, 0, 3),     F("maxs", F32, 12, 3),     F("origin", F32, 24, 3),
                                   F("headnode", I32, 36, 1), F("firstface", I32, 40, 1), F("numfaces", I32, 44, 1)};
static const bk_field f_leafface[] = {F("face", U16, 0, 1)};
static const bk_field f_leafbrush[] = {F("brush", U16, 0, 1)};
static const bk_field f_brush[] = {F("firstside", I32, 0, 1), F("numsides", I32, 4, 1), F("contents", I32, 8, 1)};
static const bk_field f_brushside[] = {F("planenum", U16, 0, 1), F("texinfo", I16, 2, 1), F("dispinfo", I16, 4, 1),
                                       F("bevel", I16, 6, 1)};
static const bk_field f_area[] = {F("numareaportals", I32, 0, 1), F("firstareaportal", I32, 4, 1)};
static const bk_field f_areaportal[] = {F("portal_key", U16, 0, 1),         F("otherarea", U16, 2, 1),
                                        F("first_clip_portal_vert", U16, 4, 1), F("clip_portal_verts", U16, 6, 1),
                                        F("planenum", I32, 8, 1)};
static const bk_field f_dispinfo[] = {
    F("start_position", F32, 0, 3),   F("disp_vert_start", I32, 12, 1), F("disp_tri_start", I32, 16, 1),
    F("power", I32, 20, 1),           F("min_tess", I32, 24, 1),        F("smoothing_angle", F32, 28, 1),
    F("contents", I32, 32, 1),        F("map_face", U16, 36, 1),        F("padding", BYTES, 38, 2),
    F("lightmap_alpha_start", I32, 40, 1), F("lightmap_sample_position_start", I32, 44, 1),
    F("edge_neighbors", BYTES, 48, 48), F("corner_neighbors", BYTES, 96, 40), F("allowed_verts", U32, 136, 10)};
static const bk_field f_dispvert[] = {F("vec", F32, 0, 3), F("dist", F32, 12, 1), F("alpha", F32, 16, 1)};
static const bk_field f_disp_tri[] = {F("tags", U16, 0, 1)};
static const bk_field f_string_table[] = {F("offset", I32, 0, 1)};
/* dworldlight_t: 88 bytes (lump version 0, v17-v20); lump version 1 (v21: CS:GO, L4D2) adds
 * shadow_cast_offset after normal, 100 bytes. emittype_t type: 0 surface, 1 point, 2 spotlight,
 * 3 skylight, 4 quakelight, 5 skyambient. */
#define WORLDLIGHT_TAIL(o)                                                                                      \
    F("cluster", I32, (o), 1), F("type", I32, (o) + 4, 1), F("style", I32, (o) + 8, 1),                         \
        F("stopdot", F32, (o) + 12, 1), F("stopdot2", F32, (o) + 16, 1), F("exponent", F32, (o) + 20, 1),       \
        F("radius", F32, (o) + 24, 1), F("constant_attn", F32, (o) + 28, 1), F("linear_attn", F32, (o) + 32, 1), \
        F("quadratic_attn", F32, (o) + 36, 1), F("flags", I32, (o) + 40, 1), F("texinfo", I32, (o) + 44, 1),    \
        F("owner", I32, (o) + 48, 1)
static const bk_field f_worldlight[] = {F("origin", F32, 0, 3), F("intensity", F32, 12, 3), F("normal", F32, 24, 3),
                                        WORLDLIGHT_TAIL(36)};
static const bk_field f_worldlight1[] = {F("origin", F32, 0, 3), F("intensity", F32, 12, 3), F("normal", F32, 24, 3),
                                         F("shadow_cast_offset", F32, 36, 3), WORLDLIGHT_TAIL(48)};
#undef WORLDLIGHT_TAIL
/* the occlusion lump (bspfile.h): doccluderdata_t (lump version 2: area added; version 1's
 * doccluderdataV1_t has none), doccluderpolydata_t, and int vertex indices */
static const bk_field f_occluder[] = {F("flags", I32, 0, 1), F("firstpoly", I32, 4, 1), F("polycount", I32, 8, 1),
                                      F("mins", F32, 12, 3), F("maxs", F32, 24, 3), F("area", I32, 36, 1)};
static const bk_field f_occluder_v1[] = {F("flags", I32, 0, 1), F("firstpoly", I32, 4, 1), F("polycount", I32, 8, 1),
                                         F("mins", F32, 12, 3), F("maxs", F32, 24, 3)};
static const bk_field f_occluder_poly[] = {F("firstvertexindex", I32, 0, 1), F("vertexcount", I32, 4, 1),
                                           F("planenum", I32, 8, 1)};
static const bk_field f_occluder_index[] = {F("vertex_index", I32, 0, 1)};
/* the smaller arrays (bspfile.h): dcubemapsample_t, doverlay_t and dwateroverlay_t (64 and 256
 * faces), dprimitive_t, dprimvert_t, dleafwaterdata_t, dfaceid_t, dleafambientindex_t,
 * dleafambientlighting_t (a CompressedLightCube: six ColorRGBExp32, r g b and a signed exponent),
 * doverlayfade_t, doverlaysystemlevel_t, dflagslump_t, and the lumps of one unsigned short */
static const bk_field f_cubemap[] = {F("origin", I32, 0, 3), F("size", U8, 12, 1), F("padding", BYTES, 13, 3)};
#define OVERLAY_FIELDS(nfaces)                                                                                \
    F("id", I32, 0, 1), F("tex_info", I16, 4, 1), F("face_count_and_render_order", U16, 6, 1),                 \
        F("faces", I32, 8, nfaces), F("u", F32, 8 + 4 * (nfaces), 2), F("v", F32, 16 + 4 * (nfaces), 2),        \
        F("uv_points", F32, 24 + 4 * (nfaces), 12), F("origin", F32, 72 + 4 * (nfaces), 3),                     \
        F("basis_normal", F32, 84 + 4 * (nfaces), 3)
static const bk_field f_overlay[] = {OVERLAY_FIELDS(64)};
static const bk_field f_water_overlay[] = {OVERLAY_FIELDS(256)};
#undef OVERLAY_FIELDS
static const bk_field f_primitive[] = {F("type", U8, 0, 1), F("padding", BYTES, 1, 1), F("first_index", U16, 2, 1),
                                       F("index_count", U16, 4, 1), F("first_vert", U16, 6, 1),
                                       F("vert_count", U16, 8, 1)};
static const bk_field f_primvert[] = {F("pos", F32, 0, 3)};
static const bk_field f_vertnormal[] = {F("normal", F32, 0, 3)};
static const bk_field f_index16[] = {F("index", U16, 0, 1)};
static const bk_field f_leafwater[] = {F("surface_z", F32, 0, 1), F("min_z", F32, 4, 1),
                                       F("surface_tex_info_id", I16, 8, 1), F("padding", BYTES, 10, 2)};
static const bk_field f_faceid[] = {F("hammerfaceid", U16, 0, 1)};
static const bk_field f_min_dist[] = {F("min_dist", U16, 0, 1)};
static const bk_field f_macro_texture[] = {F("macro_texture_name_id", U16, 0, 1)};
static const bk_field f_ambient_index[] = {F("ambient_sample_count", U16, 0, 1), F("first_ambient_sample", U16, 2, 1)};
static const bk_field f_ambient_lighting[] = {F("cube", BYTES, 0, 24), F("x", U8, 24, 1), F("y", U8, 25, 1),
                                              F("z", U8, 26, 1), F("pad", U8, 27, 1)};
/* lump version 0 (older v20 maps): one CompressedLightCube a leaf, no index lump */
static const bk_field f_ambient_cube[] = {F("cube", BYTES, 0, 24)};
static const bk_field f_overlay_fade[] = {F("fade_dist_min_sq", F32, 0, 1), F("fade_dist_max_sq", F32, 4, 1)};
static const bk_field f_overlay_level[] = {F("min_cpu_level", U8, 0, 1), F("max_cpu_level", U8, 1, 1),
                                           F("min_gpu_level", U8, 2, 1), F("max_gpu_level", U8, 3, 1)};
static const bk_field f_map_flags[] = {F("level_flags", U32, 0, 1)};
#undef F
#define OCC_TAIL                                                                                              \
    {"polys", 12, BK_FIELDS(f_occluder_poly), false, 2, "firstvertexindex", "vertexcount"},                  \
    {"vertex_indices", 4, BK_FIELDS(f_occluder_index), true, -1, NULL, NULL}
static const bk_lump_section k_occlusion_v2[] = {
    {"occluders", 40, BK_FIELDS(f_occluder), false, 1, "firstpoly", "polycount"}, OCC_TAIL};
static const bk_lump_section k_occlusion_v1[] = {
    {"occluders", 36, BK_FIELDS(f_occluder_v1), false, 1, "firstpoly", "polycount"}, OCC_TAIL};
#undef OCC_TAIL

#define SAME(f) {BK_FIELDS(f), BK_FIELDS(f), BK_FIELDS(f)}
const bk_lump_desc bk_source_lumps[BK_SRC_LUMP_COUNT] = {
    [0] = {.name = "entities", .entry = {1, 1, 1}},
    [1] = {.name = "planes", .entry = {20, 20, 20}, .fields = SAME(f_plane)},
    [2] = {.name = "texdata", .entry = {32, 32, 32}, .fields = SAME(f_texdata)},
    [3] = {.name = "vertexes", .entry = {12, 12, 12}, .fields = SAME(f_vertex)},
    [4] = {.name = "visibility", .entry = {1, 1, 1}},
    [5] = {.name = "nodes", .entry = {32, 32, 32}, .fields = SAME(f_node)},
    [6] = {.name = "texinfo", .entry = {72, 72, 72}, .fields = SAME(f_texinfo)},
    [7] = {.name = "faces", .entry = {56, 56, 104}, .fields = {BK_FIELDS(f_face), BK_FIELDS(f_face), BK_FIELDS(f_face17)}},
    [8] = {.name = "lighting", .entry = {1, 1, 1}},
    /* column by the lump's own version (source_lump_view): 0 and 2 version 2, 1 version 1 */
    [9] = {.name = "occlusion", .entry = {1, 1, 1}, .sections = {BK_FIELDS(k_occlusion_v2), BK_FIELDS(k_occlusion_v1), BK_FIELDS(k_occlusion_v2)}},
    [10] = {.name = "leafs", .entry = {56, 32, 32}, .fields = {BK_FIELDS(f_leaf0), BK_FIELDS(f_leaf), BK_FIELDS(f_leaf)}},
    [11] = {.name = "faceids", .entry = {2, 2, 2}, .fields = SAME(f_faceid)},
    [12] = {.name = "edges", .entry = {4, 4, 4}, .fields = SAME(f_edge)},
    [13] = {.name = "surfedges", .entry = {4, 4, 4}, .fields = SAME(f_surfedge)},
    [14] = {.name = "models", .entry = {48, 48, 48}, .fields = SAME(f_model)},
    /* column by the lump's own version (source_lump_view): 0 and 2 version 0, 1 version 1 */
    [15] = {.name = "worldlights", .entry = {88, 100, 88}, .fields = {BK_FIELDS(f_worldlight), BK_FIELDS(f_worldlight1), BK_FIELDS(f_worldlight)}},
    [16] = {.name = "leaffaces", .entry = {2, 2, 2}, .fields = SAME(f_leafface)},
    [17] = {.name = "leafbrushes", .entry = {2, 2, 2}, .fields = SAME(f_leafbrush)},
    [18] = {.name = "brushes", .entry = {12, 12, 12}, .fields = SAME(f_brush)},
    [19] = {.name = "brushsides", .entry = {8, 8, 8}, .fields = SAME(f_brushside)},
    [20] = {.name = "areas", .entry = {8, 8, 8}, .fields = SAME(f_area)},
    [21] = {.name = "areaportals", .entry = {12, 12, 12}, .fields = SAME(f_areaportal)},
    [22] = {.name = "propcollision", .entry = {1, 1, 1}},
    [23] = {.name = "prophulls", .entry = {1, 1, 1}},
    [24] = {.name = "prophullverts", .entry = {1, 1, 1}},
    [25] = {.name = "proptris", .entry = {1, 1, 1}},
    [26] = {.name = "dispinfo", .entry = {176, 176, 176}, .fields = SAME(f_dispinfo)},
    [27] = {.name = "originalfaces", .entry = {56, 56, 104}, .fields = {BK_FIELDS(f_face), BK_FIELDS(f_face), BK_FIELDS(f_face17)}},
    [28] = {.name = "physdisp", .entry = {1, 1, 1}},
    [29] = {.name = "physcollide", .entry = {1, 1, 1}},
    [30] = {.name = "vertnormals", .entry = {12, 12, 12}, .fields = SAME(f_vertnormal)},
    [31] = {.name = "vertnormalindices", .entry = {2, 2, 2}, .fields = SAME(f_index16)},
    [32] = {.name = "disp_lightmap_alphas", .entry = {1, 1, 1}},
    [33] = {.name = "dispverts", .entry = {20, 20, 20}, .fields = SAME(f_dispvert)},
    [34] = {.name = "disp_lightmap_sample_positions", .entry = {1, 1, 1}},
    [35] = {.name = "game_lump", .entry = {1, 1, 1}},
    [36] = {.name = "leafwaterdata", .entry = {12, 12, 12}, .fields = SAME(f_leafwater)},
    [37] = {.name = "primitives", .entry = {10, 10, 10}, .fields = SAME(f_primitive)},
    [38] = {.name = "primverts", .entry = {12, 12, 12}, .fields = SAME(f_primvert)},
    [39] = {.name = "primindices", .entry = {2, 2, 2}, .fields = SAME(f_index16)},
    [40] = {.name = "pakfile", .entry = {1, 1, 1}},
    [41] = {.name = "clipportalverts", .entry = {12, 12, 12}, .fields = SAME(f_vertex)},
    [42] = {.name = "cubemaps", .entry = {16, 16, 16}, .fields = SAME(f_cubemap)},
    [43] = {.name = "texdata_string_data", .entry = {1, 1, 1}},
    [44] = {.name = "texdata_string_table", .entry = {4, 4, 4}, .fields = SAME(f_string_table)},
    [45] = {.name = "overlays", .entry = {352, 352, 352}, .fields = SAME(f_overlay)},
    [46] = {.name = "leafmindisttowater", .entry = {2, 2, 2}, .fields = SAME(f_min_dist)},
    [47] = {.name = "face_macro_texture_info", .entry = {2, 2, 2}, .fields = SAME(f_macro_texture)},
    [48] = {.name = "disp_tris", .entry = {2, 2, 2}, .fields = SAME(f_disp_tri)},
    [49] = {.name = "physcollidesurface", .entry = {1, 1, 1}},
    [50] = {.name = "wateroverlays", .entry = {1120, 1120, 1120}, .fields = SAME(f_water_overlay)},
    [51] = {.name = "leaf_ambient_index_hdr", .entry = {4, 4, 4}, .fields = SAME(f_ambient_index)},
    [52] = {.name = "leaf_ambient_index", .entry = {4, 4, 4}, .fields = SAME(f_ambient_index)},
    [53] = {.name = "lighting_hdr", .entry = {1, 1, 1}},
    [54] = {.name = "worldlights_hdr", .entry = {88, 100, 88}, .fields = {BK_FIELDS(f_worldlight), BK_FIELDS(f_worldlight1), BK_FIELDS(f_worldlight)}},
    /* column by the lump's own version (source_lump_view): 1 version 1, else 0 */
    [55] = {.name = "leaf_ambient_lighting_hdr", .entry = {24, 28, 24}, .fields = {BK_FIELDS(f_ambient_cube), BK_FIELDS(f_ambient_lighting), BK_FIELDS(f_ambient_cube)}},
    [56] = {.name = "leaf_ambient_lighting", .entry = {24, 28, 24}, .fields = {BK_FIELDS(f_ambient_cube), BK_FIELDS(f_ambient_lighting), BK_FIELDS(f_ambient_cube)}},
    [57] = {.name = "xzippakfile", .entry = {1, 1, 1}},
    [58] = {.name = "faces_hdr", .entry = {56, 56, 104}, .fields = {BK_FIELDS(f_face), BK_FIELDS(f_face), BK_FIELDS(f_face17)}},
    [59] = {.name = "map_flags", .entry = {4, 4, 4}, .fields = SAME(f_map_flags)},
    [60] = {.name = "overlay_fades", .entry = {8, 8, 8}, .fields = SAME(f_overlay_fade)},
    [61] = {.name = "overlay_system_levels", .entry = {4, 4, 4}, .fields = SAME(f_overlay_level)},
    [62] = {.name = "physlevel", .entry = {1, 1, 1}},
    [63] = {.name = "disp_multiblend", .entry = {1, 1, 1}},
};
#undef SAME

#define R(lump, field, count_field, target, flags, msg) \
    {BK_SRC_LUMP_##lump, field, count_field, BK_SRC_LUMP_##target, flags, msg}
const bk_ref_desc bk_source_refs[BK_SRC_REF_COUNT] = {
    [BK_SRC_REF_EDGE_VERTEX] = R(EDGES, "v", NULL, VERTEXES, 0, "vertex %v out of range (%c vertexes)"),
    [BK_SRC_REF_SURFEDGE] = R(SURFEDGES, "edge", NULL, EDGES, BK_REF_ABS, "edge %v out of range (%c edges)"),
    [BK_SRC_REF_TEXDATA_NAME] = R(TEXDATA, "name_string_table_id", NULL, TEXDATA_STRING_TABLE, 0,
                                  "name %v out of range (%c strings)"),
    [BK_SRC_REF_TEXINFO_TEXDATA] = R(TEXINFO, "texdata", NULL, TEXDATA, BK_REF_NONE_OK,
                                     "texdata %v out of range (%c texdata)"),
    [BK_SRC_REF_FACE_PLANE] = R(FACES, "planenum", NULL, PLANES, 0, "plane %v out of range (%c planes)"),
    [BK_SRC_REF_ORIGFACE_PLANE] = R(ORIGINALFACES, "planenum", NULL, PLANES, 0, "plane %v out of range (%c planes)"),
    [BK_SRC_REF_HDRFACE_PLANE] = R(FACES_HDR, "planenum", NULL, PLANES, 0, "plane %v out of range (%c planes)"),
    [BK_SRC_REF_AREA_PORTALS] = R(AREAS, "firstareaportal", "numareaportals", AREAPORTALS, BK_REF_RANGE,
                                  "area portals %f+%n out of range (%c area portals)"),
    [BK_SRC_REF_AREAPORTAL_AREA] = R(AREAPORTALS, "otherarea", NULL, AREAS, 0, "area %v out of range (%c areas)"),
    [BK_SRC_REF_AREAPORTAL_CLIPVERTS] = R(AREAPORTALS, "first_clip_portal_vert", "clip_portal_verts",
                                          CLIPPORTALVERTS, BK_REF_RANGE, "clip portal vertices %f+%n out of range (%c)"),
    [BK_SRC_REF_AREAPORTAL_PLANE] = R(AREAPORTALS, "planenum", NULL, PLANES, 0, "plane %v out of range (%c planes)"),
    [BK_SRC_REF_BRUSHSIDE_PLANE] = R(BRUSHSIDES, "planenum", NULL, PLANES, 0, "plane %v out of range (%c planes)"),
    [BK_SRC_REF_BRUSHSIDE_TEXINFO] = R(BRUSHSIDES, "texinfo", NULL, TEXINFO, BK_REF_NONE_OK,
                                       "texinfo %v out of range (%c texinfo)"),
    [BK_SRC_REF_BRUSH_SIDES] = R(BRUSHES, "firstside", "numsides", BRUSHSIDES, BK_REF_RANGE,
                                 "brush sides %f+%n out of range (%c brush sides)"),
    [BK_SRC_REF_LEAFFACE] = R(LEAFFACES, "face", NULL, FACES, 0, "face %v out of range (%c faces)"),
    [BK_SRC_REF_LEAFBRUSH] = R(LEAFBRUSHES, "brush", NULL, BRUSHES, 0, "brush %v out of range (%c brushes)"),
    [BK_SRC_REF_LEAF_FACES] = R(LEAFS, "firstleafface", "numleaffaces", LEAFFACES, BK_REF_RANGE,
                                "leaf faces %f+%n out of range (%c)"),
    [BK_SRC_REF_LEAF_BRUSHES] = R(LEAFS, "firstleafbrush", "numleafbrushes", LEAFBRUSHES, BK_REF_RANGE,
                                  "leaf brushes %f+%n out of range (%c)"),
    [BK_SRC_REF_NODE_PLANE] = R(NODES, "planenum", NULL, PLANES, 0, "plane %v out of range (%c planes)"),
    [BK_SRC_REF_NODE_FACES] = R(NODES, "firstface", "numfaces", FACES, BK_REF_RANGE,
                                "faces %f+%n out of range (%c faces)"),
    [BK_SRC_REF_MODEL_FACES] = R(MODELS, "firstface", "numfaces", FACES, BK_REF_RANGE,
                                 "faces %f+%n out of range (%c faces)"),
    [BK_SRC_REF_MODEL_HEADNODE] = R(MODELS, "headnode", NULL, NODES, 0,
                                    "head node %v out of range (%c nodes)"),
    [BK_SRC_REF_AMBIENT_SAMPLES] = R(LEAF_AMBIENT_INDEX, "first_ambient_sample", "ambient_sample_count",
                                     LEAF_AMBIENT_LIGHTING, BK_REF_RANGE | BK_REF_EMPTY_ANY, "ambient samples %f+%n out of range (%c samples)"),
    [BK_SRC_REF_AMBIENT_SAMPLES_HDR] = R(LEAF_AMBIENT_INDEX_HDR, "first_ambient_sample", "ambient_sample_count",
                                         LEAF_AMBIENT_LIGHTING_HDR, BK_REF_RANGE | BK_REF_EMPTY_ANY,
                                         "ambient samples %f+%n out of range (%c samples)"),
};
#undef R

/* ---- editing: the game-lump directory holds absolute offsets; a replaced lump is stored as the
 * map stored it (LZMA-compressed or plain); a saved edit counts a revision ------------------------- */
static void source_edit_fixup(const bk_file *f, const bk_edit_layout *e)
{
    const bk_source_map *m = bk_source_map_of(f);
    const bk_dir_layout *D = e->dir;
    uint32_t g = BK_SRC_LUMP_GAME_LUMP;
    uint64_t glen = e->new_len[g];
    if (e->old_len[g] && e->new_ofs[g] != e->old_ofs[g] && !m->lumps[g].compressed) {
        uint8_t *gd = e->data + e->new_ofs[g];
        int32_t cnt = bk_rd_i32le(gd);
        for (int32_t i = 0; i >= 0 && i < cnt && (uint64_t)i * 16 + 20 <= glen; i++) {
            uint8_t *ge = gd + 4 + 16 * (size_t)i + 8;
            uint32_t go = bk_rd_u32le(ge);
            if (go) bk_wr_u32le(ge, (uint32_t)e->moved(e, go));
        }
    }
    /* the fourCC of a replaced lump: its uncompressed size when stored LZMA-compressed (as
     * source_edit_encode writes what the map held compressed; Valve's tools do the same), else 0 */
    for (uint32_t i = 0; i < D->count; i++) {
        if (!e->replaced[i]) continue;
        const uint8_t *ld = e->data + e->new_ofs[i];
        bool lzma = i < BK_SRC_LUMP_COUNT && m->lumps[i].compressed && e->new_len[i] >= VBSP_LZMA_HEADER &&
                    memcmp(ld, "LZMA", 4) == 0;
        bk_wr_u32le(e->data + D->dir_offset + (size_t)i * D->entry_size + 12, lzma ? bk_rd_u32le(ld + 4) : 0);
    }
    if (e->edited) {
        uint8_t *rev = e->data + D->dir_offset + (size_t)D->count * D->entry_size;
        bk_wr_u32le(rev, bk_rd_u32le(rev) + 1);
    }
}

/* how a replaced lump is stored: LZMA-compressed again when the map held it compressed (not the
 * game-lump directory or the pakfile, which the engine reads plain; not an empty lump) */
static bk_result source_edit_encode(const bk_file *f, uint32_t slot, const uint8_t *d, size_t n, uint8_t **out,
                                    size_t *out_n)
{
    const bk_source_map *m = bk_source_map_of(f);
    *out = NULL;
    *out_n = 0;
    if (!m || slot >= BK_SRC_LUMP_COUNT || !m->lumps[slot].compressed || !n || slot == BK_SRC_LUMP_GAME_LUMP ||
        slot == BK_SRC_LUMP_PAKFILE)
        return BK_OK;
    return bk_vbsp_lzma_encode(d, n, out, out_n);
}

/* a lump decompressed; the column of its rows: the leafs' version (56 or 32 bytes), the world
 * lights' (88 or 100), the occluders' (40 or 36), Bloodlines' faces */
static bk_result source_lump_view(const bk_file *f, uint32_t lump, bk_lump_view *out)
{
    const bk_source_map *m = bk_source_map_of(f);
    if (!m || lump >= BK_SRC_LUMP_COUNT) return BK_EARG;
    memset(out, 0, sizeof *out);
    BK_TRY(bk_source_lump_bytes(f, (int)lump, &out->data, &out->size));
    out->slot = lump;
    out->compressed = m->lumps[lump].compressed;
    if (lump == BK_SRC_LUMP_LEAFS) out->column = m->leaf_version == 0 ? 0 : 1;
    else if (lump == BK_SRC_LUMP_WORLDLIGHTS || lump == BK_SRC_LUMP_WORLDLIGHTS_HDR)
        out->column = m->lumps[lump].version >= 1 ? 1 : 0;
    else if (lump == BK_SRC_LUMP_OCCLUSION) out->column = m->lumps[lump].version >= 2 ? 0 : 1;
    else if (lump == BK_SRC_LUMP_LEAF_AMBIENT_LIGHTING || lump == BK_SRC_LUMP_LEAF_AMBIENT_LIGHTING_HDR)
        out->column = m->lumps[lump].version == 1 ? 1 : 0;
    else out->column = f->version ? f->version->column : 0;
    return BK_OK;
}

const bk_family bk_family_source = {
    "source", k_versions, BK_ARRAY_LEN(k_versions), bk_source_lumps, BK_SRC_LUMP_COUNT, bk_source_refs,
    BK_SRC_REF_COUNT, &bk_ops_source, &bk_query_ops_source, bk_collision_brushes, BK_SRC_LUMP_PAKFILE,
    source_edit_fixup, source_lump_view, source_edit_encode, bk_decompile_source, &bk_arrays_source,
};

/* ---- the minimal families of Source's assets -------------------------------------------------- */
static const bk_version_desc k_vtf_versions[] = {
    {"VTF", 7, -1, "Valve texture 7.x", "", BK_FORMAT_VTF, 0, NULL, 0, true, NULL, .game = NULL},
};
const bk_family bk_family_vtf = {
    "vtf", k_vtf_versions, BK_ARRAY_LEN(k_vtf_versions), NULL, 0, NULL, 0, &bk_ops_vtf, NULL, NULL, -1, NULL, NULL, NULL, NULL, NULL,
};

static const bk_version_desc k_mdl_versions[] = {
    {"IDST", 44, 4, "Source model v44", "", BK_FORMAT_MDL, 0, NULL, 0, true, NULL, .game = NULL},
    {"IDST", 45, 4, "Source model v45", "", BK_FORMAT_MDL, 0, NULL, 0, true, NULL, .game = NULL},
    {"IDST", 46, 4, "Source model v46", "", BK_FORMAT_MDL, 0, NULL, 0, true, NULL, .game = NULL},
    {"IDST", 47, 4, "Source model v47", "", BK_FORMAT_MDL, 0, NULL, 0, true, NULL, .game = NULL},
    {"IDST", 48, 4, "Source model v48", "", BK_FORMAT_MDL, 0, NULL, 0, true, NULL, .game = NULL},
    {"IDST", 49, 4, "Source model v49", "", BK_FORMAT_MDL, 0, NULL, 0, true, NULL, .game = NULL},
};
const bk_family bk_family_mdl = {
    "mdl", k_mdl_versions, BK_ARRAY_LEN(k_mdl_versions), NULL, 0, NULL, 0, &bk_ops_mdl, NULL, NULL, -1, NULL, NULL, NULL, NULL, &bk_arrays_mdl,
};
