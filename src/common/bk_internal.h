/* Internal helpers shared by every decoder: byte reads, bounds-checked cursor, checked
 * arithmetic, limits-aware allocation and the diagnostic context. Nothing here is public. */
#ifndef BK_INTERNAL_H
#define BK_INTERNAL_H

#include <stdarg.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bspkit/bspkit.h"
#include "bspkit/archive.h"
#include "bspkit/scene.h"

#define BK_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
/* bk_options.flags bits the library sets for itself, never taken from a program's options:
 * images keep their pixels packed (every scene bk_file_build_scene makes, not bk_file_extract_images),
 * and the file is freed after this one scene (bk_file_into_scene) */
#define BK_OPT_COMPACT_IMAGES (1u << 30)
#define BK_OPT_RELEASE_INPUT (1u << 31)
#define BK_OPT_INTERNAL_ (BK_OPT_COMPACT_IMAGES | BK_OPT_RELEASE_INPUT)
/* The decoded, format-specific data of f, or NULL if f is not of that format (the families'
 * typed accessors: bk_quake_bsp_of, bk_q3_map_of, ...). */
const void *bk_file_impl(const bk_file *f, bk_format expect);
/* bk_limits.max_atlas_size when zero */
#define BK_DEFAULT_MAX_ATLAS 8192u

#if defined(__GNUC__) || defined(__clang__)
#define BK_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define BK_PRINTF(a, b)
#endif

