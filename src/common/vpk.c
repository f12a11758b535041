/* VPK archives (Valve's game-content packs), versions 1 and 2: the directory tree of NAME_dir.vpk
 * (extension -> path -> file name -> entry), each entry's preloaded bytes in the directory file and
 * the rest in the directory file itself (archive 0x7fff) or in a sibling NAME_NNN.vpk. Every
 * string, offset and length is checked against the files; each file read is checked against the
 * entry's CRC-32. */
#include <stdio.h>
#include <zlib.h>

#include "bk_internal.h"

#define VPK_MAGIC 0x55aa1234u

typedef struct vpk_ent {
    char *name;                /* path/file.ext, '/' separated, as stored (lower case by convention) */
    uint32_t crc;
    uint16_t preload, archive;
    uint32_t offset, length;
    uint64_t preload_at;       /* absolute offset of the preloaded bytes in the directory file */
} vpk_ent;

struct bk_vpk {
    char *base;                /* "folder/NAME" without "_dir.vpk" */
    uint8_t *dir;
    size_t dir_size;
    uint64_t data_start;       /* header + tree: where archive-0x7fff data starts */
    vpk_ent *e;
    uint32_t count, cap;
    uint64_t max_bytes;        /* limits.max_alloc_bytes */
};

static const char *cstr(const uint8_t *d, size_t end, size_t *pos)
{
    size_t p = *pos;
    while (p < end && d[p]) p++;
    if (p >= end) return NULL;
    const char *s = (const char *)d + *pos;
    *pos = p + 1;
    return s;
}

bool bk_vpk_probe(const void *data, size_t size)
{
    const uint8_t *d = data;
    return d && size >= 12 && bk_rd_u32le(d) == VPK_MAGIC && (bk_rd_u32le(d + 4) == 1 || bk_rd_u32le(d + 4) == 2);
}

bk_result bk_vpk_open(const char *path, const bk_options *opt, bk_vpk **out)
{
    if (!path || !out) return BK_EARG;
    *out = NULL;
    bk_ctx ctx;
    bk_ctx_init(&ctx, opt, false);
    size_t pl = strlen(path);
    /* NAME_dir.vpk with its NAME_NNN.vpk data files, or a single-file NAME.vpk (custom/ add-ons);
     * a VPK by another name (known by its signature) is NAME.EXT with NAME_NNN.vpk beside it */
    const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
    size_t cut = pl >= 8 && bk_strcasecmp(path + pl - 8, "_dir.vpk") == 0 ? 8
               : dot && (!slash || dot > slash + 1) ? pl - (size_t)(dot - path) : 0;
    bk_vpk *v = bk_calloc(1, sizeof *v);
    if (!v) return BK_ENOMEM;
    v->max_bytes = ctx.opt.limits.max_alloc_bytes;
    v->base = bk_strndup(path, pl - cut);
    bk_result r = v->base ? bk_read_file_opt(opt, path, ctx.opt.limits.max_file_bytes, &v->dir, &v->dir_size) : BK_ENOMEM;
    if (r != BK_OK) {
        bk_vpk_close(v);
        return r;
    }
    const uint8_t *d = v->dir;
    size_t n = v->dir_size;
    if (n < 12 || bk_rd_u32le(d) != VPK_MAGIC) {
        bk_report(&ctx, BK_SEV_ERROR, BK_EMAGIC, "header", BK_NO_INDEX, 0, "not a VPK directory (no 0x55aa1234 signature)");
        bk_vpk_close(v);
        return BK_EMAGIC;
    }
    uint32_t version = bk_rd_u32le(d + 4), tree = bk_rd_u32le(d + 8);
    size_t hs = version == 1 ? 12 : version == 2 ? 28 : 0;
    if (!hs || n < hs) {
        bk_report(&ctx, BK_SEV_ERROR, hs ? BK_ETRUNCATED : BK_EVERSION, "header", BK_NO_INDEX, 4, "VPK version %u", version);
        bk_vpk_close(v);
        return hs ? BK_ETRUNCATED : BK_EVERSION;
    }
    if (!bk_span_ok(hs, tree, n)) {
        bk_report(&ctx, BK_SEV_ERROR, BK_ELUMP_RANGE, "tree", BK_NO_INDEX, 8, "directory tree of %u bytes runs past the %zu-byte file",
                  tree, n);
        bk_vpk_close(v);
        return BK_ELUMP_RANGE;
    }
    v->data_start = hs + (uint64_t)tree;
    size_t pos = hs, end = hs + tree;
    for (;;) {
        const char *ext = cstr(d, end, &pos);
        if (!ext) goto bad;
        if (!*ext) break;
        for (;;) {
            const char *dirn = cstr(d, end, &pos);
            if (!dirn) goto bad;
            if (!*dirn) break;
            for (;;) {
                const char *file = cstr(d, end, &pos);
                if (!file) goto bad;
                if (!*file) break;
                if (!bk_span_ok(pos, 18, end)) goto bad;
                vpk_ent e;
                memset(&e, 0, sizeof e);
                e.crc = bk_rd_u32le(d + pos);
                e.preload = bk_rd_u16le(d + pos + 4);
                e.archive = bk_rd_u16le(d + pos + 6);
                e.offset = bk_rd_u32le(d + pos + 8);
                e.length = bk_rd_u32le(d + pos + 12);
                if (bk_rd_u16le(d + pos + 16) != 0xffff) goto bad;
                pos += 18;
                e.preload_at = pos;
                if (!bk_span_ok(pos, e.preload, end)) goto bad;
                pos += e.preload;
                char full[1024];
                int w = (strcmp(dirn, " ") == 0) ? snprintf(full, sizeof full, "%s.%s", file, ext)
                                                 : snprintf(full, sizeof full, "%s/%s.%s", dirn, file, ext);
                if (w < 0 || (size_t)w >= sizeof full) goto bad;
                if (v->count >= ctx.opt.limits.max_elements) goto bad;
                if (bk_grow((void **)&v->e, &v->cap, v->count + 1, sizeof *v->e) != BK_OK || !(e.name = bk_strdup(full))) {
                    bk_vpk_close(v);
                    return BK_ENOMEM;
                }
                v->e[v->count++] = e;
            }
        }
    }
    *out = v;
    return BK_OK;
bad:
    bk_report(&ctx, BK_SEV_ERROR, BK_EFORMAT, "tree", (int64_t)v->count, pos,
              "directory tree entry %u is malformed or runs past the tree", v->count);
    bk_vpk_close(v);
    return BK_EFORMAT;
}

