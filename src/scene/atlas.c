/* Lightmap atlas: skyline (bottom-left) packing of padded rectangles into a tight image of any
 * size (glTF needs no power-of-two images), at most max_size on a side.
 *
 * The pixels of all rectangles live in one arena (one allocation, not one per rectangle);
 * rectangles added without pixels are drawn by a fill callback straight into the final image,
 * so the pages are never held twice. */
#include "scene/scene_build.h"
#include "../common/bk_internal.h"

typedef struct rect {
    uint32_t w, h, x, y;
    size_t px;            /* offset into the arena, or SIZE_MAX: drawn by the fill callback */
} rect;

struct bk_atlas {
    rect *r;
    uint32_t count, cap;
    uint32_t max_size, pad;
    uint32_t width, height;
    bool packed;
    bk_buf arena;
    bk_atlas_fill_fn fill, fill_rgb;
    void *fill_user;
    bool fill_held;
};

bk_atlas *bk_atlas_new(uint32_t max_size, uint32_t pad)
{
    bk_atlas *a = bk_calloc(1, sizeof *a);
    if (!a) return NULL;
    a->max_size = max_size ? max_size : BK_DEFAULT_MAX_ATLAS;
    a->pad = pad;
    return a;
}

void bk_atlas_free(bk_atlas *a)
{
    if (!a) return;
    bk_buf_free(&a->arena);
    bk_free(a->r);
    bk_free(a);
}

uint32_t bk_atlas_count(const bk_atlas *a) { return a->count; }

void bk_atlas_set_fill(bk_atlas *a, bk_atlas_fill_fn fn, void *user)
{
    a->fill = fn;
    a->fill_user = user;
}

void bk_atlas_set_fill_rgb(bk_atlas *a, bk_atlas_fill_fn fn) { a->fill_rgb = fn; }

void bk_atlas_set_fill_held(bk_atlas *a, bool held) { a->fill_held = held; }

bk_result bk_atlas_add(bk_atlas *a, uint32_t w, uint32_t h, const uint8_t *rgba, uint32_t *id)
{
    if (!w || !h || w > a->max_size || h > a->max_size) return BK_ELIMIT;
    BK_TRY(bk_grow((void **)&a->r, &a->cap, a->count + 1, sizeof(rect)));
    rect *r = &a->r[a->count];
    r->w = w;
    r->h = h;
    r->x = r->y = 0;
    r->px = SIZE_MAX;
    if (rgba) {
        size_t bytes = (size_t)w * h * 4;
        r->px = a->arena.size;
        if (!bk_buf_append(&a->arena, rgba, bytes)) return BK_ENOMEM;
    }
    if (id) *id = a->count;
    a->count++;
    a->packed = false;
    return BK_OK;
}

/* ---- skyline packing ------------------------------------------------------------------------ */

typedef struct seg {
    uint32_t x, y, w;   /* a stretch of the skyline: [x, x+w) is filled up to y */
} seg;

/* Place every rectangle (in order) bottom-left on a skyline of width W, at most maxh high.
 * Returns the height used (UINT64_MAX: does not fit, or width x height used has passed give_up,
 * so it cannot beat a packing found before) and the width used in *used_w. */
