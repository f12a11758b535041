/* The Quake III family (IBSP 46 Quake 3, IBSP 47 RTCW / Wolfenstein: ET) as rows: versions (with
 * the relatives recognised only to be refused), lumps with their element fields (id's qfiles.h,
 * names in snake_case), the references the one checker applies, and the family's operations. */
#include "q3_internal.h"
#include "../../query/query_internal.h"

static const bk_dir_layout k_dir = {8, BK_Q3_LUMP_COUNT, 8, 0, 4, Q3_HEADER_SIZE, 4, true};

/* What the engine reads of an entity lump (a write past it warns): keys and values are read into
 * char[MAX_TOKEN_CHARS] (1024, code/qcommon/q_shared.h; longer tokens are cut), at most
 * MAX_SPAWN_VARS 64 pairs and MAX_SPAWN_VARS_CHARS 4096 bytes (each key and value with its NUL) per
 * entity, else G_Error (ioquake3 code/game/g_local.h, g_spawn.c); entities: MAX_GENTITIES 1024 less
 * MAX_CLIENTS 64 client slots and the 2 reserved (ENTITYNUM_MAX_NORMAL = MAX_GENTITIES - 2, g_utils.c
 * G_Spawn: "no free entities"), plus worldspawn. */
static const bk_entity_limits k_q3_ents = {"Quake III's", 1023, 1023, 64, 4096, 1024 - 64 - 2 + 1};

/* The game's facts (bk_game): SelectSpawnPoint raises the spot's origin by 9 and the view sits
 * DEFAULT_VIEWHEIGHT 26 above the player's origin (ioquake3 code/game/g_client.c,
 * bg_public.h): the eye is 35 above the spawn entity's origin. The box: playerMins
 * (-15, -15, -24) .. playerMaxs (15, 15, 32) (g_client.c). Spots: info_player_start (an alias of
 * info_player_deathmatch in g_spawn.c), info_player_deathmatch, and CTF's team_CTF_redplayer /
 * _blueplayer (the first spawn) and team_CTF_redspawn / _bluespawn (g_team.c). RTCW and
 * Wolfenstein: ET spawn at team_CTF_redspawn / _bluespawn too. */
static const char *const k_q3_spawns[] = {"info_player_start", "info_player_deathmatch", "team_CTF_redplayer",
                                          "team_CTF_blueplayer", "team_CTF_redspawn", "team_CTF_bluespawn"};
static const bk_game k_q3_game = {35, k_q3_spawns, 6, {-15, -15, -24}, {15, 15, 32}};

/* What ioquake3 takes of each lump; a map past these loads here, and `validate` warns: MAX_MAP_* of
 * code/qcommon/qfiles.h, and for the models MAX_SUBMODELS 256 of code/qcommon/cm_local.h
 * (cm_load.c CMod_LoadSubmodels: "MAX_SUBMODELS exceeded"). RTCW / ET (iortcw raises some): none. */
#define LIM(lump, max, name, bytes) {BK_Q3_LUMP_##lump, max, name, bytes}
static const bk_lump_limit k_q3_lump_limits[] = {
    LIM(ENTITIES, 0x40000, "MAX_MAP_ENTSTRING", true),   LIM(SHADERS, 0x400, "MAX_MAP_SHADERS", false),
    LIM(PLANES, 0x20000, "MAX_MAP_PLANES", false),       LIM(NODES, 0x20000, "MAX_MAP_NODES", false),
    LIM(LEAFS, 0x20000, "MAX_MAP_LEAFS", false),         LIM(LEAFSURFACES, 0x20000, "MAX_MAP_LEAFFACES", false),
    LIM(LEAFBRUSHES, 0x40000, "MAX_MAP_LEAFBRUSHES", false), LIM(MODELS, 256, "MAX_SUBMODELS", false),
    LIM(BRUSHES, 0x8000, "MAX_MAP_BRUSHES", false),      LIM(BRUSHSIDES, 0x20000, "MAX_MAP_BRUSHSIDES", false),
    LIM(DRAWVERTS, 0x80000, "MAX_MAP_DRAW_VERTS", false), LIM(DRAWINDEXES, 0x80000, "MAX_MAP_DRAW_INDEXES", false),
    LIM(FOGS, 0x100, "MAX_MAP_FOGS", false),             LIM(SURFACES, 0x20000, "MAX_MAP_DRAW_SURFS", false),
    LIM(LIGHTMAPS, 0x800000, "MAX_MAP_LIGHTING", true),  LIM(LIGHTGRID, 0x800000, "MAX_MAP_LIGHTGRID", true),
    LIM(VISIBILITY, 0x200000, "MAX_MAP_VISIBILITY", true),
};
#undef LIM
static const bk_engine_limits k_q3_limits = {"ioquake3's", k_q3_lump_limits, BK_ARRAY_LEN(k_q3_lump_limits)};

