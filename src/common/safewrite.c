/* The one safe-write step every file bspkit writes goes through (DESIGN.md "Writers"): a group of
 * target files, each written to a temporary beside its target (O_EXCL, an unpredictable name),
 * flushed to disk and given the old file's mode and owner, then all renamed at the end. On any
 * failure every temporary is removed and every target is left as it was. Live temporaries are
 * listed where a signal handler can remove them (bk_write_cleanup). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bk_internal.h"

/* ---- live temporaries: one slot per temporary that exists (or is about to) ------------------- */

/* A fixed table, so a signal handler can walk it without locks or allocation; a slot holds the
 * temporary's path (owned by its group, cleared before it is freed). */
#define LIVE_SLOTS (1u << 16)
static _Atomic(char *) g_live[LIVE_SLOTS];
static atomic_uint g_live_hint;

static bool live_add(char *path, uint32_t *slot)
{
    unsigned start = atomic_load_explicit(&g_live_hint, memory_order_relaxed);
    for (unsigned k = 0; k < LIVE_SLOTS; k++) {
        unsigned i = (start + k) & (LIVE_SLOTS - 1);
        char *expect = NULL;
        if (atomic_load_explicit(&g_live[i], memory_order_relaxed) == NULL &&
            atomic_compare_exchange_strong(&g_live[i], &expect, path)) {
            atomic_store_explicit(&g_live_hint, i + 1, memory_order_relaxed);
            *slot = i;
            return true;
        }
    }
    return false;
}

static void live_drop(uint32_t slot) { atomic_store(&g_live[slot], NULL); }

void bk_write_cleanup(void)
{
    /* async-signal-safe: atomic loads (lock-free) and unlink only */
    for (unsigned i = 0; i < LIVE_SLOTS; i++) {
        char *p = atomic_load(&g_live[i]);
        if (p) unlink(p);
    }
}

/* ---- why the calling thread's last write failed ------------------------------------------------ */

static _Thread_local struct {
    bool set;
    bk_result code;
    char path[1024];
    char msg[256];
} t_err;

int bk_write_error(bk_diag *out)
{
    if (!out || !t_err.set) return 0;
    memset(out, 0, sizeof *out);
    out->severity = BK_SEV_ERROR;
    out->code = t_err.code;
    out->file = t_err.path;
    out->index = BK_NO_INDEX;
    out->offset = BK_NO_OFFSET;
    snprintf(out->message, sizeof out->message, "%s", t_err.msg);
    return 1;
}

/* ---- the group ------------------------------------------------------------------------------- */

typedef struct wentry {
    char *path;      /* as given: what messages name */
    char *target;    /* what is renamed over: path with its symbolic links followed */
    char *tmp;       /* the temporary beside target */
    char *bak;       /* while renaming: a second name of the old target (a hard link) */
    uint32_t slot, bak_slot; /* in g_live */
    bool created, closed, renamed;
    bool had_old;    /* target existed: its mode and owner are copied */
    mode_t mode;
    uid_t uid;
    gid_t gid;
} wentry;

struct bk_write_group {
    wentry *e;
    uint32_t count, cap;
    uint32_t flags;  /* BK_WRITE_* */
    bk_result r;     /* the first failure */
};

/* Record the first failure of the group (and of the thread, for bk_write_error). err 0: no errno. */
static bk_result fail(bk_wtx *t, bk_result r, const char *path, const char *what, int err)
{
    if (t->r != BK_OK) return t->r;
    t->r = r;
    t_err.set = true;
    t_err.code = r;
    snprintf(t_err.path, sizeof t_err.path, "%s", path);
    if (err) snprintf(t_err.msg, sizeof t_err.msg, "%s: %s", what, strerror(err));
    else snprintf(t_err.msg, sizeof t_err.msg, "%s", what);
    return r;
}

bk_result bk_wtx_begin(bk_wtx **out)
{
    *out = bk_calloc(1, sizeof **out);
    t_err.set = false;
    return *out ? BK_OK : BK_ENOMEM;
}

bk_result bk_write_group_begin(bk_write_group **out, uint32_t flags)
{
    if (!out) return BK_EARG;
    BK_TRY(bk_wtx_begin(out));
    (*out)->flags = flags;
    return BK_OK;
}

