/* Source maps through the public API: scene vs decoded map (displacement vertex counts, grid
 * corners, seams between neighbouring displacements, prop nodes and their rotation, lightmap
 * UVs), truncated prefixes of a real map, pakfile name safety. argv[1] = shared dir. */
#include <dirent.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bspkit/archive.h"
#include "bspkit/scene.h"
#include "bspkit/source.h"
#include "../unit/check.h"

static bool drawn(const bk_source_map *m, const bk_source_face *f)
{
    if (f->texinfo < 0) return false;
    int32_t fl = m->texinfo[f->texinfo].flags;
    return !(fl & (BK_SRC_SURF_NODRAW | BK_SRC_SURF_HINT | BK_SRC_SURF_SKIP | BK_SRC_SURF_SKY | BK_SRC_SURF_SKY2D |
                   BK_SRC_SURF_TRIGGER));
}

static float dist3(const float *a, const float *b)
{
    float dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    return sqrtf(dx * dx + dy * dy + dz * dz);
}

static uint32_t g_seam_checked, g_seam_matched;

static void check_map(const char *path)
{
    bk_file *f = NULL;
    bk_options opt = {0};
    if (bk_file_open(path, &opt, &f) != BK_OK) {
        CHECK(!"map loads");
        fprintf(stderr, "  %s\n", path);
        return;
    }
    const bk_source_map *m = bk_source_map_of(f);
    CHECK(m != NULL);
    bk_scene *s = NULL;
    CHECK(bk_file_build_scene(f, &opt, &s) == BK_OK);
    if (!m || !s) {
        bk_file_free(f);
        return;
    }
    /* displacement vertices: (2^p+1)^2 for every displacement whose face is drawn (in the world;
     * the 3D skybox draws those of its area a second time) */
    uint64_t want = 0, got = 0;
    for (uint32_t i = 0; i < m->dispinfo_count; i++) {
        const bk_source_dispinfo *d = &m->dispinfo[i];
        if (drawn(m, &m->faces[d->map_face])) want += (uint64_t)((1u << d->power) + 1) * ((1u << d->power) + 1);
    }
    bool lm = false, uv_ok = true;
    for (uint32_t k = 0; k < s->mesh_count; k++)
        for (uint32_t j = 0; j < s->meshes[k].prim_count; j++) {
            const bk_primitive *p = &s->meshes[k].prims[j];
            bool sky3d = s->meshes[k].name && strcmp(s->meshes[k].name, "skybox_3d") == 0;
            if ((p->attrs & BK_ATTR_COLOR) && !sky3d) got += p->vertex_count;
            if (p->uv1) {
                lm = true;
                for (uint32_t v = 0; v < p->vertex_count * 2; v++)
                    if (!(p->uv1[v] >= 0.0f && p->uv1[v] <= 1.0f)) uv_ok = false;
            }
            for (uint32_t v = 0; v < p->vertex_count * 3; v++)
                if (!isfinite(p->position[v])) uv_ok = false;
        }
    CHECK(got == want);
    if (got != want) fprintf(stderr, "  %s: %llu displacement vertices, want %llu\n", path, (unsigned long long)got,
                             (unsigned long long)want);
    CHECK(uv_ok);
    /* world lights: each scene light on exactly one node (bk_node.light), a map with the lumps has some */
    uint32_t nlit = 0;
    bool lights_node = false;
    for (uint32_t k = 0; k < s->node_count; k++) {
        lights_node |= strcmp(s->nodes[k].name, "worldlights") == 0;
        if (s->nodes[k].light >= 0) {
            CHECK((uint32_t)s->nodes[k].light < s->light_count && s->nodes[k].light == (int32_t)nlit);
            nlit++;
        }
    }
    CHECK(nlit == s->light_count);
    CHECK(lights_node == (m->lumps[BK_SRC_LUMP_WORLDLIGHTS].size || m->lumps[BK_SRC_LUMP_WORLDLIGHTS_HDR].size));
    if (!uv_ok) fprintf(stderr, "  %s: lightmap UV outside [0,1] or position not finite\n", path);
    /* a lit map gets an atlas read with uv1 */
    bool lit = m->lumps[BK_SRC_LUMP_LIGHTING].size || m->lumps[BK_SRC_LUMP_LIGHTING_HDR].size;
    bool any_lit_face = false;
    for (uint32_t i = 0; i < m->face_count && !any_lit_face; i++)
        any_lit_face = drawn(m, &m->faces[i]) && m->faces[i].lightofs >= 0 && m->faces[i].styles[0] != 255;
    if (lit && any_lit_face) CHECK(lm);

    /* grid corners: the undisplaced corner 0 is the face corner nearest startPosition */
    for (uint32_t i = 0; i < m->dispinfo_count; i++) {
        const bk_source_dispinfo *d = &m->dispinfo[i];
        const bk_source_face *fc = &m->faces[d->map_face];
        float best = INFINITY;
        for (int c = 0; c < 4; c++) {
            int32_t se = m->surfedges[fc->firstedge + c];
            uint32_t v = se >= 0 ? m->edges[se * 2] : m->edges[-se * 2 + 1];
            float dd = dist3(&m->vertices[v * 3], d->start);
            if (dd < best) best = dd;
        }
        CHECK(best < 1.0f);
    }
    /* static props: one node each with its model path, rotation from yaw about +Z (those of a 3D
     * skybox again, as children of its node) */
    uint32_t props = 0;
    for (uint32_t i = 0; i < s->node_count; i++) {
        const bk_node *n = &s->nodes[i];
        if (n->parent >= 0) continue;
        for (uint32_t k = 0; k < n->extra_count; k++)
            if (strcmp(n->extras[k].key, "classname") == 0 && strcmp(n->extras[k].value, "prop_static") == 0) {
                if (props < m->static_prop_count) {
                    const bk_source_static_prop *sp = &m->static_props[props];
                    CHECK(dist3(n->translation, sp->origin) < 1e-3f);
                    if (sp->angles[0] == 0 && sp->angles[2] == 0) {
                        double h = sp->angles[1] * 3.14159265358979 / 360.0;
                        CHECK(fabs(n->rotation[2] - sin(h)) < 1e-4 && fabs(n->rotation[3] - cos(h)) < 1e-4 &&
                              fabs(n->rotation[0]) < 1e-6 && fabs(n->rotation[1]) < 1e-6);
                    }
                }
                props++;
            }
    }
    CHECK(props == m->static_prop_count);
    bk_scene_free(s);
    bk_file_free(f);
}

