/* convert and textures: the commands that write files. */
#include <errno.h>
#include <stdarg.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define BK_ADVANCED_API /* bk_file_into_scene: the file is done with */
#include "bspkit/advanced.h"
#include "bspkit/dpm.h"
#include "bspkit/source.h"
#include "cli.h"


static bool has_ext(const char *p, const char *ext)
{
    size_t n = strlen(p), e = strlen(ext);
    if (n < e) return false;
    for (size_t i = 0; i < e; i++) {
        char a = p[n - e + i], b = ext[i];
        if (a >= 'A' && a <= 'Z') a = (char)(a + 32);
        if (a != b) return false;
    }
    return true;
}

static const char *extra_of(const bk_material *m, const char *key)
{
    for (uint32_t i = 0; i < m->extra_count; i++)
        if (strcmp(m->extras[i].key, key) == 0) return m->extras[i].value;
    return NULL;
}

/* a line being built: grows as needed (a -v list of missing textures has no bound) */
typedef struct line_buf {
    char *s;
    size_t n, cap;
    bool oom;
} line_buf;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void lb_add(line_buf *l, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (w < 0 || l->oom) return;
    if (l->n + (size_t)w + 1 > l->cap) {
        size_t nc = (l->n + (size_t)w + 1) * 2;
        char *ns = realloc(l->s, nc);
        if (!ns) {
            l->oom = true;
            return;
        }
        l->s = ns;
        l->cap = nc;
    }
    va_start(ap, fmt);
    vsnprintf(l->s + l->n, l->cap - l->n, fmt, ap);
    va_end(ap);
    l->n += (size_t)w;
}

static void lb_emit(line_buf *l, cli_line_fn emit, void *user)
{
    if (l->n && !l->oom) emit(user, l->s);
    l->n = 0;
    l->oom = false;
}

void cli_missing_lines(const cli_opts *o, bk_format fmt, const char *wad, const bk_scene *s, cli_line_fn emit,
                       void *user)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < s->material_count; i++) n += extra_of(&s->materials[i], "missing") != NULL;
    if (!n || (o->opt.flags & BK_OPT_NO_TEXTURES)) return;
    line_buf l = {0};
    lb_add(&l, "%u of %u materials have no texture:", n, s->material_count);
    uint32_t shown = 0, limit = o->verbose ? UINT32_MAX : 8;
    for (uint32_t i = 0; i < s->material_count; i++) {
        if (!extra_of(&s->materials[i], "missing")) continue;
        if (shown < limit) lb_add(&l, "%s %s", shown ? "," : "", s->materials[i].name);
        shown++;
    }
    if (shown > limit) lb_add(&l, " ... (%u more; -v lists them all)", shown - limit);
    lb_emit(&l, emit, user);
    if (o->path_count) {
        lb_add(&l, "looked in:");
        for (int i = 0; i < o->path_count; i++) lb_add(&l, " %s", o->paths[i]);
        lb_add(&l, " (and beside the %s)", fmt == BK_FORMAT_MDL ? "model" : "map");
    } else {
        lb_add(&l, "looked beside the %s only", fmt == BK_FORMAT_MDL ? "model" : "map");
    }
    lb_emit(&l, emit, user);
    if (fmt == BK_FORMAT_GOLDSRC && wad && *wad) {
        lb_add(&l, "the map names these WADs:");
        const char *p = wad;
        while (*p) {
            const char *e = strchr(p, ';');
            size_t len = e ? (size_t)(e - p) : strlen(p);
            const char *b = p;
            for (const char *q = p; q < p + len; q++)
                if (*q == '/' || *q == '\\') b = q + 1;
            if (p + len > b) lb_add(&l, " %.*s", (int)(p + len - b), b);
            p += len + (e ? 1 : 0);
        }
        lb_emit(&l, emit, user);
        lb_add(&l, "give them with --wad FILE.wad, or --game-dir DIR for the folder that holds them");
    } else if (fmt == BK_FORMAT_QUAKE3) {
        lb_add(&l, "give the game folder or its .pk3 archives with --game-dir (e.g. --game-dir baseoa)");
    } else if (fmt == BK_FORMAT_SOURCE || fmt == BK_FORMAT_MDL) {
        lb_add(&l, "give the game folder (its *_dir.vpk files and loose materials/) with --game-dir, or a NAME_dir.vpk");
    } else {
        lb_add(&l, "give the folder that holds them with --game-dir DIR");
    }
    lb_emit(&l, emit, user);
    free(l.s);
}

