/* Fuzz the entity import: the input read as JSON (bk_entities_from_json) and as the engines' text
 * (bk_entities_parse). Whatever either accepts must survive a round trip through the JSON writer
 * with every pair unchanged (the text's 8-bit strings as their Latin-1 reading, as the JSON holds
 * them); a refusal must come with a located message. */
#include <stdlib.h>

#include "fuzz_common.h"

static char *utf8(const char *s)
{
    return bk_utf8_valid(s) ? bk_strdup(s) : bk_utf8_from_8bit(s);
}

/* b (read back from the JSON of a) holds a's pairs, strings made UTF-8 when latin1 */
static void same(const bk_entities *a, const bk_entities *b, int latin1)
{
    if (a->count != b->count) abort();
    for (uint32_t i = 0; i < a->count; i++) {
        if (a->items[i].pair_count != b->items[i].pair_count) abort();
        for (uint32_t k = 0; k < a->items[i].pair_count; k++) {
            const bk_kv *x = &a->items[i].pairs[k], *y = &b->items[i].pairs[k];
            char *xk = latin1 ? utf8(x->key) : bk_strdup(x->key), *xv = latin1 ? utf8(x->value) : bk_strdup(x->value);
            if (xk && xv && (strcmp(xk, y->key) != 0 || strcmp(xv, y->value) != 0)) abort();
            bk_free(xk);
            bk_free(xv);
        }
    }
}

static void round_trip(const bk_entities *e, int latin1)
{
    char *js = NULL;
    size_t n = 0;
    if (bk_entities_to_json(e, &js, &n) != BK_OK) return;
    if (strlen(js) != n) abort();
    bk_entities back;
    bk_diag d;
    bk_result r = bk_entities_from_json(js, n, &back, &d);
    if (r == BK_EFORMAT) abort();   /* what the writer wrote, the reader takes */
    if (r == BK_OK) same(e, &back, latin1);
    bk_entities_free(&back);
    bk_free(js);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    bk_entities e;
    bk_diag d;
    bk_result r = bk_entities_from_json(text, size, &e, &d);
    if (r == BK_OK) {
        round_trip(&e, 0);
    } else if (r == BK_EFORMAT) {
        if (!d.message[0] || (d.offset != BK_NO_OFFSET && d.offset > size)) abort();
    }
    bk_entities_free(&e);

    uint64_t at = 0;
    if (bk_entities_parse(text, size, &e, &at) == BK_OK) round_trip(&e, 1);
    else if (at > size) abort();
    bk_entities_free(&e);
    return 0;
}
