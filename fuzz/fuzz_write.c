/* Fuzz the map writers through the public write.h API, into memory: a map of any family that
 * loads is rewritten unmodified (which must give back its own bytes when the writer accepts it:
 * write.h's guarantee), then, on Source maps, a file is added to the pakfile and entries removed
 * by a glob taken from the input, and the result (validated by the writer) must load again. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bspkit/write.h"
#include "fuzz_common.h"

static void edit_pakfile(const bk_file *f, const bk_options *opt, const uint8_t *data, size_t size)
{
    bk_edit *e = NULL;
    if (bk_edit_begin(f, opt, &e) != BK_OK) return;
    /* a glob from the input's last bytes: printable, up to 24 characters */
    char glob[25];
    size_t gl = 0;
    for (size_t i = size > 24 ? size - 24 : 0; i < size && gl < sizeof glob - 1; i++)
        if (data[i] >= 0x20 && data[i] < 0x7f) glob[gl++] = (char)data[i];
    glob[gl] = 0;
    uint32_t removed = 0;
    (void)bk_edit_pak_remove(e, gl ? glob : "*.vmt", &removed);
    (void)bk_edit_pak_remove(e, "materials/**", &removed);
    size_t n = size < 300 ? size : 300;
    (void)bk_edit_pak_add(e, "materials/fuzz/added.vmt", data, n);
    (void)bk_edit_pak_add(e, gl ? glob : "a/b.txt", data + size - n, n); /* an odd name is refused, not stored */
    uint8_t *out = NULL;
    size_t outn = 0;
    if (bk_edit_save_memory(e, &out, &outn) == BK_OK) {
        bk_file *g = NULL;
        if (bk_file_load_memory(out, outn, opt, &g) != BK_OK) abort(); /* the writer handed out a bad map */
        bk_file_free(g);
        bk_free(out);
    }
    bk_edit_free(e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bk_options opt;
    bk_file *f = fuzz_load(data, size, &opt);
    if (!f) return 0;
    bk_edit *e = NULL;
    if (bk_edit_begin(f, &opt, &e) == BK_OK) {
        uint8_t *out = NULL;
        size_t n = 0;
        if (bk_edit_save_memory(e, &out, &n) == BK_OK) {
            if (n != size || memcmp(out, data, size) != 0) abort(); /* an unmodified rewrite changed bytes */
            bk_free(out);
        }
        bk_edit_free(e);
    }
    if (bk_file_format(f) == BK_FORMAT_SOURCE && size) edit_pakfile(f, &opt, data, size);
    bk_file_free(f);
    return 0;
}
