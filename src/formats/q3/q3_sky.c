/* Quake 3 skies and fog volumes as scene nodes.
 *
 * A shader with skyParms FARBOX CLOUDHEIGHT NEARBOX is not drawn where its surfaces are: the
 * engine draws, behind everything and centred on the viewer, a box of six images FARBOX_rt, _bk,
 * _lf, _ft, _up, _dn, then the shader's stages as cloud layers on a sphere CLOUDHEIGHT units
 * above the viewer (projected onto the box; 512 when the script says 0 or "-").
 *
 * The box's faces, as ioquake3's tr_sky.c lays them out (engine axes, X forward, Y left, Z up;
 * each face's image upright, its left edge on the viewer's left when facing it):
 *   _rt at +X, _lf at -X, _bk at +Y, _ft at -Y, _up at +Z (image top towards -X),
 *   _dn at -Z (image top towards +X).
 * Here the box is a large cube around the map (twice the world's diagonal across) under a node
 * named "skybox" placed at the world's centre; the node's extras say it follows the camera
 * (viewers that can should move it with the eye, as the engine does). Faces and cloud layers are
 * unlit; a face image that is missing takes the previous face's, as in ioquake3; with the first
 * one missing (skyParms "full" in OpenArena) there is no box, only the clouds. Cloud layers take
 * the engine's texture coordinates (the direction's intersection with the cloud sphere: acos of
 * its x and y), then the stage's tcMod scale; scrolling is left at time 0.
 *
 * Fog volumes (the fogs lump, shaders with fogParms) become empty nodes "fog SHADER" at the fog
 * brush's centre, their colour, distance and bounds in extras. */
#include <math.h>
#include <stdio.h>

#include "scene/scene_build.h"
#include "q3_internal.h"

#define SKY_SUB 8          /* cells per cloud face edge, as the engine's SKY_SUBDIVISIONS */
#define CLOUD_RADIUS 4096  /* the engine's radiusWorld */

/* the engine's cloud texture coordinates for direction d */
static void cloud_uv(const float d[3], float height, float uv[2])
{
    const float R = CLOUD_RADIUS;
    float dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    /* |p d - (0, 0, -R)| = R + height, the positive root */
    float disc = R * R * d[2] * d[2] + dd * (2 * R * height + height * height);
    float p = (-R * d[2] + sqrtf(disc > 0 ? disc : 0)) / dd;
    float v[3] = {d[0] * p, d[1] * p, d[2] * p + R};
    float l = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    for (int k = 0; k < 3; k++) v[k] /= l > 0 ? l : 1;
    uv[0] = acosf(v[0] < -1 ? -1 : (v[0] > 1 ? 1 : v[0]));
    uv[1] = acosf(v[1] < -1 ? -1 : (v[1] > 1 ? 1 : v[1]));
}

static bk_result set_extra(bk_scene *s, int32_t mi, const char *k, const char *v)
{
    bk_material *m = &s->materials[mi];
    return bk_kv_append(&m->extras, &m->extra_count, k, v);
}

static bk_result sky_material(q3_builder *b, const char *name, const char *kind, int layer, int32_t *out)
{
    BK_TRY(bk_scene_add_material(b->s, name, out));
    b->s->materials[*out].unlit = 1;
    BK_TRY(set_extra(b->s, *out, "sky", kind));
    char num[16];
    snprintf(num, sizeof num, "%d", layer);
    return set_extra(b->s, *out, "skyLayer", num);
}

