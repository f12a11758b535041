/* Image codecs are general jobs: decoding PNG/JPEG/TGA with stb_image (Debian's libstb-dev), deflate
 * for PNG encoding with libdeflate (zlib for small images and streamed ones). */
#include <libdeflate.h>
#ifdef BK_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif
#include <zlib.h>

#include "bk_internal.h"

bk_result bk_image_decode(const uint8_t *data, size_t size, uint32_t max_dim, uint8_t **rgba,
                          uint32_t *w, uint32_t *h)
{
    *rgba = NULL;
    *w = *h = 0;
    if (size > INT32_MAX) return BK_ELIMIT;
    uint32_t pw, ph;
    if (bk_png_simple(data, size, &pw, &ph)) { /* into one block of the picture's size */
        if (pw > max_dim || ph > max_dim || (uint64_t)pw * ph > ((uint64_t)1 << 28)) return BK_ELIMIT;
        uint8_t *px = bk_malloc((size_t)pw * ph * 4);
        if (!px) return BK_ENOMEM;
        bk_result r = bk_png_decode_into(data, size, pw, ph, px);
        if (r != BK_OK) {
            bk_free(px);
            return r;
        }
        *rgba = px, *w = pw, *h = ph;
        return BK_OK;
    }
    int iw, ih;
    if (!bk_stbi_info(data, (int)size, &iw, &ih)) return BK_EFORMAT;
    if (iw <= 0 || ih <= 0 || (uint32_t)iw > max_dim || (uint32_t)ih > max_dim) return BK_ELIMIT;
    uint8_t *px = bk_stbi_load_rgba(data, (int)size, &iw, &ih);
    if (!px) return BK_EFORMAT;
    *rgba = px;   /* a block of ours: stb_image allocates with bk_malloc (stb_image.c) */
    *w = (uint32_t)iw;
    *h = (uint32_t)ih;
    return BK_OK;
}

bk_result bk_image_decode_sized(const uint8_t *data, size_t size, uint32_t w, uint32_t h, uint8_t **rgba)
{
    uint32_t pw, ph;
    *rgba = NULL;
    bk_result r = bk_image_decode(data, size, w > h ? w : h, rgba, &pw, &ph);
    if (r == BK_ELIMIT) return BK_EFORMAT;   /* larger than it was: not the picture it was */
    if (r == BK_OK && (pw != w || ph != h)) {
        bk_free(*rgba);
        *rgba = NULL;
        r = BK_EFORMAT;
    }
    return r;
}

bk_result bk_image_decode_into(const uint8_t *data, size_t size, uint32_t w, uint32_t h, uint8_t *out)
{
    uint32_t pw, ph;
    if (bk_png_simple(data, size, &pw, &ph)) return bk_png_decode_into(data, size, w, h, out);
    if (size > INT32_MAX) return BK_ELIMIT;
    uint8_t *px;
    BK_TRY(bk_image_decode_sized(data, size, w, h, &px));
    memcpy(out, px, (size_t)w * h * 4);
    bk_free(px);
    return BK_OK;
}

/* PNG encoding: the rows are filtered with the fixed "up" filter (each byte minus the one above
 * it) and deflated with libdeflate. Lightmap atlases, most of the pixels written, are smooth and
 * compress about as well this way as with an adaptive filter choice and zlib, which cost a large
 * part of a conversion's time (bench/RESULTS.md). The PNG framing (signature, IHDR, one IDAT, IEND with
 * their CRCs) is the part of the format this file writes itself. */
static void put_chunk(bk_buf *out, const char *type, const uint8_t *data, size_t n)
{
    uint8_t hdr[8];
    hdr[0] = (uint8_t)(n >> 24), hdr[1] = (uint8_t)(n >> 16), hdr[2] = (uint8_t)(n >> 8), hdr[3] = (uint8_t)n;
    memcpy(hdr + 4, type, 4);
    bk_buf_append(out, hdr, 8);
    if (n) bk_buf_append(out, data, n);
    uLong c = crc32(0L, Z_NULL, 0);
    c = crc32(c, (const Bytef *)type, 4);
    if (n) c = crc32(c, data, (uInt)n);
    uint8_t t[4] = {(uint8_t)(c >> 24), (uint8_t)(c >> 16), (uint8_t)(c >> 8), (uint8_t)c};
    bk_buf_append(out, t, 4);
}

