/* The format-neutral scene: growable arrays, owned by the scene, freed in one call.
 *
 * The public bk_scene holds what a program reads. What only the builders need lives around it:
 * the scene is allocated inside a scene_own (bk_scene first, so the two pointers are the same),
 * which holds the capacities of the scene's arrays, each image's pixels and the background PNG
 * job. The arrays inside the elements (a mesh's primitives, an animation's channels, a
 * primitive's vertices and indices) keep their capacity in a small header in front of the array. */
#define BK_ADVANCED_API /* the speed and memory knobs (bspkit/advanced.h) */
#include "scene/scene_build.h"
#include "bspkit/advanced.h"
#include "../common/bk_internal.h"

typedef struct scene_own {
    bk_scene s;
    uint32_t image_cap, material_cap, mesh_cap, node_cap, skin_cap, anim_cap, light_cap;
    bk_pixels *px;             /* one per image, image_cap of them */
    bk_png_bg *png_job;
} scene_own;

static scene_own *own(const bk_scene *s) { return (scene_own *)(uintptr_t)s; }

bk_scene *bk_scene_new(void)
{
    scene_own *o = bk_calloc(1, sizeof *o);
    return o ? &o->s : NULL;
}

bk_pixels *bk_scene_pixels(const bk_scene *s, uint32_t i) { return &own(s)->px[i]; }
bk_png_bg **bk_scene_png_job(const bk_scene *s) { return &own(s)->png_job; }

/* ---- arrays with their capacity in front (16 bytes: the allocator's alignment is kept) ---- */
#define CAP_HDR 16u
static uint32_t cap_of(const void *arr)
{
    uint32_t c = 0;
    if (arr) memcpy(&c, (const uint8_t *)arr - CAP_HDR, 4);
    return c;
}
/* *arr to room for exactly cap elements of size bytes (contents kept, new room not cleared) */
static bk_result cap_resize(void **arr, uint32_t cap, size_t size)
{
    size_t bytes;
    if (!bk_mul_ok(cap, size, &bytes) || !bk_add_ok(bytes, CAP_HDR, &bytes)) return BK_EOVERFLOW;
    uint8_t *n = bk_realloc(*arr ? (uint8_t *)*arr - CAP_HDR : NULL, bytes);
    if (!n) return BK_ENOMEM;
    memcpy(n, &cap, 4);
    *arr = n + CAP_HDR;
    return BK_OK;
}
static void cap_free(void *arr)
{
    if (arr) bk_free((uint8_t *)arr - CAP_HDR);
}
/* as bk_grow (doubling from 8, the new room zeroed) for an array with its capacity in front */
static bk_result cap_grow(void **arr, uint32_t need, size_t size)
{
    uint32_t cap = cap_of(*arr);
    if (need <= cap) return BK_OK;
    uint64_t ncap = cap ? (uint64_t)cap * 2 : 8;
    while (ncap < need) ncap *= 2;
    if (ncap > UINT32_MAX) ncap = UINT32_MAX;
    if (ncap < need) return BK_ELIMIT;
    BK_TRY(cap_resize(arr, (uint32_t)ncap, size));
    memset((uint8_t *)*arr + (size_t)cap * size, 0, (size_t)(ncap - cap) * size);
    return BK_OK;
}

static void free_kvs(bk_kv *kv, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        bk_free(kv[i].key);
        bk_free(kv[i].value);
    }
    bk_free(kv);
}

static void free_prim(bk_primitive *p)
{
    cap_free(p->position);
    bk_free(p->normal);
    bk_free(p->uv0);
    bk_free(p->uv1);
    bk_free(p->color);
    bk_free(p->joints);
    bk_free(p->weights);
    cap_free(p->indices);
}

