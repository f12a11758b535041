/* bspkit/render.h on a scene made here: a textured, lightmapped wall seen from an eye, its colour
 * (texture x lightmap x base colour, as the engine multiplies them), an additive pane over it, a
 * sky layer behind, the depth test, back faces, a spawn at the game's eye height, the size and
 * view checks, the overview's mapping, the same picture whatever the number of threads, views
 * that decode only the mip levels they sample, and the PNG made in the picture's memory. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bspkit/render.h"
#include "check.h"
#define BK_ADVANCED_API
#include "bspkit/advanced.h"
#include "scene/scene_build.h"
#include "common/bk_internal.h"

static int32_t solid_image(bk_scene *s, const char *name, uint8_t r, uint8_t g, uint8_t b, bool lightmap)
{
    uint8_t *px = bk_malloc(4 * 4 * 4);
    for (int i = 0; i < 16; i++) px[i * 4] = r, px[i * 4 + 1] = g, px[i * 4 + 2] = b, px[i * 4 + 3] = 255;
    int32_t id = -1;
    bk_scene_add_image(s, name, 4, 4, px, &id);
    s->images[id].is_lightmap = lightmap;
    return id;
}

/* a quad in the plane x = X facing -x (towards an eye at the origin looking along +x) */
static void add_wall(bk_scene *s, int32_t mesh, int32_t mat, float x, float half)
{
    bk_primitive *p;
    bk_mesh_add_primitive(&s->meshes[mesh], mat, BK_PRIM_TRIANGLES, BK_ATTR_UV0 | BK_ATTR_UV1, &p);
    uint32_t first;
    bk_prim_add_vertices(p, 4, &first);
    const float v[4][3] = {{x, half, -half}, {x, -half, -half}, {x, -half, half}, {x, half, half}};
    for (int i = 0; i < 4; i++) {
        memcpy(p->position + (first + i) * 3, v[i], sizeof v[i]);
        p->uv0[(first + i) * 2] = (float)(i == 1 || i == 2), p->uv0[(first + i) * 2 + 1] = (float)(i >= 2);
        p->uv1[(first + i) * 2] = 0.5f, p->uv1[(first + i) * 2 + 1] = 0.5f;
    }
    /* counter-clockwise seen from the eye (y to the left, z up): 0 1 2, 0 2 3 */
    bk_prim_add_triangle(p, first, first + 1, first + 2);
    bk_prim_add_triangle(p, first, first + 2, first + 3);
}

static const uint8_t *px_at(const uint8_t *rgba, uint32_t w, uint32_t x, uint32_t y) { return rgba + ((size_t)y * w + x) * 4; }

static bool near(int a, int b, int tol) { return a - b <= tol && b - a <= tol; }

/* a material of the 64x64 RGBA px (the scene takes it) and an empty mesh "m" */
static void textured_mesh(bk_scene *s, const char *name, uint8_t *px, int32_t *mat, int32_t *mesh)
{
    int32_t img;
    bk_scene_add_image(s, name, 64, 64, px, &img);
    bk_scene_add_material(s, name, mat);
    s->materials[*mat].base_image = img;
    bk_scene_add_mesh(s, "m", mesh);
}

/* a 64x64 checker of one-texel cells filling a 64x64 picture texel for pixel: the level-0 texels
 * come out as they are (a mip level chosen too high would mix in grey) */
static void check_mip_level(void)
{
    bk_scene *s = bk_scene_new();
    uint8_t *px = bk_malloc(64 * 64 * 4);
    for (int y = 0; y < 64; y++)
        for (int x = 0; x < 64; x++) {
            uint8_t c = ((x + y) & 1) ? 255 : 0;
            uint8_t *p = px + (y * 64 + x) * 4;
            p[0] = p[1] = p[2] = c, p[3] = 255;
        }
    int32_t mat, mesh, node;
    textured_mesh(s, "checker", px, &mat, &mesh);
    add_wall(s, mesh, mat, 32, 32);
    bk_scene_add_node(s, "worldspawn", -1, mesh, &node);
    bk_render_options o = {0};
    o.view = BK_VIEW_EYE;
    o.width = o.height = 64;
    uint8_t *out = NULL;
    CHECK(bk_render(s, NULL, &o, &out, NULL) == BK_OK);
    int grey = 0;
    for (int i = 0; out && i < 64 * 64; i++) grey += out[i * 4] > 20 && out[i * 4] < 235;
    CHECK(out && grey < 64);
    if (grey >= 64) fprintf(stderr, "%d grey pixels in a texel-for-pixel checker\n", grey);
    bk_free(out);
    bk_scene_free(s);
}