/* Neighbouring displacements share their edge vertices. The set of undisplaced grid points does
 * not depend on how a grid is oriented, so the points two grids share can be counted from the
 * decoded map alone; after displacement the scene's vertices must still meet there, which they
 * would not if the grid were transposed or started at the wrong corner. */
static uint32_t count_shared(const float *pts, const uint32_t *owner, size_t n)
{
    uint32_t shared = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            if (j != i && (!owner || owner[i] != owner[j]) && dist3(&pts[i * 3], &pts[j * 3]) < 0.1f) {
                shared++;
                break;
            }
    return shared;
}

static void check_seams(const char *path)
{
    bk_file *f = NULL;
    bk_options opt = {0};
    if (bk_file_open(path, &opt, &f) != BK_OK) return;
    const bk_source_map *m = bk_source_map_of(f);
    bk_scene *s = NULL;
    if (!m || m->dispinfo_count < 2 || bk_file_build_scene(f, &opt, &s) != BK_OK) {
        bk_file_free(f);
        return;
    }
    size_t nb = 0;
    for (uint32_t i = 0; i < m->dispinfo_count; i++) {
        const bk_source_dispinfo *d = &m->dispinfo[i];
        if (drawn(m, &m->faces[d->map_face])) nb += (size_t)((1u << d->power) + 1) * ((1u << d->power) + 1);
    }
    float *base = malloc(nb * 3 * sizeof *base);
    uint32_t *owner = malloc(nb * sizeof *owner);
    size_t at = 0;
    for (uint32_t i = 0; i < m->dispinfo_count && base && owner; i++) {
        const bk_source_dispinfo *d = &m->dispinfo[i];
        const bk_source_face *fc = &m->faces[d->map_face];
        if (!drawn(m, fc)) continue;
        float c[4][3];
        for (int k = 0; k < 4; k++) {
            int32_t se = m->surfedges[fc->firstedge + k];
            uint32_t v = se >= 0 ? m->edges[se * 2] : m->edges[-se * 2 + 1];
            memcpy(c[k], &m->vertices[v * 3], sizeof c[k]);
        }
        uint32_t side = (1u << d->power) + 1;
        for (uint32_t y = 0; y < side; y++)
            for (uint32_t x = 0; x < side; x++) {
                float t = (float)y / (float)(side - 1), u = (float)x / (float)(side - 1);
                for (int k = 0; k < 3; k++) {
                    float l = c[0][k] + (c[1][k] - c[0][k]) * t, r = c[3][k] + (c[2][k] - c[3][k]) * t;
                    base[at * 3 + k] = l + (r - l) * u;
                }
                owner[at++] = i;
            }
    }
    size_t ns = 0;
    for (uint32_t k = 0; k < s->mesh_count; k++)
        for (uint32_t j = 0; j < s->meshes[k].prim_count; j++)
            if (s->meshes[k].prims[j].attrs & BK_ATTR_COLOR) ns += s->meshes[k].prims[j].vertex_count;
    float *pos = malloc((ns ? ns : 1) * 3 * sizeof *pos);
    size_t o = 0;
    for (uint32_t k = 0; k < s->mesh_count && pos; k++)
        for (uint32_t j = 0; j < s->meshes[k].prim_count; j++) {
            const bk_primitive *p = &s->meshes[k].prims[j];
            if (!(p->attrs & BK_ATTR_COLOR)) continue;
            memcpy(pos + o * 3, p->position, (size_t)p->vertex_count * 3 * sizeof *pos);
            o += p->vertex_count;
        }
    if (base && owner && pos && at == nb) {
        uint32_t want = count_shared(base, owner, nb), got = count_shared(pos, NULL, ns);
        g_seam_checked += want;
        g_seam_matched += got < want ? got : want;
        CHECK(got * 10 >= want * 9);
        if (got * 10 < want * 9) fprintf(stderr, "  %s: %u of %u shared edge vertices meet\n", path, got, want);
    }
    free(base);
    free(owner);
    free(pos);
    bk_scene_free(s);
    bk_file_free(f);
}

