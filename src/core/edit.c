/* Editing maps and writing them back (bspkit/write.h).
 *
 * The version row of the loaded file (family.h) gives its header directory (where it starts, how
 * many entries, the entry size and where the offset and length sit in an entry) and the slot of
 * the entity lump; one routine re-emits the lumps in their original file order from that
 * description, keeping the bytes between lumps, so that a save with no edit reproduces the input
 * byte for byte. What is particular to a family is its fix-up after the move (the family's
 * edit_fixup): Quake's BSPX directory and Source's game-lump directory hold absolute file
 * offsets, and Source counts revisions. */
#include <stdarg.h>
#include <stdio.h>
#include <zlib.h>

#define BK_ADVANCED_API /* the speed and memory knobs (bspkit/advanced.h) */
#include "bspkit/advanced.h"
#include "../formats/family.h"
#include "bspkit/source.h"
#include "bspkit/write.h"

typedef struct pak_add {
    char *name;
    uint8_t *data;
    size_t size;
} pak_add;

struct bk_edit {
    const bk_file *f;
    bk_options opt;
    const bk_dir_layout *dir;  /* the file's directory (its version row's) */
    uint32_t entity_slot;
    uint8_t **repl;            /* per lump: replacement bytes (owned) or NULL */
    size_t *repl_size;
    bool *repl_set;
    bool *repl_as_stored;      /* per lump: the bytes are its content, stored as the map stored the
                                * lump (Source: LZMA again); else stored as given */
    bool edited;
    /* pakfile edits (Source), applied at save */
    char **pak_remove;
    uint32_t pak_remove_count;
    pak_add *pak_adds;
    uint32_t pak_add_count;
};

uint32_t bk_crc32(const void *data, size_t size)
{
    uLong c = crc32(0L, Z_NULL, 0);
    const uint8_t *p = data;
    while (size) {
        uInt n = size > 0x40000000u ? 0x40000000u : (uInt)size;
        c = crc32(c, p, n);
        p += n;
        size -= n;
    }
    return (uint32_t)c;
}

static void edit_diag(const bk_edit *e, bk_severity sev, bk_result code, const char *lump, int64_t index,
                      const char *fmt, ...) BK_PRINTF(6, 7);
static void edit_diag(const bk_edit *e, bk_severity sev, bk_result code, const char *lump, int64_t index,
                      const char *fmt, ...)
{
    if (!e->opt.diag) return;
    bk_diag d;
    memset(&d, 0, sizeof d);
    d.severity = sev;
    d.code = code;
    d.file = e->opt.name ? e->opt.name : e->f->name;
    d.lump = lump;
    d.index = index;
    d.offset = BK_NO_OFFSET;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d.message, sizeof d.message, fmt, ap);
    va_end(ap);
    e->opt.diag(e->opt.diag_user, &d);
}

static void report(const bk_edit *e, bk_result code, const char *lump, int64_t index, const char *fmt, const char *a,
                   const char *b)
{
    edit_diag(e, BK_SEV_ERROR, code, lump, index, fmt, a ? a : "", b ? b : "");
}

bk_result bk_edit_begin(const bk_file *f, const bk_options *opt, bk_edit **out)
{
    if (!f || !out) return BK_EARG;
    *out = NULL;
    const bk_version_desc *v = f->version;
    if (!v || !v->dir) return BK_EUNSUPPORTED;
    if (f->size < v->dir->header_size) return BK_ETRUNCATED;
    BK_TRY(bk_file_complete((bk_file *)f, opt)); /* a deferred load, its diagnostics to opt */
    bk_edit *e = bk_calloc(1, sizeof *e);
    if (!e) return BK_ENOMEM;
    e->f = f;
    if (opt) e->opt = *opt;
    e->dir = v->dir;
    e->entity_slot = v->entity_slot;
    uint32_t n = v->dir->count;
    e->repl = bk_calloc(n, sizeof *e->repl);
    e->repl_size = bk_calloc(n, sizeof *e->repl_size);
    e->repl_set = bk_calloc(n, sizeof *e->repl_set);
    e->repl_as_stored = bk_calloc(n, sizeof *e->repl_as_stored);
    if (!e->repl || !e->repl_size || !e->repl_set || !e->repl_as_stored) {
        bk_edit_free(e);
        return BK_ENOMEM;
    }
    *out = e;
    return BK_OK;
}

void bk_edit_free(bk_edit *e)
{
    if (!e) return;
    if (e->repl)
        for (uint32_t i = 0; i < e->dir->count; i++) bk_free(e->repl[i]);
    bk_free(e->repl);
    bk_free(e->repl_size);
    bk_free(e->repl_set);
    bk_free(e->repl_as_stored);
    for (uint32_t i = 0; i < e->pak_remove_count; i++) bk_free(e->pak_remove[i]);
    bk_free(e->pak_remove);
    for (uint32_t i = 0; i < e->pak_add_count; i++) {
        bk_free(e->pak_adds[i].name);
        bk_free(e->pak_adds[i].data);
    }
    bk_free(e->pak_adds);
    bk_free(e);
}

/* lump index becomes the size bytes of data (bk_malloc'd, taken over: freed on failure too);
 * as_stored: they are its content, stored as the map stored the lump */
