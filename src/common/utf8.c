/* Map and model text is 8-bit (Windows code pages); JSON and glTF must be UTF-8. A string that is
 * not valid UTF-8 is re-encoded reading every byte >= 0x80 as Latin-1. */
#include "bk_internal.h"

bool bk_utf8_valid(const char *s)
{
    if (!s) return 0;
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        if (p[0] < 0x80) {
            p++;
            continue;
        }
        int n = (p[0] & 0xE0) == 0xC0 ? 1 : (p[0] & 0xF0) == 0xE0 ? 2 : (p[0] & 0xF8) == 0xF0 ? 3 : -1;
        if (n < 0 || p[0] == 0xC0 || p[0] == 0xC1 || p[0] > 0xF4) return 0;
        for (int k = 1; k <= n; k++)
            if ((p[k] & 0xC0) != 0x80) return 0;
        /* the second byte's range rules out overlong forms (E0 80.., F0 80..), the UTF-16
         * surrogates (ED A0..ED BF) and values past U+10FFFF (F4 90..) */
        if ((p[0] == 0xE0 && p[1] < 0xA0) || (p[0] == 0xED && p[1] > 0x9F) || (p[0] == 0xF0 && p[1] < 0x90) ||
            (p[0] == 0xF4 && p[1] > 0x8F))
            return 0;
        p += n + 1;
    }
    return 1;
}

char *bk_utf8_from_8bit(const char *s)
{
    if (!s) return NULL;
    if (bk_utf8_valid(s)) return bk_strdup(s);
    size_t n = strlen(s);
    char *o = bk_malloc(n * 2 + 1);
    if (!o) return NULL;
    size_t j = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p < 0x80) {
            o[j++] = (char)*p;
        } else {
            o[j++] = (char)(0xC0 | (*p >> 6));
            o[j++] = (char)(0x80 | (*p & 0x3F));
        }
    }
    o[j] = 0;
    return o;
}

/* replace *str by its UTF-8 form when it is not valid UTF-8 */
static bool fix(char **str)
{
    if (!*str || bk_utf8_valid(*str)) return true;
    char *o = bk_utf8_from_8bit(*str);
    if (!o) return false;
    bk_free(*str);
    *str = o;
    return true;
}

static bool fix_kvs(bk_kv *kv, uint32_t n)
{
    bool ok = true;
    for (uint32_t k = 0; k < n; k++) ok = fix(&kv[k].key) && fix(&kv[k].value) && ok;
    return ok;
}

bk_result bk_scene_fix_utf8(bk_scene *s)
{
    bool ok = fix(&s->name);
    for (uint32_t i = 0; i < s->image_count; i++) ok = fix(&s->images[i].name) && ok;
    for (uint32_t i = 0; i < s->mesh_count; i++) ok = fix(&s->meshes[i].name) && ok;
    for (uint32_t i = 0; i < s->material_count; i++)
        ok = fix(&s->materials[i].name) && fix_kvs(s->materials[i].extras, s->materials[i].extra_count) && ok;
    for (uint32_t i = 0; i < s->node_count; i++)
        ok = fix(&s->nodes[i].name) && fix_kvs(s->nodes[i].extras, s->nodes[i].extra_count) && ok;
    for (uint32_t i = 0; i < s->skin_count; i++) ok = fix(&s->skins[i].name) && ok;
    for (uint32_t i = 0; i < s->anim_count; i++) ok = fix(&s->anims[i].name) && ok;
    for (uint32_t i = 0; i < s->light_count; i++)
        ok = fix(&s->lights[i].name) && fix_kvs(s->lights[i].extras, s->lights[i].extra_count) && ok;
    for (uint32_t i = 0; i < s->lightstyle_count; i++)
        ok = fix(&s->lightstyles[i].pattern) && fix(&s->lightstyles[i].targetname) && ok;
    ok = fix_kvs(s->extras, s->extra_count) && ok;
    return ok ? BK_OK : BK_ENOMEM;
}
