/* WAD3 (Half-Life texture archive): directory, miptex / decal / qpic / font entries.
 *
 *   header   "WAD3"  int32 numlumps  int32 infotableofs
 *   entry    int32 filepos, disksize, size; int8 type, compression; int16 pad; char name[16]  (32 bytes)
 *   miptex   char name[16]; uint32 width, height, offsets[4]; mips; int16 ncolors; ncolors*RGB
 *   qpic     int32 width, height; width*height indexes; int16 ncolors; RGB palette
 *   font     int32 width, height, rowcount, rowheight; 256 x {int16 offset, width}; pixels; palette
 * Quake's WAD2 shares the header but has no palettes: it is refused with a clear message. */
#include <stdio.h>

#include "scene/scene_build.h"
#include "quake_internal.h"

#define WAD_HDR 12
#define WAD_ENTRY 32
#define MIPTEX_HDR 40
#define FONT_HDR (16 + 256 * 4)

void bk_pal_expand(const uint8_t *idx, size_t n, const uint8_t *pal, uint32_t ncolors, int alpha_mode,
                   uint8_t *rgba)
{
    uint8_t tint[3] = {0, 0, 0};
    if (alpha_mode == BK_PAL_DECAL && ncolors >= 256) memcpy(tint, pal + 255 * 3, 3);
    for (size_t i = 0; i < n; i++) {
        uint8_t c = idx[i];
        uint8_t *o = rgba + i * 4;
        if (alpha_mode == BK_PAL_DECAL) {
            o[0] = tint[0];
            o[1] = tint[1];
            o[2] = tint[2];
            o[3] = c;
            continue;
        }
        if (c < ncolors) memcpy(o, pal + (size_t)c * 3, 3);
        else o[0] = o[1] = o[2] = 0;
        o[3] = (alpha_mode == BK_PAL_MASK255 && c == 255) ? 0 : 255;
        if (o[3] == 0) o[0] = o[1] = o[2] = 0;
    }
}

/* Where a miptex's pixels and palette are (palette: the caller's, or the WAD3 one after mip 3). */
typedef struct miptex_px {
    const uint8_t *idx, *pal;   /* mip 0's indices, the palette's RGB */
    uint32_t ncolors;
} miptex_px;

static bk_result miptex_parts(const uint8_t *mt, size_t avail, const uint8_t *palette, miptex_px *out, uint32_t *w,
                              uint32_t *h)
{
    const uint8_t **idx = &out->idx, **pal = &out->pal;
    uint32_t *ncolors = &out->ncolors;
    if (avail < MIPTEX_HDR) return BK_ETRUNCATED;
    uint32_t width = bk_rd_u32le(mt + 16), height = bk_rd_u32le(mt + 20);
    uint32_t ofs0 = bk_rd_u32le(mt + 24), ofs3 = bk_rd_u32le(mt + 36);
    if (!width || !height || width > BK_Q1_MAX_TEX_DIM || height > BK_Q1_MAX_TEX_DIM) return BK_EFORMAT;
    size_t npx = (size_t)width * height;
    if (!bk_span_ok(ofs0, npx, avail)) return BK_ETRUNCATED;
    *pal = palette;
    *ncolors = 256;
    if (!palette) {
        uint64_t pofs = (uint64_t)ofs3 + (uint64_t)(width / 8) * (height / 8);
        if (!bk_span_ok(pofs, 2, avail)) return BK_ETRUNCATED;
        *ncolors = bk_rd_u16le(mt + pofs);
        if (*ncolors > 256) return BK_EFORMAT;
        if (!bk_span_ok(pofs + 2, (uint64_t)*ncolors * 3, avail)) return BK_ETRUNCATED;
        *pal = mt + pofs + 2;
    }
    *idx = mt + ofs0;
    *w = width;
    *h = height;
    return BK_OK;
}

bk_result bk_miptex_to_rgba(const uint8_t *mt, size_t avail, const uint8_t *palette, int alpha_mode,
                            uint8_t **rgba, uint32_t *w, uint32_t *h)
{
    *rgba = NULL;
    miptex_px m;
    BK_TRY(miptex_parts(mt, avail, palette, &m, w, h));
    size_t npx = (size_t)*w * *h;
    uint8_t *px = bk_malloc(npx * 4);
    if (!px) return BK_ENOMEM;
    bk_pal_expand(m.idx, npx, m.pal, m.ncolors, alpha_mode, px);
    *rgba = px;
    return BK_OK;
}

