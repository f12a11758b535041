/* Every lump of a map as JSON and back (bspkit lump, docs/lumps.md), built on the family's lump
 * rows (family.h): a lump whose row has fields is an array of objects, one per element, in the
 * fields' names; any other lump is its bytes in base64. The reader is strict (every field, its
 * type and range, nothing unknown) and bounded: the array is scanned element by element and each
 * element parsed alone, so memory follows the lump, not the text's nesting. */
#include <float.h>
#include <math.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "family.h"

#define BK_MAX_SECTIONS 8u

bk_result bk_lump_view_of(const bk_file *f, uint32_t lump, bk_lump_view *out)
{
    memset(out, 0, sizeof *out);
    const bk_family *fam = f ? f->family : NULL;
    if (!fam || lump >= fam->lump_count) return BK_EINDEX;
    if (fam->lump_view) return fam->lump_view(f, lump, out);
    const bk_version_desc *v = f->version;
    if (!v || !v->dir) return BK_EUNSUPPORTED;
    const bk_dir_layout *D = v->dir;
    /* the entity lump is row 0; a version that keeps it in another slot swaps the two */
    uint32_t slot = lump == 0 ? v->entity_slot : lump == v->entity_slot ? 0 : lump;
    if (slot >= D->count || !bk_span_ok(D->dir_offset + (uint64_t)slot * D->entry_size, D->entry_size, f->size))
        return BK_ETRUNCATED;
    const uint8_t *ent = f->data + D->dir_offset + (size_t)slot * D->entry_size;
    uint32_t ofs = bk_rd_u32le(ent + D->ofs_field), len = bk_rd_u32le(ent + D->len_field);
    if (!bk_span_ok(ofs, len, f->size)) return BK_ELUMP_RANGE;
    out->slot = slot;
    out->data = len ? f->data + ofs : NULL;
    out->size = len;
    out->column = v->column;
    return BK_OK;
}

/* the fields a lump's JSON is written in, or NULL: its bytes in base64 (no field rows, or a size
 * that is not a whole number of elements) */
static const bk_fields *fields_of(const bk_lump_desc *row, const bk_lump_view *v)
{
    uint8_t col = v->column;
    if (col >= BK_FAMILY_COLUMNS || row->entry[col] <= 1 || !row->fields[col].count) return NULL;
    return v->size % row->entry[col] ? NULL : &row->fields[col];
}

/* the sections of a lump made of counted arrays (family.h), or NULL */
static const bk_lump_sections *sections_of(const bk_lump_desc *row, const bk_lump_view *v)
{
    const bk_lump_sections *ss = v->column < BK_FAMILY_COLUMNS ? &row->sections[v->column] : NULL;
    return ss && ss->count && ss->count <= BK_MAX_SECTIONS ? ss : NULL;
}

/* where each section's elements start and how many there are; false when the bytes are not exactly
 * the counted arrays (then the lump's JSON is its bytes in base64) */
static bool split_sections(const bk_lump_sections *ss, const uint8_t *d, size_t n, size_t *start, uint32_t *count)
{
    size_t at = 0;
    for (uint32_t k = 0; k < ss->count; k++) {
        if (n - at < 4) return false;
        int32_t c = bk_rd_i32le(d + at);
        at += 4;
        if (c < 0 || (uint64_t)c * ss->rows[k].entry > n - at) return false;
        start[k] = at, count[k] = (uint32_t)c;
        at += (size_t)c * ss->rows[k].entry;
    }
    return at == n;
}

bk_result bk_lump_shape_at(const bk_file *f, uint32_t i, bk_lump_shape *out)
{
    if (!f || !out) return BK_EARG;
    memset(out, 0, sizeof *out);
    const bk_family *fam = f->family;
    if (!fam || !f->version || !f->version->dir) return BK_EUNSUPPORTED;
    if (i >= fam->lump_count) return BK_EINDEX;
    bk_lump_view v;
    BK_TRY(bk_lump_view_of(f, i, &v));
    const bk_lump_desc *row = &fam->lumps[i];
    const bk_fields *fs = fields_of(row, &v);
    out->name = row->name;
    out->slot = v.slot;
    out->entry_size = fs ? row->entry[v.column] : 0;
    out->field_count = fs ? fs->count : 0;
    out->size = v.size;
    out->compressed = v.compressed;
    return BK_OK;
}