/* path with its symbolic links followed (the last component, as often as it is a link; relative
 * links from the link's folder), bk_malloc'd; NULL with *err on a loop or an unreadable link. A
 * path that does not exist (yet) is its own target. */
static char *follow_links(const char *path, int *err)
{
    char *cur = bk_strdup(path);
    for (int hop = 0; cur; hop++) {
        struct stat st;
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode)) return cur;
        size_t cap = 4096;
        char *link = hop < 40 ? bk_malloc(cap) : NULL;
        ssize_t n = link ? readlink(cur, link, cap) : -1;
        if (n <= 0 || (size_t)n >= cap) {
            *err = hop >= 40 ? ELOOP : n < 0 ? errno : ENAMETOOLONG;
            bk_free(link);
            bk_free(cur);
            return NULL;
        }
        link[n] = 0;
        const char *slash = strrchr(cur, '/');
        size_t dl = link[0] == '/' || !slash ? 0 : (size_t)(slash - cur) + 1;
        char *next = bk_malloc(dl + (size_t)n + 1);
        if (next) {
            memcpy(next, cur, dl);
            memcpy(next + dl, link, (size_t)n + 1);
        }
        bk_free(link);
        bk_free(cur);
        cur = next;
    }
    *err = ENOMEM;
    return NULL;
}