/* a patterned 64x64 texture on a far wall and on a floor seen at a glancing angle */
static bk_scene *levels_scene(void)
{
    bk_scene *s = bk_scene_new();
    uint8_t *px = bk_malloc(64 * 64 * 4);
    for (int y = 0; y < 64; y++)
        for (int x = 0; x < 64; x++)
            for (int c = 0; c < 4; c++) px[(y * 64 + x) * 4 + c] = (uint8_t)(c == 3 ? 255 : (x * 37 + y * 91 + c * 50) ^ (x * y));
    int32_t mat, mesh, node;
    textured_mesh(s, "pattern", px, &mat, &mesh);
    add_wall(s, mesh, mat, 400, 40);
    bk_primitive *p;
    bk_mesh_add_primitive(&s->meshes[mesh], mat, BK_PRIM_TRIANGLES, BK_ATTR_UV0, &p);
    uint32_t first;
    bk_prim_add_vertices(p, 4, &first);
    const float v[4][3] = {{200, -60, -30}, {400, -60, -30}, {400, 60, -30}, {200, 60, -30}};
    for (int i = 0; i < 4; i++) {
        memcpy(p->position + (first + i) * 3, v[i], sizeof v[i]);
        p->uv0[(first + i) * 2] = (float)(i == 1 || i == 2) * 3, p->uv0[(first + i) * 2 + 1] = (float)(i >= 2);
    }
    bk_prim_add_triangle(p, first, first + 1, first + 2);
    bk_prim_add_triangle(p, first, first + 2, first + 3);
    bk_scene_add_node(s, "worldspawn", -1, mesh, &node);
    return s;
}

/* a view decodes only the mip levels its pixels sample (bk_renderer_prepare), and draws the same
 * picture as a renderer holding every level; a view needing finer levels after the scene's
 * images went fails cleanly */
static void check_view_levels(void)
{
    bk_scene *a = levels_scene(), *b = levels_scene();
    bk_render_options far = {0}, close = {0};
    far.view = close.view = BK_VIEW_EYE;
    far.width = far.height = close.width = close.height = 96;
    close.eye[0] = 330;
    bk_renderer *ra = NULL, *rb = NULL;
    uint8_t *pa = NULL, *pb = NULL, *pc = NULL;
    CHECK(bk_renderer_new(a, NULL, &ra) == BK_OK && bk_renderer_new(b, NULL, &rb) == BK_OK);
    CHECK(ra && bk_renderer_prepare_release(ra, &far, b) == BK_EARG); /* not its scene */
    CHECK(ra && bk_renderer_prepare_release(ra, &far, a) == BK_OK);
    CHECK(!bk_scene_image_has_pixels(a, 0)); /* given back */
    CHECK(ra && bk_renderer_draw(ra, &far, &pa, NULL) == BK_OK);
    CHECK(ra && bk_renderer_draw(ra, &close, &pc, NULL) == BK_EARG && !pc);
    CHECK(rb && bk_renderer_draw(rb, &close, &pc, NULL) == BK_OK); /* every level decoded */
    CHECK(rb && bk_renderer_draw(rb, &far, &pb, NULL) == BK_OK);
    CHECK(pa && pb && memcmp(pa, pb, 96 * 96 * 4) == 0);
    bk_free(pa);
    bk_free(pb);
    bk_free(pc);
    bk_renderer_free(ra);
    bk_renderer_free(rb);
    bk_scene_free(a);
    bk_scene_free(b);
}

/* the PNG made in the picture's own memory is the PNG made from a copy, byte for byte */
static void check_png_in_place(void)
{
    const uint32_t sizes[][2] = {{1, 1}, {1, 5}, {5, 1}, {7, 3}, {64, 48}};
    uint32_t seed = 12345;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        uint32_t w = sizes[k][0], h = sizes[k][1];
        uint8_t *px = bk_malloc((size_t)w * h * 4);
        for (size_t i = 0; i < (size_t)w * h * 4; i++) {
            seed = seed * 1103515245u + 12345u;
            px[i] = (uint8_t)(i % 4 == 3 ? 255 : (seed >> 16) & (k % 2 ? 0xff : 0x3f));
        }
        bk_buf a, b;
        memset(&a, 0, sizeof a);
        memset(&b, 0, sizeof b);
        CHECK(bk_png_encode(px, w, h, false, 0, &a) == BK_OK);
        CHECK(bk_png_encode_in_place(px, w, h, 0, &b) == BK_OK);
        CHECK(a.size == b.size && a.size && memcmp(a.data, b.data, a.size) == 0);
        bk_buf_free(&a);
        bk_buf_free(&b);
        bk_free(px);
    }
}

