/* The commands that write maps back: convert MAP -o OUT.bsp (rewrite), entities --import,
 * pak add / remove. All go through bspkit/write.h: validated before a temporary file is renamed
 * over the target. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bspkit/source.h"
#include "bspkit/write.h"
#include "cli.h"

static int save(const cli_opts *o, const char *in, bk_edit *e, const char *out, const char *what)
{
    if (o->dry_run) {   /* built and validated as a save would, and not written */
        uint8_t *data = NULL;
        size_t size = 0;
        bk_result r = bk_edit_save_memory(e, &data, &size);
        bk_free(data);
        if (r != BK_OK) {
            fprintf(stderr, "%s: error: %s would not be written: %s\n", in, out ? out : "the map", bk_strerror(r));
            return EXIT_BAD_INPUT;
        }
        if (!o->quiet)
            printf("dry run: %s would be %zu bytes (%s), valid; nothing written\n", out ? out : "the map", size, what);
        return EXIT_OK;
    }
    bk_result r = bk_edit_save(e, out);
    if (r != BK_OK) {
        char why[1600];
        if (cli_write_failed(out, r, why, sizeof why)) fprintf(stderr, "%s\n", why);
        else fprintf(stderr, "%s: error: %s not written: %s\n", in, out, bk_strerror(r));
        return EXIT_BAD_INPUT;
    }
    if (!o->quiet) printf("wrote %s (%s)\n", out, what);
    return EXIT_OK;
}

static bk_edit *begin(const char *in, bk_file *f, cli_opts *o)
{
    bk_edit *e = NULL;
    o->opt.name = in;
    bk_result r = bk_edit_begin(f, &o->opt, &e);
    if (r != BK_OK) {
        fprintf(stderr, "%s: error: cannot write %s files back%s\n", in, bk_format_name(bk_file_format(f)),
                r == BK_EUNSUPPORTED ? " (maps of GoldSrc, Quake 1, BSP2, Quake 3 and Source only)" : "");
        return NULL;
    }
    return e;
}

/* An edit writes a map: a name that says otherwise (OUT.glb) is refused unless --force, or a
 * user who meant to convert gets a BSP named .glb that no viewer opens. */
static int check_map_output(const char *cmd, const cli_opts *o)
{
    const char *out = o->output, *dot = strrchr(out, '.'), *slash = strrchr(out, '/');
    if (o->force || (dot && (!slash || dot > slash) && strcasecmp(dot, ".bsp") == 0)) return EXIT_OK;
    fprintf(stderr,
            "bspkit %s: %s: the output is a map (BSP), not what that name says; name it .bsp, or give --force "
            "(bspkit convert makes .glb / .gltf / .obj)\n",
            cmd, out);
    return EXIT_USAGE;
}

int cli_rewrite(cli_opts *o, bk_file *f)
{
    bk_edit *e = begin(o->positional[0], f, o);
    if (!e) return EXIT_BAD_INPUT;
    int rc = save(o, o->positional[0], e, o->output, "rewritten, no change");
    bk_edit_free(e);
    return rc;
}

/* ---- entities --import ------------------------------------------------------------------------ */

/* The whole import (a file or '-'), bounded: 64 MiB is far past any engine's entity text (bk_edit
 * refuses past 16 MiB). NULL after a message when it cannot be read (a folder, EACCES, ...) or holds
 * a NUL byte (no text does: /dev/zero is refused at its first block, not after `limit` bytes). */
