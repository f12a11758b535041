/* Source static props: a node per prop, with its model's mesh (one per model and skin, shared by
 * every prop) when the model is found where the engine looks. */
#include <stdio.h>

#include "scene/scene_build.h"
#include "source_scene.h"

static void vcopy(float *d, const float *s) { d[0] = s[0], d[1] = s[1], d[2] = s[2]; }

/* ---- static props: their models' meshes, one per model and skin, shared by every prop ----- */
typedef struct prop_cache {
    bk_mdl **mdl;          /* per model-dictionary entry: the decoded model, or NULL */
    uint8_t *tried;
    struct { uint32_t model; int32_t skin, mesh; } *meshes;
    uint32_t mesh_count, mesh_cap;
    bk_mdl_matcache mats;
} prop_cache;

static void prop_warn(const sb *b, bk_result code, const char *model, const char *what)
{
    bk_scene_diag(b->s, b->opt, BK_SEV_WARNING, code, NULL, "sprp", BK_NO_INDEX, BK_NO_OFFSET,
                  "static prop model %s: %s; the prop stays a placement node", model, what);
}

/* The model at path, decoded from its MDL, VVD and VTX where the engine finds them; NULL when a
 * part is missing or does not decode (a warning each: a prop without its mesh is not dropped
 * silently; validate --assets lists the same). */
static bk_mdl *load_prop_model(sb *b, const char *path)
{
    size_t pl = strlen(path);
    if (pl < 5 || pl > 900 || bk_strcasecmp(path + pl - 4, ".mdl") != 0) return NULL;
    char part[1024];
    uint8_t *md = NULL, *vd = NULL, *xd = NULL;
    size_t mn = 0, vn = 0, xn = 0;
    bk_mdl *m = NULL;
    const char *where = b->opt->search_path_count ? "the map's pakfile and the search paths" : "the map's pakfile";
    char why[1200];
    if (!bk_src_read_asset(b, path, &md, &mn)) {
        snprintf(why, sizeof why, "not found in %s", where);
        prop_warn(b, BK_ENOTFOUND, path, why);
        return NULL;
    }
    snprintf(part, sizeof part, "%.*s.vvd", (int)(pl - 4), path);
    bool ok = bk_src_read_asset(b, part, &vd, &vn);
    for (size_t k = 0; ok && k < BK_ARRAY_LEN(bk_mdl_vtx_suffixes) && !xd; k++) {
        snprintf(part, sizeof part, "%.*s%s", (int)(pl - 4), path, bk_mdl_vtx_suffixes[k]);
        if (!bk_src_read_asset(b, part, &xd, &xn)) xd = NULL;
    }
    if (!ok || !xd) {
        snprintf(why, sizeof why, "%s not found in %s", ok ? "its .vtx" : part, where);
        prop_warn(b, BK_ENOTFOUND, path, why);
    }
    if (ok && xd) {
        bk_options o = *b->opt;
        o.diag = NULL;
        bk_result r = bk_mdl_decode(md, mn, vd, vn, xd, xn, &o, &m);
        if (r != BK_OK) {
            snprintf(why, sizeof why, "does not decode (%s)", bk_strerror(r));
            prop_warn(b, r, path, why);
            m = NULL;
        }
    }
    bk_free(md);
    bk_free(vd);
    bk_free(xd);
    return m;
}

