/* props, pak and assets: the Source-map commands (static/detail props, the embedded pakfile, the
 * files a map needs and where they are found). */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bspkit/source.h"
#include "cli.h"

/* three floats of the file, a NaN or an infinity as its bits (cli_json_f32) */
static cJSON *vec3(const float *v)
{
    cJSON *a = cJSON_CreateArray();
    for (int k = 0; a && k < 3; k++) cJSON_AddItemToArray(a, cli_json_f32(v[k]));
    return a;
}

/* load FILE and make sure it is a Source map */
static int load_source(const cli_cmd *me, cli_opts *o, bk_file **f, void **owned, const bk_source_map **m)
{
    int rc = cli_load(o->positional[0], o, f, owned);
    if (rc) return rc;
    *m = bk_source_map_of(*f);
    if (!*m) {
        fprintf(stderr, "%s: not a Source map (this is a %s file); '%s' works on Source VBSP maps only\n",
                o->positional[0], bk_format_name(bk_file_format(*f)), me->name);
        bk_file_free(*f);
        bk_free(*owned);
        return EXIT_BAD_INPUT;
    }
    return EXIT_OK;
}

static const char *detail_type(uint8_t t)
{
    static const char *n[] = {"model", "sprite", "shape_cross", "shape_tri"};
    return t < 4 ? n[t] : "unknown";
}

/* the detail props one by one: type, model (a name) or sprite (an index and its rectangle),
 * origin, angles and the rest of DetailObjectLump_t */
static cJSON *detail_props_json(const bk_source_map *m)
{
    cJSON *arr = cJSON_CreateArray();
    for (uint32_t i = 0; m->detail_props && i < m->detail_prop_count; i++) {
        const bk_source_detail_prop *d = &m->detail_props[i];
        cJSON *p = cJSON_CreateObject();
        cJSON_AddStringToObject(p, "type", detail_type(d->type));
        if (d->type == BK_DETAIL_MODEL) {
            cJSON_AddStringToObject(p, "model", d->model < m->detail_model_count ? m->detail_model_names[d->model] : "");
            cJSON_AddNumberToObject(p, "model_index", d->model);
        } else {
            cJSON_AddNumberToObject(p, "sprite", d->model);
            if (d->model < m->detail_sprite_count) {
                const bk_source_detail_sprite *sp = &m->detail_sprites[d->model];
                cJSON *r = cJSON_AddObjectToObject(p, "sprite_rect");
                cJSON_AddItemToObject(r, "ul", cJSON_CreateFloatArray(sp->ul, 2));
                cJSON_AddItemToObject(r, "lr", cJSON_CreateFloatArray(sp->lr, 2));
                cJSON_AddItemToObject(r, "tex_ul", cJSON_CreateFloatArray(sp->tex_ul, 2));
                cJSON_AddItemToObject(r, "tex_lr", cJSON_CreateFloatArray(sp->tex_lr, 2));
            }
        }
        cJSON_AddItemToObject(p, "origin", vec3(d->origin));
        cJSON_AddItemToObject(p, "angles", vec3(d->angles));
        cJSON_AddNumberToObject(p, "leaf", d->leaf);
        cJSON_AddNumberToObject(p, "orientation", d->orientation);
        cJSON_AddNumberToObject(p, "sway_amount", d->sway_amount);
        cJSON_AddNumberToObject(p, "scale", d->scale);
        if (d->type >= BK_DETAIL_SHAPE_CROSS) {
            cJSON_AddNumberToObject(p, "shape_angle", d->shape_angle);
            cJSON_AddNumberToObject(p, "shape_size", d->shape_size);
        }
        int lit[4] = {d->lighting[0], d->lighting[1], d->lighting[2], (int8_t)d->lighting[3]};
        cJSON_AddItemToObject(p, "lighting", cJSON_CreateIntArray(lit, 4));
        cJSON_AddItemToArray(arr, p);
    }
    return arr;
}

