/* glTF 2.0 exporter (.glb and .gltf + .bin). JSON is built with cJSON; binary data goes into one
 * buffer. Values are cleaned on the way out (NaN/Inf, zero or non-unit normals, unnormalised
 * weights, degenerate triangles) so that the Khronos validator reports no errors. */
#include <cjson/cJSON.h>
#include <float.h>
#include <math.h>
#include <stdio.h>

#include "xform.h"

#if defined(__unix__) || defined(__APPLE__)
#include <pthread.h>
#define BK_HAVE_PTHREAD 1
#endif

#define GL_FLOAT 5126
#define GL_UNSIGNED_SHORT 5123
#define GL_UNSIGNED_INT 5125
#define GL_ARRAY_BUFFER 34962
#define GL_ELEMENT_ARRAY_BUFFER 34963

typedef struct gltf_writer {
    const bk_scene *s;
    bk_xform x;
    bk_buf bin;
    cJSON *root, *buffer_views, *accessors;
    bk_export_stats st;
    bk_result err;
    int png_level;
    int view_count, accessor_count;   /* cJSON counts an array by walking it: count here instead */
} gltf_writer;

static bool ends_with(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && bk_strcasecmp(s + n - m, suf) == 0;
}

static int add_view(gltf_writer *w, const void *data, size_t bytes, int target)
{
    while (w->bin.size % 4) bk_buf_append(&w->bin, "\0", 1);
    size_t ofs = w->bin.size;
    if (!bk_buf_append(&w->bin, data, bytes)) {
        w->err = BK_ENOMEM;
        return -1;
    }
    cJSON *v = cJSON_CreateObject();
    cJSON_AddNumberToObject(v, "buffer", 0);
    cJSON_AddNumberToObject(v, "byteOffset", (double)ofs);
    cJSON_AddNumberToObject(v, "byteLength", (double)bytes);
    if (target) cJSON_AddNumberToObject(v, "target", target);
    cJSON_AddItemToArray(w->buffer_views, v);
    return w->view_count++;
}

static const char *type_name(int comps)
{
    switch (comps) {
    case 1: return "SCALAR";
    case 2: return "VEC2";
    case 3: return "VEC3";
    case 4: return "VEC4";
    default: return "MAT4";
    }
}

/* Float accessor; with_minmax adds min/max per component. */
static int add_float_accessor(gltf_writer *w, const float *data, uint32_t count, int comps, int target,
                              bool with_minmax)
{
    int view = add_view(w, data, (size_t)count * comps * sizeof(float), target);
    if (view < 0) return -1;
    cJSON *a = cJSON_CreateObject();
    cJSON_AddNumberToObject(a, "bufferView", view);
    cJSON_AddNumberToObject(a, "componentType", GL_FLOAT);
    cJSON_AddNumberToObject(a, "count", count);
    cJSON_AddStringToObject(a, "type", type_name(comps));
    if (with_minmax) {
        double mn[16], mx[16];
        for (int c = 0; c < comps; c++) {
            mn[c] = DBL_MAX;
            mx[c] = -DBL_MAX;
        }
        for (uint32_t i = 0; i < count; i++)
            for (int c = 0; c < comps; c++) {
                double v = data[(size_t)i * comps + c];
                if (v < mn[c]) mn[c] = v;
                if (v > mx[c]) mx[c] = v;
            }
        cJSON_AddItemToObject(a, "min", cJSON_CreateDoubleArray(mn, comps));
        cJSON_AddItemToObject(a, "max", cJSON_CreateDoubleArray(mx, comps));
    }
    cJSON_AddItemToArray(w->accessors, a);
    return w->accessor_count++;
}

static int add_u16_accessor(gltf_writer *w, const uint16_t *data, uint32_t count, int comps, int target)
{
    int view = add_view(w, data, (size_t)count * comps * sizeof(uint16_t), target);
    if (view < 0) return -1;
    cJSON *a = cJSON_CreateObject();
    cJSON_AddNumberToObject(a, "bufferView", view);
    cJSON_AddNumberToObject(a, "componentType", GL_UNSIGNED_SHORT);
    cJSON_AddNumberToObject(a, "count", count);
    cJSON_AddStringToObject(a, "type", type_name(comps));
    cJSON_AddItemToArray(w->accessors, a);
    return w->accessor_count++;
}

static int add_index_accessor(gltf_writer *w, const uint32_t *idx, uint32_t count, uint32_t vcount)
{
    int view;
    int type;
    if (vcount <= 65535) {
        uint16_t *tmp = bk_malloc((size_t)count * 2 + 2);
        if (!tmp) {
            w->err = BK_ENOMEM;
            return -1;
        }
        for (uint32_t i = 0; i < count; i++) tmp[i] = (uint16_t)idx[i];
        view = add_view(w, tmp, (size_t)count * 2, GL_ELEMENT_ARRAY_BUFFER);
        bk_free(tmp);
        type = GL_UNSIGNED_SHORT;
    } else {
        view = add_view(w, idx, (size_t)count * 4, GL_ELEMENT_ARRAY_BUFFER);
        type = GL_UNSIGNED_INT;
    }
    if (view < 0) return -1;
    cJSON *a = cJSON_CreateObject();
    cJSON_AddNumberToObject(a, "bufferView", view);
    cJSON_AddNumberToObject(a, "componentType", type);
    cJSON_AddNumberToObject(a, "count", count);
    cJSON_AddStringToObject(a, "type", "SCALAR");
    cJSON_AddItemToArray(w->accessors, a);
    return w->accessor_count++;
}

static float clean(float v, float dflt, uint64_t *n)
{
    if (isfinite(v)) return v;
    (*n)++;
    return dflt;
}

