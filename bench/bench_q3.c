/* Quake 3 decoder throughput: load+check every fetched map, and build its scene, each timed
 * against copying the same bytes (a baseline measured in the same run; ratios, not seconds,
 * are the result).
 * usage: bench_q3 [CORPUS]   (default $BSPKIT_CORPUS or ~/.cache/bspkit-corpus) */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bspkit/q3.h"
#include "bspkit/scene.h"
#include "common/bk_internal.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* the whole file in memory (the library's bounded reader), or NULL */
static unsigned char *slurp(const char *path, size_t *n)
{
    uint8_t *d = NULL;
    if (bk_read_file(path, (uint64_t)1 << 31, &d, n) != BK_OK) return NULL;
    return d;
}

int main(int argc, char **argv)
{
    char root[1024];
    const char *env = getenv("BSPKIT_CORPUS"), *home = getenv("HOME");
    if (argc > 1) snprintf(root, sizeof root, "%s", argv[1]);
    else if (env) snprintf(root, sizeof root, "%s", env);
    else snprintf(root, sizeof root, "%s/.cache/bspkit-corpus", home ? home : ".");
    static const char *const sets[] = {"oa081", "oa088", "nexuiz"};
    double t_copy = 0, t_load = 0, t_scene = 0;
    size_t bytes = 0, maps = 0, fails = 0;
    for (size_t s = 0; s < 3; s++) {
        char dir[1100];
        snprintf(dir, sizeof dir, "%s/q3/%s", root, sets[s]);
        DIR *d = opendir(dir);
        if (!d) continue;
        struct dirent *de;
        while ((de = readdir(d)) != NULL) {
            size_t l = strlen(de->d_name);
            if (l < 5 || strcmp(de->d_name + l - 4, ".bsp") != 0) continue;
            char path[1400];
            snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
            size_t n;
            unsigned char *buf = slurp(path, &n);
            if (!buf) continue;
            unsigned char *copy = malloc(n);
            if (!copy) {
                free(buf);
                continue;
            }
            memset(copy, 0, n); /* fault the pages in before timing */
            double t0 = now();
            memcpy(copy, buf, n);
            double t1 = now();
            bk_file *f = NULL;
            bk_options o = {0};
            o.flags = BK_OPT_NO_TEXTURES;
            bk_result r = bk_file_load_memory(copy, n, &o, &f);
            double t2 = now();
            bk_scene *sc = NULL;
            if (r == BK_OK) r = bk_file_build_scene(f, &o, &sc);
            double t3 = now();
            if (r != BK_OK) fails++;
            bk_scene_free(sc);
            bk_file_free(f);
            free(copy);
            free(buf);
            t_copy += t1 - t0;
            t_load += t2 - t1;
            t_scene += t3 - t2;
            bytes += n;
            maps++;
        }
        closedir(d);
    }
    if (!maps) {
        printf("bench_q3: no maps under %s/q3 (run ../shared/scripts/fetch-corpus)\n", root);
        return 0;
    }
    printf("bench_q3: %zu maps, %.1f MB, %zu failures\n", maps, (double)bytes / 1e6, fails);
    printf("  load+check: %.1fx the time of copying the bytes (%.0f MB/s)\n", t_load / t_copy,
           (double)bytes / 1e6 / t_load);
    printf("  scene build (patches at the default level, lightmap atlas): %.1fx the load time\n", t_scene / t_load);
    return fails ? 1 : 0;
}
