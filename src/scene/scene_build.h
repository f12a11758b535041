/* Building a scene: what the decoders use to fill a bk_scene, and how the scene keeps pixels.
 * Not installed: a program reads scenes (bspkit/scene.h), the library builds them. */
#ifndef BK_SCENE_BUILD_H
#define BK_SCENE_BUILD_H

#include "bspkit/scene.h"
#include "common/bk_internal.h"

/* How an image holds its pixels. Packed forms stay as the source gives them until an exporter
 * encodes them, so a large map's textures and atlas are never all held as RGBA at once. */
enum {
    BK_PACK_NONE = 0,   /* rgba holds the pixels (or the image has none: an external texture) */
    BK_PACK_RGB_UP = 1, /* opaque RGB as PNG rows (a filter byte, then width*3 bytes): row 0 plain
                         * (filter 0), every other row minus the row above (filter 2, "up"), bytewise:
                         * what the PNG encoder deflates as it is */
    BK_PACK_PAL8 = 2,   /* a 256-entry RGBA palette (1024 bytes), then one index per pixel */
    BK_PACK_CODEC = 3,  /* the source's own encoding (e.g. a VTF's DXT blocks), decoded by unpack */
    BK_PACK_PNG = 4     /* a whole PNG file (8-bit RGB or RGBA), written as it is by the exporters at
                         * their default PNG level */
};

typedef bk_result (*bk_unpack_fn)(const uint8_t *packed, size_t size, uint32_t w, uint32_t h, uint8_t *out);

/* The pixels of one scene image (bk_scene_pixels), owned by the scene. */
typedef struct bk_pixels {
    uint8_t *rgba;             /* width*height*4 bytes, straight alpha; NULL while packed */
    uint32_t packing;          /* BK_PACK_* */
    uint8_t *packed;           /* packed_size bytes */
    size_t packed_size;
    bk_unpack_fn unpack;       /* BK_PACK_CODEC: writes the width*height*4 RGBA pixels of packed */
} bk_pixels;

/* The pixels of image i of s (i < s->image_count). */
bk_pixels *bk_scene_pixels(const bk_scene *s, uint32_t i);
/* Rows 0 .. rows - 1 of image i handed to fn in turn as RGBA, the same pixels bk_scene_image_rgba
 * gives: a PNG or RGB rows decoded a row at a time and only down to the last row asked for (the
 * picture never held whole), any other form decoded whole first. */
bk_result bk_scene_image_rows(const bk_scene *s, uint32_t i, uint32_t rows, bk_row_fn fn, void *user);

/* ---- building -------------------------------------------------------------------------- */
bk_scene *bk_scene_new(void);
/* The scene takes ownership of rgba (bk_malloc'd). Returns the image index in *out. */
bk_result bk_scene_add_image(bk_scene *s, const char *name, uint32_t w, uint32_t h, uint8_t *rgba,
                             int32_t *out);
/* The same for packed pixels (BK_PACK_*; the scene takes ownership of packed, bk_malloc'd). has_alpha:
 * 0 or 1, or -1 to work it out (BK_PACK_RGB_UP: 0; BK_PACK_PAL8: from the palette entries used). unpack
 * only for BK_PACK_CODEC. The size is checked against width and height. */
bk_result bk_scene_add_packed_image(bk_scene *s, const char *name, uint32_t w, uint32_t h, uint32_t packing,
                                    uint8_t *packed, size_t size, bk_unpack_fn unpack, int has_alpha, int32_t *out);
/* Rows of RGB (bpp 3) or RGBA (bpp 4, alpha dropped) pixels at src into BK_PACK_RGB_UP rows at dst,
 * which may be the same block as long as row y's packed row (at y * (3w + 1)) never starts past its
 * source row: rows go in order, each read aside before it is written. */
bk_result bk_pack_rgb_up(uint8_t *dst, const uint8_t *src, size_t w, size_t h, int bpp);
/* An opaque RGBA image (the scene takes rgba, bk_malloc'd, and frees it on failure) packed in its own
 * block as BK_PACK_RGB_UP: three quarters of the memory, the same pixels when unpacked. */
bk_result bk_scene_add_rgb_image(bk_scene *s, const char *name, uint32_t w, uint32_t h, uint8_t *rgba, int32_t *out);
bk_result bk_scene_add_material(bk_scene *s, const char *name, int32_t *out);
bk_result bk_scene_add_mesh(bk_scene *s, const char *name, int32_t *out);
bk_result bk_scene_add_node(bk_scene *s, const char *name, int32_t parent, int32_t mesh, int32_t *out);
bk_result bk_scene_add_skin(bk_scene *s, const char *name, uint32_t joint_count, int32_t *out);
/* A light (BK_LIGHT_*: white, intensity 1, unbounded, a 45-degree cone); a node takes it by its index. */
bk_result bk_scene_add_light(bk_scene *s, const char *name, uint32_t type, int32_t *out);
bk_result bk_scene_add_animation(bk_scene *s, const char *name, int32_t *out);
bk_result bk_animation_add_channel(bk_animation *a, int32_t node, uint32_t path, uint32_t key_count,
                                   bk_channel **out);