static cJSON *kv_object(const bk_kv *kv, uint32_t n)
{
    /* later duplicates win, as in the engines' entity parsers */
    cJSON *o = cJSON_CreateObject();
    for (uint32_t i = 0; i < n; i++) {
        if (cJSON_HasObjectItem(o, kv[i].key)) cJSON_DeleteItemFromObjectCaseSensitive(o, kv[i].key);
        cJSON_AddStringToObject(o, kv[i].key, kv[i].value);
    }
    return o;
}

/* Write one primitive; returns NULL when it is empty after cleaning. */
static cJSON *write_primitive(gltf_writer *w, const bk_primitive *p)
{
    uint32_t n = p->vertex_count;
    if (!n || !p->position) return NULL;
    uint32_t *idx = NULL;
    uint32_t icount = 0;
    if (p->mode == BK_PRIM_TRIANGLES || p->mode == BK_PRIM_LINES) {
        uint32_t per = p->mode == BK_PRIM_TRIANGLES ? 3 : 2;
        if (!p->indices || p->index_count < per) return NULL;
        idx = bk_malloc((size_t)p->index_count * sizeof(uint32_t));
        if (!idx) {
            w->err = BK_ENOMEM;
            return NULL;
        }
        for (uint32_t t = 0; t + per <= p->index_count; t += per) {
            const uint32_t *v = p->indices + t;
            bool bad = false;
            for (uint32_t k = 0; k < per; k++) bad |= v[k] >= n;
            if (!bad) bad = v[0] == v[1] || (per == 3 && (v[1] == v[2] || v[0] == v[2]));
            if (bad) {
                w->st.dropped_degenerate++;
                continue;
            }
            memcpy(idx + icount, v, per * sizeof(uint32_t));
            icount += per;
        }
        if (!icount) {
            bk_free(idx);
            return NULL;
        }
    }
    size_t n3 = (size_t)n * 3;
    float *pos = bk_malloc(n3 * sizeof(float));
    float *nrm = p->normal ? bk_malloc(n3 * sizeof(float)) : NULL;
    float *uv0 = p->uv0 ? bk_malloc((size_t)n * 2 * sizeof(float)) : NULL;
    float *uv1 = p->uv1 ? bk_malloc((size_t)n * 2 * sizeof(float)) : NULL;
    float *col = p->color ? bk_malloc((size_t)n * 4 * sizeof(float)) : NULL;
    float *wts = p->weights && p->joints ? bk_malloc((size_t)n * 4 * sizeof(float)) : NULL;
    uint16_t *jts = p->weights && p->joints ? bk_malloc((size_t)n * 4 * sizeof(uint16_t)) : NULL;
    cJSON *prim = NULL;
    if (!pos || (p->normal && !nrm) || (p->uv0 && !uv0) || (p->uv1 && !uv1) || (p->color && !col) ||
        (p->weights && p->joints && (!wts || !jts))) {
        w->err = BK_ENOMEM;
        goto out;
    }
    uint64_t *cl = &w->st.cleaned_values;
    for (uint32_t i = 0; i < n; i++) {
        float v[3];
        for (int c = 0; c < 3; c++) v[c] = clean(p->position[i * 3 + c], 0.0f, cl);
        bk_xf_point(&w->x, v, pos + i * 3);
        if (nrm) {
            for (int c = 0; c < 3; c++) v[c] = clean(p->normal[i * 3 + c], 0.0f, cl);
            float len = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
            if (!(len > 1e-6f)) {
                v[0] = 0, v[1] = 0, v[2] = 1;
                (*cl)++;
            } else {
                if (fabsf(len - 1.0f) > 1e-4f) (*cl)++;
                v[0] /= len, v[1] /= len, v[2] /= len;
            }
            bk_xf_dir(&w->x, v, nrm + i * 3);
        }
        if (uv0)
            for (int c = 0; c < 2; c++) uv0[i * 2 + c] = clean(p->uv0[i * 2 + c], 0.0f, cl);
        if (uv1)
            for (int c = 0; c < 2; c++) uv1[i * 2 + c] = clean(p->uv1[i * 2 + c], 0.0f, cl);
        if (col)
            for (int c = 0; c < 4; c++) {
                float f = clean(p->color[i * 4 + c], 1.0f, cl);
                col[i * 4 + c] = f < 0 ? 0 : (f > 1 ? 1 : f);
            }
        if (wts) {
            float sum = 0;
            for (int c = 0; c < 4; c++) {
                float f = clean(p->weights[i * 4 + c], 0.0f, cl);
                if (f < 0) f = 0;
                wts[i * 4 + c] = f;
                jts[i * 4 + c] = p->joints[i * 4 + c];
            }
            /* zero weights point at joint 0; merge duplicates of one joint */
            for (int c = 0; c < 4; c++) {
                if (wts[i * 4 + c] == 0) jts[i * 4 + c] = 0;
                for (int d = 0; d < c; d++)
                    if (wts[i * 4 + c] > 0 && wts[i * 4 + d] > 0 && jts[i * 4 + c] == jts[i * 4 + d]) {
                        wts[i * 4 + d] += wts[i * 4 + c];
                        wts[i * 4 + c] = 0;
                        jts[i * 4 + c] = 0;
                    }
            }
            for (int c = 0; c < 4; c++) sum += wts[i * 4 + c];
            if (!(sum > 1e-6f)) {
                wts[i * 4] = 1, wts[i * 4 + 1] = wts[i * 4 + 2] = wts[i * 4 + 3] = 0;
                jts[i * 4 + 1] = jts[i * 4 + 2] = jts[i * 4 + 3] = 0;
                (*cl)++;
            } else {
                for (int c = 0; c < 4; c++) wts[i * 4 + c] /= sum;
            }
        }
    }
    prim = cJSON_CreateObject();
    cJSON *attrs = cJSON_AddObjectToObject(prim, "attributes");
    int a;
    if ((a = add_float_accessor(w, pos, n, 3, GL_ARRAY_BUFFER, true)) < 0) goto fail;
    cJSON_AddNumberToObject(attrs, "POSITION", a);
    if (nrm) {
        if ((a = add_float_accessor(w, nrm, n, 3, GL_ARRAY_BUFFER, false)) < 0) goto fail;
        cJSON_AddNumberToObject(attrs, "NORMAL", a);
    }
    if (uv0) {
        if ((a = add_float_accessor(w, uv0, n, 2, GL_ARRAY_BUFFER, false)) < 0) goto fail;
        cJSON_AddNumberToObject(attrs, "TEXCOORD_0", a);
    }
    if (uv1) {
        if (!uv0) { /* TEXCOORD_1 needs TEXCOORD_0 before it */
            float *z = bk_calloc((size_t)n * 2, sizeof(float));
            if (!z) goto fail;
            a = add_float_accessor(w, z, n, 2, GL_ARRAY_BUFFER, false);
            bk_free(z);
            if (a < 0) goto fail;
            cJSON_AddNumberToObject(attrs, "TEXCOORD_0", a);
        }
        if ((a = add_float_accessor(w, uv1, n, 2, GL_ARRAY_BUFFER, false)) < 0) goto fail;
        cJSON_AddNumberToObject(attrs, "TEXCOORD_1", a);
    }
    if (col) {
        if ((a = add_float_accessor(w, col, n, 4, GL_ARRAY_BUFFER, false)) < 0) goto fail;
        cJSON_AddNumberToObject(attrs, "COLOR_0", a);
    }
    if (wts) {
        if ((a = add_u16_accessor(w, jts, n, 4, GL_ARRAY_BUFFER)) < 0) goto fail;
        cJSON_AddNumberToObject(attrs, "JOINTS_0", a);
        if ((a = add_float_accessor(w, wts, n, 4, GL_ARRAY_BUFFER, false)) < 0) goto fail;
        cJSON_AddNumberToObject(attrs, "WEIGHTS_0", a);
    }
    if (idx) {
        if ((a = add_index_accessor(w, idx, icount, n)) < 0) goto fail;
        cJSON_AddNumberToObject(prim, "indices", a);
    }
    cJSON_AddNumberToObject(prim, "mode", p->mode == BK_PRIM_POINTS ? 0 : (p->mode == BK_PRIM_LINES ? 1 : 4));
    if (p->material >= 0 && (uint32_t)p->material < w->s->material_count)
        cJSON_AddNumberToObject(prim, "material", p->material);
    w->st.vertices += n;
    if (p->mode == BK_PRIM_TRIANGLES) w->st.triangles += icount / 3;
    w->st.primitives++;
    goto out;
fail:
    if (!w->err) w->err = BK_ENOMEM;
    cJSON_Delete(prim);
    prim = NULL;
out:
    bk_free(idx);
    bk_free(pos);
    bk_free(nrm);
    bk_free(uv0);
    bk_free(uv1);
    bk_free(col);
    bk_free(wts);
    bk_free(jts);
    return prim;
}

