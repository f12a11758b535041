/* Resource lookup across folders and archives (.pk3/.zip, a Source map's pakfile, VPKs),
 * case-insensitively, as the engines' file systems do: an ordered list of roots, the first that
 * has a file serves it. Archives are read through bk_archive (archive.h); which roots and in what
 * order is each game's rule (bk_vfs_new_game here, Source's gameinfo search paths in
 * formats/source/source_assets.c). */
#include <dirent.h>
#include <stdio.h>
#include <sys/stat.h>

#include "bk_internal.h"

typedef struct vfs_root {
    char *path;      /* the folder, or the archive's name for messages ("pakfile", a VPK's path) */
    bk_archive *zip; /* NULL for a folder */
    bool own;        /* the lookup closes zip */
} vfs_root;

/* A folder's names as readdir gave them, read once per lookup object: a map's textures are looked
 * up by many names and extensions, most of them missing, and each miss would read the folder
 * again. Folders are taken not to change while it lives. */
typedef struct vfs_dir {
    char *path;
    char **names;       /* NULL when the folder could not be opened */
    uint32_t n;
} vfs_dir;

#define VFS_DIR_MAX 4096 /* folders remembered; past that they are read each time */

struct bk_vfs {
    vfs_root *roots;
    uint32_t count, cap;
    bk_options io;      /* only read_file / read_file_user are used */
    vfs_dir *dirs;
    uint32_t dir_count, dir_cap;
};

static bool has_ext(const char *p, const char *ext)
{
    size_t n = strlen(p), e = strlen(ext);
    return n >= e && bk_strcasecmp(p + n - e, ext) == 0;
}

static bool push_root(bk_vfs *v, const char *path, bk_archive *zip, bool own)
{
    vfs_root r = {bk_strdup(path), zip, own};
    if (!r.path || bk_grow((void **)&v->roots, &v->cap, v->count + 1, sizeof(vfs_root)) != BK_OK) {
        bk_free(r.path);
        if (own) bk_archive_close(zip);
        return false;
    }
    v->roots[v->count++] = r;
    return true;
}

bool bk_vfs_add_folder(bk_vfs *v, const char *path)
{
    struct stat st;
    if (!v || !path || !*path || stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) return false;
    return push_root(v, path, NULL, false);
}

/* a search path: a folder, or a .pk3 / .zip / .pk4 / .pak file opened as an archive; anything
 * else is left out */
static void add_root(bk_vfs *v, const char *path)
{
    if (bk_vfs_add_folder(v, path) || !path) return;
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) ||
        !(has_ext(path, ".pk3") || has_ext(path, ".zip") || has_ext(path, ".pk4") || has_ext(path, ".pak")))
        return;
    bk_archive *zip;
    if (bk_archive_open(path, NULL, &zip) == BK_OK) push_root(v, path, zip, true);
}

bool bk_vfs_add_archive(bk_vfs *v, bk_archive *a, const char *name, bool own)
{
    if (!v || !a || !name) {
        if (own) bk_archive_close(a);
        return false;
    }
    return push_root(v, name, a, own);
}

bool bk_vfs_has_root(const bk_vfs *v, const char *path)
{
    for (uint32_t i = 0; v && i < v->count; i++)
        if (strcmp(v->roots[i].path, path) == 0) return true;
    return false;
}

uint32_t bk_vfs_root_count(const bk_vfs *v) { return v ? v->count : 0; }

bk_vfs *bk_vfs_new(const bk_options *opt)
{
    bk_vfs *v = bk_calloc(1, sizeof *v);
    if (!v) return NULL;
    if (opt) {
        v->io.read_file = opt->read_file;
        v->io.read_file_user = opt->read_file_user;
        for (uint32_t i = 0; i < opt->search_path_count; i++) add_root(v, opt->search_paths[i]);
        add_root(v, opt->base_dir);
    }
    return v;
}

