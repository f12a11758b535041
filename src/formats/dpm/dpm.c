/* DarkPlaces DPM decoder — placeholder until the DPM work lands. */
#include "../format.h"

static int dpm_probe(const uint8_t *d, size_t n)
{
    return n >= 16 && memcmp(d, "DARKPLACESMODEL", 16) == 0 ? 1 : 0;
}

static bk_result dpm_load(bk_file *f, bk_ctx *ctx)
{
    (void)f;
    BK_ERR(ctx, BK_EUNSUPPORTED, "header", BK_NO_INDEX, 0, "DPM models are not supported yet");
    return BK_EUNSUPPORTED;
}

const bk_format_ops bk_ops_dpm = {BK_FORMAT_DPM, dpm_probe, dpm_load, NULL, NULL, NULL, NULL};