bk_result bk_pal_pack(const uint8_t *idx, size_t n, const uint8_t *pal, uint32_t ncolors, int alpha_mode,
                      uint8_t **packed)
{
    uint8_t *p = bk_malloc(1024 + n);
    if (!p) return BK_ENOMEM;
    uint8_t all[256];
    for (int c = 0; c < 256; c++) all[c] = (uint8_t)c;
    /* the palette's RGBA is what bk_pal_expand makes of each index (it works pixel by pixel) */
    bk_pal_expand(all, 256, pal, ncolors, alpha_mode, p);
    memcpy(p + 1024, idx, n);
    *packed = p;
    return BK_OK;
}

bk_result bk_miptex_to_pal8(const uint8_t *mt, size_t avail, const uint8_t *palette, int alpha_mode,
                            uint8_t **packed, uint32_t *w, uint32_t *h)
{
    *packed = NULL;
    miptex_px m;
    BK_TRY(miptex_parts(mt, avail, palette, &m, w, h));
    return bk_pal_pack(m.idx, (size_t)*w * *h, m.pal, m.ncolors, alpha_mode, packed);
}

void bk_wad3_clear(bk_wad3 *w)
{
    bk_free(w->entries);
    w->entries = NULL;
    w->count = 0;
}

int32_t bk_wad3_find(const bk_wad3 *w, const char *name)
{
    if (!w || !name) return -1;
    for (uint32_t i = 0; i < w->count; i++)
        if (bk_strcasecmp(w->entries[i].name, name) == 0) return (int32_t)i;
    return -1;
}

static const char *type_name(uint8_t t)
{
    switch (t) {
    case BK_WAD_TYPE_DECAL: return "decal";
    case BK_WAD_TYPE_QPIC: return "qpic";
    case BK_WAD_TYPE_MIPTEX: return "miptex";
    case BK_WAD_TYPE_FONT: return "font";
    default: return "unknown";
    }
}

/* Report helper usable with a NULL ctx (silent lookups): returns non-OK to stop. */
static bk_result wad_err(bk_ctx *ctx, bk_result code, int64_t index, uint64_t ofs, const char *msg,
                         const char *name)
{
    if (!ctx) return code;
    return bk_report(ctx, BK_SEV_ERROR, code, "directory", index, ofs, "%s%s%s%s", msg, name ? " ('" : "",
                     name ? name : "", name ? "')" : "");
}

