/* Source VBSP decoder: header and both v21 lump-table layouts, LZMA lumps, every geometry and
 * tree lump with its references checked, game lumps (static and detail props), the pakfile.
 * Layouts follow the Source SDK's public/bspfile.h and public/gamebspfile.h; nothing is cast
 * over file bytes. */
#include <stdio.h>

#include "vbsp_internal.h"

#include <stdatomic.h>
#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#endif

#define k_lumps bk_source_lumps /* the lump rows (source_desc.c) */
#define LNAME(i) k_lumps[i].name

#define SPRP_ID 0x73707270u /* 'sprp' */
#define DPRP_ID 0x64707270u /* 'dprp' */

typedef struct ld {
    bk_file *f;
    bk_ctx *ctx;
    vbsp_impl *m;
    bk_source_map *p;
    uint8_t **gl_owned;       /* decoded compressed game lumps */
    char *prop_name_block;
    uint32_t string_count;    /* texdata_string_table entries */
} ld;

/* owned extras that destroy() must free, stored after the public game lump array */
typedef struct vbsp_extra {
    uint8_t **gl_owned;
    uint32_t gl_count;
    char *prop_name_block;
} vbsp_extra;

typedef struct vbsp_impl_full {
    vbsp_impl base;
    vbsp_extra extra;
} vbsp_impl_full;

const char *bk_source_fourcc(uint32_t id, char buf[5])
{
    for (int i = 0; i < 4; i++) {
        uint8_t c = (uint8_t)(id >> (24 - 8 * i));
        buf[i] = (char)(c >= 32 && c < 127 ? c : '?');
    }
    buf[4] = 0;
    return buf;
}

const bk_source_map *bk_source_map_of(const bk_file *f)
{
    const vbsp_impl *m = bk_file_impl(f, BK_FORMAT_SOURCE);
    return m ? &m->pub : NULL;
}

bk_result bk_source_lump_bytes(const bk_file *f, int idx, const uint8_t **data, size_t *size)
{
    *data = NULL;
    *size = 0;
    const bk_source_map *p = bk_source_map_of(f);
    if (!p || idx < 0 || idx >= BK_SRC_LUMP_COUNT) return BK_EARG;
    BK_TRY(bk_vbsp_lump_decode(f, idx, NULL));
    *data = p->lumps[idx].data;
    *size = p->lumps[idx].size;
    return BK_OK;
}

/* VBSP 17-21; other VBSP versions, PSBV and rBSP are claimed only to be rejected with a message */
static int vbsp_probe(const uint8_t *d, size_t n)
{
    if (n < 8) return 0;
    const bk_version_desc *v = bk_family_version(&bk_family_source, d, n);
    if (v && v->supported) return 2;
    return bk_family_ident(&bk_family_source, d, n) ? 1 : 0;
}

static void vbsp_destroy(void *impl)
{
    vbsp_impl_full *F = impl;
    if (!F) return;
    vbsp_impl *m = &F->base;
    bk_source_map *p = &m->pub;
    for (int i = 0; i < BK_SRC_LUMP_COUNT; i++)
        if (m->owned_lumps[i]) {
            bk_budget_give(m->shared, p->lumps[i].size);
            bk_free(m->owned_lumps[i]);
        }
    for (uint32_t i = 0; i < F->extra.gl_count && p->game_lumps; i++)
        if (F->extra.gl_owned[i]) bk_budget_give(m->shared, p->game_lumps[i].size);
    bk_free(m->names);
    bk_free(p->planes);
    bk_free(p->vertices);
    bk_free(p->edges);
    bk_free(p->surfedges);
    bk_free(p->faces);
    bk_free(p->orig_faces);
    bk_free(p->hdr_faces);
    bk_free(p->texinfo);
    bk_free(p->texdata);
    bk_free(p->nodes);
    bk_free(p->leafs);
    bk_free(p->leaffaces);
    bk_free(p->leafbrushes);
    bk_free(p->brushes);
    bk_free(p->brushsides);
    bk_free(p->models);
    bk_free(p->areas);
    bk_free(p->areaportals);
    bk_free(p->dispinfo);
    bk_free(p->dispverts);
    bk_free(p->disptris);
    bk_free(p->game_lumps);
    bk_free(p->static_prop_names);
    bk_free(p->static_prop_leaves);
    bk_free(p->static_props);
    for (uint32_t i = 0; i < F->extra.gl_count; i++) bk_free(F->extra.gl_owned[i]);
    bk_free(F->extra.gl_owned);
    bk_free(F->extra.prop_name_block);
    bk_free(F);
}

/* file offset of element i of lump idx (the lump's own offset when it is compressed) */
static uint64_t eofs(const ld *L, int idx, uint64_t i, size_t esize)
{
    const bk_source_lump *l = &L->p->lumps[idx];
    return l->compressed ? l->offset : l->offset + i * esize;
}

/* ---- header and lump directory ------------------------------------------------------------ */

/* How many directory entries of layout dir place their lump plausibly (all_ok: every one) */
static int table_score(const uint8_t *d, size_t size, const bk_dir_layout *dir, bool *all_ok)
{
    int ok = 0;
    *all_ok = true;
    for (uint32_t i = 0; i < dir->count; i++) {
        const uint8_t *e = d + dir->dir_offset + (size_t)dir->entry_size * i;
        int64_t ofs = bk_rd_i32le(e + dir->ofs_field), len = bk_rd_i32le(e + dir->len_field);
        bool good = ofs >= 0 && len >= 0 && (len == 0 || ((uint64_t)ofs >= VBSP_HEADER_SIZE &&
                                                           bk_span_ok((uint64_t)ofs, (uint64_t)len, size)));
        if (good) ok++;
        else *all_ok = false;
    }
    return ok;
}

/* Decode the LZMA block at src within max_out bytes; what it decodes to is held from the program's
 * shared budget too (given back by bk_vbsp_lump_forget and when the map is freed), taken before
 * anything is allocated. */
static bk_result lzma_take(const vbsp_impl *m, const uint8_t *src, size_t avail, uint64_t max_out, uint8_t **out,
                           size_t *out_size, size_t *used, const char **why)
{
    uint64_t actual = avail >= VBSP_LZMA_HEADER && memcmp(src, "LZMA", 4) == 0 ? bk_rd_u32le(src + 4) : 0;
    bool held = actual <= max_out;
    if (held && !bk_budget_take(m->shared, actual)) {
        *out = NULL;
        *out_size = *used = 0;
        *why = "the program's budget of decoded bytes is held by the other files open";
        return BK_ELIMIT;
    }
    bk_result r = bk_vbsp_lzma_block(src, avail, max_out, out, out_size, used, why);
    if (r != BK_OK && held) bk_budget_give(m->shared, actual);
    return r;
}

/* The outcome of decoding lump idx (out: the bytes, taken over), applied in lump order. */
static bk_result lump_decoded(const bk_file *f, int idx, bk_ctx *ctx, bk_result r, uint8_t *out, size_t out_size,
                              const char *why)
{
    vbsp_impl *m = f->impl;
    bk_source_lump *l = &m->pub.lumps[idx];
    uint64_t budget = m->lzma_budget;
    if (r != BK_OK) {
        l->data = NULL;
        l->size = 0;
        if (ctx && r != BK_ENOMEM) {
            uint64_t actual = l->length >= VBSP_LZMA_HEADER ? bk_rd_u32le(f->data + l->offset + 4) : 0;
            if (r == BK_ELIMIT && actual > budget)
                return bk_report(ctx, BK_SEV_ERROR, r, LNAME(idx), BK_NO_INDEX, l->offset,
                                 "LZMA lump declares %llu uncompressed bytes, over the %llu left of the file's budget "
                                 "(8 x its size + 64 MiB, limits.max_decoded_bytes): not inflated",
                                 (unsigned long long)actual, (unsigned long long)budget);
            return bk_report(ctx, BK_SEV_ERROR, r, LNAME(idx), BK_NO_INDEX, l->offset, "LZMA lump: %s", why);
        }
        return r;
    }
    m->lzma_budget -= out_size;
    m->owned_lumps[idx] = out;
    l->data = out;
    l->size = out_size;
    /* a mapped input's pages of the compressed bytes can go (read again from the file if asked) */
    if (ctx) bk_input_decoded(ctx, f->data + l->offset, (size_t)l->length);
    else if (f->mapped) bk_mapped_release(f->data + l->offset, (size_t)l->length);
    return BK_OK;
}

bk_result bk_vbsp_lump_decode(const bk_file *f, int idx, bk_ctx *ctx)
{
    vbsp_impl *m = f->impl;
    if (idx < 0 || idx >= BK_SRC_LUMP_COUNT || !m->pending[idx]) return BK_OK;
    const bk_source_lump *l = &m->pub.lumps[idx];
    m->pending[idx] = 0;
    uint8_t *out;
    size_t out_size, used;
    const char *why;
    bk_result r = lzma_take(m, f->data + l->offset, (size_t)l->length, m->lzma_budget, &out, &out_size, &used, &why);
    return lump_decoded(f, idx, ctx, r, out, out_size, why);
}

bool bk_vbsp_lump_pending(const bk_file *f, int idx)
{
    const vbsp_impl *m = f->impl;
    return idx >= 0 && idx < BK_SRC_LUMP_COUNT && m->pending[idx];
}

void bk_vbsp_lump_forget(const bk_file *f, int idx)
{
    vbsp_impl *m = f->impl;
    if (idx < 0 || idx >= BK_SRC_LUMP_COUNT || !m->owned_lumps[idx]) return;
    bk_source_lump *l = &m->pub.lumps[idx];
    bk_free(m->owned_lumps[idx]);
    m->owned_lumps[idx] = NULL;
    m->lzma_budget += l->size;
    bk_budget_give(m->shared, l->size);
    l->data = NULL;        /* l->size stays: what a pending lump says */
    m->pending[idx] = 1;
}

void bk_vbsp_forget_decoded(const bk_file *f)
{
    for (int i = 0; i < BK_SRC_LUMP_COUNT; i++) bk_vbsp_lump_forget(f, i);
}

/* ---- validation decodes every LZMA lump: on the machine's cores, largest first ------------- */
typedef struct par_job {
    const bk_file *f;
    int idx;
    uint64_t max_out;
    bk_result r;
    uint8_t *out;
    size_t out_size;
    const char *why;
} par_job;

typedef struct par_queue {
    par_job *jobs;     /* largest compressed size first */
    int count;
    atomic_int next;
} par_queue;

static void par_work(void *user)
{
    par_queue *q = user;
    for (int k; (k = atomic_fetch_add(&q->next, 1)) < q->count;) {
        par_job *j = &q->jobs[k];
        const bk_source_lump *l = &((vbsp_impl *)j->f->impl)->pub.lumps[j->idx];
        size_t used;
        j->r = lzma_take(j->f->impl, j->f->data + l->offset, (size_t)l->length, j->max_out, &j->out, &j->out_size,
                         &used, &j->why);
    }
}

