/* Source models through the public API: the synthetic models of make_mdl.py decode to what the
 * generator wrote (counts, fixup order, strips, skins, bones), the scene of a model and of its
 * default body, every truncated prefix and thousands of single-byte mutants of each of the three
 * files fail cleanly or decode to something consistent, and the fuzzer's crashers stay fixed.
 * usage: test_mdl GEN_DIR [CRASHERS_DIR] (GEN_DIR: make_mdl.py's output) */
#include <dirent.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scene/scene_build.h"
#include "bspkit/scene.h"
#include "bspkit/source.h"
#include "formats/source/mdl_internal.h"
#include "../unit/check.h"

typedef struct blob {
    uint8_t *d;
    size_t n;
} blob;

static blob slurp(const char *path)
{
    blob b = {NULL, 0};
    FILE *fp = fopen(path, "rb");
    if (!fp) return b;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    b.d = malloc(n > 0 ? (size_t)n : 1);
    if (b.d && n > 0 && fread(b.d, 1, (size_t)n, fp) != (size_t)n) {
        free(b.d);
        b.d = NULL;
    }
    b.n = b.d ? (size_t)n : 0;
    fclose(fp);
    return b;
}

/* Everything a decoded model promises: indices inside their mesh's vertices, bones, skins. */
static bool consistent(const bk_mdl *m)
{
    for (uint32_t i = 0; i < m->bone_count; i++)
        if (m->bones[i].parent < -1 || m->bones[i].parent >= (int32_t)i || !m->bones[i].name) return false;
    for (uint32_t i = 0; i < m->skin_ref_count * m->skin_family_count; i++)
        if (m->skins[i] < 0 || (uint32_t)m->skins[i] >= m->texture_count) return false;
    if (!m->has_geometry) return true;
    if (m->index_count % 3 || m->mesh_count != m->mdl_mesh_count || m->vertex_count != m->mdl_vertex_count) return false;
    uint64_t idx = 0;
    for (uint32_t i = 0; i < m->mesh_count; i++) {
        const bk_mdl_mesh *me = &m->meshes[i];
        if (me->bodypart >= m->bodypart_count || me->model >= m->bodyparts[me->bodypart].model_count) return false;
        if ((uint64_t)me->first_vertex + me->vertex_count > m->vertex_count) return false;
        if (me->first_index != idx || me->index_count % 3) return false;
        idx += me->index_count;
        for (uint32_t k = 0; k < me->index_count; k++) {
            uint32_t v = m->indices[me->first_index + k];
            if (v < me->first_vertex || v >= me->first_vertex + me->vertex_count) return false;
        }
    }
    if (idx != m->index_count) return false;
    for (uint32_t i = 0; i < m->vertex_count; i++) {
        const bk_mdl_vertex *v = &m->vertices[i];
        if (v->bone_count < 1 || v->bone_count > 3) return false;
        for (uint32_t k = 0; k < v->bone_count; k++)
            if (v->bone[k] >= m->bone_count) return false;
    }
    return true;
}

/* decode and, when it decodes, build its mesh for two skins: consistent and no crash */
static uint32_t g_decoded, g_rejected;
static void exercise(const blob *mdl, const blob *vvd, const blob *vtx, const bk_options *opt)
{
    bk_mdl *m = NULL;
    bk_result r = bk_mdl_decode(mdl->d, mdl->n, vvd ? vvd->d : NULL, vvd ? vvd->n : 0, vtx ? vtx->d : NULL,
                                vtx ? vtx->n : 0, opt, &m);
    if (r != BK_OK) {
        g_rejected++;
        CHECK(m == NULL);
        return;
    }
    g_decoded++;
    if (!consistent(m)) CHECK(!"a decoded model is consistent");
    if (m->has_geometry) {
        for (int32_t skin = 0; skin < 2; skin++) {
            bk_scene *s = bk_scene_new();
            uint64_t budget = 1u << 20;
            int32_t mesh;
            bk_result e = bk_mdl_add_mesh(m, skin, skin == 1, NULL, NULL, "x", &budget, s, &mesh);
            if (e != BK_OK && e != BK_ELIMIT) CHECK(!"a decoded model gives a mesh");
            bk_scene_free(s);
        }
    }
    bk_mdl_free(m);
}