/* n unpredictable letters and digits */
static void random_letters(char *out, size_t n)
{
    static const char k[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    static atomic_ullong counter;
    unsigned char b[32];
    if (n > sizeof b) n = sizeof b;
    if (getentropy(b, n) != 0) {
        /* no entropy source: time, process and a counter, mixed (splitmix64) */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ ((uint64_t)getpid() << 44) ^
                     atomic_fetch_add(&counter, 1) * 0x9e3779b97f4a7c15ull;
        for (size_t i = 0; i < n; i++) {
            uint64_t z = (x += 0x9e3779b97f4a7c15ull);
            z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
            z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
            b[i] = (unsigned char)(z ^ (z >> 31));
        }
    }
    for (size_t i = 0; i < n; i++) out[i] = k[b[i] % 62];
}

/* "DIR/.NAME.RANDOM.tmp" beside target (NAME cut to 64 bytes, so the name stays short enough) */
static char *temp_name(const char *target)
{
    const char *slash = strrchr(target, '/');
    size_t dl = slash ? (size_t)(slash - target) + 1 : 0;
    const char *base = target + dl;
    size_t bl = strlen(base) > 64 ? 64 : strlen(base);
    char *t = bk_malloc(dl + bl + 32);
    if (!t) return NULL;
    memcpy(t, target, dl);
    char *p = t + dl;
    *p++ = '.';
    memcpy(p, base, bl);
    p += bl;
    *p++ = '.';
    random_letters(p, 12);
    p += 12;
    memcpy(p, ".tmp", 5);
    return t;
}

static bk_result add_entry(bk_wtx *t, const char *path, wentry **out)
{
    if (t->count == t->cap) {
        uint32_t ncap = t->cap ? t->cap * 2 : 4;
        wentry *ne = bk_realloc(t->e, (size_t)ncap * sizeof *ne);
        if (!ne) return fail(t, BK_ENOMEM, path, "out of memory", 0);
        t->e = ne;
        t->cap = ncap;
    }
    wentry *e = &t->e[t->count];
    memset(e, 0, sizeof *e);
    e->path = bk_strdup(path);
    if (!e->path) return fail(t, BK_ENOMEM, path, "out of memory", 0);
    t->count++;
    *out = e;
    return BK_OK;
}

/* Check the target, create its temporary: the open descriptor, or -1 (failure recorded). */
static int create_temp(bk_wtx *t, wentry *e)
{
    int err = ENOMEM;
    e->target = t->flags & BK_WRITE_REPLACE_LINKS ? bk_strdup(e->path) : follow_links(e->path, &err);
    if (!e->target) return fail(t, BK_EIO, e->path, "cannot follow the link", err), -1;
    struct stat st;
    if ((t->flags & BK_WRITE_REPLACE_LINKS ? lstat : stat)(e->target, &st) == 0 && !S_ISLNK(st.st_mode)) {
        if (S_ISDIR(st.st_mode)) return fail(t, BK_EIO, e->path, "cannot write", EISDIR), -1;
        if (!S_ISREG(st.st_mode)) return fail(t, BK_EIO, e->path, "cannot write: not a regular file", 0), -1;
        e->had_old = true;
        e->mode = st.st_mode & 07777;
        e->uid = st.st_uid;
        e->gid = st.st_gid;
    }
    for (int attempt = 0; attempt < 16; attempt++) {
        bk_free(e->tmp);
        e->tmp = temp_name(e->target);
        if (!e->tmp) return fail(t, BK_ENOMEM, e->path, "out of memory", 0), -1;
        if (!live_add(e->tmp, &e->slot)) {
            bk_free(e->tmp);
            e->tmp = NULL;
            return fail(t, BK_ELIMIT, e->path, "more than 65536 files written at once", 0), -1;
        }
        /* a new file gets 0666 less the umask, as any program's; an old file's mode is set when
         * the data is in (the temporary is private meanwhile) */
        int fd = open(e->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, e->had_old ? 0600 : 0666);
        if (fd >= 0) {
            e->created = true;
            return fd;
        }
        err = errno;
        live_drop(e->slot);
        if (err != EEXIST) break;
    }
    return fail(t, BK_EIO, e->path, "cannot create", err), -1;
}

bk_result bk_wtx_open(bk_wtx *t, const char *path, bk_atomic_file *a)
{
    memset(a, 0, sizeof *a);
    if (t->r != BK_OK) return t->r;
    wentry *e;
    BK_TRY(add_entry(t, path, &e));
    int fd = create_temp(t, e);
    if (fd < 0) return t->r;
    a->fp = fdopen(fd, "wb");
    if (!a->fp) {
        int err = errno;
        close(fd);
        return fail(t, BK_EIO, path, "cannot write", err);
    }
    a->tx = t;
    a->entry = t->count - 1;
    a->ok = true;
    return BK_OK;
}

bool bk_atomic_write(void *user, const void *data, size_t size)
{
    bk_atomic_file *a = user;
    if (a->ok && size && fwrite(data, 1, size, a->fp) != size) {
        a->ok = false;
        fail(a->tx, BK_EIO, a->tx->e[a->entry].path, "cannot write", errno);
    }
    return a->ok;
}

bool bk_atomic_pwrite(bk_atomic_file *a, uint64_t ofs, const void *data, size_t size)
{
    if (!a->ok) return false;
    long end = ftell(a->fp);
    if (end < 0 || ofs > (uint64_t)LONG_MAX || fseek(a->fp, (long)ofs, SEEK_SET) != 0 ||
        (size && fwrite(data, 1, size, a->fp) != size) || fseek(a->fp, end, SEEK_SET) != 0) {
        a->ok = false;
        fail(a->tx, BK_EIO, a->tx->e[a->entry].path, "cannot write", errno);
    }
    return a->ok;
}

bk_result bk_wtx_close(bk_atomic_file *a)
{
    if (!a->fp) return a->tx ? a->tx->r : BK_EIO;
    bk_wtx *t = a->tx;
    wentry *e = &t->e[a->entry];
    bool ok = a->ok;
    if (ok && fflush(a->fp) != 0) ok = false, fail(t, BK_EIO, e->path, "cannot write", errno);
    int fd = fileno(a->fp);
    if (ok && e->had_old) {
        /* the old file's owner where permitted (root, or a group of one's own), then its mode
         * (after chown, which may clear set-id bits) */
        if (fchown(fd, e->uid, e->gid) != 0 && fchown(fd, (uid_t)-1, e->gid) != 0) {
            /* not permitted: the file is the writer's own, as any new file */
        }
        if (fchmod(fd, e->mode) != 0) ok = false, fail(t, BK_EIO, e->path, "cannot set the mode", errno);
    }
    /* on disk before it is renamed over the old file (file systems without fsync say EINVAL) */
    if (ok && fsync(fd) != 0 && errno != EINVAL && errno != ENOTSUP)
        ok = false, fail(t, BK_EIO, e->path, "cannot write", errno);
    if (fclose(a->fp) != 0 && ok) ok = false, fail(t, BK_EIO, e->path, "cannot write", errno);
    a->fp = NULL;
    e->closed = ok;
    return t->r;
}

bk_result bk_wtx_add(bk_wtx *t, const char *path, const void *data, size_t size)
{
    bk_atomic_file a;
    BK_TRY(bk_wtx_open(t, path, &a));
    bk_atomic_write(&a, data, size);
    return bk_wtx_close(&a);
}

bk_result bk_write_group_file(bk_write_group *g, const char *path, const void *data, size_t size)
{
    if (!g || !path || (!data && size)) return BK_EARG;
    return bk_wtx_add(g, path, data, size);
}

static void release(bk_wtx *t)
{
    for (uint32_t i = 0; i < t->count; i++) {
        wentry *e = &t->e[i];
        if (e->created && !e->renamed) unlink(e->tmp);
        if (e->created) live_drop(e->slot);
        if (e->bak) {
            unlink(e->bak);
            live_drop(e->bak_slot);
            bk_free(e->bak);
        }
        bk_free(e->path);
        bk_free(e->target);
        bk_free(e->tmp);
    }
    bk_free(t->e);
    bk_free(t);
}

void bk_wtx_abort(bk_wtx *t)
{
    if (t) release(t);
}

void bk_write_group_abort(bk_write_group *g) { bk_wtx_abort(g); }

/* the folder of a renamed file to disk (its new entry); once per run of entries in one folder */
static void sync_dirs(const bk_wtx *t)
{
    const char *prev = NULL;
    size_t prev_len = 0;
    for (uint32_t i = 0; i < t->count; i++) {
        const char *p = t->e[i].target, *slash = strrchr(p, '/');
        size_t dl = slash ? (size_t)(slash - p) + 1 : 0;
        if (prev && dl == prev_len && memcmp(p, prev, dl) == 0) continue;
        prev = p;
        prev_len = dl;
        char *dir = bk_malloc(dl + 2);
        if (!dir) return;
        memcpy(dir, p, dl);
        memcpy(dir + dl, ".", 2);
        int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd >= 0) {
            fsync(fd);
            close(fd);
        }
        bk_free(dir);
    }
}