static int by_size_desc(const void *a, const void *b)
{
    const par_job *x = a, *y = b;
    const bk_source_lump *lx = &((vbsp_impl *)x->f->impl)->pub.lumps[x->idx];
    const bk_source_lump *ly = &((vbsp_impl *)y->f->impl)->pub.lumps[y->idx];
    return lx->length < ly->length ? 1 : lx->length > ly->length ? -1 : x->idx - y->idx;
}

/* Decode the pending lumps of list (in lump order) with the results, reports and budget exactly as
 * decoding them one by one in that order would give: the budget is shared out first, in order. */
static bk_result decode_pending(ld *L, const int *list, int n)
{
    vbsp_impl *m = L->m;
    par_job *jobs = n ? bk_calloc((size_t)n, sizeof *jobs) : NULL;
    int *job_of = bk_malloc(sizeof(int) * BK_SRC_LUMP_COUNT);
    if ((n && !jobs) || !job_of) {
        bk_free(jobs);
        bk_free(job_of);
        return BK_ENOMEM;
    }
    int nj = 0;
    uint64_t budget = m->lzma_budget;
    for (int k = 0; k < n; k++) {
        const bk_source_lump *l = &m->pub.lumps[list[k]];
        const uint8_t *src = L->f->data + l->offset;
        job_of[list[k]] = -1;
        /* the ones that will fail on their header or the budget are left to the sequential pass */
        if (l->length < VBSP_LZMA_HEADER || bk_rd_u32le(src + 8) > l->length - VBSP_LZMA_HEADER) continue;
        uint64_t actual = bk_rd_u32le(src + 4);
        if (actual > budget) continue;
        budget -= actual;
        jobs[nj] = (par_job){.f = L->f, .idx = list[k], .max_out = actual};
        nj++;
    }
    if (nj > 1) qsort(jobs, (size_t)nj, sizeof *jobs, by_size_desc);
    for (int k = 0; k < nj; k++) job_of[jobs[k].idx] = k;
    par_queue q = {jobs, nj, 0};
    bk_thread th;
    bool threaded = nj > 1 && bk_cpu_count() > 1 && bk_thread_start(&th, par_work, &q);
    par_work(&q);
    if (threaded) bk_thread_join(&th);
    bk_result r = BK_OK;
    for (int k = 0; k < n; k++) {
        int i = list[k], j = job_of[i];
        bk_result lr;
        if (r == BK_ENOMEM) { /* stop: free what the workers made */
            if (j >= 0 && jobs[j].out) {
                bk_budget_give(m->shared, jobs[j].out_size);
                bk_free(jobs[j].out);
            }
            continue;
        }
        if (j >= 0) {
            m->pending[i] = 0;
            lr = lump_decoded(L->f, i, L->ctx, jobs[j].r, jobs[j].out, jobs[j].out_size, jobs[j].why);
        } else {
            lr = bk_vbsp_lump_decode(L->f, i, L->ctx);
        }
        if (lr == BK_ENOMEM) {
            r = lr;
            continue;
        }
        bk_source_lump *l = &m->pub.lumps[i];
        if (lr == BK_OK && l->data && l->fourcc && l->fourcc != l->size)
            BK_WARN(L->ctx, BK_EFORMAT, LNAME(i), BK_NO_INDEX, 8 + 16 * (uint64_t)i + 12,
                    "fourCC says %u uncompressed bytes, the LZMA header %zu", l->fourcc, l->size);
        L->f->info.lumps[i].uncompressed = l->size;
    }
    bk_free(jobs);
    bk_free(job_of);
    return r;
}

/* An LZMA lump's declared uncompressed size against its element size and the element limit,
 * before anything is inflated (the lump stays empty when it does not fit). */
static bk_result lzma_size_ok(ld *L, int i, uint32_t actual, bool *fits)
{
    /* leafs: 56 or 32 bytes by the lump's own version, checked when they are read */
    size_t es = i == BK_SRC_LUMP_LEAFS ? 0 : k_lumps[i].entry[L->f->version->column];
    *fits = true;
    if (es <= 1) return BK_OK;
    const bk_source_lump *l = &L->p->lumps[i];
    if (actual % es) {
        *fits = false;
        BK_ERR(L->ctx, BK_ELUMP_SIZE, LNAME(i), BK_NO_INDEX, l->offset,
               "LZMA header declares %u uncompressed bytes, not a multiple of the %zu-byte element", actual, es);
    } else if (actual / es > L->ctx->opt.limits.max_elements) {
        *fits = false;
        BK_ERR(L->ctx, BK_ELIMIT, LNAME(i), BK_NO_INDEX, l->offset,
               "LZMA header declares %u elements, over the limit of %llu", (unsigned)(actual / es),
               (unsigned long long)L->ctx->opt.limits.max_elements);
    }
    return BK_OK;
}

static bk_result load_directory(ld *L)
{
    bk_ctx *ctx = L->ctx;
    const uint8_t *d = L->f->data;
    size_t size = L->f->size;
    bk_source_map *p = L->p;
    /* v21 has two directory orders (two version rows, the same bytes at the start): the one that
     * places the lumps plausibly is taken */
    bool std_ok, l4_ok;
    int std_score = table_score(d, size, L->f->version->dir, &std_ok);
    if (p->version == 21 && !std_ok) {
        const bk_version_desc *l4 = bk_vbsp_version_l4d2();
        int l4_score = table_score(d, size, l4->dir, &l4_ok);
        if (l4_ok || l4_score > std_score) L->f->version = l4;
    }
    const bk_dir_layout *dir = L->f->version->dir;
    p->l4d2_layout = dir->ofs_field != 0;
    snprintf(L->f->info.variant, sizeof L->f->info.variant, "%s", L->f->version->variant);
    BK_TRY(bk_info_set_lumps(&L->f->info, BK_SRC_LUMP_COUNT));
    /* all decoded lumps together: bounded by the file's size (8 x + 64 MiB: real maps decode to 2-4 x),
     * max_decoded_bytes and max_alloc_bytes; and held from the program's budget when it gives one */
    uint64_t embedded = bk_limits_embedded_budget(&ctx->opt.limits, size);
    L->m->lzma_budget = embedded < ctx->opt.limits.max_alloc_bytes ? embedded : ctx->opt.limits.max_alloc_bytes;
    L->m->shared = ctx->opt.budget;
    int now[BK_SRC_LUMP_COUNT], now_count = 0;
    for (int i = 0; i < BK_SRC_LUMP_COUNT; i++) {
        const uint8_t *e = d + dir->dir_offset + (size_t)dir->entry_size * i;
        /* the lump's version is the field the offset and length leave: last, or first in L4D2's */
        int32_t ofs = bk_rd_i32le(e + dir->ofs_field), len = bk_rd_i32le(e + dir->len_field);
        int32_t ver = bk_rd_i32le(e + (p->l4d2_layout ? 0 : 8));
        bk_source_lump *l = &p->lumps[i];
        l->version = ver;
        l->fourcc = bk_rd_u32le(e + 12);
        bk_lump_info *li = &L->f->info.lumps[i];
        snprintf(li->name, sizeof li->name, "%s", LNAME(i));
        li->version = ver;
        li->count = -1;
        uint64_t hofs = dir->dir_offset + (uint64_t)dir->entry_size * i;
        bk_lump_span sp;
        BK_TRY(bk_lump_locate(ctx, LNAME(i), dir->header_size, dir->overlap_warns, ofs, len, size, hofs, &sp));
        bool placed = sp.ok;
        if (ofs < 0 || len < 0) continue;
        l->offset = (uint64_t)ofs; /* as stored, for reports, even when the lump is unusable */
        l->length = (uint64_t)len;
        li->offset = l->offset;
        li->length = l->length;
        li->uncompressed = l->length;
        if (!placed || len == 0) continue;
        const uint8_t *src = d + l->offset;
        /* the game lump directory and the pakfile are never compressed as a whole */
        if (i != BK_SRC_LUMP_GAME_LUMP && i != BK_SRC_LUMP_PAKFILE && l->length >= 4 && memcmp(src, "LZMA", 4) == 0) {
            l->compressed = 1;
            li->compressed = 1;
            /* outside validate mode a lump is decoded when something reads it: a sound header is
             * enough to know its size (a bad one is decoded now, to be reported) */
            uint32_t actual = l->length >= VBSP_LZMA_HEADER ? bk_rd_u32le(src + 4) : 0;
            bool fits;
            BK_TRY(lzma_size_ok(L, i, actual, &fits));
            if (!fits) continue; /* reported; never inflated */
            if (!ctx->keep_going && l->length >= VBSP_LZMA_HEADER &&
                bk_rd_u32le(src + 8) <= l->length - VBSP_LZMA_HEADER && actual <= L->m->lzma_budget) {
                L->m->pending[i] = 1;
                l->size = actual;
                li->uncompressed = actual;
                if (l->fourcc && l->fourcc != actual)
                    BK_WARN(ctx, BK_EFORMAT, LNAME(i), BK_NO_INDEX, hofs + 12,
                            "fourCC says %u uncompressed bytes, the LZMA header %u", l->fourcc, actual);
                continue;
            }
            /* decoded now, after the directory (validation, or a header to report) */
            L->m->pending[i] = 1;
            now[now_count++] = i;
        } else {
            l->data = src;
            l->size = (size_t)l->length;
        }
    }
    return decode_pending(L, now, now_count);
}

/* validate: what `pak list`, `pak extract`, `textures` and the scene builder would refuse in the
 * pakfile, by the checks they make (bk_archive_open_pakfile, bk_archive_check), as errors */
static bk_result check_pakfile(ld *L)
{
    const bk_source_lump *pl = &L->p->lumps[BK_SRC_LUMP_PAKFILE];
    bk_archive *pak = NULL;
    bk_result r = bk_archive_open_pakfile(L->f, &L->ctx->opt, &pak);
    if (r == BK_ENOMEM) return r;
    if (r != BK_OK) {
        BK_ERR(L->ctx, r, "pakfile", BK_NO_INDEX, pl->offset,
               "the embedded zip cannot be read (%s): pak list and textures refuse it", bk_strerror(r));
        return BK_OK;
    }
    for (uint32_t i = 0; i < bk_archive_count(pak); i++) {
        const char *why;
        bk_result er = bk_archive_check(pak, i, true, &why);
        if (er == BK_OK) continue;
        const bk_archive_entry *e = bk_archive_entry_at(pak, i);
        er = bk_report(L->ctx, BK_SEV_ERROR, er, "pakfile", i, pl->offset, "entry '%s' (declares %llu bytes): %s", e->name,
                       (unsigned long long)e->size, why);
        if (er != BK_OK) break;
    }
    bk_archive_close(pak);
    return BK_OK;
}

