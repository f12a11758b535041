/* Fuzz the front door: format detection and every decoder in load and validate mode, then the
 * scene builder on whatever loads. */
#include <stdint.h>
#include <stdlib.h>

#include "bspkit/scene.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bk_options opt;
    bk_file *f = fuzz_load(data, size, &opt);
    if (f) {
        bk_scene *s = NULL;
        opt.flags = BK_OPT_NO_TEXTURES;
        if (bk_file_build_scene(f, &opt, &s) == BK_OK) bk_scene_free(s);
        bk_file_free(f);
    }
    return 0;
}
