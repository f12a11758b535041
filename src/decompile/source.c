/* Source (VBSP) into the neutral brush model. A model's brushes are those its tree reaches (the
 * leaves under its head node, their leaf brushes); the world's detail brushes go back to one
 * func_detail. Each side keeps its texinfo's material and texture vectors; bevel sides (their
 * bevel field) are dropped. Tool materials are restored where the compiler left a side without a
 * texinfo, from what it kept: the brush's contents and the texinfo flags (docs/decompile.md). */
#include <math.h>
#include <stdlib.h>

#include "bspkit/source.h"
#include "decompile.h"

/* contents (bspflags.h; 0x80000 and 0x100000 are CS:GO's grenade and drone clips, the currents of
 * water elsewhere) */
enum {
    C_SOLID = 0x1, C_WINDOW = 0x2, C_GRATE = 0x8, C_SLIME = 0x10, C_WATER = 0x20, C_BLOCKLOS = 0x40,
    C_OPAQUE = 0x80, C_AREAPORTAL = 0x8000, C_PLAYERCLIP = 0x10000, C_MONSTERCLIP = 0x20000,
    C_GRENADECLIP = 0x80000, C_DRONECLIP = 0x100000, C_ORIGIN = 0x1000000, C_DETAIL = 0x8000000,
    C_TRANSLUCENT = 0x10000000, C_LADDER = 0x20000000,
};

/* The tool material a nodraw side's brush contents imply. vbsp shares one texinfo between
 * nodraw sides of the same texture vectors, whatever their material: the first one's name then
 * stands for all (a player clip named toolsinvisibleladder), while the contents stay the brush's
 * own. */
static const char *nodraw_tool(int32_t contents)
{
    bool liquid = contents & (C_WATER | C_SLIME);
    if (contents & C_AREAPORTAL) return "tools/toolsareaportal";
    if (contents & C_LADDER) return "tools/toolsinvisibleladder";
    if ((contents & C_PLAYERCLIP) && (contents & C_MONSTERCLIP)) return "tools/toolsclip";
    if (contents & C_PLAYERCLIP) return "tools/toolsplayerclip";
    if (contents & C_MONSTERCLIP) return "tools/toolsnpcclip";
    if (!liquid && (contents & C_GRENADECLIP)) return "tools/toolsgrenadeclip";
    if (!liquid && (contents & C_DRONECLIP)) return "tools/toolsdroneclip";
    if (contents & C_SOLID) return "tools/toolsnodraw";
    if (contents & C_WINDOW) return "tools/toolsblockbullets";
    if (contents & C_GRATE) return "tools/toolsinvisible";
    if (contents & C_BLOCKLOS) return "tools/toolsblock_los";
    if (contents & C_OPAQUE) return "tools/toolsblocklight";
    if (contents & C_ORIGIN) return "tools/toolsorigin";
    return liquid ? NULL : "tools/toolsnodraw";
}

/* the tool a side without a texinfo stands for */
static const char *flag_tool(int32_t contents, int32_t flags)
{
    if (flags & BK_SRC_SURF_HINT) return "tools/toolshint";
    if (flags & BK_SRC_SURF_SKIP) return "tools/toolsskip";
    if (flags & BK_SRC_SURF_SKY2D) return "tools/toolsskybox2d";
    if (flags & BK_SRC_SURF_SKY) return "tools/toolsskybox";
    if (flags & BK_SRC_SURF_TRIGGER) return "tools/toolstrigger";
    return nodraw_tool(contents);
}

/* name is tool itself or one of its kinds (TOOLS/TOOLSCLIP_CONCRETE for TOOLS/TOOLSCLIP) */
static bool is_tool_kind(const char *name, const char *tool)
{
    size_t n = strlen(tool);
    for (size_t i = 0; i < n; i++)
        if (!name[i] || (name[i] | 0x20) != (tool[i] | 0x20)) return false;
    return name[n] == 0 || name[n] == '_';
}

/* the material of a side: its texinfo's, or the tool its contents and flags imply */
static const char *side_material(int32_t contents, const bk_source_texinfo *ti, const bk_source_texdata *td,
                                 bool *restored)
{
    int32_t flags = ti ? ti->flags : 0;
    *restored = false;
    if (!td || !td->name[0]) {
        *restored = true;
        return flag_tool(contents, flags);
    }
    /* hints, skips, triggers and skies keep their own texinfo (their flags differ) */
    if (!(flags & BK_SRC_SURF_NODRAW) ||
        (flags & (BK_SRC_SURF_HINT | BK_SRC_SURF_SKIP | BK_SRC_SURF_TRIGGER | BK_SRC_SURF_SKY | BK_SRC_SURF_SKY2D)))
        return td->name;
    const char *tool = nodraw_tool(contents);
    if (!tool || is_tool_kind(td->name, tool)) return td->name;
    *restored = true;
    return tool;
}

