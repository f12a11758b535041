/* bspkit convert A B ... -o DIR/ : many files (or a folder, or the maps of a .pk3) converted into a
 * folder by N worker threads, a progress bar on a terminal, one summary at the end; a bad file is
 * reported and the others go on. Each file is converted exactly as `convert FILE -o OUT` would. */
#include <dirent.h>
#include <pthread.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define BK_ADVANCED_API /* bk_file_into_scene: the file is done with */
#include "bspkit/advanced.h"
#include "bspkit/decompile.h"
#include "bspkit/write.h"
#include "cli.h"
#include "cmd_render.h"

/* the most warnings kept per file; the rest are counted */
#define MAX_WARNINGS 200

typedef struct job {
    char *in;                  /* a path, or ARCHIVE.pk3:member */
    char out[4096];
    int ok;
    char err[300];
    char **warn;               /* located warnings, then what the scene lacks (as a single convert says) */
    size_t warn_count, warn_more;
    bool warn_diag[MAX_WARNINGS]; /* a located diagnostic (its line names the file) */
    uint64_t bytes_in, bytes_out;
    double secs;
} job;

typedef struct batch {
    cli_opts *o;
    job *jobs;
    size_t count, cap, next, done;
    size_t skipped;            /* folder entries that are not regular files (FIFOs, devices) */
    uint64_t bytes_done, bytes_total;
    pthread_mutex_t lock;
    double t0;
    bool bar;
} batch;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static bool ends_with(const char *s, const char *ext)
{
    size_t n = strlen(s), e = strlen(ext);
    if (n < e) return false;
    for (size_t i = 0; i < e; i++) {
        char a = s[n - e + i];
        if (a >= 'A' && a <= 'Z') a = (char)(a + 32);
        if (a != ext[i]) return false;
    }
    return true;
}

static bool convertible(const batch *b, const char *name)
{
    if (b->o->decompile) return ends_with(name, ".bsp");
    return ends_with(name, ".bsp") || ends_with(name, ".dpm") || ends_with(name, ".vtf") || ends_with(name, ".mdl");
}

static const char *verb(const cli_opts *o) { return o->render ? "render" : o->decompile ? "decompile" : "convert"; }

