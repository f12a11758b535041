/* id's PACK archives (.pak: Quake, Quake 2, Hexen II, Half-Life): "PACK", the directory's offset
 * and length, then 64-byte entries (a 56-byte NUL-terminated name, the file's offset and length).
 * Nothing is compressed and nothing is checksummed, so the directory is checked whole at open:
 * its place in the file, a length that is whole entries, every name terminated, every entry's bytes
 * inside the file and outside the header and the directory, and the entries' sizes adding up to
 * no more than the file (entries sharing bytes would let a small file extract to a huge one).
 * The first failure is reported, located (directory[index] @offset), and the archive refused. */
#include "bk_internal.h"

#define PACK_HEADER 12u
#define PACK_ENTRY 64u
#define PACK_NAME 56u

typedef struct pack_ent {
    char name[PACK_NAME];   /* NUL-terminated (checked) */
    uint32_t ofs, len;
} pack_ent;

typedef struct bk_pack {
    const uint8_t *data;    /* the mapping, the bytes read, or the caller's (borrowed) */
    size_t size;
    void *map;              /* the mapping to unmap, or NULL */
    uint8_t *owned;         /* the bytes read to free, or NULL */
    pack_ent *e;
    uint32_t count;
    uint64_t max_bytes;     /* limits.max_alloc_bytes */
} bk_pack;

bool bk_pack_probe(const void *data, size_t size)
{
    return data && size >= 4 && memcmp(data, "PACK", 4) == 0;
}

static void pack_close(void *impl)
{
    bk_pack *p = impl;
    if (!p) return;
    if (p->map) bk_unmap_file(p->map, p->size);
    bk_free(p->owned);
    bk_free(p->e);
    bk_free(p);
}

static void pack_entry(const void *impl, uint32_t i, bk_archive_entry *out)
{
    const bk_pack *p = impl;
    memset(out, 0, sizeof *out);
    out->name = p->e[i].name;
    out->size = out->compressed_size = p->e[i].len;
    /* crc: 0, PACK stores none; method 0: stored */
}

static bk_result pack_check(const void *impl, uint32_t i, const char **why)
{
    const bk_pack *p = impl;
    if (p->e[i].len > p->max_bytes) {
        *why = "its size is over the limit (limits.max_alloc_bytes): never read";
        return BK_ELIMIT;
    }
    return BK_OK;   /* its bytes were checked against the file at open */
}

static bk_result pack_read(void *impl, uint32_t i, uint64_t max_bytes, uint8_t **out, size_t *size)
{
    bk_pack *p = impl;
    const pack_ent *e = &p->e[i];
    if (e->len > p->max_bytes || e->len > max_bytes) return BK_ELIMIT;
    uint8_t *buf = bk_malloc(e->len ? e->len : 1);
    if (!buf) return BK_ENOMEM;
    memcpy(buf, p->data + e->ofs, e->len);
    *out = buf;
    *size = e->len;
    return BK_OK;
}

/* case-insensitive, '\\' as '/', leading separators of name ignored; the first of equal names
 * (the engines' FS_FOpenFile walks a pack's directory in order) */
static int32_t pack_find(const void *impl, const char *name)
{
    const bk_pack *p = impl;
    while (*name == '/' || *name == '\\') name++;
    for (uint32_t i = 0; i < p->count; i++) {
        if (bk_path_eq(p->e[i].name, name)) return (int32_t)i;
    }
    return -1;
}

static const bk_archive_ops pack_ops = {pack_entry, pack_check, pack_read, pack_find, pack_close};