static void test_generated(const char *gen, int version)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/game/models/bspkit_test/box_v%d.mdl", gen, version);
    blob mdl = slurp(p);
    snprintf(p, sizeof p, "%s/game/models/bspkit_test/box_v%d.vvd", gen, version);
    blob vvd = slurp(p);
    snprintf(p, sizeof p, "%s/game/models/bspkit_test/box_v%d.dx90.vtx", gen, version);
    blob vtx = slurp(p);
    CHECK(mdl.d && vvd.d && vtx.d);
    if (!mdl.d || !vvd.d || !vtx.d) goto out;
    bk_mdl *m = NULL;
    CHECK(bk_mdl_decode(mdl.d, mdl.n, vvd.d, vvd.n, vtx.d, vtx.n, NULL, &m) == BK_OK);
    if (!m) goto out;
    CHECK(consistent(m));
    CHECK(m->version == version);
    CHECK(m->has_geometry == 1);
    CHECK(m->bone_count == 3 && strcmp(m->bones[1].name, "child") == 0 && m->bones[2].parent == 1);
    CHECK(m->texture_count == 3 && strcmp(m->textures[2], "cap") == 0);
    CHECK(m->cdmaterial_count == 2 && strcmp(m->cdmaterials[1], "models\\bspkit_test\\") == 0);
    CHECK(m->skin_family_count == 2 && m->skin_ref_count == 2 && m->skins[2] == 1 && m->skins[3] == 2);
    CHECK(m->bodypart_count == 2 && m->bodyparts[1].model_count == 2 && strcmp(m->bodyparts[1].name, "extra") == 0);
    CHECK(m->model_count == 3 && m->mesh_count == 4);
    CHECK(m->vertex_count == 37 && m->vvd_lod_count == 2 && m->fixup_count == 2);
    /* 12 box triangles, 3 of the strip (its degenerate joint skipped), the cap, the quad */
    CHECK(m->index_count == 18 * 3);
    CHECK(m->meshes[1].index_count == 9 && m->meshes[3].bodypart == 1 && m->meshes[3].model == 1);
    /* the fixups put the box's first vertex (16, -8, 0) first, though it is stored 28th */
    CHECK(m->vertices[0].pos[0] == 16 && m->vertices[0].pos[1] == -8 && m->vertices[0].pos[2] == 0);
    CHECK(m->vertices[36].pos[2] == -2);
    /* the box's top: three weights, bone 1 named twice */
    bool top = false;
    for (uint32_t i = 0; i < 24; i++)
        if (m->vertices[i].pos[2] > 1) top = m->vertices[i].bone_count == 3 && m->vertices[i].bone[2] == 1;
    CHECK(top);
    CHECK(strcmp(m->surfaceprop, "metal") == 0 && m->mass == 12.5f);
    /* the default body as a skinned mesh: a bone named twice has its weights summed */
    {
        bk_scene *s = bk_scene_new();
        uint64_t budget = 1000;
        int32_t mesh = -1;
        bk_mdl_matcache mc = {0};
        CHECK(bk_mdl_add_mesh(m, 1, true, NULL, &mc, "box", &budget, s, &mesh) == BK_OK && mesh == 0);
        bk_mdl_matcache_free(&mc);
        CHECK(budget == 1000 - 33);
        if (mesh == 0) {
            const bk_mesh *me = &s->meshes[0];
            CHECK(me->prim_count == 3 && me->prims[0].vertex_count == 24 && me->prims[0].index_count == 36);
            CHECK(s->material_count == 2 && strcmp(s->materials[0].name, "models/missing_folder/box_skin_b") == 0);
            const bk_primitive *pr = &me->prims[0];
            bool summed = false;
            for (uint32_t v = 0; v < pr->vertex_count; v++)
                if (pr->position[v * 3 + 2] > 1)
                    summed = pr->joints[v * 4] == 1 && fabsf(pr->weights[v * 4] - 0.7f) < 1e-6f &&
                             pr->joints[v * 4 + 1] == 2 && pr->weights[v * 4 + 2] == 0;
            CHECK(summed);
            /* counter-clockwise: every triangle's normal agrees with its vertices' */
            uint32_t agree = 0, tris = 0;
            for (uint32_t j = 0; j < me->prim_count; j++) {
                const bk_primitive *q = &me->prims[j];
                for (uint32_t t = 0; t + 2 < q->index_count; t += 3, tris++) {
                    const float *a = q->position + q->indices[t] * 3, *b = q->position + q->indices[t + 1] * 3,
                                *c = q->position + q->indices[t + 2] * 3, *n = q->normal + q->indices[t] * 3;
                    float e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
                    float x[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]};
                    agree += x[0] * n[0] + x[1] * n[1] + x[2] * n[2] > 0;
                }
            }
            CHECK(tris == 16 && agree == tris);
        }
        bk_scene_free(s);
    }
    bk_mdl_free(m);
    m = NULL;
    /* the MDL alone: tables, no geometry */
    CHECK(bk_mdl_decode(mdl.d, mdl.n, NULL, 0, NULL, 0, NULL, &m) == BK_OK && m && !m->has_geometry);
    bk_mdl_free(m);
    m = NULL;
    /* another model's VVD: the checksums disagree */
    {
        uint8_t *bad = malloc(vvd.n);
        memcpy(bad, vvd.d, vvd.n);
        bad[8] ^= 1;
        CHECK(bk_mdl_decode(mdl.d, mdl.n, bad, vvd.n, vtx.d, vtx.n, NULL, &m) == BK_EFORMAT && !m);
        free(bad);
    }
    /* every strict prefix of the MDL fails (its header states its length); prefixes of the
     * VVD and VTX fail or decode to a consistent model (a VVD cut in its tangents still holds
     * every vertex) */
    bk_options opt = {0};
    opt.limits.max_alloc_bytes = 64u << 20;
    uint32_t mdl_ok = 0;
    for (size_t len = 0; len < mdl.n; len++) {
        bk_result r = bk_mdl_decode(mdl.d, len, vvd.d, vvd.n, vtx.d, vtx.n, &opt, &m);
        if (r == BK_OK) mdl_ok++;
        bk_mdl_free(m);
        m = NULL;
    }
    CHECK(mdl_ok == 0);
    for (size_t len = 0; len < vvd.n; len++) {
        blob b = {vvd.d, len};
        exercise(&mdl, &b, &vtx, &opt);
    }
    for (size_t len = 0; len < vtx.n; len++) {
        blob b = {vtx.d, len};
        exercise(&mdl, &vvd, &b, &opt);
    }
    /* single-byte mutants of each file: 0x00, 0xff, +1, a sign flip at every byte */
    static const int ops[4] = {0, 1, 2, 3};
    blob *files[3] = {&mdl, &vvd, &vtx};
    for (int fi = 0; fi < 3; fi++) {
        blob *f = files[fi];
        uint8_t *copy = malloc(f->n);
        for (size_t i = 0; i < f->n; i++)
            for (int o = 0; o < 4; o++) {
                memcpy(copy, f->d, f->n);
                uint8_t v = copy[i];
                copy[i] = ops[o] == 0 ? 0 : ops[o] == 1 ? 0xff : ops[o] == 2 ? (uint8_t)(v + 1) : (uint8_t)(v ^ 0x80);
                blob mb = {copy, f->n};
                exercise(fi == 0 ? &mb : &mdl, fi == 1 ? &mb : &vvd, fi == 2 ? &mb : &vtx, &opt);
            }
        free(copy);
    }
