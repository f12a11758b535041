/* Fields and references over a family's rows: one reader of an element's field (type + offset, as
 * the lump rows describe it) and one checker of the indices elements hold into other lumps (as
 * cgltf's PTRFIXUP, one macro-free loop instead of a hand-written check per field). The checker
 * reads the decoded lump bytes, so it serves every family, LZMA-decoded Source lumps included. */
#include <math.h>
#include <stdio.h>

#include "family.h"

/* the row loops are made once per field type: the reads inline into them */
#if defined(__GNUC__)
#define BK_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define BK_ALWAYS_INLINE inline
#endif

uint32_t bk_ftype_size(uint8_t type)
{
    switch (type) {
    case BK_FT_U16: case BK_FT_I16: return 2;
    case BK_FT_U32: case BK_FT_I32: case BK_FT_F32: return 4;
    default: return 1;
    }
}

static BK_ALWAYS_INLINE int64_t field_get(uint8_t type, const uint8_t *p)
{
    switch (type) {
    case BK_FT_I8: return (int8_t)p[0];
    case BK_FT_U16: return bk_rd_u16le(p);
    case BK_FT_I16: return bk_rd_i16le(p);
    case BK_FT_U32: return bk_rd_u32le(p);
    case BK_FT_I32: return bk_rd_i32le(p);
    case BK_FT_F32: {
        float v = bk_rd_f32le(p);
        return v > -9e18f && v < 9e18f ? (int64_t)v : 0;
    }
    default: return p[0];
    }
}

int64_t bk_field_get(const bk_field *fd, const uint8_t *p, uint32_t k)
{
    return field_get(fd->type, p + fd->offset + (size_t)k * bk_ftype_size(fd->type));
}

/* the row's message with %v (value), %f %n (a range's first and length) and %c (target count) */
static void ref_message(char *out, size_t cap, const char *msg, int64_t v, int64_t n, uint32_t count)
{
    size_t o = 0;
    for (const char *s = msg; *s && o + 1 < cap; s++) {
        if (s[0] == '%' && (s[1] == 'v' || s[1] == 'f' || s[1] == 'n' || s[1] == 'c')) {
            long long x = s[1] == 'n' ? n : s[1] == 'c' ? (long long)count : v;
            int w = snprintf(out + o, cap - o, "%lld", x);
            if (w > 0) o += (size_t)w < cap - o ? (size_t)w : cap - o - 1;
            s++;
        } else {
            out[o++] = *s;
        }
    }
    out[o] = 0;
}

typedef struct ref_row {
    const bk_ref_desc *r;
    uint32_t index;
    const bk_field *f, *cf;
    uint32_t subs;             /* values checked per element: the field's count, 1 for a range */
    uint32_t size;             /* bytes of one value of the field */
    uint32_t target_count;
} ref_row;

#define MAX_ROWS_PER_LUMP 16

static bk_result report_bad(bk_ctx *ctx, const bk_ref_input *in, const ref_row *w, uint32_t lump, uint32_t i,
                            uint32_t k, int64_t v, int64_t n)
{
    const bk_lump_desc *L = &in->fam->lumps[lump];
    const bk_ref_lump *src = &in->lumps[lump];
    uint64_t at = src->ofs;
    if (!src->compressed)
        at += (uint64_t)i * L->entry[in->column] + ((w->r->flags & BK_REF_AT_FIELD) ? w->f->offset : 0);
    char msg[200];
    ref_message(msg, sizeof msg, w->r->msg, v, n, w->target_count);
    bool warn = (w->r->flags & BK_REF_WARN) != 0;
    bk_result r = bk_report(ctx, warn ? BK_SEV_WARNING : BK_SEV_ERROR, BK_EINDEX, L->name, i, at, "%s", msg);
    if (r != BK_OK && !warn) return r;
    return in->repair ? in->repair(in->user, w->index, i, k) : BK_OK;
}

/* whether value v of row w (n: a range's length) is a good reference */
static BK_ALWAYS_INLINE bool value_ok(uint8_t flags, int64_t v, int64_t n, uint32_t count)
{
    if (flags & BK_REF_RANGE)
        return ((flags & BK_REF_EMPTY_ANY) && n == 0) || (v >= 0 && n >= 0 && bk_range_ok((uint64_t)v, (uint64_t)n, count));
    if ((flags & BK_REF_NONE_OK) && v == -1) return true;
    int64_t a = (flags & BK_REF_ABS) && v < 0 ? -v : v;
    return a >= 0 && a < (int64_t)count;
}

/* Every value of row w over count elements of es bytes, with the field's type known to the
 * compiler (the loop is made once per type): true when all are good. */
