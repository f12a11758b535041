/* Fuzz the front door: format detection and every decoder in load and validate mode, then the
 * scene builder on whatever loads. */
#include <stdint.h>
#include <stdlib.h>

#include "bspkit/scene.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bk_options opt = {0};
    opt.limits.max_alloc_bytes = 256u << 20;
    opt.limits.max_elements = 8u << 20;
    uint32_t e, w;
    bk_validate_memory(data, size, &opt, &e, &w);
    bk_file *f = NULL;
    if (bk_file_load_memory(data, size, &opt, &f) == BK_OK) {
        bk_scene *s = NULL;
        opt.flags = BK_OPT_NO_TEXTURES;
        if (bk_file_build_scene(f, &opt, &s) == BK_OK) bk_scene_free(s);
        bk_file_free(f);
    }
    return 0;
}
