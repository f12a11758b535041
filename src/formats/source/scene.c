/* Source map -> bk_scene: one mesh per brush model (faces triangulated, displacements tessellated
 * in place of their base faces), a lightmap atlas read with uv1, one material per texdata (named
 * by its VMT path; its $basetexture decoded from the map's pakfile when it is there), a node per
 * entity and per static prop. Compile-tool faces are not drawn. Engine coordinates. */
#include <math.h>
#include <stdio.h>

#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "mdl_internal.h"
#include "vbsp_internal.h"

#define DEG2RAD 0.017453292519943295

/* one place assets are looked for: a VPK or a folder of loose files */
typedef struct src_mount {
    bk_archive *vpk;
    bk_vfs *dir;
    char *path;
} src_mount;

typedef struct sb {
    const bk_source_map *p;
    const bk_options *opt;
    bk_scene *s;
    const bk_source_face *faces;   /* the face set whose lightofs match the lighting lump */
    const bk_source_lump *light;
    int32_t *tex_mat;              /* texdata -> material (+1 slot for "no texdata") */
    bk_atlas *atlas;
    uint32_t *face_rect;           /* face -> atlas rect + 1 (0: none) */
    int32_t lm_image;
    uint32_t atlas_w, atlas_h;
    uint64_t vertex_budget;        /* scene vertices left before BK_ELIMIT */
    bk_archive *pak;               /* the map's pakfile, where its materials' VMT/VTF are found */
    src_mount *mounts;             /* then the VPKs and folders of --game-dir, in search order */
    uint32_t mount_count, mount_cap;
    uint64_t texture_budget;       /* decoded texture bytes left */
    const char *skyname;           /* worldspawn's skyname, or NULL */
    size_t file_size;              /* the map's bytes (how its atlas is kept: bk_atlas_to_scene_image) */
} sb;

/* hostile maps can make faces share huge lightmaps or surfedge runs: bound what the scene holds */
#define SRC_MAX_LUXELS ((uint64_t)16 << 20)

/* a face through which the engine shows the sky (2D skybox, or the 3D skybox behind it):
 * texinfo flag SKY / SKY2D, or the skybox tool material */
static bool texinfo_sky(const bk_source_map *p, int32_t texinfo)
{
    if (texinfo < 0 || (uint32_t)texinfo >= p->texinfo_count) return false;
    if (p->texinfo[texinfo].flags & (BK_SRC_SURF_SKY | BK_SRC_SURF_SKY2D)) return true;
    int32_t td = p->texinfo[texinfo].texdata;
    if (td < 0 || (uint32_t)td >= p->texdata_count) return false;
    const char *n = p->texdata[td].name;
    return (bk_strncasecmp_prefix(n, "tools/tools") || bk_strncasecmp_prefix(n, "tools\\tools")) &&
           (bk_strcasecmp(n + 11, "skybox") == 0 || bk_strcasecmp(n + 11, "skybox2d") == 0);
}

static bool face_drawn(const bk_source_map *p, const bk_source_face *f)
{
    if (f->texinfo < 0 || (uint32_t)f->texinfo >= p->texinfo_count) return false;
    int32_t fl = p->texinfo[f->texinfo].flags;
    /* nodraw/hint/skip/trigger are compile tools; sky faces are drawn with an unlit sky material */
    if (fl & (BK_SRC_SURF_NODRAW | BK_SRC_SURF_HINT | BK_SRC_SURF_SKIP | BK_SRC_SURF_TRIGGER)) return false;
    if (texinfo_sky(p, f->texinfo)) return f->dispinfo < 0 && f->numedges >= 3;
    /* compile tools the engine does not draw (some maps carry them without the texinfo flags) */
    int32_t td = p->texinfo[f->texinfo].texdata;
    if (td >= 0 && (uint32_t)td < p->texdata_count) {
        static const char *const tools[] = {"nodraw", "clip", "playerclip", "npcclip", "trigger", "skip", "hint",
                                            "invisible", "invisibleladder", "blocklight", "areaportal", "occluder",
                                            "fog", "blockbullets", "blocklos", "origin"};
        const char *n = p->texdata[td].name;
        if (bk_strncasecmp_prefix(n, "tools/tools") || bk_strncasecmp_prefix(n, "tools\\tools")) {
            for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++)
                if (bk_strcasecmp(n + 11, tools[i]) == 0) return false;
        }
    }
    if (f->dispinfo >= 0)
        return (uint32_t)f->dispinfo < p->dispinfo_count && p->dispinfo[f->dispinfo].power >= 2 &&
               p->dispinfo[f->dispinfo].power <= 4 && f->numedges == 4;
    return f->numedges >= 3;
}

/* A game file by its path, where the engine looks: the map's pakfile, then each mount in the
 * search order open_mounts built from --game-dir. */
static bool read_asset(sb *b, const char *path, uint8_t **d, size_t *n)
{
    int32_t i = bk_archive_find(b->pak, path);
    if (i >= 0 && bk_archive_read(b->pak, (uint32_t)i, UINT64_MAX, d, n) == BK_OK) return true;
    uint64_t max = b->opt->limits.max_file_bytes ? b->opt->limits.max_file_bytes : ((uint64_t)1 << 31);
    for (uint32_t k = 0; k < b->mount_count; k++) {
        const src_mount *m = &b->mounts[k];
        if (m->vpk) {
            int32_t j = bk_archive_find(m->vpk, path);
            if (j >= 0 && bk_archive_read(m->vpk, (uint32_t)j, UINT64_MAX, d, n) == BK_OK) return true;
        } else if (m->dir && bk_vfs_read(m->dir, path, max, d, n) == BK_OK) {
            /* loose files, found case-insensitively as the engine (on Windows) finds them */
            return true;
        }
    }
    return false;
}

#define SRC_MAX_MOUNTS 256

static bool mounted(const sb *b, const char *path)
{
    for (uint32_t k = 0; k < b->mount_count; k++)
        if (strcmp(b->mounts[k].path, path) == 0) return true;
    return false;
}

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

