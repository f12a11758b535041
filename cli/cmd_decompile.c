/* bspkit decompile: a map back to an editable source (.vmf for Source, .map for Quake 3),
 * written all or nothing through a write group (docs/decompile.md). */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "bspkit/decompile.h"
#include "cli.h"

static bool ends_with(const char *s, const char *ext)
{
    size_t n = strlen(s), e = strlen(ext);
    if (n < e) return false;
    for (size_t i = 0; i < e; i++)
        if ((s[n - e + i] | 0x20) != (ext[i] | 0x20)) return false;
    return true;
}

static void print_stats(const cli_opts *o, const char *out, size_t bytes, const bk_decompile_stats *st)
{
    if (o->json) {
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "input", o->positional[0]);
        cJSON_AddStringToObject(j, "output", out);
        cJSON_AddStringToObject(j, "format", bk_decompile_format_ext(st->format));
        cJSON_AddNumberToObject(j, "bytes", (double)bytes);
        cJSON_AddNumberToObject(j, "entities", st->entities);
        cJSON_AddNumberToObject(j, "brushes", st->brushes);
        cJSON_AddNumberToObject(j, "sides", st->sides);
        cJSON_AddNumberToObject(j, "brushes_dropped", st->brushes_dropped);
        cJSON_AddNumberToObject(j, "bevels_dropped", st->bevels_dropped);
        cJSON_AddNumberToObject(j, "sides_face_axes", st->sides_face_axes);
        cJSON_AddNumberToObject(j, "sides_default_axes", st->sides_default_axes);
        cJSON_AddNumberToObject(j, "sides_tool", st->sides_tool);
        cJSON_AddNumberToObject(j, "patches", st->patches);
        cJSON_AddNumberToObject(j, "outputs", st->outputs);
        cJSON_AddNumberToObject(j, "detail_brushes", st->detail_brushes);
        cJSON_AddNumberToObject(j, "bevel_flags_ignored", st->bevel_flags_ignored);
        if (st->format == BK_DECOMPILE_VMF) {
            cJSON_AddNumberToObject(j, "displacements", st->displacements);
            cJSON_AddNumberToObject(j, "displacements_lost", st->displacements_lost);
            cJSON_AddNumberToObject(j, "disp_brushes", st->disp_brushes);
            cJSON_AddNumberToObject(j, "static_props", st->static_props);
            cJSON_AddNumberToObject(j, "cubemaps", st->cubemaps);
            cJSON_AddNumberToObject(j, "overlays", st->overlays);
            cJSON_AddNumberToObject(j, "overlays_lost", st->overlays_lost);
            cJSON_AddNumberToObject(j, "overlay_faces_lost", st->overlay_faces_lost);
            cJSON_AddNumberToObject(j, "lights", st->lights);
        }
        cli_print_json(j);
        cJSON_Delete(j);
        return;
    }
    if (o->quiet) return;
    printf("wrote %s: %zu bytes, %u entities, %u brushes, %u sides, %u patches\n", out, bytes, st->entities,
           st->brushes, st->sides, st->patches);
    printf("  %u bevel sides left out, %u brushes left out", st->bevels_dropped, st->brushes_dropped);
    if (st->format == BK_DECOMPILE_MAP_Q3)
        printf(", texture axes: %u sides from their drawn face, %u default\n", st->sides_face_axes,
               st->sides_default_axes);
    else
        printf(", %u tool materials restored, %u outputs, %u func_detail brushes, %u sides with default axes\n"
               "  %u displacements (%u left out), %u static props, %u cubemaps, %u overlays, %u lights restored\n",
               st->sides_tool, st->outputs, st->detail_brushes, st->sides_default_axes, st->displacements,
               st->displacements_lost, st->static_props, st->cubemaps, st->overlays, st->lights);
}

int cmd_decompile(int argc, char **argv)
{
    const cli_cmd *me = cli_find("decompile");
    cli_opts o;
    int rc = cli_begin(me, argc, argv, 1, 1, &o);
    if (rc != CLI_CONTINUE) return rc;
    if (!o.output) return cli_usage_error(me, "missing -o OUT.vmf or OUT.map%s", "");
    const char *out = o.output;
    bk_decompile_format want = ends_with(out, ".vmf")   ? BK_DECOMPILE_VMF
                               : ends_with(out, ".map") ? BK_DECOMPILE_MAP_Q3
                                                        : BK_DECOMPILE_AUTO;
    if (want == BK_DECOMPILE_AUTO) return cli_usage_error(me, "output '%s' must end in .vmf or .map", out);
    bk_file *f;
    void *owned;
    rc = cli_load(o.positional[0], &o, &f, &owned);
    if (rc) return rc;
    bk_format ff = bk_file_format(f);
    char *text = NULL;
    size_t len = 0;
    bk_decompile_stats st;
    bk_result r;
    if ((ff == BK_FORMAT_SOURCE && want != BK_DECOMPILE_VMF) || (ff == BK_FORMAT_QUAKE3 && want != BK_DECOMPILE_MAP_Q3)) {
        fprintf(stderr, "%s: error: a %s map decompiles to .%s, not %s\n", o.positional[0], bk_format_name(ff),
                ff == BK_FORMAT_SOURCE ? "vmf" : "map", out);
        r = BK_EUNSUPPORTED;
    } else {
        r = bk_decompile(f, &o.opt, want, &text, &len, &st);
        /* BK_EUNSUPPORTED: the library said which family, located */
        if (r != BK_OK && r != BK_EUNSUPPORTED)
            fprintf(stderr, "%s: error: cannot decompile: %s\n", o.positional[0], bk_strerror(r));
    }
    bk_file_free(f);
    bk_free(owned);
    if (r == BK_OK) {
        bk_write_group *g = NULL;
        r = bk_write_group_begin(&g, 0);
        if (r == BK_OK) r = bk_write_group_file(g, out, text, len);
        if (r == BK_OK) r = bk_write_group_commit(g);
        else bk_write_group_abort(g);
        char why[1600];
        if (r != BK_OK && cli_write_failed(out, r, why, sizeof why)) fprintf(stderr, "%s\n", why);
        else if (r != BK_OK) fprintf(stderr, "%s: cannot write %s: %s\n", o.positional[0], out, bk_strerror(r));
        else print_stats(&o, out, len, &st);
    }
    bk_free(text);
    return r == BK_OK ? EXIT_OK : EXIT_BAD_INPUT;
}
