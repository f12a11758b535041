/* What every fuzz target starts with: limits sized for hostile input, the decoder in validate
 * mode (report everything, go on), then a normal load. Returns the loaded file or NULL. */
#ifndef BK_FUZZ_COMMON_H
#define BK_FUZZ_COMMON_H

#include <stdint.h>
#include <string.h>

#include "bspkit/bspkit.h"

static inline bk_file *fuzz_load(const uint8_t *data, size_t size, bk_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->limits.max_alloc_bytes = 256u << 20;
    opt->limits.max_elements = 8u << 20;
    uint32_t errors, warnings;
    bk_validate_memory(data, size, opt, &errors, &warnings);
    bk_file *f = NULL;
    return bk_file_load_memory(data, size, opt, &f) == BK_OK ? f : NULL;
}

#endif
