/* DPM -> format-neutral scene: one skinned mesh per DPM mesh (bind pose = frame 0 skinned), one
 * material per shader name, one joint node per bone (bind pose as TRS), a skin with inverse bind
 * matrices from frame 0, and one animation per framegroup (.framegroups beside the model) or, with
 * no framegroups file, per run of frames named NAME_0, NAME_1, ... (one per frame otherwise).
 * Everything stays in engine coordinates; the exporters convert. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>

#include "scene/scene_build.h"
#include "dpm_internal.h"

#define DEFAULT_FPS 10.0f

/* ---- framegroups ------------------------------------------------------------------------ */

bk_result bk_dpm_framegroups_parse(const char *text, size_t len, uint32_t frame_count, bk_dpm_framegroup **out,
                                   uint32_t *count, uint32_t *err_line)
{
    *out = NULL;
    *count = 0;
    if (err_line) *err_line = 0;
    bk_dpm_framegroup *g = NULL;
    uint32_t n = 0, cap = 0, line = 0;
    size_t i = 0;
    while (i < len) {
        size_t s = i;
        while (i < len && text[i] != '\n') i++;
        size_t e = i;
        if (i < len) i++;
        line++;
        char buf[512], name[64] = "";
        size_t l = e - s < sizeof buf - 1 ? e - s : sizeof buf - 1;
        memcpy(buf, text + s, l);
        buf[l] = 0;
        for (size_t k = 0; k < l; k++)
            if (buf[k] == 0) buf[k] = ' ';
        char *c = strstr(buf, "//");
        if (c) {
            *c = 0;
            char *nm = c + 2;
            while (*nm && isspace((unsigned char)*nm)) nm++;
            size_t nl = strlen(nm);
            while (nl && isspace((unsigned char)nm[nl - 1])) nl--;
            if (nl >= sizeof name) nl = sizeof name - 1;
            for (size_t k = 0; k < nl; k++) name[k] = (char)((unsigned char)nm[k] < 32 ? '_' : nm[k]);
            name[nl] = 0;
        }
        double v[4];
        int got = 0;
        char *p = buf;
        for (; got < 4; got++) {
            while (*p && isspace((unsigned char)*p)) p++;
            if (!*p) break;
            const char *end;
            v[got] = bk_strtod(p, &end);
            if (end == p) break;
            p = (char *)end;
        }
        while (*p && isspace((unsigned char)*p)) p++;
        if (got == 0 && !*p) continue; /* blank or comment-only line */
        if (got < 4 || *p || !isfinite(v[0]) || !isfinite(v[1]) || v[0] < 0 || v[1] < 0 || v[0] > 4294967295.0 ||
            v[1] > 4294967295.0) {
            bk_free(g);
            if (err_line) *err_line = line;
            return BK_EFORMAT;
        }
        bk_dpm_framegroup fg;
        memset(&fg, 0, sizeof fg);
        fg.first = (uint32_t)v[0];
        fg.count = (uint32_t)v[1];
        fg.fps = v[2] >= 0.001 && v[2] <= 1e6 ? (float)v[2] : DEFAULT_FPS; /* keeps key times finite */
        fg.loop = v[3] != 0;
        fg.line = line;
        if (name[0]) memcpy(fg.name, name, sizeof name);
        else snprintf(fg.name, sizeof fg.name, "group%u", n);
        if (fg.first >= frame_count || fg.count == 0) continue; /* nothing to play */
        if (fg.count > frame_count - fg.first) {
            fg.count = frame_count - fg.first;
            fg.clamped = 1;
        }
        if (bk_grow((void **)&g, &cap, n + 1, sizeof *g) != BK_OK) {
            bk_free(g);
            return BK_ENOMEM;
        }
        g[n++] = fg;
    }
    *out = g;
    *count = n;
    return BK_OK;
}

