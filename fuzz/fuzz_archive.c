/* Fuzz the zip reader (bk_archive: .pk3 / .zip search paths, Source pakfiles): the index built
 * from the central directory, case-insensitive lookups, every member checked and inflated
 * (CRC-checked), and read raw through the reader underneath. */
#include <stdint.h>
#include <stdlib.h>

#include "bspkit/archive.h"
#include "common/bk_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bk_options opt = {0};
    opt.limits.max_elements = 1u << 16;
    bk_archive *a = NULL;
    if (bk_archive_open_memory(data, size, &opt, &a) != BK_OK) return 0;
    uint32_t n = bk_archive_count(a);
    for (uint32_t i = 0; i < n && i < 64; i++) {
        (void)bk_archive_find(a, bk_archive_entry_at(a, i)->name);
        (void)bk_archive_check(a, i, true, NULL);
        uint8_t *d = NULL;
        size_t dn = 0;
        if (bk_archive_read(a, i, 16u << 20, &d, &dn) == BK_OK) bk_free(d);
    }
    (void)bk_archive_find(a, "MAPS\\A.BSP");
    bk_archive_close(a);
    bk_zip *z = NULL;
    if (bk_zip_open_memory(data, size, &opt, &z) != BK_OK) return 0;
    for (uint32_t i = 0; i < bk_zip_count(z) && i < 64; i++) {
        uint8_t *d = NULL;
        size_t dn = 0;
        if (bk_zip_read_ex(z, i, 16u << 20, true, &d, &dn) == BK_OK) bk_free(d);
    }
    bk_zip_close(z);
    return 0;
}
