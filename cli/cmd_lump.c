/* bspkit lump: a map's lumps listed, one printed as JSON, or one replaced from JSON (docs/lumps.md). */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "bspkit/write.h"
#include "cli.h"

static int list_lumps(const cli_opts *o, const bk_file *f)
{
    const char *in = o->positional[0];
    cJSON *arr = o->json ? cJSON_CreateArray() : NULL;
    bk_lump_shape s;
    bk_result r = BK_OK;
    if (!o->json) printf("%4s  %-30s %10s %6s %12s  %s\n", "slot", "lump", "elements", "size", "bytes", "as");
    for (uint32_t i = 0; (r = bk_lump_shape_at(f, i, &s)) == BK_OK; i++) {
        long long count = s.entry_size ? (long long)(s.size / s.entry_size) : -1;
        if (arr) {
            cJSON *j = cJSON_CreateObject();
            cJSON_AddStringToObject(j, "name", s.name);
            cJSON_AddNumberToObject(j, "slot", s.slot);
            cJSON_AddNumberToObject(j, "bytes", (double)s.size);
            if (count >= 0) cJSON_AddNumberToObject(j, "elements", (double)count);
            cJSON_AddNumberToObject(j, "entry_size", s.entry_size);
            cJSON_AddNumberToObject(j, "fields", s.field_count);
            cJSON_AddBoolToObject(j, "compressed", s.compressed);
            cJSON_AddItemToArray(arr, j);
        } else {
            char as[48];
            if (s.field_count) snprintf(as, sizeof as, "%u field%s", s.field_count, s.field_count == 1 ? "" : "s");
            else snprintf(as, sizeof as, "base64 bytes");
            char cnt[24] = "-", sz[16] = "-";
            if (count >= 0) snprintf(cnt, sizeof cnt, "%lld", count), snprintf(sz, sizeof sz, "%u", s.entry_size);
            printf("%4u  %-30s %10s %6s %12llu  %s%s\n", s.slot, s.name, cnt, sz, (unsigned long long)s.size, as,
                   s.compressed ? " (LZMA)" : "");
        }
    }
    if (r != BK_EINDEX) {
        cJSON_Delete(arr);
        fprintf(stderr, "%s: error: %s\n", in,
                r == BK_EUNSUPPORTED ? "no lump directory (lumps: GoldSrc, Quake 1, BSP2, Quake 3 and Source maps)"
                                     : bk_strerror(r));
        return EXIT_BAD_INPUT;
    }
    if (arr) cli_print_json(arr);
    cJSON_Delete(arr);
    return EXIT_OK;
}

static int print_lump(const cli_opts *o, const bk_file *f, const char *name)
{
    char *js = NULL;
    size_t n = 0;
    bk_result r = bk_lump_to_json(f, name, &js, &n);
    if (r != BK_OK) {
        if (r == BK_ENOTFOUND)
            fprintf(stderr, "%s: error: no lump named '%s' in a %s map (bspkit lump %s lists them)\n",
                    o->positional[0], name, bk_format_name(bk_file_format(f)), o->positional[0]);
        else
            fprintf(stderr, "%s: %s: error: %s\n", o->positional[0], name,
                    r == BK_EUNSUPPORTED ? "no lump directory in this file" : bk_strerror(r));
        return EXIT_BAD_INPUT;
    }
    int rc = fwrite(js, 1, n, stdout) == n ? EXIT_OK : EXIT_BAD_INPUT;
    bk_free(js);
    return rc;
}

int cmd_lump(int argc, char **argv)
{
    const cli_cmd *me = cli_find("lump");
    cli_opts o;
    const char *import = NULL;
    bool allow_no_world = false;
    char *rest[CLI_MAX_ARGS + 1];
    int nrest;
    const cli_own own[] = {{"--import", &import, NULL, "a file"}, {"--allow-no-worldspawn", NULL, &allow_no_world, NULL}};
    int urc = cli_take_own(me, argc, argv, own, 2, rest, &nrest);
    if (urc != CLI_CONTINUE) return urc;
    int rc = cli_begin(me, nrest, rest, 1, 2, &o);
    if (rc != CLI_CONTINUE) return rc;
    if (import && o.positional_count != 2) return cli_usage_error(me, "--import needs the lump's NAME%s", "");
    if (allow_no_world && !import) return cli_usage_error(me, "--allow-no-worldspawn goes with --import%s", "");
    if (o.dry_run && !import) return cli_dry_run_refused(me, "lump without --import");
    if (o.output && !import)   /* the JSON goes to standard output: -o would be ignored */
        return cli_usage_error(me, "-o goes with --import (the lump's JSON is printed: redirect it%s)", "");
    bk_file *f;
    void *owned;
    rc = cli_load(o.positional[0], &o, &f, &owned);
    if (rc) return rc;
    if (import) rc = cli_lump_import(&o, f, o.positional[1], import, allow_no_world);
    else if (o.positional_count == 2) rc = print_lump(&o, f, o.positional[1]);
    else rc = list_lumps(&o, f);
    bk_file_free(f);
    bk_free(owned);
    return rc;
}
