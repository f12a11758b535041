/* Wavefront OBJ + MTL exporter. Node transforms are baked into positions (OBJ has no
 * hierarchy); textures are written as PNG files in a folder beside the .obj. Skinned meshes
 * are written in the pose their positions hold (the bind pose). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xform.h"

/* "key a b c\n" with '.' decimal points whatever the locale (key: at most 2 characters) */
static void put_nums(bk_buf *o, const char *key, const float *v, int n, int precision)
{
    char line[160];
    size_t at = strlen(key);
    memcpy(line, key, at);
    for (int k = 0; k < n && at < sizeof line - 40; k++) {
        line[at++] = ' ';
        at += (size_t)bk_fmt_num(line + at, sizeof line - at, v[k], precision);
    }
    line[at++] = '\n';
    bk_buf_append(o, line, at);
}

/* v in decimal at p; returns the end (a face line writes nine of these: printf was its cost) */
static char *put_u64(char *p, uint64_t v)
{
    char tmp[20];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n) *p++ = tmp[--n];
    return p;
}

/* "f v/t/n v/t/n v/t/n\n" with the parts this primitive has */
static void put_face(bk_buf *o, const uint64_t vi[3], const uint64_t ti[3], const uint64_t ni[3], bool uv, bool nrm)
{
    char line[3 * (3 * 21 + 3) + 4], *p = line;
    *p++ = 'f';
    for (int k = 0; k < 3; k++) {
        *p++ = ' ';
        p = put_u64(p, vi[k]);
        if (uv || nrm) *p++ = '/';
        if (uv) p = put_u64(p, ti[k]);
        if (nrm) {
            *p++ = '/';
            p = put_u64(p, ni[k]);
        }
    }
    *p++ = '\n';
    bk_buf_append(o, line, (size_t)(p - line));
}

/* column-major 4x4 from TRS */

static void trs_matrix(const bk_node *n, float *m)
{
    float x = n->rotation[0], y = n->rotation[1], z = n->rotation[2], w = n->rotation[3];
    float len = sqrtf(x * x + y * y + z * z + w * w);
    if (!(len > 1e-12f) || !isfinite(len)) x = y = z = 0, w = 1, len = 1;
    x /= len, y /= len, z /= len, w /= len;
    float r[9] = {1 - 2 * (y * y + z * z), 2 * (x * y + z * w),     2 * (x * z - y * w),
                  2 * (x * y - z * w),     1 - 2 * (x * x + z * z), 2 * (y * z + x * w),
                  2 * (x * z + y * w),     2 * (y * z - x * w),     1 - 2 * (x * x + y * y)};
    for (int c = 0; c < 3; c++) {
        for (int k = 0; k < 3; k++) m[c * 4 + k] = r[c * 3 + k] * n->scale[c];
        m[c * 4 + 3] = 0;
    }
    m[12] = n->translation[0], m[13] = n->translation[1], m[14] = n->translation[2], m[15] = 1;
}

static void mat_mul(const float *a, const float *b, float *o)
{
    float t[16];
    for (int c = 0; c < 4; c++)
        for (int r = 0; r < 4; r++) {
            float v = 0;
            for (int k = 0; k < 4; k++) v += a[k * 4 + r] * b[c * 4 + k];
            t[c * 4 + r] = v;
        }
    memcpy(o, t, sizeof t);
}