/* the cubemap samples: origin, size, and the VTF the engine names after them; NULL: a bad lump */
static cJSON *cubemaps_json(const bk_file *f)
{
    bk_source_cubemap *c = NULL;
    uint32_t n = 0;
    if (bk_source_cubemaps(f, &c, &n) != BK_OK) return NULL;
    bk_archive *pak = NULL;
    if (bk_archive_open_pakfile(f, NULL, &pak) != BK_OK) pak = NULL;
    cJSON *arr = cJSON_CreateArray();
    for (uint32_t i = 0; i < n; i++) {
        cJSON *o = cJSON_CreateObject();
        int v[3] = {c[i].origin[0], c[i].origin[1], c[i].origin[2]};
        cJSON_AddItemToObject(o, "origin", cJSON_CreateIntArray(v, 3));
        cJSON_AddNumberToObject(o, "size", c[i].size);
        if (c[i].size) cJSON_AddNumberToObject(o, "texels", c[i].size <= 16 ? 1u << (c[i].size - 1) : 0);
        char name[64];
        int nl = snprintf(name, sizeof name, "/c%d_%d_%d.vtf", v[0], v[1], v[2]);
        cJSON_AddStringToObject(o, "vtf", name + 1);
        /* the pakfile's entry of that name (materials/maps/MAP/cX_Y_Z.vtf), or null */
        const char *found = NULL;
        for (uint32_t k = 0; pak && !found && k < bk_archive_count(pak); k++) {
            const char *en = bk_archive_entry_at(pak, k)->name;
            size_t el = strlen(en);
            if (el >= (size_t)nl && strcasecmp(en + el - (size_t)nl, name) == 0) found = en;
        }
        cJSON_AddItemToObject(o, "pakfile", found ? cJSON_CreateString(found) : cJSON_CreateNull());
        cJSON_AddItemToArray(arr, o);
    }
    bk_archive_close(pak);
    bk_free(c);
    return arr;
}