void bk_scene_free(bk_scene *s)
{
    if (!s) return;
    bk_png_bg_free(s); /* first: its thread reads an image's rows */
    scene_own *o = own(s);
    for (uint32_t i = 0; i < s->image_count; i++) {
        bk_free(s->images[i].name);
        bk_free(o->px[i].rgba);
        bk_free(o->px[i].packed);
    }
    bk_free(o->px);
    for (uint32_t i = 0; i < s->material_count; i++) {
        bk_free(s->materials[i].name);
        free_kvs(s->materials[i].extras, s->materials[i].extra_count);
        bk_free(s->materials[i].light_layers);
    }
    for (uint32_t i = 0; i < s->lightstyle_count; i++) {
        bk_free(s->lightstyles[i].pattern);
        bk_free(s->lightstyles[i].targetname);
    }
    bk_free(s->lightstyles);
    for (uint32_t i = 0; i < s->mesh_count; i++) {
        for (uint32_t j = 0; j < s->meshes[i].prim_count; j++) free_prim(&s->meshes[i].prims[j]);
        cap_free(s->meshes[i].prims);
        bk_free(s->meshes[i].name);
    }
    for (uint32_t i = 0; i < s->node_count; i++) {
        bk_free(s->nodes[i].name);
        free_kvs(s->nodes[i].extras, s->nodes[i].extra_count);
    }
    for (uint32_t i = 0; i < s->skin_count; i++) {
        bk_free(s->skins[i].name);
        bk_free(s->skins[i].joints);
        bk_free(s->skins[i].inverse_bind);
    }
    for (uint32_t i = 0; i < s->anim_count; i++) {
        for (uint32_t j = 0; j < s->anims[i].channel_count; j++) {
            bk_free(s->anims[i].channels[j].times);
            bk_free(s->anims[i].channels[j].values);
        }
        cap_free(s->anims[i].channels);
        bk_free(s->anims[i].name);
    }
    bk_free(s->images);
    bk_free(s->materials);
    bk_free(s->meshes);
    bk_free(s->nodes);
    bk_free(s->skins);
    bk_free(s->anims);
    for (uint32_t i = 0; i < s->light_count; i++) {
        bk_free(s->lights[i].name);
        free_kvs(s->lights[i].extras, s->lights[i].extra_count);
    }
    bk_free(s->lights);
    free_kvs(s->extras, s->extra_count);
    bk_free(s->name);
    bk_free(o);
}

bk_result bk_scene_set_image_rgba(bk_scene *s, uint32_t i, uint8_t *rgba)
{
    if (i >= s->image_count) {
        bk_free(rgba);
        return BK_EARG;
    }
    bk_png_bg_free(s); /* its thread may read this image's rows */
    bk_pixels *px = &own(s)->px[i];
    bk_free(px->rgba);
    bk_free(px->packed);
    memset(px, 0, sizeof *px);
    px->rgba = rgba;
    return BK_OK;
}

bk_result bk_scene_add_image(bk_scene *s, const char *name, uint32_t w, uint32_t h, uint8_t *rgba, int32_t *out)
{
    if (s->image_count >= INT32_MAX) return BK_ELIMIT;
    scene_own *o = own(s);
    uint32_t cap = o->image_cap;
    BK_TRY(bk_grow((void **)&s->images, &o->image_cap, s->image_count + 1, sizeof(bk_image)));
    if (o->image_cap != cap) {
        uint32_t pcap = cap;
        bk_result r = bk_grow((void **)&o->px, &pcap, o->image_cap, sizeof(bk_pixels));
        if (r != BK_OK) {
            o->image_cap = cap; /* the pixel records did not follow: grow both again next time */
            return r;
        }
    }
    bk_image *im = &s->images[s->image_count];
    memset(im, 0, sizeof *im);
    memset(&o->px[s->image_count], 0, sizeof(bk_pixels));
    im->name = bk_strdup(name ? name : "");
    if (!im->name) return BK_ENOMEM;
    im->width = w;
    im->height = h;
    o->px[s->image_count].rgba = rgba;
    if (rgba) {
        size_t n = (size_t)w * h;
        for (size_t i = 0; i < n; i++)
            if (rgba[i * 4 + 3] != 255) {
                im->has_alpha = 1;
                break;
            }
    }
    if (out) *out = (int32_t)s->image_count;
    s->image_count++;
    return BK_OK;
}

