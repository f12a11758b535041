/* Source skies: the 2D skybox and the 3D skybox.
 *
 * 2D: worldspawn's skyname names six materials skybox/NAMErt, bk, lf, ft, up, dn (their VMTs'
 * $basetexture VTFs, found where the engine finds materials: the pakfile, then --game-dir). The
 * engine draws them on a box around the eye, laid out as Quake 2 and 3 lay theirs out
 * (src/scene/skybox.c; Valve's vtf.h CubeMapFaceIndex_t and vbsp's cubemap.cpp use the same names
 * for the same directions). As for Quake 3: a large cube around the map (twice its diagonal, and
 * around the 3D skybox) under a node "skybox" at the world's centre, extras.followCamera. When any
 * face is found the box is drawn and the sky faces are not (what they show is the box); a face not
 * found takes the flat sky colour of the sky faces (extras.missing) and one warning names them.
 *
 * 3D: the area holding the sky_camera entity is drawn by the engine from a camera at sky_camera's
 * origin + eye / scale, behind the world: a point p of it is seen where scale x (p - origin)
 * is. Its faces (the world faces whose front lies in a leaf of that area; displacements by their
 * base face) are a mesh of their own, drawn again under a node "skybox_3d" scaled by `scale` about
 * sky_camera's origin onto the world origin (they stay in worldspawn too, where they are). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "scene/scene_build.h"
#include "source_scene.h"

/* the leaf holding point o (walking the world's tree), or -1 */
static int32_t leaf_at(const bk_source_map *p, const float o[3])
{
    if (!p->node_count || !p->model_count) return -1;
    int32_t n = p->models[0].headnode;
    for (uint32_t steps = 0; steps <= p->node_count; steps++) {
        if (n < 0) {
            int32_t l = -1 - n;
            return (uint32_t)l < p->leaf_count ? l : -1;
        }
        if ((uint32_t)n >= p->node_count) return -1;
        const bk_source_node *nd = &p->nodes[n];
        if (nd->planenum < 0 || (uint32_t)nd->planenum >= p->plane_count) return -1;
        const bk_source_plane *pl = &p->planes[nd->planenum];
        float d = pl->normal[0] * o[0] + pl->normal[1] * o[1] + pl->normal[2] * o[2] - pl->dist;
        n = nd->children[d >= 0 ? 0 : 1];
    }
    return -1;
}

/* the sky tool texture's colour: the flat sky where a face is missing */
static void sky_colour(const bk_source_map *p, float c[3])
{
    c[0] = c[1] = c[2] = 0.5f;
    for (uint32_t i = 0; i < p->texinfo_count; i++) {
        int32_t td = p->texinfo[i].texdata;
        if (!bk_src_texinfo_sky(p, (int32_t)i) || td < 0 || (uint32_t)td >= p->texdata_count) continue;
        for (int k = 0; k < 3; k++) {
            float r = p->texdata[td].reflectivity[k];
            c[k] = r > 0 && r <= 1 ? r : (r > 1 ? 1.0f : 0.5f);
        }
        return;
    }
}

static const bk_entity *find_class(const bk_entities *es, const char *cls)
{
    for (uint32_t i = 0; es && i < es->count; i++) {
        const char *c = bk_entity_get(&es->items[i], "classname");
        if (c && bk_strcasecmp(c, cls) == 0) return &es->items[i];
    }
    return NULL;
}

