/* Fuzz the Source decoder end to end: load (strict and validate), scene, static props, and every
 * pakfile entry (minizip from memory, our LZMA path for zip method 14). */
#include <stdint.h>
#include <stdlib.h>

#include "bspkit/scene.h"
#include "fuzz_common.h"
#include "bspkit/source.h"

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
    bk_source_pak *pak = NULL;
    if (bk_source_pak_open(f, &opt, &pak) == BK_OK) {
        uint32_t n = bk_source_pak_count(pak);
        for (uint32_t i = 0; i < n && i < 64; i++) {
            const bk_source_pak_entry *en = bk_source_pak_entry_at(pak, i);
            (void)bk_source_pak_name_safe(en->name);
            uint8_t *buf = NULL;
            size_t len = 0;
            if (bk_source_pak_read(pak, i, &buf, &len) == BK_OK) bk_free(buf);
        }
        bk_source_pak_close(pak);
    }
    bk_file_free(f);
    return 0;
}
