/* Fuzz the CLI's own parsers without the rest of the CLI: query / trace --batch input (whole lines
 * read with cli_read_line, here with a small limit so refused lines are common, then
 * cli_parse_numbers, cli/query_input.c) and the --mask contents names (bk_contents_parse), whose
 * names must read back to the same set. Every line is also tried as a mask. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bspkit/query.h"
#include "cli.h"

static void mask(const char *text)
{
    uint32_t bits = 0, again = 0;
    if (bk_contents_parse(text, &bits) != BK_OK) return;
    char names[1024], names2[1024];
    bk_contents_format(bits, names, sizeof names);
    if (bk_contents_parse(names, &again) != BK_OK) abort(); /* its own names refused */
    bk_contents_format(again, names2, sizeof names2);
    if (strcmp(names, names2) != 0) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2) return 0;
    size_t limit = 1 + data[0] % 64 * 16; /* 1 .. 1009 bytes */
    FILE *in = fmemopen((void *)(data + 1), size - 1, "rb");
    if (!in) return 0;
    char *line = NULL;
    size_t cap = 0, len = 0, lines = 0, total = 0;
    int got;
    while ((got = cli_read_line(in, limit, &line, &cap, &len)) != 0) {
        lines++;
        if (got == -2) break;
        if (got == -1) continue;
        if (len > limit || strlen(line) > len) abort();
        total += len + 1;
        float v[6];
        int n = cli_parse_numbers(line, v, 6);
        if (n > 6) abort();
        mask(line);
    }
    if (lines > size || total > size + 1) abort(); /* more lines or bytes than the input had */
    free(line);
    fclose(in);
    char *t = malloc(size);
    if (t) { /* the whole input as one --mask argument */
        memcpy(t, data + 1, size - 1);
        t[size - 1] = 0;
        mask(t);
        free(t);
    }
    return 0;
}
