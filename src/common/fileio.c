/* Whole-file reads bounded by a limit, atomic writes, and a growable byte buffer. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bk_internal.h"

long bk_cpu_count(void)
{
#ifdef _SC_NPROCESSORS_ONLN
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? n : 1;
#else
    return 1;
#endif
}

#if defined(__unix__) || defined(__APPLE__)
#include <fcntl.h>
#include <sys/mman.h>
#define BK_HAVE_MMAP 1
#endif

/* Open path for reading, if it is a regular file: without O_NONBLOCK, opening a FIFO waits for a
 * writer (forever, in a folder scan); with it, the open returns at once and fstat says what it is. */
static FILE *open_file(const char *path, struct stat *st, bk_result *r)
{
    struct stat st_;
    if (!st) st = &st_;
#ifdef BK_HAVE_MMAP
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    FILE *fp = NULL;
    if (fd >= 0 && fstat(fd, st) == 0 && S_ISREG(st->st_mode)) {
        int fl = fcntl(fd, F_GETFL);
        if (fl != -1) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
        fp = fdopen(fd, "rb");
    }
#else
    FILE *fp = fopen(path, "rb");
    int fd = fp ? fileno(fp) : -1;
    if (fp && (fstat(fd, st) != 0 || !S_ISREG(st->st_mode))) {
        fclose(fp);
        fp = NULL;
        fd = -1;
    }
#endif
    if (fp) return fp;
    *r = fd < 0 && errno == ENOENT ? BK_ENOTFOUND : BK_EIO;
    if (fd >= 0) close(fd);
    return NULL;
}

FILE *bk_open_regular(const char *path, bk_result *why)
{
    bk_result r_;
    return open_file(path, NULL, why ? why : &r_);
}

bk_result bk_read_file(const char *path, uint64_t max_bytes, uint8_t **out, size_t *out_size)
{
    *out = NULL;
    *out_size = 0;
    struct stat st;
    bk_result r = BK_OK;
    FILE *fp = open_file(path, &st, &r);
    if (!fp) return r;
    if ((uint64_t)st.st_size > max_bytes || (uint64_t)st.st_size > SIZE_MAX - 1) {
        fclose(fp);
        return BK_ELIMIT;
    }
    size_t size = (size_t)st.st_size;
    uint8_t *buf = bk_malloc(size ? size : 1);
    if (!buf) {
        fclose(fp);
        return BK_ENOMEM;
    }
    if (size && fread(buf, 1, size, fp) != size) {
        bk_free(buf);
        fclose(fp);
        return BK_EIO;
    }
    fclose(fp);
    *out = buf;
    *out_size = size;
    return BK_OK;
}

#ifdef BK_HAVE_MMAP
/* open a regular file of at most max_bytes for reading: *fd and its size (O_NONBLOCK: a FIFO is
 * refused at once instead of waiting for a writer) */
static bk_result open_regular(const char *path, uint64_t max_bytes, int *fd_out, size_t *size)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return errno == ENOENT ? BK_ENOTFOUND : BK_EIO;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return BK_EIO;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl != -1) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    if ((uint64_t)st.st_size > max_bytes || (uint64_t)st.st_size > SIZE_MAX - 1) {
        close(fd);
        return BK_ELIMIT;
    }
    *fd_out = fd;
    *size = (size_t)st.st_size;
    return BK_OK;
}
#endif

bk_result bk_input_load(const bk_options *opt, const char *path, uint64_t max_bytes, bk_input *in)
{
    memset(in, 0, sizeof *in);
    if (opt && opt->read_file) return bk_read_file_opt(opt, path, max_bytes, &in->owned, &in->size);
#ifdef BK_HAVE_MMAP
    /* one open: mapped from BK_MAP_MIN bytes up, read below */
    int fd;
    size_t size;
    BK_TRY(open_regular(path, max_bytes, &fd, &size));
    if (size >= BK_MAP_MIN) {
        /* not MAP_POPULATE: it reads every page first, lumps the command never reads included,
         * and was slower for validate and convert (bench/RESULTS.md) */
        void *p = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p != MAP_FAILED) {
            close(fd);
            in->map = p;
            in->size = size;
            return BK_OK;
        }
    }
    uint8_t *buf = bk_malloc(size ? size : 1);
    if (!buf) {
        close(fd);
        return BK_ENOMEM;
    }
    size_t got = 0;
    while (got < size) {
        ssize_t k = read(fd, buf + got, size - got);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        got += (size_t)k;
    }
    close(fd);
    if (got != size) {
        bk_free(buf);
        return BK_EIO;
    }
    in->owned = buf;
    in->size = size;
    return BK_OK;
