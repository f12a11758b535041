/* render: a map or model drawn by the library's software renderer (bspkit/render.h) into a PNG;
 * with --overview a top-down radar picture and its CS-style .txt. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#define BK_ADVANCED_API /* one view drawn: memory given back as the render goes */
#include "bspkit/advanced.h"
#include "bspkit/query.h"
#include "bspkit/render.h"
#include "cli.h"
#include "cmd_render.h"

static int bad(const char *what)
{
    fprintf(stderr, "bspkit render: %s\n", what);
    return -1;
}

static int num(const char *s, float *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !isfinite(v) || fabs(v) > 1e7) return -1;
    *out = (float)v;
    return 0;
}

/* --style N=PATTERN|on|off: a light style's pattern (letters a..z, at most 64, as Quake's
 * MAX_STYLESTRING), or its switch */
static int parse_style(const char *v, render_args *ra)
{
    char *end;
    long n = strtol(v, &end, 10);
    if (end == v || *end != '=' || n < 0 || n > 254)
        return bad("--style needs N=PATTERN, N=on or N=off, N a style from 0 to 254 (e.g. 32=off, 2=az)");
    const char *p = end + 1;
    size_t len = strlen(p);
    ra->relight = true;
    if (strcmp(p, "on") == 0 || strcmp(p, "off") == 0) {
        ra->style_switch[n] = p[1] == 'n' ? 1 : 2;
        ra->style_pattern[n] = NULL;
        return 0;
    }
    if (len < 1 || len > 64 || strspn(p, "abcdefghijklmnopqrstuvwxyz") != len)
        return bad("--style N=PATTERN: a pattern is 1 to 64 letters a..z ('a' dark, 'm' normal, 'z' double)");
    ra->style_pattern[n] = p;
    ra->style_switch[n] = 1;
    return 0;
}

/* the styled lightmaps redrawn as --style and --time say (the map at rest without them) */
static void relight(bk_scene *s, const render_args *ra, const char *in)
{
    uint32_t values[256];
    bk_lightstyle_values(s, ra->time, values);
    for (int k = 0; k < 255; k++) {
        if (!ra->style_switch[k]) continue;
        bool carried = false;
        const char *pat = ra->style_pattern[k];
        for (uint32_t i = 0; i < s->lightstyle_count; i++)
            if (s->lightstyles[i].style == (uint32_t)k) {
                carried = true;
                if (!pat) pat = s->lightstyles[i].pattern;
            }
        if (!carried)
            fprintf(stderr, "%s: note: no face carries light style %d: --style %d changes nothing\n", in, k, k);
        values[k] = ra->style_switch[k] == 2 ? 0 : bk_lightstyle_value(pat && *pat ? pat : "m", ra->time);
    }
    if (!s->lightstyle_count)
        fprintf(stderr, "%s: note: the map has no light styles (only style 0): drawn as it is\n", in);
    bk_result r = bk_scene_relight(s, values);
    if (r != BK_OK) fprintf(stderr, "%s: warning: the light styles were not applied: %s\n", in, bk_strerror(r));
}