static uint64_t skyline(bk_atlas *a, const uint32_t *order, uint32_t W, uint32_t maxh, bool commit, seg *sk,
                        uint32_t *used_w, uint64_t give_up)
{
    uint32_t n = 1, p2 = a->pad * 2;
    uint64_t top = 0, right = 0;
    sk[0] = (seg){0, 0, W};
    for (uint32_t k = 0; k < a->count; k++) {
        rect *r = &a->r[order[k]];
        uint32_t rw = r->w + p2, rh = r->h + p2;
        if (rw > W) return UINT64_MAX;
        uint32_t best_y = UINT32_MAX, best_i = 0;
        for (uint32_t i = 0; i < n && sk[i].x + rw <= W; i++) {
            /* the rectangle's bottom is the highest segment under [x, x+rw) */
            uint32_t y = 0, left = rw;
            for (uint32_t j = i; left; j++) {
                if (sk[j].y > y) y = sk[j].y;
                if (y >= best_y) break;
                if (sk[j].w >= left) break;
                left -= sk[j].w;
            }
            if (y < best_y) {
                best_y = y;
                best_i = i;
            }
        }
        if (best_y == UINT32_MAX || (uint64_t)best_y + rh > maxh) return UINT64_MAX;
        uint32_t x = sk[best_i].x;
        if (commit) {
            r->x = x + a->pad;
            r->y = best_y + a->pad;
        }
        if ((uint64_t)best_y + rh > top) top = (uint64_t)best_y + rh;
        if ((uint64_t)x + rw > right) right = (uint64_t)x + rw;
        /* width used and height only grow: past give_up this packing cannot win */
        if (right * top > give_up) return UINT64_MAX;
        /* the new segment replaces [x, x+rw): insert it, then trim or drop the ones it covers */
        memmove(&sk[best_i + 1], &sk[best_i], (n - best_i) * sizeof *sk);
        sk[best_i] = (seg){x, best_y + rh, rw};
        n++;
        uint32_t end = x + rw, j = best_i + 1;
        while (j < n && sk[j].x < end) {
            uint32_t se = sk[j].x + sk[j].w;
            if (se <= end) {
                memmove(&sk[j], &sk[j + 1], (n - j - 1) * sizeof *sk);
                n--;
            } else {
                sk[j].w = se - end;
                sk[j].x = end;
                break;
            }
        }
        /* merge neighbours of equal height */
        for (uint32_t i = best_i > 0 ? best_i - 1 : 0; i + 1 < n && i <= best_i + 1;) {
            if (sk[i].y == sk[i + 1].y) {
                sk[i].w += sk[i + 1].w;
                memmove(&sk[i + 1], &sk[i + 2], (n - i - 2) * sizeof *sk);
                n--;
            } else {
                i++;
            }
        }
    }
    *used_w = (uint32_t)right;
    return top;
}

/* orders tried: tallest first (shelves of equal height), widest first, largest side first */
static int cmp_rect(const uint32_t *pa, const uint32_t *pb, const bk_atlas *a, int how)
{
    const rect *x = &a->r[*pa], *y = &a->r[*pb];
    uint32_t kx = how == 0 ? x->h : how == 1 ? x->w : (x->w > x->h ? x->w : x->h);
    uint32_t ky = how == 0 ? y->h : how == 1 ? y->w : (y->w > y->h ? y->w : y->h);
    if (kx != ky) return kx > ky ? -1 : 1;
    uint32_t sx = how == 0 ? x->w : x->h, sy = how == 0 ? y->w : y->h;
    if (sx != sy) return sx > sy ? -1 : 1;
    return *pa < *pb ? -1 : 1;
}

/* stable merge sort with a context (qsort_r is not portable C11) */
static void sort_ids(uint32_t *v, uint32_t *tmp, uint32_t n, const bk_atlas *a, int how)
{
    if (n < 2) return;
    uint32_t m = n / 2;
    sort_ids(v, tmp, m, a, how);
    sort_ids(v + m, tmp, n - m, a, how);
    uint32_t i = 0, j = m, k = 0;
    while (i < m && j < n) tmp[k++] = cmp_rect(&v[i], &v[j], a, how) <= 0 ? v[i++] : v[j++];
    while (i < m) tmp[k++] = v[i++];
    while (j < n) tmp[k++] = v[j++];
    memcpy(v, tmp, n * sizeof *v);
}

/* the packings tried: widths by order of the rectangles; the best is the smallest area, then the
 * squarest, then the first tried */
typedef struct trial {
    uint32_t w;
    int how;
} trial;

typedef struct trial_run {
    bk_atlas *a;
    const uint32_t *order;
    const trial *t;
    int first, step, nt; /* trials first, first + step, ... below nt */
    seg *sk;
    uint64_t area, side; /* the best of them (area UINT64_MAX: none fits) */
    int best;
} trial_run;

