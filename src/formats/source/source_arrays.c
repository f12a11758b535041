/* The decoded arrays of a Source map's public struct (bk_source_map, include/bspkit/source.h) for
 * bk_file_array: where each lies, and the members its lump rows (source_desc.c) do not decode
 * (those with a destination there take their place, under the header's name). Read through
 * bk_source_map_of, so a deferred load is finished first and the lumps' LZMA is the loader's. And
 * those of a studio model (bk_mdl). */
#define BK_ADVANCED_API /* bk_source_map_partial */
#include "bspkit/advanced.h"
#include "vbsp_internal.h"

#define S(st, m, T, ...) BK_MEMBER(st, #m, T, m, __VA_ARGS__)
static const bk_array_member m_plane[] = {S(bk_source_plane, normal, F32, 3), S(bk_source_plane, dist, F32, 1),
                                          S(bk_source_plane, type, I32, 1)};
static const bk_array_member m_point[] = {{"point", BK_ARRAY_F32, 0, {3}}};
static const bk_array_member m_edge[] = {{"v", BK_ARRAY_U32, 0, {2}}};
static const bk_array_member m_surfedge[] = {{"edge", BK_ARRAY_I32, 0, {1}}};
static const bk_array_member m_leafface[] = {{"face", BK_ARRAY_U16, 0, {1}}};
static const bk_array_member m_leafbrush[] = {{"brush", BK_ARRAY_U16, 0, {1}}};
static const bk_array_member m_disptri[] = {{"tags", BK_ARRAY_U16, 0, {1}}};
static const bk_array_member m_prop_leaf[] = {{"leaf", BK_ARRAY_U16, 0, {1}}};
static const bk_array_member m_byte[] = {{"value", BK_ARRAY_U8, 0, {1}}};
#define FC bk_source_face
static const bk_array_member m_face[] = {
    S(FC, planenum, U32, 1),  S(FC, side, U8, 1),       S(FC, on_node, U8, 1),     S(FC, firstedge, I32, 1),
    S(FC, numedges, I32, 1),  S(FC, texinfo, I32, 1),   S(FC, dispinfo, I32, 1),   S(FC, fog_volume, I32, 1),
    S(FC, styles, U8, 4),     S(FC, lightofs, I32, 1),  S(FC, area, F32, 1),       S(FC, lm_mins, I32, 2),
    S(FC, lm_size, I32, 2),   S(FC, orig_face, I32, 1), S(FC, num_prims, U32, 1),  S(FC, first_prim, U32, 1),
    S(FC, smoothing_groups, U32, 1)};
#undef FC
static const bk_array_member m_texinfo[] = {S(bk_source_texinfo, tex_vecs, F32, 2, 4), S(bk_source_texinfo, lm_vecs, F32, 2, 4),
                                            S(bk_source_texinfo, flags, I32, 1), S(bk_source_texinfo, texdata, I32, 1)};
static const bk_array_member m_texdata[] = {
    S(bk_source_texdata, reflectivity, F32, 3), S(bk_source_texdata, name_id, I32, 1), S(bk_source_texdata, width, I32, 1),
    S(bk_source_texdata, height, I32, 1),       S(bk_source_texdata, view_width, I32, 1),
    S(bk_source_texdata, view_height, I32, 1)};
static const bk_array_member m_node[] = {S(bk_source_node, planenum, I32, 1), S(bk_source_node, children, I32, 2),
                                         S(bk_source_node, mins, I16, 3),     S(bk_source_node, maxs, I16, 3),
                                         S(bk_source_node, firstface, U16, 1), S(bk_source_node, numfaces, U16, 1),
                                         S(bk_source_node, area, I16, 1)};
#define LF bk_source_leaf
static const bk_array_member m_leaf[] = {
    S(LF, contents, I32, 1),      S(LF, cluster, I16, 1),       S(LF, area, U16, 1),           S(LF, flags, U16, 1),
    S(LF, mins, I16, 3),          S(LF, maxs, I16, 3),          S(LF, firstleafface, U16, 1),  S(LF, numleaffaces, U16, 1),
    S(LF, firstleafbrush, U16, 1), S(LF, numleafbrushes, U16, 1), S(LF, leaf_water_data, I16, 1)};
#undef LF
static const bk_array_member m_model[] = {S(bk_source_model, mins, F32, 3),     S(bk_source_model, maxs, F32, 3),
                                          S(bk_source_model, origin, F32, 3),   S(bk_source_model, headnode, I32, 1),
                                          S(bk_source_model, firstface, I32, 1), S(bk_source_model, numfaces, I32, 1)};
static const bk_array_member m_brush[] = {S(bk_source_brush, firstside, I32, 1), S(bk_source_brush, numsides, I32, 1),
                                          S(bk_source_brush, contents, I32, 1)};
static const bk_array_member m_brushside[] = {S(bk_source_brushside, planenum, U16, 1), S(bk_source_brushside, texinfo, I16, 1),
                                              S(bk_source_brushside, dispinfo, I16, 1), S(bk_source_brushside, bevel, I16, 1)};