static BK_ALWAYS_INLINE bool row_all_ok(const ref_row *w, const uint8_t *data, uint32_t count, uint32_t es, uint8_t type)
{
    uint8_t flags = w->r->flags;
    const uint8_t *p = data + w->f->offset;
    if (flags & BK_REF_RANGE) {
        const uint8_t *c = data + w->cf->offset;
        uint8_t ct = w->cf->type;
        for (uint32_t i = 0; i < count; i++, p += es, c += es)
            if (!value_ok(flags, field_get(type, p), ct == type ? field_get(type, c) : field_get(ct, c), w->target_count))
                return false;
        return true;
    }
    if (!(flags & (BK_REF_NONE_OK | BK_REF_ABS))) { /* the plain index: below the count (negative wraps above) */
        if (w->subs == 1) {
            for (uint32_t i = 0; i < count; i++, p += es)
                if ((uint64_t)field_get(type, p) >= w->target_count) return false;
            return true;
        }
        for (uint32_t i = 0; i < count; i++, p += es)
            for (uint32_t k = 0; k < w->subs; k++)
                if ((uint64_t)field_get(type, p + (size_t)k * w->size) >= w->target_count) return false;
        return true;
    }
    for (uint32_t i = 0; i < count; i++, p += es)
        for (uint32_t k = 0; k < w->subs; k++)
            if (!value_ok(flags, field_get(type, p + (size_t)k * w->size), 0, w->target_count)) return false;
    return true;
}

static bool row_ok(const ref_row *w, const uint8_t *data, uint32_t count, uint32_t es)
{
    switch (w->f->type) {
    case BK_FT_U16: return row_all_ok(w, data, count, es, BK_FT_U16);
    case BK_FT_I16: return row_all_ok(w, data, count, es, BK_FT_I16);
    case BK_FT_U32: return row_all_ok(w, data, count, es, BK_FT_U32);
    case BK_FT_I32: return row_all_ok(w, data, count, es, BK_FT_I32);
    default: return row_all_ok(w, data, count, es, w->f->type);
    }
}

bk_result bk_check_refs(bk_ctx *ctx, const bk_ref_input *in, uint32_t lump)
{
    const bk_family *fam = in->fam;
    const bk_lump_desc *L = &fam->lumps[lump];
    ref_row rows[MAX_ROWS_PER_LUMP];
    uint32_t nrows = 0;
    for (uint32_t i = 0; i < fam->ref_count && nrows < MAX_ROWS_PER_LUMP; i++) {
        const bk_ref_desc *r = &fam->refs[i];
        if (r->lump != lump) continue;
        ref_row *w = &rows[nrows];
        w->r = r;
        w->index = i;
        w->f = bk_lump_field(L, in->column, r->field);
        w->cf = r->count_field ? bk_lump_field(L, in->column, r->count_field) : NULL;
        w->target_count = in->lumps[r->target].count;
        if (!w->f || ((r->flags & BK_REF_RANGE) && !w->cf)) return BK_EARG; /* a row naming no field: caught by the rows test */
        if ((r->flags & BK_REF_IF_TARGET) && w->target_count == 0) continue;
        w->subs = (r->flags & BK_REF_RANGE) ? 1 : w->f->count;
        w->size = bk_ftype_size(w->f->type);
        nrows++;
    }
    const bk_ref_lump *src = &in->lumps[lump];
    uint32_t es = L->entry[in->column];
    if (!nrows || !src->count || !src->data) return BK_OK; /* an absent lump holds no index */
    /* the usual case first: every row good, checked a row at a time */
    bool all_ok = true;
    for (uint32_t j = 0; j < nrows && all_ok; j++) all_ok = row_ok(&rows[j], src->data, src->count, es);
    if (all_ok) return BK_OK;
    /* then element by element, the rows in table order, as the reports should come */
    for (uint32_t i = 0; i < src->count; i++) {
        const uint8_t *p = src->data + (size_t)i * es;
        for (uint32_t j = 0; j < nrows; j++) {
            const ref_row *w = &rows[j];
            for (uint32_t k = 0; k < w->subs; k++) {
                int64_t v = field_get(w->f->type, p + w->f->offset + (size_t)k * w->size);
                int64_t n = (w->r->flags & BK_REF_RANGE) ? field_get(w->cf->type, p + w->cf->offset) : 0;
                if (!value_ok(w->r->flags, v, n, w->target_count)) BK_TRY(report_bad(ctx, in, w, lump, i, k, v, n));
            }
        }
    }
    return BK_OK;
}

bk_result bk_check_finite(bk_ctx *ctx, const bk_family *fam, uint8_t column, uint32_t lump, const bk_ref_lump *src)
{
    const bk_lump_desc *L = &fam->lumps[lump];
    const bk_fields *fs = column < BK_FAMILY_COLUMNS ? &L->fields[column] : NULL;
    uint32_t es = column < BK_FAMILY_COLUMNS ? L->entry[column] : 0;
    if (!fs || !fs->count || es <= 1 || !src->data) return BK_OK;
    for (uint32_t i = 0; i < src->count; i++) {
        const uint8_t *el = src->data + (size_t)i * es;
        for (uint32_t k = 0; k < fs->count; k++) {
            const bk_field *fd = &fs->rows[k];
            if (fd->type != BK_FT_F32) continue;
            uint32_t c = 0;
            while (c < fd->count && isfinite(bk_rd_f32le(el + fd->offset + 4 * (size_t)c))) c++;
            if (c == fd->count) continue;
            uint64_t at = src->ofs + (src->compressed ? 0 : (uint64_t)i * es + fd->offset + 4 * (uint64_t)c);
            char sub[16] = "";
            if (fd->count > 1) snprintf(sub, sizeof sub, "[%u]", c);
            BK_TRY(bk_report(ctx, BK_SEV_ERROR, BK_EFORMAT, L->name, i, at, "field \"%s\"%s is not finite (NaN or "
                             "infinite)", fd->name, sub));
            break;   /* one report an element */
        }
    }
    return BK_OK;
}
