/* glTF 2.0 exporter (.glb and .gltf + .bin): the JSON and the binary buffer's layout (gltf_bin.c
 * emits the buffer). The JSON is written as text, part by part in the document's order, into three
 * buffers (the head from asset to buffers, the nodes and scenes, the bufferViews and accessors that
 * grow as the buffer is laid out), joined at the end; numbers and strings come out as cJSON,
 * which built most of it before, wrote them (bk_json_num, bk_json_str), so the output is unchanged,
 * at a fraction of the memory and time of a tree. The binary buffer is never held in memory: the
 * JSON pass lays it out as a list of segments (where each buffer view starts, how long it is, and
 * what produces its bytes), which the emit pass streams to the output.
 * Values are cleaned on the way out (NaN/Inf, zero or non-unit normals, unnormalised weights,
 * degenerate triangles) so that the Khronos validator reports no errors. */
#include <float.h>
#include <math.h>
#include <stdio.h>

#include "gltf_internal.h"

#define GL_FLOAT 5126
#define GL_UNSIGNED_BYTE 5121
#define GL_UNSIGNED_SHORT 5123
#define GL_UNSIGNED_INT 5125
#define GL_ARRAY_BUFFER 34962
#define GL_ELEMENT_ARRAY_BUFFER 34963


static bool ends_with(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && bk_strcasecmp(s + n - m, suf) == 0;
}

static void json_str(bk_buf *b, const char *s) { bk_buf_append(b, s, strlen(s)); }

static void json_key_num(bk_buf *b, const char *key, double d)
{
    json_str(b, key);
    bk_json_num(b, d);
}

/* "key": in an object, after a comma when a key came before (*more) */
static void json_key(bk_buf *b, bool *more, const char *key)
{
    if (*more) bk_buf_append(b, ",", 1);
    *more = true;
    bk_buf_append(b, "\"", 1);
    json_str(b, key);
    bk_buf_append(b, "\":", 2);
}

/* "key":"value" (nothing when value is NULL, as cJSON left such a key out) */
static void json_key_str(bk_buf *b, bool *more, const char *key, const char *value)
{
    if (!value) return;
    json_key(b, more, key);
    bk_json_str(b, value);
}

static void json_key_int(bk_buf *b, bool *more, const char *key, double v)
{
    json_key(b, more, key);
    bk_json_num(b, v);
}

/* "key":{"index":N} */
static void json_tex_ref(bk_buf *b, bool *more, const char *key, int32_t index)
{
    json_key(b, more, key);
    json_key_num(b, "{\"index\":", index);
    json_str(b, "}");
}

static void json_doubles(bk_buf *b, const double *v, int n)
{
    json_str(b, "[");
    for (int c = 0; c < n; c++) {
        if (c) json_str(b, ",");
        bk_json_num(b, v[c]);
    }
    json_str(b, "]");
}

/* A buffer view of `bytes` at the next 4-aligned offset, produced by `kind` from p (or owned,
 * which the writer takes over, and frees on failure too). */
static int add_view(gltf_writer *w, int kind, const bk_primitive *p, uint8_t *owned, uint64_t bytes, int target)
{
    if (w->err) {
        bk_free(owned);
        return -1;
    }
    if (w->seg_count == w->seg_cap) {
        uint32_t cap = w->seg_cap ? w->seg_cap * 2 : 64;
        bin_seg *n = bk_realloc(w->segs, (size_t)cap * sizeof *n);
        if (!n) {
            bk_free(owned);
            w->err = BK_ENOMEM;
            return -1;
        }
        w->segs = n;
        w->seg_cap = cap;
    }
    uint64_t ofs = (w->bin_size + 3) & ~(uint64_t)3;
    w->segs[w->seg_count++] = (bin_seg){.ofs = ofs, .bytes = bytes, .p = p, .owned = owned, .kind = kind};
    w->bin_size = ofs + bytes;
    bk_buf *b = &w->views;
    json_str(b, w->view_count ? ",{\"buffer\":0" : "{\"buffer\":0");
    json_key_num(b, ",\"byteOffset\":", (double)ofs);
    json_key_num(b, ",\"byteLength\":", (double)bytes);
    if (target) json_key_num(b, ",\"target\":", target);
    json_str(b, "}");
    return w->view_count++;
}

/* A view for image i's PNG, laid out after every other view once the PNG exists (deferred mode):
 * its offset and length in the JSON are placeholders until then. */
static int add_png_view(gltf_writer *w, uint32_t image)
{
    if (w->err) return -1;
    if (w->seg_count == w->seg_cap) {
        uint32_t cap = w->seg_cap ? w->seg_cap * 2 : 64;
        bin_seg *n = bk_realloc(w->segs, (size_t)cap * sizeof *n);
        if (!n) {
            w->err = BK_ENOMEM;
            return -1;
        }
        w->segs = n;
        w->seg_cap = cap;
    }
    w->segs[w->seg_count++] = (bin_seg){.kind = SEG_PNG, .image = image};
    bk_buf *b = &w->views;
    json_str(b, w->view_count ? ",{\"buffer\":0" : "{\"buffer\":0");
    json_str(b, ",\"byteOffset\":" PH_VIEW_OFFSET ",\"byteLength\":" PH_VIEW_LENGTH "}");
    w->png_views++;
    return w->view_count++;
}