bk_result bk_pack_rgb_up(uint8_t *dst, const uint8_t *src, size_t w, size_t h, int bpp)
{
    size_t row = w * 3;
    uint8_t *keep = bk_malloc(2 * row);
    if (!keep) return BK_ENOMEM;
    uint8_t *prev = keep, *cur = keep + row;
    for (size_t y = 0; y < h; y++) {   /* each row read aside first, with the row above as it was */
        const uint8_t *s = src + y * w * (size_t)bpp;
        if (bpp == 3) memcpy(cur, s, row);
        else for (size_t x = 0; x < w; x++) memcpy(cur + 3 * x, s + 4 * x, 3);
        uint8_t *d = dst + y * (row + 1);
        d[0] = y ? 2 : 0;
        for (size_t i = 0; i < row; i++) d[1 + i] = (uint8_t)(cur[i] - (y ? prev[i] : 0));
        uint8_t *t = prev;
        prev = cur, cur = t;
    }
    bk_free(keep);
    return BK_OK;
}

bk_result bk_scene_add_rgb_image(bk_scene *s, const char *name, uint32_t w, uint32_t h, uint8_t *rgba, int32_t *out)
{
    size_t n;
    if (!rgba || !w || !h || !bk_mul_ok((size_t)w, (size_t)h, &n) || n > SIZE_MAX / 4) {
        bk_free(rgba);
        return BK_EARG;
    }
    /* row y's RGB rows start at y * (3w + 1), never past its RGBA start (4wy) */
    size_t row = (size_t)w * 3;
    if (bk_pack_rgb_up(rgba, rgba, w, h, 4) != BK_OK) {
        bk_free(rgba);
        return BK_ENOMEM;
    }
    uint8_t *packed = bk_realloc(rgba, (row + 1) * h);   /* smaller: kept where it is if it cannot move */
    if (!packed) packed = rgba;
    bk_result r = bk_scene_add_packed_image(s, name, w, h, BK_PACK_RGB_UP, packed, (row + 1) * h, NULL, 0, out);
    if (r != BK_OK) bk_free(packed);
    return r;
}

bk_result bk_scene_add_packed_image(bk_scene *s, const char *name, uint32_t w, uint32_t h, uint32_t packing,
                                    uint8_t *packed, size_t size, bk_unpack_fn unpack, int has_alpha, int32_t *out)
{
    size_t n;
    if (!packed || !w || !h || !bk_mul_ok((size_t)w, (size_t)h, &n) || n > SIZE_MAX / 4) return BK_EARG;
    switch (packing) {
    case BK_PACK_RGB_UP:
        if (size != n * 3 + h) return BK_EARG;
        if (has_alpha < 0) has_alpha = 0;
        break;
    case BK_PACK_PAL8:
        if (size != n + 1024) return BK_EARG;
        if (has_alpha < 0) {
            /* any pixel whose palette entry is not opaque */
            uint8_t see[256] = {0};
            for (size_t i = 0; i < n; i++) see[packed[1024 + i]] = 1;
            has_alpha = 0;
            for (int c = 0; c < 256 && !has_alpha; c++) has_alpha = see[c] && packed[c * 4 + 3] != 255;
        }
        break;
    case BK_PACK_CODEC:
        if (!unpack || has_alpha < 0) return BK_EARG;
        break;
    case BK_PACK_PNG: {
        /* the signature, then IHDR: this size, 8 bits, RGB (2) or RGBA (6), not interlaced */
        static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
        if (size < 33 || memcmp(packed, sig, 8) || memcmp(packed + 12, "IHDR", 4) || bk_rd_u32be(packed + 16) != w ||
            bk_rd_u32be(packed + 20) != h || packed[24] != 8 || (packed[25] != 2 && packed[25] != 6) || packed[28])
            return BK_EARG;
        has_alpha = packed[25] == 6;
        break;
    }
    default: return BK_EARG;
    }
    BK_TRY(bk_scene_add_image(s, name, w, h, NULL, out));
    bk_image *im = &s->images[s->image_count - 1];
    bk_pixels *px = bk_scene_pixels(s, s->image_count - 1);
    px->packing = packing;
    px->packed = packed;
    px->packed_size = size;
    px->unpack = packing == BK_PACK_CODEC ? unpack : NULL;
    im->has_alpha = has_alpha != 0;
    return BK_OK;
}