bk_result bk_lump_bytes(const bk_file *f, uint32_t slot, const uint8_t **data, size_t *size)
{
    if (!f || !data || !size) return BK_EARG;
    *data = NULL;
    *size = 0;
    const bk_info *inf = bk_file_info(f); /* a deferred load finished */
    if (slot >= inf->lump_count) return BK_EINDEX;
    const bk_version_desc *v = f->version;
    if (f->family && v && v->dir && slot < f->family->lump_count) {
        /* the row of a directory slot: the entity lump's row 0 swaps with its slot (Blue Shift) */
        uint32_t row = slot == v->entity_slot ? 0 : slot == 0 ? v->entity_slot : slot;
        bk_lump_view lv;
        BK_TRY(bk_lump_view_of(f, row, &lv));
        *data = lv.data, *size = lv.size;
        return BK_OK;
    }
    /* no directory (a DPM's tables): the entry's bytes in the file */
    const bk_lump_info *l = &inf->lumps[slot];
    if (!bk_span_ok(l->offset, l->length, f->size)) return BK_ELUMP_RANGE;
    *data = l->length ? f->data + l->offset : NULL;
    *size = (size_t)l->length;
    return BK_OK;
}

static bk_result find_row(const bk_file *f, const char *name, uint32_t *index)
{
    if (!f || !name) return BK_EARG;
    if (!f->family || !f->version || !f->version->dir) return BK_EUNSUPPORTED;
    return bk_family_lump(f->family, name, index) ? BK_OK : BK_ENOTFOUND;
}

/* ---- writing ---------------------------------------------------------------------------------- */
static const char k_b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void put_base64(bk_buf *b, const uint8_t *p, size_t n)
{
    if (!bk_buf_reserve(b, (n + 2) / 3 * 4)) return;
    char q[4];
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
        q[0] = k_b64[v >> 18];
        q[1] = k_b64[(v >> 12) & 63];
        q[2] = i + 1 < n ? k_b64[(v >> 6) & 63] : '=';
        q[3] = i + 2 < n ? k_b64[v & 63] : '=';
        bk_buf_append(b, q, 4);
    }
}

static void put_hex(bk_buf *b, const uint8_t *p, size_t n)
{
    static const char hx[] = "0123456789abcdef";
    if (!bk_buf_reserve(b, 2 * n + 2)) return;
    bk_buf_append(b, "\"", 1);
    for (size_t i = 0; i < n; i++) {
        char c[2] = {hx[p[i] >> 4], hx[p[i] & 15]};
        bk_buf_append(b, c, 2);
    }
    bk_buf_append(b, "\"", 1);
}

/* the shortest %g that reads back to the same float; a NaN or infinity as its bits */
static void put_f32(bk_buf *b, const uint8_t *p)
{
    uint32_t bits = bk_rd_u32le(p);
    float v = bk_rd_f32le(p);
    if (!isfinite(v)) {
        bk_buf_printf(b, "\"0x%08x\"", bits);
        return;
    }
    char s[32];
    for (int prec = 6; prec <= 9; prec++) {
        snprintf(s, sizeof s, "%.*g", prec, (double)v);
        if (strtof(s, NULL) == v && (v != 0 || signbit(strtof(s, NULL)) == signbit(v))) break;
    }
    bk_buf_append(b, s, strlen(s));
}

/* fixed text: a string up to its NUL when the rest is zero and the text UTF-8, else {"hex": ...} */
static void put_chars(bk_buf *b, const uint8_t *p, uint32_t n)
{
    uint32_t len = 0;
    while (len < n && p[len]) len++;
    bool plain = true;
    for (uint32_t i = len; i < n && plain; i++) plain = p[i] == 0;
    char *t = NULL;
    if (plain && (t = bk_malloc(len + 1)) != NULL) {
        memcpy(t, p, len);
        t[len] = 0;
        plain = bk_utf8_valid(t);
    }
    if (plain && !t) {
        b->failed = true;
        return;
    }
    if (!plain) {
        bk_buf_append(b, "{\"hex\": ", 8);
        put_hex(b, p, n);
        bk_buf_append(b, "}", 1);
        bk_free(t);
        return;
    }
    bk_json_str(b, t);
    bk_free(t);
}

static void put_field(bk_buf *b, const bk_field *fd, const uint8_t *el)
{
    const uint8_t *p = el + fd->offset;
    if (fd->type == BK_FT_CHARS) return put_chars(b, p, fd->count);
    if (fd->type == BK_FT_BYTES) return put_hex(b, p, fd->count);
    uint32_t sz = bk_ftype_size(fd->type);
    if (fd->count > 1) bk_buf_append(b, "[", 1);
    for (uint32_t k = 0; k < fd->count; k++) {
        if (k) bk_buf_append(b, ", ", 2);
        if (fd->type == BK_FT_F32) put_f32(b, p + (size_t)k * sz);
        else bk_buf_printf(b, "%lld", (long long)bk_field_get(fd, el, k));
    }
    if (fd->count > 1) bk_buf_append(b, "]", 1);
}