static void run_trials(trial_run *tr)
{
    uint32_t n = tr->a->count;
    tr->area = UINT64_MAX, tr->side = 0, tr->best = -1;
    for (int i = tr->first; i < tr->nt; i += tr->step) {
        uint32_t used = 0;
        /* a trial past the best area so far gives up: its area can only be larger */
        uint64_t h = skyline(tr->a, tr->order + (size_t)tr->t[i].how * n, tr->t[i].w, tr->a->max_size, false, tr->sk,
                             &used, tr->area);
        if (h == UINT64_MAX) continue;
        uint64_t ar = (uint64_t)used * h, sd = used > h ? used : h;
        if (ar < tr->area || (ar == tr->area && sd < tr->side)) {
            tr->area = ar;
            tr->side = sd;
            tr->best = i;
        }
    }
}

/* x's best beats y's: a smaller area, then a smaller side, then tried first */
static bool run_beats(const trial_run *x, const trial_run *y)
{
    if (x->best < 0 || y->best < 0) return x->best >= 0;
    if (x->area != y->area) return x->area < y->area;
    if (x->side != y->side) return x->side < y->side;
    return x->best < y->best;
}


static void run_trials_void(void *user) { run_trials(user); }

/* from this many rectangles the trials are shared with a second thread (one trial of a large
 * GoldSrc or Source map takes half a millisecond, a thread 30-50 microseconds to start) */
#define PACK_THREAD_MIN 512
/* an RGB atlas of this many rectangles or more is drawn on two threads (each Quake 3 page takes
 * about 40 us to draw) */
#define DRAW_THREAD_MIN 8

bk_result bk_atlas_pack(bk_atlas *a)
{
    if (a->count == 0) {
        a->width = a->height = 1;
        a->packed = true;
        return BK_OK;
    }
    uint32_t n = a->count;
    uint32_t *order = bk_malloc(3 * (size_t)n * sizeof *order), *tmp = bk_malloc(n * sizeof *tmp);
    seg *sk = bk_malloc(2 * ((size_t)n + 2) * sizeof *sk);
    if (!order || !tmp || !sk) {
        bk_free(order);
        bk_free(tmp);
        bk_free(sk);
        return BK_ENOMEM;
    }
    for (int how = 0; how < 3; how++) {
        for (uint32_t i = 0; i < n; i++) order[(size_t)how * n + i] = i;
        sort_ids(order + (size_t)how * n, tmp, n, a, how);
    }
    bk_free(tmp);
    /* widths to try: around the square root of the padded area, and whole multiples of the widest
     * rectangle (Quake 3's equal pages then sit in a grid without a ragged edge) */
    uint64_t area = 0, wmax = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t w = a->r[i].w + 2ull * a->pad, h = a->r[i].h + 2ull * a->pad;
        area += w * h;
        if (w > wmax) wmax = w;
    }
    uint64_t side = 1;
    while (side * side < area) side++;
    uint64_t cand[24];
    int nc = 0;
    static const uint32_t pct[] = {100, 105, 110, 120, 130, 145, 160, 180, 200};
    for (size_t i = 0; i < sizeof pct / sizeof pct[0]; i++) cand[nc++] = (side * pct[i] + 99) / 100;
    uint64_t k0 = side / wmax;
    for (uint64_t k = k0 > 1 ? k0 - 1 : 1; k <= k0 + 3; k++) cand[nc++] = k * wmax;
    cand[nc++] = a->max_size;
    trial t[24 * 3];
    int nt = 0;
    for (int i = 0; i < nc; i++) {
        uint64_t W = cand[i] < wmax ? wmax : cand[i];
        if (W > a->max_size) W = a->max_size;
        bool seen = false;
        for (int j = 0; j < i; j++) seen |= (cand[j] < wmax ? wmax : (cand[j] > a->max_size ? a->max_size : cand[j])) == W;
        if (seen) continue;
        for (int how = 0; how < 3; how++) t[nt++] = (trial){(uint32_t)W, how};
    }
    /* each run finds the best of its share (the smallest area, then side, then the first tried), so
     * the best of the two is the one a single run would find */
    trial_run run[2] = {{a, order, t, 0, 1, nt, sk, 0, 0, -1}, {a, order, t, 1, 2, nt, sk + n + 2, 0, 0, -1}};
    bool two = false;
    bk_thread th;
    if (n >= PACK_THREAD_MIN && nt > 1 && bk_cpu_count() >= 2) {
        run[0].step = 2;
        two = bk_thread_start(&th, run_trials_void, &run[1]);
        if (!two) run[0].step = 1;
    }
    run_trials(&run[0]);
    if (two) bk_thread_join(&th);
    int best = two && run_beats(&run[1], &run[0]) ? run[1].best : run[0].best;
    bk_result r = BK_ELIMIT;
    if (best >= 0) {
        uint32_t used = 0;
        uint64_t h = skyline(a, order + (size_t)t[best].how * n, t[best].w, a->max_size, true, sk, &used, UINT64_MAX);
        a->width = used;
        a->height = (uint32_t)h;
        a->packed = true;
        r = BK_OK;
    }
    bk_free(sk);
    bk_free(order);
    return r;
}

