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
        cJSON_AddNumberToObject(j, "tree_regions", st->tree_regions);
        cJSON_AddNumberToObject(j, "triangles_unwritten", st->triangles_unwritten);
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
    if (st->format == BK_DECOMPILE_MAP_VALVE || st->format == BK_DECOMPILE_MAP_QUAKE)
        printf(", %u tree regions merged into the brushes, %u sides textured from their drawn face, %u hidden\n",
               st->tree_regions, st->sides_face_axes, st->sides_tool);
    else if (st->format == BK_DECOMPILE_MAP_Q3)
        printf(", texture axes: %u sides from their drawn face, %u default; %u drawn triangles on no side "
               "(misc_model geometry, decals): not written\n",
               st->sides_face_axes, st->sides_default_axes, st->triangles_unwritten);
    else
        printf(", %u tool materials restored, %u outputs, %u func_detail brushes, %u sides with default axes\n"
               "  %u displacements (%u left out), %u static props, %u cubemaps, %u overlays, %u lights restored\n",
               st->sides_tool, st->outputs, st->detail_brushes, st->sides_default_axes, st->displacements,
               st->displacements_lost, st->static_props, st->cubemaps, st->overlays, st->lights);
}

bk_result cli_decompile_write(const char *name, bk_file *f, const bk_options *opt, int want_i, const char *out, bool add_ext,
                              char *out_path, size_t out_cap, bk_decompile_stats *st, size_t *bytes, char *why, size_t cap)
{
    bk_decompile_format want = (bk_decompile_format)want_i;
    bk_format ff = bk_file_format(f);
    char path[4096];
    char *text = NULL;
    size_t len = 0;
    why[0] = 0;
    *bytes = 0;
    bool tree_family = ff == BK_FORMAT_QUAKE1 || ff == BK_FORMAT_BSP2 || ff == BK_FORMAT_GOLDSRC;
    /* a folder of maps: each in its own family's form (the classic Quake axes kept if asked) */
    if (add_ext && !(tree_family && want == BK_DECOMPILE_MAP_QUAKE)) want = BK_DECOMPILE_AUTO;
    /* Quake 1 / GoldSrc: .map in Valve 220 axes unless the classic ones are asked for */
    if (!add_ext && tree_family && want == BK_DECOMPILE_MAP_Q3) want = BK_DECOMPILE_MAP_VALVE;
    if (!add_ext && ((ff == BK_FORMAT_SOURCE && want != BK_DECOMPILE_VMF) ||
                     (ff == BK_FORMAT_QUAKE3 && want != BK_DECOMPILE_MAP_Q3))) {
        snprintf(why, cap, "%s: error: a %s map decompiles to .%s, not %s", name, bk_format_name(ff),
                 ff == BK_FORMAT_SOURCE ? "vmf" : "map", out);
        return BK_EUNSUPPORTED;
    }
    bk_result r = bk_decompile(f, opt, want, &text, &len, st);
    if (r != BK_OK) {
        /* BK_EUNSUPPORTED: the library said which family, located */
        if (r != BK_EUNSUPPORTED) snprintf(why, cap, "%s: error: cannot decompile: %s", name, bk_strerror(r));
        else snprintf(why, cap, "%s: error: decompile: not supported for %s maps", name, bk_format_name(ff));
        return r;
    }
    if (add_ext) snprintf(path, sizeof path, "%s.%s", out, bk_decompile_format_ext(st->format));
    else snprintf(path, sizeof path, "%s", out);
    bk_write_group *g = NULL;
    r = bk_write_group_begin(&g, 0);
    if (r == BK_OK) r = bk_write_group_file(g, path, text, len);
    if (r == BK_OK) r = bk_write_group_commit(g);
    else bk_write_group_abort(g);
    bk_free(text);
    if (r != BK_OK && !cli_write_failed(path, r, why, cap)) snprintf(why, cap, "%s: cannot write %s: %s", name, path, bk_strerror(r));
    if (r == BK_OK) *bytes = len;
    if (out_path) snprintf(out_path, out_cap, "%s", path);
    return r;
}

int cmd_decompile(int argc, char **argv)
{
    const cli_cmd *me = cli_find("decompile");
    cli_opts o;
    int rc = cli_begin(me, argc, argv, 1, 256, &o);
    if (rc != CLI_CONTINUE) return rc;
    if (!o.output) return cli_usage_error(me, "missing -o OUT.vmf, OUT.map or DIR/%s", "");
    const char *out = o.output;
    size_t ol = strlen(out);
    if (o.format && strcmp(o.format, "valve") && strcmp(o.format, "quake"))
        return cli_usage_error(me, "--format is valve or quake (Quake 1 / GoldSrc .map axes), not '%s'", o.format);
    if (o.positional_count > 1 || (ol && out[ol - 1] == '/')) {
        /* many maps into a folder: each written as `decompile MAP -o DIR/NAME.vmf|map` would */
        o.decompile = true;
        return cli_batch(&o);
    }
    bk_decompile_format want = ends_with(out, ".vmf")   ? BK_DECOMPILE_VMF
                               : ends_with(out, ".map") ? BK_DECOMPILE_MAP_Q3
                                                        : BK_DECOMPILE_AUTO;
    if (want == BK_DECOMPILE_AUTO) return cli_usage_error(me, "output '%s' must end in .vmf or .map (or / for a folder)", out);
    if (want == BK_DECOMPILE_MAP_Q3 && o.format && strcmp(o.format, "quake") == 0) want = BK_DECOMPILE_MAP_QUAKE;
    bk_file *f;
    void *owned;
    rc = cli_load(o.positional[0], &o, &f, &owned);
    if (rc) return rc;
    bk_decompile_stats st;
    size_t len = 0;
    char why[1600];
    bk_result r = cli_decompile_write(o.positional[0], f, &o.opt, want, out, false, NULL, 0, &st, &len, why, sizeof why);
    bk_file_free(f);
    bk_free(owned);
    if (r != BK_OK && why[0] && r != BK_EUNSUPPORTED) fprintf(stderr, "%s\n", why);
    else if (r == BK_EUNSUPPORTED && strstr(why, "decompiles to")) fprintf(stderr, "%s\n", why);
    if (r == BK_OK) print_stats(&o, out, len, &st);
    return r == BK_OK ? EXIT_OK : EXIT_BAD_INPUT;
}
