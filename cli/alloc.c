/* The CLI's allocator for libbspkit (installed with bk_set_allocator): small blocks from malloc,
 * large ones (decoded lumps, scene arrays, the lightmap atlas, PNG and glTF buffers) mapped on
 * their own with transparent huge pages asked for, so filling them takes one page fault per
 * 2 MiB instead of one per 4 KiB, and grown in place with mremap instead of copied. Page faults
 * are a large part of a conversion's time on virtual machines; see bench/RESULTS.md. Blocks
 * under 2 MiB are not populated up front: room reserved and never written (a buffer's estimate,
 * an array's doubled capacity) would be resident for nothing, and populating them was measured
 * to save no time. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Under a sanitizer the library keeps the default allocator (malloc): ASan / MSan / TSan see
 * only what goes through malloc, and a block mapped here has no redzone, so an overflow of any
 * block of 128 KiB or more (decoded lumps, scene arrays, PNG buffers) would pass unseen. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || defined(BK_CLI_SANITIZE)
#define BK_CLI_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(hwaddress_sanitizer)
#define BK_CLI_SANITIZED 1
#endif
#endif

#if defined(__linux__) && !defined(BK_CLI_SANITIZED)
#include <sys/mman.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#define BIG_MIN ((size_t)128 << 10)

typedef struct blk {
    size_t size;  /* bytes the caller asked for */
    size_t map;   /* bytes mapped (0: the block is from malloc) */
} blk;
#define HDR 16 /* sizeof(blk), keeps 16-byte alignment */

#define HUGE ((size_t)2 << 20)
/* whole 4 KiB pages; from 2 MiB up the block starts on a 2 MiB boundary, so the kernel backs its
 * whole 2 MiB stretches with huge pages and the tail with small ones (rounding the length up to
 * 2 MiB instead would hold up to 2 MiB more than asked for) */
static size_t map_len(size_t n) { return (n + HDR + 4095) & ~(size_t)4095; }

static void *big_map(size_t n)
{
    size_t len = map_len(n);
    size_t extra = len >= HUGE ? HUGE : 0; /* room to start on a 2 MiB boundary */
    uint8_t *p = mmap(NULL, len + extra, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return NULL;
    uint8_t *a = p;
    if (extra) {
        a = (uint8_t *)(((uintptr_t)p + HUGE - 1) & ~(uintptr_t)(HUGE - 1));
        if (a > p) munmap(p, (size_t)(a - p));
        if (a + len < p + len + extra) munmap(a + len, (size_t)(p + len + extra - (a + len)));
#ifdef MADV_HUGEPAGE
        madvise(a, len, MADV_HUGEPAGE);
#endif
    }
    blk *b = (blk *)a;
    b->size = n, b->map = len;
    return a + HDR;
}

static void *a_alloc(void *user, size_t n)
{
    (void)user;
    if (n > SIZE_MAX - 8192) return NULL;
    if (n >= BIG_MIN) return big_map(n);
    blk *b = malloc(HDR + n);
    if (!b) return NULL;
    b->size = n, b->map = 0;
    return (uint8_t *)b + HDR;
}

/* mapped blocks come zeroed: only small ones are cleared */
static void *a_calloc(void *user, size_t count, size_t size)
{
    if (size && count > (SIZE_MAX - 8192) / size) return NULL;
    size_t n = count * size;
    if (n >= BIG_MIN) return a_alloc(user, n);
    blk *b = calloc(1, HDR + n);
    if (!b) return NULL;
    b->size = n, b->map = 0;
    return (uint8_t *)b + HDR;
}

static void a_free(void *user, void *p)
{
    (void)user;
    blk *b = (blk *)((uint8_t *)p - HDR);
    if (b->map) munmap(b, b->map);
    else free(b);
}

static void *a_realloc(void *user, void *p, size_t n)
{
    if (!p) return a_alloc(user, n);
    if (n > SIZE_MAX - 8192) return NULL;
    blk *b = (blk *)((uint8_t *)p - HDR);
    if (b->map && n >= BIG_MIN) { /* big to big: the kernel moves the pages, nothing is copied */
        size_t len = map_len(n), old = b->map;
        void *q = len == old ? (void *)b : mremap(b, old, len, MREMAP_MAYMOVE);
        if (q == MAP_FAILED) return NULL;
#ifdef MADV_HUGEPAGE
        if (len >= HUGE && old < HUGE) madvise(q, len, MADV_HUGEPAGE);
#endif
        b = q;
        b->size = n, b->map = len;
        return (uint8_t *)q + HDR;
    }
    if (!b->map && n < BIG_MIN) {
        blk *q = realloc(b, HDR + n);
        if (!q) return NULL;
        q->size = n;
        return (uint8_t *)q + HDR;
    }
    void *q = a_alloc(user, n); /* crossing the threshold: copy */
    if (!q) return NULL;
    memcpy(q, p, b->size < n ? b->size : n);
    a_free(user, p);
    return q;
}

void bk_cli_install_allocator(void)
{
    static const bk_allocator a = {a_alloc, a_realloc, a_free, NULL, a_calloc};
    (void)bk_set_allocator(&a);
}

/* Small blocks freed in the middle of malloc's heap stay resident (it gives back only its top);
 * malloc_trim returns their whole free pages to the system. */
void bk_cli_trim(void)
{
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}

void bk_cli_resident_code(void)
{
#ifdef MADV_POPULATE_READ
    FILE *fp = fopen("/proc/self/maps", "r");
    if (!fp) return;
    char line[512];
    while (fgets(line, sizeof line, fp)) {
        unsigned long a, b;
        char perm[8];
        int path = 0;
        /* "start-end perms offset dev inode path": only mappings of a file */
        if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %n", &a, &b, perm, &path) < 3 || !path || line[path] != '/') continue;
        if (perm[0] == 'r') madvise((void *)a, b - a, MADV_POPULATE_READ);
    }
    fclose(fp);
#endif
}
#else
void bk_cli_install_allocator(void) {}
void bk_cli_resident_code(void) {}
void bk_cli_trim(void) {}
#endif
