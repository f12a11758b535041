/* Fuzz the Quake 1 / BSP2 / GoldSrc decoder: probe, load, validate, scene (with embedded
 * textures and lightmaps) and texture extraction. No search paths: nothing is read from disk. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bspkit/quake.h"
#include "bspkit/scene.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bk_options opt;
    bk_file *f = fuzz_load(data, size, &opt);
    if (f) {
        bk_scene *s = NULL;
        if (bk_file_build_scene(f, &opt, &s) == BK_OK) bk_scene_free(s);
        fuzz_compact_scene(f, &opt);
        s = NULL;
        if (bk_file_extract_images(f, &opt, &s) == BK_OK) bk_scene_free(s);
        bk_file_free(f);
    }
    return 0;
}
