/* Quake 3 queries: the leaf / cluster / area of a point and its contents (a Quake 3 leaf has no
 * contents of its own: a point's contents are those of the brushes holding it), the bit-row
 * PVS, and box traces through the brushes and patches (src/query/cm.c). Patches collide as a
 * grid of triangles evaluated from their control points (4 segments per 3x3 piece). */
#include <math.h>

#include "../../query/cm.h"
#include "q3_internal.h"

/* Quake 3 contents bits (surfaceflags.h) */
enum {
    Q3C_SOLID = 1, Q3C_LAVA = 8, Q3C_SLIME = 16, Q3C_WATER = 32, Q3C_FOG = 64,
    Q3C_AREAPORTAL = 0x8000, Q3C_PLAYERCLIP = 0x10000, Q3C_MONSTERCLIP = 0x20000,
    Q3C_TELEPORTER = 0x40000, Q3C_JUMPPAD = 0x80000, Q3C_ORIGIN = 0x1000000, Q3C_BODY = 0x2000000,
    Q3C_CORPSE = 0x4000000, Q3C_DETAIL = 0x8000000, Q3C_TRANSLUCENT = 0x20000000,
    Q3C_TRIGGER = 0x40000000, Q3C_NODROP = (int32_t)0x80000000u
};

static uint32_t q3_neutral(int32_t c)
{
    uint32_t n = 0, u = (uint32_t)c;
    if (u & Q3C_SOLID) n |= BK_CONTENTS_SOLID;
    if (u & Q3C_LAVA) n |= BK_CONTENTS_LAVA;
    if (u & Q3C_SLIME) n |= BK_CONTENTS_SLIME;
    if (u & Q3C_WATER) n |= BK_CONTENTS_WATER;
    if (u & Q3C_FOG) n |= BK_CONTENTS_FOG;
    if (u & Q3C_AREAPORTAL) n |= BK_CONTENTS_AREAPORTAL;
    if (u & Q3C_PLAYERCLIP) n |= BK_CONTENTS_PLAYERCLIP;
    if (u & Q3C_MONSTERCLIP) n |= BK_CONTENTS_MONSTERCLIP;
    if (u & (Q3C_TELEPORTER | Q3C_JUMPPAD)) n |= BK_CONTENTS_TELEPORTER;
    if (u & Q3C_ORIGIN) n |= BK_CONTENTS_ORIGIN;
    if (u & (Q3C_BODY | Q3C_CORPSE)) n |= BK_CONTENTS_BODY;
    if (u & Q3C_DETAIL) n |= BK_CONTENTS_DETAIL;
    if (u & Q3C_TRANSLUCENT) n |= BK_CONTENTS_TRANSLUCENT;
    if (u & Q3C_TRIGGER) n |= BK_CONTENTS_TRIGGER;
    if (u & (uint32_t)Q3C_NODROP) n |= BK_CONTENTS_NODROP;
    uint32_t known = Q3C_SOLID | Q3C_LAVA | Q3C_SLIME | Q3C_WATER | Q3C_FOG | Q3C_AREAPORTAL | Q3C_PLAYERCLIP |
                     Q3C_MONSTERCLIP | Q3C_TELEPORTER | Q3C_JUMPPAD | Q3C_ORIGIN | Q3C_BODY | Q3C_CORPSE |
                     Q3C_DETAIL | Q3C_TRANSLUCENT | Q3C_TRIGGER | (uint32_t)Q3C_NODROP |
                     0x10000000u /* structural */ | 0x100000u /* clusterportal */ | 0x200000u /* donotenter */ |
                     0x80u | 0x100u | 0x200u | 0x400000u | 0x800000u /* team / bot / mover bits */;
    if (u & ~known) n |= BK_CONTENTS_OTHER;
    return n;
}

typedef struct q3state {
    bk_cm cm;                  /* first: the shared trace reads the state as a bk_cm */
    const bk_q3_map *m;
} q3state;

#define PATCH_STEPS 4

static void bez3(const float *a, const float *b, const float *c, float t, float *o)
{
    float s = 1 - t;
    for (int k = 0; k < 3; k++) o[k] = s * s * a[k] + 2 * s * t * b[k] + t * t * c[k];
}

