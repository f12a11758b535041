/* DPM pose evaluation + skinning throughput, as skinned vertices per second, against two
 * baselines measured in the same run:
 *   memcpy  - copying the vertex data the skinner reads (influences) once per pose: a floor for
 *             "touching the data";
 *   naive   - the same result computed the obvious way: for every influence, walk the bone's
 *             parent chain, blending and multiplying each relative matrix again.
 * usage: bench_dpm_skin [MODEL.dpm | CORPUS_DIR]   (default ~/.cache/bspkit-corpus/dpm/spiderbot.dpm) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bspkit/dpm.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void naive_bone(const bk_dpm_model *m, uint32_t b, uint32_t fa, uint32_t fb, float t, float *out)
{
    const float *a = m->frames[fa].pose + (size_t)b * 12, *c = m->frames[fb].pose + (size_t)b * 12;
    float rel[12];
    for (int k = 0; k < 12; k++) rel[k] = a[k] + (c[k] - a[k]) * t;
    if (m->bones[b].parent >= 0) {
        float par[12];
        naive_bone(m, (uint32_t)m->bones[b].parent, fa, fb, t, par);
        bk_dpm_mat_mul(par, rel, out);
    } else {
        memcpy(out, rel, sizeof rel);
    }
}

static float g_sink;

int main(int argc, char **argv)
{
    char path[4096];
    const char *home = getenv("HOME");
    if (argc > 1) {
        size_t l = strlen(argv[1]);
        if (l > 4 && strcmp(argv[1] + l - 4, ".dpm") == 0) snprintf(path, sizeof path, "%s", argv[1]);
        else snprintf(path, sizeof path, "%s/dpm/spiderbot.dpm", argv[1]);
    } else {
        snprintf(path, sizeof path, "%s/.cache/bspkit-corpus/dpm/spiderbot.dpm", home ? home : ".");
    }
    bk_file *f;
    if (bk_file_open(path, NULL, &f) != BK_OK) {
        fprintf(stderr, "bench_dpm_skin: cannot load %s (run ../shared/scripts/fetch-corpus)\n", path);
        return 1;
    }
    const bk_dpm_model *m = bk_dpm_model_of(f);
    size_t maxv = 1, maxi = 1;
    uint64_t nverts = 0;
    for (uint32_t i = 0; i < m->mesh_count; i++) {
        if (m->meshes[i].vertex_count > maxv) maxv = m->meshes[i].vertex_count;
        if (m->meshes[i].influence_count > maxi) maxi = m->meshes[i].influence_count;
        nverts += m->meshes[i].vertex_count;
    }
    float *bones = malloc((size_t)m->bone_count * 12 * sizeof(float));
    float *pos = malloc(maxv * 3 * sizeof(float)), *nrm = malloc(maxv * 3 * sizeof(float));
    bk_dpm_influence *copy = malloc(maxi * sizeof(bk_dpm_influence));
    if (!bones || !pos || !nrm || !copy) return 1;
    uint32_t nf = m->frame_count;
    const double budget = 0.5;

    /* 1. bspkit: pose (blend of two frames) + skin positions and normals of every mesh */
    uint64_t poses = 0;
    double t0 = now(), el;
    do {
        for (int rep = 0; rep < 16; rep++, poses++) {
            uint32_t a = (uint32_t)(poses % nf), b = (a + 1) % nf;
            bk_dpm_pose(m, a, b, 0.37f, BK_DPM_LERP_MATRIX, bones);
            for (uint32_t mi = 0; mi < m->mesh_count; mi++) bk_dpm_skin(m, mi, bones, pos, nrm);
            g_sink += pos[0];
        }
    } while ((el = now() - t0) < budget);
    double skin_vps = (double)poses * nverts / el;

    /* 2. memcpy of the influence data, once per pose */
    uint64_t copies = 0;
    t0 = now();
    do {
        for (int rep = 0; rep < 16; rep++, copies++)
            for (uint32_t mi = 0; mi < m->mesh_count; mi++) {
                memcpy(copy, m->meshes[mi].influences, m->meshes[mi].influence_count * sizeof(bk_dpm_influence));
                g_sink += copy[copies % (m->meshes[mi].influence_count ? m->meshes[mi].influence_count : 1)].origin[0];
            }
    } while ((el = now() - t0) < budget);
    double copy_vps = (double)copies * nverts / el;

    /* 3. naive: every influence walks its parent chain again */
    uint64_t naive = 0;
    t0 = now();
    do {
        uint32_t a = (uint32_t)(naive % nf), b = (a + 1) % nf;
        for (uint32_t mi = 0; mi < m->mesh_count; mi++) {
            const bk_dpm_mesh *me = &m->meshes[mi];
            for (uint32_t v = 0; v < me->vertex_count; v++) {
                float p[3] = {0, 0, 0};
                for (uint32_t j = me->first_influence[v]; j < me->first_influence[v + 1]; j++) {
                    const bk_dpm_influence *x = &me->influences[j];
                    float bm[12];
                    naive_bone(m, x->bone, a, b, 0.37f, bm);
                    for (int r = 0; r < 3; r++)
                        p[r] += bm[r * 4] * x->origin[0] + bm[r * 4 + 1] * x->origin[1] + bm[r * 4 + 2] * x->origin[2] +
                                bm[r * 4 + 3] * x->influence;
                }
                pos[v * 3] = p[0];
            }
        }
        g_sink += pos[0];
        naive++;
    } while ((el = now() - t0) < budget);
    double naive_vps = (double)naive * nverts / el;

    printf("bench_dpm_skin: %s: %u bones, %llu vertices, %u frames\n", path, m->bone_count,
           (unsigned long long)nverts, nf);
    printf("  pose+skin (blend, positions+normals): %.1f M skinned vertices/s\n", skin_vps / 1e6);
    printf("  memcpy of the influence data:         %.1f M vertices/s  -> skinning runs at %.2fx memcpy\n",
           copy_vps / 1e6, skin_vps / copy_vps);
    printf("  naive (parent chain per influence):   %.1f M vertices/s  -> %.1fx faster than naive\n", naive_vps / 1e6,
           skin_vps / naive_vps);
    if (g_sink == 12345.678f) printf(" \n");
    free(bones);
    free(pos);
    free(nrm);
    free(copy);
    bk_file_free(f);
    return 0;
}