/* the 3D skybox: sky_camera's area and the world faces in it (b->sky3d_face) */
static bk_result sky3d_prepare(sb *b)
{
    const bk_source_map *p = b->p;
    const bk_entity *cam = find_class(b->ents, "sky_camera");
    float o[3];
    if (!cam || !bk_parse_vec3(bk_entity_get(cam, "origin"), o) || !p->model_count) return BK_OK;
    const char *sc = bk_entity_get(cam, "scale");
    float scale = sc ? strtof(sc, NULL) : 16.0f;   /* the entity's default */
    if (!isfinite(scale) || scale <= 0 || scale > 65536) scale = 16.0f;
    int32_t l = leaf_at(p, o);
    if (l < 0 || p->leafs[l].area == 0) {
        bk_scene_diag(b->s, b->opt, BK_SEV_WARNING, BK_EFORMAT, NULL, "entities", BK_NO_INDEX, cam->offset,
                      "sky_camera at %g %g %g is not inside an area: no 3D skybox", o[0], o[1], o[2]);
        return BK_OK;
    }
    uint16_t area = p->leafs[l].area;
    const bk_source_model *w = &p->models[0];
    uint8_t *in = bk_calloc(p->face_count ? p->face_count : 1, 1);
    if (!in) return BK_ENOMEM;
    uint32_t n = 0;
    for (int32_t k = 0; k < w->numfaces; k++) {
        uint32_t fi = (uint32_t)(w->firstface + k);
        const bk_source_face *f = &p->faces[fi];
        if (!bk_src_face_drawn(p, f)) continue;
        float c[3] = {0, 0, 0};
        for (int32_t e = 0; e < f->numedges; e++) {
            const float *v = bk_src_face_vertex(p, f, e);
            for (int j = 0; j < 3; j++) c[j] += v[j];
        }
        const float *nrm = p->planes[f->planenum].normal;
        for (int j = 0; j < 3; j++) c[j] = c[j] / (float)f->numedges + nrm[j];   /* a unit in front */
        int32_t fl = leaf_at(p, c);
        if (fl >= 0 && p->leafs[fl].area == area) in[fi] = 1, n++;
    }
    if (!n) {
        bk_free(in);
        return BK_OK;
    }
    b->sky3d_face = in;
    b->sky_camera = cam;
    memcpy(b->sky3d_origin, o, sizeof o);
    b->sky3d_scale = scale;
    b->sky3d_area = area;
    return BK_OK;
}

/* A sky face of a map lit in HDR, as the engine's Sky shader draws it with HDR on (Valve's
 * sky_hdr_dx9.cpp): the VMT's $hdrcompressedtexture (RGBS: rgb x alpha x 8) first, else its
 * $hdrbasetexture (RGBA16161616F: linear floats), at the exposure the map's HDR lightmaps are shown
 * at, through the lightmaps' 1/2.2 curve. *idx stays -1 when the VMT names neither (the LDR
 * $basetexture is then drawn) or the texture is not found or not decoded. */
static bk_result sky_hdr_face(sb *b, const char *name, int32_t *idx, char *xform, size_t cap)
{
    size_t n;
    char *vmt = bk_src_read_vmt(b, name, &n);
    if (!vmt) return BK_OK;
    char tex[512] = "", path[600];
    bool rgbs = bk_vmt_find(vmt, n, "$hdrcompressedtexture", tex, sizeof tex) && tex[0];
    if (!rgbs && !bk_vmt_find(vmt, n, "$hdrbasetexture", tex, sizeof tex)) tex[0] = 0;
    bk_vmt_find(vmt, n, "$basetexturetransform", xform, cap);
    bk_free(vmt);
    uint8_t *d;
    size_t dn;
    bk_vtf v;
    bk_result r;
    if (!tex[0] || !bk_src_open_vtf(b, tex, path, sizeof path, &d, &dn, &v, &r)) return BK_OK;
    size_t px = (size_t)v.width * v.height;
    float *lin = r == BK_OK && px * 4 <= b->texture_budget ? bk_malloc(px * 3 * sizeof *lin) : NULL;
    uint8_t *rgba = lin ? bk_malloc(px * 4) : NULL;
    if (rgba) r = bk_vtf_decode_linear(d, dn, &v, rgbs, lin);
    bk_free(d);
    if (!rgba || r != BK_OK) {
        bk_free(lin);
        bk_free(rgba);
        bk_scene_diag(b->s, b->opt, BK_SEV_WARNING, r != BK_OK ? r : BK_ELIMIT, path, NULL, BK_NO_INDEX, BK_NO_OFFSET,
                      "HDR sky texture not decoded: %s; the LDR one is drawn", bk_strerror(r != BK_OK ? r : BK_ELIMIT));
        return r == BK_ENOMEM ? r : BK_OK;
    }
    for (size_t i = 0; i < px; i++) {
        for (int k = 0; k < 3; k++) {
            double x = (double)lin[i * 3 + k] * b->hdr_exposure;
            double g = x > 0 ? pow(x, 1.0 / 2.2) : 0;
            rgba[i * 4 + k] = (uint8_t)(g >= 1.0 ? 255 : g * 255.0 + 0.5);
        }
        rgba[i * 4 + 3] = 255;
    }
    bk_free(lin);
    b->texture_budget -= px * 4;
    return bk_scene_add_image(b->s, tex, v.width, v.height, rgba, idx);
}

