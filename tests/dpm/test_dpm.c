/* DPM library API: pose evaluation properties, framegroups parsing, and the optimising saver's
 * round trip on every corpus model (argv[2]/dpm): same meshes, shaders, triangles (as sets of
 * skinned corners, winding kept), frames, bounds, and skinned positions for EVERY frame. */
#include <dirent.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bspkit/dpm.h"
#include "../unit/check.h"

static void test_framegroups(void)
{
    const char txt[] = "1 8 20 0 // fire\n\n  9 5 20 0\r\n15 200 20 1 // idle loop \n300 4 10 0\n// only a comment\n";
    bk_dpm_framegroup *g;
    uint32_t n, line;
    CHECK(bk_dpm_framegroups_parse(txt, sizeof txt - 1, 100, &g, &n, &line) == BK_OK);
    CHECK(n == 3);
    if (n == 3) {
        CHECK(strcmp(g[0].name, "fire") == 0 && g[0].first == 1 && g[0].count == 8 && g[0].fps == 20 && !g[0].loop);
        CHECK(strcmp(g[1].name, "group1") == 0 && g[1].count == 5 && !g[1].clamped);
        CHECK(strcmp(g[2].name, "idle loop") == 0 && g[2].loop && g[2].clamped && g[2].count == 85 && g[2].line == 4);
    }
    bk_free(g);
    const char bad[] = "1 8 20 0\n1 2 3\n";
    CHECK(bk_dpm_framegroups_parse(bad, sizeof bad - 1, 100, &g, &n, &line) == BK_EFORMAT && line == 2);
    const char junk[] = "1 8 20 0 zz\n";
    CHECK(bk_dpm_framegroups_parse(junk, sizeof junk - 1, 100, &g, &n, &line) == BK_EFORMAT && line == 1);
}

static void test_decompose(void)
{
    /* rotation of 0.7 rad about (1,2,3)/|..|, scale (2, 0.5, 1), translation (4,5,6) */
    float ax[3] = {1, 2, 3}, l = sqrtf(14), a = 0.7f;
    float q[4] = {ax[0] / l * sinf(a / 2), ax[1] / l * sinf(a / 2), ax[2] / l * sinf(a / 2), cosf(a / 2)};
    float x = q[0], y = q[1], z = q[2], w = q[3], s[3] = {2, 0.5f, 1};
    float r[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w), 2 * (x * y + z * w),
                  1 - 2 * (x * x + z * z), 2 * (y * z - x * w), 2 * (x * z - y * w), 2 * (y * z + x * w),
                  1 - 2 * (x * x + y * y)};
    float m[12];
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) m[i * 4 + j] = r[i * 3 + j] * s[j];
        m[i * 4 + 3] = (float)(4 + i);
    }
    float t2[3], q2[4], s2[3];
    bk_dpm_mat_decompose(m, t2, q2, s2);
    float err = 0;
    for (int i = 0; i < 3; i++) err = fmaxf(err, fmaxf(fabsf(t2[i] - (4 + i)), fabsf(s2[i] - s[i])));
    float dot = q[0] * q2[0] + q[1] * q2[1] + q[2] * q2[2] + q[3] * q2[3];
    CHECK(err < 1e-5f);
    CHECK(fabsf(fabsf(dot) - 1) < 1e-5f);
}

typedef struct tri { float v[3][5]; } tri;

static int cmp_tri(const void *a, const void *b) { return memcmp(a, b, sizeof(tri)); }

/* triangles of a mesh as skinned corners (x y z u v), rotated so the smallest corner comes first */
static tri *tri_set(const bk_dpm_model *m, uint32_t mi, const float *pos)
{
    const bk_dpm_mesh *me = &m->meshes[mi];
    tri *t = calloc(me->triangle_count + 1, sizeof(tri));
    for (uint32_t i = 0; i < me->triangle_count; i++) {
        tri x;
        for (int c = 0; c < 3; c++) {
            uint32_t v = me->indices[i * 3 + c];
            memcpy(x.v[c], pos + v * 3, 3 * sizeof(float));
            memcpy(x.v[c] + 3, me->texcoords + v * 2, 2 * sizeof(float));
        }
        int s = 0;
        for (int c = 1; c < 3; c++)
            if (memcmp(x.v[c], x.v[s], sizeof x.v[0]) < 0) s = c;
        for (int c = 0; c < 3; c++) memcpy(t[i].v[c], x.v[(s + c) % 3], sizeof x.v[0]);
    }
    qsort(t, me->triangle_count, sizeof(tri), cmp_tri);
    return t;
}

