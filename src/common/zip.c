/* The zip reader behind bk_archive (.pk3, .zip, Source pakfiles). zlib's minizip reads the
 * central directory, once, into an index (names hashed case-insensitively, '\' as '/'). Members are decoded on demand,
 * CRC-checked, within the caller's size limit. An archive file is mapped (its pages read in as
 * members are), and an archive held in memory (a pakfile) is read in place: minizip sees both
 * through its I/O callbacks, and stored or deflated members are found through their local header
 * and decoded from the mapping with libdeflate, which inflates several times faster than zlib. */
#include <libdeflate.h>
#include <sys/stat.h>
#include <unzip.h>

#include "bk_internal.h"

typedef struct ar_entry {
    char *name;
    uint64_t size, csize;
    uint32_t crc;
    int method;
    unz64_file_pos pos;
    uint32_t next;       /* next entry in the same hash bucket, UINT32_MAX: none */
} ar_entry;

typedef struct ar_mem {
    const uint8_t *data;
    uint64_t size, pos;
} ar_mem;

struct bk_zip {
    unzFile uf;
    ar_entry *e;
    uint32_t count;
    uint32_t *bucket;
    uint32_t nbucket;
    ar_mem mem;           /* the bytes of an archive opened from memory, or mapped */
    void *map;            /* the mapping of an archive file (mem.data), unmapped on close */
    size_t map_size;
    zlib_filefunc64_def io;
    uint64_t member_max;  /* the most one member may inflate to: limits.max_decoded_bytes, and at most
                           * 8 x the archive's size + 64 MiB (bk_limits_embedded_budget) */
    bk_budget *budget;    /* the program's shared budget of decoded bytes (bk_options.budget), or NULL */
};

/* ---- I/O over a block of memory ----------------------------------------------------------- */
static voidpf ZCALLBACK mem_open(voidpf opaque, const void *filename, int mode)
{
    (void)filename;
    if (mode & ZLIB_FILEFUNC_MODE_WRITE) return NULL;
    ar_mem *m = opaque;
    m->pos = 0;
    return m;
}

static uLong ZCALLBACK mem_read(voidpf opaque, voidpf stream, void *buf, uLong size)
{
    (void)opaque;
    ar_mem *m = stream;
    uint64_t left = m->pos < m->size ? m->size - m->pos : 0;
    uLong n = (uint64_t)size < left ? size : (uLong)left;
    if (n) memcpy(buf, m->data + m->pos, n);
    m->pos += n;
    return n;
}

static uLong ZCALLBACK mem_write(voidpf opaque, voidpf stream, const void *buf, uLong size)
{
    (void)opaque, (void)stream, (void)buf, (void)size;
    return 0;
}

static ZPOS64_T ZCALLBACK mem_tell(voidpf opaque, voidpf stream)
{
    (void)opaque;
    return ((ar_mem *)stream)->pos;
}

static long ZCALLBACK mem_seek(voidpf opaque, voidpf stream, ZPOS64_T offset, int origin)
{
    (void)opaque;
    ar_mem *m = stream;
    uint64_t base;
    switch (origin) {
    case ZLIB_FILEFUNC_SEEK_SET: base = 0; break;
    case ZLIB_FILEFUNC_SEEK_CUR: base = m->pos; break;
    case ZLIB_FILEFUNC_SEEK_END: base = m->size; break;
    default: return -1;
    }
    if (offset > m->size || base > m->size - offset) return -1;
    m->pos = base + offset;
    return 0;
}

static int ZCALLBACK mem_close(voidpf opaque, voidpf stream)
{
    (void)opaque, (void)stream;
    return 0;
}

static int ZCALLBACK mem_error(voidpf opaque, voidpf stream)
{
    (void)opaque, (void)stream;
    return 0;
}

/* ---- the index --------------------------------------------------------------------------- */
static uint32_t name_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '\\') c = '/';
        if (c >= 'A' && c <= 'Z') c = (unsigned char)(c + 32);
        h = (h ^ c) * 16777619u;
    }
    return h;
}

