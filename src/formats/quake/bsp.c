/* Quake 1 / GoldSrc BSP decoder — placeholder. */
#include "../format.h"

static int bsp_probe(const uint8_t *d, size_t n)
{
    if (n < 4) return 0;
    int32_t v = bk_rd_i32le(d);
    return (v == 29 || v == 30 || memcmp(d, "BSP2", 4) == 0 || memcmp(d, "2PSB", 4) == 0) ? 1 : 0;
}

static bk_result bsp_load(bk_file *f, bk_ctx *ctx)
{
    (void)f;
    BK_ERR(ctx, BK_EUNSUPPORTED, "header", BK_NO_INDEX, 0, "not supported yet");
    return BK_EUNSUPPORTED;
}

const bk_format_ops bk_ops_quake = {BK_FORMAT_GOLDSRC, bsp_probe, bsp_load, NULL, NULL, NULL, NULL};
