/* Source assets: where the engine finds a map's materials, textures and models (the map's pakfile,
 * then each --game-dir's VPKs and folders, gameinfo.txt search paths followed), the VMT/VTF
 * material reading shared by the map and prop builders, and the public bk_source_assets_* lookup
 * behind `validate --assets`. */
#include <stdio.h>

#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "scene/scene_build.h"
#include "source_scene.h"

/* A game file by its path, where the engine looks: the lookup bk_src_open_mounts built (the map's
 * pakfile, then --game-dir's VPKs and folders in search order), at most max bytes (0: the file
 * limit). *from gets the root's name ("pakfile", a VPK's or folder's path). */
static uint64_t asset_limit(const sb *b, uint64_t max)
{
    uint64_t lim = b->opt->limits.max_file_bytes ? b->opt->limits.max_file_bytes : ((uint64_t)1 << 31);
    return max && max < lim ? max : lim;
}

static bk_result read_asset_from(sb *b, const char *path, uint64_t max, uint8_t **d, size_t *n, const char **from)
{
    return bk_vfs_read_from(b->vfs, path, asset_limit(b, max), d, n, from);
}

bool bk_src_read_asset(sb *b, const char *path, uint8_t **d, size_t *n)
{
    const char *from;
    return read_asset_from(b, path, 0, d, n, &from) == BK_OK;
}

#define SRC_MAX_MOUNTS 256

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* the next root: a VPK or a folder of loose files (each once, at most SRC_MAX_MOUNTS) */
static void add_mount(sb *b, const char *path, bool vpk)
{
    if (bk_vfs_root_count(b->vfs) >= SRC_MAX_MOUNTS || bk_vfs_has_root(b->vfs, path)) return;
    if (!vpk) {
        bk_vfs_add_folder(b->vfs, path);
        return;
    }
    bk_options o = *b->opt;
    o.diag = NULL;
    bk_archive *a;
    if (bk_archive_open(path, &o, &a) == BK_OK) bk_vfs_add_archive(b->vfs, a, path, true);
}

/* A VPK named as gameinfo.txt and --game-dir name them: NAME_dir.vpk, or NAME.vpk meaning
 * NAME_dir.vpk when that exists (else a single-file NAME.vpk); NAME_NNN.vpk data files are not
 * archives of their own. */
static void add_vpk(sb *b, const char *path)
{
    size_t pl = strlen(path);
    if (pl < 4 || pl > 4000) return;
    if (pl >= 8 && path[pl - 8] == '_' && path[pl - 7] >= '0' && path[pl - 7] <= '9' && path[pl - 6] >= '0' &&
        path[pl - 6] <= '9' && path[pl - 5] >= '0' && path[pl - 5] <= '9')
        return;
    char dir[4096];
    if (pl < 8 || bk_strcasecmp(path + pl - 8, "_dir.vpk") != 0) {
        snprintf(dir, sizeof dir, "%.*s_dir.vpk", (int)(pl - 4), path);
        if (is_file(dir)) path = dir;
    }
    add_mount(b, path, true);
}

static void mount_cb(void *user, const char *path, bool archive) { add_mount(user, path, archive); }

static int cmp_name(const void *x, const void *y) { return strcmp(*(char *const *)x, *(char *const *)y); }

/* The paths in folder dir (sorted by name) of its folders (with_dirs) and of its files that end in
 * suffix (with suffix). */
static uint32_t list_dir(const char *dir, bool with_dirs, const char *suffix, char ***out)
{
    *out = NULL;
    DIR *dp = opendir(dir);
    if (!dp) return 0;
    char **v = NULL;
    uint32_t n = 0, cap = 0;
    struct dirent *de;
    size_t sl = suffix ? strlen(suffix) : 0;
    while ((de = readdir(dp)) != NULL && n < SRC_MAX_MOUNTS) {
        if (de->d_name[0] == '.') continue;
        size_t nl = strlen(de->d_name);
        char full[4096];
        if ((size_t)snprintf(full, sizeof full, "%s/%s", dir, de->d_name) >= sizeof full) continue;
        bool keep = (with_dirs && is_dir(full)) ||
                    (suffix && nl > sl && bk_strcasecmp(de->d_name + nl - sl, suffix) == 0 && is_file(full));
        if (!keep || bk_grow((void **)&v, &cap, n + 1, sizeof *v) != BK_OK) continue;
        if ((v[n] = bk_strdup(full)) != NULL) n++;
    }
    closedir(dp);
    if (n) qsort(v, n, sizeof *v, cmp_name);
    *out = v;
    return n;
}

