/* The Quake 3 builder's image cache: a texture a shader names is looked up once by its name
 * without extension (bk_q3_load_image tries the extensions the engines try, through the game's
 * lookup), decoded once for its mean colour and alpha, kept as its file's bytes when they are
 * smaller than its pixels, and added to the scene at most once; names found nowhere are remembered.
 * Shared by the material builders (q3_material.c, q3_material_dp.c) and the sky (q3_sky.c). */
#include <math.h>
#include <stdio.h>

#include "scene/scene_build.h"
#include "q3_internal.h"

void bk_q3_strip_ext(const char *name, char *out, size_t cap)
{
    snprintf(out, cap, "%s", name);
    char *dot = strrchr(out, '.');
    char *slash = strrchr(out, '/');
    if (dot && (!slash || dot > slash) &&
        (bk_strcasecmp(dot, ".tga") == 0 || bk_strcasecmp(dot, ".jpg") == 0 || bk_strcasecmp(dot, ".png") == 0 ||
         bk_strcasecmp(dot, ".jpeg") == 0))
        *dot = 0;
}

q3_img *bk_q3_img_get(q3_builder *b, const char *name)
{
    if (!b->vfs || !name || !name[0]) return NULL;
    char key[256];
    bk_q3_strip_ext(name, key, sizeof key);
    for (uint32_t i = 0; i < b->img_count; i++)
        if (bk_strcasecmp(b->imgs[i]->key, key) == 0) return b->imgs[i];
    for (uint32_t i = 0; i < b->miss_count; i++)
        if (bk_strcasecmp(b->miss_names[i], key) == 0) return NULL;
    uint8_t *rgba = NULL, *file = NULL;
    size_t file_size = 0;
    uint32_t w = 0, h = 0;
    bool compact = (b->opt->flags & BK_OPT_COMPACT_IMAGES) != 0;
    if (bk_q3_load_image(b->vfs, name, bk_limits_of(b->opt).max_texture_dim, &rgba, &w, &h, compact ? &file : NULL,
                         &file_size) != BK_OK ||
        !rgba || !w || !h) {
        bk_free(rgba);
        bk_free(file);
        if (bk_grow((void **)&b->miss_names, &b->miss_cap, b->miss_count + 1, sizeof(char *)) == BK_OK &&
            (b->miss_names[b->miss_count] = bk_strdup(key)) != NULL)
            b->miss_count++;
        return NULL;
    }
    q3_img *im = bk_calloc(1, sizeof *im);
    if (!im || bk_grow((void **)&b->imgs, &b->img_cap, b->img_count + 1, sizeof(q3_img *)) != BK_OK ||
        !(im->name = bk_strdup(name)) || !(im->key = bk_strdup(key))) {
        if (im) {
            bk_free(im->name);
            bk_free(im->key);
        }
        bk_free(im);
        bk_free(rgba);
        bk_free(file);
        return NULL;
    }
    im->rgba = rgba;
    im->w = w;
    im->h = h;
    im->scene = -1;
    double sum[4] = {0, 0, 0, 0};
    size_t n = (size_t)w * h;
    for (size_t k = 0; k < n; k++) {
        for (int c = 0; c < 4; c++) sum[c] += rgba[k * 4 + c];
        if (rgba[k * 4 + 3] < 255) im->has_alpha = true;
    }
    for (int c = 0; c < 4; c++) im->mean[c] = (float)(sum[c] / (double)n / 255.0);
    /* a file smaller than its pixels (JPEG, compressed TGA) is what the cache and the scene keep:
     * a map's textures are not all held as RGBA at once (they are decoded again when drawn,
     * exported or composed) */
    if (file && file_size < n * 4) {
        im->file = file, im->file_size = file_size;
        bk_free(im->rgba);
        im->rgba = NULL;
    } else {
        bk_free(file);
    }
    b->imgs[b->img_count++] = im;
    return im;
}

bk_result bk_q3_img_pixels(q3_img *im)
{
    if (im->rgba) return BK_OK;
    if (!im->file) return BK_EARG;
    return bk_image_decode_sized(im->file, im->file_size, im->w, im->h, &im->rgba);
}

void bk_q3_img_drop_pixels(q3_img *im)
{
    if (!im->file || !im->rgba || im->rgba_given) return;
    bk_free(im->rgba);
    im->rgba = NULL;
}

bk_result bk_q3_img_scene(q3_builder *b, q3_img *im, int32_t *out)
{
    if (im->scene < 0 && im->file) {
        /* the scene takes the file's bytes (decoded when read); the cache keeps reading them */
        BK_TRY(bk_scene_add_packed_image(b->s, im->name, im->w, im->h, BK_PACK_CODEC, im->file, im->file_size,
                                         bk_image_decode_into, im->has_alpha, &im->scene));
        im->file_given = true;
    } else if (im->scene < 0) {
        /* the scene takes the pixels; the cache keeps reading them (the scene outlives the build) */
        BK_TRY(bk_scene_add_image(b->s, im->name, im->w, im->h, im->rgba, &im->scene));
        im->rgba_given = true;
    }
    *out = im->scene;
    return BK_OK;
}

void bk_q3_imgs_free(q3_builder *b)
{
    for (uint32_t i = 0; i < b->img_count; i++) {
        bk_free(b->imgs[i]->name);
        bk_free(b->imgs[i]->key);
        if (!b->imgs[i]->rgba_given) bk_free(b->imgs[i]->rgba);
        if (!b->imgs[i]->file_given) bk_free(b->imgs[i]->file);
        bk_free(b->imgs[i]);
    }
    bk_free(b->imgs);
    for (uint32_t i = 0; i < b->miss_count; i++) bk_free(b->miss_names[i]);
    bk_free(b->miss_names);
    b->imgs = NULL;
    b->miss_names = NULL;
    b->img_count = b->miss_count = 0;
}

