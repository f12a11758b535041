/* info, validate, entities: reading commands. */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "bspkit/write.h"
#include "bspkit/source.h"
#include <strings.h>
#include "cli.h"

static cJSON *info_json(const char *path, bk_file *f)
{
    const bk_info *in = bk_file_info(f);
    size_t size;
    bk_file_data(f, &size);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "file", path);
    cJSON_AddStringToObject(o, "format", bk_format_name(in->format));
    cJSON_AddNumberToObject(o, "version", in->version);
    if (in->variant[0]) cJSON_AddStringToObject(o, "variant", in->variant);
    cJSON_AddNumberToObject(o, "size", (double)size);
    cJSON *lumps = cJSON_AddArrayToObject(o, "lumps");
    for (uint32_t i = 0; i < in->lump_count; i++) {
        const bk_lump_info *l = &in->lumps[i];
        cJSON *lj = cJSON_CreateObject();
        cJSON_AddNumberToObject(lj, "index", i);
        cJSON_AddStringToObject(lj, "name", l->name);
        cJSON_AddNumberToObject(lj, "offset", (double)l->offset);
        cJSON_AddNumberToObject(lj, "length", (double)l->length);
        if (l->count >= 0) cJSON_AddNumberToObject(lj, "count", (double)l->count);
        if (l->version) cJSON_AddNumberToObject(lj, "version", l->version);
        {
            /* CRC-32 of the lump's bytes as stored, so users and tests see what an edit changed */
            const uint8_t *fd = bk_file_data(f, &size);
            if (fd && l->offset <= size && l->length <= size - l->offset)
                cJSON_AddNumberToObject(lj, "crc32", (double)bk_crc32(fd + l->offset, (size_t)l->length));
        }
        if (l->compressed) {
            cJSON_AddTrueToObject(lj, "compressed");
            cJSON_AddNumberToObject(lj, "uncompressed", (double)l->uncompressed);
        }
        cJSON_AddItemToArray(lumps, lj);
    }
    cJSON *counts = cJSON_AddObjectToObject(o, "counts");
    for (uint32_t i = 0; i < in->count_count; i++)
        cJSON_AddNumberToObject(counts, in->counts[i].name, (double)in->counts[i].value);
    if (in->has_bounds) {
        cJSON *b = cJSON_AddObjectToObject(o, "bounds");
        double mn[3] = {in->mins[0], in->mins[1], in->mins[2]}, mx[3] = {in->maxs[0], in->maxs[1], in->maxs[2]};
        cJSON_AddItemToObject(b, "mins", cJSON_CreateDoubleArray(mn, 3));
        cJSON_AddItemToObject(b, "maxs", cJSON_CreateDoubleArray(mx, 3));
    }
    /* the game's facts (the family's version rows): what a binding or a script reads instead of
     * keeping its own lists */
    const bk_game *g = bk_file_game(f);
    if (g) {
        cJSON *gj = cJSON_AddObjectToObject(o, "game");
        cJSON_AddNumberToObject(gj, "eye_height", g->eye_height);
        cJSON_AddItemToObject(gj, "spawn_classes", cJSON_CreateStringArray(g->spawn_classes, (int)g->spawn_class_count));
        double mn[3] = {g->hull_min[0], g->hull_min[1], g->hull_min[2]};
        double mx[3] = {g->hull_max[0], g->hull_max[1], g->hull_max[2]};
        cJSON_AddItemToObject(gj, "hull_mins", cJSON_CreateDoubleArray(mn, 3));
        cJSON_AddItemToObject(gj, "hull_maxs", cJSON_CreateDoubleArray(mx, 3));
    }
    return o;
}