void bk_atlas_rect(const bk_atlas *a, uint32_t id, uint32_t *x, uint32_t *y)
{
    *x = id < a->count ? a->r[id].x : 0;
    *y = id < a->count ? a->r[id].y : 0;
}

void bk_atlas_size(const bk_atlas *a, uint32_t *w, uint32_t *h)
{
    *w = a->width;
    *h = a->height;
}

/* Copy a rectangle's edge texels outwards into its padding (what bilinear filtering reads at
 * the rectangle's border); texels of bpp bytes. */
static void pad_rect(uint8_t *img, size_t W, const rect *r, uint32_t pad, size_t bpp)
{
    for (uint32_t y = 0; y < r->h; y++) {
        uint8_t *row = img + ((size_t)(r->y + y) * W + r->x) * bpp;
        for (uint32_t k = 1; k <= pad; k++) {
            memcpy(row - k * bpp, row, bpp);
            memcpy(row + (r->w - 1 + k) * bpp, row + (r->w - 1) * bpp, bpp);
        }
    }
    size_t span = ((size_t)r->w + 2 * pad) * bpp;
    const uint8_t *first = img + ((size_t)r->y * W + r->x - pad) * bpp;
    const uint8_t *last = img + ((size_t)(r->y + r->h - 1) * W + r->x - pad) * bpp;
    for (uint32_t k = 1; k <= pad; k++) {
        memcpy(img + ((size_t)(r->y - k) * W + r->x - pad) * bpp, first, span);
        memcpy(img + ((size_t)(r->y + r->h - 1 + k) * W + r->x - pad) * bpp, last, span);
    }
}

/* Rectangles [from, to) drawn into px (W texels wide, bpp bytes each), with their padding; tmp:
 * one rectangle's worth of RGBA for a fill callback drawing into an RGB atlas. */
static bk_result draw_rects(const bk_atlas *a, uint8_t *px, size_t W, size_t bpp, uint32_t from, uint32_t to,
                            uint8_t **tmp, size_t *tmp_cap)
{
    for (uint32_t k = from; k < to; k++) {
        const rect *r = &a->r[k];
        uint8_t *dst = px + ((size_t)r->y * W + r->x) * bpp;
        const uint8_t *src = NULL;
        if (r->px != SIZE_MAX) {
            src = a->arena.data + r->px;
        } else if (a->fill && bpp == 4) {
            a->fill(a->fill_user, k, dst, W * 4);
        } else if (a->fill && a->fill_rgb) {
            a->fill_rgb(a->fill_user, k, dst, W * 3);
        } else if (a->fill) {
            size_t need = (size_t)r->w * r->h * 4;
            if (need > *tmp_cap) {
                bk_free(*tmp);
                *tmp = bk_malloc(need);
                *tmp_cap = *tmp ? need : 0;
                if (!*tmp) return BK_ENOMEM;
            }
            a->fill(a->fill_user, k, *tmp, (size_t)r->w * 4);
            src = *tmp;
        }
        if (src) {
            for (uint32_t y = 0; y < r->h; y++) {
                uint8_t *d = dst + (size_t)y * W * bpp;
                const uint8_t *s = src + (size_t)y * r->w * 4;
                if (bpp == 4) {
                    memcpy(d, s, (size_t)r->w * 4);
                } else {
                    for (uint32_t x = 0; x < r->w; x++) memcpy(d + x * 3, s + x * 4, 3);
                }
            }
        }
        pad_rect(px, W, r, a->pad, bpp);
    }
    return BK_OK;
}