/* take the render options out of argv (the rest goes to the shared parser) */
static int parse_render_args(int *argc, char **argv, render_args *ra)
{
    int out = 1;
    for (int i = 1; i < *argc; i++) {
        const char *a = argv[i];
        int need = strcmp(a, "--eye") == 0 ? 3 : strcmp(a, "--z-range") == 0 ? 2 :
                   (strcmp(a, "--yaw") == 0 || strcmp(a, "--pitch") == 0 || strcmp(a, "--fov") == 0 ||
                    strcmp(a, "--spawn") == 0 || strcmp(a, "--size") == 0 || strcmp(a, "--threads") == 0 ||
                    strcmp(a, "--style") == 0 || strcmp(a, "--time") == 0) ? 1 : 0;
        if (need && i + need >= *argc) {
            fprintf(stderr, "bspkit render: option %s needs %d value%s\n", a, need, need > 1 ? "s" : "");
            return -1;
        }
        bk_render_options *o = &ra->ro;
        if (strcmp(a, "--eye") == 0) {
            for (int k = 0; k < 3; k++)
                if (num(argv[i + 1 + k], &o->eye[k]) < 0) return bad("--eye needs three numbers X Y Z (engine units)");
            ra->has_eye = true;
        } else if (strcmp(a, "--yaw") == 0) {
            if (num(argv[i + 1], &o->yaw) < 0) return bad("--yaw needs a number of degrees");
        } else if (strcmp(a, "--pitch") == 0) {
            if (num(argv[i + 1], &o->pitch) < 0 || fabsf(o->pitch) > 90) return bad("--pitch needs degrees from -90 to 90");
        } else if (strcmp(a, "--fov") == 0) {
            if (num(argv[i + 1], &o->fov) < 0 || !(o->fov >= 1 && o->fov <= 170))
                return bad("--fov needs a horizontal field of view from 1 to 170 degrees");
        } else if (strcmp(a, "--spawn") == 0) {
            char *end;
            long v = strtol(argv[i + 1], &end, 10);
            if (*end || v < 1 || v > 1000000) return bad("--spawn needs a spawn number, 1 for the first");
            o->spawn = (uint32_t)v;
        } else if (strcmp(a, "--threads") == 0) {
            char *end;
            long v = strtol(argv[i + 1], &end, 10);
            if (*end || v < 1 || v > 64) return bad("--threads needs a number from 1 to 64");
            o->threads = (uint32_t)v;
        } else if (strcmp(a, "--size") == 0) {
            unsigned long w, h;
            char *x, *end;
            w = strtoul(argv[i + 1], &x, 10);
            if (x == argv[i + 1] || (*x != 'x' && *x != 'X')) return bad("--size needs WIDTHxHEIGHT, e.g. 1280x720");
            h = strtoul(x + 1, &end, 10);
            if (end == x + 1 || *end) return bad("--size needs WIDTHxHEIGHT, e.g. 1280x720");
            if (w < 1 || h < 1 || w > BK_RENDER_MAX_SIDE || h > BK_RENDER_MAX_SIDE ||
                (unsigned long long)w * h > BK_RENDER_MAX_PIXELS) {
                fprintf(stderr, "bspkit render: --size %s: width and height must be 1..%u and at most %u pixels in all\n",
                        argv[i + 1], BK_RENDER_MAX_SIDE, BK_RENDER_MAX_PIXELS);
                return -1;
            }
            o->width = (uint32_t)w, o->height = (uint32_t)h;
        } else if (strcmp(a, "--z-range") == 0) {
            if (num(argv[i + 1], &o->z_min) < 0 || num(argv[i + 2], &o->z_max) < 0 || !(o->z_min < o->z_max))
                return bad("--z-range needs two heights MIN MAX with MIN < MAX");
            o->z_range = true;
        } else if (strcmp(a, "--style") == 0) {
            if (parse_style(argv[i + 1], ra) < 0) return -1;
        } else if (strcmp(a, "--time") == 0) {
            float t;
            if (num(argv[i + 1], &t) < 0 || t < 0) return bad("--time needs seconds from 0 (the light styles' 10 Hz clock)");
            ra->time = t;
            ra->relight = true;
        } else if (strcmp(a, "--overview") == 0) {
            ra->overview = true;
        } else if (strcmp(a, "--mark-spawns") == 0) {
            o->mark_spawns = true;
        } else if (strcmp(a, "--no-pvs") == 0) {
            o->no_pvs = true;
        } else {
            argv[out++] = argv[i];
            continue;
        }
        i += need;
    }
    *argc = out;
    argv[out] = NULL;
    if (ra->has_eye && ra->ro.spawn) return bad("--eye and --spawn are two views: give one");
    if (ra->overview && (ra->has_eye || ra->ro.spawn)) return bad("--overview is a view of its own: no --eye or --spawn");
    bk_render_options *o = &ra->ro;
    o->view = ra->overview ? BK_VIEW_OVERVIEW : ra->has_eye ? BK_VIEW_EYE : o->spawn ? BK_VIEW_SPAWN : BK_VIEW_AUTO;
    return 0;
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/'), *c = strrchr(p, ':');
    if (c && (!s || c > s)) s = c;
    return s ? s + 1 : p;
}

/* the CS-style overview description beside the PNG */
static int overview_txt(const char *png, const char *map, const bk_render_info *ri, char *buf, size_t cap)
{
    char name[256];
    const char *b = base_name(map);
    size_t n = strcspn(b, ".");
    if (n >= sizeof name) n = sizeof name - 1;
    memcpy(name, b, n);
    name[n] = 0;
    (void)png;
    return snprintf(buf, cap,
                    "// overview of %s written by bspkit render --overview: pixel x = (X - pos_x) / scale,\n"
                    "// pixel y = (pos_y - Y) / scale in a %ux%u picture; heights %g .. %g\n"
                    "\"%s\"\n{\n\t\"material\"\t\"overviews/%s\"\n\t\"pos_x\"\t\t\"%.2f\"\n\t\"pos_y\"\t\t\"%.2f\"\n"
                    "\t\"scale\"\t\t\"%.4f\"\n\t\"rotate\"\t\"0\"\n\t\"zoom\"\t\t\"1.0\"\n}\n",
                    b, ri->width, ri->height, ri->z_min, ri->z_max, name, name, ri->pos_x, ri->pos_y,
                    ri->scale * (float)ri->width / 1024.0f);
}

