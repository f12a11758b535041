/* Fuzz the VPK directory reader and entry reads: the input is written as NAME_dir.vpk (the reader
 * opens archives by path) and every entry is read back (CRC-checked). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bspkit/archive.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/bk_fuzz_%d_dir.vpk", (int)getpid());
    FILE *fp = fopen(path, "wb");
    if (!fp) return 0;
    fwrite(data, 1, size, fp);
    fclose(fp);
    bk_options opt = {0};
    opt.limits.max_alloc_bytes = 64u << 20;
    bk_archive *v = NULL;
    if (bk_archive_open(path, &opt, &v) == BK_OK) {
        uint32_t n = bk_archive_count(v);
        for (uint32_t i = 0; i < n && i < 64; i++) {
            uint8_t *d = NULL;
            size_t dn = 0;
            (void)bk_archive_check(v, i, true, NULL);
            if (bk_archive_read(v, i, UINT64_MAX, &d, &dn) == BK_OK) bk_free(d);
        }
        (void)bk_archive_find(v, "materials/a.vtf");
        bk_archive_close(v);
    }
    remove(path);
    return 0;
}
