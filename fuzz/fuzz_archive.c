/* Fuzz the zip reader (bk_archive: .pk3 / .zip search paths, Source pakfiles): the index built
 * from the central directory, case-insensitive lookups, every member inflated (CRC-checked) and
 * read raw. */
#include <stdint.h>
#include <stdlib.h>

#include "bspkit/bspkit.h"
#include "common/bk_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bk_options opt = {0};
    opt.limits.max_elements = 1u << 16;
    bk_archive *a = NULL;
    if (bk_archive_open_memory(data, size, &opt, &a) != BK_OK) return 0;
    uint32_t n = bk_archive_count(a);
    for (uint32_t i = 0; i < n && i < 64; i++) {
        const char *name = bk_archive_name(a, i);
        if (name) (void)bk_archive_find(a, name);
        uint8_t *d = NULL;
        size_t dn = 0;
        if (bk_archive_read(a, i, 16u << 20, &d, &dn) == BK_OK) bk_free(d);
        if (bk_archive_read_ex(a, i, 16u << 20, true, &d, &dn) == BK_OK) bk_free(d);
    }
    (void)bk_archive_find(a, "MAPS\\A.BSP");
    bk_archive_close(a);
    return 0;
}
