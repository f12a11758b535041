/*
 * bspkit — Quake 2 / Hexen II image files: .wal textures, .pcx pictures, the games' palettes.
 *
 * These decode on their own, before the Quake 2 map loader exists; every call checks the bytes it
 * is given (sizes, offsets, lengths) and reports a located diagnostic through opt->diag
 * (opt may be NULL). Pixels are returned as RGBA8 in a block freed with bk_free, rows top-down.
 *
 *     uint8_t pal[768];
 *     bool dflt;
 *     bk_palette_load(&opt, BK_PALETTE_QUAKE2, pal, &dflt);   // pics/colormap.pcx, or the default
 *     uint8_t *rgba; uint32_t w, h;
 *     if (bk_wal_decode(bytes, n, &opt, pal, 0, &rgba, &w, &h) == BK_OK) bk_free(rgba);
 */
#ifndef BSPKIT_QUAKE2_H
#define BSPKIT_QUAKE2_H

#include "bspkit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- .wal (Quake 2's qfiles.h miptex_t: a 100-byte header, then 4 mip levels of 8-bit indexes) */
#define BK_WAL_HEADER 100u
typedef struct bk_wal_info {
    char name[33];          /* as stored (up to 32 bytes), NUL-terminated here */
    char next[33];          /* animname: the next frame of an animation ("" none) */
    uint32_t width, height; /* mip 0 */
    uint32_t offsets[4];    /* mip m is (width >> m) x (height >> m) bytes at offsets[m] */
    int32_t flags, contents, value;   /* the defaults a map compiler gives surfaces of this texture */
} bk_wal_info;

/* The header of a .wal, checked: width and height 1..limits.max_texture_dim, every mip level
 * inside the file, after the header, and of its level's size. BK_ETRUNCATED, BK_EFORMAT,
 * BK_ELIMIT or BK_ELUMP_RANGE otherwise, located (header / mip[m] and the offset). */
bk_result bk_wal_parse(const void *data, size_t size, const bk_options *opt, bk_wal_info *out);
/* Mip level mip (0..3) as RGBA through palette (768 bytes: 256 x RGB), alpha 255. *w, *h: its size. */
bk_result bk_wal_decode(const void *data, size_t size, const bk_options *opt, const uint8_t palette[768],
                        uint32_t mip, uint8_t **rgba, uint32_t *w, uint32_t *h);
/* The animation chain that starts at texture name (as a texinfo names it: "e1u1/floor1_3"), each
 * frame read as textures/NAME.wal through opt->search_paths (folders, their pakN.pak and .pk3,
 * archives), names compared without regard to case. names[0] is name; then each .wal's next name,
 * until a name already in the chain (*looped: true when that is names[0], an animation's normal
 * end), an empty next name, a frame that is not found (BK_ENOTFOUND when it is names[0]) or cap
 * names. *count: how many names were written. */
bk_result bk_wal_chain(const bk_options *opt, const char *name, char (*names)[33], uint32_t cap, uint32_t *count,
                       bool *looped);

/* ---- .pcx (ZSoft version 5, RLE, 8 bits per pixel: one plane and a 256-colour palette at the end,
 * or three planes, RGB) */
/* The picture as RGBA through its own palette (the 768 bytes after the 0x0C marker that ends the
 * file; each Quake 2 sky face carries its own), copied to palette_out when not NULL (zeros for a
 * 3-plane RGB picture, which has none). Sizes are
 * checked before anything is allocated: width and height 1..limits.max_texture_dim, a line at
 * least as wide as the picture, and no more pixels than the RLE bytes could make. */
bk_result bk_pcx_decode(const void *data, size_t size, const bk_options *opt, uint8_t **rgba, uint32_t *w,
                        uint32_t *h, uint8_t palette_out[768]);

/* ---- palettes ---------------------------------------------------------------------------- */
typedef enum bk_palette_game {
    BK_PALETTE_QUAKE2 = 2,  /* pics/colormap.pcx: its palette */
    BK_PALETTE_HEXEN2 = 3   /* gfx/palette.lmp: 768 bytes */
} bk_palette_game;
/* The game's palette read from its own files through opt->search_paths (game folders with their
 * pakN.pak, archives); when they are not there (*is_default true), the default
 * (bk_palette_default) with a warning through opt->diag. BK_EARG for another game; a file that is
 * there but malformed is an error (its result), not a fallback. */
bk_result bk_palette_load(const bk_options *opt, bk_palette_game game, uint8_t pal[768], bool *is_default);
/* bspkit's stand-in palette, not any game's colours (id's palettes are id's data and ship with the
 * games): 16 rows of 16, row r a ramp from dark to bright (value 8 + 16 k) tinted with hue r x 22.5
 * degrees, row 0 grey. A texture drawn with it keeps its shapes and shading, not its colours. */
void bk_palette_default(uint8_t pal[768]);

#ifdef __cplusplus
}
#endif
#endif