/* lumps sharing bytes: the engine does not forbid it, no compiler writes it (a warning) */
static void check_overlaps(ld *L)
{
    const bk_source_lump *lu = L->p->lumps;
    for (int i = 0; i < BK_SRC_LUMP_COUNT; i++) {
        if (!lu[i].length || (!lu[i].data && !L->m->pending[i])) continue;
        for (int j = i + 1; j < BK_SRC_LUMP_COUNT; j++) {
            if (!lu[j].length || (!lu[j].data && !L->m->pending[j])) continue;
            if (lu[i].offset < lu[j].offset + lu[j].length && lu[j].offset < lu[i].offset + lu[i].length)
                BK_WARN(L->ctx, BK_EFORMAT, LNAME(i), BK_NO_INDEX, lu[i].offset, "overlaps the %s lump",
                        LNAME(j));
        }
    }
}

/* Element count of an array lump, by its row in k_lumps, or with esize where the size depends on
 * the version (a bad size reports and counts as empty in validate mode). */
static bk_result lump_count_sized(ld *L, int idx, size_t esize, uint32_t *count)
{
    const bk_source_lump *l = &L->p->lumps[idx];
    bool ok;
    BK_TRY(bk_lump_elements(L->ctx, LNAME(idx), (uint32_t)esize, l->size, l->offset, count, &ok));
    if (ok) L->f->info.lumps[idx].count = (int64_t)*count;
    return BK_OK;
}

static bk_result lump_count(ld *L, int idx, uint32_t *count)
{
    return lump_count_sized(L, idx, k_lumps[idx].entry[0], count);
}

#define ALLOC_N(ptr, n)                                                                          \
    do {                                                                                         \
        bk_result ar_ = BK_OK;                                                                   \
        (ptr) = bk_alloc_array(L->ctx, (n), sizeof *(ptr), &ar_);                                \
        if (!(ptr)) {                                                                            \
            bk_report(L->ctx, BK_SEV_ERROR, ar_, NULL, BK_NO_INDEX, BK_NO_OFFSET,                \
                      "cannot allocate %u elements", (unsigned)(n));                             \
            return ar_;                                                                          \
        }                                                                                        \
    } while (0)

/* The reference checker over lump `lump` (the rows of source_desc.c), on the decoded bytes */
static bk_result repair_ref(void *user, uint32_t ref, uint32_t i, uint32_t k);
static bk_result check_lump_refs(ld *L, int lump)
{
    const bk_source_map *p = L->p;
    const uint32_t counts[BK_SRC_LUMP_COUNT] = {
        [BK_SRC_LUMP_PLANES] = p->plane_count,         [BK_SRC_LUMP_TEXDATA] = p->texdata_count,
        [BK_SRC_LUMP_VERTEXES] = p->vertex_count,      [BK_SRC_LUMP_NODES] = p->node_count,
        [BK_SRC_LUMP_TEXINFO] = p->texinfo_count,      [BK_SRC_LUMP_FACES] = p->face_count,
        [BK_SRC_LUMP_LEAFS] = p->leaf_count,           [BK_SRC_LUMP_EDGES] = p->edge_count,
        [BK_SRC_LUMP_SURFEDGES] = p->surfedge_count,   [BK_SRC_LUMP_MODELS] = p->model_count,
        [BK_SRC_LUMP_LEAFFACES] = p->leafface_count,   [BK_SRC_LUMP_LEAFBRUSHES] = p->leafbrush_count,
        [BK_SRC_LUMP_BRUSHES] = p->brush_count,        [BK_SRC_LUMP_BRUSHSIDES] = p->brushside_count,
        [BK_SRC_LUMP_AREAS] = p->area_count,           [BK_SRC_LUMP_AREAPORTALS] = p->areaportal_count,
        [BK_SRC_LUMP_ORIGINALFACES] = p->orig_face_count, [BK_SRC_LUMP_FACES_HDR] = p->hdr_face_count,
        [BK_SRC_LUMP_CLIPPORTALVERTS] = p->clip_portal_vert_count,
        [BK_SRC_LUMP_TEXDATA_STRING_TABLE] = L->string_count,
    };
    bk_ref_lump lumps[BK_SRC_LUMP_COUNT];
    for (int i = 0; i < BK_SRC_LUMP_COUNT; i++) {
        lumps[i].data = p->lumps[i].data;
        lumps[i].count = counts[i];
        lumps[i].ofs = p->lumps[i].offset;
        lumps[i].compressed = p->lumps[i].compressed;
    }
    /* the column of the lump's element sizes: Bloodlines' faces, the leafs' version */
    uint8_t col = 0;
    if (lump == BK_SRC_LUMP_LEAFS) col = p->leaf_version == 0 ? 0 : 1;
    else if (p->version == 17) col = 2;
    const bk_ref_input in = {&bk_family_source, col, lumps, repair_ref, L};
    return bk_check_refs(L->ctx, &in, (uint32_t)lump);
}

/* a bad index found by the checker, reset in the decoded copy where the code after relies on it */
static bk_result repair_ref(void *user, uint32_t ref, uint32_t i, uint32_t k)
{
    ld *L = user;
    bk_source_map *p = L->p;
    switch (ref) {
    case BK_SRC_REF_EDGE_VERTEX: p->edges[i * 2 + k] = 0; break;
    case BK_SRC_REF_SURFEDGE: p->surfedges[i] = 0; break;
    case BK_SRC_REF_TEXINFO_TEXDATA: p->texinfo[i].texdata = -1; break;
    case BK_SRC_REF_MODEL_FACES: p->models[i].firstface = p->models[i].numfaces = 0; break;
    default: break;
    }
    return BK_OK;
}

/* ---- per-lump decoding -------------------------------------------------------------------- */
static bk_result load_planes(ld *L)
{
    bk_source_map *p = L->p;
    uint32_t n;
    const uint8_t *d;
    BK_TRY(lump_count(L, BK_SRC_LUMP_PLANES, &n));
    ALLOC_N(p->planes, n);
    d = p->lumps[BK_SRC_LUMP_PLANES].data;
    for (uint32_t i = 0; i < n; i++, d += 20) {
        for (int k = 0; k < 3; k++) p->planes[i].normal[k] = bk_rd_f32le(d + 4 * k);
        p->planes[i].dist = bk_rd_f32le(d + 12);
        p->planes[i].type = bk_rd_i32le(d + 16);
    }
    p->plane_count = n;

    return BK_OK;
}

static bk_result load_vertexes(ld *L)
{
    bk_source_map *p = L->p;
    uint32_t n;
    const uint8_t *d;
    BK_TRY(lump_count(L, BK_SRC_LUMP_VERTEXES, &n));
    ALLOC_N(p->vertices, (size_t)n * 3);
    d = p->lumps[BK_SRC_LUMP_VERTEXES].data;
    for (uint32_t i = 0; i < n; i++, d += 12) {
        for (int k = 0; k < 3; k++) p->vertices[i * 3 + k] = bk_rd_f32le(d + 4 * k);
        if (!bk_finite3(&p->vertices[i * 3]))
            BK_ERR(L->ctx, BK_EFORMAT, "vertexes", i, eofs(L, BK_SRC_LUMP_VERTEXES, i, 12), "vertex is not finite");
    }
    p->vertex_count = n;

    return BK_OK;
}

static bk_result load_edges(ld *L)
{
    bk_source_map *p = L->p;
    uint32_t n;
    const uint8_t *d;
    BK_TRY(lump_count(L, BK_SRC_LUMP_EDGES, &n));
    ALLOC_N(p->edges, (size_t)n * 2);
    d = p->lumps[BK_SRC_LUMP_EDGES].data;
    for (uint32_t i = 0; i < (size_t)n * 2; i++) p->edges[i] = bk_rd_u16le(d + 2 * (size_t)i);
    p->edge_count = n;
    BK_TRY(check_lump_refs(L, BK_SRC_LUMP_EDGES));

    BK_TRY(lump_count(L, BK_SRC_LUMP_SURFEDGES, &n));
    ALLOC_N(p->surfedges, n);
    d = p->lumps[BK_SRC_LUMP_SURFEDGES].data;
    for (uint32_t i = 0; i < n; i++) p->surfedges[i] = bk_rd_i32le(d + 4 * (size_t)i);
    p->surfedge_count = n;
    return check_lump_refs(L, BK_SRC_LUMP_SURFEDGES);
}

static bk_result load_texdata(ld *L)
{
    bk_source_map *p = L->p;
    uint32_t n;
    const uint8_t *d;
    /* texdata names: a table of offsets into NUL-terminated strings */
    uint32_t nstr;
    BK_TRY(lump_count(L, BK_SRC_LUMP_TEXDATA_STRING_TABLE, &nstr));
    const bk_source_lump *sd = &p->lumps[BK_SRC_LUMP_TEXDATA_STRING_DATA];
    const uint8_t *st = p->lumps[BK_SRC_LUMP_TEXDATA_STRING_TABLE].data;
    BK_TRY(lump_count(L, BK_SRC_LUMP_TEXDATA, &n));
    ALLOC_N(p->texdata, n);
    p->texdata_count = n;
    L->string_count = nstr;
    BK_TRY(check_lump_refs(L, BK_SRC_LUMP_TEXDATA));
    d = p->lumps[BK_SRC_LUMP_TEXDATA].data;
    size_t total = 1;
    for (uint32_t i = 0; i < n; i++) {
        int32_t id = bk_rd_i32le(d + 32 * (size_t)i + 12);
        if (id >= 0 && (uint32_t)id < nstr) {
            int32_t so = bk_rd_i32le(st + 4 * (size_t)id);
            if (so >= 0 && (size_t)so < sd->size) {
                const uint8_t *nul = memchr(sd->data + so, 0, sd->size - (size_t)so);
                total += (nul ? (size_t)(nul - (sd->data + so)) : sd->size - (size_t)so) + 1;
            }
        }
    }
    ALLOC_N(L->m->names, total);
    size_t at = 1; /* names[0] = "" for bad entries */
    for (uint32_t i = 0; i < n; i++, d += 32) {
        bk_source_texdata *t = &p->texdata[i];
        for (int k = 0; k < 3; k++) t->reflectivity[k] = bk_rd_f32le(d + 4 * k);
        t->name_id = bk_rd_i32le(d + 12);
        t->width = bk_rd_i32le(d + 16);
        t->height = bk_rd_i32le(d + 20);
        t->view_width = bk_rd_i32le(d + 24);
        t->view_height = bk_rd_i32le(d + 28);
        t->name = L->m->names;
        uint64_t o = eofs(L, BK_SRC_LUMP_TEXDATA, i, 32);
        if (t->width < 0 || t->height < 0 || t->width > 65536 || t->height > 65536)
            BK_ERR(L->ctx, BK_EFORMAT, "texdata", i, o, "texture size %dx%d is not plausible", t->width, t->height);
        if (t->name_id < 0 || (uint32_t)t->name_id >= nstr) continue; /* reported by its row */
        int32_t so = bk_rd_i32le(st + 4 * (size_t)t->name_id);
        if (so < 0 || (size_t)so >= sd->size) {
            BK_ERR(L->ctx, BK_EINDEX, "texdata_string_table", t->name_id,
                   eofs(L, BK_SRC_LUMP_TEXDATA_STRING_TABLE, (uint64_t)t->name_id, 4),
                   "string offset %d outside the %zu-byte string data", so, sd->size);
            continue;
        }
        const uint8_t *s = sd->data + so;
        const uint8_t *nul = memchr(s, 0, sd->size - (size_t)so);
        size_t len = nul ? (size_t)(nul - s) : sd->size - (size_t)so;
        if (!nul)
            BK_WARN(L->ctx, BK_EFORMAT, "texdata_string_data", BK_NO_INDEX, sd->offset, "last name is not terminated");
        if (at + len + 1 > total) continue; /* cannot happen: sized above */
        memcpy(L->m->names + at, s, len);
        L->m->names[at + len] = 0;
        t->name = L->m->names + at;
        at += len + 1;
    }

    return BK_OK;
}