void bk_vfs_free(bk_vfs *v)
{
    if (!v) return;
    for (uint32_t i = 0; i < v->count; i++) {
        bk_free(v->roots[i].path);
        if (v->roots[i].own) bk_archive_close(v->roots[i].zip);
    }
    bk_free(v->roots);
    for (uint32_t i = 0; i < v->dir_count; i++) {
        for (uint32_t k = 0; k < v->dirs[i].n; k++) bk_free(v->dirs[i].names[k]);
        bk_free(v->dirs[i].names);
        bk_free(v->dirs[i].path);
    }
    bk_free(v->dirs);
    bk_free(v);
}

/* read the folder at path into d (names NULL when it cannot be opened) */
static bool dir_read(const char *path, vfs_dir *d)
{
    memset(d, 0, sizeof *d);
    DIR *dh = opendir(path);
    if (!dh) return true;
    uint32_t cap = 0;
    bool ok = true;
    struct dirent *de;
    while (ok && (de = readdir(dh)) != NULL) {
        char *nm = bk_strdup(de->d_name);
        if (!nm || bk_grow((void **)&d->names, &cap, d->n + 1, sizeof(char *)) != BK_OK) {
            bk_free(nm);
            ok = false;
            break;
        }
        d->names[d->n++] = nm;
    }
    closedir(dh);
    if (ok && !d->names) d->names = bk_calloc(1, sizeof(char *)); /* an empty folder that exists */
    if (!ok || !d->names) {
        for (uint32_t k = 0; k < d->n; k++) bk_free(d->names[k]);
        bk_free(d->names);
        memset(d, 0, sizeof *d);
        return false;
    }
    return true;
}

/* The name in folder path that comp names: itself when present, else the first that differs only
 * in case (copied into found); NULL when none or the folder cannot be read. */
static const char *dir_match(bk_vfs *v, const char *path, const char *comp, char *found, size_t found_cap)
{
    vfs_dir *d = NULL, tmp;
    for (uint32_t i = 0; i < v->dir_count && !d; i++)
        if (strcmp(v->dirs[i].path, path) == 0) d = &v->dirs[i];
    bool cached = d != NULL;
    if (!d) {
        if (!dir_read(path, &tmp)) return NULL;
        d = &tmp;
        char *p = v->dir_count < VFS_DIR_MAX ? bk_strdup(path) : NULL;
        if (p && bk_grow((void **)&v->dirs, &v->dir_cap, v->dir_count + 1, sizeof(vfs_dir)) == BK_OK) {
            tmp.path = p;
            v->dirs[v->dir_count] = tmp;
            d = &v->dirs[v->dir_count++];
            cached = true;
        } else {
            bk_free(p);
        }
    }
    const char *match = NULL;
    for (uint32_t k = 0; k < d->n; k++) {
        if (strcmp(d->names[k], comp) == 0) {
            match = comp;
            break;
        }
        if (!match && bk_strcasecmp(d->names[k], comp) == 0 && strlen(d->names[k]) < found_cap) {
            strcpy(found, d->names[k]);
            match = found;
        }
    }
    if (!cached) {
        for (uint32_t k = 0; k < d->n; k++) bk_free(d->names[k]);
        bk_free(d->names);
    }
    return match;
}

/* Resolve rel under dir, matching each component case-insensitively. Returns malloc'd path. */
static char *resolve_nocase(bk_vfs *v, const char *dir, const char *rel)
{
    bk_buf b = {0};
    bk_buf_printf(&b, "%s", dir);
    const char *p = rel;
    while (*p) {
        while (*p == '/' || *p == '\\') p++;
        if (!*p) break;
        const char *e = p;
        while (*e && *e != '/' && *e != '\\') e++;
        char comp[256];
        size_t n = (size_t)(e - p);
        if (n >= sizeof comp || (n == 2 && p[0] == '.' && p[1] == '.')) {
            bk_buf_free(&b);
            return NULL;
        }
        memcpy(comp, p, n);
        comp[n] = 0;
        bk_buf_append(&b, "", 1);
        if (b.failed) {
            bk_buf_free(&b);   /* out of memory: free what was built */
            return NULL;
        }
        b.size--;
        char found[256];
        const char *match = dir_match(v, (const char *)b.data, comp, found, sizeof found);
        if (!match) {
            bk_buf_free(&b);
            return NULL;
        }
        bk_buf_printf(&b, "/%s", match);
        p = e;
    }
    bk_buf_append(&b, "", 1);
    if (b.failed) {
        bk_buf_free(&b);
        return NULL;
    }
    return (char *)b.data;
}

