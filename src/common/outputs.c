/* Source I/O outputs in entity values (bspkit.h bk_output_parse), split as the game's CEventAction
 * constructor does (source-sdk-2013 src/game/server/cbase.cpp): by the 0x1B delimiter when the
 * value holds one (VMF_IOPARAM_STRING_DELIMITER), else by ','. */
#include <stdlib.h>

#include "bk_internal.h"

/* a field as a number; empty: the game's default (delay 0, times -1) */
static bool number(const char *s, size_t n, bool integer, double *v)
{
    char buf[64];
    if (n == 0) {
        *v = integer ? -1 : 0;
        return true;
    }
    if (n >= sizeof buf) return false;
    memcpy(buf, s, n);
    buf[n] = 0;
    if (integer) {
        char *end;
        long x = strtol(buf, &end, 10);
        if (*end || x < INT32_MIN || x > INT32_MAX) return false;
        *v = (double)x;
        return true;
    }
    const char *end;
    *v = bk_strtod(buf, &end);
    return *end == 0 && end != buf;
}

bk_result bk_output_parse(const char *value, bk_output *out)
{
    if (!out) return BK_EARG;
    memset(out, 0, sizeof *out);
    if (!value) return BK_ENOTFOUND;
    char delim = strchr(value, 0x1b) ? 0x1b : ',';
    const char *f[5];
    size_t len[5];
    const char *p = value;
    for (int i = 0; i < 5; i++) {
        const char *e = strchr(p, delim);
        if ((i < 4) != (e != NULL)) return BK_ENOTFOUND;   /* exactly five fields */
        f[i] = p;
        len[i] = e ? (size_t)(e - p) : strlen(p);
        p = e ? e + 1 : p + len[i];
    }
    double delay, times;
    if (!number(f[3], len[3], false, &delay) || !number(f[4], len[4], true, &times)) return BK_ENOTFOUND;
    char *block = bk_malloc(len[0] + len[1] + len[2] + 3);
    if (!block) return BK_ENOMEM;
    char *w = block;
    char **dst[3] = {&out->target, &out->input, &out->parameter};
    for (int i = 0; i < 3; i++) {
        memcpy(w, f[i], len[i]);
        w[len[i]] = 0;
        *dst[i] = w;
        w += len[i] + 1;
    }
    out->delay = delay;
    out->times = (int32_t)times;
    return BK_OK;
}

void bk_output_free(bk_output *o)
{
    if (!o) return;
    bk_free(o->target);
    memset(o, 0, sizeof *o);
}
