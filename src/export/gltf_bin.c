/* The glTF exporter's binary side: the images' PNG job, the emit pass that streams the buffer's
 * segments (laid out by gltf.c) through a small chunk buffer, producing vertex attributes from the
 * scene as it goes, and the .glb container, with the placeholders of deferred mode filled in. */
#include <math.h>
#include <stdio.h>

#include "scene/scene_build.h"
#include "gltf_internal.h"

static float clean(float v, float dflt, uint64_t *n)
{
    if (isfinite(v)) return v;
    (*n)++;
    return dflt;
}

bool bk_gltf_bad_element(const uint32_t *v, uint32_t per, uint32_t n)
{
    bool bad = false;
    for (uint32_t k = 0; k < per; k++) bad |= v[k] >= n;
    if (!bad) bad = v[0] == v[1] || (per == 3 && (v[1] == v[2] || v[0] == v[2]));
    return bad;
}

/* The cleaned vertex i of p for attribute kind, into out (floats; uint16 for SEG_JTS, bytes for SEG_COL);
 * cl counts the values cleaned. */
void bk_gltf_vertex_attr(const bk_xform *x, const bk_primitive *p, int kind, uint32_t i, void *out, uint64_t *cl)
{
    float v[4], *o = out;
    switch (kind) {
    case SEG_POS:
        for (int c = 0; c < 3; c++) v[c] = clean(p->position[(size_t)i * 3 + c], 0.0f, cl);
        bk_xf_point(x, v, o);
        break;
    case SEG_NRM: {
        for (int c = 0; c < 3; c++) v[c] = clean(p->normal[(size_t)i * 3 + c], 0.0f, cl);
        float len = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        if (!(len > 1e-6f)) {
            v[0] = 0, v[1] = 0, v[2] = 1;
            (*cl)++;
        } else {
            if (fabsf(len - 1.0f) > 1e-4f) (*cl)++;
            v[0] /= len, v[1] /= len, v[2] /= len;
        }
        bk_xf_dir(x, v, o);
        break;
    }
    case SEG_UV0:
    case SEG_UV1: {
        const float *uv = kind == SEG_UV0 ? p->uv0 : p->uv1;
        for (int c = 0; c < 2; c++) o[c] = clean(uv[(size_t)i * 2 + c], 0.0f, cl);
        break;
    }
    case SEG_ZERO2: o[0] = o[1] = 0; break;
    case SEG_COL: memcpy(out, p->color + (size_t)i * 4, 4); break;
    case SEG_JTS:
    case SEG_WTS: {
        float wts[4];
        uint16_t jts[4];
        uint64_t ignored = 0;
        for (int c = 0; c < 4; c++) {
            float f = clean(p->weights[(size_t)i * 4 + c], 0.0f, kind == SEG_WTS ? cl : &ignored);
            wts[c] = f < 0 ? 0 : f;
            jts[c] = p->joints[(size_t)i * 4 + c];
        }
        /* zero weights point at joint 0; merge duplicates of one joint */
        for (int c = 0; c < 4; c++) {
            if (wts[c] == 0) jts[c] = 0;
            for (int d = 0; d < c; d++)
                if (wts[c] > 0 && wts[d] > 0 && jts[c] == jts[d]) {
                    wts[d] += wts[c];
                    wts[c] = 0;
                    jts[c] = 0;
                }
        }
        float sum = wts[0] + wts[1] + wts[2] + wts[3];
        if (!(sum > 1e-6f)) {
            wts[0] = 1, wts[1] = wts[2] = wts[3] = 0;
            jts[1] = jts[2] = jts[3] = 0;
            if (kind == SEG_WTS) (*cl)++;
        } else {
            for (int c = 0; c < 4; c++) wts[c] /= sum;
        }
        if (kind == SEG_WTS) memcpy(o, wts, sizeof wts);
        else memcpy(out, jts, sizeof jts);
        break;
    }
    default: break;
    }
}


