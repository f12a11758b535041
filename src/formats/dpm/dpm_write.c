#include "dpm_internal.h"
bk_result dpm_write(const bk_file *f, const bk_options *opt, const char *path) { return BK_EUNSUPPORTED; }