#else
    return bk_read_file(path, max_bytes, &in->owned, &in->size);
#endif
}

void bk_input_release(bk_input *in)
{
    if (in->map) bk_unmap_file(in->map, in->size);
    bk_free(in->owned);
    memset(in, 0, sizeof *in);
}

bk_result bk_map_file_lazy(const char *path, uint64_t max_bytes, void **out, size_t *out_size)
{
    *out = NULL;
    *out_size = 0;
#ifdef BK_HAVE_MMAP
    int fd;
    size_t size;
    BK_TRY(open_regular(path, max_bytes, &fd, &size));
    void *p = size ? mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
    close(fd);
    if (p == MAP_FAILED) return BK_EUNSUPPORTED;
    *out = p;
    *out_size = size;
    return BK_OK;
#else
    (void)path, (void)max_bytes;
    return BK_EUNSUPPORTED;
#endif
}

void bk_map_prefetch(const void *data, size_t size)
{
#if defined(BK_HAVE_MMAP) && defined(MADV_WILLNEED)
    if (!size) return;
    long pg = sysconf(_SC_PAGESIZE);
    if (pg <= 0) return;
    uintptr_t a = (uintptr_t)data & ~((uintptr_t)pg - 1);
    uintptr_t b = ((uintptr_t)data + size + (uintptr_t)pg - 1) & ~((uintptr_t)pg - 1);
#ifdef MADV_POPULATE_READ
    if (madvise((void *)a, b - a, MADV_POPULATE_READ) == 0) return;
#endif
    madvise((void *)a, b - a, MADV_WILLNEED);
#else
    (void)data, (void)size;
#endif
}

void bk_input_decoded(const bk_ctx *ctx, const void *data, size_t size)
{
    /* a file only checked is unmapped in a moment anyway */
    if (ctx->mapped_input && !ctx->check_only) bk_mapped_release(data, size);
}

void bk_mapped_release(const void *data, size_t size)
{
#if defined(BK_HAVE_MMAP) && defined(MADV_DONTNEED)
    if (!size) return;
    long pg = sysconf(_SC_PAGESIZE);
    if (pg <= 0) return;
    uintptr_t a = ((uintptr_t)data + (uintptr_t)pg - 1) & ~((uintptr_t)pg - 1);
    uintptr_t b = ((uintptr_t)data + size) & ~((uintptr_t)pg - 1);
    if (b > a) madvise((void *)a, b - a, MADV_DONTNEED);
#else
    (void)data, (void)size;
#endif
}

void bk_unmap_file(void *p, size_t size)
{
#ifdef BK_HAVE_MMAP
    if (p) munmap(p, size);
#else
    (void)p, (void)size;
#endif
}

bk_result bk_read_file_opt(const bk_options *opt, const char *path, uint64_t max_bytes, uint8_t **out,
                           size_t *out_size)
{
    if (!opt || !opt->read_file) return bk_read_file(path, max_bytes, out, out_size);
    *out = NULL;
    *out_size = 0;
    bk_result r = opt->read_file(opt->read_file_user, path, max_bytes, out, out_size);
    if (r == BK_OK && (!*out || *out_size > max_bytes)) {
        r = *out ? BK_ELIMIT : BK_EIO; /* a hook that broke its contract */
        bk_free(*out);
        *out = NULL;
        *out_size = 0;
    }
    return r;
}

bool bk_buf_reserve(bk_buf *b, size_t extra)
{
    if (b->failed) return false;
    size_t need;
    if (!bk_add_ok(b->size, extra, &need)) return !(b->failed = true);
    if (need <= b->cap) return true;
    /* a first reservation is taken as asked (a buffer sized up front is not doubled); growth doubles */
    size_t ncap = b->cap ? b->cap : (need > 4096 ? need : 4096);
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2) return !(b->failed = true);
        ncap *= 2;
    }
    uint8_t *p = bk_realloc(b->data, ncap);
    if (!p) return !(b->failed = true);
    b->data = p;
    b->cap = ncap;
    return true;
}