static void png_encode_one(png_job *j, uint32_t i)
{
    const bk_pixels *px = bk_scene_pixels(j->s, i);
    const uint8_t *made;
    size_t made_n;
    if (j->borrow && px->packing == BK_PACK_PNG && px->packed && j->level <= 0) {
        /* a view of the scene's bytes (cap 0: not owned, see png_release) */
        j->pngs[i] = (bk_buf){(uint8_t *)px->packed, px->packed_size, 0, false};
        j->res[i] = BK_OK;
    } else if (j->level <= 0 && bk_png_bg_get(j->s, i, &made, &made_n)) {
        /* made at the default level on the builder's second thread: viewed, or copied */
        if (j->borrow) {
            j->pngs[i] = (bk_buf){(uint8_t *)made, made_n, 0, false};
            j->res[i] = BK_OK;
        } else {
            j->res[i] = bk_buf_append(&j->pngs[i], made, made_n) ? BK_OK : BK_ENOMEM;
        }
    } else if (bk_scene_image_has_pixels(j->s, i)) {
        j->res[i] = bk_png_encode_image(j->s, i, j->level, &j->pngs[i]);
    }
    bk_mutex_lock(&j->mu);
    j->done[i] = 1;
    j->held += j->pngs[i].cap ? j->pngs[i].size : 0;
    bk_cond_broadcast(&j->cv);
    bk_mutex_unlock(&j->mu);
}

/* image i's PNG is let go: freed, or forgotten when it is the scene's own */
static void png_release(png_job *j, uint32_t i)
{
    bk_mutex_lock(&j->mu);
    size_t n = j->pngs[i].cap ? j->pngs[i].size : 0;
    j->held -= n <= j->held ? n : j->held;
    bk_cond_broadcast(&j->cv);
    bk_mutex_unlock(&j->mu);
    if (j->pngs[i].cap) bk_buf_free(&j->pngs[i]);
    memset(&j->pngs[i], 0, sizeof j->pngs[i]);
}

/* the writing thread's share: every image not yet taken */
static void png_encode_all(png_job *j)
{
    for (uint32_t i; (i = atomic_fetch_add(&j->next, 1)) < j->s->image_count;) png_encode_one(j, i);
}

/* the second thread's: images while the PNGs held are within the budget */
static void png_encode_bg(void *user)
{
    png_job *j = user;
    for (;;) {
        bk_mutex_lock(&j->mu);
        while (!j->stop && j->held > j->budget) bk_cond_wait(&j->cv, &j->mu);
        bool stop = j->stop;
        bk_mutex_unlock(&j->mu);
        if (stop) break;
        uint32_t i = atomic_fetch_add(&j->next, 1);
        if (i >= j->s->image_count) break;
        png_encode_one(j, i);
    }
}
/* the job's per-image arrays (PNGs, results, done flags), freed and cleared */
static void png_job_arrays_free(png_job *j)
{
    BK_FREE_NULL(j->pngs);
    BK_FREE_NULL(j->res);
    BK_FREE_NULL(j->done);
}


/* start encoding (on a thread when there is enough to encode to be worth one) */
void bk_gltf_png_start(png_job *j, const bk_scene *s, int level, bool borrow)
{
    memset(j, 0, sizeof *j);
    j->s = s;
    j->level = level;
    j->borrow = borrow;
    j->budget = SIZE_MAX; /* PNGs held until the JSON is written: all of them are wanted */
    atomic_init(&j->next, 0);
    bk_mutex_init(&j->mu);
    bk_cond_init(&j->cv);
    j->pngs = bk_calloc(s->image_count + 1, sizeof *j->pngs);
    j->res = bk_calloc(s->image_count + 1, sizeof *j->res);
    j->done = bk_calloc(s->image_count + 1, 1);
    if (!j->pngs || !j->res || !j->done) {
        png_job_arrays_free(j);
        j->r = BK_ENOMEM;
        atomic_store(&j->next, UINT32_MAX);
        return;
    }
    uint64_t px = 0;
    for (uint32_t i = 0; i < s->image_count; i++)
        if (bk_scene_image_has_pixels(s, i)) px += (uint64_t)s->images[i].width * s->images[i].height;
    /* PNGs let go as written: the thread may run ahead by a sixteenth of the pixels' RGBA bytes
     * (about a fourth of their PNGs), at least 64 KiB */
    if (borrow) j->budget = px / 4 > ((size_t)64 << 10) ? (size_t)(px / 4) : ((size_t)64 << 10);
    if (px >= (1u << 16) && bk_thread_start(&j->th, png_encode_bg, j)) {
        j->running = true;
        return;
    }
    (void)px;
    png_encode_all(j);
}

