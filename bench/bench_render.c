/* Renderer speed on one map: the time to load and prepare it (scene, query, textures with their
 * mip levels, each triangle's clusters), then frames of WxH from its first player spawn on one
 * thread and on every core (median of N), with the triangles drawn.
 * usage: bench_render MAP [WxH] [FRAMES] [--game-dir D]...   (default 1280x720, 15 frames) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#define BK_ADVANCED_API
#include "bspkit/advanced.h"
#include "bspkit/query.h"
#include "bspkit/render.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* processor time of the whole process: on a shared machine the wall clock counts other programs */
static double cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double frames(bk_renderer *r, const bk_render_options *o, int n, bk_render_info *ri, double *cpu_ms)
{
    double *t = calloc((size_t)n, sizeof *t), *c = calloc((size_t)n, sizeof *c);
    for (int i = 0; i < n; i++) {
        uint8_t *px = NULL;
        double t0 = now(), c0 = cpu();
        if (bk_renderer_draw(r, o, &px, ri) != BK_OK) {
            fprintf(stderr, "draw failed\n");
            exit(1);
        }
        t[i] = now() - t0;
        c[i] = cpu() - c0;
        bk_free(px);
    }
    qsort(t, (size_t)n, sizeof *t, cmp_d);
    qsort(c, (size_t)n, sizeof *c, cmp_d);
    double m = t[n / 2];
    *cpu_ms = c[n / 2] * 1e3;
    free(t);
    free(c);
    return m;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_render MAP [WxH] [FRAMES] [--game-dir D]...\n");
        return 2;
    }
#ifdef __GLIBC__
    /* The frames measure drawing. Each returns a new picture (3.5 MB at 1280x720); whether glibc
     * gives that back to the system when it is freed, so that the next one is faulted in again
     * (~900 page faults, 2-3 ms), depends on where it fell in the heap, which any other change of
     * the allocations moves. Freed memory is kept, and every frame finds its picture mapped. */
    mallopt(M_TRIM_THRESHOLD, 256 << 20);
    mallopt(M_MMAP_THRESHOLD, 64 << 20);
#endif
    unsigned w = 1280, h = 720;
    int n = 15;
    const char *paths[16];
    uint32_t np = 0;
    int pos = 0;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--game-dir") == 0 && i + 1 < argc && np < 16) paths[np++] = argv[++i];
        else if (pos == 0 && sscanf(argv[i], "%ux%u", &w, &h) == 2) pos = 1;
        else n = atoi(argv[i]) > 0 ? atoi(argv[i]) : n;
    }
    bk_options opt = {0};
    opt.search_paths = paths;
    opt.search_path_count = np;
    double t0 = now();
    bk_file *f;
    bk_scene *s;
    bk_query *q = NULL;
    if (bk_file_open(argv[1], &opt, &f) != BK_OK || bk_file_build_scene(f, &opt, &s) != BK_OK) {
        fprintf(stderr, "%s: cannot load\n", argv[1]);
        return 1;
    }
    double t1 = now();
    bk_options qo = opt;
    qo.flags |= BK_OPT_FEW_POINTS;   /* as bspkit render opens it */
    if (bk_query_open(f, &qo, &q) != BK_OK) q = NULL;
    bk_renderer *r;
    if (bk_renderer_new(s, q, &r) != BK_OK) return 1;
    double t2 = now();
    bk_render_options o = {0};
    o.width = w, o.height = h;
    o.threads = 1;
    bk_render_info ri;
    double one_cpu, all_cpu, nopvs_cpu;
    double one = frames(r, &o, n, &ri, &one_cpu);
    o.threads = 0;
    double all = frames(r, &o, n, &ri, &all_cpu);
    o.no_pvs = true;
    o.threads = 1;
    bk_render_info ra;
    double nopvs = frames(r, &o, n, &ra, &nopvs_cpu);
    printf("%s: load+scene %.0f ms, prepare (query, textures, clusters) %.0f ms; %ux%u frame from spawn 1: "
           "%.1f ms one thread (%.1f ms processor time), %.1f ms all cores, %.1f ms one thread without PVS (%.1f ms processor); "
           "triangles %llu, in the PVS %llu, "
           "drawn %llu (without PVS: drawn %llu)\n",
           argv[1], (t1 - t0) * 1e3, (t2 - t1) * 1e3, w, h, one * 1e3, one_cpu, all * 1e3, nopvs * 1e3, nopvs_cpu,
           (unsigned long long)ri.triangles, (unsigned long long)ri.triangles_pvs,
           (unsigned long long)ri.triangles_drawn, (unsigned long long)ra.triangles_drawn);
    bk_renderer_free(r);
    bk_query_free(q);
    bk_scene_free(s);
    bk_file_free(f);
    return 0;
}
