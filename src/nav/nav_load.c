/* The Recast/Detour shim's module (libbspkit_nav.so), opened the first time a navmesh is built:
 * see nav_shim.h for why it is not linked in. Looked for, in turn: $BSPKIT_NAV_MODULE, beside the
 * program or shared library this code is in, the build folder it was built in, and the folder it
 * installs to. */
#ifdef BK_HAVE_RECAST
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nav_shim.h"

#define MODULE_NAME "libbspkit_nav.so"

typedef int (*build_fn)(const bk_nav_shim_input *, const bk_nav_shim_cfg *, bk_nav_shim **, bk_nav_shim_stats *,
                        char *, size_t);
typedef void (*free_fn)(bk_nav_shim *);
typedef void (*polys_fn)(const bk_nav_shim *, bk_nav_shim_poly_fn, void *);
typedef int (*nearest_fn)(const bk_nav_shim *, const float *, const float *, float *);
typedef int (*path_fn)(const bk_nav_shim *, const float *, const float *, const float *, float **, int *);
typedef int (*save_fn)(const bk_nav_shim *, uint8_t **, size_t *);

static struct {
    build_fn build;
    free_fn free;
    polys_fn polys;
    nearest_fn nearest;
    path_fn path;
    save_fn save;
    bool ok;
    char why[1024];
    char msg[1200];
} g_mod;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

/* the entry points of an opened module, all of them or none */
static bool resolve(void *h)
{
    void *p[6];
    static const char *const names[6] = {"bk_navmod_build", "bk_navmod_free", "bk_navmod_polys",
                                         "bk_navmod_nearest", "bk_navmod_path", "bk_navmod_save"};
    for (int i = 0; i < 6; i++)
        if (!(p[i] = dlsym(h, names[i]))) return false;
    /* object pointers to function pointers: POSIX guarantees dlsym's results convert */
    memcpy(&g_mod.build, &p[0], sizeof p[0]);
    memcpy(&g_mod.free, &p[1], sizeof p[1]);
    memcpy(&g_mod.polys, &p[2], sizeof p[2]);
    memcpy(&g_mod.nearest, &p[3], sizeof p[3]);
    memcpy(&g_mod.path, &p[4], sizeof p[4]);
    memcpy(&g_mod.save, &p[5], sizeof p[5]);
    return true;
}

static bool try_path(const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        size_t n = strlen(g_mod.why);
        snprintf(g_mod.why + n, sizeof g_mod.why - n, "%s%s", n ? "; " : "", e ? e : path);
        return false;
    }
    if (resolve(h)) return true;
    size_t n = strlen(g_mod.why);
    snprintf(g_mod.why + n, sizeof g_mod.why - n, "%s%s: not bspkit's navmesh module", n ? "; " : "", path);
    dlclose(h);
    return false;
}

static void load(void)
{
    const char *env = getenv("BSPKIT_NAV_MODULE");
    if (env && *env) {
        g_mod.ok = try_path(env);
        return;
    }
    /* beside the object holding this code (the program, or libbspkit.so) */
    Dl_info info;
    if (dladdr((void *)&g_once, &info) && info.dli_fname && strchr(info.dli_fname, '/')) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s", info.dli_fname);
        char *slash = strrchr(dir, '/');
        if (slash) {
            slash[1] = '\0';
            char path[4096 + sizeof MODULE_NAME];
            snprintf(path, sizeof path, "%s%s", dir, MODULE_NAME);
            if (try_path(path)) {
                g_mod.ok = true;
                return;
            }
        }
    }
#ifdef BK_NAV_MODULE_BUILD
    if (try_path(BK_NAV_MODULE_BUILD)) {
        g_mod.ok = true;
        return;
    }
#endif
#ifdef BK_NAV_MODULE_INSTALL
    if (try_path(BK_NAV_MODULE_INSTALL)) {
        g_mod.ok = true;
        return;
    }
#endif
}

static void load_once(void)
{
    load();
    if (!g_mod.ok)
        snprintf(g_mod.msg, sizeof g_mod.msg, "the navmesh module (%s) did not load: %s", MODULE_NAME,
                 g_mod.why[0] ? g_mod.why : "not found");
}

bool bk_nav_shim_load(char *why, size_t cap)
{
    pthread_once(&g_once, load_once);
    if (!g_mod.ok && why && cap) snprintf(why, cap, "%s", g_mod.msg);
    return g_mod.ok;
}

const char *bk_nav_shim_why(void) { return g_mod.ok ? NULL : g_mod.msg; }

/* the calls nav.c makes, after bk_nav_shim_load said yes */
int bk_nav_shim_build(const bk_nav_shim_input *in, const bk_nav_shim_cfg *cfg, bk_nav_shim **out,
                      bk_nav_shim_stats *st, char *err, size_t cap)
{
    return g_mod.build(in, cfg, out, st, err, cap);
}
void bk_nav_shim_free(bk_nav_shim *m)
{
    if (m) g_mod.free(m);
}
void bk_nav_shim_polys(const bk_nav_shim *m, bk_nav_shim_poly_fn fn, void *user) { g_mod.polys(m, fn, user); }
int bk_nav_shim_nearest(const bk_nav_shim *m, const float p[3], const float ext[3], float out[3])
{
    return g_mod.nearest(m, p, ext, out);
}
int bk_nav_shim_path(const bk_nav_shim *m, const float a[3], const float b[3], const float ext[3], float **pts,
                     int *npts)
{
    return g_mod.path(m, a, b, ext, pts, npts);
}
int bk_nav_shim_save(const bk_nav_shim *m, uint8_t **data, size_t *size) { return g_mod.save(m, data, size); }
#else
typedef int bk_nav_load_unused; /* ISO C: a translation unit is not empty */
#endif
