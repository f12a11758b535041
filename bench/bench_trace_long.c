/* Trace speed by segment length (issue 41): random segments from a start in open space inside the
 * map's bounds to an end up to 500 units away along each axis (short) or up to 3000 (long), and
 * segments whose two ends are anywhere in -3000..3000 along each axis (span: the issue's, most
 * crossing the whole map, many starting outside it or in solid), point
 * and player box (-16 -16 -24, 16 16 32; GoldSrc / Quake: the hull the engine picks for it), on a
 * few maps of each family. Reports M traces/s, one core, timed by the thread's processor time
 * (best of three runs over the same segments).
 *
 * usage: bench_trace_long [--n N] [--only KIND] [--segments FILE] [--dump FILE | --compare FILE] [MAP ...]
 *   --only short|long|span: that kind of segment alone (for a profile of one kind).
 *   --segments FILE (one MAP): writes, per kind and point / box, a block of a header
 *   {u32 kind (0 short, 1 long, 2 span), u32 box, u32 count} and count records of seven
 *   little-endian floats (start, end, bspkit's fraction), for the anchors of bench/trace_anchors.sh
 *   (programs built outside the project that trace the same segments).
 *   no MAP: a fixed set from ../shared/corpus and ~/.cache/bspkit-corpus (BSPKIT_CORPUS), the
 *   missing ones skipped. --dump writes every trace's fraction and startsolid/allsolid (N per
 *   map and kind, in order); --compare reads such a file from another build and reports how many
 *   fractions differ by more than 1e-6 (and the largest difference) instead of timing. Ratios
 *   against an older build come from bench/trace_long.sh, which runs both alternately. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bspkit/query.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint32_t rng = 12345;
static float frand(void)   /* [0, 1) */
{
    rng = rng * 1664525u + 1013904223u;
    return (float)(rng >> 8) / 16777216.0f;
}

typedef struct rec { float fraction, normal[3]; uint32_t contents; int32_t surface; uint8_t startsolid, allsolid; } rec;

static FILE *dumpf, *cmpf, *segf;
static size_t n_traces = 20000;
static const char *only;

static void run_map(const char *family, const char *path)
{
    bk_options opt;
    memset(&opt, 0, sizeof opt);
    opt.flags = BK_OPT_NO_TEXTURES | BK_OPT_NO_LIGHTMAPS;
    bk_file *f;
    if (bk_file_open(path, &opt, &f) != BK_OK) return;
    bk_query *q;
    if (bk_query_open(f, &opt, &q) != BK_OK) {
        bk_file_free(f);
        return;
    }
    const bk_info *info = bk_file_info(f);
    float mn[3] = {-4096, -4096, -4096}, mx[3] = {4096, 4096, 4096};
    if (info->has_bounds)
        for (int k = 0; k < 3; k++) mn[k] = info->mins[k], mx[k] = info->maxs[k];
    const char *slash = strrchr(path, '/');
    printf("%-8s %-28s", family, slash ? slash + 1 : path);
    size_t n = n_traces;
    float (*seg)[6] = malloc(sizeof *seg * n);
    rec *out = malloc(sizeof *out * n), *old = malloc(sizeof *old * n);
    static const float reach[3] = {500, 3000, 3000};
    static const char *const kind[3] = {"short", "long", "span"};
    for (int len = 0; len < 3; len++) {
        if (only && strcmp(only, kind[len]) != 0) continue;
        rng = 12345u + (uint32_t)len;
        bk_point_info pi;
        size_t got = 0;
        for (; len == 2 && got < n; got++)
            for (int k = 0; k < 6; k++) seg[got][k] = 3000 * (2 * frand() - 1);
        for (size_t tries = 0; got < n && tries < 200 * n; tries++) {
            float a[3];
            for (int k = 0; k < 3; k++) a[k] = mn[k] + (mx[k] - mn[k]) * frand();
            if (bk_query_point(q, 0, a, &pi) != BK_OK || (pi.contents & BK_CONTENTS_SOLID)) continue;
            for (int k = 0; k < 3; k++) seg[got][k] = a[k], seg[got][3 + k] = a[k] + reach[len] * (2 * frand() - 1);
            got++;
        }
        for (int box = 0; box < 2; box++) {
            bk_trace_params tp;
            memset(&tp, 0, sizeof tp);
            if (box) {
                tp.hull = -1;
                tp.mins[0] = tp.mins[1] = -16, tp.mins[2] = -24;
                tp.maxs[0] = tp.maxs[1] = 16, tp.maxs[2] = 32;
            }
            bk_trace_result tr;
            double best = INFINITY;
            for (int rep = 0; rep < (dumpf || cmpf ? 1 : 3); rep++) {
                double t0 = now();
                for (size_t i = 0; i < got; i++) {
                    bk_query_trace(q, &tp, seg[i], seg[i] + 3, &tr);
                    memset(&out[i], 0, sizeof out[i]);
                    out[i].fraction = tr.fraction, out[i].startsolid = (uint8_t)tr.startsolid,
                    out[i].allsolid = (uint8_t)tr.allsolid, out[i].contents = tr.contents, out[i].surface = tr.surface;
                    memcpy(out[i].normal, tr.normal, sizeof out[i].normal);
                }
                best = fmin(best, now() - t0);
            }
            if (dumpf) fwrite(out, sizeof *out, got, dumpf);
            if (segf) {
                uint32_t h[3] = {(uint32_t)len, (uint32_t)box, (uint32_t)got};
                fwrite(h, sizeof h, 1, segf);
                for (size_t i = 0; i < got; i++) {
                    fwrite(seg[i], sizeof seg[i], 1, segf);
                    fwrite(&out[i].fraction, sizeof(float), 1, segf);
                }
            }
            if (cmpf) {
                size_t diff = 0, flags = 0, other = 0, rd = fread(old, sizeof *old, got, cmpf);
                double worst = 0;
                for (size_t i = 0; i < rd; i++) {
                    double d = fabs((double)out[i].fraction - old[i].fraction);
                    if (d > worst) worst = d;
                    diff += d > 1e-6;
                    flags += out[i].startsolid != old[i].startsolid || out[i].allsolid != old[i].allsolid;
                    bool o = memcmp(out[i].normal, old[i].normal, sizeof old[i].normal) != 0 ||
                             out[i].contents != old[i].contents || out[i].surface != old[i].surface;
                    if (o && getenv("SHOW") && other < 3)
                        fprintf(stderr, "%s %zu: (%g %g %g)->(%g %g %g) f %.9g ss %d; normal %g %g %g / %g %g %g, contents %x / %x, surface %d / %d\n",
                                kind[len], i, seg[i][0], seg[i][1], seg[i][2], seg[i][3], seg[i][4], seg[i][5], out[i].fraction,
                                out[i].startsolid, old[i].normal[0], old[i].normal[1], old[i].normal[2], out[i].normal[0],
                                out[i].normal[1], out[i].normal[2], old[i].contents, out[i].contents, old[i].surface,
                                out[i].surface);
                    other += o;
                }
                printf("  %s%s %zu/%zu differ (max %.2g; solid flags %zu, normal/contents/surface %zu)",
                       kind[len], box ? "-box" : "", diff, rd, worst, flags, other);
            } else {
                printf("  %s%s %7.3f", kind[len], box ? "-box" : "", got / best / 1e6);
            }
            fflush(stdout);
        }
    }
    printf("%s\n", cmpf ? "" : "  M/s");
    free(seg);
    free(out);
    free(old);
    bk_query_free(q);
    bk_file_free(f);
}

