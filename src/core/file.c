/* The front door: detect the format by magic, run its decoder, hand out what it decoded. */
#include <stdio.h>
#include <sys/stat.h>

#define BK_ADVANCED_API /* the speed and memory knobs (bspkit/advanced.h) */
#include "bspkit/advanced.h"
#include "../formats/family.h"
#include "bspkit/source.h"

static const char *const k_format_names[BK_FORMAT_COUNT_] = {
    [BK_FORMAT_UNKNOWN] = "unknown", [BK_FORMAT_QUAKE1] = "quake1", [BK_FORMAT_BSP2] = "bsp2",
    [BK_FORMAT_GOLDSRC] = "goldsrc", [BK_FORMAT_WAD3] = "wad3",     [BK_FORMAT_QUAKE3] = "quake3",
    [BK_FORMAT_SOURCE] = "source",   [BK_FORMAT_DPM] = "dpm", [BK_FORMAT_VTF] = "vtf",
    [BK_FORMAT_MDL] = "mdl",
};

const char *bk_format_name(bk_format f)
{
    if ((unsigned)f >= BK_FORMAT_COUNT_) return "unknown";
    return k_format_names[f];
}

bk_format bk_format_parse(const char *name)
{
    for (int f = 1; name && f < BK_FORMAT_COUNT_; f++)
        if (strcmp(name, k_format_names[f]) == 0) return (bk_format)f;
    return BK_FORMAT_UNKNOWN;
}

const bk_game *bk_file_game(const bk_file *f)
{
    return f && f->version ? f->version->game : NULL;
}

const bk_game *bk_format_game(bk_format fmt)
{
    size_t n;
    const bk_family *const *tab = bk_family_table(&n);
    for (size_t i = 0; i < n; i++)
        for (uint32_t v = 0; v < tab[i]->version_count; v++)
            if (tab[i]->versions[v].format == fmt && tab[i]->versions[v].game) return tab[i]->versions[v].game;
    return NULL;
}

static const bk_family *find_family(const uint8_t *data, size_t size, int *score)
{
    size_t n;
    const bk_family *const *tab = bk_family_table(&n);
    const bk_family *best = NULL;
    int best_score = 0;
    for (size_t i = 0; i < n; i++) {
        int s = tab[i]->ops->probe(data, size);
        if (s > best_score) {
            best_score = s;
            best = tab[i];
        }
    }
    if (score) *score = best_score;
    return best;
}

bk_format bk_detect(const void *data, size_t size)
{
    int score = 0;
    const bk_family *fam = find_family(data, size, &score);
    if (!fam || score < 2) return BK_FORMAT_UNKNOWN;
    const bk_version_desc *v = bk_family_version(fam, data, size);
    return v ? v->format : fam->ops->format;
}

static void describe_magic(const uint8_t *d, size_t size, char *out, size_t cap)
{
    size_t n = size < 4 ? size : 4, o = 0;
    for (size_t i = 0; i < n && o + 5 < cap; i++) {
        if (d[i] >= 32 && d[i] < 127) out[o++] = (char)d[i];
        else o += (size_t)snprintf(out + o, cap - o, "\\x%02x", d[i]);
    }
    out[o < cap ? o : cap - 1] = 0;
}

