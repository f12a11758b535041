/* The Quake family (Quake BSP29, GoldSrc BSP30 and Blue Shift, BSP2, 2PSB) as rows: versions, lumps
 * with their element fields per variant (id's bspfile.h, the BSP2 extension), the references
 * the one checker applies, and the family's operations. Column 0: BSP29 / BSP30, 1: BSP2, 2: 2PSB. */
#include "quake_internal.h"
#include "../../query/query_internal.h"

static const bk_dir_layout k_dir = {4, BK_Q1_LUMP_COUNT, 8, 0, 4, 4 + 8 * BK_Q1_LUMP_COUNT, 4, true};

/* What the engines read of an entity lump; past these a write only warns (a mod's engine may read
 * more). Where the engine's source is public its own buffers count, else its SDK's map tools.
 *  - Quake: ED_ParseEdict copies the key into keyname[256] and values come from com_token[1024]
 *    (id-Software/Quake WinQuake/pr_edict.c, common.c); MAX_EDICTS 600 (WinQuake/quakedef.h).
 *  - BSP2 (QuakeSpasm, FitzQuake and their kin, the engines that load BSP2): the same parser,
 *    MAX_EDICTS 32000 (quakespasm Quake/quakedef.h, "johnfitz -- highest allowed value for max_edicts").
 *  - Half-Life: the SDK's map tools refuse a key of MAX_KEY - 1 = 31 bytes or more and a value of
 *    MAX_VALUE - 1 = 1023 or more (ValveSoftware/halflife utils/common/bsplib.c ParseEpair,
 *    bsplib.h MAX_KEY 32, MAX_VALUE 1024); MAX_EDICTS 900 (common/com_model.h). */
static const bk_entity_limits k_quake_ents = {"Quake's", 255, 1023, 0, 0, 600};
static const bk_entity_limits k_bsp2_ents = {"QuakeSpasm's", 255, 1023, 0, 0, 32000};
static const bk_entity_limits k_goldsrc_ents = {"Half-Life's", 30, 1022, 0, 0, 900};

/* The games' facts (bk_game).
 *  - Quake (and BSP2's engines, which run the same QuakeC): PutClientInServer sets view_ofs
 *    '0 0 22' and the hull VEC_HULL_MIN '-16 -16 -24' .. VEC_HULL_MAX '16 16 32' (id's qw-qc /
 *    progs client.qc, defs.qc); the spots SelectSpawnPoint takes: info_player_start, _deathmatch,
 *    _coop, and info_player_start2 (the episode start after the end of an episode).
 *  - Half-Life: VEC_VIEW (0, 0, 28), VEC_HULL_MIN (-16, -16, -36) .. VEC_HULL_MAX (16, 16, 36)
 *    (halflife dlls/util.h, pm_shared); spots: info_player_start, info_player_deathmatch
 *    (dlls/subs.cpp; Counter-Strike's T side), and its mods' team spawns: Day of Defeat's
 *    info_player_axis / _allies, Team Fortress Classic's info_player_teamspawn, Natural
 *    Selection's info_team_start. */
static const char *const k_quake_spawns[] = {"info_player_start", "info_player_deathmatch", "info_player_coop",
                                             "info_player_start2"};
static const bk_game k_quake_game = {22, k_quake_spawns, 4, {-16, -16, -24}, {16, 16, 32}};
static const char *const k_goldsrc_spawns[] = {"info_player_start", "info_player_deathmatch", "info_player_axis",
                                               "info_player_allies", "info_player_teamspawn", "info_team_start"};
static const bk_game k_goldsrc_game = {28, k_goldsrc_spawns, 6, {-16, -16, -36}, {16, 16, 36}};

