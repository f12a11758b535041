/* Source model -> bk_scene: the default body (the first model of each body part) of LOD 0, one
 * primitive per mesh, wound counter-clockwise (the VTX stores Direct3D's clockwise fronts), its
 * materials found under each $cdmaterials folder through the same lookup as map materials (the
 * pakfile, then each --game-dir's VPKs and folders). A model on its own also gets its skeleton:
 * one joint node per bone (bind pose), a skin whose inverse bind matrices are the bones' poseToBone,
 * JOINTS_0 / WEIGHTS_0 from the VVD's up to three weights. Engine coordinates (Z up). */
#include <math.h>
#include <stdio.h>

#include "scene/scene_build.h"
#include "mdl_internal.h"

void bk_mdl_matcache_free(bk_mdl_matcache *c)
{
    if (!c) return;
    for (uint32_t i = 0; i < c->count; i++) bk_free(c->names[i]);
    bk_free(c->names);
    bk_free(c->index);
    memset(c, 0, sizeof *c);
}

/* '\\' -> '/', no leading '/', a trailing '/' on a non-empty folder */
static void norm_path(char *out, size_t cap, const char *in, bool folder)
{
    size_t o = 0;
    while (*in == '/' || *in == '\\') in++;
    for (; *in && o + 2 < cap; in++) out[o++] = *in == '\\' ? '/' : *in;
    if (folder && o && out[o - 1] != '/') out[o++] = '/';
    out[o] = 0;
}

/* The material of texture t (an index into m->textures, -1: none): named by the first
 * cdmaterials folder under which materials/FOLDER/NAME.vmt exists (else the first folder). */
static bk_result material_for(const bk_mdl *m, int32_t t, const bk_src_lookup *lk, bk_mdl_matcache *mc, bk_scene *s,
                              int32_t *out)
{
    char tex[300], cand[600], chosen[600] = "";
    norm_path(tex, sizeof tex, t >= 0 ? m->textures[t] : "unnamed", false);
    size_t tl = strlen(tex);
    if (tl > 4 && bk_strcasecmp(tex + tl - 4, ".vmt") == 0) tex[tl - 4] = 0;
    bool found = false;
    uint32_t nc = m->cdmaterial_count ? m->cdmaterial_count : 1;
    for (uint32_t k = 0; k < nc && !found; k++) {
        char cd[300];
        norm_path(cd, sizeof cd, m->cdmaterial_count ? m->cdmaterials[k] : "", true);
        snprintf(cand, sizeof cand, "%s%s", cd, tex);
        if (k == 0) snprintf(chosen, sizeof chosen, "%s", cand);
        if (lk && lk->has_material && lk->has_material(lk->user, cand)) {
            snprintf(chosen, sizeof chosen, "%s", cand);
            found = true;
        }
    }
    for (uint32_t i = 0; mc && i < mc->count; i++)
        if (bk_strcasecmp(mc->names[i], chosen) == 0) {
            *out = mc->index[i];
            return BK_OK;
        }
    int32_t mi;
    BK_TRY(bk_scene_add_material(s, chosen, &mi));
    bk_material *mat = &s->materials[mi];
    mat->base_color[0] = mat->base_color[1] = mat->base_color[2] = 0.7f;
    char vmt[640];
    size_t o = (size_t)snprintf(vmt, sizeof vmt, "materials/");
    for (const char *c = chosen; *c && o + 5 < sizeof vmt; c++) vmt[o++] = (char)(*c >= 'A' && *c <= 'Z' ? *c + 32 : *c);
    snprintf(vmt + o, sizeof vmt - o, ".vmt");
    BK_TRY(bk_kv_append(&mat->extras, &mat->extra_count, "vmt", vmt));
    BK_TRY(bk_kv_append(&mat->extras, &mat->extra_count, "model_texture", t >= 0 ? m->textures[t] : ""));
    if (found && lk->attach_material) BK_TRY(lk->attach_material(lk->user, s, mi, chosen));
    mat = &s->materials[mi];   /* images may have grown the scene's arrays */
    if (lk && !found) BK_TRY(bk_kv_append(&mat->extras, &mat->extra_count, "missing", "true"));
    if (mc) {
        if (bk_grow((void **)&mc->names, &mc->cap, mc->count + 1, sizeof *mc->names) != BK_OK) return BK_ENOMEM;
        uint32_t cap = mc->cap;
        int32_t *ni = bk_realloc(mc->index, (size_t)cap * sizeof *ni);
        if (!ni) return BK_ENOMEM;
        mc->index = ni;
        mc->names[mc->count] = bk_strdup(chosen);
        if (!mc->names[mc->count]) return BK_ENOMEM;
        mc->index[mc->count++] = mi;
    }
    *out = mi;
    return BK_OK;
}