/* one cloud layer: stage st of the sky shader, on the box's upper five faces at radius r */
static bk_result cloud_layer(q3_builder *b, bk_mesh *mesh_unused, int32_t mesh, const q3_shader_def *d, uint32_t si,
                             float r, float height)
{
    (void)mesh_unused;
    const q3_stage *st = &d->stage[si];
    char name[300];
    snprintf(name, sizeof name, "%.250s#cloud%u", d->name, si);
    int32_t mi;
    BK_TRY(sky_material(b, name, "cloud", (int)si + 1, &mi));
    bk_material *m = &b->s->materials[mi];
    for (int c = 0; c < 3; c++) m->base_color[c] = bk_q3_to_linear(st->rgb[c]);
    q3_img *im = NULL;
    if (st->src == Q3_SRC_IMAGE) {
        im = bk_q3_img_get(b, st->image);
        if (im) {
            int32_t idx;
            BK_TRY(bk_q3_img_scene(b, im, &idx));
            b->s->materials[mi].base_image = idx;
        } else {
            BK_TRY(set_extra(b->s, mi, "missing", "true"));
            b->s->warning_count++;
            for (int c = 0; c < 3; c++) b->s->materials[mi].base_color[c] *= bk_q3_to_linear(0.5f);
        }
    }
    m = &b->s->materials[mi];
    if (st->blended) {
        m->alpha_mode = BK_ALPHA_BLEND;
        if (st->bdst == Q3_BF_ONE || st->bdst == Q3_BF_ONE_MINUS_SRC_COLOR)
            BK_TRY(set_extra(b->s, mi, "blend", "add"));
        else if ((st->bsrc == Q3_BF_DST_COLOR && st->bdst == Q3_BF_ZERO) ||
                 (st->bsrc == Q3_BF_ZERO && st->bdst == Q3_BF_SRC_COLOR))
            BK_TRY(set_extra(b->s, mi, "blend", "multiply"));
    }
    bk_primitive *p;
    BK_TRY(bk_mesh_add_primitive(&b->s->meshes[mesh], mi, BK_PRIM_TRIANGLES, BK_ATTR_NORMAL | BK_ATTR_UV0, &p));
    for (int f = 0; f < 5; f++) {
        uint32_t first;
        BK_TRY(bk_prim_add_vertices(p, (SKY_SUB + 1) * (SKY_SUB + 1), &first));
        for (int y = 0; y <= SKY_SUB; y++)
            for (int x = 0; x <= SKY_SUB; x++) {
                float s = -1 + 2.0f * (float)x / SKY_SUB, t = -1 + 2.0f * (float)y / SKY_SUB, q[3], uv[2];
                bk_sky_face_point(f, s, t, q);
                cloud_uv(q, height, uv);
                size_t v = first + (size_t)(y * (SKY_SUB + 1) + x);
                float l = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
                for (int k = 0; k < 3; k++) {
                    p->position[v * 3 + k] = q[k] * r;
                    p->normal[v * 3 + k] = -q[k] / l;
                }
                p->uv0[v * 2] = uv[0] * st->tc_scale[0];
                p->uv0[v * 2 + 1] = uv[1] * st->tc_scale[1];
            }
        BK_TRY(bk_sky_grid_triangles(p, first, SKY_SUB));
    }
    return BK_OK;
}

static bk_result build_fogs(q3_builder *b)
{
    const bk_q3_map *m = b->m;
    for (uint32_t i = 0; i < m->fog_count; i++) {
        const bk_q3_fog *fg = &m->fogs[i];
        const q3_shader_def *d = bk_q3_shaders_find(&b->lib, fg->shader);
        char name[128], val[96];
        snprintf(name, sizeof name, "fog %s", fg->shader);
        int32_t node;
        BK_TRY(bk_scene_add_node(b->s, name, -1, -1, &node));
        bk_node *n = &b->s->nodes[node];
        BK_TRY(bk_kv_append(&n->extras, &n->extra_count, "shader", fg->shader));
        if (d && d->has_fogparms) {
            bk_fmt_nums(val, sizeof val, d->fog_color, 3, 6);
            BK_TRY(bk_kv_append(&n->extras, &n->extra_count, "fogColor", val));
            bk_fmt_num(val, sizeof val, d->fog_distance, 6);
            BK_TRY(bk_kv_append(&n->extras, &n->extra_count, "fogDistance", val));
        }
        /* a brush's first six sides are its axial bounds (-x, +x, -y, +y, -z, +z) */
        if (fg->brush >= 0 && (uint32_t)fg->brush < m->brush_count) {
            const bk_q3_brush *br = &m->brushes[fg->brush];
            if (br->num_sides >= 6) {
                float mn[3], mx[3];
                bool ok = true;
                for (int a = 0; a < 3 && ok; a++) {
                    int32_t s0 = br->first_side + 2 * a, s1 = s0 + 1;
                    if ((uint32_t)s1 >= m->brushside_count) { ok = false; break; }
                    int32_t p0 = m->brushsides[s0].plane, p1 = m->brushsides[s1].plane;
                    if (p0 < 0 || p1 < 0 || (uint32_t)p0 >= m->plane_count || (uint32_t)p1 >= m->plane_count) {
                        ok = false;
                        break;
                    }
                    mn[a] = -m->planes[p0].dist;
                    mx[a] = m->planes[p1].dist;
                }
                if (ok && bk_finite3(mn) && bk_finite3(mx)) {
                    bk_fmt_nums(val, sizeof val, mn, 3, 6);
                    BK_TRY(bk_kv_append(&n->extras, &n->extra_count, "mins", val));
                    bk_fmt_nums(val, sizeof val, mx, 3, 6);
                    BK_TRY(bk_kv_append(&n->extras, &n->extra_count, "maxs", val));
                    for (int a = 0; a < 3; a++) b->s->nodes[node].translation[a] = (mn[a] + mx[a]) * 0.5f;
                }
            }
        } else {
            BK_TRY(bk_kv_append(&n->extras, &n->extra_count, "global", "true"));
        }
    }
    return BK_OK;
}