/* a view holding a copy of data */
static int add_view_copy(gltf_writer *w, const void *data, size_t bytes, int target)
{
    uint8_t *c = bk_malloc(bytes ? bytes : 1);
    if (!c) {
        w->err = BK_ENOMEM;
        return -1;
    }
    memcpy(c, data, bytes);
    return add_view(w, SEG_OWNED, NULL, c, bytes, target);
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

static int add_accessor(gltf_writer *w, int view, int component_type, uint32_t count, int comps, const double *mn,
                        const double *mx)
{
    if (view < 0) return -1;
    bk_buf *b = &w->accessors;
    json_key_num(b, w->accessor_count ? ",{\"bufferView\":" : "{\"bufferView\":", view);
    json_key_num(b, ",\"componentType\":", component_type);
    if (component_type == GL_UNSIGNED_BYTE) json_str(b, ",\"normalized\":true"); /* colours: 255 = 1.0 */
    json_key_num(b, ",\"count\":", count);
    json_str(b, ",\"type\":\"");
    json_str(b, type_name(comps));
    json_str(b, "\"");
    if (mn) {
        for (int m = 0; m < 2; m++) {
            const double *v = m ? mx : mn;
            json_str(b, m ? ",\"max\":[" : ",\"min\":[");
            for (int c = 0; c < comps; c++) {
                if (c) json_str(b, ",");
                bk_json_num(b, v[c]);
            }
            json_str(b, "]");
        }
    }
    json_str(b, "}");
    return w->accessor_count++;
}

/* Float accessor over a copy of data; with_minmax adds min/max per component. */
static int add_float_accessor(gltf_writer *w, const float *data, uint32_t count, int comps, int target,
                              bool with_minmax)
{
    int view = add_view_copy(w, data, (size_t)count * comps * sizeof(float), target);
    if (view < 0) return -1;
    double mn[16], mx[16];
    if (with_minmax) {
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
    }
    return add_accessor(w, view, GL_FLOAT, count, comps, with_minmax ? mn : NULL, with_minmax ? mx : NULL);
}

/* a primitive's attribute, produced at emit time */
static int add_prim_accessor(gltf_writer *w, const bk_primitive *p, int kind, uint32_t count, int comps,
                             const double *mn, const double *mx)
{
    int ct = kind == SEG_JTS || kind == SEG_IDX16 ? GL_UNSIGNED_SHORT
             : kind == SEG_IDX32                 ? GL_UNSIGNED_INT
             : kind == SEG_COL                   ? GL_UNSIGNED_BYTE
                                                 : GL_FLOAT;
    size_t size = ct == GL_UNSIGNED_SHORT ? 2 : ct == GL_UNSIGNED_BYTE ? 1 : 4;
    int target = kind == SEG_IDX16 || kind == SEG_IDX32 ? GL_ELEMENT_ARRAY_BUFFER : GL_ARRAY_BUFFER;
    int view = add_view(w, kind, p, NULL, (uint64_t)count * comps * size, target);
    return add_accessor(w, view, ct, count, comps, mn, mx);
}

/* last[i] for the pairs of kv (see bk_kv_last), in small when they fit; NULL when out of memory */
static bool *kv_last_flags(const bk_kv *kv, uint32_t n, bool small[64])
{
    bool *last = n <= 64 ? small : bk_malloc(n * sizeof *last);
    if (last && bk_kv_last(kv, n, last) != BK_OK) {
        if (last != small) bk_free(last);
        last = NULL;
    }
    return last;
}

/* The members of an object of key/value pairs, later duplicates winning as in the engines' entity
 * parsers: a key is written at its last occurrence (what cJSON's delete-and-add gave). */
static void kv_members(bk_buf *b, const bk_kv *kv, uint32_t n, bool *more)
{
    bool small[64], *last = kv_last_flags(kv, n, small);
    if (!last) {
        b->failed = true;
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (!last[i]) continue;
        if (*more) bk_buf_append(b, ",", 1);
        *more = true;
        bk_json_str(b, kv[i].key);
        bk_buf_append(b, ":", 1);
        bk_json_str(b, kv[i].value);
    }
    if (last != small) bk_free(last);
}

static void kv_text(bk_buf *b, const bk_kv *kv, uint32_t n)
{
    bool more = false;
    bk_buf_append(b, "{", 1);
    kv_members(b, kv, n, &more);
    bk_buf_append(b, "}", 1);
}

void bk_gltf_kv_text(bk_buf *b, const bk_kv *kv, uint32_t n) { kv_text(b, kv, n); }

/* Lay out one primitive and write its object into b (after a comma when `comma`); false, with
 * nothing written, when it is empty after cleaning. */
static bool write_primitive(gltf_writer *w, const bk_primitive *p, bk_buf *b, bool comma)
{
    uint32_t n = p->vertex_count;
    if (!n || !p->position) return false;
    uint32_t icount = 0;
    bool indexed = p->mode == BK_PRIM_TRIANGLES || p->mode == BK_PRIM_LINES;
    if (indexed) {
        uint32_t per = p->mode == BK_PRIM_TRIANGLES ? 3 : 2;
        if (!p->indices || p->index_count < per) return false;
        for (uint32_t t = 0; t + per <= p->index_count; t += per) {
            if (bk_gltf_bad_element(p->indices + t, per, n)) w->st.dropped_degenerate++;
            else icount += per;
        }
        if (!icount) return false;
    }
    double mn[3] = {DBL_MAX, DBL_MAX, DBL_MAX}, mx[3] = {-DBL_MAX, -DBL_MAX, -DBL_MAX};
    uint64_t ignored = 0; /* counted when the values are emitted */
    for (uint32_t i = 0; i < n; i++) {
        float v[3];
        bk_gltf_vertex_attr(&w->x, p, SEG_POS, i, v, &ignored);
        for (int c = 0; c < 3; c++) {
            if (v[c] < mn[c]) mn[c] = v[c];
            if (v[c] > mx[c]) mx[c] = v[c];
        }
    }
    json_str(b, comma ? ",{\"attributes\":{" : "{\"attributes\":{");
    bool more = false;
    json_key_int(b, &more, "POSITION", add_prim_accessor(w, p, SEG_POS, n, 3, mn, mx));
    if (p->normal) json_key_int(b, &more, "NORMAL", add_prim_accessor(w, p, SEG_NRM, n, 3, NULL, NULL));
    if (p->uv0 || p->uv1) /* TEXCOORD_1 needs TEXCOORD_0 before it */
        json_key_int(b, &more, "TEXCOORD_0", add_prim_accessor(w, p, p->uv0 ? SEG_UV0 : SEG_ZERO2, n, 2, NULL, NULL));
    if (p->uv1) json_key_int(b, &more, "TEXCOORD_1", add_prim_accessor(w, p, SEG_UV1, n, 2, NULL, NULL));
    if (p->color) json_key_int(b, &more, "COLOR_0", add_prim_accessor(w, p, SEG_COL, n, 4, NULL, NULL));
    if (p->weights && p->joints) {
        json_key_int(b, &more, "JOINTS_0", add_prim_accessor(w, p, SEG_JTS, n, 4, NULL, NULL));
        json_key_int(b, &more, "WEIGHTS_0", add_prim_accessor(w, p, SEG_WTS, n, 4, NULL, NULL));
    }
    json_str(b, "}");
    if (indexed)
        json_key_num(b, ",\"indices\":", add_prim_accessor(w, p, n <= 65535 ? SEG_IDX16 : SEG_IDX32, icount, 1, NULL, NULL));
    json_key_num(b, ",\"mode\":", p->mode == BK_PRIM_POINTS ? 0 : (p->mode == BK_PRIM_LINES ? 1 : 4));
    if (p->material >= 0 && (uint32_t)p->material < w->s->material_count) json_key_num(b, ",\"material\":", p->material);
    json_str(b, "}");
    w->st.vertices += n;
    if (p->mode == BK_PRIM_TRIANGLES) w->st.triangles += icount / 3;
    w->st.primitives++;
    return true;
}

/* the meshes (those left with a primitive after cleaning; mesh_map: each mesh's number or -1) */
static void write_meshes(gltf_writer *w, int32_t *mesh_map)
{
    const bk_scene *s = w->s;
    bk_buf *b = &w->head;
    size_t start = b->size;
    json_str(b, ",\"meshes\":[");
    int32_t total = 0;
    for (uint32_t i = 0; i < s->mesh_count && !w->err; i++) {
        const bk_mesh *m = &s->meshes[i];
        size_t at = b->size;
        json_str(b, total ? ",{" : "{");
        bool more = false;
        if (m->name && *m->name) json_key_str(b, &more, "name", m->name);
        json_key(b, &more, "primitives");
        json_str(b, "[");
        uint32_t written = 0;
        for (uint32_t j = 0; j < m->prim_count && !w->err; j++) written += write_primitive(w, &m->prims[j], b, written);
        if (!written) {
            b->size = at;
            mesh_map[i] = -1;
            continue;
        }
        json_str(b, "]}");
        mesh_map[i] = total++;
        w->st.meshes++;
    }
    if (total) json_str(b, "]");
    else b->size = start;
}

/* Texture numbers, known before any PNG is encoded: one per image with pixels, in order. */
static void number_textures(const bk_scene *s, int32_t *tex_of_image)
{
    int32_t count = 0;
    for (uint32_t i = 0; i < s->image_count; i++) {
        tex_of_image[i] = bk_scene_image_has_pixels(s, i) ? count++ : -1;
    }
}

static void write_images(gltf_writer *w, const int32_t *tex_of_image, png_job *job)
{
    const bk_scene *s = w->s;
    bk_buf images = {0}, textures = {0};
    bool any_clamp_mip = false;
    int count = 0;
    if (!w->defer_png) {
        bk_result pr = bk_gltf_png_finish(job);
        if (pr != BK_OK) w->err = pr;
    } else if (job->r != BK_OK) {
        w->err = job->r;
    }
    for (uint32_t i = 0; i < s->image_count && !w->err; i++) {
        const bk_image *im = &s->images[i];
        if (tex_of_image[i] < 0) continue;
        int view;
        if (w->defer_png) {
            view = add_png_view(w, i);
        } else {
            if (job->pngs[i].failed) {
                w->err = BK_ENOMEM;
                break;
            }
            view = add_view(w, SEG_OWNED, NULL, job->pngs[i].data, job->pngs[i].size, 0); /* taken over */
            memset(&job->pngs[i], 0, sizeof job->pngs[i]);
        }
        if (view < 0) break;
        bool more = false;
        json_str(&images, count ? ",{" : "{");
        json_key_str(&images, &more, "name", im->name);
        json_key_int(&images, &more, "bufferView", view);
        json_key_str(&images, &more, "mimeType", "image/png");
        json_str(&images, "}");
        json_key_num(&textures, count ? ",{\"sampler\":" : "{\"sampler\":", im->is_lightmap ? 1 : (im->clamp ? 2 : 0));
        if (!im->is_lightmap && im->clamp) any_clamp_mip = true;
        json_key_num(&textures, ",\"source\":", count);
        more = true;
        json_key_str(&textures, &more, "name", im->name);
        json_str(&textures, "}");
        count++;
        w->st.images++;
    }
    if (count) {
        bk_buf *b = &w->head;
        json_str(b, ",\"images\":[");
        bk_buf_append(b, images.data, images.size);
        json_str(b, "],\"textures\":[");
        bk_buf_append(b, textures.data, textures.size);
        /* repeat, clamp (lightmaps), clamp with mipmaps (only when an image uses it) */
        json_str(b, "],\"samplers\":[{\"magFilter\":9729,\"minFilter\":9987,\"wrapS\":10497,\"wrapT\":10497},"
                    "{\"magFilter\":9729,\"minFilter\":9729,\"wrapS\":33071,\"wrapT\":33071}");
        if (any_clamp_mip) json_str(b, ",{\"magFilter\":9729,\"minFilter\":9987,\"wrapS\":33071,\"wrapT\":33071}");
        json_str(b, "]");
    }
    if (images.failed || textures.failed) w->head.failed = true;
    bk_buf_free(&images);
    bk_buf_free(&textures);
}

enum { EXT_UNLIT = 1, EXT_EMISSIVE_STRENGTH = 2, EXT_SPECULAR = 4 };

static int32_t tex_index(const bk_scene *s, const int32_t *tex_of_image, int32_t image)
{
    return image >= 0 && (uint32_t)image < s->image_count ? tex_of_image[image] : -1;
}

/* a material's "extensions": unlit alone, or emissive strength (es > 0) and/or specular (st >= 0) */
static void write_mat_ext(bk_buf *b, bool *more, unsigned which, float es, int32_t st, unsigned *used_ext)
{
    json_key(b, more, "extensions");
    json_str(b, "{");
    bool m2 = false;
    if (which & EXT_UNLIT) {
        json_key(b, &m2, "KHR_materials_unlit");
        json_str(b, "{}");
    }
    if (which & EXT_EMISSIVE_STRENGTH) {
        json_key(b, &m2, "KHR_materials_emissive_strength");
        json_key_num(b, "{\"emissiveStrength\":", es);
        json_str(b, "}");
    }
    if (which & EXT_SPECULAR) {
        json_key(b, &m2, "KHR_materials_specular");
        json_key_num(b, "{\"specularColorTexture\":{\"index\":", st);
        json_str(b, "}}");
    }
    json_str(b, "}");
    *used_ext |= which;
}

/* a styled lightmap's layers (bk_material.light_layers): "lightStyles" [style, ...] and
 * "lightStyleTextures" [texture, ...] in the same order (docs/gltf.md, light styles) */
static void write_light_layers(bk_buf *b, bool *more, const bk_material *m, const bk_scene *s,
                               const int32_t *tex_of_image)
{
    json_key(b, more, "lightStyles");
    for (uint32_t k = 0; k < m->light_layer_count; k++) json_key_num(b, k ? "," : "[", m->light_layers[k].style);
    json_str(b, "]");
    json_key(b, more, "lightStyleTextures");
    for (uint32_t k = 0; k < m->light_layer_count; k++)
        json_key_num(b, k ? "," : "[", tex_index(s, tex_of_image, m->light_layers[k].image));
    json_str(b, "]");
}

/* the map's light styles (bk_scene.lightstyles) in the scene's extras: "lightStyles" {"N": {pattern,
 * restValue, targetname, startOff}, ...} and "lightStyleGain" */
static void write_lightstyles(bk_buf *b, const bk_scene *s, bool *more)
{
    json_key(b, more, "lightStyles");
    json_str(b, "{");
    for (uint32_t i = 0; i < s->lightstyle_count; i++) {
        const bk_lightstyle *ls = &s->lightstyles[i];
        char key[16];
        snprintf(key, sizeof key, "%s\"%u\":", i ? "," : "", ls->style);
        json_str(b, key);
        bool m2 = false;
        json_str(b, "{");
        json_key_str(b, &m2, "pattern", ls->pattern ? ls->pattern : "");
        json_key_int(b, &m2, "restValue", ls->rest_value);
        json_key_str(b, &m2, "targetname", ls->targetname);
        if (ls->start_off) {
            json_key(b, &m2, "startOff");
            json_str(b, "true");
        }
        json_str(b, "}");
    }
    json_str(b, "}");
    json_key_int(b, more, "lightStyleGain", s->lightstyle_gain);
}

static void write_material(gltf_writer *w, const bk_material *m, const int32_t *tex_of_image, unsigned *used_ext)
{
    const bk_scene *s = w->s;
    bk_buf *b = &w->head;
    bool more = false;
    json_key_str(b, &more, "name", m->name);
    json_key(b, &more, "pbrMetallicRoughness");
    double bc[4];
    for (int c = 0; c < 4; c++) {
        float f = isfinite(m->base_color[c]) ? m->base_color[c] : 1.0f;
        bc[c] = f < 0 ? 0 : (f > 1 ? 1 : f);
    }
    json_str(b, "{\"baseColorFactor\":");
    json_doubles(b, bc, 4);
    bool pm = true;
    int32_t bt = tex_index(s, tex_of_image, m->base_image);
    if (bt >= 0) json_tex_ref(b, &pm, "baseColorTexture", bt);
    json_str(b, ",\"metallicFactor\":0,\"roughnessFactor\":1}");
    int32_t lt = tex_index(s, tex_of_image, m->lightmap_image);
    if (lt >= 0 && !m->unlit) {
        /* the lightmap rides in the occlusion slot (read with TEXCOORD_1): viewers that light
         * with an environment show the baked lighting; extras name it for tools that bind it */
        json_key(b, &more, "occlusionTexture");
        json_key_num(b, "{\"index\":", lt);
        json_str(b, ",\"texCoord\":1}");
    }
    if (m->alpha_mode == BK_ALPHA_MASK) {
        json_key_str(b, &more, "alphaMode", "MASK");
        json_key_int(b, &more, "alphaCutoff", isfinite(m->alpha_cutoff) && m->alpha_cutoff >= 0 ? m->alpha_cutoff : 0.5);
    } else if (m->alpha_mode == BK_ALPHA_BLEND) {
        json_key_str(b, &more, "alphaMode", "BLEND");
    }
    if (m->double_sided) json_str(b, ",\"doubleSided\":true");
    /* the extensions object sits where its first member was added in the order below */
    if (m->unlit) write_mat_ext(b, &more, EXT_UNLIT, 0, -1, used_ext);
    /* emission: a texture and/or a factor; brighter than 1 through KHR_materials_emissive_strength */
    int32_t et = tex_index(s, tex_of_image, m->emissive_image), st = tex_index(s, tex_of_image, m->specular_image);
    unsigned ext = !m->unlit && st >= 0 ? EXT_SPECULAR : 0;
    double ef[3];
    bool any_ef = false;
    for (int c = 0; c < 3; c++) {
        float f = isfinite(m->emissive[c]) ? m->emissive[c] : 0.0f;
        ef[c] = f < 0 ? 0 : (f > 1 ? 1 : f);
        if (ef[c] > 0) any_ef = true;
    }
    if (any_ef) {
        json_key(b, &more, "emissiveFactor");
        json_doubles(b, ef, 3);
        if (et >= 0) json_tex_ref(b, &more, "emissiveTexture", et);
        float es = m->emissive_strength;
        if (isfinite(es) && es > 1.0f && !m->unlit) {
            write_mat_ext(b, &more, EXT_EMISSIVE_STRENGTH | ext, es, st, used_ext);
            ext = 0;
        }
    }
    int32_t nt = tex_index(s, tex_of_image, m->normal_image);
    if (nt >= 0 && !m->unlit) json_tex_ref(b, &more, "normalTexture", nt);
    if (ext) write_mat_ext(b, &more, ext, 0, st, used_ext);
    /* a second base texture blended in by COLOR_0's alpha: no glTF slot, named in extras */
    int32_t b2 = tex_index(s, tex_of_image, m->blend_image);
    if (m->extra_count || lt >= 0 || b2 >= 0 || m->never_drawn || m->light_layer_count) {
        json_key(b, &more, "extras");
        json_str(b, "{");
        bool mx = false;
        kv_members(b, m->extras, m->extra_count, &mx);
        /* the game never draws it (bk_material.never_drawn): viewers hide it unless asked */
        if (m->never_drawn) {
            json_key(b, &mx, "neverDrawn");
            json_str(b, "true");
        }
        if (lt >= 0) json_key_int(b, &mx, "lightmapTexture", lt);
        if (b2 >= 0) {
            json_key_int(b, &mx, "blendTexture", b2);
            json_key_str(b, &mx, "blendFactor", "COLOR_0.a");
        }
        if (m->light_layer_count) write_light_layers(b, &mx, m, s, tex_of_image);
        json_str(b, "}");
    }
}

static void write_materials(gltf_writer *w, const int32_t *tex_of_image, unsigned *used_ext)
{
    const bk_scene *s = w->s;
    if (!s->material_count) return;
    json_str(&w->head, ",\"materials\":[");
    for (uint32_t i = 0; i < s->material_count; i++) {
        json_str(&w->head, i ? ",{" : "{");
        write_material(w, &s->materials[i], tex_of_image, used_ext);
        json_str(&w->head, "}");
        w->st.materials++;
    }
    json_str(&w->head, "]");
}

static bool is_identity_trs(const bk_node *n)
{
    return n->translation[0] == 0 && n->translation[1] == 0 && n->translation[2] == 0 && n->rotation[0] == 0 &&
           n->rotation[1] == 0 && n->rotation[2] == 0 && n->rotation[3] == 1 && n->scale[0] == 1 &&
           n->scale[1] == 1 && n->scale[2] == 1;
}

static void json_nums(bk_buf *b, const char *key, const float *v, int n)
{
    json_str(b, key);
    for (int c = 0; c < n; c++) {
        if (c) json_str(b, ",");
        bk_json_num(b, v[c]);
    }
    json_str(b, "]");
}

/* nodes, scenes and scene, written as text into w->tail (a map's entities with their key/values
 * are most of its JSON: a tree of them took several times the memory) */
static void write_nodes(gltf_writer *w, const int32_t *mesh_map)
{
    const bk_scene *s = w->s;
    bk_buf *b = &w->tail;
    uint32_t n = s->node_count;
    /* each node's children (the later nodes naming it as parent), in order, without a scan per node */
    int32_t *head = bk_malloc(((size_t)n + 1) * sizeof(int32_t)), *next = bk_malloc(((size_t)n + 1) * sizeof(int32_t));
    if (!head || !next) {
        bk_free(head);
        bk_free(next);
        w->err = BK_ENOMEM;
        return;
    }
    for (uint32_t i = 0; i < n; i++) head[i] = -1;
    for (uint32_t j = n; j-- > 0;) {
        int32_t p = s->nodes[j].parent;
        next[j] = -1;
        if (p >= 0 && (uint32_t)p < j) next[j] = head[p], head[p] = (int32_t)j;
    }
    json_str(b, ",\"nodes\":[");
    for (uint32_t i = 0; i < n; i++) {
        const bk_node *nd = &s->nodes[i];
        json_str(b, i ? ",{" : "{");
        bool more = false; /* a key written before in this object */
        if (nd->name && *nd->name) {
            json_str(b, "\"name\":");
            bk_json_str(b, nd->name);
            more = true;
        }
        bool lit = nd->light >= 0 && (uint32_t)nd->light < s->light_count;
        if (!is_identity_trs(nd) || (lit && w->x.rotate)) {
            float t[3], q[4], sc[3], tin[3];
            for (int c = 0; c < 3; c++) tin[c] = isfinite(nd->translation[c]) ? nd->translation[c] : 0;
            bk_xf_point(&w->x, tin, t);
            bk_xf_quat(&w->x, nd->rotation, q);
            if (lit) bk_gltf_light_rotation(&w->x, q);
            float sin_[3];
            for (int c = 0; c < 3; c++) sin_[c] = isfinite(nd->scale[c]) && nd->scale[c] != 0 ? nd->scale[c] : 1;
            bk_xf_scale(&w->x, sin_, sc);
            json_nums(b, more ? ",\"translation\":[" : "\"translation\":[", t, 3);
            json_nums(b, ",\"rotation\":[", q, 4);
            json_nums(b, ",\"scale\":[", sc, 3);
            more = true;
        }
        if (nd->mesh >= 0 && (uint32_t)nd->mesh < s->mesh_count && mesh_map[nd->mesh] >= 0) {
            json_key_num(b, more ? ",\"mesh\":" : "\"mesh\":", mesh_map[nd->mesh]);
            if (nd->skin >= 0 && (uint32_t)nd->skin < s->skin_count) json_key_num(b, ",\"skin\":", nd->skin);
            more = true;
        }
        if (head[i] >= 0) {
            json_str(b, more ? ",\"children\":[" : "\"children\":[");
            for (int32_t j = head[i]; j >= 0; j = next[j]) {
                if (j != head[i]) json_str(b, ",");
                bk_json_num(b, j);
            }
            json_str(b, "]");
            more = true;
        }
        if (lit) {
            json_key_num(b, more ? ",\"extensions\":{\"KHR_lights_punctual\":{\"light\":" : "\"extensions\":{\"KHR_lights_punctual\":{\"light\":",
                         nd->light);
            json_str(b, "}}");
            more = true;
        }
        if (nd->extra_count) {
            json_str(b, more ? ",\"extras\":" : "\"extras\":");
            kv_text(b, nd->extras, nd->extra_count);
        }
        json_str(b, "}");
        w->st.nodes++;
    }
    json_str(b, "],\"scenes\":[{\"name\":");
    bk_json_str(b, s->name ? s->name : "scene");
    json_str(b, ",\"nodes\":[");
    bool any = false;
    for (uint32_t i = 0; i < n; i++)
        if (s->nodes[i].parent < 0 || s->nodes[i].parent >= (int32_t)i) {
            if (any) json_str(b, ",");
            bk_json_num(b, i);
            any = true;
        }
    json_str(b, "]");
    if (s->extra_count || s->lightstyle_count) {
        json_str(b, ",\"extras\":{");
        bool more = false;
        kv_members(b, s->extras, s->extra_count, &more);
        if (s->lightstyle_count) write_lightstyles(b, s, &more);
        json_str(b, "}");
    }
    json_str(b, "}],\"scene\":0");
    bk_free(head);
    bk_free(next);
    if (b->failed && !w->err) w->err = BK_ENOMEM;
}

static void write_skins(gltf_writer *w)
{
    const bk_scene *s = w->s;
    if (!s->skin_count) return;
    bk_buf *b = &w->head;
    json_str(b, ",\"skins\":[");
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
        json_str(b, i ? ",{" : "{");
        bool more = false;
        if (k->name && *k->name) json_key_str(b, &more, "name", k->name);
        json_key_int(b, &more, "inverseBindMatrices", a);
        if (k->joints) { /* cJSON made no array of none */
            json_key(b, &more, "joints");
            json_str(b, "[");
            for (uint32_t j = 0; j < k->joint_count; j++) {
                if (j) json_str(b, ",");
                bk_json_num(b, k->joints[j]);
            }
            json_str(b, "]");
        }
        if (k->skeleton >= 0) json_key_int(b, &more, "skeleton", k->skeleton);
        json_str(b, "}");
        w->st.skins++;
    }
    json_str(b, "]");
}

