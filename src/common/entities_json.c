/* Entities as JSON (bspkit.h): an array of entities, each an array of [key, value] string pairs in
 * file order, every pair kept. Written here by hand (one pair a line, diff-friendly); read with cJSON,
 * which cannot hold U+0000 inside a string and keeps numbers only as doubles: a small scan of the raw
 * text finds the NULs first, and every value that is not a string is refused, so what is stored is
 * always exactly the bytes the user wrote. */
#include <stdarg.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "bk_internal.h"

/* ---- writing ------------------------------------------------------------------------------------ */

static void put_str(bk_buf *b, const char *s)
{
    if (bk_utf8_valid(s)) {
        bk_json_str(b, s);
        return;
    }
    char *u = bk_utf8_from_8bit(s);   /* map text in an 8-bit code page: read as Latin-1 */
    if (!u) {
        b->failed = true;
        return;
    }
    bk_json_str(b, u);
    bk_free(u);
}

bk_result bk_entities_to_json(const bk_entities *e, char **out, size_t *out_len)
{
    if (!e || !out) return BK_EARG;
    *out = NULL;
    if (out_len) *out_len = 0;
    bk_buf b = {0};
    bk_buf_append(&b, "[", 1);
    for (uint32_t i = 0; i < e->count && !b.failed; i++) {
        const bk_entity *en = &e->items[i];
        bk_buf_append(&b, i ? ",\n  [" : "\n  [", i ? 5 : 4);
        for (uint32_t k = 0; k < en->pair_count; k++) {
            bk_buf_append(&b, k ? ",\n    [" : "\n    [", k ? 7 : 6);
            put_str(&b, en->pairs[k].key ? en->pairs[k].key : "");
            bk_buf_append(&b, ", ", 2);
            put_str(&b, en->pairs[k].value ? en->pairs[k].value : "");
            bk_buf_append(&b, "]", 1);
        }
        if (en->pair_count) bk_buf_append(&b, "\n  ]", 4);
        else bk_buf_append(&b, "]", 1);
    }
    if (e->count) bk_buf_append(&b, "\n]\n", 3);
    else bk_buf_append(&b, "]\n", 2);
    return bk_buf_take_string(&b, out, out_len);
}

/* ---- reading ------------------------------------------------------------------------------------ */

static bool is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The offset of the first NUL the text holds (a raw 0 byte anywhere, or a \u0000 escape inside a
 * string; "\\u0000" is a backslash and "u0000"), or SIZE_MAX. */
static size_t find_nul(const char *t, size_t len, size_t pos)
{
    bool in = false;
    for (size_t i = pos; i < len; i++) {
        if (t[i] == 0) return i;
        if (!in) {
            in = t[i] == '"';
        } else if (t[i] == '"') {
            in = false;
        } else if (t[i] == '\\' && i + 1 < len) {
            if (t[i + 1] == 'u' && i + 5 < len && memcmp(t + i + 2, "0000", 4) == 0) return i;
            i++;   /* the escaped character (the hex digits of \uXXXX are plain characters) */
        }
    }
    return SIZE_MAX;
}

/* Where entity `ent` (pair < 0) or element `pair` of it (a [key, value] pair, or an object's member)
 * starts in the raw text: a scan that tracks strings and nesting. With offs, it instead stores the
 * start of every entity (offs[e] for e < n). */
static size_t locate(const char *t, size_t len, size_t pos, int64_t ent, int64_t pair, bk_entity *items, uint32_t n)
{
    int depth = 0, want = 0;   /* want: the next non-blank character starts an element at that depth */
    bool in = false;
    int64_t e = -1, p = -1;
    for (size_t i = pos; i < len; i++) {
        char c = t[i];
        if (in) {
            if (c == '\\') i++;
            else if (c == '"') in = false;
            continue;
        }
        if (want && !is_ws(c)) {
            if (want == 1) {
                p = -1;
                if (++e == ent && pair < 0) return i;
                if (items && e < n) items[e].offset = i;
            } else if (e == ent && ++p == pair) {
                return i;
            }
            want = 0;
        }
        if (c == '"') in = true;
        else if (c == '[' || c == '{') want = ++depth <= 2 ? depth : 0;
        else if (c == ']' || c == '}') depth--;
        else if (c == ',' && (depth == 1 || depth == 2)) want = depth;
    }
    return pos;
}

#define LOCATE(j, ent, pair) locate((j)->t, (j)->len, (j)->start, ent, pair, NULL, 0)

static void set_diag(bk_diag *d, bk_result code, int64_t ent, uint64_t off)
{
    memset(d, 0, sizeof *d);
    d->severity = BK_SEV_ERROR;
    d->code = code;
    d->lump = "entities";
    d->index = ent;
    d->offset = off;
}

static bk_result fail(bk_diag *d, const char *t, size_t off, int64_t ent, const char *key, const char *fmt, ...)
    BK_PRINTF(6, 7);