/* relpath with '/' separators and no leading ones, into norm (cap bytes); false when too long */
static bool norm_rel(const char *relpath, char *norm, size_t cap, const char **rel)
{
    size_t n = 0;
    for (const char *p = relpath; *p; p++) {
        if (n + 1 >= cap) return false;
        norm[n++] = *p == '\\' ? '/' : *p;
    }
    norm[n] = 0;
    *rel = norm;
    while (**rel == '/') (*rel)++;
    return true;
}

bk_result bk_vfs_read_from(bk_vfs *v, const char *relpath, uint64_t max_bytes, uint8_t **out, size_t *size,
                           const char **where)
{
    *out = NULL;
    *size = 0;
    if (where) *where = NULL;
    char norm[1024];
    const char *rel;
    if (!v || !relpath || !norm_rel(relpath, norm, sizeof norm, &rel)) return BK_ENOTFOUND;
    for (uint32_t i = 0; i < v->count; i++) {
        vfs_root *r = &v->roots[i];
        if (where) *where = r->path;
        if (r->zip) {
            int32_t idx = bk_archive_find(r->zip, rel);
            if (idx < 0) continue;
            bk_result ar = bk_archive_read(r->zip, (uint32_t)idx, max_bytes, out, size);
            if (ar == BK_EFORMAT) return BK_EIO;
            return ar;
        }
        char *full = resolve_nocase(v, r->path, rel);
        if (!full) continue;
        bk_result res = bk_read_file_opt(&v->io, full, max_bytes, out, size);
        bk_free(full);
        if (res == BK_OK) return BK_OK;
    }
    if (where) *where = NULL;
    return BK_ENOTFOUND;
}

bk_result bk_vfs_read(bk_vfs *v, const char *relpath, uint64_t max_bytes, uint8_t **out, size_t *size)
{
    return bk_vfs_read_from(v, relpath, max_bytes, out, size, NULL);
}

const char *bk_vfs_stat(bk_vfs *v, const char *relpath, uint64_t *size, char **disk)
{
    if (size) *size = 0;
    if (disk) *disk = NULL;
    char norm[1024];
    const char *rel;
    if (!v || !relpath || !norm_rel(relpath, norm, sizeof norm, &rel)) return NULL;
    for (uint32_t i = 0; i < v->count; i++) {
        vfs_root *r = &v->roots[i];
        if (r->zip) {
            int32_t idx = bk_archive_find(r->zip, rel);
            if (idx < 0) continue;
            if (size) *size = bk_archive_entry_at(r->zip, (uint32_t)idx)->size;
            return r->path;
        }
        char *full = resolve_nocase(v, r->path, rel);
        if (!full) continue;
        bool found;
        if (v->io.read_file) {
            /* files come through the caller's reader: ask it */
            uint8_t *d = NULL;
            size_t n = 0;
            found = bk_read_file_opt(&v->io, full, UINT64_MAX, &d, &n) == BK_OK;
            bk_free(d);
            if (found && size) *size = n;
        } else {
            struct stat st;
            found = stat(full, &st) == 0 && S_ISREG(st.st_mode);
            if (found && size) *size = (uint64_t)st.st_size;
        }
        if (found && disk) *disk = full;
        else bk_free(full);
        if (found) return r->path;
    }
    return NULL;
}

const char *bk_vfs_locate(bk_vfs *v, const char *relpath) { return bk_vfs_stat(v, relpath, NULL, NULL); }