/* the directory of p->data, checked (see the top of the file) */
static bk_result pack_parse(bk_pack *p, const bk_options *opt)
{
    bk_ctx ctx;
    bk_ctx_init(&ctx, opt, false);
    p->max_bytes = ctx.opt.limits.max_alloc_bytes;
    const uint8_t *d = p->data;
    size_t n = p->size;
    if (n < PACK_HEADER || !bk_pack_probe(d, n)) {
        BK_ERR(&ctx, n < PACK_HEADER && bk_pack_probe(d, n) ? BK_ETRUNCATED : BK_EMAGIC, "header", BK_NO_INDEX, 0,
               "not a PACK archive (%zu bytes; a .pak starts with \"PACK\" and a 12-byte header)", n);
    }
    int32_t dirofs = (int32_t)bk_rd_u32le(d + 4), dirlen = (int32_t)bk_rd_u32le(d + 8);
    if (dirofs < 0 || dirlen < 0 || !bk_span_ok((uint64_t)dirofs, (uint64_t)dirlen, n))
        BK_ERR(&ctx, BK_ELUMP_RANGE, "header", BK_NO_INDEX, 4,
               "directory at %d, %d bytes, lies outside the %zu-byte file", dirofs, dirlen, n);
    if (dirlen % PACK_ENTRY)
        BK_ERR(&ctx, BK_ELUMP_SIZE, "header", BK_NO_INDEX, 8,
               "directory of %d bytes is not a whole number of 64-byte entries", dirlen);
    if (dirlen && (uint64_t)dirofs < PACK_HEADER)
        BK_ERR(&ctx, BK_ELUMP_RANGE, "header", BK_NO_INDEX, 4, "directory at %d overlaps the 12-byte header", dirofs);
    uint32_t count = (uint32_t)dirlen / PACK_ENTRY;
    if (count > ctx.opt.limits.max_elements)
        BK_ERR(&ctx, BK_ELIMIT, "header", BK_NO_INDEX, 8, "%u entries: over limits.max_elements (%llu)", count,
               (unsigned long long)ctx.opt.limits.max_elements);
    p->e = bk_calloc(count ? count : 1, sizeof *p->e);
    if (!p->e) return BK_ENOMEM;
    uint64_t total = 0;
    for (uint32_t i = 0; i < count; i++) {
        uint64_t at = (uint64_t)dirofs + (uint64_t)i * PACK_ENTRY;
        const uint8_t *r = d + at;
        const uint8_t *nul = memchr(r, 0, PACK_NAME);
        if (!nul || nul == r)
            BK_ERR(&ctx, BK_EFORMAT, "directory", i, at, nul ? "empty name" : "name not NUL-terminated within its 56 bytes");
        int32_t ofs = (int32_t)bk_rd_u32le(r + 56), len = (int32_t)bk_rd_u32le(r + 60);
        if (ofs < 0 || len < 0 || !bk_span_ok((uint64_t)ofs, (uint64_t)len, n))
            BK_ERR(&ctx, BK_ELUMP_RANGE, "directory", i, at + 56, "'%s': bytes at %d, %d long, lie outside the %zu-byte file",
                   (const char *)r, ofs, len, n);
        if (len && ((uint64_t)ofs < PACK_HEADER ||
                    ((uint64_t)ofs < (uint64_t)dirofs + (uint64_t)dirlen && (uint64_t)ofs + (uint64_t)len > (uint64_t)dirofs)))
            BK_ERR(&ctx, BK_EFORMAT, "directory", i, at + 56, "'%s': bytes at %d, %d long, overlap the header or the directory",
                   (const char *)r, ofs, len);
        total += (uint64_t)len;
        if (total > n)
            BK_ERR(&ctx, BK_EFORMAT, "directory", i, at + 60,
                   "the entries' sizes add up to more than the %zu-byte file: entries share bytes", n);
        memcpy(p->e[i].name, r, (size_t)(nul - r) + 1);
        p->e[i].ofs = (uint32_t)ofs;
        p->e[i].len = (uint32_t)len;
    }
    p->count = count;
    return BK_OK;
}

static bk_result pack_wrap(bk_pack *p, const bk_options *opt, bk_archive **out)
{
    bk_result r = pack_parse(p, opt);
    if (r != BK_OK) {
        pack_close(p);
        return r;
    }
    return bk_archive_wrap(&pack_ops, p, p->count, out);
}

bk_result bk_pack_open(const char *path, const bk_options *opt, bk_archive **out)
{
    *out = NULL;
    bk_pack *p = bk_calloc(1, sizeof *p);
    if (!p) return BK_ENOMEM;
    bk_limits lim = bk_limits_of(opt);
    /* mapped where possible (its pages read as entries are); read whole otherwise (no mmap, or
     * opt->read_file) */
    void *map = NULL;
    size_t size = 0;
    if ((!opt || !opt->read_file) && bk_map_file_lazy(path, lim.max_file_bytes, &map, &size) == BK_OK) {
        p->map = map;
        p->data = map;
        p->size = size;
    } else {
        bk_result r = bk_read_file_opt(opt, path, lim.max_file_bytes, &p->owned, &p->size);
        if (r != BK_OK) {
            bk_free(p);
            return r;
        }
        p->data = p->owned;
    }
    return pack_wrap(p, opt, out);
}

bk_result bk_pack_open_memory(const void *data, size_t size, const bk_options *opt, bk_archive **out)
{
    *out = NULL;
    bk_pack *p = bk_calloc(1, sizeof *p);
    if (!p) return BK_ENOMEM;
    p->data = data;
    p->size = size;
    return pack_wrap(p, opt, out);
}
