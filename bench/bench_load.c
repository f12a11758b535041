/* Load + validate throughput over every corpus file, as a ratio to merely reading the same
 * bytes (a checksum pass over the in-memory file), both measured in this run.
 *
 * usage: bench_load DIR... [--rounds N] [--scene]
 *   --scene  also time building the scene (no textures) and report its ratio
 * Files are read once into memory; each round times: checksum, load, validate (, scene). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "bspkit/scene.h"
#include "common/bk_internal.h"

typedef struct item {
    char *path;
    uint8_t *data;
    size_t size;
    bk_format fmt;
} item;

static item *g_items;
static size_t g_count, g_cap;

static void add_file(const char *path)
{
    uint8_t *d;
    size_t n;
    if (bk_read_file(path, (uint64_t)1 << 31, &d, &n) != BK_OK) return;
    bk_format f = bk_detect(d, n);
    if (f == BK_FORMAT_UNKNOWN) {
        free(d);
        return;
    }
    if (g_count == g_cap) {
        g_cap = g_cap ? g_cap * 2 : 64;
        g_items = realloc(g_items, g_cap * sizeof *g_items);
    }
    g_items[g_count++] = (item){strdup(path), d, n, f};
}

static void walk(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) {
        add_file(dir);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(p, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) walk(p);
        else if (S_ISREG(st.st_mode)) {
            size_t n = strlen(p);
            if ((n > 4 && (!strcmp(p + n - 4, ".bsp") || !strcmp(p + n - 4, ".wad") || !strcmp(p + n - 4, ".dpm"))))
                add_file(p);
        }
    }
    closedir(d);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    int rounds = 5;
    int scene = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--rounds") && i + 1 < argc) rounds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--scene")) scene = 1;
        else walk(argv[i]);
    }
    if (!g_count) {
        fprintf(stderr, "usage: bench_load DIR... [--rounds N] [--scene]\n");
        return 2;
    }
    if (rounds < 1) rounds = 1;
    double t_read[BK_FORMAT_COUNT_] = {0}, t_load[BK_FORMAT_COUNT_] = {0}, t_val[BK_FORMAT_COUNT_] = {0},
           t_scene[BK_FORMAT_COUNT_] = {0};
    uint64_t bytes[BK_FORMAT_COUNT_] = {0}, files[BK_FORMAT_COUNT_] = {0}, failed[BK_FORMAT_COUNT_] = {0};
    volatile uint64_t sink = 0;
    bk_options opt = {0};
    opt.flags = BK_OPT_NO_TEXTURES;
    for (size_t k = 0; k < g_count; k++) {
        item *it = &g_items[k];
        bytes[it->fmt] += it->size;
        files[it->fmt]++;
    }
    for (int r = 0; r < rounds; r++) {
        for (size_t k = 0; k < g_count; k++) {
            item *it = &g_items[k];
            double t0 = now();
            /* baseline: touch every byte once (what merely reading the file costs in memory) */
            uint64_t h = 0;
            for (size_t i = 0; i + 8 <= it->size; i += 8) h += bk_rd_u64le(it->data + i);
            sink += h;
            double t1 = now();
            bk_file *f = NULL;
            bk_result res = bk_file_load_memory(it->data, it->size, &opt, &f);
            double t2 = now();
            uint32_t e, w;
            bk_validate_memory(it->data, it->size, &opt, &e, &w);
            double t3 = now();
            if (scene && f) {
                bk_scene *s = NULL;
                if (bk_file_build_scene(f, &opt, &s) == BK_OK) bk_scene_free(s);
            }
            double t4 = now();
            if (r == 0 && res != BK_OK) failed[it->fmt]++;
            bk_file_free(f);
            t_read[it->fmt] += t1 - t0;
            t_load[it->fmt] += t2 - t1;
            t_val[it->fmt] += t3 - t2;
            t_scene[it->fmt] += t4 - t3;
        }
    }
    printf("%-8s %6s %10s %12s %12s %12s %10s%s\n", "format", "files", "MiB", "read MiB/s", "load MiB/s",
           "valid MiB/s", "load/read", scene ? "  scene/read" : "");
    for (int f = 0; f < BK_FORMAT_COUNT_; f++) {
        if (!files[f]) continue;
        double mib = (double)bytes[f] * rounds / (1024.0 * 1024.0);
        printf("%-8s %6llu %10.1f %12.0f %12.0f %12.0f %9.1fx", bk_format_name((bk_format)f),
               (unsigned long long)files[f], (double)bytes[f] / (1024.0 * 1024.0), mib / t_read[f], mib / t_load[f],
               mib / t_val[f], t_load[f] / t_read[f]);
        if (scene) printf(" %11.1fx", t_scene[f] / t_read[f]);
        if (failed[f]) printf("  (%llu did not load)", (unsigned long long)failed[f]);
        printf("\n");
    }
    printf("(ratios: time to load (or build a scene) divided by a plain pass over the same bytes; "
           "%d rounds; lower is better)\n", rounds);
    for (size_t k = 0; k < g_count; k++) {
        free(g_items[k].path);
        free(g_items[k].data);
    }
    free(g_items);
    return (int)(sink & 0);
}