/* *out points into m->prims: valid until the next primitive is added to m (the array may move);
 * keep its index (m->prim_count - 1) across adds. The same holds for the scene's other arrays. */
bk_result bk_mesh_add_primitive(bk_mesh *m, int32_t material, uint32_t mode, uint32_t attrs,
                                bk_primitive **out);
/* Grow the primitive by n vertices; *first receives the index of the first new vertex.
 * The new vertices' attribute slots are zeroed (weights: 1,0,0,0). */
bk_result bk_prim_add_vertices(bk_primitive *p, uint32_t n, uint32_t *first);
bk_result bk_prim_add_indices(bk_primitive *p, const uint32_t *idx, uint32_t n);
/* Room for `vertices` more vertices and `indices` more indices, allocated to that size at once: a
 * builder that knows its counts saves the copies and spare room of growing by doubling. */
bk_result bk_prim_reserve(bk_primitive *p, uint32_t vertices, uint32_t indices);
bk_result bk_prim_add_triangle(bk_primitive *p, uint32_t a, uint32_t b, uint32_t c);
/* Append a key/value to a node / material / scene extras list (copies both strings). */
bk_result bk_kv_append(bk_kv **list, uint32_t *count, const char *key, const char *value);
/* give back the spare capacity of every primitive's arrays (after a builder is done) */
void bk_scene_shrink(bk_scene *s);

/* ---- pixels ----------------------------------------------------------------------------- */
/* image i's pixels as RGBA into out (width*height*4 bytes) */
bk_result bk_scene_image_unpack_to(const bk_scene *s, uint32_t i, uint8_t *out);
/* The PNG of image i of s, held as rgba or packed (RGB is encoded straight from its packed bytes,
 * other packings are unpacked to a temporary block first). level: deflate effort 1 (fastest) ..
 * 12 (smallest), 0 = default. */
bk_result bk_png_encode_image(const bk_scene *s, uint32_t i, int level, bk_buf *out);
/* the same from an image and its pixels (a copy of them, read on another thread) */
bk_result bk_png_encode_pixels(const bk_image *im, const bk_pixels *px, int level, bk_buf *out);
bk_result bk_unpack_pixels(const bk_image *im, const bk_pixels *px, uint8_t *out);

/* A scene image's PNG made on a second thread while the builder and then the exporter go on (a
 * Quake 3 atlas, deflated while the geometry is built and written): bk_png_bg_start starts
 * deflating image `image` (RGB rows in PNG layout, BK_PACK_RGB_UP, left as they are) into a PNG
 * the scene holds, when a second processor and a thread are to be had (else nothing).
 * bk_png_bg_get: that PNG for image i of s, waited for; false when there is none (another image,
 * no job, or it failed: the image's rows are there to encode). bk_png_bg_free (bk_scene_free)
 * waits and frees it. */
typedef struct bk_png_bg bk_png_bg;
void bk_png_bg_start(bk_scene *s, int32_t image);
bool bk_png_bg_get(const bk_scene *s, uint32_t image, const uint8_t **png, size_t *size);
void bk_png_bg_free(bk_scene *s);
/* where the scene keeps its background PNG job (scene.c) */
bk_png_bg **bk_scene_png_job(const bk_scene *s);

/* Replace image i's pixels by rgba (width*height*4 bytes, bk_malloc'd; the scene takes it, and
 * frees it on failure). */
bk_result bk_scene_set_image_rgba(bk_scene *s, uint32_t i, uint8_t *rgba);

/* ---- light styles (lightstyles.c; bk_lightstyle in bspkit/scene.h) ---------------------------- */
/* A lightmap texel from acc, the sum over a face's styles of its stored texel x the style's value
 * (bk_lightstyle_value), and the map's gain (bk_scene.lightstyle_gain): value 264 ('m') with gain 1
 * gives the stored texel back. Clamped at 255 once, after the sum, as QuakeSpasm's and DarkPlaces'
 * R_BuildLightMap (r_brush.c, gl_rsurf.c) clamp the summed block lights. */
static inline uint8_t bk_lightstyle_texel(uint32_t acc, float gain)
{
    float v = (float)acc / 264.0f * gain;
    return (uint8_t)(v > 255.0f ? 255 : v + 0.5f);
}
/* The scene's light styles (s->lightstyles) for the styles set in used (a bit per style number,
 * 255 never): the stock patterns, and for the switchable ones (32-63) the light entities' style,
 * targetname and spawnflags (goldsrc: and "pattern" key) in ents, the last light of a style winning
 * as it does when the game spawns them in order. */
bk_result bk_lightstyles_from_entities(bk_scene *s, const bk_entities *ents, bool goldsrc, const uint8_t used[32]);
/* The value at rest of style k of s (s->lightstyles), 264 for one it does not list. */
uint32_t bk_lightstyle_rest(const bk_scene *s, uint32_t style);

