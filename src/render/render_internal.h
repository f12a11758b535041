/* The software renderer's inside: a scene prepared for drawing (prepare.c), the rasteriser
 * (raster.c), views and threads (render.c). */
#ifndef BK_RENDER_INTERNAL_H
#define BK_RENDER_INTERNAL_H

#include "bspkit/render.h"
#include "common/bk_internal.h"

#define RT_MAX_LEVELS 16

/* a texture with its mip levels (RGBA8, straight alpha, or RGB8 when opaque). Only the levels a
 * view samples are held: from `first` (the finest any drawn pixel reads) to 1x1; the finer ones
 * point at level `first` (never read when the bound holds, but never a null pointer either) */
typedef struct rtex {
    int32_t image;              /* the scene image it decodes (when drawn: bk_rt_texture_load) */
    bool mips, loaded;
    uint32_t levels, first;
    uint32_t fw, fh;            /* level 0's size: the level of detail counts its texels */
    uint32_t w[RT_MAX_LEVELS], h[RT_MAX_LEVELS];
    uint8_t *px[RT_MAX_LEVELS];
    bool clamp;
    bool pot;                   /* both sides powers of two (every level then is): wrap by mask */
    uint8_t bpp;                /* bytes a texel of the levels: 4 RGBA, 3 RGB (opaque: every alpha 255;
                                 * each level then has a byte of padding, sample.h's texel reads 4) */
    /* A lightmap (one level, clamped) is held as blocks of RT_BLOCK x RT_BLOCK texels, only those
     * the views drawn so far read (bk_rt_lightmap_load; sample.h's at_blocks): block (bx, by) is
     * blk[by * bw + bx], RT_SIDE x RT_SIDE RGB texels (and a byte of padding) from (bx, by) x
     * RT_BLOCK, its last column and row the next block's first, so that a bilinear sample reads
     * one block; the blocks not held point at one block of zeros (bk_rt_zero_block). `loaded`
     * and the levels are not used. */
    bool blocks;
    uint8_t **blk;
    uint32_t bw, bh;
} rtex;

#define RT_BLOCK 64
#define RT_SIDE (RT_BLOCK + 1)
#define RT_BLOCK_BYTES (RT_SIDE * RT_SIDE * 3 + 1)
extern const uint8_t bk_rt_zero_block[RT_BLOCK_BYTES];

enum { RB_NONE = 0, RB_ALPHA = 1, RB_ADD = 2, RB_MULTIPLY = 3 };
enum { RP_SKY = 0, RP_OPAQUE = 1, RP_BLEND = 2 };

typedef struct rmat {
    int32_t tex, tex2, lm, em;  /* textures (rtex index) or -1 */
    float base[4];              /* gamma-space base colour, opacity */
    float emissive[3];          /* gamma-space emission x strength */
    float cutoff;               /* alpha test (0: none) */
    float lm_scale;
    uint8_t blend;              /* RB_* */
    uint8_t pass;               /* RP_* */
    bool vc;                    /* multiply the vertex colour in */
    bool double_sided;
    bool tool;                  /* sky or tool texture: left out of overviews */
    int32_t sky_layer;
} rmat;

/* a vertex in world space (the skybox's relative to its node) */
typedef struct rvert {
    float p[3];
    float uv0[2], uv1[2];
    float col[4];
} rvert;

typedef struct rtri {
    uint32_t v[3];
    uint32_t mat;
    bool follow;                /* part of the skybox that follows the eye */
    bool sky3d;                 /* part of a 3D skybox (extras.skybox3d): drawn behind the rest */
} rtri;

struct bk_renderer {
    const bk_scene *s;
    const bk_query *q;
    rtex *tex; uint32_t tex_count;
    rmat *mat; uint32_t mat_count;
    rvert *vert; uint64_t vert_count, vert_cap;
    rtri *tri; uint64_t tri_count, tri_cap;
    int32_t *tri_cluster;       /* 4 per triangle when the map has clusters, else NULL */
    uint32_t cluster_count;
    float sky_origin[3];        /* the skybox node's world position */
    float mins[3], maxs[3];     /* bounds of everything but the skybox */
    float display_gamma;
    uint32_t spawn_count;
};

/* prepare.c */
bk_result bk_rt_prepare(bk_renderer *r);
/* decode texture i with its mip levels from `first` down, unless it holds them already:
 * textures are decoded for the views that draw them, so a view holds only what it shows */
bk_result bk_rt_texture_load(bk_renderer *r, int32_t i, uint32_t first);
/* decode the blocks of lightmap i that want flags (bw x bh, non-zero: read by the view) and it
 * does not hold yet */
bk_result bk_rt_lightmap_load(bk_renderer *r, int32_t i, const uint8_t *want);
void bk_rt_release(bk_renderer *r);
const char *bk_rt_extra(const bk_kv *kv, uint32_t n, const char *key);

/* A view: world -> camera space, a projection, what to draw. */
typedef struct rt_view {
    uint32_t w, h;
    bool ortho;
    float eye[3];
    float right[3], up[3], fwd[3];
    float tx, ty;               /* perspective: tan of the half angles; ortho: half extents in units */
    float znear, zfar;          /* camera-space depth range (ortho: the z slice) */
    bool overview;              /* leave sky / tool out, shade by height */
    bool model_light;           /* a model's view: shade faces by their normals */
    float hz0, hz1;             /* overview: world heights shaded dark .. bright */
    const uint8_t *vis;         /* triangle visible flags (PVS), or NULL: all */
    uint32_t threads;
    float display_gamma;
    bool open_yaw;              /* a spawn without an angle: view_of turns it to the most open direction */
    bool exhaustive;            /* no shortcut: every triangle sorted (qsort) and set up, every row of
                                 * a tile walked; the same picture (the tests compare both) */
} rt_view;

/* render.c: bk_renderer_draw, with exhaustive set as rt_view says (for the tests) */
bk_result bk_rt_draw_view(bk_renderer *r, const bk_render_options *o, bool exhaustive, uint8_t **rgba,
                          bk_render_info *info);

/* raster.c: v's clipping planes in camera space (x right, y up, z forward): a point p is inside
 * when n . p + d >= 0 for every one; the count (5 perspective, 6 orthographic) */
int bk_rt_view_planes(const rt_view *v, float planes[6][4]);

/* render.c: the triangles v draws, in the order they are drawn (bk_free *out) */
typedef struct rt_order { int32_t pass, layer; float depth; uint32_t tri; } rt_order;
bk_result bk_rt_draw_order(const bk_renderer *r, const rt_view *v, rt_order **out, uint64_t *count);

/* raster.c: draw r from v into rgba (w*h*4); *drawn receives the triangles drawn */
bk_result bk_rt_draw(bk_renderer *r, const rt_view *v, uint8_t *rgba, uint64_t *drawn);
/* decode the textures v draws, at the levels it samples, and nothing else; release (r's scene,
 * or NULL) gives back every image: those v does not draw first, the others once decoded */
bk_result bk_rt_load(bk_renderer *r, const rt_view *v, bk_scene *release);

#endif