/* which model owns each brush: the first (world first) whose tree reaches it; -1 none */
static bk_result owners(const bk_source_map *s, int32_t *owner)
{
    for (uint32_t b = 0; b < s->brush_count; b++) owner[b] = -1;
    uint32_t cap = 64, top = 0;
    int32_t *stack = bk_malloc(sizeof *stack * cap);
    uint8_t *seen = bk_calloc(s->node_count ? s->node_count : 1, 1);
    if (!stack || !seen) {
        bk_free(stack);
        bk_free(seen);
        return BK_ENOMEM;
    }
    bk_result r = BK_OK;
    for (uint32_t mi = 0; mi < s->model_count && r == BK_OK; mi++) {
        top = 0;
        stack[top++] = s->models[mi].headnode;
        while (top && r == BK_OK) {
            int32_t n = stack[--top];
            if (n < 0) {
                int64_t leaf = -1 - (int64_t)n;
                if (leaf >= s->leaf_count) continue;
                const bk_source_leaf *l = &s->leafs[leaf];
                for (uint32_t k = 0; k < l->numleafbrushes; k++) {
                    uint32_t at = (uint32_t)l->firstleafbrush + k;
                    if (at >= s->leafbrush_count) break;
                    uint32_t b = s->leafbrushes[at];
                    if (b < s->brush_count && owner[b] < 0) owner[b] = (int32_t)mi;
                }
                continue;
            }
            if ((uint32_t)n >= s->node_count || seen[n]) continue;   /* a node twice: a loop */
            seen[n] = 1;
            if (top + 2 > cap && (r = bk_grow((void **)&stack, &cap, top + 2, sizeof *stack)) != BK_OK) break;
            stack[top++] = s->nodes[n].children[0];
            stack[top++] = s->nodes[n].children[1];
        }
    }
    bk_free(stack);
    bk_free(seen);
    return r;
}

/* vbsp stores a brush entity's brushes around its origin, the texture shifts with them (the shift
 * of a side at world position p + origin is the stored one): both are put back in world space */
static void to_world(bk_dmap *m, const double o[3])
{
    uint32_t b = m->brush_count - 1;
    bk_dmap_translate(m, b, b + 1, 0, 0, o);
    for (uint32_t k = 0; k < m->brushes[b].side_count; k++) {
        bk_dside *sd = &m->sides[m->brushes[b].first_side + k];
        for (int r = 0; r < 2 && sd->has_axes; r++)
            sd->axes[r][3] -= sd->axes[r][0] * o[0] + sd->axes[r][1] * o[1] + sd->axes[r][2] * o[2];
    }
}

static bk_result add_brush(const bk_source_map *s, bk_dmap *m, uint32_t bi, uint32_t ent, bool **bevel, uint32_t *cap)
{
    const bk_source_brush *br = &s->brushes[bi];
    if (br->firstside < 0 || br->numsides < 0 || (uint64_t)br->firstside + (uint64_t)br->numsides > s->brushside_count) {
        bk_report(&m->ctx, BK_SEV_WARNING, BK_EINDEX, "brushes", bi, BK_NO_OFFSET,
                  "brush %u: sides %d..%d outside the %u brush sides: left out", bi, br->firstside,
                  br->firstside + br->numsides, s->brushside_count);
        m->stats.brushes_dropped++;
        return BK_OK;
    }
    BK_TRY(bk_grow((void **)bevel, cap, (uint32_t)br->numsides + 1, sizeof **bevel));
    bk_dmap_brush_begin(m);
    for (int32_t k = 0; k < br->numsides; k++) {
        const bk_source_brushside *bs = &s->brushsides[br->firstside + k];
        if (bs->planenum >= s->plane_count) {
            bk_report(&m->ctx, BK_SEV_WARNING, BK_EINDEX, "brushsides", br->firstside + k, BK_NO_OFFSET,
                      "plane %u outside the %u planes: brush %u left out", bs->planenum, s->plane_count, bi);
            m->side_count = m->open_side;
            m->stats.brushes_dropped++;
            return BK_OK;
        }
        const bk_source_plane *pl = &s->planes[bs->planenum];
        /* the low byte: newer compilers keep a "thin" flag in the high one (dbrushside_t) */
        (*bevel)[k] = (bs->bevel & 0xff) != 0;
        BK_TRY(bk_dmap_side(m, pl->normal, pl->dist, (uint32_t)(br->firstside + k), NULL));
    }
    bool kept;
    BK_TRY(bk_dmap_brush_end(m, bi, ent, *bevel, &kept));
    if (!kept) return BK_OK;
    const bk_dbrush *db = &m->brushes[m->brush_count - 1];
    for (uint32_t k = 0; k < db->side_count; k++) {
        bk_dside *sd = &m->sides[db->first_side + k];
        const bk_source_brushside *bs = &s->brushsides[sd->src];
        const bk_source_texinfo *ti =
            bs->texinfo >= 0 && (uint32_t)bs->texinfo < s->texinfo_count ? &s->texinfo[bs->texinfo] : NULL;
        const bk_source_texdata *td =
            ti && ti->texdata >= 0 && (uint32_t)ti->texdata < s->texdata_count ? &s->texdata[ti->texdata] : NULL;
        bool restored;
        sd->material = side_material(br->contents, ti, td, &restored);
        if (restored) m->stats.sides_tool++;
        if (ti) {
            for (int r = 0; r < 2; r++)
                for (int c = 0; c < 4; c++) sd->axes[r][c] = ti->tex_vecs[r][c];
            /* texture vectors whose plane stands across the side's (a hidden side keeping a
             * texinfo of another, seen on outer walls): Hammer cannot project them, the writer's
             * default instead */
            double u[3] = {ti->tex_vecs[0][0], ti->tex_vecs[0][1], ti->tex_vecs[0][2]};
            double v[3] = {ti->tex_vecs[1][0], ti->tex_vecs[1][1], ti->tex_vecs[1][2]};
            double c[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
            double cl = sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]);
            sd->has_axes = cl > 0 && fabs((c[0] * sd->n[0] + c[1] * sd->n[1] + c[2] * sd->n[2]) / cl) > 1e-3;
            if (!sd->has_axes) m->stats.sides_default_axes++;
            double l = sqrt((double)ti->lm_vecs[0][0] * ti->lm_vecs[0][0] + (double)ti->lm_vecs[0][1] * ti->lm_vecs[0][1] +
                            (double)ti->lm_vecs[0][2] * ti->lm_vecs[0][2]);
            sd->lightmap_scale = l > 1e-6 && l < 1e6 ? (int32_t)floor(1.0 / l + 0.5) : 16;
        }
    }
    to_world(m, m->ents[ent].origin);
    return BK_OK;
}