static bk_result build_index(bk_zip *a, const bk_options *opt)
{
    bk_limits lim = bk_limits_of(opt);
    unz_global_info64 gi;
    if (unzGetGlobalInfo64(a->uf, &gi) != UNZ_OK) return BK_EFORMAT;
    if (gi.number_entry > lim.max_elements || gi.number_entry > UINT32_MAX / 2) return BK_ELIMIT;
    uint32_t n = (uint32_t)gi.number_entry;
    a->e = bk_calloc(n ? n : 1, sizeof *a->e);
    a->nbucket = 16;
    while (a->nbucket < n * 2) a->nbucket *= 2;
    a->bucket = bk_malloc((size_t)a->nbucket * sizeof *a->bucket);
    if (!a->e || !a->bucket) return BK_ENOMEM;
    memset(a->bucket, 0xff, (size_t)a->nbucket * sizeof *a->bucket);
    int rc = n ? unzGoToFirstFile(a->uf) : UNZ_END_OF_LIST_OF_FILE;
    uint32_t i = 0;
    for (; rc == UNZ_OK && i < n; i++, rc = unzGoToNextFile(a->uf)) {
        unz_file_info64 fi;
        char name[1024];
        if (unzGetCurrentFileInfo64(a->uf, &fi, name, sizeof name, NULL, 0, NULL, 0) != UNZ_OK) return BK_EFORMAT;
        name[sizeof name - 1] = 0;
        ar_entry *e = &a->e[i];
        e->name = bk_strdup(name);
        if (!e->name) return BK_ENOMEM;
        a->count = i + 1; /* what close() frees */
        e->size = fi.uncompressed_size;
        e->csize = fi.compressed_size;
        e->crc = (uint32_t)fi.crc;
        e->method = (int)fi.compression_method;
        if (unzGetFilePos64(a->uf, &e->pos) != UNZ_OK) return BK_EFORMAT;
        uint32_t b = name_hash(name) & (a->nbucket - 1);
        e->next = a->bucket[b];
        a->bucket[b] = i;
    }
    if (rc != UNZ_OK && rc != UNZ_END_OF_LIST_OF_FILE) return BK_EFORMAT;
    return BK_OK;
}

/* ---- the directory's records (APPNOTE.TXT 4.3.12, 4.3.16) ----------------------------------- */
bool bk_zip_end_read(const uint8_t *p, bk_zip_end *out)
{
    if (bk_rd_u32le(p) != 0x06054b50u) return false;
    *out = (bk_zip_end){.count = bk_rd_u16le(p + 10), .cd_size = bk_rd_u32le(p + 12), .cd_ofs = bk_rd_u32le(p + 16),
                        .comment_len = bk_rd_u16le(p + 20)};
    return true;
}

bool bk_zip_end_find(const uint8_t *z, size_t n, bk_zip_end *out)
{
    for (size_t i = n >= 22 ? n - 22 : 0; n >= 22; i--) {
        if (bk_zip_end_read(z + i, out) && i + 22 + out->comment_len == n) {
            out->at = i;
            return true;
        }
        if (i == 0 || n - i > 22 + 65535) break;
    }
    return false;
}

bool bk_zip_record_read(const uint8_t *z, uint64_t at, uint64_t end, bk_zip_record *out)
{
    if (!bk_span_ok(at, 46, end) || bk_rd_u32le(z + at) != 0x02014b50u) return false;
    const uint8_t *p = z + at;
    *out = (bk_zip_record){.at = at, .flags = bk_rd_u16le(p + 8), .method = bk_rd_u16le(p + 10),
                           .crc = bk_rd_u32le(p + 16), .csize = bk_rd_u32le(p + 20), .size = bk_rd_u32le(p + 24),
                           .name_len = bk_rd_u16le(p + 28), .local_ofs = bk_rd_u32le(p + 42), .name = (const char *)p + 46};
    out->len = 46 + out->name_len + bk_rd_u16le(p + 30) + bk_rd_u16le(p + 32);
    return true;
}

/* An archive of no members is its end record alone, at offset 0, where minizip does not look. */
static bool empty_zip(const uint8_t *head, size_t n)
{
    bk_zip_end e;
    return n >= 22 && bk_zip_end_read(head, &e) && e.count == 0 && (size_t)22 + e.comment_len <= n;
}

