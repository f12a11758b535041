/* The lump directory checks every BSP family shares: a directory entry placed against the file,
 * an array lump's element count (the sizes come from the family's lump rows, family.h). */
#include "format.h"

bk_result bk_lump_locate(bk_ctx *ctx, const char *name, uint64_t header_size, bool overlap_warns, int64_t ofs,
                         int64_t len, size_t file_size, uint64_t dir_at, bk_lump_span *out)
{
    memset(out, 0, sizeof *out);
    if (len == 0) {
        /* an empty lump's offset is not read, but it is written back as it is: the writer (edit.c)
         * refuses a directory entry outside the file, empty or not, by this same test */
        if (ofs < 0 || !bk_span_ok((uint64_t)ofs, 0, file_size)) {
            BK_ERR(ctx, BK_ELUMP_RANGE, name, BK_NO_INDEX, dir_at,
                   "empty lump at offset %lld lies outside the %zu-byte file", (long long)ofs, file_size);
            return BK_OK; /* validate mode: reported, unusable */
        }
        out->ofs = (uint64_t)ofs;
        out->ok = true;
        return BK_OK;
    }
    if (ofs < 0 || len < 0) {
        BK_ERR(ctx, BK_ELUMP_RANGE, name, BK_NO_INDEX, dir_at, "negative lump offset %lld or length %lld",
               (long long)ofs, (long long)len);
        return BK_OK; /* validate mode: reported, unusable */
    }
    if (!bk_span_ok((uint64_t)ofs, (uint64_t)len, file_size)) {
        BK_ERR(ctx, BK_ELUMP_RANGE, name, BK_NO_INDEX, dir_at,
               "lump at offset %lld with %lld bytes runs past the end of the %zu-byte file", (long long)ofs,
               (long long)len, file_size);
        return BK_OK; /* validate mode: reported, unusable */
    }
    if ((uint64_t)ofs < header_size) {
        if (overlap_warns) {
            BK_WARN(ctx, BK_ELUMP_RANGE, name, BK_NO_INDEX, dir_at, "lump at offset %lld overlaps the %llu-byte header",
                    (long long)ofs, (unsigned long long)header_size);
        } else {
            BK_ERR(ctx, BK_ELUMP_RANGE, name, BK_NO_INDEX, dir_at, "lump at offset %lld overlaps the %llu-byte header",
                   (long long)ofs, (unsigned long long)header_size);
            return BK_OK; /* validate mode: reported, unusable */
        }
    }
    out->ofs = (uint64_t)ofs;
    out->len = (uint64_t)len;
    out->ok = true;
    return BK_OK;
}

bk_result bk_lump_elements(bk_ctx *ctx, const char *name, uint32_t entry, uint64_t len, uint64_t at, uint32_t *count,
                           bool *ok)
{
    bool ok_;
    if (!ok) ok = &ok_;
    *count = 0;
    *ok = false;
    if (entry == 0) {
        *ok = true; /* not an array */
        return BK_OK;
    }
    if (len % entry) {
        BK_ERR(ctx, BK_ELUMP_SIZE, name, BK_NO_INDEX, at,
               "lump length %llu is not a multiple of the %u-byte element", (unsigned long long)len, entry);
        return BK_OK;
    }
    uint64_t n = len / entry;
    /* byte lumps (text, pixels, compressed rows) are bounded by the file, not the element limit */
    if (entry > 1 && (n > ctx->opt.limits.max_elements || n > INT32_MAX)) {
        BK_ERR(ctx, BK_ELIMIT, name, BK_NO_INDEX, at, "%llu elements exceed the limit of %llu",
               (unsigned long long)n, (unsigned long long)ctx->opt.limits.max_elements);
        return BK_OK;
    }
    *count = (uint32_t)(n > UINT32_MAX ? UINT32_MAX : n);
    *ok = true;
    return BK_OK;
}