static void free_list(char **v, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) bk_free(v[i]);
    bk_free(v);
}

/* A game folder in a gameinfo.txt search path: its pak01_dir.vpk (the engine mounts it with the
 * folder), then its loose files. */
static void add_game_folder(sb *b, const char *dir)
{
    char vpk[4096];
    if ((size_t)snprintf(vpk, sizeof vpk, "%s/pak01_dir.vpk", dir) < sizeof vpk && is_file(vpk)) add_mount(b, vpk, true);
    add_mount(b, dir, false);
}

typedef struct gi_state {
    sb *b;
    const char *game;      /* the folder of gameinfo.txt (|gameinfo_path|) */
    const char *base;      /* its parent (|all_source_engine_paths| and relative paths) */
    uint32_t used;
} gi_state;

static bool gi_entry(void *user, const char *ids, const char *path)
{
    gi_state *g = user;
    /* materials and models are looked up with the path ID "game" */
    bool game = false;
    for (const char *p = ids; *p && !game;) {
        const char *e = strchr(p, '+');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        game = l == 4 && bk_strncasecmp_prefix(p, "game") && (p[4] == '+' || p[4] == 0);
        p = e ? e + 1 : p + l;
    }
    if (!game) return true;
    const char *root = g->base, *rel = path;
    if (bk_strncasecmp_prefix(path, "|gameinfo_path|")) root = g->game, rel = path + 15;
    else if (bk_strncasecmp_prefix(path, "|all_source_engine_paths|")) rel = path + 25;
    else if (path[0] == '/') root = "", rel = path;
    char full[4096];
    size_t rl = strlen(rel);
    while (rl && (rel[rl - 1] == '/' || rel[rl - 1] == '\\')) rl--;
    bool wild = rl >= 1 && rel[rl - 1] == '*';
    if (wild) rl--;
    while (rl && (rel[rl - 1] == '/' || rel[rl - 1] == '\\')) rl--;
    if (rl == 1 && rel[0] == '.') rl = 0;
    if ((size_t)snprintf(full, sizeof full, "%s%s%.*s", root, rl && *root ? "/" : "", (int)rl, rel) >= sizeof full) return true;
    for (char *c = full; *c; c++)
        if (*c == '\\') *c = '/';
    if (strstr(full, "..")) return true;   /* stay inside the game's folders */
    g->used++;
    if (wild) {
        /* every folder and VPK inside, in name order */
        char **v;
        uint32_t n = list_dir(full, true, ".vpk", &v);
        for (uint32_t i = 0; i < n; i++) {
            if (is_dir(v[i])) add_game_folder(g->b, v[i]);
            else add_vpk(g->b, v[i]);
        }
        free_list(v, n);
    } else if (rl >= 4 && bk_strcasecmp(full + strlen(full) - 4, ".vpk") == 0) {
        add_vpk(g->b, full);
    } else {
        add_game_folder(g->b, full);
    }
    return bk_vfs_root_count(g->b->vfs) < SRC_MAX_MOUNTS;
}

/* the parser's errors reach the caller as warnings: the conversion goes on without them */
static void gi_warn(void *user, const bk_diag *d)
{
    const bk_options *opt = user;
    bk_diag w = *d;
    if (w.severity == BK_SEV_ERROR) w.severity = BK_SEV_WARNING;
    if (opt->diag) opt->diag(opt->diag_user, &w);
}

/* A --game-dir folder with a gameinfo.txt: its search paths, in order. false when it has none
 * or it does not read (a warning naming the place; the folder is then used as a plain one). */