static const bk_array_member m_area[] = {S(bk_source_area, num_portals, I32, 1), S(bk_source_area, first_portal, I32, 1)};
static const bk_array_member m_areaportal[] = {
    S(bk_source_areaportal, portal_key, U16, 1),      S(bk_source_areaportal, other_area, U16, 1),
    S(bk_source_areaportal, first_clip_vert, U16, 1), S(bk_source_areaportal, num_clip_verts, U16, 1),
    S(bk_source_areaportal, planenum, I32, 1)};
#define DI bk_source_dispinfo
static const bk_array_member m_dispinfo[] = {
    S(DI, start, F32, 3),         S(DI, vert_start, I32, 1),   S(DI, tri_start, I32, 1),       S(DI, power, I32, 1),
    S(DI, min_tess, I32, 1),      S(DI, smoothing_angle, F32, 1), S(DI, contents, I32, 1),     S(DI, map_face, U32, 1),
    S(DI, lm_alpha_start, I32, 1), S(DI, lm_sample_start, I32, 1)};
#undef DI
static const bk_array_member m_dispvert[] = {S(bk_source_dispvert, vec, F32, 3), S(bk_source_dispvert, dist, F32, 1),
                                             S(bk_source_dispvert, alpha, F32, 1)};
#define GL bk_source_game_lump
static const bk_array_member m_game_lump[] = {S(GL, id, U32, 1),     S(GL, flags, U16, 1),      S(GL, version, U16, 1),
                                              S(GL, offset, U64, 1), S(GL, length, U64, 1),     S(GL, compressed, U8, 1),
                                              S(GL, size, U64, 1)};
#undef GL
#define SP bk_source_static_prop
static const bk_array_member m_static_prop[] = {
    S(SP, origin, F32, 3),          S(SP, angles, F32, 3),         S(SP, model, U32, 1),
    S(SP, first_leaf, U32, 1),      S(SP, leaf_count, U32, 1),     S(SP, solid, U8, 1),
    S(SP, flags, U32, 1),           S(SP, skin, I32, 1),           S(SP, fade_min, F32, 1),
    S(SP, fade_max, F32, 1),        S(SP, lighting_origin, F32, 3), S(SP, forced_fade_scale, F32, 1),
    S(SP, min_dx_level, U16, 1),    S(SP, max_dx_level, U16, 1),   S(SP, min_cpu_level, U8, 1),
    S(SP, max_cpu_level, U8, 1),    S(SP, min_gpu_level, U8, 1),   S(SP, max_gpu_level, U8, 1),
    S(SP, diffuse, U8, 4),          S(SP, disable_x360, U32, 1),   S(SP, flags_ex, U32, 1),
    S(SP, scale, F32, 1),           S(SP, lightmap_res, U16, 2)};
#undef SP
#define DP bk_source_detail_prop
static const bk_array_member m_detail_prop[] = {
    S(DP, origin, F32, 3),      S(DP, angles, F32, 3),            S(DP, model, U16, 1),       S(DP, leaf, U16, 1),
    S(DP, lighting, U8, 4),     S(DP, light_styles, U32, 1),      S(DP, light_style_count, U8, 1),
    S(DP, sway_amount, U8, 1),  S(DP, shape_angle, U8, 1),        S(DP, shape_size, U8, 1),
    S(DP, orientation, U8, 1),  S(DP, type, U8, 1),               S(DP, scale, F32, 1)};
#undef DP
static const bk_array_member m_detail_sprite[] = {
    S(bk_source_detail_sprite, ul, F32, 2), S(bk_source_detail_sprite, lr, F32, 2),
    S(bk_source_detail_sprite, tex_ul, F32, 2), S(bk_source_detail_sprite, tex_lr, F32, 2)};
#undef S