bk_result bk_src_sky_prepare(sb *b)
{
    for (int f = 0; f < 6; f++) b->sky_image[f] = -1;
    b->sky_box = false;
    if (!(b->opt->flags & BK_OPT_NO_SKY3D)) BK_TRY(sky3d_prepare(b));
    if (!b->skyname || !*b->skyname || (b->opt->flags & BK_OPT_NO_TEXTURES)) return BK_OK;
    for (int f = 0; f < 6; f++) {
        char name[600];
        snprintf(name, sizeof name, "skybox/%.500s%s", b->skyname, bk_sky_face_suffix[f]);
        if (b->hdr) BK_TRY(sky_hdr_face(b, name, &b->sky_image[f], b->sky_xform[f], sizeof b->sky_xform[f]));
        if (b->sky_image[f] < 0)
            BK_TRY(bk_src_material_image(b, name, &b->sky_image[f], b->sky_xform[f], sizeof b->sky_xform[f]));
        if (b->sky_image[f] >= 0) {
            b->s->images[b->sky_image[f]].clamp = 1;
            b->sky_box = true;
        }
    }
    /* looked for in the game's files and found nowhere: said once (with faces found, add_box says
     * which are missing) */
    if (!b->sky_box && bk_vfs_root_count(b->vfs) > (b->pak ? 1u : 0u))   /* places beside the pakfile */
        bk_scene_diag(b->s, b->opt, BK_SEV_WARNING, BK_ENOTFOUND, NULL, "entities", 0, BK_NO_OFFSET,
                      "skybox %s: no face found (materials/skybox/%s<face>.vmt): the sky faces keep the flat sky colour",
                      b->skyname, b->skyname);
    return BK_OK;
}

/* the half size and centre of the box: around the world and the scaled 3D skybox */
static void box_extent(const sb *b, float centre[3], float *half)
{
    const bk_source_model *w = &b->p->models[0];
    float mn[3], mx[3], diag = 0;
    for (int k = 0; k < 3; k++) mn[k] = w->mins[k], mx[k] = w->maxs[k];
    for (int k = 0; k < 3; k++) centre[k] = (mn[k] + mx[k]) * 0.5f;
    for (int k = 0; k < 3; k++) diag += (mx[k] - mn[k]) * (mx[k] - mn[k]);
    *half = sqrtf(diag);
    if (b->sky3d_face) {
        /* the farthest a scaled 3D-skybox vertex lies from the centre, and a margin */
        const bk_source_map *p = b->p;
        float far2 = 0;
        for (uint32_t fi = 0; fi < p->face_count; fi++) {
            if (!b->sky3d_face[fi]) continue;
            for (int32_t e = 0; e < p->faces[fi].numedges; e++) {
                const float *v = bk_src_face_vertex(p, &p->faces[fi], e);
                float d2 = 0;
                for (int k = 0; k < 3; k++) {
                    float d = (v[k] - b->sky3d_origin[k]) * b->sky3d_scale - centre[k];
                    d2 += d * d;
                }
                if (d2 > far2) far2 = d2;
            }
        }
        if (sqrtf(far2) * 1.5f > *half) *half = sqrtf(far2) * 1.5f;
    }
    if (!(*half > 64) || !isfinite(*half) || !bk_finite3(centre)) {
        *half = 65536;
        centre[0] = centre[1] = centre[2] = 0;
    }
}