/* the texture skin family `skin` gives skin-table column ref (-1 when the model names none) */
static int32_t texture_of(const bk_mdl *m, uint32_t skin, uint32_t ref)
{
    if (ref < m->skin_ref_count && skin < m->skin_family_count) return m->skins[(size_t)skin * m->skin_ref_count + ref];
    return ref < m->texture_count ? (int32_t)ref : -1;
}

bk_result bk_mdl_add_mesh(const bk_mdl *m, int32_t skin, bool skinned, const bk_src_lookup *lk, bk_mdl_matcache *mc,
                          const char *name, uint64_t *vertex_budget, bk_scene *s, int32_t *out)
{
    *out = -1;
    if (!m || !m->has_geometry) return BK_EARG;
    if (skin < 0 || (uint32_t)skin >= m->skin_family_count) skin = 0;
    skinned = skinned && m->bone_count > 0;
    uint64_t nv = 0;
    for (uint32_t i = 0; i < m->mesh_count; i++)
        if (m->meshes[i].model == 0 && m->meshes[i].index_count) nv += m->meshes[i].vertex_count;
    if (!nv) return BK_OK;
    if (nv > *vertex_budget) return BK_ELIMIT;
    *vertex_budget -= nv;
    int32_t mesh;
    BK_TRY(bk_scene_add_mesh(s, name, &mesh));
    for (uint32_t i = 0; i < m->mesh_count; i++) {
        const bk_mdl_mesh *me = &m->meshes[i];
        if (me->model != 0 || !me->index_count) continue;
        int32_t mat;
        BK_TRY(material_for(m, texture_of(m, (uint32_t)skin, me->skin_ref), lk, mc, s, &mat));
        bk_primitive *p;
        BK_TRY(bk_mesh_add_primitive(&s->meshes[mesh], mat, BK_PRIM_TRIANGLES,
                                     BK_ATTR_NORMAL | BK_ATTR_UV0 | (skinned ? BK_ATTR_SKIN : 0), &p));
        uint32_t first;
        BK_TRY(bk_prim_add_vertices(p, me->vertex_count, &first));
        for (uint32_t k = 0; k < me->vertex_count; k++) {
            const bk_mdl_vertex *v = &m->vertices[me->first_vertex + k];
            memcpy(p->position + (size_t)(first + k) * 3, v->pos, sizeof v->pos);
            memcpy(p->normal + (size_t)(first + k) * 3, v->normal, sizeof v->normal);
            memcpy(p->uv0 + (size_t)(first + k) * 2, v->uv, sizeof v->uv);
            if (!skinned) continue;
            /* one weight per bone (a bone named twice has its weights summed), none negative */
            uint16_t *j = p->joints + (size_t)(first + k) * 4;
            float *w = p->weights + (size_t)(first + k) * 4;
            uint32_t used = 0;
            memset(w, 0, 4 * sizeof *w);
            memset(j, 0, 4 * sizeof *j);
            for (uint32_t b = 0; b < v->bone_count; b++) {
                float x = v->weight[b];
                if (!(x > 0)) continue;
                uint32_t q = 0;
                while (q < used && j[q] != v->bone[b]) q++;
                if (q == used) j[used++] = v->bone[b];
                w[q] += x;
            }
            if (!used) j[0] = v->bone[0], w[0] = 1.0f;
        }
        /* the VTX's clockwise triangles, turned counter-clockwise */
        uint32_t *tri = bk_malloc((size_t)me->index_count * sizeof *tri);
        if (!tri) return BK_ENOMEM;
        for (uint32_t k = 0; k + 2 < me->index_count + 0u; k += 3) {
            const uint32_t *src = m->indices + me->first_index + k;
            tri[k] = src[0] - me->first_vertex + first;
            tri[k + 1] = src[2] - me->first_vertex + first;
            tri[k + 2] = src[1] - me->first_vertex + first;
        }
        bk_result r = bk_prim_add_indices(p, tri, me->index_count - me->index_count % 3);
        bk_free(tri);
        BK_TRY(r);
    }
    *out = mesh;
    return BK_OK;
}

/* the game folder a model path lies in: the part before its last "models/" folder ("" for a
 * relative path that starts there), or false */
static bool game_root(const char *path, char *out, size_t cap)
{
    const char *hit = NULL;
    for (const char *p = path; *p; p++)
        if ((p == path || p[-1] == '/') && bk_strncasecmp_prefix(p, "models/")) hit = p;
    if (!hit) return false;
    size_t n = (size_t)(hit - path);
    if (n >= cap) return false;
    if (n == 0) snprintf(out, cap, ".");
    else snprintf(out, cap, "%.*s", (int)(n - 1 ? n - 1 : 1), path);
    return true;
}

