/* A set of names compared without case, in the order they were added (bk_strset in
 * bk_internal.h): an open-addressing table of indices over an array of owned copies, so a list
 * of tens of thousands of names is deduplicated in linear time. */
#include "bk_internal.h"

static uint32_t fold_hash(const char *s)
{
    uint32_t h = 2166136261u;   /* FNV-1a over the ASCII-lower-cased bytes */
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c >= 'A' && c <= 'Z') c = (unsigned char)(c - 'A' + 'a');
        h = (h ^ c) * 16777619u;
    }
    return h;
}

/* the slot holding s, or the empty slot where it would go */
static uint32_t *find_slot(const bk_strset *set, const char *s)
{
    uint32_t mask = set->nslots - 1;
    for (uint32_t i = fold_hash(s) & mask;; i = (i + 1) & mask) {
        uint32_t *slot = &set->slots[i];
        if (!*slot || bk_strcasecmp(set->items[*slot - 1], s) == 0) return slot;
    }
}

static bk_result rehash(bk_strset *set, uint32_t nslots)
{
    uint32_t *slots = bk_calloc(nslots, sizeof *slots);
    if (!slots) return BK_ENOMEM;
    bk_free(set->slots);
    set->slots = slots;
    set->nslots = nslots;
    for (uint32_t i = 0; i < set->count; i++) *find_slot(set, set->items[i]) = i + 1;
    return BK_OK;
}

bk_result bk_strset_add(bk_strset *set, const char *s, bool *added)
{
    *added = false;
    if ((uint64_t)(set->count + 1) * 2 > set->nslots) {   /* at most half full */
        if (set->nslots >= (1u << 30)) return BK_ELIMIT;
        BK_TRY(rehash(set, set->nslots ? set->nslots * 2 : 64));
    }
    uint32_t *slot = find_slot(set, s);
    if (*slot) return BK_OK;
    BK_TRY(bk_grow((void **)&set->items, &set->cap, set->count + 1, sizeof *set->items));
    char *c = bk_strdup(s);
    if (!c) return BK_ENOMEM;
    set->items[set->count++] = c;
    *slot = set->count;
    *added = true;
    return BK_OK;
}

void bk_strset_free(bk_strset *set)
{
    for (uint32_t i = 0; i < set->count; i++) bk_free(set->items[i]);
    bk_free(set->items);
    bk_free(set->slots);
    memset(set, 0, sizeof *set);
}