/* {"section": [elements], ...}: objects one a line, bare numbers sixteen a line */
static void put_sections(bk_buf *b, const bk_lump_sections *ss, const uint8_t *d, const size_t *start,
                         const uint32_t *count)
{
    bk_buf_append(b, "{", 1);
    for (uint32_t k = 0; k < ss->count && !b->failed; k++) {
        const bk_lump_section *sc = &ss->rows[k];
        bk_buf_printf(b, "%s\n\"%s\": [", k ? "," : "", sc->name);
        for (uint32_t i = 0; i < count[k] && !b->failed; i++) {
            const uint8_t *el = d + start[k] + (size_t)i * sc->entry;
            if (sc->bare) {
                bk_buf_append(b, i % 16 ? ", " : i ? ",\n" : "\n", i % 16 ? 2 : i ? 2 : 1);
                put_field(b, &sc->fields.rows[0], el);
                continue;
            }
            bk_buf_append(b, i ? ",\n{" : "\n{", i ? 3 : 2);
            for (uint32_t c = 0; c < sc->fields.count; c++) {
                bk_buf_printf(b, "%s\"%s\": ", c ? ", " : "", sc->fields.rows[c].name);
                put_field(b, &sc->fields.rows[c], el);
            }
            bk_buf_append(b, "}", 1);
        }
        bk_buf_append(b, count[k] ? "\n]" : "]", count[k] ? 2 : 1);
    }
    bk_buf_append(b, "\n}\n", 3);
}

bk_result bk_lump_to_json(const bk_file *f, const char *name, char **out, size_t *out_len)
{
    if (!out) return BK_EARG;
    *out = NULL;
    uint32_t li;
    BK_TRY(find_row(f, name, &li));
    bk_lump_view v;
    BK_TRY(bk_lump_view_of(f, li, &v));
    const bk_lump_desc *row = &f->family->lumps[li];
    const bk_fields *fs = fields_of(row, &v);
    const bk_lump_sections *ss = sections_of(row, &v);
    size_t start[BK_MAX_SECTIONS];
    uint32_t count[BK_MAX_SECTIONS];
    bk_buf b = {0};
    if (ss && split_sections(ss, v.data, v.size, start, count)) {
        put_sections(&b, ss, v.data, start, count);
    } else if (!fs) {
        bk_buf_printf(&b, "{\"lump\": \"%s\", \"size\": %zu, \"encoding\": \"base64\", \"data\": \"", row->name, v.size);
        put_base64(&b, v.data, v.size);
        bk_buf_append(&b, "\"}\n", 3);
    } else {
        uint32_t es = row->entry[v.column];
        size_t n = v.size / es;
        bk_buf_append(&b, "[", 1);
        for (size_t i = 0; i < n && !b.failed; i++) {
            bk_buf_append(&b, i ? ",\n{" : "\n{", i ? 3 : 2);
            for (uint32_t k = 0; k < fs->count; k++) {
                bk_buf_printf(&b, "%s\"%s\": ", k ? ", " : "", fs->rows[k].name);
                put_field(&b, &fs->rows[k], v.data + i * es);
            }
            bk_buf_append(&b, "}", 1);
        }
        bk_buf_append(&b, "\n]\n", 3);
    }
    return bk_buf_take_string(&b, out, out_len);
}

/* ---- reading ---------------------------------------------------------------------------------- */
typedef struct jrd {
    const char *t;
    size_t n;
    const char *lump;
    bk_diag *err;
    const char *section;   /* the section being read (a lump of counted arrays), or NULL */
} jrd;

static bk_result fail(const jrd *j, bk_result code, int64_t index, size_t off, const char *fmt, ...) BK_PRINTF(5, 6);
static bk_result fail(const jrd *j, bk_result code, int64_t index, size_t off, const char *fmt, ...)
{
    if (!j->err) return code;
    bk_diag *d = j->err;
    memset(d, 0, sizeof *d);
    d->severity = BK_SEV_ERROR;
    d->code = code;
    d->lump = j->lump;
    d->index = index;
    d->offset = off;
    size_t line = 1, col = 1;
    for (size_t i = 0; i < off && i < j->n; i++) {
        if (j->t[i] == '\n') line++, col = 1;
        else col++;
    }
    int w = snprintf(d->message, sizeof d->message, "line %zu:%zu: %s%s%s", line, col, j->section ? "\"" : "",
                     j->section ? j->section : "", j->section ? "\": " : "");
    va_list ap;
    va_start(ap, fmt);
    if (w > 0 && (size_t)w < sizeof d->message) vsnprintf(d->message + w, sizeof d->message - (size_t)w, fmt, ap);
    va_end(ap);
    return code;
}

static const char *kind(const cJSON *v)
{
    return cJSON_IsNumber(v) ? "a number" : cJSON_IsString(v) ? "a string" : cJSON_IsArray(v) ? "an array"
         : cJSON_IsObject(v) ? "an object" : cJSON_IsBool(v) ? "a boolean" : "null";
}

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* exactly n bytes from 2n hex digits */
static bool unhex(const char *s, uint8_t *p, size_t n)
{
    if (strlen(s) != 2 * n) return false;
    for (size_t i = 0; i < n; i++) {
        int a = hexval(s[2 * i]), b = hexval(s[2 * i + 1]);
        if (a < 0 || b < 0) return false;
        p[i] = (uint8_t)(a << 4 | b);
    }
    return true;
}