static void add_mount(sb *b, const char *path, bool vpk)
{
    if (b->mount_count >= SRC_MAX_MOUNTS || mounted(b, path)) return;
    if (bk_grow((void **)&b->mounts, &b->mount_cap, b->mount_count + 1, sizeof *b->mounts) != BK_OK) return;
    src_mount m = {NULL, NULL, bk_strdup(path)};
    if (!m.path) return;
    if (vpk) {
        bk_options o = *b->opt;
        o.diag = NULL;
        if (bk_archive_open(path, &o, &m.vpk) != BK_OK) m.vpk = NULL;
    } else {
        bk_options o;
        memset(&o, 0, sizeof o);
        o.read_file = b->opt->read_file;
        o.read_file_user = b->opt->read_file_user;
        const char *one[1] = {path};
        o.search_paths = one;
        o.search_path_count = 1;
        m.dir = bk_vfs_new(&o);
    }
    if (!m.vpk && !m.dir) {
        bk_free(m.path);
        return;
    }
    b->mounts[b->mount_count++] = m;
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
    return g->b->mount_count < SRC_MAX_MOUNTS;
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
static void open_mounts(sb *b)
{
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
        char **v;
        uint32_t n = list_dir(root, false, "_dir.vpk", &v);
        for (uint32_t i = 0; i < n; i++) add_mount(b, v[i], true);
        free_list(v, n);
        add_mount(b, root, false);
    }
    if (b->opt->search_path_count && b->opt->base_dir && is_dir(b->opt->base_dir)) add_mount(b, b->opt->base_dir, false);
}

static void close_mounts(sb *b)
{
    for (uint32_t k = 0; k < b->mount_count; k++) {
        bk_archive_close(b->mounts[k].vpk);
        bk_vfs_free(b->mounts[k].dir);
        bk_free(b->mounts[k].path);
    }
    bk_free(b->mounts);
    b->mounts = NULL;
    b->mount_count = b->mount_cap = 0;
}

/* The VMT text of material name (materials/NAME.vmt) from the pakfile, following a patch
 * material's include once; NULL when not there. */