int cmd_props(int argc, char **argv)
{
    const cli_cmd *me = cli_find("props");
    cli_opts o;
    int rc = cli_begin(me, argc, argv, 1, 1, &o);
    if (rc != CLI_CONTINUE) return rc;
    bk_file *f;
    void *owned;
    const bk_source_map *m;
    rc = load_source(me, &o, &f, &owned, &m);
    if (rc) return rc;
    if (o.json) {
        cJSON *root = cJSON_CreateObject();
        cJSON_AddStringToObject(root, "file", o.positional[0]);
        if (m->sprp_version >= 0) {
            cJSON_AddNumberToObject(root, "sprp_version", m->sprp_version);
            cJSON_AddNumberToObject(root, "entry_size", m->sprp_entry_size);
        }
        cJSON *names = cJSON_AddArrayToObject(root, "models");
        for (uint32_t i = 0; i < m->static_prop_name_count; i++)
            cJSON_AddItemToArray(names, cJSON_CreateString(m->static_prop_names[i]));
        cJSON *arr = cJSON_AddArrayToObject(root, "static_props");
        uint32_t fl = m->sprp_fields;
        for (uint32_t i = 0; i < m->static_prop_count; i++) {
            const bk_source_static_prop *s = &m->static_props[i];
            cJSON *p = cJSON_CreateObject();
            cJSON_AddStringToObject(p, "model", s->model < m->static_prop_name_count ? m->static_prop_names[s->model] : "");
            cJSON_AddNumberToObject(p, "model_index", s->model);
            cJSON_AddItemToObject(p, "origin", vec3(s->origin));
            cJSON_AddItemToObject(p, "angles", vec3(s->angles));
            cJSON_AddNumberToObject(p, "skin", s->skin);
            cJSON_AddNumberToObject(p, "solid", s->solid);
            cJSON_AddNumberToObject(p, "flags", s->flags);
            cli_json_add_f32(p, "fade_min", s->fade_min);
            cli_json_add_f32(p, "fade_max", s->fade_max);
            cJSON_AddItemToObject(p, "lighting_origin", vec3(s->lighting_origin));
            cJSON_AddNumberToObject(p, "first_leaf", s->first_leaf);
            cJSON_AddNumberToObject(p, "leaf_count", s->leaf_count);
            if (fl & BK_SPROP_FORCED_FADE) cli_json_add_f32(p, "forced_fade_scale", s->forced_fade_scale);
            if (fl & BK_SPROP_DX_LEVEL) {
                cJSON_AddNumberToObject(p, "min_dx_level", s->min_dx_level);
                cJSON_AddNumberToObject(p, "max_dx_level", s->max_dx_level);
            }
            if (fl & BK_SPROP_CPU_GPU_LEVEL) {
                cJSON_AddNumberToObject(p, "min_cpu_level", s->min_cpu_level);
                cJSON_AddNumberToObject(p, "max_cpu_level", s->max_cpu_level);
                cJSON_AddNumberToObject(p, "min_gpu_level", s->min_gpu_level);
                cJSON_AddNumberToObject(p, "max_gpu_level", s->max_gpu_level);
            }
            if (fl & BK_SPROP_DIFFUSE) {
                int d[4] = {s->diffuse[0], s->diffuse[1], s->diffuse[2], s->diffuse[3]};
                cJSON_AddItemToObject(p, "diffuse_modulation", cJSON_CreateIntArray(d, 4));
            }
            if (fl & BK_SPROP_DISABLE_X360) cJSON_AddBoolToObject(p, "disable_x360", s->disable_x360 != 0);
            if (fl & BK_SPROP_FLAGS_EX) cJSON_AddNumberToObject(p, "flags_ex", s->flags_ex);
            if (fl & BK_SPROP_LIGHTMAP_RES) {
                int r[2] = {s->lightmap_res[0], s->lightmap_res[1]};
                cJSON_AddItemToObject(p, "lightmap_resolution", cJSON_CreateIntArray(r, 2));
            }
            if (fl & BK_SPROP_SCALE) cli_json_add_f32(p, "uniform_scale", s->scale);
            cJSON_AddItemToArray(arr, p);
        }
        cJSON *dp = cJSON_AddObjectToObject(root, "detail_prop_lump");
        if (m->dprp_version >= 0) cJSON_AddNumberToObject(dp, "version", m->dprp_version);
        cJSON_AddNumberToObject(dp, "models", m->detail_model_count);
        cJSON_AddNumberToObject(dp, "sprites", m->detail_sprite_count);
        cJSON_AddNumberToObject(dp, "props", m->detail_prop_count);
        cJSON_AddItemToObject(root, "detail_props", detail_props_json(m));
        cJSON *cm = cubemaps_json(f);
        if (!cm) {
            cJSON_Delete(root);
            bk_file_free(f);
            bk_free(owned);
            fprintf(stderr, "%s: cubemaps: error: the lump is not a whole number of 16-byte samples\n", o.positional[0]);
            return EXIT_BAD_INPUT;
        }
        cJSON_AddItemToObject(root, "cubemaps", cm);
        cli_print_json(root);
        cJSON_Delete(root);
    } else {
        if (m->sprp_version >= 0)
            printf("static props: %u (sprp version %d, %u-byte entries), %u models\n", m->static_prop_count,
                   m->sprp_version, m->sprp_entry_size, m->static_prop_name_count);
        else
            printf("static props: none (no sprp game lump)\n");
        for (uint32_t i = 0; i < m->static_prop_count; i++) {
            const bk_source_static_prop *s = &m->static_props[i];
            printf("%5u  %s  origin (%g %g %g)  angles (%g %g %g)  skin %d  solid %u  fade %g..%g\n", i,
                   s->model < m->static_prop_name_count ? m->static_prop_names[s->model] : "?", s->origin[0],
                   s->origin[1], s->origin[2], s->angles[0], s->angles[1], s->angles[2], s->skin, s->solid,
                   s->fade_min, s->fade_max);
        }
        if (m->dprp_version >= 0)
            printf("detail props: %u (dprp version %d), %u models, %u sprites\n", m->detail_prop_count,
                   m->dprp_version, m->detail_model_count, m->detail_sprite_count);
        else
            printf("detail props: none (no dprp game lump)\n");
    }
    bk_file_free(f);
    bk_free(owned);
    return EXIT_OK;
}