/* A second name (a hard link) for every old target, so that a rename that fails can put the old
 * files back; where a file system has no hard links the old file cannot be put back. */
static void keep_old(bk_wtx *t)
{
    for (uint32_t i = 0; i < t->count; i++) {
        wentry *e = &t->e[i];
        if (!e->had_old || t->count == 1) continue; /* one file: its rename either happens or not */
        char *bak = temp_name(e->target);
        if (bak && live_add(bak, &e->bak_slot)) {
            if (link(e->target, bak) == 0) {
                e->bak = bak;
                continue;
            }
            live_drop(e->bak_slot);
        }
        bk_free(bak);
    }
}

/* entries [0, k) were renamed, k failed: back to the old files (a new file is removed) */
static void undo_renames(bk_wtx *t, uint32_t k)
{
    while (k-- > 0) {
        wentry *e = &t->e[k];
        if (e->bak && rename(e->bak, e->target) == 0) {
            live_drop(e->bak_slot);
            bk_free(e->bak);
            e->bak = NULL;
        } else if (!e->had_old) {
            unlink(e->target);
        }
    }
}

bk_result bk_wtx_commit(bk_wtx *t)
{
    if (!t) return BK_EARG;
    for (uint32_t i = 0; i < t->count && t->r == BK_OK; i++)
        if (!t->e[i].closed) fail(t, BK_EIO, t->e[i].path, "not written whole", 0);
    bk_result r = t->r;
    if (r != BK_OK) {
        release(t);
        return r;
    }
    /* the renames are not interrupted by a signal to this thread (a handler would remove the
     * temporaries not yet renamed: half a group) */
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    sigaddset(&block, SIGQUIT);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    keep_old(t);
    for (uint32_t i = 0; i < t->count; i++) {
        wentry *e = &t->e[i];
        if (rename(e->tmp, e->target) != 0) {
            r = fail(t, BK_EIO, e->path, "cannot replace", errno);
            undo_renames(t, i);
            break;
        }
        e->renamed = true;
    }
    if (r == BK_OK) sync_dirs(t);
    release(t);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return r;
}

bk_result bk_write_group_commit(bk_write_group *g) { return bk_wtx_commit(g); }

bk_result bk_write_file_atomic(const char *path, const void *data, size_t size)
{
    bk_wtx *t;
    BK_TRY(bk_wtx_begin(&t));
    bk_wtx_add(t, path, data, size);
    return bk_wtx_commit(t);
}