typedef struct draw_half {
    const bk_atlas *a;
    uint8_t *px;
    size_t W;
    uint32_t from, to;
} draw_half;

static void draw_half_run(void *user)
{
    draw_half *h = user;
    /* the RGB fill draws straight into the atlas: no scratch, so nothing can fail */
    (void)draw_rects(h->a, h->px, h->W, 3, h->from, h->to, NULL, NULL);
}

/* Draw the atlas with texels of bpp bytes (4: RGBA, 3: RGB). A rectangle drawn by the fill
 * callback into an RGB atlas goes through one rectangle's worth of RGBA, unless the atlas has an
 * RGB fill (bk_atlas_set_fill_rgb): then its rectangles are drawn in place, the second half of them
 * on a second thread when there are enough (rectangles and their padding do not overlap). */
static bk_result draw(const bk_atlas *a, size_t bpp, uint8_t **out)
{
    if (!a->packed) return BK_EARG;
    size_t W = a->width, H = a->height;
    /* not calloc: every texel is written once below (opaque black where no rectangle is). An RGB
     * atlas is drawn H bytes into its block, which then becomes PNG rows in place (filter bytes) */
    size_t front = bpp == 3 ? H : 0;
    uint8_t *block = bk_malloc(W * H * bpp + front), *px = block + front;
    if (!block) return BK_ENOMEM;
    if (bpp == 3) {
        memset(px, 0, W * H * 3);
    } else {
        uint32_t black, *img = (uint32_t *)(void *)px;
        memcpy(&black, (const uint8_t[4]){0, 0, 0, 255}, 4);
        for (size_t i = 0; i < W * H; i++) img[i] = black;
    }
    uint8_t *tmp = NULL;
    size_t tmp_cap = 0;
    uint32_t split = a->count;
    bk_thread th;
    draw_half half;
    bool two = false;
    if (bpp == 3 && a->fill && a->fill_rgb && a->count >= DRAW_THREAD_MIN && bk_cpu_count() >= 2) {
        split = a->count / 2;
        half = (draw_half){a, px, W, split, a->count};
        two = bk_thread_start(&th, draw_half_run, &half);
        if (!two) split = a->count;
    }
    bk_result r = draw_rects(a, px, W, bpp, 0, split, &tmp, &tmp_cap);
    if (two) bk_thread_join(&th);
    if (r != BK_OK) {
        bk_free(tmp);
        bk_free(block);
        return r;
    }
    bk_free(tmp);
    if (bpp == 3) {
        /* BK_PACK_RGB_UP in one pass from the top: row y moves H - y - 1 bytes back to make room
         * for the filter bytes (onto bytes of its own and of the row above, both already read) */
        if (bk_pack_rgb_up(block, px, W, H, 3) != BK_OK) {
            bk_free(block);
            return BK_ENOMEM;
        }
    }
    *out = block;
    return BK_OK;
}

/* The rectangles a fill callback draws, while a band reaches them: one rectangle's worth of RGBA
 * drawn again for each band (tmp), or with fill_held each rectangle drawn once and kept as RGB
 * (held, one per rectangle) until the bands have passed it. */
typedef struct fill_scratch {
    uint8_t *tmp;
    size_t tmp_cap;
    uint8_t **held;
} fill_scratch;