static bool has_pixels(const bk_image *im, const bk_pixels *px)
{
    return im->width && im->height && (px->rgba || (px->packed && px->packing != BK_PACK_NONE));
}

bool bk_scene_image_has_pixels(const bk_scene *s, uint32_t i)
{
    return s && i < s->image_count && has_pixels(&s->images[i], bk_scene_pixels(s, i));
}

void bk_scene_image_release(bk_scene *s, uint32_t i)
{
    if (!s || i >= s->image_count) return;
    bk_png_bg_free(s); /* a PNG being made on another thread may read these pixels */
    bk_pixels *p = bk_scene_pixels(s, i);
    bk_free(p->rgba);
    bk_free(p->packed);
    p->rgba = NULL, p->packed = NULL, p->packed_size = 0, p->packing = BK_PACK_NONE, p->unpack = NULL;
}

void bk_scene_release_geometry(bk_scene *s)
{
    if (!s) return;
    for (uint32_t i = 0; i < s->mesh_count; i++)
        for (uint32_t j = 0; j < s->meshes[i].prim_count; j++) {
            bk_primitive *p = &s->meshes[i].prims[j];
            free_prim(p);
            p->position = p->normal = p->uv0 = p->uv1 = p->weights = NULL;
            p->color = NULL, p->joints = NULL, p->indices = NULL;
            p->vertex_count = p->index_count = 0, p->attrs = 0;
        }
}

/* One BK_PACK_RGB_UP row (its filter byte, then w RGB texels) as w RGBA texels at d; up: the RGBA
 * row above (NULL: none), which may be d itself (each texel reads only its own) */
static void unpack_rgb_up_row(uint8_t *d, const uint8_t *row, const uint8_t *up, size_t w)
{
    bool filtered = row[0] == 2 && up;
    for (size_t x = 0; x < w; x++) {
        for (int c = 0; c < 3; c++) d[x * 4 + c] = (uint8_t)(row[1 + x * 3 + c] + (filtered ? up[x * 4 + c] : 0));
        d[x * 4 + 3] = 255;
    }
}

bk_result bk_unpack_pixels(const bk_image *im, const bk_pixels *px, uint8_t *o)
{
    if (!has_pixels(im, px)) return BK_EARG;
    size_t w = im->width, n = w * im->height;
    const uint8_t *p = px->packed;
    if (px->rgba) {
        memcpy(o, px->rgba, n * 4);
    } else if (px->packing == BK_PACK_RGB_UP) {
        size_t stride = w * 3 + 1;
        if (px->packed_size != stride * im->height) return BK_EARG;
        for (size_t y = 0; y < im->height; y++) {
            uint8_t *d = o + y * w * 4;
            unpack_rgb_up_row(d, p + y * stride, y ? d - w * 4 : NULL, w);
        }
    } else if (px->packing == BK_PACK_PAL8) {
        if (px->packed_size != n + 1024) return BK_EARG;
        for (size_t i = 0; i < n; i++) memcpy(o + i * 4, p + (size_t)p[1024 + i] * 4, 4);
    } else if (px->packing == BK_PACK_PNG) {
        return bk_image_decode_into(p, px->packed_size, im->width, im->height, o);
    } else {
        return px->unpack ? px->unpack(p, px->packed_size, im->width, im->height, o) : BK_EARG;
    }
    return BK_OK;
}

bk_result bk_scene_image_unpack_to(const bk_scene *s, uint32_t i, uint8_t *out)
{
    if (!s || i >= s->image_count) return BK_EARG;
    return bk_unpack_pixels(&s->images[i], bk_scene_pixels(s, i), out);
}