static void world_matrix(const bk_scene *s, int32_t i, float *m)
{
    static const float I[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
    memcpy(m, I, sizeof I);
    uint32_t guard = 0;
    while (i >= 0 && (uint32_t)i < s->node_count && guard++ < s->node_count) {
        float l[16];
        trs_matrix(&s->nodes[i], l);
        mat_mul(l, m, m);
        i = s->nodes[i].parent;
    }
}

static void sanitize_name(char *out, size_t cap, const char *in, const char *fallback)
{
    size_t o = 0;
    if (!in || !*in) in = fallback;
    for (; *in && o + 1 < cap; in++) {
        unsigned char c = (unsigned char)*in;
        out[o++] = (char)((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                                  c == '-' || c == '.'
                              ? c
                              : '_');
    }
    out[o] = 0;
}

/* an image's path as the .mtl names it: BASE_textures/I_NAME.png */
static void mtl_map(bk_buf *mtl, const bk_scene *s, const char *key, const char *base, int32_t image)
{
    if (image < 0 || (uint32_t)image >= s->image_count || !bk_scene_image_has_pixels(s, (uint32_t)image)) return;
    char inm[200];
    sanitize_name(inm, sizeof inm, s->images[image].name, "image");
    bk_buf_printf(mtl, "%s %s_textures/%d_%s.png\n", key, base, image, inm);
}

/* the .mtl: one material each, with its colour, alpha and the PNGs it uses */
static void write_mtl(bk_buf *mtl, const bk_scene *s, const char *base)
{
    bk_buf_printf(mtl, "# bspkit %s\n", BK_VERSION_STRING);
    for (uint32_t i = 0; i < s->material_count; i++) {
        const bk_material *m = &s->materials[i];
        char nm[200];
        sanitize_name(nm, sizeof nm, m->name, "material");
        bk_buf_printf(mtl, "\nnewmtl m%u_%s\nKa 0 0 0\n", i, nm);
        put_nums(mtl, "Kd", m->base_color, 3, 4);
        bk_buf_printf(mtl, "Ks 0 0 0\n");
        put_nums(mtl, "d", m->base_color + 3, 1, 4);
        bk_buf_printf(mtl, "illum 1\n");
        mtl_map(mtl, s, "map_Kd", base, m->base_image);
        if (m->base_image >= 0 && (uint32_t)m->base_image < s->image_count && s->images[m->base_image].has_alpha)
            mtl_map(mtl, s, "map_d", base, m->base_image);
        /* emission (Ke, map_Ke) and a normal map (norm), as common MTL extensions have them */
        if (m->emissive[0] > 0 || m->emissive[1] > 0 || m->emissive[2] > 0) {
            float k = m->emissive_strength > 1 ? m->emissive_strength : 1;
            float ke[3] = {m->emissive[0] * k, m->emissive[1] * k, m->emissive[2] * k};
            put_nums(mtl, "Ke", ke, 3, 4);
            mtl_map(mtl, s, "map_Ke", base, m->emissive_image);
        }
        mtl_map(mtl, s, "norm", base, m->normal_image);
    }
}

/* where the next primitive's v, vt and vn lines start (OBJ numbers them from 1 across the file) */
typedef struct obj_bases {
    uint64_t v, t, n;
} obj_bases;

/* primitive p of a node with world matrix wm: its v/vt/vn lines, its material and its faces */
static void write_prim(bk_buf *o, const bk_scene *s, const bk_primitive *p, const float *wm, const bk_xform *x,
                       obj_bases *b, bk_export_stats *st)
{
    for (uint32_t v = 0; v < p->vertex_count; v++) {
        const float *in = p->position + v * 3;
        float w3[3], out[3];
        for (int c = 0; c < 3; c++) {
            float val = wm[c] * in[0] + wm[4 + c] * in[1] + wm[8 + c] * in[2] + wm[12 + c];
            w3[c] = isfinite(val) ? val : 0;
        }
        bk_xf_point(x, w3, out);
        put_nums(o, "v", out, 3, 6);
        if (p->uv0) {
            float u = p->uv0[v * 2], vv = p->uv0[v * 2 + 1];
            float t2[2] = {isfinite(u) ? u : 0, isfinite(vv) ? 1.0f - vv : 0};
            put_nums(o, "vt", t2, 2, 6);
        }
        if (p->normal) {
            const float *nn = p->normal + v * 3;
            float w3n[3], on[3];
            for (int c = 0; c < 3; c++) w3n[c] = wm[c] * nn[0] + wm[4 + c] * nn[1] + wm[8 + c] * nn[2];
            float len = sqrtf(w3n[0] * w3n[0] + w3n[1] * w3n[1] + w3n[2] * w3n[2]);
            if (!(len > 1e-6f) || !isfinite(len)) w3n[0] = 0, w3n[1] = 0, w3n[2] = 1, len = 1;
            for (int c = 0; c < 3; c++) w3n[c] /= len;
            bk_xf_dir(x, w3n, on);
            put_nums(o, "vn", on, 3, 5);
        }
    }
    if (p->material >= 0 && (uint32_t)p->material < s->material_count) {
        char mn[200];
        sanitize_name(mn, sizeof mn, s->materials[p->material].name, "material");
        bk_buf_printf(o, "usemtl m%d_%s\n", p->material, mn);
    }
    for (uint32_t t = 0; t + 3 <= p->index_count; t += 3) {
        const uint32_t *id = p->indices + t;
        if (id[0] >= p->vertex_count || id[1] >= p->vertex_count || id[2] >= p->vertex_count || id[0] == id[1] ||
            id[1] == id[2] || id[0] == id[2]) {
            st->dropped_degenerate++;
            continue;
        }
        uint64_t vi[3], ti[3], nv[3];
        for (int k = 0; k < 3; k++) vi[k] = b->v + id[k], ti[k] = b->t + id[k], nv[k] = b->n + id[k];
        put_face(o, vi, ti, nv, p->uv0 != NULL, p->normal != NULL);
        st->triangles++;
    }
    b->v += p->vertex_count;
    if (p->uv0) b->t += p->vertex_count;
    if (p->normal) b->n += p->vertex_count;
    st->vertices += p->vertex_count;
    st->primitives++;
}

bk_result bk_export_obj(const bk_scene *s, const bk_export_options *opt, const char *path, bk_export_stats *stats)
{
    if (!s || !path) return BK_EARG;
    size_t plen = strlen(path);
    if (plen < 5 || bk_strcasecmp(path + plen - 4, ".obj") != 0) return BK_EARG;
    bk_xform x = bk_xform_make(opt);
    bk_export_stats st;
    memset(&st, 0, sizeof st);

    char *stem = bk_strndup(path, plen - 4);
    if (!stem) return BK_ENOMEM;
    const char *base = strrchr(stem, '/');
    base = base ? base + 1 : stem;
    bk_buf mtl_path = {0}, tex_dir = {0};
    bk_buf_printf(&mtl_path, "%s.mtl", stem);
    bk_buf_append(&mtl_path, "", 1);
    bk_buf_printf(&tex_dir, "%s_textures", stem);
    bk_buf_append(&tex_dir, "", 1);
    bk_result r = BK_OK;
    if (!stem || mtl_path.failed || tex_dir.failed) r = BK_ENOMEM;
    /* the PNGs, the .mtl and the .obj are one output: renamed together at the end, or none */
    bk_wtx *tx = NULL;
    if (r == BK_OK) r = bk_wtx_begin(&tx);

    /* textures: the images the .mtl names (OBJ has one UV set: a lightmap atlas would be unused) */
    uint8_t *used = s->image_count ? bk_calloc(s->image_count, 1) : NULL;
    if (s->image_count && !used) r = BK_ENOMEM;
    bool any_image = false, made_dir = false;
    for (uint32_t i = 0; used && i < s->material_count; i++) {
        const bk_material *m = &s->materials[i];
        bool glow = m->emissive[0] > 0 || m->emissive[1] > 0 || m->emissive[2] > 0;   /* map_Ke only then */
        const int32_t im[3] = {m->base_image, glow ? m->emissive_image : -1, m->normal_image};
        for (int k = 0; k < 3; k++)
            if (im[k] >= 0 && (uint32_t)im[k] < s->image_count && bk_scene_image_has_pixels(s, (uint32_t)im[k]))
                used[im[k]] = 1, any_image = true;
    }
    if (r == BK_OK && any_image) {
        /* when it cannot be made, the first PNG's temporary cannot either, and says why */
        made_dir = mkdir((const char *)tex_dir.data, 0777) == 0;
    }
    for (uint32_t i = 0; i < s->image_count && r == BK_OK; i++) {
        if (!used[i]) continue;
        char nm[200], file[600];
        sanitize_name(nm, sizeof nm, s->images[i].name, "image");
        snprintf(file, sizeof file, "%s/%u_%s.png", (const char *)tex_dir.data, i, nm);
        r = bk_write_group_png(tx, s, i, file);
        st.images++;
    }

    /* materials */
    bk_buf mtl = {0};
    write_mtl(&mtl, s, base);
    st.materials = s->material_count;
    if (r == BK_OK) r = mtl.failed ? BK_ENOMEM : bk_wtx_add(tx, (const char *)mtl_path.data, mtl.data, mtl.size);
    bk_buf_free(&mtl);

    /* geometry */
    bk_buf o = {0};
    const char *mtl_all = mtl_path.data ? (const char *)mtl_path.data : "";
    const char *mtl_base = strrchr(mtl_all, '/');
    mtl_base = mtl_base ? mtl_base + 1 : mtl_all;
    char scale[32];
    bk_fmt_num(scale, sizeof scale, x.s, 6);
    bk_buf_printf(&o, "# bspkit %s: Y up, metres (scale %s per unit)\nmtllib %s\n", BK_VERSION_STRING, scale, mtl_base);
    obj_bases b = {1, 1, 1};
    for (uint32_t ni = 0; ni < s->node_count && r == BK_OK && !o.failed; ni++) {
        const bk_node *node = &s->nodes[ni];
        if (node->mesh < 0 || (uint32_t)node->mesh >= s->mesh_count) continue;
        const bk_mesh *mesh = &s->meshes[node->mesh];
        float wm[16];
        /* skinned meshes are already in model space */
        world_matrix(s, node->skin >= 0 ? -1 : (int32_t)ni, wm);
        char nm[200];
        sanitize_name(nm, sizeof nm, node->name, "node");
        bk_buf_printf(&o, "o %s\n", nm);
        st.nodes++;
        for (uint32_t pi = 0; pi < mesh->prim_count; pi++) {
            const bk_primitive *p = &mesh->prims[pi];
            if (p->mode == BK_PRIM_TRIANGLES && p->indices && p->vertex_count) write_prim(&o, s, p, wm, &x, &b, &st);
        }
    }
    if (r == BK_OK) r = o.failed ? BK_ENOMEM : bk_wtx_add(tx, path, o.data, o.size);
    if (r == BK_OK) r = bk_wtx_commit(tx);
    else bk_wtx_abort(tx);
    /* a textures folder made for this output goes again when nothing was written */
    if (r != BK_OK && made_dir) rmdir((const char *)tex_dir.data);
    st.bytes = o.size;
    bk_buf_free(&o);
    bk_buf_free(&mtl_path);
    bk_buf_free(&tex_dir);
    bk_free(used);
    bk_free(stem);
    if (stats) *stats = st;
    return r;
}
