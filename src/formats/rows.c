/* The rows drive decoding: one decoder fills a lump's typed array from its field rows (each row's
 * stored type and offset, its destination type and offsetof in the public struct), as Xash3D's
 * srclumps[] gives each lump its destination. The loaders keep only what a lump needs beyond
 * that (checks, repairs, values computed from other lumps). */
#include <string.h>

#include "family.h"

#if defined(__GNUC__)
#define ROWS_INLINE inline __attribute__((always_inline))
#else
#define ROWS_INLINE inline
#endif
/* the little-endian loops unrolled: a value is a load, a conversion and a store, so the loop's own
 * counting was a third of a lump's decoding (callgrind, validate of Quake and GoldSrc maps) */
#if defined(__GNUC__) && !defined(__clang__)
#define ROWS_UNROLL _Pragma("GCC unroll 4")
#elif defined(__clang__)
#define ROWS_UNROLL _Pragma("clang loop unroll_count(4)")
#else
#define ROWS_UNROLL
#endif

static ROWS_INLINE int64_t get_int(uint8_t type, const uint8_t *p, bool be)
{
    switch (type) {
    case BK_FT_I8: return (int8_t)p[0];
    case BK_FT_U16: return be ? bk_rd_u16be(p) : bk_rd_u16le(p);
    case BK_FT_I16: return (int16_t)(be ? bk_rd_u16be(p) : bk_rd_u16le(p));
    case BK_FT_U32: return be ? bk_rd_u32be(p) : bk_rd_u32le(p);
    case BK_FT_I32: return (int32_t)(be ? bk_rd_u32be(p) : bk_rd_u32le(p));
    default: return p[0];
    }
}

static ROWS_INLINE float get_f32(const uint8_t *p, bool be) { return be ? bk_rd_f32be(p) : bk_rd_f32le(p); }

/* K values (a vector's, K a constant) of every element: the stored type read (SS bytes each),
 * converted to the destination type; one loop per (stored, destination) pair so that nothing is
 * decided per value, and a vector's values in one pass over the elements */
#define ROWS_LOOP(T, RD, SS, K)                                                               \
    ROWS_UNROLL                                                                               \
    for (uint32_t i = 0; i < count; i++) {                                                    \
        const uint8_t *p_ = s + (size_t)i * entry;                                            \
        uint8_t *q_ = d + (size_t)i * dst_size;                                               \
        for (uint32_t k_ = 0; k_ < (K); k_++) {                                               \
            T v_ = (T)RD(p_ + k_ * (SS));                                                     \
            memcpy(q_ + k_ * sizeof v_, &v_, sizeof v_);                                      \
        }                                                                                     \
    }
static ROWS_INLINE uint8_t rd_u8(const uint8_t *p) { return p[0]; }
static ROWS_INLINE int8_t rd_i8(const uint8_t *p) { return (int8_t)p[0]; }
#define ROWS_BY_STORED(T, K)                                                                  \
    switch (f->type) {                                                                        \
    case BK_FT_I8: ROWS_LOOP(T, rd_i8, 1, K) break;                                           \
    case BK_FT_U16: ROWS_LOOP(T, bk_rd_u16le, 2, K) break;                                    \
    case BK_FT_I16: ROWS_LOOP(T, bk_rd_i16le, 2, K) break;                                    \
    case BK_FT_U32: ROWS_LOOP(T, bk_rd_u32le, 4, K) break;                                    \
    case BK_FT_I32: ROWS_LOOP(T, bk_rd_i32le, 4, K) break;                                    \
    default: ROWS_LOOP(T, rd_u8, 1, K) break;                                                 \
    }
#define ROWS_BY_DEST(K)                                                                       \
    switch (to) {                                                                             \
    case BK_FT_F32:                                                                           \
        if (fl) ROWS_LOOP(float, bk_rd_f32le, 4, K)                                           \
        else ROWS_BY_STORED(float, K)                                                         \
        break;                                                                                \
    case BK_FT_U32: ROWS_BY_STORED(uint32_t, K) break;                                        \
    case BK_FT_I32: ROWS_BY_STORED(int32_t, K) break;                                         \
    case BK_FT_U16: ROWS_BY_STORED(uint16_t, K) break;                                        \
    case BK_FT_I16: ROWS_BY_STORED(int16_t, K) break;                                         \
    case BK_FT_I8: ROWS_BY_STORED(int8_t, K) break;                                           \
    default: ROWS_BY_STORED(uint8_t, K) break;                                                \
    }
/* a field stored as its destination type on a little-endian host: its N bytes copied per element */
#define ROWS_COPY(N)                                                                          \
    ROWS_UNROLL                                                                               \
    for (uint32_t i = 0; i < count; i++) memcpy(d + (size_t)i * dst_size, s + (size_t)i * entry, N);
