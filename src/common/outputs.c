/* Source I/O outputs in entity values (bspkit.h bk_output_parse), split as the game's CEventAction
 * constructor does (source-sdk-2013 src/game/server/cbase.cpp): by the 0x1B delimiter when the
 * value holds one (VMF_IOPARAM_STRING_DELIMITER), else by ','. Vampire: The Masquerade -
 * Bloodlines (VBSP v17, before the 0x1B form) adds a Python statement run when the output fires
 * and a seventh field, ','-separated. */
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
    const char *f[7];
    size_t len[7];
    int n = 0;
    for (const char *p = value; n < 7; n++) {   /* up to seven fields; an eighth: not an output */
        const char *e = strchr(p, delim);
        f[n] = p;
        len[n] = e ? (size_t)(e - p) : strlen(p);
        if (!e) break;
        p = e + 1;
    }
    if (n != 4 && !(n == 6 && delim == ',')) return BK_ENOTFOUND;   /* five fields, or Bloodlines' seven */
    n++;
    double delay, times;
    if (!number(f[3], len[3], false, &delay) || !number(f[4], len[4], true, &times)) return BK_ENOTFOUND;
    size_t total = 0;
    for (int i = 0; i < n; i++)
        if (i != 3 && i != 4) total += len[i] + 1;
    char *block = bk_malloc(total + 1);
    if (!block) return BK_ENOMEM;
    char *w = block;
    char **dst[7] = {&out->target, &out->input, &out->parameter, NULL, NULL, &out->script, &out->extra};
    for (int i = 0; i < n; i++) {
        if (!dst[i]) continue;
        memcpy(w, f[i], len[i]);
        w[len[i]] = 0;
        *dst[i] = w;
        w += len[i] + 1;
    }
    if (n == 5) out->script = out->extra = w, *w = 0;   /* "" */
    out->bloodlines = n == 7;
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