/* The images' PNGs, encoded on a second thread while the geometry is written (the deflate of
 * a lightmap atlas is the largest single cost of a conversion). */
typedef struct png_job {
    const bk_scene *s;
    int level;
    bk_buf *pngs;      /* one per image; empty for images without pixels */
    bk_result r;
#ifdef BK_HAVE_PTHREAD
    pthread_t th;
    bool running;
#endif
} png_job;

static void *png_encode_all(void *user)
{
    png_job *j = user;
    for (uint32_t i = 0; i < j->s->image_count && j->r == BK_OK; i++) {
        const bk_image *im = &j->s->images[i];
        if (!im->rgba || !im->width || !im->height) continue;
        j->r = bk_png_encode(im->rgba, im->width, im->height, im->has_alpha != 0, j->level, &j->pngs[i]);
    }
    return NULL;
}

/* start encoding (on a thread when there is enough to encode to be worth one) */
static void png_start(png_job *j, const bk_scene *s, int level)
{
    memset(j, 0, sizeof *j);
    j->s = s;
    j->level = level;
    j->pngs = bk_calloc(s->image_count + 1, sizeof *j->pngs);
    if (!j->pngs) {
        j->r = BK_ENOMEM;
        return;
    }
    uint64_t px = 0;
    for (uint32_t i = 0; i < s->image_count; i++)
        if (s->images[i].rgba) px += (uint64_t)s->images[i].width * s->images[i].height;
#ifdef BK_HAVE_PTHREAD
    if (px >= (1u << 16) && pthread_create(&j->th, NULL, png_encode_all, j) == 0) {
        j->running = true;
        return;
    }
#endif
    (void)px;
    png_encode_all(j);
}

static bk_result png_finish(png_job *j)
{
#ifdef BK_HAVE_PTHREAD
    if (j->running) pthread_join(j->th, NULL);
    j->running = false;
#endif
    return j->r;
}

static void png_free(png_job *j)
{
    png_finish(j);
    if (j->pngs)
        for (uint32_t i = 0; i < j->s->image_count; i++) bk_buf_free(&j->pngs[i]);
    bk_free(j->pngs);
    j->pngs = NULL;
}