/* Triangles of a patch surface appended to cm->tris (capacity checked by the caller). */
static uint32_t patch_tris(const bk_q3_map *m, const bk_q3_surface *s, bk_cm_tri *out)
{
    int32_t pw = (s->patch_w - 1) / 2, ph = (s->patch_h - 1) / 2;
    uint32_t gw = (uint32_t)pw * PATCH_STEPS + 1, gh = (uint32_t)ph * PATCH_STEPS + 1;
    uint32_t nt = 0;
    /* one row of grid points at a time would do; the grid of one patch is small (bounded by the
     * loader's patch size check), so evaluate points on the fly per quad */
    for (uint32_t gy = 0; gy + 1 < gh; gy++)
        for (uint32_t gx = 0; gx + 1 < gw; gx++) {
            float q[4][3];
            for (int c = 0; c < 4; c++) {
                uint32_t x = gx + (c & 1), y = gy + (c >> 1);
                uint32_t px = x / PATCH_STEPS, py = y / PATCH_STEPS;
                float u = (float)(x % PATCH_STEPS) / PATCH_STEPS, v = (float)(y % PATCH_STEPS) / PATCH_STEPS;
                if (px == (uint32_t)pw) px--, u = 1;
                if (py == (uint32_t)ph) py--, v = 1;
                float rows[3][3];
                for (int r = 0; r < 3; r++) {
                    const float *cp[3];
                    for (int k = 0; k < 3; k++)
                        cp[k] = m->verts[s->first_vert + (int32_t)((py * 2 + (uint32_t)r) * (uint32_t)s->patch_w + px * 2 + (uint32_t)k)].xyz;
                    bez3(cp[0], cp[1], cp[2], u, rows[r]);
                }
                bez3(rows[0], rows[1], rows[2], v, q[c]);
            }
            static const int tri[2][3] = {{0, 2, 1}, {1, 2, 3}};
            for (int t = 0; t < 2; t++) {
                bk_cm_tri *T = &out[nt];
                for (int k = 0; k < 3; k++) memcpy(T->v[k], q[tri[t][k]], sizeof T->v[k]);
                if (bk_cm_tri_finish(T)) nt++;   /* a degenerate one collides with nothing */
            }
        }
    return nt;
}

static const bk_q3_map *q3m(const void *map) { return map; }

static void q3_plane(const void *map, uint32_t i, bk_cm_plane *o)
{
    memcpy(o->n, q3m(map)->planes[i].normal, sizeof o->n);
    o->d = q3m(map)->planes[i].dist;
}
static void q3_node(const void *map, uint32_t i, bk_cm_node *o)
{
    const bk_q3_node *n = &q3m(map)->nodes[i];
    o->plane = (uint32_t)n->plane;
    o->children[0] = n->children[0];
    o->children[1] = n->children[1];
}
static void q3_leaf(const void *map, uint32_t i, bk_cm_leaf *o)
{
    o->first_brush = (uint32_t)q3m(map)->leafs[i].first_leafbrush;
    o->num_brushes = (uint32_t)q3m(map)->leafs[i].num_leafbrushes;
}
static uint32_t q3_leafbrush(const void *map, uint32_t i) { return (uint32_t)q3m(map)->leafbrushes[i]; }
static void q3_side(const void *map, uint32_t i, bk_cm_side *o)
{
    o->plane = (uint32_t)q3m(map)->brushsides[i].plane;
    o->surface = q3m(map)->brushsides[i].shader;
}
static int32_t shader_contents(const bk_q3_map *m, int32_t shader)
{
    return shader >= 0 && (uint32_t)shader < m->shader_count ? m->shaders[shader].content_flags : 0;
}
static void q3_brush(const void *map, uint32_t i, bk_cm_brush *o)
{
    const bk_q3_brush *b = &q3m(map)->brushes[i];
    int32_t c = shader_contents(map, b->shader);
    o->first_side = (uint32_t)b->first_side;
    o->num_sides = (uint32_t)b->num_sides;
    o->native = c;
    o->contents = q3_neutral(c);
}
static uint64_t q3_curve_tris(const void *map, uint32_t i)
{
    const bk_q3_surface *su = &q3m(map)->surfaces[i];
    if (su->type != BK_Q3_MST_PATCH || su->patch_w < 3 || su->patch_h < 3) return 0;
    return (uint64_t)((su->patch_w - 1) / 2) * PATCH_STEPS * (uint64_t)((su->patch_h - 1) / 2) * PATCH_STEPS * 2;
}
static uint32_t q3_curve_mesh(const void *map, uint32_t i, bk_cm_tri *out, bk_cm_mesh *me, float *scratch)
{
    const bk_q3_surface *su = &q3m(map)->surfaces[i];
    int32_t c = shader_contents(map, su->shader);
    me->native = c;
    me->contents = q3_neutral(c);
    me->surface = su->shader;
    return patch_tris(map, su, out);
}
/* the world walks the tree; a brush model tests its own brushes, and its patches are the meshes
 * of its run of surfaces */