/* An accessor over a channel's times (with their range) or its values, produced at emit time */
static int add_channel_accessor(gltf_writer *w, const bk_channel *ch, bool times)
{
    int comps = times ? 1 : ch->path == BK_PATH_ROTATION ? 4 : 3;
    int view = add_view(w, times ? SEG_TIMES : SEG_KEYS, NULL, NULL, (uint64_t)ch->key_count * comps * 4, 0);
    if (view < 0) return -1;
    w->segs[view].ch = ch; /* one segment per view, in order */
    double mn = DBL_MAX, mx = -DBL_MAX;
    if (times)
        for (uint32_t k = 0; k < ch->key_count; k++) {
            if (ch->times[k] < mn) mn = ch->times[k];
            if (ch->times[k] > mx) mx = ch->times[k];
        }
    return add_accessor(w, view, GL_FLOAT, ch->key_count, comps, times ? &mn : NULL, times ? &mx : NULL);
}

/* The animations, written as JSON text (samplers and channels are most of an animated model's
 * JSON) and put in the tree whole; the keys go out at emit time, converted there. */
static void write_animations(gltf_writer *w)
{
    const bk_scene *s = w->s;
    if (!s->anim_count) return;
    bk_buf t = {0}, chs = {0};
    json_str(&t, "[");
    uint32_t written = 0;
    for (uint32_t i = 0; i < s->anim_count && !w->err; i++) {
        const bk_animation *an = &s->anims[i];
        if (!an->channel_count) continue;
        size_t start = t.size;
        json_str(&t, written ? ",{\"name\":" : "{\"name\":");
        bk_json_str(&t, an->name ? an->name : "");
        json_str(&t, ",\"samplers\":[");
        chs.size = 0;
        int sampler_count = 0;
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
                input = add_channel_accessor(w, ch, true);
                last_input = input;
                last_times = ch->times;
                last_count = ch->key_count;
            }
            int output = add_channel_accessor(w, ch, false);
            json_key_num(&t, sampler_count ? ",{\"input\":" : "{\"input\":", input);
            json_key_num(&t, ",\"output\":", output);
            json_str(&t, ch->interpolation == BK_INTERP_STEP ? ",\"interpolation\":\"STEP\"}"
                                                             : ",\"interpolation\":\"LINEAR\"}");
            json_key_num(&chs, sampler_count ? ",{\"sampler\":" : "{\"sampler\":", sampler_count);
            json_key_num(&chs, ",\"target\":{\"node\":", ch->node);
            json_str(&chs, ch->path == BK_PATH_TRANSLATION ? ",\"path\":\"translation\"}}"
                           : ch->path == BK_PATH_ROTATION  ? ",\"path\":\"rotation\"}}" : ",\"path\":\"scale\"}}");
            sampler_count++;
        }
        if (!sampler_count) {
            t.size = start;
            continue;
        }
        json_str(&t, "],\"channels\":[");
        bk_buf_append(&t, chs.data, chs.size);
        json_str(&t, "]}");
        written++;
        w->st.animations++;
    }
    bk_buf_append(&t, "]", 2); /* with the string's end */
    if (t.failed || chs.failed) {
        if (!w->err) w->err = BK_ENOMEM;
    } else if (written && !w->err) {
        json_str(&w->head, ",\"animations\":");
        bk_buf_append(&w->head, t.data, t.size - 1);
    }
    bk_buf_free(&t);
    bk_buf_free(&chs);
}