static void print_indented(void *user, const char *line)
{
    (void)user;
    printf("  %s\n", line);
}

/* Build the scene; the first error the builder reports (a framegroups file's bad line, a
 * texture archive it could not read) is held back and becomes the failure's own message, so
 * the last line names the file and place at fault instead of a bare "malformed data". */
typedef struct held_error {
    bk_diag_fn next;
    void *next_user;
    bool held;
    char text[512];
} held_error;

static void hold_first_error(void *user, const bk_diag *d)
{
    held_error *h = user;
    if (d->severity == BK_SEV_ERROR && !h->held) {
        bk_diag_format(d, h->text, sizeof h->text);
        h->held = true;
        return;
    }
    if (h->next) h->next(h->next_user, d);
}

/* f is consumed: freed as the scene is built (bk_file_into_scene) */
static bk_result build_scene(bk_file *f, const char *name, const bk_options *opt, bk_scene **out)
{
    held_error h = {opt->diag, opt->diag_user, false, ""};
    bk_options o2 = *opt;
    o2.diag = hold_first_error;
    o2.diag_user = &h;
    bk_result r = bk_file_into_scene(f, &o2, out);
    if (r != BK_OK)
        fprintf(stderr, "%s: cannot build a scene: %s\n", name, h.held ? h.text : bk_strerror(r));
    else if (h.held) /* an error the builder got past: shown where it would have been */
        fprintf(stderr, "%s\n", h.text);
    return r;
}

