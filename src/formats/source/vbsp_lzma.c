/* Source VBSP LZMA lumps: decoded when something reads them (each held from the file's budget of
 * decoded bytes and from the program's shared budget), or all at once on the machine's cores when
 * validating, with the same results and reports as decoding them one by one in lump order. */
#include <stdatomic.h>
#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#endif

#include "vbsp_loader.h"

/* Decode the LZMA block at src within max_out bytes; what it decodes to is held from the program's
 * shared budget too (given back by bk_vbsp_lump_forget and when the map is freed), taken before
 * anything is allocated. */
bk_result bk_vbsp_lzma_take(const vbsp_impl *m, const uint8_t *src, size_t avail, uint64_t max_out, uint8_t **out,
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
    bk_result r = bk_vbsp_lzma_take(m, f->data + l->offset, (size_t)l->length, m->lzma_budget, &out, &out_size, &used, &why);
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

bk_result bk_vbsp_lump_hold(const bk_file *f, int idx)
{
    vbsp_impl *m = f->impl;
    if (idx < 0 || idx >= BK_SRC_LUMP_COUNT) return BK_OK;
    bk_mutex_lock(&m->lumps_lock);
    bk_result r = BK_OK;
    if (m->pending[idx]) {
        r = bk_vbsp_lump_decode(f, idx, NULL);
        if (r == BK_OK && m->owned_lumps[idx]) m->lent[idx] = 1;
    } else if (m->lent[idx]) {
        m->lent[idx]++;
    }
    bk_mutex_unlock(&m->lumps_lock);
    return r;
}

void bk_vbsp_lump_release(const bk_file *f, int idx)
{
    vbsp_impl *m = f->impl;
    if (idx < 0 || idx >= BK_SRC_LUMP_COUNT) return;
    bk_mutex_lock(&m->lumps_lock);
    if (m->lent[idx] && --m->lent[idx] == 0) bk_vbsp_lump_forget(f, idx);
    bk_mutex_unlock(&m->lumps_lock);
}

bool bk_vbsp_lump_kept(const bk_file *f, int idx)
{
    vbsp_impl *m = f->impl;
    if (idx < 0 || idx >= BK_SRC_LUMP_COUNT) return false;
    bk_mutex_lock(&m->lumps_lock);
    bool kept = m->pub.lumps[idx].data != NULL && !m->lent[idx];
    bk_mutex_unlock(&m->lumps_lock);
    return kept;
}

void bk_vbsp_forget_decoded(const bk_file *f)
{
    vbsp_impl *m = f->impl;
    bk_mutex_lock(&m->lumps_lock);
    for (int i = 0; i < BK_SRC_LUMP_COUNT; i++)
        if (!m->lent[i]) bk_vbsp_lump_forget(f, i);
    bk_mutex_unlock(&m->lumps_lock);
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
        j->r = bk_vbsp_lzma_take(j->f->impl, j->f->data + l->offset, (size_t)l->length, j->max_out, &j->out, &j->out_size,
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
bk_result bk_vbsp_decode_pending(vbsp_ld *L, const int *list, int n)
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
bk_result bk_vbsp_lzma_size_ok(vbsp_ld *L, int i, uint32_t actual, bool *fits)
{
    /* leafs: 56 or 32 bytes by the lump's own version, checked when they are read; world lights:
     * 88 or 100 by theirs, read only by the scene; leaf ambient lighting 24 or 28 by theirs */
    bool own = i == BK_SRC_LUMP_LEAFS || i == BK_SRC_LUMP_WORLDLIGHTS || i == BK_SRC_LUMP_WORLDLIGHTS_HDR ||
               i == BK_SRC_LUMP_LEAF_AMBIENT_LIGHTING || i == BK_SRC_LUMP_LEAF_AMBIENT_LIGHTING_HDR;
    size_t es = own ? 0 : k_lumps[i].entry[L->f->version->column];
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
