/* LZMA written as Source stores it: an edited lump that the map held compressed is written back
 * compressed, with Valve's 17-byte lump header ("LZMA", u32 actualSize, u32 lzmaSize, 5 property
 * bytes; public/tier1/lzmaDecoder.h lzma_header_t) before a raw LZMA1 stream without an end mark,
 * as bspzip -repack -compress writes it. The encoder is the LZMA SDK's (Igor Pavlov's reference
 * code, public domain), whose C source Debian's lzma-dev ships beside the decoder lzma.c uses. */
#include "vbsp_internal.h"

/* Built here single-threaded (no LzFindMt), its public names given the library's bk_ prefix (so
 * libbspkit links beside another copy of the SDK) and its warnings left to its authors. */
#define _7ZIP_ST 1
#define LzmaEncProps_Init bk_lzsdk_EncProps_Init
#define LzmaEncProps_Normalize bk_lzsdk_EncProps_Normalize
#define LzmaEncProps_GetDictSize bk_lzsdk_EncProps_GetDictSize
#define GetPosSlot1 bk_lzsdk_GetPosSlot1
#define LzmaEnc_FastPosInit bk_lzsdk_Enc_FastPosInit
#define LzmaEnc_SaveState bk_lzsdk_Enc_SaveState
#define LzmaEnc_RestoreState bk_lzsdk_Enc_RestoreState
#define LzmaEnc_SetProps bk_lzsdk_Enc_SetProps
#define LzmaEnc_InitPriceTables bk_lzsdk_Enc_InitPriceTables
#define LzmaEnc_Construct bk_lzsdk_Enc_Construct
#define LzmaEnc_Create bk_lzsdk_Enc_Create
#define LzmaEnc_FreeLits bk_lzsdk_Enc_FreeLits
#define LzmaEnc_Destruct bk_lzsdk_Enc_Destruct
#define LzmaEnc_Destroy bk_lzsdk_Enc_Destroy
#define LzmaEnc_Init bk_lzsdk_Enc_Init
#define LzmaEnc_InitPrices bk_lzsdk_Enc_InitPrices
#define LzmaEnc_PrepareForLzma2 bk_lzsdk_Enc_PrepareForLzma2
#define LzmaEnc_MemPrepare bk_lzsdk_Enc_MemPrepare
#define LzmaEnc_Finish bk_lzsdk_Enc_Finish
#define LzmaEnc_GetNumAvailableBytes bk_lzsdk_Enc_GetNumAvailableBytes
#define LzmaEnc_GetCurBuf bk_lzsdk_Enc_GetCurBuf
#define LzmaEnc_CodeOneMemBlock bk_lzsdk_Enc_CodeOneMemBlock
#define LzmaEnc_Encode bk_lzsdk_Enc_Encode
#define LzmaEnc_WriteProperties bk_lzsdk_Enc_WriteProperties
#define LzmaEnc_MemEncode bk_lzsdk_Enc_MemEncode
#define LzmaEncode bk_lzsdk_Encode
#define MatchFinder_ReduceOffsets bk_lzsdk_MatchFinder_ReduceOffsets
#define MatchFinder_MoveBlock bk_lzsdk_MatchFinder_MoveBlock
#define MatchFinder_NeedMove bk_lzsdk_MatchFinder_NeedMove
#define MatchFinder_ReadIfRequired bk_lzsdk_MatchFinder_ReadIfRequired
#define MatchFinder_Construct bk_lzsdk_MatchFinder_Construct
#define MatchFinder_Free bk_lzsdk_MatchFinder_Free
#define MatchFinder_Create bk_lzsdk_MatchFinder_Create
#define MatchFinder_Init bk_lzsdk_MatchFinder_Init
#define MatchFinder_Normalize3 bk_lzsdk_MatchFinder_Normalize3
#define MatchFinder_CreateVTable bk_lzsdk_MatchFinder_CreateVTable
#define MatchFinder_GetIndexByte bk_lzsdk_MatchFinder_GetIndexByte
#define MatchFinder_GetNumAvailableBytes bk_lzsdk_MatchFinder_GetNumAvailableBytes
#define MatchFinder_GetPointerToCurrentPos bk_lzsdk_MatchFinder_GetPointerToCurrentPos
#define GetMatchesSpec1 bk_lzsdk_GetMatchesSpec1
#define Bt3Zip_MatchFinder_GetMatches bk_lzsdk_Bt3Zip_GetMatches
#define Hc3Zip_MatchFinder_GetMatches bk_lzsdk_Hc3Zip_GetMatches
#define Bt3Zip_MatchFinder_Skip bk_lzsdk_Bt3Zip_Skip
#define Hc3Zip_MatchFinder_Skip bk_lzsdk_Hc3Zip_Skip
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wall"
#pragma GCC diagnostic ignored "-Wextra"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wconversion"
#endif
#include <lzma/LzFind.c>
#include <lzma/LzmaEnc.c>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

/* Valve's lumps say lc 3, lp 0, pb 2 (0x5d), the SDK's defaults; the dictionary is cut to the lump
 * (the encoder's memory is about 11.5 x the dictionary), VBSP_LZMA_MAX_DICT at most */
#define VBSP_LZMA_MAX_DICT (1u << 22)

bk_result bk_vbsp_lzma_encode(const uint8_t *src, size_t n, uint8_t **out, size_t *out_size)
{
    *out = NULL;
    *out_size = 0;
    if (n > 0x7fffffffu - 4096) return BK_ELIMIT;
    /* incompressible data grows by a little: n + n / 3 + 256 is the SDK's own bound, and more */
    size_t cap = VBSP_LZMA_HEADER + n + n / 3 + 256;
    uint8_t *buf = bk_malloc(cap);
    if (!buf) return BK_ENOMEM;
    CLzmaEncProps props;
    LzmaEncProps_Init(&props);
    props.dictSize = VBSP_LZMA_MAX_DICT;
    props.reduceSize = n ? n : 1;
    props.numThreads = 1;
    ISzAlloc alloc = {bk_lzsdk_alloc, bk_lzsdk_free};
    SizeT packed = cap - VBSP_LZMA_HEADER, psize = LZMA_PROPS_SIZE;
    SRes r = LzmaEncode(buf + VBSP_LZMA_HEADER, &packed, src, n, &props, buf + 12, &psize, 0, NULL, &alloc, &alloc);
    if (r != SZ_OK || psize != LZMA_PROPS_SIZE || packed > 0xffffffffu) {
        bk_free(buf);
        return r == SZ_ERROR_MEM ? BK_ENOMEM : BK_EUNSUPPORTED;
    }
    memcpy(buf, "LZMA", 4);
    bk_wr_u32le(buf + 4, (uint32_t)n);
    bk_wr_u32le(buf + 8, (uint32_t)packed);
    *out = buf;
    *out_size = VBSP_LZMA_HEADER + packed;
    return BK_OK;
}