/* Texture numbers, known before any PNG is encoded: one per image with pixels, in order. */
static void number_textures(const bk_scene *s, int32_t *tex_of_image)
{
    int32_t count = 0;
    for (uint32_t i = 0; i < s->image_count; i++) {
        const bk_image *im = &s->images[i];
        tex_of_image[i] = im->rgba && im->width && im->height ? count++ : -1;
    }
}

static void write_images(gltf_writer *w, const int32_t *tex_of_image, png_job *job)
{
    const bk_scene *s = w->s;
    cJSON *images = cJSON_CreateArray(), *textures = cJSON_CreateArray(), *samplers = cJSON_CreateArray();
    cJSON *rep = cJSON_CreateObject();
    cJSON_AddNumberToObject(rep, "magFilter", 9729);
    cJSON_AddNumberToObject(rep, "minFilter", 9987);
    cJSON_AddNumberToObject(rep, "wrapS", 10497);
    cJSON_AddNumberToObject(rep, "wrapT", 10497);
    cJSON_AddItemToArray(samplers, rep);
    cJSON *clamp = cJSON_CreateObject();
    cJSON_AddNumberToObject(clamp, "magFilter", 9729);
    cJSON_AddNumberToObject(clamp, "minFilter", 9729);
    cJSON_AddNumberToObject(clamp, "wrapS", 33071);
    cJSON_AddNumberToObject(clamp, "wrapT", 33071);
    cJSON_AddItemToArray(samplers, clamp);
    cJSON *clamp_mip = cJSON_CreateObject();
    cJSON_AddNumberToObject(clamp_mip, "magFilter", 9729);
    cJSON_AddNumberToObject(clamp_mip, "minFilter", 9987);
    cJSON_AddNumberToObject(clamp_mip, "wrapS", 33071);
    cJSON_AddNumberToObject(clamp_mip, "wrapT", 33071);
    cJSON_AddItemToArray(samplers, clamp_mip);
    bool any_clamp_mip = false;
    int count = 0;
    bk_result pr = png_finish(job);
    if (pr != BK_OK) w->err = pr;
    for (uint32_t i = 0; i < s->image_count && !w->err; i++) {
        const bk_image *im = &s->images[i];
        if (tex_of_image[i] < 0) continue;
        if (job->pngs[i].failed) {
            w->err = BK_ENOMEM;
            break;
        }
        int view = add_view(w, job->pngs[i].data, job->pngs[i].size, 0);
        bk_buf_free(&job->pngs[i]);
        if (view < 0) break;
        cJSON *img = cJSON_CreateObject();
        cJSON_AddStringToObject(img, "name", im->name);
        cJSON_AddNumberToObject(img, "bufferView", view);
        cJSON_AddStringToObject(img, "mimeType", "image/png");
        cJSON_AddItemToArray(images, img);
        cJSON *t = cJSON_CreateObject();
        cJSON_AddNumberToObject(t, "sampler", im->is_lightmap ? 1 : (im->clamp ? 2 : 0));
        if (!im->is_lightmap && im->clamp) any_clamp_mip = true;
        cJSON_AddNumberToObject(t, "source", count);
        cJSON_AddStringToObject(t, "name", im->name);
        cJSON_AddItemToArray(textures, t);
        count++;
        w->st.images++;
    }
    if (!any_clamp_mip) cJSON_DeleteItemFromArray(samplers, 2);
    if (count) {
        cJSON_AddItemToObject(w->root, "images", images);
        cJSON_AddItemToObject(w->root, "textures", textures);
        cJSON_AddItemToObject(w->root, "samplers", samplers);
    } else {
        cJSON_Delete(images);
        cJSON_Delete(textures);
        cJSON_Delete(samplers);
    }
}

enum { EXT_UNLIT = 1, EXT_EMISSIVE_STRENGTH = 2, EXT_SPECULAR = 4 };

static int32_t tex_index(const bk_scene *s, const int32_t *tex_of_image, int32_t image)
{
    return image >= 0 && (uint32_t)image < s->image_count ? tex_of_image[image] : -1;
}