static void writer_release(gltf_writer *w)
{
    if (w->job) {
        bk_gltf_png_free(w->job);
        bk_free(w->job);
        w->job = NULL;
    }
    for (uint32_t i = 0; i < w->seg_count; i++) bk_free(w->segs[i].owned);
    bk_free(w->segs);
    w->segs = NULL;
    w->seg_count = w->seg_cap = 0;
}

/* the document's head: {"asset":{...} (the other parts follow, each after a comma) */
static void write_asset(gltf_writer *w, const bk_export_options *opt)
{
    json_str(&w->head, "{\"asset\":{\"version\":\"2.0\",\"generator\":");
    bk_json_str(&w->head, opt && opt->generator ? opt->generator : "bspkit " BK_VERSION_STRING);
    json_str(&w->head, "}");
}

/* extensionsUsed and buffers, which close the head */
static void write_head_end(gltf_writer *w, unsigned used_ext, const char *bin_uri)
{
    bk_buf *b = &w->head;
    if (w->s->light_count) used_ext |= 8; /* KHR_lights_punctual */
    if (used_ext) {
        bool more = false;
        json_str(b, ",\"extensionsUsed\":[");
        static const char *const names[] = {"KHR_materials_unlit", "KHR_materials_emissive_strength",
                                            "KHR_materials_specular", "KHR_lights_punctual"};
        for (int e = 0; e < 4; e++)
            if (used_ext & (1u << e)) {
                if (more) json_str(b, ",");
                more = true;
                bk_json_str(b, names[e]);
            }
        json_str(b, "]");
    }
    if (w->s->light_count) bk_gltf_write_lights(b, w->s, &w->x);
    if (w->bin_size || w->png_views) {
        if (w->png_views) json_str(b, ",\"buffers\":[{\"byteLength\":" PH_BUFFER_LENGTH);
        else json_key_num(b, ",\"buffers\":[{\"byteLength\":", (double)w->bin_size);
        if (bin_uri) {
            json_str(b, ",\"uri\":");
            bk_json_str(b, bin_uri);
        }
        json_str(b, "}]");
    }
}

