/* The decoded arrays of the Quake family's public struct (bk_quake_bsp, include/bspkit/quake.h)
 * for bk_file_array: where each lies, and the members its lump rows (quake_desc.c) do not decode. */
#include "quake_internal.h"

#define Q bk_quake_bsp
#define M BK_MEMBER
/* the luxel extents the loader computes with the engines' rule */
static const bk_array_member m_face[] = {M(bk_q1_face, "tex_mins", I32, tex_mins, 2), M(bk_q1_face, "lm_size", U32, lm_size, 2),
                                         M(bk_q1_face, "lm_shift", U32, lm_shift, 1),
                                         M(bk_q1_face, "lm_styles", U32, lm_styles, 1)};
static const bk_array_member m_miptex[] = {
    M(bk_q1_miptex, "name", CHARS, name, 17),         M(bk_q1_miptex, "width", U32, width, 1),
    M(bk_q1_miptex, "height", U32, height, 1),        M(bk_q1_miptex, "mip_offsets", U32, mip_offsets, 4),
    M(bk_q1_miptex, "dir_offset", I32, dir_offset, 1), M(bk_q1_miptex, "file_offset", U64, file_offset, 1),
    M(bk_q1_miptex, "embedded", U8, embedded, 1),     M(bk_q1_miptex, "palette_colors", U32, palette_colors, 1)};
static const bk_array_member m_bspx[] = {M(bk_q1_bspx_lump, "name", CHARS, name, 25),
                                         M(bk_q1_bspx_lump, "offset", U64, offset, 1),
                                         M(bk_q1_bspx_lump, "length", U64, length, 1)};
static const bk_array_member m_byte[] = {{"value", BK_ARRAY_U8, 0, {1}}};
#undef M

#define A(name, lump, ptr, cnt, elem, more) BK_ARRAY(Q, name, lump, ptr, cnt, elem, more)
#define P(name, lump, ptr, cnt, elem) BK_ARRAY_PLAIN(Q, name, lump, ptr, cnt, elem)
static const bk_array_desc k_arrays[] = {
    P("planes", BK_Q1_LUMP_PLANES, planes, plane_count, bk_q1_plane),
    A("miptex", BK_Q1_LUMP_TEXTURES, miptex, miptex_count, bk_q1_miptex, m_miptex),
    P("vertices", BK_Q1_LUMP_VERTICES, vertices, vertex_count, float[3]),
    A("visibility", BK_Q1_LUMP_VISIBILITY, visibility, visibility_size, uint8_t, m_byte),
    P("nodes", BK_Q1_LUMP_NODES, nodes, node_count, bk_q1_node),
    P("texinfo", BK_Q1_LUMP_TEXINFO, texinfo, texinfo_count, bk_q1_texinfo),
    A("faces", BK_Q1_LUMP_FACES, faces, face_count, bk_q1_face, m_face),
    A("lighting", BK_Q1_LUMP_LIGHTING, lighting, lighting_size, uint8_t, m_byte),
    P("clipnodes", BK_Q1_LUMP_CLIPNODES, clipnodes, clipnode_count, bk_q1_clipnode),
    P("leafs", BK_Q1_LUMP_LEAFS, leafs, leaf_count, bk_q1_leaf),
    P("marksurfaces", BK_Q1_LUMP_MARKSURFACES, marksurfaces, marksurface_count, uint32_t),
    P("edges", BK_Q1_LUMP_EDGES, edges, edge_count, bk_q1_edge),
    P("surfedges", BK_Q1_LUMP_SURFEDGES, surfedges, surfedge_count, int32_t),
    P("models", BK_Q1_LUMP_MODELS, models, model_count, bk_q1_model),
    A("bspx", -1, bspx, bspx_count, bk_q1_bspx_lump, m_bspx),
};
#undef A
#undef P
#undef Q

static const void *decoded(const bk_file *f) { return bk_quake_bsp_of(f); }
const bk_array_set bk_arrays_quake = {decoded, NULL, k_arrays, BK_ARRAY_LEN(k_arrays)};
