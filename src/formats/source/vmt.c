/* VMT materials (Valve KeyValues text): just what the scene needs, read safely from untrusted
 * text: the shader name (the first token), and the first value given to a key anywhere in the
 * material ($basetexture, $translucent, $alphatest, $nocull, include, ...). Tokens are quoted
 * strings or bare words; braces nest; // comments run to the end of the line. */
#include <stdio.h>

#include "vbsp_internal.h"

typedef struct kv_tok {
    const char *p, *end;
} kv_tok;

/* next token into buf (truncated to cap-1); returns 0 at the end, '{', '}' or 's' (a string) */
static int next(kv_tok *t, char *buf, size_t cap)
{
    for (;;) {
        while (t->p < t->end && (unsigned char)*t->p <= ' ') t->p++;
        if (t->p + 1 < t->end && t->p[0] == '/' && t->p[1] == '/') {
            while (t->p < t->end && *t->p != '\n') t->p++;
            continue;
        }
        break;
    }
    if (t->p >= t->end) return 0;
    char c = *t->p;
    if (c == '{' || c == '}') {
        t->p++;
        return c;
    }
    size_t n = 0;
    if (c == '"') {
        t->p++;
        while (t->p < t->end && *t->p != '"') {
            if (n + 1 < cap) buf[n++] = *t->p;
            t->p++;
        }
        if (t->p < t->end) t->p++;
    } else {
        while (t->p < t->end && (unsigned char)*t->p > ' ' && *t->p != '{' && *t->p != '}' && *t->p != '"') {
            if (n + 1 < cap) buf[n++] = *t->p;
            t->p++;
        }
    }
    buf[n] = 0;
    return 's';
}

bool bk_vmt_shader(const char *text, size_t len, char *out, size_t cap)
{
    kv_tok t = {text, text + len};
    return next(&t, out, cap) == 's';
}

bool bk_vmt_find(const char *text, size_t len, const char *key, char *out, size_t cap)
{
    kv_tok t = {text, text + len};
    char tok[512], val[512];
    int depth = 0, k;
    uint32_t steps = 0;
    bool first = true;
    while ((k = next(&t, tok, sizeof tok)) != 0 && ++steps < 1000000) {
        if (k == '{') {
            if (++depth > 64) return false;
            continue;
        }
        if (k == '}') {
            depth--;
            continue;
        }
        if (first) {   /* the shader name */
            first = false;
            continue;
        }
        const char *save = t.p;
        int k2 = next(&t, val, sizeof val);
        if (k2 == 's' && bk_strcasecmp(tok, key) == 0) {
            snprintf(out, cap, "%s", val);
            return true;
        }
        if (k2 != 's') t.p = save;   /* tok opened a block (or the text ended): rescan the brace */
    }
    return false;
}
