/* Source world lights (lump 15, or 54 where the map's HDR lighting is used): the lights vrad baked
 * into the lightmaps, kept by the engine for models and dynamic objects (bspfile.h dworldlight_t:
 * 88 bytes in lump version 0, 100 in version 1 with shadow_cast_offset after normal: the rows'
 * columns, source_desc.c).
 *
 * Each becomes a node "light N" (N: its index in the lump) under a node "worldlights" under
 * worldspawn, holding a glTF KHR_lights_punctual light: emit_point and emit_quakelight a point
 * light, emit_spotlight a spot (inner cone acos(stopdot), outer acos(stopdot2)), emit_surface a
 * spot with a 90-degree cone (a surface light lights its half space), emit_skylight a directional
 * light; spots and the sky aim along dworldlight_t.normal. emit_skyambient has no glTF form: an
 * empty node with its values. The colour is the intensity over its largest channel; the
 * intensity the engine's light at 100 units, as an inverse-square light would give it:
 * I * 100^2 / (constant + linear * 100 + quadratic * 100^2) (just I for the usual quadratic 1),
 * the range dworldlight_t.radius when set. Every light says extras.baked "true" (the lightmaps
 * hold it already: a viewer drawing them keeps it off) and keeps the lump's fields as extras. */
#include <math.h>
#include <stdio.h>

#include "scene/scene_build.h"
#include "source_scene.h"

#define REF_DIST 100.0f

static const char *const k_emit[] = {"surface", "point", "spotlight", "skylight", "quakelight", "skyambient"};

typedef bk_source_worldlight wl;   /* decoded from the lump's rows (source_desc.c) */

