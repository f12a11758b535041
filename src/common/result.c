/* Result codes, diagnostics, the load context and limits-aware allocation. */
#include <stdio.h>

#include "bk_internal.h"

static const struct {
    const char *name;
    const char *text;
} k_results[BK_RESULT_COUNT_] = {
    [BK_OK] = {"ok", "success"},
    [BK_ETRUNCATED] = {"truncated", "data ends too early"},
    [BK_EMAGIC] = {"bad-magic", "unknown file type (bad magic)"},
    [BK_EVERSION] = {"bad-version", "unsupported version"},
    [BK_ELUMP_RANGE] = {"lump-range", "lump lies outside the file"},
    [BK_ELUMP_SIZE] = {"lump-size", "lump size is not a multiple of its entry size"},
    [BK_EINDEX] = {"bad-index", "reference out of range"},
    [BK_ELIMIT] = {"limit", "limit exceeded"},
    [BK_EOVERFLOW] = {"overflow", "size arithmetic overflow"},
    [BK_ENOMEM] = {"no-memory", "out of memory"},
    [BK_EIO] = {"io", "input/output error"},
    [BK_EUNSUPPORTED] = {"unsupported", "unsupported feature"},
    [BK_EFORMAT] = {"malformed", "malformed data"},
    [BK_EDECOMPRESS] = {"decompress", "decompression failed"},
    [BK_EARG] = {"bad-argument", "bad argument"},
    [BK_ENOTFOUND] = {"not-found", "not found"},
};

const char *bk_strerror(bk_result r)
{
    if ((unsigned)r >= BK_RESULT_COUNT_) return "unknown error";
    return k_results[r].text;
}

const char *bk_result_name(bk_result r)
{
    if ((unsigned)r >= BK_RESULT_COUNT_) return "unknown";
    return k_results[r].name;
}

const char *bk_severity_name(bk_severity s)
{
    switch (s) {
    case BK_SEV_INFO: return "info";
    case BK_SEV_WARNING: return "warning";
    default: return "error";
    }
}

size_t bk_diag_format(const bk_diag *d, char *buf, size_t cap)
{
    if (!cap) return 0;
    int n = snprintf(buf, cap, "%s", d->file ? d->file : "<memory>");
    size_t len = n > 0 ? (size_t)n : 0;
    if (d->lump && len < cap) {
        n = snprintf(buf + len, cap - len, ": %s", d->lump);
        len += n > 0 ? (size_t)n : 0;
        if (d->index != BK_NO_INDEX && len < cap) {
            n = snprintf(buf + len, cap - len, "[%lld]", (long long)d->index);
            len += n > 0 ? (size_t)n : 0;
        }
    }
    if (d->offset != BK_NO_OFFSET && len < cap) {
        n = snprintf(buf + len, cap - len, " @%llu", (unsigned long long)d->offset);
        len += n > 0 ? (size_t)n : 0;
    }
    if (len < cap) {
        n = snprintf(buf + len, cap - len, ": %s: %s", bk_severity_name(d->severity), d->message);
        len += n > 0 ? (size_t)n : 0;
    }
    return len < cap ? len : cap - 1;
}

/* Every default limit, in one place. */
void bk_limits_resolve(bk_limits *l)
{
    if (!l->max_file_bytes) l->max_file_bytes = (uint64_t)2 << 30;
    if (!l->max_alloc_bytes) l->max_alloc_bytes = (uint64_t)1 << 30;
    if (!l->max_elements) l->max_elements = (uint64_t)64 << 20;
    if (!l->max_diags) l->max_diags = 1000;
    if (!l->max_atlas_size) l->max_atlas_size = 8192;
    if (!l->max_texture_dim) l->max_texture_dim = 8192;
    if (!l->max_decoded_bytes) l->max_decoded_bytes = (uint64_t)1 << 30;
    if (!l->max_scene_vertices) l->max_scene_vertices = l->max_alloc_bytes / 64;
    if (!l->max_work) l->max_work = (uint64_t)64 << 20;
    if (!l->max_entity_string) l->max_entity_string = 64u << 10;
    if (!l->max_entity_pairs) l->max_entity_pairs = 8192;
    if (!l->max_entities) l->max_entities = 65536;
}

bk_limits bk_limits_of(const bk_options *opt)
{
    bk_limits l;
    if (opt) l = opt->limits;
    else memset(&l, 0, sizeof l);
    bk_limits_resolve(&l);
    return l;
}

const bk_options_ext *bk_options_find(const bk_options *opt, uint32_t type)
{
    const bk_options_ext *x = opt ? opt->ext : NULL;
    for (int k = 0; x && k < 64; k++, x = x->next)
        if (x->type == type) return x;
    return NULL;
}

uint64_t bk_limits_embedded_budget(const bk_limits *l, uint64_t file_size)
{
    uint64_t b = file_size * 8 + ((uint64_t)64 << 20);
    return b < l->max_decoded_bytes ? b : l->max_decoded_bytes;
}

void bk_ctx_init(bk_ctx *ctx, const bk_options *opt, bool keep_going)
{
    memset(ctx, 0, sizeof *ctx);
    if (opt) ctx->opt = *opt;
    bk_limits_resolve(&ctx->opt.limits);
    ctx->file = ctx->opt.name;
    ctx->keep_going = keep_going;
}