/* Check one entry's payload; fills width/height. */
static bk_result check_entry(const uint8_t *d, size_t n, bk_ctx *ctx, uint32_t i, bk_wad3_entry *e)
{
    const uint8_t *p = d + e->filepos;
    size_t len = e->disksize;
    uint64_t at = e->filepos;
    bk_result r = BK_OK;
#define WAD_BAD(code, ...)                                                                               \
    do {                                                                                                 \
        if (ctx) {                                                                                       \
            r = bk_report(ctx, BK_SEV_ERROR, (code), "entry", i, at, __VA_ARGS__);                     \
            if (r != BK_OK) return r;                                                                    \
            return BK_EFORMAT; /* validate mode: caller skips this entry */                             \
        }                                                                                                \
        return (code);                                                                                   \
    } while (0)
    if (e->type == BK_WAD_TYPE_MIPTEX || e->type == BK_WAD_TYPE_DECAL) {
        if (len < MIPTEX_HDR) WAD_BAD(BK_ETRUNCATED, "%s '%s' is %zu bytes, shorter than its 40-byte header", type_name(e->type), e->name, len);
        uint32_t w = bk_rd_u32le(p + 16), h = bk_rd_u32le(p + 20);
        if (!w || !h || w > BK_Q1_MAX_TEX_DIM || h > BK_Q1_MAX_TEX_DIM)
            WAD_BAD(BK_EFORMAT, "%s '%s' has a bad size %ux%u", type_name(e->type), e->name, w, h);
        for (int m = 0; m < 4; m++) {
            uint32_t o = bk_rd_u32le(p + 24 + 4 * m);
            uint64_t mw = w >> m, mh = h >> m;
            if (!mw) mw = 1;
            if (!mh) mh = 1;
            if (!bk_span_ok(o, mw * mh, len))
                WAD_BAD(BK_ELUMP_RANGE, "%s '%s' mip %d (offset %u, %llux%llu) lies outside the entry", type_name(e->type),
                        e->name, m, o, (unsigned long long)mw, (unsigned long long)mh);
        }
        uint64_t pofs = (uint64_t)bk_rd_u32le(p + 36) + (uint64_t)(w / 8) * (h / 8);
        if (!bk_span_ok(pofs, 2, len)) WAD_BAD(BK_ETRUNCATED, "%s '%s' has no palette after mip 3", type_name(e->type), e->name);
        uint32_t nc = bk_rd_u16le(p + pofs);
        if (nc > 256 || !bk_span_ok(pofs + 2, (uint64_t)nc * 3, len))
            WAD_BAD(BK_ETRUNCATED, "%s '%s' palette of %u colours does not fit", type_name(e->type), e->name, nc);
        e->width = w;
        e->height = h;
    } else if (e->type == BK_WAD_TYPE_QPIC || e->type == BK_WAD_TYPE_FONT) {
        size_t hdr = e->type == BK_WAD_TYPE_QPIC ? 8 : FONT_HDR;
        if (len < hdr) WAD_BAD(BK_ETRUNCATED, "%s '%s' is %zu bytes, shorter than its header", type_name(e->type), e->name, len);
        uint32_t w = bk_rd_u32le(p), h = bk_rd_u32le(p + 4);
        if (e->type == BK_WAD_TYPE_FONT) w = 256; /* the header's width is the character cell width */
        if (!w || !h || w > BK_Q1_MAX_TEX_DIM || h > BK_Q1_MAX_TEX_DIM)
            WAD_BAD(BK_EFORMAT, "%s '%s' has a bad size %ux%u", type_name(e->type), e->name, w, h);
        uint64_t pofs = hdr + (uint64_t)w * h;
        if (!bk_span_ok(pofs, 2, len)) WAD_BAD(BK_ETRUNCATED, "%s '%s' pixels (%ux%u) do not fit", type_name(e->type), e->name, w, h);
        uint32_t nc = bk_rd_u16le(p + pofs);
        if (nc > 256 || !bk_span_ok(pofs + 2, (uint64_t)nc * 3, len))
            WAD_BAD(BK_ETRUNCATED, "%s '%s' palette of %u colours does not fit", type_name(e->type), e->name, nc);
        e->width = w;
        e->height = h;
    } else if (ctx) {
        BK_WARN(ctx, BK_EUNSUPPORTED, "entry", i, at, "entry '%s' has unknown type 0x%02x; skipped", e->name, e->type);
    }
#undef WAD_BAD
    (void)n;
    return BK_OK;
}

bk_result bk_wad3_parse(const uint8_t *d, size_t n, bk_ctx *ctx, bk_wad3 *out)
{
    memset(out, 0, sizeof *out);
    if (n < WAD_HDR) {
        bk_result r = wad_err(ctx, BK_ETRUNCATED, BK_NO_INDEX, 0, "file is shorter than the 12-byte WAD header", NULL);
        return r ? r : BK_ETRUNCATED;
    }
    if (memcmp(d, "WAD2", 4) == 0) {
        if (ctx)
            bk_report(ctx, BK_SEV_ERROR, BK_EUNSUPPORTED, "header", BK_NO_INDEX, 0,
                      "WAD2 (Quake) archives are not supported: only Half-Life WAD3 (palette per texture)");
        return BK_EUNSUPPORTED;
    }
    if (memcmp(d, "WAD3", 4) != 0) {
        if (ctx) bk_report(ctx, BK_SEV_ERROR, BK_EMAGIC, "header", BK_NO_INDEX, 0, "not a WAD3 file");
        return BK_EMAGIC;
    }
    int32_t count = bk_rd_i32le(d + 4), dirofs = bk_rd_i32le(d + 8);
    if (count < 0 || dirofs < 0 || !bk_span_ok((uint64_t)dirofs, (uint64_t)count * WAD_ENTRY, n)) {
        if (ctx)
            bk_report(ctx, BK_SEV_ERROR, BK_ELUMP_RANGE, "header", BK_NO_INDEX, 4,
                      "directory of %d entries at offset %d lies outside the %zu-byte file", count, dirofs, n);
        return BK_ELUMP_RANGE;
    }
    bk_result r = BK_OK;
    if (ctx) out->entries = bk_alloc_array(ctx, (size_t)count, sizeof(bk_wad3_entry), &r);
    else out->entries = bk_calloc(count ? (size_t)count : 1, sizeof(bk_wad3_entry));
    if (!out->entries) return ctx ? r : BK_ENOMEM;
    bk_result first = BK_OK;
    for (uint32_t i = 0; i < (uint32_t)count; i++) {
        const uint8_t *p = d + dirofs + (size_t)i * WAD_ENTRY;
        uint64_t at = (uint64_t)dirofs + (uint64_t)i * WAD_ENTRY;
        bk_wad3_entry e;
        memset(&e, 0, sizeof e);
        int32_t fp = bk_rd_i32le(p), ds = bk_rd_i32le(p + 4), sz = bk_rd_i32le(p + 8);
        e.type = p[12];
        e.compression = p[13];
        bk_copy_name(e.name, sizeof e.name, p + 16, 16);
        if (fp < 0 || ds < 0 || sz < 0 || !bk_span_ok((uint64_t)fp, (uint64_t)ds, n)) {
            if (!ctx) continue; /* silent lookups skip what they cannot use */
            r = bk_report(ctx, BK_SEV_ERROR, BK_ELUMP_RANGE, "directory", i, at,
                          "entry '%s' (offset %d, %d bytes) lies outside the %zu-byte file", e.name, fp, ds, n);
            if (r != BK_OK) { bk_wad3_clear(out); return r; }
            if (!first) first = BK_ELUMP_RANGE;
            continue;
        }
        e.filepos = (uint32_t)fp;
        e.disksize = (uint32_t)ds;
        e.size = (uint32_t)sz;
        if (e.compression != 0) {
            if (!ctx) continue;
            r = bk_report(ctx, BK_SEV_ERROR, BK_EUNSUPPORTED, "directory", i, at,
                          "entry '%s' uses compression %u, which no engine implements", e.name, e.compression);
            if (r != BK_OK) { bk_wad3_clear(out); return r; }
            if (!first) first = BK_EUNSUPPORTED;
            continue;
        }
        if (ctx && e.size != e.disksize)
            BK_WARN(ctx, BK_EFORMAT, "directory", i, at, "entry '%s' size %u differs from its disk size %u", e.name,
                    e.size, e.disksize);
        r = check_entry(d, n, ctx, i, &e);
        if (r != BK_OK) {
            if (!ctx) continue;
            if (!ctx->keep_going) { bk_wad3_clear(out); return r; }
            if (!first) first = r;
            continue; /* validate mode: reported, skip */
        }
        out->entries[out->count++] = e;
    }
    (void)first;
    return BK_OK;
}