static bool add_gameinfo(sb *b, const char *dir)
{
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/gameinfo.txt", dir) >= sizeof path || !is_file(path)) return false;
    uint8_t *d = NULL;
    size_t n = 0;
    bk_options o = *b->opt;
    o.name = path;
    o.diag = gi_warn;
    o.diag_user = (void *)b->opt;
    if (bk_read_file_opt(b->opt, path, (uint64_t)1 << 20, &d, &n) != BK_OK) return false;
    char *game = realpath(dir, NULL);
    char base[4096];
    snprintf(base, sizeof base, "%s", game ? game : dir);
    char *slash = strrchr(base, '/');
    if (slash && slash != base) *slash = 0;
    else snprintf(base, sizeof base, "%s", slash ? "/" : ".");
    gi_state g = {b, game ? game : dir, base, 0};
    bk_result r = bk_gameinfo_search_paths((const char *)d, n, &o, gi_entry, &g);
    bk_free(d);
    free(game); /* realpath's own malloc */
    if (r != BK_OK || !g.used) {
        /* what was mounted before the error stays; the folder itself follows */
        bk_ctx ctx;
        bk_ctx_init(&ctx, &o, false);
        if (r == BK_OK && g.used == 0)
            bk_report(&ctx, BK_SEV_WARNING, BK_ENOTFOUND, "gameinfo", BK_NO_INDEX, BK_NO_OFFSET,
                      "no GameInfo > FileSystem > SearchPaths \"game\" entries: the folder is searched as a plain one");
        return false;
    }
    return true;
}

/* The search order: for each --game-dir in turn, a NAME_dir.vpk (or NAME.vpk, or a VPK by another
 * name) itself; a folder
 * with a gameinfo.txt, its search paths; another folder, its *_dir.vpk files (in name order) then
 * its loose files. Then the map's own folder (base_dir), for loose files beside it. */
void bk_src_open_mounts(sb *b)
{
    bk_options io;
    memset(&io, 0, sizeof io);
    io.read_file = b->opt->read_file;
    io.read_file_user = b->opt->read_file_user;
    b->vfs = bk_vfs_new(&io);
    if (!b->vfs) return;
    if (b->pak) bk_vfs_add_archive(b->vfs, b->pak, "pakfile", false);
    for (uint32_t k = 0; k < b->opt->search_path_count; k++) {
        const char *root = b->opt->search_paths[k];
        if (!root || !*root) continue;
        size_t rl = strlen(root);
        if (rl >= 4 && bk_strcasecmp(root + rl - 4, ".vpk") == 0) {
            add_vpk(b, root);
            continue;
        }
        if (bk_archive_probe_file(root) == BK_ARCHIVE_VPK) { /* a VPK by another name: by its signature */
            add_mount(b, root, true);
            continue;
        }
        if (!is_dir(root) || add_gameinfo(b, root)) continue;
        bk_game_dir_mount(root, BK_GAME_SOURCE, mount_cb, b);
    }
    if (b->opt->search_path_count && b->opt->base_dir && is_dir(b->opt->base_dir)) add_mount(b, b->opt->base_dir, false);
}

void bk_src_close_mounts(sb *b)
{
    bk_vfs_free(b->vfs);
    b->vfs = NULL;
}

/* The VMT text of material name (materials/NAME.vmt) from the pakfile and --game-dir, following a
 * patch material's include once; NULL when not there. */
char *bk_src_read_vmt(sb *b, const char *name, size_t *len)
{
    char path[600];
    for (int hop = 0; hop < 2; hop++) {
        if (hop == 0) snprintf(path, sizeof path, "materials/%s.vmt", name);
        uint8_t *d;
        size_t n;
        const char *from;
        if (read_asset_from(b, path, BK_VMT_MAX_BYTES, &d, &n, &from) != BK_OK) {
            uint64_t size;
            /* there but not read: over the VMT bound (or unreadable); a warning, the material untextured */
            if (bk_vfs_stat(b->vfs, path, &size, NULL)) {
                bool big = size > BK_VMT_MAX_BYTES;
                bk_scene_diag(b->s, b->opt, BK_SEV_WARNING, big ? BK_ELIMIT : BK_EIO, path, NULL, BK_NO_INDEX,
                              BK_NO_OFFSET, "material not read: %llu bytes%s", (unsigned long long)size,
                              big ? ", over the limit of 1048576 bytes for a VMT" : ", and it does not read");
            }
            return NULL;
        }
        char shader[64];
        char inc[512];
        if (hop == 0 && bk_vmt_shader((const char *)d, n, shader, sizeof shader) && bk_strcasecmp(shader, "patch") == 0 &&
            bk_vmt_find((const char *)d, n, "include", inc, sizeof inc)) {
            char base[512];
            /* a patch's own $basetexture (in insert/replace) wins over the included one */
            if (bk_vmt_find((const char *)d, n, "$basetexture", base, sizeof base)) {
                *len = n;
                return (char *)d;
            }
            bk_free(d);
            snprintf(path, sizeof path, "%s", inc);
            continue;
        }
        *len = n;
        return (char *)d;
    }
    return NULL;
}

