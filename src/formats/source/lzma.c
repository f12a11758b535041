/* LZMA as Source stores it: Valve's 17-byte lump header, and zip method 14 in the pakfile. Both
 * are raw LZMA1 streams with the 5 classic property bytes; we hand liblzma an .lzma ("alone")
 * header built from those bytes and the known uncompressed size, so the decoder stops exactly
 * at that size and rejects streams that end early. */
#include <lzma.h>

#include "vbsp_internal.h"

#define VBSP_LZMA_MEMLIMIT ((uint64_t)320 << 20)

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
    uint8_t hdr[13];
    memcpy(hdr, props, 5);
    uint64_t n = out_size;
    for (int i = 0; i < 8; i++) hdr[5 + i] = (uint8_t)(n >> (8 * i));
    lzma_stream st = LZMA_STREAM_INIT;
    if (lzma_alone_decoder(&st, VBSP_LZMA_MEMLIMIT) != LZMA_OK) {
        *why = "cannot start the LZMA decoder";
        return BK_ENOMEM;
    }
    st.next_out = out;
    st.avail_out = out_size;
    st.next_in = hdr;
    st.avail_in = sizeof hdr;
    lzma_ret r = lzma_code(&st, LZMA_RUN);
    if (r == LZMA_OK) {
        st.next_in = src;
        st.avail_in = src_size;
        r = lzma_code(&st, LZMA_FINISH);
    }
    size_t produced = out_size - st.avail_out;
    lzma_end(&st);
    if (r == LZMA_STREAM_END && produced == out_size) return BK_OK;
    if (r == LZMA_MEMLIMIT_ERROR || r == LZMA_MEM_ERROR) {
        *why = "LZMA dictionary too large";
        return BK_ELIMIT;
    }
    if (r == LZMA_OK || r == LZMA_BUF_ERROR) {
        *why = "LZMA data ends before the stated size";
        return BK_EDECOMPRESS;
    }
    *why = r == LZMA_DATA_ERROR ? "corrupt LZMA data" : r == LZMA_OPTIONS_ERROR ? "bad LZMA properties" : "LZMA error";
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
