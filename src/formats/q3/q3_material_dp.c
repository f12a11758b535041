/* Quake 3 shaders as DarkPlaces (Nexuiz, Xonotic) reads them: one "primary" layer (the first, or
 * the second when the first is $lightmap) gives the texture, the first layer's blendFunc the
 * blending, a $lightmap or vertex-colour layer the lighting; beside the texture it loads
 * NAME_norm, NAME_gloss and NAME_glow (normal map, specular colour, glow). ioquake3's reading
 * is in q3_material.c. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "q3_internal.h"


static bk_result dp_extra_maps(q3_builder *b, int32_t mi, const char *base)
{
    char stem[256], name[300];
    bk_q3_strip_ext(base, stem, sizeof stem);
    static const char *const suffix[] = {"_glow", "_luma", "_norm", "_gloss"};
    bool glow = false;
    for (int i = 0; i < 4; i++) {
        if (i == 1 && glow) continue;
        snprintf(name, sizeof name, "%.240s%s", stem, suffix[i]);
        q3_img *im = bk_q3_img_get(b, name);
        if (!im) continue;
        int32_t idx;
        BK_TRY(bk_q3_img_scene(b, im, &idx));
        bk_material *m = &b->s->materials[mi];
        if (i <= 1) {
            glow = true;
            m->emissive_image = idx;
            m->emissive[0] = m->emissive[1] = m->emissive[2] = 1;
        } else if (i == 2) {
            m->normal_image = idx;
        } else {
            m->specular_image = idx;
        }
    }
    return BK_OK;
}

bk_result bk_q3_material_dp(q3_builder *b, int32_t mi, const q3_shader_def *def, const char *shader, int kind)
{
    bk_scene *s = b->s;
    const char *image = shader;
    const q3_stage *primary = NULL, *first = NULL;
    bool lighting = true;
    if (def && def->stage_count) {
        first = &def->stage[0];
        primary = first;
        if (first->src == Q3_SRC_LIGHTMAP && def->stage_count > 1) primary = &def->stage[1];
        if (primary->image) image = primary->image;
        lighting = def->lighting;
    }
    q3_img *im = bk_q3_img_get(b, image);
    if (!im && image != shader) im = bk_q3_img_get(b, shader);
    bk_material *m = &s->materials[mi];
    if (im) {
        int32_t idx;
        BK_TRY(bk_q3_img_scene(b, im, &idx));
        m = &s->materials[mi];
        m->base_image = idx;
    } else {
        m->base_color[0] = m->base_color[1] = m->base_color[2] = 0.5f;
        BK_TRY(bk_q3_set_extra(s, mi, "missing", "true"));
        s->warning_count++;
    }
    m = &s->materials[mi];
    if (primary)
        for (int c = 0; c < 3; c++) m->base_color[c] *= bk_q3_to_linear(primary->rgb[c]);
    if (kind == 0 && (!def || !def->stage_count)) {
        /* vertex-lit: texture x vertex colour */
        m->lightmap_image = -1;
        m->unlit = 1;
        BK_TRY(bk_q3_set_extra(s, mi, "vertexColor", "multiply"));
    } else if (!lighting) {
        m->lightmap_image = -1;
        m->unlit = 1;
    } else if (kind == 0) {
        m->lightmap_image = -1;
        m->unlit = 1;
        BK_TRY(bk_q3_set_extra(s, mi, "vertexColor", "multiply"));
    }
    if (first && first->alpha_func) {
        m->alpha_mode = BK_ALPHA_MASK;
        m->alpha_cutoff = first->alpha_func == Q3_AF_GT0 ? 0.004f : 0.5f;
    } else if (first && first->blended) {
        m->alpha_mode = BK_ALPHA_BLEND;
        if (first->bdst == Q3_BF_ONE && (first->bsrc == Q3_BF_ONE || first->bsrc == Q3_BF_SRC_ALPHA)) {
            BK_TRY(bk_q3_set_extra(s, mi, "blend", "add"));
        } else if (!(first->bsrc == Q3_BF_SRC_ALPHA && first->bdst == Q3_BF_ONE_MINUS_SRC_ALPHA)) {
            /* DarkPlaces draws other blends fullbright */
            m->lightmap_image = -1;
            m->unlit = 1;
            if ((first->bsrc == Q3_BF_DST_COLOR && first->bdst == Q3_BF_ZERO) ||
                (first->bsrc == Q3_BF_ZERO && first->bdst == Q3_BF_SRC_COLOR))
                BK_TRY(bk_q3_set_extra(s, mi, "blend", "multiply"));
            else
                BK_TRY(bk_q3_set_extra(s, mi, "blend", "add"));
        }
    } else if (!def && im && im->has_alpha) {
        /* a texture with an alpha channel and no script is alpha-blended */
        m->alpha_mode = BK_ALPHA_BLEND;
    }
    m = &s->materials[mi];
    if (m->alpha_mode != BK_ALPHA_OPAQUE && !(im && im->has_alpha) && !bk_q3_has_extra(m, "blend"))
        m->alpha_mode = BK_ALPHA_OPAQUE;
    if (im) BK_TRY(dp_extra_maps(b, mi, im->name));
    return BK_OK;
}