/* the mesh of dictionary model k with skin family skin (-1: none) */
static bk_result prop_mesh(sb *b, prop_cache *c, uint32_t k, int32_t skin, int32_t *out)
{
    const bk_source_map *p = b->p;
    *out = -1;
    if (k >= p->static_prop_name_count) return BK_OK;
    if (!c->tried[k]) {
        c->tried[k] = 1;
        c->mdl[k] = load_prop_model(b, p->static_prop_names[k]);
    }
    const bk_mdl *m = c->mdl[k];
    if (!m) return BK_OK;
    if (skin < 0 || (uint32_t)skin >= m->skin_family_count) skin = 0;
    for (uint32_t i = 0; i < c->mesh_count; i++)
        if (c->meshes[i].model == k && c->meshes[i].skin == skin) {
            *out = c->meshes[i].mesh;
            return BK_OK;
        }
    bk_src_lookup lk;
    bk_src_make_lookup(b, &lk);
    int32_t mesh;
    bk_result r = bk_mdl_add_mesh(m, skin, false, &lk, &c->mats, p->static_prop_names[k], &b->vertex_budget, b->s, &mesh);
    if (r == BK_ELIMIT) {
        prop_warn(b, r, p->static_prop_names[k], "over the scene's vertex budget");
        mesh = -1;
    } else if (r != BK_OK) {
        return r;
    }
    BK_TRY(bk_grow((void **)&c->meshes, &c->mesh_cap, c->mesh_count + 1, sizeof *c->meshes));
    c->meshes[c->mesh_count].model = k;
    c->meshes[c->mesh_count].skin = skin;
    c->meshes[c->mesh_count++].mesh = mesh;
    *out = mesh;
    return BK_OK;
}

bk_result bk_src_add_prop_nodes(sb *b)
{
    const bk_source_map *p = b->p;
    char v[160];
    prop_cache c;
    memset(&c, 0, sizeof c);
    c.mdl = bk_calloc((size_t)p->static_prop_name_count + 1, sizeof *c.mdl);
    c.tried = bk_calloc((size_t)p->static_prop_name_count + 1, 1);
    bk_result r = c.mdl && c.tried ? BK_OK : BK_ENOMEM;
    b->prop_node0 = b->s->node_count;
    for (uint32_t i = 0; i < p->static_prop_count && r == BK_OK; i++) {
        const bk_source_static_prop *sp = &p->static_props[i];
        const char *model = sp->model < p->static_prop_name_count ? p->static_prop_names[sp->model] : "";
        const char *base = strrchr(model, '/');
        int32_t node, mesh = -1;
        if ((r = prop_mesh(b, &c, sp->model, sp->skin, &mesh)) != BK_OK) break;
        if ((r = bk_scene_add_node(b->s, base ? base + 1 : model, -1, mesh, &node)) != BK_OK) break;
        b->prop_nodes = i + 1;
        bk_node *n = &b->s->nodes[node];
        vcopy(n->translation, sp->origin);
        bk_angles_quat(sp->angles, n->rotation);
        if (p->sprp_fields & BK_SPROP_SCALE && sp->scale > 0) n->scale[0] = n->scale[1] = n->scale[2] = sp->scale;
        if (r == BK_OK) r = bk_kv_append(&n->extras, &n->extra_count, "classname", "prop_static");
        if (r == BK_OK) r = bk_kv_append(&n->extras, &n->extra_count, "model", model);
        {
            char a0[32], a1[32], a2[32];
            bk_fmt_num(a0, sizeof a0, sp->angles[0], 6);
            bk_fmt_num(a1, sizeof a1, sp->angles[1], 6);
            bk_fmt_num(a2, sizeof a2, sp->angles[2], 6);
            snprintf(v, sizeof v, "%s %s %s", a0, a1, a2);
        }
        if (r == BK_OK) r = bk_kv_append(&n->extras, &n->extra_count, "angles", v);
        snprintf(v, sizeof v, "%d", sp->skin);
        if (r == BK_OK) r = bk_kv_append(&n->extras, &n->extra_count, "skin", v);
        snprintf(v, sizeof v, "%u", sp->solid);
        if (r == BK_OK) r = bk_kv_append(&n->extras, &n->extra_count, "solid", v);
        bk_fmt_num(v, sizeof v, sp->fade_min, 6);
        if (r == BK_OK) r = bk_kv_append(&n->extras, &n->extra_count, "fademindist", v);
        bk_fmt_num(v, sizeof v, sp->fade_max, 6);
        if (r == BK_OK) r = bk_kv_append(&n->extras, &n->extra_count, "fademaxdist", v);
    }
    for (uint32_t k = 0; c.mdl && k < p->static_prop_name_count; k++) bk_mdl_free(c.mdl[k]);
    bk_free(c.mdl);
    bk_free(c.tried);
    bk_free(c.meshes);
    bk_mdl_matcache_free(&c.mats);
    return r;
}