/* the whole document: the head, then nodes and scenes, bufferViews, accessors; NULL when out of memory */
static char *join_json(gltf_writer *w)
{
    bk_buf *j = &w->head;
    bk_buf_reserve(j, j->size + w->tail.size + w->views.size + w->accessors.size + 40);
    bk_buf_append(j, w->tail.data, w->tail.size);
    if (w->view_count) {
        json_str(j, ",\"bufferViews\":[");
        bk_buf_append(j, w->views.data, w->views.size);
        json_str(j, "]");
    }
    if (w->accessor_count) {
        json_str(j, ",\"accessors\":[");
        bk_buf_append(j, w->accessors.data, w->accessors.size);
        json_str(j, "]");
    }
    bk_buf_append(j, "}", 2); /* with the string's end */
    char *json = j->failed ? NULL : (char *)j->data;
    if (json) memset(j, 0, sizeof *j);
    return json;
}

/* The glTF JSON for scene s and the layout of its binary buffer in w (bin_uri: the buffer's file
 * name for .gltf, NULL for .glb). On success *json (bk_free) is the caller's, and w holds the
 * segments to emit (writer_release). w->bin_size is then the buffer's padded length. */
static bk_result gltf_make(const bk_scene *s, const bk_export_options *opt, const char *bin_uri, bool defer_png,
                           char **json_out, gltf_writer *wp)
{
    *json_out = NULL;
    memset(wp, 0, sizeof *wp);
    gltf_writer w;
    memset(&w, 0, sizeof w);
    w.s = s;
    w.x = bk_xform_make(opt);
    w.png_level = opt ? opt->png_level : 0;
    w.defer_png = defer_png;
    write_asset(&w, opt);

    int32_t *tex_of_image = bk_calloc(s->image_count + 1, sizeof(int32_t));
    int32_t *mesh_map = bk_calloc(s->mesh_count + 1, sizeof(int32_t));
    if (!tex_of_image || !mesh_map) w.err = BK_ENOMEM;
    unsigned used_ext = 0;
    /* on the heap: the encoding thread holds its address while w is copied out */
    w.job = bk_calloc(1, sizeof *w.job);
    if (w.job) bk_gltf_png_start(w.job, s, w.png_level, w.defer_png);
    else w.err = BK_ENOMEM;
    if (!w.err) number_textures(s, tex_of_image);
    if (!w.err) write_materials(&w, tex_of_image, &used_ext);
    if (!w.err) write_meshes(&w, mesh_map);
    if (!w.err) write_nodes(&w, mesh_map);
    if (!w.err) write_skins(&w);
    if (!w.err) write_animations(&w);
    if (!w.err) write_images(&w, tex_of_image, w.job); /* after the geometry: the PNGs were encoding meanwhile */
    if (!w.defer_png && w.job) {
        bk_gltf_png_free(w.job);
        bk_free(w.job);
        w.job = NULL;
    }
    bk_result r = w.err;
    w.bin_size = (w.bin_size + 3) & ~(uint64_t)3;
    if (r == BK_OK) write_head_end(&w, used_ext, bin_uri);
    if (r == BK_OK && (w.head.failed || w.views.failed || w.accessors.failed || w.tail.failed)) r = BK_ENOMEM;
    if (r == BK_OK && w.bin_size > UINT32_MAX - 4096) r = BK_ELIMIT;
    char *json = r == BK_OK ? join_json(&w) : NULL;
    if (r == BK_OK && !json) r = BK_ENOMEM;
    bk_buf_free(&w.head);
    bk_buf_free(&w.tail);
    bk_buf_free(&w.views);
    bk_buf_free(&w.accessors);
    bk_free(tex_of_image);
    bk_free(mesh_map);
    if (r != BK_OK) {
        bk_free(json);
        writer_release(&w);
        *wp = w;
        return r;
    }
    *json_out = json;
    *wp = w;
    return BK_OK;
}

