/* The decompiler's neutral brush model: entities, their brushes (each side on a lump plane, with a
 * material and texture axes, its face polygon), patches. A family's decompile op (bk_family.decompile)
 * fills it from its lumps; the writers (write_map.c, write_vmf.c) turn it into an editor's text. */
#ifndef BK_DECOMPILE_INTERNAL_H
#define BK_DECOMPILE_INTERNAL_H

#include "../formats/family.h"
#include "bspkit/decompile.h"

typedef struct bk_dside {
    double n[3], d;            /* the lump's plane: n.p = d, n pointing out of the brush */
    const char *material;      /* lives as long as the file (or a static string) */
    /* texture axes. VMF: texels s = axes[k].xyz . p + axes[k][3] (k = 0 u, 1 v); Quake 3 brush
     * primitives: the texture matrix rows (st = axes[k][0] x + axes[k][1] y + axes[k][2], x y on
     * the plane's axis base) */
    double axes[2][4];
    bool has_axes;             /* false: the writer's default */
    int32_t lightmap_scale;    /* VMF (0: 16) */
    uint32_t contents;         /* Quake 3: the content flags written on the side (detail) */
    uint32_t src;              /* its brushside index */
    uint32_t first_wv, wv_count;   /* its face polygon: m->wv[first_wv ...] */
    double pts[3][3];          /* three points on the plane (bk_dmap_finish) */
    bool integer_pts;          /* pts are whole numbers reproducing the plane */
    uint32_t disp;             /* Source: its displacement, dispinfo index + 1 (0: none) */
} bk_dside;

typedef struct bk_dbrush {
    uint32_t first_side, side_count;
    uint32_t src;              /* its brush index */
    uint32_t entity;           /* index into m->ents */
} bk_dbrush;

typedef struct bk_dpoint {
    double xyz[3], st[2];
} bk_dpoint;

typedef struct bk_dpatch {
    const char *material;
    uint32_t w, h;             /* control points: columns, rows (points[first + row * w + col]) */
    uint32_t first_point;
    uint32_t src;              /* its surface index */
    uint32_t entity;
} bk_dpatch;

typedef struct bk_dentity {
    const bk_entity *src;      /* keys as the map has them (NULL: made here, e.g. func_detail) */
    const char *classname;     /* for an entity made here */
    double origin[3];          /* what was added to its brushes (a brush entity's origin) */
    uint32_t first_brush, brush_count, first_patch, patch_count;   /* its own (bk_dmap_finish) */
    /* an entity made here: its keys (m->kvs[first_kv ...]) and the sides it names ("sides" of an
     * info_overlay: m->refs[first_ref ...], side indices written as the sides' ids) */
    uint32_t first_kv, kv_count, first_ref, ref_count;
} bk_dentity;

typedef struct bk_dmap {
    const bk_file *f;
    const bk_options *opt;
    bk_ctx ctx;                /* diagnostics, located in the input */
    bk_dentity *ents;  uint32_t ent_count, ent_cap;
    bk_dbrush *brushes; uint32_t brush_count, brush_cap;
    bk_dside *sides;   uint32_t side_count, side_cap;
    double (*wv)[3];   uint32_t wv_count, wv_cap;
    bk_dpatch *patches; uint32_t patch_count, patch_cap;
    bk_dpoint *points; uint32_t point_count, point_cap;
    uint32_t (*kvs)[2]; uint32_t kv_count, kv_cap;   /* key, value: offsets into strs */
    uint32_t *refs;    uint32_t ref_count, ref_cap;
    bk_buf strs;
    bk_decompile_stats stats;
    /* the brush being added (bk_dmap_brush_begin .. _end) */
    uint32_t open_side;
    const char *brush_lump;    /* "brushes", for the report of a brush left out */
} bk_dmap;

/* ---- filling it (decompile.c) ------------------------------------------------------------ */
bk_result bk_dmap_entity(bk_dmap *m, const bk_entity *src, const char *classname, uint32_t *index);
/* a key of entity ent, the last one made here (its value printf-formatted) */
bk_result bk_dmap_kv(bk_dmap *m, uint32_t ent, const char *key, const char *fmt, ...) BK_PRINTF(4, 5);
/* a side (index into m->sides) that entity ent, the last one made, names in its "sides" key */
bk_result bk_dmap_ref(bk_dmap *m, uint32_t ent, uint32_t side);
void bk_dmap_brush_begin(bk_dmap *m);
/* a side of the open brush: the plane as the lump stores it */
bk_result bk_dmap_side(bk_dmap *m, const float n[3], float d, uint32_t src, bk_dside **out);
/* Close the open brush: each side's face polygon clipped by the others. A side without a face (a
 * bevel, bevel_flag true: known as one) is left out and counted; a brush that does not close
 * (fewer than four faces, or open to the far away) is reported with its index and left out
 * (*kept false). */
