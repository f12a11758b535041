/* LZMA as Source stores it: Valve's 17-byte lump header, and zip method 14 in the pakfile. Both
 * are raw LZMA1 streams with the 5 classic property bytes; liblzma's raw LZMA1 decoder is told
 * those properties and the known uncompressed size, so it stops exactly at that size (an end
 * marker there is allowed, as in .lzma files) and rejects streams that end early. */
#include <lzma.h>

#include "vbsp_internal.h"

/* liblzma's dictionary through the library's allocator (bk_set_allocator): the CLI's maps blocks
 * of 128 KiB and more with their pages brought in at once */
static void *lz_alloc(void *opaque, size_t n, size_t size)
{
    (void)opaque;
    size_t bytes;
    return bk_mul_ok(n, size, &bytes) ? bk_malloc(bytes) : NULL;
}
static void lz_free(void *opaque, void *ptr)
{
    (void)opaque;
    bk_free(ptr);
}
static const lzma_allocator k_lzma_alloc = {lz_alloc, lz_free, NULL};

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
    /* a raw LZMA1 decoder told the exact output size (end marker allowed there), as the .lzma
     * header would; its dictionary need not exceed the output (nothing can refer back further),
     * which spares a 16 MiB dictionary per lump and its page faults */
    lzma_options_lzma o;
    memset(&o, 0, sizeof o);
    unsigned pr = props[0];
    o.lc = pr % 9;
    pr /= 9;
    o.lp = pr % 5;
    o.pb = pr / 5;
    o.dict_size = bk_rd_u32le(props + 1);
    if (o.dict_size > out_size) o.dict_size = (uint32_t)out_size;
    if (o.dict_size < LZMA_DICT_SIZE_MIN) o.dict_size = LZMA_DICT_SIZE_MIN;
    o.ext_flags = LZMA_LZMA1EXT_ALLOW_EOPM;
    o.ext_size_low = (uint32_t)out_size;
    o.ext_size_high = (uint32_t)((uint64_t)out_size >> 32);
    lzma_filter filters[2] = {{LZMA_FILTER_LZMA1EXT, &o}, {LZMA_VLI_UNKNOWN, NULL}};
    lzma_stream st = LZMA_STREAM_INIT;
    st.allocator = &k_lzma_alloc;
    if (lzma_raw_decoder(&st, filters) != LZMA_OK) {
        *why = "cannot start the LZMA decoder";
        return BK_ENOMEM;
    }
    st.next_out = out;
    st.avail_out = out_size;
    st.next_in = src;
    st.avail_in = src_size;
    lzma_ret r = lzma_code(&st, LZMA_FINISH);
    size_t produced = out_size - st.avail_out;
    lzma_end(&st);
    if (r == LZMA_STREAM_END && produced == out_size) return BK_OK;
    if (r == LZMA_MEM_ERROR) {
        *why = "out of memory for the LZMA dictionary";
        return BK_ENOMEM;
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