/* The VTF materials/TEX(.vtf) decoded into the scene as image *idx (-1 when it is not found, does
 * not decode or is over the decoded-bytes budget: a warning for the last two). */
bool bk_src_open_vtf(sb *b, const char *tex, char *path, size_t cap, uint8_t **d, size_t *n, bk_vtf *v, bk_result *r)
{
    size_t tl = strlen(tex);
    snprintf(path, cap, "materials/%s%s", tex, tl > 4 && bk_strcasecmp(tex + tl - 4, ".vtf") == 0 ? "" : ".vtf");
    if (!bk_src_read_asset(b, path, d, n)) return false;
    bk_options o = *b->opt;
    o.diag = NULL;   /* a texture that does not parse is one warning, by the caller */
    *r = bk_vtf_parse(*d, *n, &o, v);
    return true;
}

static bk_result load_texture(sb *b, const char *tex, int32_t *idx)
{
    *idx = -1;
    /* materials that share a texture share its image */
    for (uint32_t i = 0; i < b->s->image_count; i++) {
        const bk_image *im = &b->s->images[i];
        if (bk_scene_image_has_pixels(b->s, i) && !im->is_lightmap && im->name && bk_strcasecmp(im->name, tex) == 0) {
            *idx = (int32_t)i;
            return BK_OK;
        }
    }
    char path[600];
    uint8_t *d;
    size_t dn;
    bk_vtf v;
    bk_result r;
    if (!bk_src_open_vtf(b, tex, path, sizeof path, &d, &dn, &v, &r)) return BK_OK;
    uint64_t bytes = (uint64_t)v.width * v.height * 4;
    if (r != BK_OK || bytes > b->texture_budget) {
        bk_free(d);
        bk_scene_diag(b->s, b->opt, BK_SEV_WARNING, r != BK_OK ? r : BK_ELIMIT, path, NULL, BK_NO_INDEX, BK_NO_OFFSET,
                      r != BK_OK ? "texture not decoded: %s" : "texture over the decoded-bytes budget%s",
                      r != BK_OK ? bk_strerror(r) : " (limits.max_decoded_bytes)");
        return BK_OK;
    }
    /* with BK_OPT_COMPACT_IMAGES, texels stored smaller than RGBA (DXT) stay as stored until the
     * exporter needs them (decoded here four rows at a time, to know whether any is transparent) */
    if ((b->opt->flags & BK_OPT_COMPACT_IMAGES) && v.image_bytes + 4 < bytes) {
        uint8_t *packed = NULL;
        size_t packed_size = 0;
        bool alpha = false;
        r = bk_vtf_pack(d, dn, &v, &packed, &packed_size);
        if (r == BK_OK) r = bk_vtf_packed_alpha(packed, packed_size, v.width, v.height, &alpha);
        if (r == BK_OK) {
            bk_free(d);
            b->texture_budget -= bytes;
            r = bk_scene_add_packed_image(b->s, tex, v.width, v.height, BK_PACK_CODEC, packed, packed_size,
                                          bk_vtf_unpack, alpha, idx);
            if (r != BK_OK) {
                bk_free(packed);
                *idx = -1;
            }
            return r;
        }
        bk_free(packed);
        if (r == BK_ENOMEM) {
            bk_free(d);
            return r;
        }
        /* anything else: decoded whole below, which says what is wrong */
    }
    uint8_t *rgba = bk_malloc((size_t)bytes);
    if (!rgba) {
        bk_free(d);
        return BK_ENOMEM;
    }
    r = bk_vtf_decode(d, dn, &v, 0, rgba);
    bk_free(d);
    if (r != BK_OK) {
        bk_free(rgba);
        bk_scene_diag(b->s, b->opt, BK_SEV_WARNING, r, path, NULL, BK_NO_INDEX, BK_NO_OFFSET, "texture not decoded: %s",
                      bk_strerror(r));
        return BK_OK;
    }
    b->texture_budget -= bytes;
    r = bk_scene_add_image(b->s, tex, v.width, v.height, rgba, idx);
    if (r != BK_OK) {
        bk_free(rgba);
        *idx = -1;
    }
    return r;
}

