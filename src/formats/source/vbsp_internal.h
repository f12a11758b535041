/* Source VBSP decoder: what the loader, the scene builder and the pakfile reader share. */
#ifndef BK_VBSP_INTERNAL_H
#define BK_VBSP_INTERNAL_H

#include "../family.h"
#include "bspkit/source.h"

#define VBSP_HEADER_SIZE 1036u
#define VBSP_LZMA_HEADER 17u

/* The family's rows (source_desc.c): lumps and the references the checker applies */
enum {
    BK_SRC_REF_EDGE_VERTEX, BK_SRC_REF_SURFEDGE, BK_SRC_REF_TEXDATA_NAME, BK_SRC_REF_TEXINFO_TEXDATA,
    BK_SRC_REF_FACE_PLANE, BK_SRC_REF_ORIGFACE_PLANE, BK_SRC_REF_HDRFACE_PLANE, BK_SRC_REF_AREA_PORTALS, BK_SRC_REF_AREAPORTAL_AREA,
    BK_SRC_REF_AREAPORTAL_CLIPVERTS, BK_SRC_REF_AREAPORTAL_PLANE, BK_SRC_REF_BRUSHSIDE_PLANE,
    BK_SRC_REF_BRUSHSIDE_TEXINFO, BK_SRC_REF_BRUSH_SIDES, BK_SRC_REF_LEAFFACE, BK_SRC_REF_LEAFBRUSH,
    BK_SRC_REF_LEAF_FACES, BK_SRC_REF_LEAF_BRUSHES, BK_SRC_REF_NODE_PLANE, BK_SRC_REF_NODE_FACES,
    BK_SRC_REF_MODEL_FACES, BK_SRC_REF_MODEL_HEADNODE, BK_SRC_REF_AMBIENT_SAMPLES, BK_SRC_REF_AMBIENT_SAMPLES_HDR,
    BK_SRC_REF_COUNT
};
/* lumps whose element is laid out by the lump's own version (source_desc.c: source_lump_view) */
enum { BK_SRC_LUMP_LEAF_AMBIENT_LIGHTING_HDR = 55, BK_SRC_LUMP_LEAF_AMBIENT_LIGHTING = 56 };
/* and their index by leaf (first sample, count) */
enum { BK_SRC_LUMP_LEAF_AMBIENT_INDEX_HDR = 51, BK_SRC_LUMP_LEAF_AMBIENT_INDEX = 52 };
extern const bk_lump_desc bk_source_lumps[BK_SRC_LUMP_COUNT];
extern const bk_ref_desc bk_source_refs[BK_SRC_REF_COUNT];

/* A world light (bspfile.h dworldlight_t) as its rows decode it (source_desc.c; source_lights.c and
 * the decompiler read it) */
typedef struct bk_source_worldlight {
    float origin[3], intensity[3], normal[3], shadow_cast_offset[3];
    int32_t cluster, type, style;
    float stopdot, stopdot2, exponent, radius, constant_attn, linear_attn, quadratic_attn;
    int32_t flags, texinfo, owner;
} bk_source_worldlight;

/* The loaded map: the public part first, then what it owns. */
typedef struct vbsp_impl {
    bk_source_map pub;
    uint8_t *owned_lumps[BK_SRC_LUMP_COUNT];   /* decoded LZMA lumps */
    uint8_t pending[BK_SRC_LUMP_COUNT];        /* 1: LZMA lump not decoded yet (pub.lumps[i].data NULL,
                                                * .size its uncompressed size): bk_vbsp_lump_decode */
    uint32_t lent[BK_SRC_LUMP_COUNT];          /* builders holding a lump decoded for them alone
                                                * (bk_vbsp_lump_hold): given back when the last lets go */
    bk_mutex lumps_lock;                       /* pending, lent, owned_lumps, the budgets once the
                                                * file is loaded: the hold / release / bytes calls */
    uint64_t lzma_budget;                      /* decoded LZMA bytes left: 8 x the file's size + 64 MiB in
                                                * all (bk_limits_embedded_budget), max_alloc_bytes at most */
    bk_budget *shared;                         /* the program's budget (bk_options.budget): decoded
                                                * lumps hold their bytes from it too, or NULL */
    char *names;                               /* texdata names, NUL-separated */
    uint32_t occluder_count, occluder_poly_count; /* the occlusion lump's (vbsp_occluders.c) */
    uint8_t column[BK_SRC_LUMP_COUNT];         /* each lump's column of rows (bk_rows_column; the leafs'
                                                * moved by their size, vbsp_tree.c) */
} vbsp_impl;