char *cli_read_text(const char *path, size_t limit, const char *what, size_t *len)
{
    FILE *fp = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!fp) {
        fprintf(stderr, "%s: error: cannot open: %s\n", path, strerror(errno));
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *text = malloc(cap + 1);
    for (size_t got; text && (got = fread(text + n, 1, cap - n, fp)) > 0;) {
        const char *nul = memchr(text + n, 0, got);
        if (nul) {   /* text has none: a binary file or a device (/dev/zero), refused before more is read */
            fprintf(stderr, "%s: error: byte %zu is NUL: not text (a binary file or a device?)\n", path,
                    (size_t)(nul - text));
            free(text);
            text = NULL;
            n = 0;
            break;
        }
        n += got;
        if (n < cap) continue;
        char *t = cap >= limit ? NULL : realloc(text, cap * 2 + 1);
        if (!t) {
            if (cap >= limit) fprintf(stderr, "%s: error: %s over %zu MiB refused\n", path, what, limit >> 20);
            else fprintf(stderr, "%s: error: out of memory\n", path);
            free(text);
            text = NULL;
            break;
        }
        text = t;
        cap *= 2;
    }
    if (text && ferror(fp)) {   /* a folder reads as EISDIR here, not as an empty file */
        fprintf(stderr, "%s: error: cannot read: %s\n", path, strerror(errno));
        free(text);
        text = NULL;
    }
    if (fp != stdin) fclose(fp);
    if (text) text[n] = 0;
    *len = n;
    return text;
}

/* JSON (starts with '[' after blanks and a byte-order mark) or the engines' text form, as UTF-8 */
static bk_result parse_import(const char *path, const char *text, size_t n, bk_entities *ents)
{
    size_t p = n >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
    while (p < n && (text[p] == ' ' || text[p] == '\t' || text[p] == '\r' || text[p] == '\n')) p++;
    bk_result r;
    if (p < n && text[p] == '[') {
        bk_diag d;
        r = bk_entities_from_json(text, n, ents, &d);
        if (r != BK_OK) {
            char line[512];
            d.file = path;
            bk_diag_format(&d, line, sizeof line);
            fprintf(stderr, "%s\n", line);
        }
        return r;
    }
    uint64_t at = 0;
    r = bk_entities_parse(text, n, ents, &at);
    if (r != BK_OK) {
        size_t ln = 1, col = 1;
        for (size_t i = 0; i < at && i < n; i++) {
            if (text[i] == '\n') ln++, col = 1;
            else col++;
        }
        fprintf(stderr, "%s: entities @%llu: error: line %zu, column %zu: entity text does not parse here (%s)\n",
                path, (unsigned long long)at, ln, col, bk_strerror(r));
        return r;
    }
    /* the engines' text is the map's own 8-bit text: make it UTF-8 as the JSON is; bk_edit writes it
     * back in the map's encoding */
    for (uint32_t i = 0; i < ents->count; i++)
        for (uint32_t k = 0; k < ents->items[i].pair_count; k++) {
            bk_kv *kv = &ents->items[i].pairs[k];
            char *a = bk_utf8_from_8bit(kv->key), *b = bk_utf8_from_8bit(kv->value);
            if (a) bk_free(kv->key), kv->key = a;
            if (b) bk_free(kv->value), kv->value = b;
        }
    return BK_OK;
}

int cli_entities_import(cli_opts *o, bk_file *f, const char *ents_path, bool allow_no_worldspawn)
{
    const char *in = o->positional[0];
    if (!o->output && !o->dry_run) {
        fprintf(stderr, "bspkit entities: --import needs -o OUT.bsp (or --dry-run)\n");
        return EXIT_USAGE;
    }
    if (o->output && check_map_output("entities", o) != EXIT_OK) return EXIT_USAGE;
    size_t n = 0;
    char *text = cli_read_text(ents_path, (size_t)64 << 20, "entity text", &n);
    if (!text) return EXIT_BAD_INPUT;
    bk_entities ents;
    bk_result r = parse_import(ents_path, text, n, &ents);
    free(text);
    if (r != BK_OK) return EXIT_BAD_INPUT;
    /* bk_edit_set_entities refuses no worldspawn first (no engine loads such a map) unless told */
    if (allow_no_worldspawn) o->opt.flags |= BK_OPT_ALLOW_NO_WORLDSPAWN;
    bk_edit *e = begin(in, f, o);
    int rc = EXIT_BAD_INPUT;
    if (e) {
        r = bk_edit_set_entities(e, &ents);
        if (r != BK_OK) fprintf(stderr, "%s: error: entities not accepted: %s\n", ents_path, bk_strerror(r));
        else {
            char what[64];
            snprintf(what, sizeof what, "%u entities imported", ents.count);
            rc = save(o, in, e, o->output, what);
        }
        bk_edit_free(e);
    }
    bk_entities_free(&ents);
    return rc;
}