/* Frames named NAME_<digits> in a row form one group; anything else is a group of one frame. */
static bk_result groups_from_names(const bk_dpm_model *m, bk_dpm_framegroup **out, uint32_t *count)
{
    bk_dpm_framegroup *g = NULL;
    uint32_t n = 0, cap = 0;
    bool prev_numbered = false;
    for (uint32_t f = 0; f < m->frame_count; f++) {
        const char *nm = m->frames[f].name;
        size_t L = strlen(nm), k = L;
        while (k && isdigit((unsigned char)nm[k - 1])) k--;
        bool numbered = k < L && k > 1 && nm[k - 1] == '_';
        size_t plen = numbered ? k - 1 : L;
        if (plen > sizeof g->name - 1) plen = sizeof g->name - 1;
        if (numbered && prev_numbered && strlen(g[n - 1].name) == plen && strncmp(g[n - 1].name, nm, plen) == 0) {
            g[n - 1].count++;
            continue;
        }
        if (bk_grow((void **)&g, &cap, n + 1, sizeof *g) != BK_OK) {
            bk_free(g);
            return BK_ENOMEM;
        }
        bk_dpm_framegroup *x = &g[n++];
        memset(x, 0, sizeof *x);
        if (plen) memcpy(x->name, nm, plen);
        else snprintf(x->name, sizeof x->name, "frame%u", f);
        x->first = f;
        x->count = 1;
        x->fps = DEFAULT_FPS;
        prev_numbered = numbered && plen;
    }
    *out = g;
    *count = n;
    return BK_OK;
}

/* Find and parse the framegroups for the model: bk_dpm_options' framegroups_path, else MODEL.framegroups
 * (the model's own path, or the same name looked up in the search paths / archive). */
static bk_result load_framegroups(const bk_dpm_model *m, const bk_options *opt, bk_scene *s, bk_dpm_framegroup **out,
                                  uint32_t *count, bool *from_file)
{
    *out = NULL;
    *count = 0;
    *from_file = false;
    uint8_t *text = NULL;
    size_t len = 0;
    char path[2048] = "";
    bk_result r = BK_ENOTFOUND;
    const bk_dpm_options *dpo = (const bk_dpm_options *)bk_options_find(opt, BK_OPTIONS_DPM);
    if (dpo && dpo->framegroups_path) {
        snprintf(path, sizeof path, "%s", dpo->framegroups_path);
        r = bk_read_file_opt(opt, path, 1u << 20, &text, &len);
        if (r != BK_OK) {
            bk_scene_diag(s, opt, BK_SEV_ERROR, r, path, NULL, BK_NO_INDEX, BK_NO_OFFSET, "cannot read the framegroups file: %s", bk_strerror(r));
            return r;
        }
    } else if (opt->name) {
        const char *name = opt->name;
        const char *member = NULL;
        for (const char *p = strstr(name, ".pk3:"); p; p = strstr(p + 1, ".pk3:")) member = p + 5;
        for (const char *p = strstr(name, ".zip:"); p && !member; p = strstr(p + 1, ".zip:")) member = p + 5;
        if (member) {
            snprintf(path, sizeof path, "%s.framegroups", member);
            bk_vfs *v = bk_vfs_new(opt);
            if (v) r = bk_vfs_read(v, path, 1u << 20, &text, &len);
            bk_vfs_free(v);
        } else {
            snprintf(path, sizeof path, "%s.framegroups", name);
            r = bk_read_file_opt(opt, path, 1u << 20, &text, &len);
            if (r != BK_OK && opt->base_dir) {
                const char *base = strrchr(name, '/');
                base = base ? base + 1 : name;
                char rel[1024];
                snprintf(rel, sizeof rel, "%s.framegroups", base);
                bk_options o2 = *opt;
                o2.search_path_count = 0; /* only the model's own folder */
                bk_vfs *v = bk_vfs_new(&o2);
                if (v) r = bk_vfs_read(v, rel, 1u << 20, &text, &len);
                bk_vfs_free(v);
            }
        }
    }
    if (r == BK_OK) {
        uint32_t line = 0;
        r = bk_dpm_framegroups_parse((const char *)text, len, m->frame_count, out, count, &line);
        bk_free(text);
        if (r == BK_EFORMAT) {
            bk_scene_diag(s, opt, BK_SEV_ERROR, r, path, "line", line, BK_NO_OFFSET, "expected 'first count fps loop' (four numbers)");
            return r;
        }
        if (r != BK_OK) return r;
        *from_file = true;
        for (uint32_t i = 0; i < *count; i++)
            if ((*out)[i].clamped) {
                bk_scene_diag(s, opt, BK_SEV_WARNING, BK_EINDEX, path, "line", (*out)[i].line, BK_NO_OFFSET,
                        "group '%s' runs past the last frame %u; cut to %u frames", (*out)[i].name, m->frame_count - 1,
                        (*out)[i].count);
            }
        if (*count) return BK_OK;
        bk_free(*out);
        *out = NULL;
        *from_file = false;
    }
    return groups_from_names(m, out, count);
}