static void mat34_to_mat4(const float *m, float *o)
{
    bool ok = true;
    for (int i = 0; i < 12; i++) ok = ok && isfinite(m[i]);
    memset(o, 0, 16 * sizeof *o);
    o[0] = o[5] = o[10] = o[15] = 1;
    if (!ok) return;
    for (int r = 0; r < 3; r++) {
        for (int c = 0; c < 3; c++) o[c * 4 + r] = m[r * 4 + c];
        o[12 + r] = m[r * 4 + 3];
    }
}

bk_result bk_mdl_build_scene(const bk_file *f, const bk_options *opt, bk_scene *s)
{
    const bk_mdl *m = bk_mdl_of(f);
    if (!m) return BK_EARG;
    if (!m->has_geometry) {
        bk_scene_diag(s, opt, BK_SEV_ERROR, BK_ENOTFOUND, NULL, "vvd header", BK_NO_INDEX, BK_NO_OFFSET,
                      "the model's VVD and VTX (.dx90.vtx, .vtx, .dx80.vtx or .sw.vtx) must lie beside it to be converted");
        return BK_ENOTFOUND;
    }
    const char *nm = opt->name ? opt->name : "model";
    const char *base = strrchr(nm, '/');
    base = base ? base + 1 : nm;
    size_t bl = strlen(base);
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)(bl > 4 && bk_strcasecmp(base + bl - 4, ".mdl") == 0 ? bl - 4 : bl), base);
    s->name = bk_strdup(name);
    if (!s->name) return BK_ENOMEM;

    /* materials: the --game-dir paths, then the game folder the model lies in */
    bk_source_assets *a = NULL;
    bk_src_lookup lk, *lkp = NULL;
    if (!(opt->flags & BK_OPT_NO_TEXTURES)) {
        char root[4096];
        bool has_root = opt->name && game_root(opt->name, root, sizeof root);
        if (bk_source_assets_open_dirs(opt, has_root ? root : NULL, &a) == BK_OK) {
            bk_source_assets_lookup(a, s, &lk);
            lkp = &lk;
        }
    }
    bk_mdl_matcache mc = {0};
    uint64_t budget = bk_limits_of(opt).max_scene_vertices;
    bk_result r = BK_OK;
    /* node 0: the armature; then one joint node per bone, parents shifted by one */
    int32_t arm = -1, skin = -1, mesh = -1, node;
    r = bk_scene_add_node(s, name, -1, -1, &arm);
    for (uint32_t b = 0; b < m->bone_count && r == BK_OK; b++) {
        const bk_mdl_bone *bo = &m->bones[b];
        r = bk_scene_add_node(s, bo->name[0] ? bo->name : "bone", bo->parent >= 0 ? arm + 1 + bo->parent : arm, -1, &node);
        if (r != BK_OK) break;
        bk_node *n = &s->nodes[node];
        memcpy(n->translation, bo->pos, sizeof n->translation);
        memcpy(n->rotation, bo->quat, sizeof n->rotation);
    }
    if (r == BK_OK && m->bone_count) {
        r = bk_scene_add_skin(s, "skeleton", m->bone_count, &skin);
        if (r == BK_OK) {
            bk_skin *k = &s->skins[skin];
            for (uint32_t b = 0; b < m->bone_count; b++) {
                k->joints[b] = arm + 1 + (int32_t)b;
                mat34_to_mat4(m->bones[b].pose_to_bone, k->inverse_bind + (size_t)b * 16);
            }
            k->skeleton = arm;
        }
    }
    if (r == BK_OK) r = bk_mdl_add_mesh(m, 0, skin >= 0, lkp, &mc, name, &budget, s, &mesh);
    if (r == BK_OK && mesh >= 0) {
        r = bk_scene_add_node(s, name, -1, mesh, &node);
        if (r == BK_OK) s->nodes[node].skin = skin;
    }
    char v[64];
    snprintf(v, sizeof v, "%d", m->version);
    if (r == BK_OK) r = bk_kv_append(&s->extras, &s->extra_count, "mdl_version", v);
    snprintf(v, sizeof v, "%u", m->skin_family_count);
    if (r == BK_OK) r = bk_kv_append(&s->extras, &s->extra_count, "skin_families", v);
    if (r == BK_OK && m->surfaceprop[0]) r = bk_kv_append(&s->extras, &s->extra_count, "surfaceprop", m->surfaceprop);
    bk_mdl_matcache_free(&mc);
    bk_source_assets_close(a);
    return r;
}