/* ---- pak add / remove ---------------------------------------------------------------------------- */

int cli_pak_edit(cli_opts *o, bk_file *f, bool add)
{
    const char *in = o->positional[0];
    if (!o->output && !o->dry_run) {
        fprintf(stderr, "bspkit pak: %s needs -o OUT.bsp (or --dry-run)\n", add ? "add" : "remove");
        return EXIT_USAGE;
    }
    if (o->output && check_map_output("pak", o) != EXIT_OK) return EXIT_USAGE;
    if (o->positional_count < 3) {
        fprintf(stderr, "bspkit pak: %s needs %s\n", add ? "add" : "remove", add ? "PATH_IN_PAK=FILE..." : "GLOB...");
        return EXIT_USAGE;
    }
    bk_edit *e = begin(in, f, o);
    if (!e) return EXIT_BAD_INPUT;
    int rc = EXIT_OK;
    uint32_t total = 0;
    for (int i = 2; i < o->positional_count && rc == EXIT_OK; i++) {
        const char *arg = o->positional[i];
        bk_result r;
        if (add) {
            const char *eq = strchr(arg, '=');
            if (!eq || eq == arg || !eq[1]) {
                fprintf(stderr, "bspkit pak add: '%s' is not PATH_IN_PAK=FILE\n", arg);
                rc = EXIT_USAGE;
                break;
            }
            char name[1100];
            size_t nl = (size_t)(eq - arg);
            if (nl >= sizeof name) nl = sizeof name - 1;
            memcpy(name, arg, nl);
            name[nl] = 0;
            /* read until its end (pipes, /proc files), refused past one entry's limit (/dev/zero) */
            r = bk_edit_pak_add_file(e, name, eq + 1);
            total++;
        } else {
            uint32_t removed = 0;
            r = bk_edit_pak_remove(e, arg, &removed);
            if (r == BK_OK && removed == 0) fprintf(stderr, "%s: note: '%s' matches no entry\n", in, arg);
            total += removed;
        }
        if (r != BK_OK) {
            fprintf(stderr, "%s: error: %s '%s': %s\n", in, add ? "cannot add" : "cannot remove", arg,
                    r == BK_EUNSUPPORTED ? "only Source maps have a pakfile" : bk_strerror(r));
            rc = EXIT_BAD_INPUT;
        }
    }
    if (rc == EXIT_OK) {
        char what[64];
        snprintf(what, sizeof what, "%u pakfile entries %s", total, add ? "added" : "removed");
        rc = save(o, in, e, o->output, what);
    }
    bk_edit_free(e);
    return rc;
}

/* ---- pak pack ------------------------------------------------------------------------------------ */

typedef struct pack_list {
    char **files;
    uint32_t count, cap;
    bool failed;
} pack_list;

/* a file found loose in a folder (not in the pakfile, not in a VPK): one to pack */
static void on_pack(void *user, const bk_source_asset *a)
{
    pack_list *pl = user;
    size_t wl = strlen(a->where);
    if (!a->found || strcmp(a->where, "pakfile") == 0 || (wl >= 4 && strcasecmp(a->where + wl - 4, ".vpk") == 0))
        return;
    if (pl->count == pl->cap) {
        uint32_t nc = pl->cap ? pl->cap * 2 : 64;
        char **nf = realloc(pl->files, nc * sizeof *nf);
        if (!nf) {
            pl->failed = true;
            return;
        }
        pl->files = nf;
        pl->cap = nc;
    }
    char *c = strdup(a->file);
    if (!c) {
        pl->failed = true;
        return;
    }
    pl->files[pl->count++] = c;
}

/* What pack will read, found before anything is read: each file's path on disk and size, checked
 * against one entry's limit, a link out of its game folder and whether it opens; the total
 * against what the pakfile may grow by. false (every reason said) when anything is refused. */