/* ---- materials ---------------------------------------------------------------------------- */

static int32_t material_for(bk_scene *s, const char *shader, const bk_options *opt, bk_vfs *vfs, bk_result *err)
{
    int32_t mi = bk_scene_find_material(s, shader);
    if (mi >= 0) return mi;
    if ((*err = bk_scene_add_material(s, shader, &mi)) != BK_OK) return -1;
    bk_material *mat = &s->materials[mi];
    bk_kv_append(&mat->extras, &mat->extra_count, "shader", shader);
    bool found = false;
    if (vfs && !(opt->flags & BK_OPT_NO_TEXTURES)) {
        static const char *const exts[] = {".tga", ".png", ".jpg", ""};
        const char *base = strrchr(shader, '/');
        base = base ? base + 1 : shader;
        for (int pass = 0; pass < 2 && !found; pass++) {
            const char *stem = pass == 0 ? shader : base;
            if (pass == 1 && base == shader) break;
            for (size_t e = 0; e < BK_ARRAY_LEN(exts) && !found; e++) {
                char rel[128];
                snprintf(rel, sizeof rel, "%s%s", stem, exts[e]);
                uint8_t *bytes = NULL;
                size_t len = 0;
                if (bk_vfs_read(vfs, rel, 64u << 20, &bytes, &len) != BK_OK) continue;
                uint8_t *rgba = NULL;
                uint32_t w = 0, h = 0;
                if (bk_image_decode(bytes, len, bk_limits_of(opt).max_texture_dim, &rgba, &w, &h) == BK_OK) {
                    int32_t img;
                    if (bk_scene_add_image(s, shader, w, h, rgba, &img) == BK_OK) {
                        mat = &s->materials[mi];
                        mat->base_image = img;
                        if (s->images[img].has_alpha) mat->alpha_mode = BK_ALPHA_MASK;
                        bk_kv_append(&mat->extras, &mat->extra_count, "texture", rel);
                        found = true;
                    } else {
                        bk_free(rgba);
                    }
                }
                bk_free(bytes);
            }
        }
    }
    mat = &s->materials[mi];
    if (!found) {
        mat->base_color[0] = mat->base_color[1] = mat->base_color[2] = 0.6f;
        bk_kv_append(&mat->extras, &mat->extra_count, "missing", "1");
    }
    if (strstr(shader, "nodraw")) {
        mat->alpha_mode = BK_ALPHA_BLEND;
        mat->base_color[3] = 0.0f;
    }
    return mi;
}

/* ---- matrices ------------------------------------------------------------------------------ */