/* An archive file's pages once a member has been read from them (its bytes, its header, its
 * directory entry): out of the program's resident set. They stay in the page cache and come back
 * if read again. Not for an archive in the caller's memory, which may not be a file's. */
static void release_pages(const bk_zip *a)
{
    if (a->map) bk_mapped_release(a->map, a->map_size);
}

static bk_result open_common(bk_zip *a, const char *path, const bk_options *opt, bk_zip **out)
{
    bk_limits lim = bk_limits_of(opt);
    uint64_t whole = a->mem.data ? a->mem.size : 0;
    if (!a->mem.data) {
        struct stat st;
        if (stat(path, &st) == 0 && st.st_size > 0) whole = (uint64_t)st.st_size;
    }
    a->member_max = bk_limits_embedded_budget(&lim, whole);
    a->budget = opt ? opt->budget : NULL;
    a->uf = unzOpen2_64(path, a->mem.data ? &a->io : NULL);
    if (!a->uf) {
        if (a->mem.data) {
            if (empty_zip(a->mem.data, (size_t)a->mem.size)) {
                *out = a;
                return BK_OK;
            }
        } else {
            uint8_t head[22];
            FILE *fp = bk_open_regular(path, NULL);
            if (fp) {
                size_t n = fread(head, 1, sizeof head, fp);
                long end = fseek(fp, 0, SEEK_END) == 0 ? ftell(fp) : -1;
                fclose(fp);
                if (n == sizeof head && end >= 0 && empty_zip(head, (size_t)end)) {
                    *out = a;
                    return BK_OK;
                }
            }
        }
    }
    bk_result r = a->uf ? build_index(a, opt) : BK_EFORMAT;
    if (r != BK_OK) {
        bk_zip_close(a);
        return r;
    }
    *out = a;
    return BK_OK;
}

static void use_memory(bk_zip *a, const void *data, size_t size)
{
    a->mem.data = data;
    a->mem.size = size;
    a->io.zopen64_file = mem_open;
    a->io.zread_file = mem_read;
    a->io.zwrite_file = mem_write;
    a->io.ztell64_file = mem_tell;
    a->io.zseek64_file = mem_seek;
    a->io.zclose_file = mem_close;
    a->io.zerror_file = mem_error;
    a->io.opaque = &a->mem;
}

bk_result bk_zip_open(const char *path, const bk_options *opt, bk_zip **out)
{
    if (!path || !out) return BK_EARG;
    *out = NULL;
    bk_zip *a = bk_calloc(1, sizeof *a);
    if (!a) return BK_ENOMEM;
    /* mapped where possible (one open); read through stdio otherwise (an empty file, no mmap) */
    if (bk_map_file_lazy(path, UINT64_MAX, &a->map, &a->map_size) == BK_OK) {
        use_memory(a, a->map, a->map_size);
        bk_result r = open_common(a, "memory", opt, out);
        if (r == BK_OK) release_pages(*out);   /* the central directory, read */
        return r;
    }
    bk_result why = BK_ENOTFOUND;
    FILE *fp = bk_open_regular(path, &why);
    if (!fp) {
        bk_free(a);
        return why;
    }
    fclose(fp);
    return open_common(a, path, opt, out);
}

bk_result bk_zip_open_memory(const void *data, size_t size, const bk_options *opt, bk_zip **out)
{
    if (!data || !out) return BK_EARG;
    *out = NULL;
    bk_zip *a = bk_calloc(1, sizeof *a);
    if (!a) return BK_ENOMEM;
    use_memory(a, data, size);
    return open_common(a, "memory", opt, out);
}

uint32_t bk_zip_count(const bk_zip *a) { return a ? a->count : 0; }

void bk_zip_entry(const bk_zip *a, uint32_t i, bk_archive_entry *out)
{
    const ar_entry *e = &a->e[i];
    memset(out, 0, sizeof *out);
    out->name = e->name;
    out->size = e->size;
    out->compressed_size = e->csize;
    out->crc = e->crc;
    out->method = (uint32_t)e->method;
    size_t nl = strlen(e->name);
    out->is_dir = nl > 0 && e->name[nl - 1] == '/';
}