/* Image i's PNG: encoded here if no thread has taken it yet (with the images before it), else
 * waited for. */
static bk_result png_take(png_job *j, uint32_t i)
{
    if (j->r != BK_OK) return j->r;
    if (i >= j->s->image_count) return BK_EARG;
    for (;;) {
        unsigned nx = atomic_load(&j->next);
        if (nx > i) break;
        if (atomic_compare_exchange_weak(&j->next, &nx, nx + 1)) png_encode_one(j, nx);
    }
    bk_mutex_lock(&j->mu);
    while (!j->done[i]) bk_cond_wait(&j->cv, &j->mu);
    bk_mutex_unlock(&j->mu);
    return j->res[i];
}

/* the writing thread joins in, then waits for the rest; the first failure in image order */
bk_result bk_gltf_png_finish(png_job *j)
{
    if (j->r != BK_OK) return j->r;
    png_encode_all(j);
    if (j->running) bk_thread_join(&j->th);
    j->running = false;
    for (uint32_t i = 0; i < j->s->image_count; i++)
        if (j->res[i] != BK_OK) return j->res[i];
    return BK_OK;
}

void bk_gltf_png_free(png_job *j)
{
    if (!j->s) return;
    /* no more images are taken (after a failure elsewhere there is no point); wait for the thread */
    atomic_store(&j->next, UINT32_MAX);
    bk_mutex_lock(&j->mu);
    j->stop = true;
    bk_cond_broadcast(&j->cv);
    bk_mutex_unlock(&j->mu);
    if (j->running) bk_thread_join(&j->th);
    j->running = false;
    if (j->pngs)
        for (uint32_t i = 0; i < j->s->image_count; i++) png_release(j, i);
    bk_mutex_destroy(&j->mu);
    bk_cond_destroy(&j->cv);
    png_job_arrays_free(j);
    j->s = NULL;
}

/* The emit pass: the buffer's bytes through a chunk buffer to write(). */
typedef struct bin_sink {
    bk_write_fn write;
    void *user;
    uint64_t written;
    size_t n;
    bool ok;
    uint8_t buf[1 << 16];
} bin_sink;

static void sink_flush(bin_sink *k)
{
    if (k->ok && k->n && !k->write(k->user, k->buf, k->n)) k->ok = false;
    k->written += k->n;
    k->n = 0;
}

/* room for `size` (at most 64 bytes) more bytes in the chunk */
static uint8_t *sink_room(bin_sink *k, size_t size)
{
    if (k->n + size > sizeof k->buf) sink_flush(k);
    uint8_t *r = k->buf + k->n;
    k->n += size;
    return r;
}

static void sink_bytes(bin_sink *k, const void *data, size_t size)
{
    if (k->n + size <= sizeof k->buf) {
        memcpy(k->buf + k->n, data, size);
        k->n += size;
        return;
    }
    sink_flush(k);
    if (k->ok && size && !k->write(k->user, data, size)) k->ok = false;
    k->written += size;
}