/* inverse of a 3x4 affine (row-major) into a column-major 4x4; false if singular */
static bool inverse_to_mat4(const float *m, float *o)
{
    double a = m[0], b = m[1], c = m[2], d = m[4], e = m[5], f = m[6], g = m[8], h = m[9], i = m[10];
    double A = e * i - f * h, B = -(d * i - f * g), C = d * h - e * g;
    double det = a * A + b * B + c * C;
    memset(o, 0, 16 * sizeof(float));
    o[0] = o[5] = o[10] = o[15] = 1;
    if (!(fabs(det) > 1e-12) || !isfinite(det)) return false;
    double inv[9] = {A / det, -(b * i - c * h) / det, (b * f - c * e) / det,
                     B / det, (a * i - c * g) / det,  -(a * f - c * d) / det,
                     C / det, -(a * h - b * g) / det, (a * e - b * d) / det}; /* row-major */
    double t[3] = {m[3], m[7], m[11]};
    for (int r = 0; r < 3; r++) {
        for (int cc = 0; cc < 3; cc++) o[cc * 4 + r] = (float)inv[r * 3 + cc];
        o[12 + r] = (float)-(inv[r * 3] * t[0] + inv[r * 3 + 1] * t[1] + inv[r * 3 + 2] * t[2]);
    }
    return true;
}

/* ---- the scene ------------------------------------------------------------------------------ */

static bk_result build_meshes(const bk_dpm_model *m, const bk_options *opt, bk_scene *s, const float *bones,
                              uint64_t *over4, uint64_t *disagree)
{
    bk_vfs *vfs = (opt->flags & BK_OPT_NO_TEXTURES) ? NULL : bk_vfs_new_game(opt);
    bk_result r = BK_OK;
    for (uint32_t mi = 0; mi < m->mesh_count && r == BK_OK; mi++) {
        const bk_dpm_mesh *me = &m->meshes[mi];
        int32_t mat = material_for(s, me->shader, opt, vfs, &r);
        if (r != BK_OK) break;
        int32_t mesh;
        if ((r = bk_scene_add_mesh(s, me->shader, &mesh)) != BK_OK) break;
        bk_primitive *p;
        if ((r = bk_mesh_add_primitive(&s->meshes[mesh], mat, BK_PRIM_TRIANGLES,
                                       BK_ATTR_NORMAL | BK_ATTR_UV0 | BK_ATTR_SKIN, &p)) != BK_OK)
            break;
        if (!me->vertex_count) continue;
        uint32_t first;
        if ((r = bk_prim_add_vertices(p, me->vertex_count, &first)) != BK_OK) break;
        bk_dpm_skin(m, mi, bones, p->position, p->normal);
        memcpy(p->uv0, me->texcoords, (size_t)me->vertex_count * 2 * sizeof(float));
        for (uint32_t v = 0; v < me->vertex_count; v++) {
            /* the strongest four influences, renormalised (the exporter normalises the sum) */
            uint32_t best[4] = {0, 0, 0, 0};
            float bw[4] = {-1, -1, -1, -1};
            uint32_t nonzero = 0;
            for (uint32_t j = me->first_influence[v]; j < me->first_influence[v + 1]; j++) {
                float w = me->influences[j].influence;
                if (w > 0) nonzero++;
                for (int k = 0; k < 4; k++)
                    if (w > bw[k]) {
                        for (int q = 3; q > k; q--) {
                            bw[q] = bw[q - 1];
                            best[q] = best[q - 1];
                        }
                        bw[k] = w;
                        best[k] = me->influences[j].bone;
                        break;
                    }
            }
            if (nonzero > 4) (*over4)++;
            /* glTF skins one bind position; DPM keeps a bone-local origin per influence. They agree
             * when every influence puts the vertex at the same place in frame 0. */
            for (uint32_t j = me->first_influence[v]; nonzero > 1 && j < me->first_influence[v + 1]; j++) {
                const bk_dpm_influence *x = &me->influences[j];
                if (!(x->influence > 1e-4f)) continue;
                const float *b = bones + (size_t)x->bone * 12;
                float d = 0;
                for (int c = 0; c < 3; c++) {
                    float w = (b[c * 4] * x->origin[0] + b[c * 4 + 1] * x->origin[1] + b[c * 4 + 2] * x->origin[2]) /
                                  x->influence + b[c * 4 + 3];
                    d = fmaxf(d, fabsf(w - p->position[(size_t)v * 3 + c]));
                }
                if (d > 0.01f) {
                    (*disagree)++;
                    break;
                }
            }
            float sum = 0;
            for (int k = 0; k < 4; k++) sum += bw[k] > 0 ? bw[k] : 0;
            for (int k = 0; k < 4; k++) {
                p->joints[(size_t)v * 4 + k] = bw[k] > 0 ? (uint16_t)best[k] : 0;
                p->weights[(size_t)v * 4 + k] = bw[k] > 0 && sum > 0 ? bw[k] / sum : 0;
            }
            if (!(sum > 0)) p->weights[(size_t)v * 4] = 1.0f;
        }
        if (me->triangle_count && (r = bk_prim_add_indices(p, me->indices, me->triangle_count * 3)) != BK_OK) break;
    }
    bk_vfs_free(vfs);
    return r;
}