static bool pack_check(const cli_opts *o, const char *in, bk_file *f, bk_source_assets *a, const pack_list *pl,
                       char **disk, uint64_t *size, uint64_t *total)
{
    uint64_t max_alloc = o->opt.limits.max_alloc_bytes ? o->opt.limits.max_alloc_bytes : (uint64_t)1 << 30;
    /* one entry: the zip's 2 GiB - 1 and the largest allocation (bk_edit_pak_add_file's bound); all
     * of them: the pakfile is one allocation, so what it holds already and the added files */
    uint64_t entry_max = max_alloc < 0x7fffffffu ? max_alloc : 0x7fffffffu;
    uint64_t had = bk_source_map_of(f)->pakfile_size, total_max = max_alloc > had ? max_alloc - had : 0;
    bool ok = true;
    *total = 0;
    for (uint32_t i = 0; i < pl->count; i++) {
        bk_source_asset_info info;
        const char *name = pl->files[i];
        if (bk_source_assets_stat(a, name, &info) != BK_OK || !info.disk[0]) {
            fprintf(stderr, "%s: error: cannot pack '%s': no longer found\n", in, name);
            ok = false;
            continue;
        }
        size[i] = info.size;
        *total += info.size;
        if (info.outside && !o->follow_links) {
            char *real = realpath(info.disk, NULL);
            fprintf(stderr,
                    "%s: error: cannot pack '%s': %s is a symbolic link to %s, outside the game folder %s "
                    "(--follow-links packs it)\n",
                    in, name, info.disk, real ? real : "a file that does not resolve", info.where);
            free(real);
            ok = false;
            continue;
        }
        if (info.size > entry_max) {
            fprintf(stderr, "%s: error: cannot pack '%s': %s is %llu bytes, over the limit of %llu bytes for one "
                    "pakfile entry\n", in, name, info.disk, (unsigned long long)info.size,
                    (unsigned long long)entry_max);
            ok = false;
            continue;
        }
        /* opened and closed, nothing read: a file the user cannot read is said now, not halfway */
        FILE *fp = fopen(info.disk, "rb");
        if (!fp) {
            fprintf(stderr, "%s: error: cannot pack '%s': %s: %s\n", in, name, info.disk, strerror(errno));
            ok = false;
            continue;
        }
        fclose(fp);
        if (!(disk[i] = strdup(info.disk))) {
            fprintf(stderr, "%s: error: cannot pack '%s': %s\n", in, name, bk_strerror(BK_ENOMEM));
            ok = false;
        }
    }
    if (*total > total_max) {
        fprintf(stderr, "%s: error: the %u files to pack come to %llu bytes, over the limit of %llu bytes "
                "(limits.max_alloc_bytes %llu less the pakfile's own %llu)\n", in, pl->count,
                (unsigned long long)*total, (unsigned long long)total_max, (unsigned long long)max_alloc,
                (unsigned long long)had);
        ok = false;
    }
    return ok;
}