/* Decode Valve's LZMA block at src (17-byte header: "LZMA", u32 actualSize, u32 lzmaSize,
 * 5 property bytes; then raw LZMA1). *consumed receives 17 + lzmaSize. The output size is
 * actualSize, bounded by max_out. Returns BK_OK, BK_ETRUNCATED, BK_ELIMIT, BK_ENOMEM or
 * BK_EDECOMPRESS; why (when not NULL) receives a short reason. */
bk_result bk_vbsp_lzma_block(const uint8_t *src, size_t avail, uint64_t max_out, uint8_t **out, size_t *out_size,
                          size_t *consumed, const char **why);
/* n bytes as Valve's LZMA block (lzma_enc.c): the 17-byte header then raw LZMA1 without an end
 * mark; *out bk_malloc'd. BK_ENOMEM, BK_ELIMIT (over 2 GiB) or BK_EUNSUPPORTED (encoder error). */
bk_result bk_vbsp_lzma_encode(const uint8_t *src, size_t n, uint8_t **out, size_t *out_size);
/* lzma.c: the LZMA SDK's allocation callbacks (ISzAlloc), through the library's allocator; the
 * decoder and the encoder (lzma_enc.c) share them */
void *bk_lzsdk_alloc(void *p, size_t size);
void bk_lzsdk_free(void *p, void *address);
/* Decode a raw LZMA1 stream with 5 property bytes to exactly out_size bytes. */
bk_result bk_vbsp_lzma_raw(const uint8_t props[5], const uint8_t *src, size_t src_size, uint8_t *out,
                        size_t out_size, const char **why);

/* Decode lump idx if it was left compressed at load (the loader decodes only what it reads, and
 * everything in validate mode). On failure the lump becomes empty and the error is returned
 * (reported through ctx when given). The loader's: not thread-safe on one file (a loaded file's
 * readers use bk_vbsp_lump_hold or bk_source_lump_bytes). */
bk_result bk_vbsp_lump_decode(const bk_file *f, int idx, bk_ctx *ctx);
/* Whether compressed lump idx is still to be decoded; and giving a decoded one's bytes back (it is
 * pending again: decoded anew when next read). The loader's, for lumps it decoded for itself. */
bool bk_vbsp_lump_pending(const bk_file *f, int idx);
void bk_vbsp_lump_forget(const bk_file *f, int idx);
/* A loaded file's lump idx for a builder that reads it and lets it go (the scene's lighting,
 * overlays, world lights), from any number of threads at once: decoded if pending (the result as
 * bk_vbsp_lump_decode's, without a report), and held until the matching bk_vbsp_lump_release;
 * a lump decoded for holders alone is given back when the last one releases it. Every hold, also
 * a failed one, is released. */
bk_result bk_vbsp_lump_hold(const bk_file *f, int idx);
void bk_vbsp_lump_release(const bk_file *f, int idx);
/* whether lump idx has bytes that stay until the file goes (not pending, not only lent) */
bool bk_vbsp_lump_kept(const bk_file *f, int idx);
/* bk_vbsp_lump_forget for every decoded lump no builder holds (the loader has copied what it read
 * into arrays) */
void bk_vbsp_forget_decoded(const bk_file *f);
/* A VTF's largest mip of frame 0, face 0 as it is stored (BK_PACK_CODEC: its format, then the
 * texels), and what bk_vtf_unpack makes of it (RGBA). */