/* A VMT's $basetexturetransform ("center U V scale U V rotate DEG translate U V", any part left
 * out at its default: centre 0.5 0.5, scale 1 1, rotate 0, translate 0 0) applied to n texture
 * coordinates as the material system builds its matrix: about the centre, scaled, turned, then
 * moved. Skies use it to stretch a half-height side image over the upper half of its face
 * ("center 0 0 scale 1 2 ..."; the rest takes the clamped edge). false when it does not parse. */
static bool apply_transform(const char *x, float *uv, uint32_t n)
{
    float c[2] = {0.5f, 0.5f}, sc[2] = {1, 1}, t[2] = {0, 0}, rot = 0;
    const char *p = x;
    char word[16];
    int used;
    while (sscanf(p, " %15s%n", word, &used) == 1) {
        p += used;
        float *dst = NULL;
        int want = 2;
        if (strcmp(word, "center") == 0) dst = c;
        else if (strcmp(word, "scale") == 0) dst = sc;
        else if (strcmp(word, "translate") == 0) dst = t;
        else if (strcmp(word, "rotate") == 0) dst = &rot, want = 1;
        else return false;
        for (int k = 0; k < want; k++) {
            if (sscanf(p, " %f%n", &dst[k], &used) != 1 || !isfinite(dst[k])) return false;
            p += used;
        }
    }
    float a = rot * 0.017453292519943295f, cs = cosf(a), sn = sinf(a);
    for (uint32_t i = 0; i < n; i++) {
        float u = (uv[i * 2] - c[0]) * sc[0], v = (uv[i * 2 + 1] - c[1]) * sc[1];
        uv[i * 2] = cs * u - sn * v + c[0] + t[0];
        uv[i * 2 + 1] = sn * u + cs * v + c[1] + t[1];
    }
    return true;
}

static bk_result set_extra(bk_scene *s, int32_t mi, const char *k, const char *v)
{
    return bk_kv_append(&s->materials[mi].extras, &s->materials[mi].extra_count, k, v);
}

static bk_result add_box(sb *b)
{
    bk_scene *s = b->s;
    float centre[3], half, flat[3];
    box_extent(b, centre, &half);
    sky_colour(b->p, flat);
    int32_t mesh;
    BK_TRY(bk_scene_add_mesh(s, "skybox", &mesh));
    char missing[64] = "";
    int found = 0;
    for (int f = 0; f < 6; f++) {
        char name[600];
        snprintf(name, sizeof name, "skybox/%.500s%s", b->skyname, bk_sky_face_suffix[f]);
        int32_t mi;
        BK_TRY(bk_scene_add_material(s, name, &mi));
        bk_material *m = &s->materials[mi];
        m->unlit = 1;
        m->lightmap_image = -1;
        m->base_image = b->sky_image[f];
        for (int k = 0; k < 3; k++) m->base_color[k] = b->sky_image[f] >= 0 ? 1.0f : flat[k];
        BK_TRY(set_extra(s, mi, "sky", "box"));
        BK_TRY(set_extra(s, mi, "skyLayer", "0"));
        BK_TRY(set_extra(s, mi, "skyFace", bk_sky_face_suffix[f]));
        if (b->sky_image[f] < 0) {
            BK_TRY(set_extra(s, mi, "missing", "true"));
            snprintf(missing + strlen(missing), sizeof missing - strlen(missing), " %s", bk_sky_face_suffix[f]);
        } else {
            found++;
        }
        bk_primitive *pr;
        BK_TRY(bk_mesh_add_primitive(&s->meshes[mesh], mi, BK_PRIM_TRIANGLES, BK_ATTR_NORMAL | BK_ATTR_UV0, &pr));
        BK_TRY(bk_sky_add_face(pr, f, half));
        if (b->sky_image[f] >= 0 && b->sky_xform[f][0]) {
            BK_TRY(set_extra(s, mi, "basetexturetransform", b->sky_xform[f]));
            if (!apply_transform(b->sky_xform[f], pr->uv0, pr->vertex_count))
                BK_TRY(set_extra(s, mi, "basetexturetransformIgnored", "true"));
        }
    }
    if (found < 6)
        bk_scene_diag(s, b->opt, BK_SEV_WARNING, BK_ENOTFOUND, NULL, "entities", 0, BK_NO_OFFSET,
                      "skybox %s: faces%s not found (materials/skybox/%s<face>.vmt): drawn in the flat sky colour",
                      b->skyname, missing, b->skyname);
    int32_t node;
    BK_TRY(bk_scene_add_node(s, "skybox", -1, mesh, &node));
    bk_node *n = &s->nodes[node];
    memcpy(n->translation, centre, sizeof centre);
    char val[32];
    BK_TRY(bk_kv_append(&n->extras, &n->extra_count, "skyname", b->skyname));
    BK_TRY(bk_kv_append(&n->extras, &n->extra_count, "followCamera", "true"));
    snprintf(val, sizeof val, "%d", found);
    return bk_kv_append(&n->extras, &n->extra_count, "faces", val);
}