bk_result bk_scene_image_rgba(const bk_scene *s, uint32_t i, uint8_t **rgba)
{
    *rgba = NULL;
    if (!bk_scene_image_has_pixels(s, i)) return BK_EARG;
    const bk_image *im = &s->images[i];
    const bk_pixels *px = bk_scene_pixels(s, i);
    /* an image file's bytes: the decoder's own block, not a copy of it */
    if (!px->rgba && px->packed &&
        (px->packing == BK_PACK_PNG || (px->packing == BK_PACK_CODEC && px->unpack == bk_image_decode_into)))
        return bk_image_decode_sized(px->packed, px->packed_size, im->width, im->height, rgba);
    uint8_t *o = bk_malloc((size_t)im->width * im->height * 4);
    if (!o) return BK_ENOMEM;
    bk_result r = bk_scene_image_unpack_to(s, i, o);
    if (r != BK_OK) {
        bk_free(o);
        return r;
    }
    *rgba = o;
    return BK_OK;
}

bk_result bk_scene_image_rows(const bk_scene *s, uint32_t i, uint32_t rows, bk_row_fn fn, void *user)
{
    if (!bk_scene_image_has_pixels(s, i)) return BK_EARG;
    const bk_image *im = &s->images[i];
    const bk_pixels *px = bk_scene_pixels(s, i);
    size_t w = im->width;
    if (rows > im->height) rows = im->height;
    if (!px->rgba && px->packing == BK_PACK_PNG) {
        /* not one libspng decodes (BK_EUNSUPPORTED, before any row): whole, below */
        bk_result r = bk_png_decode_rows(px->packed, px->packed_size, im->width, im->height, rows, fn, user);
        if (r != BK_EUNSUPPORTED) return r;
    }
    if (!px->rgba && px->packing == BK_PACK_RGB_UP && px->packed_size == (w * 3 + 1) * im->height) {
        /* each row unfiltered against the one before it, in the same block, down to the last asked for */
        uint8_t *out = bk_malloc(w * 4);
        if (!out) return BK_ENOMEM;
        for (size_t y = 0; y < rows; y++) {
            unpack_rgb_up_row(out, px->packed + y * (w * 3 + 1), y ? out : NULL, w);
            fn(user, (uint32_t)y, out);
        }
        bk_free(out);
        return BK_OK;
    }
    /* any other form whole */
    uint8_t *all;
    BK_TRY(bk_scene_image_rgba(s, i, &all));
    for (size_t y = 0; y < rows; y++) fn(user, (uint32_t)y, all + y * w * 4);
    bk_free(all);
    return BK_OK;
}

bk_result bk_scene_add_material(bk_scene *s, const char *name, int32_t *out)
{
    if (s->material_count >= INT32_MAX) return BK_ELIMIT;
    BK_TRY(bk_grow((void **)&s->materials, &own(s)->material_cap, s->material_count + 1, sizeof(bk_material)));
    bk_material *m = &s->materials[s->material_count];
    memset(m, 0, sizeof *m);
    m->name = bk_strdup(name ? name : "");
    if (!m->name) return BK_ENOMEM;
    m->base_image = -1;
    m->lightmap_image = -1;
    m->base_color[0] = m->base_color[1] = m->base_color[2] = m->base_color[3] = 1.0f;
    m->alpha_cutoff = 0.5f;
    m->emissive_image = m->normal_image = m->specular_image = m->blend_image = -1;
    m->emissive_strength = 1.0f;
    if (out) *out = (int32_t)s->material_count;
    s->material_count++;
    return BK_OK;
}

int32_t bk_scene_find_material(const bk_scene *s, const char *name)
{
    for (uint32_t i = 0; i < s->material_count; i++)
        if (strcmp(s->materials[i].name, name) == 0) return (int32_t)i;
    return -1;
}

bk_result bk_scene_add_mesh(bk_scene *s, const char *name, int32_t *out)
{
    if (s->mesh_count >= INT32_MAX) return BK_ELIMIT;
    BK_TRY(bk_grow((void **)&s->meshes, &own(s)->mesh_cap, s->mesh_count + 1, sizeof(bk_mesh)));
    bk_mesh *m = &s->meshes[s->mesh_count];
    memset(m, 0, sizeof *m);
    m->name = bk_strdup(name ? name : "");
    if (!m->name) return BK_ENOMEM;
    if (out) *out = (int32_t)s->mesh_count;
    s->mesh_count++;
    return BK_OK;
}