static double g_worst, g_acmr_b, g_acmr_a;
static uint64_t g_tris;

static void round_trip_file(const char *path, bk_file *f);

static void round_trip(const char *path)
{
    bk_file *f;
    if (bk_file_open(path, NULL, &f) != BK_OK) {
        CHECK(!"corpus model loads");
        return;
    }
    round_trip_file(path, f);
}

static void round_trip_file(const char *path, bk_file *f)
{
    const bk_dpm_model *m = bk_dpm_model_of(f);
    CHECK(m != NULL);
    uint8_t *bytes;
    size_t size;
    bk_dpm_save_stats st;
    CHECK(bk_dpm_save_memory(m, 0, &bytes, &size, &st) == BK_OK);
    bk_file *g;
    bk_options opt = {0};
    opt.name = "resaved";
    CHECK(bk_file_load_memory(bytes, size, &opt, &g) == BK_OK);
    const bk_dpm_model *n = bk_dpm_model_of(g);
    CHECK(n && n->mesh_count == m->mesh_count && n->frame_count == m->frame_count);
    CHECK(n && n->bone_count == st.bones_out && st.bones_out <= m->bone_count);
    CHECK(st.acmr_after <= st.acmr_before + 1e-9);
    g_acmr_b += st.acmr_before * (double)st.triangles;
    g_acmr_a += st.acmr_after * (double)st.triangles;
    g_tris += st.triangles;
    if (!n || n->mesh_count != m->mesh_count || n->frame_count != m->frame_count) goto out;
    CHECK(memcmp(n->mins, m->mins, sizeof m->mins) == 0 && memcmp(n->maxs, m->maxs, sizeof m->maxs) == 0);
    for (uint32_t b = 0; b < n->bone_count; b++) { /* every kept bone is an original bone, same name */
        bool found = false;
        for (uint32_t o = 0; o < m->bone_count && !found; o++) found = strcmp(m->bones[o].name, n->bones[b].name) == 0;
        CHECK(found);
    }
    size_t maxv = 1;
    for (uint32_t i = 0; i < m->mesh_count; i++) {
        CHECK(strcmp(m->meshes[i].shader, n->meshes[i].shader) == 0);
        CHECK(m->meshes[i].triangle_count == n->meshes[i].triangle_count);
        CHECK(n->meshes[i].vertex_count <= m->meshes[i].vertex_count);
        if (m->meshes[i].vertex_count > maxv) maxv = m->meshes[i].vertex_count;
    }
    float *bm = malloc(m->bone_count * 12 * sizeof(float)), *bn = malloc(n->bone_count * 12 * sizeof(float));
    float *pm = malloc(maxv * 3 * sizeof(float)), *pn = malloc(maxv * 3 * sizeof(float));
    int frame_fail = 0;
    for (uint32_t fr = 0; fr < m->frame_count; fr++) {
        if (strcmp(m->frames[fr].name, n->frames[fr].name) != 0 ||
            memcmp(m->frames[fr].mins, n->frames[fr].mins, sizeof(float) * 3) != 0 ||
            memcmp(m->frames[fr].maxs, n->frames[fr].maxs, sizeof(float) * 3) != 0)
            frame_fail++;
        bk_dpm_pose(m, fr, fr, 0, BK_DPM_LERP_MATRIX, bm);
        bk_dpm_pose(n, fr, fr, 0, BK_DPM_LERP_MATRIX, bn);
        for (uint32_t mi = 0; mi < m->mesh_count; mi++) {
            bk_dpm_skin(m, mi, bm, pm, NULL);
            bk_dpm_skin(n, mi, bn, pn, NULL);
            tri *a = tri_set(m, mi, pm), *b = tri_set(n, mi, pn);
            for (uint32_t t = 0; t < m->meshes[mi].triangle_count; t++)
                for (int c = 0; c < 3; c++)
                    for (int k = 0; k < 5; k++) {
                        double e = fabs((double)a[t].v[c][k] - b[t].v[c][k]);
                        if (!(e <= g_worst)) g_worst = e;
                    }
            free(a);
            free(b);
        }
    }
    CHECK(frame_fail == 0);
    /* pose API: blends are exact at the ends, slerp and lerp agree closely between neighbours */
    if (m->frame_count > 2) {
        float *b0 = malloc(m->bone_count * 12 * sizeof(float)), *b1 = malloc(m->bone_count * 12 * sizeof(float));
        bk_dpm_pose(m, 1, 2, 0, BK_DPM_LERP_MATRIX, b0);
        bk_dpm_pose(m, 1, 1, 0, BK_DPM_LERP_MATRIX, b1);
        CHECK(memcmp(b0, b1, m->bone_count * 12 * sizeof(float)) == 0);
        bk_dpm_pose(m, 1, 2, 0.5f, BK_DPM_LERP_MATRIX, b0);
        bk_dpm_pose(m, 1, 2, 0.5f, BK_DPM_LERP_SLERP, b1);
        float d = 0;
        /* rotation parts only: lerped matrices shrink slightly, which moves far children by more */
        for (size_t i = 0; i < m->bone_count * 12; i++)
            if (i % 4 != 3) d = fmaxf(d, fabsf(b0[i] - b1[i]));
        if (!(d < 0.05f)) printf("%s: lerp/slerp differ by %g between frames 1 and 2\n", path, (double)d);
        CHECK(d < 0.05f);
        CHECK(bk_dpm_pose(m, m->frame_count, 0, 0, BK_DPM_LERP_MATRIX, b0) == BK_EARG);
        free(b0);
        free(b1);
    }
    free(bm);
    free(bn);
    free(pm);
    free(pn);
out:
    bk_file_free(g);
    bk_free(bytes);
    bk_file_free(f);
}