static bk_result set_lump_owned(bk_edit *e, uint32_t index, uint8_t *data, size_t size, bool as_stored)
{
    if (index >= e->dir->count || size > 0x7fffffffu) {
        bk_free(data);
        return index >= e->dir->count ? BK_EINDEX : BK_ELIMIT;
    }
    bk_free(e->repl[index]);
    e->repl[index] = data;
    e->repl_size[index] = size;
    e->repl_set[index] = true;
    e->repl_as_stored[index] = as_stored;
    e->edited = true;
    return BK_OK;
}

/* the same with a copy of data */
static bk_result set_lump(bk_edit *e, uint32_t index, const void *data, size_t size, bool as_stored)
{
    if (!e || (!data && size)) return BK_EARG;
    if (index >= e->dir->count) return BK_EINDEX;
    if (size > 0x7fffffffu) return BK_ELIMIT;
    uint8_t *copy = bk_malloc(size ? size : 1);
    if (!copy) return BK_ENOMEM;
    if (size) memcpy(copy, data, size);
    return set_lump_owned(e, index, copy, size, as_stored);
}

bk_result bk_edit_set_lump(bk_edit *e, uint32_t index, const void *data, size_t size)
{
    return set_lump(e, index, data, size, false);
}

static bk_result check_entity_text(const bk_edit *e, const uint8_t *text, size_t len);

bk_result bk_edit_set_lump_json(bk_edit *e, const char *name, const char *json, size_t len, bk_diag *err)
{
    if (!e || !name || (!json && len)) return BK_EARG;
    uint32_t li;
    if (!bk_family_lump(e->f->family, name, &li)) return BK_ENOTFOUND;
    bk_lump_view v;
    BK_TRY(bk_lump_view_of(e->f, li, &v));
    uint8_t *bytes;
    size_t size;
    BK_TRY(bk_lump_json_read(e->f, li, json, len, &e->opt, &bytes, &size, err));
    bk_result r = BK_OK;
    /* the same bytes: the lump stays as stored (compressed or not), the file byte-identical */
    if (e->repl_set[v.slot] || size != v.size || (size && memcmp(bytes, v.data, size) != 0)) {
        /* new entity text passes what bk_edit_set_entities applies */
        if (v.slot == e->entity_slot) r = check_entity_text(e, bytes, size);
        if (r == BK_OK) r = set_lump(e, v.slot, bytes, size, true);
    }
    bk_free(bytes);
    return r;
}

/* ---- entities -> text ------------------------------------------------------------------------ */

/* UTF-8 s as Latin-1 into b; false when a character has no Latin-1 form or s is not UTF-8 */
static bool put_latin1(bk_buf *b, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        if (*p < 0x80) {
            bk_buf_append(b, p, 1);
            p++;
        } else if ((p[0] & 0xe0) == 0xc0 && (p[1] & 0xc0) == 0x80 && p[0] <= 0xc3 && p[0] >= 0xc2) {
            uint8_t c = (uint8_t)(((p[0] & 0x1f) << 6) | (p[1] & 0x3f));
            bk_buf_append(b, &c, 1);
            p += 2;
        } else {
            return false;
        }
    }
    return true;
}

static bool text_ok(const char *s)
{
    for (; *s; s++)
        if (*s == '"' || *s == '\n' || *s == '\r') return false;
    return true;
}

#define BK_MAX_ENTITY_TEXT ((size_t)16 << 20)   /* bspkit's own bound: far past any engine's */


#define MAX_LIMIT_WARNINGS 20

#define entity_diag(e, sev, code, index, ...) edit_diag(e, sev, code, "entities", index, __VA_ARGS__)

/* Counts and sizes against the library's limits (refused) and the engine's (warned, the first
 * MAX_LIMIT_WARNINGS of them). key_len / val_len: bytes as written. */
typedef struct ent_check {
    const bk_entity_limits *eng;   /* the engine's (a warning past them); NULL: none known */
    bk_limits lim;
    uint32_t warned;
} ent_check;

static void check_warn(const bk_edit *e, ent_check *c, int64_t index, const char *fmt, const char *key, uint64_t a,
                       uint64_t b)
{
    if (c->warned++ < MAX_LIMIT_WARNINGS)
        entity_diag(e, BK_SEV_WARNING, BK_ELIMIT, index, fmt, key, (unsigned long long)a, c->eng->engine,
                    (unsigned long long)b);
    else if (c->warned == MAX_LIMIT_WARNINGS + 1)
        entity_diag(e, BK_SEV_WARNING, BK_ELIMIT, BK_NO_INDEX, "more entities past the engine's limits: the rest not listed");
}

static bk_result check_pair(const bk_edit *e, ent_check *c, uint32_t i, const char *key, size_t key_len, size_t val_len)
{
    if (key_len > c->lim.max_entity_string || val_len > c->lim.max_entity_string) {
        bool k = key_len > c->lim.max_entity_string;
        entity_diag(e, BK_SEV_ERROR, BK_ELIMIT, i, "key \"%.40s\": a %s of %zu bytes, over bspkit's limit of %u", key,
                    k ? "key" : "value", k ? key_len : val_len, c->lim.max_entity_string);
        return BK_ELIMIT;
    }
    if (!c->eng) return BK_OK;
    if (key_len > c->eng->key)
        check_warn(e, c, i, "key \"%.40s\": %llu bytes, over %s limit of %llu", key, key_len, c->eng->key);
    if (val_len > c->eng->value)
        check_warn(e, c, i, "key \"%.40s\": a value of %llu bytes, over %s limit of %llu", key, val_len,
                   c->eng->value);
    return BK_OK;
}