static void emit_segment(gltf_writer *w, const bin_seg *g, bin_sink *k)
{
    const bk_primitive *p = g->p;
    uint64_t *cl = &w->st.cleaned_values;
    switch (g->kind) {
    case SEG_OWNED: sink_bytes(k, g->owned, g->bytes); break;
    case SEG_TIMES: sink_bytes(k, g->ch->times, g->bytes); break;
    case SEG_KEYS: {
        const bk_channel *ch = g->ch;
        size_t comps = ch->path == BK_PATH_ROTATION ? 4 : 3;
        for (uint32_t i = 0; i < ch->key_count; i++) {
            const float *in = ch->values + (size_t)i * comps;
            float out[4], tmp[3];
            if (ch->path == BK_PATH_TRANSLATION) {
                for (int q = 0; q < 3; q++) tmp[q] = isfinite(in[q]) ? in[q] : 0;
                bk_xf_point(&w->x, tmp, out);
            } else if (ch->path == BK_PATH_ROTATION) {
                bk_xf_quat(&w->x, in, out);
            } else {
                for (int q = 0; q < 3; q++) tmp[q] = isfinite(in[q]) ? in[q] : 1;
                bk_xf_scale(&w->x, tmp, out);
            }
            memcpy(sink_room(k, comps * 4), out, comps * 4);
        }
        break;
    }
    case SEG_IDX16:
    case SEG_IDX32: {
        uint32_t per = p->mode == BK_PRIM_TRIANGLES ? 3 : 2;
        for (uint32_t t = 0; t + per <= p->index_count; t += per) {
            const uint32_t *v = p->indices + t;
            if (bk_gltf_bad_element(v, per, p->vertex_count)) continue;
            if (g->kind == SEG_IDX32) {
                memcpy(sink_room(k, per * 4), v, per * 4);
            } else {
                uint16_t s[3] = {(uint16_t)v[0], (uint16_t)v[1], (uint16_t)(per == 3 ? v[2] : 0)};
                memcpy(sink_room(k, per * 2), s, per * 2);
            }
        }
        break;
    }
    default: {
        size_t size = g->kind == SEG_POS || g->kind == SEG_NRM ? 12 : g->kind == SEG_UV0 || g->kind == SEG_UV1 ||
                      g->kind == SEG_ZERO2 ? 8 : g->kind == SEG_JTS ? 8 : g->kind == SEG_COL ? 4 : 16;
        /* through a local: the chunk can sit at any byte offset after a flush */
        float v[4];
        for (uint32_t i = 0; i < p->vertex_count; i++) {
            bk_gltf_vertex_attr(&w->x, p, g->kind, i, v, cl);
            memcpy(sink_room(k, size), v, size);
        }
        break;
    }
    }
}

/* Stream the whole buffer (w->bin_size bytes, zero padding between views and at the end). */
bk_result bk_gltf_emit_bin(gltf_writer *w, bk_write_fn write, void *user)
{
    bin_sink *k = bk_malloc(sizeof *k);
    if (!k) return BK_ENOMEM;
    k->write = write;
    k->user = user;
    k->written = 0;
    k->n = 0;
    k->ok = true;
    static const uint8_t zero[4];
    bk_result r = BK_OK;
    for (uint32_t i = 0; i < w->seg_count && k->ok; i++) {
        bin_seg *g = &w->segs[i];
        uint64_t at = k->written + k->n;
        if (g->kind == SEG_PNG) {
            /* deferred: the PNG goes out once it is encoded, at the next 4-aligned offset, and is
             * let go; its place is filled into the JSON after */
            uint64_t ofs = (at + 3) & ~(uint64_t)3;
            sink_bytes(k, zero, (size_t)(ofs - at));
            bk_result pr = png_take(w->job, g->image);
            bk_buf *png = &w->job->pngs[g->image];
            if (pr == BK_OK && png->failed) pr = BK_ENOMEM;
            if (pr == BK_OK && ofs + png->size > UINT32_MAX) pr = BK_ELIMIT;
            if (pr != BK_OK) {
                r = pr;
                break;
            }
            g->ofs = ofs;
            g->bytes = png->size;
            sink_bytes(k, png->data, png->size);
            png_release(w->job, g->image);
            w->bin_size = (ofs + g->bytes + 3) & ~(uint64_t)3;
            continue;
        }
        if (at > g->ofs || g->ofs - at > 3) {
            r = BK_EIO;
            break;
        }
        sink_bytes(k, zero, (size_t)(g->ofs - at));
        emit_segment(w, g, k);
        if (k->written + k->n != g->ofs + g->bytes) { /* the layout and the bytes disagree: a bug */
            r = BK_EIO;
            break;
        }
    }
    if (r == BK_OK && k->ok) {
        uint64_t at = k->written + k->n;
        if (at <= w->bin_size && w->bin_size - at <= 3) sink_bytes(k, zero, (size_t)(w->bin_size - at));
        else r = BK_EIO;
    }
    sink_flush(k);
    if (r == BK_OK && !k->ok) r = BK_EIO;
    bk_free(k);
    return r;
}