static void write_materials(gltf_writer *w, const int32_t *tex_of_image, unsigned *used_ext)
{
    const bk_scene *s = w->s;
    if (!s->material_count) return;
    cJSON *mats = cJSON_AddArrayToObject(w->root, "materials");
    for (uint32_t i = 0; i < s->material_count; i++) {
        const bk_material *m = &s->materials[i];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", m->name);
        cJSON *pbr = cJSON_AddObjectToObject(o, "pbrMetallicRoughness");
        double bc[4];
        for (int c = 0; c < 4; c++) {
            float f = isfinite(m->base_color[c]) ? m->base_color[c] : 1.0f;
            bc[c] = f < 0 ? 0 : (f > 1 ? 1 : f);
        }
        cJSON_AddItemToObject(pbr, "baseColorFactor", cJSON_CreateDoubleArray(bc, 4));
        int32_t bt = (m->base_image >= 0 && (uint32_t)m->base_image < s->image_count) ? tex_of_image[m->base_image] : -1;
        if (bt >= 0) {
            cJSON *t = cJSON_AddObjectToObject(pbr, "baseColorTexture");
            cJSON_AddNumberToObject(t, "index", bt);
        }
        cJSON_AddNumberToObject(pbr, "metallicFactor", 0);
        cJSON_AddNumberToObject(pbr, "roughnessFactor", 1);
        int32_t lt = (m->lightmap_image >= 0 && (uint32_t)m->lightmap_image < s->image_count)
                         ? tex_of_image[m->lightmap_image] : -1;
        if (lt >= 0 && !m->unlit) {
            /* the lightmap rides in the occlusion slot (read with TEXCOORD_1): viewers that light
             * with an environment show the baked lighting; extras name it for tools that bind it */
            cJSON *t = cJSON_AddObjectToObject(o, "occlusionTexture");
            cJSON_AddNumberToObject(t, "index", lt);
            cJSON_AddNumberToObject(t, "texCoord", 1);
        }
        if (m->alpha_mode == BK_ALPHA_MASK) {
            cJSON_AddStringToObject(o, "alphaMode", "MASK");
            cJSON_AddNumberToObject(o, "alphaCutoff", isfinite(m->alpha_cutoff) && m->alpha_cutoff >= 0 ? m->alpha_cutoff : 0.5);
        } else if (m->alpha_mode == BK_ALPHA_BLEND) {
            cJSON_AddStringToObject(o, "alphaMode", "BLEND");
        }
        if (m->double_sided) cJSON_AddTrueToObject(o, "doubleSided");
        cJSON *ext = NULL;
        if (m->unlit) {
            ext = cJSON_AddObjectToObject(o, "extensions");
            cJSON_AddObjectToObject(ext, "KHR_materials_unlit");
            *used_ext |= EXT_UNLIT;
        }
        /* emission: a texture and/or a factor; brighter than 1 through KHR_materials_emissive_strength */
        int32_t et = tex_index(s, tex_of_image, m->emissive_image);
        double ef[3];
        bool any_ef = false;
        for (int c = 0; c < 3; c++) {
            float f = isfinite(m->emissive[c]) ? m->emissive[c] : 0.0f;
            ef[c] = f < 0 ? 0 : (f > 1 ? 1 : f);
            if (ef[c] > 0) any_ef = true;
        }
        if (any_ef) {
            cJSON_AddItemToObject(o, "emissiveFactor", cJSON_CreateDoubleArray(ef, 3));
            if (et >= 0) {
                cJSON *t = cJSON_AddObjectToObject(o, "emissiveTexture");
                cJSON_AddNumberToObject(t, "index", et);
            }
            float es = m->emissive_strength;
            if (isfinite(es) && es > 1.0f && !m->unlit) {
                if (!ext) ext = cJSON_AddObjectToObject(o, "extensions");
                cJSON *e = cJSON_AddObjectToObject(ext, "KHR_materials_emissive_strength");
                cJSON_AddNumberToObject(e, "emissiveStrength", es);
                *used_ext |= EXT_EMISSIVE_STRENGTH;
            }
        }
        int32_t nt = tex_index(s, tex_of_image, m->normal_image);
        if (nt >= 0 && !m->unlit) {
            cJSON *t = cJSON_AddObjectToObject(o, "normalTexture");
            cJSON_AddNumberToObject(t, "index", nt);
        }
        int32_t st = tex_index(s, tex_of_image, m->specular_image);
        if (st >= 0 && !m->unlit) {
            if (!ext) ext = cJSON_AddObjectToObject(o, "extensions");
            cJSON *e = cJSON_AddObjectToObject(ext, "KHR_materials_specular");
            cJSON *t = cJSON_AddObjectToObject(e, "specularColorTexture");
            cJSON_AddNumberToObject(t, "index", st);
            *used_ext |= EXT_SPECULAR;
        }
        /* a second base texture blended in by COLOR_0's alpha: no glTF slot, named in extras */
        int32_t b2 = tex_index(s, tex_of_image, m->blend_image);
        if (m->extra_count || lt >= 0 || b2 >= 0) {
            cJSON *ex = kv_object(m->extras, m->extra_count);
            if (lt >= 0) cJSON_AddNumberToObject(ex, "lightmapTexture", lt);
            if (b2 >= 0) {
                cJSON_AddNumberToObject(ex, "blendTexture", b2);
                cJSON_AddStringToObject(ex, "blendFactor", "COLOR_0.a");
            }
            cJSON_AddItemToObject(o, "extras", ex);
        }
        cJSON_AddItemToArray(mats, o);
        w->st.materials++;
    }
}

static bool is_identity_trs(const bk_node *n)
{
    return n->translation[0] == 0 && n->translation[1] == 0 && n->translation[2] == 0 && n->rotation[0] == 0 &&
           n->rotation[1] == 0 && n->rotation[2] == 0 && n->rotation[3] == 1 && n->scale[0] == 1 &&
           n->scale[1] == 1 && n->scale[2] == 1;
}