int cmd_info(int argc, char **argv)
{
    const cli_cmd *me = cli_find("info");
    cli_opts o;
    int rc = cli_begin(me, argc, argv, 1, 1, &o);
    if (rc != CLI_CONTINUE) return rc;
    bk_file *f;
    void *owned;
    rc = cli_load(o.positional[0], &o, &f, &owned);
    if (rc) return rc;
    if (o.json) {
        cJSON *j = info_json(o.positional[0], f);
        cli_print_json(j);
        cJSON_Delete(j);
    } else {
        const bk_info *in = bk_file_info(f);
        size_t size;
        bk_file_data(f, &size);
        printf("file:    %s\nformat:  %s\nversion: %d%s%s\nsize:    %zu bytes\n", o.positional[0],
               bk_format_name(in->format), in->version, in->variant[0] ? "  variant: " : "", in->variant, size);
        if (in->lump_count) {
            printf("\n  #  %-22s %10s %10s %8s\n", "lump", "offset", "length", "count");
            for (uint32_t i = 0; i < in->lump_count; i++) {
                const bk_lump_info *l = &in->lumps[i];
                char cnt[32] = "";
                if (l->count >= 0) snprintf(cnt, sizeof cnt, "%lld", (long long)l->count);
                printf("%3u  %-22s %10llu %10llu %8s%s\n", i, l->name, (unsigned long long)l->offset,
                       (unsigned long long)l->length, cnt, l->compressed ? "  (lzma)" : "");
            }
        }
        printf("\ncounts:\n");
        for (uint32_t i = 0; i < in->count_count; i++)
            printf("  %-18s %llu\n", in->counts[i].name, (unsigned long long)in->counts[i].value);
        if (in->has_bounds)
            printf("\nbounds:  (%g %g %g) .. (%g %g %g)\n", (double)in->mins[0], (double)in->mins[1],
                   (double)in->mins[2], (double)in->maxs[0], (double)in->maxs[1], (double)in->maxs[2]);
    }
    bk_file_free(f);
    bk_free(owned);
    return EXIT_OK;
}

typedef struct vctx {
    cJSON *list;      /* JSON mode */
    bool quiet;
} vctx;

static void vdiag(void *user, const bk_diag *d)
{
    vctx *v = user;
    if (v->list) {
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "severity", bk_severity_name(d->severity));
        cJSON_AddStringToObject(o, "code", bk_result_name(d->code));
        if (d->lump) cJSON_AddStringToObject(o, "lump", d->lump);
        if (d->index != BK_NO_INDEX) cJSON_AddNumberToObject(o, "index", (double)d->index);
        if (d->offset != BK_NO_OFFSET) cJSON_AddNumberToObject(o, "offset", (double)d->offset);
        char *msg = bk_utf8_from_8bit(d->message);
        cJSON_AddStringToObject(o, "message", msg ? msg : "");
        bk_free(msg);
        cJSON_AddItemToArray(v->list, o);
    } else if (!v->quiet) {
        cli_diag_print(stdout, d);
    }
}

