/* Fuzz the Quake 1 / BSP2 / GoldSrc decoder: probe, load, validate, scene (with embedded
 * textures and lightmaps) and texture extraction. No search paths: nothing is read from disk. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bspkit/quake.h"
#include "bspkit/scene.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bk_options opt;
    memset(&opt, 0, sizeof opt);
    opt.limits.max_alloc_bytes = 256u << 20;
    opt.limits.max_elements = 8u << 20;
    uint32_t e, w;
    bk_validate_memory(data, size, &opt, &e, &w);
    bk_file *f = NULL;
    if (bk_file_load_memory(data, size, &opt, &f) == BK_OK) {
        bk_scene *s = NULL;
        if (bk_file_build_scene(f, &opt, &s) == BK_OK) bk_scene_free(s);
        s = NULL;
        if (bk_file_extract_images(f, &opt, &s) == BK_OK) bk_scene_free(s);
        bk_file_free(f);
    }
    return 0;
}