bk_result bk_dmap_brush_end(bk_dmap *m, uint32_t src, uint32_t entity, const bool *bevel_flag, bool *kept);
/* the entity written first: the first worldspawn (else the first) */
uint32_t bk_dmap_world(const bk_dmap *m);
/* the brush model an entity's "model" key names ("*N", 1 <= N < model_count), or -1 */
int32_t bk_dentity_model(const bk_entity *e, uint32_t model_count);
/* every entity into the map, and each model's brushes added once through add(ctx, model, entity,
 * origin): model 0 with the worldspawn, "*N" with the brush entity naming it (moved back by its
 * origin); models no entity names are written as an orphan_class entity, warned */
typedef bk_result (*bk_dmodel_fn)(void *ctx, uint32_t model, uint32_t ent, const double origin[3]);
bk_result bk_dmap_models_by_entity(bk_dmap *m, const bk_file *f, uint32_t model_count, const char *orphan_class,
                                   bk_dmodel_fn add, void *ctx);
/* its "origin" key into o (0 0 0 when it has none or it does not read: false) */
bool bk_dentity_origin(const bk_entity *e, double o[3]);
/* its class name */
const char *bk_dentity_class(const bk_dentity *e);
/* Move brushes [first, end) and patches [pfirst, pend) by o (a brush entity's origin) */
void bk_dmap_translate(bk_dmap *m, uint32_t first, uint32_t end, uint32_t pfirst, uint32_t pend, const double o[3]);
bk_result bk_dmap_patch(bk_dmap *m, const char *material, uint32_t w, uint32_t h, uint32_t src, uint32_t entity,
                        bk_dpoint **points);
/* Whether p (on or near side s's plane) lies inside s's face polygon, by eps units */
bool bk_dside_contains(const bk_dmap *m, const bk_dside *s, const double p[3], double eps);
/* Brushes and patches put in entity order (each entity's ranges set), the three points of each
 * side (integer where they give the lump's plane back), the counts. */
bk_result bk_dmap_finish(bk_dmap *m);
/* Quake 3 brush primitives' axis base of a plane normal (q3map2's ComputeAxisBase) */
void bk_bp_axis_base(const double n[3], double s[3], double t[3]);


/* ---- writers ------------------------------------------------------------------------------- */
bk_result bk_write_map_q3(const bk_dmap *m, bk_buf *o);
bk_result bk_write_vmf(const bk_dmap *m, bk_buf *o);
/* Quake 1 / GoldSrc .map (write_map_quake.c): Valve 220 axes, or the classic ones */
bk_result bk_write_map_quake(const bk_dmap *m, bk_buf *o, bool valve);
/* Source: what the brush lumps do not hold (source_extra.c): displacements on their sides, static
 * props, cubemaps, overlays, lights the entity lump lost. After the brushes are added. */
bk_result bk_decompile_source_extras(const bk_file *f, bk_dmap *m);
/* the dispinfo block of side s (s->disp != 0), at the side's depth */
void bk_vmf_put_dispinfo(bk_buf *o, const bk_dmap *m, const bk_dside *s);
/* polygons of the brush model (decompile.c): a big square on the plane n.p = d (4 corners, wound
 * counter-clockwise seen from where n points), and polygon v of n corners clipped to pn.p <= pd
 * into out (at most cap - 1 corners, cap <= BK_DPOLY_MAX) */
#define BK_DPOLY_MAX 256
int bk_dpoly_square(const double n[3], double d, double v[][3]);
int bk_dpoly_clip(double v[][3], int n, const double pn[3], double pd, double out[][3], int cap);
/* three points "( x y z ) ( x y z ) ( x y z )" (paren: "(x y z)" without inner spaces for VMF) */
void bk_put_points(bk_buf *o, const bk_dside *s, bool vmf);
/* a number as the editors read it: '.' decimals, no exponent, trailing zeros dropped */
void bk_put_num(bk_buf *o, double v, int decimals);
/* a quoted string with any '"' turned into '\'' (the formats have no escape) */
void bk_put_quoted(bk_buf *o, const char *s);

#endif
