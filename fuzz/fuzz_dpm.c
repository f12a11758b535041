/* Fuzz the DPM decoder in load and validate mode, then everything built on a clean load: the
 * scene (skin, animations), pose blending both ways, skinning, and the optimising saver with a
 * re-load of what it wrote (which must succeed). */
#include <stdint.h>
#include <stdlib.h>

#include "bspkit/dpm.h"
#include "bspkit/scene.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bk_options opt;
    bk_file *f = fuzz_load(data, size, &opt);
    if (!f) return 0;
    const bk_dpm_model *m = bk_dpm_model_of(f);
    if (m) {
        bk_scene *s = NULL;
        opt.flags = BK_OPT_NO_TEXTURES;
        if (bk_file_build_scene(f, &opt, &s) == BK_OK) bk_scene_free(s);
        size_t maxv = 1;
        for (uint32_t i = 0; i < m->mesh_count; i++)
            if (m->meshes[i].vertex_count > maxv) maxv = m->meshes[i].vertex_count;
        float *bones = malloc((size_t)m->bone_count * 12 * sizeof(float) + 1);
        float *pos = malloc(maxv * 3 * sizeof(float)), *nrm = malloc(maxv * 3 * sizeof(float));
        if (bones && pos && nrm) {
            uint32_t last = m->frame_count - 1;
            bk_dpm_pose(m, 0, last, 0.5f, BK_DPM_LERP_SLERP, bones);
            bk_dpm_pose(m, last, 0, 0.25f, BK_DPM_LERP_MATRIX, bones);
            for (uint32_t i = 0; i < m->mesh_count; i++) bk_dpm_skin(m, i, bones, pos, nrm);
        }
        free(bones);
        free(pos);
        free(nrm);
        uint8_t *out = NULL;
        size_t n = 0;
        if (bk_dpm_save_memory(m, 0, &out, &n, NULL) == BK_OK) {
            bk_file *g = NULL;
            if (bk_file_load_memory(out, n, &opt, &g) != BK_OK) abort(); /* the saver wrote a bad file */
            bk_file_free(g);
        }
        bk_free(out);
    }
    bk_file_free(f);
    return 0;
}