static void write_nodes(gltf_writer *w, const int32_t *mesh_map)
{
    const bk_scene *s = w->s;
    cJSON *nodes = cJSON_AddArrayToObject(w->root, "nodes");
    cJSON *scene_nodes = cJSON_CreateArray();
    for (uint32_t i = 0; i < s->node_count; i++) {
        const bk_node *n = &s->nodes[i];
        cJSON *o = cJSON_CreateObject();
        if (n->name && *n->name) cJSON_AddStringToObject(o, "name", n->name);
        if (!is_identity_trs(n)) {
            float t[3], q[4], sc[3], tin[3];
            for (int c = 0; c < 3; c++) tin[c] = isfinite(n->translation[c]) ? n->translation[c] : 0;
            bk_xf_point(&w->x, tin, t);
            bk_xf_quat(&w->x, n->rotation, q);
            float sin_[3];
            for (int c = 0; c < 3; c++) sin_[c] = isfinite(n->scale[c]) && n->scale[c] != 0 ? n->scale[c] : 1;
            bk_xf_scale(&w->x, sin_, sc);
            double dt[3] = {t[0], t[1], t[2]}, dq[4] = {q[0], q[1], q[2], q[3]}, ds[3] = {sc[0], sc[1], sc[2]};
            cJSON_AddItemToObject(o, "translation", cJSON_CreateDoubleArray(dt, 3));
            cJSON_AddItemToObject(o, "rotation", cJSON_CreateDoubleArray(dq, 4));
            cJSON_AddItemToObject(o, "scale", cJSON_CreateDoubleArray(ds, 3));
        }
        if (n->mesh >= 0 && (uint32_t)n->mesh < s->mesh_count && mesh_map[n->mesh] >= 0) {
            cJSON_AddNumberToObject(o, "mesh", mesh_map[n->mesh]);
            if (n->skin >= 0 && (uint32_t)n->skin < s->skin_count) cJSON_AddNumberToObject(o, "skin", n->skin);
        }
        cJSON *children = NULL;
        for (uint32_t j = i + 1; j < s->node_count; j++)
            if (s->nodes[j].parent == (int32_t)i) {
                if (!children) children = cJSON_AddArrayToObject(o, "children");
                cJSON_AddItemToArray(children, cJSON_CreateNumber(j));
            }
        if (n->extra_count) cJSON_AddItemToObject(o, "extras", kv_object(n->extras, n->extra_count));
        cJSON_AddItemToArray(nodes, o);
        if (n->parent < 0 || n->parent >= (int32_t)i) cJSON_AddItemToArray(scene_nodes, cJSON_CreateNumber(i));
        w->st.nodes++;
    }
    cJSON *scenes = cJSON_AddArrayToObject(w->root, "scenes");
    cJSON *sc = cJSON_CreateObject();
    cJSON_AddStringToObject(sc, "name", s->name ? s->name : "scene");
    cJSON_AddItemToObject(sc, "nodes", scene_nodes);
    if (s->extra_count) cJSON_AddItemToObject(sc, "extras", kv_object(s->extras, s->extra_count));
    cJSON_AddItemToArray(scenes, sc);
    cJSON_AddNumberToObject(w->root, "scene", 0);
}

static void write_skins(gltf_writer *w)
{
    const bk_scene *s = w->s;
    if (!s->skin_count) return;
    cJSON *skins = cJSON_AddArrayToObject(w->root, "skins");
    for (uint32_t i = 0; i < s->skin_count && !w->err; i++) {
        const bk_skin *k = &s->skins[i];
        float *ibm = bk_malloc((size_t)k->joint_count * 16 * sizeof(float));
        if (!ibm) {
            w->err = BK_ENOMEM;
            return;
        }
        for (uint32_t j = 0; j < k->joint_count; j++) bk_xf_mat4(&w->x, k->inverse_bind + j * 16, ibm + j * 16);
        int a = add_float_accessor(w, ibm, k->joint_count, 16, 0, false);
        bk_free(ibm);
        cJSON *o = cJSON_CreateObject();
        if (k->name && *k->name) cJSON_AddStringToObject(o, "name", k->name);
        cJSON_AddNumberToObject(o, "inverseBindMatrices", a);
        cJSON_AddItemToObject(o, "joints", cJSON_CreateIntArray(k->joints, (int)k->joint_count));
        if (k->skeleton >= 0) cJSON_AddNumberToObject(o, "skeleton", k->skeleton);
        cJSON_AddItemToArray(skins, o);
        w->st.skins++;
    }
}

static void write_animations(gltf_writer *w)
{
    const bk_scene *s = w->s;
    if (!s->anim_count) return;
    cJSON *anims = cJSON_AddArrayToObject(w->root, "animations");
    for (uint32_t i = 0; i < s->anim_count && !w->err; i++) {
        const bk_animation *an = &s->anims[i];
        if (!an->channel_count) continue;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "name", an->name);
        cJSON *samplers = cJSON_AddArrayToObject(o, "samplers");
        int sampler_count = 0;
        cJSON *channels = cJSON_AddArrayToObject(o, "channels");
        const float *last_times = NULL;
        uint32_t last_count = 0;
        int last_input = -1;
        for (uint32_t c = 0; c < an->channel_count && !w->err; c++) {
            const bk_channel *ch = &an->channels[c];
            if (ch->node < 0 || (uint32_t)ch->node >= s->node_count || !ch->key_count) continue;
            int input;
            if (last_input >= 0 && last_count == ch->key_count &&
                memcmp(last_times, ch->times, ch->key_count * sizeof(float)) == 0) {
                input = last_input;
            } else {
                input = add_float_accessor(w, ch->times, ch->key_count, 1, 0, true);
                last_input = input;
                last_times = ch->times;
                last_count = ch->key_count;
            }
            uint32_t comps = ch->path == BK_PATH_ROTATION ? 4 : 3;
            float *vals = bk_malloc((size_t)ch->key_count * comps * sizeof(float));
            if (!vals) {
                w->err = BK_ENOMEM;
                break;
            }
            for (uint32_t k = 0; k < ch->key_count; k++) {
                const float *in = ch->values + (size_t)k * comps;
                float *out = vals + (size_t)k * comps;
                float tmp[3];
                if (ch->path == BK_PATH_TRANSLATION) {
                    for (int q = 0; q < 3; q++) tmp[q] = isfinite(in[q]) ? in[q] : 0;
                    bk_xf_point(&w->x, tmp, out);
                } else if (ch->path == BK_PATH_ROTATION) {
                    bk_xf_quat(&w->x, in, out);
                } else {
                    for (int q = 0; q < 3; q++) tmp[q] = isfinite(in[q]) ? in[q] : 1;
                    bk_xf_scale(&w->x, tmp, out);
                }
            }
            int output = add_float_accessor(w, vals, ch->key_count, (int)comps, 0, false);
            bk_free(vals);
            cJSON *smp = cJSON_CreateObject();
            cJSON_AddNumberToObject(smp, "input", input);
            cJSON_AddNumberToObject(smp, "output", output);
            cJSON_AddStringToObject(smp, "interpolation", ch->interpolation == BK_INTERP_STEP ? "STEP" : "LINEAR");
            cJSON_AddItemToArray(samplers, smp);
            cJSON *chj = cJSON_CreateObject();
            cJSON_AddNumberToObject(chj, "sampler", sampler_count++);
            cJSON *tgt = cJSON_AddObjectToObject(chj, "target");
            cJSON_AddNumberToObject(tgt, "node", ch->node);
            cJSON_AddStringToObject(tgt, "path",
                                    ch->path == BK_PATH_TRANSLATION ? "translation"
                                    : ch->path == BK_PATH_ROTATION  ? "rotation" : "scale");
            cJSON_AddItemToArray(channels, chj);
        }
        if (cJSON_GetArraySize(channels) == 0) {
            cJSON_Delete(o);
            continue;
        }
        cJSON_AddItemToArray(anims, o);
        w->st.animations++;
    }
    if (cJSON_GetArraySize(anims) == 0) cJSON_DeleteItemFromObject(w->root, "animations");
}