/* A .glb in pieces: header, JSON chunk (space-padded), BIN chunk streamed from the layout. */
bk_result bk_gltf_glb_emit(const char *json, gltf_writer *w, bk_write_fn write, void *user, uint64_t *bytes)
{
    size_t n = strlen(json), jlen = (n + 3) & ~(size_t)3;
    uint8_t hdr[20];
    uint64_t total = 12 + 8 + (uint64_t)jlen + (w->bin_size ? 8 + w->bin_size : 0);
    if (total > UINT32_MAX) return BK_ELIMIT;
    memcpy(hdr, "glTF", 4);
    bk_wr_u32le(hdr + 4, 2);
    bk_wr_u32le(hdr + 8, (uint32_t)total);
    bk_wr_u32le(hdr + 12, (uint32_t)jlen);
    memcpy(hdr + 16, "JSON", 4);
    bk_result r = BK_OK;
    if (!write(user, hdr, 20) || !write(user, json, n) || (jlen > n && !write(user, "   ", jlen - n))) r = BK_EIO;
    if (r == BK_OK && w->bin_size) {
        bk_wr_u32le(hdr, (uint32_t)w->bin_size);
        memcpy(hdr + 4, "BIN\0", 4);
        r = write(user, hdr, 8) ? bk_gltf_emit_bin(w, write, user) : BK_EIO;
    }
    if (bytes) *bytes = total;
    return r;
}

/* Deferred mode, once the buffer is written: the number of placeholder c (its k-th of that kind),
 * as PH_WIDTH characters, right-aligned. */
static bk_result ph_number(const gltf_writer *w, unsigned char c, uint32_t *k_ofs, uint32_t *k_len,
                           char num[PH_WIDTH + 1])
{
    if (w->png_views > w->seg_count) return BK_EIO;
    uint64_t v;
    if (c == 1) {
        v = w->bin_size;
    } else {
        uint32_t *k = c == 2 ? k_ofs : k_len;
        if (*k >= w->png_views) return BK_EIO;
        const bin_seg *g = &w->segs[w->seg_count - w->png_views + (*k)++];
        if (g->kind != SEG_PNG) return BK_EIO;
        v = c == 2 ? g->ofs : g->bytes;
    }
    if (v > UINT32_MAX) return BK_EIO;
    snprintf(num, PH_WIDTH + 1, "%*llu", PH_WIDTH, (unsigned long long)v);
    return BK_OK;
}

/* Deferred mode, once the buffer is written: each placeholder in json (n bytes) gets its number. */
bk_result bk_gltf_fill_placeholders(const gltf_writer *w, char *json, size_t n)
{
    _Static_assert(sizeof PH_BUFFER_LENGTH - 1 == PH_WIDTH && sizeof PH_VIEW_OFFSET - 1 == PH_WIDTH &&
                       sizeof PH_VIEW_LENGTH - 1 == PH_WIDTH,
                   "placeholders are PH_WIDTH wide");
    uint32_t k_ofs = 0, k_len = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)json[i];
        if (c < 1 || c > 3) continue;
        char num[PH_WIDTH + 1];
        if (n - i < PH_WIDTH || ph_number(w, c, &k_ofs, &k_len, num) != BK_OK) return BK_EIO;
        memcpy(json + i, num, PH_WIDTH);
        i += PH_WIDTH - 1;
    }
    return k_ofs == w->png_views && k_len == w->png_views ? BK_OK : BK_EIO;
}

