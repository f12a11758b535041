/* Fuzz the gameinfo.txt reader (KeyValues text from a user's game folder): every entry handed
 * out must be a NUL-terminated string; the parse ends with OK or a located error. */
#include <stdint.h>
#include <string.h>

#include "formats/source/vbsp_internal.h"
#include "fuzz_common.h"

static bool entry(void *user, const char *ids, const char *path)
{
    size_t *n = user;
    *n += strlen(ids) + strlen(path);
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bk_options opt = {0};
    opt.limits.max_elements = 4096;
    size_t total = 0;
    bk_gameinfo_search_paths((const char *)data, size, &opt, entry, &total);
    return 0;
}