static const bk_version_desc k_versions[] = {
    {.ident = "IBSP", .version = 46, .version_at = 4, .name = "Quake 3 IBSP 46", .variant = "q3",
     .format = BK_FORMAT_QUAKE3, .column = 0, .dir = &k_dir, .entity_slot = 0, .supported = true,
     .entity_limits = &k_q3_ents, .game = &k_q3_game, .lump_limits = &k_q3_limits},
    {.ident = "IBSP", .version = 47, .version_at = 4, .name = "RTCW / Wolfenstein: ET IBSP 47", .variant = "rtcw-et",
     .format = BK_FORMAT_QUAKE3, .column = 0, .dir = &k_dir, .entity_slot = 0, .supported = true,
     .entity_limits = &k_q3_ents, .game = &k_q3_game, .lump_limits = NULL, .traits = BK_VT_FOLIAGE},
    {.ident = "IBSP", .version = 38, .version_at = 4, .name = "Quake 2", .variant = "",
     .format = BK_FORMAT_QUAKE3, .column = 0, .dir = NULL, .entity_slot = 0, .supported = false,
     .entity_limits = NULL, .game = NULL, .lump_limits = NULL},
    {.ident = "RBSP", .version = 1, .version_at = -1, .name = "Raven RBSP", .variant = "",
     .format = BK_FORMAT_QUAKE3, .column = 0, .dir = NULL, .entity_slot = 0, .supported = false,
     .entity_limits = NULL, .game = NULL, .lump_limits = NULL},
    {.ident = "FAKK", .version = 12, .version_at = -1, .name = "Ritual FAKK", .variant = "",
     .format = BK_FORMAT_QUAKE3, .column = 0, .dir = NULL, .entity_slot = 0, .supported = false,
     .entity_limits = NULL, .game = NULL, .lump_limits = NULL},
    {.ident = "EF2!", .version = 20, .version_at = -1, .name = "Ritual EF2", .variant = "",
     .format = BK_FORMAT_QUAKE3, .column = 0, .dir = NULL, .entity_slot = 0, .supported = false,
     .entity_limits = NULL, .game = NULL, .lump_limits = NULL},
};

/* fields as stored (Quake III's qfiles.h) and where bk_decode_rows puts each in the public struct
 * (include/bspkit/q3.h); the names (CHARS) are copied by the loader up to their NUL */
