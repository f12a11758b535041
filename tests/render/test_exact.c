/* The renderer's shortcuts change no pixel: every map of the shared corpus (and Quake 3 maps with
 * their game's pk3s when fetched) drawn from its first spawn, from above (the overview) and without
 * PVS culling, each with the shortcuts (triangles outside the view left out before sorting, the
 * radix sort of the draw order, tile rows skipped behind what they hold) and without them (every
 * triangle sorted by qsort and set up, every row walked): the same bytes, the same triangles drawn.
 * The spawn's view is drawn with the shortcuts first, so its textures hold only the mip levels the
 * bound on its triangles' level of detail asks for, and its lightmaps only the blocks its
 * triangles' lightmap coordinates reach; the exhaustive view holds every level and every block.
 * usage: render_exact SHARED FETCHED */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BK_ADVANCED_API
#include "bspkit/advanced.h"
#include "bspkit/query.h"
#include "bspkit/render.h"
#include "bspkit/scene.h"
#include "render/render_internal.h"
#include "../unit/check.h"

static int g_maps, g_views;

static void compare_view(bk_renderer *r, const bk_render_options *o, const char *path, const char *what)
{
    uint8_t *fast = NULL, *slow = NULL;
    bk_render_info fi, si;
    bk_result a = bk_rt_draw_view(r, o, false, &fast, &fi), b = bk_rt_draw_view(r, o, true, &slow, &si);
    CHECK(a == b);
    if (a == BK_OK && b == BK_OK) {
        bool same = fi.width == si.width && fi.height == si.height &&
                    memcmp(fast, slow, (size_t)fi.width * fi.height * 4) == 0;
        if (!same || fi.triangles_drawn != si.triangles_drawn)
            fprintf(stderr, "%s (%s): pictures %s, triangles drawn %llu / %llu\n", path, what,
                    same ? "the same" : "differ", (unsigned long long)fi.triangles_drawn,
                    (unsigned long long)si.triangles_drawn);
        CHECK(same && fi.triangles_drawn == si.triangles_drawn);
        g_views++;
    }
    bk_free(fast);
    bk_free(slow);
}

static void check_map(const char *path, const char *const *dirs, uint32_t ndirs)
{
    bk_options opt;
    memset(&opt, 0, sizeof opt);
    opt.search_paths = dirs;
    opt.search_path_count = ndirs;
    bk_file *f = NULL;
    bk_scene *s = NULL;
    bk_query *q = NULL;
    bk_renderer *r = NULL;
    if (bk_file_open(path, &opt, &f) != BK_OK || bk_file_build_scene(f, &opt, &s) != BK_OK) goto done;
    bk_options qo = opt;
    qo.flags |= BK_OPT_FEW_POINTS;
    if (bk_query_open(f, &qo, &q) != BK_OK) q = NULL;
    if (bk_renderer_new(s, q, &r) != BK_OK) goto done;
    bk_render_options o;
    memset(&o, 0, sizeof o);
    o.width = 640, o.height = 360;
    compare_view(r, &o, path, "spawn");
    o.no_pvs = true;
    compare_view(r, &o, path, "no PVS");
    memset(&o, 0, sizeof o);
    o.view = BK_VIEW_OVERVIEW;
    o.width = o.height = 512;
    compare_view(r, &o, path, "overview");
    g_maps++;
done:
    bk_renderer_free(r);
    bk_query_free(q);
    bk_scene_free(s);
    bk_file_free(f);
}

static void walk(const char *dir, const char *const *dirs, uint32_t ndirs)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *de;
    char **names = NULL;
    size_t n = 0;
    while ((de = readdir(d))) {
        size_t l = strlen(de->d_name);
        if (l < 5 || strcmp(de->d_name + l - 4, ".bsp") != 0) continue;
        names = realloc(names, (n + 1) * sizeof *names);
        names[n++] = strdup(de->d_name);
    }
    closedir(d);
    for (size_t i = 0; i < n; i++) {
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        check_map(path, dirs, ndirs);
        free(names[i]);
    }
    free(names);
}

int main(int argc, char **argv)
{
    const char *shared = argc > 1 ? argv[1] : "../shared";
    const char *fetched = argc > 2 ? argv[2] : NULL;
    char dir[4096];
    const char *fams[] = {"goldsrc", "quake1", "source"};
    for (int i = 0; i < 3; i++) {
        snprintf(dir, sizeof dir, "%s/corpus/%s", shared, fams[i]);
        walk(dir, NULL, 0);
    }
    if (fetched) {   /* a few Quake 3 maps, textured from their game's pk3s */
        char oa[3][4096], nex[4096], map[4096];
        snprintf(oa[0], sizeof oa[0], "%s/pk3/oa-pak4-textures.pk3", fetched);
        snprintf(oa[1], sizeof oa[1], "%s/pk3/oa-pak6-misc.pk3", fetched);
        snprintf(oa[2], sizeof oa[2], "%s/pk3/oa088-pak6-patch088.pk3", fetched);
        snprintf(nex, sizeof nex, "%s/pk3/nexuiz-data.pk3", fetched);
        const char *oad[3] = {oa[0], oa[1], oa[2]}, *nexd[1] = {nex};
        const char *oamaps[] = {"oa081/ctf_inyard.bsp", "oa081/oa_dm6.bsp", "oa081/kaos2.bsp"};
        for (int i = 0; i < 3; i++) {
            snprintf(map, sizeof map, "%s/q3/%s", fetched, oamaps[i]);
            FILE *fp = fopen(map, "rb");
            if (!fp) continue;
            fclose(fp);
            check_map(map, oad, 3);
        }
        /* and Nexuiz maps, one with external lightmap pages (runningman: 512 x 512 each) */
        const char *nexmaps[] = {"ons-reborn.bsp", "runningman.bsp"};
        for (int i = 0; i < 2; i++) {
            snprintf(map, sizeof map, "%s/q3/nexuiz/%s", fetched, nexmaps[i]);
            FILE *fp = fopen(map, "rb");
            if (!fp) continue;
            fclose(fp);
            check_map(map, nexd, 1);
        }
    }
    printf("render_exact: %d maps, %d views the same with and without the shortcuts\n", g_maps, g_views);
    if (g_maps == 0) return 77;
    return CHECK_DONE();
}