/* validate --assets: what the map references and cannot be found; returns how many */
static uint32_t report_assets(const char *path, cli_opts *o, cJSON *list)
{
    bk_file *f;
    void *owned;
    cli_opts oc = *o;
    oc.opt.diag = NULL;
    if (cli_load(path, &oc, &f, &owned) != EXIT_OK) return 0;
    uint32_t missing = 0;
    char where[2048];
    char msg[4800];
#define MISSING(kind, name, file)                                                                   \
    do {                                                                                          \
        missing++;                                                                                \
        snprintf(msg, sizeof msg, "%s %s: %s not found (looked in %s)", kind, name, file, where); \
        if (list) {                                                                               \
            cJSON *j = cJSON_CreateObject();                                                      \
            cJSON_AddStringToObject(j, "kind", kind);                                             \
            cJSON_AddStringToObject(j, "name", name);                                             \
            cJSON_AddStringToObject(j, "file", file);                                             \
            cJSON_AddStringToObject(j, "looked_in", where);                                       \
            cJSON_AddItemToArray(list, j);                                                        \
        } else {                                                                                  \
            printf("%s: missing: %s\n", path, msg);                                              \
        }                                                                                         \
    } while (0)
    const bk_source_map *m = bk_source_map_of(f);
    if (m) {
        bk_source_assets *a = NULL;
        if (bk_source_assets_open(f, &oc.opt, &a) == BK_OK) {
            bk_source_assets_where(a, where, sizeof where);
            for (uint32_t i = 0; i < m->texdata_count; i++) {
                char vmt[600], base[512], vtf[600];
                snprintf(vmt, sizeof vmt, "materials/%s.vmt", m->texdata[i].name);
                for (char *c = vmt; *c; c++) if (*c == '\\') *c = '/';
                if (!bk_source_assets_find(a, vmt, base, sizeof base)) {
                    MISSING("material", m->texdata[i].name, vmt);
                } else if (base[0]) {
                    size_t bl = strlen(base);
                    snprintf(vtf, sizeof vtf, "materials/%s%s", base, bl > 4 && !strcasecmp(base + bl - 4, ".vtf") ? "" : ".vtf");
                    if (!bk_source_assets_find(a, vtf, NULL, 0)) MISSING("texture", base, vtf);
                }
            }
            for (uint32_t i = 0; i < m->static_prop_name_count; i++) {
                const char *mp = m->static_prop_names[i];
                size_t ml = strlen(mp);
                if (!bk_source_assets_find(a, mp, NULL, 0)) {
                    MISSING("model", mp, mp);
                } else if (ml > 4 && ml < 900 && !strcasecmp(mp + ml - 4, ".mdl")) {
                    /* a model's vertices and strips lie beside it: MODEL.vvd, MODEL.dx90.vtx (or .vtx, ...) */
                    static const char *const vtx[] = {".dx90.vtx", ".vtx", ".dx80.vtx", ".sw.vtx"};
                    char part[1024];
                    snprintf(part, sizeof part, "%.*s.vvd", (int)(ml - 4), mp);
                    if (!bk_source_assets_find(a, part, NULL, 0)) MISSING("model", mp, part);
                    bool have = false;
                    for (size_t k = 0; k < sizeof vtx / sizeof vtx[0] && !have; k++) {
                        snprintf(part, sizeof part, "%.*s%s", (int)(ml - 4), mp, vtx[k]);
                        have = bk_source_assets_find(a, part, NULL, 0);
                    }
                    snprintf(part, sizeof part, "%.*s.dx90.vtx", (int)(ml - 4), mp);
                    if (!have) MISSING("model", mp, part);
                }
            }
            bk_source_assets_close(a);
        }
    } else {
        /* the other families: the materials the scene builder could not give a texture */
        size_t o2 = (size_t)snprintf(where, sizeof where, "%s", o->path_count ? "" : "the map's folder");
        for (int k = 0; k < o->path_count && o2 < sizeof where; k++)
            o2 += (size_t)snprintf(where + o2, sizeof where - o2, "%s%s", k ? ", " : "", o->paths[k]);
        bk_scene *s = NULL;
        oc.opt.flags |= BK_OPT_NO_LIGHTMAPS | BK_OPT_NO_ENTITIES;
        if (bk_file_build_scene(f, &oc.opt, &s) == BK_OK) {
            for (uint32_t i = 0; i < s->material_count; i++)
                for (uint32_t k = 0; k < s->materials[i].extra_count; k++)
                    if (!strcmp(s->materials[i].extras[k].key, "missing")) {
                        MISSING("texture", s->materials[i].name, s->materials[i].name);
                        break;
                    }
            bk_scene_free(s);
        }
    }
#undef MISSING
    bk_file_free(f);
    bk_free(owned);
    return missing;
}

