/* Source VBSP decoder — placeholder until the Source work lands: it recognises the magic so
 * that such files fail with a clear message. */
#include "../format.h"

static int vbsp_probe(const uint8_t *d, size_t n)
{
    return n >= 8 && (memcmp(d, "VBSP", 4) == 0 || memcmp(d, "PSBV", 4) == 0 || memcmp(d, "rBSP", 4) == 0) ? 1 : 0;
}

static bk_result vbsp_load(bk_file *f, bk_ctx *ctx)
{
    (void)f;
    BK_ERR(ctx, BK_EUNSUPPORTED, "header", BK_NO_INDEX, 0, "Source BSP files are not supported yet");
    return BK_EUNSUPPORTED;
}

const bk_format_ops bk_ops_source = {BK_FORMAT_SOURCE, vbsp_probe, vbsp_load, NULL, NULL, NULL, NULL};
