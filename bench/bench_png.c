/* PNG encoding of every image bspkit writes for the fetched Quake 3 maps (lightmap atlases,
 * mostly), beside baselines measured in the same run on the same pixels:
 *   - copy: memcpy of the pixels (the floor);
 *   - zlib-6: the rows, unfiltered, through zlib's compress2 at its default level 6 (what a
 *     plain zlib-based PNG writer costs at least, before any filter choice);
 *   - bspkit at its default level (ISA-L's level 1 for these large images when built with it,
 *     else libdeflate's 3), and at --png-level 2, 3, 6 and 12 (libdeflate).
 * Prints time ratios to zlib-6 and output size ratios to zlib-6.
 * usage: bench_png [CORPUS] [MAX_MAPS]  (default $BSPKIT_CORPUS or ~/.cache/bspkit-corpus, 40 maps) */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "bspkit/scene.h"
#include "scene/scene_build.h"
#include "common/bk_internal.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    char root[1024];
    const char *env = getenv("BSPKIT_CORPUS"), *home = getenv("HOME");
    if (argc > 1) snprintf(root, sizeof root, "%s", argv[1]);
    else if (env) snprintf(root, sizeof root, "%s", env);
    else snprintf(root, sizeof root, "%s/.cache/bspkit-corpus", home ? home : ".");
    int max_maps = argc > 2 ? atoi(argv[2]) : 40;
    static const int levels[] = {0, 2, 3, 6, 12};
    enum { NL = sizeof levels / sizeof levels[0] };
    double t_copy = 0, t_zlib = 0, t_lv[NL] = {0};
    uint64_t px_bytes = 0, z_bytes = 0, lv_bytes[NL] = {0};
    int maps = 0, images = 0;
    static const char *const sets[] = {"oa081", "oa088", "nexuiz"};
    for (size_t s = 0; s < 3 && maps < max_maps; s++) {
        char dir[1200];
        snprintf(dir, sizeof dir, "%s/q3/%s", root, sets[s]);
        DIR *dp = opendir(dir);
        if (!dp) continue;
        struct dirent *de;
        while ((de = readdir(dp)) && maps < max_maps) {
            size_t nl = strlen(de->d_name);
            if (nl < 5 || strcmp(de->d_name + nl - 4, ".bsp")) continue;
            char path[2400];
            snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
            bk_options opt = {0};
            bk_file *f;
            if (bk_file_open(path, &opt, &f) != BK_OK) continue;
            bk_scene *sc;
            if (bk_scene_build(f, &opt, 0, &sc) != BK_OK) { /* images as RGBA */
                bk_file_free(f);
                continue;
            }
            maps++;
            for (uint32_t i = 0; i < sc->image_count; i++) {
                const bk_image *im = &sc->images[i];
                const uint8_t *rgba = bk_scene_pixels(sc, i)->rgba;
                if (!rgba) continue;
                size_t n = (size_t)im->width * im->height * 4;
                images++;
                px_bytes += n;
                uint8_t *copy = malloc(n);
                double t0 = now();
                memcpy(copy, rgba, n);
                t_copy += now() - t0;
                uLongf zn = compressBound((uLong)n);
                uint8_t *z = malloc(zn);
                t0 = now();
                compress2(z, &zn, rgba, (uLong)n, 6);
                t_zlib += now() - t0;
                z_bytes += zn;
                free(z);
                free(copy);
                for (int k = 0; k < NL; k++) {
                    bk_buf b = {0};
                    t0 = now();
                    bk_png_encode(rgba, im->width, im->height, im->has_alpha != 0, levels[k], &b);
                    t_lv[k] += now() - t0;
                    lv_bytes[k] += b.size;
                    bk_buf_free(&b);
                }
            }
            bk_scene_free(sc);
            bk_file_free(f);
        }
        closedir(dp);
    }
    if (!images) {
        printf("bench_png: no Quake 3 maps under %s (run ../shared/scripts/fetch-corpus)\n", root);
        return 0;
    }
    printf("bench_png: %d maps, %d images, %.1f MB of RGBA pixels\n", maps, images, (double)px_bytes / 1e6);
    printf("  %-22s time/zlib-6 %6.4f   size/zlib-6 %s\n", "copy (floor)", t_copy / t_zlib, "-");
    printf("  %-22s time/zlib-6 %6.3f   size/zlib-6 %6.3f\n", "zlib-6 unfiltered", 1.0, 1.0);
    for (int k = 0; k < NL; k++) {
        char name[64];
        if (levels[k]) snprintf(name, sizeof name, "bspkit --png-level %d", levels[k]);
        else snprintf(name, sizeof name, "bspkit (default)");
        printf("  %-22s time/zlib-6 %6.3f   size/zlib-6 %6.3f\n", name, t_lv[k] / t_zlib,
               (double)lv_bytes[k] / (double)z_bytes);
    }
    return 0;
}
