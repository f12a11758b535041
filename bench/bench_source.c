/* Source maps: load (with LZMA decoding) and scene building, as ratios against copying the same
 * bytes in the same run. usage: bench_source CORPUS_DIR (the folder holding source/). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bspkit/scene.h"
#include "bspkit/source.h"
#include "common/bk_internal.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* the whole file in memory (the library's bounded reader), or NULL */
static uint8_t *slurp(const char *path, size_t *n)
{
    uint8_t *d = NULL;
    if (bk_read_file(path, (uint64_t)1 << 31, &d, n) != BK_OK) return NULL;
    return d;
}

int main(int argc, char **argv)
{
    char dir[2048];
    snprintf(dir, sizeof dir, "%s/source", argc > 1 ? argv[1] : "../shared/corpus");
    DIR *dp = opendir(dir);
    if (!dp) {
        fprintf(stderr, "bench_source: no folder %s\n", dir);
        return 1;
    }
    double t_copy = 0, t_load = 0, t_scene = 0;
    uint64_t bytes = 0;
    unsigned maps = 0;
    struct dirent *de;
    while ((de = readdir(dp))) {
        size_t l = strlen(de->d_name);
        if (l < 5 || strcmp(de->d_name + l - 4, ".bsp") || !strncmp(de->d_name, "unusual_", 8)) continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        size_t n;
        uint8_t *d = slurp(path, &n);
        if (!d) continue;
        uint8_t *copy = malloc(n);
        for (int rep = 0; rep < 3 && copy; rep++) {
            double t0 = now();
            memcpy(copy, d, n);
            double t1 = now();
            bk_file *f = NULL;
            if (bk_file_load_memory(copy, n, NULL, &f) != BK_OK) break;
            double t2 = now();
            bk_scene *s = NULL;
            bk_file_build_scene(f, NULL, &s);
            double t3 = now();
            bk_scene_free(s);
            bk_file_free(f);
            t_copy += t1 - t0;
            t_load += t2 - t1;
            t_scene += t3 - t2;
            bytes += n;
        }
        free(copy);
        free(d);
        maps++;
    }
    closedir(dp);
    if (t_copy <= 0) t_copy = 1e-9;
    printf("bench_source: %u maps, %.1f MB x3\n", maps, (double)bytes / 3e6);
    printf("  load+validate: %.0f MB/s, %.0fx the time of copying the bytes\n", (double)bytes / 1e6 / t_load,
           t_load / t_copy);
    printf("  scene build:   %.0fx the time of copying the bytes\n", t_scene / t_copy);
    return 0;
}