int cli_pak_pack(cli_opts *o, bk_file *f)
{
    const char *in = o->positional[0];
    if (!bk_source_map_of(f)) {
        fprintf(stderr, "%s: error: only Source maps have a pakfile\n", in);
        return EXIT_BAD_INPUT;
    }
    if (!o->dry_run && !o->output) {
        fprintf(stderr, "bspkit pak: pack needs -o OUT.bsp (or --dry-run)\n");
        return EXIT_USAGE;
    }
    if (!o->dry_run && check_map_output("pak", o) != EXIT_OK) return EXIT_USAGE;
    bk_source_assets *a = NULL;
    pack_list pl = {NULL, 0, 0, false};
    bk_result r = bk_source_assets_open(f, &o->opt, &a);
    if (r == BK_OK) r = bk_source_assets_list(a, f, &o->opt, on_pack, &pl);
    int rc = EXIT_OK;
    if ((r != BK_OK && r != BK_ELIMIT) || pl.failed) {
        fprintf(stderr, "%s: error: cannot list the map's files: %s\n", in, bk_strerror(pl.failed ? BK_ENOMEM : r));
        rc = EXIT_BAD_INPUT;
    }
    char **disk = rc == EXIT_OK ? calloc(pl.count + 1, sizeof *disk) : NULL;
    uint64_t *size = rc == EXIT_OK ? calloc(pl.count + 1, sizeof *size) : NULL;
    uint64_t bytes = 0;
    if (rc == EXIT_OK && (!disk || !size)) {
        fprintf(stderr, "%s: error: %s\n", in, bk_strerror(BK_ENOMEM));
        rc = EXIT_BAD_INPUT;
    }
    if (rc == EXIT_OK && !pack_check(o, in, f, a, &pl, disk, size, &bytes)) {
        fprintf(stderr, "%s: nothing packed%s\n", in, o->dry_run ? "" : ", nothing written");
        rc = EXIT_BAD_INPUT;
    }
    bk_edit *e = rc == EXIT_OK && !o->dry_run ? begin(in, f, o) : NULL;
    if (rc == EXIT_OK && !o->dry_run && !e) rc = EXIT_BAD_INPUT;
    for (uint32_t i = 0; i < pl.count && rc == EXIT_OK; i++) {
        /* each file read once, straight into the entry (bounded as pack_check said) */
        r = e ? bk_edit_pak_add_file(e, pl.files[i], disk[i]) : BK_OK;
        if (r == BK_OK && (o->dry_run || o->verbose))
            printf("%s  (%llu bytes, from %s)\n", pl.files[i], (unsigned long long)size[i], disk[i]);
        if (r != BK_OK) {
            fprintf(stderr, "%s: error: cannot pack '%s' (%s): %s\n", in, pl.files[i], disk[i], bk_strerror(r));
            rc = EXIT_BAD_INPUT;
        }
    }
    if (rc == EXIT_OK && o->dry_run) {
        printf("%u files (%llu bytes) would be packed\n", pl.count, (unsigned long long)bytes);
    } else if (rc == EXIT_OK) {
        char what[96];
        snprintf(what, sizeof what, "%u files packed (%llu bytes)", pl.count, (unsigned long long)bytes);
        rc = save(o, in, e, o->output, what);
    }
    bk_edit_free(e);
    bk_source_assets_close(a);
    for (uint32_t i = 0; i < pl.count; i++) {
        free(pl.files[i]);
        if (disk) free(disk[i]);
    }
    free(pl.files);
    free(disk);
    free(size);
    return rc;
}

/* ---- lump --import ------------------------------------------------------------------------------ */

int cli_lump_import(cli_opts *o, bk_file *f, const char *name, const char *json_path, bool allow_no_worldspawn)
{
    const char *in = o->positional[0];
    if (!o->output && !o->dry_run) {
        fprintf(stderr, "bspkit lump: --import needs -o OUT.bsp (or --dry-run)\n");
        return EXIT_USAGE;
    }
    if (o->output && check_map_output("lump", o) != EXIT_OK) return EXIT_USAGE;
    size_t n = 0;
    /* a lump's JSON is several times its bytes: bounded by 1 GiB of text */
    char *text = cli_read_text(json_path, (size_t)1 << 30, "lump JSON", &n);
    if (!text) return EXIT_BAD_INPUT;
    /* the entity lump passes what entities --import passes (bk_edit_set_lump_json) */
    if (allow_no_worldspawn) o->opt.flags |= BK_OPT_ALLOW_NO_WORLDSPAWN;
    bk_edit *e = begin(in, f, o);
    int rc = EXIT_BAD_INPUT;
    if (e) {
        bk_diag d;
        memset(&d, 0, sizeof d);
        bk_result r = bk_edit_set_lump_json(e, name, text, n, &d);
        if (r != BK_OK && d.message[0]) {
            char line[600];
            d.file = json_path;
            bk_diag_format(&d, line, sizeof line);
            fprintf(stderr, "%s; %s not written\n", line, o->output ? o->output : "nothing");
        } else if (r != BK_OK) {
            fprintf(stderr, "%s: error: lump %s not accepted: %s; %s not written\n", json_path, name, bk_strerror(r),
                    o->output ? o->output : "nothing");
        } else {
            char what[96];
            snprintf(what, sizeof what, "lump %s imported", name);
            rc = save(o, in, e, o->output, what);
        }
        bk_edit_free(e);
    }
    free(text);
    return rc;
}