static bk_result load_texinfo(ld *L)
{
    bk_source_map *p = L->p;
    uint32_t n;
    const uint8_t *d;
    BK_TRY(lump_count(L, BK_SRC_LUMP_TEXINFO, &n));
    ALLOC_N(p->texinfo, n);
    d = p->lumps[BK_SRC_LUMP_TEXINFO].data;
    for (uint32_t i = 0; i < n; i++, d += 72) {
        bk_source_texinfo *t = &p->texinfo[i];
        for (int k = 0; k < 8; k++) {
            t->tex_vecs[k / 4][k % 4] = bk_rd_f32le(d + 4 * k);
            t->lm_vecs[k / 4][k % 4] = bk_rd_f32le(d + 32 + 4 * k);
        }
        t->flags = bk_rd_i32le(d + 64);
        t->texdata = bk_rd_i32le(d + 68);
    }
    p->texinfo_count = n;
    BK_TRY(check_lump_refs(L, BK_SRC_LUMP_TEXINFO));
    return BK_OK;
}

static bk_result load_simple(ld *L)
{
    BK_TRY(load_planes(L));
    BK_TRY(load_vertexes(L));
    BK_TRY(load_edges(L));
    BK_TRY(load_texdata(L));
    return load_texinfo(L);
}

/* dface_t: 56 bytes; Vampire: Bloodlines (v17): 104 bytes with 32 bytes of average colours first,
 * eight style bytes and two more sets of eight (day/night) */
static bk_result load_faces(ld *L, int idx, bk_source_face **out, uint32_t *out_n)
{
    bk_source_map *p = L->p;
    bool v17 = p->version == 17;
    size_t es = v17 ? 104 : 56;
    uint32_t n;
    BK_TRY(lump_count_sized(L, idx, es, &n));
    bk_source_face *fa;
    ALLOC_N(fa, n);
    *out = fa;
    *out_n = n;
    const uint8_t *d = p->lumps[idx].data;
    for (uint32_t i = 0; i < n; i++, d += es) {
        bk_source_face *f = &fa[i];
        const uint8_t *b = v17 ? d + 32 : d;
        f->planenum = bk_rd_u16le(b);
        f->side = b[2];
        f->on_node = b[3];
        f->firstedge = bk_rd_i32le(b + 4);
        f->numedges = bk_rd_i16le(b + 8);
        f->texinfo = bk_rd_i16le(b + 10);
        f->dispinfo = bk_rd_i16le(b + 12);
        f->fog_volume = bk_rd_i16le(b + 14);
        memcpy(f->styles, b + 16, 4);
        if (v17) {
            f->lightofs = bk_rd_i32le(d + 72);
            f->area = bk_rd_f32le(d + 76);
            f->lm_mins[0] = bk_rd_i32le(d + 80);
            f->lm_mins[1] = bk_rd_i32le(d + 84);
            f->lm_size[0] = bk_rd_i32le(d + 88);
            f->lm_size[1] = bk_rd_i32le(d + 92);
            f->orig_face = bk_rd_i32le(d + 96);
            f->smoothing_groups = bk_rd_u32le(d + 100);
        } else {
            f->lightofs = bk_rd_i32le(d + 20);
            f->area = bk_rd_f32le(d + 24);
            f->lm_mins[0] = bk_rd_i32le(d + 28);
            f->lm_mins[1] = bk_rd_i32le(d + 32);
            f->lm_size[0] = bk_rd_i32le(d + 36);
            f->lm_size[1] = bk_rd_i32le(d + 40);
            f->orig_face = bk_rd_i32le(d + 44);
            f->num_prims = bk_rd_u16le(d + 48);
            f->first_prim = bk_rd_u16le(d + 50);
            f->smoothing_groups = bk_rd_u32le(d + 52);
        }
    }
    return BK_OK;
}

/* bytes of lightmap samples a face needs at lightofs */
static uint64_t face_light_bytes(const bk_source_map *p, const bk_source_face *f)
{
    uint32_t styles = 0;
    while (styles < 4 && f->styles[styles] != 255) styles++;
    bool bump = f->texinfo >= 0 && (uint32_t)f->texinfo < p->texinfo_count &&
                (p->texinfo[f->texinfo].flags & BK_SRC_SURF_BUMPLIGHT);
    uint64_t lux = (uint64_t)(f->lm_size[0] + 1) * (uint64_t)(f->lm_size[1] + 1);
    return (uint64_t)styles * (bump ? 4 : 1) * lux * 4;
}

static bk_result check_faces(ld *L, int idx, bk_source_face *fa, uint32_t n, const bk_source_lump *light)
{
    bk_source_map *p = L->p;
    const char *ln = LNAME(idx);
    size_t es = p->version == 17 ? 104 : 56;
    uint32_t stale_texinfo = 0;
    BK_TRY(check_lump_refs(L, idx));
    for (uint32_t i = 0; i < n; i++) {
        bk_source_face *f = &fa[i];
        uint64_t o = eofs(L, idx, i, es);
        if (f->numedges < 0 || f->firstedge < 0 ||
            !bk_range_ok((uint64_t)f->firstedge, (uint64_t)f->numedges, p->surfedge_count)) {
            BK_ERR(L->ctx, BK_EINDEX, ln, i, o, "surfedges %d..%d+%d out of range (%u surfedges)", f->firstedge,
                   f->firstedge, f->numedges, p->surfedge_count);
            f->numedges = 0;
            f->firstedge = 0;
        } else if (f->numedges > 0 && f->numedges < 3) {
            BK_WARN(L->ctx, BK_EFORMAT, ln, i, o, "face has only %d edges", f->numedges);
        }
        if (f->texinfo < -1 || f->texinfo >= (int32_t)p->texinfo_count) {
            /* vbsp compacts the texinfo table after writing the original faces and does not remap
             * them, so there such references are normal: counted, reported once as info */
            if (idx == BK_SRC_LUMP_ORIGINALFACES) stale_texinfo++;
            else BK_ERR(L->ctx, BK_EINDEX, ln, i, o, "texinfo %d out of range (%u texinfo)", f->texinfo, p->texinfo_count);
            f->texinfo = -1;
        }
        if (f->dispinfo < -1 || f->dispinfo >= (int32_t)p->dispinfo_count) {
            BK_ERR(L->ctx, BK_EINDEX, ln, i, o, "dispinfo %d out of range (%u dispinfo)", f->dispinfo,
                   p->dispinfo_count);
            f->dispinfo = -1;
        } else if (f->dispinfo >= 0 && f->numedges != 4 && idx != BK_SRC_LUMP_ORIGINALFACES) {
            BK_ERR(L->ctx, BK_EFORMAT, ln, i, o, "displacement face has %d corners, not 4", f->numedges);
            f->dispinfo = -1;
        }
        if (idx == BK_SRC_LUMP_FACES && p->orig_face_count &&
            (f->orig_face < -1 || f->orig_face >= (int32_t)p->orig_face_count)) {
            BK_ERR(L->ctx, BK_EINDEX, ln, i, o, "original face %d out of range (%u original faces)", f->orig_face,
                   p->orig_face_count);
            f->orig_face = -1;
        }
        if (f->num_prims && p->primitive_count &&
            !bk_range_ok(f->first_prim, f->num_prims, p->primitive_count))
            BK_ERR(L->ctx, BK_EINDEX, ln, i, o, "primitives %u+%u out of range (%u primitives)", f->first_prim,
                   f->num_prims, p->primitive_count);
        if (f->lightofs < -1 && idx != BK_SRC_LUMP_ORIGINALFACES) {
            BK_ERR(L->ctx, BK_EINDEX, ln, i, o, "negative lightmap offset %d", f->lightofs);
            f->lightofs = -1;
        }
        if (f->lightofs >= 0 && f->styles[0] != 255 && idx != BK_SRC_LUMP_ORIGINALFACES) {
            if (f->lm_size[0] < 0 || f->lm_size[1] < 0 || f->lm_size[0] > 1024 || f->lm_size[1] > 1024) {
                BK_ERR(L->ctx, BK_EFORMAT, ln, i, o, "lightmap size %dx%d luxels is not plausible", f->lm_size[0],
                       f->lm_size[1]);
                f->lightofs = -1;
                continue;
            }
            uint64_t need = face_light_bytes(p, f);
            if (light && !bk_range_ok((uint64_t)f->lightofs, need, light->size)) {
                BK_ERR(L->ctx, BK_ELUMP_RANGE, ln, i, o,
                       "lightmap at %d needs %llu bytes, the %s lump has %zu", f->lightofs,
                       (unsigned long long)need, LNAME(light == &p->lumps[BK_SRC_LUMP_LIGHTING]
                                                              ? BK_SRC_LUMP_LIGHTING : BK_SRC_LUMP_LIGHTING_HDR),
                       light->size);
                f->lightofs = -1;
            }
        }
    }
    (void)stale_texinfo;
    return BK_OK;
}