/* one number of an integer or float field into p; why: what is wrong */
static bool put_scalar(uint8_t type, const cJSON *v, uint8_t *p, const char **why)
{
    if (type == BK_FT_F32 && cJSON_IsString(v)) {
        uint8_t b[4];
        const char *s = v->valuestring;
        if (s[0] != '0' || (s[1] | 0x20) != 'x' || !unhex(s + 2, b, 4)) {
            *why = "a float given as a string must be \"0x\" and 8 hex digits (its bits)";
            return false;
        }
        bk_wr_u32le(p, (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3]);
        return true;
    }
    if (!cJSON_IsNumber(v)) {
        *why = "expected a number";
        return false;
    }
    double d = v->valuedouble;
    if (type == BK_FT_F32) {
        float x = (float)d;
        if (!isfinite(d) || !isfinite(x)) {
            *why = "out of float range";
            return false;
        }
        uint32_t u;
        memcpy(&u, &x, 4);
        bk_wr_u32le(p, u);
        return true;
    }
    static const double lo[] = {[BK_FT_U8] = 0, [BK_FT_I8] = -128, [BK_FT_U16] = 0, [BK_FT_I16] = -32768,
                                [BK_FT_U32] = 0, [BK_FT_I32] = -2147483648.0};
    static const double hi[] = {[BK_FT_U8] = 255, [BK_FT_I8] = 127, [BK_FT_U16] = 65535, [BK_FT_I16] = 32767,
                                [BK_FT_U32] = 4294967295.0, [BK_FT_I32] = 2147483647.0};
    if (!isfinite(d) || d != floor(d)) {
        *why = "expected an integer";
        return false;
    }
    if (d < lo[type] || d > hi[type]) {
        *why = "out of the field type's range";
        return false;
    }
    int64_t x = (int64_t)d;
    uint32_t sz = bk_ftype_size(type);
    for (uint32_t k = 0; k < sz; k++) p[k] = (uint8_t)((uint64_t)x >> (8 * k));
    return true;
}

static const char *type_name(uint8_t t)
{
    static const char *n[] = {"u8", "i8", "u16", "i16", "u32", "i32", "f32", "chars", "bytes"};
    return t < BK_ARRAY_LEN(n) ? n[t] : "?";
}

static bk_result read_field(const jrd *j, const bk_field *fd, const cJSON *v, uint8_t *el, int64_t i, size_t off)
{
    uint8_t *p = el + fd->offset;
    if (fd->type == BK_FT_CHARS) {
        const cJSON *h = cJSON_IsObject(v) && v->child && !v->child->next ? cJSON_GetObjectItemCaseSensitive(v, "hex") : NULL;
        if (cJSON_IsString(v)) {
            size_t len = strlen(v->valuestring);
            if (len > fd->count)
                return fail(j, BK_EFORMAT, i, off, "field \"%s\": %zu bytes of text, the field holds %u", fd->name,
                            len, fd->count);
            memcpy(p, v->valuestring, len);
            memset(p + len, 0, fd->count - len);
            return BK_OK;
        }
        if (cJSON_IsString(h) && unhex(h->valuestring, p, fd->count)) return BK_OK;
        return fail(j, BK_EFORMAT, i, off, "field \"%s\": expected a string of at most %u bytes or {\"hex\": %u hex "
                    "bytes}, got %s", fd->name, fd->count, fd->count, kind(v));
    }
    if (fd->type == BK_FT_BYTES) {
        if (cJSON_IsString(v) && unhex(v->valuestring, p, fd->count)) return BK_OK;
        return fail(j, BK_EFORMAT, i, off, "field \"%s\": expected a string of %u hex digits, got %s", fd->name,
                    2u * fd->count, kind(v));
    }
    uint32_t sz = bk_ftype_size(fd->type);
    if (fd->count > 1 && (!cJSON_IsArray(v) || cJSON_GetArraySize(v) != (int)fd->count))
        return fail(j, BK_EFORMAT, i, off, "field \"%s\": expected an array of %u %s, got %s%s", fd->name, fd->count,
                    type_name(fd->type), kind(v), cJSON_IsArray(v) ? " of another length" : "");
    const cJSON *x = fd->count > 1 ? v->child : v;
    for (uint32_t k = 0; k < fd->count; k++, x = x->next) {
        const char *why = NULL;
        if (!put_scalar(fd->type, x, p + (size_t)k * sz, &why)) {
            char at[16] = "";
            if (fd->count > 1) snprintf(at, sizeof at, "[%u]", k);
            if (cJSON_IsNumber(x))
                return fail(j, BK_EFORMAT, i, off, "field \"%s\"%s (%s): %.17g: %s", fd->name, at,
                            type_name(fd->type), x->valuedouble, why);
            return fail(j, BK_EFORMAT, i, off, "field \"%s\"%s (%s): %s, got %s", fd->name, at, type_name(fd->type),
                        why, kind(x));
        }
    }
    return BK_OK;
}

