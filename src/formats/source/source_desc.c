/* The Source family (VBSP 17 Bloodlines, 19, 20, 21, and 21 with Left 4 Dead 2's directory order;
 * big-endian console PSBV and Respawn's rBSP recognised only to be refused) as rows: versions,
 * the 64 lumps with their element fields (Valve's public/bspfile.h, in snake_case), the
 * references the one checker applies, and the family's operations. Column 0: 56-byte leafs (lump
 * version 0), 1: 32-byte leafs (lump version 1), 2: Bloodlines' v17 (32-byte leafs, 104-byte
 * faces). A version row gives the usual column; the loader moves between 0 and 1 by the leafs
 * lump's version and size. Also the minimal families of Source's VTF textures and MDL models. */
#include <stddef.h>
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

/* What Valve's engine and compiler take of each lump: the MAX_MAP_* arrays of source-sdk-2013
 * src/public/bspfile.h (vbsp and the engine size their tables by these; more: `validate` warns, the
 * map still loads here). Lumps without a public number are named by their row. Not on Bloodlines
 * (v17): its engine's header is not public. */
#define LIM(l_, n_, c_, b_) {.lump = l_, .max = n_, .name = c_, .bytes = b_}
#define L_(x) BK_SRC_LUMP_##x
static const bk_lump_limit k_source_lump_limits[] = {
    LIM(L_(PLANES), 65536, "MAX_MAP_PLANES", false),
    LIM(L_(TEXDATA), 2048, "MAX_MAP_TEXDATA", false),
    LIM(L_(VERTEXES), 65536, "MAX_MAP_VERTS", false),
    LIM(L_(VISIBILITY), 0x1000000, "MAX_MAP_VISIBILITY", true),
    LIM(L_(NODES), 65536, "MAX_MAP_NODES", false),
    LIM(L_(TEXINFO), 12288, "MAX_MAP_TEXINFO", false),
    LIM(L_(FACES), 65536, "MAX_MAP_FACES", false),
    LIM(L_(LIGHTING), 0x1000000, "MAX_MAP_LIGHTING", true),
    LIM(L_(LEAFS), 65536, "MAX_MAP_LEAFS", false),
    LIM(L_(EDGES), 256000, "MAX_MAP_EDGES", false),
    LIM(L_(SURFEDGES), 512000, "MAX_MAP_SURFEDGES", false),
    LIM(L_(MODELS), 1024, "MAX_MAP_MODELS", false),
    LIM(L_(LEAFFACES), 65536, "MAX_MAP_LEAFFACES", false),
    LIM(L_(LEAFBRUSHES), 65536, "MAX_MAP_LEAFBRUSHES", false),
    LIM(L_(BRUSHES), 8192, "MAX_MAP_BRUSHES", false),
    LIM(L_(BRUSHSIDES), 65536, "MAX_MAP_BRUSHSIDES", false),
    LIM(L_(AREAS), 256, "MAX_MAP_AREAS", false),
    LIM(L_(AREAPORTALS), 1024, "MAX_MAP_AREAPORTALS", false),
    LIM(L_(DISPINFO), 2048, "MAX_MAP_DISPINFO", false),
    LIM(L_(ORIGINALFACES), 65536, "MAX_MAP_FACES", false),
    LIM(30, 256000, "MAX_MAP_VERTNORMALS", false),          /* vertnormals */
    LIM(31, 256000, "MAX_MAP_VERTNORMALINDICES", false),    /* vertnormalindices */
    LIM(36, 32768, "MAX_MAP_LEAFWATERDATA", false),         /* leafwaterdata */
    LIM(L_(PRIMITIVES), 32768, "MAX_MAP_PRIMITIVES", false),
    LIM(38, 65536, "MAX_MAP_PRIMVERTS", false),             /* primverts */
    LIM(39, 65536, "MAX_MAP_PRIMINDICES", false),           /* primindices */
    LIM(L_(CLIPPORTALVERTS), 128000, "MAX_MAP_PORTALVERTS", false),
    LIM(L_(CUBEMAPS), 1024, "MAX_MAP_CUBEMAPSAMPLES", false),
    LIM(L_(TEXDATA_STRING_DATA), 256000, "MAX_MAP_TEXDATA_STRING_DATA", true),
    LIM(L_(TEXDATA_STRING_TABLE), 65536, "MAX_MAP_TEXDATA_STRING_TABLE", false),
    LIM(L_(OVERLAYS), 512, "MAX_MAP_OVERLAYS", false),
    LIM(L_(WATEROVERLAYS), 16384, "MAX_MAP_WATEROVERLAYS", false),
    LIM(L_(WORLDLIGHTS), 8192, "MAX_MAP_WORLDLIGHTS", false),
    LIM(L_(LIGHTING_HDR), 0x1000000, "MAX_MAP_LIGHTING", true),
    LIM(L_(WORLDLIGHTS_HDR), 8192, "MAX_MAP_WORLDLIGHTS", false),
};
#undef L_
#undef LIM
static const bk_engine_limits k_source_limits = {"Source's", k_source_lump_limits, BK_ARRAY_LEN(k_source_lump_limits)};

