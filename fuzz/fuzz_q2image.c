/* Fuzz the Quake 2 image decoders: the input as a .wal (header, each mip level through the
 * stand-in palette) and as a .pcx (8-bit with its palette, or 3-plane RGB). */
#include <stdint.h>
#include <stdlib.h>

#include "bspkit/quake2.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bk_options opt = {0};
    opt.limits.max_texture_dim = 2048;
    opt.limits.max_alloc_bytes = 64u << 20;
    uint8_t pal[768];
    bk_palette_default(pal);
    bk_wal_info wi;
    if (bk_wal_parse(data, size, &opt, &wi) == BK_OK) {
        for (uint32_t m = 0; m < 4; m++) {
            uint8_t *rgba = NULL;
            uint32_t w, h;
            if (bk_wal_decode(data, size, &opt, pal, m, &rgba, &w, &h) == BK_OK) bk_free(rgba);
        }
    }
    uint8_t *rgba = NULL, p2[768];
    uint32_t w, h;
    if (bk_pcx_decode(data, size, &opt, &rgba, &w, &h, p2) == BK_OK) bk_free(rgba);
    return 0;
}
