/* Fields and references over a family's rows: one reader of an element's field (type + offset, as
 * the lump rows describe it) and one checker of the indices elements hold into other lumps (as
 * cgltf's PTRFIXUP, one macro-free loop instead of a hand-written check per field). The checker
 * reads the decoded lump bytes, so it serves every family, LZMA-decoded Source lumps included. */
#include <stdio.h>

#include "family.h"

uint32_t bk_ftype_size(uint8_t type)
{
    switch (type) {
    case BK_FT_U16: case BK_FT_I16: return 2;
    case BK_FT_U32: case BK_FT_I32: case BK_FT_F32: return 4;
    default: return 1;
    }
}

static inline int64_t field_get(uint8_t type, const uint8_t *p)
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
        nrows++;
    }
    const bk_ref_lump *src = &in->lumps[lump];
    uint32_t es = L->entry[in->column];
    for (uint32_t i = 0; i < src->count && nrows; i++) {
        const uint8_t *p = src->data + (size_t)i * es;
        for (uint32_t j = 0; j < nrows; j++) {
            const ref_row *w = &rows[j];
            uint8_t flags = w->r->flags;
            for (uint32_t k = 0; k < w->subs; k++) {
                int64_t v = field_get(w->f->type, p + w->f->offset + (size_t)k * bk_ftype_size(w->f->type));
                if (flags & BK_REF_RANGE) {
                    int64_t n = field_get(w->cf->type, p + w->cf->offset);
                    if (v >= 0 && n >= 0 && bk_range_ok((uint64_t)v, (uint64_t)n, w->target_count)) continue;
                    BK_TRY(report_bad(ctx, in, w, lump, i, k, v, n));
                    continue;
                }
                if ((flags & BK_REF_NONE_OK) && v == -1) continue;
                int64_t a = (flags & BK_REF_ABS) && v < 0 ? -v : v;
                if (a >= 0 && a < (int64_t)w->target_count) continue;
                BK_TRY(report_bad(ctx, in, w, lump, i, k, v, 0));
            }
        }
    }
    return BK_OK;
}