/* What the engines take of each lump; a map past these loads here, and `validate` warns.
 *  - Quake: MAX_MAP_* of id's bspfile.h (id-Software/Quake WinQuake/bspfile.h, the compilers'
 *    and the engine's header).
 *  - Half-Life: MAX_MAP_* of its SDK's bspfile.h (ValveSoftware/halflife utils/common/bspfile.h).
 *  - BSP2 and 2PSB exist to lift these limits: none. */
#define LIM(lump, max, name, bytes) {BK_Q1_LUMP_##lump, max, name, bytes}
static const bk_lump_limit k_quake_lump_limits[] = {
    LIM(ENTITIES, 65536, "MAX_MAP_ENTSTRING", true),   LIM(PLANES, 32767, "MAX_MAP_PLANES", false),
    LIM(TEXTURES, 512, "MAX_MAP_TEXTURES", false),     LIM(TEXTURES, 0x200000, "MAX_MAP_MIPTEX", true),
    LIM(VERTICES, 65535, "MAX_MAP_VERTS", false),      LIM(VISIBILITY, 0x100000, "MAX_MAP_VISIBILITY", true),
    LIM(NODES, 32767, "MAX_MAP_NODES", false),         LIM(TEXINFO, 4096, "MAX_MAP_TEXINFO", false),
    LIM(FACES, 65535, "MAX_MAP_FACES", false),         LIM(LIGHTING, 0x100000, "MAX_MAP_LIGHTING", true),
    LIM(CLIPNODES, 32767, "MAX_MAP_CLIPNODES", false), LIM(LEAFS, 8192, "MAX_MAP_LEAFS", false),
    LIM(MARKSURFACES, 65535, "MAX_MAP_MARKSURFACES", false), LIM(EDGES, 256000, "MAX_MAP_EDGES", false),
    LIM(SURFEDGES, 512000, "MAX_MAP_SURFEDGES", false), LIM(MODELS, 256, "MAX_MAP_MODELS", false),
};
static const bk_lump_limit k_goldsrc_lump_limits[] = {
    LIM(ENTITIES, 128 * 1024, "MAX_MAP_ENTSTRING", true), LIM(PLANES, 32767, "MAX_MAP_PLANES", false),
    LIM(TEXTURES, 512, "MAX_MAP_TEXTURES", false),       LIM(TEXTURES, 0x200000, "MAX_MAP_MIPTEX", true),
    LIM(VERTICES, 65535, "MAX_MAP_VERTS", false),        LIM(VISIBILITY, 0x200000, "MAX_MAP_VISIBILITY", true),
    LIM(NODES, 32767, "MAX_MAP_NODES", false),           LIM(TEXINFO, 8192, "MAX_MAP_TEXINFO", false),
    LIM(FACES, 65535, "MAX_MAP_FACES", false),           LIM(LIGHTING, 0x200000, "MAX_MAP_LIGHTING", true),
    LIM(CLIPNODES, 32767, "MAX_MAP_CLIPNODES", false),   LIM(LEAFS, 8192, "MAX_MAP_LEAFS", false),
    LIM(MARKSURFACES, 65535, "MAX_MAP_MARKSURFACES", false), LIM(EDGES, 256000, "MAX_MAP_EDGES", false),
    LIM(SURFEDGES, 512000, "MAX_MAP_SURFEDGES", false),  LIM(MODELS, 400, "MAX_MAP_MODELS", false),
};
#undef LIM
static const bk_engine_limits k_quake_limits = {"Quake's", k_quake_lump_limits, BK_ARRAY_LEN(k_quake_lump_limits)};
static const bk_engine_limits k_goldsrc_limits = {"Half-Life's", k_goldsrc_lump_limits,
                                                  BK_ARRAY_LEN(k_goldsrc_lump_limits)};

