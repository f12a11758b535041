/* The pakfile (lump 40): a zip read from memory through bk_archive (minizip). Entries are stored
 * (0), deflated (8) or LZMA (14). minizip inflates only the first two, so method 14 is read raw
 * and decoded here: 2-byte LZMA SDK version, 2-byte property size (5), 5 property bytes, then the
 * raw LZMA1 stream. Every entry is CRC-checked. */
#include <zlib.h>

#include "vbsp_internal.h"

struct bk_source_pak {
    bk_archive *z;
    bk_source_pak_entry *e;
    uint32_t count;
    uint64_t max_bytes;
};

int32_t bk_vbsp_pak_count(const uint8_t *data, size_t size);
int32_t bk_vbsp_pak_count(const uint8_t *data, size_t size)
{
    bk_archive *z = NULL;
    if (bk_archive_open_memory(data, size, NULL, &z) != BK_OK) return -1;
    uint32_t n = bk_archive_count(z);
    bk_archive_close(z);
    return n > INT32_MAX ? -1 : (int32_t)n;
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
    bk_result r = bk_archive_open_memory(m->pakfile, m->pakfile_size, opt, &p->z);
    if (r != BK_OK) {
        bk_free(p);
        return r == BK_ENOMEM || r == BK_ELIMIT ? r : BK_EFORMAT;
    }
    uint32_t n = bk_archive_count(p->z);
    p->e = bk_alloc_array(&ctx, n, sizeof *p->e, &r);
    if (!p->e) {
        bk_source_pak_close(p);
        return r;
    }
    p->count = n;
    for (uint32_t i = 0; i < p->count; i++) {
        bk_source_pak_entry *e = &p->e[i];
        uint64_t csize;
        int method;
        uint32_t crc;
        bk_archive_entry_raw(p->z, i, &csize, &method, &crc);
        e->name = bk_archive_name(p->z, i);
        e->size = bk_archive_size(p->z, i);
        e->compressed_size = csize;
        e->method = (uint32_t)method;
        e->crc = crc;
        size_t nl = strlen(e->name);
        e->is_dir = nl > 0 && e->name[nl - 1] == '/';
    }
    *out = p;
    return BK_OK;
}

uint32_t bk_source_pak_count(const bk_source_pak *p) { return p ? p->count : 0; }

const bk_source_pak_entry *bk_source_pak_entry_at(const bk_source_pak *p, uint32_t i)
{
    return p && i < p->count ? &p->e[i] : NULL;
}

bk_result bk_source_pak_check(const bk_source_pak *p, uint32_t i, bool extract, const char **why)
{
    const char *dummy;
    if (!why) why = &dummy;
    *why = "";
    if (!p || i >= p->count) return BK_EARG;
    const bk_source_pak_entry *e = &p->e[i];
    if (extract && !bk_source_pak_name_safe(e->name)) {
        *why = "not a safe relative path (absolute, '..' or special characters): pak extract refuses it";
        return BK_EFORMAT;
    }
    if (e->method != 0 && e->method != 8 && e->method != 14) {
        *why = "compression method not stored, deflate or LZMA";
        return BK_EUNSUPPORTED;
    }
    bk_result r = bk_archive_member_check(p->z, i, p->max_bytes);
    if (r == BK_ETRUNCATED) *why = "its compressed size runs past the pakfile";
    else if (r != BK_OK) *why = "its declared size is over the limit (8 x the pakfile's size + 64 MiB, 4 GiB, "
                                "limits.max_alloc_bytes): never inflated";
    return r;
}

bk_result bk_source_pak_read(bk_source_pak *p, uint32_t i, uint8_t **out, size_t *size)
{
    if (!p || !out || !size || i >= p->count) return BK_EARG;
    *out = NULL;
    *size = 0;
    const bk_source_pak_entry *e = &p->e[i];
    BK_TRY(bk_source_pak_check(p, i, false, NULL));
    if (e->size > p->max_bytes || e->compressed_size > p->max_bytes || e->size > SIZE_MAX - 1) return BK_ELIMIT;
    if (e->method != 14) {
        bk_result r = bk_archive_read(p->z, i, p->max_bytes, out, size);
        return r == BK_EFORMAT ? BK_EFORMAT : r;
    }
    uint8_t *raw = NULL, *buf = NULL;
    size_t rn = 0;
    bk_result r = bk_archive_read_ex(p->z, i, p->max_bytes, true, &raw, &rn);
    if (r == BK_OK) {
        buf = bk_malloc(e->size ? (size_t)e->size : 1);
        if (!buf) r = BK_ENOMEM;
    }
    if (r == BK_OK) {
        if (rn < 9 || bk_rd_u16le(raw + 2) != 5) r = BK_EDECOMPRESS;
        else if (e->size) r = bk_vbsp_lzma_raw(raw + 4, raw + 9, rn - 9, buf, (size_t)e->size, NULL);
    }
    bk_free(raw);
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
    bk_archive_close(p->z);
    bk_free(p->e);
    bk_free(p);
}

bool bk_source_pak_name_safe(const char *name)
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