bk_result bk_scene_add_node(bk_scene *s, const char *name, int32_t parent, int32_t mesh, int32_t *out)
{
    if (s->node_count >= INT32_MAX) return BK_ELIMIT;
    if (parent >= (int32_t)s->node_count || mesh >= (int32_t)s->mesh_count) return BK_EARG;
    BK_TRY(bk_grow((void **)&s->nodes, &own(s)->node_cap, s->node_count + 1, sizeof(bk_node)));
    bk_node *n = &s->nodes[s->node_count];
    memset(n, 0, sizeof *n);
    n->name = bk_strdup(name ? name : "");
    if (!n->name) return BK_ENOMEM;
    n->parent = parent < 0 ? -1 : parent;
    n->mesh = mesh < 0 ? -1 : mesh;
    n->skin = -1;
    n->light = -1;
    n->rotation[3] = 1.0f;
    n->scale[0] = n->scale[1] = n->scale[2] = 1.0f;
    if (out) *out = (int32_t)s->node_count;
    s->node_count++;
    return BK_OK;
}

bk_result bk_scene_add_light(bk_scene *s, const char *name, uint32_t type, int32_t *out)
{
    if (s->light_count >= INT32_MAX) return BK_ELIMIT;
    BK_TRY(bk_grow((void **)&s->lights, &own(s)->light_cap, s->light_count + 1, sizeof(bk_light)));
    bk_light *l = &s->lights[s->light_count];
    memset(l, 0, sizeof *l);
    l->name = bk_strdup(name ? name : "");
    if (!l->name) return BK_ENOMEM;
    l->type = type;
    l->color[0] = l->color[1] = l->color[2] = 1.0f;
    l->intensity = 1.0f;
    l->outer_cone = 0.78539816f;
    if (out) *out = (int32_t)s->light_count;
    s->light_count++;
    return BK_OK;
}

bk_result bk_scene_add_skin(bk_scene *s, const char *name, uint32_t joint_count, int32_t *out)
{
    if (!joint_count || joint_count > 65535) return BK_ELIMIT;
    BK_TRY(bk_grow((void **)&s->skins, &own(s)->skin_cap, s->skin_count + 1, sizeof(bk_skin)));
    bk_skin *k = &s->skins[s->skin_count];
    memset(k, 0, sizeof *k);
    k->name = bk_strdup(name ? name : "");
    k->joints = bk_calloc(joint_count, sizeof(int32_t));
    k->inverse_bind = bk_calloc((size_t)joint_count * 16, sizeof(float));
    if (!k->name || !k->joints || !k->inverse_bind) {
        bk_free(k->name);
        bk_free(k->joints);
        bk_free(k->inverse_bind);
        return BK_ENOMEM;
    }
    k->joint_count = joint_count;
    k->skeleton = -1;
    if (out) *out = (int32_t)s->skin_count;
    s->skin_count++;
    return BK_OK;
}

bk_result bk_scene_add_animation(bk_scene *s, const char *name, int32_t *out)
{
    BK_TRY(bk_grow((void **)&s->anims, &own(s)->anim_cap, s->anim_count + 1, sizeof(bk_animation)));
    bk_animation *a = &s->anims[s->anim_count];
    memset(a, 0, sizeof *a);
    a->name = bk_strdup(name ? name : "");
    if (!a->name) return BK_ENOMEM;
    if (out) *out = (int32_t)s->anim_count;
    s->anim_count++;
    return BK_OK;
}

bk_result bk_animation_add_channel(bk_animation *a, int32_t node, uint32_t path, uint32_t key_count,
                                   bk_channel **out)
{
    if (!key_count || path > BK_PATH_SCALE) return BK_EARG;
    BK_TRY(cap_grow((void **)&a->channels, a->channel_count + 1, sizeof(bk_channel)));
    bk_channel *c = &a->channels[a->channel_count];
    memset(c, 0, sizeof *c);
    uint32_t comps = path == BK_PATH_ROTATION ? 4 : 3;
    c->times = bk_calloc(key_count, sizeof(float));
    c->values = bk_calloc((size_t)key_count * comps, sizeof(float));
    if (!c->times || !c->values) {
        bk_free(c->times);
        bk_free(c->values);
        return BK_ENOMEM;
    }
    c->node = node;
    c->path = path;
    c->key_count = key_count;
    a->channel_count++;
    if (out) *out = c;
    return BK_OK;
}