/* static prop i is in the 3D skybox: one of the leaves the map lists for it (or, with none, the
 * leaf at its origin) is in sky_camera's area */
static bool prop_in_sky3d(const sb *b, uint32_t i)
{
    const bk_source_map *p = b->p;
    const bk_source_static_prop *sp = &p->static_props[i];
    if (sp->leaf_count == 0) {
        int32_t l = leaf_at(p, sp->origin);
        return l >= 0 && p->leafs[l].area == b->sky3d_area;
    }
    for (uint32_t k = 0; k < sp->leaf_count; k++) {
        uint64_t at = (uint64_t)sp->first_leaf + k;
        if (at >= p->static_prop_leaf_count) break;
        uint16_t l = p->static_prop_leaves[at];
        if (l < p->leaf_count && p->leafs[l].area == b->sky3d_area) return true;
    }
    return false;
}

/* brush model k (> 0) drawn by the entity node n stands in the 3D skybox: its bounds' centre,
 * moved to the entity's origin, is in a leaf of sky_camera's area */
static bool model_in_sky3d(const sb *b, const bk_node *n)
{
    const bk_source_map *p = b->p;
    for (uint32_t k = 1; n->mesh >= 0 && k < p->model_count; k++) {
        if (b->model_mesh[k] != n->mesh) continue;
        float c[3];
        for (int j = 0; j < 3; j++) c[j] = (p->models[k].mins[j] + p->models[k].maxs[j]) * 0.5f + n->translation[j];
        int32_t l = leaf_at(p, c);
        return l >= 0 && p->leafs[l].area == b->sky3d_area;
    }
    return false;
}

/* node src again under the 3D skybox's node parent (the engine draws what stands in that area
 * with the sky): the same mesh, placement and extras, and extras.skybox3d */
static bk_result sky3d_copy(sb *b, int32_t parent, uint32_t src_node)
{
    int32_t node;
    const bk_node *src = &b->s->nodes[src_node];
    BK_TRY(bk_scene_add_node(b->s, src->name, parent, src->mesh, &node));
    src = &b->s->nodes[src_node];   /* the nodes may have moved */
    bk_node *d = &b->s->nodes[node];
    memcpy(d->translation, src->translation, sizeof d->translation);
    memcpy(d->rotation, src->rotation, sizeof d->rotation);
    memcpy(d->scale, src->scale, sizeof d->scale);
    for (uint32_t k = 0; k < src->extra_count; k++)
        BK_TRY(bk_kv_append(&d->extras, &d->extra_count, src->extras[k].key, src->extras[k].value));
    return bk_kv_append(&d->extras, &d->extra_count, "skybox3d", "true");
}