int cmd_validate(int argc, char **argv)
{
    const cli_cmd *me = cli_find("validate");
    cli_opts o;
    int rc = cli_begin(me, argc, argv, 1, -1, &o);
    if (rc != CLI_CONTINUE) return rc;
    rc = EXIT_OK;
    cJSON *all = o.json ? cJSON_CreateArray() : NULL;
    for (int i = 0; i < o.positional_count; i++) {
        const char *path = o.positional[i];
        vctx v = {o.json ? cJSON_CreateArray() : NULL, o.quiet};
        bk_options opt = o.opt;
        opt.name = path;
        opt.diag = vdiag;
        opt.diag_user = &v;
        uint32_t errors = 0, warnings = 0;
        bk_format fmt = BK_FORMAT_UNKNOWN;
        bool unreadable = false;   /* not there or not readable: not "not a supported format" */
        const char *sep = cli_archive_sep(path);
        if (sep) {
            /* ARCHIVE.pk3:maps/NAME.bsp, as every other command reads it */
            cli_opts oc = o;
            oc.opt.search_paths = oc.paths;
            uint8_t *buf = NULL;
            size_t n = 0;
            if (cli_read_member(path, sep, &oc, &buf, &n) == EXIT_OK) {
                fmt = bk_detect(buf, n);
                bk_validate_memory(buf, n, &opt, &errors, &warnings);
                bk_free(buf);
            } else {
                errors = 1;
                unreadable = true;
            }
        } else {
            bk_result r = bk_validate_file(path, &opt, &fmt, &errors, &warnings);
            unreadable = fmt == BK_FORMAT_UNKNOWN && (r == BK_EIO || r == BK_ENOTFOUND);
        }
        if (errors) rc = EXIT_BAD_INPUT;
        cJSON *assets = o.json && o.assets ? cJSON_CreateArray() : NULL;
        uint32_t missing = 0;
        if (o.assets && !errors) missing = report_assets(path, &o, assets);
        if (missing) rc = EXIT_BAD_INPUT;
        if (o.json) {
            cJSON *fo = cJSON_CreateObject();
            if (assets) cJSON_AddItemToObject(fo, "missing_assets", assets);
            cJSON_AddStringToObject(fo, "file", path);
            cJSON_AddStringToObject(fo, "format", bk_format_name(fmt));
            cJSON_AddBoolToObject(fo, "valid", errors == 0);
            cJSON_AddNumberToObject(fo, "errors", errors);
            cJSON_AddNumberToObject(fo, "warnings", warnings);
            cJSON_AddItemToObject(fo, "diagnostics", v.list);
            cJSON_AddItemToArray(all, fo);
        } else if (errors) {
            printf("%s: INVALID (%s): %u error%s, %u warning%s\n", path,
                   unreadable ? "unreadable" : fmt == BK_FORMAT_UNKNOWN ? "not a supported format" : bk_format_name(fmt), errors,
                   errors == 1 ? "" : "s", warnings, warnings == 1 ? "" : "s");
        } else {
            printf("%s: ok (%s), %u warning%s", path, bk_format_name(fmt), warnings, warnings == 1 ? "" : "s");
            if (o.assets) printf(", %u missing asset%s", missing, missing == 1 ? "" : "s");
            printf("\n");
        }
    }
    if (all) {
        cli_print_json(all);
        cJSON_Delete(all);
    }
    return rc;
}

