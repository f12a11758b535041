/* Lightmap atlas: shelf packing of padded rectangles into the smallest power-of-two image. */
#include "../common/bk_internal.h"

typedef struct rect {
    uint32_t w, h, x, y;
    uint8_t *px;
} rect;

struct bk_atlas {
    rect *r;
    uint32_t count, cap;
    uint32_t max_size, pad;
    uint32_t width, height;
    bool packed;
};

bk_atlas *bk_atlas_new(uint32_t max_size, uint32_t pad)
{
    bk_atlas *a = calloc(1, sizeof *a);
    if (!a) return NULL;
    a->max_size = max_size ? max_size : 8192;
    a->pad = pad;
    return a;
}

void bk_atlas_free(bk_atlas *a)
{
    if (!a) return;
    for (uint32_t i = 0; i < a->count; i++) free(a->r[i].px);
    free(a->r);
    free(a);
}

uint32_t bk_atlas_count(const bk_atlas *a) { return a->count; }

bk_result bk_atlas_add(bk_atlas *a, uint32_t w, uint32_t h, const uint8_t *rgba, uint32_t *id)
{
    if (!w || !h || w > a->max_size || h > a->max_size) return BK_ELIMIT;
    BK_TRY(bk_grow((void **)&a->r, &a->cap, a->count + 1, sizeof(rect)));
    size_t bytes = (size_t)w * h * 4;
    uint8_t *px = malloc(bytes);
    if (!px) return BK_ENOMEM;
    memcpy(px, rgba, bytes);
    rect *r = &a->r[a->count];
    r->w = w;
    r->h = h;
    r->x = r->y = 0;
    r->px = px;
    if (id) *id = a->count;
    a->count++;
    a->packed = false;
    return BK_OK;
}

/* Try to place all rectangles (in order) on shelves of a W-wide strip; returns the height used. */
static uint64_t shelf(bk_atlas *a, const uint32_t *order, uint32_t W, bool commit)
{
    uint64_t x = 0, y = 0, shelf_h = 0;
    uint32_t p2 = a->pad * 2;
    for (uint32_t k = 0; k < a->count; k++) {
        rect *r = &a->r[order[k]];
        uint64_t w = (uint64_t)r->w + p2, h = (uint64_t)r->h + p2;
        if (w > W) return UINT64_MAX;
        if (x + w > W) {
            y += shelf_h;
            x = 0;
            shelf_h = 0;
        }
        if (commit) {
            r->x = (uint32_t)(x + a->pad);
            r->y = (uint32_t)(y + a->pad);
        }
        x += w;
        if (h > shelf_h) shelf_h = h;
    }
    return y + shelf_h;
}

static int cmp_height(const uint32_t *pa, const uint32_t *pb, const bk_atlas *a)
{
    const rect *x = &a->r[*pa], *y = &a->r[*pb];
    if (x->h != y->h) return x->h > y->h ? -1 : 1;
    if (x->w != y->w) return x->w > y->w ? -1 : 1;
    return *pa < *pb ? -1 : 1;
}

/* stable merge sort with a context (qsort_r is not portable C11) */
static void sort_ids(uint32_t *v, uint32_t *tmp, uint32_t n, const bk_atlas *a)
{
    if (n < 2) return;
    uint32_t m = n / 2;
    sort_ids(v, tmp, m, a);
    sort_ids(v + m, tmp, n - m, a);
    uint32_t i = 0, j = m, k = 0;
    while (i < m && j < n) tmp[k++] = cmp_height(&v[i], &v[j], a) <= 0 ? v[i++] : v[j++];
    while (i < m) tmp[k++] = v[i++];
    while (j < n) tmp[k++] = v[j++];
    memcpy(v, tmp, n * sizeof *v);
}

bk_result bk_atlas_pack(bk_atlas *a)
{
    if (a->count == 0) {
        a->width = a->height = 1;
        a->packed = true;
        return BK_OK;
    }
    uint32_t *order = malloc(a->count * sizeof *order), *tmp = malloc(a->count * sizeof *tmp);
    if (!order || !tmp) {
        free(order);
        free(tmp);
        return BK_ENOMEM;
    }
    for (uint32_t i = 0; i < a->count; i++) order[i] = i;
    sort_ids(order, tmp, a->count, a);
    free(tmp);
    /* total area gives the first width to try */
    uint64_t area = 0;
    for (uint32_t i = 0; i < a->count; i++)
        area += (uint64_t)(a->r[i].w + 2 * a->pad) * (a->r[i].h + 2 * a->pad);
    uint32_t W = 16;
    while ((uint64_t)W * W < area && W < a->max_size) W *= 2;
    for (;;) {
        uint64_t h = shelf(a, order, W, false);
        if (h != UINT64_MAX && h <= W) {
            shelf(a, order, W, true);
            uint32_t H = 1;
            while (H < h) H *= 2;
            a->width = W;
            a->height = H;
            a->packed = true;
            free(order);
            return BK_OK;
        }
        if (W >= a->max_size) break;
        W *= 2;
    }
    free(order);
    return BK_ELIMIT;
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

bk_result bk_atlas_to_image(const bk_atlas *a, bk_scene *s, const char *name, int32_t *out)
{
    if (!a->packed) return BK_EARG;
    size_t W = a->width, H = a->height;
    uint8_t *img = calloc(W * H, 4);
    if (!img) return BK_ENOMEM;
    for (size_t i = 0; i < W * H; i++) img[i * 4 + 3] = 255;
    int32_t pad = (int32_t)a->pad;
    for (uint32_t k = 0; k < a->count; k++) {
        const rect *r = &a->r[k];
        for (int32_t y = -pad; y < (int32_t)r->h + pad; y++) {
            int32_t sy = y < 0 ? 0 : (y >= (int32_t)r->h ? (int32_t)r->h - 1 : y);
            for (int32_t x = -pad; x < (int32_t)r->w + pad; x++) {
                int32_t sx = x < 0 ? 0 : (x >= (int32_t)r->w ? (int32_t)r->w - 1 : x);
                size_t d = ((size_t)(r->y + y) * W + (size_t)(r->x + x)) * 4;
                const uint8_t *src = r->px + ((size_t)sy * r->w + (size_t)sx) * 4;
                memcpy(img + d, src, 4);
            }
        }
    }
    int32_t idx;
    bk_result res = bk_scene_add_image(s, name, (uint32_t)W, (uint32_t)H, img, &idx);
    if (res != BK_OK) {
        free(img);
        return res;
    }
    s->images[idx].is_lightmap = 1;
    if (out) *out = idx;
    return BK_OK;
}
