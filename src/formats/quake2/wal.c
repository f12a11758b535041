/* Quake 2 .wal textures (qfiles.h miptex_t), their animation chains, and the palettes Quake 2 and
 * Hexen II textures need (read from the game's files, else bspkit's documented stand-in). */
#include "common/bk_internal.h"
#include "bspkit/quake2.h"

static uint64_t mip_bytes(const bk_wal_info *wi, uint32_t m)
{
    return (uint64_t)(wi->width >> m) * (wi->height >> m);
}

bk_result bk_wal_parse(const void *data, size_t size, const bk_options *opt, bk_wal_info *out)
{
    if (!data || !out) return BK_EARG;
    memset(out, 0, sizeof *out);
    bk_ctx ctx;
    bk_ctx_init(&ctx, opt, false);
    const uint8_t *d = data;
    if (size < BK_WAL_HEADER)
        BK_ERR(&ctx, BK_ETRUNCATED, "header", BK_NO_INDEX, 0, "%zu bytes: shorter than the 100-byte .wal header", size);
    bk_wal_info wi;
    memset(&wi, 0, sizeof wi);
    memcpy(wi.name, d, 32);
    wi.width = bk_rd_u32le(d + 32);
    wi.height = bk_rd_u32le(d + 36);
    for (int m = 0; m < 4; m++) wi.offsets[m] = bk_rd_u32le(d + 40 + 4 * m);
    memcpy(wi.next, d + 56, 32);
    wi.flags = (int32_t)bk_rd_u32le(d + 88);
    wi.contents = (int32_t)bk_rd_u32le(d + 92);
    wi.value = (int32_t)bk_rd_u32le(d + 96);
    uint32_t maxdim = ctx.opt.limits.max_texture_dim;
    if (wi.width == 0 || wi.height == 0)
        BK_ERR(&ctx, BK_EFORMAT, "header", BK_NO_INDEX, 32, "size %ux%u: a texture has pixels", wi.width, wi.height);
    if (wi.width > maxdim || wi.height > maxdim)
        BK_ERR(&ctx, BK_ELIMIT, "header", BK_NO_INDEX, 32, "size %ux%u: over limits.max_texture_dim (%u)", wi.width,
               wi.height, maxdim);
    for (uint32_t m = 0; m < 4; m++) {
        uint64_t n = mip_bytes(&wi, m);
        if (!n) continue; /* a texture narrower than 8: its small levels have no pixels */
        if (wi.offsets[m] < BK_WAL_HEADER || !bk_span_ok(wi.offsets[m], n, size))
            BK_ERR(&ctx, wi.offsets[m] < BK_WAL_HEADER ? BK_EFORMAT : BK_ELUMP_RANGE, "mip", m, 40 + 4 * m,
                   "level %u (%ux%u, %llu bytes) at %u lies %s the %zu-byte file", m, wi.width >> m, wi.height >> m,
                   (unsigned long long)n, wi.offsets[m], wi.offsets[m] < BK_WAL_HEADER ? "in the header of" : "outside",
                   size);
    }
    *out = wi;
    return BK_OK;
}

bk_result bk_wal_decode(const void *data, size_t size, const bk_options *opt, const uint8_t palette[768],
                        uint32_t mip, uint8_t **rgba, uint32_t *w, uint32_t *h)
{
    if (!data || !palette || !rgba || !w || !h || mip > 3) return BK_EARG;
    *rgba = NULL;
    *w = *h = 0;
    bk_wal_info wi;
    BK_TRY(bk_wal_parse(data, size, opt, &wi));
    uint32_t mw = wi.width >> mip, mh = wi.height >> mip;
    if (!mw || !mh) {
        bk_ctx ctx;
        bk_ctx_init(&ctx, opt, false);
        BK_ERR(&ctx, BK_EARG, "mip", mip, 40 + 4 * mip, "a %ux%u texture has no level %u", wi.width, wi.height, mip);
        return BK_EARG;
    }
    size_t n = (size_t)mw * mh;
    uint8_t *out = bk_malloc(n * 4);
    if (!out) return BK_ENOMEM;
    const uint8_t *src = (const uint8_t *)data + wi.offsets[mip];
    for (size_t i = 0; i < n; i++) {
        const uint8_t *c = palette + 3u * src[i];
        out[i * 4 + 0] = c[0];
        out[i * 4 + 1] = c[1];
        out[i * 4 + 2] = c[2];
        out[i * 4 + 3] = 255;
    }
    *rgba = out;
    *w = mw;
    *h = mh;
    return BK_OK;
}