bk_result bk_mesh_add_primitive(bk_mesh *m, int32_t material, uint32_t mode, uint32_t attrs, bk_primitive **out)
{
    BK_TRY(cap_grow((void **)&m->prims, m->prim_count + 1, sizeof(bk_primitive)));
    bk_primitive *p = &m->prims[m->prim_count++];
    memset(p, 0, sizeof *p);
    p->material = material;
    p->mode = mode;
    p->attrs = attrs;
    if (out) *out = p;
    return BK_OK;
}

/* capacity only: the room past the vertices is not touched (untouched pages cost no memory);
 * bk_prim_add_vertices clears the vertices it adds */
static bk_result grow_attr(void **arr, uint32_t ncap, size_t per_vertex)
{
    void *n = bk_realloc(*arr, (size_t)ncap * per_vertex);
    if (!n) return BK_ENOMEM;
    *arr = n;
    return BK_OK;
}

/* every vertex array of p to room for exactly nc vertices */
static bk_result vertex_room(bk_primitive *p, uint32_t nc)
{
    BK_TRY(cap_resize((void **)&p->position, nc, 3 * sizeof(float))); /* holds the capacity */
    if (p->attrs & BK_ATTR_NORMAL) BK_TRY(grow_attr((void **)&p->normal, nc, 3 * sizeof(float)));
    if (p->attrs & BK_ATTR_UV0) BK_TRY(grow_attr((void **)&p->uv0, nc, 2 * sizeof(float)));
    if (p->attrs & BK_ATTR_UV1) BK_TRY(grow_attr((void **)&p->uv1, nc, 2 * sizeof(float)));
    if (p->attrs & BK_ATTR_COLOR) BK_TRY(grow_attr((void **)&p->color, nc, 4));
    if (p->attrs & BK_ATTR_SKIN) {
        BK_TRY(grow_attr((void **)&p->weights, nc, 4 * sizeof(float)));
        BK_TRY(grow_attr((void **)&p->joints, nc, 4 * sizeof(uint16_t)));
    }
    return BK_OK;
}

bk_result bk_prim_reserve(bk_primitive *p, uint32_t vertices, uint32_t indices)
{
    if (vertices > UINT32_MAX - p->vertex_count || indices > UINT32_MAX - p->index_count) return BK_ELIMIT;
    if (p->vertex_count + vertices > cap_of(p->position)) BK_TRY(vertex_room(p, p->vertex_count + vertices));
    uint32_t ni = p->index_count + indices;
    if (ni > cap_of(p->indices)) BK_TRY(cap_resize((void **)&p->indices, ni, sizeof(uint32_t)));
    return BK_OK;
}

bk_result bk_prim_add_vertices(bk_primitive *p, uint32_t n, uint32_t *first)
{
    if (n > UINT32_MAX - p->vertex_count) return BK_ELIMIT;
    uint32_t need = p->vertex_count + n, vcap = cap_of(p->position);
    if (need > vcap) {
        uint64_t ncap = vcap ? vcap : 64;
        while (ncap < need) ncap *= 2;
        if (ncap > UINT32_MAX) ncap = UINT32_MAX;
        BK_TRY(vertex_room(p, (uint32_t)ncap));
    }
    if (first) *first = p->vertex_count;
    if (n == 0) return BK_OK; /* the arrays may not exist yet: nothing to clear */
    /* the new vertices: zero, white, and fully weighted to joint 0 */
    size_t v0 = p->vertex_count;
    memset(p->position + v0 * 3, 0, (size_t)n * 3 * sizeof(float));
    if (p->attrs & BK_ATTR_NORMAL) memset(p->normal + v0 * 3, 0, (size_t)n * 3 * sizeof(float));
    if (p->attrs & BK_ATTR_UV0) memset(p->uv0 + v0 * 2, 0, (size_t)n * 2 * sizeof(float));
    if (p->attrs & BK_ATTR_UV1) memset(p->uv1 + v0 * 2, 0, (size_t)n * 2 * sizeof(float));
    if (p->attrs & BK_ATTR_SKIN) {
        memset(p->weights + v0 * 4, 0, (size_t)n * 4 * sizeof(float));
        memset(p->joints + v0 * 4, 0, (size_t)n * 4 * sizeof(uint16_t));
        for (uint32_t i = p->vertex_count; i < need; i++) p->weights[i * 4] = 1.0f;
    }
    if (p->attrs & BK_ATTR_COLOR) memset(p->color + v0 * 4, 255, (size_t)n * 4);
    p->vertex_count = need;
    return BK_OK;
}

