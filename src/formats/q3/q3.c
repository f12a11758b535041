/* Quake 3 IBSP v46/v47 decoder — placeholder until the Quake 3 work lands: it recognises the
 * magic so that such files fail with a clear message. */
#include "../format.h"

static int q3_probe(const uint8_t *d, size_t n)
{
    return n >= 8 && memcmp(d, "IBSP", 4) == 0 ? 1 : 0;
}

static bk_result q3_load(bk_file *f, bk_ctx *ctx)
{
    (void)f;
    BK_ERR(ctx, BK_EUNSUPPORTED, "header", BK_NO_INDEX, 4, "IBSP version %d is not supported yet",
           (int)bk_rd_i32le(f->data + 4));
    return BK_EUNSUPPORTED;
}

const bk_format_ops bk_ops_q3 = {BK_FORMAT_QUAKE3, q3_probe, q3_load, NULL, NULL, NULL, NULL};