int cmd_convert(int argc, char **argv)
{
    const cli_cmd *me = cli_find("convert");
    cli_opts o;
    int rc = cli_begin(me, argc, argv, 1, -1, &o);
    if (rc != CLI_CONTINUE) return rc;
    if (!o.output) return cli_usage_error(me, "missing -o OUT%s", "");
    const char *out = o.output;
    struct stat st0;
    bool in_dir = stat(o.positional[0], &st0) == 0 && S_ISDIR(st0.st_mode);
    size_t ol = strlen(out);
    if (o.positional_count > 1 || in_dir || (ol && out[ol - 1] == '/') ||
        ((has_ext(o.positional[0], ".pk3") || has_ext(o.positional[0], ".zip")) && !strchr(o.positional[0], ':'))) {
        if (o.dry_run) return cli_dry_run_refused(me, "convert of many files");
        return cli_batch(&o);
    }
    /* one file: the library's second threads (a Quake 3 atlas's PNG, the exporter's PNGs, atlas
     * packing) allocate from the main heap instead of a heap of their own, whose freed blocks the
     * main thread would not reuse (100-250 KB more peak on a small map, one run in two) */
#if defined(__GLIBC__) && defined(M_ARENA_MAX)
    mallopt(M_ARENA_MAX, 1);
#endif
    bool gltf = has_ext(out, ".glb") || has_ext(out, ".gltf"), obj = has_ext(out, ".obj"), dpm = has_ext(out, ".dpm");
    bool bsp = has_ext(out, ".bsp");
    if (!gltf && !obj && !dpm && !bsp)
        return cli_usage_error(me, "output '%s' must end in .glb, .gltf, .obj, .bsp or .dpm", out);
    if (o.dry_run && !bsp) return cli_dry_run_refused(me, "convert to anything but OUT.bsp");
    /* OBJ has one UV set: no lightmap atlas to build (nor to encode) */
    if (obj) o.opt.flags |= BK_OPT_NO_LIGHTMAPS;
    bk_file *f;
    void *owned;
    rc = cli_load(o.positional[0], &o, &f, &owned);
    if (rc) return rc;
    bk_result r;
    if (bsp) {
        rc = cli_rewrite(&o, f);
        bk_file_free(f);
        bk_free(owned);
        return rc;
    }
    if (dpm) {
        r = bk_dpm_file_write(f, &o.opt, o.keep_all_bones ? BK_DPM_KEEP_ALL_BONES : 0, out);
        char why[1600];
        if (r == BK_OK) {
            if (!o.quiet) printf("wrote %s\n", out);
        } else if (cli_write_failed(out, r, why, sizeof why)) {
            fprintf(stderr, "%s\n", why);
        } else {
            fprintf(stderr, "%s: cannot write %s: %s\n", o.positional[0], out,
                    r == BK_EUNSUPPORTED ? "this input has no writer for that format" : bk_strerror(r));
        }
        bk_file_free(f);
        bk_free(owned);
        return r == BK_OK ? EXIT_OK : EXIT_BAD_INPUT;
    }
    bk_format fmt = bk_file_format(f);
    const bk_entities *es = bk_file_entities(f);
    const char *wad0 = es->count ? bk_entity_get(&es->items[0], "wad") : NULL;
    char *wad = wad0 ? strdup(wad0) : NULL;
    /* the scene owns everything the export needs: the file goes with its building, so the input
     * and its decoded arrays are not alive alongside the export's buffers (peak memory) */
    bk_scene *s = NULL;
    r = build_scene(f, o.positional[0], &o.opt, &s);
    f = NULL;
    bk_free(owned);
    owned = NULL;
    if (r != BK_OK) {
        free(wad);
        return EXIT_BAD_INPUT;
    }
    bk_export_stats st;
    r = gltf ? bk_export_gltf(s, &o.xopt, out, &st) : bk_export_obj(s, &o.xopt, out, &st);
    char why[1600];
    if (r != BK_OK && cli_write_failed(out, r, why, sizeof why)) {
        fprintf(stderr, "%s\n", why);
    } else if (r != BK_OK) {
        fprintf(stderr, "%s: cannot write %s: %s\n", o.positional[0], out, bk_strerror(r));
    } else if (!o.quiet) {
        printf("wrote %s: %llu bytes, %u nodes, %u meshes, %u primitives, %llu vertices, %llu triangles, "
               "%u materials, %u images, %u skins, %u animations\n",
               out, (unsigned long long)st.bytes, st.nodes, st.meshes, st.primitives,
               (unsigned long long)st.vertices, (unsigned long long)st.triangles, st.materials, st.images, st.skins,
               st.animations);
        if (st.cleaned_values || st.dropped_degenerate || s->warning_count)
            printf("  cleaned %llu non-finite or non-unit values, dropped %llu degenerate triangles, %u warnings\n",
                   (unsigned long long)st.cleaned_values, (unsigned long long)st.dropped_degenerate, s->warning_count);
        cli_missing_lines(&o, fmt, wad, s, print_indented, NULL);
    }
    free(wad);
    bk_scene_free(s);
    return r == BK_OK ? EXIT_OK : EXIT_BAD_INPUT;
}

/* A file name from a texture name: keep it readable, drop path separators and controls. */
static void file_name(char *out, size_t cap, const char *name)
{
    size_t o = 0;
    if (!name || !*name) name = "unnamed";
    for (; *name && o + 1 < cap; name++) {
        unsigned char c = (unsigned char)*name;
        out[o++] = (char)(c < 32 || c == 127 || c == '/' || c == '\\' || c == ':' ? '_' : c);
    }
    out[o] = 0;
    if (strcmp(out, ".") == 0 || strcmp(out, "..") == 0) out[0] = '_';
}