bk_result bk_decompile_source(const bk_file *f, bk_dmap *m)
{
    const bk_source_map *s = bk_source_map_of(f);
    if (!s) return BK_EARG;
    const bk_entities *es = bk_file_entities(f);
    int32_t *owner = bk_malloc(sizeof *owner * (s->brush_count ? s->brush_count : 1));
    int32_t *ent_of_model = bk_malloc(sizeof *ent_of_model * (s->model_count ? s->model_count : 1));
    bool *bevel = NULL;
    uint32_t bevel_cap = 0;
    bk_result r = owner && ent_of_model ? owners(s, owner) : BK_ENOMEM;
    for (uint32_t i = 0; r == BK_OK && i < s->model_count; i++) ent_of_model[i] = -1;
    uint32_t world = UINT32_MAX, detail = UINT32_MAX;
    for (uint32_t i = 0; r == BK_OK && i < es->count; i++) {
        const bk_entity *e = &es->items[i];
        const char *cn = bk_entity_get(e, "classname");
        uint32_t ent;
        r = bk_dmap_entity(m, e, NULL, &ent);
        if (r != BK_OK) break;
        bool is_world = cn && strcmp(cn, "worldspawn") == 0 && world == UINT32_MAX;
        int32_t model = is_world ? 0 : bk_dentity_model(e, s->model_count);
        if (is_world) world = ent;
        if (model >= 0 && (uint32_t)model < s->model_count && ent_of_model[model] < 0) {
            ent_of_model[model] = (int32_t)ent;
            if (model > 0) bk_dentity_origin(e, m->ents[ent].origin);
        }
    }
    if (r == BK_OK && world == UINT32_MAX) r = bk_dmap_entity(m, NULL, "worldspawn", &world);
    if (r == BK_OK && s->model_count && ent_of_model[0] < 0) ent_of_model[0] = (int32_t)world;
    uint32_t unowned = 0;
    for (uint32_t b = 0; r == BK_OK && b < s->brush_count; b++) {
        int32_t mo = owner[b];
        uint32_t ent = mo >= 0 && ent_of_model[mo] >= 0 ? (uint32_t)ent_of_model[mo] : world;
        if (mo < 0) unowned++;
        if (ent == world && (s->brushes[b].contents & C_DETAIL)) {
            if (detail == UINT32_MAX && (r = bk_dmap_entity(m, NULL, "func_detail", &detail)) != BK_OK) break;
            ent = detail;
            m->stats.detail_brushes++;
        }
        r = add_brush(s, m, b, ent, &bevel, &bevel_cap);
    }
    if (r == BK_OK) r = bk_decompile_source_extras(f, m);
    if (r == BK_OK && unowned)
        bk_report(&m->ctx, BK_SEV_WARNING, BK_ENOTFOUND, "brushes", BK_NO_INDEX, BK_NO_OFFSET,
                  "%u brushes are reached by no model's tree: written into the world", unowned);
    bk_free(owner);
    bk_free(ent_of_model);
    bk_free(bevel);
    return r;
}