/* ---- a model built here: degenerate and duplicate triangles, unused vertices and bones ---- */
typedef struct wb { uint8_t d[4096]; size_t n; } wb;
static void u32(wb *b, uint32_t v)
{
    b->d[b->n++] = (uint8_t)(v >> 24), b->d[b->n++] = (uint8_t)(v >> 16), b->d[b->n++] = (uint8_t)(v >> 8),
    b->d[b->n++] = (uint8_t)v;
}
static void f32(wb *b, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    u32(b, u);
}
static void name(wb *b, const char *s)
{
    memset(b->d + b->n, 0, 32);
    memcpy(b->d + b->n, s, strlen(s));
    b->n += 32;
}

static void test_saver_synthetic(void)
{
    /* 3 bones (root, used child, unused leaf), 1 mesh of 7 vertices (5 and 6 unused) and 6
     * triangles (one degenerate, one repeated), 2 frames */
    enum { NB = 3, NV = 7, NT = 6, NF = 2 };
    const uint32_t tris[NT][3] = {{0, 1, 2}, {2, 1, 3}, {3, 3, 4}, {0, 1, 2}, {4, 2, 3}, {1, 0, 4}};
    wb b = {{0}, 0};
    size_t ob = 80, om = ob + 40 * NB, of = om + 56, op = of + 68 * NF, ov = op + 48 * NB * NF;
    size_t ot = ov + NV * 36 + 32, oi = ot + NV * 8, og = oi + NT * 12, end = og + NT * 4;
    memcpy(b.d, "DARKPLACESMODEL", 16);
    b.n = 16;
    u32(&b, 2);
    u32(&b, (uint32_t)end);
    for (int i = 0; i < 3; i++) f32(&b, -10);
    for (int i = 0; i < 3; i++) f32(&b, 10);
    f32(&b, 10), f32(&b, 10);
    u32(&b, NB), u32(&b, 1), u32(&b, NF), u32(&b, (uint32_t)ob), u32(&b, (uint32_t)om), u32(&b, (uint32_t)of);
    const char *bn[NB] = {"root", "arm", "leaf"};
    for (int i = 0; i < NB; i++) name(&b, bn[i]), u32(&b, (uint32_t)(i - 1)), u32(&b, 0);
    name(&b, "skin");
    u32(&b, NV), u32(&b, NT), u32(&b, (uint32_t)ov), u32(&b, (uint32_t)ot), u32(&b, (uint32_t)oi), u32(&b, (uint32_t)og);
    for (int fr = 0; fr < NF; fr++) {
        name(&b, fr ? "move_1" : "move_0");
        for (int i = 0; i < 8; i++) f32(&b, i < 3 ? -10 : 10);
        u32(&b, (uint32_t)(op + 48 * NB * fr));
    }
    for (int fr = 0; fr < NF; fr++)
        for (int i = 0; i < NB; i++) {
            float m[12] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0};
            if (fr && i == 1) m[0] = 0, m[1] = -1, m[4] = 1, m[5] = 0, m[3] = 2; /* arm turns and moves */
            for (int k = 0; k < 12; k++) f32(&b, m[k]);
        }
    for (int v = 0; v < NV; v++) {
        bool two = v == 2; /* a vertex shared by root and arm, plus a zero influence on leaf */
        u32(&b, two ? 2 : 1);
        f32(&b, (float)v * (two ? 0.5f : 1)), f32(&b, (float)(v % 3) * (two ? 0.5f : 1)), f32(&b, 0);
        f32(&b, two ? 0.5f : 1);
        f32(&b, 0), f32(&b, 0), f32(&b, two ? 0.5f : 1);
        u32(&b, v == 0 ? 0 : 1);
        if (two) {
            f32(&b, (float)v * 0.5f), f32(&b, (float)(v % 3) * 0.5f), f32(&b, 0), f32(&b, 0.5f);
            f32(&b, 0), f32(&b, 0), f32(&b, 0.5f), u32(&b, 0);
        }
    }
    /* pad: the vertex block was sized for one extra influence */
    while (b.n < ot) b.d[b.n++] = 0;
    for (int v = 0; v < NV; v++) f32(&b, (float)v / NV), f32(&b, 0.5f);
    for (int t = 0; t < NT; t++)
        for (int c = 0; c < 3; c++) u32(&b, tris[t][c]);
    for (int t = 0; t < NT; t++) u32(&b, (uint32_t)t);
    CHECK(b.n == end);
    bk_file *f;
    bk_options opt = {0};
    opt.name = "built";
    CHECK(bk_file_load_memory(b.d, b.n, &opt, &f) == BK_OK);
    if (!f) return;
    uint8_t *bytes;
    size_t size;
    bk_dpm_save_stats st;
    CHECK(bk_dpm_save_memory(bk_dpm_model_of(f), 0, &bytes, &size, &st) == BK_OK);
    CHECK(st.vertices_in == NV && st.vertices_out == 5);
    CHECK(st.bones_in == NB && st.bones_out == 2 && strcmp(st.dropped_bones, "leaf") == 0);
    bk_free(bytes);
    CHECK(bk_dpm_save_memory(bk_dpm_model_of(f), BK_DPM_KEEP_ALL_BONES, &bytes, &size, &st) == BK_OK);
    CHECK(st.bones_out == NB);
    bk_free(bytes);
    round_trip_file("built", f);
}