static bk_result load_common(const uint8_t *data, size_t size, bk_ctx *ctx, bk_file **out)
{
    *out = NULL;
    int score = 0;
    const bk_family *fam = find_family(data, size, &score);
    if (!fam) {
        char m[32];
        describe_magic(data, size, m, sizeof m);
        if (size < 4)
            bk_report(ctx, BK_SEV_ERROR, BK_ETRUNCATED, "header", BK_NO_INDEX, 0, "file is only %zu bytes", size);
        else if (bk_vpk_probe(data, size))
            bk_report(ctx, BK_SEV_ERROR, BK_EMAGIC, "header", BK_NO_INDEX, 0,
                      "a VPK archive (signature 0x55aa1234), not a map or model: `bspkit pak FILE list` or "
                      "`extract` reads it, --game-dir FILE lends its materials to a map");
        else
            bk_report(ctx, BK_SEV_ERROR, BK_EMAGIC, "header", BK_NO_INDEX, 0,
                      "unknown magic '%s': not a BSP, WAD3, DPM, VTF or MDL file", m);
        return size < 4 ? BK_ETRUNCATED : BK_EMAGIC;
    }
    bk_file *f = bk_calloc(1, sizeof *f);
    if (!f) return BK_ENOMEM;
    const bk_format_ops *ops = fam->ops;
    f->format = ops->format;
    f->family = fam;
    f->data = data;
    f->size = size;
    f->name = bk_strdup(ctx->file ? ctx->file : "<memory>");
    f->info.format = ops->format;
    bk_result r = ops->load(f, ctx);
    bk_check_lump_limits(ctx, f); /* validate mode: lumps over the engine's limits warn */
    if (r == BK_OK && ctx->errors) r = ctx->first_error;
    if (r != BK_OK) {
        bk_file_free(f);
        return r;
    }
    if (atomic_load(&f->deferred)) {
        f->limits = ctx->opt.limits;
        bk_mutex_init(&f->lock);
        f->has_lock = true;
    }
    *out = f;
    return BK_OK;
}

bk_result bk_file_load_memory(const void *data, size_t size, const bk_options *opt, bk_file **out)
{
    if (!out || (!data && size)) return BK_EARG;
    bk_ctx ctx;
    bk_ctx_init(&ctx, opt, false);
    if (size > ctx.opt.limits.max_file_bytes) {
        bk_report(&ctx, BK_SEV_ERROR, BK_ELIMIT, NULL, BK_NO_INDEX, BK_NO_OFFSET,
                  "file is %zu bytes, over the limit", size);
        return BK_ELIMIT;
    }
    return load_common(data, size, &ctx, out);
}

/* why path could not be read: a FIFO, device or folder is said to be one (bk_input_load refuses
 * them at once, without waiting for a FIFO's writer) */