/* a key of object o given twice (cJSON keeps both and finds the first; JSON tools keep the last):
 * the key, or NULL */
static const char *duplicate_key(const cJSON *o)
{
    for (const cJSON *c = o->child; c; c = c->next)
        for (const cJSON *d = c->next; d; d = d->next)
            if (strcmp(c->string, d->string) == 0) return c->string;
    return NULL;
}

static bk_result read_element(const jrd *j, const bk_fields *fs, const cJSON *o, uint8_t *el, int64_t i, size_t off)
{
    if (!cJSON_IsObject(o)) return fail(j, BK_EFORMAT, i, off, "expected an object, got %s", kind(o));
    for (const cJSON *c = o->child; c; c = c->next) {
        bool known = false;
        for (uint32_t k = 0; k < fs->count && !known; k++) known = strcmp(c->string, fs->rows[k].name) == 0;
        if (!known) return fail(j, BK_EFORMAT, i, off, "unknown field \"%.64s\"", c->string);
    }
    /* the fields are known, so at most a few dozen: the pairs compared are few */
    const char *dup = duplicate_key(o);
    if (dup) return fail(j, BK_EFORMAT, i, off, "field \"%.64s\" given twice", dup);
    for (uint32_t k = 0; k < fs->count; k++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, fs->rows[k].name);
        if (!v) return fail(j, BK_EFORMAT, i, off, "missing field \"%s\"", fs->rows[k].name);
        BK_TRY(read_field(j, &fs->rows[k], v, el, i, off));
    }
    return BK_OK;
}

static size_t skip_ws(const char *t, size_t n, size_t p)
{
    while (p < n && (t[p] == ' ' || t[p] == '\t' || t[p] == '\r' || t[p] == '\n')) p++;
    return p;
}

/* the end (one past) of the object starting at t[p] == '{', or 0 when it does not close, or SIZE_MAX
 * when it closes but is longer than max_len or holds more than max_items values (counted as the ',',
 * '[' and '{' outside strings): bounds on what cJSON, which takes tens of bytes a value, is handed */
static size_t object_end(const char *t, size_t n, size_t p, size_t max_len, size_t max_items)
{
    size_t depth = 0, items = 0, start = p;
    bool str = false;
    for (; p < n; p++) {
        char c = t[p];
        if (str) {
            if (c == '\\') p++;
            else if (c == '"') str = false;
        } else if (c == '"') {
            str = true;
        } else if (c == '{' || c == '[') {
            depth++;
            items++;
        } else if (c == ',') {
            items++;
        } else if (c == '}' || c == ']') {
            if (--depth == 0) return p + 1 - start > max_len || items > max_items ? SIZE_MAX : p + 1;
        }
    }
    return 0;
}

/* The most text and values one element of fields fs can need, generously: a number in 64
 * characters (any spacing, indentation of a pretty-printer), a chars field as \u escapes or hex, a
 * key twice its name (escapes). An element past them is refused before it is parsed. */
static void element_bounds(const bk_fields *fs, size_t *max_len, size_t *max_items)
{
    size_t len = 256, items = 4;
    for (uint32_t k = 0; k < fs->count; k++) {
        const bk_field *fd = &fs->rows[k];
        len += 2 * strlen(fd->name) + 64;
        items += 2;
        if (fd->type == BK_FT_CHARS) len += 8 * (size_t)fd->count + 64, items += 2;
        else if (fd->type == BK_FT_BYTES) len += 2 * (size_t)fd->count + 64;
        else len += 64 * (size_t)fd->count, items += fd->count;
    }
    *max_len = len;
    *max_items = items;
}

/* the end (one past) of the bare number at t[p]: up to ',', ']' or a space, 64 characters at most */
static size_t token_end(const char *t, size_t n, size_t p)
{
    size_t e = p;
    while (e < n && e - p < 64 && t[e] != ',' && t[e] != ']' && t[e] != ' ' && t[e] != '\n' && t[e] != '\r' &&
           t[e] != '\t')
        e++;
    return e;
}

/* [ element, ... ] at *pp into out, element by element (objects, or bare numbers: one field), at most
 * max of es bytes; *pp moves past the ']', *count receives the elements */
