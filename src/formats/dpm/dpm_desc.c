/* The DarkPlaces model family as rows: one version row, the header's three tables as lumps, the
 * records the header and the tables point at, each with its fields as stored (big-endian; member
 * names of model_dpmodel.h, seed 001) and where bk_decode_rows puts each one, and the operations.
 * The probe checks the big-endian type number after the magic. */
#include "dpm_internal.h"

static const bk_version_desc k_versions[] = {
    {.ident = "DARKPLACESMODEL", .version = 2, .version_at = -1, .name = "DarkPlaces DPM", .variant = "",
     .format = BK_FORMAT_DPM, .column = 0, .dir = NULL, .entity_slot = 0, .supported = true, .entity_limits = NULL,
     .game = NULL},
};

#define F(n_, t_, o_, c_, to_, st_, m_) \
    {.name = n_, .type = BK_FT_##t_, .offset = o_, .count = c_, .to = BK_TO(to_), .dst = offsetof(st_, m_)}
/* a name: copied by the loader up to its NUL (it warns when there is none) */
#define FN(n_, o_) {.name = n_, .type = BK_FT_CHARS, .offset = o_, .count = BK_DPM_NAME_LEN}
/* a record of one kind of value (the public array is of that value): destination offset 0 */
#define F0(n_, t_, c_) {.name = n_, .type = BK_FT_##t_, .offset = 0, .count = c_, .to = BK_TO(t_), .dst = 0}
static const bk_field f_header[] = {
    {.name = "id", .type = BK_FT_CHARS, .offset = 0, .count = 16},
    F("type", U32, 16, 1, U32, dpm_header, type),           F("filesize", U32, 20, 1, U32, dpm_header, filesize),
    F("mins", F32, 24, 3, F32, dpm_header, mins),           F("maxs", F32, 36, 3, F32, dpm_header, maxs),
    F("yawradius", F32, 48, 1, F32, dpm_header, yawradius), F("allradius", F32, 52, 1, F32, dpm_header, allradius),
    F("num_bones", U32, 56, 1, U32, dpm_header, num_bones), F("num_meshs", U32, 60, 1, U32, dpm_header, num_meshes),
    F("num_frames", U32, 64, 1, U32, dpm_header, num_frames), F("ofs_bones", U32, 68, 1, U32, dpm_header, ofs_bones),
    F("ofs_meshs", U32, 72, 1, U32, dpm_header, ofs_meshes), F("ofs_frames", U32, 76, 1, U32, dpm_header, ofs_frames),
};
static const bk_field f_bone[] = {FN("name", 0), F("parent", I32, 32, 1, I32, bk_dpm_bone, parent),
                                  F("flags", U32, 36, 1, U32, bk_dpm_bone, flags)};
static const bk_field f_mesh[] = {
    FN("shadername", 0),
    F("num_verts", U32, 32, 1, U32, dpm_mesh_rec, num_verts),       F("num_tris", U32, 36, 1, U32, dpm_mesh_rec, num_tris),
    F("ofs_verts", U32, 40, 1, U32, dpm_mesh_rec, ofs_verts),       F("ofs_texcoords", U32, 44, 1, U32, dpm_mesh_rec, ofs_texcoords),
    F("ofs_indices", U32, 48, 1, U32, dpm_mesh_rec, ofs_indices),   F("ofs_groupids", U32, 52, 1, U32, dpm_mesh_rec, ofs_groupids),
};
static const bk_field f_frame[] = {
    FN("name", 0),
    F("mins", F32, 32, 3, F32, dpm_frame_rec, mins),           F("maxs", F32, 44, 3, F32, dpm_frame_rec, maxs),
    F("yawradius", F32, 56, 1, F32, dpm_frame_rec, yawradius), F("allradius", F32, 60, 1, F32, dpm_frame_rec, allradius),
    F("ofs_bonepositions", I32, 64, 1, I32, dpm_frame_rec, ofs_bonepositions),
};
static const bk_field f_pose[] = {F0("matrix", F32, 12)};
static const bk_field f_vertex[] = {F0("numbones", U32, 1)};
static const bk_field f_influence[] = {
    F("origin", F32, 0, 3, F32, bk_dpm_influence, origin), F("influence", F32, 12, 1, F32, bk_dpm_influence, influence),
    F("normal", F32, 16, 3, F32, bk_dpm_influence, normal), F("bonenum", U32, 28, 1, U32, bk_dpm_influence, bone),
};
static const bk_field f_texcoord[] = {F0("texcoord", F32, 2)};
static const bk_field f_triangle[] = {F0("indices", U32, 3)};
static const bk_field f_groupid[] = {F0("groupid", U32, 1)};
#undef F
#undef FN
#undef F0

#define ONE(f) {BK_FIELDS(f)}
/* the header's three tables (count and offset each), placed as lumps */
static const bk_lump_desc k_tables[DPM_TABLE_COUNT] = {
    [DPM_TABLE_BONES] = {.name = "bones", .entry = {DPM_BONE_SIZE}, .fields = ONE(f_bone), .dst_size = sizeof(bk_dpm_bone)},
    [DPM_TABLE_MESHES] = {.name = "meshes", .entry = {DPM_MESH_SIZE}, .fields = ONE(f_mesh), .dst_size = sizeof(dpm_mesh_rec)},
    [DPM_TABLE_FRAMES] = {.name = "frames", .entry = {DPM_FRAME_SIZE}, .fields = ONE(f_frame), .dst_size = sizeof(dpm_frame_rec)},
};
const bk_lump_desc bk_dpm_records[DPM_REC_COUNT] = {
    [DPM_REC_HEADER] = {.name = "header", .entry = {DPM_HEADER_SIZE}, .fields = ONE(f_header), .dst_size = sizeof(dpm_header)},
    [DPM_REC_POSE] = {.name = "poses", .entry = {DPM_POSE_SIZE}, .fields = ONE(f_pose), .dst_size = 12 * sizeof(float)},
    [DPM_REC_VERTEX] = {.name = "vertices", .entry = {4}, .fields = ONE(f_vertex), .dst_size = sizeof(uint32_t)},
    [DPM_REC_INFLUENCE] = {.name = "influences", .entry = {DPM_BONEVERT_SIZE}, .fields = ONE(f_influence),
                           .dst_size = sizeof(bk_dpm_influence)},
    [DPM_REC_TEXCOORD] = {.name = "texcoords", .entry = {8}, .fields = ONE(f_texcoord), .dst_size = 2 * sizeof(float)},
    [DPM_REC_TRIANGLE] = {.name = "triangles", .entry = {12}, .fields = ONE(f_triangle), .dst_size = 3 * sizeof(uint32_t)},
    [DPM_REC_GROUPID] = {.name = "groupids", .entry = {4}, .fields = ONE(f_groupid), .dst_size = sizeof(uint32_t)},
};
#undef ONE

const bk_family bk_family_dpm = {
    .name = "dpm", .versions = k_versions, .version_count = BK_ARRAY_LEN(k_versions), .lumps = k_tables,
    .lump_count = DPM_TABLE_COUNT, .refs = NULL, .ref_count = 0, .ops = &bk_ops_dpm, .query = NULL, .collision = NULL,
    .pak_slot = -1, .edit_fixup = NULL, .lump_view = NULL, .edit_encode = NULL, .decompile = NULL, .arrays = &bk_arrays_dpm,
};
