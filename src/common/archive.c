/* One archive API (bspkit/archive.h) over the readers: zip.c for .zip / .pk3 (and, through
 * source/pak.c, a Source map's pakfile), vpk.c for VPK and pack.c for id's PACK
 * (.pak). Each reader's entries are copied into one const table at open (bk_archive_wrap); check /
 * read / find go through its ops; the name-safety rule for extraction is the same for all. */
#include "bk_internal.h"

struct bk_archive {
    const bk_archive_ops *ops;
    void *impl;
    bk_archive_entry *e;
    uint32_t count;
};

bk_result bk_archive_wrap(const bk_archive_ops *ops, void *impl, uint32_t count, bk_archive **out)
{
    *out = NULL;
    bk_archive *a = bk_calloc(1, sizeof *a);
    bk_archive_entry *e = bk_calloc(count ? count : 1, sizeof *e);
    if (!a || !e) {
        ops->close(impl);
        bk_free(a);
        bk_free(e);
        return BK_ENOMEM;
    }
    for (uint32_t i = 0; i < count; i++) ops->entry(impl, i, &e[i]);
    a->ops = ops;
    a->impl = impl;
    a->e = e;
    a->count = count;
    *out = a;
    return BK_OK;
}

/* ---- zip ------------------------------------------------------------------------------------ */
static bk_result zip_check(const void *impl, uint32_t i, const char **why)
{
    bk_archive_entry e;
    bk_zip_entry(impl, i, &e);
    if (e.method != 0 && e.method != 8) {
        *why = "compression method not stored or deflate";
        return BK_EUNSUPPORTED;
    }
    bk_result r = bk_zip_member_check(impl, i, UINT64_MAX);
    if (r == BK_ETRUNCATED) *why = "its compressed size runs past the archive";
    else if (r != BK_OK) *why = "its declared size is over the limit (8 x the archive's size + 64 MiB, 4 GiB, "
                                "limits.max_decoded_bytes): never inflated";
    return r;
}

static bk_result zip_read(void *impl, uint32_t i, uint64_t max_bytes, uint8_t **out, size_t *size)
{
    return bk_zip_read_ex(impl, i, max_bytes, false, out, size);
}

static int32_t zip_find(const void *impl, const char *name) { return bk_zip_find(impl, name); }

static void zip_close(void *impl) { bk_zip_close(impl); }

static void zip_entry(const void *impl, uint32_t i, bk_archive_entry *out) { bk_zip_entry(impl, i, out); }

static const bk_archive_ops zip_ops = {zip_entry, zip_check, zip_read, zip_find, zip_close};

/* ---- VPK ------------------------------------------------------------------------------------ */
static bk_result vpk_check(const void *impl, uint32_t i, const char **why)
{
    bk_result r = bk_vpk_check(impl, i, UINT64_MAX);
    if (r == BK_ELIMIT) *why = "its declared size is over the limit (limits.max_alloc_bytes): never read";
    else if (r != BK_OK) *why = "its bytes run past the directory file";
    return r;
}

static bk_result vpk_read(void *impl, uint32_t i, uint64_t max_bytes, uint8_t **out, size_t *size)
{
    return bk_vpk_read(impl, i, max_bytes, out, size);
}

static void vpk_close(void *impl) { bk_vpk_close(impl); }

static int32_t vpk_find(const void *impl, const char *name) { return bk_vpk_find(impl, name); }

static void vpk_entry(const void *impl, uint32_t i, bk_archive_entry *out) { bk_vpk_entry(impl, i, out); }

static const bk_archive_ops vpk_ops = {vpk_entry, vpk_check, vpk_read, vpk_find, vpk_close};