/* the SDK's vehicle map is mostly terrain: displacement normals must point up on average
 * (a reversed winding would make them point down) */
static void check_terrain_up(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/hl2sdk_v19_sdk_vehicles.bsp", dir);
    bk_file *f = NULL;
    bk_options opt = {0};
    if (bk_file_open(path, &opt, &f) != BK_OK) return;
    bk_scene *s = NULL;
    CHECK(bk_file_build_scene(f, &opt, &s) == BK_OK);
    double z = 0;
    long n = 0;
    for (uint32_t k = 0; s && k < s->mesh_count; k++)
        for (uint32_t j = 0; j < s->meshes[k].prim_count; j++) {
            const bk_primitive *p = &s->meshes[k].prims[j];
            if (!(p->attrs & BK_ATTR_COLOR)) continue;
            for (uint32_t i = 0; i < p->vertex_count; i++, n++) z += p->normal[i * 3 + 2];
        }
    CHECK(n > 0 && z / (double)n > 0.5);
    bk_scene_free(s);
    bk_file_free(f);
}

static void test_truncated(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) return;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    uint8_t *d = malloc((size_t)n);
    if (!d || fread(d, 1, (size_t)n, fp) != (size_t)n) {
        fclose(fp);
        free(d);
        return;
    }
    fclose(fp);
    uint32_t failed = 0, tries = 0;
    for (long len = 0; len < n; len += 1 + len / 7) {
        bk_file *f = NULL;
        bk_result r = bk_file_load_memory(d, (size_t)len, NULL, &f);
        tries++;
        if (r != BK_OK) failed++;
        bk_file_free(f);
        uint32_t e = 0, w = 0;
        bk_validate_memory(d, (size_t)len, NULL, &e, &w);
    }
    CHECK(failed == tries); /* every strict prefix cuts a lump */
    free(d);
}

