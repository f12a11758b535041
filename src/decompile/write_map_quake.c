/* The neutral brush model as the .map of the Quake 1 / GoldSrc tools: Valve 220 (TrenchBroom,
 * J.A.C.K., ericw-tools, VHLT: `TEX [ ux uy uz uoff ] [ vx vy vz voff ] rot sx sy`) or the classic
 * Quake axes (`TEX xoff yoff rot xscale yscale`, the texture projected on the closest axis plane).
 * A side's axes hold the texinfo's vectors (s = axes[0].xyz . p + axes[0][3]). */
#include <math.h>

#include "decompile.h"

/* qbsp's TextureAxisFromPlane table: the normal of each axis plane, then its s and t axes */
static const double k_base[18][3] = {
    {0, 0, 1}, {1, 0, 0}, {0, -1, 0},    /* floor */
    {0, 0, -1}, {1, 0, 0}, {0, -1, 0},   /* ceiling */
    {1, 0, 0}, {0, 1, 0}, {0, 0, -1},    /* west wall */
    {-1, 0, 0}, {0, 1, 0}, {0, 0, -1},   /* east wall */
    {0, 1, 0}, {1, 0, 0}, {0, 0, -1},    /* south wall */
    {0, -1, 0}, {1, 0, 0}, {0, 0, -1},   /* north wall */
};

static int axis_plane(const double n[3])
{
    int best = 0;
    double bd = 0;
    for (int i = 0; i < 6; i++) {
        double d = n[0] * k_base[i * 3][0] + n[1] * k_base[i * 3][1] + n[2] * k_base[i * 3][2];
        if (d > bd) bd = d, best = i;
    }
    return best;
}

static bool is_gold(const bk_dmap *m) { return bk_file_format(m->f) == BK_FORMAT_GOLDSRC; }

static void put_name(bk_buf *o, const char *s)
{
    /* a name is one word: a space would end it */
    for (const char *p = s; *p; p++) bk_buf_append(o, *p == ' ' || *p == '"' ? "_" : p, 1);
}

static void put_side(bk_buf *o, const bk_dside *s, bool valve)
{
    bk_put_points(o, s, false);
    bk_buf_append(o, " ", 1);
    put_name(o, s->material ? s->material : "skip");
    int ap = axis_plane(s->n);
    double v[2][4];
    if (s->has_axes) memcpy(v, s->axes, sizeof v);
    else
        for (int r = 0; r < 2; r++) {
            for (int k = 0; k < 3; k++) v[r][k] = k_base[ap * 3 + 1 + r][k];
            v[r][3] = 0;
        }
    if (valve) {
        double sc[2];
        for (int r = 0; r < 2; r++) {
            double l = sqrt(v[r][0] * v[r][0] + v[r][1] * v[r][1] + v[r][2] * v[r][2]);
            if (!(l > 1e-9)) l = 1, v[r][0] = k_base[ap * 3 + 1 + r][0], v[r][1] = k_base[ap * 3 + 1 + r][1],
                             v[r][2] = k_base[ap * 3 + 1 + r][2];
            sc[r] = 1 / l;
            bk_buf_append(o, " [", 2);
            for (int k = 0; k < 3; k++) {
                bk_buf_append(o, " ", 1);
                bk_put_num(o, v[r][k] / l, 8);
            }
            bk_buf_append(o, " ", 1);
            bk_put_num(o, v[r][3], 4);
            bk_buf_append(o, " ]", 2);
        }
        bk_buf_append(o, " 0 ", 3);
        bk_put_num(o, sc[0], 6);
        bk_buf_append(o, " ", 1);
        bk_put_num(o, sc[1], 6);
        bk_buf_append(o, "\n", 1);
        return;
    }
    /* classic: the vectors' components on the axis plane's s and t axes (sv, tv) give the
     * rotation and the scales (qbsp rotates xv, yv in that plane, then divides by the scales) */
    const double *xv = k_base[ap * 3 + 1], *yv = k_base[ap * 3 + 2];
    int sv = xv[0] ? 0 : xv[1] ? 1 : 2, tv = yv[0] ? 0 : yv[1] ? 1 : 2;
    double a = xv[sv], b = yv[tv];
    double cs = v[0][sv] / a, sn = v[0][tv] / a;   /* cos / xscale, sin / xscale */
    double l = sqrt(cs * cs + sn * sn);
    double rot = 0, xs = 1, ys = 1;
    if (l > 1e-9) {
        rot = atan2(sn, cs) * 180 / M_PI;
        xs = 1 / l;
        double c = cs / l, s2 = sn / l;
        double dy = -s2 * b * v[1][sv] + c * b * v[1][tv];
        ys = fabs(dy) > 1e-9 ? 1 / dy : 1;
    }
    bk_buf_append(o, " ", 1);
    bk_put_num(o, v[0][3], 4);
    bk_buf_append(o, " ", 1);
    bk_put_num(o, v[1][3], 4);
    bk_buf_append(o, " ", 1);
    bk_put_num(o, rot, 4);
    bk_buf_append(o, " ", 1);
    bk_put_num(o, xs, 6);
    bk_buf_append(o, " ", 1);
    bk_put_num(o, ys, 6);
    bk_buf_append(o, "\n", 1);
}

static void put_entity(bk_buf *o, const bk_dmap *m, uint32_t e, uint32_t n, bool valve, bool world)
{
    const bk_dentity *de = &m->ents[e];
    bk_buf_printf(o, "// entity %u\n{\n", n);
    if (!de->src) {
        bk_buf_printf(o, "\"classname\" ");
        bk_put_quoted(o, de->classname);
        bk_buf_append(o, "\n", 1);
    } else
        for (uint32_t k = 0; k < de->src->pair_count; k++) {
            const bk_kv *kv = &de->src->pairs[k];
            if (de->brush_count && strcmp(kv->key, "model") == 0 && kv->value[0] == '*') continue;
            if (world && strcmp(kv->key, "mapversion") == 0) continue;
            bk_put_quoted(o, kv->key);
            bk_buf_append(o, " ", 1);
            bk_put_quoted(o, kv->value);
            bk_buf_append(o, "\n", 1);
        }
    if (world && valve) bk_buf_append(o, "\"mapversion\" \"220\"\n", 19);
    for (uint32_t b = 0; b < de->brush_count; b++) {
        const bk_dbrush *br = &m->brushes[de->first_brush + b];
        bk_buf_printf(o, "// brush %u\n{\n", b);
        for (uint32_t i = 0; i < br->side_count; i++) put_side(o, &m->sides[br->first_side + i], valve);
        bk_buf_append(o, "}\n", 2);
    }
    bk_buf_append(o, "}\n", 2);
}

bk_result bk_write_map_quake(const bk_dmap *m, bk_buf *o, bool valve)
{
    uint32_t w = bk_dmap_world(m), n = 0;
    bk_buf_printf(o, "// Game: %s\n// Format: %s\n// decompiled by bspkit %s: brushes rebuilt from the BSP tree\n",
                  is_gold(m) ? "Half-Life" : "Quake", valve ? "Valve" : "Standard", bk_version());
    if (m->ent_count) put_entity(o, m, w, n++, valve, true);
    for (uint32_t e = 0; e < m->ent_count; e++)
        if (e != w) put_entity(o, m, e, n++, valve, false);
    return o->failed ? BK_ENOMEM : BK_OK;
}
