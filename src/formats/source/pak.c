/* The pakfile (lump 40) as a bk_archive: a zip read in place by the zip reader (minizip). Entries
 * are stored (0), deflated (8) or LZMA (14). minizip inflates only the first two, so method 14 is
 * read raw and decoded here: 2-byte LZMA SDK version, 2-byte property size (5), 5 property bytes, then the
 * raw LZMA1 stream. Every entry is CRC-checked. */
#include <zlib.h>

#include "vbsp_internal.h"

/* the pakfile's reader: the zip, with method 14 and the limits.max_alloc_bytes bound */
typedef struct src_pak {
    bk_zip *z;
    uint64_t max_bytes;
} src_pak;

int32_t bk_vbsp_pak_count(const uint8_t *data, size_t size);
int32_t bk_vbsp_pak_count(const uint8_t *data, size_t size)
{
    bk_zip *z = NULL;
    if (bk_zip_open_memory(data, size, NULL, &z) != BK_OK) return -1;
    uint32_t n = bk_zip_count(z);
    bk_zip_close(z);
    return n > INT32_MAX ? -1 : (int32_t)n;
}

static bk_result pak_check(const void *impl, uint32_t i, const char **why)
{
    const src_pak *p = impl;
    bk_archive_entry e;
    bk_zip_entry(p->z, i, &e);
    if (e.method != 0 && e.method != 8 && e.method != 14) {
        *why = "compression method not stored, deflate or LZMA";
        return BK_EUNSUPPORTED;
    }
    bk_result r = bk_zip_member_check(p->z, i, p->max_bytes);
    if (r == BK_ETRUNCATED) *why = "its compressed size runs past the pakfile";
    else if (r != BK_OK) *why = "its declared size is over the limit (8 x the pakfile's size + 64 MiB, 4 GiB, "
                                "limits.max_alloc_bytes): never inflated";
    return r;
}

static bk_result pak_read(void *impl, uint32_t i, uint64_t max_bytes, uint8_t **out, size_t *size)
{
    src_pak *p = impl;
    const char *why;
    BK_TRY(pak_check(p, i, &why));
    bk_archive_entry e;
    bk_zip_entry(p->z, i, &e);
    uint64_t cap = max_bytes < p->max_bytes ? max_bytes : p->max_bytes;
    if (e.size > cap || e.compressed_size > cap || e.size > SIZE_MAX - 1) return BK_ELIMIT;
    if (e.method != 14) return bk_zip_read_ex(p->z, i, cap, false, out, size);
    uint8_t *raw = NULL, *buf = NULL;
    size_t rn = 0;
    bk_result r = bk_zip_read_ex(p->z, i, cap, true, &raw, &rn);
    if (r == BK_OK) {
        buf = bk_malloc(e.size ? (size_t)e.size : 1);
        if (!buf) r = BK_ENOMEM;
    }
    if (r == BK_OK) {
        if (rn < 9 || bk_rd_u16le(raw + 2) != 5) r = BK_EDECOMPRESS;
        else if (e.size) r = bk_vbsp_lzma_raw(raw + 4, raw + 9, rn - 9, buf, (size_t)e.size, NULL);
    }
    bk_free(raw);
    if (r == BK_OK && (uint32_t)crc32(0L, buf, (uInt)e.size) != e.crc) r = BK_EDECOMPRESS;
    if (r != BK_OK) {
        bk_free(buf);
        return r;
    }
    *out = buf;
    *size = (size_t)e.size;
    return BK_OK;
}

static int32_t pak_find(const void *impl, const char *name) { return bk_zip_find(((const src_pak *)impl)->z, name); }

static void pak_close(void *impl)
{
    src_pak *p = impl;
    if (!p) return;
    bk_zip_close(p->z);
    bk_free(p);
}

static void pak_entry(const void *impl, uint32_t i, bk_archive_entry *out)
{
    bk_zip_entry(((const src_pak *)impl)->z, i, out);
}

static const bk_archive_ops pak_ops = {pak_entry, pak_check, pak_read, pak_find, pak_close};

bk_result bk_archive_open_pakfile(const bk_file *f, const bk_options *opt, bk_archive **out)
{
    if (!out) return BK_EARG;
    *out = NULL;
    const bk_source_map *m = bk_source_map_of(f);
    if (!m) return BK_EARG;
    if (!m->pakfile || !m->pakfile_size) return BK_ENOTFOUND;
    src_pak *p = bk_calloc(1, sizeof *p);
    if (!p) return BK_ENOMEM;
    p->max_bytes = bk_limits_of(opt).max_alloc_bytes;
    bk_result r = bk_zip_open_memory(m->pakfile, m->pakfile_size, opt, &p->z);
    if (r != BK_OK) {
        bk_free(p);
        return r == BK_ENOMEM || r == BK_ELIMIT ? r : BK_EFORMAT;
    }
    return bk_archive_wrap(&pak_ops, p, bk_zip_count(p->z), out);
}