static void shrink_to(void **arr, size_t bytes)
{
    if (!*arr || !bytes) return;
    void *n = bk_realloc(*arr, bytes);
    if (n) *arr = n; /* on failure the larger block stays */
}

static void shrink_cap(void **arr, uint32_t n, size_t size)
{
    if (!*arr || !n || cap_of(*arr) <= n) return;
    (void)cap_resize(arr, n, size); /* on failure the larger block stays, its capacity with it */
}

void bk_scene_shrink(bk_scene *s)
{
    for (uint32_t i = 0; i < s->mesh_count; i++)
        for (uint32_t j = 0; j < s->meshes[i].prim_count; j++) {
            bk_primitive *p = &s->meshes[i].prims[j];
            size_t v = p->vertex_count;
            if (cap_of(p->position) > v && v) {
                shrink_cap((void **)&p->position, (uint32_t)v, 3 * sizeof(float));
                shrink_to((void **)&p->normal, v * 3 * sizeof(float));
                shrink_to((void **)&p->uv0, v * 2 * sizeof(float));
                shrink_to((void **)&p->uv1, v * 2 * sizeof(float));
                shrink_to((void **)&p->color, v * 4);
                shrink_to((void **)&p->weights, v * 4 * sizeof(float));
                shrink_to((void **)&p->joints, v * 4 * sizeof(uint16_t));
            }
            shrink_cap((void **)&p->indices, p->index_count, sizeof(uint32_t));
        }
}

bk_result bk_prim_add_indices(bk_primitive *p, const uint32_t *idx, uint32_t n)
{
    if (n == 0) return BK_OK; /* memcpy from/to NULL is undefined even for 0 bytes */
    if (n > UINT32_MAX - p->index_count) return BK_ELIMIT;
    uint32_t need = p->index_count + n, icap = cap_of(p->indices);
    if (need > icap) { /* doubling; the spare room is not cleared (untouched pages cost nothing) */
        uint64_t ncap = icap ? (uint64_t)icap * 2 : 64;
        while (ncap < need) ncap *= 2;
        if (ncap > UINT32_MAX) ncap = UINT32_MAX;
        BK_TRY(cap_resize((void **)&p->indices, (uint32_t)ncap, sizeof(uint32_t)));
    }
    memcpy(p->indices + p->index_count, idx, (size_t)n * sizeof(uint32_t));
    p->index_count += n;
    return BK_OK;
}

bk_result bk_prim_add_triangle(bk_primitive *p, uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t t[3] = {a, b, c};
    return bk_prim_add_indices(p, t, 3);
}

bk_result bk_kv_append(bk_kv **list, uint32_t *count, const char *key, const char *value)
{
    /* The list has no capacity field: its capacity is implied by the count (4, then doubling),
     * so appending n pairs reallocates O(log n) times, not n times. Every list of pairs grows only
     * here. */
    uint32_t c = *count;
    bk_kv *n = *list;
    if (c == UINT32_MAX) return BK_EOVERFLOW;
    if (c == 0 || (c >= 4 && (c & (c - 1)) == 0)) {
        size_t cap = c == 0 ? 4 : (size_t)c * 2;
        n = bk_realloc(*list, cap * sizeof(bk_kv));
        if (!n) return BK_ENOMEM;
        *list = n;
    }
    n[*count].key = bk_strdup(key ? key : "");
    n[*count].value = bk_strdup(value ? value : "");
    if (!n[*count].key || !n[*count].value) {
        bk_free(n[*count].key);
        bk_free(n[*count].value);
        return BK_ENOMEM;
    }
    (*count)++;
    return BK_OK;
}