/* ---- animation chains ------------------------------------------------------------------------ */
bk_result bk_wal_chain(const bk_options *opt, const char *name, char (*names)[33], uint32_t cap, uint32_t *count,
                       bool *looped)
{
    if (!opt || !name || !names || !cap || !count || !looped) return BK_EARG;
    *count = 0;
    *looped = false;
    bk_vfs *v = bk_vfs_new_game(opt);
    if (!v) return BK_ENOMEM;
    bk_result r = BK_OK;
    char cur[33];
    snprintf(cur, sizeof cur, "%s", name);
    while (*count < cap) {
        for (uint32_t i = 0; i < *count; i++)
            if (bk_path_eq(names[i], cur)) {
                *looped = i == 0;
                goto done;
            }
        char rel[64];
        snprintf(rel, sizeof rel, "textures/%s.wal", cur);
        uint8_t *d = NULL;
        size_t n = 0;
        bk_result rr = bk_vfs_read(v, rel, 1u << 26, &d, &n);
        if (rr != BK_OK) {
            if (*count == 0) r = rr == BK_ENOTFOUND ? BK_ENOTFOUND : rr;
            break;
        }
        memcpy(names[(*count)++], cur, sizeof cur);
        bk_wal_info wi;
        bk_options quiet = *opt;
        quiet.name = rel;
        rr = bk_wal_parse(d, n, &quiet, &wi);
        bk_free(d);
        if (rr != BK_OK) {
            r = rr;
            break;
        }
        if (!wi.next[0]) break;
        memcpy(cur, wi.next, sizeof cur);
    }
done:
    bk_vfs_free(v);
    return r;
}

/* ---- palettes -------------------------------------------------------------------------------- */
void bk_palette_default(uint8_t pal[768])
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t row = i >> 4, k = i & 15;
        double v = (8.0 + 16.0 * k) / 255.0, s = row ? 0.35 : 0.0, hue = row * 22.5 / 60.0;
        /* HSV (hue, s, v) to RGB */
        int sect = (int)hue % 6;
        double f = hue - (int)hue, p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f));
        double rgb[3];
        switch (sect) {
        case 0: rgb[0] = v, rgb[1] = t, rgb[2] = p; break;
        case 1: rgb[0] = q, rgb[1] = v, rgb[2] = p; break;
        case 2: rgb[0] = p, rgb[1] = v, rgb[2] = t; break;
        case 3: rgb[0] = p, rgb[1] = q, rgb[2] = v; break;
        case 4: rgb[0] = t, rgb[1] = p, rgb[2] = v; break;
        default: rgb[0] = v, rgb[1] = p, rgb[2] = q; break;
        }
        for (int c = 0; c < 3; c++) pal[i * 3 + c] = (uint8_t)(rgb[c] * 255.0 + 0.5);
    }
}

bk_result bk_palette_load(const bk_options *opt, bk_palette_game game, uint8_t pal[768], bool *is_default)
{
    if (!pal || !is_default || (game != BK_PALETTE_QUAKE2 && game != BK_PALETTE_HEXEN2)) return BK_EARG;
    *is_default = false;
    bk_options none;
    memset(&none, 0, sizeof none);
    const bk_options *o = opt ? opt : &none;
    const char *rel = game == BK_PALETTE_QUAKE2 ? "pics/colormap.pcx" : "gfx/palette.lmp";
    bk_vfs *v = bk_vfs_new_game(o);
    if (!v) return BK_ENOMEM;
    uint8_t *d = NULL;
    size_t n = 0;
    const char *where = NULL;
    bk_result r = bk_vfs_read_from(v, rel, 1u << 24, &d, &n, &where);
    bk_ctx ctx;
    bk_ctx_init(&ctx, o, false);
    if (r == BK_ENOTFOUND) {
        bk_vfs_free(v);
        bk_palette_default(pal);
        *is_default = true;
        BK_WARN(&ctx, BK_ENOTFOUND, "palette", BK_NO_INDEX, BK_NO_OFFSET,
                "%s not found in the game folders given (--game-dir): bspkit's stand-in palette is used, so "
                "textures keep their shapes, not their colours",
                rel);
        return BK_OK;
    }
    if (r == BK_OK && game == BK_PALETTE_HEXEN2) {
        if (n < 768) {
            /* reported before the lookup goes: where is its root's name */
            bk_report(&ctx, BK_SEV_ERROR, BK_ETRUNCATED, "palette", BK_NO_INDEX, 0, "%s (from %s): %zu bytes, not 768", rel,
                      where ? where : "?", n);
            bk_free(d);
            bk_vfs_free(v);
            return BK_ETRUNCATED;
        }
        memcpy(pal, d, 768);
    } else if (r == BK_OK) {
        uint8_t *rgba = NULL;
        uint32_t w, h;
        bk_options po = *o;
        po.name = rel;
        r = bk_pcx_decode(d, n, &po, &rgba, &w, &h, pal);
        bk_free(rgba);
    }
    bk_free(d);
    bk_vfs_free(v);
    return r;
}
