/* assets: every file a Source map needs and where the engine would find it. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "bspkit/source.h"
#include "cli.h"

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
    rc = cli_load(o.positional[0], &o, &f, &owned);
    if (rc) return rc;
    if (!bk_source_map_of(f)) {
        fprintf(stderr, "%s: not a Source map (this is a %s file); 'assets' works on Source VBSP maps only "
                        "(validate --assets reports the missing textures of the other families)\n",
                o.positional[0], bk_format_name(bk_file_format(f)));
        bk_file_free(f);
        bk_free(owned);
        return EXIT_BAD_INPUT;
    }
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