/* A .glb into a file, PNGs written as they are encoded: header, JSON with placeholders, the BIN
 * chunk; then the header's lengths and the placeholders' numbers written over their places. The
 * JSON is freed (*json = NULL) once written: only where its placeholders are is kept while the
 * buffer is written (peak memory). */
bk_result bk_gltf_glb_emit_file(char **json, gltf_writer *w, bk_atomic_file *af, uint64_t *bytes)
{
    /* the JSON is written as it is, padded with spaces to 4 bytes */
    size_t n = strlen(*json), jlen = (n + 3) & ~(size_t)3;
    bool has_bin = w->bin_size || w->png_views;
    uint8_t hdr[20], bh[8] = {0, 0, 0, 0, 'B', 'I', 'N', 0};
    memcpy(hdr, "glTF", 4);
    bk_wr_u32le(hdr + 4, 2);
    bk_wr_u32le(hdr + 8, 0); /* written over below */
    bk_wr_u32le(hdr + 12, (uint32_t)jlen);
    memcpy(hdr + 16, "JSON", 4);
    bk_result r = BK_OK;
    if (jlen > UINT32_MAX || !bk_atomic_write(af, hdr, 20) || !bk_atomic_write(af, *json, n) ||
        !bk_atomic_write(af, "   ", jlen - n))
        r = BK_EIO;
    /* the placeholders: one buffer length and two per PNG view */
    size_t ph_cap = (size_t)w->png_views * 2 + 1, ph_n = 0;
    uint32_t *ph_at = r == BK_OK ? bk_malloc(ph_cap * sizeof *ph_at) : NULL;
    if (r == BK_OK && !ph_at) r = BK_ENOMEM;
    for (size_t i = 0; r == BK_OK && i < n; i++) {
        unsigned char c = (unsigned char)(*json)[i];
        if (c < 1 || c > 3) continue;
        if (ph_n == ph_cap || n - i < PH_WIDTH) r = BK_EIO;
        else ph_at[ph_n++] = (uint32_t)i | (uint32_t)c << 30; /* n < 2^30: checked below */
        i += PH_WIDTH - 1;
    }
    if (r == BK_OK && n >= (size_t)1 << 30) r = BK_ELIMIT;
    bk_free(*json);
    *json = NULL;
    if (r == BK_OK && has_bin) r = bk_atomic_write(af, bh, 8) ? bk_gltf_emit_bin(w, bk_atomic_write, af) : BK_EIO;
    uint32_t k_ofs = 0, k_len = 0;
    for (size_t k = 0; r == BK_OK && k < ph_n; k++) {
        char num[PH_WIDTH + 1];
        r = ph_number(w, (unsigned char)(ph_at[k] >> 30), &k_ofs, &k_len, num);
        if (r == BK_OK && !bk_atomic_pwrite(af, 20 + (ph_at[k] & 0x3fffffffu), num, PH_WIDTH)) r = BK_EIO;
    }
    bk_free(ph_at);
    if (r == BK_OK && (k_ofs != w->png_views || k_len != w->png_views)) r = BK_EIO;
    uint64_t total = 12 + 8 + (uint64_t)jlen + (has_bin ? 8 + w->bin_size : 0);
    if (r == BK_OK && total > UINT32_MAX) r = BK_ELIMIT;
    if (r == BK_OK) {
        bk_wr_u32le(hdr + 8, (uint32_t)total);
        bk_wr_u32le(bh, (uint32_t)w->bin_size);
        if (!bk_atomic_pwrite(af, 0, hdr, 20) || (has_bin && !bk_atomic_pwrite(af, 20 + (uint64_t)jlen, bh, 8)))
            r = BK_EIO;
    }
    if (bytes) *bytes = total;
    return r;
}