static void check_entity(const bk_edit *e, ent_check *c, uint32_t i, const bk_entity *en, uint64_t bytes)
{
    if (!c->eng) return;
    if (c->eng->pairs && en->pair_count > c->eng->pairs)
        check_warn(e, c, i, "%s%llu key/value pairs, over %s limit of %llu", "", en->pair_count, c->eng->pairs);
    if (c->eng->pair_bytes && bytes > c->eng->pair_bytes)
        check_warn(e, c, i, "%s%llu bytes of keys and values (a NUL each), over %s limit of %llu", "", bytes,
                   c->eng->pair_bytes);
}

/* What every entity import passes, whichever way it came (bk_edit_set_entities, or the entity lump's
 * bytes through bk_edit_set_lump_json): the entity text as it will be written (len bytes, up to a
 * NUL), against bspkit's limits (refused) and the engine's (warned), and a worldspawn first (refused
 * unless BK_OPT_ALLOW_NO_WORLDSPAWN: no engine loads a map without one). */
static bk_result check_entity_text(const bk_edit *e, const uint8_t *text, size_t len)
{
    const uint8_t *nul = memchr(text, 0, len);
    if (nul) len = (size_t)(nul - text);
    if (len > BK_MAX_ENTITY_TEXT) {
        report(e, BK_ELIMIT, "entities", BK_NO_INDEX, "entity text over %s bytes refused%s", "16 MiB", "");
        return BK_ELIMIT;
    }
    bk_entities ents;
    uint64_t at = 0;
    bk_result r = bk_entities_parse((const char *)text, len, &ents, &at);
    if (r == BK_ENOMEM) return r;
    if (r != BK_OK) {
        char where[64];
        snprintf(where, sizeof where, "%llu", (unsigned long long)at);
        report(e, BK_EFORMAT, "entities", BK_NO_INDEX,
               "entity text does not parse at byte %s of the lump (expected '{', '}' or a quoted string)%s", where, "");
        return BK_EFORMAT;
    }
    ent_check chk = {e->f->version ? e->f->version->entity_limits : NULL, bk_limits_of(&e->opt), 0};
    if (ents.count > chk.lim.max_entities) {
        entity_diag(e, BK_SEV_ERROR, BK_ELIMIT, BK_NO_INDEX, "%u entities, over bspkit's limit of %u", ents.count,
                    chk.lim.max_entities);
        r = BK_ELIMIT;
    }
    if (r == BK_OK && chk.eng && ents.count > chk.eng->entities)
        check_warn(e, &chk, BK_NO_INDEX, "%s%llu entities, over %s limit of %llu", "", ents.count, chk.eng->entities);
    for (uint32_t i = 0; r == BK_OK && i < ents.count; i++) {
        const bk_entity *en = &ents.items[i];
        if (en->pair_count > chk.lim.max_entity_pairs) {
            entity_diag(e, BK_SEV_ERROR, BK_ELIMIT, i, "%u key/value pairs, over bspkit's limit of %u", en->pair_count,
                        chk.lim.max_entity_pairs);
            r = BK_ELIMIT;
            break;
        }
        uint64_t ent_bytes = 0;
        for (uint32_t k = 0; r == BK_OK && k < en->pair_count; k++) {
            size_t key_len = strlen(en->pairs[k].key), val_len = strlen(en->pairs[k].value);
            ent_bytes += key_len + val_len + 2;
            r = check_pair(e, &chk, i, en->pairs[k].key, key_len, val_len);
        }
        if (r == BK_OK) check_entity(e, &chk, i, en, ent_bytes);
    }
    if (r == BK_OK && !(e->opt.flags & BK_OPT_ALLOW_NO_WORLDSPAWN)) {
        const char *cls = ents.count ? bk_entity_get(&ents.items[0], "classname") : NULL;
        if (!ents.count) {
            report(e, BK_EFORMAT, "entities", BK_NO_INDEX,
                   "no entities in the import (an empty file or pipe?): no engine loads a map without worldspawn "
                   "(BK_OPT_ALLOW_NO_WORLDSPAWN, bspkit's --allow-no-worldspawn, writes it anyway)%s%s", "", "");
            r = BK_EFORMAT;
        } else if (!bk_is_worldspawn(cls)) {
            char what[96];
            snprintf(what, sizeof what, "%s%.60s%s", cls ? "\"" : "", cls ? cls : "without a classname", cls ? "\"" : "");
            report(e, BK_EFORMAT, "entities", 0,
                   "the first entity is %s, not worldspawn%s: no engine loads such a map (BK_OPT_ALLOW_NO_WORLDSPAWN, "
                   "bspkit's --allow-no-worldspawn, writes it anyway)", what, "");
            r = BK_EFORMAT;
        }
    }
    bk_entities_free(&ents);
    return r;
}