bk_result bk_vtf_pack(const uint8_t *d, size_t n, const bk_vtf *v, uint8_t **packed, size_t *size);
bk_result bk_vtf_unpack(const uint8_t *packed, size_t size, uint32_t w, uint32_t h, uint8_t *rgba);
/* whether any texel of a packed VTF image is transparent, decoded four rows at a time */
bk_result bk_vtf_packed_alpha(const uint8_t *packed, size_t size, uint32_t w, uint32_t h, bool *alpha);
/* The largest mip of frame 0 of face 0 as linear RGB floats (width * height * 3), as Valve's HDR sky
 * shader reads it (sky_hdr_dx9.cpp): RGBA16161616F its half floats, RGBA16161616 x 16 / 65535,
 * rgbs true (an $hdrcompressedtexture) rgb x alpha x 8 read as they are, any other format its
 * texels read as sRGB. */
bk_result bk_vtf_decode_linear(const uint8_t *d, size_t n, const bk_vtf *v, bool rgbs, float *rgb);

/* Vertex k of face f (through its surfedges; the loader checked them) */
static inline const float *bk_src_face_vertex(const bk_source_map *p, const bk_source_face *f, int32_t k)
{
    int32_t se = p->surfedges[f->firstedge + k];
    uint32_t v = se >= 0 ? p->edges[(uint32_t)se * 2] : p->edges[(uint32_t)(-(int64_t)se) * 2 + 1];
    return &p->vertices[(size_t)v * 3];
}
/* The displacement grid of face fi (source_disp.c), for the scene and the collision model alike;
 * the caller has checked the face (4 corners, dispinfo power 2..4, its dispverts in range).
 * Returns side = 2^power + 1; q receives the corners rotated so that q[0] is the one nearest
 * startPosition; point (x, y) = index y * side + x lies at u = x / (side - 1) from the q[0]-q[1]
 * edge towards the q[3]-q[2] edge, t = y / (side - 1) from q[0] towards q[1]: pos receives it
 * displaced, base (when not NULL) undisplaced, 3 floats each. */
uint32_t bk_src_disp_grid(const bk_source_map *p, uint32_t fi, float q[4][3], float *pos, float *base);
/* The two triangles of grid cell (x, y) as point indices, the diagonal alternating as the engine
 * draws it: (i0, i1, i3), (i0, i3, i2) on even x + y, (i0, i1, i2), (i1, i3, i2) on odd */
void bk_src_disp_cell(uint32_t side, uint32_t x, uint32_t y, uint32_t t[6]);

bk_result bk_vbsp_build_scene(const bk_file *f, const bk_options *opt, bk_scene *s);
bk_result bk_vbsp_extract_images(const bk_file *f, const bk_options *opt, bk_scene *out);
/* VMT text (vmt.c): the shader name; the first value of key anywhere (case-insensitive) */
bool bk_vmt_shader(const char *text, size_t len, char *out, size_t cap);
bool bk_vmt_find(const char *text, size_t len, const char *key, char *out, size_t cap);
/* the most of a VMT that is read (they are text of a few KB): a larger one is not parsed */
#define BK_VMT_MAX_BYTES ((uint64_t)1 << 20)
/* bk_source_assets_read within max bytes (0: the file limit): BK_ELIMIT past it, BK_EIO for a file
 * that is there but does not read (where says where it is), BK_ENOTFOUND only when it is nowhere */
bk_result bk_src_assets_read_max(bk_source_assets *a, const char *path, uint64_t max, uint8_t **data, size_t *size,
                                 char *where, size_t cap);
/* gameinfo.txt (gameinfo.c): fn(user, ids, path) for each GameInfo > FileSystem > SearchPaths
 * entry in order (ids: the key, e.g. "game+mod"; return false to stop). Errors are located
 * (lump "gameinfo", index = line, offset) and reported through opt->diag. */
typedef bool (*bk_gameinfo_fn)(void *user, const char *ids, const char *path);
bk_result bk_gameinfo_search_paths(const char *text, size_t len, const bk_options *opt, bk_gameinfo_fn fn, void *user);

#endif