static const bk_version_desc k_versions[] = {
    {.ident = "", .version = 29, .version_at = 0, .name = "Quake BSP29", .variant = "",
     .format = BK_FORMAT_QUAKE1, .column = 0, .dir = &k_dir, .entity_slot = 0, .supported = true,
     .entity_limits = &k_quake_ents, .game = &k_quake_game, .lump_limits = &k_quake_limits},
    {.ident = "", .version = 30, .version_at = 0, .name = "GoldSrc BSP30", .variant = "",
     .format = BK_FORMAT_GOLDSRC, .column = 0, .dir = &k_dir, .entity_slot = 0, .supported = true,
     .entity_limits = &k_goldsrc_ents, .game = &k_goldsrc_game, .lump_limits = &k_goldsrc_limits,
     .traits = BK_VT_ENTITY_SWAP},
    /* the same bytes at the start; told apart by the loader: entities in the second slot */
    {.ident = "", .version = 30, .version_at = 0, .name = "GoldSrc BSP30 (Blue Shift)", .variant = "bshift",
     .format = BK_FORMAT_GOLDSRC, .column = 0, .dir = &k_dir, .entity_slot = 1, .supported = true,
     .entity_limits = &k_goldsrc_ents, .game = &k_goldsrc_game, .lump_limits = &k_goldsrc_limits},
    {.ident = "BSP2", .version = 29, .version_at = -1, .name = "BSP2", .variant = "bsp2",
     .format = BK_FORMAT_BSP2, .column = 1, .dir = &k_dir, .entity_slot = 0, .supported = true,
     .entity_limits = &k_bsp2_ents, .game = &k_quake_game, .lump_limits = NULL},
    {.ident = "2PSB", .version = 29, .version_at = -1, .name = "2PSB", .variant = "2psb",
     .format = BK_FORMAT_BSP2, .column = 2, .dir = &k_dir, .entity_slot = 0, .supported = true,
     .entity_limits = &k_bsp2_ents, .game = &k_quake_game, .lump_limits = NULL},
};

const bk_version_desc *bk_quake_version_bshift(void) { return &k_versions[2]; }

/* ---- fields: as stored (id's bspfile.h, the BSP2 extension), and where bk_decode_rows puts each
 * one in the public struct (include/bspkit/quake.h) ------------------------------------------- */