static bk_result read_elements(const jrd *j, const bk_fields *fs, uint32_t es, bool bare, uint64_t max,
                               const bk_limits *lim, size_t *pp, bk_buf *out, int64_t *count)
{
    const char *t = j->t;
    size_t n = j->n, p = *pp;
    if (p >= n || t[p] != '[') return fail(j, BK_EFORMAT, BK_NO_INDEX, p, "expected '[': an array of elements");
    int64_t i = 0;
    size_t max_len, max_items;
    element_bounds(fs, &max_len, &max_items);
    p = skip_ws(t, n, p + 1);
    if (p < n && t[p] == ']') p++;
    else
        for (;; i++) {
            if (!bare && (p >= n || t[p] != '{'))
                return fail(j, BK_EFORMAT, i, p, "expected '{': element %lld as an object", (long long)i);
            if ((uint64_t)i >= max || (uint64_t)(i + 1) * es > lim->max_alloc_bytes || (uint64_t)(i + 1) * es > 0x7fffffffu)
                return fail(j, BK_ELIMIT, i, p, "more than %llu elements of %u bytes: over the limit",
                            (unsigned long long)((uint64_t)i), es);
            size_t e = bare ? token_end(t, n, p) : object_end(t, n, p, max_len, max_items);
            if (e == SIZE_MAX)
                return fail(j, BK_ELIMIT, i, p, "element %lld is longer than its fields can need (%zu characters, "
                            "%zu values at most): refused before it is parsed", (long long)i, max_len, max_items);
            if (!e || e == p) return fail(j, BK_EFORMAT, i, p, "element %lld does not close", (long long)i);
            cJSON *o = cJSON_ParseWithLength(t + p, e - p);
            if (!o) return fail(j, BK_EFORMAT, i, p, "element %lld is not valid JSON", (long long)i);
            uint8_t *el = bk_buf_reserve(out, es) ? out->data + out->size : NULL;
            bk_result r = el ? BK_OK : BK_ENOMEM;
            if (el) {
                memset(el, 0, es);
                r = bare ? read_field(j, &fs->rows[0], o, el, i, p) : read_element(j, fs, o, el, i, p);
                out->size += es;
            }
            cJSON_Delete(o);
            if (r != BK_OK) return r;
            p = skip_ws(t, n, e);
            if (p < n && t[p] == ',') {
                p = skip_ws(t, n, p + 1);
                continue;
            }
            if (p < n && t[p] == ']') {
                p++;
                i++;
                break;
            }
            return fail(j, BK_EFORMAT, i, p, "expected ',' or ']' after element %lld", (long long)i);
        }
    *pp = p;
    *count = i;
    return BK_OK;
}

/* [ {element}, ... ] into out: the whole text */
static bk_result read_array(const jrd *j, const bk_lump_desc *row, const bk_fields *fs, uint32_t es,
                            const bk_limits *lim, size_t p, bk_buf *out)
{
    uint64_t max = lim->max_elements;
    if (row->max_count && row->max_count < max) max = row->max_count;
    int64_t i;
    BK_TRY(read_elements(j, fs, es, false, max, lim, &p, out, &i));
    if (skip_ws(j->t, j->n, p) != j->n) return fail(j, BK_EFORMAT, BK_NO_INDEX, p, "text after the array");
    if ((uint64_t)i < row->min_count)
        return fail(j, BK_EFORMAT, BK_NO_INDEX, p, "%lld elements; the lump needs at least %u", (long long)i,
                    row->min_count);
    return BK_OK;
}

static int b64val(char c)
{
    const char *s = c ? strchr(k_b64, c) : NULL;
    return s ? (int)(s - k_b64) : -1;
}