/* ---- the public calls ----------------------------------------------------------------------- */
bk_archive_kind bk_archive_probe_file(const char *path)
{
    FILE *fp = path ? bk_open_regular(path, NULL) : NULL;
    uint8_t head[12] = {0};
    size_t n = fp ? fread(head, 1, sizeof head, fp) : 0;
    if (fp) fclose(fp);
    if (bk_vpk_probe(head, n)) return BK_ARCHIVE_VPK;
    if (bk_pack_probe(head, n)) return BK_ARCHIVE_PAK;
    if (n >= 4 && (bk_rd_u32le(head) == 0x04034b50u || bk_rd_u32le(head) == 0x06054b50u)) return BK_ARCHIVE_ZIP;
    return BK_ARCHIVE_NONE;
}

bk_result bk_archive_open(const char *path, const bk_options *opt, bk_archive **out)
{
    if (!path || !out) return BK_EARG;
    *out = NULL;
    size_t pl = strlen(path);
    bk_archive_kind kind = bk_archive_probe_file(path);
    if (kind == BK_ARCHIVE_PAK) return bk_pack_open(path, opt, out);
    /* a VPK by its signature, or by its name (a broken one is then reported as a VPK) */
    if (kind == BK_ARCHIVE_VPK || (pl >= 8 && bk_strcasecmp(path + pl - 8, "_dir.vpk") == 0)) {
        bk_vpk *v = NULL;
        BK_TRY(bk_vpk_open(path, opt, &v));
        return bk_archive_wrap(&vpk_ops, v, bk_vpk_count(v), out);
    }
    bk_zip *z = NULL;
    BK_TRY(bk_zip_open(path, opt, &z));
    return bk_archive_wrap(&zip_ops, z, bk_zip_count(z), out);
}

bk_result bk_archive_open_memory(const void *data, size_t size, const bk_options *opt, bk_archive **out)
{
    if (!data || !out) return BK_EARG;
    *out = NULL;
    if (bk_pack_probe(data, size)) return bk_pack_open_memory(data, size, opt, out);
    bk_zip *z = NULL;
    BK_TRY(bk_zip_open_memory(data, size, opt, &z));
    return bk_archive_wrap(&zip_ops, z, bk_zip_count(z), out);
}

uint32_t bk_archive_count(const bk_archive *a) { return a ? a->count : 0; }

const bk_archive_entry *bk_archive_entry_at(const bk_archive *a, uint32_t i)
{
    return a && i < a->count ? &a->e[i] : NULL;
}

int32_t bk_archive_find(const bk_archive *a, const char *name)
{
    if (!a || !name) return -1;
    return a->ops->find(a->impl, name);
}

bk_result bk_archive_check(const bk_archive *a, uint32_t i, bool extract, const char **why)
{
    const char *dummy;
    if (!why) why = &dummy;
    *why = "";
    if (!a || i >= a->count) return BK_EARG;
    if (extract && !bk_archive_name_safe(a->e[i].name)) {
        *why = "not a safe relative path (absolute, '..' or special characters): pak extract refuses it";
        return BK_EFORMAT;
    }
    return a->ops->check(a->impl, i, why);
}

bk_result bk_archive_read(bk_archive *a, uint32_t i, uint64_t max_bytes, uint8_t **out, size_t *size)
{
    if (!a || !out || !size || i >= a->count) return BK_EARG;
    *out = NULL;
    *size = 0;
    return a->ops->read(a->impl, i, max_bytes, out, size);
}

void bk_archive_close(bk_archive *a)
{
    if (!a) return;
    a->ops->close(a->impl);
    bk_free(a->e);
    bk_free(a);
}

bool bk_archive_name_safe(const char *name)
{
    if (!name || !*name) return false;
    if (name[0] == '/' || name[0] == '\\') return false;
    const char *comp = name;
    for (const char *s = name;; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == 0 || c == '/' || c == '\\') {
            size_t len = (size_t)(s - comp);
            if (len == 2 && comp[0] == '.' && comp[1] == '.') return false;
            if (c == 0) break;
            comp = s + 1;
            continue;
        }
        if (c < 32 || c == 127 || c == ':') return false;
    }
    return true;
}