bk_result bk_export_glb_to(const bk_scene *s, const bk_export_options *opt, bk_write_fn write, void *user,
                           bk_export_stats *stats)
{
    if (!s || !write) return BK_EARG;
    char *json;
    gltf_writer w;
    bk_result r = gltf_make(s, opt, NULL, false, &json, &w);
    if (r == BK_OK) r = bk_gltf_glb_emit(json, &w, write, user, &w.st.bytes);
    if (stats) *stats = w.st;
    bk_free(json);
    writer_release(&w);
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
    gltf_writer w;
    /* PNGs are written as they are encoded, not all held first (peak memory) */
    bk_result r = gltf_make(s, opt, bin_uri, true, &json, &w);
    /* streamed into temporary files, renamed together when both are complete: a .gltf and its
     * .bin are replaced as a pair or not at all */
    bk_wtx *tx = NULL;
    if (r == BK_OK) r = bk_wtx_begin(&tx);
    bk_atomic_file af;
    if (r == BK_OK && glb) {
        r = bk_wtx_open(tx, path, &af);
        if (r == BK_OK) {
            r = bk_gltf_glb_emit_file(&json, &w, &af, &w.st.bytes);
            bk_result c = bk_wtx_close(&af);
            if (r == BK_OK) r = c;
        }
    } else if (r == BK_OK) {
        if ((w.bin_size || w.png_views) && (r = bk_wtx_open(tx, bin_path, &af)) == BK_OK) {
            r = bk_gltf_emit_bin(&w, bk_atomic_write, &af);
            bk_result c = bk_wtx_close(&af);
            if (r == BK_OK) r = c;
        }
        if (r == BK_OK) r = bk_gltf_fill_placeholders(&w, json, strlen(json));
        if (r == BK_OK) r = bk_wtx_add(tx, path, json, strlen(json));
        w.st.bytes = strlen(json) + w.bin_size;
    }
    if (r == BK_OK) r = bk_wtx_commit(tx);
    else bk_wtx_abort(tx);
    if (stats) *stats = w.st;
    bk_free(bin_path);
    bk_free(json);
    writer_release(&w);
    return r;
}