static void q3_model(const void *map, uint32_t i, const bk_cm *cm, const uint32_t *mesh_of, bk_cm_model *o)
{
    const bk_q3_map *m = map;
    const bk_q3_model *md = &m->models[i];
    o->headnode = i == 0 ? 0 : -1;
    o->first_brush = (uint32_t)md->first_brush;
    o->num_brushes = (uint32_t)md->num_brushes;
    uint32_t a = (uint32_t)md->first_surface, b = a + (uint32_t)md->num_surfaces;
    uint32_t ma = a < m->surface_count ? mesh_of[a] : cm->mesh_count;
    uint32_t mb = b < m->surface_count ? mesh_of[b] : cm->mesh_count;
    o->first_mesh = ma;
    o->num_meshes = mb > ma ? mb - ma : 0;
}

static bk_result q3_open(const bk_file *f, bk_ctx *ctx, void **state, bk_query_info *info)
{
    const bk_q3_map *m = bk_q3_map_of(f);
    bk_result r = BK_OK;
    q3state *s = bk_query_state_new(ctx, m && m->model_count && m->leaf_count && m->node_count,
                                    "world model, nodes or leaves", sizeof *s, &r);
    if (!s) return r;
    s->m = m;
    const bk_cm_desc d = {
        .map = m, .plane_count = m->plane_count, .node_count = m->node_count, .leaf_count = m->leaf_count,
        .leafbrush_count = m->leafbrush_count, .side_count = m->brushside_count, .brush_count = m->brush_count,
        .model_count = m->model_count, .plane = q3_plane, .node = q3_node, .leaf = q3_leaf,
        .leafbrush = q3_leafbrush, .side = q3_side, .brush = q3_brush, .curve_count = m->surface_count,
        .curve_tris = q3_curve_tris, .curve_mesh = q3_curve_mesh, .curve_lump = "surfaces",
        .curve_what = "patch collision triangles", .model = q3_model, .leaf_contents_from_brushes = true,
    };
    if ((r = bk_cm_build(&s->cm, &d, ctx)) != BK_OK) {
        bk_free(s);
        return r;
    }
    info->model_count = m->model_count;
    info->leaf_count = m->leaf_count;
    info->cluster_count = m->vis && m->cluster_count > 0 ? (uint32_t)m->cluster_count : 0;
    info->face_count = m->surface_count;
    info->hull_count = 0;
    info->has_pas = 0;
    *state = s;
    return BK_OK;
}

static void q3_destroy(void *state)
{
    q3state *s = state;
    if (!s) return;
    bk_cm_free(&s->cm);
    bk_free(s);
}

/* one point: its contents, and its world leaf l (ignored for brush models) */
static bk_result q3_point_at(const q3state *s, uint32_t model, int32_t l, uint32_t contents, int32_t native,
                             bk_point_info *out)
{
    const bk_q3_map *m = s->m;
    out->contents = contents;
    out->native_contents = native;
    if (model == 0 && l >= 0) {
        const bk_q3_leaf *lf = &m->leafs[l];
        out->leaf = l;
        out->cluster = lf->cluster;
        out->area = lf->area;
        for (int k = 0; k < 3; k++) out->leaf_mins[k] = (float)lf->mins[k], out->leaf_maxs[k] = (float)lf->maxs[k];
        return BK_OK;
    }
    out->leaf = out->cluster = out->area = -1;
    for (int k = 0; k < 3; k++) {
        out->leaf_mins[k] = model == 0 ? 0.0f : m->models[model].mins[k];
        out->leaf_maxs[k] = model == 0 ? 0.0f : m->models[model].maxs[k];
    }
    return model == 0 ? BK_EINDEX : BK_OK;
}

