/* Fuzz the decompiler: whatever loads is decompiled to its family's format (Quake 3 .map, Source
 * .vmf, Quake 1 / GoldSrc Valve 220 .map rebuilt from the tree; the others answer "not supported
 * yet"), asked for a .vmf too (a refusal) and for the classic Quake axes. Inputs that are neither
 * IBSP, VBSP nor a Quake 1 / BSP2 / GoldSrc map are given an IBSP v46 header, so the fuzzer
 * spends its time in the brush, side, patch and tree code. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bspkit/decompile.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t n;
    /* the tree families keep their own header (version 29 / 30, BSP2, 2PSB) */
    bool tree = size >= 4 && (memcmp(data, "\x1d\0\0\0", 4) == 0 || memcmp(data, "\x1e\0\0\0", 4) == 0 ||
                              memcmp(data, "BSP2", 4) == 0 || memcmp(data, "2PSB", 4) == 0);
    uint8_t *buf = fuzz_as_ibsp(data, size, tree ? (const char *)data : "VBSP", &n);
    if (!buf) return 0;
    bk_options opt;
    bk_file *f = fuzz_load(buf, n, &opt);
    if (f) {
        char *text = NULL;
        size_t len = 0;
        bk_decompile_stats st;
        if (bk_decompile(f, &opt, BK_DECOMPILE_AUTO, &text, &len, &st) == BK_OK && (!text || strlen(text) != len))
            abort();   /* the text is NUL-terminated at its length */
        bk_free(text);
        text = NULL;
        (void)bk_decompile(f, &opt, BK_DECOMPILE_VMF, &text, &len, NULL);
        bk_free(text);
        text = NULL;
        if (tree) (void)bk_decompile(f, &opt, BK_DECOMPILE_MAP_QUAKE, &text, &len, NULL);
        bk_free(text);
        bk_file_free(f);
    }
    free(buf);
    return 0;
}