static const char *method_name(uint32_t m)
{
    switch (m) {
    case 0: return "stored";
    case 8: return "deflate";
    case 14: return "lzma";
    default: return "other";
    }
}

/* mkdir -p for the folders of rel under dir (rel already checked safe) */
static int make_parents(const char *path, size_t root_len)
{
    char tmp[4096];
    size_t n = strlen(path);
    if (n >= sizeof tmp) return -1;
    memcpy(tmp, path, n + 1);
    for (size_t i = root_len + 1; i < n; i++) {
        if (tmp[i] != '/') continue;
        tmp[i] = 0;
        if (mkdir(tmp, 0777) != 0 && errno != EEXIST) return -1;
        struct stat st;
        if (lstat(tmp, &st) != 0 || !S_ISDIR(st.st_mode)) return -1; /* no symlinked folders */
        tmp[i] = '/';
    }
    return 0;
}

/* One extraction is one output (bspkit.h, "writing files safely"): every file to a temporary,
 * all renamed at the end, or none. group_put and group_end print what failed. */
static int group_put(bk_write_group *g, const char *path, const uint8_t *data, size_t size)
{
    bk_result r = bk_write_group_file(g, path, data, size);
    if (r == BK_OK) return 0;
    char why[1600];
    if (cli_write_failed(path, r, why, sizeof why)) fprintf(stderr, "%s\n", why);
    else fprintf(stderr, "bspkit pak: cannot write %s: %s\n", path, bk_strerror(r));
    return -1;
}

static int group_end(bk_write_group *g, bool ok, const char *dir, uint32_t written)
{
    if (!ok) {
        bk_write_group_abort(g);
        if (written) fprintf(stderr, "bspkit pak: none of the %u files extracted\n", written);
        return EXIT_BAD_INPUT;
    }
    bk_result r = bk_write_group_commit(g);
    if (r == BK_OK) return EXIT_OK;
    char why[1600];
    if (cli_write_failed(dir, r, why, sizeof why)) fprintf(stderr, "%s\n", why);
    else fprintf(stderr, "bspkit pak: cannot write into %s: %s\n", dir, bk_strerror(r));
    return EXIT_BAD_INPUT;
}

/* pak ARCHIVE extract -o DIR: every entry of a (what: "pakfile " or "" in messages) as one output.
 * The whole archive is refused, nothing written, if any name would escape DIR or any entry fails
 * the checks validate makes; entries are CRC-checked as they are read. */