int cmd_textures(int argc, char **argv)
{
    const cli_cmd *me = cli_find("textures");
    cli_opts o;
    int rc = cli_begin(me, argc, argv, 1, 1, &o);
    if (rc != CLI_CONTINUE) return rc;
    if (!o.output) return cli_usage_error(me, "missing -o DIR%s", "");
    if (cli_q2_image_input(o.positional[0])) return cli_q2_textures(&o);
    bk_file *f;
    void *owned;
    rc = cli_load(o.positional[0], &o, &f, &owned);
    if (rc) return rc;
    bk_scene *s = NULL;
    bk_result r = bk_file_extract_images(f, &o.opt, &s);
    if (r != BK_OK) {
        fprintf(stderr, "%s: cannot extract textures: %s\n", o.positional[0], bk_strerror(r));
        bk_file_free(f);
        bk_free(owned);
        return EXIT_BAD_INPUT;
    }
    if (cli_mkdir_p(o.output) != 0) {
        fprintf(stderr, "bspkit textures: cannot create folder %s\n", o.output);
        rc = EXIT_BAD_INPUT;
    }
    /* every PNG of the run is one output: renamed into the folder together at the end, or none */
    bk_write_group *g = NULL;
    if (rc == EXIT_OK && bk_write_group_begin(&g, 0) != BK_OK) {
        fprintf(stderr, "bspkit textures: out of memory\n");
        rc = EXIT_BAD_INPUT;
    }
    uint32_t written = 0, skipped = 0;
    for (uint32_t i = 0; i < s->image_count && rc == EXIT_OK; i++) {
        const bk_image *im = &s->images[i];
        if (!bk_scene_image_has_pixels(s, i)) {
            skipped++;
            continue;
        }
        char nm[1024], file[1100], path[2048];
        /* a name with folders (Source pakfile paths) keeps them, when they are safe */
        if (strchr(im->name, '/') && bk_archive_name_safe(im->name)) snprintf(nm, sizeof nm, "%s", im->name);
        else file_name(nm, sizeof nm, im->name);
        /* a name seen before gets its index appended */
        bool dup = false;
        for (uint32_t j = 0; j < i && !dup; j++) dup = strcmp(s->images[j].name, im->name) == 0;
        if (dup) snprintf(file, sizeof file, "%s.%u.png", nm, i);
        else snprintf(file, sizeof file, "%s.png", nm);
        cli_join(path, sizeof path, o.output, file);
        char *slash = strrchr(path, '/');
        if (slash && slash > path + cli_dir_len(o.output)) {
            *slash = 0;
            if (cli_mkdir_p(path) != 0) {
                fprintf(stderr, "bspkit textures: cannot create folder %s\n", path);
                rc = EXIT_BAD_INPUT;
                break;
            }
            *slash = '/';
        }
        r = bk_write_group_png(g, s, i, path);
        if (r != BK_OK) {
            char why[1600];
            if (cli_write_failed(path, r, why, sizeof why)) fprintf(stderr, "%s\n", why);
            else fprintf(stderr, "bspkit textures: cannot write %s: %s\n", path, bk_strerror(r));
            rc = EXIT_BAD_INPUT;
            break;
        }
        if (!o.quiet) printf("%s %ux%u\n", path, im->width, im->height);
        written++;
    }
    if (rc == EXIT_OK) {
        r = bk_write_group_commit(g);
        if (r != BK_OK) {
            char why[1600];
            if (cli_write_failed(o.output, r, why, sizeof why)) fprintf(stderr, "%s\n", why);
            else fprintf(stderr, "bspkit textures: cannot write into %s: %s\n", o.output, bk_strerror(r));
            rc = EXIT_BAD_INPUT;
        }
    } else {
        bk_write_group_abort(g);
    }
    if (rc == EXIT_OK)
        printf("%u textures written to %s%s\n", written, o.output, skipped ? " (external ones skipped)" : "");
    else if (written)
        fprintf(stderr, "bspkit textures: none of the %u textures written\n", written);
    bk_scene_free(s);
    bk_file_free(f);
    bk_free(owned);
    return rc;
}