bk_result bk_edit_set_entities(bk_edit *e, const bk_entities *ents)
{
    if (!e || !ents) return BK_EARG;
    /* how the map's own text was encoded */
    const bk_entities *orig = &e->f->entities;
    bool eight_bit = false;
    for (uint32_t i = 0; i < orig->count && !eight_bit; i++)
        for (uint32_t k = 0; k < orig->items[i].pair_count && !eight_bit; k++)
            eight_bit = !bk_utf8_valid(orig->items[i].pairs[k].key) || !bk_utf8_valid(orig->items[i].pairs[k].value);
    bk_limits lim = bk_limits_of(&e->opt);
    /* bounds before the text is built (check_entity_text applies them again, on the text as written) */
    if (ents->count > lim.max_entities) {
        entity_diag(e, BK_SEV_ERROR, BK_ELIMIT, BK_NO_INDEX, "%u entities, over bspkit's limit of %u", ents->count,
                    lim.max_entities);
        return BK_ELIMIT;
    }
    bk_buf b = {0};
    for (uint32_t i = 0; i < ents->count && b.size <= BK_MAX_ENTITY_TEXT; i++) {
        const bk_entity *en = &ents->items[i];
        if (en->pair_count > lim.max_entity_pairs) {
            entity_diag(e, BK_SEV_ERROR, BK_ELIMIT, i, "%u key/value pairs, over bspkit's limit of %u", en->pair_count,
                        lim.max_entity_pairs);
            bk_buf_free(&b);
            return BK_ELIMIT;
        }
        bk_buf_append(&b, "{\n", 2);
        for (uint32_t k = 0; k < en->pair_count; k++) {
            const char *key = en->pairs[k].key ? en->pairs[k].key : "", *val = en->pairs[k].value ? en->pairs[k].value : "";
            if (!text_ok(key) || !text_ok(val)) {
                report(e, BK_EFORMAT, "entities", i, "key \"%s\": a key or value holds a quote or a line break, which the engines cannot read%s", key, "");
                bk_buf_free(&b);
                return BK_EFORMAT;
            }
            bk_buf_append(&b, "\"", 1);
            bool ok = true;
            if (eight_bit) ok = put_latin1(&b, key);
            else bk_buf_append(&b, key, strlen(key));
            bk_buf_append(&b, "\" \"", 3);
            if (eight_bit) ok = ok && put_latin1(&b, val);
            else bk_buf_append(&b, val, strlen(val));
            bk_buf_append(&b, "\"\n", 2);
            if (!ok) {
                report(e, BK_EFORMAT, "entities", i,
                       "key \"%s\": the map's text is 8-bit and this text has characters Latin-1 lacks%s", key, "");
                bk_buf_free(&b);
                return BK_EFORMAT;
            }
        }
        bk_buf_append(&b, "}\n", 2);
    }
    bk_buf_append(&b, "", 1);   /* the engines read the lump as a C string */
    if (b.failed) {
        bk_buf_free(&b);
        return BK_ENOMEM;
    }
    bk_result r = check_entity_text(e, b.data, b.size);
    if (r == BK_OK) r = set_lump(e, e->entity_slot, b.data, b.size, true);
    bk_buf_free(&b);
    return r;
}

/* ---- the pakfile (Source lump 40): a zip whose offsets are relative to the lump ------------- */

static bool glob_match(const char *g, const char *s)
{
    for (;;) {
        if (*g == 0) return *s == 0;
        if (g[0] == '*' && g[1] == '*') {
            for (const char *t = s;; t++) {
                if (glob_match(g + 2, t)) return true;
                if (!*t) return false;
            }
        }
        if (*g == '*') {
            for (const char *t = s;; t++) {
                if (glob_match(g + 1, t)) return true;
                if (!*t || *t == '/') return false;
            }
        }
        if (!*s) return false;
        char a = *g, c = *s;
        if (a >= 'A' && a <= 'Z') a = (char)(a + 32);
        if (c >= 'A' && c <= 'Z') c = (char)(c + 32);
        if (*g != '?' && a != c) return false;
        g++;
        s++;
    }
}

/* add name with data (bk_malloc'd, taken over: freed on failure too) */
static bk_result pak_add_owned(bk_edit *e, const char *name, uint8_t *data, size_t size)
{
    if (!bk_archive_name_safe(name) || strlen(name) > 1024) {
        report(e, BK_EARG, "pakfile", BK_NO_INDEX, "'%s': not a safe relative path inside the pakfile%s", name, "");
        bk_free(data);
        return BK_EARG;
    }
    if (size > 0x7fffffffu) {
        bk_free(data);
        return BK_ELIMIT;
    }
    pak_add *na = bk_realloc(e->pak_adds, (e->pak_add_count + 1) * sizeof *na);
    if (!na) {
        bk_free(data);
        return BK_ENOMEM;
    }
    e->pak_adds = na;
    pak_add *a = &na[e->pak_add_count];
    a->name = bk_strdup(name);
    if (!a->name) {
        bk_free(data);
        return BK_ENOMEM;
    }
    a->data = data;
    a->size = size;
    e->pak_add_count++;
    e->edited = true;
    return BK_OK;
}

bk_result bk_edit_pak_add(bk_edit *e, const char *name, const void *data, size_t size)
{
    if (!e || !name || (!data && size)) return BK_EARG;
    if (e->f->family->pak_slot < 0) return BK_EUNSUPPORTED;
    if (size > 0x7fffffffu) return BK_ELIMIT;
    uint8_t *copy = bk_malloc(size ? size : 1);
    if (!copy) return BK_ENOMEM;
    if (size) memcpy(copy, data, size);
    return pak_add_owned(e, name, copy, size);
}

bk_result bk_edit_pak_add_file(bk_edit *e, const char *name, const char *path)
{
    if (!e || !name || !path) return BK_EARG;
    if (e->f->family->pak_slot < 0) return BK_EUNSUPPORTED;
    /* one entry: at most the zip's 2 GiB - 1 and the largest allocation */
    bk_limits l = e->opt.limits;
    bk_limits_resolve(&l);
    uint64_t max = l.max_alloc_bytes < 0x7fffffffu ? l.max_alloc_bytes : 0x7fffffffu;
    uint8_t *data;
    size_t n;
    char what[160];
    bk_result r = bk_read_until_eof(path, max, &data, &n, what, sizeof what);
    if (r != BK_OK) {
        if (what[0]) bk_scene_diag(NULL, &e->opt, BK_SEV_ERROR, r, path, NULL, BK_NO_INDEX, BK_NO_OFFSET, "%s; nothing added", what);
        return r;
    }
    return pak_add_owned(e, name, data, n);
}

