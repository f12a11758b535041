/* WAD3 decoder — placeholder. */
#include "../format.h"

static int wad_probe(const uint8_t *d, size_t n)
{
    return n >= 12 && (memcmp(d, "WAD3", 4) == 0 || memcmp(d, "WAD2", 4) == 0) ? 1 : 0;
}

static bk_result wad_load(bk_file *f, bk_ctx *ctx)
{
    (void)f;
    BK_ERR(ctx, BK_EUNSUPPORTED, "header", BK_NO_INDEX, 0, "WAD files are not supported yet");
    return BK_EUNSUPPORTED;
}

const bk_format_ops bk_ops_wad3 = {BK_FORMAT_WAD3, wad_probe, wad_load, NULL, NULL, NULL, NULL};