void bk_vfs_list(bk_vfs *v, const char *dir, const char *ext, bk_vfs_list_fn fn, void *user)
{
    if (!v || !dir || !ext || !fn) return;
    size_t dn = strlen(dir);
    while (dn && (dir[dn - 1] == '/' || dir[dn - 1] == '\\')) dn--;
    if (dn == 0 || dn >= 512) return;
    char rel[1024];
    for (uint32_t i = 0; i < v->count; i++) {
        vfs_root *r = &v->roots[i];
        if (r->zip) {
            uint32_t n = bk_archive_count(r->zip);
            for (uint32_t k = 0; k < n; k++) {
                const char *nm = bk_archive_entry_at(r->zip, k)->name;
                if (!nm || strlen(nm) <= dn + 1 || nm[dn] != '/' || strchr(nm + dn + 1, '/')) continue;
                bool same = true;
                for (size_t c = 0; c < dn && same; c++) {
                    char a = nm[c], b = dir[c] == '\\' ? '/' : dir[c];
                    if (a >= 'A' && a <= 'Z') a = (char)(a + 32);
                    if (b >= 'A' && b <= 'Z') b = (char)(b + 32);
                    same = a == b;
                }
                if (same && has_ext(nm, ext) && !fn(user, nm)) return;
            }
            continue;
        }
        char sub[512];
        memcpy(sub, dir, dn);
        sub[dn] = 0;
        char *full = resolve_nocase(v, r->path, sub);
        if (!full) continue;
        DIR *d = opendir(full);
        bk_free(full);
        if (!d) continue;
        struct dirent *de;
        bool go = true;
        while (go && (de = readdir(d)) != NULL) {
            if (de->d_name[0] == '.' || !has_ext(de->d_name, ext)) continue;
            if ((size_t)snprintf(rel, sizeof rel, "%s/%s", sub, de->d_name) >= sizeof rel) continue;
            go = fn(user, rel);
        }
        closedir(d);
        if (!go) return;
    }
}

/* ---- a game's search order ----------------------------------------------------------------- */


typedef struct path_list {
    char **v;
    uint32_t n, cap;
} path_list;

static void pl_add(path_list *pl, const char *dir, const char *name)
{
    if (pl->n >= 4096 || bk_grow((void **)&pl->v, &pl->cap, pl->n + 1, sizeof(char *)) != BK_OK) return;
    size_t len = strlen(dir) + (name ? strlen(name) + 1 : 0) + 1;
    char *p = bk_malloc(len);
    if (!p) return;
    if (name) snprintf(p, len, "%s/%s", dir, name);
    else snprintf(p, len, "%s", dir);
    pl->v[pl->n++] = p;
}

static int cmp_desc(const void *a, const void *b) { return strcmp(*(char *const *)b, *(char *const *)a); }