static void deliver(const bk_options *opt, bk_severity sev, bk_result code, const char *file, const char *lump,
                    int64_t index, uint64_t offset, const char *fmt, va_list ap)
{
    bk_diag d;
    d.severity = sev;
    d.code = code;
    d.file = file;
    d.lump = lump;
    d.index = index;
    d.offset = offset;
    vsnprintf(d.message, sizeof d.message, fmt, ap);
    opt->diag(opt->diag_user, &d);
}

void bk_scene_diag(bk_scene *s, const bk_options *opt, bk_severity sev, bk_result code, const char *file,
                   const char *lump, int64_t index, uint64_t offset, const char *fmt, ...)
{
    if (s && sev == BK_SEV_WARNING) s->warning_count++;
    if (!opt || !opt->diag) return;
    va_list ap;
    va_start(ap, fmt);
    deliver(opt, sev, code, file ? file : opt->name, lump, index, offset, fmt, ap);
    va_end(ap);
}

bk_result bk_report(bk_ctx *ctx, bk_severity sev, bk_result code, const char *lump, int64_t index,
                    uint64_t offset, const char *fmt, ...)
{
    if (sev == BK_SEV_ERROR) {
        ctx->errors++;
        if (ctx->first_error == BK_OK) ctx->first_error = code ? code : BK_EFORMAT;
    } else if (sev == BK_SEV_WARNING) {
        ctx->warnings++;
    }
    if (ctx->opt.diag && ctx->reported < ctx->opt.limits.max_diags) {
        va_list ap;
        va_start(ap, fmt);
        deliver(&ctx->opt, sev, code, ctx->file, lump, index, offset, fmt, ap);
        va_end(ap);
        ctx->reported++;
    }
    if (sev == BK_SEV_ERROR && !ctx->keep_going) return code ? code : BK_EFORMAT;
    return BK_OK;
}

void *bk_alloc_array(const bk_ctx *ctx, size_t count, size_t size, bk_result *res)
{
    size_t bytes;
    if (!bk_mul_ok(count, size, &bytes)) {
        if (res) *res = BK_EOVERFLOW;
        return NULL;
    }
    if (ctx && (count > ctx->opt.limits.max_elements || bytes > ctx->opt.limits.max_alloc_bytes)) {
        if (res) *res = BK_ELIMIT;
        return NULL;
    }
    void *p = bk_calloc(bytes ? bytes : 1, 1);
    if (!p && res) *res = BK_ENOMEM;
    return p;
}

bk_result bk_grow(void **ptr, uint32_t *cap, uint32_t need, size_t size)
{
    if (need <= *cap) return BK_OK;
    uint64_t ncap = *cap ? (uint64_t)*cap * 2 : 8;
    while (ncap < need) ncap *= 2;
    if (ncap > UINT32_MAX) ncap = UINT32_MAX;
    if (ncap < need) return BK_ELIMIT;
    size_t bytes;
    if (!bk_mul_ok((size_t)ncap, size, &bytes)) return BK_EOVERFLOW;
    void *p = bk_realloc(*ptr, bytes);
    if (!p) return BK_ENOMEM;
    memset((uint8_t *)p + (size_t)*cap * size, 0, bytes - (size_t)*cap * size);
    *ptr = p;
    *cap = (uint32_t)ncap;
    return BK_OK;
}

char *bk_strndup(const char *s, size_t n)
{
    if (!s) return NULL;
    size_t len = 0;
    while (len < n && s[len]) len++;
    char *d = bk_malloc(len + 1);
    if (!d) return NULL;
    memcpy(d, s, len);
    d[len] = 0;
    return d;
}

char *bk_strdup(const char *s) { return s ? bk_strndup(s, SIZE_MAX) : NULL; }

void bk_copy_name(char *dst, size_t dstcap, const uint8_t *src, size_t srclen)
{
    size_t i = 0;
    if (!dstcap) return;
    for (; i < srclen && i + 1 < dstcap && src[i]; i++) {
        uint8_t c = src[i];
        dst[i] = (char)(c < 32 || c == 127 ? '?' : c);
    }
    dst[i] = 0;
}

int bk_strcasecmp(const char *a, const char *b)
{
    for (;; a++, b++) {
        int ca = (unsigned char)*a, cb = (unsigned char)*b;
        if (ca >= 'A' && ca <= 'Z') ca += 32;
        if (cb >= 'A' && cb <= 'Z') cb += 32;
        if (ca != cb || !ca) return ca - cb;
    }
}

bool bk_path_eq(const char *a, const char *b)
{
    for (;; a++, b++) {
        unsigned char x = (unsigned char)*a, y = (unsigned char)*b;
        if (x == '\\') x = '/';
        if (y == '\\') y = '/';
        if (x >= 'A' && x <= 'Z') x = (unsigned char)(x + 32);
        if (y >= 'A' && y <= 'Z') y = (unsigned char)(y + 32);
        if (x != y) return false;
        if (!x) return true;
    }
}

const char *bk_version(void) { return BK_VERSION_STRING; }

int bk_strncasecmp_prefix(const char *s, const char *prefix)
{
    for (; *prefix; s++, prefix++) {
        char a = *s, b = *prefix;
        if (a >= 'A' && a <= 'Z') a = (char)(a + 32);
        if (b >= 'A' && b <= 'Z') b = (char)(b + 32);
        if (a != b) return 0;
    }
    return 1;
}