static int add_job(batch *b, const char *in, uint64_t size)
{
    if (b->count == b->cap) {
        size_t nc = b->cap ? b->cap * 2 : 64;
        job *nj = realloc(b->jobs, nc * sizeof *nj);
        if (!nj) return -1;
        b->jobs = nj;
        b->cap = nc;
    }
    job *j = &b->jobs[b->count];
    memset(j, 0, sizeof *j);
    j->in = strdup(in);
    if (!j->in) return -1;
    j->bytes_in = size;
    b->bytes_total += size;
    b->count++;
    return 0;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* a folder: its convertible files (sorted, not recursive); a .pk3/.zip: its maps; else the file */
static int collect(batch *b, const char *in)
{
    struct stat st;
    if (stat(in, &st) == 0 && S_ISDIR(st.st_mode)) {
        DIR *d = opendir(in);
        if (!d) return add_job(b, in, 0);
        char **names = NULL;
        size_t n = 0, cap = 0;
        struct dirent *de;
        while ((de = readdir(d))) {
            if (!convertible(b, de->d_name)) continue;
            if (n == cap) {
                cap = cap ? cap * 2 : 64;
                char **nn = realloc(names, cap * sizeof *nn);
                if (!nn) break;
                names = nn;
            }
            names[n++] = strdup(de->d_name);
        }
        closedir(d);
        qsort(names, n, sizeof *names, cmp_str);
        int rc = 0;
        for (size_t i = 0; i < n; i++) {
            char path[4096];
            cli_join(path, sizeof path, in, names[i]);
            struct stat fs;
            bool there = stat(path, &fs) == 0;
            if (there && !S_ISREG(fs.st_mode)) {
                /* a FIFO named *.bsp would wait for a writer forever: not opened at all */
                fprintf(stderr, "bspkit %s: %s: not a regular file (%s): skipped\n", verb(b->o), path,
                        S_ISFIFO(fs.st_mode) ? "a FIFO" : S_ISDIR(fs.st_mode) ? "a folder" : "a device or socket");
                b->skipped++;
            } else if (rc == 0) {
                rc = add_job(b, path, there ? (uint64_t)fs.st_size : 0);
            }
            free(names[i]);
        }
        free(names);
        return rc;
    }
    if ((ends_with(in, ".pk3") || ends_with(in, ".zip")) && !strchr(in, ':')) {
        bk_archive *z = NULL;
        if (bk_archive_open(in, NULL, &z) != BK_OK) return add_job(b, in, 0); /* reported as a failure when converted */
        uint32_t n = bk_archive_count(z);
        for (uint32_t i = 0; i < n; i++) {
            const bk_archive_entry *e = bk_archive_entry_at(z, i);
            const char *nm = e->name;
            if (!ends_with(nm, ".bsp")) continue;
            char spec[4096];
            snprintf(spec, sizeof spec, "%s:%s", in, nm);
            if (add_job(b, spec, e->size) != 0) {
                bk_archive_close(z);
                return -1;
            }
        }
        bk_archive_close(z);
        return 0;
    }
    return add_job(b, in, stat(in, &st) == 0 ? (uint64_t)st.st_size : 0);
}

static void add_warning(job *j, const char *line, bool diag)
{
    if (!j->warn) j->warn = calloc(MAX_WARNINGS, sizeof *j->warn);
    char *w = j->warn && j->warn_count < MAX_WARNINGS ? strdup(line) : NULL;
    if (!w) {
        j->warn_more++;
        return;
    }
    j->warn_diag[j->warn_count] = diag;
    j->warn[j->warn_count++] = w;
}

/* the first error ends the job; warnings are kept for -v and --json */
static void capture_diag(void *user, const bk_diag *d)
{
    job *j = user;
    if (d->severity == BK_SEV_ERROR) {
        if (!j->err[0]) bk_diag_format(d, j->err, sizeof j->err);
    } else if (d->severity == BK_SEV_WARNING) {
        char line[600];
        bk_diag_format(d, line, sizeof line);
        add_warning(j, line, true);
    }
}

static void missing_line(void *user, const char *line) { add_warning(user, line, false); }

/* render: the thumbnail of one file, as `render FILE -o OUT.png` draws it */
static void render_job(batch *b, job *j)
{
    cli_opts oc = *b->o;
    oc.opt.search_paths = oc.paths;
    oc.opt.diag = capture_diag;
    oc.opt.diag_user = j;
    double t0 = now();
    render_result rr;
    if (cli_render_one(&oc, b->o->render, j->in, j->out, &rr) == EXIT_OK) {
        struct stat st;
        if (stat(j->out, &st) == 0) j->bytes_out = (uint64_t)st.st_size;
        j->ok = 1;
        j->err[0] = 0;
    } else if (!j->err[0]) {
        snprintf(j->err, sizeof j->err, "%.299s", rr.error);
    }
    j->secs = now() - t0;
}

/* decompile: the map's source, as `decompile MAP -o DIR/NAME.vmf|map` writes it (j->out is the
 * path without its extension, the family's added) */
static void decompile_job(batch *b, job *j)
{
    cli_opts oc = *b->o;
    oc.opt.search_paths = oc.paths;
    oc.opt.diag = capture_diag;
    oc.opt.diag_user = j;
    double t0 = now();
    bk_file *f = NULL;
    void *owned = NULL;
    if (cli_load(j->in, &oc, &f, &owned) != EXIT_OK) {
        if (!j->err[0]) snprintf(j->err, sizeof j->err, "%s: cannot read", j->in);
        j->secs = now() - t0;
        return;
    }
    bk_decompile_stats st;
    size_t bytes = 0;
    char stem[sizeof j->out], why[300];
    snprintf(stem, sizeof stem, "%s", j->out);
    bk_result r = cli_decompile_write(j->in, f, &oc.opt, oc.format && strcmp(oc.format, "quake") == 0 ? BK_DECOMPILE_MAP_QUAKE : 0, stem, true, j->out, sizeof j->out, &st, &bytes, why, sizeof why);
    if (r == BK_OK) {
        j->ok = 1;
        j->err[0] = 0;
        j->bytes_out = bytes;
    } else if (!j->err[0]) {
        snprintf(j->err, sizeof j->err, "%s", why);
    }
    bk_file_free(f);
    bk_free(owned);
    j->secs = now() - t0;
}

static void convert_one(batch *b, job *j)
{
    if (b->o->render) {
        render_job(b, j);
        return;
    }
    if (b->o->decompile) {
        decompile_job(b, j);
        return;
    }
    cli_opts oc = *b->o;   /* per job: cli_load writes base_dir / archive into it */
    oc.opt.search_paths = oc.paths; /* its own list (an archive member adds its archive to it) */
    oc.opt.diag = capture_diag;
    oc.opt.diag_user = j;
    double t0 = now();
    bk_file *f = NULL;
    void *owned = NULL;
    FILE *saved = stderr;
    (void)saved;
    if (cli_load(j->in, &oc, &f, &owned) != EXIT_OK) {
        if (!j->err[0]) snprintf(j->err, sizeof j->err, "%s: cannot read", j->in);
        j->secs = now() - t0;
        return;
    }
    size_t sz = 0;
    bk_file_data(f, &sz);
    if (!j->bytes_in) j->bytes_in = sz;
    const char *fmt = b->o->format ? b->o->format : "glb";
    bk_result r;
    if (strcmp(fmt, "bsp") == 0) {
        bk_edit *e = NULL;
        r = bk_edit_begin(f, &oc.opt, &e);
        if (r == BK_OK) r = bk_edit_save(e, j->out);
        bk_edit_free(e);
    } else {
        /* what a single convert says is missing (textures, the WADs a map names) needs the file's
         * format and worldspawn "wad": taken before the scene build frees the file */
        bk_format ff = bk_file_format(f);
        const bk_entities *es = bk_file_entities(f);
        const char *wad0 = es && es->count ? bk_entity_get(&es->items[0], "wad") : NULL;
        char *wad = wad0 ? strdup(wad0) : NULL;
        bk_scene *s = NULL;
        if (strcmp(fmt, "obj") == 0) oc.opt.flags |= BK_OPT_NO_LIGHTMAPS;   /* OBJ has one UV set */
        r = bk_file_into_scene(f, &oc.opt, &s); /* the file is done with */
        f = NULL;
        if (r == BK_OK) {
            bk_export_stats st;
            r = strcmp(fmt, "obj") == 0 ? bk_export_obj(s, &oc.xopt, j->out, &st) : bk_export_gltf(s, &oc.xopt, j->out, &st);
            if (r == BK_OK) j->bytes_out = st.bytes;
            if (r == BK_OK && (b->o->verbose || b->o->json)) cli_missing_lines(&oc, ff, wad, s, missing_line, j);
        }
        free(wad);
        bk_scene_free(s);
    }
    if (r == BK_OK) {
        struct stat st;
        if (!j->bytes_out && stat(j->out, &st) == 0) j->bytes_out = (uint64_t)st.st_size;
        j->ok = 1;
        j->err[0] = 0;
    } else if (!cli_write_failed(j->out, r, j->err, sizeof j->err) && !j->err[0]) {
        snprintf(j->err, sizeof j->err, "%s: %s", j->in, bk_strerror(r));
    }
    bk_file_free(f);
    bk_free(owned);
    j->secs = now() - t0;
}

static void progress(batch *b)
{
    double t = now() - b->t0;
    double mbs = t > 0 ? (double)b->bytes_done / 1e6 / t : 0;
    double left = b->bytes_done && b->bytes_total > b->bytes_done
                      ? t * (double)(b->bytes_total - b->bytes_done) / (double)b->bytes_done : 0;
    int width = 30, fill = b->count ? (int)(width * b->done / b->count) : width;
    char bar[64];
    for (int i = 0; i < width; i++) bar[i] = i < fill ? '#' : '.';
    bar[width] = 0;
    fprintf(stderr, "\r[%s] %zu/%zu files  %7.1f MB/s  %3.0f s left ", bar, b->done, b->count, mbs, left);
    fflush(stderr);
}

static void *worker(void *arg)
{
    batch *b = arg;
    for (;;) {
        pthread_mutex_lock(&b->lock);
        size_t i = b->next < b->count ? b->next++ : SIZE_MAX;
        pthread_mutex_unlock(&b->lock);
        if (i == SIZE_MAX) break;
        convert_one(b, &b->jobs[i]);
        pthread_mutex_lock(&b->lock);
        b->done++;
        b->bytes_done += b->jobs[i].bytes_in;
        if (b->bar) progress(b);
        pthread_mutex_unlock(&b->lock);
    }
    return NULL;
}

static void json_str(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') printf("\\%c", c);
        else if (c < 0x20) printf("\\u%04x", c);
        else putchar(c);
    }
    putchar('"');
}