/* the decoded LZMA lumps of a file share one budget (max_alloc_bytes): a file whose lumps are
 * each small but together large fails cleanly with BK_ELIMIT */
static void test_lzma_budget(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/tf2c_v20_lzma_3vipr_aspen_a03.bsp", dir);
    bk_file *f = NULL;
    bk_options opt = {0};
    if (bk_file_open(path, &opt, &f) != BK_OK) return;
    const bk_source_map *m = bk_source_map_of(f);
    uint64_t total = 0, largest = 0;
    for (int i = 0; i < BK_SRC_LUMP_COUNT; i++)
        if (m->lumps[i].compressed) {
            total += m->lumps[i].size;
            if (m->lumps[i].size > largest) largest = m->lumps[i].size;
        }
    bk_file_free(f);
    CHECK(total > largest);
    /* the budget covers every decoded byte: validation decodes all lumps and runs out ... */
    opt.limits.max_alloc_bytes = (largest + total) / 2 > largest ? (largest + total) / 2 : largest + 1;
    uint32_t errs = 0, warns = 0;
    FILE *fp = fopen(path, "rb");
    static uint8_t buf[8 << 20];
    size_t got = fp ? fread(buf, 1, sizeof buf, fp) : 0;
    if (fp) fclose(fp);
    CHECK(got > 0 && got < sizeof buf);
    CHECK(bk_validate_memory(buf, got, &opt, &errs, &warns) != BK_OK && errs >= 1);
    /* ... and so does a loaded file asked for every lump in turn */
    bk_result last = BK_OK;
    if (bk_file_open(path, &opt, &f) == BK_OK) {
        for (int i = 0; i < BK_SRC_LUMP_COUNT && last == BK_OK; i++) {
            const uint8_t *d;
            size_t n;
            last = bk_source_lump_bytes(f, i, &d, &n);
        }
    } else {
        last = BK_ELIMIT;
    }
    CHECK(last == BK_ELIMIT);
    bk_file_free(f);
}

/* compressed lumps the loader does not read stay compressed until asked for */
static void test_lzma_lazy(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/tf2c_v20_lzma_tdm_wintercastle.bsp", dir);
    bk_file *f = NULL;
    if (bk_file_open(path, NULL, &f) != BK_OK) {
        CHECK(!"wintercastle opens");
        return;
    }
    const bk_source_map *m = bk_source_map_of(f);
    const bk_source_lump *hdr = &m->lumps[BK_SRC_LUMP_LIGHTING_HDR], *faces = &m->lumps[BK_SRC_LUMP_FACES];
    CHECK(hdr->compressed && hdr->data == NULL && hdr->size == 2636020);
    CHECK(faces->compressed && faces->data != NULL && faces->size == 331632); /* read by the loader */
    const uint8_t *d = NULL, *d2 = NULL;
    size_t n = 0, n2 = 0;
    CHECK(bk_source_lump_bytes(f, BK_SRC_LUMP_LIGHTING_HDR, &d, &n) == BK_OK && d && n == 2636020 && hdr->data == d);
    CHECK(bk_source_lump_bytes(f, BK_SRC_LUMP_LIGHTING_HDR, &d2, &n2) == BK_OK && d2 == d && n2 == n);
    /* the same bytes as the LDR lighting, which this map stores identically (same packed size) */
    const uint8_t *l;
    size_t ln;
    CHECK(bk_source_lump_bytes(f, BK_SRC_LUMP_LIGHTING, &l, &ln) == BK_OK && ln == n);
    CHECK(bk_source_lump_bytes(f, -1, &l, &ln) == BK_EARG && l == NULL);
    bk_file_free(f);
}