bk_result bk_q3_build_sky(q3_builder *b)
{
    if (!b->defs || (b->opt->flags & BK_OPT_NO_TEXTURES)) return BK_OK;
    const bk_q3_map *m = b->m;
    /* the sky shader most world surfaces use */
    int32_t best = -1;
    uint32_t best_n = 0, kinds = 0;
    uint32_t *count = bk_calloc(m->shader_count + 1, sizeof *count);
    if (!count) return BK_ENOMEM;
    for (uint32_t i = 0; i < m->surface_count; i++) {
        int32_t sh = m->surfaces[i].shader;
        if (sh >= 0 && (uint32_t)sh < m->shader_count && b->defs[sh] && b->defs[sh]->has_skyparms) count[sh]++;
    }
    for (uint32_t i = 0; i < m->shader_count; i++)
        if (count[i]) {
            kinds++;
            if (count[i] > best_n) best_n = count[i], best = (int32_t)i;
        }
    bk_free(count);
    BK_TRY(build_fogs(b));
    if (best < 0) return BK_OK;
    const q3_shader_def *d = b->defs[best];
    const bk_q3_model *w = &m->models[0];
    float center[3], diag = 0;
    for (int k = 0; k < 3; k++) {
        center[k] = (w->mins[k] + w->maxs[k]) * 0.5f;
        float e = w->maxs[k] - w->mins[k];
        diag += e * e;
    }
    if (!bk_finite3(center) || !isfinite(diag)) return BK_OK;
    float half = sqrtf(diag);
    if (!(half > 64)) half = 65536;
    int32_t mesh;
    BK_TRY(bk_scene_add_mesh(b->s, "skybox", &mesh));
    /* the box */
    int32_t prev = -1;
    int faces = 0;
    for (int f = 0; f < 6 && d->farbox; f++) {
        char name[300];
        snprintf(name, sizeof name, "%.240s_%s", d->farbox, bk_sky_face_suffix[f]);
        q3_img *im = bk_q3_img_get(b, name);
        int32_t idx = -1;
        if (im) {
            BK_TRY(bk_q3_img_scene(b, im, &idx));
            b->s->images[idx].clamp = 1;
        } else {
            idx = prev;
        }
        if (idx < 0) break;   /* no first face: no box (the engine skips it) */
        prev = idx;
        int32_t mi;
        BK_TRY(sky_material(b, name, "box", 0, &mi));
        b->s->materials[mi].base_image = idx;
        BK_TRY(set_extra(b->s, mi, "skyFace", bk_sky_face_suffix[f]));
        if (!im) BK_TRY(set_extra(b->s, mi, "missing", "true"));
        bk_primitive *p;
        BK_TRY(bk_mesh_add_primitive(&b->s->meshes[mesh], mi, BK_PRIM_TRIANGLES, BK_ATTR_NORMAL | BK_ATTR_UV0, &p));
        BK_TRY(bk_sky_add_face(p, f, half));
        faces++;
    }
    /* the cloud layers: every stage, in order, inside the box */
    float height = d->cloud_height != 0 ? d->cloud_height : 512.0f;
    uint32_t layers = 0;
    for (uint32_t i = 0; i < d->stage_count; i++) {
        if (d->stage[i].src == Q3_SRC_LIGHTMAP) continue;
        BK_TRY(cloud_layer(b, NULL, mesh, d, i, half * (0.98f - 0.01f * (float)i), height));
        layers++;
    }
    if (!faces && !layers) return BK_OK;
    int32_t node;
    BK_TRY(bk_scene_add_node(b->s, "skybox", -1, mesh, &node));
    memcpy(b->s->nodes[node].translation, center, sizeof center);
    bk_node *n = &b->s->nodes[node];
    char val[600];
    char ch[32];
    bk_fmt_num(ch, sizeof ch, d->cloud_height, 6);
    snprintf(val, sizeof val, "%.250s %s %.250s", d->farbox ? d->farbox : "-", ch, d->nearbox ? d->nearbox : "-");
    BK_TRY(bk_kv_append(&n->extras, &n->extra_count, "skyParms", val));
    BK_TRY(bk_kv_append(&n->extras, &n->extra_count, "shader", d->name));
    BK_TRY(bk_kv_append(&n->extras, &n->extra_count, "followCamera", "true"));
    snprintf(val, sizeof val, "%d", faces);
    BK_TRY(bk_kv_append(&n->extras, &n->extra_count, "faces", val));
    snprintf(val, sizeof val, "%u", layers);
    BK_TRY(bk_kv_append(&n->extras, &n->extra_count, "cloudLayers", val));
    if (kinds > 1) {
        snprintf(val, sizeof val, "%u", kinds);
        BK_TRY(bk_kv_append(&n->extras, &n->extra_count, "skyShaders", val));
    }
    return BK_OK;
}