static void free_jobs(batch *b)
{
    for (size_t i = 0; i < b->count; i++) {
        free(b->jobs[i].in);
        for (size_t k = 0; k < b->jobs[i].warn_count; k++) free(b->jobs[i].warn[k]);
        free(b->jobs[i].warn);
    }
    free(b->jobs);
    b->jobs = NULL;
    b->count = 0;
}

/* each job's output path in dir: the input's stem and fmt; two inputs with one name: the later
 * ones get _2, _3, ... */
static void name_outputs(batch *b, const char *dir, const char *fmt)
{
    const char *dot_fmt = fmt[0] ? "." : "";
    for (size_t i = 0; i < b->count; i++) {
        const char *in = b->jobs[i].in, *base = strrchr(in, '/'), *colon = strrchr(in, ':');
        if (colon && (!base || colon > base)) base = colon;
        base = base ? base + 1 : in;
        char stem[1024];
        snprintf(stem, sizeof stem, "%s", base);
        char *dot = strrchr(stem, '.');
        if (dot) *dot = 0;
        snprintf(b->jobs[i].out, sizeof b->jobs[i].out, "%s/%s%s%s", dir, stem, dot_fmt, fmt);
        for (int k = 2; k < 10000; k++) {
            bool clash = false;
            for (size_t p = 0; p < i && !clash; p++) clash = strcmp(b->jobs[p].out, b->jobs[i].out) == 0;
            if (!clash) break;
            snprintf(b->jobs[i].out, sizeof b->jobs[i].out, "%s/%s_%d%s%s", dir, stem, k, dot_fmt, fmt);
        }
    }
}