static voidpf z_alloc(voidpf user, uInt items, uInt size)
{
    (void)user;
    return bk_calloc(items, size);
}

static void z_free(voidpf user, voidpf p)
{
    (void)user;
    bk_free(p);
}

/* zlib's levels: 1 fastest .. 9 smallest; bspkit's 1 .. 12 map onto them (0: the default) */
static int zlib_level(int level)
{
    return level <= 0 ? 2 : level >= 12 ? 9 : level * 9 / 12 > 0 ? level * 9 / 12 : 1;
}

/* Images up to this many filtered bytes (a 128x128 RGBA texture, a 256x256 indexed one) are
 * deflated by zlib with its window and hash table sized to the data: 8 KiB of state for a 64x64
 * indexed texture, 128 KiB at most (a 16 KiB window: the textures and lightmaps of this size
 * have rows of a few hundred bytes, and the shared corpus's .glb files came out 0.003% smaller
 * than with 32 KiB, for 128 KiB less peak on a GoldSrc map). libdeflate's compressor is 652 KiB
 * at the default level, of which 300-400 KiB is touched whatever the input, most of a small map's
 * peak memory when its textures are written. Larger images go to ISA-L or libdeflate: they are
 * faster, and their state is then small beside them. Measured on the shared corpus: 1% more time,
 * 0.1% more bytes, 100-300 KiB less peak on the Quake maps under 1 MB. */
#define SMALL_DEFLATE ((size_t)64 << 10)

static int small_window_bits(size_t n)
{
    int b = 9;
    while (b < 14 && ((size_t)1 << b) < n) b++;
    return b;
}

/* the chunks a PNG has before IDAT besides IHDR: PLTE and tRNS of an indexed one */
typedef bk_png_palette png_pal;

static bk_result png_deflate(const uint8_t *raw, size_t raw_n, uint32_t w, uint32_t h, uint8_t ctype,
                             const png_pal *pal, int level, bk_buf *out);

#ifdef BK_HAVE_ISAL
/* Large images at the default level (and at level 1) are deflated by ISA-L's level 1 when it is
 * built in: on smooth lightmap atlases it is several times faster than libdeflate for a few more
 * PNG bytes (bench/bench_png, bench/RESULTS.md), and the atlas's deflate is what a Quake 3
 * conversion waits for after the geometry is written. Its small level buffer loses nothing on
 * them. The compressor's state is 82 KiB plus that 84 KiB buffer. */
typedef struct isal_job {
    struct isal_zstream z;
    uint8_t level_buf[ISAL_DEF_LVL1_SMALL];
} isal_job;

/* a new zlib stream at ISA-L's level 1, fed without flushes */
static void isal_job_init(isal_job *j)
{
    struct isal_zstream *z = &j->z;
    isal_deflate_init(z);
    z->level = 1;
    z->level_buf = j->level_buf;
    z->level_buf_size = sizeof j->level_buf;
    z->gzip_flag = IGZIP_ZLIB;
    z->flush = NO_FLUSH;
}

/* the zlib stream of raw[0..n) into out[0..room); its length, 0 when it did not fit */
static size_t isal_zlib(isal_job *j, const uint8_t *raw, size_t n, uint8_t *out, size_t room)
{
    struct isal_zstream *z = &j->z;
    if (n > UINT32_MAX || room > UINT32_MAX) return 0;
    isal_job_init(j);
    z->end_of_stream = 1;
    z->next_in = (uint8_t *)(uintptr_t)raw;
    z->avail_in = (uint32_t)n;
    z->next_out = out;
    z->avail_out = (uint32_t)room;
    while (z->internal_state.state != ZSTATE_END) {
        uint32_t before_in = z->avail_in, before_out = z->avail_out;
        if (isal_deflate(z) != COMP_OK) return 0;
        if (z->internal_state.state == ZSTATE_END) break;
        if (!z->avail_out || (z->avail_in == before_in && z->avail_out == before_out)) return 0;
    }
    return z->total_out;
}
#endif