/* Give material mi the texture its VMT names (base colour white, alpha mode from the VMT); a
 * WorldVertexTransition material also its $basetexture2, blended in by the vertex alpha. */
bk_result bk_src_attach_texture(sb *b, int32_t mi, const char *name)
{
    size_t n = 0;
    char *vmt = bk_src_read_vmt(b, name, &n);
    char tex[512] = "", tex2[512] = "", flag[32];
    if (!vmt) {
        /* cubemap-patched copies are named maps/MAP/ORIGINAL_X_Y_Z: try the original name */
        char orig[512];
        snprintf(orig, sizeof orig, "%s", name);
        if (bk_strncasecmp_prefix(orig, "maps/")) {
            char *slash = strchr(orig + 5, '/');
            char *u3 = strrchr(orig, '_');
            if (slash && u3) {
                *u3 = 0;
                char *u2 = strrchr(orig, '_');
                if (u2) *u2 = 0;
                char *u1 = u2 ? strrchr(orig, '_') : NULL;
                if (u1) *u1 = 0;
                if (u1) vmt = bk_src_read_vmt(b, slash + 1, &n);
            }
        }
        if (!vmt) return BK_OK;
    }
    bk_material *m = &b->s->materials[mi];
    bool found = bk_vmt_find(vmt, n, "$basetexture", tex, sizeof tex);
    if (bk_vmt_find(vmt, n, "$translucent", flag, sizeof flag) && atoi(flag)) m->alpha_mode = BK_ALPHA_BLEND;
    if (bk_vmt_find(vmt, n, "$alphatest", flag, sizeof flag) && atoi(flag)) {
        m->alpha_mode = BK_ALPHA_MASK;
        m->alpha_cutoff = 0.5f;
    }
    if (bk_vmt_find(vmt, n, "$nocull", flag, sizeof flag) && atoi(flag)) m->double_sided = 1;
    char shader[64] = "";
    bk_vmt_shader(vmt, n, shader, sizeof shader);
    if (bk_strcasecmp(shader, "UnlitGeneric") == 0) m->unlit = 1;
    bool wvt = bk_strcasecmp(shader, "WorldVertexTransition") == 0 &&
               bk_vmt_find(vmt, n, "$basetexture2", tex2, sizeof tex2) && tex2[0];
    bk_free(vmt);
    if (wvt) {
        BK_TRY(bk_kv_append(&m->extras, &m->extra_count, "shader", shader));
        BK_TRY(bk_kv_append(&m->extras, &m->extra_count, "basetexture2", tex2));
    }
    if (!found || !tex[0]) return BK_OK;
    int32_t idx;
    BK_TRY(load_texture(b, tex, &idx));
    if (idx < 0) return BK_OK;
    m = &b->s->materials[mi];
    m->base_image = idx;
    m->base_color[0] = m->base_color[1] = m->base_color[2] = 1.0f;
    if (wvt) {
        /* the two textures of a blend are drawn at the same scale, over the same UVs */
        int32_t idx2;
        BK_TRY(load_texture(b, tex2, &idx2));
        m = &b->s->materials[mi];
        if (idx2 >= 0) m->blend_image = idx2;
        else BK_TRY(bk_kv_append(&m->extras, &m->extra_count, "basetexture2Missing", "true"));
    }
    return BK_OK;
}

/* The image of material name's $basetexture (its VMT found where the engine looks, a patch's
 * include followed), decoded into the scene: *idx, or -1 when the VMT or its texture is not found;
 * with xform, its $basetexturetransform ("" when none) in xform (cap bytes). */
