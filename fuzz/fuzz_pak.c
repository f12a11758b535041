/* Fuzz the id PACK (.pak) reader: the input opened from memory (the directory checked whole),
 * every entry checked and read, names looked up. */
#include <stdint.h>
#include <stdlib.h>

#include "bspkit/archive.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bk_options opt = {0};
    opt.limits.max_alloc_bytes = 64u << 20;
    bk_archive *a = NULL;
    if (bk_archive_open_memory(data, size, &opt, &a) == BK_OK) {
        uint32_t n = bk_archive_count(a);
        for (uint32_t i = 0; i < n && i < 256; i++) {
            uint8_t *d = NULL;
            size_t dn = 0;
            (void)bk_archive_check(a, i, true, NULL);
            if (bk_archive_read(a, i, UINT64_MAX, &d, &dn) == BK_OK) bk_free(d);
        }
        (void)bk_archive_find(a, "pics/colormap.pcx");
        (void)bk_archive_find(a, "\\MAPS\\Q2DM1.BSP");
        bk_archive_close(a);
    }
    return 0;
}
