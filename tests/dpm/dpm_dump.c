/* Test helper: print bspkit's skinned vertices of a DPM for poses given on the command line, for
 * tests/dpm/dpmref.py to compare with its own skinning.
 * usage: dpm_dump MODEL.dpm FA:FB:T...   (T = blend from frame FA to FB; "last" = last frame) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bspkit/dpm.h"

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: dpm_dump MODEL.dpm FA:FB:T...\n");
        return 2;
    }
    bk_file *f;
    if (bk_file_open(argv[1], NULL, &f) != BK_OK) {
        fprintf(stderr, "%s: cannot load\n", argv[1]);
        return 1;
    }
    const bk_dpm_model *m = bk_dpm_model_of(f);
    size_t maxv = 0;
    for (uint32_t i = 0; i < m->mesh_count; i++)
        if (m->meshes[i].vertex_count > maxv) maxv = m->meshes[i].vertex_count;
    float *bones = malloc((size_t)m->bone_count * 12 * sizeof(float));
    float *pos = malloc((maxv + 1) * 3 * sizeof(float)), *nrm = malloc((maxv + 1) * 3 * sizeof(float));
    int rc = 0;
    for (int a = 2; a < argc && bones && pos && nrm; a++) {
        char spec[64];
        snprintf(spec, sizeof spec, "%s", argv[a]);
        char *fa_s = strtok(spec, ":"), *fb_s = strtok(NULL, ":"), *t_s = strtok(NULL, ":");
        if (!fa_s || !fb_s || !t_s) return 2;
        uint32_t last = m->frame_count - 1;
        uint32_t fa = strcmp(fa_s, "last") == 0 ? last : (uint32_t)strtoul(fa_s, NULL, 10);
        uint32_t fb = strcmp(fb_s, "last") == 0 ? last : (uint32_t)strtoul(fb_s, NULL, 10);
        if (fa > last) fa = last;
        if (fb > last) fb = last;
        float t = strtof(t_s, NULL);
        if (bk_dpm_pose(m, fa, fb, t, BK_DPM_LERP_MATRIX, bones) != BK_OK) {
            rc = 1;
            break;
        }
        printf("pose %u %u %.9g\n", fa, fb, (double)t);
        for (uint32_t mi = 0; mi < m->mesh_count; mi++) {
            bk_dpm_skin(m, mi, bones, pos, nrm);
            for (uint32_t v = 0; v < m->meshes[mi].vertex_count; v++)
                printf("v %u %u %.9g %.9g %.9g %.9g %.9g %.9g\n", mi, v, (double)pos[v * 3], (double)pos[v * 3 + 1],
                       (double)pos[v * 3 + 2], (double)nrm[v * 3], (double)nrm[v * 3 + 1], (double)nrm[v * 3 + 2]);
        }
    }
    free(bones);
    free(pos);
    free(nrm);
    bk_file_free(f);
    return rc;
}
