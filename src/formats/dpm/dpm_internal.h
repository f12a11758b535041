/* DarkPlaces DPM: on-disk layout (seed 001, model_dpmodel.h) and the pieces shared by the
 * decoder, the pose code, the scene builder and the saver. */
#ifndef BK_DPM_INTERNAL_H
#define BK_DPM_INTERNAL_H

#include "../format.h"
#include "bspkit/dpm.h"
#include "../family.h"

#define DPM_MAGIC "DARKPLACESMODEL" /* 15 chars + NUL = 16 bytes */
#define DPM_TYPE 2u
#define DPM_HEADER_SIZE 80u   /* id[16] type filesize mins[3] maxs[3] yawradius allradius
                                 num_bones num_meshs num_frames ofs_bones ofs_meshs ofs_frames */
#define DPM_BONE_SIZE 40u     /* name[32] parent flags */
#define DPM_MESH_SIZE 56u     /* shadername[32] num_verts num_tris ofs_verts ofs_texcoords
                                 ofs_indices ofs_groupids */
#define DPM_FRAME_SIZE 68u    /* name[32] mins[3] maxs[3] yawradius allradius ofs_bonepositions */
#define DPM_POSE_SIZE 48u     /* float matrix[3][4] */
#define DPM_BONEVERT_SIZE 32u /* origin[3] influence normal[3] bonenum */
#define DPM_MAX_BONES 65535u  /* glTF joints are 16-bit; far above any real model */

/* The file's records as the rows decode them (dpm_desc.c) where the public structs have no place
 * for a stored value (counts, offsets): the header, a mesh and a frame. */
typedef struct dpm_header {
    uint32_t type, filesize;
    float mins[3], maxs[3], yawradius, allradius;
    uint32_t num_bones, num_meshes, num_frames, ofs_bones, ofs_meshes, ofs_frames;
} dpm_header;
typedef struct dpm_mesh_rec {
    uint32_t num_verts, num_tris, ofs_verts, ofs_texcoords, ofs_indices, ofs_groupids;
} dpm_mesh_rec;
typedef struct dpm_frame_rec {
    float mins[3], maxs[3], yawradius, allradius;
    int32_t ofs_bonepositions;
} dpm_frame_rec;

/* The family's lump rows (bk_family_dpm.lumps): the header's three tables */
enum { DPM_TABLE_BONES, DPM_TABLE_MESHES, DPM_TABLE_FRAMES, DPM_TABLE_COUNT };
/* The records reached through the header and the tables' offsets, as rows of the same shape
 * (entry size, fields with their destination, decoded size): the header itself, a bone pose, a
 * vertex's influence count, one influence, a texcoord, a triangle, a group id. */
enum {
    DPM_REC_HEADER, DPM_REC_POSE, DPM_REC_VERTEX, DPM_REC_INFLUENCE, DPM_REC_TEXCOORD, DPM_REC_TRIANGLE,
    DPM_REC_GROUPID, DPM_REC_COUNT
};
extern const bk_lump_desc bk_dpm_records[DPM_REC_COUNT];

typedef struct dpm_impl {
    bk_dpm_model m;
    float *pose_data;         /* frame_count * bone_count * 12 */
} dpm_impl;

void bk_dpm_model_free(bk_dpm_model *m);

/* scene builder (dpm_scene.c) and saver (bk_dpm_write.c) */
bk_result bk_dpm_build_scene(const bk_file *f, const bk_options *opt, bk_scene *out);
bk_result bk_dpm_write(const bk_file *f, const bk_options *opt, const char *path);

#endif