/* ---- unaligned little/big-endian loads (memcpy-free, no UB) ---------------------------- */
static inline uint16_t bk_rd_u16le(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
static inline uint32_t bk_rd_u32le(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static inline int16_t bk_rd_i16le(const uint8_t *p) { return (int16_t)bk_rd_u16le(p); }
static inline int32_t bk_rd_i32le(const uint8_t *p) { return (int32_t)bk_rd_u32le(p); }
static inline uint64_t bk_rd_u64le(const uint8_t *p)
{
    return (uint64_t)bk_rd_u32le(p) | ((uint64_t)bk_rd_u32le(p + 4) << 32);
}
static inline float bk_rd_f32le(const uint8_t *p)
{
    uint32_t u = bk_rd_u32le(p);
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static inline uint16_t bk_rd_u16be(const uint8_t *p) { return (uint16_t)((p[0] << 8) | p[1]); }
static inline uint32_t bk_rd_u32be(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}
static inline int32_t bk_rd_i32be(const uint8_t *p) { return (int32_t)bk_rd_u32be(p); }
static inline float bk_rd_f32be(const uint8_t *p)
{
    uint32_t u = bk_rd_u32be(p);
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static inline void bk_wr_u32le(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)(v >> 16); p[3] = (uint8_t)(v >> 24);
}
static inline void bk_wr_u32be(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}
static inline void bk_wr_f32be(uint8_t *p, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    bk_wr_u32be(p, u);
}

/* ---- cursor with a sticky error (DarkPlaces-style) -------------------------------------- */
typedef struct bk_cursor {
    const uint8_t *data;
    size_t size;
    size_t pos;
    bool bad;                  /* set by any read past the end; reads then return 0 */
} bk_cursor;

static inline bk_cursor bk_cursor_make(const uint8_t *data, size_t size)
{
    bk_cursor c = {data, size, 0, false};
    return c;
}
static inline const uint8_t *bk_cur_take(bk_cursor *c, size_t n)
{
    if (c->bad || n > c->size - c->pos) {
        c->bad = true;
        return NULL;
    }
    const uint8_t *p = c->data + c->pos;
    c->pos += n;
    return p;
}
static inline uint8_t bk_cur_u8(bk_cursor *c) { const uint8_t *p = bk_cur_take(c, 1); return p ? p[0] : 0; }
static inline uint16_t bk_cur_u16le(bk_cursor *c) { const uint8_t *p = bk_cur_take(c, 2); return p ? bk_rd_u16le(p) : 0; }
static inline int16_t bk_cur_i16le(bk_cursor *c) { return (int16_t)bk_cur_u16le(c); }
static inline uint32_t bk_cur_u32le(bk_cursor *c) { const uint8_t *p = bk_cur_take(c, 4); return p ? bk_rd_u32le(p) : 0; }
static inline int32_t bk_cur_i32le(bk_cursor *c) { return (int32_t)bk_cur_u32le(c); }
static inline float bk_cur_f32le(bk_cursor *c) { const uint8_t *p = bk_cur_take(c, 4); return p ? bk_rd_f32le(p) : 0.0f; }
static inline uint32_t bk_cur_u32be(bk_cursor *c) { const uint8_t *p = bk_cur_take(c, 4); return p ? bk_rd_u32be(p) : 0; }
static inline int32_t bk_cur_i32be(bk_cursor *c) { return (int32_t)bk_cur_u32be(c); }
static inline float bk_cur_f32be(bk_cursor *c) { const uint8_t *p = bk_cur_take(c, 4); return p ? bk_rd_f32be(p) : 0.0f; }
static inline bool bk_cur_skip(bk_cursor *c, size_t n) { return bk_cur_take(c, n) != NULL; }

/* ---- checked arithmetic ---------------------------------------------------------------- */
static inline bool bk_mul_ok(size_t a, size_t b, size_t *out)
{
    if (a != 0 && b > SIZE_MAX / a) return false;
    *out = a * b;
    return true;
}
static inline bool bk_add_ok(size_t a, size_t b, size_t *out)
{
    if (b > SIZE_MAX - a) return false;
    *out = a + b;
    return true;
}
/* [first, first+count) inside [0, total)?  All values non-negative, no overflow. */
static inline bool bk_range_ok(uint64_t first, uint64_t count, uint64_t total)
{
    return first <= total && count <= total - first;
}
/* [ofs, ofs+len) inside a buffer of size bytes? */
static inline bool bk_span_ok(uint64_t ofs, uint64_t len, uint64_t size)
{
    return len <= size && ofs <= size - len;
}
static inline bool bk_finite3(const float *v)
{
    return v[0] - v[0] == 0.0f && v[1] - v[1] == 0.0f && v[2] - v[2] == 0.0f;
}

/* ---- numbers in text (number.c): the same in every locale ------------------------------- */
/* strtod for [space][+|-]digits[.digits][e[+|-]digits]; *end = s when there is no number */
double bk_strtod(const char *s, const char **end);
/* up to n finite numbers separated by spaces; returns how many were read */
int bk_parse_floats(const char *s, float *out, int n);
/* exactly three finite numbers ("x y z"); out untouched otherwise */
bool bk_parse_vec3(const char *s, float out[3]);
/* "%.*g" with '.' as the decimal point whatever the locale (non-finite values print as 0) */
int bk_fmt_num(char *buf, size_t size, double v, int precision);
/* n numbers separated by spaces, as bk_fmt_num writes them */
int bk_fmt_nums(char *buf, size_t size, const float *v, int n, int precision);

/* ---- diagnostics / load context -------------------------------------------------------- */
typedef struct bk_ctx {
    const char *file;          /* for diagnostics */
    bk_options opt;            /* copy with defaults filled */
    bool keep_going;           /* validate mode: report and continue */
    uint32_t errors, warnings, reported;
    bk_result first_error;
    bool mapped_input;         /* the file's bytes are a read-only file mapping (bk_input_decoded) */
    bool check_only;           /* validation: the file is dropped after loading, so decoded arrays
                                * that no later check reads need not be kept */
} bk_ctx;

void bk_ctx_init(bk_ctx *ctx, const bk_options *opt, bool keep_going);
/* A scene builder's located diagnostic (file: NULL for opt->name; lump / index / offset as for
 * bk_report): delivered through opt->diag, and counted in s->warning_count when it is a warning. */
void bk_scene_diag(bk_scene *s, const bk_options *opt, bk_severity sev, bk_result code, const char *file,
                   const char *lump, int64_t index, uint64_t offset, const char *fmt, ...) BK_PRINTF(9, 10);
/* Fill the zero fields of l with the defaults (the only place they are written down). */
void bk_limits_resolve(bk_limits *l);
/* opt's limits with the defaults filled in (opt may be NULL) */
bk_limits bk_limits_of(const bk_options *opt);
/* The first of opt's family options (bk_options.ext) of this type, or NULL (opt may be NULL; a
 * chain longer than 64, as a cycle, is read no further) */
const bk_options_ext *bk_options_find(const bk_options *opt, uint32_t type);
/* decoded bytes allowed for data stored inside a file of file_size bytes (8 x + 64 MiB, at most
 * max_decoded_bytes): shared payloads in a hostile file cannot multiply it */
uint64_t bk_limits_embedded_budget(const bk_limits *l, uint64_t file_size);
/* Report a problem. Returns the code when loading must stop (an error outside validate mode),
 * BK_OK when the caller may continue (warnings; errors in validate mode). */
bk_result bk_report(bk_ctx *ctx, bk_severity sev, bk_result code, const char *lump, int64_t index,
                    uint64_t offset, const char *fmt, ...) BK_PRINTF(7, 8);

/* Report an error and return from the calling function if loading must stop. */
#define BK_ERR(ctx, code, lump, index, offset, ...)                                               \
    do {                                                                                          \
        bk_result bk_r_ = bk_report((ctx), BK_SEV_ERROR, (code), (lump), (int64_t)(index),       \
                                    (uint64_t)(offset), __VA_ARGS__);                             \
        if (bk_r_ != BK_OK) return bk_r_;                                                         \
    } while (0)
#define BK_WARN(ctx, code, lump, index, offset, ...)                                              \
    (void)bk_report((ctx), BK_SEV_WARNING, (code), (lump), (int64_t)(index), (uint64_t)(offset),  \
                    __VA_ARGS__)
#define BK_TRY(expr)                                                                              \
    do {                                                                                          \
        bk_result bk_t_ = (expr);                                                                 \
        if (bk_t_ != BK_OK) return bk_t_;                                                         \
    } while (0)

/* Allocation bounded by the context's limits: count*size checked, zero-filled.
 * Returns NULL (and *res set) on overflow, limit or out of memory. count == 0 gives a valid
 * 1-byte allocation so callers need no special case. */
void *bk_alloc_array(const bk_ctx *ctx, size_t count, size_t size, bk_result *res);
/* Grow *ptr (capacity *cap elements of size bytes) to hold at least need elements. */
bk_result bk_grow(void **ptr, uint32_t *cap, uint32_t need, size_t size);
void *bk_calloc(size_t count, size_t size);
void *bk_realloc(void *p, size_t size);
/* A lump's count elements read where they lie (p, in the file's bytes) instead of decoded into a
 * copy: when the struct has the file's layout (`layout`: little-endian int32 / float fields in the
 * file's order, no padding), the host is little-endian and p is 4-byte aligned. Sets the lump's
 * bit in *in_place and returns p; NULL: the caller decodes a copy. */
static inline void *bk_lump_in_place(const uint8_t *p, uint64_t count, bool layout, uint32_t *in_place, int lump)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (layout && count && !((uintptr_t)p & 3)) {
        *in_place |= 1u << lump;
        return (void *)(uintptr_t)p;
    }
#else
    (void)p, (void)count, (void)layout, (void)in_place, (void)lump;
#endif
    return NULL;
}
/* A decoded map's array freed, unless it was read in place (it belongs to the file's bytes). */
static inline void bk_free_own(void *a, uint32_t in_place, int lump)
{
    if (!(in_place & (1u << lump))) bk_free(a);
}
/* An owner's array given back and forgotten: bk_free(p), p = NULL */
#define BK_FREE_NULL(p) (bk_free(p), (p) = NULL)
char *bk_strdup(const char *s);
/* Names compared without case (ASCII), each kept once, in the order added (items[0..count)):
 * strset.c. Zero-initialised is empty. */
typedef struct bk_strset {
    char **items;
    uint32_t count, cap;
    uint32_t *slots, nslots;   /* index + 1 into items, 0: empty */
} bk_strset;
/* Add a copy of s unless the set holds it already (*added says which); BK_ENOMEM, BK_ELIMIT. */
bk_result bk_strset_add(bk_strset *set, const char *s, bool *added);
void bk_strset_free(bk_strset *set);
char *bk_strndup(const char *s, size_t n);
/* Copy a fixed-size, possibly unterminated name field into a NUL-terminated string buffer. */
void bk_copy_name(char *dst, size_t dstcap, const uint8_t *src, size_t srclen);
int bk_strcasecmp(const char *a, const char *b);
/* archive member names equal, as the engines look them up: ASCII case and '\\' vs '/' ignored */
bool bk_path_eq(const char *a, const char *b);
/* 1 when s starts with prefix, ignoring ASCII case */
int bk_strncasecmp_prefix(const char *s, const char *prefix);

/* ---- files --------------------------------------------------------------------------- */
bk_result bk_read_file(const char *path, uint64_t max_bytes, uint8_t **out, size_t *out_size);
/* fopen(path, "rb") for a regular file only (a FIFO, device or folder: NULL at once, never waiting
 * for a writer); *why: BK_ENOTFOUND or BK_EIO */
FILE *bk_open_regular(const char *path, bk_result *why);
#define BK_MAP_MIN (128u << 10)   /* files from this size up are mapped (bk_input_load) */
/* A file's bytes, with one open: mapped from BK_MAP_MIN bytes up (pages brought in as they are
 * read, so lumps a command never reads stay out of memory), read into memory below that, or
 * through opt->read_file when the program gives one. */
typedef struct bk_input {
    void *map;          /* the mapping, or NULL */
    uint8_t *owned;     /* the bytes read (bk_free), or NULL */
    size_t size;
} bk_input;
bk_result bk_input_load(const bk_options *opt, const char *path, uint64_t max_bytes, bk_input *in);
static inline const uint8_t *bk_input_data(const bk_input *in) { return in->map ? in->map : in->owned; }
void bk_input_release(bk_input *in);
/* Map any non-empty regular file read-only, its pages brought in only as they are read (large
 * archives of which a few members are read); bk_map_prefetch brings a range in with one call. */
bk_result bk_map_file_lazy(const char *path, uint64_t max_bytes, void **out, size_t *out_size);
void bk_map_prefetch(const void *data, size_t size);
void bk_unmap_file(void *p, size_t size);
/* A loader is done with these input bytes for now (it decoded them into arrays): when the input is
 * a file mapping, their whole pages leave the process's memory. They stay readable (a later read
 * brings them back from the file); with an input in memory this does nothing. */
void bk_input_decoded(const bk_ctx *ctx, const void *data, size_t size);
/* the same for bytes known to be in a read-only file mapping (bk_file.mapped) */
void bk_mapped_release(const void *data, size_t size);
/* Hold n bytes of a shared budget (NULL: always true), false when fewer are left; give them back. */
bool bk_budget_take(bk_budget *b, uint64_t n);
void bk_budget_give(bk_budget *b, uint64_t n);
/* ---- archive readers behind the public bk_archive (archive.h) ---------------------------------
 * zip.c: the zip reader (.pk3, .zip, Source pakfiles). Names are hashed case-insensitively with
 * '\\' as '/'; bk_zip_find returns the first of equal names. */
typedef struct bk_zip bk_zip;
bk_result bk_zip_open(const char *path, const bk_options *opt, bk_zip **out);
/* data is borrowed: it must outlive the archive */
bk_result bk_zip_open_memory(const void *data, size_t size, const bk_options *opt, bk_zip **out);
uint32_t bk_zip_count(const bk_zip *a);
int32_t bk_zip_find(const bk_zip *a, const char *name);
/* what the central directory says of member i */
void bk_zip_entry(const bk_zip *a, uint32_t i, bk_archive_entry *out);
/* The decoded member (raw: its stored bytes, any method, not CRC-checked). BK_ELIMIT past
 * max_bytes, BK_EUNSUPPORTED for a method other than stored / deflated when not raw. */
bk_result bk_zip_read_ex(bk_zip *a, uint32_t i, uint64_t max_bytes, bool raw, uint8_t **out, size_t *size);
/* What reading member i would refuse before inflating anything: BK_ELIMIT when its declared size
 * is over max_bytes or the archive's own bound (8 x its size + 64 MiB, limits.max_decoded_bytes),
 * BK_ETRUNCATED when its stored bytes are larger than the archive. */
bk_result bk_zip_member_check(const bk_zip *a, uint32_t i, uint64_t max_bytes);
void bk_zip_close(bk_zip *a);
/* The zip's on-disk directory (PKWARE's APPNOTE.TXT 4.3.12 and 4.3.16), read by the reader above
 * and by the pakfile editor (core/edit.c), which keeps its records' offsets. */
typedef struct bk_zip_end {
    uint64_t at;                /* where the end-of-central-directory record starts */
    uint32_t count;             /* entries (this disk's) */
    uint32_t cd_size, cd_ofs;   /* the central directory's bytes and where they start */
    uint32_t comment_len;
} bk_zip_end;
/* The end record at p (22 bytes there): false without its signature */
bool bk_zip_end_read(const uint8_t *p, bk_zip_end *out);
/* The end record whose comment ends z (n bytes), searched back from the end over at most a 64 KiB
 * comment: false when there is none */
bool bk_zip_end_find(const uint8_t *z, size_t n, bk_zip_end *out);
typedef struct bk_zip_record {
    uint64_t at;                /* where the record starts */
    uint32_t len;               /* 46 + name + extra + comment bytes */
    uint32_t flags, method, crc, csize, size;
    uint32_t local_ofs;         /* its local header */
    const char *name;           /* name_len bytes, not NUL-terminated */
    uint32_t name_len;
} bk_zip_record;
/* The central directory record at z + at, its 46 fixed bytes before end: false when they run past
 * end or the signature is not there. Its name, extra field and comment (len) are the caller's to
 * check against end. */
bool bk_zip_record_read(const uint8_t *z, uint64_t at, uint64_t end, bk_zip_record *out);
/* vpk.c: VPK directories (v1, v2) and their data files, bounded by limits.max_alloc_bytes */
typedef struct bk_vpk bk_vpk;
bk_result bk_vpk_open(const char *path, const bk_options *opt, bk_vpk **out);
/* true when the bytes (12 are enough) start as a VPK directory does */
bool bk_vpk_probe(const void *data, size_t size);
uint32_t bk_vpk_count(const bk_vpk *v);
void bk_vpk_entry(const bk_vpk *v, uint32_t i, bk_archive_entry *out);
/* linear: case-insensitive, '\\' as '/', the first of equal names */
int32_t bk_vpk_find(const bk_vpk *v, const char *name);
/* BK_ELIMIT past max_bytes or limits.max_alloc_bytes, BK_ELUMP_RANGE when its bytes run past the
 * directory file */
bk_result bk_vpk_check(const bk_vpk *v, uint32_t i, uint64_t max_bytes);
bk_result bk_vpk_read(bk_vpk *v, uint32_t i, uint64_t max_bytes, uint8_t **out, size_t *size);
void bk_vpk_close(bk_vpk *v);
/* common/pack.c: id's PACK archives (.pak), the directory checked whole at open; a file is
 * mapped (or read whole through opt->read_file / without mmap), memory is borrowed */
bool bk_pack_probe(const void *data, size_t size);
bk_result bk_pack_open(const char *path, const bk_options *opt, bk_archive **out);
bk_result bk_pack_open_memory(const void *data, size_t size, const bk_options *opt, bk_archive **out);
/* archive.c: one bk_archive over a reader */
typedef struct bk_archive_ops {
    void (*entry)(const void *impl, uint32_t i, bk_archive_entry *out);
    /* the reader's pre-read check (method, declared size, stored bytes), *why a short reason */
    bk_result (*check)(const void *impl, uint32_t i, const char **why);
    bk_result (*read)(void *impl, uint32_t i, uint64_t max_bytes, uint8_t **out, size_t *size);
    int32_t (*find)(const void *impl, const char *name);
    void (*close)(void *impl);
} bk_archive_ops;
/* The archive of a reader of count entries (their table made here, once). Takes impl: on failure
 * it is closed with ops->close. */
bk_result bk_archive_wrap(const bk_archive_ops *ops, void *impl, uint32_t count, bk_archive **out);
/* The same through opt->read_file when the program gave one (opt may be NULL) */
bk_result bk_read_file_opt(const bk_options *opt, const char *path, uint64_t max_bytes, uint8_t **out,
                           size_t *out_size);
/* ---- safe writes (safewrite.c): the one way every file is written ------------------------------
 * A group (the public bk_write_group) of target files: each written to a temporary in its target's
 * folder (O_EXCL, unpredictable name; a symbolic link is followed to its final target), flushed to
 * disk (fsync) and given the old target's mode and owner (a new file: 0666 less the umask), then
 * all renamed at commit. A failure anywhere (recorded once per group, with the path and errno for
 * bk_write_error) removes every temporary at commit or abort and leaves every target as it was. */
typedef struct bk_write_group bk_wtx;
bk_result bk_wtx_begin(bk_wtx **out);
/* one target written in pieces: open, bk_atomic_write (a bk_write_fn) / bk_atomic_pwrite, close */
typedef struct bk_atomic_file {
    FILE *fp;
    bk_wtx *tx;
    uint32_t entry;
    bool ok;
} bk_atomic_file;
bk_result bk_wtx_open(bk_wtx *t, const char *path, bk_atomic_file *a);
bool bk_atomic_write(void *a, const void *data, size_t size);
/* write size bytes at ofs (already written), then go on at the end */
bool bk_atomic_pwrite(bk_atomic_file *a, uint64_t ofs, const void *data, size_t size);
/* flush, set the mode and owner, fsync, close: the group's first failure, if any */
bk_result bk_wtx_close(bk_atomic_file *a);
/* a whole target from memory */
bk_result bk_wtx_add(bk_wtx *t, const char *path, const void *data, size_t size);
/* rename every temporary over its target (or, after any failure, remove them all); frees t.
 * Returns the group's first failure. */
bk_result bk_wtx_commit(bk_wtx *t);
/* remove every temporary, touch no target; frees t (NULL: nothing) */
void bk_wtx_abort(bk_wtx *t);
/* a group of one file */
bk_result bk_write_file_atomic(const char *path, const void *data, size_t size);
/* Read a file (or a pipe, /proc) until its end, at most max_bytes (BK_ELIMIT past it, with *what
 * saying so); a device (/dev/zero) is refused (BK_EARG); *what names any failure. */
bk_result bk_read_until_eof(const char *path, uint64_t max_bytes, uint8_t **out, size_t *out_size, char *what,
                            size_t what_cap);

typedef struct bk_buf {
    uint8_t *data;
    size_t size, cap;
    bool failed;
} bk_buf;
bool bk_buf_reserve(bk_buf *b, size_t extra);
bool bk_buf_append(bk_buf *b, const void *p, size_t n);
/* give back the room reserved past b->size */
void bk_buf_shrink(bk_buf *b);
bool bk_buf_printf(bk_buf *b, const char *fmt, ...) BK_PRINTF(2, 3);
void bk_buf_free(bk_buf *b);
/* end b as a NUL-terminated string handed to the caller (*out, bk_free it; len: its length, may be
 * NULL); BK_ENOMEM (b freed) when any append failed */
bk_result bk_buf_take_string(bk_buf *b, char **out, size_t *len);
/* a JSON number as cJSON prints it (number.c): glTF JSON written as text matches cJSON's */
void bk_json_num(bk_buf *b, double d);
/* a JSON string (quoted) as cJSON prints it (number.c) */
void bk_json_str(bk_buf *b, const char *s);

/* ---- resource lookup (folders, .pk3/.zip, pakfile, VPK) ---------------------------------- */
typedef struct bk_vfs bk_vfs;
/* Builds a lookup over opt->search_paths then opt->base_dir (folders and .pk3/.zip/.pk4 files;
 * others are left out). Never fails on missing paths; with opt NULL, a lookup with no roots. */
bk_vfs *bk_vfs_new(const bk_options *opt);
/* Roots added in search order: a folder (false if it is not one), an open archive named name in
 * messages (closed with the lookup when own, also when adding fails). */
bool bk_vfs_add_folder(bk_vfs *v, const char *path);
bool bk_vfs_add_archive(bk_vfs *v, bk_archive *a, const char *name, bool own);
/* whether a root of that path / name was added; how many roots */
bool bk_vfs_has_root(const bk_vfs *v, const char *path);
uint32_t bk_vfs_root_count(const bk_vfs *v);
/* A game's lookup (Quake 3, DarkPlaces, Quake / GoldSrc WADs): each search path that is a folder
 * serves its .pk3 archives (later names first, as pak8 overrides pak0) and then its loose files;
 * archives given directly are roots; when the map sits in a game's maps/ folder, that game
 * folder and its archives follow; base_dir last. */
bk_vfs *bk_vfs_new_game(const bk_options *opt);
/* A game folder as its engine mounts it: fn(user, path, true) for each archive in the folder, in
 * the engine's search order, then fn(user, dir, false) for its loose files. BK_GAME_ID (Quake,
 * Quake 2, Quake 3, DarkPlaces): its .pk3s, later names first, then its pakN.pak, higher N first
 * (at most 1024 archives). BK_GAME_SOURCE: its NAME_dir.vpk files in name order (at most 256; the
 * gameinfo.txt search paths are source_assets.c's). A folder that cannot be read: dir alone. */
typedef enum bk_game_rule { BK_GAME_ID, BK_GAME_SOURCE } bk_game_rule;
typedef void (*bk_mount_fn)(void *user, const char *path, bool archive);
void bk_game_dir_mount(const char *dir, bk_game_rule rule, bk_mount_fn fn, void *user);
/* Read relpath (case-insensitive, '/' or '\\' separators) from the first root that has it. */
bk_result bk_vfs_read(bk_vfs *v, const char *relpath, uint64_t max_bytes, uint8_t **out, size_t *size);
/* The same, and *where (may be NULL) the root that served it (its path or archive name); an
 * archive entry that is found but does not read is an error, not a miss. */
bk_result bk_vfs_read_from(bk_vfs *v, const char *relpath, uint64_t max_bytes, uint8_t **out, size_t *size,
                           const char **where);
/* The root relpath would be read from (its path or archive name), or NULL: nothing is read
 * (archives: the entry is listed; folders: a regular file is there). */
const char *bk_vfs_locate(bk_vfs *v, const char *relpath);
/* The same, and what is there, still without reading it: *size (an archive entry's listed size, a
 * folder file's size on disk; may be NULL) and for a file in a folder its path on disk (*disk,
 * bk_free it; NULL for an archive entry; disk may be NULL). */
const char *bk_vfs_stat(bk_vfs *v, const char *relpath, uint64_t *size, char **disk);
void bk_vfs_free(bk_vfs *v);
/* Call fn for every file directly inside folder dir (relative, case-insensitive) whose name ends
 * in ext (case-insensitive), in every root, in root order; a name may come from several roots.
 * relpath is "dir/name" as stored. fn returns false to stop. */
typedef bool (*bk_vfs_list_fn)(void *user, const char *relpath);
void bk_vfs_list(bk_vfs *v, const char *dir, const char *ext, bk_vfs_list_fn fn, void *user);

/* ---- entities as scene nodes (scene/entity_nodes.c), shared by every BSP family ------------ */
enum { BK_ENT_ROTATE_BRUSH = 1 /* brush entities are turned by "angles" too (Source) */ };
typedef struct bk_entity_layout {
    const int32_t *model_mesh; /* [model_count]: the mesh of inline model N ([0] the world), -1 none */
    uint32_t model_count;
    uint32_t flags;            /* BK_ENT_* */
    /* Optional: where the game puts brush entity e (model N) at spawn, for movers that start
     * elsewhere (Quake 3 doors that start open, plats, trains). t holds the "origin" placement;
     * change it and return a short reason (kept as extras startPosition / startOffset) or NULL. */
    const char *(*start)(void *user, const bk_entity *e, uint32_t model, float t[3]);
    void *start_user;
} bk_entity_layout;
/* The world, brush-entity, point-entity and unreferenced-model nodes (rules in entity_nodes.c). */
bk_result bk_scene_add_entity_nodes(bk_scene *s, const bk_entities *es, const bk_options *opt,
                                    const bk_entity_layout *lay);
/* An entity's "angles" (pitch yaw roll) or "angle" (yaw; -1 up, -2 down), in degrees */
bool bk_entity_angles(const bk_entity *e, float ang[3]);
/* pitch yaw roll in degrees -> quaternion (x, y, z, w) of Rz(yaw) Ry(pitch) Rx(roll), engine axes */
void bk_angles_quat(const float ang[3], float q[4]);

/* ---- images -------------------------------------------------------------------------- */
/* Decode PNG/JPEG/TGA bytes to RGBA8 (malloc'd). */
bk_result bk_image_decode(const uint8_t *data, size_t size, uint32_t max_dim, uint8_t **rgba,
                          uint32_t *w, uint32_t *h);
/* The same into out (w * h * 4 bytes), BK_EFORMAT for an image of another size: the picture is
 * held once more while stb_image decodes it, not twice (or not at all for a PNG: png_decode.c) */
bk_result bk_image_decode_into(const uint8_t *data, size_t size, uint32_t w, uint32_t h, uint8_t *out);
/* The same into a block of its own (*rgba, bk_free it): the decoder's, never copied */
bk_result bk_image_decode_sized(const uint8_t *data, size_t size, uint32_t w, uint32_t h, uint8_t **rgba);
/* stb_image.c: an image's size, and its pixels as RGBA8 (a bk_malloc block, NULL when it cannot) */
bool bk_stbi_info(const uint8_t *data, int size, int *w, int *h);
uint8_t *bk_stbi_load_rgba(const uint8_t *data, int size, int *w, int *h);
/* png_decode.c: whether data is a PNG decoded there (8-bit RGB / RGBA, no interlace, no colour
 * key), and its size; the decode itself (BK_EUNSUPPORTED for any other) */
bool bk_png_simple(const uint8_t *data, size_t size, uint32_t *w, uint32_t *h);
bk_result bk_png_decode_into(const uint8_t *data, size_t size, uint32_t w, uint32_t h, uint8_t *out);
/* Rows 0 .. rows - 1 of such a PNG handed to fn in turn, each as w RGBA pixels, a row at a time:
 * the picture is never held, and the rows past the last one asked for are never inflated */
typedef void (*bk_row_fn)(void *user, uint32_t y, const uint8_t *rgba);
bk_result bk_png_decode_rows(const uint8_t *data, size_t size, uint32_t w, uint32_t h, uint32_t rows, bk_row_fn fn,
                             void *user);
/* level: deflate effort 1 (fastest) .. 12 (smallest), 0 = default (3) */
bk_result bk_png_encode(const uint8_t *rgba, uint32_t w, uint32_t h, bool alpha, int level, bk_buf *out);
/* The same as RGB, the filtered rows made in rgba's own memory (its pixels are lost) */
bk_result bk_png_encode_in_place(uint8_t *rgba, uint32_t w, uint32_t h, int level, bk_buf *out);
/* A PNG of rows already filtered (raw: h rows of a filter byte and the pixels) of colour type
 * ctype (2 RGB, 3 indexed with pal, 6 RGBA). */
typedef struct bk_png_palette {
    const uint8_t *plte, *trns;
    size_t plte_n, trns_n;
} bk_png_palette;
bk_result bk_png_deflate(const uint8_t *raw, size_t raw_n, uint32_t w, uint32_t h, uint8_t ctype,
                         const bk_png_palette *pal, int level, bk_buf *out);
/* A PNG written as its rows come (8-bit RGB, or RGBA with alpha): rows go through zlib's
 * streaming deflate, so only the compressed bytes are held, never the whole image (a lightmap
 * atlas larger than the map it comes from). Rows are given with their filter byte. */
typedef struct bk_png_stream bk_png_stream;
bk_result bk_png_stream_begin(bk_png_stream **ps, uint32_t w, uint32_t h, bool alpha, int level, bk_buf *out);
bk_result bk_png_stream_rows(bk_png_stream *ps, const uint8_t *rows, size_t n);
/* finishes the PNG in out (on BK_OK) and frees ps, also after a failure */
bk_result bk_png_stream_end(bk_png_stream *ps, bool ok);
/* ---- a second thread (thread.c) --------------------------------------------------------- */
/* The library's few parallel steps (an atlas's packing trials and drawing, PNGs while the glTF
 * geometry is written, a Source map's LZMA lumps) each run one function on one second thread and
 * wait for it. bk_thread_start runs fn(user) there and returns true, or returns false (a build
 * without threads, BK_NO_THREADS, e.g. WebAssembly without them; or the thread could not start):
 * the caller then does that work itself. bk_thread_join waits for a started thread. The mutex and
 * condition wrappers do nothing in a build without threads. */
#if defined(BK_NO_THREADS) || !(defined(__unix__) || defined(__APPLE__))
#ifndef BK_NO_THREADS
#define BK_NO_THREADS 1
#endif
typedef struct bk_thread { int unused; } bk_thread;
typedef struct bk_mutex { int unused; } bk_mutex;
typedef struct bk_cond { int unused; } bk_cond;
static inline void bk_mutex_init(bk_mutex *m) { (void)m; }
static inline void bk_mutex_lock(bk_mutex *m) { (void)m; }
static inline void bk_mutex_unlock(bk_mutex *m) { (void)m; }
static inline void bk_mutex_destroy(bk_mutex *m) { (void)m; }
static inline void bk_cond_init(bk_cond *c) { (void)c; }
static inline void bk_cond_wait(bk_cond *c, bk_mutex *m) { (void)c, (void)m; }
static inline void bk_cond_broadcast(bk_cond *c) { (void)c; }
static inline void bk_cond_destroy(bk_cond *c) { (void)c; }
#else
#include <pthread.h>
typedef struct bk_thread {
    pthread_t th;
    void (*fn)(void *);
    void *user;
} bk_thread;
typedef pthread_mutex_t bk_mutex;
typedef pthread_cond_t bk_cond;
static inline void bk_mutex_init(bk_mutex *m) { pthread_mutex_init(m, NULL); }
static inline void bk_mutex_lock(bk_mutex *m) { pthread_mutex_lock(m); }
static inline void bk_mutex_unlock(bk_mutex *m) { pthread_mutex_unlock(m); }
static inline void bk_mutex_destroy(bk_mutex *m) { pthread_mutex_destroy(m); }
static inline void bk_cond_init(bk_cond *c) { pthread_cond_init(c, NULL); }
static inline void bk_cond_wait(bk_cond *c, bk_mutex *m) { pthread_cond_wait(c, m); }
static inline void bk_cond_broadcast(bk_cond *c) { pthread_cond_broadcast(c); }
static inline void bk_cond_destroy(bk_cond *c) { pthread_cond_destroy(c); }
#endif
bool bk_thread_start(bk_thread *t, void (*fn)(void *), void *user);
void bk_thread_join(bk_thread *t);
/* processors online (fileio.c); 1 when unknown */
long bk_cpu_count(void);
/* A scene built with the library's own flags (BK_OPT_COMPACT_IMAGES, BK_OPT_RELEASE_INPUT) on
 * top of opt's: the public bk_file_build_scene / bk_file_into_scene, and tests */
bk_result bk_scene_build(const bk_file *f, const bk_options *opt, uint32_t own_flags, bk_scene **out);


#endif
