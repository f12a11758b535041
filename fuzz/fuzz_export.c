/* Fuzz the file exporters: a file of any kind that loads and builds a scene is written as .obj
 * (+ .mtl + PNGs) and as .gltf (+ .bin + PNGs) into a temporary folder made once per process
 * and emptied after every input. Large scenes are skipped (they only slow the fuzzer). */
#define _XOPEN_SOURCE 700
#define BK_FUZZ_TMPDIR
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *g_dir = fuzz_tmpdir("export");
    bk_options opt;
    bk_file *f = fuzz_load(data, size, &opt);
    if (!f) return 0;
    opt.flags |= BK_OPT_COMPACT_IMAGES;
    bk_scene *s = NULL;
    if (bk_file_build_scene(f, &opt, &s) == BK_OK) {
        if (fuzz_scene_small(s)) {
            char path[128];
            bk_export_stats st;
            bk_export_options xo;
            memset(&xo, 0, sizeof xo);
            xo.png_level = 1;
            snprintf(path, sizeof path, "%s/out.obj", g_dir);
            (void)bk_export_obj(s, &xo, path, &st);
            snprintf(path, sizeof path, "%s/out.gltf", g_dir);
            (void)bk_export_gltf(s, &xo, path, &st);
        }
        bk_scene_free(s);
    }
    bk_file_free(f);
    fuzz_tmpdir_empty();
    return 0;
}