static bk_result build_animations(const bk_dpm_model *m, const bk_options *opt, bk_scene *s)
{
    bk_dpm_framegroup *g = NULL;
    uint32_t ng = 0;
    bool from_file;
    BK_TRY(load_framegroups(m, opt, s, &g, &ng, &from_file));
    bk_result r = BK_OK;
    float *t = NULL, *q = NULL, *sc = NULL;
    size_t nb = m->bone_count;
    for (uint32_t gi = 0; gi < ng && r == BK_OK; gi++) {
        const bk_dpm_framegroup *fg = &g[gi];
        int32_t ai;
        if ((r = bk_scene_add_animation(s, fg->name, &ai)) != BK_OK) break;
        /* on failure the old blocks stay valid (and are freed below) */
        float *nt = bk_realloc(t, (size_t)fg->count * nb * 3 * sizeof(float));
        if (nt) t = nt;
        float *nq = nt ? bk_realloc(q, (size_t)fg->count * nb * 4 * sizeof(float)) : NULL;
        if (nq) q = nq;
        float *ns = nq ? bk_realloc(sc, (size_t)fg->count * nb * 3 * sizeof(float)) : NULL;
        if (ns) sc = ns;
        if (!ns) {
            r = BK_ENOMEM;
            break;
        }
        for (uint32_t k = 0; k < fg->count; k++) {
            const float *pose = m->frames[fg->first + k].pose;
            for (size_t b = 0; b < nb; b++) {
                float *qq = q + (k * nb + b) * 4;
                bk_dpm_mat_decompose(pose + b * 12, t + (k * nb + b) * 3, qq, sc + (k * nb + b) * 3);
                if (k) { /* same hemisphere as the previous key: no long-way-round interpolation */
                    const float *pq = q + ((k - 1) * nb + b) * 4;
                    if (pq[0] * qq[0] + pq[1] * qq[1] + pq[2] * qq[2] + pq[3] * qq[3] < 0)
                        for (int c = 0; c < 4; c++) qq[c] = -qq[c];
                }
            }
        }
        for (size_t b = 0; b < nb && r == BK_OK; b++) {
            for (uint32_t path = BK_PATH_TRANSLATION; path <= BK_PATH_SCALE && r == BK_OK; path++) {
                bk_channel *ch;
                if ((r = bk_animation_add_channel(&s->anims[ai], (int32_t)b + 1, path, fg->count, &ch)) != BK_OK) break;
                uint32_t comps = path == BK_PATH_ROTATION ? 4 : 3;
                const float *src = path == BK_PATH_TRANSLATION ? t : path == BK_PATH_ROTATION ? q : sc;
                for (uint32_t k = 0; k < fg->count; k++) {
                    ch->times[k] = (float)k / fg->fps;
                    memcpy(ch->values + (size_t)k * comps, src + (k * nb + b) * comps, comps * sizeof(float));
                }
                ch->interpolation = BK_INTERP_LINEAR;
            }
        }
    }
    bk_free(t);
    bk_free(q);
    bk_free(sc);
    bk_free(g);
    return r;
}