/* rectangle k drawn by the fill callback: *src its texels, *bpp bytes each (a held one kept as
 * RGB: the band takes three bytes of each) */
static bk_result fill_rect(const bk_atlas *a, uint32_t k, fill_scratch *fs, const uint8_t **src, size_t *bpp)
{
    const rect *r = &a->r[k];
    size_t n = (size_t)r->w * r->h;
    if (fs->held && fs->held[k]) {
        *src = fs->held[k], *bpp = 3;
        return BK_OK;
    }
    if (n * 4 > fs->tmp_cap) {
        bk_free(fs->tmp);
        fs->tmp = bk_malloc(n * 4);
        fs->tmp_cap = fs->tmp ? n * 4 : 0;
        if (!fs->tmp) return BK_ENOMEM;
    }
    a->fill(a->fill_user, k, fs->tmp, (size_t)r->w * 4);
    *src = fs->tmp, *bpp = 4;
    if (fs->held) {
        uint8_t *rgb = bk_malloc(n * 3);
        if (!rgb) return BK_ENOMEM;
        for (size_t i = 0; i < n; i++) memcpy(rgb + i * 3, fs->tmp + i * 4, 3);
        fs->held[k] = rgb;
        *src = rgb, *bpp = 3;
    }
    return BK_OK;
}

/* Rows y0 .. y0 + n - 1 of the RGB atlas draw() makes, into band (n rows of width * 3 bytes). Each
 * rectangle is drawn with its padding as clamped reads of its own texels, in the order draw()
 * draws them, so every texel ends as draw() leaves it. A rectangle drawn by the fill callback goes
 * through fs. */
static bk_result draw_rows(const bk_atlas *a, uint32_t y0, uint32_t n, uint8_t *band, fill_scratch *fs)
{
    size_t W = a->width, row = W * 3, pad = a->pad;
    memset(band, 0, row * n);
    for (uint32_t k = 0; k < a->count; k++) {
        const rect *r = &a->r[k];
        uint64_t top = r->y >= pad ? r->y - pad : 0, bot = (uint64_t)r->y + r->h + pad;
        if (bot <= y0 || top >= (uint64_t)y0 + n) continue;
        const uint8_t *src = NULL;
        size_t sb = 4;
        if (r->px != SIZE_MAX) src = a->arena.data + r->px;
        else if (a->fill) BK_TRY(fill_rect(a, k, fs, &src, &sb));
        uint64_t from = top > y0 ? top : y0, to = bot < (uint64_t)y0 + n ? bot : (uint64_t)y0 + n;
        for (uint64_t y = from; y < to; y++) {
            uint8_t *d = band + (size_t)(y - y0) * row + ((size_t)r->x - pad) * 3;
            if (!src) {
                memset(d, 0, ((size_t)r->w + 2 * pad) * 3);
                continue;
            }
            int64_t sy = (int64_t)y - r->y;
            if (sy < 0) sy = 0;
            if (sy >= r->h) sy = r->h - 1;
            const uint8_t *s = src + (size_t)sy * r->w * sb;
            for (size_t x = 0; x < pad; x++, d += 3) memcpy(d, s, 3);
            for (size_t x = 0; x < r->w; x++, d += 3) memcpy(d, s + x * sb, 3);
            for (size_t x = 0; x < pad; x++, d += 3) memcpy(d, s + ((size_t)r->w - 1) * sb, 3);
        }
        if (fs->held && fs->held[k] && bot <= (uint64_t)y0 + n) { /* the bands are past it */
            bk_free(fs->held[k]);
            fs->held[k] = NULL;
        }
    }
    return BK_OK;
}

