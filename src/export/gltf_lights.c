/* The scene's lights as glTF KHR_lights_punctual: the document's "extensions" object with the
 * lights, and what a node holding one needs (its rotation made to aim glTF's local -Z where the
 * scene's node aims its local -Z). Point and spot intensities are per engine unit squared in the
 * scene: in metres they scale by the square of the writer's unit, so I / d^2 stays the same. */
#include <math.h>

#include "gltf_internal.h"

static void str(bk_buf *b, const char *s) { bk_buf_append(b, s, strlen(s)); }

static void nums(bk_buf *b, const char *key, const float *v, int n)
{
    str(b, key);
    for (int c = 0; c < n; c++) {
        if (c) str(b, ",");
        bk_json_num(b, isfinite(v[c]) ? v[c] : 0);
    }
    str(b, "]");
}

static float finite_or(float v, float d) { return isfinite(v) ? v : d; }

void bk_gltf_write_lights(bk_buf *b, const bk_scene *s, const bk_xform *x)
{
    static const char *const types[] = {"point", "spot", "directional"};
    str(b, ",\"extensions\":{\"KHR_lights_punctual\":{\"lights\":[");
    for (uint32_t i = 0; i < s->light_count; i++) {
        const bk_light *l = &s->lights[i];
        uint32_t t = l->type <= BK_LIGHT_DIRECTIONAL ? l->type : BK_LIGHT_POINT;
        str(b, i ? ",{\"name\":" : "{\"name\":");
        bk_json_str(b, l->name ? l->name : "");
        str(b, ",\"type\":");
        bk_json_str(b, types[t]);
        float c[3];
        for (int k = 0; k < 3; k++) c[k] = fminf(fmaxf(finite_or(l->color[k], 1), 0), 1);
        nums(b, ",\"color\":[", c, 3);
        float in = fmaxf(finite_or(l->intensity, 0), 0);
        if (t != BK_LIGHT_DIRECTIONAL) in *= x->s * x->s;
        str(b, ",\"intensity\":");
        bk_json_num(b, in);
        float range = finite_or(l->range, 0);
        if (t != BK_LIGHT_DIRECTIONAL && range > 0) {
            str(b, ",\"range\":");
            bk_json_num(b, range * x->s);
        }
        if (t == BK_LIGHT_SPOT) {
            const float half_pi = 1.5707963f;
            float outer = fminf(fmaxf(finite_or(l->outer_cone, half_pi / 2), 1e-4f), half_pi);
            float inner = fminf(fmaxf(finite_or(l->inner_cone, 0), 0), outer * 0.999f);
            str(b, ",\"spot\":{\"innerConeAngle\":");
            bk_json_num(b, inner);
            str(b, ",\"outerConeAngle\":");
            bk_json_num(b, outer);
            str(b, "}");
        }
        if (l->extra_count) {
            str(b, ",\"extras\":");
            bk_gltf_kv_text(b, l->extras, l->extra_count);
        }
        str(b, "}");
    }
    str(b, "]}}");
}

void bk_gltf_light_rotation(const bk_xform *x, float q[4])
{
    if (!x->rotate) return;
    /* glTF's local -Z to where C (engine -Z) lies, (0, -1, 0): -90 degrees about X */
    const float h = 0.70710678118654752f, fix[4] = {-h, 0, 0, h};
    float in[4] = {q[0], q[1], q[2], q[3]};
    bk_quat_mul(in, fix, q);
}
