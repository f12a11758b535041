/* textures FILE.wal | FILE.pcx | FOLDER -o DIR: Quake 2 images as PNG, before the map loader
 * knows Quake 2. A .wal has no magic, so these are chosen by their names (.wal, .pcx) or, for a
 * folder, every .wal / .pcx inside it; a .wal is coloured by the game's palette
 * (pics/colormap.pcx found through --game-dir, else bspkit's stand-in, with a warning). */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "bspkit/quake2.h"
#include "bspkit/render.h"
#include "cli.h"

static bool ends_with(const char *s, const char *ext)
{
    size_t n = strlen(s), e = strlen(ext);
    return n >= e && strcasecmp(s + n - e, ext) == 0;
}

static bool is_folder(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

bool cli_q2_image_input(const char *path)
{
    return ends_with(path, ".wal") || ends_with(path, ".pcx") || (!cli_archive_sep(path) && is_folder(path));
}

typedef struct q2run {
    cli_opts *o;
    bk_write_group *g;
    const uint8_t *pal;
    uint32_t written, failed;
    int depth;
} q2run;

/* a regular file's bytes, at most max (malloc'd) */
static bk_result read_all(const char *path, size_t max, uint8_t **out, size_t *size)
{
    *out = NULL;
    *size = 0;
    FILE *fp = fopen(path, "rb");
    if (!fp) return BK_ENOTFOUND;
    uint8_t *b = malloc(max + 1);
    size_t n = b ? fread(b, 1, max + 1, fp) : 0;
    fclose(fp);
    if (!b) return BK_ENOMEM;
    if (n > max) {
        free(b);
        return BK_ELIMIT;
    }
    *out = b;
    *size = n;
    return BK_OK;
}

/* one image (its bytes given, or read from path): decode, then DIR/rel (.png for its extension)
 * into the write group */
static void one(q2run *r, const char *path, const char *rel, uint8_t *given, size_t given_size)
{
    uint8_t *data = given, *rgba = NULL;
    size_t size = given_size;
    uint32_t w = 0, h = 0;
    bk_options opt = r->o->opt;
    opt.name = path;
    bk_result res = given ? BK_OK : read_all(path, 64u << 20, &data, &size);
    if (res == BK_OK)
        res = ends_with(path, ".wal") ? bk_wal_decode(data, size, &opt, r->pal, 0, &rgba, &w, &h)
                                      : bk_pcx_decode(data, size, &opt, &rgba, &w, &h, NULL);
    if (given) bk_free(data);
    else free(data);
    if (res != BK_OK) {
        fprintf(stderr, "%s: error: %s\n", path, bk_strerror(res));
        r->failed++;
        return;
    }
    char out[2048], sub[1500];
    snprintf(sub, sizeof sub, "%.*s.png", (int)(strlen(rel) - 4), rel);
    cli_join(out, sizeof out, r->o->output, sub);
    char *slash = strrchr(out, '/');
    if (slash && slash > out + cli_dir_len(r->o->output)) {
        *slash = 0;
        if (cli_mkdir_p(out) != 0) res = BK_EIO;
        *slash = '/';
    }
    if (res == BK_OK) res = bk_write_group_png_rgba(r->g, rgba, w, h, out);
    bk_free(rgba);
    if (res != BK_OK) {
        fprintf(stderr, "bspkit textures: cannot write %s: %s\n", out, bk_strerror(res));
        r->failed++;
        return;
    }
    if (!r->o->quiet) printf("%s %ux%u\n", out, w, h);
    r->written++;
}

static void walk(q2run *r, const char *dir, const char *rel)
{
    if (r->depth > 32) return;
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.') continue;
        char path[2048], sub[2048];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", de->d_name);
        struct stat st;
        if (lstat(path, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) {
            r->depth++;
            walk(r, path, sub);
            r->depth--;
        } else if (S_ISREG(st.st_mode) && (ends_with(de->d_name, ".wal") || ends_with(de->d_name, ".pcx"))) {
            one(r, path, sub, NULL, 0);
        }
    }
    closedir(d);
}

int cli_q2_textures(cli_opts *o)
{
    const char *in = o->positional[0];
    uint8_t pal[768];
    bool dflt = false;
    /* ARCHIVE.pak:textures/x.wal (or .pk3:, .zip:): the member, its archive searched for the
     * palette too */
    uint8_t *member = NULL;
    size_t member_size = 0;
    const char *sep = cli_archive_sep(in);
    if (sep) {
        int rc = cli_read_member(in, sep, o, &member, &member_size);
        if (rc != EXIT_OK) return rc;
    }
    /* the palette only matters to .wal files: asked for once, its warning printed once */
    bool folder = is_folder(in);
    if (folder || ends_with(in, ".wal")) {
        bk_options po = o->opt;
        po.name = in;
        if (bk_palette_load(&po, BK_PALETTE_QUAKE2, pal, &dflt) != BK_OK) {
            bk_free(member);
            return EXIT_BAD_INPUT;
        }
    }
    q2run r = {o, NULL, pal, 0, 0, 0};
    if (cli_mkdir_p(o->output) != 0 || bk_write_group_begin(&r.g, 0) != BK_OK) {
        fprintf(stderr, "bspkit textures: cannot create folder %s\n", o->output);
        bk_free(member);
        return EXIT_BAD_INPUT;
    }
    if (folder) {
        walk(&r, in, "");
    } else {
        const char *base = strrchr(sep ? sep + 1 : in, '/');
        one(&r, in, base ? base + 1 : sep ? sep + 1 : in, member, member_size);
    }
    /* every PNG of the run is one output: all renamed into place, or none when any failed */
    if (r.failed || !r.written) {
        bk_write_group_abort(r.g);
        if (!r.failed) fprintf(stderr, "%s: no .wal or .pcx files\n", in);
        else if (r.written) fprintf(stderr, "bspkit textures: none of the %u images written\n", r.written);
        return EXIT_BAD_INPUT;
    }
    bk_result res = bk_write_group_commit(r.g);
    if (res != BK_OK) {
        char why[1600];
        if (cli_write_failed(o->output, res, why, sizeof why)) fprintf(stderr, "%s\n", why);
        else fprintf(stderr, "bspkit textures: cannot write into %s: %s\n", o->output, bk_strerror(res));
        return EXIT_BAD_INPUT;
    }
    printf("%u images written to %s%s\n", r.written, o->output, dflt ? " (.wal colours: bspkit's stand-in palette)" : "");
    return EXIT_OK;
}
