/* Fuzz the Source model decoder with its three files at once. The input is split by a small
 * header: u32 MDL size, u32 VVD size (little-endian, clamped to what follows), then the MDL, the
 * VVD and the VTX (the rest). Decoded models are checked for the promises bk_mdl makes and turned
 * into meshes (skinned and not, two skin families); the MDL alone also goes through the file layer
 * (validate, load, scene). tests/source/make_mdl.py writes seeds of this form. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scene/scene_build.h"
#include "bspkit/scene.h"
#include "bspkit/source.h"
#include "formats/source/mdl_internal.h"
#include "fuzz_common.h"

static uint32_t rd32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 8) return 0;
    size_t rest = size - 8, a = rd32(data), v = rd32(data + 4);
    if (a > rest) a = rest;
    if (v > rest - a) v = rest - a;
    const uint8_t *mdl = data + 8, *vvd = mdl + a, *vtx = vvd + v;
    size_t x = rest - a - v;
    bk_options opt;
    /* the MDL on its own, as a file (validate, load, scene: no VVD beside it) */
    bk_file *f = fuzz_load(mdl, a, &opt);
    if (f) {
        bk_scene *s = NULL;
        if (bk_file_build_scene(f, &opt, &s) == BK_OK) bk_scene_free(s);
        bk_file_free(f);
    }
    bk_mdl *m = NULL;
    if (bk_mdl_decode(mdl, a, vvd, v, vtx, x, &opt, &m) != BK_OK) return 0;
    /* what a decoded model promises */
    for (uint32_t i = 0; i < m->mesh_count; i++) {
        const bk_mdl_mesh *me = &m->meshes[i];
        for (uint32_t k = 0; k < me->index_count; k++) {
            uint32_t ix = m->indices[me->first_index + k];
            if (ix < me->first_vertex || ix - me->first_vertex >= me->vertex_count || ix >= m->vertex_count) abort();
        }
    }
    for (uint32_t i = 0; i < m->vertex_count; i++)
        for (uint32_t k = 0; k < m->vertices[i].bone_count; k++)
            if (m->vertices[i].bone[k] >= m->bone_count) abort();
    for (int32_t skin = 0; skin < 2 && m->has_geometry; skin++) {
        bk_scene *s = bk_scene_new();
        bk_mdl_matcache mc = {0};
        uint64_t budget = 1u << 22;
        int32_t mesh;
        if (s) bk_mdl_add_mesh(m, skin, skin == 1, NULL, &mc, "fuzz", &budget, s, &mesh);
        bk_mdl_matcache_free(&mc);
        bk_scene_free(s);
    }
    bk_mdl_free(m);
    return 0;
}
