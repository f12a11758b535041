/* Fuzz the decompiler: whatever loads is decompiled to its family's format (Quake 3 .map, Source
 * .vmf; the others answer "not supported yet"), and, for a Quake 3 map, asked for a .vmf too (a
 * refusal). Inputs that are neither IBSP nor VBSP are given an IBSP v46 header, so the fuzzer
 * spends its time in the brush, side and patch code. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bspkit/decompile.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t n;
    uint8_t *buf = fuzz_as_ibsp(data, size, "VBSP", &n);
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
        bk_file_free(f);
    }
    free(buf);
    return 0;
}
