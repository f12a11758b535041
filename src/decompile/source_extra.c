/* Source: what a .vmf holds beyond brushes and entity keys, put back from the lumps that keep it
 * (docs/decompile.md): displacements (DISPINFO, DISP_VERTS, DISP_TRIS) as the dispinfo of the brush
 * side their face lies on, static props ('sprp') as prop_static, cubemap samples as env_cubemap,
 * overlays as info_overlay naming the written sides, and the lights vbsp took out of the entity
 * lump (the world-lights lump) as light / light_spot / light_environment. The lumps read here and
 * not by the loader (overlays, overlay fades, world lights) are checked entry by entry. */
#include <math.h>
#include <stdlib.h>

#include "bspkit/source.h"
#include "decompile.h"
#include "formats/source/vbsp_internal.h"

#define DEG (180.0 / 3.14159265358979323846)

static double dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/* face fi's corners (at most 64) into v, in the lump's winding; its count, 0 when an index is out
 * of range */
static uint32_t face_corners(const bk_source_map *s, uint32_t fi, double v[][3], uint32_t cap)
{
    const bk_source_face *f = &s->faces[fi];
    if (f->firstedge < 0 || f->numedges < 3 || (uint32_t)f->numedges > cap ||
        (uint64_t)f->firstedge + (uint64_t)f->numedges > s->surfedge_count)
        return 0;
    for (int32_t k = 0; k < f->numedges; k++) {
        int32_t se = s->surfedges[f->firstedge + k];
        uint64_t e = se < 0 ? (uint64_t)(-(int64_t)se) : (uint64_t)se;
        if (e >= s->edge_count) return 0;
        uint32_t vi = s->edges[e * 2 + (se < 0 ? 1 : 0)];
        if (vi >= s->vertex_count) return 0;
        for (int c = 0; c < 3; c++) v[k][c] = s->vertices[(size_t)vi * 3 + c];
    }
    return (uint32_t)f->numedges;
}

/* the written side a face lies on: same plane (facing the face's way), the face's centre inside
 * the side's polygon; a side of the face's material first. For a displacement (want_free) a side
 * with none yet whose polygon is the face's. UINT32_MAX: none. */
static uint32_t side_of_face(const bk_source_map *s, const bk_dmap *m, uint32_t fi, bool want_free)
{
    if (fi >= s->face_count) return UINT32_MAX;
    const bk_source_face *f = &s->faces[fi];
    if (f->planenum >= s->plane_count) return UINT32_MAX;
    const bk_source_plane *pl = &s->planes[f->planenum];
    double sign = 1.0;   /* a face's own plane faces its way (side: against its node's) */
    double n[3] = {pl->normal[0] * sign, pl->normal[1] * sign, pl->normal[2] * sign}, d = pl->dist * sign;
    double v[64][3], c[3] = {0, 0, 0};
    uint32_t nv = face_corners(s, fi, v, 64);
    if (!nv) return UINT32_MAX;
    for (uint32_t k = 0; k < nv; k++)
        for (int a = 0; a < 3; a++) c[a] += v[k][a] / nv;
    const char *mat = NULL;
    if (f->texinfo >= 0 && (uint32_t)f->texinfo < s->texinfo_count) {
        int32_t td = s->texinfo[f->texinfo].texdata;
        if (td >= 0 && (uint32_t)td < s->texdata_count) mat = s->texdata[td].name;
    }
    uint32_t any = UINT32_MAX;
    for (uint32_t i = 0; i < m->side_count; i++) {
        const bk_dside *sd = &m->sides[i];
        if (dot3(sd->n, n) < 1 - 1e-5 || fabs(sd->d - d) > 0.05 || (want_free && sd->disp)) continue;
        if (!bk_dside_contains(m, sd, c, 0.05)) continue;
        if (want_free) {   /* a displacement's side: the face itself, corner by corner */
            bool same = sd->wv_count == nv;
            for (uint32_t k = 0; same && k < nv; k++) {
                bool hit = false;
                for (uint32_t q = 0; q < sd->wv_count && !hit; q++) {
                    const double *w = m->wv[sd->first_wv + q];
                    hit = fabs(w[0] - v[k][0]) < 0.05 && fabs(w[1] - v[k][1]) < 0.05 && fabs(w[2] - v[k][2]) < 0.05;
                }
                same = hit;
            }
            if (!same) continue;
        }
        if (!mat || (sd->material && strcasecmp(sd->material, mat) == 0)) return i;
        if (any == UINT32_MAX) any = i;
    }
    return any;
}

