/* The entity text shared by every BSP family:  { "key" "value" ... } { ... }
 * Bounded by len (the lump need not be NUL-terminated); tolerant of // comments, bare words,
 * CR/LF and trailing NULs, as the engines' tokenisers are. */
#include "bk_internal.h"

typedef struct tok {
    const char *s;
    size_t n;
    int kind; /* 0 end, 1 '{', 2 '}', 3 string, -1 error */
    size_t at;
} tok;

static tok next_token(const char *t, size_t len, size_t *pos)
{
    size_t p = *pos;
    tok k = {NULL, 0, 0, 0};
    for (;;) {
        while (p < len && (t[p] == 0 || (unsigned char)t[p] <= ' ')) p++;
        if (p + 1 < len && t[p] == '/' && t[p + 1] == '/') {
            while (p < len && t[p] != '\n') p++;
            continue;
        }
        break;
    }
    k.at = p;
    if (p >= len) {
        *pos = p;
        return k;
    }
    if (t[p] == '{' || t[p] == '}') {
        k.kind = t[p] == '{' ? 1 : 2;
        *pos = p + 1;
        return k;
    }
    if (t[p] == '"') {
        size_t q = p + 1;
        while (q < len && t[q] != '"' && t[q] != 0) q++;
        if (q >= len || t[q] != '"') {
            k.kind = -1;
            *pos = q;
            return k;
        }
        k.kind = 3;
        k.s = t + p + 1;
        k.n = q - p - 1;
        *pos = q + 1;
        return k;
    }
    size_t q = p;
    while (q < len && (unsigned char)t[q] > ' ' && t[q] != '{' && t[q] != '}' && t[q] != '"') q++;
    k.kind = 3;
    k.s = t + p;
    k.n = q - p;
    *pos = q;
    return k;
}

void bk_entities_free(bk_entities *e)
{
    if (!e) return;
    for (uint32_t i = 0; i < e->count; i++) {
        for (uint32_t j = 0; j < e->items[i].pair_count; j++) {
            bk_free(e->items[i].pairs[j].key);
            bk_free(e->items[i].pairs[j].value);
        }
        bk_free(e->items[i].pairs);
    }
    bk_free(e->items);
    e->items = NULL;
    e->count = 0;
}

bk_result bk_entities_parse(const char *text, size_t len, bk_entities *out, uint64_t *err_offset)
{
    memset(out, 0, sizeof *out);
    uint32_t cap = 0;
    size_t pos = 0;
    if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) pos = 3;   /* a UTF-8 byte-order mark */
    bk_result r = BK_OK;
    for (;;) {
        tok k = next_token(text, len, &pos);
        if (k.kind == 0) break;
        if (k.kind != 1) {
            r = BK_EFORMAT;
            if (err_offset) *err_offset = k.at;
            break;
        }
        if ((r = bk_grow((void **)&out->items, &cap, out->count + 1, sizeof(bk_entity))) != BK_OK) break;
        bk_entity *e = &out->items[out->count++];
        memset(e, 0, sizeof *e);
        e->offset = k.at;
        uint32_t pcap = 0;
        for (;;) {
            tok key = next_token(text, len, &pos);
            if (key.kind == 2) break;
            if (key.kind != 3) {
                r = BK_EFORMAT;
                if (err_offset) *err_offset = key.at;
                goto done;
            }
            tok val = next_token(text, len, &pos);
            if (val.kind != 3) {
                r = BK_EFORMAT;
                if (err_offset) *err_offset = val.at;
                goto done;
            }
            if ((r = bk_grow((void **)&e->pairs, &pcap, e->pair_count + 1, sizeof(bk_kv))) != BK_OK)
                goto done;
            bk_kv *kv = &e->pairs[e->pair_count];
            kv->key = bk_strndup(key.s, key.n);
            kv->value = bk_strndup(val.s, val.n);
            if (!kv->key || !kv->value) {
                bk_free(kv->key);
                bk_free(kv->value);
                r = BK_ENOMEM;
                goto done;
            }
            e->pair_count++;
        }
    }
done:
    if (r != BK_OK) bk_entities_free(out);
    return r;
}

bk_result bk_kv_last(const bk_kv *kv, uint32_t n, bool *last)
{
    if (n <= 16) { /* the usual entity: a table costs more than the pairs */
        for (uint32_t i = 0; i < n; i++) {
            last[i] = true;
            for (uint32_t j = i + 1; j < n && last[i]; j++) last[i] = strcmp(kv[i].key, kv[j].key) != 0;
        }
        return BK_OK;
    }
    /* open addressing over the pairs' indices, filled from the end: a key already in the table
     * has a later pair */
    size_t cap = 32;
    while (cap < (size_t)n * 2) cap *= 2;
    uint32_t *slot = bk_malloc(cap * sizeof *slot);
    if (!slot) return BK_ENOMEM;
    memset(slot, 0xff, cap * sizeof *slot);
    for (uint32_t i = n; i-- > 0;) {
        uint32_t h = 2166136261u; /* FNV-1a */
        for (const unsigned char *c = (const unsigned char *)kv[i].key; *c; c++) h = (h ^ *c) * 16777619u;
        size_t at = h & (cap - 1);
        last[i] = true;
        while (slot[at] != UINT32_MAX) {
            if (strcmp(kv[slot[at]].key, kv[i].key) == 0) {
                last[i] = false;
                break;
            }
            at = (at + 1) & (cap - 1);
        }
        if (last[i]) slot[at] = i;
    }
    bk_free(slot);
    return BK_OK;
}

const char *bk_entity_get(const bk_entity *e, const char *key)
{
    const char *v = NULL;
    for (uint32_t i = 0; i < e->pair_count; i++)
        if (strcmp(e->pairs[i].key, key) == 0) v = e->pairs[i].value;
    return v;
}
