/* What the Quake BSP loader's files share: the loader (bsp.c decodes the header and the lumps,
 * bsp_check.c checks every reference) and its helpers. */
#ifndef BK_BSP_LOADER_H
#define BK_BSP_LOADER_H

#include <math.h>

#include "quake_internal.h"

#define HEADER_SIZE (4 + 8 * BK_Q1_LUMP_COUNT)
#define MIPTEX_HDR 40

enum { V_29 = 0, V_BSP2 = 1, V_2PSB = 2 }; /* the lump rows' columns (quake_desc.c) */
#define k_lumps bk_quake_lumps

/* The decoded map and what only the loader and its destroy need (kept out of the public struct):
 * which arrays lie in the file's own bytes (bit = lump) rather than being allocated. */
typedef struct quake_impl {
    bk_quake_bsp bsp;
    uint32_t in_place;
} quake_impl;

typedef struct loader {
    bk_file *f;
    bk_ctx *ctx;
    bk_quake_bsp *q;
    uint32_t *in_place;                       /* the impl's in_place bits */
    int var;                                  /* V_* */
    const uint8_t *d;
    size_t n;
    uint64_t ofs[BK_Q1_LUMP_COUNT], len[BK_Q1_LUMP_COUNT];
    uint32_t slot[BK_Q1_LUMP_COUNT];          /* header slot of each lump (Blue Shift swaps 0/1) */
    uint8_t *face_bad;                        /* while faces are checked: bit r - BK_Q1_REF_FACE_PLANE per bad ref */
} loader;

static inline uint64_t hdr_at(const loader *L, int lump) { return 4 + 8 * (uint64_t)L->slot[lump]; }
static inline uint64_t elem_at(const loader *L, int lump, uint64_t i) { return L->ofs[lump] + i * k_lumps[lump].entry[L->var]; }
static inline bool finite_n(const float *v, int n)
{
    for (int i = 0; i < n; i++)
        if (!isfinite(v[i])) return false;
    return true;
}

/* A lump read in place that needs a change: copied (the lump's in-place bit cleared) */
void *bk_bsp_own_copy(loader *L, int lump, const void *arr, size_t bytes, bk_result *r);
/* before a repair writes into an array that may be read in place: make it the loader's own */
#define MAKE_OWN(arr, lump, count)                                                                   \
    do {                                                                                             \
        if (*L->in_place & (1u << (lump))) {                                                         \
            bk_result o_r_;                                                                          \
            void *o_ = bk_bsp_own_copy(L, (lump), (arr), (size_t)(count) * sizeof *(arr), &o_r_);   \
            if (!o_) return o_r_;                                                                    \
            (arr) = o_;                                                                              \
        }                                                                                            \
    } while (0)

const bk_q1_bspx_lump *bk_bsp_find_bspx(const bk_quake_bsp *q, const char *name);
/* every reference of the decoded lumps (bsp_check.c) */
bk_result bk_bsp_check_refs(loader *L);

#endif
