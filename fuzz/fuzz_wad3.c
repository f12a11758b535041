/* Fuzz the WAD3 decoder: directory parse (load and validate) and every entry's decode. */
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
        if (bk_file_extract_images(f, &opt, &s) == BK_OK) bk_scene_free(s);
        bk_file_free(f);
    }
    return 0;
}