int main(int argc, char **argv)
{
    test_saver_synthetic();
    CHECK(g_worst == 0);
    g_acmr_a = g_acmr_b = 0;
    g_tris = 0;
    test_framegroups();
    test_decompose();
    CHECK(bk_dpm_model_of(NULL) == NULL);
    CHECK(bk_dpm_pose(NULL, 0, 0, 0, BK_DPM_LERP_MATRIX, NULL) == BK_EARG);
    uint32_t idx[6] = {0, 1, 2, 2, 1, 3};
    CHECK(fabs(bk_dpm_acmr(idx, 2, 4, 16) - 2.0) < 1e-9);
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/dpm", argc > 2 ? argv[2] : ".");
    DIR *d = opendir(dir);
    int models = 0;
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            size_t l = strlen(e->d_name);
            if (l < 5 || strcmp(e->d_name + l - 4, ".dpm") != 0) continue;
            char path[8192];
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            round_trip(path);
            models++;
        }
        closedir(d);
        CHECK(g_worst < 1e-4);
        printf("round trip of %d models: max skinned/uv difference over every frame %.3g; ACMR (FIFO 16) %.3f -> %.3f "
               "over %llu triangles\n",
               models, g_worst, g_tris ? g_acmr_b / g_tris : 0, g_tris ? g_acmr_a / g_tris : 0,
               (unsigned long long)g_tris);
    } else {
        printf("no corpus at %s: round trip skipped\n", dir);
    }
    return CHECK_DONE();
}