void bk_buf_shrink(bk_buf *b)
{
    if (b->failed || !b->data || b->size == b->cap) return;
    uint8_t *p = bk_realloc(b->data, b->size ? b->size : 1);
    if (!p) return; /* the larger block stays: nothing lost */
    b->data = p;
    b->cap = b->size ? b->size : 1;
}

bool bk_buf_append(bk_buf *b, const void *p, size_t n)
{
    if (!bk_buf_reserve(b, n)) return false;
    if (n) memcpy(b->data + b->size, p, n);
    b->size += n;
    return true;
}

bool bk_buf_printf(bk_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !bk_buf_reserve(b, (size_t)n + 1)) {
        va_end(ap2);
        return false;
    }
    vsnprintf((char *)b->data + b->size, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    b->size += (size_t)n;
    return true;
}

bk_result bk_buf_take_string(bk_buf *b, char **out, size_t *len)
{
    bk_buf_append(b, "", 1);
    if (b->failed) {
        bk_buf_free(b);
        return BK_ENOMEM;
    }
    *out = (char *)b->data;
    if (len) *len = b->size - 1;
    memset(b, 0, sizeof *b);
    return BK_OK;
}

void bk_buf_free(bk_buf *b)
{
    bk_free(b->data);
    memset(b, 0, sizeof *b);
}

bk_result bk_read_until_eof(const char *path, uint64_t max_bytes, uint8_t **out, size_t *out_size, char *what,
                            size_t what_cap)
{
    *out = NULL;
    *out_size = 0;
    what[0] = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        int err = errno;
        if (fd >= 0) close(fd);
        snprintf(what, what_cap, "cannot read: %s", strerror(err));
        return err == ENOENT ? BK_ENOTFOUND : BK_EIO;
    }
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        snprintf(what, what_cap, "cannot read: %s", strerror(EISDIR));
        return BK_EIO;
    }
    /* a device (/dev/zero, /dev/urandom, a terminal) has no end to read to: refused at once
     * rather than read up to the limit */
    if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) {
        close(fd);
        snprintf(what, what_cap, "not read: a device, not a file that can be read whole");
        return BK_EARG;
    }
    if (max_bytes > SIZE_MAX - 2) max_bytes = SIZE_MAX - 2;
    /* a regular file's size is a hint only (/proc files say 0): read until the end either way */
    size_t cap = S_ISREG(st.st_mode) && st.st_size > 0 && (uint64_t)st.st_size <= max_bytes ? (size_t)st.st_size + 1
                                                                                               : 65536;
    if (cap > max_bytes + 1) cap = (size_t)max_bytes + 1;
    uint8_t *buf = bk_malloc(cap);
    size_t got = 0;
    bk_result r = buf ? BK_OK : BK_ENOMEM;
    while (r == BK_OK) {
        if (got == cap) {
            if (got > max_bytes) break;
            size_t ncap = cap > (size_t)max_bytes / 2 ? (size_t)max_bytes + 1 : cap * 2;
            uint8_t *nb = bk_realloc(buf, ncap);
            if (!nb) {
                r = BK_ENOMEM;
                break;
            }
            buf = nb;
            cap = ncap;
        }
        ssize_t k = read(fd, buf + got, cap - got);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) {
            snprintf(what, what_cap, "cannot read: %s", strerror(errno));
            r = BK_EIO;
        }
        if (k <= 0) break;
        got += (size_t)k;
    }
    close(fd);
    if (r == BK_OK && got > max_bytes) {
        snprintf(what, what_cap, "not read whole: more than %llu bytes (the limit)%s", (unsigned long long)max_bytes,
                 S_ISREG(st.st_mode) ? "" : "; not a regular file");
        r = BK_ELIMIT;
    }
    if (r != BK_OK) {
        bk_free(buf);
        return r;
    }
    *out = buf;
    *out_size = got;
    return BK_OK;
}