/* rgba: w*h RGBA texels (written as RGB when alpha is false), up-filtered */
/* The up-filtered rows of rgba (as RGB, or RGBA with alpha) into raw, which may be rgba itself
 * for RGB: each source row is copied aside before its filtered row is written, and that row
 * (3w + 1 bytes from (3w + 1) y) never reaches the next source row (from 4w (y + 1)). */
static bk_result filter_rows(const uint8_t *rgba, uint8_t *raw, uint32_t w, uint32_t h, bool alpha)
{
    size_t bpp = alpha ? 4 : 3, stride = (size_t)w * bpp + 1, n = (size_t)w * 4;
    uint8_t *cur = bk_malloc(n), *up = bk_malloc(n);
    if (!cur || !up) {
        bk_free(cur);
        bk_free(up);
        return BK_ENOMEM;
    }
    for (uint32_t y = 0; y < h; y++) {
        memcpy(cur, rgba + (size_t)y * n, n);
        uint8_t *row = raw + (size_t)y * stride;
        row[0] = y ? 2 : 0;    /* up (none on the first row) */
        uint8_t *d = row + 1;
        if (alpha) {
            if (y) for (size_t i = 0; i < n; i++) d[i] = (uint8_t)(cur[i] - up[i]);
            else memcpy(d, cur, n);
        } else {
            for (uint32_t x = 0; x < w; x++)
                for (int k = 0; k < 3; k++) d[x * 3 + k] = (uint8_t)(cur[x * 4 + k] - (y ? up[x * 4 + k] : 0));
        }
        uint8_t *t = up;
        up = cur, cur = t;
    }
    bk_free(cur);
    bk_free(up);
    return BK_OK;
}

/* rgba (w x h) as a PNG; with in_place (RGB only), rgba's memory holds the filtered rows */
static bk_result png_encode(uint8_t *rgba_w, const uint8_t *rgba, uint32_t w, uint32_t h, bool alpha, int level,
                            bk_buf *out)
{
    if (!w || !h || !rgba) return BK_EARG;
    size_t npx;
    if (!bk_mul_ok((size_t)w, (size_t)h, &npx) || npx > ((size_t)1 << 28) || w > (1u << 30) || h > (1u << 30))
        return BK_ELIMIT;
    size_t bpp = alpha ? 4 : 3, stride = (size_t)w * bpp + 1, raw_n = stride * h;
    uint8_t *raw = rgba_w && !alpha ? rgba_w : bk_malloc(raw_n);
    if (!raw) return BK_ENOMEM;
    bk_result r = filter_rows(rgba, raw, w, h, alpha);
    if (r == BK_OK) r = png_deflate(raw, raw_n, w, h, alpha ? 6 : 2, NULL, level, out);
    if (raw != rgba_w) bk_free(raw);
    return r;
}

/* raw: the h filtered rows of a PNG (a filter byte, then the row), deflated into IDAT; ctype: the
 * PNG colour type (2 RGB, 6 RGBA, 3 indexed with pal) */
