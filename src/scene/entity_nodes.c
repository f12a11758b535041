/* Entities -> scene nodes, one set of rules for every BSP family:
 *
 *   - the world (inline model 0) is a node named "worldspawn" carrying the worldspawn entity's
 *     key/value pairs;
 *   - a brush entity ("model" "*N") is a node with model N's mesh, placed at its "origin" (the
 *     compilers store a model with an origin brush or key relative to it, and the engines draw it
 *     there); Source alone also turns it by its "angles";
 *   - a point entity is an empty node at its origin, turned by "angles" (pitch yaw roll) or
 *     "angle" (yaw; -1 up, -2 down), as the engines' AngleVectors read them;
 *   - brush models no entity names become nodes named "*N";
 *   - nodes are named by targetname, else by classname (brush entities: "classname *N").
 * With BK_OPT_NO_ENTITIES only the geometry's nodes are made, with no extras at all. */
#include <math.h>
#include <stdio.h>

#include "scene/scene_build.h"
#include "../common/bk_internal.h"

#define PI 3.14159265358979323846

void bk_angles_quat(const float ang[3], float q[4])
{
    double p = fmod(ang[0], 360.0) * PI / 360.0, y = fmod(ang[1], 360.0) * PI / 360.0,
           r = fmod(ang[2], 360.0) * PI / 360.0;
    double cp = cos(p), sp = sin(p), cy = cos(y), sy = sin(y), cr = cos(r), sr = sin(r);
    /* qz(yaw) * qy(pitch) * qx(roll), (x, y, z, w) */
    q[0] = (float)(cy * cp * sr - sy * sp * cr);
    q[1] = (float)(cy * sp * cr + sy * cp * sr);
    q[2] = (float)(sy * cp * cr - cy * sp * sr);
    q[3] = (float)(cy * cp * cr + sy * sp * sr);
}

bool bk_entity_angles(const bk_entity *e, float ang[3])
{
    float a[3] = {0, 0, 0};
    if (bk_parse_vec3(bk_entity_get(e, "angles"), a)) {
        memcpy(ang, a, sizeof a);
        return true;
    }
    float yaw;
    if (bk_parse_floats(bk_entity_get(e, "angle"), &yaw, 1) != 1) return false;
    if (yaw == -1) a[0] = -90;
    else if (yaw == -2) a[0] = 90;
    else a[1] = yaw;
    memcpy(ang, a, sizeof a);
    return true;
}

/* inline model number of "*N", or -1 */
static long inline_model(const bk_entity *e, uint32_t model_count)
{
    const char *mv = bk_entity_get(e, "model");
    if (!mv || mv[0] != '*' || mv[1] < '0' || mv[1] > '9') return -1;
    char *end;
    long mi = strtol(mv + 1, &end, 10);
    if (*end || mi <= 0 || (unsigned long)mi >= model_count) return -1;
    return mi;
}

static bk_result add_pairs(bk_node *n, const bk_entity *e)
{
    for (uint32_t k = 0; k < e->pair_count; k++)
        BK_TRY(bk_kv_append(&n->extras, &n->extra_count, e->pairs[k].key, e->pairs[k].value));
    return BK_OK;
}

bk_result bk_scene_add_entity_nodes(bk_scene *s, const bk_entities *es, const bk_options *opt,
                                    const bk_entity_layout *lay)
{
    bool keep = !(opt && (opt->flags & BK_OPT_NO_ENTITIES));
    const bk_entity *ws = NULL;
    for (uint32_t i = 0; i < es->count && !ws; i++) {
        const char *cn = bk_entity_get(&es->items[i], "classname");
        if (cn && strcmp(cn, "worldspawn") == 0) ws = &es->items[i];
    }
    bool *used = bk_calloc(lay->model_count ? lay->model_count : 1, sizeof *used);
    if (!used) return BK_ENOMEM;
    bk_result r = BK_OK;
    int32_t node;
    if (lay->model_count || ws) {
        r = bk_scene_add_node(s, "worldspawn", -1, lay->model_count ? lay->model_mesh[0] : -1, &node);
        if (r == BK_OK && ws && keep) r = add_pairs(&s->nodes[node], ws);
        used[0] = true;
    }
    char name[192];
    for (uint32_t i = 0; r == BK_OK && i < es->count; i++) {
        const bk_entity *e = &es->items[i];
        if (e == ws) continue;
        long mi = inline_model(e, lay->model_count);
        if (mi < 0 && !keep) continue;
        const char *tn = bk_entity_get(e, "targetname"), *cn = bk_entity_get(e, "classname");
        if (tn && *tn) snprintf(name, sizeof name, "%s", tn);
        else if (mi > 0) snprintf(name, sizeof name, "%s *%ld", cn && *cn ? cn : "model", mi);
        else snprintf(name, sizeof name, "%s", cn && *cn ? cn : "entity");
        r = bk_scene_add_node(s, name, -1, mi > 0 ? lay->model_mesh[mi] : -1, &node);
        if (r != BK_OK) break;
        bk_node *n = &s->nodes[node];
        float o[3], a[3];
        if (bk_parse_vec3(bk_entity_get(e, "origin"), o)) memcpy(n->translation, o, sizeof o);
        if ((mi < 0 || (lay->flags & BK_ENT_ROTATE_BRUSH)) && bk_entity_angles(e, a)) bk_angles_quat(a, n->rotation);
        const char *moved = mi > 0 && lay->start ? lay->start(lay->start_user, e, (uint32_t)mi, n->translation) : NULL;
        if (mi > 0) used[mi] = true;
        if (keep) r = add_pairs(n, e);
        if (keep && moved && r == BK_OK) {
            char v[100], c[3][32];
            for (int k = 0; k < 3; k++) bk_fmt_num(c[k], sizeof c[k], n->translation[k], 6);
            snprintf(v, sizeof v, "%s %s %s", c[0], c[1], c[2]);
            r = bk_kv_append(&n->extras, &n->extra_count, "startPosition", moved);
            if (r == BK_OK) r = bk_kv_append(&n->extras, &n->extra_count, "startOffset", v);
        }
    }
    for (uint32_t i = 1; r == BK_OK && i < lay->model_count; i++) {
        if (used[i] || lay->model_mesh[i] < 0) continue;
        snprintf(name, sizeof name, "*%u", i);
        r = bk_scene_add_node(s, name, -1, lay->model_mesh[i], &node);
    }
    bk_free(used);
    return r;
}