/* n workers over the jobs, sharing one budget of decompressed bytes: N files at once hold no
 * more than one file alone may (limits.max_decoded_bytes), whatever -j. The seconds taken. */
static double run_workers(batch *b, cli_opts *o, int n)
{
    bk_budget *budget = bk_budget_new(o->opt.limits.max_decoded_bytes);
    o->opt.budget = budget;
    pthread_mutex_init(&b->lock, NULL);
    b->t0 = now();
    pthread_t th[256];
    int started = 0;
    for (int i = 0; i < n; i++)
        if (pthread_create(&th[i], NULL, worker, b) == 0) started++;
    if (!started) worker(b);
    for (int i = 0; i < started; i++) pthread_join(th[i], NULL);
    double t = now() - b->t0;
    if (b->bar) fprintf(stderr, "\n");
    pthread_mutex_destroy(&b->lock);
    o->opt.budget = NULL;
    bk_budget_free(budget);
    return t;
}

/* --json: one line per file */
static void print_job_json(const job *j)
{
    printf("{\"input\":");
    json_str(j->in);
    printf(",\"output\":");
    json_str(j->ok ? j->out : "");
    printf(",\"ok\":%s,\"error\":", j->ok ? "true" : "false");
    if (j->ok) printf("null");
    else json_str(j->err);
    printf(",\"warnings\":[");
    for (size_t k = 0; k < j->warn_count; k++) {
        if (k) putchar(',');
        json_str(j->warn[k]);
    }
    if (j->warn_more) printf("%s\"... %zu more\"", j->warn_count ? "," : "", j->warn_more);
    printf("]");
    printf(",\"bytes_in\":%llu,\"bytes_out\":%llu,\"seconds\":%.4f}\n", (unsigned long long)j->bytes_in,
           (unsigned long long)j->bytes_out, j->secs);
}

/* the warnings: each, as a single convert says it (-v: located ones on stderr, what is missing
 * on stdout), or their count */