static bk_result png_deflate(const uint8_t *raw, size_t raw_n, uint32_t w, uint32_t h, uint8_t ctype,
                             const png_pal *pal, int level, bk_buf *out)
{
    size_t extra = pal ? pal->plte_n + pal->trns_n + 24 : 0;
    bool fast = level <= 1; /* the default, or 1 */
    (void)fast;
    if (level <= 0) level = 3; /* small images: zlib at the old default's level */
    if (level > 12) level = 12;
    bool small = raw_n <= SMALL_DEFLATE;
    struct libdeflate_compressor *c = NULL;
    z_stream z;
    memset(&z, 0, sizeof z);
    size_t bound;
#ifdef BK_HAVE_ISAL
    isal_job *ij = NULL;
    if (!small && fast && raw_n <= UINT32_MAX / 2) {
        ij = bk_malloc(sizeof *ij);
        if (!ij) return BK_ENOMEM;
        /* stored blocks at worst (5 bytes per 64 KiB), the zlib header and trailer */
        bound = raw_n + raw_n / 64 + 1024;
    } else
#endif
    if (small) {
        int wb = small_window_bits(raw_n);
        z.zalloc = z_alloc;
        z.zfree = z_free;
        if (deflateInit2(&z, zlib_level(level), Z_DEFLATED, wb, wb - 7, Z_DEFAULT_STRATEGY) != Z_OK) return BK_ENOMEM;
        bound = deflateBound(&z, (uLong)raw_n);
    } else {
        c = libdeflate_alloc_compressor(level);
        if (!c) return BK_ENOMEM;
        bound = libdeflate_zlib_compress_bound(c, raw_n);
    }
    /* the zlib stream is compressed straight into the IDAT chunk of out; the chunk's length and
     * CRC are filled in after, and the room left over is given back */
    static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    uint8_t ihdr[13];
    ihdr[0] = (uint8_t)(w >> 24), ihdr[1] = (uint8_t)(w >> 16), ihdr[2] = (uint8_t)(w >> 8), ihdr[3] = (uint8_t)w;
    ihdr[4] = (uint8_t)(h >> 24), ihdr[5] = (uint8_t)(h >> 16), ihdr[6] = (uint8_t)(h >> 8), ihdr[7] = (uint8_t)h;
    ihdr[8] = 8;                  /* bit depth */
    ihdr[9] = ctype;
    ihdr[10] = ihdr[11] = ihdr[12] = 0;
    /* room for half the filtered bytes first (lightmaps and textures deflate well below that;
     * touching room that stays unused costs memory), all that deflate can need if that is short */
    size_t room = raw_n / 2 + 4096;
    if (room > bound) room = bound;
    size_t zn = 0, start = out->size;
    for (int attempt = 0; attempt < 2 && !zn; attempt++, room = bound) {
        out->size = start;
        if (!bk_buf_reserve(out, 8 + 25 + extra + 8 + room + 4 + 12)) break;
        bk_buf_append(out, sig, 8);
        put_chunk(out, "IHDR", ihdr, 13);
        if (pal) put_chunk(out, "PLTE", pal->plte, pal->plte_n);
        if (pal && pal->trns_n) put_chunk(out, "tRNS", pal->trns, pal->trns_n);
        uint8_t *idat = out->data + out->size;
        if (small) {
            zn = 0;
            if (deflateReset(&z) == Z_OK) {
                z.next_in = (Bytef *)(uintptr_t)raw;
                z.avail_in = (uInt)raw_n;
                z.next_out = idat + 8;
                z.avail_out = (uInt)room;
                if (deflate(&z, Z_FINISH) == Z_STREAM_END) zn = z.total_out;
            }
        } else
#ifdef BK_HAVE_ISAL
        if (ij) {
            zn = isal_zlib(ij, raw, raw_n, idat + 8, room);
        } else
#endif
        {
            zn = libdeflate_zlib_compress(c, raw, raw_n, idat + 8, room);
        }
        if (!zn && room == bound) break;
        if (zn && zn <= 0x7fffffffu) {
            idat[0] = (uint8_t)(zn >> 24), idat[1] = (uint8_t)(zn >> 16), idat[2] = (uint8_t)(zn >> 8);
            idat[3] = (uint8_t)zn;
            memcpy(idat + 4, "IDAT", 4);
            uint32_t crc = (uint32_t)crc32(0L, idat + 4, (uInt)(zn + 4));
            out->size += 8 + zn;
            uint8_t cb[4] = {(uint8_t)(crc >> 24), (uint8_t)(crc >> 16), (uint8_t)(crc >> 8), (uint8_t)crc};
            bk_buf_append(out, cb, 4);
            put_chunk(out, "IEND", NULL, 0);
            bk_buf_shrink(out);
        }
    }
    if (small) deflateEnd(&z);
    else libdeflate_free_compressor(c);
#ifdef BK_HAVE_ISAL
    bk_free(ij);
#endif
    if (out->failed) return BK_ENOMEM;
    return zn && zn <= 0x7fffffffu ? BK_OK : BK_EIO;
}

