/* The library's allocator: every block bspkit allocates goes through here (bk_set_allocator). */
#include <stdatomic.h>
#include <stdlib.h>

#include "bk_internal.h"

static void *sys_alloc(void *user, size_t n) { (void)user; return malloc(n); }
static void *sys_realloc(void *user, void *p, size_t n) { (void)user; return realloc(p, n); }
static void sys_free(void *user, void *p) { (void)user; free(p); }
static void *sys_calloc(void *user, size_t n, size_t size) { (void)user; return calloc(n, size); }

static const bk_allocator k_system = {sys_alloc, sys_realloc, sys_free, NULL, sys_calloc};
static bk_allocator g_alloc = {sys_alloc, sys_realloc, sys_free, NULL, sys_calloc};
static atomic_long g_live; /* blocks handed out and not yet freed */

bk_result bk_set_allocator(const bk_allocator *a)
{
    if (a && (!a->alloc || !a->realloc || !a->free)) return BK_EARG;
    if (atomic_load(&g_live) != 0) return BK_EARG;
    g_alloc = a ? *a : k_system;
    return BK_OK;
}

void *bk_malloc(size_t n)
{
    void *p = g_alloc.alloc(g_alloc.user, n ? n : 1);
    if (p) atomic_fetch_add(&g_live, 1);
    return p;
}

void *bk_calloc(size_t count, size_t size)
{
    size_t n;
    if (!bk_mul_ok(count, size, &n)) return NULL;
    if (g_alloc.calloc) {
        void *p = g_alloc.calloc(g_alloc.user, n ? count : 1, n ? size : 1);
        if (p) atomic_fetch_add(&g_live, 1);
        return p;
    }
    void *p = bk_malloc(n);
    if (p) memset(p, 0, n ? n : 1);
    return p;
}

void *bk_realloc(void *p, size_t n)
{
    if (!p) return bk_malloc(n);
    return g_alloc.realloc(g_alloc.user, p, n ? n : 1);
}

void bk_free(void *p)
{
    if (!p) return;
    atomic_fetch_sub(&g_live, 1);
    g_alloc.free(g_alloc.user, p);
}