static void report_unread(bk_ctx *ctx, const char *path, bk_result r)
{
    struct stat st;
    if (r == BK_EIO && stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        bk_report(ctx, BK_SEV_ERROR, r, NULL, BK_NO_INDEX, BK_NO_OFFSET, "not a regular file (%s): not read",
                  S_ISDIR(st.st_mode) ? "a folder" : S_ISFIFO(st.st_mode) ? "a FIFO" : "a device or socket");
    else
        bk_report(ctx, BK_SEV_ERROR, r, NULL, BK_NO_INDEX, BK_NO_OFFSET, "cannot read file: %s", bk_strerror(r));
}

bk_result bk_file_open(const char *path, const bk_options *opt, bk_file **out)
{
    if (!path || !out) return BK_EARG;
    *out = NULL;
    bk_ctx ctx;
    bk_ctx_init(&ctx, opt, false);
    if (!ctx.file) ctx.file = path;
    bk_input in;
    bk_result r = bk_input_load(opt, path, ctx.opt.limits.max_file_bytes, &in);
    if (r != BK_OK) {
        report_unread(&ctx, path, r);
        return r;
    }
    ctx.mapped_input = in.map != NULL;
    r = load_common(bk_input_data(&in), in.size, &ctx, out);
    if (r != BK_OK) {
        bk_input_release(&in);
        return r;
    }
    /* the file keeps the bytes */
    (*out)->mapped = in.map;
    (*out)->mapped_size = in.map ? in.size : 0;
    (*out)->owned = in.owned;
    return BK_OK;
}

bk_result bk_validate_memory(const void *data, size_t size, const bk_options *opt, uint32_t *out_errors,
                             uint32_t *out_warnings)
{
    bk_ctx ctx;
    bk_ctx_init(&ctx, opt, true);
    ctx.check_only = true;
    bk_file *f = NULL;
    bk_result r;
    if (!data && size) r = BK_EARG;
    else if (size > ctx.opt.limits.max_file_bytes) {
        r = BK_ELIMIT;
        bk_report(&ctx, BK_SEV_ERROR, r, NULL, BK_NO_INDEX, BK_NO_OFFSET, "file is over the size limit");
    } else
        r = load_common(data, size, &ctx, &f);
    bk_file_free(f);
    if (out_errors) *out_errors = ctx.errors + (r != BK_OK && ctx.errors == 0);
    if (out_warnings) *out_warnings = ctx.warnings;
    if (r == BK_OK && ctx.errors) r = ctx.first_error;
    return r;
}

bk_result bk_validate_file(const char *path, const bk_options *opt, bk_format *out_format, uint32_t *out_errors,
                           uint32_t *out_warnings)
{
    if (out_format) *out_format = BK_FORMAT_UNKNOWN;
    if (out_errors) *out_errors = 0;
    if (out_warnings) *out_warnings = 0;
    if (!path) return BK_EARG;
    bk_ctx ctx;
    bk_ctx_init(&ctx, opt, true);
    if (!ctx.file) ctx.file = path;
    ctx.check_only = true;
    /* as bk_file_open: mapped when large (and no read_file hook), read otherwise */
    bk_input in;
    bk_result r = bk_input_load(opt, path, ctx.opt.limits.max_file_bytes, &in);
    bk_file *f = NULL;
    if (r != BK_OK) {
        report_unread(&ctx, path, r);
    } else {
        ctx.mapped_input = in.map != NULL;
        if (out_format) *out_format = bk_detect(bk_input_data(&in), in.size);
        r = load_common(bk_input_data(&in), in.size, &ctx, &f);
    }
    bk_file_free(f);
    bk_input_release(&in);
    if (out_errors) *out_errors = ctx.errors + (r != BK_OK && ctx.errors == 0);
    if (out_warnings) *out_warnings = ctx.warnings;
    if (r == BK_OK && ctx.errors) r = ctx.first_error;
    return r;
}

void bk_file_free(bk_file *f)
{
    if (!f) return;
    if (f->impl && f->family && f->family->ops->destroy) f->family->ops->destroy(f->impl);
    bk_entities_free(&f->entities);
    bk_free(f->info.lumps);
    bk_free(f->owned);
    if (f->mapped) bk_unmap_file(f->mapped, f->mapped_size);
    bk_free(f->name);
    if (f->has_lock) bk_mutex_destroy(&f->lock);
    bk_free(f);
}

/* the file whose deferred load this thread is completing (its loader may ask for its own parts) */
static _Thread_local const bk_file *t_completing;

bk_result bk_file_complete(bk_file *f, const bk_options *opt)
{
    if (!f) return BK_EARG;
    if (!atomic_load_explicit(&f->deferred, memory_order_acquire) || t_completing == f) return f->completed;
    bk_mutex_lock(&f->lock);
    if (atomic_load_explicit(&f->deferred, memory_order_relaxed)) {
        bk_ctx ctx;
        bk_ctx_init(&ctx, opt, false);
        ctx.opt.limits = f->limits;
        ctx.opt.budget = NULL; /* the loader keeps the open's */
        if (!ctx.file) ctx.file = f->name;
        ctx.mapped_input = f->mapped != NULL;
        t_completing = f;
        bk_result r = f->family->ops->complete(f, &ctx);
        t_completing = NULL;
        if (r == BK_OK && ctx.errors) r = ctx.first_error;
        f->completed = r;
        atomic_store_explicit(&f->deferred, 0, memory_order_release);
    }
    bk_mutex_unlock(&f->lock);
    return f->completed;
}

/* what needs the whole of a deferred load finishes it, its diagnostics unheard (bk_file_complete
 * with the caller's options tells them) */
static void settle(const bk_file *f)
{
    if (f && atomic_load_explicit(&f->deferred, memory_order_acquire)) (void)bk_file_complete((bk_file *)f, NULL);
}

bk_format bk_file_format(const bk_file *f) { return f ? f->format : BK_FORMAT_UNKNOWN; }
const bk_info *bk_file_info(const bk_file *f)
{
    settle(f);
    return f ? &f->info : NULL;
}
const bk_entities *bk_file_entities(const bk_file *f)
{
    static const bk_entities none = {NULL, 0};
    return f ? &f->entities : &none;
}
const uint8_t *bk_file_data(const bk_file *f, size_t *size)
{
    if (size) *size = f ? f->size : 0;
    return f ? f->data : NULL;
}
void bk_file_release_pages(const bk_file *f)
{
    if (f && f->mapped) bk_mapped_release(f->mapped, f->mapped_size);
}
const void *bk_file_impl(const bk_file *f, bk_format expect)
{
    if (!f) return NULL;
    bool ours = f->format == expect;
    /* a family serving several formats (Quake: BSP29, BSP2, BSP30) serves each of its rows' */
    for (uint32_t i = 0; !ours && f->family && i < f->family->version_count; i++)
        ours = f->family->versions[i].format == expect && f->family->versions[i].supported;
    if (!ours) return NULL;
    settle(f);
    return f->impl;
}

/* ---- helpers for decoders ---------------------------------------------------------------- */

bk_result bk_info_set_lumps(bk_info *info, uint32_t n)
{
    bk_free(info->lumps);
    info->lumps = bk_calloc(n ? n : 1, sizeof(bk_lump_info));
    info->lump_count = info->lumps ? n : 0;
    return info->lumps ? BK_OK : BK_ENOMEM;
}

void bk_info_count(bk_info *info, const char *name, uint64_t value)
{
    for (uint32_t i = 0; i < info->count_count; i++) {
        if (strcmp(info->counts[i].name, name) == 0) {
            info->counts[i].value = value;
            return;
        }
    }
    if (info->count_count < BK_MAX_COUNTS) {
        info->counts[info->count_count].name = name;
        info->counts[info->count_count].value = value;
        info->count_count++;
    }
}

bk_result bk_load_entities(bk_file *f, bk_ctx *ctx, const char *lump, const uint8_t *text, size_t len,
                           uint64_t lump_ofs)
{
    uint64_t at = 0;
    bk_entities_free(&f->entities);
    bk_result r = bk_entities_parse((const char *)text, len, &f->entities, &at);
    if (r == BK_ENOMEM) return r;
    if (r != BK_OK) {
        BK_ERR(ctx, BK_EFORMAT, lump, BK_NO_INDEX, lump_ofs + at,
               "entity text is malformed (expected '{', '}' or a quoted string)");
        return BK_OK;
    }
    if (f->entities.count == 0)
        BK_WARN(ctx, BK_EFORMAT, lump, BK_NO_INDEX, lump_ofs, "map has no entities (no engine loads a map without worldspawn)");
    else if (!bk_is_worldspawn(bk_entity_get(&f->entities.items[0], "classname")))
        BK_WARN(ctx, BK_EFORMAT, lump, 0, lump_ofs + f->entities.items[0].offset, "the first entity is not worldspawn");
    return BK_OK;
}

bool bk_is_worldspawn(const char *cls)
{
    bool world = cls && strlen(cls) == 10;
    for (int i = 0; world && i < 10; i++) world = (cls[i] | 0x20) == "worldspawn"[i];   /* as Q_stricmp */
    return world;
}

bk_result bk_file_write(const bk_file *f, const bk_options *opt, const char *path)
{
    if (!f || !path) return BK_EARG;
    if (!f->family->ops->write) return BK_EUNSUPPORTED;
    bk_options o = {0};
    if (opt) o = *opt;
    return f->family->ops->write(f, &o, path);
}