/* ---- streamed PNG: zlib deflates the rows as they come --------------------------------------- */
struct bk_png_stream {
    z_stream z;
#ifdef BK_HAVE_ISAL
    isal_job *ij; /* at the default level and 1 ISA-L deflates instead of zlib (z unused) */
#endif
    bk_buf *out;
    size_t idat;   /* where the IDAT chunk's length goes */
    size_t expect; /* filtered bytes still to come */
};

bk_result bk_png_stream_begin(bk_png_stream **ps, uint32_t w, uint32_t h, bool alpha, int level, bk_buf *out)
{
    *ps = NULL;
    size_t row, n;
    if (!w || !h || !bk_mul_ok((size_t)w, alpha ? 4 : 3, &row) || !bk_mul_ok(row + 1, h, &n)) return BK_ELIMIT;
    bk_png_stream *p = bk_calloc(1, sizeof *p);
    if (!p) return BK_ENOMEM;
#ifdef BK_HAVE_ISAL
    if (level <= 1) {
        p->ij = bk_malloc(sizeof *p->ij);
        if (!p->ij) {
            bk_free(p);
            return BK_ENOMEM;
        }
        isal_job_init(p->ij);
    } else
#endif
    {
        p->z.zalloc = z_alloc;
        p->z.zfree = z_free;
        if (deflateInit2(&p->z, zlib_level(level), Z_DEFLATED, 15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
            bk_free(p);
            return BK_ENOMEM;
        }
    }
    static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    uint8_t ihdr[13];
    ihdr[0] = (uint8_t)(w >> 24), ihdr[1] = (uint8_t)(w >> 16), ihdr[2] = (uint8_t)(w >> 8), ihdr[3] = (uint8_t)w;
    ihdr[4] = (uint8_t)(h >> 24), ihdr[5] = (uint8_t)(h >> 16), ihdr[6] = (uint8_t)(h >> 8), ihdr[7] = (uint8_t)h;
    ihdr[8] = 8;
    ihdr[9] = alpha ? 6 : 2;
    ihdr[10] = ihdr[11] = ihdr[12] = 0;
    p->out = out;
    p->expect = n;
    /* a first guess of a quarter of the rows (smooth lightmaps deflate below that), grown as needed */
    bk_buf_reserve(out, 8 + 25 + 8 + n / 4 + 4096);
    bk_buf_append(out, sig, 8);
    put_chunk(out, "IHDR", ihdr, 13);
    p->idat = out->size;
    bk_buf_append(out, "\0\0\0\0IDAT", 8);
    *ps = p;
    if (out->failed) {
        bk_png_stream_end(p, false);
        *ps = NULL;
        return BK_ENOMEM;
    }
    return BK_OK;
}

/* room for more output: grown by half again, not doubled (the buffer is the image's compressed
 * bytes); how much there is, at most 4 GiB */
static bk_result png_stream_room(bk_buf *out, size_t *room)
{
    if (out->cap - out->size < 16384) {
        size_t more = out->size / 2 > 65536 ? out->size / 2 : 65536;
        if (!bk_buf_reserve(out, more)) return BK_ENOMEM;
    }
    *room = out->cap - out->size;
    if (*room > UINT32_MAX) *room = UINT32_MAX;
    return BK_OK;
}

#ifdef BK_HAVE_ISAL
/* ISA-L: deflate in[0..n) (all of it), and with finish end the stream */
static bk_result png_stream_isal(bk_png_stream *p, const uint8_t *in, uint32_t n, bool finish)
{
    struct isal_zstream *z = &p->ij->z;
    z->next_in = (uint8_t *)(uintptr_t)in;
    z->avail_in = n;
    z->end_of_stream = finish;
    for (;;) {
        size_t room;
        BK_TRY(png_stream_room(p->out, &room));
        z->next_out = p->out->data + p->out->size;
        z->avail_out = (uint32_t)room;
        uint32_t in_before = z->avail_in;
        if (isal_deflate(z) != COMP_OK) return BK_EIO;
        p->out->size += room - z->avail_out;
        if (finish ? z->internal_state.state == ZSTATE_END : z->avail_in == 0) return BK_OK;
        if (z->avail_in == in_before && z->avail_out == (uint32_t)room) return BK_EIO; /* no progress */
    }
}
#endif

/* deflate what is in p->z with flush, growing out for what comes */
static bk_result png_stream_pump(bk_png_stream *p, int flush)
{
    bk_buf *out = p->out;
    for (;;) {
        size_t room;
        BK_TRY(png_stream_room(out, &room));
        p->z.next_out = out->data + out->size;
        p->z.avail_out = (uInt)room;
        int zr = deflate(&p->z, flush);
        out->size += room - p->z.avail_out;
        if (zr == Z_STREAM_END) return BK_OK;
        if (zr != Z_OK && zr != Z_BUF_ERROR) return BK_EIO;
        if (flush == Z_NO_FLUSH && p->z.avail_in == 0) return BK_OK;
        if (zr == Z_BUF_ERROR && p->z.avail_out != 0) return BK_EIO;
    }
}

bk_result bk_png_stream_rows(bk_png_stream *p, const uint8_t *rows, size_t n)
{
    if (n > p->expect) return BK_EARG;
    p->expect -= n;
    while (n) {
        uInt k = n > UINT32_MAX ? UINT32_MAX : (uInt)n;
#ifdef BK_HAVE_ISAL
        if (p->ij) {
            BK_TRY(png_stream_isal(p, rows, k, false));
            rows += k;
            n -= k;
            continue;
        }
#endif
        p->z.next_in = (Bytef *)(uintptr_t)rows;
        p->z.avail_in = k;
        BK_TRY(png_stream_pump(p, Z_NO_FLUSH));
        rows += k;
        n -= k;
    }
    return BK_OK;
}

bk_result bk_png_stream_end(bk_png_stream *p, bool ok)
{
    if (!p) return BK_EARG;
    bk_result r = ok ? (p->expect ? BK_EARG : BK_OK) : BK_EIO;
#ifdef BK_HAVE_ISAL
    if (p->ij) {
        if (r == BK_OK) r = png_stream_isal(p, NULL, 0, true);
        bk_free(p->ij);
    } else
#endif
    {
        if (r == BK_OK) {
            p->z.next_in = NULL;
            p->z.avail_in = 0;
            r = png_stream_pump(p, Z_FINISH);
        }
        deflateEnd(&p->z);
    }
    bk_buf *out = p->out;
    size_t zn = out->size - p->idat - 8;
    if (r == BK_OK && zn > 0x7fffffffu) r = BK_ELIMIT;
    if (r == BK_OK) {
        uint8_t *c = out->data + p->idat;
        c[0] = (uint8_t)(zn >> 24), c[1] = (uint8_t)(zn >> 16), c[2] = (uint8_t)(zn >> 8), c[3] = (uint8_t)zn;
        uint32_t crc = (uint32_t)crc32(0L, c + 4, (uInt)(zn + 4));
        uint8_t cb[4] = {(uint8_t)(crc >> 24), (uint8_t)(crc >> 16), (uint8_t)(crc >> 8), (uint8_t)crc};
        bk_buf_append(out, cb, 4);
        put_chunk(out, "IEND", NULL, 0);
        bk_buf_shrink(out);
        if (out->failed) r = BK_ENOMEM;
    }
    bk_free(p);
    return r;
}

bk_result bk_png_encode(const uint8_t *rgba, uint32_t w, uint32_t h, bool alpha, int level, bk_buf *out)
{
    return png_encode(NULL, rgba, w, h, alpha, level, out);
}

bk_result bk_png_encode_in_place(uint8_t *rgba, uint32_t w, uint32_t h, int level, bk_buf *out)
{
    return png_encode(rgba, rgba, w, h, false, level, out);
}

bk_result bk_png_deflate(const uint8_t *raw, size_t raw_n, uint32_t w, uint32_t h, uint8_t ctype,
                         const bk_png_palette *pal, int level, bk_buf *out)
{
    return png_deflate(raw, raw_n, w, h, ctype, pal, level, out);
}
