/* A program's budget of decompressed bytes, shared by the threads that load files at once: an
 * atomic count of the bytes not held. Taking is all or nothing (compare-and-swap), so a refusal
 * never leaves part of a request held. */
#include <stdatomic.h>

#include "bk_internal.h"

struct bk_budget {
    _Atomic uint64_t left;
};

bk_budget *bk_budget_new(uint64_t bytes)
{
    if (!bytes) bytes = bk_limits_of(NULL).max_decoded_bytes;
    bk_budget *b = bk_calloc(1, sizeof *b);
    if (b) atomic_init(&b->left, bytes);
    return b;
}

uint64_t bk_budget_left(const bk_budget *b)
{
    return b ? atomic_load(&((bk_budget *)b)->left) : UINT64_MAX;
}

void bk_budget_free(bk_budget *b) { bk_free(b); }

bool bk_budget_take(bk_budget *b, uint64_t n)
{
    if (!b || !n) return true;
    uint64_t cur = atomic_load(&b->left);
    do {
        if (cur < n) return false;
    } while (!atomic_compare_exchange_weak(&b->left, &cur, cur - n));
    return true;
}

void bk_budget_give(bk_budget *b, uint64_t n)
{
    if (b && n) atomic_fetch_add(&b->left, n);
}
