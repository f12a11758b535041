/* Fuzz the Quake 3 decoder: load and validate, build the scene (patches, lightmaps, flares) at a
 * low patch level, query the light grid and visibility API, free. Inputs that are not IBSP are
 * given an IBSP v46 header so the fuzzer spends its time inside the Quake 3 code. The bytes are
 * also parsed as a shader script. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bspkit/q3.h"
#include "bspkit/query.h"
#include "bspkit/scene.h"
#include "fuzz_common.h"
#include "formats/q3/q3_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* the same bytes as a shader script */
    q3_shader_lib lib = {0};
    bk_q3_shaders_parse(&lib, (const char *)data, size);
    for (uint32_t i = 0; i < lib.count; i++) bk_q3_shaders_find(&lib, lib.defs[i].name);
    bk_q3_shaders_free(&lib);

    size_t n;
    uint8_t *buf = fuzz_as_ibsp(data, size, NULL, &n);
    if (!buf) return 0;
    bk_options opt;
    bk_file *f = fuzz_load(buf, n, &opt);
    if (f) {
        const bk_q3_map *m = bk_q3_map_of(f);
        if (m) {
            float p[3] = {0, 0, 0};
            if (m->model_count) {
                for (int k = 0; k < 3; k++) p[k] = (m->models[0].mins[k] + m->models[0].maxs[k]) * 0.5f;
            }
            bk_q3_light lt;
            bk_q3_lightgrid_sample(m, p, &lt);
            bk_query *q = NULL;
            bk_point_info pi;
            if (bk_query_open(f, NULL, &q) == BK_OK && bk_query_point(q, 0, p, &pi) == BK_OK)
                (void)bk_query_cluster_visible(q, pi.cluster, 0);
            bk_query_free(q);
        }
        bk_scene *s = NULL;
        opt.flags = BK_OPT_NO_TEXTURES;
        bk_q3_options q3 = {.ext.type = BK_OPTIONS_Q3, .patch_level = 2};
        opt.ext = &q3.ext;
        if (bk_file_build_scene(f, &opt, &s) == BK_OK) bk_scene_free(s);
        fuzz_compact_scene(f, &opt);
        bk_file_free(f);
    }
    free(buf);
    return 0;
}
