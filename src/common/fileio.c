/* Whole-file reads bounded by a limit, atomic writes, and a growable byte buffer. */
#include <errno.h>
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

bk_result bk_read_file(const char *path, uint64_t max_bytes, uint8_t **out, size_t *out_size)
{
    *out = NULL;
    *out_size = 0;
    FILE *fp = fopen(path, "rb");
    if (!fp) return errno == ENOENT ? BK_ENOTFOUND : BK_EIO;
    struct stat st;
    if (fstat(fileno(fp), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(fp);
        return BK_EIO;
    }
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

#if defined(__unix__) || defined(__APPLE__)
#include <fcntl.h>
#include <sys/mman.h>
#define BK_HAVE_MMAP 1
#endif

#ifdef BK_HAVE_MMAP
/* open a regular file of at most max_bytes for reading: *fd and its size */
static bk_result open_regular(const char *path, uint64_t max_bytes, int *fd_out, size_t *size)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) return errno == ENOENT ? BK_ENOTFOUND : BK_EIO;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return BK_EIO;
    }
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

bk_result bk_atomic_open(bk_atomic_file *a, const char *path)
{
    memset(a, 0, sizeof *a);
    size_t n = strlen(path);
    a->tmp = bk_malloc(n + 32);
    a->path = bk_malloc(n + 1);
    if (!a->tmp || !a->path) {
        bk_free(a->tmp);
        bk_free(a->path);
        return BK_ENOMEM;
    }
    memcpy(a->path, path, n + 1);
    snprintf(a->tmp, n + 32, "%s.tmp%ld", path, (long)getpid());
    a->fp = fopen(a->tmp, "wb");
    if (!a->fp) {
        bk_free(a->tmp);
        bk_free(a->path);
        return BK_EIO;
    }
    a->ok = true;
    return BK_OK;
}

bool bk_atomic_write(void *user, const void *data, size_t size)
{
    bk_atomic_file *a = user;
    if (a->ok && size && fwrite(data, 1, size, a->fp) != size) a->ok = false;
    return a->ok;
}

bool bk_atomic_pwrite(bk_atomic_file *a, uint64_t ofs, const void *data, size_t size)
{
    if (!a->ok) return false;
    long end = ftell(a->fp);
    if (end < 0 || ofs > (uint64_t)LONG_MAX || fseek(a->fp, (long)ofs, SEEK_SET) != 0 ||
        (size && fwrite(data, 1, size, a->fp) != size) || fseek(a->fp, end, SEEK_SET) != 0)
        a->ok = false;
    return a->ok;
}

bk_result bk_atomic_close(bk_atomic_file *a, bool keep)
{
    bool ok = a->ok && keep;
    ok = (fflush(a->fp) == 0) && ok;
    ok = (fclose(a->fp) == 0) && ok;
    if (ok && rename(a->tmp, a->path) != 0) ok = false;
    if (!ok) remove(a->tmp);
    bk_free(a->tmp);
    bk_free(a->path);
    memset(a, 0, sizeof *a);
    return ok || !keep ? BK_OK : BK_EIO;
}

bk_result bk_write_file_atomic(const char *path, const void *data, size_t size)
{
    bk_atomic_file a;
    BK_TRY(bk_atomic_open(&a, path));
    bk_atomic_write(&a, data, size);
    return bk_atomic_close(&a, true);
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

void bk_buf_free(bk_buf *b)
{
    bk_free(b->data);
    memset(b, 0, sizeof *b);
}
