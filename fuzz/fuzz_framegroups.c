/* Fuzz the DPM .framegroups parser (bk_dpm_framegroups_parse): the first two bytes give the
 * model's frame count, the rest is the text. Every group it returns must lie inside the frames. */
#include <stdint.h>
#include <stdlib.h>

#include "bspkit/dpm.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2) return 0;
    uint32_t frames = (uint32_t)data[0] | (uint32_t)data[1] << 8;
    if (data[0] == 0xff && data[1] == 0xff) frames = UINT32_MAX;
    bk_dpm_framegroup *g = NULL;
    uint32_t n = 0, line = 0;
    bk_result r = bk_dpm_framegroups_parse((const char *)data + 2, size - 2, frames, &g, &n, &line);
    if (r == BK_OK) {
        for (uint32_t i = 0; i < n; i++) {
            if (g[i].count == 0 || g[i].first >= frames || g[i].count > frames - g[i].first) abort();
            if (!(g[i].fps > 0) || g[i].fps > 1e6f || g[i].line == 0 || g[i].line > size) abort();
            if (memchr(g[i].name, 0, sizeof g[i].name) == NULL) abort();
        }
    } else if (r == BK_EFORMAT && (line == 0 || line > size)) {
        abort(); /* the bad line must be named */
    }
    bk_free(g);
    return 0;
}