/* visibility: numclusters, then {pvs, pas} byte offsets per cluster */
static bk_result load_visibility(ld *L)
{
    bk_source_map *p = L->p;
    bk_ctx *ctx = L->ctx;
    const bk_source_lump *vis = &p->lumps[BK_SRC_LUMP_VISIBILITY];
    if (vis->size >= 4) {
        int32_t nc = bk_rd_i32le(vis->data);
        if (nc < 0 || (uint64_t)nc * 8 > vis->size - 4) {
            BK_ERR(ctx, BK_ELUMP_SIZE, "visibility", BK_NO_INDEX, vis->offset,
                   "%d clusters do not fit in %zu bytes", nc, vis->size);
        } else {
            p->cluster_count = (uint32_t)nc;
            for (int32_t c = 0; c < nc; c++)
                for (int k = 0; k < 2; k++) {
                    int32_t bo = bk_rd_i32le(vis->data + 4 + 8 * (size_t)c + 4 * k);
                    if (bo < 0 || (size_t)bo >= vis->size)
                        BK_ERR(ctx, BK_EINDEX, "visibility", c, eofs(L, BK_SRC_LUMP_VISIBILITY, 4 + 8 * (uint64_t)c, 1),
                               "%s offset %d outside the %zu-byte lump", k ? "PAS" : "PVS", bo, vis->size);
                }
        }
    } else if (vis->size) {
        BK_ERR(ctx, BK_ELUMP_SIZE, "visibility", BK_NO_INDEX, vis->offset, "lump of %zu bytes has no header", vis->size);
    }

    return BK_OK;
}

static bk_result load_areas(ld *L)
{
    bk_source_map *p = L->p;
    uint32_t n;
    BK_TRY(lump_count(L, BK_SRC_LUMP_AREAPORTALS, &n));
    ALLOC_N(p->areaportals, n);
    p->areaportal_count = n;
    BK_TRY(lump_count(L, BK_SRC_LUMP_AREAS, &n));
    ALLOC_N(p->areas, n);
    p->area_count = n;
    const uint8_t *d = p->lumps[BK_SRC_LUMP_AREAS].data;
    for (uint32_t i = 0; i < n; i++, d += 8) {
        p->areas[i].num_portals = bk_rd_i32le(d);
        p->areas[i].first_portal = bk_rd_i32le(d + 4);
    }
    BK_TRY(check_lump_refs(L, BK_SRC_LUMP_AREAS));
    BK_TRY(lump_count(L, BK_SRC_LUMP_CLIPPORTALVERTS, &p->clip_portal_vert_count));
    d = p->lumps[BK_SRC_LUMP_AREAPORTALS].data;
    for (uint32_t i = 0; i < p->areaportal_count; i++, d += 12) {
        bk_source_areaportal *a = &p->areaportals[i];
        a->portal_key = bk_rd_u16le(d);
        a->other_area = bk_rd_u16le(d + 2);
        a->first_clip_vert = bk_rd_u16le(d + 4);
        a->num_clip_verts = bk_rd_u16le(d + 6);
        a->planenum = bk_rd_i32le(d + 8);
    }
    return check_lump_refs(L, BK_SRC_LUMP_AREAPORTALS);
}

static bk_result load_brushes(ld *L)
{
    bk_source_map *p = L->p;
    uint32_t n;
    BK_TRY(lump_count(L, BK_SRC_LUMP_BRUSHSIDES, &n));
    ALLOC_N(p->brushsides, n);
    p->brushside_count = n;
    const uint8_t *d = p->lumps[BK_SRC_LUMP_BRUSHSIDES].data;
    for (uint32_t i = 0; i < n; i++, d += 8) {
        bk_source_brushside *b = &p->brushsides[i];
        b->planenum = bk_rd_u16le(d);
        b->texinfo = bk_rd_i16le(d + 2);
        b->dispinfo = bk_rd_i16le(d + 4);
        b->bevel = bk_rd_i16le(d + 6);
    }
    BK_TRY(check_lump_refs(L, BK_SRC_LUMP_BRUSHSIDES));
    BK_TRY(lump_count(L, BK_SRC_LUMP_BRUSHES, &n));
    ALLOC_N(p->brushes, n);
    p->brush_count = n;
    d = p->lumps[BK_SRC_LUMP_BRUSHES].data;
    for (uint32_t i = 0; i < n; i++, d += 12) {
        p->brushes[i].firstside = bk_rd_i32le(d);
        p->brushes[i].numsides = bk_rd_i32le(d + 4);
        p->brushes[i].contents = bk_rd_i32le(d + 8);
    }
    return check_lump_refs(L, BK_SRC_LUMP_BRUSHES);
}

/* the leafs' lists: faces and brushes */
static bk_result load_leaf_lists(ld *L)
{
    bk_source_map *p = L->p;
    uint32_t n;
    BK_TRY(lump_count(L, BK_SRC_LUMP_LEAFFACES, &n));
    ALLOC_N(p->leaffaces, n);
    p->leafface_count = n;
    const uint8_t *d = p->lumps[BK_SRC_LUMP_LEAFFACES].data;
    for (uint32_t i = 0; i < n; i++) p->leaffaces[i] = bk_rd_u16le(d + 2 * (size_t)i);
    BK_TRY(check_lump_refs(L, BK_SRC_LUMP_LEAFFACES));
    BK_TRY(lump_count(L, BK_SRC_LUMP_LEAFBRUSHES, &n));
    ALLOC_N(p->leafbrushes, n);
    p->leafbrush_count = n;
    d = p->lumps[BK_SRC_LUMP_LEAFBRUSHES].data;
    for (uint32_t i = 0; i < n; i++) p->leafbrushes[i] = bk_rd_u16le(d + 2 * (size_t)i);
    return check_lump_refs(L, BK_SRC_LUMP_LEAFBRUSHES);
}

static bk_result load_leafs(ld *L)
{
    bk_source_map *p = L->p;
    bk_ctx *ctx = L->ctx;
    uint32_t n;
    /* leafs: lump version 0 (v19/v20 era) carries a 24-byte ambient light cube (56 bytes);
     * version 1 and Bloodlines' v17 leafs are 32 bytes */
    int32_t lv = p->lumps[BK_SRC_LUMP_LEAFS].version;
    size_t les = (lv == 0 && p->version != 17) ? 56 : 32;
    size_t lsz = p->lumps[BK_SRC_LUMP_LEAFS].size, other = les == 56 ? 32 : 56;
    if (lsz % les && lsz % other == 0) {
        BK_WARN(ctx, BK_EFORMAT, "leafs", BK_NO_INDEX, p->lumps[BK_SRC_LUMP_LEAFS].offset,
                "lump version %d suggests %zu-byte leafs but the size fits %zu-byte ones: read as those", lv, les,
                other);
        les = other;
    }
    p->leaf_version = les == 56 ? 0 : 1;
    BK_TRY(lump_count_sized(L, BK_SRC_LUMP_LEAFS, les, &n));
    ALLOC_N(p->leafs, n);
    p->leaf_count = n;
    const uint8_t *d = p->lumps[BK_SRC_LUMP_LEAFS].data;
    for (uint32_t i = 0; i < n; i++, d += les) {
        bk_source_leaf *l = &p->leafs[i];
        l->contents = bk_rd_i32le(d);
        l->cluster = bk_rd_i16le(d + 4);
        uint16_t af = bk_rd_u16le(d + 6);
        l->area = af & 0x1ff;
        l->flags = af >> 9;
        for (int k = 0; k < 3; k++) {
            l->mins[k] = bk_rd_i16le(d + 8 + 2 * k);
            l->maxs[k] = bk_rd_i16le(d + 14 + 2 * k);
        }
        l->firstleafface = bk_rd_u16le(d + 20);
        l->numleaffaces = bk_rd_u16le(d + 22);
        l->firstleafbrush = bk_rd_u16le(d + 24);
        l->numleafbrushes = bk_rd_u16le(d + 26);
        l->leaf_water_data = bk_rd_i16le(d + 28);
    }
    BK_TRY(check_lump_refs(L, BK_SRC_LUMP_LEAFS));
    /* cluster and area: against counts only known here (area is 9 bits of a shared word) */
    for (uint32_t i = 0; i < n; i++) {
        const bk_source_leaf *l = &p->leafs[i];
        uint64_t o = eofs(L, BK_SRC_LUMP_LEAFS, i, les);
        if (p->cluster_count && (l->cluster < -1 || l->cluster >= (int32_t)p->cluster_count))
            BK_ERR(ctx, BK_EINDEX, "leafs", i, o, "cluster %d out of range (%u clusters)", l->cluster, p->cluster_count);
        if (p->area_count && l->area >= p->area_count)
            BK_ERR(ctx, BK_EINDEX, "leafs", i, o, "area %u out of range (%u areas)", l->area, p->area_count);
    }
    return BK_OK;
}

/* node children: >= 0 a node, else -1 - leaf */
static bk_result load_nodes(ld *L)
{
    bk_source_map *p = L->p;
    uint32_t n;
    BK_TRY(lump_count(L, BK_SRC_LUMP_NODES, &n));
    ALLOC_N(p->nodes, n);
    p->node_count = n;
    const uint8_t *d = p->lumps[BK_SRC_LUMP_NODES].data;
    for (uint32_t i = 0; i < n; i++, d += 32) {
        bk_source_node *nd = &p->nodes[i];
        nd->planenum = bk_rd_i32le(d);
        nd->children[0] = bk_rd_i32le(d + 4);
        nd->children[1] = bk_rd_i32le(d + 8);
        for (int k = 0; k < 3; k++) {
            nd->mins[k] = bk_rd_i16le(d + 12 + 2 * k);
            nd->maxs[k] = bk_rd_i16le(d + 18 + 2 * k);
        }
        nd->firstface = bk_rd_u16le(d + 24);
        nd->numfaces = bk_rd_u16le(d + 26);
        nd->area = bk_rd_i16le(d + 28);
    }
    BK_TRY(check_lump_refs(L, BK_SRC_LUMP_NODES));
    for (uint32_t i = 0; i < n; i++)
        for (int k = 0; k < 2; k++) {
            int32_t c = p->nodes[i].children[k];
            if (c >= 0 ? (uint32_t)c >= n : (uint64_t)(-(int64_t)c - 1) >= p->leaf_count)
                BK_ERR(L->ctx, BK_EINDEX, "nodes", i, eofs(L, BK_SRC_LUMP_NODES, i, 32),
                       "child %d out of range (%u nodes, %u leafs)", c, n, p->leaf_count);
        }
    return BK_OK;
}

static bk_result load_models(ld *L)
{
    bk_source_map *p = L->p;
    uint32_t n;
    BK_TRY(lump_count(L, BK_SRC_LUMP_MODELS, &n));
    ALLOC_N(p->models, n);
    p->model_count = n;
    const uint8_t *d = p->lumps[BK_SRC_LUMP_MODELS].data;
    for (uint32_t i = 0; i < n; i++, d += 48) {
        bk_source_model *md = &p->models[i];
        for (int k = 0; k < 3; k++) {
            md->mins[k] = bk_rd_f32le(d + 4 * k);
            md->maxs[k] = bk_rd_f32le(d + 12 + 4 * k);
            md->origin[k] = bk_rd_f32le(d + 24 + 4 * k);
        }
        md->headnode = bk_rd_i32le(d + 36);
        md->firstface = bk_rd_i32le(d + 40);
        md->numfaces = bk_rd_i32le(d + 44);
    }
    BK_TRY(check_lump_refs(L, BK_SRC_LUMP_MODELS));
    if (n == 0 && p->face_count)
        BK_ERR(L->ctx, BK_EFORMAT, "models", BK_NO_INDEX, p->lumps[BK_SRC_LUMP_MODELS].offset,
               "map has faces but no world model");
    return BK_OK;
}