/* ---- the bk_file decoder ------------------------------------------------------------------ */

static int wad_probe(const uint8_t *d, size_t n)
{
    if (n < 4) return 0;
    if (memcmp(d, "WAD3", 4) == 0) return 2;
    if (memcmp(d, "WAD2", 4) == 0) return 1; /* recognised, refused with a message */
    return 0;
}

static void wad_destroy(void *impl)
{
    bk_wad3 *w = impl;
    if (!w) return;
    bk_wad3_clear(w);
    bk_free(w);
}

static bk_result wad_load(bk_file *f, bk_ctx *ctx)
{
    bk_wad3 *w = bk_calloc(1, sizeof *w);
    if (!w) return BK_ENOMEM;
    bk_result r = bk_wad3_parse(f->data, f->size, ctx, w);
    if (r != BK_OK) {
        bk_free(w);
        return r;
    }
    f->impl = w;
    f->format = BK_FORMAT_WAD3;
    f->info.format = BK_FORMAT_WAD3;
    f->info.version = 3;
    uint32_t n[256] = {0};
    for (uint32_t i = 0; i < w->count; i++) n[w->entries[i].type]++;
    int32_t declared = bk_rd_i32le(f->data + 4);
    if (bk_info_set_lumps(&f->info, 1) == BK_OK) {
        bk_lump_info *l = &f->info.lumps[0];
        snprintf(l->name, sizeof l->name, "directory");
        l->offset = (uint64_t)bk_rd_i32le(f->data + 8);
        l->length = (uint64_t)declared * WAD_ENTRY;
        l->uncompressed = l->length;
        l->count = declared;
    }
    bk_info_count(&f->info, "entries", (uint64_t)declared);
    bk_info_count(&f->info, "textures", w->count);
    bk_info_count(&f->info, "miptex", n[BK_WAD_TYPE_MIPTEX]);
    bk_info_count(&f->info, "decals", n[BK_WAD_TYPE_DECAL]);
    bk_info_count(&f->info, "qpics", n[BK_WAD_TYPE_QPIC]);
    bk_info_count(&f->info, "fonts", n[BK_WAD_TYPE_FONT]);
    return BK_OK;
}