bk_result bk_src_material_image(sb *b, const char *name, int32_t *idx, char *xform, size_t cap)
{
    *idx = -1;
    if (xform && cap) xform[0] = 0;
    size_t n = 0;
    char *vmt = bk_src_read_vmt(b, name, &n);
    if (!vmt) return BK_OK;
    char tex[512] = "";
    bool found = bk_vmt_find(vmt, n, "$basetexture", tex, sizeof tex);
    if (xform && cap) bk_vmt_find(vmt, n, "$basetexturetransform", xform, cap);
    bk_free(vmt);
    return found && tex[0] ? load_texture(b, tex, idx) : BK_OK;
}

static bool lk_read(void *u, const char *path, uint8_t **d, size_t *n) { return bk_src_read_asset(u, path, d, n); }

static bool lk_has_material(void *u, const char *name)
{
    size_t n;
    char *v = bk_src_read_vmt(u, name, &n);
    bk_free(v);
    return v != NULL;
}

static bk_result lk_attach(void *u, bk_scene *s, int32_t mi, const char *name)
{
    sb *b = u;
    b->s = s;
    return bk_src_attach_texture(b, mi, name);
}

void bk_src_make_lookup(sb *b, bk_src_lookup *lk)
{
    lk->user = b;
    lk->read = lk_read;
    bool tex = !(b->opt->flags & BK_OPT_NO_TEXTURES);
    lk->has_material = tex ? lk_has_material : NULL;
    lk->attach_material = tex ? lk_attach : NULL;
}

/* ---- where a map's assets are: the report behind `validate --assets` ------------------------- */
struct bk_source_assets {
    sb b;
    bk_options opt;           /* bk_source_assets_open_dirs: the options with the extra root */
    const char **paths;
    char *root;
};

bk_result bk_source_assets_open(const bk_file *f, const bk_options *opt, bk_source_assets **out)
{
    if (!f || !opt || !out) return BK_EARG;
    *out = NULL;
    const bk_source_map *p = bk_source_map_of(f);
    if (!p) return BK_EARG;
    bk_source_assets *a = bk_calloc(1, sizeof *a);
    if (!a) return BK_ENOMEM;
    a->b.p = p;
    a->b.opt = opt;
    if (bk_archive_open_pakfile(f, opt, &a->b.pak) != BK_OK) a->b.pak = NULL;
    bk_src_open_mounts(&a->b);
    *out = a;
    return BK_OK;
}

/* true when path (e.g. "materials/x/y.vmt") is found where the engine looks. With a VMT,
 * *basetexture (cap bytes) receives its $basetexture ("" if none). */
bool bk_source_assets_find(bk_source_assets *a, const char *path, char *basetexture, size_t cap)
{
    if (!a || !path) return 0;
    size_t n;
    if (basetexture && cap) basetexture[0] = 0;
    size_t pl = strlen(path);
    if (pl > 4 && bk_strcasecmp(path + pl - 4, ".vmt") == 0 && basetexture) {
        /* through bk_src_read_vmt, so that patch materials resolve their include */
        char name[600];
        snprintf(name, sizeof name, "%.*s", (int)(pl > 14 ? pl - 14 : 0), path + 10);
        if (pl < 15 || bk_strncasecmp_prefix(path, "materials/") == 0) return 0;
        char *vmt = bk_src_read_vmt(&a->b, name, &n);
        if (!vmt) return bk_vfs_locate(a->b.vfs, path) != NULL;   /* there but not read (a warning said why) */
        bk_vmt_find(vmt, n, "$basetexture", basetexture, cap);
        bk_free(vmt);
        return 1;
    }
    return bk_vfs_locate(a->b.vfs, path) != NULL;
}

bk_result bk_src_assets_read_max(bk_source_assets *a, const char *path, uint64_t max, uint8_t **data, size_t *size,
                                 char *where, size_t cap)
{
    if (!a || !path || (!data) != (!size)) return BK_EARG;
    if (where && cap) where[0] = 0;
    const char *from;
    if (!data) {
        /* only where it is */
        if (!(from = bk_vfs_locate(a->b.vfs, path))) return BK_ENOTFOUND;
    } else {
        *data = NULL;
        *size = 0;
        if (read_asset_from(&a->b, path, max, data, size, &from) != BK_OK) {
            /* there but not read (over max, unreadable) is not a miss */
            uint64_t n;
            if (!(from = bk_vfs_stat(a->b.vfs, path, &n, NULL))) return BK_ENOTFOUND;
            if (where && cap) snprintf(where, cap, "%s", from);
            return n > asset_limit(&a->b, max) ? BK_ELIMIT : BK_EIO;
        }
    }
    if (where && cap) snprintf(where, cap, "%s", from);
    return BK_OK;
}