#define A(name, lump, ptr, cnt, elem, more) BK_ARRAY(bk_source_map, name, lump, ptr, cnt, elem, more)
/* read at the open: a deferred load (advanced.h) has them before its geometry */
#define E(name, lump, ptr, cnt, elem, more) BK_ARRAY_EARLY(bk_source_map, name, lump, ptr, cnt, elem, more)
#define L(x) BK_SRC_LUMP_##x
static const bk_array_desc k_arrays[] = {
    A("planes", L(PLANES), planes, plane_count, bk_source_plane, m_plane),
    A("vertices", L(VERTEXES), vertices, vertex_count, float[3], m_point),
    A("edges", L(EDGES), edges, edge_count, uint32_t[2], m_edge),
    A("surfedges", L(SURFEDGES), surfedges, surfedge_count, int32_t, m_surfedge),
    A("faces", L(FACES), faces, face_count, bk_source_face, m_face),
    A("orig_faces", L(ORIGINALFACES), orig_faces, orig_face_count, bk_source_face, m_face),
    A("hdr_faces", L(FACES_HDR), hdr_faces, hdr_face_count, bk_source_face, m_face),
    A("texinfo", L(TEXINFO), texinfo, texinfo_count, bk_source_texinfo, m_texinfo),
    A("texdata", L(TEXDATA), texdata, texdata_count, bk_source_texdata, m_texdata),
    A("nodes", L(NODES), nodes, node_count, bk_source_node, m_node),
    A("leafs", L(LEAFS), leafs, leaf_count, bk_source_leaf, m_leaf),
    A("leaffaces", L(LEAFFACES), leaffaces, leafface_count, uint16_t, m_leafface),
    A("leafbrushes", L(LEAFBRUSHES), leafbrushes, leafbrush_count, uint16_t, m_leafbrush),
    A("brushes", L(BRUSHES), brushes, brush_count, bk_source_brush, m_brush),
    A("brushsides", L(BRUSHSIDES), brushsides, brushside_count, bk_source_brushside, m_brushside),
    A("models", L(MODELS), models, model_count, bk_source_model, m_model),
    A("areas", L(AREAS), areas, area_count, bk_source_area, m_area),
    A("areaportals", L(AREAPORTALS), areaportals, areaportal_count, bk_source_areaportal, m_areaportal),
    A("dispinfo", L(DISPINFO), dispinfo, dispinfo_count, bk_source_dispinfo, m_dispinfo),
    A("dispverts", L(DISP_VERTS), dispverts, dispvert_count, bk_source_dispvert, m_dispvert),
    A("disptris", L(DISP_TRIS), disptris, disptri_count, uint16_t, m_disptri),
    E("game_lumps", L(GAME_LUMP), game_lumps, game_lump_count, bk_source_game_lump, m_game_lump),
    E("static_prop_leaves", -1, static_prop_leaves, static_prop_leaf_count, uint16_t, m_prop_leaf),
    E("static_props", -1, static_props, static_prop_count, bk_source_static_prop, m_static_prop),
    E("detail_sprites", -1, detail_sprites, detail_sprite_count, bk_source_detail_sprite, m_detail_sprite),
    E("detail_props", -1, detail_props, detail_prop_count, bk_source_detail_prop, m_detail_prop),
    E("pakfile", L(PAKFILE), pakfile, pakfile_size, uint8_t, m_byte),
};
#undef A
#undef E
#undef L

static const void *decoded(const bk_file *f) { return bk_source_map_of(f); }
static const void *partial(const bk_file *f) { return bk_source_map_partial(f); }
const bk_array_set bk_arrays_source = {decoded, partial, k_arrays, BK_ARRAY_LEN(k_arrays)};

/* ---- a Source studio model (bk_mdl): no lump rows, every member here -------------------------- */
#define S(st, m, T, ...) BK_MEMBER(st, #m, T, m, __VA_ARGS__)
static const bk_array_member m_mdl_bone[] = {S(bk_mdl_bone, parent, I32, 1), S(bk_mdl_bone, pos, F32, 3),
                                             S(bk_mdl_bone, quat, F32, 4), S(bk_mdl_bone, pose_to_bone, F32, 3, 4),
                                             S(bk_mdl_bone, flags, U32, 1)};
static const bk_array_member m_mdl_vertex[] = {S(bk_mdl_vertex, pos, F32, 3),    S(bk_mdl_vertex, normal, F32, 3),
                                               S(bk_mdl_vertex, uv, F32, 2),     S(bk_mdl_vertex, weight, F32, 3),
                                               S(bk_mdl_vertex, bone, U8, 3),    S(bk_mdl_vertex, bone_count, U8, 1)};
static const bk_array_member m_mdl_mesh[] = {
    S(bk_mdl_mesh, bodypart, U32, 1),     S(bk_mdl_mesh, model, U32, 1),       S(bk_mdl_mesh, skin_ref, U32, 1),
    S(bk_mdl_mesh, first_vertex, U32, 1), S(bk_mdl_mesh, vertex_count, U32, 1), S(bk_mdl_mesh, first_index, U32, 1),
    S(bk_mdl_mesh, index_count, U32, 1)};
static const bk_array_member m_mdl_bodypart[] = {S(bk_mdl_bodypart, model_count, U32, 1)};
static const bk_array_member m_index[] = {{"index", BK_ARRAY_U32, 0, {1}}};
#undef S
#define A(name, ptr, cnt, elem, more) BK_ARRAY(bk_mdl, name, -1, ptr, cnt, elem, more)
static const bk_array_desc k_mdl_arrays[] = {
    A("bones", bones, bone_count, bk_mdl_bone, m_mdl_bone),
    A("bodyparts", bodyparts, bodypart_count, bk_mdl_bodypart, m_mdl_bodypart),
    A("vertices", vertices, vertex_count, bk_mdl_vertex, m_mdl_vertex),
    A("indices", indices, index_count, uint32_t, m_index),
    A("meshes", meshes, mesh_count, bk_mdl_mesh, m_mdl_mesh),
};
#undef A

static const void *decoded_mdl(const bk_file *f) { return bk_mdl_of(f); }
const bk_array_set bk_arrays_mdl = {decoded_mdl, NULL, k_mdl_arrays, BK_ARRAY_LEN(k_mdl_arrays)};