/* Decode entry e of a WAD3 to RGBA. */
static bk_result entry_rgba(const uint8_t *d, const bk_wad3_entry *e, uint8_t **rgba, uint32_t *w, uint32_t *h)
{
    const uint8_t *p = d + e->filepos;
    size_t len = e->disksize;
    if (e->type == BK_WAD_TYPE_MIPTEX || e->type == BK_WAD_TYPE_DECAL) {
        int mode = e->type == BK_WAD_TYPE_DECAL ? BK_PAL_DECAL : (e->name[0] == '{' ? BK_PAL_MASK255 : BK_PAL_OPAQUE);
        if (mode == BK_PAL_DECAL && len >= MIPTEX_HDR) {
            /* a full-colour spray keeps pure blue as its last colour: index 255 is then a hole, not a tint */
            uint32_t mw = bk_rd_u32le(p + 16), mh = bk_rd_u32le(p + 20);
            uint64_t pofs = (uint64_t)bk_rd_u32le(p + 36) + (uint64_t)(mw / 8) * (mh / 8);
            if (bk_span_ok(pofs + 2 + 255 * 3, 3, len) && bk_rd_u16le(p + pofs) == 256 && p[pofs + 2 + 765] == 0 &&
                p[pofs + 2 + 766] == 0 && p[pofs + 2 + 767] == 255)
                mode = BK_PAL_MASK255;
        }
        return bk_miptex_to_rgba(p, len, NULL, mode, rgba, w, h);
    }
    if (e->type == BK_WAD_TYPE_QPIC || e->type == BK_WAD_TYPE_FONT) {
        size_t hdr = e->type == BK_WAD_TYPE_QPIC ? 8 : FONT_HDR;
        if (len < hdr) return BK_ETRUNCATED;
        uint32_t W = bk_rd_u32le(p), H = bk_rd_u32le(p + 4);
        if (e->type == BK_WAD_TYPE_FONT) W = 256;
        if (!W || !H || W > BK_Q1_MAX_TEX_DIM || H > BK_Q1_MAX_TEX_DIM) return BK_EFORMAT;
        size_t npx = (size_t)W * H;
        if (!bk_span_ok(hdr, npx + 2, len)) return BK_ETRUNCATED;
        uint32_t nc = bk_rd_u16le(p + hdr + npx);
        if (nc > 256 || !bk_span_ok(hdr + npx + 2, (uint64_t)nc * 3, len)) return BK_ETRUNCATED;
        uint8_t *px = bk_malloc(npx * 4);
        if (!px) return BK_ENOMEM;
        bk_pal_expand(p + hdr, npx, p + hdr + npx + 2, nc,
                      e->type == BK_WAD_TYPE_FONT ? BK_PAL_MASK255 : BK_PAL_OPAQUE, px);
        *rgba = px;
        *w = W;
        *h = H;
        return BK_OK;
    }
    return BK_EUNSUPPORTED;
}

static bk_result wad_extract(const bk_file *f, const bk_options *opt, bk_scene *out)
{
    const bk_wad3 *w = f->impl;
    /* directory entries may share one payload in hostile files: bound the decoded total */
    bk_limits lim = bk_limits_of(opt);
    uint64_t budget = bk_limits_embedded_budget(&lim, f->size);
    for (uint32_t i = 0; i < w->count; i++) {
        const bk_wad3_entry *e = &w->entries[i];
        uint8_t *px = NULL;
        uint32_t W = 0, H = 0;
        uint64_t cost = (uint64_t)e->width * e->height * 4;
        if (cost > budget) return BK_ELIMIT;
        budget -= cost;
        bk_result r = entry_rgba(f->data, e, &px, &W, &H);
        if (r == BK_ENOMEM) return r;
        int32_t idx;
        if (r != BK_OK) {
            /* unknown type: keep the name so the count matches the directory */
            BK_TRY(bk_scene_add_image(out, e->name, 0, 0, NULL, &idx));
            bk_scene_diag(out, opt, BK_SEV_WARNING, r, NULL, "directory", i, BK_NO_OFFSET,
                          "entry '%s' (type 0x%02x) cannot be decoded: kept by name only", e->name, e->type);
            continue;
        }
        r = bk_scene_add_image(out, e->name, W, H, px, &idx);
        if (r != BK_OK) {
            bk_free(px);
            return r;
        }
    }
    return BK_OK;
}

const bk_wad3 *bk_wad3_of(const bk_file *f) { return bk_file_impl(f, BK_FORMAT_WAD3); }

const bk_format_ops bk_ops_wad3 = {BK_FORMAT_WAD3, wad_probe, wad_load, wad_destroy, NULL, wad_extract, NULL, NULL};
