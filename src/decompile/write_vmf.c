/* The neutral brush model as the .vmf Hammer reads: versioninfo, the world with its solids, the
 * entities with their keys, a connections block of their outputs and their solids. Ids count up
 * from 1 over worlds, solids, sides and entities, as Hammer numbers them. */
#include <math.h>

#include "decompile.h"

static void put_kv(bk_buf *o, int depth, const char *k, const char *v)
{
    static const char tabs[] = "\t\t\t\t\t\t";
    bk_buf_append(o, tabs, (size_t)(depth < 6 ? depth : 6));
    bk_put_quoted(o, k);
    bk_buf_append(o, " ", 1);
    bk_put_quoted(o, v);
    bk_buf_append(o, "\n", 1);
}

static void put_kvu(bk_buf *o, int depth, const char *k, uint64_t v)
{
    char t[24];
    snprintf(t, sizeof t, "%llu", (unsigned long long)v);
    put_kv(o, depth, k, t);
}

/* "[x y z offset] scale" of texel vector v (s = v.xyz . p + v.w) */
static void put_axis(bk_buf *o, const char *key, const double v[4])
{
    double len = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    bk_buf_printf(o, "\t\t\t\"%s\" \"[", key);
    for (int k = 0; k < 3; k++) {
        bk_put_num(o, v[k] / len, 8);
        bk_buf_append(o, " ", 1);
    }
    bk_put_num(o, v[3], 4);
    bk_buf_append(o, "] ", 2);
    bk_put_num(o, 1.0 / len, 6);
    bk_buf_append(o, "\"\n", 2);
}

/* Hammer's default for a side without texture vectors: the axial plane nearest the side, 0.25 */
static void default_axes(const bk_dside *s, double ax[2][4])
{
    double x = fabs(s->n[0]), y = fabs(s->n[1]), z = fabs(s->n[2]);
    memset(ax, 0, sizeof(double) * 8);
    if (z >= x && z >= y) ax[0][0] = 4, ax[1][1] = -4;
    else if (x >= y) ax[0][1] = 4, ax[1][2] = -4;
    else ax[0][0] = 4, ax[1][2] = -4;
}

static void put_solid(bk_buf *o, const bk_dmap *m, const bk_dbrush *b, uint64_t *id, uint64_t *side_id)
{
    bk_buf_printf(o, "\tsolid\n\t{\n");
    put_kvu(o, 2, "id", (*id)++);
    for (uint32_t i = 0; i < b->side_count; i++) {
        const bk_dside *s = &m->sides[b->first_side + i];
        bk_buf_printf(o, "\t\tside\n\t\t{\n");
        side_id[b->first_side + i] = *id;
        put_kvu(o, 3, "id", (*id)++);
        bk_buf_append(o, "\t\t\t\"plane\" \"", 12);
        bk_put_points(o, s, true);
        bk_buf_append(o, "\"\n", 2);
        put_kv(o, 3, "material", s->material);
        double def[2][4];
        const double(*ax)[4] = s->axes;
        if (!s->has_axes || !(s->axes[0][0] || s->axes[0][1] || s->axes[0][2]) ||
            !(s->axes[1][0] || s->axes[1][1] || s->axes[1][2])) {
            default_axes(s, def);
            ax = def;
        }
        put_axis(o, "uaxis", ax[0]);
        put_axis(o, "vaxis", ax[1]);
        put_kv(o, 3, "rotation", "0");
        put_kvu(o, 3, "lightmapscale", s->lightmap_scale > 0 ? (uint64_t)s->lightmap_scale : 16);
        put_kv(o, 3, "smoothing_groups", "0");
        if (s->disp) bk_vmf_put_dispinfo(o, m, s);
        bk_buf_printf(o, "\t\t}\n");
    }
    bk_buf_printf(o, "\t\teditor\n\t\t{\n\t\t\t\"color\" \"0 180 223\"\n\t\t\t\"visgroupshown\" \"1\"\n"
                     "\t\t\t\"visgroupautoshown\" \"1\"\n\t\t}\n\t}\n");
}

/* an output's fields joined as Hammer writes them: ',' unless a field holds one (then ESC) */
static void put_connection(bk_buf *o, const char *key, const bk_output *out)
{
    char sep = (strchr(out->target, ',') || strchr(out->input, ',') || strchr(out->parameter, ',')) ? 0x1b : ',';
    bk_buf b = {0};
    bk_buf_printf(&b, "%s%c%s%c%s%c", out->target, sep, out->input, sep, out->parameter, sep);
    bk_put_num(&b, out->delay, 6);
    bk_buf_printf(&b, "%c%d", sep, (int)out->times);
    bk_buf_append(&b, "", 1);
    if (!b.failed) put_kv(o, 2, key, (const char *)b.data);
    else o->failed = true;
    bk_buf_free(&b);
}

