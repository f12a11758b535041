/* The input side of `query` / `trace --batch` and `--mask`: whole lines of any length (up to a
 * limit) and the numbers on them. Kept apart from the rest of the CLI so that a fuzz target
 * (fuzz/fuzz_cli_input.c) can call it alone. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cli_read_line(FILE *in, size_t limit, char **buf, size_t *cap, size_t *len)
{
    size_t n = 0;
    int c, too_long = 0, got = 0;
    while ((c = getc(in)) != EOF) {
        got = 1;
        if (c == '\n') break;
        if (too_long) continue; /* the rest of a refused line is read and dropped */
        if (n >= limit) {
            too_long = 1;
            continue;
        }
        if (n + 2 > *cap) {
            size_t nc = *cap ? *cap * 2 : 256;
            if (nc > limit + 2) nc = limit + 2;
            char *p = realloc(*buf, nc);
            if (!p) return -2;
            *buf = p;
            *cap = nc;
        }
        (*buf)[n++] = (char)c;
    }
    if (!got) return ferror(in) ? -2 : 0;
    if (!*buf) { /* an empty line */
        *buf = malloc(1);
        if (!*buf) return -2;
        *cap = 1;
    }
    (*buf)[n] = 0;
    *len = n;
    return too_long ? -1 : 1;
}

int cli_parse_numbers(const char *line, float *v, int max)
{
    int n = 0;
    const char *p = line;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == ',' || *p == '\r' || *p == '\n') p++;
        if (!*p || *p == '#') break;
        if (n >= max) return -1;
        char *end;
        double d = strtod(p, &end);
        if (end == p || !isfinite(d)) return -1;
        v[n++] = (float)d;
        p = end;
    }
    return n;
}
