/* Every decoder, in probe order. A new format adds one line. */
#include "format.h"

static const bk_format_ops *const k_formats[] = {
    &bk_ops_quake, &bk_ops_wad3, &bk_ops_q3, &bk_ops_source, &bk_ops_dpm, &bk_ops_vtf, &bk_ops_mdl,
};

const bk_format_ops *const *bk_format_table(size_t *count)
{
    *count = BK_ARRAY_LEN(k_formats);
    return k_formats;
}