static int extract_all(const cli_opts *o, bk_archive *a, const char *what)
{
    uint32_t n = bk_archive_count(a);
    int rc = EXIT_OK;
    for (uint32_t i = 0; i < n; i++) {
        const char *why;
        if (bk_archive_check(a, i, true, &why) != BK_OK) {
            fprintf(stderr, "%s: %sentry %u '%s': %s: nothing extracted\n", o->positional[0], what, i,
                    bk_archive_entry_at(a, i)->name, why);
            rc = EXIT_BAD_INPUT;
        }
    }
    if (rc == EXIT_OK && cli_mkdir_p(o->output) != 0) {
        fprintf(stderr, "bspkit pak: cannot create folder %s\n", o->output);
        rc = EXIT_BAD_INPUT;
    }
    uint32_t written = 0;
    size_t root_len = cli_dir_len(o->output);
    bk_write_group *g = NULL;
    if (rc == EXIT_OK && bk_write_group_begin(&g, BK_WRITE_REPLACE_LINKS) != BK_OK) rc = EXIT_BAD_INPUT;
    for (uint32_t i = 0; i < n && rc == EXIT_OK; i++) {
        const bk_archive_entry *e = bk_archive_entry_at(a, i);
        char path[4096];
        if (cli_join(path, sizeof path, o->output, e->name) >= sizeof path) {
            fprintf(stderr, "bspkit pak: path too long for entry '%s'\n", e->name);
            rc = EXIT_BAD_INPUT;
            break;
        }
        for (char *c = path + root_len + 1; *c; c++)
            if (*c == '\\') *c = '/';
        size_t pl = strlen(path);
        bool dir = e->is_dir || (pl && path[pl - 1] == '/');
        if (make_parents(path, root_len) != 0) {
            fprintf(stderr, "bspkit pak: cannot create the folders for '%s'\n", e->name);
            rc = EXIT_BAD_INPUT;
            break;
        }
        if (dir) continue;
        uint8_t *data;
        size_t size;
        bk_result r = bk_archive_read(a, i, UINT64_MAX, &data, &size);
        if (r != BK_OK) {
            fprintf(stderr, "%s: %sentry %u '%s': %s\n", o->positional[0], what, i, e->name,
                    r == BK_EDECOMPRESS ? "CRC mismatch: the data is damaged" : bk_strerror(r));
            rc = EXIT_BAD_INPUT;
            break;
        }
        if (group_put(g, path, data, size) != 0) {
            rc = EXIT_BAD_INPUT;
        } else {
            written++;
            if (!o->quiet) printf("%s %zu\n", path, size);
        }
        bk_free(data);
    }
    if (g) rc = group_end(g, rc == EXIT_OK, o->output, written);
    if (rc == EXIT_OK) printf("%u files extracted to %s\n", written, o->output);
    return rc;
}

/* pak NAME_dir.vpk|NAME.pak list|extract: a VPK or an id PACK archive, as a pakfile is */
static int vpk_cmd(cli_opts *o, bool list)
{
    bk_archive *v = NULL;
    o->opt.name = o->positional[0];
    bool pack = bk_archive_probe_file(o->positional[0]) == BK_ARCHIVE_PAK;
    bk_result r = bk_archive_open(o->positional[0], &o->opt, &v);
    if (r != BK_OK) {
        fprintf(stderr, "%s: error: cannot read the %s: %s\n", o->positional[0], pack ? "PACK (.pak)" : "VPK",
                bk_strerror(r));
        return EXIT_BAD_INPUT;
    }
    if (pack && list && o->json) {
        /* names as JSON strings (a .pak's may hold any byte but NUL) */
        cJSON *root = cJSON_CreateObject();
        cJSON_AddStringToObject(root, "file", o->positional[0]);
        cJSON_AddNumberToObject(root, "count", bk_archive_count(v));
        cJSON *arr = cJSON_AddArrayToObject(root, "entries");
        for (uint32_t i = 0; i < bk_archive_count(v); i++) {
            const bk_archive_entry *e = bk_archive_entry_at(v, i);
            cJSON *j = cJSON_CreateObject();
            cJSON_AddStringToObject(j, "name", e->name);
            cJSON_AddNumberToObject(j, "size", (double)e->size);
            cJSON_AddItemToArray(arr, j);
        }
        cli_print_json(root);
        cJSON_Delete(root);
        bk_archive_close(v);
        return EXIT_OK;
    }
    uint32_t n = bk_archive_count(v);
    int rc = EXIT_OK;
    if (list) {
        uint64_t total = 0;
        if (o->json) printf("{\"file\":\"%s\",\"count\":%u,\"entries\":[", o->positional[0], n);
        for (uint32_t i = 0; i < n; i++) {
            const bk_archive_entry *e = bk_archive_entry_at(v, i);
            total += e->size;
            if (o->json)
                printf("%s{\"name\":\"%s\",\"size\":%llu,\"archive\":%u,\"preload\":%u,\"crc32\":%u}", i ? "," : "",
                       e->name, (unsigned long long)e->size, e->vpk_archive, e->vpk_preload, e->crc);
            else
                printf("%10llu  %s\n", (unsigned long long)e->size, e->name);
        }
        if (o->json) printf("]}\n");
        else printf("%u entr%s, %llu bytes\n", n, n == 1 ? "y" : "ies", (unsigned long long)total);
    } else if (!o->output) {
        fprintf(stderr, "bspkit pak: extract needs -o DIR\n");
        rc = EXIT_USAGE;
    } else {
        rc = extract_all(o, v, "");
    }
    bk_archive_close(v);
    return rc;
}