int main(int argc, char **argv)
{
    int a = 1;
    for (; a < argc && strncmp(argv[a], "--", 2) == 0; a++) {
        if (!strcmp(argv[a], "--n") && a + 1 < argc) n_traces = strtoull(argv[++a], NULL, 10);
        else if (!strcmp(argv[a], "--only") && a + 1 < argc) only = argv[++a];
        else if (!strcmp(argv[a], "--segments") && a + 1 < argc) segf = fopen(argv[++a], "wb");
        else if (!strcmp(argv[a], "--dump") && a + 1 < argc) dumpf = fopen(argv[++a], "wb");
        else if (!strcmp(argv[a], "--compare") && a + 1 < argc) cmpf = fopen(argv[++a], "rb");
        else {
            fprintf(stderr, "usage: bench_trace_long [--n N] [--only KIND] [--segments FILE] [--dump FILE | --compare FILE] [MAP ...]\n");
            return 2;
        }
    }
    if (a < argc) {
        for (; a < argc; a++) run_map("map", argv[a]);
    } else {
        char q3[1024];
        const char *home = getenv("HOME"), *env = getenv("BSPKIT_CORPUS");
        snprintf(q3, sizeof q3, "%s", env ? env : "");
        if (!env) snprintf(q3, sizeof q3, "%s/.cache/bspkit-corpus", home ? home : ".");
        static const char *const maps[][2] = {
            {"goldsrc", "../shared/corpus/goldsrc/ns_ns_lost.bsp"},
            {"goldsrc", "../shared/corpus/goldsrc/cs16_awp_india.bsp"},
            {"goldsrc", "../shared/corpus/goldsrc/dod_snowtest_avocado.bsp"},
            {"quake1", "../shared/corpus/quake1/progs_dump_start.bsp"},
            {"quake1", "../shared/corpus/quake1/bsp_tool_quake_mp_lobby.bsp"},
            {"source", "../shared/corpus/source/css_v20_gg_lego_arena_x.bsp"},
            {"source", "../shared/corpus/source/tf2c_v20_lzma_tdm_wintercastle.bsp"},
            {"source", "../shared/corpus/source/tf2c_v20_dom_lithium.bsp"},
            {"quake3", "q3/oa081/oa_dm1.bsp"},
            {"quake3", "q3/oa081/czest2ctf.bsp"},
            {"quake3", "q3/oa081/ctf_inyard.bsp"},
            {"quake3", "q3/oa081/ctf_compromise.bsp"},
            {"quake3", "q3/nexuiz/ons-reborn.bsp"},
        };
        for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++) {
            char p[2048];
            if (maps[i][1][0] == 'q') snprintf(p, sizeof p, "%s/%s", q3, maps[i][1]);
            else snprintf(p, sizeof p, "%s", maps[i][1]);
            run_map(maps[i][0], p);
        }
    }
    if (dumpf) fclose(dumpf);
    if (segf) fclose(segf);
    if (cmpf) fclose(cmpf);
    return 0;
}
