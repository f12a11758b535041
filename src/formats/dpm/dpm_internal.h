/* DarkPlaces DPM: on-disk layout (seed 001, model_dpmodel.h) and the pieces shared by the
 * decoder, the pose code, the scene builder and the saver. */
#ifndef BK_DPM_INTERNAL_H
#define BK_DPM_INTERNAL_H

#include "../format.h"
#include "bspkit/dpm.h"

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

typedef struct dpm_impl {
    bk_dpm_model m;
    float *pose_data;         /* frame_count * bone_count * 12 */
} dpm_impl;

void bk_dpm_model_free(bk_dpm_model *m);

/* scene builder (dpm_scene.c) and saver (bk_dpm_write.c) */
bk_result bk_dpm_build_scene(const bk_file *f, const bk_options *opt, bk_scene *out);
bk_result bk_dpm_write(const bk_file *f, const bk_options *opt, const char *path);

#endif