int cmd_pak(int argc, char **argv)
{
    const cli_cmd *me = cli_find("pak");
    cli_opts o;
    int rc = cli_begin(me, argc, argv, 2, -1, &o);
    if (rc != CLI_CONTINUE) return rc;
    const char *action = o.positional[1];
    bool list = strcmp(action, "list") == 0, extract = strcmp(action, "extract") == 0;
    bool add = strcmp(action, "add") == 0, remove = strcmp(action, "remove") == 0, pack = strcmp(action, "pack") == 0;
    if (!list && !extract && !add && !remove && !pack)
        return cli_usage_error(me, "unknown action '%s' (use list, extract, add, remove or pack)", action);
    if (pack && o.positional_count != 2) return cli_usage_error(me, "pack takes no names (give --game-dir)%s", "");
    if ((list || extract) && o.positional_count != 2) return cli_usage_error(me, "wrong number of arguments%s", "");
    if (o.dry_run && (list || extract)) return cli_dry_run_refused(me, list ? "pak list" : "pak extract");
    size_t in_len = strlen(o.positional[0]);
    /* a VPK by its signature, whatever its name (or by its name: a broken one is reported as a VPK) */
    bk_archive_kind kind = bk_archive_probe_file(o.positional[0]);
    if (kind == BK_ARCHIVE_VPK || kind == BK_ARCHIVE_PAK ||
        (in_len >= 8 && strcmp(o.positional[0] + in_len - 8, "_dir.vpk") == 0)) {
        if (!list && !extract)
            return cli_usage_error(me, "a %s can be listed or extracted", kind == BK_ARCHIVE_PAK ? ".pak" : "VPK");
        return vpk_cmd(&o, list);
    }
    if (add || remove || pack) {
        bk_file *ef;
        void *eowned;
        rc = cli_load(o.positional[0], &o, &ef, &eowned);
        if (rc) return rc;
        rc = pack ? cli_pak_pack(&o, ef) : cli_pak_edit(&o, ef, add);
        bk_file_free(ef);
        bk_free(eowned);
        return rc;
    }
    if (extract && !o.output) return cli_usage_error(me, "extract needs -o DIR%s", "");
    bk_file *f;
    void *owned;
    const bk_source_map *m;
    rc = load_source(me, &o, &f, &owned, &m);
    if (rc) return rc;
    bk_archive *pak = NULL;
    bk_result r = bk_archive_open_pakfile(f, &o.opt, &pak);
    if (r == BK_ENOTFOUND) {
        /* no pakfile lump at all: an empty list */
        r = BK_OK;
    } else if (r != BK_OK) {
        fprintf(stderr, "%s: pakfile (lump 40): cannot read the embedded zip: %s\n", o.positional[0], bk_strerror(r));
        bk_file_free(f);
        bk_free(owned);
        return EXIT_BAD_INPUT;
    }
    uint32_t n = bk_archive_count(pak);
    if (list) {
        if (o.json) {
            cJSON *root = cJSON_CreateObject();
            cJSON_AddStringToObject(root, "file", o.positional[0]);
            cJSON_AddNumberToObject(root, "count", n);
            cJSON *arr = cJSON_AddArrayToObject(root, "entries");
            for (uint32_t i = 0; i < n; i++) {
                const bk_archive_entry *e = bk_archive_entry_at(pak, i);
                cJSON *j = cJSON_CreateObject();
                cJSON_AddStringToObject(j, "name", e->name);
                cJSON_AddNumberToObject(j, "size", (double)e->size);
                cJSON_AddNumberToObject(j, "compressed_size", (double)e->compressed_size);
                cJSON_AddStringToObject(j, "method", method_name(e->method));
                cJSON_AddItemToArray(arr, j);
            }
            cli_print_json(root);
            cJSON_Delete(root);
        } else {
            uint64_t total = 0;
            for (uint32_t i = 0; i < n; i++) {
                const bk_archive_entry *e = bk_archive_entry_at(pak, i);
                printf("%10llu  %-7s  %s\n", (unsigned long long)e->size, method_name(e->method), e->name);
                total += e->size;
            }
            printf("%u entr%s, %llu bytes\n", n, n == 1 ? "y" : "ies", (unsigned long long)total);
        }
    } else {
        rc = extract_all(&o, pak, "pakfile ");
    }
    bk_archive_close(pak);
    bk_file_free(f);
    bk_free(owned);
    return rc;
}