#define VBSP(v_, name_, variant_, column_, dir_, limits_)                                                     \
    {.ident = "VBSP", .version = v_, .version_at = 4, .name = name_, .variant = variant_,                      \
     .format = BK_FORMAT_SOURCE, .column = column_, .dir = dir_, .entity_slot = 0, .supported = true,          \
     .entity_limits = &k_source_ents, .game = &k_source_game, .lump_limits = limits_}
#define REFUSED(ident_, name_)                                                                                 \
    {.ident = ident_, .version = 0, .version_at = -1, .name = name_, .variant = "", .format = BK_FORMAT_SOURCE, \
     .supported = false}
static const bk_version_desc k_versions[] = {
    VBSP(17, "Source v17 (Vampire: Bloodlines)", "vtmb", 2, &k_dir, NULL),
    VBSP(19, "Source v19", "", 0, &k_dir, &k_source_limits),
    VBSP(20, "Source v20", "", 0, &k_dir, &k_source_limits),
    VBSP(21, "Source v21", "", 0, &k_dir, &k_source_limits),
    /* the same bytes at the start; told apart by the loader (which directory order places the lumps) */
    VBSP(21, "Source v21 (L4D2 lump order)", "l4d2", 0, &k_dir_l4d2, &k_source_limits),
    /* VBSP numbers no engine bspkit reads writes: refused, saying what they are */
    {.ident = "VBSP", .version = 25, .version_at = 4, .name = "Strata Source v25", .variant = "",
     .format = BK_FORMAT_SOURCE, .supported = false, .refused_note = "v25 is Momentum Mod / Strata Source"},
    {.ident = "VBSP", .version = 42, .version_at = 4, .name = "VBSP v42", .variant = "",
     .format = BK_FORMAT_SOURCE, .supported = false, .refused_note = "v42 is not a version any engine writes"},
    REFUSED("PSBV", "big-endian console VBSP"),
    REFUSED("rBSP", "Respawn rBSP"),
};
#undef VBSP
#undef REFUSED

#define F(n_, t_, o_, c_) {.name = n_, .type = BK_FT_##t_, .offset = o_, .count = c_}
/* a field decoded by bk_decode_rows into member m_ of the public struct st_ as type to_; D0: a lump
 * whose element is one value (the public array is of that value) */
