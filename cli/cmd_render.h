/* render (cmd_render.c): one picture, and the pieces the batch (cmd_batch.c) shares with it. */
#ifndef BK_CMD_RENDER_H
#define BK_CMD_RENDER_H

#include "bspkit/render.h"
#include "cli.h"

typedef struct render_args {
    bk_render_options ro;
    bool has_eye;
    bool overview;              /* also write NAME.txt, the CS-style overview description */
    /* light styles (--style N=PATTERN|on|off, --time T): the lightmaps redrawn before the view */
    bool relight;
    double time;                /* seconds on the 10 Hz pattern clock */
    const char *style_pattern[256]; /* a pattern given for style N, or NULL */
    uint8_t style_switch[256];  /* 0: as the map says, 1: on, 2: off */
} render_args;

typedef struct render_result {
    bk_render_info info;
    double render_ms, total_ms;
    char error[1400];
} render_result;

/* load in, render it as ra says, write out (and with --overview its .txt); the error (one line,
 * no newline) in rr->error */
int cli_render_one(cli_opts *o, const render_args *ra, const char *in, const char *out, render_result *rr);
struct cJSON *cli_render_json(const char *in, const char *out, const render_result *rr);
/* many inputs into a folder (cmd_batch.c with o->render set) */
int cli_render_batch(cli_opts *o, const render_args *ra);

#endif
