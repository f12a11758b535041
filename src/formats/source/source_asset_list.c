/* Every file a Source map needs and where the engine would find it (bk_source_assets_list,
 * behind `bspkit assets`): the materials of its faces, overlays, sprites and ropes with the
 * textures their VMTs name (a patch material's include too), the six faces of its 2D skybox,
 * its models (static props and entities') with their VVD, VTX and PHY and the materials of
 * every skin (tried in each of the model's material folders, as the engine does), and the sounds
 * its entities play. Each file is reported once. */
#include <stdio.h>

#include "bspkit/source.h"
#include "vbsp_internal.h"

#define MAX_REFS 65536   /* files reported; a map past this is reported cut short */

typedef struct lister {
    bk_source_assets *a;
    const bk_options *opt;
    bk_source_asset_fn fn;
    void *user;
    bk_strset seen;
    bool cut;
} lister;

/* A file name as the engine's file system takes it (V_FixupPathName in Valve's tier1): '\\' as '/',
 * runs of '/' as one, "./" dropped and "DIR/../" taken out, lower case when lower; a leading '/' is
 * dropped (names are relative to the game's folders). A ".." left at the front stays: the lookup
 * refuses it. */
static void fix_path(char *s, bool lower)
{
    char *o = s;
    for (const char *p = s; *p;) {
        if (*p == '/' || *p == '\\') {
            p++;
            continue;   /* a separator is written before the component that follows it */
        }
        const char *e = p;
        while (*e && *e != '/' && *e != '\\') e++;
        size_t n = (size_t)(e - p);
        if (n == 1 && p[0] == '.') {
            p = e;
            continue;
        }
        if (n == 2 && p[0] == '.' && p[1] == '.' && o > s) {
            /* back over the previous component, unless it is itself a ".." that could not go */
            char *prev = o;
            while (prev > s && prev[-1] != '/') prev--;
            if (!(o - prev == 2 && prev[0] == '.' && prev[1] == '.')) {
                o = prev > s ? prev - 1 : s;
                p = e;
                continue;
            }
        }
        if (o > s) *o++ = '/';
        for (; p < e; p++) *o++ = (char)(lower && *p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
    }
    *o = 0;
}

/* true the first time file is seen (names compared as the engine does: no case, either slash) */
static bool first_time(lister *l, const char *file)
{
    bool added;
    if (bk_strset_add(&l->seen, file, &added) != BK_OK || (added && l->seen.count > MAX_REFS)) {
        l->cut = true;
        return false;
    }
    return added;
}

/* report file; its bytes in *data when wanted and found (bk_free them), at most max bytes (0: the
 * file limit): a file that is there but over max or unreadable is found, with a warning, and no
 * bytes (false) */
static bool report_max(lister *l, const char *kind, const char *name, const char *file_in, bool optional,
                       uint64_t max, uint8_t **data, size_t *size)
{
    char file[1024];
    snprintf(file, sizeof file, "%s", file_in);
    fix_path(file, true);
    if (data) *data = NULL;
    if (!first_time(l, file)) return false;
    char where[1024];
    uint8_t *d = NULL;
    size_t n = 0;
    /* the bytes are read only when the caller looks inside (a VMT, an MDL); else only located */
    bk_result rr = bk_src_assets_read_max(l->a, file, max, data ? &d : NULL, data ? &n : NULL, where, sizeof where);
    bool found = rr == BK_OK || rr == BK_ELIMIT || rr == BK_EIO;
    bk_source_asset r = {kind, name, file, found ? where : "", found, optional};
    l->fn(l->user, &r);
    if (rr != BK_OK && found)
        bk_scene_diag(NULL, l->opt, BK_SEV_WARNING, rr, file, NULL, BK_NO_INDEX, BK_NO_OFFSET, "%s%s; not looked into",
                      rr == BK_ELIMIT ? "over the limit of " : "found but it does not read",
                      rr == BK_ELIMIT ? (max == BK_VMT_MAX_BYTES ? "1048576 bytes for a VMT" : "the file limit") : "");
    if (rr == BK_OK && data) {
        *data = d;
        *size = n;
    } else {
        bk_free(d);
    }
    return rr == BK_OK;
}

static bool report(lister *l, const char *kind, const char *name, const char *file_in, bool optional,
                   uint8_t **data, size_t *size)
{
    return report_max(l, kind, name, file_in, optional, 0, data, size);
}

static void texture_of(lister *l, const char *tex)
{
    if (!tex[0]) return;
    char file[1024];
    size_t tl = strlen(tex);
    snprintf(file, sizeof file, "materials/%s%s", tex, tl > 4 && bk_strcasecmp(tex + tl - 4, ".vtf") == 0 ? "" : ".vtf");
    report(l, "texture", tex, file, false, NULL, NULL);
}

/* a VMT's $envmap naming a cubemap texture by path: NAME.vtf for LDR, NAME.hdr.vtf for HDR (Valve's
 * vbsp writes a map's cubemaps as either or both); each that is found, or NAME.vtf as missing */
static void envmap_of(lister *l, const char *tex)
{
    char base[600];
    size_t tl = strlen(tex);
    if (tl > 8 && bk_strcasecmp(tex + tl - 8, ".hdr.vtf") == 0) tl -= 8;
    else if (tl > 4 && bk_strcasecmp(tex + tl - 4, ".vtf") == 0) tl -= 4;
    snprintf(base, sizeof base, "%.*s", (int)tl, tex);
    bool any = false;
    for (int hdr = 0; hdr < 2; hdr++) {
        char file[1024];
        snprintf(file, sizeof file, "materials/%s%s", base, hdr ? ".hdr.vtf" : ".vtf");
        fix_path(file, true);
        if (bk_source_assets_read(l->a, file, NULL, NULL, NULL, 0) == BK_OK) {
            report(l, "texture", tex, file, false, NULL, NULL);
            any = true;
        }
    }
    if (!any) texture_of(l, base);
}

/* material NAME (without materials/ and .vmt) and the textures its VMT names */
static void material(lister *l, const char *name_in, int depth)
{
    char name[512], file[1024];
    snprintf(name, sizeof name, "%s", name_in);
    fix_path(name, false);   /* the name as known, its file lower case (report) */
    /* a sprite's .spr names the material of its name (env_sun's "material", a sprite's model) */
    size_t nl = strlen(name);
    if (nl > 4 && (bk_strcasecmp(name + nl - 4, ".vmt") == 0 || bk_strcasecmp(name + nl - 4, ".spr") == 0))
        name[nl - 4] = 0;
    const char *n0 = bk_strncasecmp_prefix(name, "materials/") == 0 ? name : name + 10;
    if (!n0[0]) return;
    snprintf(file, sizeof file, "materials/%s.vmt", n0);
    uint8_t *d;
    size_t n;
    if (!report_max(l, "material", n0, file, false, BK_VMT_MAX_BYTES, &d, &n)) return;
    static const char *const keys[] = {"$basetexture", "$basetexture2", "$bumpmap", "$bumpmap2", "$normalmap",
                                       "$detail", "$envmapmask", "$blendmodulatetexture", "$selfillummask",
                                       "$phongexponenttexture", "$lightwarptexture", "$iris", "$ambientoccltexture"};
    char v[512];
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        if (bk_vmt_find((const char *)d, n, keys[k], v, sizeof v)) texture_of(l, v);
    /* $envmap "env_cubemap" is the nearest of the map's own cubemaps (built into its pakfile); any
     * other value names a cubemap texture by path */
    if (bk_vmt_find((const char *)d, n, "$envmap", v, sizeof v) && bk_strcasecmp(v, "env_cubemap") != 0)
        envmap_of(l, v);
    char shader[64];
    if (depth < 2 && bk_vmt_shader((const char *)d, n, shader, sizeof shader) && bk_strcasecmp(shader, "patch") == 0 &&
        bk_vmt_find((const char *)d, n, "include", v, sizeof v))
        material(l, v, depth + 1);
    bk_free(d);
}

/* model PATH (models/....mdl), its parts and the materials of its skins */
static void model(lister *l, const char *path)
{
    uint8_t *d;
    size_t n;
    size_t pl = strlen(path);
    if (pl < 5 || pl > 900 || bk_strcasecmp(path + pl - 4, ".mdl") != 0) return;
    if (!report(l, "model", path, path, false, &d, &n)) return;
    char part[1024];
    snprintf(part, sizeof part, "%.*s.vvd", (int)(pl - 4), path);
    report(l, "model", path, part, false, NULL, NULL);
    static const char *const vtx[] = {".dx90.vtx", ".vtx", ".dx80.vtx", ".sw.vtx"};
    bool have = false;
    for (size_t k = 0; k < 4 && !have; k++) {
        snprintf(part, sizeof part, "%.*s%s", (int)(pl - 4), path, vtx[k]);
        have = bk_source_assets_read(l->a, part, NULL, NULL, NULL, 0) == BK_OK;
    }
    if (!have) snprintf(part, sizeof part, "%.*s.dx90.vtx", (int)(pl - 4), path);
    report(l, "model", path, part, false, NULL, NULL);
    snprintf(part, sizeof part, "%.*s.phy", (int)(pl - 4), path);
    report(l, "model", path, part, true, NULL, NULL);   /* only models that collide have one */
    bk_options o = *l->opt;
    o.diag = NULL;
    bk_mdl *m = NULL;
    if (bk_mdl_decode(d, n, NULL, 0, NULL, 0, &o, &m) == BK_OK) {
        for (uint32_t t = 0; t < m->texture_count; t++) {
            /* the first of the model's material folders that holds it; else the first folder */
            char name[1024], first[1024] = "";
            bool found = false;
            for (uint32_t c = 0; c < m->cdmaterial_count && !found; c++) {
                snprintf(name, sizeof name, "materials/%s%s.vmt", m->cdmaterials[c], m->textures[t]);
                fix_path(name, true);
                if (!first[0]) memcpy(first, name, sizeof first);
                found = bk_source_assets_read(l->a, name, NULL, NULL, NULL, 0) == BK_OK;
            }
            if (found) material(l, name, 0);
            else if (first[0]) material(l, first, 0);
        }
        bk_mdl_free(m);
    }
    bk_free(d);
}

static bool ends_with(const char *s, const char *ext)
{
    size_t a = strlen(s), b = strlen(ext);
    return a > b && bk_strcasecmp(s + a - b, ext) == 0;
}

/* a whole number ("0", "-1"): not a file name */
static bool is_number(const char *v)
{
    if (*v == '-' || *v == '+') v++;
    if (!*v) return false;
    for (; *v; v++)
        if (*v < '0' || *v > '9') return false;
    return true;
}

static void entity(lister *l, const bk_entity *e)
{
    const char *cls = NULL;
    for (uint32_t i = 0; i < e->pair_count && !cls; i++)
        if (bk_strcasecmp(e->pairs[i].key, "classname") == 0) cls = e->pairs[i].value;
    for (uint32_t i = 0; i < e->pair_count; i++) {
        const char *k = e->pairs[i].key, *v = e->pairs[i].value;
        if (!v[0]) continue;
        if (bk_strcasecmp(k, "model") == 0 && ends_with(v, ".mdl")) {
            model(l, v);
        } else if (bk_strcasecmp(k, "model") == 0 && (ends_with(v, ".vmt") || ends_with(v, ".spr"))) {
            material(l, v, 0);   /* sprites are materials */
        } else if (bk_strcasecmp(k, "material") == 0 && is_number(v)) {
            /* a breakable's material type (func_breakable, func_physbox: 0 glass, 1 wood, ...) */
        } else if (bk_strcasecmp(k, "material") == 0 || bk_strcasecmp(k, "ropematerial") == 0 ||
                   bk_strcasecmp(k, "texture") == 0 || bk_strcasecmp(k, "overlaymaterial") == 0) {
            material(l, v, 0);
        } else if (bk_strcasecmp(k, "filename") == 0 && cls && bk_strncasecmp_prefix(cls, "color_correction") &&
                   ends_with(v, ".raw")) {
            /* a colour-correction lookup table, named from the game's root */
            report(l, "colorcorrection", v, v, false, NULL, NULL);
        } else if (bk_strcasecmp(k, "skyname") == 0) {
            static const char *const face[] = {"rt", "bk", "lf", "ft", "up", "dn"};
            for (int f = 0; f < 6; f++) {
                char m[512];
                snprintf(m, sizeof m, "skybox/%s%s", v, face[f]);
                material(l, m, 0);
            }
        } else if (ends_with(v, ".wav") || ends_with(v, ".mp3") || ends_with(v, ".ogg")) {
            /* sound characters in front (the engine's mixing hints: * # @ > < ^ ) } $ ! ?) */
            while (*v && strchr("*#@><^)}$!?", *v)) v++;
            char s[600];
            snprintf(s, sizeof s, "sound/%s", v);
            report(l, "sound", v, s, false, NULL, NULL);
        }
    }
}

bk_result bk_source_assets_list(bk_source_assets *a, const bk_file *f, const bk_options *opt, bk_source_asset_fn fn,
                                void *user)
{
    if (!a || !f || !fn) return BK_EARG;
    const bk_source_map *m = bk_source_map_of(f);
    if (!m) return BK_EARG;
    bk_options none;
    memset(&none, 0, sizeof none);
    lister l = {a, opt ? opt : &none, fn, user, {0}, false};
    for (uint32_t i = 0; i < m->texdata_count; i++) material(&l, m->texdata[i].name, 0);
    const bk_entities *ents = bk_file_entities(f);
    for (uint32_t i = 0; i < ents->count; i++) entity(&l, &ents->items[i]);
    for (uint32_t i = 0; i < m->static_prop_name_count; i++) model(&l, m->static_prop_names[i]);
    bk_strset_free(&l.seen);
    return l.cut ? BK_ELIMIT : BK_OK;
}