#define D(n_, t_, o_, c_, to_, st_, m_) \
    {.name = n_, .type = BK_FT_##t_, .offset = o_, .count = c_, .to = BK_TO(to_), .dst = (uint16_t)offsetof(st_, m_)}
#define D0(n_, t_, o_, c_, to_) {.name = n_, .type = BK_FT_##t_, .offset = o_, .count = c_, .to = BK_TO(to_), .dst = 0}
#define PL bk_source_plane
#define TD bk_source_texdata
#define ND bk_source_node
#define TI bk_source_texinfo
#define FC bk_source_face
#define LF bk_source_leaf
#define MD bk_source_model
#define DI bk_source_dispinfo
#define DV bk_source_dispvert
#define CM bk_source_cubemap
#define WL bk_source_worldlight
static const bk_field f_plane[] = {D("normal", F32, 0, 3, F32, PL, normal), D("dist", F32, 12, 1, F32, PL, dist),
                                   D("type", I32, 16, 1, I32, PL, type)};
static const bk_field f_texdata[] = {D("reflectivity", F32, 0, 3, F32, TD, reflectivity),
                                     D("name_string_table_id", I32, 12, 1, I32, TD, name_id),
                                     D("width", I32, 16, 1, I32, TD, width),
                                     D("height", I32, 20, 1, I32, TD, height),
                                     D("view_width", I32, 24, 1, I32, TD, view_width),
                                     D("view_height", I32, 28, 1, I32, TD, view_height)};
static const bk_field f_vertex[] = {D0("point", F32, 0, 3, F32)};
static const bk_field f_node[] = {D("planenum", I32, 0, 1, I32, ND, planenum), D("children", I32, 4, 2, I32, ND, children),
                                  D("mins", I16, 12, 3, I16, ND, mins),         D("maxs", I16, 18, 3, I16, ND, maxs),
                                  D("firstface", U16, 24, 1, U16, ND, firstface), D("numfaces", U16, 26, 1, U16, ND, numfaces),
                                  D("area", I16, 28, 1, I16, ND, area),         F("padding", BYTES, 30, 2)};
/* the two rows of four floats of each: consecutive members */
static const bk_field f_texinfo[] = {D("texture_vecs", F32, 0, 8, F32, TI, tex_vecs), D("lightmap_vecs", F32, 32, 8, F32, TI, lm_vecs),
                                     D("flags", I32, 64, 1, I32, TI, flags), D("texdata", I32, 68, 1, I32, TI, texdata)};
#define FACE_HEAD(o)                                                                                          \
    D("planenum", U16, (o), 1, U32, FC, planenum), D("side", U8, (o) + 2, 1, U8, FC, side),                   \
        D("on_node", U8, (o) + 3, 1, U8, FC, on_node), D("firstedge", I32, (o) + 4, 1, I32, FC, firstedge),   \
        D("numedges", I16, (o) + 8, 1, I32, FC, numedges), D("texinfo", I16, (o) + 10, 1, I32, FC, texinfo),  \
        D("dispinfo", I16, (o) + 12, 1, I32, FC, dispinfo),                                                   \
        D("surface_fog_volume_id", I16, (o) + 14, 1, I32, FC, fog_volume)
#define FACE_LIGHT(o)                                                                                         \
    D("lightofs", I32, (o), 1, I32, FC, lightofs), D("area", F32, (o) + 4, 1, F32, FC, area),                 \
        D("lightmap_texture_mins_in_luxels", I32, (o) + 8, 2, I32, FC, lm_mins),                              \
        D("lightmap_texture_size_in_luxels", I32, (o) + 16, 2, I32, FC, lm_size),                             \
        D("orig_face", I32, (o) + 24, 1, I32, FC, orig_face)
static const bk_field f_face[] = {FACE_HEAD(0), D("styles", U8, 16, 4, U8, FC, styles), FACE_LIGHT(20),
                                  D("num_prims", U16, 48, 1, U32, FC, num_prims),
                                  D("first_prim_id", U16, 50, 1, U32, FC, first_prim),
                                  D("smoothing_groups", U32, 52, 1, U32, FC, smoothing_groups)};
/* Bloodlines: 32 bytes of average colours first, eight style bytes (the face keeps the first four)
 * and two more sets of eight */
static const bk_field f_face17[] = {
    F("avg_light_color", BYTES, 0, 32), FACE_HEAD(32),
    {.name = "styles", .type = BK_FT_U8, .offset = 48, .count = 8, .to = BK_TO(U8), .dst = offsetof(FC, styles), .dst_count = 4},
    F("day_styles", U8, 56, 8), F("night_styles", U8, 64, 8), FACE_LIGHT(72),
    D("smoothing_groups", U32, 100, 1, U32, FC, smoothing_groups)};
#undef FACE_HEAD
#undef FACE_LIGHT
/* area:9 and flags:7 share one 16-bit word: decoded whole into area, parted by the loader
 * (vbsp_tree.c) */
#define LEAF_FIELDS                                                                                             \
    D("contents", I32, 0, 1, I32, LF, contents), D("cluster", I16, 4, 1, I16, LF, cluster),                     \
        D("area_flags", U16, 6, 1, U16, LF, area), D("mins", I16, 8, 3, I16, LF, mins),                         \
        D("maxs", I16, 14, 3, I16, LF, maxs), D("firstleafface", U16, 20, 1, U16, LF, firstleafface),           \
        D("numleaffaces", U16, 22, 1, U16, LF, numleaffaces), D("firstleafbrush", U16, 24, 1, U16, LF, firstleafbrush), \
        D("numleafbrushes", U16, 26, 1, U16, LF, numleafbrushes),                                               \
        D("leaf_water_data_id", I16, 28, 1, I16, LF, leaf_water_data)
static const bk_field f_leaf[] = {LEAF_FIELDS, F("padding", BYTES, 30, 2)};
static const bk_field f_leaf0[] = {LEAF_FIELDS, F("ambient_lighting", BYTES, 30, 24), F("padding", BYTES, 54, 2)};
#undef LEAF_FIELDS
static const bk_field f_edge[] = {D0("v", U16, 0, 2, U32)};
static const bk_field f_surfedge[] = {D0("edge", I32, 0, 1, I32)};
static const bk_field f_model[] = {D("mins", F32, 0, 3, F32, MD, mins),     D("maxs", F32, 12, 3, F32, MD, maxs),
                                   D("origin", F32, 24, 3, F32, MD, origin), D("headnode", I32, 36, 1, I32, MD, headnode),
                                   D("firstface", I32, 40, 1, I32, MD, firstface), D("numfaces", I32, 44, 1, I32, MD, numfaces)};
static const bk_field f_leafface[] = {D0("face", U16, 0, 1, U16)};
static const bk_field f_leafbrush[] = {D0("brush", U16, 0, 1, U16)};
static const bk_field f_brush[] = {D("firstside", I32, 0, 1, I32, bk_source_brush, firstside),
                                   D("numsides", I32, 4, 1, I32, bk_source_brush, numsides),
                                   D("contents", I32, 8, 1, I32, bk_source_brush, contents)};
static const bk_field f_brushside[] = {D("planenum", U16, 0, 1, U16, bk_source_brushside, planenum),
                                       D("texinfo", I16, 2, 1, I16, bk_source_brushside, texinfo),
                                       D("dispinfo", I16, 4, 1, I16, bk_source_brushside, dispinfo),
                                       D("bevel", I16, 6, 1, I16, bk_source_brushside, bevel)};
static const bk_field f_area[] = {D("numareaportals", I32, 0, 1, I32, bk_source_area, num_portals),
                                  D("firstareaportal", I32, 4, 1, I32, bk_source_area, first_portal)};
static const bk_field f_areaportal[] = {D("portal_key", U16, 0, 1, U16, bk_source_areaportal, portal_key),
                                        D("otherarea", U16, 2, 1, U16, bk_source_areaportal, other_area),
                                        D("first_clip_portal_vert", U16, 4, 1, U16, bk_source_areaportal, first_clip_vert),
                                        D("clip_portal_verts", U16, 6, 1, U16, bk_source_areaportal, num_clip_verts),
                                        D("planenum", I32, 8, 1, I32, bk_source_areaportal, planenum)};
static const bk_field f_dispinfo[] = {
    D("start_position", F32, 0, 3, F32, DI, start), D("disp_vert_start", I32, 12, 1, I32, DI, vert_start),
    D("disp_tri_start", I32, 16, 1, I32, DI, tri_start), D("power", I32, 20, 1, I32, DI, power),
    D("min_tess", I32, 24, 1, I32, DI, min_tess),   D("smoothing_angle", F32, 28, 1, F32, DI, smoothing_angle),
    D("contents", I32, 32, 1, I32, DI, contents),   D("map_face", U16, 36, 1, U32, DI, map_face),
    F("padding", BYTES, 38, 2),
    D("lightmap_alpha_start", I32, 40, 1, I32, DI, lm_alpha_start),
    D("lightmap_sample_position_start", I32, 44, 1, I32, DI, lm_sample_start),
    F("edge_neighbors", BYTES, 48, 48), F("corner_neighbors", BYTES, 96, 40), F("allowed_verts", U32, 136, 10)};
static const bk_field f_dispvert[] = {D("vec", F32, 0, 3, F32, DV, vec), D("dist", F32, 12, 1, F32, DV, dist),
                                      D("alpha", F32, 16, 1, F32, DV, alpha)};
static const bk_field f_disp_tri[] = {D0("tags", U16, 0, 1, U16)};
static const bk_field f_string_table[] = {F("offset", I32, 0, 1)};
/* dworldlight_t: 88 bytes (lump version 0, v17-v20); lump version 1 (v21: CS:GO, L4D2) adds
 * shadow_cast_offset after normal, 100 bytes. emittype_t type: 0 surface, 1 point, 2 spotlight,
 * 3 skylight, 4 quakelight, 5 skyambient. */
#define WORLDLIGHT_TAIL(o)                                                                                      \
    D("cluster", I32, (o), 1, I32, WL, cluster), D("type", I32, (o) + 4, 1, I32, WL, type),                     \
        D("style", I32, (o) + 8, 1, I32, WL, style), D("stopdot", F32, (o) + 12, 1, F32, WL, stopdot),          \
        D("stopdot2", F32, (o) + 16, 1, F32, WL, stopdot2), D("exponent", F32, (o) + 20, 1, F32, WL, exponent), \
        D("radius", F32, (o) + 24, 1, F32, WL, radius), D("constant_attn", F32, (o) + 28, 1, F32, WL, constant_attn), \
        D("linear_attn", F32, (o) + 32, 1, F32, WL, linear_attn),                                               \
        D("quadratic_attn", F32, (o) + 36, 1, F32, WL, quadratic_attn), D("flags", I32, (o) + 40, 1, I32, WL, flags), \
        D("texinfo", I32, (o) + 44, 1, I32, WL, texinfo), D("owner", I32, (o) + 48, 1, I32, WL, owner)
#define WORLDLIGHT_HEAD                                                                                         \
    D("origin", F32, 0, 3, F32, WL, origin), D("intensity", F32, 12, 3, F32, WL, intensity),                    \
        D("normal", F32, 24, 3, F32, WL, normal)
static const bk_field f_worldlight[] = {WORLDLIGHT_HEAD, WORLDLIGHT_TAIL(36)};
static const bk_field f_worldlight1[] = {WORLDLIGHT_HEAD, D("shadow_cast_offset", F32, 36, 3, F32, WL, shadow_cast_offset),
                                         WORLDLIGHT_TAIL(48)};
#undef WORLDLIGHT_HEAD
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
static const bk_field f_cubemap[] = {D("origin", I32, 0, 3, I32, CM, origin), D("size", U8, 12, 1, U8, CM, size),
                                     F("padding", BYTES, 13, 3)};
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
#undef D
#undef D0
#undef PL
#undef TD
#undef ND
#undef TI
#undef FC
#undef LF
#undef MD
#undef DI
#undef DV
#undef CM
#undef WL
#define OCC_TAIL                                                                                              \
    {"polys", 12, BK_FIELDS(f_occluder_poly), false, 2, "firstvertexindex", "vertexcount"},                  \
    {"vertex_indices", 4, BK_FIELDS(f_occluder_index), true, -1, NULL, NULL}
static const bk_lump_section k_occlusion_v2[] = {
    {"occluders", 40, BK_FIELDS(f_occluder), false, 1, "firstpoly", "polycount"}, OCC_TAIL};
static const bk_lump_section k_occlusion_v1[] = {
    {"occluders", 36, BK_FIELDS(f_occluder_v1), false, 1, "firstpoly", "polycount"}, OCC_TAIL};
#undef OCC_TAIL

#define SAME(f) {BK_FIELDS(f), BK_FIELDS(f), BK_FIELDS(f)}
/* the column by the lump's version (bk_rows_column): column + 1 for lump versions < 0, 0, 1, >= 2,
 * the same in every version row's column */
#define BY_VERSION(neg, v0, v1, later) {{neg, v0, v1, later}, {neg, v0, v1, later}, {neg, v0, v1, later}}
/* the leafs: lump version 0 (v19 / v20 era) carries a 24-byte ambient light cube (56 bytes), the
 * others 32 bytes; Bloodlines' v17 leafs are 32 bytes whatever the lump version says */
#define LEAF_COLUMNS {{2, 1, 2, 2}, {2, 1, 2, 2}, {3, 3, 3, 3}}
const bk_lump_desc bk_source_lumps[BK_SRC_LUMP_COUNT] = {
    [0] = {.name = "entities", .entry = {1, 1, 1}},
    [1] = {.name = "planes", .entry = {20, 20, 20}, .fields = SAME(f_plane), .dst_size = sizeof(bk_source_plane)},
    [2] = {.name = "texdata", .entry = {32, 32, 32}, .fields = SAME(f_texdata), .dst_size = sizeof(bk_source_texdata)},
    [3] = {.name = "vertexes", .entry = {12, 12, 12}, .fields = SAME(f_vertex), .dst_size = 3 * sizeof(float)},
    [4] = {.name = "visibility", .entry = {1, 1, 1}},
    [5] = {.name = "nodes", .entry = {32, 32, 32}, .fields = SAME(f_node), .dst_size = sizeof(bk_source_node)},
    [6] = {.name = "texinfo", .entry = {72, 72, 72}, .fields = SAME(f_texinfo), .dst_size = sizeof(bk_source_texinfo)},
    [7] = {.name = "faces", .entry = {56, 56, 104}, .fields = {BK_FIELDS(f_face), BK_FIELDS(f_face), BK_FIELDS(f_face17)}, .dst_size = sizeof(bk_source_face)},
    [8] = {.name = "lighting", .entry = {1, 1, 1}},
    /* column by the lump's own version: 0 (and 2) version 2, 1 version 1 */
    [9] = {.name = "occlusion", .entry = {1, 1, 1}, .sections = {BK_FIELDS(k_occlusion_v2), BK_FIELDS(k_occlusion_v1), BK_FIELDS(k_occlusion_v2)}, .by_version = BY_VERSION(2, 2, 2, 1)},
    [10] = {.name = "leafs", .entry = {56, 32, 32}, .fields = {BK_FIELDS(f_leaf0), BK_FIELDS(f_leaf), BK_FIELDS(f_leaf)}, .dst_size = sizeof(bk_source_leaf), .by_version = LEAF_COLUMNS},
    [11] = {.name = "faceids", .entry = {2, 2, 2}, .fields = SAME(f_faceid)},
    [12] = {.name = "edges", .entry = {4, 4, 4}, .fields = SAME(f_edge), .dst_size = 2 * sizeof(uint32_t)},
    [13] = {.name = "surfedges", .entry = {4, 4, 4}, .fields = SAME(f_surfedge), .dst_size = sizeof(int32_t)},
    [14] = {.name = "models", .entry = {48, 48, 48}, .fields = SAME(f_model), .dst_size = sizeof(bk_source_model)},
    /* column by the lump's own version: 0 (and 2) version 0, 1 version 1 */
    [15] = {.name = "worldlights", .entry = {88, 100, 88}, .fields = {BK_FIELDS(f_worldlight), BK_FIELDS(f_worldlight1), BK_FIELDS(f_worldlight)}, .dst_size = sizeof(bk_source_worldlight), .by_version = BY_VERSION(1, 1, 2, 2)},
    [16] = {.name = "leaffaces", .entry = {2, 2, 2}, .fields = SAME(f_leafface), .dst_size = sizeof(uint16_t)},
    [17] = {.name = "leafbrushes", .entry = {2, 2, 2}, .fields = SAME(f_leafbrush), .dst_size = sizeof(uint16_t)},
    [18] = {.name = "brushes", .entry = {12, 12, 12}, .fields = SAME(f_brush), .dst_size = sizeof(bk_source_brush)},
    [19] = {.name = "brushsides", .entry = {8, 8, 8}, .fields = SAME(f_brushside), .dst_size = sizeof(bk_source_brushside)},
    [20] = {.name = "areas", .entry = {8, 8, 8}, .fields = SAME(f_area), .dst_size = sizeof(bk_source_area)},
    [21] = {.name = "areaportals", .entry = {12, 12, 12}, .fields = SAME(f_areaportal), .dst_size = sizeof(bk_source_areaportal)},
    [22] = {.name = "propcollision", .entry = {1, 1, 1}},
    [23] = {.name = "prophulls", .entry = {1, 1, 1}},
    [24] = {.name = "prophullverts", .entry = {1, 1, 1}},
    [25] = {.name = "proptris", .entry = {1, 1, 1}},
    [26] = {.name = "dispinfo", .entry = {176, 176, 176}, .fields = SAME(f_dispinfo), .dst_size = sizeof(bk_source_dispinfo)},
    [27] = {.name = "originalfaces", .entry = {56, 56, 104}, .fields = {BK_FIELDS(f_face), BK_FIELDS(f_face), BK_FIELDS(f_face17)}, .dst_size = sizeof(bk_source_face)},
    [28] = {.name = "physdisp", .entry = {1, 1, 1}},
    [29] = {.name = "physcollide", .entry = {1, 1, 1}},
    [30] = {.name = "vertnormals", .entry = {12, 12, 12}, .fields = SAME(f_vertnormal)},
    [31] = {.name = "vertnormalindices", .entry = {2, 2, 2}, .fields = SAME(f_index16)},
    [32] = {.name = "disp_lightmap_alphas", .entry = {1, 1, 1}},
    [33] = {.name = "dispverts", .entry = {20, 20, 20}, .fields = SAME(f_dispvert), .dst_size = sizeof(bk_source_dispvert)},
    [34] = {.name = "disp_lightmap_sample_positions", .entry = {1, 1, 1}},
    [35] = {.name = "game_lump", .entry = {1, 1, 1}},
    [36] = {.name = "leafwaterdata", .entry = {12, 12, 12}, .fields = SAME(f_leafwater)},
    [37] = {.name = "primitives", .entry = {10, 10, 10}, .fields = SAME(f_primitive)},
    [38] = {.name = "primverts", .entry = {12, 12, 12}, .fields = SAME(f_primvert)},
    [39] = {.name = "primindices", .entry = {2, 2, 2}, .fields = SAME(f_index16)},
    [40] = {.name = "pakfile", .entry = {1, 1, 1}},
    [41] = {.name = "clipportalverts", .entry = {12, 12, 12}, .fields = SAME(f_vertex)},
    [42] = {.name = "cubemaps", .entry = {16, 16, 16}, .fields = SAME(f_cubemap), .dst_size = sizeof(bk_source_cubemap)},
    [43] = {.name = "texdata_string_data", .entry = {1, 1, 1}},
    [44] = {.name = "texdata_string_table", .entry = {4, 4, 4}, .fields = SAME(f_string_table)},
    [45] = {.name = "overlays", .entry = {352, 352, 352}, .fields = SAME(f_overlay)},
    [46] = {.name = "leafmindisttowater", .entry = {2, 2, 2}, .fields = SAME(f_min_dist)},
    [47] = {.name = "face_macro_texture_info", .entry = {2, 2, 2}, .fields = SAME(f_macro_texture)},
    [48] = {.name = "disp_tris", .entry = {2, 2, 2}, .fields = SAME(f_disp_tri), .dst_size = sizeof(uint16_t)},
    [49] = {.name = "physcollidesurface", .entry = {1, 1, 1}},
    [50] = {.name = "wateroverlays", .entry = {1120, 1120, 1120}, .fields = SAME(f_water_overlay)},
    [51] = {.name = "leaf_ambient_index_hdr", .entry = {4, 4, 4}, .fields = SAME(f_ambient_index)},
    [52] = {.name = "leaf_ambient_index", .entry = {4, 4, 4}, .fields = SAME(f_ambient_index)},
    [53] = {.name = "lighting_hdr", .entry = {1, 1, 1}},
    [54] = {.name = "worldlights_hdr", .entry = {88, 100, 88}, .fields = {BK_FIELDS(f_worldlight), BK_FIELDS(f_worldlight1), BK_FIELDS(f_worldlight)}, .dst_size = sizeof(bk_source_worldlight), .by_version = BY_VERSION(1, 1, 2, 2)},
    /* column by the lump's own version: 1 version 1, else 0 */
    [55] = {.name = "leaf_ambient_lighting_hdr", .entry = {24, 28, 24}, .fields = {BK_FIELDS(f_ambient_cube), BK_FIELDS(f_ambient_lighting), BK_FIELDS(f_ambient_cube)}, .by_version = BY_VERSION(1, 1, 2, 1)},
    [56] = {.name = "leaf_ambient_lighting", .entry = {24, 28, 24}, .fields = {BK_FIELDS(f_ambient_cube), BK_FIELDS(f_ambient_lighting), BK_FIELDS(f_ambient_cube)}, .by_version = BY_VERSION(1, 1, 2, 1)},
    [57] = {.name = "xzippakfile", .entry = {1, 1, 1}},
    /* Bloodlines (column 2) has no HDR faces: its engine predates HDR */
    [58] = {.name = "faces_hdr", .entry = {56, 56, 104}, .fields = {BK_FIELDS(f_face), BK_FIELDS(f_face), BK_FIELDS(f_face17)}, .dst_size = sizeof(bk_source_face),
            .absent = 1u << 2},
    [59] = {.name = "map_flags", .entry = {4, 4, 4}, .fields = SAME(f_map_flags)},
    [60] = {.name = "overlay_fades", .entry = {8, 8, 8}, .fields = SAME(f_overlay_fade)},
    [61] = {.name = "overlay_system_levels", .entry = {4, 4, 4}, .fields = SAME(f_overlay_level)},
    [62] = {.name = "physlevel", .entry = {1, 1, 1}},
    [63] = {.name = "disp_multiblend", .entry = {1, 1, 1}},
};
#undef SAME
#undef BY_VERSION
#undef LEAF_COLUMNS

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

/* a lump decompressed; the column of its rows as the load chose it (bk_rows_column: the leafs'
 * version, 56 or 32 bytes, the world lights' 88 or 100, the occluders' 40 or 36, Bloodlines' faces) */
static bk_result source_lump_view(const bk_file *f, uint32_t lump, bk_lump_view *out)
{
    const bk_source_map *m = bk_source_map_of(f);
    if (!m || lump >= BK_SRC_LUMP_COUNT) return BK_EARG;
    memset(out, 0, sizeof *out);
    BK_TRY(bk_source_lump_bytes(f, (int)lump, &out->data, &out->size));
    out->slot = lump;
    out->compressed = m->lumps[lump].compressed;
    out->column = ((const vbsp_impl *)f->impl)->column[lump];   /* chosen at load (bk_rows_column) */
    return BK_OK;
}

const bk_family bk_family_source = {
    .name = "source",
    .versions = k_versions,
    .version_count = BK_ARRAY_LEN(k_versions),
    .lumps = bk_source_lumps,
    .lump_count = BK_SRC_LUMP_COUNT,
    .refs = bk_source_refs,
    .ref_count = BK_SRC_REF_COUNT,
    .ops = &bk_ops_source,
    .query = &bk_query_ops_source,
    .collision = bk_collision_brushes,
    .pak_slot = BK_SRC_LUMP_PAKFILE,
    .edit_fixup = source_edit_fixup,
    .lump_view = source_lump_view,
    .edit_encode = source_edit_encode,
    .decompile = bk_decompile_source,
    .arrays = &bk_arrays_source,
};

/* ---- the minimal families of Source's assets -------------------------------------------------- */
static const bk_version_desc k_vtf_versions[] = {
    {"VTF", 7, -1, "Valve texture 7.x", "", BK_FORMAT_VTF, 0, NULL, 0, true, NULL, .game = NULL},
};
const bk_family bk_family_vtf = {
    .name = "vtf", .versions = k_vtf_versions, .version_count = BK_ARRAY_LEN(k_vtf_versions), .ops = &bk_ops_vtf,
    .pak_slot = -1,
};

static const bk_version_desc k_mdl_versions[] = {
    {"IDST", 44, 4, "Source model v44", "", BK_FORMAT_MDL, 0, NULL, 0, true, NULL, .game = NULL},
    {"IDST", 45, 4, "Source model v45", "", BK_FORMAT_MDL, 0, NULL, 0, true, NULL, .game = NULL},
    {"IDST", 46, 4, "Source model v46", "", BK_FORMAT_MDL, 0, NULL, 0, true, NULL, .game = NULL},
    {"IDST", 47, 4, "Source model v47", "", BK_FORMAT_MDL, 0, NULL, 0, true, NULL, .game = NULL},
    {"IDST", 48, 4, "Source model v48", "", BK_FORMAT_MDL, 0, NULL, 0, true, NULL, .game = NULL},
    {"IDST", 49, 4, "Source model v49", "", BK_FORMAT_MDL, 0, NULL, 0, true, NULL, .game = NULL,
     .traits = BK_VT_VTX_TOPOLOGY},
};
const bk_family bk_family_mdl = {
    .name = "mdl", .versions = k_mdl_versions, .version_count = BK_ARRAY_LEN(k_mdl_versions), .ops = &bk_ops_mdl,
    .pak_slot = -1, .arrays = &bk_arrays_mdl,
};