#define F(name, type, offset, count, to, st, member) \
    {name, BK_FT_##type, offset, count, BK_TO(to), (uint16_t)offsetof(st, member), 0}
#define PL bk_q1_plane
#define ND bk_q1_node
#define TI bk_q1_texinfo
#define FC bk_q1_face
#define CN bk_q1_clipnode
#define LF bk_q1_leaf
#define MD bk_q1_model
/* a lump whose element is one value (the public array is of that value): destination offset 0 */
#define F0(name, type, count, to) {name, BK_FT_##type, 0, count, BK_TO(to), 0, 0}
static const bk_field f_plane[] = {F("normal", F32, 0, 3, F32, PL, normal), F("dist", F32, 12, 1, F32, PL, dist),
                                   F("type", I32, 16, 1, I32, PL, type)};
static const bk_field f_vertex[] = {F0("point", F32, 3, F32)};
static const bk_field f_node29[] = {F("planenum", I32, 0, 1, I32, ND, plane),     F("children", I16, 4, 2, I32, ND, children),
                                    F("mins", I16, 8, 3, F32, ND, mins),          F("maxs", I16, 14, 3, F32, ND, maxs),
                                    F("firstface", U16, 20, 1, U32, ND, first_face), F("numfaces", U16, 22, 1, U32, ND, face_count)};
static const bk_field f_node_bsp2[] = {F("planenum", I32, 0, 1, I32, ND, plane),     F("children", I32, 4, 2, I32, ND, children),
                                       F("mins", F32, 12, 3, F32, ND, mins),         F("maxs", F32, 24, 3, F32, ND, maxs),
                                       F("firstface", U32, 36, 1, U32, ND, first_face), F("numfaces", U32, 40, 1, U32, ND, face_count)};
static const bk_field f_node_2psb[] = {F("planenum", I32, 0, 1, I32, ND, plane),     F("children", I32, 4, 2, I32, ND, children),
                                       F("mins", I16, 12, 3, F32, ND, mins),         F("maxs", I16, 18, 3, F32, ND, maxs),
                                       F("firstface", U32, 24, 1, U32, ND, first_face), F("numfaces", U32, 28, 1, U32, ND, face_count)};
static const bk_field f_texinfo[] = {F("vecs", F32, 0, 8, F32, TI, vecs), F("miptex", I32, 32, 1, I32, TI, miptex),
                                     F("flags", I32, 36, 1, U32, TI, flags)};
static const bk_field f_face29[] = {F("planenum", U16, 0, 1, U32, FC, plane),     F("side", U16, 2, 1, U32, FC, side),
                                    F("firstedge", U32, 4, 1, U32, FC, first_edge), F("numedges", U16, 8, 1, U32, FC, edge_count),
                                    F("texinfo", U16, 10, 1, U32, FC, texinfo),   F("styles", U8, 12, 4, U8, FC, styles),
                                    F("lightofs", I32, 16, 1, I32, FC, light_ofs)};
static const bk_field f_face_bsp2[] = {F("planenum", U32, 0, 1, U32, FC, plane),      F("side", U32, 4, 1, U32, FC, side),
                                       F("firstedge", U32, 8, 1, U32, FC, first_edge), F("numedges", U32, 12, 1, U32, FC, edge_count),
                                       F("texinfo", U32, 16, 1, U32, FC, texinfo),    F("styles", U8, 20, 4, U8, FC, styles),
                                       F("lightofs", I32, 24, 1, I32, FC, light_ofs)};
static const bk_field f_clip29[] = {F("planenum", I32, 0, 1, I32, CN, plane), F("children", I16, 4, 2, I32, CN, children)};
static const bk_field f_clip_bsp2[] = {F("planenum", I32, 0, 1, I32, CN, plane), F("children", I32, 4, 2, I32, CN, children)};
static const bk_field f_leaf29[] = {F("contents", I32, 0, 1, I32, LF, contents),
                                    F("visofs", I32, 4, 1, I32, LF, vis_ofs),
                                    F("mins", I16, 8, 3, F32, LF, mins),
                                    F("maxs", I16, 14, 3, F32, LF, maxs),
                                    F("firstmarksurface", U16, 20, 1, U32, LF, first_marksurface),
                                    F("nummarksurfaces", U16, 22, 1, U32, LF, marksurface_count),
                                    F("ambient_level", U8, 24, 4, U8, LF, ambient)};
static const bk_field f_leaf_bsp2[] = {F("contents", I32, 0, 1, I32, LF, contents),
                                       F("visofs", I32, 4, 1, I32, LF, vis_ofs),
                                       F("mins", F32, 8, 3, F32, LF, mins),
                                       F("maxs", F32, 20, 3, F32, LF, maxs),
                                       F("firstmarksurface", U32, 32, 1, U32, LF, first_marksurface),
                                       F("nummarksurfaces", U32, 36, 1, U32, LF, marksurface_count),
                                       F("ambient_level", U8, 40, 4, U8, LF, ambient)};
static const bk_field f_leaf_2psb[] = {F("contents", I32, 0, 1, I32, LF, contents),
                                       F("visofs", I32, 4, 1, I32, LF, vis_ofs),
                                       F("mins", I16, 8, 3, F32, LF, mins),
                                       F("maxs", I16, 14, 3, F32, LF, maxs),
                                       F("firstmarksurface", U32, 20, 1, U32, LF, first_marksurface),
                                       F("nummarksurfaces", U32, 24, 1, U32, LF, marksurface_count),
                                       F("ambient_level", U8, 28, 4, U8, LF, ambient)};
static const bk_field f_mark29[] = {F0("face", U16, 1, U32)};
static const bk_field f_mark_bsp2[] = {F0("face", U32, 1, U32)};
static const bk_field f_edge29[] = {F0("v", U16, 2, U32)};
static const bk_field f_edge_bsp2[] = {F0("v", U32, 2, U32)};
static const bk_field f_surfedge[] = {F0("edge", I32, 1, I32)};
static const bk_field f_model[] = {F("mins", F32, 0, 3, F32, MD, mins),          F("maxs", F32, 12, 3, F32, MD, maxs),
                                   F("origin", F32, 24, 3, F32, MD, origin),      F("headnode", I32, 36, 4, I32, MD, headnode),
                                   F("visleafs", I32, 52, 1, I32, MD, visleafs),  F("firstface", I32, 56, 1, I32, MD, first_face),
                                   F("numfaces", I32, 60, 1, I32, MD, face_count)};
#undef F
#undef F0
#undef PL
#undef ND
#undef TI
#undef FC
#undef CN
#undef LF
#undef MD

/* the same fields in every column */
#define SAME(f) {BK_FIELDS(f), BK_FIELDS(f), BK_FIELDS(f)}
#define COLS(a, b, c) {BK_FIELDS(a), BK_FIELDS(b), BK_FIELDS(c)}
#define ALL 7u  /* read in place in every column */
#define WIDE 6u /* in BSP2 and 2PSB */
#define BSP2 2u /* in BSP2 only */
const bk_lump_desc bk_quake_lumps[BK_Q1_LUMP_COUNT] = {
    [BK_Q1_LUMP_ENTITIES] = {.name = "entities"},
    [BK_Q1_LUMP_PLANES] = {.name = "planes", .entry = {20, 20, 20}, .in_place = ALL, .fields = SAME(f_plane),
                           .dst_size = sizeof(bk_q1_plane)},
    [BK_Q1_LUMP_TEXTURES] = {.name = "textures"},
    [BK_Q1_LUMP_VERTICES] = {.name = "vertices", .entry = {12, 12, 12}, .in_place = ALL, .fields = SAME(f_vertex),
                             .dst_size = 3 * sizeof(float)},
    [BK_Q1_LUMP_VISIBILITY] = {.name = "visibility"},
    [BK_Q1_LUMP_NODES] = {.name = "nodes", .entry = {24, 44, 32}, .in_place = BSP2,
                          .fields = COLS(f_node29, f_node_bsp2, f_node_2psb), .dst_size = sizeof(bk_q1_node)},
    [BK_Q1_LUMP_TEXINFO] = {.name = "texinfo", .entry = {40, 40, 40}, .in_place = ALL, .fields = SAME(f_texinfo),
                            .dst_size = sizeof(bk_q1_texinfo)},
    [BK_Q1_LUMP_FACES] = {.name = "faces", .entry = {20, 28, 28}, .fields = COLS(f_face29, f_face_bsp2, f_face_bsp2),
                          .dst_size = sizeof(bk_q1_face)},
    [BK_Q1_LUMP_LIGHTING] = {.name = "lighting"},
    [BK_Q1_LUMP_CLIPNODES] = {.name = "clipnodes", .entry = {8, 12, 12}, .in_place = WIDE,
                              .fields = COLS(f_clip29, f_clip_bsp2, f_clip_bsp2), .dst_size = sizeof(bk_q1_clipnode)},
    [BK_Q1_LUMP_LEAFS] = {.name = "leafs", .entry = {28, 44, 32}, .in_place = BSP2,
                          .fields = COLS(f_leaf29, f_leaf_bsp2, f_leaf_2psb), .dst_size = sizeof(bk_q1_leaf)},
    [BK_Q1_LUMP_MARKSURFACES] = {.name = "marksurfaces", .entry = {2, 4, 4}, .in_place = WIDE,
                                 .fields = COLS(f_mark29, f_mark_bsp2, f_mark_bsp2), .dst_size = sizeof(uint32_t)},
    [BK_Q1_LUMP_EDGES] = {.name = "edges", .entry = {4, 8, 8}, .in_place = WIDE,
                          .fields = COLS(f_edge29, f_edge_bsp2, f_edge_bsp2), .dst_size = sizeof(bk_q1_edge)},
    [BK_Q1_LUMP_SURFEDGES] = {.name = "surfedges", .entry = {4, 4, 4}, .in_place = ALL, .fields = SAME(f_surfedge),
                              .dst_size = sizeof(int32_t)},
    /* the world is model 0 */
    [BK_Q1_LUMP_MODELS] = {.name = "models", .entry = {64, 64, 64}, .min_count = 1, .in_place = ALL,
                           .fields = SAME(f_model), .dst_size = sizeof(bk_q1_model)},
};
#undef SAME
#undef COLS
#undef ALL
#undef WIDE
#undef BSP2

/* The structs read in place have the file's layout (little-endian int32 / float fields in the
 * file's order, no padding) in the columns whose in_place bit is set. */
_Static_assert(sizeof(bk_q1_plane) == 20 && offsetof(bk_q1_plane, type) == 16, "plane layout");
_Static_assert(sizeof(bk_q1_texinfo) == 40 && offsetof(bk_q1_texinfo, miptex) == 32 &&
                   offsetof(bk_q1_texinfo, flags) == 36, "texinfo layout");
_Static_assert(sizeof(bk_q1_model) == 64 && offsetof(bk_q1_model, headnode) == 36 &&
                   offsetof(bk_q1_model, visleafs) == 52 && offsetof(bk_q1_model, face_count) == 60, "model layout");
_Static_assert(sizeof(bk_q1_edge) == 8 && sizeof(bk_q1_clipnode) == 12, "edge / clipnode layout");
_Static_assert(sizeof(bk_q1_node) == 44 && offsetof(bk_q1_node, mins) == 12 && offsetof(bk_q1_node, first_face) == 36,
               "node layout (BSP2)");
_Static_assert(sizeof(bk_q1_leaf) == 44 && offsetof(bk_q1_leaf, mins) == 8 &&
                   offsetof(bk_q1_leaf, first_marksurface) == 32 && offsetof(bk_q1_leaf, ambient) == 40,
               "leaf layout (BSP2)");

/* ---- references --------------------------------------------------------------------------------- */
#define R(lump, field, count_field, target, flags, msg) \
    {BK_Q1_LUMP_##lump, field, count_field, BK_Q1_LUMP_##target, flags, msg}
const bk_ref_desc bk_quake_refs[BK_Q1_REF_COUNT] = {
    [BK_Q1_REF_EDGE_VERTEX] = R(EDGES, "v", NULL, VERTICES, 0, "vertex %v out of range (%c vertices)"),
    [BK_Q1_REF_SURFEDGE] = R(SURFEDGES, "edge", NULL, EDGES, BK_REF_ABS, "edge %v out of range (%c edges)"),
    [BK_Q1_REF_TEXINFO_MIPTEX] = R(TEXINFO, "miptex", NULL, TEXTURES, BK_REF_AT_FIELD,
                                   "miptex %v out of range (%c textures)"),
    [BK_Q1_REF_FACE_PLANE] = R(FACES, "planenum", NULL, PLANES, 0, "plane %v out of range (%c planes)"),
    [BK_Q1_REF_FACE_EDGES] = R(FACES, "firstedge", "numedges", SURFEDGES, BK_REF_RANGE,
                               "surfedges %f..+%n out of range (%c surfedges)"),
    [BK_Q1_REF_FACE_TEXINFO] = R(FACES, "texinfo", NULL, TEXINFO, 0, "texinfo %v out of range (%c texinfo)"),
    [BK_Q1_REF_MARKSURFACE] = R(MARKSURFACES, "face", NULL, FACES, 0, "face %v out of range (%c faces)"),
    [BK_Q1_REF_LEAF_MARKS] = R(LEAFS, "firstmarksurface", "nummarksurfaces", MARKSURFACES, BK_REF_RANGE,
                               "marksurfaces %f..+%n out of range (%c marksurfaces)"),
    [BK_Q1_REF_NODE_PLANE] = R(NODES, "planenum", NULL, PLANES, 0, "plane %v out of range (%c planes)"),
    [BK_Q1_REF_NODE_FACES] = R(NODES, "firstface", "numfaces", FACES, BK_REF_RANGE,
                               "faces %f..+%n out of range (%c faces)"),
    [BK_Q1_REF_CLIPNODE_PLANE] = R(CLIPNODES, "planenum", NULL, PLANES, 0, "plane %v out of range (%c planes)"),
    [BK_Q1_REF_MODEL_FACES] = R(MODELS, "firstface", "numfaces", FACES, BK_REF_RANGE | BK_REF_AT_FIELD,
                                "faces %f..+%n out of range (%c faces)"),
};
#undef R

/* ---- editing: BSPX, a directory after the last lump, holds absolute offsets ------------------ */
static void quake_edit_fixup(const bk_file *f, const bk_edit_layout *e)
{
    (void)f;
    if (e->tail_new == e->tail_old) return;
    uint64_t at = (e->tail_new + 3) & ~(uint64_t)3;
    for (int tries = 0; tries < 2; tries++, at = e->tail_new) {
        if (!bk_span_ok(at, 8, e->size) || memcmp(e->data + at, "BSPX", 4) != 0) continue;
        uint32_t cnt = bk_rd_u32le(e->data + at + 4);
        for (uint32_t i = 0; i < cnt && bk_span_ok(at + 8 + (uint64_t)i * 32, 32, e->size); i++) {
            uint8_t *be = e->data + at + 8 + (size_t)i * 32 + 24;
            uint64_t bo = bk_rd_u32le(be);
            bk_wr_u32le(be, (uint32_t)(bo + e->tail_new - e->tail_old));
        }
        break;
    }
}

const bk_family bk_family_quake = {
    .name = "quake", .versions = k_versions, .version_count = BK_ARRAY_LEN(k_versions), .lumps = bk_quake_lumps,
    .lump_count = BK_Q1_LUMP_COUNT, .refs = bk_quake_refs, .ref_count = BK_Q1_REF_COUNT, .ops = &bk_ops_quake,
    .query = &bk_query_ops_quake, .collision = bk_collision_quake_hull0, .pak_slot = -1, .edit_fixup = quake_edit_fixup,
    .lump_view = NULL, .edit_encode = NULL, .decompile = bk_decompile_quake, .arrays = &bk_arrays_quake,
};

/* WAD3 texture archives: versions and operations only (WAD2 recognised to be refused) */
static const bk_version_desc k_wad_versions[] = {
    {.ident = "WAD3", .version = 3, .version_at = -1, .name = "GoldSrc WAD3", .variant = "",
     .format = BK_FORMAT_WAD3, .column = 0, .dir = NULL, .entity_slot = 0, .supported = true,
     .entity_limits = NULL, .game = NULL, .lump_limits = NULL},
    {.ident = "WAD2", .version = 2, .version_at = -1, .name = "Quake WAD2", .variant = "",
     .format = BK_FORMAT_WAD3, .column = 0, .dir = NULL, .entity_slot = 0, .supported = false,
     .entity_limits = NULL, .game = NULL, .lump_limits = NULL},
};
const bk_family bk_family_wad3 = {
    .name = "wad3", .versions = k_wad_versions, .version_count = BK_ARRAY_LEN(k_wad_versions), .lumps = NULL,
    .lump_count = 0, .refs = NULL, .ref_count = 0, .ops = &bk_ops_wad3, .query = NULL, .collision = NULL, .pak_slot = -1,
    .edit_fixup = NULL, .lump_view = NULL, .edit_encode = NULL, .decompile = NULL, .arrays = NULL,
};