bk_result bk_atlas_to_png_image(const bk_atlas *a, bk_scene *s, const char *name, int level, int32_t *out)
{
    if (!a->packed || !a->width || !a->height) return BK_EARG;
    size_t W = a->width, H = a->height, row = W * 3;
    /* bands drawn, filtered and deflated in turn: a sixteenth of the atlas, from 32 to 256 KiB of
     * texels (at least 16 rows), so a small map's atlas is not held whole either and a large one
     * is drawn in few passes over the rectangles */
    size_t want = row * H / 16;
    if (want < ((size_t)32 << 10)) want = (size_t)32 << 10;
    if (want > ((size_t)256 << 10)) want = (size_t)256 << 10;
    size_t B = want / row;
    if (B < 16) B = 16;
    if (B > H) B = H;
    uint8_t *band = bk_malloc(row * B), *line = bk_malloc(row + 1);
    fill_scratch fs = {NULL, 0, a->fill_held ? bk_calloc(a->count ? a->count : 1, sizeof(uint8_t *)) : NULL};
    bk_buf png = {0};
    bk_png_stream *ps = NULL;
    bk_result r = band && line && (fs.held || !a->fill_held) ? bk_png_stream_begin(&ps, a->width, a->height, false, level, &png) : BK_ENOMEM;
    const uint8_t *prev = NULL;
    uint8_t *keep = NULL; /* the last row of the band before (the "up" row of the next band's first) */
    if (r == BK_OK && !(keep = bk_malloc(row))) r = BK_ENOMEM;
    for (size_t y0 = 0; y0 < H && r == BK_OK; y0 += B) {
        size_t n = H - y0 < B ? H - y0 : B;
        r = draw_rows(a, (uint32_t)y0, (uint32_t)n, band, &fs);
        for (size_t j = 0; j < n && r == BK_OK; j++) {
            const uint8_t *cur = band + j * row;
            line[0] = prev ? 2 : 0; /* row 0 plain, then "up" */
            if (prev) {
                for (size_t i = 0; i < row; i++) line[1 + i] = (uint8_t)(cur[i] - prev[i]);
            } else {
                memcpy(line + 1, cur, row);
            }
            r = bk_png_stream_rows(ps, line, row + 1);
            prev = cur;
        }
        if (r == BK_OK) {
            memcpy(keep, band + (n - 1) * row, row);
            prev = keep;
        }
    }
    if (ps) {
        bk_result e = bk_png_stream_end(ps, r == BK_OK);
        if (r == BK_OK) r = e;
    }
    bk_free(band);
    bk_free(line);
    bk_free(keep);
    bk_free(fs.tmp);
    for (uint32_t k = 0; fs.held && k < a->count; k++) bk_free(fs.held[k]);
    bk_free(fs.held);
    int32_t idx = -1;
    if (r == BK_OK) r = bk_scene_add_packed_image(s, name, a->width, a->height, BK_PACK_PNG, png.data, png.size, NULL, 0, &idx);
    if (r != BK_OK) {
        bk_buf_free(&png);
        return r;
    }
    s->images[idx].is_lightmap = 1;
    if (out) *out = idx;
    return BK_OK;
}

bk_result bk_atlas_to_scene_image(const bk_atlas *a, bk_scene *s, const char *name, const bk_options *opt,
                                  size_t stream_above, int32_t *out)
{
    if (!(opt->flags & BK_OPT_COMPACT_IMAGES)) return bk_atlas_to_image(a, s, name, out);
    size_t raw = ((size_t)a->width * 3 + 1) * a->height;
    if (raw > stream_above) return bk_atlas_to_png_image(a, s, name, 0, out);
    return bk_atlas_to_rgb_image(a, s, name, out);
}

/* The atlas drawn with bpp bytes a texel (4: RGBA, 3: RGB rows as the exporter packs them, 1: its
 * red channel as an indexed image behind a gray palette) as a lightmap image of the scene; the
 * pixels freed when the scene does not take them. */