uint32_t bk_vpk_count(const bk_vpk *v) { return v ? v->count : 0; }

void bk_vpk_entry(const bk_vpk *v, uint32_t i, bk_archive_entry *out)
{
    const vpk_ent *e = &v->e[i];
    memset(out, 0, sizeof *out);
    out->name = e->name;
    out->size = out->compressed_size = (uint64_t)e->preload + e->length;
    out->crc = e->crc;
    out->vpk_archive = e->archive;
    out->vpk_preload = e->preload;
}

bk_result bk_vpk_check(const bk_vpk *v, uint32_t i, uint64_t max_bytes)
{
    if (!v || i >= v->count) return BK_EARG;
    const vpk_ent *e = &v->e[i];
    uint64_t total = (uint64_t)e->preload + e->length;
    if (total > v->max_bytes || total > max_bytes || total > SIZE_MAX - 1) return BK_ELIMIT;
    if (e->length && e->archive == 0x7fff && !bk_span_ok(v->data_start + e->offset, e->length, v->dir_size))
        return BK_ELUMP_RANGE;
    return BK_OK;
}

int32_t bk_vpk_find(const bk_vpk *v, const char *name)
{
    if (!v || !name) return -1;
    for (uint32_t i = 0; i < v->count; i++) {
        if (bk_path_eq(v->e[i].name, name)) return (int32_t)i;
    }
    return -1;
}

bk_result bk_vpk_read(bk_vpk *v, uint32_t i, uint64_t max_bytes, uint8_t **out, size_t *size)
{
    if (!v || !out || !size || i >= v->count) return BK_EARG;
    *out = NULL;
    *size = 0;
    const vpk_ent *e = &v->e[i];
    uint64_t total = (uint64_t)e->preload + e->length;
    BK_TRY(bk_vpk_check(v, i, max_bytes));   /* the bound, and the bytes inside the directory file */
    uint8_t *buf = bk_malloc(total ? (size_t)total : 1);
    if (!buf) return BK_ENOMEM;
    memcpy(buf, v->dir + e->preload_at, e->preload);
    if (e->length) {
        if (e->archive == 0x7fff) {
            memcpy(buf + e->preload, v->dir + v->data_start + e->offset, e->length);
        } else {
            char path[4096];
            snprintf(path, sizeof path, "%s_%03u.vpk", v->base, e->archive);
            FILE *fp = bk_open_regular(path, NULL);
            bool ok = fp && fseek(fp, (long)e->offset, SEEK_SET) == 0 &&
                      fread(buf + e->preload, 1, e->length, fp) == e->length;
            if (fp) fclose(fp);
            if (!ok) {
                bk_free(buf);
                return fp ? BK_ETRUNCATED : BK_EIO;
            }
        }
    }
    if (((uint32_t)crc32(crc32(0L, Z_NULL, 0), buf, (uInt)total)) != e->crc) {
        bk_free(buf);
        return BK_EDECOMPRESS;   /* the CRC does not match: damaged data */
    }
    *out = buf;
    *size = (size_t)total;
    return BK_OK;
}

void bk_vpk_close(bk_vpk *v)
{
    if (!v) return;
    for (uint32_t i = 0; i < v->count; i++) bk_free(v->e[i].name);
    bk_free(v->e);
    bk_free(v->dir);
    bk_free(v->base);
    bk_free(v);
}
