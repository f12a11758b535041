/* What the Source VBSP loader's files share: vbsp.c reads the header, the directory and the
 * geometry and tree lumps; vbsp_lzma.c decodes the LZMA lumps (in parallel when validating);
 * vbsp_gamelumps.c reads the game lumps (static and detail props). */
#ifndef BK_VBSP_LOADER_H
#define BK_VBSP_LOADER_H

#include "vbsp_internal.h"

#define k_lumps bk_source_lumps /* the lump rows (source_desc.c) */
#define LNAME(i) k_lumps[i].name

typedef struct vbsp_ld {
    bk_file *f;
    bk_ctx *ctx;
    vbsp_impl *m;
    bk_source_map *p;
    uint8_t **gl_owned;       /* decoded compressed game lumps */
    char *prop_name_block;
    uint32_t string_count;    /* texdata_string_table entries */
} vbsp_ld;

/* owned extras that destroy() must free, stored after the public game lump array */
typedef struct vbsp_extra {
    uint8_t **gl_owned;
    uint32_t gl_count;
    char *prop_name_block;
} vbsp_extra;

typedef struct vbsp_impl_full {
    vbsp_impl base;
    vbsp_extra extra;
} vbsp_impl_full;

#define ALLOC_N(ptr, n)                                                                          \
    do {                                                                                         \
        bk_result ar_ = BK_OK;                                                                   \
        (ptr) = bk_alloc_array(L->ctx, (n), sizeof *(ptr), &ar_);                                \
        if (!(ptr)) {                                                                            \
            bk_report(L->ctx, BK_SEV_ERROR, ar_, NULL, BK_NO_INDEX, BK_NO_OFFSET,                \
                      "cannot allocate %u elements", (unsigned)(n));                             \
            return ar_;                                                                          \
        }                                                                                        \
    } while (0)

/* file offset of element i of lump idx (the lump's own offset when it is compressed) */
static inline uint64_t eofs(const vbsp_ld *L, int idx, uint64_t i, size_t esize)
{
    const bk_source_lump *l = &L->p->lumps[idx];
    return l->compressed ? l->offset : l->offset + i * esize;
}

/* Element count of an array lump, by its row in k_lumps, or with esize where the size depends on
 * the version (a bad size reports and counts as empty in validate mode). */
static inline bk_result lump_count_sized(vbsp_ld *L, int idx, size_t esize, uint32_t *count)
{
    const bk_source_lump *l = &L->p->lumps[idx];
    bool ok;
    BK_TRY(bk_lump_elements(L->ctx, LNAME(idx), (uint32_t)esize, l->size, l->offset, count, &ok));
    if (ok) L->f->info.lumps[idx].count = (int64_t)*count;
    return BK_OK;
}

static inline bk_result lump_count(vbsp_ld *L, int idx, uint32_t *count)
{
    return lump_count_sized(L, idx, k_lumps[idx].entry[0], count);
}

/* vbsp.c: lump idx decoded from its rows (source_desc.c) in its column into a new typed array of
 * *count elements (per: array values per element, 3 for the vertices' floats) */
bk_result bk_vbsp_decode_lump(vbsp_ld *L, int idx, uint32_t per, void **out, uint32_t *count);
#define DECODE_ROWS(ptr, idx, per, n)                                                            \
    do {                                                                                         \
        void *dr_ = NULL;                                                                        \
        BK_TRY(bk_vbsp_decode_lump(L, (idx), (per), &dr_, &(n)));                                \
        (ptr) = dr_;                                                                             \
    } while (0)

/* vbsp.c: the reference checker over lump `lump` (the rows of source_desc.c), on the decoded bytes */
bk_result bk_vbsp_check_lump_refs(vbsp_ld *L, int lump);
/* vbsp_occluders.c: the occlusion lump counted and its references checked (warnings) */
bk_result bk_vbsp_load_occluders(vbsp_ld *L);
/* vbsp_tree.c: the tree and what it reaches, one loader per lump */
bk_result bk_vbsp_load_tree(vbsp_ld *L);

/* vbsp_lzma.c */
/* Decode the LZMA block at src within max_out bytes, its bytes held from the program's shared
 * budget too */
bk_result bk_vbsp_lzma_take(const vbsp_impl *m, const uint8_t *src, size_t avail, uint64_t max_out, uint8_t **out,
                            size_t *out_size, size_t *used, const char **why);
/* Decode the pending lumps of list (in lump order), as one by one in that order would */
bk_result bk_vbsp_decode_pending(vbsp_ld *L, const int *list, int n);
/* An LZMA lump's declared uncompressed size against its element size and the element limit */
bk_result bk_vbsp_lzma_size_ok(vbsp_ld *L, int i, uint32_t actual, bool *fits);

/* vbsp_gamelumps.c: the game lump directory, static props (sprp) and detail props (dprp) */
bk_result bk_vbsp_load_game_lumps(vbsp_ld *L);
/* the static props' leaves against the leafs, when the game lumps were read before the tree */
bk_result bk_vbsp_check_prop_leaves(vbsp_ld *L);

#endif
