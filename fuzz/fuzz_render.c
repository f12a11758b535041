/* Fuzz the renderer: a file of any kind that loads and builds a scene (with its query where the
 * family has one) is drawn small from its default view, from an eye inside its bounds, and as an
 * overview. Large scenes are skipped (they only slow the fuzzer). */
#include <stdint.h>
#include <string.h>

#include "bspkit/render.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bk_options opt;
    bk_file *f = fuzz_load(data, size, &opt);
    if (!f) return 0;
    bk_scene *s = NULL;
    if (bk_file_build_scene(f, &opt, &s) == BK_OK) {
        bk_query *q = NULL;
        if (bk_query_open(f, &opt, &q) != BK_OK) q = NULL;
        bk_renderer *r = NULL;
        if (fuzz_scene_small(s) && bk_renderer_new(s, q, &r) == BK_OK) {
            bk_render_options o;
            memset(&o, 0, sizeof o);
            o.width = 48, o.height = 32, o.threads = 1;
            uint8_t *out = NULL;
            bk_render_info ri;
            if (bk_renderer_draw(r, &o, &out, &ri) == BK_OK) bk_free(out);
            o.view = BK_VIEW_EYE;
            o.yaw = (float)(size % 360), o.pitch = (float)(size % 90) - 45;
            if (bk_renderer_draw(r, &o, &out, &ri) == BK_OK) bk_free(out);
            o.view = BK_VIEW_OVERVIEW;
            if (bk_renderer_draw(r, &o, &out, &ri) == BK_OK) bk_free(out);
            bk_renderer_free(r);
        }
        bk_query_free(q);
        bk_scene_free(s);
    }
    bk_file_free(f);
    return 0;
}