static bool is_dir_path(const char *p)
{
    struct stat st;
    return p && stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* pakN.pak: N (at most 9 digits), else -1 */
static long pak_number(const char *name)
{
    size_t l = strlen(name);
    if (l < 8 || l > 16 || bk_strcasecmp(name + l - 4, ".pak") != 0 || (name[0] | 32) != 'p' || (name[1] | 32) != 'a' ||
        (name[2] | 32) != 'k')
        return -1;
    long n = 0;
    for (size_t i = 3; i < l - 4; i++) {
        if (name[i] < '0' || name[i] > '9') return -1;
        n = n * 10 + (name[i] - '0');
    }
    return n;
}

static int cmp_pak_desc(const void *a, const void *b)
{
    long x = pak_number(*(char *const *)a), y = pak_number(*(char *const *)b);
    return x < y ? 1 : x > y ? -1 : 0;
}

static bool is_regular(const char *dir, const char *name)
{
    char full[4096];
    struct stat st;
    return (size_t)snprintf(full, sizeof full, "%s/%s", dir, name) < sizeof full && stat(full, &st) == 0 &&
           S_ISREG(st.st_mode);
}

static int cmp_asc(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* which of a folder's names rule mounts as an archive: 1 the first kind (.pk3, _dir.vpk), 2 the
 * second (pakN.pak), 0 none */
static int archive_kind(bk_game_rule rule, const char *dir, const char *name)
{
    size_t l = strlen(name);
    if (rule == BK_GAME_SOURCE)
        return name[0] != '.' && l > 8 && bk_strcasecmp(name + l - 8, "_dir.vpk") == 0 && is_regular(dir, name);
    if (l >= 5 && bk_strcasecmp(name + l - 4, ".pk3") == 0) return 1;
    return pak_number(name) >= 0 ? 2 : 0;
}

/* The archives inside a folder, then the folder's loose files, in the engines' search order.
 * id's: its .pk3s, later names first (Quake 3 lets pak8 override pak0), then its numbered
 * pakN.pak, higher N first, then the loose files. Quake 2's FS_AddGameDirectory (as Quake's
 * COM_AddGameDirectory) puts the folder on the search path first and then each pakN.pak in front
 * of it: a pak's file wins over a loose file of the same name, and pak1 over pak0. Unnumbered .pak
 * files are not loaded, as id's engines do not. A game folder given as --game-dir serves its
 * archives, as it does for the engine. Source's: its *_dir.vpk files in name order, then the
 * loose files (the folder is given as --game-dir without a gameinfo.txt). */
void bk_game_dir_mount(const char *dir, bk_game_rule rule, bk_mount_fn fn, void *user)
{
    DIR *d = opendir(dir);
    if (!d) {
        fn(user, dir, false);
        return;
    }
    const uint32_t most = rule == BK_GAME_SOURCE ? 256 : 1024;
    char **v[2] = {NULL, NULL};
    uint32_t n[2] = {0, 0}, cap[2] = {0, 0};
    struct dirent *de;
    while ((de = readdir(d)) != NULL && n[0] + n[1] < most) {
        int k = archive_kind(rule, dir, de->d_name) - 1;
        if (k < 0) continue;
        if (bk_grow((void **)&v[k], &cap[k], n[k] + 1, sizeof(char *)) != BK_OK) {
            if (rule == BK_GAME_SOURCE) continue;
            break;
        }
        v[k][n[k]] = bk_strdup(de->d_name);
        if (v[k][n[k]]) n[k]++;
    }
    closedir(d);
    if (n[0]) qsort(v[0], n[0], sizeof *v[0], rule == BK_GAME_SOURCE ? cmp_asc : cmp_desc);
    if (n[1]) qsort(v[1], n[1], sizeof *v[1], cmp_pak_desc);
    for (int k = 0; k < 2; k++) {
        for (uint32_t i = 0; i < n[k]; i++) {
            char full[4096];
            if ((size_t)snprintf(full, sizeof full, "%s/%s", dir, v[k][i]) < sizeof full) fn(user, full, true);
            bk_free(v[k][i]);
        }
        bk_free(v[k]);
    }
    fn(user, dir, false);
}

static void pl_mount(void *user, const char *path, bool archive)
{
    (void)archive;
    pl_add(user, path, NULL);
}

/* The search roots: every given path (folders with their .pk3s), then, when the map sits in a
 * game's maps/ folder, that game folder with its .pk3s (base_dir itself is added by bk_vfs). */
bk_vfs *bk_vfs_new_game(const bk_options *opt)
{
    path_list pl = {0};
    for (uint32_t i = 0; i < opt->search_path_count; i++) {
        const char *p = opt->search_paths[i];
        if (is_dir_path(p)) bk_game_dir_mount(p, BK_GAME_ID, pl_mount, &pl);
        else if (p) pl_add(&pl, p, NULL);
    }
    if (opt->base_dir && is_dir_path(opt->base_dir)) {
        char game[4096];
        char *real = realpath(opt->base_dir, NULL);
        snprintf(game, sizeof game, "%s", real ? real : opt->base_dir);
        free(real); /* realpath's own malloc */
        size_t l = strlen(game);
        while (l > 1 && game[l - 1] == '/') game[--l] = 0;
        const char *leaf = strrchr(game, '/');
        leaf = leaf ? leaf + 1 : game;
        if (bk_strcasecmp(leaf, "maps") == 0) {
            if (leaf == game) snprintf(game, sizeof game, ".");
            else game[leaf - game - (leaf - game > 1 ? 1 : 0)] = 0;
            bk_game_dir_mount(game, BK_GAME_ID, pl_mount, &pl);
        }
    }
    bk_options o = *opt;
    o.search_paths = (const char *const *)pl.v;
    o.search_path_count = pl.n;
    bk_vfs *v = bk_vfs_new(&o);
    for (uint32_t i = 0; i < pl.n; i++) bk_free(pl.v[i]);
    bk_free(pl.v);
    return v;
}