bk_result bk_dpm_build_scene(const bk_file *f, const bk_options *opt, bk_scene *s)
{
    const bk_dpm_model *m = bk_dpm_model_of(f);
    if (!m || !m->bone_count || !m->frame_count) return BK_EFORMAT;
    const char *nm = opt->name ? opt->name : "dpm";
    const char *base = strrchr(nm, '/');
    s->name = bk_strdup(base ? base + 1 : nm);
    size_t nb = m->bone_count;
    float *rel0 = m->frames[0].pose;
    float *bones = bk_malloc(nb * 12 * sizeof(float));
    if (!bones || !s->name) {
        bk_free(bones);
        return BK_ENOMEM;
    }
    bk_dpm_pose(m, 0, 0, 0, BK_DPM_LERP_MATRIX, bones);
    uint64_t over4 = 0, disagree = 0;
    bk_result r = build_meshes(m, opt, s, bones, &over4, &disagree);
    /* node 0: the armature (a common root for the joints, as glTF wants); then one joint node per
     * bone, same order, parents shifted by one */
    int32_t arm = -1;
    if (r == BK_OK) r = bk_scene_add_node(s, s->name, -1, -1, &arm);
    for (uint32_t b = 0; b < nb && r == BK_OK; b++) {
        int32_t node;
        int32_t parent = m->bones[b].parent >= 0 ? m->bones[b].parent + 1 : arm;
        r = bk_scene_add_node(s, m->bones[b].name[0] ? m->bones[b].name : "bone", parent, -1, &node);
        if (r != BK_OK) break;
        bk_node *n = &s->nodes[node];
        bk_dpm_mat_decompose(rel0 + (size_t)b * 12, n->translation, n->rotation, n->scale);
        if (m->bones[b].flags & BK_DPM_BONEFLAG_ATTACHMENT) bk_kv_append(&n->extras, &n->extra_count, "attachment", "1");
    }
    int32_t skin = -1;
    if (r == BK_OK) r = bk_scene_add_skin(s, "skeleton", (uint32_t)nb, &skin);
    uint32_t singular = 0;
    if (r == BK_OK) {
        bk_skin *k = &s->skins[skin];
        for (uint32_t b = 0; b < nb; b++) {
            k->joints[b] = (int32_t)b + 1;
            if (!inverse_to_mat4(bones + (size_t)b * 12, k->inverse_bind + (size_t)b * 16)) singular++;
        }
        k->skeleton = arm;
    }
    for (uint32_t mi = 0; mi < s->mesh_count && r == BK_OK; mi++) {
        int32_t node;
        r = bk_scene_add_node(s, s->meshes[mi].name, -1, (int32_t)mi, &node);
        if (r == BK_OK) s->nodes[node].skin = skin;
    }
    if (r == BK_OK && !(opt->flags & BK_OPT_NO_ANIMATIONS)) r = build_animations(m, opt, s);
    if (r == BK_OK && over4) {
        bk_scene_diag(s, opt, BK_SEV_WARNING, BK_ELIMIT, NULL, NULL, BK_NO_INDEX, BK_NO_OFFSET,
                "%llu vertices have more than 4 bone influences; glTF keeps the strongest 4, renormalised",
                (unsigned long long)over4);
    }
    if (r == BK_OK && disagree) {
        bk_scene_diag(s, opt, BK_SEV_WARNING, BK_EFORMAT, NULL, NULL, BK_NO_INDEX, BK_NO_OFFSET,
                "%llu vertices have influences that disagree on the frame-0 position; glTF skins them from the "
                "blended position, so their animation differs from the engine's",
                (unsigned long long)disagree);
    }
    if (r == BK_OK && singular) {
        bk_scene_diag(s, opt, BK_SEV_WARNING, BK_EFORMAT, NULL, NULL, BK_NO_INDEX, BK_NO_OFFSET,
                "%u bones have a singular base-pose matrix; identity inverse bind matrices used", singular);
    }
    char buf[32];
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)over4);
    if (r == BK_OK) bk_kv_append(&s->extras, &s->extra_count, "vertices_over_4_influences", buf);
    bk_free(bones);
    return r;
}