#define F(n_, t_, o_, c_, to_, st_, m_) \
    {.name = n_, .type = BK_FT_##t_, .offset = o_, .count = c_, .to = BK_TO(to_), .dst = offsetof(st_, m_)}
#define FN(n_, t_, o_, c_) {.name = n_, .type = BK_FT_##t_, .offset = o_, .count = c_}
#define F0(n_) {.name = n_, .type = BK_FT_I32, .offset = 0, .count = 1, .to = BK_TO(I32), .dst = 0}
static const bk_field f_shader[] = {FN("shader", CHARS, 0, 64), F("surface_flags", I32, 64, 1, I32, bk_q3_shader, surface_flags),
                                    F("content_flags", I32, 68, 1, I32, bk_q3_shader, content_flags)};
static const bk_field f_plane[] = {F("normal", F32, 0, 3, F32, bk_q3_plane, normal), F("dist", F32, 12, 1, F32, bk_q3_plane, dist)};
static const bk_field f_node[] = {F("plane_num", I32, 0, 1, I32, bk_q3_node, plane), F("children", I32, 4, 2, I32, bk_q3_node, children),
                                  F("mins", I32, 12, 3, I32, bk_q3_node, mins), F("maxs", I32, 24, 3, I32, bk_q3_node, maxs)};
static const bk_field f_leaf[] = {F("cluster", I32, 0, 1, I32, bk_q3_leaf, cluster),
                                  F("area", I32, 4, 1, I32, bk_q3_leaf, area),
                                  F("mins", I32, 8, 3, I32, bk_q3_leaf, mins),
                                  F("maxs", I32, 20, 3, I32, bk_q3_leaf, maxs),
                                  F("first_leaf_surface", I32, 32, 1, I32, bk_q3_leaf, first_leafsurface),
                                  F("num_leaf_surfaces", I32, 36, 1, I32, bk_q3_leaf, num_leafsurfaces),
                                  F("first_leaf_brush", I32, 40, 1, I32, bk_q3_leaf, first_leafbrush),
                                  F("num_leaf_brushes", I32, 44, 1, I32, bk_q3_leaf, num_leafbrushes)};
static const bk_field f_leafsurface[] = {F0("surface")};
static const bk_field f_leafbrush[] = {F0("brush")};
static const bk_field f_model[] = {F("mins", F32, 0, 3, F32, bk_q3_model, mins), F("maxs", F32, 12, 3, F32, bk_q3_model, maxs),
                                   F("first_surface", I32, 24, 1, I32, bk_q3_model, first_surface),
                                   F("num_surfaces", I32, 28, 1, I32, bk_q3_model, num_surfaces),
                                   F("first_brush", I32, 32, 1, I32, bk_q3_model, first_brush),
                                   F("num_brushes", I32, 36, 1, I32, bk_q3_model, num_brushes)};
static const bk_field f_brush[] = {F("first_side", I32, 0, 1, I32, bk_q3_brush, first_side),
                                   F("num_sides", I32, 4, 1, I32, bk_q3_brush, num_sides),
                                   F("shader_num", I32, 8, 1, I32, bk_q3_brush, shader)};
static const bk_field f_brushside[] = {F("plane_num", I32, 0, 1, I32, bk_q3_brushside, plane),
                                       F("shader_num", I32, 4, 1, I32, bk_q3_brushside, shader)};
static const bk_field f_drawvert[] = {F("xyz", F32, 0, 3, F32, bk_q3_vertex, xyz), F("st", F32, 12, 2, F32, bk_q3_vertex, st),
                                      F("lightmap", F32, 20, 2, F32, bk_q3_vertex, lm),
                                      F("normal", F32, 28, 3, F32, bk_q3_vertex, normal),
                                      F("color", U8, 40, 4, U8, bk_q3_vertex, color)};
static const bk_field f_drawindex[] = {F0("index")};
static const bk_field f_fog[] = {FN("shader", CHARS, 0, 64), F("brush_num", I32, 64, 1, I32, bk_q3_fog, brush),
                                 F("visible_side", I32, 68, 1, I32, bk_q3_fog, visible_side)};
#define S(n_, t_, o_, c_, m_) F(n_, t_, o_, c_, t_, bk_q3_surface, m_)
static const bk_field f_surface[] = {
    S("shader_num", I32, 0, 1, shader),        S("fog_num", I32, 4, 1, fog),          S("surface_type", I32, 8, 1, type),
    S("first_vert", I32, 12, 1, first_vert),   S("num_verts", I32, 16, 1, num_verts), S("first_index", I32, 20, 1, first_index),
    S("num_indexes", I32, 24, 1, num_indexes), S("lightmap_num", I32, 28, 1, lightmap), S("lightmap_x", I32, 32, 1, lm_x),
    S("lightmap_y", I32, 36, 1, lm_y),         S("lightmap_width", I32, 40, 1, lm_w), S("lightmap_height", I32, 44, 1, lm_h),
    S("lightmap_origin", F32, 48, 3, lm_origin), S("lightmap_vecs", F32, 60, 9, lm_vecs),
    S("patch_width", I32, 96, 1, patch_w),     S("patch_height", I32, 100, 1, patch_h)};
#undef S
static const bk_field f_lightmap[] = {FN("rgb", U8, 0, Q3_LIGHTMAP_BYTES)};
static const bk_field f_gridcell[] = {FN("ambient_light", U8, 0, 3), FN("directed_light", U8, 3, 3),
                                      FN("lat_long", U8, 6, 2)};
#undef F
#undef FN
#undef F0

#define ONE(f) {BK_FIELDS(f)}
const bk_lump_desc bk_q3_lumps[BK_Q3_LUMP_COUNT] = {
    [BK_Q3_LUMP_ENTITIES] = {.name = "entities", .entry = {1}},
    [BK_Q3_LUMP_SHADERS] = {.name = "shaders", .entry = {Q3_SHADER_SIZE}, .fields = ONE(f_shader), .dst_size = sizeof(bk_q3_shader)},
    [BK_Q3_LUMP_PLANES] = {.name = "planes", .entry = {Q3_PLANE_SIZE}, .in_place = 1, .fields = ONE(f_plane), .dst_size = sizeof(bk_q3_plane)},
    [BK_Q3_LUMP_NODES] = {.name = "nodes", .entry = {Q3_NODE_SIZE}, .in_place = 1, .fields = ONE(f_node), .dst_size = sizeof(bk_q3_node)},
    [BK_Q3_LUMP_LEAFS] = {.name = "leafs", .entry = {Q3_LEAF_SIZE}, .in_place = 1, .fields = ONE(f_leaf), .dst_size = sizeof(bk_q3_leaf)},
    [BK_Q3_LUMP_LEAFSURFACES] = {.name = "leafsurfaces", .entry = {4}, .in_place = 1, .fields = ONE(f_leafsurface), .dst_size = sizeof(int32_t)},
    [BK_Q3_LUMP_LEAFBRUSHES] = {.name = "leafbrushes", .entry = {4}, .in_place = 1, .fields = ONE(f_leafbrush), .dst_size = sizeof(int32_t)},
    /* the world is model 0 */
    [BK_Q3_LUMP_MODELS] = {.name = "models", .entry = {Q3_MODEL_SIZE}, .min_count = 1, .in_place = 1, .fields = ONE(f_model), .dst_size = sizeof(bk_q3_model)},
    [BK_Q3_LUMP_BRUSHES] = {.name = "brushes", .entry = {Q3_BRUSH_SIZE}, .in_place = 1, .fields = ONE(f_brush), .dst_size = sizeof(bk_q3_brush)},
    [BK_Q3_LUMP_BRUSHSIDES] = {.name = "brushsides", .entry = {Q3_BRUSHSIDE_SIZE}, .in_place = 1, .fields = ONE(f_brushside), .dst_size = sizeof(bk_q3_brushside)},
    [BK_Q3_LUMP_DRAWVERTS] = {.name = "drawverts", .entry = {Q3_VERT_SIZE}, .in_place = 1, .fields = ONE(f_drawvert), .dst_size = sizeof(bk_q3_vertex)},
    [BK_Q3_LUMP_DRAWINDEXES] = {.name = "drawindexes", .entry = {4}, .in_place = 1, .fields = ONE(f_drawindex), .dst_size = sizeof(int32_t)},
    [BK_Q3_LUMP_FOGS] = {.name = "fogs", .entry = {Q3_FOG_SIZE}, .fields = ONE(f_fog), .dst_size = sizeof(bk_q3_fog)},
    [BK_Q3_LUMP_SURFACES] = {.name = "surfaces", .entry = {Q3_SURFACE_SIZE}, .in_place = 1, .fields = ONE(f_surface), .dst_size = sizeof(bk_q3_surface)},
    [BK_Q3_LUMP_LIGHTMAPS] = {.name = "lightmaps", .entry = {Q3_LIGHTMAP_BYTES}, .fields = ONE(f_lightmap)},
    [BK_Q3_LUMP_LIGHTGRID] = {.name = "lightgrid", .entry = {Q3_GRIDCELL_SIZE}, .fields = ONE(f_gridcell)},
    [BK_Q3_LUMP_VISIBILITY] = {.name = "visibility", .entry = {1}},
};
#undef ONE

/* the structs read in place have the file's layout (little-endian int32 and float fields, no padding) */
#define SAME_LAYOUT(T, size) (sizeof(T) == (size) && _Alignof(T) <= 4)
_Static_assert(SAME_LAYOUT(bk_q3_plane, Q3_PLANE_SIZE) && offsetof(bk_q3_plane, dist) == 12, "plane layout");
_Static_assert(SAME_LAYOUT(bk_q3_node, Q3_NODE_SIZE) && offsetof(bk_q3_node, children) == 4 &&
                   offsetof(bk_q3_node, mins) == 12 && offsetof(bk_q3_node, maxs) == 24, "node layout");
_Static_assert(SAME_LAYOUT(bk_q3_leaf, Q3_LEAF_SIZE) && offsetof(bk_q3_leaf, area) == 4 && offsetof(bk_q3_leaf, mins) == 8 &&
                   offsetof(bk_q3_leaf, maxs) == 20 && offsetof(bk_q3_leaf, first_leafsurface) == 32 &&
                   offsetof(bk_q3_leaf, num_leafbrushes) == 44, "leaf layout");
_Static_assert(SAME_LAYOUT(bk_q3_model, Q3_MODEL_SIZE) && offsetof(bk_q3_model, maxs) == 12 &&
                   offsetof(bk_q3_model, first_surface) == 24 && offsetof(bk_q3_model, num_brushes) == 36,
               "model layout");
_Static_assert(SAME_LAYOUT(bk_q3_brush, Q3_BRUSH_SIZE) && offsetof(bk_q3_brush, shader) == 8, "brush layout");
_Static_assert(SAME_LAYOUT(bk_q3_brushside, Q3_BRUSHSIDE_SIZE) && offsetof(bk_q3_brushside, shader) == 4,
               "brushside layout");
_Static_assert(SAME_LAYOUT(bk_q3_vertex, Q3_VERT_SIZE) && offsetof(bk_q3_vertex, st) == 12 &&
                   offsetof(bk_q3_vertex, lm) == 20 && offsetof(bk_q3_vertex, normal) == 28 &&
                   offsetof(bk_q3_vertex, color) == 40, "vertex layout");
_Static_assert(SAME_LAYOUT(bk_q3_surface, Q3_SURFACE_SIZE) && offsetof(bk_q3_surface, lightmap) == 28 &&
                   offsetof(bk_q3_surface, lm_h) == 44 && offsetof(bk_q3_surface, lm_origin) == 48 &&
                   offsetof(bk_q3_surface, lm_vecs) == 60 && offsetof(bk_q3_surface, patch_w) == 96,
               "surface layout");
#undef SAME_LAYOUT

#define R(lump, field, count_field, target, flags, msg) \
    {BK_Q3_LUMP_##lump, field, count_field, BK_Q3_LUMP_##target, flags, msg}
#define IDX(what) what " %v out of range (0..%c)"
#define RANGE(what) what " range [%f, %f+%n) outside 0..%c"
const bk_ref_desc bk_q3_refs[BK_Q3_REF_COUNT] = {
    [BK_Q3_REF_NODE_PLANE] = R(NODES, "plane_num", NULL, PLANES, 0, IDX("plane")),
    [BK_Q3_REF_LEAF_SURFACES] = R(LEAFS, "first_leaf_surface", "num_leaf_surfaces", LEAFSURFACES, BK_REF_RANGE,
                                  RANGE("leafsurface")),
    [BK_Q3_REF_LEAF_BRUSHES] = R(LEAFS, "first_leaf_brush", "num_leaf_brushes", LEAFBRUSHES, BK_REF_RANGE,
                                 RANGE("leafbrush")),
    [BK_Q3_REF_LEAFSURFACE] = R(LEAFSURFACES, "surface", NULL, SURFACES, 0, IDX("surface")),
    [BK_Q3_REF_LEAFBRUSH] = R(LEAFBRUSHES, "brush", NULL, BRUSHES, 0, IDX("brush")),
    [BK_Q3_REF_MODEL_SURFACES] = R(MODELS, "first_surface", "num_surfaces", SURFACES, BK_REF_RANGE, RANGE("surface")),
    [BK_Q3_REF_MODEL_BRUSHES] = R(MODELS, "first_brush", "num_brushes", BRUSHES, BK_REF_RANGE, RANGE("brush")),
    [BK_Q3_REF_BRUSH_SIDES] = R(BRUSHES, "first_side", "num_sides", BRUSHSIDES, BK_REF_RANGE, RANGE("brushside")),
    [BK_Q3_REF_BRUSH_SHADER] = R(BRUSHES, "shader_num", NULL, SHADERS, 0, IDX("shader")),
    [BK_Q3_REF_BRUSHSIDE_PLANE] = R(BRUSHSIDES, "plane_num", NULL, PLANES, 0, IDX("plane")),
    [BK_Q3_REF_BRUSHSIDE_SHADER] = R(BRUSHSIDES, "shader_num", NULL, SHADERS, 0, IDX("shader")),
    /* brush -1: a global fog (q3map2 writes it for worldspawn fog) */
    [BK_Q3_REF_FOG_BRUSH] = R(FOGS, "brush_num", NULL, BRUSHES, BK_REF_NONE_OK, IDX("brush")),
    [BK_Q3_REF_SURFACE_SHADER] = R(SURFACES, "shader_num", NULL, SHADERS, 0, IDX("shader")),
};
#undef R
#undef IDX
#undef RANGE

const bk_family bk_family_q3 = {
    .name = "q3", .versions = k_versions, .version_count = BK_ARRAY_LEN(k_versions), .lumps = bk_q3_lumps,
    .lump_count = BK_Q3_LUMP_COUNT, .refs = bk_q3_refs, .ref_count = BK_Q3_REF_COUNT, .ops = &bk_ops_q3,
    .query = &bk_query_ops_q3, .collision = bk_collision_brushes, .pak_slot = -1, .edit_fixup = NULL, .lump_view = NULL,
    .edit_encode = NULL, .decompile = bk_decompile_q3, .arrays = &bk_arrays_q3,
};