/* the tree and what it reaches, one loader per lump (as Quake III's CMod_Load<Lump>) */
static bk_result load_tree(ld *L)
{
    BK_TRY(load_visibility(L));
    BK_TRY(load_areas(L));
    BK_TRY(load_brushes(L));
    BK_TRY(load_leaf_lists(L));
    BK_TRY(load_leafs(L));
    BK_TRY(load_nodes(L));
    return load_models(L);
}

static bk_result load_displacements(ld *L)
{
    bk_source_map *p = L->p;
    uint32_t n;
    BK_TRY(lump_count(L, BK_SRC_LUMP_DISP_VERTS, &n));
    ALLOC_N(p->dispverts, n);
    p->dispvert_count = n;
    const uint8_t *d = p->lumps[BK_SRC_LUMP_DISP_VERTS].data;
    for (uint32_t i = 0; i < n; i++, d += 20) {
        bk_source_dispvert *v = &p->dispverts[i];
        for (int k = 0; k < 3; k++) v->vec[k] = bk_rd_f32le(d + 4 * k);
        v->dist = bk_rd_f32le(d + 12);
        v->alpha = bk_rd_f32le(d + 16);
    }
    BK_TRY(lump_count(L, BK_SRC_LUMP_DISP_TRIS, &n));
    ALLOC_N(p->disptris, n);
    p->disptri_count = n;
    d = p->lumps[BK_SRC_LUMP_DISP_TRIS].data;
    for (uint32_t i = 0; i < n; i++) p->disptris[i] = bk_rd_u16le(d + 2 * (size_t)i);

    BK_TRY(lump_count(L, BK_SRC_LUMP_DISPINFO, &n));
    ALLOC_N(p->dispinfo, n);
    p->dispinfo_count = n;
    d = p->lumps[BK_SRC_LUMP_DISPINFO].data;
    for (uint32_t i = 0; i < n; i++, d += 176) {
        bk_source_dispinfo *di = &p->dispinfo[i];
        for (int k = 0; k < 3; k++) di->start[k] = bk_rd_f32le(d + 4 * k);
        di->vert_start = bk_rd_i32le(d + 12);
        di->tri_start = bk_rd_i32le(d + 16);
        di->power = bk_rd_i32le(d + 20);
        di->min_tess = bk_rd_i32le(d + 24);
        di->smoothing_angle = bk_rd_f32le(d + 28);
        di->contents = bk_rd_i32le(d + 32);
        di->map_face = bk_rd_u16le(d + 36);
        di->lm_alpha_start = bk_rd_i32le(d + 40);
        di->lm_sample_start = bk_rd_i32le(d + 44);
    }
    return BK_OK;
}

/* needs faces loaded */
static bk_result check_displacements(ld *L)
{
    bk_source_map *p = L->p;
    bk_ctx *ctx = L->ctx;
    for (uint32_t i = 0; i < p->dispinfo_count; i++) {
        bk_source_dispinfo *di = &p->dispinfo[i];
        uint64_t o = eofs(L, BK_SRC_LUMP_DISPINFO, i, 176);
        if (di->power < 2 || di->power > 4) {
            BK_ERR(ctx, BK_EFORMAT, "dispinfo", i, o, "power %d is not 2, 3 or 4", di->power);
            di->power = 0;
            continue;
        }
        uint64_t side = (1u << di->power) + 1, nv = side * side, nt = 2ull << (2 * di->power);
        if (di->vert_start < 0 || !bk_range_ok((uint64_t)di->vert_start, nv, p->dispvert_count)) {
            BK_ERR(ctx, BK_EINDEX, "dispinfo", i, o, "vertices %d+%llu out of range (%u dispverts)", di->vert_start,
                   (unsigned long long)nv, p->dispvert_count);
            di->power = 0;
        }
        if (di->tri_start < 0 || !bk_range_ok((uint64_t)di->tri_start, nt, p->disptri_count))
            BK_ERR(ctx, BK_EINDEX, "dispinfo", i, o, "triangles %d+%llu out of range (%u disp_tris)", di->tri_start,
                   (unsigned long long)nt, p->disptri_count);
        if (di->map_face >= p->face_count) {
            BK_ERR(ctx, BK_EINDEX, "dispinfo", i, o, "face %u out of range (%u faces)", di->map_face, p->face_count);
            di->power = 0;
            continue;
        }
        const bk_source_face *f = &p->faces[di->map_face];
        if (f->numedges != 4) {
            BK_ERR(ctx, BK_EFORMAT, "dispinfo", i, o, "base face %u has %d corners, a displacement needs 4",
                   di->map_face, f->numedges);
            di->power = 0;
        }
        if (f->dispinfo != (int32_t)i)
            BK_WARN(ctx, BK_EFORMAT, "dispinfo", i, o, "base face %u refers to dispinfo %d", di->map_face, f->dispinfo);
        if (di->power) {
            for (uint64_t k = 0; k < nv; k++) {
                const bk_source_dispvert *v = &p->dispverts[(uint64_t)di->vert_start + k];
                if (!bk_finite3(v->vec) || v->dist - v->dist != 0.0f || v->alpha - v->alpha != 0.0f) {
                    BK_ERR(ctx, BK_EFORMAT, "dispverts", (int64_t)(di->vert_start + (int64_t)k),
                           eofs(L, BK_SRC_LUMP_DISP_VERTS, (uint64_t)di->vert_start + k, 20), "value is not finite");
                    di->power = 0;
                    break;
                }
            }
        }
    }
    return BK_OK;
}

/* ---- game lumps --------------------------------------------------------------------------- */

typedef struct sprp_layout {
    int32_t version;
    uint32_t size;
    uint32_t fields;
} sprp_layout;

#define F_FF BK_SPROP_FORCED_FADE
#define F_DX BK_SPROP_DX_LEVEL
#define F_CPU BK_SPROP_CPU_GPU_LEVEL
#define F_DIF BK_SPROP_DIFFUSE
#define F_X360 BK_SPROP_DISABLE_X360
#define F_FX BK_SPROP_FLAGS_EX
#define F_SC BK_SPROP_SCALE
#define F_LMR BK_SPROP_LIGHTMAP_RES
/* (version, entry size) -> fields. Several games share a version number with different layouts
 * (TF2/SDK 2013 v10 is 72 bytes, CS:GO v10 is 76), so the entry size decides. */
static const sprp_layout k_sprp[] = {
    {4, 56, 0},
    {5, 60, F_FF},
    {6, 64, F_FF | F_DX},
    {7, 68, F_FF | F_DX | F_DIF},
    {7, 72, F_FF | F_DX | F_LMR},
    {8, 68, F_FF | F_CPU | F_DIF},
    {9, 72, F_FF | F_CPU | F_DIF | F_X360},
    {10, 72, F_FF | F_DX | F_LMR},
    {10, 76, F_FF | F_CPU | F_DIF | F_X360 | F_FX},
    {11, 80, F_FF | F_CPU | F_DIF | F_X360 | F_FX | F_SC},
    {12, 80, F_FF | F_CPU | F_DIF | F_X360 | F_FX | F_SC},
};

static const char *gl_name(uint32_t id, char *buf) { return bk_source_fourcc(id, buf); }

/* one StaticPropLump_t of es bytes: the common fields, then those of the layout's version */
static void read_static_prop(bk_source_static_prop *s, const uint8_t *e, uint32_t es, uint32_t fields)
{
    bk_cursor pc = bk_cursor_make(e, es);
    for (int k = 0; k < 3; k++) s->origin[k] = bk_cur_f32le(&pc);
    for (int k = 0; k < 3; k++) s->angles[k] = bk_cur_f32le(&pc);
    s->model = bk_cur_u16le(&pc);
    s->first_leaf = bk_cur_u16le(&pc);
    s->leaf_count = bk_cur_u16le(&pc);
    s->solid = bk_cur_u8(&pc);
    s->flags = bk_cur_u8(&pc);
    s->skin = bk_cur_i32le(&pc);
    s->fade_min = bk_cur_f32le(&pc);
    s->fade_max = bk_cur_f32le(&pc);
    for (int k = 0; k < 3; k++) s->lighting_origin[k] = bk_cur_f32le(&pc);
    s->forced_fade_scale = 1.0f;
    s->scale = 1.0f;
    if (fields & F_FF) s->forced_fade_scale = bk_cur_f32le(&pc);
    if (fields & F_DX) {
        s->min_dx_level = bk_cur_u16le(&pc);
        s->max_dx_level = bk_cur_u16le(&pc);
    }
    if (fields & F_LMR) {
        /* the lightmapped layout (TF2, SDK 2013): the flags byte above is padding, the flags are
         * this uint32 (gamebspfile.h StaticPropLump_t, v10 of SDK 2013) */
        s->flags = bk_cur_u32le(&pc);
        s->lightmap_res[0] = bk_cur_u16le(&pc);
        s->lightmap_res[1] = bk_cur_u16le(&pc);
    }
    if (fields & F_CPU) {
        s->min_cpu_level = bk_cur_u8(&pc);
        s->max_cpu_level = bk_cur_u8(&pc);
        s->min_gpu_level = bk_cur_u8(&pc);
        s->max_gpu_level = bk_cur_u8(&pc);
    }
    if (fields & F_DIF)
        for (int k = 0; k < 4; k++) s->diffuse[k] = bk_cur_u8(&pc);
    if (fields & F_X360) s->disable_x360 = bk_cur_u32le(&pc);
    if (fields & F_FX) s->flags_ex = bk_cur_u32le(&pc);
    if (fields & F_SC) s->scale = bk_cur_f32le(&pc);
}