/* the static props and brush entities of the 3D skybox under its node, counted in its extras */
static bk_result sky3d_contents(sb *b, int32_t parent)
{
    uint32_t props = 0, brushes = 0, ents = b->ent_nodes;
    for (uint32_t i = 0; i < b->prop_nodes; i++) {
        if (!prop_in_sky3d(b, i)) continue;
        BK_TRY(sky3d_copy(b, parent, b->prop_node0 + i));
        props++;
    }
    for (uint32_t i = 0; i < ents; i++) {
        if (!model_in_sky3d(b, &b->s->nodes[b->ent_node0 + i])) continue;
        BK_TRY(sky3d_copy(b, parent, b->ent_node0 + i));
        brushes++;
    }
    char val[32];
    bk_node *sky = &b->s->nodes[parent];
    snprintf(val, sizeof val, "%u", props);
    if (props) BK_TRY(bk_kv_append(&sky->extras, &sky->extra_count, "props", val));
    sky = &b->s->nodes[parent];
    snprintf(val, sizeof val, "%u", brushes);
    if (brushes) BK_TRY(bk_kv_append(&sky->extras, &sky->extra_count, "brushEntities", val));
    return BK_OK;
}

/* sky_camera's fog, as it stands in its keys, on the skybox node (not drawn: a viewer may) */
static bk_result sky3d_fog(sb *b, bk_node *n)
{
    const bk_entity *cam = b->sky_camera;
    const char *on = cam ? bk_entity_get(cam, "fogenable") : NULL;
    if (!on || atoi(on) == 0) return BK_OK;
    static const char *const keys[][2] = {{"fogcolor", "fogColor"}, {"fogstart", "fogStart"}, {"fogend", "fogEnd"},
                                          {"fogmaxdensity", "fogMaxDensity"}};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        const char *v = bk_entity_get(cam, keys[k][0]);
        if (v) BK_TRY(bk_kv_append(&n->extras, &n->extra_count, keys[k][1], v));
    }
    return BK_OK;
}

static bk_result add_sky3d(sb *b, bk_result (*build)(sb *b, const uint8_t *only, const char *name, int32_t *mesh))
{
    int32_t mesh;
    BK_TRY(build(b, b->sky3d_face, "skybox_3d", &mesh));
    if (mesh < 0) return BK_OK;
    int32_t node;
    BK_TRY(bk_scene_add_node(b->s, "skybox_3d", -1, mesh, &node));
    bk_node *n = &b->s->nodes[node];
    for (int k = 0; k < 3; k++) {
        n->scale[k] = b->sky3d_scale;
        n->translation[k] = -b->sky3d_scale * b->sky3d_origin[k];
    }
    char val[96];
    bk_fmt_nums(val, sizeof val, b->sky3d_origin, 3, 6);
    BK_TRY(bk_kv_append(&n->extras, &n->extra_count, "skyCameraOrigin", val));
    bk_fmt_num(val, sizeof val, b->sky3d_scale, 6);
    BK_TRY(bk_kv_append(&n->extras, &n->extra_count, "skyCameraScale", val));
    snprintf(val, sizeof val, "%d", b->sky3d_area);
    BK_TRY(bk_kv_append(&n->extras, &n->extra_count, "area", val));
    BK_TRY(bk_kv_append(&n->extras, &n->extra_count, "skybox3d", "true"));
    BK_TRY(sky3d_fog(b, n));
    return sky3d_contents(b, node);
}

bk_result bk_src_sky_add(sb *b, bk_result (*build)(sb *b, const uint8_t *only, const char *name, int32_t *mesh))
{
    if (b->sky3d_face) BK_TRY(add_sky3d(b, build));
    if (b->sky_box) BK_TRY(add_box(b));
    return BK_OK;
}