static const char *why(bk_result r, const bk_render_options *o)
{
    if (r == BK_ELIMIT) return "the picture is too large";
    if (r != BK_EARG) return bk_strerror(r);
    if (o->view == BK_VIEW_SPAWN) return "the map has no such player spawn (see --json's spawns)";
    if (o->view == BK_VIEW_EYE) return "the eye is inside a solid (or not a finite point)";
    if (o->view == BK_VIEW_AUTO) return "the first player spawn's eye is inside a solid";
    return "bad view";
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int cli_render_one(cli_opts *o, const render_args *ra, const char *in, const char *out, render_result *rr)
{
    memset(rr, 0, sizeof *rr);
    double t0 = now_ms();
    bk_file *f = NULL;
    void *owned = NULL;
    if (cli_load(in, o, &f, &owned) != EXIT_OK) {
        snprintf(rr->error, sizeof rr->error, "%s: cannot load", in);
        return EXIT_BAD_INPUT;
    }
    bk_scene *s = NULL;
    bk_query *q = NULL;
    int rc = EXIT_OK;
    bk_result r = bk_file_build_scene(f, &o->opt, &s);
    if (r != BK_OK) {
        bk_format fmt = bk_file_format(f);
        bool images = fmt == BK_FORMAT_WAD3 || fmt == BK_FORMAT_VTF;
        snprintf(rr->error, sizeof rr->error, "%s: error: cannot build the scene: %s%s%s", in, bk_strerror(r),
                 images && r == BK_EUNSUPPORTED ? " (a " : "", images && r == BK_EUNSUPPORTED ?
                 (fmt == BK_FORMAT_WAD3 ? "WAD3 holds textures, not a scene: bspkit textures FILE -o DIR writes them)"
                                        : "VTF is a texture, not a scene: bspkit textures FILE -o DIR writes it)") : "");
        rc = EXIT_BAD_INPUT;
        goto done;
    }
    if (ra->relight) relight(s, ra, in);
    bk_options qo = o->opt;
    qo.diag = NULL;
    qo.flags |= BK_OPT_FEW_POINTS;   /* the eye alone is asked */
    if (bk_query_open(f, &qo, &q) != BK_OK) q = NULL;
    bk_file_release_pages(f); /* the scene and query are built: what the query reads comes back */
    bk_cli_trim();            /* and what building them freed goes back */
    uint8_t *px = NULL;
    double t1 = now_ms();
    bk_renderer *rd = NULL;
    r = bk_renderer_new(s, q, &rd);
    if (r == BK_OK) {
        /* the renderer holds its own copy of the triangles: the scene's go */
        bk_scene_release_geometry(s);
        bk_cli_trim(); /* the primitives' arrays were small blocks, all over the heap */
        /* then the textures this one view draws, at the levels it samples, and the blocks of each
         * lightmap it reads, each scene image given back once decoded (those it does not draw
         * first), before the frame is allocated */
        r = bk_renderer_prepare_release(rd, &ra->ro, s);
    }
    if (r == BK_OK) r = bk_renderer_draw(rd, &ra->ro, &px, &rr->info);
    bk_renderer_free(rd);
    rr->render_ms = now_ms() - t1;
    if (r != BK_OK) {
        snprintf(rr->error, sizeof rr->error, "%s: error: cannot render: %s", in, why(r, &ra->ro));
        /* a view the user asked for that the map cannot give (a spawn it lacks, an eye in solid)
         * is a usage error; the default view failing is the map's */
        bool asked = ra->ro.view == BK_VIEW_EYE || ra->ro.view == BK_VIEW_SPAWN || ra->ro.z_range;
        rc = (r == BK_EARG && asked) ? EXIT_USAGE : EXIT_BAD_INPUT;
        goto done;
    }
    /* the map is done with: its memory goes back before the PNG is made (the peak is then the
     * larger of drawing and encoding, not their sum) */
    bk_query_free(q);
    bk_scene_free(s);
    bk_file_free(f);
    bk_free(owned);
    q = NULL, s = NULL, f = NULL, owned = NULL;
    bk_cli_trim(); /* the map's small blocks, all over the heap, go back too */
    bk_write_group *g = NULL;
    r = bk_write_group_begin(&g, 0);
    if (r == BK_OK) r = bk_write_group_png_rgba_consume(g, px, rr->info.width, rr->info.height, out);
    if (r == BK_OK && ra->overview) {
        char txt[1024], path[4096];
        size_t n = strlen(out);
        if (n > 4 && strcmp(out + n - 4, ".png") == 0) n -= 4;
        snprintf(path, sizeof path, "%.*s.txt", (int)n, out);
        int tn = overview_txt(out, in, &rr->info, txt, sizeof txt);
        r = bk_write_group_file(g, path, txt, (size_t)(tn > 0 ? tn : 0));
    }
    if (g) r = r == BK_OK ? bk_write_group_commit(g) : (bk_write_group_abort(g), r);
    bk_free(px);
    if (r != BK_OK) {
        if (!cli_write_failed(out, r, rr->error, sizeof rr->error))
            snprintf(rr->error, sizeof rr->error, "%s: error: cannot write: %s", out, bk_strerror(r));
        rc = EXIT_BAD_INPUT;
    }
done:
    bk_query_free(q);
    bk_scene_free(s);
    bk_file_free(f);
    bk_free(owned);
    rr->total_ms = now_ms() - t0;
    return rc;
}

cJSON *cli_render_json(const char *in, const char *out, const render_result *rr)
{
    cJSON *j = cJSON_CreateObject();
    if (!j) return NULL;
    cJSON_AddStringToObject(j, "file", in);
    cJSON_AddStringToObject(j, "output", out);
    if (rr->error[0]) {
        cJSON_AddStringToObject(j, "error", rr->error);
        return j;
    }
    const bk_render_info *ri = &rr->info;
    cJSON_AddNumberToObject(j, "width", ri->width);
    cJSON_AddNumberToObject(j, "height", ri->height);
    cJSON *e = cJSON_AddArrayToObject(j, "eye");
    for (int k = 0; k < 3; k++) cJSON_AddItemToArray(e, cJSON_CreateNumber(round(ri->eye[k] * 100) / 100));
    cJSON_AddNumberToObject(j, "yaw", ri->yaw);
    cJSON_AddNumberToObject(j, "pitch", ri->pitch);
    cJSON_AddNumberToObject(j, "cluster", ri->cluster);
    cJSON_AddNumberToObject(j, "spawns", ri->spawn_count);
    cJSON_AddNumberToObject(j, "triangles", (double)ri->triangles);
    cJSON_AddNumberToObject(j, "triangles_pvs", (double)ri->triangles_pvs);
    cJSON_AddNumberToObject(j, "triangles_drawn", (double)ri->triangles_drawn);
    if (ri->scale > 0) {
        cJSON_AddNumberToObject(j, "pos_x", ri->pos_x);
        cJSON_AddNumberToObject(j, "pos_y", ri->pos_y);
        cJSON_AddNumberToObject(j, "units_per_pixel", ri->scale);
        cJSON_AddNumberToObject(j, "z_min", ri->z_min);
        cJSON_AddNumberToObject(j, "z_max", ri->z_max);
    }
    cJSON_AddNumberToObject(j, "render_ms", round(rr->render_ms * 10) / 10);
    cJSON_AddNumberToObject(j, "total_ms", round(rr->total_ms * 10) / 10);
    return j;
}

int cmd_render(int argc, char **argv)
{
    const cli_cmd *me = cli_find("render");
    render_args ra;
    memset(&ra, 0, sizeof ra);
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(me->usage, stdout);
            return EXIT_OK;
        }
    if (parse_render_args(&argc, argv, &ra) < 0) return EXIT_USAGE;
    cli_opts o;
    int rc = cli_begin(me, argc, argv, 1, -1, &o);
    if (rc != CLI_CONTINUE) return rc;
    if (!o.output) return cli_usage_error(me, "-o OUT.png (or -o DIR/ for many files) is required%s", "");
    size_t ol = strlen(o.output);
    if (o.positional_count > 1 || o.output[ol - 1] == '/') return cli_render_batch(&o, &ra);
    render_result rr;
    rc = cli_render_one(&o, &ra, o.positional[0], o.output, &rr);
    if (rr.error[0]) fprintf(stderr, "%s\n", rr.error);
    if (o.json) {
        cJSON *j = cli_render_json(o.positional[0], o.output, &rr);
        if (j) cli_print_json(j);
        cJSON_Delete(j);
    } else if (rc == EXIT_OK && o.verbose) {
        fprintf(stderr, "%s: %ux%u, %llu triangles, %llu in the PVS (cluster %d), %llu drawn, %.1f ms\n", o.output,
                rr.info.width, rr.info.height, (unsigned long long)rr.info.triangles,
                (unsigned long long)rr.info.triangles_pvs, rr.info.cluster, (unsigned long long)rr.info.triangles_drawn,
                rr.render_ms);
    }
    return rc;
}

int cli_render_batch(cli_opts *o, const render_args *ra)
{
    render_args copy = *ra;
    /* files drawn at once share the cores: one thread each unless told */
    if (!copy.ro.threads && o->jobs != 1) copy.ro.threads = 1;
    o->render = &copy;
    int rc = cli_batch(o);
    o->render = NULL;
    return rc;
}
