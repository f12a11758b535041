/* The front door's step from a loaded file to the neutral scene (bytes -> decoder -> scene): the
 * family builds its scene, the collision pieces are added when asked for, names are made UTF-8 and the
 * builders' spare capacity is given back. */
#include <stdio.h>

#define BK_ADVANCED_API /* the speed and memory knobs (bspkit/advanced.h) */
#include "bspkit/advanced.h"
#include "../formats/family.h"
#include "../scene/collision.h"
#include "../scene/scene_build.h"

bk_result bk_scene_build(const bk_file *f, const bk_options *opt, uint32_t own_flags, bk_scene **out)
{
    if (!f || !out) return BK_EARG;
    *out = NULL;
    if (!f->family->ops->build_scene) return BK_EUNSUPPORTED;
    BK_TRY(bk_file_complete((bk_file *)f, opt)); /* a deferred load, its diagnostics to opt */
    bk_scene *s = bk_scene_new();
    if (!s) return BK_ENOMEM;
    bk_options o = {0};
    if (opt) o = *opt;
    o.flags = (o.flags & ~BK_OPT_INTERNAL_) | (own_flags & BK_OPT_INTERNAL_);
    if (!o.name) o.name = f->name;
    /* a mapped input's pages come back as the builder reads them: the parts a scene never reads
     * (visibility, light grids, lumps already decoded into the file's arrays) stay out */
    bool release = (o.flags & BK_OPT_RELEASE_INPUT) && f->mapped;
    if (release) bk_mapped_release(f->data, f->size);
    bk_result r = f->family->ops->build_scene(f, &o, s);
    if (r == BK_OK && (o.flags & BK_OPT_COLLISION) && f->family->collision) r = bk_scene_add_collision(f, &o, s, f->family->collision);
    if (r == BK_OK) r = bk_scene_fix_utf8(s);
    if (release) bk_mapped_release(f->data, f->size);
    if (r == BK_OK) bk_scene_shrink(s); /* the builders' spare capacity */
    if (r != BK_OK) {
        bk_scene_free(s);
        return r;
    }
    bk_kv_append(&s->extras, &s->extra_count, "format", bk_format_name(f->format));
    char v[32];
    snprintf(v, sizeof v, "%d", f->info.version);
    bk_kv_append(&s->extras, &s->extra_count, "version", v);
    *out = s;
    return BK_OK;
}

bk_result bk_file_build_scene(const bk_file *f, const bk_options *opt, bk_scene **out)
{
    return bk_scene_build(f, opt, BK_OPT_COMPACT_IMAGES, out);
}

bk_result bk_file_into_scene(bk_file *f, const bk_options *opt, bk_scene **out)
{
    bk_result r = bk_scene_build(f, opt, BK_OPT_COMPACT_IMAGES | BK_OPT_RELEASE_INPUT, out);
    bk_file_free(f);
    return r;
}

bk_result bk_file_extract_images(const bk_file *f, const bk_options *opt, bk_scene **out)
{
    if (!f || !out) return BK_EARG;
    *out = NULL;
    if (!f->family->ops->extract_images) return BK_EUNSUPPORTED;
    bk_scene *s = bk_scene_new();
    if (!s) return BK_ENOMEM;
    bk_options o = {0};
    if (opt) o = *opt;
    o.flags &= ~BK_OPT_INTERNAL_;
    bk_result r = f->family->ops->extract_images(f, &o, s);
    if (r == BK_OK) r = bk_scene_fix_utf8(s);
    if (r != BK_OK) {
        bk_scene_free(s);
        return r;
    }
    *out = s;
    return BK_OK;
}

