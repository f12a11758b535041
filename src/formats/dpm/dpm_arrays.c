/* The decoded arrays of a DPM's public struct (bk_dpm_model, include/bspkit/dpm.h) for
 * bk_file_array: where each lies, and the members its table rows (dpm_desc.c) do not decode. A
 * mesh's own arrays (influences, texcoords, indices) and a frame's pose hang from their element. */
#include "dpm_internal.h"
#include "../family.h"

#define M BK_MEMBER
static const bk_array_member m_bone[] = {M(bk_dpm_bone, "name", CHARS, name, BK_DPM_NAME_LEN + 1),
                                         M(bk_dpm_bone, "parent", I32, parent, 1), M(bk_dpm_bone, "flags", U32, flags, 1)};
static const bk_array_member m_mesh[] = {M(bk_dpm_mesh, "shader", CHARS, shader, BK_DPM_NAME_LEN + 1),
                                         M(bk_dpm_mesh, "vertex_count", U32, vertex_count, 1),
                                         M(bk_dpm_mesh, "triangle_count", U32, triangle_count, 1),
                                         M(bk_dpm_mesh, "influence_count", U32, influence_count, 1)};
static const bk_array_member m_frame[] = {M(bk_dpm_frame, "name", CHARS, name, BK_DPM_NAME_LEN + 1),
                                          M(bk_dpm_frame, "mins", F32, mins, 3), M(bk_dpm_frame, "maxs", F32, maxs, 3),
                                          M(bk_dpm_frame, "yawradius", F32, yawradius, 1),
                                          M(bk_dpm_frame, "allradius", F32, allradius, 1)};
#undef M

/* lump: the table row (dpm_desc.c's order: bones, meshes, frames) */
static const bk_array_desc k_arrays[] = {
    BK_ARRAY(bk_dpm_model, "bones", 0, bones, bone_count, bk_dpm_bone, m_bone),
    BK_ARRAY(bk_dpm_model, "meshes", 1, meshes, mesh_count, bk_dpm_mesh, m_mesh),
    BK_ARRAY(bk_dpm_model, "frames", 2, frames, frame_count, bk_dpm_frame, m_frame),
};

static const void *decoded(const bk_file *f) { return bk_dpm_model_of(f); }
const bk_array_set bk_arrays_dpm = {decoded, NULL, k_arrays, BK_ARRAY_LEN(k_arrays)};