bk_result bk_source_assets_read(bk_source_assets *a, const char *path, uint8_t **data, size_t *size, char *where,
                                size_t cap)
{
    return bk_src_assets_read_max(a, path, 0, data, size, where, cap);
}

bk_result bk_source_assets_stat(bk_source_assets *a, const char *path, bk_source_asset_info *info)
{
    if (!a || !path || !info) return BK_EARG;
    memset(info, 0, sizeof *info);
    char *disk = NULL;
    const char *from = bk_vfs_stat(a->b.vfs, path, &info->size, &disk);
    if (!from) return BK_ENOTFOUND;
    snprintf(info->where, sizeof info->where, "%s", from);
    if (disk) {
        snprintf(info->disk, sizeof info->disk, "%s", disk);
        /* links followed, the file must still lie inside the folder it was found in */
        char *real = realpath(disk, NULL), *root = realpath(from, NULL);
        size_t rl = root ? strlen(root) : 0;
        info->outside = !real || !root || strncmp(real, root, rl) != 0 || (real[rl] != '/' && rl > 1);
        free(real); /* realpath's own malloc */
        free(root);
        bk_free(disk);
    }
    return BK_OK;
}

/* "the pakfile, a_dir.vpk, folder" */
void bk_source_assets_where(const bk_source_assets *a, char *buf, size_t cap)
{
    size_t o = 0;
    if (!cap) return;
    buf[0] = 0;
    o += (size_t)snprintf(buf + o, cap - o, "%s", a->b.pak ? "the map's pakfile" : "no pakfile");
    for (uint32_t k = 0; k < a->b.opt->search_path_count && o < cap; k++) {
        const char *p = a->b.opt->search_paths[k];
        char gi[4096];
        bool with_gi = p && (size_t)snprintf(gi, sizeof gi, "%s/gameinfo.txt", p) < sizeof gi && is_file(gi);
        o += (size_t)snprintf(buf + o, cap - o, ", %s%s", p ? p : "", with_gi ? " (its gameinfo.txt search paths)" : "");
    }
    if (o >= cap) buf[cap - 1] = 0;
}

void bk_source_assets_close(bk_source_assets *a)
{
    if (!a) return;
    bk_archive_close(a->b.pak);
    bk_src_close_mounts(&a->b);
    bk_free(a->paths);
    bk_free(a->root);
    bk_free(a);
}

/* A lookup with no map: the search paths, then extra_root (a model's own game folder). */
bk_result bk_source_assets_open_dirs(const bk_options *opt, const char *extra_root, bk_source_assets **out)
{
    if (!opt || !out) return BK_EARG;
    *out = NULL;
    bk_source_assets *a = bk_calloc(1, sizeof *a);
    if (!a) return BK_ENOMEM;
    a->opt = *opt;
    uint32_t n = opt->search_path_count;
    a->paths = bk_calloc((size_t)n + 2, sizeof *a->paths);
    a->root = extra_root ? bk_strdup(extra_root) : NULL;
    if (!a->paths || (extra_root && !a->root)) {
        bk_source_assets_close(a);
        return BK_ENOMEM;
    }
    for (uint32_t k = 0; k < n; k++) a->paths[k] = opt->search_paths[k];
    if (a->root) a->paths[n++] = a->root;
    a->opt.search_paths = a->paths;
    a->opt.search_path_count = n;
    a->b.opt = &a->opt;
    a->b.texture_budget = (opt->limits.max_alloc_bytes ? opt->limits.max_alloc_bytes : ((uint64_t)1 << 30)) / 2;
    bk_src_open_mounts(&a->b);
    *out = a;
    return BK_OK;
}

/* The lookup functions of a (for mdl_scene.c), writing materials and images into s. */
void bk_source_assets_lookup(bk_source_assets *a, bk_scene *s, bk_src_lookup *lk)
{
    a->b.s = s;
    bk_src_make_lookup(&a->b, lk);
}