static bk_result pad_json(const char *json, bk_buf *out)
{
    size_t n = strlen(json);
    if (!bk_buf_append(out, json, n)) return BK_ENOMEM;
    while (out->size % 4)
        if (!bk_buf_append(out, " ", 1)) return BK_ENOMEM;
    return BK_OK;
}

/* The glTF JSON and its binary buffer for scene s (bin_uri: the buffer's file name for .gltf,
 * NULL for .glb). On success *json (cJSON_free) and *bin (bk_buf_free) are the caller's. */
static bk_result gltf_make(const bk_scene *s, const bk_export_options *opt, const char *bin_uri, char **json_out,
                           bk_buf *bin_out, bk_export_stats *st_out)
{
    *json_out = NULL;
    memset(bin_out, 0, sizeof *bin_out);
    gltf_writer w;
    memset(&w, 0, sizeof w);
    w.s = s;
    w.x = bk_xform_make(opt);
    w.png_level = opt ? opt->png_level : 0;
    w.root = cJSON_CreateObject();
    cJSON *asset = cJSON_AddObjectToObject(w.root, "asset");
    cJSON_AddStringToObject(asset, "version", "2.0");
    cJSON_AddStringToObject(asset, "generator", opt && opt->generator ? opt->generator : "bspkit " BK_VERSION_STRING);
    w.buffer_views = cJSON_CreateArray();
    w.accessors = cJSON_CreateArray();

    int32_t *tex_of_image = bk_calloc(s->image_count + 1, sizeof(int32_t));
    int32_t *mesh_map = bk_calloc(s->mesh_count + 1, sizeof(int32_t));
    if (!tex_of_image || !mesh_map) w.err = BK_ENOMEM;
    unsigned used_ext = 0;
    png_job job;
    png_start(&job, s, w.png_level);
    if (!w.err) number_textures(s, tex_of_image);
    if (!w.err) write_materials(&w, tex_of_image, &used_ext);
    cJSON *meshes = cJSON_CreateArray();
    int mesh_total = 0;
    for (uint32_t i = 0; i < s->mesh_count && !w.err; i++) {
        const bk_mesh *m = &s->meshes[i];
        cJSON *prims = cJSON_CreateArray();
        for (uint32_t j = 0; j < m->prim_count && !w.err; j++) {
            cJSON *p = write_primitive(&w, &m->prims[j]);
            if (p) cJSON_AddItemToArray(prims, p);
        }
        if (cJSON_GetArraySize(prims) == 0) {
            cJSON_Delete(prims);
            mesh_map[i] = -1;
            continue;
        }
        cJSON *mo = cJSON_CreateObject();
        if (m->name && *m->name) cJSON_AddStringToObject(mo, "name", m->name);
        cJSON_AddItemToObject(mo, "primitives", prims);
        cJSON_AddItemToArray(meshes, mo);
        mesh_map[i] = mesh_total++;
        w.st.meshes++;
    }
    if (cJSON_GetArraySize(meshes)) cJSON_AddItemToObject(w.root, "meshes", meshes);
    else cJSON_Delete(meshes);
    if (!w.err) write_nodes(&w, mesh_map);
    if (!w.err) write_skins(&w);
    if (!w.err) write_animations(&w);
    if (!w.err) write_images(&w, tex_of_image, &job); /* after the geometry: the PNGs were encoding meanwhile */
    png_free(&job);
    if (used_ext) {
        cJSON *eu = cJSON_AddArrayToObject(w.root, "extensionsUsed");
        if (used_ext & EXT_UNLIT) cJSON_AddItemToArray(eu, cJSON_CreateString("KHR_materials_unlit"));
        if (used_ext & EXT_EMISSIVE_STRENGTH)
            cJSON_AddItemToArray(eu, cJSON_CreateString("KHR_materials_emissive_strength"));
        if (used_ext & EXT_SPECULAR) cJSON_AddItemToArray(eu, cJSON_CreateString("KHR_materials_specular"));
    }
    if (w.bin.failed) w.err = BK_ENOMEM;

    bk_result r = w.err;
    if (r == BK_OK && w.bin.size) {
        while (w.bin.size % 4) bk_buf_append(&w.bin, "\0", 1);
        cJSON *buffers = cJSON_AddArrayToObject(w.root, "buffers");
        cJSON *b = cJSON_CreateObject();
        cJSON_AddNumberToObject(b, "byteLength", (double)w.bin.size);
        if (bin_uri) cJSON_AddStringToObject(b, "uri", bin_uri);
        cJSON_AddItemToArray(buffers, b);
    }
    if (cJSON_GetArraySize(w.buffer_views)) cJSON_AddItemToObject(w.root, "bufferViews", w.buffer_views);
    else cJSON_Delete(w.buffer_views);
    if (cJSON_GetArraySize(w.accessors)) cJSON_AddItemToObject(w.root, "accessors", w.accessors);
    else cJSON_Delete(w.accessors);

    if (r == BK_OK && w.bin.size > UINT32_MAX - 4096) r = BK_ELIMIT;
    char *json = r == BK_OK ? cJSON_PrintUnformatted(w.root) : NULL;
    if (r == BK_OK && !json) r = BK_ENOMEM;
    cJSON_Delete(w.root);
    bk_free(tex_of_image);
    bk_free(mesh_map);
    if (w.bin.failed && r == BK_OK) r = BK_ENOMEM;
    if (st_out) *st_out = w.st;
    if (r != BK_OK) {
        cJSON_free(json);
        bk_buf_free(&w.bin);
        return r;
    }
    *json_out = json;
    *bin_out = w.bin;
    return BK_OK;
}