static char *read_vmt(sb *b, const char *name, size_t *len)
{
    char path[600];
    for (int hop = 0; hop < 2; hop++) {
        if (hop == 0) snprintf(path, sizeof path, "materials/%s.vmt", name);
        uint8_t *d;
        size_t n;
        if (!read_asset(b, path, &d, &n)) return NULL;
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
    size_t tl = strlen(tex);
    snprintf(path, sizeof path, "materials/%s%s", tex, tl > 4 && bk_strcasecmp(tex + tl - 4, ".vtf") == 0 ? "" : ".vtf");
    uint8_t *d;
    size_t dn;
    if (!read_asset(b, path, &d, &dn)) return BK_OK;
    bk_vtf v;
    bk_options o = *b->opt;
    o.diag = NULL;
    bk_result r = bk_vtf_parse(d, dn, &o, &v);
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
static bk_result attach_texture(sb *b, int32_t mi, const char *name)
{
    size_t n = 0;
    char *vmt = read_vmt(b, name, &n);
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
                if (u1) vmt = read_vmt(b, slash + 1, &n);
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

static void vcopy(float *d, const float *s) { d[0] = s[0], d[1] = s[1], d[2] = s[2]; }
static float dot3(const float *a, const float *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static void cross3(const float *a, const float *b, float *o)
{
    o[0] = a[1] * b[2] - a[2] * b[1];
    o[1] = a[2] * b[0] - a[0] * b[2];
    o[2] = a[0] * b[1] - a[1] * b[0];
}

static const float *face_vertex(const bk_source_map *p, const bk_source_face *f, int32_t k)
{
    int32_t se = p->surfedges[f->firstedge + k];
    uint32_t v = se >= 0 ? p->edges[(uint32_t)se * 2] : p->edges[(uint32_t)(-(int64_t)se) * 2 + 1];
    return &p->vertices[(size_t)v * 3];
}

/* ColorRGBExp32 -> 8-bit: linear = c * 2^exp / 255, then a 1/2.2 gamma curve, clamped */
static uint8_t tonemap(uint8_t c, int8_t e)
{
    double lin = ldexp((double)c, e) / 255.0;
    if (!(lin > 0)) return 0;
    double g = pow(lin, 1.0 / 2.2);
    return (uint8_t)(g >= 1.0 ? 255 : g * 255.0 + 0.5);
}

/* tonemap() for every colour byte of one exponent, made the first time the exponent is met (a map
 * uses a few dozen of the 256: a row of 256 pow() calls each instead of one per channel of every
 * luxel) */
typedef struct tone_rows {
    uint8_t v[256][256];   /* [exponent byte][colour byte] */
    uint8_t made[256];
} tone_rows;

static const uint8_t *tone_row(tone_rows *t, uint8_t e)
{
    if (!t->made[e]) {
        for (int c = 0; c < 256; c++) t->v[e][c] = tonemap((uint8_t)c, (int8_t)e);
        t->made[e] = 1;
    }
    return t->v[e];
}

/* Draws face rectangle id straight into the atlas image: the lighting lump's RGBE luxels through
 * the tone curve. */
typedef struct lm_fill {
    const sb *b;
    uint32_t *face_of;         /* per atlas id */
    tone_rows *tone;
} lm_fill;

static void fill_face(void *user, uint32_t id, uint8_t *dst, size_t stride)
{
    const lm_fill *lf = user;
    const bk_source_face *f = &lf->b->faces[lf->face_of[id]];
    uint32_t w = (uint32_t)f->lm_size[0] + 1, h = (uint32_t)f->lm_size[1] + 1;
    const uint8_t *src = lf->b->light->data + f->lightofs;
    for (uint32_t y = 0; y < h; y++, dst += stride, src += (size_t)w * 4) {
        for (uint32_t x = 0; x < w; x++) {
            const uint8_t *row = tone_row(lf->tone, src[x * 4 + 3]);
            for (int c = 0; c < 3; c++) dst[x * 4 + c] = row[src[x * 4 + c]];
            dst[x * 4 + 3] = 255;
        }
    }
}

static bk_result build_lightmaps(sb *b)
{
    const bk_source_map *p = b->p;
    if ((b->opt->flags & BK_OPT_NO_LIGHTMAPS) || !b->light || !b->light->size || !p->face_count) return BK_OK;
    b->face_rect = bk_calloc(p->face_count, sizeof *b->face_rect);
    b->atlas = bk_atlas_new(bk_limits_of(b->opt).max_atlas_size, 1);
    if (!b->face_rect || !b->atlas) return BK_ENOMEM;
    uint64_t luxels = 0;
    lm_fill lf = {b, bk_malloc((size_t)p->face_count * sizeof(uint32_t)), bk_calloc(1, sizeof(tone_rows))};
    bk_result r = lf.face_of && lf.tone ? BK_OK : BK_ENOMEM;
    bk_atlas_set_fill(b->atlas, fill_face, &lf);
    for (uint32_t i = 0; i < p->face_count && r == BK_OK; i++) {
        const bk_source_face *f = &b->faces[i];
        if (!face_drawn(p, &p->faces[i]) || texinfo_sky(p, p->faces[i].texinfo) || f->lightofs < 0 || f->styles[0] == 255)
            continue;
        if (f->lm_size[0] < 0 || f->lm_size[1] < 0 || f->lm_size[0] > 1024 || f->lm_size[1] > 1024) continue;
        uint32_t w = (uint32_t)f->lm_size[0] + 1, h = (uint32_t)f->lm_size[1] + 1;
        size_t n = (size_t)w * h;
        if (!bk_range_ok((uint64_t)f->lightofs, (uint64_t)n * 4, b->light->size)) continue;
        luxels += n;
        if (luxels > SRC_MAX_LUXELS) {
            /* more lighting than any real map has: keep the geometry, drop the lightmaps */
            bk_scene_diag(b->s, b->opt, BK_SEV_WARNING, BK_ELIMIT, NULL, "faces", (int64_t)i, BK_NO_OFFSET,
                          "more than %llu luxels: converted unlit", (unsigned long long)SRC_MAX_LUXELS);
            bk_free(lf.face_of);
            bk_free(lf.tone);
            memset(b->face_rect, 0, p->face_count * sizeof *b->face_rect);
            return BK_OK;
        }
        uint32_t id;
        r = bk_atlas_add(b->atlas, w, h, NULL, &id);
        if (r != BK_OK) break;
        lf.face_of[id] = i;
        b->face_rect[i] = id + 1;
    }
    if (r == BK_OK && bk_atlas_count(b->atlas) != 0) {
        if (bk_atlas_pack(b->atlas) != BK_OK) {
            /* too much lighting for one atlas: keep the geometry, drop the lightmaps */
            bk_scene_diag(b->s, b->opt, BK_SEV_WARNING, BK_ELIMIT, NULL, "lighting", BK_NO_INDEX, BK_NO_OFFSET,
                          "the lightmaps do not fit one atlas (limits.max_atlas_size): converted unlit");
            memset(b->face_rect, 0, p->face_count * sizeof *b->face_rect);
        } else {
            /* lighting decoded from LZMA, or four bytes a luxel: streamed */
            r = bk_atlas_to_scene_image(b->atlas, b->s, "lightmap", b->opt, b->file_size / 2, &b->lm_image);
            if (r == BK_OK) bk_atlas_size(b->atlas, &b->atlas_w, &b->atlas_h);
        }
    }
    bk_free(lf.face_of);
    bk_free(lf.tone);
    return r;
}

static bk_result material_for(sb *b, int32_t texinfo, int32_t *out)
{
    const bk_source_map *p = b->p;
    int32_t td = p->texinfo[texinfo].texdata;
    uint32_t slot = td >= 0 ? (uint32_t)td : p->texdata_count;
    if (b->tex_mat[slot] >= 0) {
        *out = b->tex_mat[slot];
        return BK_OK;
    }
    const char *name = td >= 0 && p->texdata[td].name[0] ? p->texdata[td].name : "unnamed";
    int32_t mi;
    BK_TRY(bk_scene_add_material(b->s, name, &mi));
    bk_material *m = &b->s->materials[mi];
    if (texinfo_sky(p, texinfo)) {
        /* the sky: unlit, no lightmap, no texture of its own (the skybox is drawn there); the
         * colour is the sky tool texture's reflectivity, the sky named in extras */
        m->unlit = 1;
        m->lightmap_image = -1;
        for (int k = 0; k < 3; k++) {
            float r = td >= 0 ? p->texdata[td].reflectivity[k] : 0.5f;
            m->base_color[k] = r > 0 && r <= 1 ? r : (r > 1 ? 1.0f : 0.5f);
        }
        BK_TRY(bk_kv_append(&m->extras, &m->extra_count, "sky", "faces"));
        BK_TRY(bk_kv_append(&m->extras, &m->extra_count, "skyname", b->skyname ? b->skyname : ""));
        b->tex_mat[slot] = mi;
        *out = mi;
        return BK_OK;
    }
    if (td >= 0)
        for (int k = 0; k < 3; k++) {
            float r = p->texdata[td].reflectivity[k];
            m->base_color[k] = r > 0 && r <= 1 ? r : (r > 1 ? 1.0f : 0.5f);
        }
    else
        m->base_color[0] = m->base_color[1] = m->base_color[2] = 0.5f;
    m->lightmap_image = b->lm_image;
    char vmt[512];
    size_t o = 0;
    o += (size_t)snprintf(vmt, sizeof vmt, "materials/");
    for (const char *c = name; *c && o + 5 < sizeof vmt; c++) {
        char ch = *c == '\\' ? '/' : *c;
        vmt[o++] = (char)(ch >= 'A' && ch <= 'Z' ? ch + 32 : ch);
    }
    snprintf(vmt + o, sizeof vmt - o, ".vmt");
    BK_TRY(bk_kv_append(&m->extras, &m->extra_count, "vmt", vmt));
    if (td >= 0) {
        char sz[48];
        snprintf(sz, sizeof sz, "%dx%d", p->texdata[td].width, p->texdata[td].height);
        BK_TRY(bk_kv_append(&m->extras, &m->extra_count, "texture_size", sz));
    }
    if (p->texinfo[texinfo].flags & BK_SRC_SURF_TRANS)
        BK_TRY(bk_kv_append(&m->extras, &m->extra_count, "translucent", "1"));
    if (!(b->opt->flags & BK_OPT_NO_TEXTURES) && td >= 0) {
        BK_TRY(attach_texture(b, mi, name));
        m = &b->s->materials[mi];   /* images may have grown the scene's arrays */
        if (m->base_image < 0 && (b->pak || b->mount_count || b->opt->search_path_count))
            BK_TRY(bk_kv_append(&m->extras, &m->extra_count, "missing", "true"));
    }
    b->tex_mat[slot] = mi;
    *out = mi;
    return BK_OK;
}

static void tex_uv(const sb *b, const bk_source_texinfo *ti, const float *pos, float *uv)
{
    float w = 1, h = 1;
    if (ti->texdata >= 0) {
        const bk_source_texdata *t = &b->p->texdata[ti->texdata];
        if (t->width > 0) w = (float)t->width;
        if (t->height > 0) h = (float)t->height;
    }
    uv[0] = (dot3(pos, ti->tex_vecs[0]) + ti->tex_vecs[0][3]) / w;
    uv[1] = (dot3(pos, ti->tex_vecs[1]) + ti->tex_vecs[1][3]) / h;
}

static void lm_uv(const sb *b, uint32_t face, const float *pos, float *uv)
{
    const bk_source_face *f = &b->faces[face];
    const bk_source_texinfo *ti = &b->p->texinfo[b->p->faces[face].texinfo];
    uint32_t x, y;
    bk_atlas_rect(b->atlas, b->face_rect[face] - 1, &x, &y);
    float ls = dot3(pos, ti->lm_vecs[0]) + ti->lm_vecs[0][3] - (float)f->lm_mins[0];
    float lt = dot3(pos, ti->lm_vecs[1]) + ti->lm_vecs[1][3] - (float)f->lm_mins[1];
    /* samples sit on luxel centres: half a texel in */
    uv[0] = ((float)x + ls + 0.5f) / (float)b->atlas_w;
    uv[1] = ((float)y + lt + 0.5f) / (float)b->atlas_h;
}

/* Displacement lightmaps are laid out in the grid's parameter space, not by the planar
 * lightmap vectors: s runs along the grid's columns (corner 0 -> 3), t along its rows (0 -> 1). */
static void lm_uv_param(const sb *b, uint32_t face, float u, float v, float *uv)
{
    const bk_source_face *f = &b->faces[face];
    uint32_t x, y;
    bk_atlas_rect(b->atlas, b->face_rect[face] - 1, &x, &y);
    uv[0] = ((float)x + u * (float)f->lm_size[0] + 0.5f) / (float)b->atlas_w;
    uv[1] = ((float)y + v * (float)f->lm_size[1] + 0.5f) / (float)b->atlas_h;
}

static bk_result emit_face(sb *b, bk_primitive *pr, uint32_t fi)
{
    const bk_source_map *p = b->p;
    const bk_source_face *f = &p->faces[fi];
    const bk_source_texinfo *ti = &p->texinfo[f->texinfo];
    const bk_source_plane *pl = &p->planes[f->planenum];
    float nrm[3];
    /* the face's own plane: vbsp stores the plane the face looks along (for side 1, the flipped
     * twin planenum ^ 1 of the node's plane), so side is not applied again; the empty space in
     * front of every face of the corpus maps is on its plane's positive side */
    vcopy(nrm, pl->normal);
    uint32_t n = (uint32_t)f->numedges, first;
    /* Newell normal of the polygon decides the winding (glTF front faces are counter-clockwise) */
    float nw[3] = {0, 0, 0};
    for (uint32_t k = 0; k < n; k++) {
        const float *a = face_vertex(p, f, (int32_t)k), *c = face_vertex(p, f, (int32_t)((k + 1) % n));
        nw[0] += (a[1] - c[1]) * (a[2] + c[2]);
        nw[1] += (a[2] - c[2]) * (a[0] + c[0]);
        nw[2] += (a[0] - c[0]) * (a[1] + c[1]);
    }
    bool flip = dot3(nw, nrm) < 0;
    BK_TRY(bk_prim_add_vertices(pr, n, &first));
    bool lm = b->face_rect && b->face_rect[fi];
    for (uint32_t k = 0; k < n; k++) {
        const float *v = face_vertex(p, f, (int32_t)k);
        uint32_t vi = first + k;
        vcopy(&pr->position[vi * 3], v);
        vcopy(&pr->normal[vi * 3], nrm);
        tex_uv(b, ti, v, &pr->uv0[vi * 2]);
        if (pr->uv1) {
            if (lm) lm_uv(b, fi, v, &pr->uv1[vi * 2]);
            else pr->uv1[vi * 2] = pr->uv1[vi * 2 + 1] = 0;
        }
    }
    for (uint32_t k = 1; k + 1 < n; k++) {
        if (flip) BK_TRY(bk_prim_add_triangle(pr, first, first + k + 1, first + k));
        else BK_TRY(bk_prim_add_triangle(pr, first, first + k, first + k + 1));
    }
    return BK_OK;
}

static bk_result emit_disp(sb *b, bk_primitive *pr, uint32_t fi)
{
    const bk_source_map *p = b->p;
    const bk_source_face *f = &p->faces[fi];
    const bk_source_dispinfo *di = &p->dispinfo[f->dispinfo];
    const bk_source_texinfo *ti = &p->texinfo[f->texinfo];
    /* corners, rotated so the first is the one nearest startPosition */
    float c[4][3];
    int best = 0;
    float bestd = INFINITY;
    for (int k = 0; k < 4; k++) {
        vcopy(c[k], face_vertex(p, f, k));
        float dx = c[k][0] - di->start[0], dy = c[k][1] - di->start[1], dz = c[k][2] - di->start[2];
        float d2 = dx * dx + dy * dy + dz * dz;
        if (d2 < bestd) bestd = d2, best = k;
    }
    float q[4][3];
    for (int k = 0; k < 4; k++) vcopy(q[k], c[(best + k) % 4]);
    uint32_t side = (1u << di->power) + 1, nv = side * side, first;
    BK_TRY(bk_prim_add_vertices(pr, nv, &first));
    bool lm = b->face_rect && b->face_rect[fi];
    float inv = 1.0f / (float)(side - 1);
    for (uint32_t y = 0; y < side; y++) {
        float t = (float)y * inv, l[3], r[3];
        for (int k = 0; k < 3; k++) {
            l[k] = q[0][k] + (q[1][k] - q[0][k]) * t;
            r[k] = q[3][k] + (q[2][k] - q[3][k]) * t;
        }
        for (uint32_t x = 0; x < side; x++) {
            float u = (float)x * inv, base[3];
            for (int k = 0; k < 3; k++) base[k] = l[k] + (r[k] - l[k]) * u;
            const bk_source_dispvert *dv = &p->dispverts[(uint32_t)di->vert_start + y * side + x];
            uint32_t vi = first + y * side + x;
            for (int k = 0; k < 3; k++) pr->position[vi * 3 + k] = base[k] + dv->vec[k] * dv->dist;
            tex_uv(b, ti, base, &pr->uv0[vi * 2]);
            if (pr->uv1) {
                if (lm) lm_uv_param(b, fi, u, t, &pr->uv1[vi * 2]);
                else pr->uv1[vi * 2] = pr->uv1[vi * 2 + 1] = 0;
            }
            float a = dv->alpha; /* 0-255, rounded; RGB is white already; NaN: opaque */
            pr->color[vi * 4 + 3] = (uint8_t)(isnan(a) ? 255 : a > 0 ? (a < 255 ? a + 0.5f : 255) : 0);
        }
    }
    /* the winding that faces the base face's plane normal */
    float nrm[3], e1[3], e2[3], cn[3];
    vcopy(nrm, p->planes[f->planenum].normal); /* the face's own plane, as in emit_face */
    for (int k = 0; k < 3; k++) e1[k] = q[1][k] - q[0][k], e2[k] = q[3][k] - q[0][k];
    cross3(e1, e2, cn); /* the normal of grid order (y, x) -> triangle (i0, i2, i1) sense */
    bool flip = dot3(cn, nrm) > 0;
    for (uint32_t y = 0; y + 1 < side; y++)
        for (uint32_t x = 0; x + 1 < side; x++) {
            uint32_t i0 = first + y * side + x, i1 = i0 + 1, i2 = i0 + side, i3 = i2 + 1;
            uint32_t t[6];
            if (((x + y) & 1) == 0) {
                uint32_t tt[6] = {i0, i1, i3, i0, i3, i2};
                memcpy(t, tt, sizeof t);
            } else {
                uint32_t tt[6] = {i0, i1, i2, i1, i3, i2};
                memcpy(t, tt, sizeof t);
            }
            for (int k = 0; k < 6; k += 3) {
                if (flip) BK_TRY(bk_prim_add_triangle(pr, t[k], t[k + 2], t[k + 1]));
                else BK_TRY(bk_prim_add_triangle(pr, t[k], t[k + 1], t[k + 2]));
            }
        }
    /* smooth normals from the displaced triangles */
    for (uint32_t k = pr->index_count - (side - 1) * (side - 1) * 6; k + 2 < pr->index_count + 0; k += 3) {
        uint32_t a = pr->indices[k], bb = pr->indices[k + 1], cc = pr->indices[k + 2];
        float u[3], v[3], n[3];
        for (int j = 0; j < 3; j++) {
            u[j] = pr->position[bb * 3 + j] - pr->position[a * 3 + j];
            v[j] = pr->position[cc * 3 + j] - pr->position[a * 3 + j];
        }
        cross3(u, v, n);
        for (int j = 0; j < 3; j++) {
            pr->normal[a * 3 + j] += n[j];
            pr->normal[bb * 3 + j] += n[j];
            pr->normal[cc * 3 + j] += n[j];
        }
    }
    for (uint32_t k = 0; k < nv; k++) {
        float *n = &pr->normal[(first + k) * 3];
        float len = sqrtf(dot3(n, n));
        if (len > 0) n[0] /= len, n[1] /= len, n[2] /= len;
        else vcopy(n, nrm);
    }
    return BK_OK;
}

static bk_result build_model(sb *b, uint32_t mi, int32_t *out_mesh)
{
    const bk_source_map *p = b->p;
    const bk_source_model *md = &p->models[mi];
    *out_mesh = -1;
    uint32_t drawn = 0;
    for (int32_t k = 0; k < md->numfaces; k++) drawn += face_drawn(p, &p->faces[md->firstface + k]);
    if (!drawn) return BK_OK;
    char name[32];
    snprintf(name, sizeof name, mi ? "model_%u" : "worldspawn", mi);
    int32_t mesh;
    BK_TRY(bk_scene_add_mesh(b->s, name, &mesh));
    uint32_t nslots = b->s->material_count + p->texdata_count + 1;
    int32_t *prim_of = bk_malloc((size_t)nslots * 2 * sizeof *prim_of);
    if (!prim_of) return BK_ENOMEM;
    for (uint32_t k = 0; k < nslots * 2; k++) prim_of[k] = -1;
    bool lmuv = b->lm_image >= 0;
    bk_result r = BK_OK;
    for (int32_t k = 0; k < md->numfaces && r == BK_OK; k++) {
        uint32_t fi = (uint32_t)(md->firstface + k);
        const bk_source_face *f = &p->faces[fi];
        if (!face_drawn(p, f)) continue;
        int32_t mat;
        r = material_for(b, f->texinfo, &mat);
        if (r != BK_OK) break;
        bool disp = f->dispinfo >= 0;
        uint32_t slot = (uint32_t)mat * 2 + disp;
        if (slot >= nslots * 2) {
            r = BK_EARG;
            break;
        }
        bk_mesh *m = &b->s->meshes[mesh];
        if (prim_of[slot] < 0) {
            uint32_t attrs = BK_ATTR_NORMAL | BK_ATTR_UV0 | (lmuv ? BK_ATTR_UV1 : 0) | (disp ? BK_ATTR_COLOR : 0);
            bk_primitive *pr;
            r = bk_mesh_add_primitive(m, mat, BK_PRIM_TRIANGLES, attrs, &pr);
            if (r != BK_OK) break;
            prim_of[slot] = (int32_t)(m->prim_count - 1);
        }
        bk_primitive *pr = &m->prims[prim_of[slot]];
        uint64_t nv = disp ? (uint64_t)((1u << p->dispinfo[f->dispinfo].power) + 1) * ((1u << p->dispinfo[f->dispinfo].power) + 1)
                           : (uint64_t)f->numedges;
        if (nv > b->vertex_budget) {
            r = BK_ELIMIT;
            break;
        }
        b->vertex_budget -= nv;
        r = disp ? emit_disp(b, pr, fi) : emit_face(b, pr, fi);
    }
    bk_free(prim_of);
    if (r == BK_OK) *out_mesh = mesh;
    return r;
}

/* ---- static props: their models' meshes, one per model and skin, shared by every prop ----- */
typedef struct prop_cache {
    bk_mdl **mdl;          /* per model-dictionary entry: the decoded model, or NULL */
    uint8_t *tried;
    struct { uint32_t model; int32_t skin, mesh; } *meshes;
    uint32_t mesh_count, mesh_cap;
    bk_mdl_matcache mats;
} prop_cache;

static bool lk_read(void *u, const char *path, uint8_t **d, size_t *n) { return read_asset(u, path, d, n); }

static bool lk_has_material(void *u, const char *name)
{
    size_t n;
    char *v = read_vmt(u, name, &n);
    bk_free(v);
    return v != NULL;
}

static bk_result lk_attach(void *u, bk_scene *s, int32_t mi, const char *name)
{
    sb *b = u;
    b->s = s;
    return attach_texture(b, mi, name);
}

static void make_lookup(sb *b, bk_src_lookup *lk)
{
    lk->user = b;
    lk->read = lk_read;
    bool tex = !(b->opt->flags & BK_OPT_NO_TEXTURES);
    lk->has_material = tex ? lk_has_material : NULL;
    lk->attach_material = tex ? lk_attach : NULL;
}

static void prop_warn(const sb *b, bk_result code, const char *model, const char *what)
{
    bk_scene_diag(b->s, b->opt, BK_SEV_WARNING, code, NULL, "sprp", BK_NO_INDEX, BK_NO_OFFSET,
                  "static prop model %s: %s; the prop stays a placement node", model, what);
}

/* The model at path, decoded from its MDL, VVD and VTX where the engine finds them; NULL when a
 * part is missing or does not decode (a warning each: a prop without its mesh is not dropped
 * silently; validate --assets lists the same). */
static bk_mdl *load_prop_model(sb *b, const char *path)
{
    size_t pl = strlen(path);
    if (pl < 5 || pl > 900 || bk_strcasecmp(path + pl - 4, ".mdl") != 0) return NULL;
    char part[1024];
    uint8_t *md = NULL, *vd = NULL, *xd = NULL;
    size_t mn = 0, vn = 0, xn = 0;
    bk_mdl *m = NULL;
    const char *where = b->opt->search_path_count ? "the map's pakfile and the search paths" : "the map's pakfile";
    char why[1200];
    if (!read_asset(b, path, &md, &mn)) {
        snprintf(why, sizeof why, "not found in %s", where);
        prop_warn(b, BK_ENOTFOUND, path, why);
        return NULL;
    }
    snprintf(part, sizeof part, "%.*s.vvd", (int)(pl - 4), path);
    bool ok = read_asset(b, part, &vd, &vn);
    for (size_t k = 0; ok && k < BK_ARRAY_LEN(bk_mdl_vtx_suffixes) && !xd; k++) {
        snprintf(part, sizeof part, "%.*s%s", (int)(pl - 4), path, bk_mdl_vtx_suffixes[k]);
        if (!read_asset(b, part, &xd, &xn)) xd = NULL;
    }
    if (!ok || !xd) {
        snprintf(why, sizeof why, "%s not found in %s", ok ? "its .vtx" : part, where);
        prop_warn(b, BK_ENOTFOUND, path, why);
    }
    if (ok && xd) {
        bk_options o = *b->opt;
        o.diag = NULL;
        bk_result r = bk_mdl_decode(md, mn, vd, vn, xd, xn, &o, &m);
        if (r != BK_OK) {
            snprintf(why, sizeof why, "does not decode (%s)", bk_strerror(r));
            prop_warn(b, r, path, why);
            m = NULL;
        }
    }
    bk_free(md);
    bk_free(vd);
    bk_free(xd);
    return m;
}

/* the mesh of dictionary model k with skin family skin (-1: none) */
static bk_result prop_mesh(sb *b, prop_cache *c, uint32_t k, int32_t skin, int32_t *out)
{
    const bk_source_map *p = b->p;
    *out = -1;
    if (k >= p->static_prop_name_count) return BK_OK;
    if (!c->tried[k]) {
        c->tried[k] = 1;
        c->mdl[k] = load_prop_model(b, p->static_prop_names[k]);
    }
    const bk_mdl *m = c->mdl[k];
    if (!m) return BK_OK;
    if (skin < 0 || (uint32_t)skin >= m->skin_family_count) skin = 0;
    for (uint32_t i = 0; i < c->mesh_count; i++)
        if (c->meshes[i].model == k && c->meshes[i].skin == skin) {
            *out = c->meshes[i].mesh;
            return BK_OK;
        }
    bk_src_lookup lk;
    make_lookup(b, &lk);
    int32_t mesh;
    bk_result r = bk_mdl_add_mesh(m, skin, false, &lk, &c->mats, p->static_prop_names[k], &b->vertex_budget, b->s, &mesh);
    if (r == BK_ELIMIT) {
        prop_warn(b, r, p->static_prop_names[k], "over the scene's vertex budget");
        mesh = -1;
    } else if (r != BK_OK) {
        return r;
    }
    BK_TRY(bk_grow((void **)&c->meshes, &c->mesh_cap, c->mesh_count + 1, sizeof *c->meshes));
    c->meshes[c->mesh_count].model = k;
    c->meshes[c->mesh_count].skin = skin;
    c->meshes[c->mesh_count++].mesh = mesh;
    *out = mesh;
    return BK_OK;
}

static bk_result add_prop_nodes(sb *b)
{
    const bk_source_map *p = b->p;
    char v[160];
    prop_cache c;
    memset(&c, 0, sizeof c);
    c.mdl = bk_calloc((size_t)p->static_prop_name_count + 1, sizeof *c.mdl);
    c.tried = bk_calloc((size_t)p->static_prop_name_count + 1, 1);
    bk_result r = c.mdl && c.tried ? BK_OK : BK_ENOMEM;
    for (uint32_t i = 0; i < p->static_prop_count && r == BK_OK; i++) {
        const bk_source_static_prop *sp = &p->static_props[i];
        const char *model = sp->model < p->static_prop_name_count ? p->static_prop_names[sp->model] : "";
        const char *base = strrchr(model, '/');
        int32_t node, mesh = -1;
        if ((r = prop_mesh(b, &c, sp->model, sp->skin, &mesh)) != BK_OK) break;
        if ((r = bk_scene_add_node(b->s, base ? base + 1 : model, -1, mesh, &node)) != BK_OK) break;
        bk_node *n = &b->s->nodes[node];
        vcopy(n->translation, sp->origin);
        bk_angles_quat(sp->angles, n->rotation);
        if (p->sprp_fields & BK_SPROP_SCALE && sp->scale > 0) n->scale[0] = n->scale[1] = n->scale[2] = sp->scale;
        if (r == BK_OK) r = bk_kv_append(&n->extras, &n->extra_count, "classname", "prop_static");
        if (r == BK_OK) r = bk_kv_append(&n->extras, &n->extra_count, "model", model);
        {
            char a0[32], a1[32], a2[32];
            bk_fmt_num(a0, sizeof a0, sp->angles[0], 6);
            bk_fmt_num(a1, sizeof a1, sp->angles[1], 6);
            bk_fmt_num(a2, sizeof a2, sp->angles[2], 6);
            snprintf(v, sizeof v, "%s %s %s", a0, a1, a2);
        }
        if (r == BK_OK) r = bk_kv_append(&n->extras, &n->extra_count, "angles", v);
        snprintf(v, sizeof v, "%d", sp->skin);
        if (r == BK_OK) r = bk_kv_append(&n->extras, &n->extra_count, "skin", v);
        snprintf(v, sizeof v, "%u", sp->solid);
        if (r == BK_OK) r = bk_kv_append(&n->extras, &n->extra_count, "solid", v);
        bk_fmt_num(v, sizeof v, sp->fade_min, 6);
        if (r == BK_OK) r = bk_kv_append(&n->extras, &n->extra_count, "fademindist", v);
        bk_fmt_num(v, sizeof v, sp->fade_max, 6);
        if (r == BK_OK) r = bk_kv_append(&n->extras, &n->extra_count, "fademaxdist", v);
    }
    for (uint32_t k = 0; c.mdl && k < p->static_prop_name_count; k++) bk_mdl_free(c.mdl[k]);
    bk_free(c.mdl);
    bk_free(c.tried);
    bk_free(c.meshes);
    bk_mdl_matcache_free(&c.mats);
    return r;
}

bk_result bk_vbsp_build_scene(const bk_file *f, const bk_options *opt, bk_scene *s)
{
    const vbsp_impl *m = f->impl;
    const bk_source_map *p = &m->pub;
    sb b;
    memset(&b, 0, sizeof b);
    b.p = p, b.opt = opt, b.s = s, b.faces = p->faces, b.lm_image = -1, b.file_size = f->size;
    /* about 64 bytes of attributes per vertex: keep the whole scene within the allocation limit */
    bk_limits lim = bk_limits_of(opt);
    b.vertex_budget = lim.max_scene_vertices;
    const bk_source_lump *ldr = &p->lumps[BK_SRC_LUMP_LIGHTING], *hdr = &p->lumps[BK_SRC_LUMP_LIGHTING_HDR];
    /* compressed lighting is decoded now, and HDR only when there is no LDR (a lump that fails to
     * decode becomes empty: the map converts unlit) */
    /* the loader's decoded lumps are in the map's arrays already: a caller that frees the file after
     * this scene lets them go now, before the lighting and the atlas are made */
    if (opt->flags & BK_OPT_RELEASE_INPUT) bk_vbsp_forget_decoded(f);
    bool lazy_ldr = bk_vbsp_lump_pending(f, BK_SRC_LUMP_LIGHTING), lazy_hdr = bk_vbsp_lump_pending(f, BK_SRC_LUMP_LIGHTING_HDR);
    if (!(opt->flags & BK_OPT_NO_LIGHTMAPS)) {
        bk_result lr = bk_vbsp_lump_decode(f, BK_SRC_LUMP_LIGHTING, NULL);
        if (lr == BK_OK && !ldr->size) lr = bk_vbsp_lump_decode(f, BK_SRC_LUMP_LIGHTING_HDR, NULL);
        if (lr == BK_ENOMEM) return BK_ENOMEM;
        if (lr != BK_OK)
            bk_scene_diag(s, opt, BK_SEV_WARNING, lr, NULL, ldr->size ? "lighting" : "lighting_hdr", BK_NO_INDEX,
                          ldr->size ? ldr->offset : hdr->offset, "the lighting lump cannot be decoded (%s): converted unlit",
                          bk_strerror(lr));
    }
    if (ldr->size && ldr->data) {
        b.light = ldr;
    } else if (hdr->size && hdr->data) {
        b.light = hdr;
        if (p->hdr_face_count == p->face_count && p->hdr_face_count) b.faces = p->hdr_faces;
    }
    bk_result r = BK_ENOMEM;
    b.tex_mat = bk_malloc(((size_t)p->texdata_count + 1) * sizeof *b.tex_mat);
    int32_t *model_mesh = bk_malloc(((size_t)p->model_count + 1) * sizeof *model_mesh);
    if (!b.tex_mat || !model_mesh) goto done;
    for (uint32_t i = 0; i <= p->texdata_count; i++) b.tex_mat[i] = -1;
    b.texture_budget = lim.max_decoded_bytes / 2; /* the other half: the map's own lumps */
    /* materials and prop models are found in the pakfile, then the --game-dir VPKs and folders */
    if (!(opt->flags & BK_OPT_NO_TEXTURES) || !(opt->flags & BK_OPT_NO_PROPS)) {
        if (bk_archive_open_pakfile(f, opt, &b.pak) != BK_OK) b.pak = NULL;
        open_mounts(&b);
    }
    /* the sky the map asks for: named by the sky faces' material and in the scene's extras */
    const bk_entities *ents = bk_file_entities(f);
    const char *sky = ents->count ? bk_entity_get(&ents->items[0], "skyname") : NULL;
    b.skyname = sky;
    r = build_lightmaps(&b);
    /* the lighting is in the atlas now: a lump decoded for it alone is given back */
    if (lazy_ldr) bk_vbsp_lump_forget(f, BK_SRC_LUMP_LIGHTING);
    if (lazy_hdr) bk_vbsp_lump_forget(f, BK_SRC_LUMP_LIGHTING_HDR);
    b.light = NULL;
    if (r != BK_OK) goto done;
    for (uint32_t i = 0; i < p->model_count && r == BK_OK; i++) r = build_model(&b, i, &model_mesh[i]);
    if (r == BK_OK) {
        bk_entity_layout lay = {model_mesh, p->model_count, BK_ENT_ROTATE_BRUSH, NULL, NULL};
        r = bk_scene_add_entity_nodes(s, &f->entities, opt, &lay);
    }
    if (r == BK_OK && sky && *sky) r = bk_kv_append(&s->extras, &s->extra_count, "skyname", sky);
    if (r == BK_OK && !(opt->flags & BK_OPT_NO_PROPS)) r = add_prop_nodes(&b);
done:
    bk_free(b.tex_mat);
    bk_free(model_mesh);
    bk_free(b.face_rect);
    bk_atlas_free(b.atlas);
    bk_archive_close(b.pak);
    close_mounts(&b);
    return r;
}

/* Every VTF of the pakfile as an image named by its path without ".vtf" (cube maps: the faces one
 * under the other). One that does not decode keeps its name with no pixels (and a warning). */
bk_result bk_vbsp_extract_images(const bk_file *f, const bk_options *opt, bk_scene *out)
{
    bk_archive *pak = NULL;
    bk_result r = bk_archive_open_pakfile(f, opt, &pak);
    if (r == BK_ENOTFOUND) return BK_OK;
    if (r != BK_OK) return r;
    uint64_t budget = bk_limits_of(opt).max_decoded_bytes / 2;
    uint32_t n = bk_archive_count(pak);
    for (uint32_t i = 0; i < n && r == BK_OK; i++) {
        const bk_archive_entry *e = bk_archive_entry_at(pak, i);
        size_t nl = strlen(e->name);
        if (e->is_dir || nl < 5 || bk_strcasecmp(e->name + nl - 4, ".vtf") != 0) continue;
        char name[1024];
        snprintf(name, sizeof name, "%.*s", (int)(nl - 4), e->name);
        uint8_t *d = NULL, *rgba = NULL;
        size_t dn = 0;
        bk_vtf v;
        bk_options o = *opt;
        o.diag = NULL;
        bool ok = bk_archive_read(pak, i, UINT64_MAX, &d, &dn) == BK_OK && bk_vtf_parse(d, dn, &o, &v) == BK_OK;
        uint64_t px = ok ? (uint64_t)v.width * v.height * v.faces : 0;
        if (ok && px * 4 <= budget && (rgba = bk_malloc((size_t)px * 4)) != NULL) {
            for (uint32_t k = 0; k < v.faces && ok; k++)
                ok = bk_vtf_decode(d, dn, &v, k, rgba + (size_t)k * v.width * v.height * 4) == BK_OK;
        } else {
            ok = false;
        }
        bk_free(d);
        int32_t idx;
        if (ok) {
            budget -= px * 4;
            r = bk_scene_add_image(out, name, v.width, v.height * v.faces, rgba, &idx);
            if (r != BK_OK) bk_free(rgba);
        } else {
            bk_free(rgba);
            bk_scene_diag(out, opt, BK_SEV_WARNING, BK_EFORMAT, e->name, "pakfile", i, BK_NO_OFFSET,
                          "texture cannot be decoded (or is over the decoding budget): kept by name only");
            r = bk_scene_add_image(out, name, 0, 0, NULL, &idx);
        }
    }
    bk_archive_close(pak);
    return r;
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
    open_mounts(&a->b);
    *out = a;
    return BK_OK;
}

/* true when path (e.g. "materials/x/y.vmt") is found where the engine looks. With a VMT,
 * *basetexture (cap bytes) receives its $basetexture ("" if none). */
bool bk_source_assets_find(bk_source_assets *a, const char *path, char *basetexture, size_t cap)
{
    if (!a || !path) return 0;
    uint8_t *d;
    size_t n;
    if (basetexture && cap) basetexture[0] = 0;
    size_t pl = strlen(path);
    if (pl > 4 && bk_strcasecmp(path + pl - 4, ".vmt") == 0 && basetexture) {
        /* through read_vmt, so that patch materials resolve their include */
        char name[600];
        snprintf(name, sizeof name, "%.*s", (int)(pl > 14 ? pl - 14 : 0), path + 10);
        if (pl < 15 || bk_strncasecmp_prefix(path, "materials/") == 0) return 0;
        char *vmt = read_vmt(&a->b, name, &n);
        if (!vmt) return 0;
        bk_vmt_find(vmt, n, "$basetexture", basetexture, cap);
        bk_free(vmt);
        return 1;
    }
    if (!read_asset(&a->b, path, &d, &n)) return 0;
    bk_free(d);
    return 1;
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
    close_mounts(&a->b);
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
    open_mounts(&a->b);
    *out = a;
    return BK_OK;
}

/* The lookup functions of a (for mdl_scene.c), writing materials and images into s. */
void bk_source_assets_lookup(bk_source_assets *a, bk_scene *s, bk_src_lookup *lk)
{
    a->b.s = s;
    make_lookup(&a->b, lk);
}