/* the rotation turning local -Z onto unit direction n */
static void aim(const float n[3], float q[4])
{
    float l = sqrtf(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    q[0] = q[1] = q[2] = 0, q[3] = 1;
    if (!(l > 1e-6f) || !isfinite(l)) return;
    float d[3] = {n[0] / l, n[1] / l, n[2] / l};
    /* a = (0, 0, -1): a x d = (d1, -d0, 0), a . d = -d2 */
    float w = 1 - d[2];
    if (w < 1e-6f) {   /* d = +Z: half a turn about X */
        q[0] = 1, q[3] = 0;
        return;
    }
    q[0] = d[1], q[1] = -d[0], q[2] = 0, q[3] = w;
    float m = sqrtf(q[0] * q[0] + q[1] * q[1] + q[3] * q[3]);
    for (int k = 0; k < 4; k++) q[k] /= m;
}

static bk_result kv(bk_kv **list, uint32_t *n, const char *k, const float *v, int count)
{
    char buf[160];
    bk_fmt_nums(buf, sizeof buf, v, count, 8);
    return bk_kv_append(list, n, k, buf);
}

static bk_result kvi(bk_kv **list, uint32_t *n, const char *k, int32_t v)
{
    char buf[24];
    snprintf(buf, sizeof buf, "%d", v);
    return bk_kv_append(list, n, k, buf);
}

/* the lump's fields, as extras */
static bk_result fields(bk_kv **x, uint32_t *n, const wl *w, const char *lump)
{
    BK_TRY(bk_kv_append(x, n, "baked", "true"));
    BK_TRY(bk_kv_append(x, n, "lump", lump));
    BK_TRY(bk_kv_append(x, n, "emittype", w->type >= 0 && w->type <= 5 ? k_emit[w->type] : "unknown"));
    BK_TRY(kv(x, n, "intensity", w->intensity, 3));
    BK_TRY(kv(x, n, "normal", w->normal, 3));
    float att[3] = {w->constant_attn, w->linear_attn, w->quadratic_attn}, spot[3] = {w->stopdot, w->stopdot2, w->exponent};
    BK_TRY(kv(x, n, "attenuation", att, 3));
    BK_TRY(kv(x, n, "stopdot_stopdot2_exponent", spot, 3));
    BK_TRY(kv(x, n, "radius", &w->radius, 1));
    BK_TRY(kvi(x, n, "style", w->style));
    BK_TRY(kvi(x, n, "cluster", w->cluster));
    return kvi(x, n, "flags", w->flags);
}

static bk_result add_one(sb *b, const wl *w, uint32_t i, int32_t parent, const char *lump)
{
    bk_scene *s = b->s;
    char name[32];
    snprintf(name, sizeof name, "light %u", i);
    int32_t node;
    BK_TRY(bk_scene_add_node(s, name, parent, -1, &node));
    if (bk_finite3(w->origin)) memcpy(s->nodes[node].translation, w->origin, sizeof w->origin);
    if (w->type == 5 || w->type < 0 || w->type > 5) {   /* ambient (or unknown): values only */
        bk_node *n = &s->nodes[node];
        return fields(&n->extras, &n->extra_count, w, lump);
    }
    uint32_t type = w->type == 3 ? BK_LIGHT_DIRECTIONAL : (w->type == 0 || w->type == 2) ? BK_LIGHT_SPOT : BK_LIGHT_POINT;
    if (type != BK_LIGHT_POINT) aim(w->normal, s->nodes[node].rotation);
    int32_t li;
    BK_TRY(bk_scene_add_light(s, name, type, &li));
    s->nodes[node].light = li;
    bk_light *l = &s->lights[li];
    float m = 0;
    for (int k = 0; k < 3; k++) m = fmaxf(m, isfinite(w->intensity[k]) ? w->intensity[k] : 0);
    for (int k = 0; k < 3; k++) l->color[k] = m > 0 && isfinite(w->intensity[k]) ? fmaxf(w->intensity[k], 0) / m : 0;
    float den = w->constant_attn + w->linear_attn * REF_DIST + w->quadratic_attn * REF_DIST * REF_DIST;
    l->intensity = type == BK_LIGHT_DIRECTIONAL || !(den > 0) || !isfinite(den) ? m : m * REF_DIST * REF_DIST / den;
    l->range = w->radius > 0 && isfinite(w->radius) ? w->radius : 0;
    if (w->type == 2) {
        float in = acosf(fminf(fmaxf(w->stopdot, -1), 1)), out = acosf(fminf(fmaxf(w->stopdot2, -1), 1));
        l->outer_cone = fminf(isfinite(out) ? out : 0.785f, 1.5707963f);
        l->inner_cone = fminf(isfinite(in) ? in : 0, l->outer_cone);
    } else if (w->type == 0) {
        l->inner_cone = 0, l->outer_cone = 1.5707963f;
    }
    return fields(&l->extras, &l->extra_count, w, lump);
}

bk_result bk_src_add_lights(sb *b, const bk_source_lump *lp, uint8_t column, const char *lump, int32_t world)
{
    const bk_lump_desc *row = &bk_source_lumps[BK_SRC_LUMP_WORLDLIGHTS];   /* worldlights_hdr: the same rows */
    size_t es = row->entry[column];
    if (!lp->size || !lp->data) return BK_OK;
    if (lp->size % es) {
        bk_scene_diag(b->s, b->opt, BK_SEV_WARNING, BK_ELUMP_SIZE, NULL, lump, BK_NO_INDEX, lp->offset,
                      "%zu bytes, not a multiple of the %zu-byte dworldlight_t (lump version %d): no world lights",
                      lp->size, es, lp->version);
        return BK_OK;
    }
    uint64_t n = lp->size / es;
    if (n > bk_limits_of(b->opt).max_elements) {
        bk_scene_diag(b->s, b->opt, BK_SEV_WARNING, BK_ELIMIT, NULL, lump, BK_NO_INDEX, lp->offset,
                      "%llu world lights, over the limit of elements: none drawn", (unsigned long long)n);
        return BK_OK;
    }
    uint32_t count = (uint32_t)n;
    int32_t parent;
    BK_TRY(bk_scene_add_node(b->s, "worldlights", world, -1, &parent));
    bk_node *pn = &b->s->nodes[parent];
    BK_TRY(bk_kv_append(&pn->extras, &pn->extra_count, "lump", lump));
    BK_TRY(bk_kv_append(&pn->extras, &pn->extra_count, "baked", "true"));
    BK_TRY(kvi(&b->s->nodes[parent].extras, &b->s->nodes[parent].extra_count, "count", (int32_t)count));
    for (uint32_t i = 0; i < count; i++) {
        wl w = {0};
        bk_decode_rows(&row->fields[column], lp->data + (size_t)i * es, (uint32_t)es, 1, &w, row->dst_size, false);
        BK_TRY(add_one(b, &w, i, parent, lump));
    }
    return BK_OK;
}
