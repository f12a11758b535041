/* Fuzz the Source decoder end to end: load (strict and validate), scene, static props, and every
 * pakfile entry (minizip from memory, our LZMA path for zip method 14). */
#include <stdint.h>
#include <stdlib.h>

#include "bspkit/scene.h"
#include "fuzz_common.h"
#include "bspkit/source.h"
#include "bspkit/archive.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bk_options opt;
    bk_file *f = fuzz_load(data, size, &opt);
    if (!f) return 0;
    bk_scene *s = NULL;
    if (bk_file_build_scene(f, &opt, &s) == BK_OK) bk_scene_free(s);
    fuzz_compact_scene(f, &opt);
    /* the lumps that build gave back are decoded again on demand */
    if (bk_file_build_scene(f, &opt, &s) == BK_OK) bk_scene_free(s);
    bk_archive *pak = NULL;
    if (bk_archive_open_pakfile(f, &opt, &pak) == BK_OK) {
        uint32_t n = bk_archive_count(pak);
        for (uint32_t i = 0; i < n && i < 64; i++) {
            (void)bk_archive_check(pak, i, true, NULL);
            uint8_t *buf = NULL;
            size_t len = 0;
            if (bk_archive_read(pak, i, UINT64_MAX, &buf, &len) == BK_OK) bk_free(buf);
        }
        bk_archive_close(pak);
    }
    bk_file_free(f);
    return 0;
}