static void test_names(void)
{
    CHECK(bk_archive_name_safe("materials/maps/x/c.vtf") == 1);
    CHECK(bk_archive_name_safe("a\\b.txt") == 1);
    CHECK(bk_archive_name_safe("../x") == 0);
    CHECK(bk_archive_name_safe("a/../../x") == 0);
    CHECK(bk_archive_name_safe("a\\..\\x") == 0);
    CHECK(bk_archive_name_safe("/etc/passwd") == 0);
    CHECK(bk_archive_name_safe("\\x") == 0);
    CHECK(bk_archive_name_safe("c:/x") == 0);
    CHECK(bk_archive_name_safe("") == 0);
    CHECK(bk_archive_name_safe("a/..b/c") == 1);
    CHECK(bk_archive_name_safe("a\nb") == 0);
    char b[5];
    CHECK(strcmp(bk_source_fourcc(0x73707270u, b), "sprp") == 0);
}

/* bk_source_cubemaps and the detail props one by one (both compared field by field with a Python
 * reader in source/detail.sh): counts and a first element on two corpus maps */
static void test_detail_cubemaps(const char *dir)
{
    char path[4096];
    bk_file *f = NULL;
    snprintf(path, sizeof path, "%s/css_v20_gg_lego_arena_x.bsp", dir);
    if (bk_file_open(path, NULL, &f) == BK_OK) {
        bk_source_cubemap *c = NULL;
        uint32_t n = 0;
        CHECK(bk_source_cubemaps(f, &c, &n) == BK_OK && n == 3 && c);
        bk_free(c);
        bk_file_free(f);
    } else {
        CHECK(!"css_v20_gg_lego_arena_x loads");
    }
    snprintf(path, sizeof path, "%s/hl2sdk_v19_sdk_vehicles.bsp", dir);
    if (bk_file_open(path, NULL, &f) == BK_OK) {
        const bk_source_map *m = bk_source_map_of(f);
        CHECK(m->detail_prop_count == 10305 && m->detail_props && m->detail_sprite_count == 11 && m->detail_sprites);
        CHECK(m->detail_props[0].type != BK_DETAIL_MODEL && m->detail_props[0].model < m->detail_sprite_count);
        bk_source_cubemap *c = (bk_source_cubemap *)1;
        uint32_t n = 1;
        CHECK(bk_source_cubemaps(f, &c, &n) == BK_OK && n == 0 && c == NULL);
        bk_file_free(f);
    } else {
        CHECK(!"hl2sdk_v19_sdk_vehicles loads");
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) return 2;
    test_names();
    char dir[2048];
    snprintf(dir, sizeof dir, "%s/corpus/source", argv[1]);
    DIR *dp = opendir(dir);
    if (!dp) {
        printf("SKIP: %s missing\n", dir);
        return 77;
    }
    struct dirent *de;
    uint32_t maps = 0;
    while ((de = readdir(dp))) {
        size_t l = strlen(de->d_name);
        if (l < 5 || strcmp(de->d_name + l - 4, ".bsp") != 0 || strncmp(de->d_name, "unusual_", 8) == 0) continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        check_map(path);
        check_seams(path);
        maps++;
    }
    closedir(dp);
    CHECK(maps > 0);
    char small[4096];
    snprintf(small, sizeof small, "%s/tf2_v20_bsp_tool_test_physcollide.bsp", dir);
    test_truncated(small);
    check_terrain_up(dir);
    test_lzma_budget(dir);
    test_lzma_lazy(dir);
    test_detail_cubemaps(dir);
    printf("%u maps, seams %u/%u\n", maps, g_seam_matched, g_seam_checked);
    return CHECK_DONE();
}