/* big-endian (DPM): one read per value through the type */
#define ROWS_LOOP_BE(T, EXPR)                                                                 \
    for (uint32_t i = 0; i < count; i++) {                                                    \
        const uint8_t *p = s + (size_t)i * entry;                                             \
        T v_ = (T)(EXPR);                                                                     \
        memcpy(d + (size_t)i * dst_size, &v_, sizeof v_);                                     \
    }

/* K big-endian 32-bit values of every element stored as they are (integer or float bits) */
#define ROWS_SWAP4(K)                                                                         \
    ROWS_UNROLL                                                                               \
    for (uint32_t i = 0; i < count; i++) {                                                    \
        const uint8_t *p_ = s + (size_t)i * entry;                                            \
        uint8_t *q_ = d + (size_t)i * dst_size;                                               \
        for (uint32_t k_ = 0; k_ < (K); k_++) {                                               \
            uint32_t v_ = bk_rd_u32be(p_ + 4 * k_);                                           \
            memcpy(q_ + 4 * k_, &v_, 4);                                                      \
        }                                                                                     \
    }

/* The bytes at the start of an element the rows copy as they are (0: not so): on a little-endian host,
 * with destination strides equal to the stored ones, when the decoded fields in row order tile
 * bytes 0..span, each one stored as its destination type at its own offset (Source's planes, nodes,
 * texinfo, models, ...: the struct has the file's layout there) */
static uint32_t identity_span(const bk_fields *fields, uint32_t entry, uint32_t dst_size, bool be)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (be || entry != dst_size) return 0;
    uint32_t span = 0;
    for (uint32_t r = 0; r < fields->count; r++) {
        const bk_field *f = &fields->rows[r];
        if (!f->to) continue;
        bool bytes = f->type == BK_FT_CHARS || f->type == BK_FT_BYTES;
        if ((!bytes && f->to - 1 != f->type) || f->offset != span || f->dst != span ||
            (f->dst_count && f->dst_count != f->count))
            return 0;
        span += f->count * bk_ftype_size(f->type);
    }
    return span <= entry ? span : 0;
#else
    (void)fields, (void)entry, (void)dst_size, (void)be;
    return 0;
#endif
}

void bk_decode_rows(const bk_fields *fields, const uint8_t *src, uint32_t entry, uint32_t count, void *dst,
                    uint32_t dst_size, bool big_endian)
{
    const bool be = big_endian;
    uint32_t span = identity_span(fields, entry, dst_size, be);
    if (span) {   /* one copy; the bytes after the decoded ones stay zero, as a field by field decode leaves them */
        memcpy(dst, src, (size_t)count * entry);
        if (span < entry)
            for (uint32_t i = 0; i < count; i++) memset((uint8_t *)dst + (size_t)i * entry + span, 0, entry - span);
        return;
    }
    for (uint32_t r = 0; r < fields->count; r++) {
        const bk_field *f = &fields->rows[r];
        if (!f->to) continue;
        uint8_t to = (uint8_t)(f->to - 1);
        uint32_t values = f->dst_count ? f->dst_count : f->count; /* the first dst_count of them kept */
        if (f->type == BK_FT_CHARS || f->type == BK_FT_BYTES) {
            for (uint32_t i = 0; i < count; i++)
                memcpy((uint8_t *)dst + (size_t)i * dst_size + f->dst, src + (size_t)i * entry + f->offset, values);
            continue;
        }
        uint32_t ss = bk_ftype_size(f->type), ds = bk_ftype_size(to);
        bool fl = f->type == BK_FT_F32;
        if (fl && to != BK_FT_F32) continue; /* a float goes to a float member (no row asks otherwise) */
        if (be && f->type == to && ss == 4) { /* DPM's fields: 32-bit values byte-swapped, a vector in one pass */
            const uint8_t *s = src + f->offset;
            uint8_t *d = (uint8_t *)dst + f->dst;
            switch (values) {
            case 1: ROWS_SWAP4(1) break;
            case 3: ROWS_SWAP4(3) break;
            case 12: ROWS_SWAP4(12) break; /* a 3x4 matrix */
            default: ROWS_SWAP4(values) break;
            }
            continue;
        }
        if (be) {
            for (uint32_t k = 0; k < values; k++) {
                const uint8_t *s = src + f->offset + (size_t)k * ss;
                uint8_t *d = (uint8_t *)dst + f->dst + (size_t)k * ds;
                switch (to) {
                case BK_FT_F32:
                    if (fl) ROWS_LOOP_BE(float, get_f32(p, true))
                    else ROWS_LOOP_BE(float, get_int(f->type, p, true))
                    break;
                case BK_FT_U32: ROWS_LOOP_BE(uint32_t, get_int(f->type, p, true)) break;
                case BK_FT_I32: ROWS_LOOP_BE(int32_t, get_int(f->type, p, true)) break;
                case BK_FT_U16: ROWS_LOOP_BE(uint16_t, get_int(f->type, p, true)) break;
                case BK_FT_I16: ROWS_LOOP_BE(int16_t, get_int(f->type, p, true)) break;
                case BK_FT_I8: ROWS_LOOP_BE(int8_t, get_int(f->type, p, true)) break;
                default: ROWS_LOOP_BE(uint8_t, get_int(f->type, p, true)) break;
                }
            }
            continue;
        }
        const uint8_t *s = src + f->offset;
        uint8_t *d = (uint8_t *)dst + f->dst;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        if (f->type == to) {
            switch (values * ss) {
            case 1: ROWS_COPY(1) continue;
            case 2: ROWS_COPY(2) continue;
            case 4: ROWS_COPY(4) continue;
            case 8: ROWS_COPY(8) continue;
            case 12: ROWS_COPY(12) continue;
            default: break;
            }
        }
#endif
        switch (values) {
        case 2: ROWS_BY_DEST(2) break;
        case 3: ROWS_BY_DEST(3) break;
        default:
            for (uint32_t k = 0; k < values; k++, s += ss, d += ds) ROWS_BY_DEST(1)
            break;
        }
    }
}