static bk_result q3_point(const void *state, uint32_t model, const float pos[3], bk_point_info *out)
{
    const q3state *s = state;
    int32_t l, native;
    if (model == 0) {
        uint32_t c = bk_cm_world_point(&s->cm, pos, &l, &native);
        return q3_point_at(s, model, l, c, native, out);
    }
    int32_t head = s->cm.models[model].headnode;
    l = head >= 0 ? bk_cm_point_leaf(&s->cm, head, pos) : -1;
    uint32_t c = bk_cm_leaf_contents(&s->cm, model, l, pos, &native);
    return q3_point_at(s, model, l, c, native, out);
}

static bk_result q3_points(const void *state, uint32_t model, size_t count, const float *pos, int32_t *leaves,
                           bk_point_info *out)
{
    const q3state *s = state;
    int32_t head = s->cm.models[model].headnode;
    bk_result r = BK_OK;
    enum { CHUNK = 256 };
    uint32_t contents[CHUNK];
    int32_t native[CHUNK];
    for (size_t base = 0; base < count; base += CHUNK) {
        size_t n = count - base < CHUNK ? count - base : CHUNK;
        const float *p = pos + 3 * base;
        int32_t *lv = leaves + base;
        if (model == 0 && head >= 0) {
            bk_cm_world_points(&s->cm, n, p, lv, contents, native);
        } else {
            if (head >= 0) bk_cm_point_leaves(&s->cm, head, n, p, lv);
            for (size_t i = 0; i < n; i++)
                contents[i] = bk_cm_leaf_contents(&s->cm, model, head >= 0 ? lv[i] : -1, p + 3 * i, &native[i]);
        }
        for (size_t i = 0; i < n && model == 0; i++)
            if (lv[i] >= 0) PREFETCH(&s->m->leafs[lv[i]]);
        for (size_t i = 0; i < n; i++) {
            bk_result ri = q3_point_at(s, model, head >= 0 ? lv[i] : -1, contents[i], native[i], &out[base + i]);
            if (r == BK_OK) r = ri;
        }
    }
    return r;
}

static bk_result q3_vis_row(const void *state, bk_vis_kind kind, int32_t cluster, uint8_t *row)
{
    const q3state *s = state;
    const bk_q3_map *m = s->m;
    size_t nbytes = ((size_t)m->cluster_count + 7) / 8;
    size_t take = nbytes < (size_t)m->bytes_per_cluster ? nbytes : (size_t)m->bytes_per_cluster;
    (void)kind;
    memcpy(row, m->vis + (size_t)cluster * (size_t)m->bytes_per_cluster, take);
    if (m->cluster_count & 7) row[nbytes - 1] &= (uint8_t)((1u << (m->cluster_count & 7)) - 1);
    return BK_OK;
}

static int32_t q3_leaf_cluster(const void *state, int32_t leaf)
{
    const q3state *s = state;
    return s->m->leafs[leaf].cluster;
}
static uint32_t q3_leaf_face_count(const void *state, int32_t leaf)
{
    const q3state *s = state;
    int32_t n = s->m->leafs[leaf].num_leafsurfaces;
    return n > 0 ? (uint32_t)n : 0;
}
static uint32_t q3_leaf_face(const void *state, int32_t leaf, uint32_t i)
{
    const q3state *s = state;
    uint64_t k = (uint64_t)(uint32_t)s->m->leafs[leaf].first_leafsurface + i;
    return k < s->m->leafsurface_count ? (uint32_t)s->m->leafsurfaces[k] : UINT32_MAX;
}

static const char *q3_surface_name(const bk_file *f, int32_t surface)
{
    const bk_q3_map *m = bk_q3_map_of(f);
    return m && (uint32_t)surface < m->shader_count ? m->shaders[surface].name : NULL;
}

static void q3_leaf_bounds(const void *state, int32_t leaf, float mins[3], float maxs[3])
{
    const bk_q3_leaf *lf = &((const q3state *)state)->m->leafs[leaf];
    for (int k = 0; k < 3; k++) mins[k] = (float)lf->mins[k], maxs[k] = (float)lf->maxs[k];
}

const bk_query_ops bk_query_ops_q3 = {
    .open = q3_open,
    .destroy = q3_destroy,
    .point = q3_point,
    .points = q3_points,
    .vis_row = q3_vis_row,
    .leaf_cluster = q3_leaf_cluster,
    .leaf_face_count = q3_leaf_face_count,
    .leaf_face = q3_leaf_face,
    .trace = bk_cm_state_trace,
    .cm = bk_cm_state,
    .surface_name = q3_surface_name,
    .leaf_bounds = q3_leaf_bounds,
};