/* A .glb in pieces: header, JSON chunk (space-padded), BIN chunk; no copy of the buffer. */
static bk_result glb_emit(const char *json, const bk_buf *bin, bk_write_fn write, void *user, uint64_t *bytes)
{
    bk_buf j = {0};
    bk_result r = pad_json(json, &j);
    if (r == BK_OK && j.failed) r = BK_ENOMEM;
    if (r == BK_OK) {
        uint8_t hdr[20];
        uint64_t total = 12 + 8 + (uint64_t)j.size + (bin->size ? 8 + (uint64_t)bin->size : 0);
        if (total > UINT32_MAX) r = BK_ELIMIT;
        memcpy(hdr, "glTF", 4);
        bk_wr_u32le(hdr + 4, 2);
        bk_wr_u32le(hdr + 8, (uint32_t)total);
        bk_wr_u32le(hdr + 12, (uint32_t)j.size);
        memcpy(hdr + 16, "JSON", 4);
        if (r == BK_OK && (!write(user, hdr, 20) || !write(user, j.data, j.size))) r = BK_EIO;
        if (r == BK_OK && bin->size) {
            bk_wr_u32le(hdr, (uint32_t)bin->size);
            memcpy(hdr + 4, "BIN\0", 4);
            if (!write(user, hdr, 8) || !write(user, bin->data, bin->size)) r = BK_EIO;
        }
        if (bytes) *bytes = total;
    }
    bk_buf_free(&j);
    return r;
}

bk_result bk_export_glb_to(const bk_scene *s, const bk_export_options *opt, bk_write_fn write, void *user,
                           bk_export_stats *stats)
{
    if (!s || !write) return BK_EARG;
    char *json;
    bk_buf bin;
    bk_export_stats st;
    bk_result r = gltf_make(s, opt, NULL, &json, &bin, &st);
    if (r == BK_OK) r = glb_emit(json, &bin, write, user, &st.bytes);
    if (stats) *stats = st;
    cJSON_free(json);
    bk_buf_free(&bin);
    return r;
}

static bool buf_write(void *user, const void *data, size_t size) { return bk_buf_append(user, data, size); }

bk_result bk_export_glb_memory(const bk_scene *s, const bk_export_options *opt, uint8_t **out, size_t *size,
                               bk_export_stats *stats)
{
    if (!out || !size) return BK_EARG;
    *out = NULL;
    *size = 0;
    bk_buf b = {0};
    bk_result r = bk_export_glb_to(s, opt, buf_write, &b, stats);
    if (r == BK_OK && b.failed) r = BK_ENOMEM;
    if (r != BK_OK) {
        bk_buf_free(&b);
        return r;
    }
    *out = b.data;
    *size = b.size;
    return BK_OK;
}

bk_result bk_export_gltf(const bk_scene *s, const bk_export_options *opt, const char *path, bk_export_stats *stats)
{
    if (!s || !path) return BK_EARG;
    bool glb = ends_with(path, ".glb");
    if (!glb && !ends_with(path, ".gltf")) return BK_EARG;
    /* .gltf: the buffer beside it, NAME.bin */
    char *bin_path = NULL;
    const char *bin_uri = NULL;
    if (!glb) {
        size_t n = strlen(path);
        bin_path = bk_malloc(n + 1);
        if (!bin_path) return BK_ENOMEM;
        memcpy(bin_path, path, n - 5);
        strcpy(bin_path + n - 5, ".bin");
        bin_uri = strrchr(bin_path, '/');
        bin_uri = bin_uri ? bin_uri + 1 : bin_path;
    }
    char *json;
    bk_buf bin;
    bk_export_stats st;
    bk_result r = gltf_make(s, opt, bin_uri, &json, &bin, &st);
    if (r == BK_OK && glb) {
        /* streamed into a temporary file, renamed when complete */
        bk_atomic_file af;
        r = bk_atomic_open(&af, path);
        if (r == BK_OK) {
            r = glb_emit(json, &bin, bk_atomic_write, &af, &st.bytes);
            bk_result c = bk_atomic_close(&af, r == BK_OK);
            if (r == BK_OK) r = c;
        }
    } else if (r == BK_OK) {
        if (bin.size) r = bk_write_file_atomic(bin_path, bin.data, bin.size);
        if (r == BK_OK) r = bk_write_file_atomic(path, json, strlen(json));
        st.bytes = strlen(json) + bin.size;
    }
    if (stats) *stats = st;
    bk_free(bin_path);
    cJSON_free(json);
    bk_buf_free(&bin);
    return r;
}
