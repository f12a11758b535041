/* LZMA as Source stores it: Valve's 17-byte lump header, and zip method 14 in the pakfile. Both
 * are raw LZMA1 streams with the 5 classic property bytes. They are decoded with the LZMA SDK's
 * decoder (Igor Pavlov's reference code, public domain; Debian's lzma-dev ships its source, built
 * into the library): told the known uncompressed size, it decodes straight into the output, which
 * is its own dictionary. A decoder with a dictionary of its own (liblzma's) holds each lump twice
 * while it decodes: for a map's lighting that was the peak memory of a conversion. */
#include "vbsp_internal.h"

/* The decoder is compiled here, as it ships, its public names given the library's bk_ prefix (so
 * libbspkit links beside another copy of the SDK) and its warnings left to its authors. */
#define LzmaDec_InitDicAndState bk_lzsdk_InitDicAndState
#define LzmaDec_Init bk_lzsdk_Init
#define LzmaDec_DecodeToDic bk_lzsdk_DecodeToDic
#define LzmaDec_DecodeToBuf bk_lzsdk_DecodeToBuf
#define LzmaDec_FreeProbs bk_lzsdk_FreeProbs
#define LzmaDec_Free bk_lzsdk_Free
#define LzmaDec_AllocateProbs bk_lzsdk_AllocateProbs
#define LzmaDec_Allocate bk_lzsdk_Allocate
#define LzmaProps_Decode bk_lzsdk_Props_Decode
#define LzmaDecode bk_lzsdk_Decode
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wall"
#pragma GCC diagnostic ignored "-Wextra"
#pragma GCC diagnostic ignored "-Wshadow"
#endif
#include <lzma/LzmaDec.c>
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

/* the SDK's allocations (the decoder's probability tables, about 16 KiB; the encoder's tables and
 * match finder) through the library's allocator */
void *bk_lzsdk_alloc(void *p, size_t size)
{
    (void)p;
    return bk_malloc(size ? size : 1);
}
void bk_lzsdk_free(void *p, void *address)
{
    (void)p;
    if (address) bk_free(address);
}

bk_result bk_vbsp_lzma_raw(const uint8_t props[5], const uint8_t *src, size_t src_size, uint8_t *out,
                        size_t out_size, const char **why)
{
    const char *dummy;
    if (!why) why = &dummy;
    *why = "";
    /* dictionary sizes over 1 GiB are not something a map compiler writes */
    if (props[0] >= 9 * 5 * 5 || bk_rd_u32le(props + 1) > (1u << 30)) {
        *why = "bad LZMA properties";
        return BK_EDECOMPRESS;
    }
    ISzAlloc alloc = {bk_lzsdk_alloc, bk_lzsdk_free};
    SizeT produced = out_size, used = src_size;
    ELzmaStatus status;
    /* exactly out_size bytes: the stream may end there with or without an end marker */
    SRes r = LzmaDecode(out, &produced, src, &used, props, LZMA_PROPS_SIZE, LZMA_FINISH_ANY, &status, &alloc);
    if (r == SZ_OK && produced == out_size) return BK_OK;
    if (r == SZ_ERROR_MEM) {
        *why = "out of memory for the LZMA decoder";
        return BK_ENOMEM;
    }
    if (r == SZ_OK || r == SZ_ERROR_INPUT_EOF) {
        *why = "LZMA data ends before the stated size";
        return BK_EDECOMPRESS;
    }
    *why = r == SZ_ERROR_DATA ? "corrupt LZMA data" : r == SZ_ERROR_UNSUPPORTED ? "bad LZMA properties" : "LZMA error";
    return BK_EDECOMPRESS;
}

bk_result bk_vbsp_lzma_block(const uint8_t *src, size_t avail, uint64_t max_out, uint8_t **out, size_t *out_size,
                          size_t *consumed, const char **why)
{
    const char *dummy;
    if (!why) why = &dummy;
    *out = NULL;
    *out_size = 0;
    *consumed = 0;
    if (avail < VBSP_LZMA_HEADER || memcmp(src, "LZMA", 4) != 0) {
        *why = "no LZMA header";
        return BK_ETRUNCATED;
    }
    uint32_t actual = bk_rd_u32le(src + 4), packed = bk_rd_u32le(src + 8);
    if (packed > avail - VBSP_LZMA_HEADER) {
        *why = "compressed size runs past the data";
        return BK_ETRUNCATED;
    }
    if (actual > max_out) {
        *why = "uncompressed size over the limit";
        return BK_ELIMIT;
    }
    uint8_t *buf = bk_malloc(actual ? actual : 1);
    if (!buf) return BK_ENOMEM;
    bk_result r = BK_OK;
    if (actual) r = bk_vbsp_lzma_raw(src + 12, src + VBSP_LZMA_HEADER, packed, buf, actual, why);
    if (r != BK_OK) {
        bk_free(buf);
        return r;
    }
    *out = buf;
    *out_size = actual;
    *consumed = (size_t)VBSP_LZMA_HEADER + packed;
    return BK_OK;
}
