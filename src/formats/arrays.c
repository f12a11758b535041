/* The decoded arrays of a file, generically (bk_file_array): each family's array rows say where
 * an array's pointer and count lie in its public struct; its element's fields are the lump rows'
 * decoded fields (to, dst: where bk_decode_rows puts each) first, then the members the rows do not
 * decode. Bindings list and view every array through this, with no family logic of their own. */
#define BK_ADVANCED_API /* bk_file_complete */
#include "bspkit/advanced.h"
#include "family.h"

_Static_assert((int)BK_ARRAY_U8 == (int)BK_FT_U8 && (int)BK_ARRAY_I32 == (int)BK_FT_I32 &&
                   (int)BK_ARRAY_F32 == (int)BK_FT_F32 && (int)BK_ARRAY_CHARS == (int)BK_FT_CHARS &&
                   (int)BK_ARRAY_BYTES == (int)BK_FT_BYTES,
               "a field row's type is its bk_array_type");

static uint32_t type_size(uint8_t t)
{
    return t == BK_ARRAY_U64 ? 8 : bk_ftype_size(t);
}

static const bk_array_set *set_of(const bk_file *f)
{
    return f && f->family ? f->family->arrays : NULL;
}

uint32_t bk_file_array_count(const bk_file *f)
{
    const bk_array_set *s = set_of(f);
    return s ? s->count : 0;
}

int32_t bk_file_array_index(const bk_file *f, const char *name)
{
    const bk_array_set *s = set_of(f);
    for (uint32_t i = 0; s && name && i < s->count; i++)
        if (!strcmp(s->rows[i].name, name)) return (int32_t)i;
    return -1;
}

/* the column of a lump's rows for f: the version row's, or (where the family tells it per lump,
 * the columns differ and some row is decoded) the lump's own view, which decodes a compressed
 * lump and keeps it: asked only when it matters */
static uint8_t column_of(const bk_file *f, const bk_lump_desc *l, uint32_t lump)
{
    uint8_t c = f->version ? f->version->column : 0;
    bool differ = false, decoded = false;
    for (uint8_t k = 1; k < BK_FAMILY_COLUMNS; k++) differ |= l->fields[k].rows != l->fields[0].rows;
    for (uint8_t k = 0; k < BK_FAMILY_COLUMNS; k++)
        for (uint32_t i = 0; i < l->fields[k].count; i++) decoded |= l->fields[k].rows[i].to != 0;
    if (differ && decoded && f->family->lump_view) {
        bk_lump_view v;
        if (bk_lump_view_of(f, lump, &v) == BK_OK) c = v.column;
    }
    return c < BK_FAMILY_COLUMNS ? c : 0;
}

static bool covered(const bk_array_info *out, uint32_t ofs)
{
    for (uint32_t i = 0; i < out->field_count; i++) {
        const bk_array_field *a = &out->fields[i];
        uint32_t n = a->count * (a->type == BK_ARRAY_CHARS || a->type == BK_ARRAY_BYTES ? 1 : type_size(a->type));
        if (ofs >= a->offset && ofs < a->offset + n) return true;
    }
    return false;
}

static bool named(const bk_array_info *out, const char *name)
{
    for (uint32_t i = 0; i < out->field_count; i++)
        if (!strcmp(out->fields[i].name, name)) return true;
    return false;
}

static void add(bk_array_info *out, const char *name, uint8_t type, uint32_t ofs, const uint16_t shape[3], uint32_t count)
{
    /* a member a row already gave (at its offset, or by its name) is not listed twice */
    if (out->field_count >= BK_ARRAY_MAX_FIELDS || covered(out, ofs) || named(out, name)) return;
    bk_array_field *a = &out->fields[out->field_count++];
    a->name = name;
    a->type = (bk_array_type)type;
    a->offset = ofs;
    a->count = 1;
    for (int k = 0; k < 3; k++) {
        a->shape[k] = shape ? (shape[k] ? shape[k] : 1) : (k == 0 ? count : 1);
        a->count *= a->shape[k];
    }
}

bk_result bk_file_array(const bk_file *f, uint32_t index, bk_array_info *out)
{
    if (!out) return BK_EARG;
    memset(out, 0, sizeof *out);
    const bk_array_set *s = set_of(f);
    if (!s) return f ? BK_EUNSUPPORTED : BK_EARG;
    if (index >= s->count) return BK_EINDEX;
    const bk_array_desc *d = &s->rows[index];
    const uint8_t *pub;
    if (d->early && s->partial) {
        /* there since the open: a deferred load is left for what needs it (a Source map's props
         * read without decoding its geometry); the members the load fills are others */
        pub = s->partial(f);
    } else {
        /* a deferred load is finished first (as the family accessors do), its error told */
        bk_result r = bk_file_complete((bk_file *)f, NULL);
        if (r != BK_OK) return r;
        pub = s->decoded(f);
    }
    if (!pub) return BK_EUNSUPPORTED;
    out->name = d->name;
    out->lump = d->lump;
    out->elem_size = d->elem_size;
    memcpy(&out->data, pub + d->data_ofs, sizeof out->data);
    if (d->count_size == 8) {
        size_t n;
        memcpy(&n, pub + d->count_ofs, sizeof n);
        out->count = n;
    } else {
        uint32_t n;
        memcpy(&n, pub + d->count_ofs, sizeof n);
        out->count = n;
    }
    if (!out->data) out->count = 0;
    if (!out->count) out->data = NULL;
    /* the lump rows' decoded fields, then the members they leave */
    const bk_family *fam = f->family;
    if (d->lump >= 0 && (uint32_t)d->lump < fam->lump_count) {
        const bk_lump_desc *l = &fam->lumps[d->lump];
        const bk_fields *fs = &l->fields[column_of(f, l, (uint32_t)d->lump)];
        /* only rows that decode into this array's elements (a family may decode a lump into a
         * private record first, DPM's tables: its destinations are not this array's offsets) */
        for (uint32_t i = 0; l->dst_size == d->elem_size && i < fs->count; i++) {
            const bk_field *fd = &fs->rows[i];
            if (fd->to) add(out, fd->name, (uint8_t)(fd->to - 1), fd->dst, NULL, fd->dst_count ? fd->dst_count : fd->count);
        }
    }
    for (uint32_t i = 0; i < d->more_count; i++)
        add(out, d->more[i].name, d->more[i].type, d->more[i].offset, d->more[i].shape, 0);
    /* in offset order (insertion: a few dozen at most) */
    for (uint32_t i = 1; i < out->field_count; i++)
        for (uint32_t j = i; j > 0 && out->fields[j - 1].offset > out->fields[j].offset; j--) {
            bk_array_field t = out->fields[j];
            out->fields[j] = out->fields[j - 1];
            out->fields[j - 1] = t;
        }
    return BK_OK;
}