static bk_result fail(bk_diag *d, const char *t, size_t off, int64_t ent, const char *key, const char *fmt, ...)
{
    if (!d) return BK_EFORMAT;
    set_diag(d, BK_EFORMAT, ent, off);
    size_t line = 1, col = 1;
    for (size_t i = 0; i < off; i++) {
        if (t[i] == '\n') line++, col = 1;
        else col++;
    }
    int n = snprintf(d->message, sizeof d->message, "line %zu, column %zu: ", line, col);
    if (key && n >= 0 && (size_t)n < sizeof d->message)
        n += snprintf(d->message + n, sizeof d->message - (size_t)n, "key \"%.60s%s\": ", key,
                      strlen(key) > 60 ? "..." : "");
    if (n >= 0 && (size_t)n < sizeof d->message) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(d->message + n, sizeof d->message - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return BK_EFORMAT;
}

static const char *kind(const cJSON *v)
{
    if (cJSON_IsNumber(v)) return "a number";
    if (cJSON_IsBool(v)) return "a boolean";
    if (cJSON_IsNull(v)) return "null";
    if (cJSON_IsObject(v)) return "an object";
    if (cJSON_IsArray(v)) return "an array";
    return cJSON_IsString(v) ? "a string" : "not a value";
}

static bk_result add_pair(bk_entity *en, uint32_t *cap, const char *key, const char *value)
{
    if (en->pair_count == UINT32_MAX) return BK_ELIMIT;
    bk_result r = bk_grow((void **)&en->pairs, cap, en->pair_count + 1, sizeof *en->pairs);
    if (r != BK_OK) return r;
    bk_kv *kv = &en->pairs[en->pair_count];
    kv->key = bk_strdup(key);
    kv->value = bk_strdup(value);
    if (!kv->key || !kv->value) {
        bk_free(kv->key);
        bk_free(kv->value);
        return BK_ENOMEM;
    }
    en->pair_count++;
    return BK_OK;
}

typedef struct jread {
    const char *t;
    size_t len, start;
    bk_diag *err;
} jread;

/* JSON text is UTF-8 (RFC 8259); bytes that are not would be read back as Latin-1 by the writer,
 * so they are refused rather than stored as something else than what the JSON reads back */
static bk_result utf8_ok(const jread *j, uint32_t i, uint32_t k, const char *key, const char *val)
{
    if (bk_utf8_valid(key) && bk_utf8_valid(val)) return BK_OK;
    return fail(j->err, j->t, LOCATE(j, i, k), i, bk_utf8_valid(key) ? key : NULL,
                "the %s is not UTF-8: JSON text is UTF-8 (write other characters as \\u00XX)",
                bk_utf8_valid(key) ? "value" : "key");
}

/* the new form: an array of [key, value] string pairs */
static bk_result read_pairs(const jread *j, const cJSON *ent, uint32_t i, bk_entity *en)
{
    uint32_t cap = 0, k = 0;
    for (const cJSON *p = ent->child; p; p = p->next, k++) {
        const cJSON *key = cJSON_IsArray(p) ? p->child : NULL, *val = key ? key->next : NULL;
        size_t at = key && val && !val->next && cJSON_IsString(key) && cJSON_IsString(val) ? 0 : LOCATE(j, i, k);
        if (!key || !val || val->next)
            return fail(j->err, j->t, at, i, NULL, "pair %u is %s, not a [key, value] pair of strings", k,
                        cJSON_IsArray(p) ? "an array of another length" : kind(p));
        if (!cJSON_IsString(key))
            return fail(j->err, j->t, at, i, NULL, "the key of pair %u is %s: write it as a string", k, kind(key));
        if (!cJSON_IsString(val))
            return fail(j->err, j->t, at, i, key->valuestring,
                        "the value is %s: write it as a string (\"0.1\", not 0.1), as the map stores it", kind(val));
        bk_result r = utf8_ok(j, i, k, key->valuestring, val->valuestring);
        if (r == BK_OK) r = add_pair(en, &cap, key->valuestring, val->valuestring);
        if (r != BK_OK) return r;
    }
    return BK_OK;
}

/* the older form: an object of string values; an array of strings is the key repeated */
static bk_result read_object(const jread *j, const cJSON *ent, uint32_t i, bk_entity *en)
{
    uint32_t cap = 0, k = 0;
    for (const cJSON *m = ent->child; m; m = m->next, k++) {
        const char *key = m->string ? m->string : "";
        bk_result r = BK_OK;
        if (cJSON_IsString(m)) {
            if ((r = utf8_ok(j, i, k, key, m->valuestring)) == BK_OK) r = add_pair(en, &cap, key, m->valuestring);
        } else if (cJSON_IsArray(m)) {
            for (const cJSON *v = m->child; v && r == BK_OK; v = v->next) {
                if (!cJSON_IsString(v))
                    return fail(j->err, j->t, LOCATE(j, i, k), i, key,
                                "a repeated key's values must be strings, this one is %s: write it as a string", kind(v));
                if ((r = utf8_ok(j, i, k, key, v->valuestring)) == BK_OK) r = add_pair(en, &cap, key, v->valuestring);
            }
        } else {
            return fail(j->err, j->t, LOCATE(j, i, k), i, key,
                        "the value is %s: write it as a string (\"0.1\", not 0.1), as the map stores it", kind(m));
        }
        if (r != BK_OK) return r;
    }
    return BK_OK;
}

/* entity value c (the next of out) into out */
static bk_result read_entity(const jread *j, const cJSON *c, bk_entities *out, uint32_t *cap)
{
    uint32_t i = out->count;
    if (!cJSON_IsArray(c) && !cJSON_IsObject(c))
        return fail(j->err, j->t, LOCATE(j, i, -1), i, NULL,
                    "entity %u is %s: an entity is an array of [key, value] pairs", i, kind(c));
    if (i == UINT32_MAX) return BK_ELIMIT;
    bk_result r = bk_grow((void **)&out->items, cap, i + 1, sizeof *out->items);
    if (r != BK_OK) return r;
    bk_entity *en = &out->items[out->count++];
    memset(en, 0, sizeof *en);
    return cJSON_IsArray(c) ? read_pairs(j, c, i, en) : read_object(j, c, i, en);
}

/* the one JSON value at text[*at] (cJSON: tens of bytes a value), *at moved past it; NULL after
 * a located failure */
static cJSON *parse_value(const jread *j, size_t *at, bk_result *r)
{
    const char *end = NULL;
    cJSON *v = cJSON_ParseWithLengthOpts(j->t + *at, j->len - *at, &end, 0);
    size_t e = end && end >= j->t + *at && end <= j->t + j->len ? (size_t)(end - j->t) : *at;
    if (!v) *r = fail(j->err, j->t, e, BK_NO_INDEX, NULL, "not valid JSON here");
    *at = e;
    return v;
}

static size_t skip_blank(const jread *j, size_t at)
{
    while (at < j->len && is_ws(j->t[at])) at++;
    return at;
}

/* The array of entities, read one entity at a time: cJSON holds one entity's values at once, never
 * the whole text's, so an import costs about what the entities it makes cost (a 60 MB array of
 * small entities took 1.7 GB as one cJSON tree). */
static bk_result read_root(const jread *j, bk_entities *out)
{
    size_t at = skip_blank(j, j->start);
    bk_result r = BK_OK;
    if (at >= j->len || j->t[at] != '[') {
        /* not an array: say what it is (an object is not parsed, whatever its size) */
        if (at < j->len && j->t[at] == '{')
            return fail(j->err, j->t, at, BK_NO_INDEX, NULL, "the JSON is an object: expected an array of entities");
        size_t s = at;
        cJSON *v = parse_value(j, &at, &r);
        if (!v) return r;
        const char *k = kind(v);
        cJSON_Delete(v);
        at = skip_blank(j, at);
        if (at < j->len) return fail(j->err, j->t, at, BK_NO_INDEX, NULL, "text after the JSON array of entities");
        return fail(j->err, j->t, s, BK_NO_INDEX, NULL, "the JSON is %s: expected an array of entities", k);
    }
    uint32_t cap = 0;
    at = skip_blank(j, at + 1);
    if (at < j->len && j->t[at] == ']') {
        at++;
    } else {
        for (;;) {
            cJSON *c = parse_value(j, &at, &r);
            if (!c) return r;
            r = read_entity(j, c, out, &cap);
            cJSON_Delete(c);
            if (r != BK_OK) return r;
            at = skip_blank(j, at);
            if (at < j->len && j->t[at] == ',') {
                at = skip_blank(j, at + 1);
                continue;
            }
            if (at < j->len && j->t[at] == ']') {
                at++;
                break;
            }
            return fail(j->err, j->t, at, BK_NO_INDEX, NULL, "not valid JSON here");
        }
    }
    at = skip_blank(j, at);
    if (at < j->len) return fail(j->err, j->t, at, BK_NO_INDEX, NULL, "text after the JSON array of entities");
    return BK_OK;
}

bk_result bk_entities_from_json(const char *text, size_t len, bk_entities *out, bk_diag *err)
{
    if (!out) return BK_EARG;
    memset(out, 0, sizeof *out);
    if (!text && len) return BK_EARG;
    jread j = {text, len, 0, err};
    if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) j.start = 3;   /* a UTF-8 byte-order mark */
    size_t nul = find_nul(text, len, j.start);
    if (nul != SIZE_MAX)
        return fail(err, text, nul, BK_NO_INDEX, NULL, "%s: an entity lump cannot hold U+0000 (the engines read it "
                    "as a C string)", text[nul] ? "\\u0000 in a string" : "a NUL byte");
    bk_result r = read_root(&j, out);
    if (r == BK_OK) locate(text, len, j.start, -1, -1, out->items, out->count);   /* each entity's offset */
    if (r != BK_OK) {
        if (r != BK_EFORMAT && err) {
            set_diag(err, r, BK_NO_INDEX, BK_NO_OFFSET);
            snprintf(err->message, sizeof err->message, "%s", bk_strerror(r));
        }
        bk_entities_free(out);
    }
    return r;
}