int32_t bk_zip_find(const bk_zip *a, const char *name)
{
    if (!a || !name || !a->count) return -1;
    while (*name == '/' || *name == '\\') name++;
    for (uint32_t k = a->bucket[name_hash(name) & (a->nbucket - 1)]; k != UINT32_MAX; k = a->e[k].next)
        if (bk_path_eq(a->e[k].name, name)) {
            /* the first of equal names, as the central directory lists them */
            int32_t best = (int32_t)k;
            for (uint32_t j = a->e[k].next; j != UINT32_MAX; j = a->e[j].next)
                if (bk_path_eq(a->e[j].name, name) && j < (uint32_t)best) best = (int32_t)j;
            return best;
        }
    return -1;
}

/* Where the stored bytes of a member of an archive in memory start, found through its central
 * directory entry and local header (minizip opens only the methods it inflates, even raw).
 * BK_EUNSUPPORTED for what minizip must read (zip64 offsets, encrypted members). */
static bk_result member_span(const bk_zip *a, const ar_entry *e, const uint8_t **start_out)
{
    const uint8_t *d = a->mem.data;
    uint64_t n = a->mem.size;
    bk_zip_record rec;
    if (!bk_zip_record_read(d, e->pos.pos_in_zip_directory, n, &rec)) return BK_EFORMAT;
    if (rec.flags & 1) return BK_EUNSUPPORTED; /* encrypted */
    uint64_t lh = rec.local_ofs;
    if (lh == 0xffffffffu) return BK_EUNSUPPORTED; /* zip64 offsets */
    if (lh > n || n - lh < 30 || bk_rd_u32le(d + lh) != 0x04034b50u) return BK_EFORMAT;
    uint64_t start = lh + 30 + (uint64_t)bk_rd_u16le(d + lh + 26) + bk_rd_u16le(d + lh + 28);
    if (start > n || n - start < e->csize) return BK_ETRUNCATED;
    *start_out = d + start;
    return BK_OK;
}

static bk_result mem_raw(const bk_zip *a, const ar_entry *e, uint8_t **out, size_t *size)
{
    const uint8_t *src;
    BK_TRY(member_span(a, e, &src));
    uint8_t *buf = bk_malloc(e->csize ? (size_t)e->csize : 1);
    if (!buf) return BK_ENOMEM;
    memcpy(buf, src, (size_t)e->csize);
    release_pages(a);
    *out = buf;
    *size = (size_t)e->csize;
    return BK_OK;
}

static bk_result mem_decode_at(const bk_zip *a, const ar_entry *e, uint8_t *buf)
{
    const uint8_t *src;
    BK_TRY(member_span(a, e, &src));
    bk_map_prefetch(src, (size_t)e->csize);
    size_t n = (size_t)e->size;
    if (e->method == 0) {
        if (e->csize != e->size) return BK_EDECOMPRESS;
        memcpy(buf, src, n);
    } else {
        struct libdeflate_decompressor *z = libdeflate_alloc_decompressor();
        if (!z) return BK_ENOMEM;
        /* with no actual-size result, anything but exactly n bytes is an error */
        enum libdeflate_result dr = libdeflate_deflate_decompress(z, src, (size_t)e->csize, buf, n, NULL);
        libdeflate_free_decompressor(z);
        if (dr != LIBDEFLATE_SUCCESS) return BK_EDECOMPRESS;
    }
    return libdeflate_crc32(0, buf, n) == e->crc ? BK_OK : BK_EDECOMPRESS;
}

/* A stored or deflated member of an archive in memory, decoded from where it lies: exactly
 * e->size bytes must come out, and their CRC must match. BK_EUNSUPPORTED: leave it to minizip. */
static bk_result mem_decode(const bk_zip *a, const ar_entry *e, uint8_t *buf)
{
    bk_result r = mem_decode_at(a, e, buf);
    release_pages(a);
    return r;
}