static bk_result load_sprp(ld *L, const bk_source_game_lump *g)
{
    bk_source_map *p = L->p;
    bk_ctx *ctx = L->ctx;
    const char *ln = "game_lump:sprp";
    bk_cursor c = bk_cursor_make(g->data, g->size);
    uint64_t o = g->offset;
    p->sprp_version = g->version;
    int32_t nd = bk_cur_i32le(&c);
    if (c.bad || nd < 0 || (uint64_t)nd * 128 > c.size - c.pos) {
        BK_ERR(ctx, BK_ETRUNCATED, ln, BK_NO_INDEX, o, "model dictionary of %d names does not fit in %zu bytes", nd,
               g->size);
        return BK_OK;
    }
    char *block;
    ALLOC_N(block, (size_t)nd * 129 + 1);
    L->prop_name_block = block;
    ((vbsp_impl_full *)L->m)->extra.prop_name_block = block; /* owned by the map from here on */
    ALLOC_N(p->static_prop_names, (size_t)nd + 1);
    for (int32_t i = 0; i < nd; i++) {
        const uint8_t *s = bk_cur_take(&c, 128);
        bk_copy_name(block + (size_t)i * 129, 129, s, 128);
        p->static_prop_names[i] = block + (size_t)i * 129;
    }
    p->static_prop_name_count = (uint32_t)nd;
    int32_t nl = bk_cur_i32le(&c);
    if (c.bad || nl < 0 || (uint64_t)nl * 2 > c.size - c.pos) {
        BK_ERR(ctx, BK_ETRUNCATED, ln, BK_NO_INDEX, o, "leaf list of %d entries does not fit", nl);
        return BK_OK;
    }
    ALLOC_N(p->static_prop_leaves, (size_t)nl);
    for (int32_t i = 0; i < nl; i++) {
        uint16_t lf = bk_cur_u16le(&c);
        p->static_prop_leaves[i] = lf;
        if (p->leaf_count && lf >= p->leaf_count)
            BK_ERR(ctx, BK_EINDEX, ln, i, o, "prop leaf %u out of range (%u leafs)", lf, p->leaf_count);
    }
    p->static_prop_leaf_count = (uint32_t)nl;
    int32_t np = bk_cur_i32le(&c);
    if (c.bad || np < 0) {
        BK_ERR(ctx, BK_ETRUNCATED, ln, BK_NO_INDEX, o, "prop count missing or negative (%d)", np);
        return BK_OK;
    }
    size_t rest = c.size - c.pos;
    if (np == 0) {
        if (rest) BK_WARN(ctx, BK_EFORMAT, ln, BK_NO_INDEX, o, "%zu bytes after an empty prop list", rest);
        return BK_OK;
    }
    if (rest % (size_t)np || rest / (size_t)np < 56) {
        BK_ERR(ctx, BK_ELUMP_SIZE, ln, BK_NO_INDEX, o, "%zu bytes do not hold %d props of a known size", rest, np);
        return BK_OK;
    }
    if ((uint64_t)np > ctx->opt.limits.max_elements) {
        BK_ERR(ctx, BK_ELIMIT, ln, BK_NO_INDEX, o, "%d props is over the limit", np);
        return BK_OK;
    }
    uint32_t es = (uint32_t)(rest / (size_t)np);
    const sprp_layout *lay = NULL;
    for (size_t i = 0; i < BK_ARRAY_LEN(k_sprp) && !lay; i++)
        if (k_sprp[i].version == g->version && k_sprp[i].size == es) lay = &k_sprp[i];
    for (size_t i = 0; i < BK_ARRAY_LEN(k_sprp) && !lay; i++)
        if (k_sprp[i].size == es) {
            lay = &k_sprp[i];
            BK_WARN(ctx, BK_EFORMAT, ln, BK_NO_INDEX, o,
                    "version %u with %u-byte props: read with the version %d layout", g->version, es, lay->version);
        }
    uint32_t fields = lay ? lay->fields : 0;
    if (!lay)
        BK_WARN(ctx, BK_EUNSUPPORTED, ln, BK_NO_INDEX, o,
                "version %u with %u-byte props is not a known layout: only the common fields are read", g->version, es);
    p->sprp_entry_size = es;
    p->sprp_fields = fields;
    ALLOC_N(p->static_props, (size_t)np);
    p->static_prop_count = (uint32_t)np;
    for (int32_t i = 0; i < np; i++) {
        bk_source_static_prop *s = &p->static_props[i];
        read_static_prop(s, c.data + c.pos + (size_t)i * es, es, fields);
        uint64_t po = g->compressed ? g->offset : g->offset + c.pos + (uint64_t)i * es;
        if (!bk_finite3(s->origin) || !bk_finite3(s->angles) || !(s->scale - s->scale == 0.0f))
            BK_ERR(ctx, BK_EFORMAT, ln, i, po, "prop origin, angles or scale is not finite");
        if (s->model >= p->static_prop_name_count)
            BK_ERR(ctx, BK_EINDEX, ln, i, po, "model %u out of range (%u names)", s->model, p->static_prop_name_count);
        if (!bk_range_ok(s->first_leaf, s->leaf_count, p->static_prop_leaf_count))
            BK_ERR(ctx, BK_EINDEX, ln, i, po, "leaves %u+%u out of range (%u)", s->first_leaf, s->leaf_count,
                   p->static_prop_leaf_count);
    }
    return BK_OK;
}

static void load_dprp(ld *L, const bk_source_game_lump *g)
{
    bk_source_map *p = L->p;
    const char *ln = "game_lump:dprp";
    bk_cursor c = bk_cursor_make(g->data, g->size);
    p->dprp_version = g->version;
    int32_t nm = bk_cur_i32le(&c);
    if (c.bad || nm < 0 || (uint64_t)nm * 128 > c.size - c.pos) {
        BK_WARN(L->ctx, BK_ETRUNCATED, ln, BK_NO_INDEX, g->offset, "detail model dictionary (%d) does not fit", nm);
        return;
    }
    bk_cur_skip(&c, (size_t)nm * 128);
    p->detail_model_count = (uint32_t)nm;
    if (g->version >= 4) {
        int32_t ns = bk_cur_i32le(&c);
        if (c.bad || ns < 0 || (uint64_t)ns * 32 > c.size - c.pos) {
            BK_WARN(L->ctx, BK_ETRUNCATED, ln, BK_NO_INDEX, g->offset, "detail sprite dictionary (%d) does not fit", ns);
            return;
        }
        bk_cur_skip(&c, (size_t)ns * 32);
        p->detail_sprite_count = (uint32_t)ns;
    }
    if (c.size - c.pos >= 4) {
        int32_t no = bk_cur_i32le(&c);
        if (no < 0 || (uint64_t)no > c.size - c.pos) {
            BK_WARN(L->ctx, BK_ETRUNCATED, ln, BK_NO_INDEX, g->offset, "%d detail props do not fit", no);
            return;
        }
        p->detail_prop_count = (uint32_t)no;
    }
}

static bk_result load_game_lumps(ld *L)
{
    bk_source_map *p = L->p;
    bk_ctx *ctx = L->ctx;
    const bk_source_lump *gl = &p->lumps[BK_SRC_LUMP_GAME_LUMP];
    p->sprp_version = -1;
    p->dprp_version = -1;
    if (gl->size == 0) return BK_OK;
    if (gl->size < 4) {
        BK_ERR(ctx, BK_ETRUNCATED, "game_lump", BK_NO_INDEX, gl->offset, "directory of %zu bytes has no count", gl->size);
        return BK_OK;
    }
    int32_t n = bk_rd_i32le(gl->data);
    if (n < 0 || (uint64_t)n * 16 > gl->size - 4) {
        BK_ERR(ctx, BK_ELUMP_SIZE, "game_lump", BK_NO_INDEX, gl->offset, "%d entries do not fit in %zu bytes", n, gl->size);
        return BK_OK;
    }
    ALLOC_N(p->game_lumps, (size_t)n);
    ALLOC_N(L->gl_owned, (size_t)n);
    vbsp_impl_full *F = (vbsp_impl_full *)L->m;
    F->extra.gl_owned = L->gl_owned;
    F->extra.gl_count = (uint32_t)n;
    p->game_lump_count = (uint32_t)n;
    for (int32_t i = 0; i < n; i++) {
        const uint8_t *e = gl->data + 4 + 16 * (size_t)i;
        bk_source_game_lump *g = &p->game_lumps[i];
        g->id = bk_rd_u32le(e);
        g->flags = bk_rd_u16le(e + 4);
        g->version = bk_rd_u16le(e + 6);
        int32_t ofs = bk_rd_i32le(e + 8), len = bk_rd_i32le(e + 12);
        uint64_t eo = gl->compressed ? gl->offset : gl->offset + 4 + 16 * (uint64_t)i;
        char nm[5];
        gl_name(g->id, nm);
        if (g->id == 0) {
            if (i != n - 1 || ofs != 0 || len != 0)
                BK_WARN(ctx, BK_EFORMAT, "game_lump", i, eo, "id-0 entry that is not a final empty terminator");
            continue;
        }
        if (ofs < 0 || len < 0) {
            BK_ERR(ctx, BK_ELUMP_RANGE, "game_lump", i, eo, "'%s': negative offset %d or length %d", nm, ofs, len);
            continue;
        }
        g->offset = (uint64_t)ofs;
        g->length = (uint64_t)len;
        if (g->flags & 1) {
            /* compressed: filelen is the uncompressed size; the LZMA header gives the span */
            if ((uint64_t)ofs >= L->f->size) {
                BK_ERR(ctx, BK_ELUMP_RANGE, "game_lump", i, eo, "'%s' at %d lies outside the file", nm, ofs);
                continue;
            }
            uint8_t *out;
            size_t out_size, used;
            const char *why;
            bk_result r = lzma_take(L->m, L->f->data + ofs, L->f->size - (size_t)ofs, L->m->lzma_budget, &out, &out_size,
                                    &used, &why);
            if (r == BK_ENOMEM) return r;
            if (r != BK_OK) {
                BK_ERR(ctx, r, "game_lump", i, (uint64_t)ofs, "'%s' LZMA: %s", nm, why);
                continue;
            }
            L->m->lzma_budget -= out_size;
            L->gl_owned[i] = out;
            g->data = out;
            g->size = out_size;
            g->compressed = 1;
            if (out_size != (uint64_t)len)
                BK_WARN(ctx, BK_EFORMAT, "game_lump", i, eo, "'%s' decodes to %zu bytes, the directory says %d", nm,
                        out_size, len);
        } else {
            uint64_t at = (uint64_t)ofs;
            if (!bk_span_ok(at, (uint64_t)len, L->f->size) && !gl->compressed &&
                bk_span_ok(gl->offset + at, (uint64_t)len, L->f->size)) {
                /* console builds store offsets relative to the game lump */
                at = gl->offset + at;
                BK_WARN(ctx, BK_EFORMAT, "game_lump", i, eo, "'%s' offset %d read relative to the game lump", nm, ofs);
            }
            if (!bk_span_ok(at, (uint64_t)len, L->f->size)) {
                BK_ERR(ctx, BK_ELUMP_RANGE, "game_lump", i, eo, "'%s' at %d with %d bytes runs past the end of the file",
                       nm, ofs, len);
                continue;
            }
            g->offset = at;
            g->data = L->f->data + at;
            g->size = (size_t)len;
        }
        if (g->id == SPRP_ID && p->sprp_version < 0) BK_TRY(load_sprp(L, g));
        else if (g->id == DPRP_ID && p->dprp_version < 0) load_dprp(L, g);
    }
    return BK_OK;
}