/* ---- displacements ---------------------------------------------------------------------- */
#define DISP_DEPTH 8.0   /* how far behind its face the brush made for a displacement reaches */

/* vbsp keeps no brush of a displacement: one is made from its face, the face's plane on top (with
 * its material and texture vectors), a plane DISP_DEPTH units behind, and one through each edge,
 * nodraw */
static bk_result disp_brush(const bk_source_map *s, bk_dmap *m, uint32_t di, uint32_t fi, uint32_t *side)
{
    *side = UINT32_MAX;
    double v[4][3];
    if (fi >= s->face_count || face_corners(s, fi, v, 4) != 4 || s->faces[fi].planenum >= s->plane_count) return BK_OK;
    const bk_source_face *f = &s->faces[fi];
    const bk_source_plane *pl = &s->planes[f->planenum];
    double sign = 1.0, c[3] = {0, 0, 0};   /* the face's plane faces its way */
    float n[3] = {pl->normal[0] * (float)sign, pl->normal[1] * (float)sign, pl->normal[2] * (float)sign};
    float back[3] = {-n[0], -n[1], -n[2]};
    double nd[3] = {n[0], n[1], n[2]};
    for (int k = 0; k < 4; k++)
        for (int a = 0; a < 3; a++) c[a] += v[k][a] / 4;
    uint32_t world = bk_dmap_world(m);
    bk_dmap_brush_begin(m);
    uint32_t first = m->side_count;
    BK_TRY(bk_dmap_side(m, n, pl->dist * (float)sign, UINT32_MAX, NULL));
    BK_TRY(bk_dmap_side(m, back, -(pl->dist * (float)sign) + (float)DISP_DEPTH, UINT32_MAX, NULL));
    for (int k = 0; k < 4; k++) {
        const double *a = v[k], *b = v[(k + 1) % 4];
        double e[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
        double en[3] = {e[1] * nd[2] - e[2] * nd[1], e[2] * nd[0] - e[0] * nd[2], e[0] * nd[1] - e[1] * nd[0]};
        double l = sqrt(dot3(en, en));
        if (!(l > 1e-9)) {
            m->side_count = first;
            return BK_OK;
        }
        for (int q = 0; q < 3; q++) en[q] /= l;
        double ed = dot3(en, a);
        if (dot3(en, c) > ed)   /* the face's centre behind every side */
            for (int q = 0; q < 3; q++) en[q] = -en[q], ed = -ed;
        float ef[3] = {(float)en[0], (float)en[1], (float)en[2]};
        BK_TRY(bk_dmap_side(m, ef, (float)ed, UINT32_MAX, NULL));
    }
    const char *brush_lump = m->brush_lump;
    m->brush_lump = "dispinfo";
    bool kept;
    bk_result r = bk_dmap_brush_end(m, di, world, NULL, &kept);
    m->brush_lump = brush_lump;
    if (r != BK_OK || !kept) return r;
    const bk_dbrush *db = &m->brushes[m->brush_count - 1];
    const bk_source_texinfo *ti =
        f->texinfo >= 0 && (uint32_t)f->texinfo < s->texinfo_count ? &s->texinfo[f->texinfo] : NULL;
    const bk_source_texdata *td =
        ti && ti->texdata >= 0 && (uint32_t)ti->texdata < s->texdata_count ? &s->texdata[ti->texdata] : NULL;
    for (uint32_t k = 0; k < db->side_count; k++) {
        bk_dside *sd = &m->sides[db->first_side + k];
        sd->material = "tools/toolsnodraw";
        if (dot3(sd->n, nd) > 1 - 1e-6 && fabs(sd->d - pl->dist * sign) < 1e-3) {
            *side = db->first_side + k;
            if (td && td->name[0]) sd->material = td->name;
            if (ti) {
                for (int r2 = 0; r2 < 2; r2++)
                    for (int q = 0; q < 4; q++) sd->axes[r2][q] = ti->tex_vecs[r2][q];
                sd->has_axes = true;
            }
        }
    }
    m->stats.disp_brushes++;
    return BK_OK;
}

static bk_result displacements(const bk_source_map *s, bk_dmap *m)
{
    uint32_t placed = 0, lost = 0;
    for (uint32_t i = 0; i < s->dispinfo_count; i++) {
        const bk_source_dispinfo *di = &s->dispinfo[i];
        uint64_t w = di->power >= 2 && di->power <= 4 ? (1u << di->power) + 1 : 0;
        if (!w || di->vert_start < 0 || (uint64_t)di->vert_start + w * w > s->dispvert_count || di->tri_start < 0 ||
            (uint64_t)di->tri_start + 2 * (w - 1) * (w - 1) > s->disptri_count) {
            bk_report(&m->ctx, BK_SEV_WARNING, BK_EINDEX, "dispinfo", i, BK_NO_OFFSET,
                      "displacement %u: power %d, vertices from %d, triangles from %d outside the lumps (%u, %u): "
                      "left out",
                      i, di->power, di->vert_start, di->tri_start, s->dispvert_count, s->disptri_count);
            lost++;
            continue;
        }
        uint32_t sd = side_of_face(s, m, di->map_face, true);
        if (sd != UINT32_MAX && m->sides[sd].wv_count != 4) sd = UINT32_MAX;
        if (sd == UINT32_MAX) BK_TRY(disp_brush(s, m, i, di->map_face, &sd));
        if (sd == UINT32_MAX || m->sides[sd].wv_count != 4) {
            bk_report(&m->ctx, BK_SEV_WARNING, BK_EFORMAT, "dispinfo", i, BK_NO_OFFSET,
                      "displacement %u: its face %u is no quad a brush can be made of: left out", i, di->map_face);
            lost++;
            continue;
        }
        m->sides[sd].disp = i + 1;
        placed++;
    }
    m->stats.displacements = placed;
    m->stats.displacements_lost = lost;
    return BK_OK;
}

static void put_row_start(bk_buf *o, uint32_t r) { bk_buf_printf(o, "\t\t\t\t\t\"row%u\" \"", r); }

void bk_vmf_put_dispinfo(bk_buf *o, const bk_dmap *m, const bk_dside *sd)
{
    const bk_source_map *s = bk_source_map_of(m->f);
    const bk_source_dispinfo *di = &s->dispinfo[sd->disp - 1];
    uint32_t w = (1u << di->power) + 1;
    const bk_source_dispvert *dv = &s->dispverts[di->vert_start];
    /* the corner nearest the lump's start position, as Hammer and vbsp pick it */
    const double(*c)[3] = (const double(*)[3])m->wv + sd->first_wv;
    uint32_t best = 0;
    double bd = INFINITY;
    for (uint32_t k = 0; k < 4; k++) {
        double e[3] = {c[k][0] - di->start[0], c[k][1] - di->start[1], c[k][2] - di->start[2]};
        if (dot3(e, e) < bd) bd = dot3(e, e), best = k;
    }
    bk_buf_printf(o, "\t\t\tdispinfo\n\t\t\t{\n\t\t\t\t\"power\" \"%d\"\n\t\t\t\t\"startposition\" \"[", di->power);
    for (int a = 0; a < 3; a++) {
        if (a) bk_buf_append(o, " ", 1);
        bk_put_num(o, c[best][a], 6);
    }
    bk_buf_printf(o, "]\"\n\t\t\t\t\"flags\" \"0\"\n\t\t\t\t\"elevation\" \"0\"\n\t\t\t\t\"subdiv\" \"0\"\n");
    static const char *blocks[] = {"normals", "distances", "offsets", "offset_normals", "alphas"};
    for (int b = 0; b < 5; b++) {
        bk_buf_printf(o, "\t\t\t\t%s\n\t\t\t\t{\n", blocks[b]);
        for (uint32_t r = 0; r < w; r++) {
            put_row_start(o, r);
            for (uint32_t k = 0; k < w; k++) {
                const bk_source_dispvert *v = &dv[r * w + k];
                if (k) bk_buf_append(o, " ", 1);
                if (b == 0 || b == 2 || b == 3) {
                    for (int a = 0; a < 3; a++) {
                        if (a) bk_buf_append(o, " ", 1);
                        bk_put_num(o, b == 0 ? v->vec[a] : b == 3 ? sd->n[a] : 0.0, 6);
                    }
                } else {
                    bk_put_num(o, b == 1 ? v->dist : v->alpha, 4);
                }
            }
            bk_buf_append(o, "\"\n", 2);
        }
        bk_buf_printf(o, "\t\t\t\t}\n");
    }
    bk_buf_printf(o, "\t\t\t\ttriangle_tags\n\t\t\t\t{\n");
    for (uint32_t r = 0; r + 1 < w; r++) {
        put_row_start(o, r);
        for (uint32_t k = 0; k < 2 * (w - 1); k++)
            bk_buf_printf(o, k ? " %u" : "%u", (unsigned)s->disptris[di->tri_start + r * 2 * (w - 1) + k]);
        bk_buf_append(o, "\"\n", 2);
    }
    bk_buf_printf(o, "\t\t\t\t}\n\t\t\t\tallowed_verts\n\t\t\t\t{\n\t\t\t\t\t\"10\" \"-1 -1 -1 -1 -1 -1 -1 -1 -1 -1\"\n"
                     "\t\t\t\t}\n\t\t\t}\n");
}

/* ---- static props ------------------------------------------------------------------------ */
static bk_result static_props(const bk_source_map *s, bk_dmap *m)
{
    for (uint32_t i = 0; i < s->static_prop_count; i++) {
        const bk_source_static_prop *p = &s->static_props[i];
        if (p->model >= s->static_prop_name_count) {
            bk_report(&m->ctx, BK_SEV_WARNING, BK_EINDEX, "game_lump", i, BK_NO_OFFSET,
                      "static prop %u: model %u outside the %u names: left out", i, p->model, s->static_prop_name_count);
            continue;
        }
        uint32_t e;
        /* the lighting origin is an info_lighting's name in the editor: one made at the point */
        if (p->flags & 0x2) {
            BK_TRY(bk_dmap_entity(m, NULL, "info_lighting", &e));
            BK_TRY(bk_dmap_kv(m, e, "targetname", "bk_lighting_%u", i));
            BK_TRY(bk_dmap_kv(m, e, "origin", "%.6g %.6g %.6g", p->lighting_origin[0], p->lighting_origin[1],
                              p->lighting_origin[2]));
        }
        BK_TRY(bk_dmap_entity(m, NULL, "prop_static", &e));
        m->stats.static_props++;
        BK_TRY(bk_dmap_kv(m, e, "origin", "%.6g %.6g %.6g", p->origin[0], p->origin[1], p->origin[2]));
        BK_TRY(bk_dmap_kv(m, e, "angles", "%.6g %.6g %.6g", p->angles[0], p->angles[1], p->angles[2]));
        BK_TRY(bk_dmap_kv(m, e, "model", "%s", s->static_prop_names[p->model]));
        BK_TRY(bk_dmap_kv(m, e, "skin", "%d", p->skin));
        BK_TRY(bk_dmap_kv(m, e, "solid", "%u", p->solid));
        BK_TRY(bk_dmap_kv(m, e, "fademindist", "%.6g", p->fade_min));
        BK_TRY(bk_dmap_kv(m, e, "fademaxdist", "%.6g", p->fade_max));
        if (s->sprp_fields & BK_SPROP_FORCED_FADE) BK_TRY(bk_dmap_kv(m, e, "fadescale", "%.6g", p->forced_fade_scale));
        if (p->flags & 0x2) BK_TRY(bk_dmap_kv(m, e, "lightingorigin", "bk_lighting_%u", i));
        /* STATIC_PROP_* flags set in the editor (gamebspfile.h) */
        BK_TRY(bk_dmap_kv(m, e, "ignorenormals", "%d", (p->flags & 0x8) != 0));
        BK_TRY(bk_dmap_kv(m, e, "disableshadows", "%d", (p->flags & 0x10) != 0));
        BK_TRY(bk_dmap_kv(m, e, "screenspacefade", "%d", (p->flags & 0x20) != 0));
        BK_TRY(bk_dmap_kv(m, e, "disablevertexlighting", "%d", (p->flags & 0x40) != 0));
        BK_TRY(bk_dmap_kv(m, e, "disableselfshadowing", "%d", (p->flags & 0x80) != 0));
        if (s->sprp_fields & BK_SPROP_DX_LEVEL) {
            BK_TRY(bk_dmap_kv(m, e, "mindxlevel", "%u", p->min_dx_level));
            BK_TRY(bk_dmap_kv(m, e, "maxdxlevel", "%u", p->max_dx_level));
        }
        if (s->sprp_fields & BK_SPROP_CPU_GPU_LEVEL) {
            BK_TRY(bk_dmap_kv(m, e, "mincpulevel", "%u", p->min_cpu_level));
            BK_TRY(bk_dmap_kv(m, e, "maxcpulevel", "%u", p->max_cpu_level));
            BK_TRY(bk_dmap_kv(m, e, "mingpulevel", "%u", p->min_gpu_level));
            BK_TRY(bk_dmap_kv(m, e, "maxgpulevel", "%u", p->max_gpu_level));
        }
        if (s->sprp_fields & BK_SPROP_DIFFUSE) {
            BK_TRY(bk_dmap_kv(m, e, "rendercolor", "%u %u %u", p->diffuse[0], p->diffuse[1], p->diffuse[2]));
            BK_TRY(bk_dmap_kv(m, e, "renderamt", "%u", p->diffuse[3]));
        }
        if (s->sprp_fields & BK_SPROP_DISABLE_X360) BK_TRY(bk_dmap_kv(m, e, "disableX360", "%u", p->disable_x360 != 0));
        if (s->sprp_fields & BK_SPROP_FLAGS_EX) BK_TRY(bk_dmap_kv(m, e, "flagsex", "%u", p->flags_ex));
        if (s->sprp_fields & BK_SPROP_SCALE) BK_TRY(bk_dmap_kv(m, e, "uniformscale", "%.6g", p->scale));
        if (s->sprp_fields & BK_SPROP_LIGHTMAP_RES) {
            BK_TRY(bk_dmap_kv(m, e, "generatelightmaps", "%d", (p->flags & 0x100) == 0));
            BK_TRY(bk_dmap_kv(m, e, "lightmapresolutionx", "%u", p->lightmap_res[0]));
            BK_TRY(bk_dmap_kv(m, e, "lightmapresolutiony", "%u", p->lightmap_res[1]));
        }
    }
    return BK_OK;
}

/* ---- cubemaps ---------------------------------------------------------------------------- */
static bk_result cubemaps(const bk_file *f, bk_dmap *m)
{
    bk_source_cubemap *c = NULL;
    uint32_t n = 0;
    bk_result r = bk_source_cubemaps(f, &c, &n);
    if (r == BK_EFORMAT) {
        bk_report(&m->ctx, BK_SEV_WARNING, BK_EFORMAT, "cubemaps", BK_NO_INDEX, BK_NO_OFFSET,
                  "not a whole number of 16-byte samples: no env_cubemap written");
        return BK_OK;
    }
    BK_TRY(r);
    for (uint32_t i = 0; i < n && r == BK_OK; i++) {
        uint32_t e;
        r = bk_dmap_entity(m, NULL, "env_cubemap", &e);
        if (r == BK_OK) r = bk_dmap_kv(m, e, "origin", "%d %d %d", c[i].origin[0], c[i].origin[1], c[i].origin[2]);
        if (r == BK_OK) r = bk_dmap_kv(m, e, "cubemapsize", "%u", c[i].size);
        if (r == BK_OK) m->stats.cubemaps++;
    }
    bk_free(c);
    return r;
}

/* ---- overlays ---------------------------------------------------------------------------- */
#define OVERLAY_SIZE 352   /* doverlay_t: id, texinfo, face count | render order << 14, 64 faces,
                            * u[2], v[2], uv points[4], origin, basis normal */

static void vec_text(char *t, size_t cap, const float v[3])
{
    snprintf(t, cap, "%.6g %.6g %.6g", v[0], v[1], v[2]);
}

static bk_result overlays(const bk_file *f, const bk_source_map *s, bk_dmap *m)
{
    const uint8_t *d, *fades = NULL;
    size_t n, nf = 0;
    BK_TRY(bk_source_lump_bytes(f, BK_SRC_LUMP_OVERLAYS, &d, &n));
    if (!n) return BK_OK;
    if (n % OVERLAY_SIZE) {
        bk_report(&m->ctx, BK_SEV_WARNING, BK_EFORMAT, "overlays", BK_NO_INDEX, BK_NO_OFFSET,
                  "%zu bytes: not a whole number of %d-byte overlays: no info_overlay written", n, OVERLAY_SIZE);
        return BK_OK;
    }
    size_t count = n / OVERLAY_SIZE;
    if (bk_source_lump_bytes(f, 60, &fades, &nf) != BK_OK || nf != count * 8) fades = NULL; /* overlay fades */
    for (size_t i = 0; i < count; i++) {
        const uint8_t *p = d + i * OVERLAY_SIZE;
        int16_t ti = bk_rd_i16le(p + 4);
        uint16_t fc = bk_rd_u16le(p + 6);
        uint32_t faces = fc & 0x3fff, order = fc >> 14;
        float u[2], v[2], uv[4][3], org[3], nrm[3];
        for (int k = 0; k < 2; k++) u[k] = bk_rd_f32le(p + 264 + 4 * k), v[k] = bk_rd_f32le(p + 272 + 4 * k);
        for (int k = 0; k < 4; k++)
            for (int a = 0; a < 3; a++) uv[k][a] = bk_rd_f32le(p + 280 + 12 * k + 4 * a);
        for (int a = 0; a < 3; a++) org[a] = bk_rd_f32le(p + 328 + 4 * a), nrm[a] = bk_rd_f32le(p + 340 + 4 * a);
        const char *mat = NULL;
        if (ti >= 0 && (uint32_t)ti < s->texinfo_count && s->texinfo[ti].texdata >= 0 &&
            (uint32_t)s->texinfo[ti].texdata < s->texdata_count)
            mat = s->texdata[s->texinfo[ti].texdata].name;
        if (!mat || faces > 64 || !faces) {
            /* no face: vbsp found none to put it on (a decal off the world); Hammer reads an
             * overlay without sides as broken */
            bk_report(&m->ctx, BK_SEV_WARNING, BK_EINDEX, "overlays", (int64_t)i, (uint64_t)(p - d),
                      !mat ? "overlay %zu: texinfo %d names no material: left out"
                      : faces ? "overlay %zu: %d faces, more than 64: left out"
                              : "overlay %zu: on no face (%d): left out",
                      i, !mat ? ti : (int)faces);
            m->stats.overlays_lost++;
            continue;
        }
        uint32_t e;
        BK_TRY(bk_dmap_entity(m, NULL, "info_overlay", &e));
        uint32_t found = 0;
        for (uint32_t k = 0; k < faces; k++) {
            int32_t fi = bk_rd_i32le(p + 8 + 4 * k);
            uint32_t sd = fi >= 0 ? side_of_face(s, m, (uint32_t)fi, false) : UINT32_MAX;
            if (sd == UINT32_MAX) continue;
            bool dup = false;
            for (uint32_t r = 0; r < m->ents[e].ref_count; r++) dup |= m->refs[m->ents[e].first_ref + r] == sd;
            if (!dup) BK_TRY(bk_dmap_ref(m, e, sd));
            found++;
        }
        if (found < faces) {
            bk_report(&m->ctx, BK_SEV_WARNING, BK_ENOTFOUND, "overlays", (int64_t)i, (uint64_t)(p - d),
                      "overlay %zu: %u of its %u faces lie on no written brush side", i, faces - found, faces);
            m->stats.overlay_faces_lost += faces - found;
        }
        m->stats.overlays++;
        /* the basis: U in the uv points' z, V = normal x U (flipped when the fourth z is 1) */
        double bu[3] = {uv[0][2], uv[1][2], uv[2][2]}, bn[3] = {nrm[0], nrm[1], nrm[2]};
        double bv[3] = {bn[1] * bu[2] - bn[2] * bu[1], bn[2] * bu[0] - bn[0] * bu[2], bn[0] * bu[1] - bn[1] * bu[0]};
        if (uv[3][2] == 1.0f)
            for (int a = 0; a < 3; a++) bv[a] = -bv[a];
        char t[128];
        BK_TRY(bk_dmap_kv(m, e, "material", "%s", mat));
        BK_TRY(bk_dmap_kv(m, e, "RenderOrder", "%u", order));
        BK_TRY(bk_dmap_kv(m, e, "StartU", "%.6g", u[0]));
        BK_TRY(bk_dmap_kv(m, e, "EndU", "%.6g", u[1]));
        BK_TRY(bk_dmap_kv(m, e, "StartV", "%.6g", v[0]));
        BK_TRY(bk_dmap_kv(m, e, "EndV", "%.6g", v[1]));
        vec_text(t, sizeof t, org);
        BK_TRY(bk_dmap_kv(m, e, "origin", "%s", t));
        BK_TRY(bk_dmap_kv(m, e, "BasisOrigin", "%s", t));
        BK_TRY(bk_dmap_kv(m, e, "BasisU", "%.6g %.6g %.6g", bu[0], bu[1], bu[2]));
        BK_TRY(bk_dmap_kv(m, e, "BasisV", "%.6g %.6g %.6g", bv[0], bv[1], bv[2]));
        BK_TRY(bk_dmap_kv(m, e, "BasisNormal", "%.6g %.6g %.6g", bn[0], bn[1], bn[2]));
        for (int k = 0; k < 4; k++) {
            char key[8];
            snprintf(key, sizeof key, "uv%d", k);
            BK_TRY(bk_dmap_kv(m, e, key, "%.6g %.6g 0", uv[k][0], uv[k][1]));
        }
        if (fades) {
            BK_TRY(bk_dmap_kv(m, e, "fademindist", "%.6g", bk_rd_f32le(fades + i * 8)));
            BK_TRY(bk_dmap_kv(m, e, "fademaxdist", "%.6g", bk_rd_f32le(fades + i * 8 + 4)));
        }
    }
    return BK_OK;
}

/* ---- lights -------------------------------------------------------------------------------- */
enum { EMIT_SURFACE, EMIT_POINT, EMIT_SPOT, EMIT_SKY, EMIT_QUAKE, EMIT_SKYAMBIENT };

/* an entity of a light class at p (within a unit); for the sky: any light_environment */
static bool has_light(const bk_entities *es, const char *cls, const float p[3])
{
    for (uint32_t i = 0; es && i < es->count; i++) {
        const char *cn = bk_entity_get(&es->items[i], "classname");
        if (!cn || strncmp(cn, "light", 5) != 0) continue;
        if (strcmp(cls, "light_environment") == 0) {
            if (strcmp(cn, cls) == 0) return true;
            continue;
        }
        double o[3];
        if (!bk_dentity_origin(&es->items[i], o)) continue;
        if (fabs(o[0] - p[0]) <= 1 && fabs(o[1] - p[1]) <= 1 && fabs(o[2] - p[2]) <= 1) return true;
    }
    return false;
}

/* vrad's intensity of "_light" "r g b brightness" is ((c / 255) ^ 2.2) * brightness / 255 per
 * channel, times constant + 100 linear + 10000 quadratic for point and spot lights: undone, with
 * the brightest channel taken as 255 (on the corpus maps that kept their lights, the brightness
 * comes back within 1% of theirs where their brightest channel is 255) */
static void light_text(char *t, size_t cap, const float in[3], double ratio)
{
    double c[3], b = 0;
    for (int a = 0; a < 3; a++) c[a] = ratio > 0 ? in[a] / ratio : in[a], b = fmax(b, c[a]);
    int rgb[3];
    for (int a = 0; a < 3; a++) rgb[a] = b > 0 ? (int)floor(255.0 * pow(fmax(c[a], 0) / b, 1 / 2.2) + 0.5) : 0;
    snprintf(t, cap, "%d %d %d %.0f", rgb[0], rgb[1], rgb[2], b * 255.0);
}

static bk_result lights(const bk_file *f, bk_dmap *m)
{
    const bk_source_map *s = bk_source_map_of(f);
    int lump = BK_SRC_LUMP_WORLDLIGHTS;
    bk_lump_view v;
    BK_TRY(bk_lump_view_of(f, (uint32_t)lump, &v));
    if (!v.size) {
        lump = BK_SRC_LUMP_WORLDLIGHTS_HDR;
        BK_TRY(bk_lump_view_of(f, (uint32_t)lump, &v));
    }
    const uint8_t *d = v.data;
    size_t n = v.size;
    if (!n) return BK_OK;
    const char *lname = lump == BK_SRC_LUMP_WORLDLIGHTS ? "worldlights" : "worldlights_hdr";
    /* the rows' column by the lump's version: version 1 (later games) adds a shadow cast offset
     * after the normal */
    const bk_lump_desc *row = &bk_source_lumps[lump];
    size_t sz = row->entry[v.column];
    if (n % sz) {
        bk_report(&m->ctx, BK_SEV_WARNING, BK_EFORMAT, lname, BK_NO_INDEX, BK_NO_OFFSET,
                  "%zu bytes: not a whole number of %zu-byte lights (version %d): no light restored", n, sz,
                  s->lumps[lump].version);
        return BK_OK;
    }
    const bk_entities *es = bk_file_entities(f);
    uint32_t sky = UINT32_MAX;
    for (size_t i = 0; i < n / sz; i++) {
        bk_source_worldlight w = {0};
        bk_decode_rows(&row->fields[v.column], d + i * sz, (uint32_t)sz, 1, &w, row->dst_size, false);
        const float *org = w.origin, *in = w.intensity, *nrm = w.normal;
        const float q[7] = {w.stopdot, w.stopdot2, w.exponent, w.radius, w.constant_attn, w.linear_attn, w.quadratic_attn};
        int32_t type = w.type, style = w.style;
        const char *cls = type == EMIT_POINT ? "light" : type == EMIT_SPOT ? "light_spot"
                          : type == EMIT_SKY || type == EMIT_SKYAMBIENT ? "light_environment" : NULL;
        if (!cls || has_light(es, cls, org)) continue;
        char t[96];
        if (type == EMIT_SKYAMBIENT) {
            if (sky == UINT32_MAX || sky + 1 != m->ent_count) continue;   /* given to the sun just made */
            light_text(t, sizeof t, in, 0);
            BK_TRY(bk_dmap_kv(m, sky, "_ambient", "%s", t));
            continue;
        }
        uint32_t e;
        BK_TRY(bk_dmap_entity(m, NULL, cls, &e));
        m->stats.lights++;
        BK_TRY(bk_dmap_kv(m, e, "origin", "%.6g %.6g %.6g", org[0], org[1], org[2]));
        double ratio = type == EMIT_SKY ? 0 : q[4] + 100 * q[5] + 10000 * q[6];
        light_text(t, sizeof t, in, ratio);
        BK_TRY(bk_dmap_kv(m, e, "_light", "%s", t));
        if (style) BK_TRY(bk_dmap_kv(m, e, "style", "%d", style));
        if (type != EMIT_SKY) {
            BK_TRY(bk_dmap_kv(m, e, "_constant_attn", "%.6g", q[4]));
            BK_TRY(bk_dmap_kv(m, e, "_linear_attn", "%.6g", q[5]));
            BK_TRY(bk_dmap_kv(m, e, "_quadratic_attn", "%.6g", q[6]));
            if (q[3] > 0) BK_TRY(bk_dmap_kv(m, e, "_distance", "%.6g", q[3]));
        }
        if (type == EMIT_SPOT || type == EMIT_SKY) {
            /* Source angles: forward = (cos p cos y, cos p sin y, -sin p) */
            double pitch = asin(fmax(-1, fmin(1, -nrm[2]))) * DEG, yaw = atan2(nrm[1], nrm[0]) * DEG;
            BK_TRY(bk_dmap_kv(m, e, "angles", "%.6g %.6g 0", pitch, yaw));
            BK_TRY(bk_dmap_kv(m, e, "pitch", "%.6g", pitch));
        }
        if (type == EMIT_SPOT) {
            BK_TRY(bk_dmap_kv(m, e, "_inner_cone", "%.6g", acos(fmax(-1, fmin(1, q[0]))) * DEG));
            BK_TRY(bk_dmap_kv(m, e, "_cone", "%.6g", acos(fmax(-1, fmin(1, q[1]))) * DEG));
            BK_TRY(bk_dmap_kv(m, e, "_exponent", "%.6g", q[2]));
        }
        sky = type == EMIT_SKY ? e : UINT32_MAX;
    }
    return BK_OK;
}

bk_result bk_decompile_source_extras(const bk_file *f, bk_dmap *m)
{
    const bk_source_map *s = bk_source_map_of(f);
    if (!s) return BK_EARG;
    BK_TRY(displacements(s, m));
    BK_TRY(overlays(f, s, m));
    BK_TRY(static_props(s, m));
    BK_TRY(cubemaps(f, m));
    return lights(f, m);
}