static void put(uint8_t type, uint8_t *p, int64_t iv, float fv, bool be)
{
    uint32_t u = (uint32_t)iv;
    if (type == BK_FT_F32) memcpy(&u, &fv, 4);
    switch (type) {
    case BK_FT_U16: case BK_FT_I16:
        if (be) p[0] = (uint8_t)(u >> 8), p[1] = (uint8_t)u;
        else p[0] = (uint8_t)u, p[1] = (uint8_t)(u >> 8);
        break;
    case BK_FT_U32: case BK_FT_I32: case BK_FT_F32:
        if (be) p[0] = (uint8_t)(u >> 24), p[1] = (uint8_t)(u >> 16), p[2] = (uint8_t)(u >> 8), p[3] = (uint8_t)u;
        else bk_wr_u32le(p, u);
        break;
    default: p[0] = (uint8_t)u; break;
    }
}

void bk_encode_rows(const bk_fields *fields, const void *src, uint32_t src_size, uint32_t count, uint8_t *dst,
                    uint32_t entry, bool big_endian)
{
    for (uint32_t r = 0; r < fields->count; r++) {
        const bk_field *f = &fields->rows[r];
        if (!f->to) continue;
        uint8_t to = (uint8_t)(f->to - 1);
        uint32_t values = f->dst_count ? f->dst_count : f->count;
        for (uint32_t i = 0; i < count; i++) {
            const uint8_t *e = (const uint8_t *)src + (size_t)i * src_size + f->dst;
            uint8_t *o = dst + (size_t)i * entry + f->offset;
            if (f->type == BK_FT_CHARS || f->type == BK_FT_BYTES) {
                memcpy(o, e, values);
                continue;
            }
            uint32_t ss = bk_ftype_size(f->type), ds = bk_ftype_size(to);
            for (uint32_t k = 0; k < values; k++) {
                const uint8_t *v = e + (size_t)k * ds;
                int64_t iv = 0;
                float fv = 0;
                switch (to) {
                case BK_FT_F32:
                    memcpy(&fv, v, 4);
                    iv = fv > -9e18f && fv < 9e18f ? (int64_t)fv : 0;
                    break;
                case BK_FT_U32: { uint32_t x; memcpy(&x, v, 4); iv = x; break; }
                case BK_FT_I32: { int32_t x; memcpy(&x, v, 4); iv = x; break; }
                case BK_FT_U16: { uint16_t x; memcpy(&x, v, 2); iv = x; break; }
                case BK_FT_I16: { int16_t x; memcpy(&x, v, 2); iv = x; break; }
                case BK_FT_I8: iv = (int8_t)v[0]; break;
                default: iv = v[0]; break;
                }
                if (f->type == BK_FT_F32 && to != BK_FT_F32) fv = (float)iv;
                put(f->type, o + (size_t)k * ss, iv, fv, big_endian);
            }
        }
    }
}


uint8_t bk_rows_column(const bk_lump_desc *row, uint8_t version_column, int32_t lump_version)
{
    if (version_column >= BK_FAMILY_COLUMNS) return version_column;
    uint32_t b = lump_version < 0 ? 0 : lump_version > 2 ? 3 : (uint32_t)lump_version + 1;
    uint8_t c = row->by_version[version_column][b];
    return c ? (uint8_t)(c - 1) : version_column;
}