/* ---- the whole file ----------------------------------------------------------------------- */

int32_t bk_vbsp_pak_count(const uint8_t *data, size_t size);

/* the three face lumps (original, plain, HDR) and their checks */
static bk_result load_all_faces(ld *L)
{
    bk_source_map *p = L->p;
    bk_ctx *ctx = L->ctx;
    BK_TRY(load_faces(L, BK_SRC_LUMP_ORIGINALFACES, &p->orig_faces, &p->orig_face_count));
    BK_TRY(load_faces(L, BK_SRC_LUMP_FACES, &p->faces, &p->face_count));
    if (p->version != 17) BK_TRY(load_faces(L, BK_SRC_LUMP_FACES_HDR, &p->hdr_faces, &p->hdr_face_count));
    const bk_source_lump *ldr = &p->lumps[BK_SRC_LUMP_LIGHTING], *hdr = &p->lumps[BK_SRC_LUMP_LIGHTING_HDR];
    /* a map compiled without vrad has lightofs values but no lighting at all: nothing to check */
    BK_TRY(check_faces(L, BK_SRC_LUMP_FACES, p->faces, p->face_count, ldr->size ? ldr : (hdr->size ? hdr : NULL)));
    BK_TRY(check_faces(L, BK_SRC_LUMP_ORIGINALFACES, p->orig_faces, p->orig_face_count, NULL));
    if (p->hdr_face_count) {
        if (p->hdr_face_count != p->face_count)
            BK_WARN(ctx, BK_EFORMAT, "faces_hdr", BK_NO_INDEX, p->lumps[BK_SRC_LUMP_FACES_HDR].offset,
                    "%u HDR faces for %u faces", p->hdr_face_count, p->face_count);
        BK_TRY(check_faces(L, BK_SRC_LUMP_FACES_HDR, p->hdr_faces, p->hdr_face_count, hdr));
    }
    return BK_OK;
}

static void fill_info(bk_file *f, const bk_source_map *p)
{
    const bk_source_lump *ldr = &p->lumps[BK_SRC_LUMP_LIGHTING], *hdr = &p->lumps[BK_SRC_LUMP_LIGHTING_HDR];
    bk_info *in = &f->info;
    bk_info_count(in, "entities", f->entities.count);
    bk_info_count(in, "faces", p->face_count);
    bk_info_count(in, "models", p->model_count);
    bk_info_count(in, "textures", p->texdata_count);
    bk_info_count(in, "vertices", p->vertex_count);
    bk_info_count(in, "planes", p->plane_count);
    bk_info_count(in, "edges", p->edge_count);
    bk_info_count(in, "surfedges", p->surfedge_count);
    bk_info_count(in, "texinfo", p->texinfo_count);
    bk_info_count(in, "original_faces", p->orig_face_count);
    bk_info_count(in, "nodes", p->node_count);
    bk_info_count(in, "leafs", p->leaf_count);
    bk_info_count(in, "leaffaces", p->leafface_count);
    bk_info_count(in, "leafbrushes", p->leafbrush_count);
    bk_info_count(in, "brushes", p->brush_count);
    bk_info_count(in, "brushsides", p->brushside_count);
    bk_info_count(in, "areas", p->area_count);
    bk_info_count(in, "areaportals", p->areaportal_count);
    bk_info_count(in, "clusters", p->cluster_count);
    bk_info_count(in, "displacements", p->dispinfo_count);
    bk_info_count(in, "disp_verts", p->dispvert_count);
    bk_info_count(in, "disp_tris", p->disptri_count);
    bk_info_count(in, "cubemaps", p->cubemap_count);
    bk_info_count(in, "overlays", p->overlay_count);
    uint32_t real_gl = 0; /* not counting an id-0 terminator */
    for (uint32_t i = 0; i < p->game_lump_count; i++) real_gl += p->game_lumps[i].id != 0;
    bk_info_count(in, "game_lumps", real_gl);
    bk_info_count(in, "static_props", p->static_prop_count);
    bk_info_count(in, "static_prop_models", p->static_prop_name_count);
    bk_info_count(in, "detail_props", p->detail_prop_count);
    bk_info_count(in, "detail_models", p->detail_model_count);
    bk_info_count(in, "pakfile_entries", p->pakfile_entries < 0 ? 0 : (uint64_t)p->pakfile_entries);
    bk_info_count(in, "lightmap_bytes", ldr->size ? ldr->size : hdr->size);
    bk_info_count(in, "map_revision", (uint64_t)(uint32_t)p->map_revision);
}

static bk_result vbsp_load(bk_file *f, bk_ctx *ctx)
{
    const uint8_t *d = f->data;
    if (f->size >= 4 && memcmp(d, "rBSP", 4) == 0) {
        BK_ERR(ctx, BK_EUNSUPPORTED, "header", BK_NO_INDEX, 0,
               "Respawn rBSP (Titanfall / Apex) is not a Valve VBSP map: not supported");
        return BK_EUNSUPPORTED;
    }
    if (f->size >= 4 && memcmp(d, "PSBV", 4) == 0) {
        BK_ERR(ctx, BK_EUNSUPPORTED, "header", BK_NO_INDEX, 0,
               "big-endian console VBSP (\"PSBV\", Xbox 360 / PS3) is not supported");
        return BK_EUNSUPPORTED;
    }
    if (f->size < VBSP_HEADER_SIZE) {
        BK_ERR(ctx, BK_ETRUNCATED, "header", BK_NO_INDEX, 0, "file of %zu bytes is shorter than the %u-byte VBSP header",
               f->size, VBSP_HEADER_SIZE);
        return BK_ETRUNCATED;
    }
    int32_t version = bk_rd_i32le(d + 4);
    f->info.format = BK_FORMAT_SOURCE;
    f->info.version = version;
    f->version = bk_family_version(&bk_family_source, d, f->size);
    if (!f->version || !f->version->supported) {
        BK_ERR(ctx, BK_EVERSION, "header", BK_NO_INDEX, 4,
               "VBSP version %d is not supported (supported: 17, 19, 20, 21)%s", version,
               version == 25 ? "; v25 is Momentum Mod / Strata Source" :
               version == 42 ? "; v42 is not a version any engine writes" : "");
        return BK_EVERSION;
    }
    vbsp_impl_full *F = bk_calloc(1, sizeof *F);
    if (!F) return BK_ENOMEM;
    f->impl = F;
    ld L = {f, ctx, &F->base, &F->base.pub, NULL, NULL, 0};
    bk_source_map *p = L.p;
    p->version = version;
    p->map_revision = bk_rd_i32le(d + 8 + 16 * BK_SRC_LUMP_COUNT);
    p->pakfile_entries = -1;
    BK_TRY(load_directory(&L));
    check_overlaps(&L);

    /* lump 37 primitives (10 bytes each) and other counted-only lumps */
    const bk_source_lump *pr = &p->lumps[BK_SRC_LUMP_PRIMITIVES];
    if (pr->size % 10 == 0) p->primitive_count = (uint32_t)(pr->size / 10);
    if (p->lumps[BK_SRC_LUMP_CUBEMAPS].size % 16 == 0) p->cubemap_count = (uint32_t)(p->lumps[BK_SRC_LUMP_CUBEMAPS].size / 16);
    if (p->lumps[BK_SRC_LUMP_OVERLAYS].size % 352 == 0) p->overlay_count = (uint32_t)(p->lumps[BK_SRC_LUMP_OVERLAYS].size / 352);

    /* the lumps the loader reads (compressed ones are decoded here; the rest when asked for) */
    static const int k_read[] = {BK_SRC_LUMP_ENTITIES, BK_SRC_LUMP_PLANES, BK_SRC_LUMP_VERTEXES, BK_SRC_LUMP_EDGES,
                                 BK_SRC_LUMP_SURFEDGES, BK_SRC_LUMP_TEXDATA, BK_SRC_LUMP_TEXDATA_STRING_TABLE,
                                 BK_SRC_LUMP_TEXDATA_STRING_DATA, BK_SRC_LUMP_TEXINFO, BK_SRC_LUMP_FACES,
                                 BK_SRC_LUMP_ORIGINALFACES, BK_SRC_LUMP_FACES_HDR, BK_SRC_LUMP_VISIBILITY,
                                 BK_SRC_LUMP_AREAS, BK_SRC_LUMP_AREAPORTALS, BK_SRC_LUMP_CLIPPORTALVERTS,
                                 BK_SRC_LUMP_BRUSHSIDES, BK_SRC_LUMP_BRUSHES, BK_SRC_LUMP_LEAFFACES,
                                 BK_SRC_LUMP_LEAFBRUSHES, BK_SRC_LUMP_LEAFS, BK_SRC_LUMP_NODES, BK_SRC_LUMP_MODELS,
                                 BK_SRC_LUMP_DISP_VERTS, BK_SRC_LUMP_DISP_TRIS, BK_SRC_LUMP_DISPINFO};
    for (size_t k = 0; k < sizeof k_read / sizeof *k_read; k++) {
        bk_result r = bk_vbsp_lump_decode(f, k_read[k], ctx);
        if (r != BK_OK) return r;
    }
    BK_TRY(load_simple(&L));
    BK_TRY(load_displacements(&L));
    BK_TRY(load_all_faces(&L));
    BK_TRY(check_displacements(&L));
    BK_TRY(load_tree(&L));
    BK_TRY(load_game_lumps(&L));

    const bk_source_lump *pak = &p->lumps[BK_SRC_LUMP_PAKFILE];
    p->pakfile = pak->data;
    p->pakfile_size = pak->size;
    if (pak->size) {
        p->pakfile_entries = bk_vbsp_pak_count(pak->data, pak->size);
        if (ctx->keep_going) BK_TRY(check_pakfile(&L));
        else if (p->pakfile_entries < 0)
            BK_WARN(ctx, BK_EFORMAT, "pakfile", BK_NO_INDEX, pak->offset, "the embedded pakfile is not a readable zip");
    } else {
        p->pakfile_entries = 0;
    }

    const bk_source_lump *ent = &p->lumps[BK_SRC_LUMP_ENTITIES];
    if (ent->size) {
        const uint8_t *nul = memchr(ent->data, 0, ent->size);
        size_t len = nul ? (size_t)(nul - ent->data) : ent->size;
        BK_TRY(bk_load_entities(f, ctx, "entities", ent->data, len, ent->offset));
    }

    fill_info(f, p);
    return BK_OK;
}

const bk_format_ops bk_ops_source = {BK_FORMAT_SOURCE, vbsp_probe, vbsp_load, vbsp_destroy, bk_vbsp_build_scene,
                                     bk_vbsp_extract_images, NULL};