/* ---- lightmap atlas ------------------------------------------------------------------ */
/* Two phases: add every rectangle, pack once, then read each rectangle's position. */
typedef struct bk_atlas bk_atlas;
/* max_size: largest width/height of the atlas (0: 8192, see bk_limits.max_atlas_size); pad: border
 * of duplicated edge texels kept around each rectangle (1 recommended for bilinear filtering). */
bk_atlas *bk_atlas_new(uint32_t max_size, uint32_t pad);
/* Copy a w x h RGBA rectangle into the atlas; *id identifies it. rgba may be NULL: the rectangle is
 * then drawn by the fill callback when the image is made (no copy of its pixels is kept). */
bk_result bk_atlas_add(bk_atlas *a, uint32_t w, uint32_t h, const uint8_t *rgba, uint32_t *id);
/* Draws rectangle id (added without pixels) at dst: its w x h RGBA texels, rows stride bytes apart. */
typedef void (*bk_atlas_fill_fn)(void *user, uint32_t id, uint8_t *dst, size_t stride);
void bk_atlas_set_fill(bk_atlas *a, bk_atlas_fill_fn fn, void *user);
/* Optional: the same rectangles drawn as RGB (3 bytes a texel, no alpha) straight into an RGB
 * atlas (bk_atlas_to_rgb_image), with set_fill's user pointer; without it they are drawn as RGBA
 * and copied. */
void bk_atlas_set_fill_rgb(bk_atlas *a, bk_atlas_fill_fn fn);
/* Optional: the fill callback is costly (it decodes a file): an atlas made band by band
 * (bk_atlas_to_png_image) keeps each rectangle it drew until the bands have passed it, instead of
 * drawing it again for each band it reaches. */
void bk_atlas_set_fill_held(bk_atlas *a, bool held);
/* Place every rectangle (tallest first, bottom-left on a skyline) into the smallest image found,
 * of any size (not a power of two). BK_ELIMIT when they cannot fit in max_size x max_size. */
bk_result bk_atlas_pack(bk_atlas *a);
uint32_t bk_atlas_count(const bk_atlas *a);
/* After packing: top-left texel of rectangle id (inside its padding). */
void bk_atlas_rect(const bk_atlas *a, uint32_t id, uint32_t *x, uint32_t *y);
void bk_atlas_size(const bk_atlas *a, uint32_t *w, uint32_t *h);
/* After packing: render into a new image of the scene (marked is_lightmap); texels outside every
 * rectangle and its padding are opaque black. */
bk_result bk_atlas_to_image(const bk_atlas *a, bk_scene *s, const char *name, int32_t *out);
/* The same image kept packed as RGB (BK_PACK_RGB_UP: three quarters of the memory, and the PNG encoder
 * deflates it as it is; lightmaps are opaque). */
bk_result bk_atlas_to_rgb_image(const bk_atlas *a, bk_scene *s, const char *name, int32_t *out);
/* The same image of a gray atlas (every texel R = G = B), one byte a texel behind a gray palette
 * (BK_PACK_PAL8: an indexed PNG, a third of the RGB one): the red channel is kept. */
bk_result bk_atlas_to_gray_image(const bk_atlas *a, bk_scene *s, const char *name, int32_t *out);
/* The same image as a finished PNG (BK_PACK_PNG), deflated band by band as it is drawn (zlib; level
 * as bk_export_options.png_level, 0: fast): the atlas is never held whole, only its PNG. */
bk_result bk_atlas_to_png_image(const bk_atlas *a, bk_scene *s, const char *name, int level, int32_t *out);
/* The image a map's lightmap atlas becomes in scene s: RGBA (bk_atlas_to_image) unless the scene
 * keeps images compact (opt); then a PNG deflated as it is drawn (bk_atlas_to_png_image) when its
 * RGB rows would be over stream_above bytes, else those rows (bk_atlas_to_rgb_image), which the
 * exporter deflates faster (libdeflate) on its second thread while it writes the geometry. */
bk_result bk_atlas_to_scene_image(const bk_atlas *a, bk_scene *s, const char *name, const bk_options *opt,
                                  size_t stream_above, int32_t *out);
void bk_atlas_free(bk_atlas *a);

/* ---- sky boxes (skybox.c) ---------------------------------------------------------------- */
/* The six faces' name suffixes in face order: rt, bk, lf, ft, up, dn. */
extern const char *const bk_sky_face_suffix[6];
/* The sky's colour (linear RGB, a sky material's base colour) where a map's sky box is not drawn:
 * a neutral light grey-blue (sRGB 150 165 185), so that a view of the sky alone is not black. The
 * renderer, the web page and the Blender add-on all draw it from the material. */
extern const float bk_sky_neutral[3];
/* A point of face f (0..5, the order above) at (s, t) in -1..1 on the unit cube, engine axes. */
void bk_sky_face_point(int f, float s, float t, float p[3]);
/* The triangles of an (n+1) x (n+1) vertex grid starting at vertex first, facing the origin. */
bk_result bk_sky_grid_triangles(bk_primitive *p, uint32_t first, uint32_t n);
/* Face f as a quad half units from the centre, seen from inside, its image upright (uv0, normals). */
bk_result bk_sky_add_face(bk_primitive *p, int f, float half);

#endif