int main(void)
{
    check_mip_level();
    check_png_in_place();
    check_view_levels();
    bk_scene *s = bk_scene_new();
    bk_kv_append(&s->extras, &s->extra_count, "format", "quake1");
    int32_t tex = solid_image(s, "wall", 200, 100, 50, false);
    int32_t lm = solid_image(s, "lightmap", 128, 255, 64, true);
    int32_t wall, pane, sky, mesh, node;
    (void)node;
    bk_scene_add_material(s, "wall", &wall);
    s->materials[wall].base_image = tex;
    s->materials[wall].lightmap_image = lm;
    bk_scene_add_material(s, "pane", &pane);
    for (int c = 0; c < 3; c++) s->materials[pane].base_color[c] = 0.2140f; /* sRGB 0.5 */
    s->materials[pane].alpha_mode = BK_ALPHA_BLEND;
    s->materials[pane].base_color[3] = 0.5f;
    s->materials[pane].unlit = true;
    bk_kv_append(&s->materials[pane].extras, &s->materials[pane].extra_count, "blend", "add");
    bk_scene_add_material(s, "sky", &sky);
    s->materials[sky].base_color[0] = 0, s->materials[sky].base_color[1] = 0, s->materials[sky].base_color[2] = 1;
    s->materials[sky].unlit = true;
    bk_kv_append(&s->materials[sky].extras, &s->materials[sky].extra_count, "sky", "true");
    int32_t red;
    bk_scene_add_material(s, "red", &red);
    s->materials[red].base_color[1] = s->materials[red].base_color[2] = 0;
    bk_scene_add_mesh(s, "world", &mesh);
    add_wall(s, mesh, sky, 1000, 2000);  /* far behind, drawn first and overdrawn */
    add_wall(s, mesh, wall, 100, 50);
    add_wall(s, mesh, pane, 60, 10);     /* in front of the wall's centre */
    add_wall(s, mesh, red, 300, 100);   /* behind the wall: hidden by the depth test */
    {   /* a floor below the eye, facing up (for the overview) */
        bk_primitive *p;
        bk_mesh_add_primitive(&s->meshes[mesh], wall, BK_PRIM_TRIANGLES, BK_ATTR_UV0 | BK_ATTR_UV1, &p);
        uint32_t first;
        bk_prim_add_vertices(p, 4, &first);
        const float v[4][3] = {{0, -50, -30}, {200, -50, -30}, {200, 50, -30}, {0, 50, -30}};
        for (int i = 0; i < 4; i++) memcpy(p->position + (first + i) * 3, v[i], sizeof v[i]);
        bk_prim_add_triangle(p, first, first + 1, first + 2);
        bk_prim_add_triangle(p, first, first + 2, first + 3);
    }
    bk_scene_add_node(s, "worldspawn", -1, mesh, &node);
    int32_t sp;
    bk_scene_add_node(s, "info_player_start", -1, -1, &sp);
    bk_kv_append(&s->nodes[sp].extras, &s->nodes[sp].extra_count, "classname", "info_player_start");
    bk_kv_append(&s->nodes[sp].extras, &s->nodes[sp].extra_count, "origin", "0 0 -22");
    bk_kv_append(&s->nodes[sp].extras, &s->nodes[sp].extra_count, "angle", "0");

    float pos[1][3], yaw[1];
    uint32_t n = 0;
    bk_render_spawns(s, pos, yaw, 1, &n);
    CHECK(n == 1 && pos[0][2] == 0 && yaw[0] == 0); /* Quake 1: the eye 22 above the origin */

    bk_renderer *r;
    CHECK(bk_renderer_new(s, NULL, &r) == BK_OK);
    bk_render_options o = {0};
    o.width = 64, o.height = 48;
    uint8_t *a = NULL, *b = NULL;
    bk_render_info ri;
    CHECK(bk_renderer_draw(r, &o, &a, &ri) == BK_OK);  /* auto: the spawn */
    CHECK(ri.width == 64 && ri.height == 48 && ri.spawn_count == 1);
    if (a) {
        /* the wall: 200 100 50 x lightmap 128 255 64 -> 100 100 13 */
        const uint8_t *w = px_at(a, 64, 20, 24);
        CHECK(near(w[0], 100, 2) && near(w[1], 100, 2) && near(w[2], 13, 2));
        /* the additive pane at the centre: + 0.5 x 0.5 */
        const uint8_t *c = px_at(a, 64, 32, 24);
        CHECK(near(c[0], 100 + 64, 3) && near(c[1], 100 + 64, 3) && near(c[2], 13 + 64, 3));
        /* the sky around the wall, and no background anywhere */
        const uint8_t *k = px_at(a, 64, 1, 1);
        CHECK(k[0] == 0 && k[1] == 0 && k[2] == 255);
        if (!(k[0] == 0 && k[2] == 255)) fprintf(stderr, "sky pixel %d %d %d\n", k[0], k[1], k[2]);
    }
    /* the scene's lightmap released once a view has been drawn: the renderer keeps the blocks of
     * it that view read, and draws it again the same */
    {
        bk_renderer *r2 = NULL;
        uint8_t *c2 = NULL;
        CHECK(bk_renderer_new(s, NULL, &r2) == BK_OK);
        CHECK(r2 && bk_renderer_draw(r2, &o, &c2, NULL) == BK_OK);
        bk_free(c2);
        c2 = NULL;
        bk_scene_image_release(s, (uint32_t)lm);
        CHECK(!bk_scene_image_has_pixels(s, (uint32_t)lm) && bk_scene_image_has_pixels(s, (uint32_t)tex));
        CHECK(r2 && bk_renderer_draw(r2, &o, &c2, NULL) == BK_OK && a && c2 && memcmp(a, c2, 64 * 48 * 4) == 0);
        bk_free(c2);
        bk_renderer_free(r2);
        bk_scene_image_release(s, 99999); /* out of range: nothing */
        bk_scene_image_release(NULL, 0);
    }
    /* the same picture on one thread and on four */
    o.threads = 1;
    CHECK(bk_renderer_draw(r, &o, &b, NULL) == BK_OK);
    CHECK(a && b && memcmp(a, b, 64 * 48 * 4) == 0);
    bk_free(b);
    b = NULL;
    o.threads = 4;
    CHECK(bk_renderer_draw(r, &o, &b, NULL) == BK_OK);
    CHECK(a && b && memcmp(a, b, 64 * 48 * 4) == 0);
    bk_free(b);
    b = NULL;
    /* turned around: the walls are behind the eye, only the background is left */
    o.view = BK_VIEW_EYE;
    o.yaw = 180;
    CHECK(bk_renderer_draw(r, &o, &b, NULL) == BK_OK);
    if (b) CHECK(px_at(b, 64, 32, 24)[0] == 0x20 && px_at(b, 64, 32, 24)[2] == 0x30);
    bk_free(b);
    b = NULL;
    /* from behind the wall (x = 200 looking back): its back face is culled, the far wall seen */
    o.eye[0] = 200, o.yaw = 180;
    CHECK(bk_renderer_draw(r, &o, &b, NULL) == BK_OK);
    if (b) CHECK(px_at(b, 64, 32, 24)[0] == 0x20);
    bk_free(b);
    b = NULL;
    /* checks */
    bk_render_options bad = o;
    bad.width = 0, bad.height = 5;
    CHECK(bk_renderer_draw(r, &bad, &b, NULL) == BK_ELIMIT && !b);
    bad.width = 100000, bad.height = 100000;
    CHECK(bk_renderer_draw(r, &bad, &b, NULL) == BK_ELIMIT && !b);
    bad = o, bad.fov = 180;
    CHECK(bk_renderer_draw(r, &bad, &b, NULL) == BK_EARG && !b);
    bad = o, bad.eye[1] = NAN;
    CHECK(bk_renderer_draw(r, &bad, &b, NULL) == BK_EARG && !b);
    bad = o, bad.view = BK_VIEW_SPAWN, bad.spawn = 2;
    CHECK(bk_renderer_draw(r, &bad, &b, NULL) == BK_EARG && !b);
    bad = o, bad.view = BK_VIEW_OVERVIEW, bad.z_range = true, bad.z_min = 5, bad.z_max = 5;
    CHECK(bk_renderer_draw(r, &bad, &b, NULL) == BK_EARG && !b);
    /* the overview: pos_x / pos_y / scale map the wall's middle to a drawn pixel */
    bk_render_options ov = {0};
    ov.view = BK_VIEW_OVERVIEW;
    ov.width = 128, ov.height = 128;
    CHECK(bk_renderer_draw(r, &ov, &b, &ri) == BK_OK);
    if (b) {
        CHECK(ri.scale > 0);
        long x = lroundf((100 - ri.pos_x) / ri.scale), y = lroundf((ri.pos_y - 0) / ri.scale);
        CHECK(x >= 0 && x < 128 && y >= 0 && y < 128 && px_at(b, 128, (uint32_t)x, (uint32_t)y)[0] != 0x20);
    }
    bk_free(b);
    bk_free(a);
    bk_renderer_free(r);
    bk_scene_free(s);
    return CHECK_DONE();
}
