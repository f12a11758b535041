/* Shared between the BSP and WAD3 decoders of the Quake family. */
#ifndef BK_QUAKE_INTERNAL_H
#define BK_QUAKE_INTERNAL_H

#include "../family.h"
#include "bspkit/quake.h"

/* the engines' leaf contents values (id's bspfile.h CONTENTS_*, Half-Life's additions) */
enum {
    Q1C_EMPTY = -1, Q1C_SOLID = -2, Q1C_WATER = -3, Q1C_SLIME = -4, Q1C_LAVA = -5, Q1C_SKY = -6,
    Q1C_ORIGIN = -7, Q1C_CLIP = -8, Q1C_CURRENT_0 = -9, Q1C_CURRENT_DOWN = -14,
    Q1C_TRANSLUCENT = -15, Q1C_LADDER = -16
};

/* How palette indexes become alpha. */
enum {
    BK_PAL_OPAQUE = 0,
    BK_PAL_MASK255 = 1,    /* '{' textures, fonts: index 255 fully transparent */
    BK_PAL_DECAL = 2       /* decals: colour = palette[255], alpha = index */
};

/* Parse a WAD3 directory. With ctx (load / validate), problems are reported and loading stops
 * at the first error outside validate mode; with ctx == NULL the parse is silent and any problem
 * fails (used for texture lookups). base_ofs is added to reported offsets. */
bk_result bk_wad3_parse(const uint8_t *d, size_t n, bk_ctx *ctx, bk_wad3 *out);
void bk_wad3_clear(bk_wad3 *w);

/* Decode one miptex record (40-byte header + mips [+ palette]) of avail bytes to RGBA.
 * palette: NULL to read the GoldSrc palette stored after mip 3, else a 256*3 table. */
bk_result bk_miptex_to_rgba(const uint8_t *mt, size_t avail, const uint8_t *palette, int alpha_mode,
                            uint8_t **rgba, uint32_t *w, uint32_t *h);

/* palette indexes to RGBA (ncolors entries in pal; indexes beyond it become black) */
void bk_pal_expand(const uint8_t *idx, size_t n, const uint8_t *pal, uint32_t ncolors, int alpha_mode,
                   uint8_t *rgba);
/* The same pixels packed (BK_PACK_PAL8: the RGBA bk_pal_expand makes of each of the 256 indices,
 * then the n indices; bk_malloc'd) */
bk_result bk_pal_pack(const uint8_t *idx, size_t n, const uint8_t *pal, uint32_t ncolors, int alpha_mode,
                      uint8_t **packed);
bk_result bk_miptex_to_pal8(const uint8_t *mt, size_t avail, const uint8_t *palette, int alpha_mode,
                            uint8_t **packed, uint32_t *w, uint32_t *h);

/* Sky, liquid and GoldSrc "!" water textures: drawn without a lightmap. */
bool bk_quake_special_texture(const char *name, bool gold);

/* The scene side of the BSP decoder (bsp_scene.c): f->impl is a loaded bk_quake_bsp. */
bk_result bk_quake_build_scene(const bk_file *f, const bk_options *opt, bk_scene *s);
bk_result bk_quake_extract_images(const bk_file *f, const bk_options *opt, bk_scene *s);

/* The family's rows (quake_desc.c): lumps, and the references the checker applies */
enum {
    BK_Q1_REF_EDGE_VERTEX, BK_Q1_REF_SURFEDGE, BK_Q1_REF_TEXINFO_MIPTEX, BK_Q1_REF_FACE_PLANE,
    BK_Q1_REF_FACE_EDGES, BK_Q1_REF_FACE_TEXINFO, BK_Q1_REF_MARKSURFACE, BK_Q1_REF_LEAF_MARKS,
    BK_Q1_REF_NODE_PLANE, BK_Q1_REF_NODE_FACES, BK_Q1_REF_CLIPNODE_PLANE, BK_Q1_REF_MODEL_FACES,
    BK_Q1_REF_COUNT
};
extern const bk_lump_desc bk_quake_lumps[BK_Q1_LUMP_COUNT];
extern const bk_ref_desc bk_quake_refs[BK_Q1_REF_COUNT];
const bk_version_desc *bk_quake_version_bshift(void);

/* Largest texture side accepted (engines cap far lower) */
#define BK_Q1_MAX_TEX_DIM 8192u

/* A leaf's contents number (CONTENTS_SOLID = -2, ...) as BK_CONTENTS_* (quake_query.c) */
uint32_t bk_quake_contents_neutral(int32_t c);

#endif