/* Entities made here (props, overlays, lights) come after those of the map, so the sides an
 * overlay names are written, and their ids known, before it. */
static void put_entity(bk_buf *o, bk_dmap *m, uint32_t e, bool world, uint64_t *id, uint64_t *side_id)
{
    const bk_dentity *de = &m->ents[e];
    bk_buf_printf(o, "%s\n{\n", world ? "world" : "entity");
    put_kvu(o, 1, "id", (*id)++);
    bool brush_ent = de->brush_count > 0;
    if (!de->src) put_kv(o, 1, "classname", de->classname);
    for (uint32_t k = 0; k < de->kv_count; k++) {
        const uint32_t *kv = m->kvs[de->first_kv + k];
        put_kv(o, 1, (const char *)m->strs.data + kv[0], (const char *)m->strs.data + kv[1]);
    }
    if (de->ref_count) {
        bk_buf b = {0};
        for (uint32_t k = 0; k < de->ref_count; k++)
            bk_buf_printf(&b, k ? " %llu" : "%llu", (unsigned long long)side_id[m->refs[de->first_ref + k]]);
        bk_buf_append(&b, "", 1);
        if (!b.failed) put_kv(o, 1, "sides", (const char *)b.data);
        else o->failed = true;
        bk_buf_free(&b);
    }
    bk_output out;
    uint32_t outputs = 0;
    for (uint32_t k = 0; de->src && k < de->src->pair_count; k++) {
        const bk_kv *kv = &de->src->pairs[k];
        if (brush_ent && strcmp(kv->key, "model") == 0 && kv->value[0] == '*') continue;
        if (!world && bk_output_parse(kv->value, &out) == BK_OK) {
            bk_output_free(&out);
            outputs++;
            continue;
        }
        put_kv(o, 1, kv->key, kv->value);
    }
    if (outputs) {
        bk_buf_printf(o, "\tconnections\n\t{\n");
        for (uint32_t k = 0; k < de->src->pair_count; k++) {
            const bk_kv *kv = &de->src->pairs[k];
            if (bk_output_parse(kv->value, &out) != BK_OK) continue;
            put_connection(o, kv->key, &out);
            bk_output_free(&out);
        }
        bk_buf_printf(o, "\t}\n");
        m->stats.outputs += outputs;
    }
    for (uint32_t b = 0; b < de->brush_count; b++) put_solid(o, m, &m->brushes[de->first_brush + b], id, side_id);
    bk_buf_printf(o, "}\n");
}

bk_result bk_write_vmf(const bk_dmap *cm, bk_buf *o)
{
    bk_dmap *m = (bk_dmap *)cm;   /* counts outputs into its stats */
    uint32_t w = bk_dmap_world(m);
    uint64_t id = 1;
    const char *rev = "0";
    char revbuf[24];
    if (m->ent_count && m->ents[w].src) {
        const char *v = bk_entity_get(m->ents[w].src, "mapversion");
        if (v) {
            snprintf(revbuf, sizeof revbuf, "%ld", strtol(v, NULL, 10));
            rev = revbuf;
        }
    }
    bk_buf_printf(o, "versioninfo\n{\n\t\"editorversion\" \"400\"\n\t\"editorbuild\" \"0\"\n\t\"mapversion\" \"%s\"\n"
                     "\t\"formatversion\" \"100\"\n\t\"prefab\" \"0\"\n}\nvisgroups\n{\n}\n"
                     "viewsettings\n{\n\t\"bSnapToGrid\" \"1\"\n\t\"bShowGrid\" \"1\"\n\t\"bShowLogicalGrid\" \"0\"\n"
                     "\t\"nGridSpacing\" \"64\"\n\t\"bShow3DGrid\" \"0\"\n}\n",
                  rev);
    uint64_t *side_id = bk_calloc(m->side_count ? m->side_count : 1, sizeof *side_id);
    if (!side_id) return BK_ENOMEM;
    if (m->ent_count) put_entity(o, m, w, true, &id, side_id);
    else bk_buf_printf(o, "world\n{\n\t\"id\" \"1\"\n\t\"classname\" \"worldspawn\"\n}\n");
    for (uint32_t e = 0; e < m->ent_count; e++)
        if (e != w) put_entity(o, m, e, false, &id, side_id);
    bk_free(side_id);
    bk_buf_printf(o, "cameras\n{\n\t\"activecamera\" \"-1\"\n}\ncordon\n{\n\t\"mins\" \"(-1024 -1024 -1024)\"\n"
                     "\t\"maxs\" \"(1024 1024 1024)\"\n\t\"active\" \"0\"\n}\n");
    return o->failed ? BK_ENOMEM : BK_OK;
}