/* {"lump": NAME, "size": N, "encoding": "base64", "data": "..."} */
static bk_result read_opaque(const jrd *j, const bk_limits *lim, size_t p, bk_buf *out)
{
    cJSON *o = cJSON_ParseWithLength(j->t + p, j->n - p);
    if (!o) return fail(j, BK_EFORMAT, BK_NO_INDEX, p, "not valid JSON");
    bk_result r = BK_OK;
    const cJSON *enc = cJSON_GetObjectItemCaseSensitive(o, "encoding"), *data = cJSON_GetObjectItemCaseSensitive(o, "data");
    const cJSON *lump = cJSON_GetObjectItemCaseSensitive(o, "lump"), *size = cJSON_GetObjectItemCaseSensitive(o, "size");
    if (!cJSON_IsObject(o)) r = fail(j, BK_EFORMAT, BK_NO_INDEX, p, "expected an object {\"encoding\": \"base64\", \"data\": ...}, got %s", kind(o));
    for (const cJSON *c = r ? NULL : o->child; c && !r; c = c->next)
        if (strcmp(c->string, "lump") && strcmp(c->string, "size") && strcmp(c->string, "encoding") && strcmp(c->string, "data"))
            r = fail(j, BK_EFORMAT, BK_NO_INDEX, p, "unknown key \"%.64s\"", c->string);
    const char *dup = r ? NULL : duplicate_key(o);
    if (dup) r = fail(j, BK_EFORMAT, BK_NO_INDEX, p, "key \"%.64s\" given twice", dup);
    if (!r && (!cJSON_IsString(enc) || strcmp(enc->valuestring, "base64")))
        r = fail(j, BK_EFORMAT, BK_NO_INDEX, p, "\"encoding\": expected \"base64\"");
    if (!r && lump && (!cJSON_IsString(lump) || strcmp(lump->valuestring, j->lump)))
        r = fail(j, BK_EFORMAT, BK_NO_INDEX, p, "\"lump\": expected \"%s\" (this JSON is another lump's?)", j->lump);
    if (!r && !cJSON_IsString(data)) r = fail(j, BK_EFORMAT, BK_NO_INDEX, p, "\"data\": expected a base64 string");
    size_t len = r ? 0 : strlen(data->valuestring);
    if (!r && len % 4) r = fail(j, BK_EFORMAT, BK_NO_INDEX, p, "\"data\": base64 length %zu is not a multiple of 4", len);
    if (!r && len / 4 * 3 > lim->max_alloc_bytes) r = fail(j, BK_ELIMIT, BK_NO_INDEX, p, "\"data\": over the allocation limit");
    if (!r && !bk_buf_reserve(out, len / 4 * 3 + 1)) r = BK_ENOMEM;
    const char *s = r ? NULL : data->valuestring;
    for (size_t i = 0; !r && i < len; i += 4) {
        int a = b64val(s[i]), b = b64val(s[i + 1]), c = s[i + 2] == '=' ? -2 : b64val(s[i + 2]),
            d = s[i + 3] == '=' ? -2 : b64val(s[i + 3]);
        bool last = i + 4 == len;
        if (a < 0 || b < 0 || c == -1 || d == -1 || (!last && (c < 0 || d < 0)) || (c == -2 && d != -2)) {
            r = fail(j, BK_EFORMAT, BK_NO_INDEX, p, "\"data\": not base64 at character %zu", i);
            break;
        }
        uint32_t v = (uint32_t)a << 18 | (uint32_t)b << 12 | (c < 0 ? 0u : (uint32_t)c << 6) | (d < 0 ? 0u : (uint32_t)d);
        uint8_t q[3] = {(uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v};
        bk_buf_append(out, q, c < 0 ? 1 : d < 0 ? 2 : 3);
    }
    if (!r && size && (!cJSON_IsNumber(size) || size->valuedouble != (double)out->size))
        r = fail(j, BK_EFORMAT, BK_NO_INDEX, p, "\"size\" says %.17g bytes, \"data\" holds %zu",
                 cJSON_IsNumber(size) ? size->valuedouble : -1.0, out->size);
    cJSON_Delete(o);
    return r;
}

/* the key at t[p] == '"' (no escapes: section names are plain), its length in *kl; 0 when it does
 * not close */
static size_t key_end(const char *t, size_t n, size_t p)
{
    size_t e = p + 1;
    while (e < n && t[e] != '"' && t[e] != '\\' && e - p < 64) e++;
    return e < n && t[e] == '"' ? e + 1 : 0;
}

/* the first/count fields of section k's elements index inside section sc->range_of's */
static bk_result check_ranges(jrd *j, const bk_lump_section *sc, const bk_buf *part, int64_t n, int64_t target_n,
                              const char *target, size_t at)
{
    const bk_field *ff = NULL, *fc = NULL;
    for (uint32_t c = 0; c < sc->fields.count; c++) {
        if (strcmp(sc->fields.rows[c].name, sc->first) == 0) ff = &sc->fields.rows[c];
        if (strcmp(sc->fields.rows[c].name, sc->count) == 0) fc = &sc->fields.rows[c];
    }
    if (!ff || !fc) return BK_EARG;
    for (int64_t i = 0; i < n; i++) {
        const uint8_t *el = part->data + (size_t)i * sc->entry;
        int64_t a = bk_field_get(ff, el, 0), c = bk_field_get(fc, el, 0);
        if (a < 0 || c < 0 || a + c > target_n)
            return fail(j, BK_EFORMAT, i, at, "\"%s\" %lld + \"%s\" %lld: out of the %lld %s", sc->first, (long long)a,
                        sc->count, (long long)c, (long long)target_n, target);
    }
    return BK_OK;
}

/* {"section": [...], ...} of a lump of counted arrays, every section once, into out as the lump's
 * bytes (each section's count, then its elements); an object whose first key is not a section is
 * read as the lump's bytes in base64 (read_opaque), the form a lump that is not whole takes */
static bk_result read_sections(jrd *j, const bk_lump_sections *ss, const bk_limits *lim, size_t p, bk_buf *out)
{
    const char *t = j->t;
    size_t n = j->n;
    if (p >= n || t[p] != '{') return fail(j, BK_EFORMAT, BK_NO_INDEX, p, "expected '{': an object of arrays");
    size_t q = skip_ws(t, n, p + 1), e = q < n && t[q] == '"' ? key_end(t, n, q) : 0;
    bool sectioned = false;
    for (uint32_t k = 0; e && k < ss->count; k++)
        sectioned |= strlen(ss->rows[k].name) == e - q - 2 && memcmp(t + q + 1, ss->rows[k].name, e - q - 2) == 0;
    if (!sectioned) return read_opaque(j, lim, p, out);
    bk_buf part[BK_MAX_SECTIONS];
    int64_t cnt[BK_MAX_SECTIONS];
    size_t at[BK_MAX_SECTIONS];
    memset(part, 0, sizeof part);
    for (uint32_t k = 0; k < BK_MAX_SECTIONS; k++) cnt[k] = -1;
    bk_result r = BK_OK;
    for (p = q; r == BK_OK;) {
        e = p < n && t[p] == '"' ? key_end(t, n, p) : 0;
        if (!e) {
            r = fail(j, BK_EFORMAT, BK_NO_INDEX, p, "expected a key (a section name)");
            break;
        }
        uint32_t k = 0;
        while (k < ss->count && !(strlen(ss->rows[k].name) == e - p - 2 && memcmp(t + p + 1, ss->rows[k].name, e - p - 2) == 0)) k++;
        if (k == ss->count || cnt[k] >= 0) {
            r = fail(j, BK_EFORMAT, BK_NO_INDEX, p, "key %.*s: %s", (int)(e - p), t + p,
                     k == ss->count ? "not a section of this lump" : "given twice");
            break;
        }
        p = skip_ws(t, n, e);
        if (p >= n || t[p] != ':') {
            r = fail(j, BK_EFORMAT, BK_NO_INDEX, p, "expected ':' after key %.*s", (int)(e - q), t + q);
            break;
        }
        p = skip_ws(t, n, p + 1);
        at[k] = p;
        j->section = ss->rows[k].name;
        r = read_elements(j, &ss->rows[k].fields, ss->rows[k].entry, ss->rows[k].bare, lim->max_elements, lim, &p,
                          &part[k], &cnt[k]);
        j->section = NULL;
        if (r != BK_OK) break;
        p = skip_ws(t, n, p);
        if (p < n && t[p] == ',') p = skip_ws(t, n, p + 1);
        else if (p < n && t[p] == '}') break;
        else r = fail(j, BK_EFORMAT, BK_NO_INDEX, p, "expected ',' or '}' after section \"%s\"", ss->rows[k].name);
    }
    if (r == BK_OK && skip_ws(t, n, p + 1) != n) r = fail(j, BK_EFORMAT, BK_NO_INDEX, p + 1, "text after the object");
    for (uint32_t k = 0; r == BK_OK && k < ss->count; k++)
        if (cnt[k] < 0) r = fail(j, BK_EFORMAT, BK_NO_INDEX, p, "missing section \"%s\"", ss->rows[k].name);
    for (uint32_t k = 0; r == BK_OK && k < ss->count; k++) {
        const bk_lump_section *sc = &ss->rows[k];
        if (sc->range_of < 0 || (uint32_t)sc->range_of >= ss->count) continue;
        j->section = sc->name;
        r = check_ranges(j, sc, &part[k], cnt[k], cnt[sc->range_of], ss->rows[sc->range_of].name, at[k]);
        j->section = NULL;
    }
    for (uint32_t k = 0; k < ss->count; k++) {
        uint8_t c[4];
        bk_wr_u32le(c, (uint32_t)(cnt[k] < 0 ? 0 : cnt[k]));
        if (r == BK_OK) bk_buf_append(out, c, 4);
        if (r == BK_OK && part[k].size) bk_buf_append(out, part[k].data, part[k].size);
        bk_buf_free(&part[k]);
    }
    return r;
}

bk_result bk_lump_json_read(const bk_file *f, uint32_t li, const char *text, size_t len, const bk_options *opt,
                            uint8_t **out, size_t *size, bk_diag *err)
{
    *out = NULL;
    *size = 0;
    if (!text && len) return BK_EARG;
    bk_lump_view v;
    BK_TRY(bk_lump_view_of(f, li, &v));
    const bk_lump_desc *row = &f->family->lumps[li];
    const bk_fields *fs = fields_of(row, &v);
    const bk_lump_sections *ss = sections_of(row, &v);
    bk_limits lim = bk_limits_of(opt);
    jrd j = {text, len, row->name, err, NULL};
    size_t p = len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
    p = skip_ws(text, len, p);
    bk_buf b = {0};
    bk_result r = ss   ? read_sections(&j, ss, &lim, p, &b)
                 : fs ? read_array(&j, row, fs, row->entry[v.column], &lim, p, &b)
                      : read_opaque(&j, &lim, p, &b);
    if (r == BK_OK && b.failed) r = BK_ENOMEM;
    if (r != BK_OK) {
        bk_buf_free(&b);
        return r;
    }
    if (!b.data && !(b.data = bk_malloc(1))) return BK_ENOMEM;
    *out = b.data;
    *size = b.size;
    return BK_OK;
}