typedef struct zent {
    uint32_t cd_ofs, cd_len;   /* central record in the old zip */
    uint32_t local_ofs;
    const char *name;
    uint16_t name_len;
    bool keep;
} zent;

static int zent_by_local(const void *a, const void *b)
{
    const zent *x = a, *y = b;
    return x->local_ofs < y->local_ofs ? -1 : x->local_ofs > y->local_ofs;
}

static bool zname_eq(const zent *z, const char *s)
{
    size_t n = strlen(s);
    if (n != z->name_len) return false;
    for (size_t i = 0; i < n; i++) {
        char a = z->name[i], c = s[i];
        if (a >= 'A' && a <= 'Z') a = (char)(a + 32);
        if (c >= 'A' && c <= 'Z') c = (char)(c + 32);
        if (a != c) return false;
    }
    return true;
}

static void put16(bk_buf *b, uint32_t v)
{
    uint8_t t[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    bk_buf_append(b, t, 2);
}
static void put32(bk_buf *b, uint32_t v)
{
    uint8_t t[4];
    bk_wr_u32le(t, v);
    bk_buf_append(b, t, 4);
}

/* The zip's central directory (bk_zip_end_find, bk_zip_record_read): its end record, and its
 * entries with their records' offsets */
static bk_result zip_dir(bk_edit *e, const uint8_t *z, size_t n, bk_zip_end *end, zent **ze_out)
{
    memset(end, 0, sizeof *end);
    if (n && !bk_zip_end_find(z, n, end)) {
        report(e, BK_EFORMAT, "pakfile", BK_NO_INDEX, "the pakfile is not a zip (no end-of-directory record)%s%s", "", "");
        return BK_EFORMAT;
    }
    uint32_t count = end->count, cd_ofs = end->cd_ofs;
    size_t cd_end = cd_ofs + (size_t)end->cd_size;
    if (n && (!bk_span_ok(cd_ofs, end->cd_size, end->at))) {
        report(e, BK_EFORMAT, "pakfile", BK_NO_INDEX, "the zip's central directory lies outside it%s%s", "", "");
        return BK_EFORMAT;
    }
    zent *ze = bk_calloc(count ? count : 1, sizeof *ze);
    if (!ze) return BK_ENOMEM;
    size_t p = cd_ofs;
    for (uint32_t i = 0; i < count; i++) {
        bk_zip_record rec;
        if (!bk_zip_record_read(z, p, cd_end, &rec) || !bk_span_ok(p, rec.len, cd_end) || rec.local_ofs >= cd_ofs) {
            bk_free(ze);
            report(e, BK_EFORMAT, "pakfile", i, "central directory record is damaged%s%s", "", "");
            return BK_EFORMAT;
        }
        ze[i].cd_ofs = (uint32_t)p;
        ze[i].cd_len = rec.len;
        ze[i].local_ofs = rec.local_ofs;
        ze[i].name = rec.name;
        ze[i].name_len = (uint16_t)rec.name_len;
        ze[i].keep = true;
        p += rec.len;
    }
    *ze_out = ze;
    return BK_OK;
}

/* Rebuild the zip z (n bytes) without the removed entries and with the added ones. */
static bk_result pak_rebuild(bk_edit *e, const uint8_t *z, size_t n, bk_buf *out, uint32_t *removed)
{
    bk_zip_end zd;
    zent *ze;
    BK_TRY(zip_dir(e, z, n, &zd, &ze));
    uint32_t cd_ofs = zd.cd_ofs, count = zd.count;
    /* removals, and entries an addition replaces */
    for (uint32_t i = 0; i < count; i++) {
        char nm[1100];
        size_t l = ze[i].name_len < sizeof nm - 1 ? ze[i].name_len : sizeof nm - 1;
        memcpy(nm, ze[i].name, l);
        nm[l] = 0;
        for (uint32_t g = 0; g < e->pak_remove_count && ze[i].keep; g++)
            if (glob_match(e->pak_remove[g], nm)) {
                ze[i].keep = false;
                if (removed) (*removed)++;
            }
        for (uint32_t a = 0; a < e->pak_add_count && ze[i].keep; a++)
            if (zname_eq(&ze[i], e->pak_adds[a].name)) ze[i].keep = false;
    }
    /* the whole zip at once (the old bytes bound what is kept), so that no growth copies it */
    size_t want = n;
    for (uint32_t a = 0; a < e->pak_add_count; a++)
        want += e->pak_adds[a].size + 2 * strlen(e->pak_adds[a].name) + 128;
    bk_buf_reserve(out, want);
    /* local records in file order; each runs to the next one (or the directory) */
    zent *order = bk_malloc((count ? count : 1) * sizeof *order);
    uint32_t *newofs = bk_calloc(count ? count : 1, sizeof *newofs);
    if (!order || !newofs) {
        bk_free(ze);
        bk_free(order);
        bk_free(newofs);
        return BK_ENOMEM;
    }
    memcpy(order, ze, count * sizeof *ze);
    qsort(order, count, sizeof *order, zent_by_local);
    if (count && order[0].local_ofs > 0) bk_buf_append(out, z, order[0].local_ofs);   /* leading bytes */
    for (uint32_t i = 0; i < count; i++) {
        uint32_t end = i + 1 < count ? order[i + 1].local_ofs : cd_ofs;
        if (end < order[i].local_ofs) end = order[i].local_ofs;
        if (!order[i].keep) continue;
        for (uint32_t k = 0; k < count; k++)
            if (ze[k].cd_ofs == order[i].cd_ofs) newofs[k] = (uint32_t)out->size;
        bk_buf_append(out, z + order[i].local_ofs, end - order[i].local_ofs);
    }
    uint32_t *addofs = bk_calloc(e->pak_add_count ? e->pak_add_count : 1, sizeof *addofs);
    uint32_t *addcrc = bk_calloc(e->pak_add_count ? e->pak_add_count : 1, sizeof *addcrc);
    for (uint32_t a = 0; addofs && addcrc && a < e->pak_add_count; a++) {
        const pak_add *pa = &e->pak_adds[a];
        addofs[a] = (uint32_t)out->size;
        addcrc[a] = bk_crc32(pa->data, pa->size);
        size_t nl = strlen(pa->name);
        put32(out, 0x04034b50u);
        put16(out, 10); put16(out, 0); put16(out, 0);        /* version, flags, stored */
        put16(out, 0); put16(out, 0x21);                      /* time, date (1980-01-01) */
        put32(out, addcrc[a]); put32(out, (uint32_t)pa->size); put32(out, (uint32_t)pa->size);
        put16(out, (uint32_t)nl); put16(out, 0);
        bk_buf_append(out, pa->name, nl);
        bk_buf_append(out, pa->data, pa->size);
    }
    uint32_t new_cd = (uint32_t)out->size, kept = 0;
    for (uint32_t i = 0; i < count; i++) {
        if (!ze[i].keep) continue;
        size_t at = out->size;
        bk_buf_append(out, z + ze[i].cd_ofs, ze[i].cd_len);
        if (!out->failed) bk_wr_u32le(out->data + at + 42, newofs[i]);
        kept++;
    }
    for (uint32_t a = 0; addofs && addcrc && a < e->pak_add_count; a++) {
        const pak_add *pa = &e->pak_adds[a];
        size_t nl = strlen(pa->name);
        put32(out, 0x02014b50u);
        put16(out, 20); put16(out, 10); put16(out, 0); put16(out, 0);
        put16(out, 0); put16(out, 0x21);
        put32(out, addcrc[a]); put32(out, (uint32_t)pa->size); put32(out, (uint32_t)pa->size);
        put16(out, (uint32_t)nl); put16(out, 0); put16(out, 0); put16(out, 0); put16(out, 0);
        put32(out, 0); put32(out, addofs[a]);
        bk_buf_append(out, pa->name, nl);
        kept++;
    }
    uint32_t cd_len = (uint32_t)out->size - new_cd;
    put32(out, 0x06054b50u);
    put16(out, 0); put16(out, 0); put16(out, kept); put16(out, kept);
    put32(out, cd_len); put32(out, new_cd);
    uint32_t cl = n ? zd.comment_len : 0;
    put16(out, cl);
    if (cl) bk_buf_append(out, z + zd.at + 22, cl);
    bool fail = !addofs || !addcrc || out->failed || kept > 0xffff;
    bk_free(addofs);
    bk_free(addcrc);
    bk_free(ze);
    bk_free(order);
    bk_free(newofs);
    return fail ? BK_ENOMEM : BK_OK;
}

/* the pakfile as the edit has it so far: a replacement already made (earlier edits applied at a
 * save, or set through bk_edit_set_lump), else the map's own */
static bk_result pak_current(const bk_edit *e, const uint8_t **data, size_t *size)
{
    int32_t slot = e->f->family->pak_slot;
    if (e->repl_set[slot]) {
        *data = e->repl[slot];
        *size = e->repl_size[slot];
        return BK_OK;
    }
    return bk_source_lump_bytes(e->f, slot, data, size);
}

bk_result bk_edit_pak_remove(bk_edit *e, const char *glob, uint32_t *removed)
{
    if (!e || !glob) return BK_EARG;
    if (e->f->family->pak_slot < 0) return BK_EUNSUPPORTED;
    char **nr = bk_realloc(e->pak_remove, (e->pak_remove_count + 1) * sizeof *nr);
    if (!nr) return BK_ENOMEM;
    e->pak_remove = nr;
    if (!(nr[e->pak_remove_count] = bk_strdup(glob))) return BK_ENOMEM;
    e->pak_remove_count++;
    e->edited = true;
    /* count now what the glob matches, for the caller */
    if (removed) {
        *removed = 0;
        const uint8_t *pd;
        size_t ps;
        if (pak_current(e, &pd, &ps) == BK_OK && pd) {
            bk_buf tmp = {0};
            bk_edit probe = *e;
            probe.pak_remove = &nr[e->pak_remove_count - 1];
            probe.pak_remove_count = 1;
            probe.pak_add_count = 0;
            probe.opt.diag = NULL;
            pak_rebuild(&probe, pd, ps, &tmp, removed);
            bk_buf_free(&tmp);
        }
    }
    return BK_OK;
}

/* ---- re-laying out the lumps ------------------------------------------------------------------ */

typedef struct lslot {
    uint32_t index;
    uint64_t ofs, len;         /* old */
    uint64_t new_ofs, new_len;
} lslot;

static int by_offset(const void *a, const void *b)
{
    const lslot *x = a, *y = b;
    if (x->ofs != y->ofs) return x->ofs < y->ofs ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* where an old file offset went: an offset inside a lump moves with it; one in the gap after a
 * lump keeps its distance from that lump's end */
static uint64_t moved(const lslot *s, uint32_t n, uint64_t old)
{
    const lslot *best = NULL;
    for (uint32_t i = 0; i < n; i++)
        if (s[i].len && s[i].ofs <= old && (!best || s[i].ofs > best->ofs)) best = &s[i];
    if (!best) return old;
    if (old < best->ofs + best->len) return best->new_ofs + (old - best->ofs);
    return best->new_ofs + best->new_len + (old - (best->ofs + best->len));
}

typedef struct moves {
    const lslot *s;
    uint32_t n;
} moves;
static uint64_t moved_ofs(const bk_edit_layout *el, uint64_t old)
{
    const moves *m = el->priv;
    return moved(m->s, m->n, old);
}

/* the pakfile edits become a replacement of the pakfile lump, which takes the rebuilt zip over; the
 * added files' bytes are then in it alone, so the edits are let go (later ones apply on top of it):
 * a save holds the added bytes twice at the most (the zip, then the map laid out), not four times */
static bk_result apply_pak_edits(bk_edit *e)
{
    int32_t slot = e->f->family->pak_slot;
    const uint8_t *pd = NULL;
    size_t ps = 0;
    bk_buf z = {0};
    uint32_t removed = 0;
    bk_result r = pak_current(e, &pd, &ps);
    if (r == BK_OK) r = pak_rebuild(e, pd, pd ? ps : 0, &z, &removed);
    if (r != BK_OK) {
        bk_buf_free(&z);
        return r;
    }
    BK_TRY(set_lump_owned(e, (uint32_t)slot, z.data ? z.data : bk_malloc(1), z.size, false));
    for (uint32_t i = 0; i < e->pak_remove_count; i++) bk_free(e->pak_remove[i]);
    for (uint32_t i = 0; i < e->pak_add_count; i++) {
        bk_free(e->pak_adds[i].name);
        bk_free(e->pak_adds[i].data);
    }
    e->pak_remove_count = e->pak_add_count = 0;
    return BK_OK;
}

static void family_fixup(const bk_edit *e, const lslot *s, bk_buf *o, uint64_t tail_old, uint64_t tail_new)
{
    const bk_dir_layout *L = e->dir;
    uint64_t old_ofs[64], old_len[64], new_ofs[64], new_len[64];
    for (uint32_t k = 0; k < L->count; k++) {
        old_ofs[s[k].index] = s[k].ofs;
        old_len[s[k].index] = s[k].len;
        new_ofs[s[k].index] = s[k].new_ofs;
        new_len[s[k].index] = s[k].new_len;
    }
    moves mv = {s, L->count};
    bk_edit_layout el = {o->data, o->size, L, old_ofs, old_len, new_ofs, new_len, e->repl_set, e->edited,
                         tail_old, tail_new, moved_ofs, &mv};
    e->f->family->edit_fixup(e->f, &el);
}

/* enc[i]: how replaced lump i is stored when the family stores it otherwise (edit_encode), or NULL */
static bk_result build_layout(bk_edit *e, uint8_t *const *enc, const size_t *enc_n, uint8_t **out_data,
                              size_t *out_size)
{
    const bk_dir_layout *L = e->dir;
    const uint8_t *d = e->f->data;
    size_t n = e->f->size;
    bk_result r = BK_OK;
    lslot s[64];
    for (uint32_t i = 0; i < L->count; i++) {
        const uint8_t *ent = d + L->dir_offset + (size_t)i * L->entry_size;
        s[i].index = i;
        s[i].ofs = bk_rd_u32le(ent + L->ofs_field);
        s[i].len = bk_rd_u32le(ent + L->len_field);
        if (!bk_span_ok(s[i].ofs, s[i].len, n)) return BK_ELUMP_RANGE;
    }
    for (uint32_t i = 0; i < L->count; i++)
        if (s[i].len == 0 && e->repl_set[i]) s[i].ofs = UINT64_MAX;
    qsort(s, L->count, sizeof s[0], by_offset);
    /* overlapping lumps can be copied as they are, but not moved apart safely */
    for (uint32_t i = 1; i < L->count; i++) {
        if (!s[i].len || !s[i - 1].len) continue;
        if (s[i].ofs < s[i - 1].ofs + s[i - 1].len && (e->repl_set[s[i].index] || e->repl_set[s[i - 1].index])) {
            char a[16], b[16];
            snprintf(a, sizeof a, "%u", s[i - 1].index);
            snprintf(b, sizeof b, "%u", s[i].index);
            report(e, BK_EUNSUPPORTED, "header", s[i].index, "lumps %s and %s overlap; an edit of either is refused", a, b);
            return BK_EUNSUPPORTED;
        }
    }
    bk_buf o = {0};
    uint64_t cur = L->header_size;   /* old cursor */
    bk_buf_append(&o, d, L->header_size < n ? L->header_size : n);
    bool shifted = false;
    for (uint32_t k = 0; k < L->count; k++) {
        lslot *sl = &s[k];
        /* a replaced lump's bytes are the edit's (its ofs may be the UINT64_MAX "was empty" mark) */
        const uint8_t *src = enc[sl->index]           ? enc[sl->index]
                             : e->repl_set[sl->index] ? e->repl[sl->index]
                                                      : d + sl->ofs;
        uint64_t len = enc[sl->index] ? enc_n[sl->index] : e->repl_set[sl->index] ? e->repl_size[sl->index] : sl->len;
        if (sl->len == 0 && !e->repl_set[sl->index]) {
            sl->new_ofs = sl->ofs;   /* an empty lump keeps its offset (fixed below if it moved) */
            sl->new_len = 0;
            continue;
        }
        if (sl->ofs == UINT64_MAX) {
            static const uint8_t zero[8] = {0};
            bk_buf_append(&o, zero, (L->align - o.size % L->align) % L->align);
            sl->new_ofs = o.size;
            sl->new_len = len;
            bk_buf_append(&o, src, len);
            shifted = true;
            continue;
        }
        if (sl->ofs < cur) {
            /* overlaps the previous lump (no edit of either): keep the same relative place */
            sl->new_ofs = o.size - (cur - sl->ofs);
            sl->new_len = len;
            if (sl->ofs + sl->len > cur) {
                bk_buf_append(&o, d + cur, sl->ofs + sl->len - cur);
                cur = sl->ofs + sl->len;
            }
            continue;
        }
        uint64_t gap = sl->ofs - cur;
        if (shifted && L->align > 1 && sl->ofs % L->align == 0 && gap < L->align) {
            static const uint8_t zero[8] = {0};
            bk_buf_append(&o, zero, (L->align - o.size % L->align) % L->align);
        } else {
            bk_buf_append(&o, d + cur, gap);
            if (shifted && L->align > 1 && sl->ofs % L->align == 0 && o.size % L->align) {
                static const uint8_t zero[8] = {0};
                bk_buf_append(&o, zero, (L->align - o.size % L->align) % L->align);
            }
        }
        sl->new_ofs = o.size;
        sl->new_len = len;
        bk_buf_append(&o, src, len);
        if (sl->new_ofs != sl->ofs || len != sl->len) shifted = true;
        cur = sl->ofs + sl->len;
    }
    if (cur < n) bk_buf_append(&o, d + cur, n - cur);
    if (o.failed) {
        bk_buf_free(&o);
        return BK_ENOMEM;
    }
    if (o.size > 0x7fffffffu) {
        bk_buf_free(&o);
        return BK_ELIMIT;
    }
    /* empty lumps that sat after a moved one follow it */
    for (uint32_t k = 0; k < L->count; k++)
        if (s[k].len == 0 && !e->repl_set[s[k].index] && s[k].ofs) s[k].new_ofs = moved(s, L->count, s[k].ofs);
    for (uint32_t k = 0; k < L->count; k++) {
        uint8_t *ent = o.data + L->dir_offset + (size_t)s[k].index * L->entry_size;
        bk_wr_u32le(ent + L->ofs_field, (uint32_t)s[k].new_ofs);
        bk_wr_u32le(ent + L->len_field, (uint32_t)s[k].new_len);
    }
    uint64_t tail_old = cur, tail_new = o.size - (n > cur ? n - cur : 0);
    /* the family's fix-up of offsets its lumps hold into the file */
    if (e->f->family->edit_fixup) family_fixup(e, s, &o, tail_old, tail_new);
    /* validate what was built */
    bk_options vo = e->opt;
    /* its reports name the edited map: their offsets are the edited layout's, not the input's */
    char label[1100];
    snprintf(label, sizeof label, "%s (as edited)", e->opt.name ? e->opt.name : e->f->name ? e->f->name : "map");
    vo.name = label;
    uint32_t errs = 0, warns = 0;
    r = bk_validate_memory(o.data, o.size, &vo, &errs, &warns);
    if (r != BK_OK || errs) {
        report(e, r != BK_OK ? r : BK_EFORMAT, NULL, BK_NO_INDEX,
               "the edited map does not validate (%s); nothing written%s", bk_strerror(r != BK_OK ? r : BK_EFORMAT), "");
        bk_buf_free(&o);
        return r != BK_OK ? r : BK_EFORMAT;
    }
    *out_data = o.data;
    *out_size = o.size;
    return BK_OK;
}

/* the edit's file: pakfile edits applied, replaced lumps stored as the family stores them, laid out
 * and validated */
static bk_result build(bk_edit *e, uint8_t **out_data, size_t *out_size)
{
    if (e->pak_add_count || e->pak_remove_count) BK_TRY(apply_pak_edits(e));
    uint8_t *enc[64] = {0};
    size_t enc_n[64] = {0};
    bk_result r = BK_OK;
    for (uint32_t i = 0; i < e->dir->count && i < 64 && r == BK_OK; i++)
        if (e->repl_set[i] && e->repl_as_stored[i] && e->f->family->edit_encode)
            r = e->f->family->edit_encode(e->f, i, e->repl[i], e->repl_size[i], &enc[i], &enc_n[i]);
    if (r == BK_OK) r = build_layout(e, enc, enc_n, out_data, out_size);
    for (uint32_t i = 0; i < 64; i++) bk_free(enc[i]);
    return r;
}

bk_result bk_edit_save_memory(bk_edit *e, uint8_t **out, size_t *size)
{
    if (!e || !out || !size) return BK_EARG;
    return build(e, out, size);
}

bk_result bk_edit_save(bk_edit *e, const char *path)
{
    if (!e || !path) return BK_EARG;
    uint8_t *d;
    size_t n;
    BK_TRY(build(e, &d, &n));
    bk_result r = bk_write_file_atomic(path, d, n);
    bk_free(d);
    return r;
}