static void print_warnings(const batch *b, const cli_opts *o)
{
    size_t nwarn = 0, wfiles = 0;
    for (size_t i = 0; i < b->count; i++) {
        nwarn += b->jobs[i].warn_count + b->jobs[i].warn_more;
        wfiles += b->jobs[i].warn_count + b->jobs[i].warn_more > 0;
    }
    if (o->verbose && !o->json) {
        for (size_t i = 0; i < b->count; i++) {
            const job *j = &b->jobs[i];
            for (size_t k = 0; k < j->warn_count; k++) {
                if (j->warn_diag[k]) fprintf(stderr, "%s\n", j->warn[k]);
                else printf("%s: %s\n", j->in, j->warn[k]);
            }
            if (j->warn_more) fprintf(stderr, "%s: ... %zu more warnings\n", j->in, j->warn_more);
        }
    } else if (nwarn && !o->json && !o->quiet) {
        printf("%zu warning%s in %zu file%s (-v lists them, --json gives them per file)\n", nwarn, nwarn == 1 ? "" : "s",
               wfiles, wfiles == 1 ? "" : "s");
    }
}

/* the summary, the warnings and what failed; how many failed */
static size_t report(const batch *b, const cli_opts *o, const char *dir, double t, int n)
{
    size_t failed = 0;
    uint64_t in_total = 0, out_total = 0;
    for (size_t i = 0; i < b->count; i++) {
        const job *j = &b->jobs[i];
        failed += !j->ok;
        in_total += j->bytes_in;
        out_total += j->bytes_out;
        if (o->json) print_job_json(j);
    }
    if (!o->json && !o->quiet)
        printf("%s %zu of %zu files into %s: %.1f MB read, %.1f MB written in %.2f s (%.1f MB/s, %d jobs)\n",
               o->render ? "rendered" : o->decompile ? "decompiled" : "converted", b->count - failed, b->count, dir, (double)in_total / 1e6, (double)out_total / 1e6, t,
               t > 0 ? (double)in_total / 1e6 / t : 0.0, n);
    if (b->skipped && !o->json && !o->quiet) printf("%zu skipped: not regular files\n", b->skipped);
    print_warnings(b, o);
    if (failed && !o->json) {
        fprintf(stderr, "%zu failed:\n", failed);
        for (size_t i = 0; i < b->count; i++)
            if (!b->jobs[i].ok) fprintf(stderr, "  %s\n", b->jobs[i].err);
    }
    return failed;
}

int cli_batch(cli_opts *o)
{
    batch b;
    memset(&b, 0, sizeof b);
    b.o = o;
    for (int i = 0; i < o->positional_count; i++)
        if (collect(&b, o->positional[i]) != 0) {
            fprintf(stderr, "bspkit %s: out of memory\n", verb(o));
            free_jobs(&b);
            return EXIT_BAD_INPUT;
        }
    if (b.count == 0) {
        fprintf(stderr, "bspkit %s: no %s files to %s\n", verb(o), o->decompile ? ".bsp" : ".bsp, .dpm, .vtf or .mdl",
                verb(o));
        return EXIT_USAGE;
    }
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", o->output);
    size_t dl = strlen(dir);
    while (dl > 1 && dir[dl - 1] == '/') dir[--dl] = 0;
    if (cli_mkdir_p(dir) != 0) {
        fprintf(stderr, "bspkit %s: cannot create folder %s: %s\n", verb(o), dir, strerror(errno));
        free_jobs(&b);
        return EXIT_BAD_INPUT;
    }
    /* decompile: the family's extension is added when the map is read */
    name_outputs(&b, dir, o->render ? "png" : o->decompile ? "" : o->format ? o->format : "glb");
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int n = o->jobs > 0 ? o->jobs : (cores > 0 ? (int)cores : 1);
    if ((size_t)n > b.count) n = (int)b.count;
    b.bar = isatty(2) && !o->quiet && !o->json;
    double t = run_workers(&b, o, n);
    size_t failed = report(&b, o, dir, t, n);
    free_jobs(&b);
    return failed ? EXIT_BAD_INPUT : EXIT_OK;
}