static bk_result read_member(bk_zip *a, const ar_entry *e, uint64_t n, bool raw, uint8_t **out, size_t *size)
{
    if (raw && e->method != 0 && e->method != Z_DEFLATED) return a->mem.data ? mem_raw(a, e, out, size) : BK_EUNSUPPORTED;
    if (!raw && e->method != 0 && e->method != Z_DEFLATED) return BK_EUNSUPPORTED;
    if (!raw && a->mem.data) {
        uint8_t *buf = bk_malloc(n ? (size_t)n : 1);
        if (!buf) return BK_ENOMEM;
        bk_result r = mem_decode(a, e, buf);
        if (r == BK_OK) {
            *out = buf;
            *size = (size_t)n;
            return BK_OK;
        }
        bk_free(buf);
        if (r != BK_EUNSUPPORTED) return r;
    }
    unz64_file_pos pos = e->pos;
    if (unzGoToFilePos64(a->uf, &pos) != UNZ_OK) return BK_EFORMAT;
    int method = 0, level = 0;
    if (unzOpenCurrentFile2(a->uf, &method, &level, raw ? 1 : 0) != UNZ_OK) return BK_EFORMAT;
    uint8_t *buf = bk_malloc(n ? (size_t)n : 1);
    if (!buf) {
        unzCloseCurrentFile(a->uf);
        return BK_ENOMEM;
    }
    uint64_t got = 0;
    bk_result r = BK_OK;
    while (got < n) {
        uint64_t want = n - got;
        int k = unzReadCurrentFile(a->uf, buf + got, (unsigned)(want > (1u << 30) ? (1u << 30) : want));
        if (k <= 0) {
            r = BK_EDECOMPRESS;
            break;
        }
        got += (uint64_t)k;
    }
    if (r == BK_OK && !raw) {
        /* nothing may follow the declared size, and the CRC must match */
        uint8_t extra;
        if (unzReadCurrentFile(a->uf, &extra, 1) != 0) r = BK_EDECOMPRESS;
        else if ((uint32_t)crc32(0L, buf, (uInt)n) != e->crc) r = BK_EDECOMPRESS;
    }
    unzCloseCurrentFile(a->uf);
    if (r != BK_OK) {
        bk_free(buf);
        return r;
    }
    *out = buf;
    *size = (size_t)n;
    return BK_OK;
}

/* raw: the member's stored bytes (for methods minizip does not inflate), not CRC-checked. The
 * size its directory entry declares is checked against the limits before anything is allocated
 * or inflated, and the output is never more than that size (a stream that would go on is an
 * error as soon as it does). */
bk_result bk_zip_read_ex(bk_zip *a, uint32_t i, uint64_t max_bytes, bool raw, uint8_t **out, size_t *size)
{
    if (!a || !out || !size || i >= a->count) return BK_EARG;
    *out = NULL;
    *size = 0;
    const ar_entry *e = &a->e[i];
    uint64_t n = raw ? e->csize : e->size;
    BK_TRY(bk_zip_member_check(a, i, max_bytes));
    if (n > SIZE_MAX - 1) return BK_ELIMIT;
    /* held while it is inflated: threads sharing a budget do not inflate more than it at once */
    if (!bk_budget_take(a->budget, n)) return BK_ELIMIT;
    bk_result r = read_member(a, e, n, raw, out, size);
    bk_budget_give(a->budget, n);
    return r;
}

bk_result bk_zip_member_check(const bk_zip *a, uint32_t i, uint64_t max_bytes)
{
    if (!a || i >= a->count) return BK_EARG;
    const ar_entry *e = &a->e[i];
    uint64_t lim = max_bytes < a->member_max ? max_bytes : a->member_max;
    if (e->size > lim || e->size > UINT32_MAX || e->csize > UINT32_MAX) return BK_ELIMIT;
    /* the stored bytes lie inside the archive */
    if (a->mem.data && e->csize > a->mem.size) return BK_ETRUNCATED;
    return BK_OK;
}

void bk_zip_close(bk_zip *a)
{
    if (!a) return;
    if (a->uf) unzClose(a->uf);
    if (a->map) bk_unmap_file(a->map, a->map_size);
    for (uint32_t i = 0; a->e && i < a->count; i++) bk_free(a->e[i].name);
    /* entries indexed before a failure */
    bk_free(a->e);
    bk_free(a->bucket);
    bk_free(a);
}