out:
    free(mdl.d);
    free(vvd.d);
    free(vtx.d);
}

/* the model as a file: siblings found beside it (names compared without case), the scene */
static void test_file(const char *gen)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/game/models/bspkit_test/box_v48.mdl", gen);
    bk_file *f = NULL;
    bk_options opt = {0};
    CHECK(bk_file_open(p, &opt, &f) == BK_OK);
    if (!f) return;
    CHECK(bk_file_format(f) == BK_FORMAT_MDL && strcmp(bk_format_name(BK_FORMAT_MDL), "mdl") == 0);
    const bk_mdl *m = bk_mdl_of(f);
    CHECK(m && m->has_geometry);
    bk_scene *s = NULL;
    CHECK(bk_file_build_scene(f, &opt, &s) == BK_OK);
    if (s) {
        /* the armature, three joints, the mesh node with the skin */
        CHECK(s->node_count == 5 && s->skin_count == 1 && s->skins[0].joint_count == 3);
        CHECK(s->nodes[4].mesh == 0 && s->nodes[4].skin == 0 && s->nodes[2].parent == 1 && s->nodes[3].parent == 2);
        CHECK(s->mesh_count == 1 && s->meshes[0].prim_count == 3);
        /* the materials lie under the second $cdmaterials folder of the game the model is in */
        CHECK(s->material_count == 2 && strcmp(s->materials[0].name, "models/bspkit_test/box_skin_a") == 0);
        CHECK(s->material_count == 2 && s->materials[0].base_image >= 0 && s->materials[1].double_sided == 1);
        /* inverse bind matrices: the child's poseToBone (turned -90 degrees about Z, 16 down) */
        const float *ib = s->skins[0].inverse_bind + 16;
        CHECK(fabsf(ib[1] + 1) < 1e-5f && fabsf(ib[4] - 1) < 1e-5f && fabsf(ib[14] + 16) < 1e-5f);
        bk_scene_free(s);
    }
    bk_file_free(f);
    /* from memory there are no siblings: the tables load, the scene cannot be built */
    blob b = slurp(p);
    f = NULL;
    CHECK(bk_file_load_memory(b.d, b.n, &opt, &f) == BK_OK && f && !bk_mdl_of(f)->has_geometry);
    s = NULL;
    CHECK(bk_file_build_scene(f, &opt, &s) == BK_ENOTFOUND && !s);
    bk_file_free(f);
    free(b.d);
}