/* ---- assets ---------------------------------------------------------------------------------- */

typedef struct assets_out {
    const cli_opts *o;
    cJSON *list;
    uint32_t total, missing, optional_missing;
} assets_out;

static void on_asset(void *user, const bk_source_asset *a)
{
    assets_out *out = user;
    out->total++;
    if (!a->found) {
        if (a->optional) out->optional_missing++;
        else out->missing++;
    }
    if (out->o->missing_only && (a->found || a->optional)) return;
    if (out->list) {
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "kind", a->kind);
        cJSON_AddStringToObject(j, "name", a->name);
        cJSON_AddStringToObject(j, "file", a->file);
        cJSON_AddBoolToObject(j, "found", a->found);
        if (a->found) cJSON_AddStringToObject(j, "where", a->where);
        if (a->optional) cJSON_AddBoolToObject(j, "optional", true);
        cJSON_AddItemToArray(out->list, j);
    } else {
        printf("%-8s %-60s %s\n", a->kind, a->file, a->found ? a->where : a->optional ? "absent (optional)" : "MISSING");
    }
}

int cmd_assets(int argc, char **argv)
{
    const cli_cmd *me = cli_find("assets");
    cli_opts o;
    int rc = cli_begin(me, argc, argv, 1, 1, &o);
    if (rc != CLI_CONTINUE) return rc;
    bk_file *f;
    void *owned;
    const bk_source_map *m;
    rc = load_source(me, &o, &f, &owned, &m);
    if (rc) return rc;
    bk_source_assets *a = NULL;
    bk_result r = bk_source_assets_open(f, &o.opt, &a);
    assets_out out = {&o, o.json ? cJSON_CreateArray() : NULL, 0, 0, 0};
    if (r == BK_OK) r = bk_source_assets_list(a, f, &o.opt, on_asset, &out);
    bk_source_assets_close(a);
    if (r != BK_OK && r != BK_ELIMIT) {
        fprintf(stderr, "%s: error: %s\n", o.positional[0], bk_strerror(r));
        cJSON_Delete(out.list);
        bk_file_free(f);
        bk_free(owned);
        return EXIT_BAD_INPUT;
    }
    if (r == BK_ELIMIT) fprintf(stderr, "%s: warning: the list was cut at 65,536 files\n", o.positional[0]);
    if (out.list) {
        cJSON *root = cJSON_CreateObject();
        cJSON_AddStringToObject(root, "file", o.positional[0]);
        cJSON_AddNumberToObject(root, "files", out.total);
        cJSON_AddNumberToObject(root, "missing", out.missing);
        cJSON_AddItemToObject(root, "assets", out.list);
        cli_print_json(root);
        cJSON_Delete(root);
    } else if (!o.quiet) {
        printf("%u files, %u missing%s\n", out.total, out.missing,
               out.optional_missing ? " (and optional .phy files absent)" : "");
    }
    bk_file_free(f);
    bk_free(owned);
    return out.missing ? 1 : EXIT_OK;
}
