/* Source map -> bk_scene: one mesh per brush model (faces triangulated, displacements tessellated
 * in place of their base faces), a lightmap atlas read with uv1, one material per texdata (named
 * by its VMT path; its $basetexture decoded from the map's pakfile when it is there), a node per
 * entity and per static prop. Compile-tool faces are not drawn. Engine coordinates. */
#include <math.h>
#include <stdio.h>

#include "scene/scene_build.h"
#include "source_scene.h"

#define DEG2RAD 0.017453292519943295

/* a face through which the engine shows the sky (2D skybox, or the 3D skybox behind it):
 * texinfo flag SKY / SKY2D, or the skybox tool material */
bool bk_src_texinfo_sky(const bk_source_map *p, int32_t texinfo)
{
    if (texinfo < 0 || (uint32_t)texinfo >= p->texinfo_count) return false;
    if (p->texinfo[texinfo].flags & (BK_SRC_SURF_SKY | BK_SRC_SURF_SKY2D)) return true;
    int32_t td = p->texinfo[texinfo].texdata;
    if (td < 0 || (uint32_t)td >= p->texdata_count) return false;
    const char *n = p->texdata[td].name;
    return (bk_strncasecmp_prefix(n, "tools/tools") || bk_strncasecmp_prefix(n, "tools\\tools")) &&
           (bk_strcasecmp(n + 11, "skybox") == 0 || bk_strcasecmp(n + 11, "skybox2d") == 0);
}

/* one of the compile tools' materials the engine never draws (tools/tools<NAME>) */
static bool tool_material(const char *n)
{
    static const char *const tools[] = {"nodraw", "clip", "playerclip", "npcclip", "trigger", "skip", "hint",
                                        "invisible", "invisibleladder", "blocklight", "areaportal", "occluder",
                                        "fog", "blockbullets", "blocklos", "origin"};
    if (!bk_strncasecmp_prefix(n, "tools/tools") && !bk_strncasecmp_prefix(n, "tools\\tools")) return false;
    for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++)
        if (bk_strcasecmp(n + 11, tools[i]) == 0) return true;
    return false;
}

bool bk_src_face_drawn(const bk_source_map *p, const bk_source_face *f)
{
    if (f->texinfo < 0 || (uint32_t)f->texinfo >= p->texinfo_count) return false;
    int32_t fl = p->texinfo[f->texinfo].flags;
    /* nodraw/hint/skip/trigger are compile tools; sky faces are drawn with an unlit sky material */
    if (fl & (BK_SRC_SURF_NODRAW | BK_SRC_SURF_HINT | BK_SRC_SURF_SKIP | BK_SRC_SURF_TRIGGER)) return false;
    if (bk_src_texinfo_sky(p, f->texinfo)) return f->dispinfo < 0 && f->numedges >= 3;
    /* compile tools the engine does not draw (some maps carry them without the texinfo flags) */
    int32_t td = p->texinfo[f->texinfo].texdata;
    if (td >= 0 && (uint32_t)td < p->texdata_count && tool_material(p->texdata[td].name)) return false;
    if (f->dispinfo >= 0)
        return (uint32_t)f->dispinfo < p->dispinfo_count && p->dispinfo[f->dispinfo].power >= 2 &&
               p->dispinfo[f->dispinfo].power <= 4 && f->numedges == 4;
    return f->numedges >= 3;
}