/* entities --outputs: every pair whose value is a Source I/O output, split into its five fields */
static int print_outputs(const cli_opts *o, const bk_entities *es)
{
    cJSON *arr = o->json ? cJSON_CreateArray() : NULL;
    for (uint32_t i = 0; i < es->count; i++)
        for (uint32_t k = 0; k < es->items[i].pair_count; k++) {
            const bk_kv *kv = &es->items[i].pairs[k];
            bk_output out;
            bk_result r = bk_output_parse(kv->value, &out);
            if (r == BK_ENOMEM) {
                cJSON_Delete(arr);
                fprintf(stderr, "bspkit entities: %s: out of memory\n", o->positional[0]);
                return EXIT_BAD_INPUT;
            }
            if (r != BK_OK) continue;
            if (arr) {
                cJSON *j = cJSON_CreateObject();
                char *s[4] = {bk_utf8_from_8bit(kv->key), bk_utf8_from_8bit(out.target), bk_utf8_from_8bit(out.input),
                              bk_utf8_from_8bit(out.parameter)};
                cJSON_AddNumberToObject(j, "entity", i);
                cJSON_AddNumberToObject(j, "pair", k);
                cJSON_AddStringToObject(j, "output", s[0] ? s[0] : "");
                cJSON_AddStringToObject(j, "target", s[1] ? s[1] : "");
                cJSON_AddStringToObject(j, "input", s[2] ? s[2] : "");
                cJSON_AddStringToObject(j, "parameter", s[3] ? s[3] : "");
                cJSON_AddNumberToObject(j, "delay", out.delay);
                cJSON_AddNumberToObject(j, "times", out.times);
                if (out.bloodlines) {   /* Vampire: The Masquerade - Bloodlines' two more fields */
                    char *b[2] = {bk_utf8_from_8bit(out.script), bk_utf8_from_8bit(out.extra)};
                    cJSON_AddStringToObject(j, "script", b[0] ? b[0] : "");
                    cJSON_AddStringToObject(j, "extra", b[1] ? b[1] : "");
                    for (int q = 0; q < 2; q++) bk_free(b[q]);
                }
                cJSON_AddItemToArray(arr, j);
                for (int q = 0; q < 4; q++) bk_free(s[q]);
            } else {
                printf("%u\t%s\t%s\t%s\t%s\t%g\t%d", i, kv->key, out.target, out.input, out.parameter, out.delay,
                       out.times);
                if (out.bloodlines) printf("\t%s\t%s", out.script, out.extra);
                printf("\n");
            }
            bk_output_free(&out);
        }
    if (arr) cli_print_json(arr);
    cJSON_Delete(arr);
    return EXIT_OK;
}

int cmd_entities(int argc, char **argv)
{
    const cli_cmd *me = cli_find("entities");
    cli_opts o;
    /* --import ENTS, --allow-no-worldspawn and --outputs are this command's own options */
    const char *import = NULL;
    bool allow_no_world = false, outputs = false;
    char *rest[CLI_MAX_ARGS + 1];
    int nrest;
    const cli_own own[] = {{"--import", &import, NULL, "a file"},
                           {"--allow-no-worldspawn", NULL, &allow_no_world, NULL},
                           {"--outputs", NULL, &outputs, NULL}};
    int urc = cli_take_own(me, argc, argv, own, 3, rest, &nrest);
    if (urc != CLI_CONTINUE) return urc;
    int rc = cli_begin(me, nrest, rest, 1, 1, &o);
    if (rc != CLI_CONTINUE) return rc;
    if (allow_no_world && !import) return cli_usage_error(me, "--allow-no-worldspawn goes with --import%s", "");
    if (o.dry_run && !import) return cli_dry_run_refused(me, "entities without --import");
    bk_file *f;
    void *owned;
    rc = cli_load(o.positional[0], &o, &f, &owned);
    if (rc) return rc;
    if (import) {
        rc = cli_entities_import(&o, f, import, allow_no_world);
        bk_file_free(f);
        bk_free(owned);
        return rc;
    }
    const bk_entities *es = bk_file_entities(f);
    if (outputs) {
        rc = print_outputs(&o, es);
        bk_file_free(f);
        bk_free(owned);
        return rc;
    }
    if (o.json) {
        /* every pair in file order, repeated keys included: what --import reads back */
        char *js = NULL;
        size_t jn = 0;
        if (bk_entities_to_json(es, &js, &jn) != BK_OK) {
            bk_file_free(f);
            bk_free(owned);
            fprintf(stderr, "bspkit entities: %s: out of memory\n", o.positional[0]);
            return EXIT_BAD_INPUT;
        }
        fwrite(js, 1, jn, stdout);
        bk_free(js);
    } else {
        for (uint32_t i = 0; i < es->count; i++) {
            printf("{\n");
            for (uint32_t k = 0; k < es->items[i].pair_count; k++)
                printf("\"%s\" \"%s\"\n", es->items[i].pairs[k].key, es->items[i].pairs[k].value);
            printf("}\n");
        }
    }
    bk_file_free(f);
    bk_free(owned);
    return EXIT_OK;
}
