/* Fuzz the VTF decoder (header, resource directory, every pixel format) and the VMT text reader. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bspkit/scene.h"
#include "bspkit/source.h"
#include "formats/source/vbsp_internal.h"
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
    bk_vtf v;
    if (bk_vtf_parse(data, size, &opt, &v) == BK_OK && v.lowres_width) {
        uint8_t *t = malloc((size_t)v.lowres_width * v.lowres_height * 4 + 1);
        if (t) bk_vtf_decode_thumbnail(data, size, &v, t);
        free(t);
    }
    /* the same bytes as material text */
    char out[256];
    bk_vmt_shader((const char *)data, size, out, sizeof out);
    bk_vmt_find((const char *)data, size, "$basetexture", out, sizeof out);
    bk_vmt_find((const char *)data, size, "include", out, sizeof out);
    return 0;
}