/* every file of the fuzzer's crashers (u32 MDL size, u32 VVD size, MDL, VVD, VTX) */
static void test_crashers(const char *dir)
{
    DIR *dp = opendir(dir);
    if (!dp) return;
    struct dirent *de;
    uint32_t n = 0;
    while ((de = readdir(dp))) {
        if (de->d_name[0] == '.') continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
        blob b = slurp(p);
        if (!b.d) continue;
        n++;
        size_t a = b.n >= 4 ? (size_t)(b.d[0] | b.d[1] << 8 | b.d[2] << 16 | (uint32_t)b.d[3] << 24) : 0;
        size_t v = b.n >= 8 ? (size_t)(b.d[4] | b.d[5] << 8 | b.d[6] << 16 | (uint32_t)b.d[7] << 24) : 0;
        size_t rest = b.n > 8 ? b.n - 8 : 0;
        if (a > rest) a = rest;
        if (v > rest - a) v = rest - a;
        blob mdl = {b.d + (b.n > 8 ? 8 : b.n), a}, vvd = {mdl.d + a, v}, vtx = {vvd.d + v, rest - a - v};
        bk_options opt = {0};
        opt.limits.max_alloc_bytes = 256u << 20;
        opt.limits.max_elements = 8u << 20;
        exercise(&mdl, &vvd, &vtx, &opt);
        free(b.d);
    }
    closedir(dp);
    printf("%u crashers\n", n);
}

int main(int argc, char **argv)
{
    if (argc < 2) return 2;
    for (int v = 44; v <= 49; v += v == 44 ? 4 : 1) test_generated(argv[1], v);
    test_file(argv[1]);
    if (argc > 2) test_crashers(argv[2]);
    printf("mutants: %u decoded, %u rejected\n", g_decoded, g_rejected);
    CHECK(g_rejected > 0 && g_decoded > 0);
    return CHECK_DONE();
}
