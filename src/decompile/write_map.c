/* The neutral brush model as the .map q3map2 and NetRadiant read: brushes in brush primitives
 * (brushDef: three points, the texture matrix, the shader), patches as patchDef2. Shader names
 * are written without their "textures/" (the readers put it back); the worldspawn comes first. */
#include "decompile.h"

static const char *shader_name(const char *s)
{
    return bk_strncasecmp_prefix(s, "textures/") && s[9] ? s + 9 : s;
}

static void put_keys(bk_buf *o, const bk_dentity *e, bool brush_entity)
{
    if (!e->src) {
        bk_buf_printf(o, "\"classname\" ");
        bk_put_quoted(o, e->classname);
        bk_buf_append(o, "\n", 1);
        return;
    }
    for (uint32_t k = 0; k < e->src->pair_count; k++) {
        const bk_kv *kv = &e->src->pairs[k];
        /* the compiler's model number: the brushes written below are the model */
        if (brush_entity && strcmp(kv->key, "model") == 0 && kv->value[0] == '*') continue;
        bk_put_quoted(o, kv->key);
        bk_buf_append(o, " ", 1);
        bk_put_quoted(o, kv->value);
        bk_buf_append(o, "\n", 1);
    }
}

static void put_brush(bk_buf *o, const bk_dmap *m, const bk_dbrush *b, uint32_t n)
{
    bk_buf_printf(o, "// brush %u (brushes[%u])\n{\nbrushDef\n{\n", n, b->src);
    for (uint32_t i = 0; i < b->side_count; i++) {
        const bk_dside *s = &m->sides[b->first_side + i];
        bk_put_points(o, s, false);
        static const double def[2][4] = {{1.0 / 128, 0, 0, 0}, {0, 1.0 / 128, 0, 0}};
        const double(*ax)[4] = s->has_axes ? s->axes : def;
        bk_buf_append(o, " (", 2);
        for (int r = 0; r < 2; r++) {
            bk_buf_append(o, " (", 2);
            for (int c = 0; c < 3; c++) {
                bk_buf_append(o, " ", 1);
                bk_put_num(o, ax[r][c], 10);
            }
            bk_buf_append(o, " )", 2);
        }
        bk_buf_printf(o, " ) %s %u 0 0\n", shader_name(s->material), s->contents);
    }
    bk_buf_append(o, "}\n}\n", 4);
}

static void put_patch(bk_buf *o, const bk_dmap *m, const bk_dpatch *p, uint32_t n)
{
    bk_buf_printf(o, "// brush %u (surfaces[%u])\n{\npatchDef2\n{\n%s\n( %u %u 0 0 0 )\n(\n", n, p->src,
                  shader_name(p->material), p->w, p->h);
    /* a line per column, its points down the rows (q3map2's ParsePatch reads them so) */
    for (uint32_t c = 0; c < p->w; c++) {
        bk_buf_append(o, "(", 1);
        for (uint32_t r = 0; r < p->h; r++) {
            const bk_dpoint *pt = &m->points[p->first_point + r * p->w + c];
            bk_buf_append(o, " (", 2);
            for (int k = 0; k < 3; k++) {
                bk_buf_append(o, " ", 1);
                bk_put_num(o, pt->xyz[k], 6);
            }
            for (int k = 0; k < 2; k++) {
                bk_buf_append(o, " ", 1);
                bk_put_num(o, pt->st[k], 8);
            }
            bk_buf_append(o, " )", 2);
        }
        bk_buf_append(o, " )\n", 3);
    }
    bk_buf_append(o, ")\n}\n}\n", 6);
}

static void put_entity(bk_buf *o, const bk_dmap *m, uint32_t e, uint32_t n)
{
    const bk_dentity *de = &m->ents[e];
    bk_buf_printf(o, "// entity %u\n{\n", n);
    put_keys(o, de, de->brush_count + de->patch_count > 0);
    uint32_t k = 0;
    for (uint32_t b = 0; b < de->brush_count; b++) put_brush(o, m, &m->brushes[de->first_brush + b], k++);
    for (uint32_t p = 0; p < de->patch_count; p++) put_patch(o, m, &m->patches[de->first_patch + p], k++);
    bk_buf_append(o, "}\n", 2);
}

bk_result bk_write_map_q3(const bk_dmap *m, bk_buf *o)
{
    uint32_t w = bk_dmap_world(m), n = 0;
    bk_buf_printf(o, "// decompiled by bspkit %s: brushes in brush primitives; bevel sides left out\n", bk_version());
    if (m->ent_count) put_entity(o, m, w, n++);
    for (uint32_t e = 0; e < m->ent_count; e++)
        if (e != w) put_entity(o, m, e, n++);
    return o->failed ? BK_ENOMEM : BK_OK;
}
