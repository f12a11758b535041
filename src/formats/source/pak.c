/* The pakfile (lump 40): a zip read from memory with libzip. Entries are stored (0), deflated (8)
 * or LZMA (14). Debian's libzip is built without LZMA, so method 14 is read raw
 * (ZIP_FL_COMPRESSED) and decoded here: 2-byte LZMA SDK version, 2-byte property size (5),
 * 5 property bytes, then the raw LZMA1 stream. Every entry is CRC-checked. */
#include <zip.h>
#include <zlib.h>

#include "vbsp_internal.h"

struct bk_source_pak {
    zip_t *z;
    bk_source_pak_entry *e;
    uint32_t count;
    uint64_t max_bytes;
};

static zip_t *open_mem(const uint8_t *data, size_t size)
{
    zip_error_t err;
    zip_error_init(&err);
    zip_source_t *src = zip_source_buffer_create(data, size, 0, &err);
    if (!src) {
        zip_error_fini(&err);
        return NULL;
    }
    zip_t *z = zip_open_from_source(src, ZIP_RDONLY, &err);
    if (!z) zip_source_free(src);
    zip_error_fini(&err);
    return z;
}

int32_t bk_vbsp_pak_count(const uint8_t *data, size_t size);
int32_t bk_vbsp_pak_count(const uint8_t *data, size_t size)
{
    zip_t *z = open_mem(data, size);
    if (!z) return -1;
    zip_int64_t n = zip_get_num_entries(z, 0);
    zip_discard(z);
    return n < 0 || n > INT32_MAX ? -1 : (int32_t)n;
}

bk_result bk_source_pak_open(const bk_file *f, const bk_options *opt, bk_source_pak **out)
{
    if (!out) return BK_EARG;
    *out = NULL;
    const bk_source_map *m = bk_source_map_of(f);
    if (!m) return BK_EARG;
    if (!m->pakfile || !m->pakfile_size) return BK_ENOTFOUND;
    bk_ctx ctx;
    bk_ctx_init(&ctx, opt, false);
    bk_source_pak *p = bk_calloc(1, sizeof *p);
    if (!p) return BK_ENOMEM;
    p->max_bytes = ctx.opt.limits.max_alloc_bytes;
    p->z = open_mem(m->pakfile, m->pakfile_size);
    if (!p->z) {
        bk_free(p);
        return BK_EFORMAT;
    }
    zip_int64_t n = zip_get_num_entries(p->z, 0);
    if (n < 0 || (uint64_t)n > ctx.opt.limits.max_elements) {
        bk_source_pak_close(p);
        return n < 0 ? BK_EFORMAT : BK_ELIMIT;
    }
    bk_result r = BK_OK;
    p->e = bk_alloc_array(&ctx, (size_t)n, sizeof *p->e, &r);
    if (!p->e) {
        bk_source_pak_close(p);
        return r;
    }
    p->count = (uint32_t)n;
    for (uint32_t i = 0; i < p->count; i++) {
        zip_stat_t st;
        zip_stat_init(&st);
        if (zip_stat_index(p->z, i, ZIP_FL_ENC_RAW, &st) != 0 || !(st.valid & ZIP_STAT_NAME)) {
            bk_source_pak_close(p);
            return BK_EFORMAT;
        }
        bk_source_pak_entry *e = &p->e[i];
        e->name = st.name;
        e->size = (st.valid & ZIP_STAT_SIZE) ? st.size : 0;
        e->compressed_size = (st.valid & ZIP_STAT_COMP_SIZE) ? st.comp_size : 0;
        e->method = (st.valid & ZIP_STAT_COMP_METHOD) ? (uint32_t)st.comp_method : 0;
        e->crc = (st.valid & ZIP_STAT_CRC) ? st.crc : 0;
        size_t nl = strlen(st.name);
        e->is_dir = nl > 0 && st.name[nl - 1] == '/';
    }
    *out = p;
    return BK_OK;
}

uint32_t bk_source_pak_count(const bk_source_pak *p) { return p ? p->count : 0; }

const bk_source_pak_entry *bk_source_pak_entry_at(const bk_source_pak *p, uint32_t i)
{
    return p && i < p->count ? &p->e[i] : NULL;
}

static bk_result read_all(zip_file_t *zf, uint8_t *buf, uint64_t n)
{
    uint64_t got = 0;
    while (got < n) {
        zip_int64_t r = zip_fread(zf, buf + got, n - got);
        if (r <= 0) return BK_EDECOMPRESS;
        got += (uint64_t)r;
    }
    return BK_OK;
}

bk_result bk_source_pak_read(bk_source_pak *p, uint32_t i, uint8_t **out, size_t *size)
{
    if (!p || !out || !size || i >= p->count) return BK_EARG;
    *out = NULL;
    *size = 0;
    const bk_source_pak_entry *e = &p->e[i];
    if (e->size > p->max_bytes || e->compressed_size > p->max_bytes || e->size > SIZE_MAX - 1) return BK_ELIMIT;
    uint8_t *buf = bk_malloc(e->size ? (size_t)e->size : 1);
    if (!buf) return BK_ENOMEM;
    bk_result r = BK_OK;
    if (e->method == ZIP_CM_LZMA && !zip_compression_method_supported(ZIP_CM_LZMA, 0)) {
        uint8_t *raw = bk_malloc(e->compressed_size ? (size_t)e->compressed_size : 1);
        zip_file_t *zf = raw ? zip_fopen_index(p->z, i, ZIP_FL_COMPRESSED) : NULL;
        if (!raw) r = BK_ENOMEM;
        else if (!zf) r = BK_EFORMAT;
        else r = read_all(zf, raw, e->compressed_size);
        if (zf) zip_fclose(zf);
        if (r == BK_OK) {
            if (e->compressed_size < 9 || bk_rd_u16le(raw + 2) != 5) r = BK_EDECOMPRESS;
            else if (e->size) r = bk_vbsp_lzma_raw(raw + 4, raw + 9, (size_t)e->compressed_size - 9, buf, (size_t)e->size, NULL);
        }
        bk_free(raw);
    } else {
        zip_file_t *zf = zip_fopen_index(p->z, i, 0);
        if (!zf) r = zip_error_code_zip(zip_get_error(p->z)) == ZIP_ER_COMPNOTSUPP ? BK_EUNSUPPORTED : BK_EFORMAT;
        else r = read_all(zf, buf, e->size);
        if (zf) zip_fclose(zf);
    }
    if (r == BK_OK && (uint32_t)crc32(0L, buf, (uInt)e->size) != e->crc) r = BK_EDECOMPRESS;
    if (r != BK_OK) {
        bk_free(buf);
        return r;
    }
    *out = buf;
    *size = (size_t)e->size;
    return BK_OK;
}

void bk_source_pak_close(bk_source_pak *p)
{
    if (!p) return;
    if (p->z) zip_discard(p->z);
    bk_free(p->e);
    bk_free(p);
}

int bk_source_pak_name_safe(const char *name)
{
    if (!name || !*name) return 0;
    if (name[0] == '/' || name[0] == '\\') return 0;
    const char *comp = name;
    for (const char *s = name;; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == 0 || c == '/' || c == '\\') {
            size_t len = (size_t)(s - comp);
            if (len == 2 && comp[0] == '.' && comp[1] == '.') return 0;
            if (c == 0) break;
            comp = s + 1;
            continue;
        }
        if (c < 32 || c == 127 || c == ':') return 0;
    }
    return 1;
}