static bk_result atlas_image(const bk_atlas *a, bk_scene *s, const char *name, size_t bpp, int32_t *out)
{
    uint8_t *px;
    BK_TRY(draw(a, bpp == 1 ? 4 : bpp, &px));
    size_t n = (size_t)a->width * a->height;
    if (bpp == 1) {
        uint8_t *packed = bk_malloc(n + 1024);
        if (!packed) {
            bk_free(px);
            return BK_ENOMEM;
        }
        for (int i = 0; i < 256; i++) memcpy(packed + i * 4, (const uint8_t[4]){(uint8_t)i, (uint8_t)i, (uint8_t)i, 255}, 4);
        for (size_t i = 0; i < n; i++) packed[1024 + i] = px[i * 4];
        bk_free(px);
        px = packed;
    }
    int32_t idx;
    bk_result res = bpp == 4 ? bk_scene_add_image(s, name, a->width, a->height, px, &idx)
                    : bpp == 3 ? bk_scene_add_packed_image(s, name, a->width, a->height, BK_PACK_RGB_UP, px,
                                                           ((size_t)a->width * 3 + 1) * a->height, NULL, 0, &idx)
                               : bk_scene_add_packed_image(s, name, a->width, a->height, BK_PACK_PAL8, px, n + 1024,
                                                           NULL, 0, &idx);
    if (res != BK_OK) {
        bk_free(px);
        return res;
    }
    s->images[idx].is_lightmap = 1;
    if (out) *out = idx;
    return BK_OK;
}

bk_result bk_atlas_to_image(const bk_atlas *a, bk_scene *s, const char *name, int32_t *out)
{
    return atlas_image(a, s, name, 4, out);
}

bk_result bk_atlas_to_gray_image(const bk_atlas *a, bk_scene *s, const char *name, int32_t *out)
{
    return atlas_image(a, s, name, 1, out);
}

bk_result bk_atlas_to_rgb_image(const bk_atlas *a, bk_scene *s, const char *name, int32_t *out)
{
    return atlas_image(a, s, name, 3, out);
}

/* ---- an image's PNG on a second thread ------------------------------------------------------ */
struct bk_png_bg {
    bk_image im;    /* a copy of the image's description and pixels: its rows are read there, not owned */
    bk_pixels px;
    uint32_t index;
    bk_buf png;
    bk_result r;
    bk_thread th;
    bk_mutex mu;
    bool joined;
};

static void png_bg_run(void *user)
{
    bk_png_bg *j = user;
    j->r = bk_png_encode_pixels(&j->im, &j->px, 0, &j->png);
    if (j->r == BK_OK && (j->png.failed || !j->png.size)) j->r = BK_ENOMEM;
}

static void png_bg_join(bk_png_bg *j)
{
    bk_mutex_lock(&j->mu);
    if (!j->joined) {
        bk_thread_join(&j->th);
        j->joined = true;
    }
    bk_mutex_unlock(&j->mu);
}

void bk_png_bg_start(bk_scene *s, int32_t image)
{
    if (*bk_scene_png_job(s) || image < 0 || (uint32_t)image >= s->image_count || bk_cpu_count() < 2) return;
    const bk_pixels *px = bk_scene_pixels(s, (uint32_t)image);
    if (px->packing != BK_PACK_RGB_UP || !px->packed) return;
    bk_png_bg *j = bk_calloc(1, sizeof *j);
    if (!j) return;
    j->im = s->images[image];
    j->px = *px;
    j->index = (uint32_t)image;
    bk_mutex_init(&j->mu);
    if (!bk_thread_start(&j->th, png_bg_run, j)) {
        bk_mutex_destroy(&j->mu);
        bk_free(j);
        return;
    }
    *bk_scene_png_job(s) = j;
}

bool bk_png_bg_get(const bk_scene *s, uint32_t image, const uint8_t **png, size_t *size)
{
    bk_png_bg *j = *bk_scene_png_job(s);
    if (!j || j->index != image || image >= s->image_count || bk_scene_pixels(s, image)->packed != j->px.packed)
        return false;
    png_bg_join(j);
    if (j->r != BK_OK) return false;
    *png = j->png.data;
    *size = j->png.size;
    return true;
}

void bk_png_bg_free(bk_scene *s)
{
    bk_png_bg *j = *bk_scene_png_job(s);
    if (!j) return;
    png_bg_join(j);
    bk_mutex_destroy(&j->mu);
    bk_buf_free(&j->png);
    bk_free(j);
    *bk_scene_png_job(s) = NULL;
}