static void vcopy(float *d, const float *s) { d[0] = s[0], d[1] = s[1], d[2] = s[2]; }
static float dot3(const float *a, const float *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static void cross3(const float *a, const float *b, float *o)
{
    o[0] = a[1] * b[2] - a[2] * b[1];
    o[1] = a[2] * b[0] - a[0] * b[2];
    o[2] = a[0] * b[1] - a[1] * b[0];
}

/* the material of texinfo's texdata, made once per texdata in cache (texdata_count + 1 slots) */
static bk_result material_in(sb *b, int32_t texinfo, int32_t *cache, int32_t *out)
{
    const bk_source_map *p = b->p;
    int32_t td = p->texinfo[texinfo].texdata;
    uint32_t slot = td >= 0 && (uint32_t)td < p->texdata_count ? (uint32_t)td : p->texdata_count;
    if (cache[slot] >= 0) {
        *out = cache[slot];
        return BK_OK;
    }
    const char *name = td >= 0 && p->texdata[td].name[0] ? p->texdata[td].name : "unnamed";
    int32_t mi;
    BK_TRY(bk_scene_add_material(b->s, name, &mi));
    bk_material *m = &b->s->materials[mi];
    m->never_drawn = tool_material(name) ||
                     (p->texinfo[texinfo].flags & (BK_SRC_SURF_NODRAW | BK_SRC_SURF_HINT | BK_SRC_SURF_SKIP |
                                                   BK_SRC_SURF_TRIGGER));
    if (bk_src_texinfo_sky(p, texinfo)) {
        /* the sky: unlit, no lightmap, no texture of its own (the skybox is drawn there); the
         * colour is the sky tool texture's reflectivity, the sky named in extras */
        m->unlit = 1;
        m->lightmap_image = -1;
        for (int k = 0; k < 3; k++) {
            float r = td >= 0 ? p->texdata[td].reflectivity[k] : 0.5f;
            m->base_color[k] = r > 0 && r <= 1 ? r : (r > 1 ? 1.0f : 0.5f);
        }
        BK_TRY(bk_kv_append(&m->extras, &m->extra_count, "sky", "faces"));
        BK_TRY(bk_kv_append(&m->extras, &m->extra_count, "skyname", b->skyname ? b->skyname : ""));
        cache[slot] = mi;
        *out = mi;
        return BK_OK;
    }
    if (td >= 0)
        for (int k = 0; k < 3; k++) {
            float r = p->texdata[td].reflectivity[k];
            m->base_color[k] = r > 0 && r <= 1 ? r : (r > 1 ? 1.0f : 0.5f);
        }
    else
        m->base_color[0] = m->base_color[1] = m->base_color[2] = 0.5f;
    m->lightmap_image = b->lm_image;
    char vmt[512];
    size_t o = 0;
    o += (size_t)snprintf(vmt, sizeof vmt, "materials/");
    for (const char *c = name; *c && o + 5 < sizeof vmt; c++) {
        char ch = *c == '\\' ? '/' : *c;
        vmt[o++] = (char)(ch >= 'A' && ch <= 'Z' ? ch + 32 : ch);
    }
    snprintf(vmt + o, sizeof vmt - o, ".vmt");
    BK_TRY(bk_kv_append(&m->extras, &m->extra_count, "vmt", vmt));
    if (td >= 0) {
        char sz[48];
        snprintf(sz, sizeof sz, "%dx%d", p->texdata[td].width, p->texdata[td].height);
        BK_TRY(bk_kv_append(&m->extras, &m->extra_count, "texture_size", sz));
    }
    if (p->texinfo[texinfo].flags & BK_SRC_SURF_TRANS)
        BK_TRY(bk_kv_append(&m->extras, &m->extra_count, "translucent", "1"));
    if (!(b->opt->flags & BK_OPT_NO_TEXTURES) && td >= 0) {
        BK_TRY(bk_src_attach_texture(b, mi, name));
        m = &b->s->materials[mi];   /* images may have grown the scene's arrays */
        if (m->base_image < 0 && (bk_vfs_root_count(b->vfs) || b->opt->search_path_count))
            BK_TRY(bk_kv_append(&m->extras, &m->extra_count, "missing", "true"));
    }
    cache[slot] = mi;
    *out = mi;
    return BK_OK;
}

static bk_result material_for(sb *b, int32_t texinfo, int32_t *out) { return material_in(b, texinfo, b->tex_mat, out); }

bk_result bk_src_overlay_material(sb *b, int32_t texinfo, int32_t *out)
{
    int32_t before = (int32_t)b->s->material_count;
    BK_TRY(material_in(b, texinfo, b->ovl_mat, out));
    if (*out < before) return BK_OK;
    /* a decal over the face: blended by its texture's alpha, named as an overlay in extras */
    bk_material *m = &b->s->materials[*out];
    m->alpha_mode = BK_ALPHA_BLEND;
    /* without its texture the decal's shape is unknown: a half-transparent patch, not a solid one */
    if (m->base_image < 0) m->base_color[3] = 0.5f;
    return bk_kv_append(&m->extras, &m->extra_count, "overlay", "1");
}

static void tex_uv(const sb *b, const bk_source_texinfo *ti, const float *pos, float *uv)
{
    float w = 1, h = 1;
    if (ti->texdata >= 0) {
        const bk_source_texdata *t = &b->p->texdata[ti->texdata];
        if (t->width > 0) w = (float)t->width;
        if (t->height > 0) h = (float)t->height;
    }
    uv[0] = (dot3(pos, ti->tex_vecs[0]) + ti->tex_vecs[0][3]) / w;
    uv[1] = (dot3(pos, ti->tex_vecs[1]) + ti->tex_vecs[1][3]) / h;
}

static void lm_uv(const sb *b, uint32_t face, const float *pos, float *uv)
{
    const bk_source_face *f = &b->faces[face];
    const bk_source_texinfo *ti = &b->p->texinfo[b->p->faces[face].texinfo];
    uint32_t x, y;
    bk_atlas_rect(b->atlas, b->face_rect[face] - 1, &x, &y);
    float ls = dot3(pos, ti->lm_vecs[0]) + ti->lm_vecs[0][3] - (float)f->lm_mins[0];
    float lt = dot3(pos, ti->lm_vecs[1]) + ti->lm_vecs[1][3] - (float)f->lm_mins[1];
    /* samples sit on luxel centres: half a texel in */
    uv[0] = ((float)x + ls + 0.5f) / (float)b->atlas_w;
    uv[1] = ((float)y + lt + 0.5f) / (float)b->atlas_h;
}

/* Displacement lightmaps are laid out in the grid's parameter space, not by the planar
 * lightmap vectors: s runs along the grid's columns (corner 0 -> 3), t along its rows (0 -> 1). */
void bk_src_lm_uv_param(const sb *b, uint32_t face, float u, float v, float *uv)
{
    const bk_source_face *f = &b->faces[face];
    uint32_t x, y;
    bk_atlas_rect(b->atlas, b->face_rect[face] - 1, &x, &y);
    uv[0] = ((float)x + u * (float)f->lm_size[0] + 0.5f) / (float)b->atlas_w;
    uv[1] = ((float)y + v * (float)f->lm_size[1] + 0.5f) / (float)b->atlas_h;
}

static bk_result emit_face(sb *b, bk_primitive *pr, uint32_t fi)
{
    const bk_source_map *p = b->p;
    const bk_source_face *f = &p->faces[fi];
    const bk_source_texinfo *ti = &p->texinfo[f->texinfo];
    const bk_source_plane *pl = &p->planes[f->planenum];
    float nrm[3];
    /* the face's own plane: vbsp stores the plane the face looks along (for side 1, the flipped
     * twin planenum ^ 1 of the node's plane), so side is not applied again; the empty space in
     * front of every face of the corpus maps is on its plane's positive side */
    vcopy(nrm, pl->normal);
    uint32_t n = (uint32_t)f->numedges, first;
    /* Newell normal of the polygon decides the winding (glTF front faces are counter-clockwise) */
    float nw[3] = {0, 0, 0};
    for (uint32_t k = 0; k < n; k++) {
        const float *a = bk_src_face_vertex(p, f, (int32_t)k), *c = bk_src_face_vertex(p, f, (int32_t)((k + 1) % n));
        nw[0] += (a[1] - c[1]) * (a[2] + c[2]);
        nw[1] += (a[2] - c[2]) * (a[0] + c[0]);
        nw[2] += (a[0] - c[0]) * (a[1] + c[1]);
    }
    bool flip = dot3(nw, nrm) < 0;
    BK_TRY(bk_prim_add_vertices(pr, n, &first));
    bool lm = b->face_rect && b->face_rect[fi];
    for (uint32_t k = 0; k < n; k++) {
        const float *v = bk_src_face_vertex(p, f, (int32_t)k);
        uint32_t vi = first + k;
        vcopy(&pr->position[vi * 3], v);
        vcopy(&pr->normal[vi * 3], nrm);
        tex_uv(b, ti, v, &pr->uv0[vi * 2]);
        if (pr->uv1) {
            if (lm) lm_uv(b, fi, v, &pr->uv1[vi * 2]);
            else pr->uv1[vi * 2] = pr->uv1[vi * 2 + 1] = 0;
        }
    }
    for (uint32_t k = 1; k + 1 < n; k++) {
        if (flip) BK_TRY(bk_prim_add_triangle(pr, first, first + k + 1, first + k));
        else BK_TRY(bk_prim_add_triangle(pr, first, first + k, first + k + 1));
    }
    return BK_OK;
}

static bk_result emit_disp(sb *b, bk_primitive *pr, uint32_t fi)
{
    const bk_source_map *p = b->p;
    const bk_source_face *f = &p->faces[fi];
    const bk_source_dispinfo *di = &p->dispinfo[f->dispinfo];
    const bk_source_texinfo *ti = &p->texinfo[f->texinfo];
    uint32_t side = (1u << di->power) + 1, nv = side * side, first;
    BK_TRY(bk_prim_add_vertices(pr, nv, &first));
    float q[4][3], base[17 * 17 * 3];   /* power <= 4 (face_drawn) */
    bk_src_disp_grid(p, fi, q, &pr->position[(size_t)first * 3], base);
    bool lm = b->face_rect && b->face_rect[fi];
    float inv = 1.0f / (float)(side - 1);
    for (uint32_t y = 0; y < side; y++) {
        float t = (float)y * inv;
        for (uint32_t x = 0; x < side; x++) {
            float u = (float)x * inv;
            const bk_source_dispvert *dv = &p->dispverts[(uint32_t)di->vert_start + y * side + x];
            uint32_t vi = first + y * side + x;
            tex_uv(b, ti, &base[(y * side + x) * 3], &pr->uv0[vi * 2]);
            if (pr->uv1) {
                if (lm) bk_src_lm_uv_param(b, fi, u, t, &pr->uv1[vi * 2]);
                else pr->uv1[vi * 2] = pr->uv1[vi * 2 + 1] = 0;
            }
            float a = dv->alpha; /* 0-255, rounded; RGB is white already; NaN: opaque */
            pr->color[vi * 4 + 3] = (uint8_t)(isnan(a) ? 255 : a > 0 ? (a < 255 ? a + 0.5f : 255) : 0);
        }
    }
    /* the winding that faces the base face's plane normal */
    float nrm[3], e1[3], e2[3], cn[3];
    vcopy(nrm, p->planes[f->planenum].normal); /* the face's own plane, as in emit_face */
    for (int k = 0; k < 3; k++) e1[k] = q[1][k] - q[0][k], e2[k] = q[3][k] - q[0][k];
    cross3(e1, e2, cn); /* the normal of grid order (y, x) -> triangle (i0, i2, i1) sense */
    bool flip = dot3(cn, nrm) > 0;
    for (uint32_t y = 0; y + 1 < side; y++)
        for (uint32_t x = 0; x + 1 < side; x++) {
            uint32_t t[6];
            bk_src_disp_cell(side, x, y, t);
            for (int k = 0; k < 6; k++) t[k] += first;
            for (int k = 0; k < 6; k += 3) {
                if (flip) BK_TRY(bk_prim_add_triangle(pr, t[k], t[k + 2], t[k + 1]));
                else BK_TRY(bk_prim_add_triangle(pr, t[k], t[k + 1], t[k + 2]));
            }
        }
    /* smooth normals from the displaced triangles */
    for (uint32_t k = pr->index_count - (side - 1) * (side - 1) * 6; k + 2 < pr->index_count + 0; k += 3) {
        uint32_t a = pr->indices[k], bb = pr->indices[k + 1], cc = pr->indices[k + 2];
        float u[3], v[3], n[3];
        for (int j = 0; j < 3; j++) {
            u[j] = pr->position[bb * 3 + j] - pr->position[a * 3 + j];
            v[j] = pr->position[cc * 3 + j] - pr->position[a * 3 + j];
        }
        cross3(u, v, n);
        for (int j = 0; j < 3; j++) {
            pr->normal[a * 3 + j] += n[j];
            pr->normal[bb * 3 + j] += n[j];
            pr->normal[cc * 3 + j] += n[j];
        }
    }
    for (uint32_t k = 0; k < nv; k++) {
        float *n = &pr->normal[(first + k) * 3];
        float len = sqrtf(dot3(n, n));
        if (len > 0) n[0] /= len, n[1] /= len, n[2] /= len;
        else vcopy(n, nrm);
    }
    return BK_OK;
}

/* a face of the scene: drawn, and not a sky face where the skybox is drawn instead; with only, one
 * of those faces (only[face] != 0) */
static bool in_scene(const sb *b, uint32_t fi, const uint8_t *only)
{
    const bk_source_face *f = &b->p->faces[fi];
    if (only && !only[fi]) return false;
    return bk_src_face_drawn(b->p, f) && !(b->sky_box && bk_src_texinfo_sky(b->p, f->texinfo));
}

/* the mesh of model mi's faces (with only: of those faces, named name) */
static bk_result build_mesh(sb *b, uint32_t mi, const uint8_t *only, const char *mesh_name, int32_t *out_mesh)
{
    const bk_source_map *p = b->p;
    const bk_source_model *md = &p->models[mi];
    *out_mesh = -1;
    uint32_t drawn = 0;
    for (int32_t k = 0; k < md->numfaces; k++) drawn += in_scene(b, (uint32_t)(md->firstface + k), only);
    if (!drawn) return BK_OK;
    char name[32];
    snprintf(name, sizeof name, mi ? "model_%u" : "worldspawn", mi);
    if (mesh_name) snprintf(name, sizeof name, "%s", mesh_name);
    int32_t mesh;
    BK_TRY(bk_scene_add_mesh(b->s, name, &mesh));
    uint32_t nslots = b->s->material_count + p->texdata_count + 1;
    int32_t *prim_of = bk_malloc((size_t)nslots * 2 * sizeof *prim_of);
    if (!prim_of) return BK_ENOMEM;
    for (uint32_t k = 0; k < nslots * 2; k++) prim_of[k] = -1;
    bool lmuv = b->lm_image >= 0;
    bk_result r = BK_OK;
    for (int32_t k = 0; k < md->numfaces && r == BK_OK; k++) {
        uint32_t fi = (uint32_t)(md->firstface + k);
        const bk_source_face *f = &p->faces[fi];
        if (!in_scene(b, fi, only)) continue;
        int32_t mat;
        r = material_for(b, f->texinfo, &mat);
        if (r != BK_OK) break;
        bool disp = f->dispinfo >= 0;
        uint32_t slot = (uint32_t)mat * 2 + disp;
        if (slot >= nslots * 2) {
            r = BK_EARG;
            break;
        }
        bk_mesh *m = &b->s->meshes[mesh];
        if (prim_of[slot] < 0) {
            uint32_t attrs = BK_ATTR_NORMAL | BK_ATTR_UV0 | (lmuv ? BK_ATTR_UV1 : 0) | (disp ? BK_ATTR_COLOR : 0);
            bk_primitive *pr;
            r = bk_mesh_add_primitive(m, mat, BK_PRIM_TRIANGLES, attrs, &pr);
            if (r != BK_OK) break;
            prim_of[slot] = (int32_t)(m->prim_count - 1);
        }
        bk_primitive *pr = &m->prims[prim_of[slot]];
        uint64_t nv = disp ? (uint64_t)((1u << p->dispinfo[f->dispinfo].power) + 1) * ((1u << p->dispinfo[f->dispinfo].power) + 1)
                           : (uint64_t)f->numedges;
        if (nv > b->vertex_budget) {
            r = BK_ELIMIT;
            break;
        }
        b->vertex_budget -= nv;
        r = disp ? emit_disp(b, pr, fi) : emit_face(b, pr, fi);
    }
    bk_free(prim_of);
    if (r == BK_OK) *out_mesh = mesh;
    return r;
}

static bk_result build_model(sb *b, uint32_t mi, int32_t *out_mesh) { return build_mesh(b, mi, NULL, NULL, out_mesh); }

static bk_result build_world_part(sb *b, const uint8_t *only, const char *name, int32_t *mesh)
{
    return build_mesh(b, 0, only, name, mesh);
}

/* the overlay lumps (45; water overlays 50), decoded for this when compressed and given back after */
static bk_result add_overlays(const bk_file *f, sb *b, int32_t world)
{
    static const int lumps[2] = {BK_SRC_LUMP_OVERLAYS, BK_SRC_LUMP_WATEROVERLAYS};
    for (int k = 0; k < 2; k++) {
        const bk_source_lump *l = &b->p->lumps[lumps[k]];
        const char *name = k ? "wateroverlays" : "overlays";
        bk_result r = bk_vbsp_lump_hold(f, lumps[k]);
        if (r == BK_ENOMEM) {
            bk_vbsp_lump_release(f, lumps[k]);
            return r;
        }
        if (r != BK_OK)
            bk_scene_diag(b->s, b->opt, BK_SEV_WARNING, r, NULL, name, BK_NO_INDEX, (int64_t)l->offset,
                          "the lump cannot be decoded (%s): its overlays are not drawn", bk_strerror(r));
        else if (l->size)
            r = bk_src_add_overlays(b, k == 1, world);
        bk_vbsp_lump_release(f, lumps[k]);
        if (r == BK_ENOMEM || r == BK_ELIMIT) return r;
    }
    return BK_OK;
}

/* the world lights, from the lump matching the lighting drawn: HDR with HDR lighting, else LDR
 * (each the other when it is empty) */
static bk_result add_lights(const bk_file *f, sb *b, int32_t world)
{
    const bk_source_map *p = b->p;
    int idx = b->hdr ? BK_SRC_LUMP_WORLDLIGHTS_HDR : BK_SRC_LUMP_WORLDLIGHTS;
    int other = b->hdr ? BK_SRC_LUMP_WORLDLIGHTS : BK_SRC_LUMP_WORLDLIGHTS_HDR;
    if (!p->lumps[idx].size) idx = other;
    const bk_source_lump *l = &p->lumps[idx];
    if (!l->size) return BK_OK;
    const char *name = idx == BK_SRC_LUMP_WORLDLIGHTS ? "worldlights" : "worldlights_hdr";
    bk_result r = bk_vbsp_lump_hold(f, idx);
    if (r == BK_ENOMEM) {
        bk_vbsp_lump_release(f, idx);
        return r;
    }
    if (r != BK_OK)
        bk_scene_diag(b->s, b->opt, BK_SEV_WARNING, r, NULL, name, BK_NO_INDEX, (int64_t)l->offset,
                      "the world lights lump cannot be decoded (%s): no world lights", bk_strerror(r));
    else if (l->size)
        r = bk_src_add_lights(b, l, ((const vbsp_impl *)f->impl)->column[idx], name, world);
    bk_vbsp_lump_release(f, idx);
    return r == BK_ENOMEM || r == BK_ELIMIT || r == BK_OK ? r : BK_OK;
}

bk_result bk_vbsp_build_scene(const bk_file *f, const bk_options *opt, bk_scene *s)
{
    const vbsp_impl *m = f->impl;
    const bk_source_map *p = &m->pub;
    sb b;
    memset(&b, 0, sizeof b);
    b.hdr_exposure = 1.0;
    b.p = p, b.opt = opt, b.s = s, b.faces = p->faces, b.lm_image = -1, b.file_size = f->size;
    /* about 64 bytes of attributes per vertex: keep the whole scene within the allocation limit */
    bk_limits lim = bk_limits_of(opt);
    b.vertex_budget = lim.max_scene_vertices;
    const bk_source_lump *ldr = &p->lumps[BK_SRC_LUMP_LIGHTING], *hdr = &p->lumps[BK_SRC_LUMP_LIGHTING_HDR];
    /* compressed lighting is decoded now, and HDR only when there is no LDR (a lump that fails to
     * decode becomes empty: the map converts unlit) */
    /* the loader's decoded lumps are in the map's arrays already: a caller that frees the file after
     * this scene lets them go now, before the lighting and the atlas are made */
    if (opt->flags & BK_OPT_RELEASE_INPUT) bk_vbsp_forget_decoded(f);
    /* held (decoded if pending) while the atlas is made, from any number of builders at once */
    bool held_ldr = false, held_hdr = false;
    if (!(opt->flags & BK_OPT_NO_LIGHTMAPS)) {
        bk_result lr = bk_vbsp_lump_hold(f, BK_SRC_LUMP_LIGHTING);
        held_ldr = true;
        if (lr == BK_OK && (!ldr->size || (opt->flags & BK_OPT_HDR))) {
            lr = bk_vbsp_lump_hold(f, BK_SRC_LUMP_LIGHTING_HDR);
            held_hdr = true;
        }
        if (lr == BK_ENOMEM) {
            if (held_ldr) bk_vbsp_lump_release(f, BK_SRC_LUMP_LIGHTING);
            if (held_hdr) bk_vbsp_lump_release(f, BK_SRC_LUMP_LIGHTING_HDR);
            return BK_ENOMEM;
        }
        if (lr != BK_OK)
            bk_scene_diag(s, opt, BK_SEV_WARNING, lr, NULL, ldr->size ? "lighting" : "lighting_hdr", BK_NO_INDEX,
                          ldr->size ? ldr->offset : hdr->offset, "the lighting lump cannot be decoded (%s): converted unlit",
                          bk_strerror(lr));
    }
    /* the HDR lighting where there is no LDR lighting, or where --hdr asks for it */
    /* a lump not held here counts when its bytes stay (another builder's lent bytes do not) */
    bool ldr_ok = ldr->size && (held_ldr ? ldr->data != NULL : bk_vbsp_lump_kept(f, BK_SRC_LUMP_LIGHTING));
    bool hdr_ok = hdr->size && (held_hdr ? hdr->data != NULL : bk_vbsp_lump_kept(f, BK_SRC_LUMP_LIGHTING_HDR));
    if (hdr_ok && (!ldr_ok || (opt->flags & BK_OPT_HDR))) {
        b.light = hdr;
        b.hdr = true;
        if (p->hdr_face_count == p->face_count && p->hdr_face_count) b.faces = p->hdr_faces;
    } else if (ldr_ok) {
        b.light = ldr;
    }
    b.ents = &f->entities;
    bk_result r = BK_ENOMEM;
    b.tex_mat = bk_malloc(((size_t)p->texdata_count + 1) * sizeof *b.tex_mat);
    int32_t *model_mesh = bk_malloc(((size_t)p->model_count + 1) * sizeof *model_mesh);
    b.ovl_mat = bk_malloc(((size_t)p->texdata_count + 1) * sizeof *b.ovl_mat);
    if (!b.tex_mat || !model_mesh || !b.ovl_mat) goto done;
    for (uint32_t i = 0; i <= p->texdata_count; i++) b.tex_mat[i] = b.ovl_mat[i] = -1;
    b.texture_budget = lim.max_decoded_bytes / 2; /* the other half: the map's own lumps */
    /* materials and prop models are found in the pakfile, then the --game-dir VPKs and folders */
    if (!(opt->flags & BK_OPT_NO_TEXTURES) || !(opt->flags & BK_OPT_NO_PROPS)) {
        if (bk_archive_open_pakfile(f, opt, &b.pak) != BK_OK) b.pak = NULL;
        bk_src_open_mounts(&b);
    }
    /* the sky the map asks for: named by the sky faces' material and in the scene's extras */
    const bk_entities *ents = bk_file_entities(f);
    const char *sky = ents->count ? bk_entity_get(&ents->items[0], "skyname") : NULL;
    b.skyname = sky;
    r = bk_src_build_lightmaps(&b);
    /* the lighting is in the atlas now: a lump decoded for it alone is given back */
    if (held_ldr) bk_vbsp_lump_release(f, BK_SRC_LUMP_LIGHTING);
    if (held_hdr) bk_vbsp_lump_release(f, BK_SRC_LUMP_LIGHTING_HDR);
    held_ldr = held_hdr = false;
    b.light = NULL;
    if (r == BK_OK) r = bk_src_sky_prepare(&b);
    if (r != BK_OK) goto done;
    for (uint32_t i = 0; i < p->model_count && r == BK_OK; i++) r = build_model(&b, i, &model_mesh[i]);
    int32_t world = (int32_t)s->node_count;
    b.model_mesh = model_mesh;
    b.ent_node0 = s->node_count;
    if (r == BK_OK) {
        bk_entity_layout lay = {model_mesh, p->model_count, BK_ENT_ROTATE_BRUSH, NULL, NULL};
        r = bk_scene_add_entity_nodes(s, &f->entities, opt, &lay);
    }
    b.ent_nodes = s->node_count - b.ent_node0;
    if (r == BK_OK) r = add_overlays(f, &b, world < (int32_t)s->node_count ? world : -1);
    if (r == BK_OK) r = add_lights(f, &b, world < (int32_t)s->node_count ? world : -1);
    if (r == BK_OK && sky && *sky) r = bk_kv_append(&s->extras, &s->extra_count, "skyname", sky);
    if (r == BK_OK && !(opt->flags & BK_OPT_NO_PROPS)) r = bk_src_add_prop_nodes(&b);
    if (r == BK_OK) r = bk_src_sky_add(&b, build_world_part);
done:
    if (held_ldr) bk_vbsp_lump_release(f, BK_SRC_LUMP_LIGHTING);
    if (held_hdr) bk_vbsp_lump_release(f, BK_SRC_LUMP_LIGHTING_HDR);
    bk_free(b.sky3d_face);
    bk_free(b.tex_mat);
    bk_free(b.ovl_mat);
    bk_free(model_mesh);
    bk_free(b.face_rect);
    bk_atlas_free(b.atlas);
    bk_archive_close(b.pak);
    bk_src_close_mounts(&b);
    return r;
}

/* Every VTF of the pakfile as an image named by its path without ".vtf" (cube maps: the faces one
 * under the other). One that does not decode keeps its name with no pixels (and a warning). */
bk_result bk_vbsp_extract_images(const bk_file *f, const bk_options *opt, bk_scene *out)
{
    bk_archive *pak = NULL;
    bk_result r = bk_archive_open_pakfile(f, opt, &pak);
    if (r == BK_ENOTFOUND) return BK_OK;
    if (r != BK_OK) return r;
    uint64_t budget = bk_limits_of(opt).max_decoded_bytes / 2;
    uint32_t n = bk_archive_count(pak);
    for (uint32_t i = 0; i < n && r == BK_OK; i++) {
        const bk_archive_entry *e = bk_archive_entry_at(pak, i);
        size_t nl = strlen(e->name);
        if (e->is_dir || nl < 5 || bk_strcasecmp(e->name + nl - 4, ".vtf") != 0) continue;
        char name[1024];
        snprintf(name, sizeof name, "%.*s", (int)(nl - 4), e->name);
        uint8_t *d = NULL, *rgba = NULL;
        size_t dn = 0;
        bk_vtf v;
        bk_options o = *opt;
        o.diag = NULL;
        bool ok = bk_archive_read(pak, i, UINT64_MAX, &d, &dn) == BK_OK && bk_vtf_parse(d, dn, &o, &v) == BK_OK;
        uint64_t px = ok ? (uint64_t)v.width * v.height * v.faces : 0;
        if (ok && px * 4 <= budget && (rgba = bk_malloc((size_t)px * 4)) != NULL) {
            for (uint32_t k = 0; k < v.faces && ok; k++)
                ok = bk_vtf_decode(d, dn, &v, k, rgba + (size_t)k * v.width * v.height * 4) == BK_OK;
        } else {
            ok = false;
        }
        bk_free(d);
        int32_t idx;
        if (ok) {
            budget -= px * 4;
            r = bk_scene_add_image(out, name, v.width, v.height * v.faces, rgba, &idx);
            if (r != BK_OK) bk_free(rgba);
        } else {
            bk_free(rgba);
            bk_scene_diag(out, opt, BK_SEV_WARNING, BK_EFORMAT, e->name, "pakfile", i, BK_NO_OFFSET,
                          "texture cannot be decoded (or is over the decoding budget): kept by name only");
            r = bk_scene_add_image(out, name, 0, 0, NULL, &idx);
        }
    }
    bk_archive_close(pak);
    return r;
}

