/* Cross-family checks of the query API on real maps (argv[4] = quake | q3 | source):
 *  - every player spawn lies in a non-solid leaf whose stored bounds hold it, with a non-empty PVS;
 *  - a point trace straight down from it hits a floor (a plane facing up: normal z > 0; steeper
 *    than walkable is printed but allowed, as a few Quake 3 CTF spawns stand above slopes);
 *  - point traces from entity origins agree with a ray cast, written here, against the world's
 *    exported triangles (liquid, sky and tool surfaces aside) on the great majority of segments;
 *  - hostile copies (a truncated PVS row, a cycle in the node tree) give located diagnostics and
 *    refusals, never a crash; WAD3 / DPM files are refused with a diagnostic.
 * Families whose query backend is not in this build are skipped (exit 77). */
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bspkit/q3.h"
#include "bspkit/quake.h"
#include "bspkit/source.h"
#include "bspkit/query.h"
#include "bspkit/scene.h"
#define BK_ADVANCED_API
#include "bspkit/advanced.h"
#include "common/bk_internal.h"
#include "query/cm.h"
#include "unit/check.h"

typedef struct diag_log {
    int count;
    char lump[64];
    int64_t index;
} diag_log;

static void on_diag(void *user, const bk_diag *d)
{
    diag_log *l = user;
    if (l->count++ == 0) {
        snprintf(l->lump, sizeof l->lump, "%s", d->lump ? d->lump : "");
        l->index = d->index;
    }
}

/* ---- the independent ray cast -------------------------------------------------------- */
typedef struct tri {
    double a[3], e1[3], e2[3];
    int skip;                      /* liquid, sky or tool surface */
} tri;

typedef struct tris {
    tri *t;
    size_t n, cap;
} tris;

static int skip_material(const char *name)
{
    static const char *const k_words[] = {"sky", "clip", "trigger", "origin", "hint", "skip", "nodraw", "null",
                                          "water", "slime", "lava", "fog", "caulk", "tools", "invisible",
                                          "translucent", "glass", "fence", "grate", "ladder", "bbox", "black"};
    char low[256];
    size_t i = 0;
    if (!name) return 0;
    if (name[0] == '*' || name[0] == '!' || name[0] == '{') return 1;
    for (; name[i] && i < sizeof low - 1; i++) low[i] = (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] + 32 : name[i]);
    low[i] = 0;
    for (size_t k = 0; k < sizeof k_words / sizeof k_words[0]; k++)
        if (strstr(low, k_words[k])) return 1;
    return 0;
}

static void collect_world(const bk_scene *s, tris *out)
{
    int32_t mesh = -1;
    for (uint32_t i = 0; i < s->node_count && mesh < 0; i++)
        if (s->nodes[i].name && (strcmp(s->nodes[i].name, "worldspawn") == 0 || strcmp(s->nodes[i].name, "world") == 0))
            mesh = s->nodes[i].mesh;
    if (mesh < 0) return;
    const bk_mesh *m = &s->meshes[mesh];
    for (uint32_t p = 0; p < m->prim_count; p++) {
        const bk_primitive *pr = &m->prims[p];
        if (pr->mode != BK_PRIM_TRIANGLES || !pr->indices) continue;
        const char *mat = pr->material >= 0 ? s->materials[pr->material].name : NULL;
        int skip = skip_material(mat);
        for (uint32_t i = 0; i + 2 < pr->index_count; i += 3) {
            if (out->n == out->cap) {
                out->cap = out->cap ? out->cap * 2 : 4096;
                out->t = realloc(out->t, out->cap * sizeof *out->t);
            }
            tri *t = &out->t[out->n++];
            const float *v0 = pr->position + 3 * pr->indices[i], *v1 = pr->position + 3 * pr->indices[i + 1],
                        *v2 = pr->position + 3 * pr->indices[i + 2];
            for (int k = 0; k < 3; k++) {
                t->a[k] = v0[k];
                t->e1[k] = v1[k] - v0[k];
                t->e2[k] = v2[k] - v0[k];
            }
            t->skip = skip;
        }
    }
}

/* first hit along o + t d, t in (0, 1], of kept (want_skip 0) or skipped (1) triangles; 2 = none */
static double ray_first(const tris *T, const double o[3], const double d[3], int want_skip)
{
    double best = 2;
    for (size_t i = 0; i < T->n; i++) {
        const tri *t = &T->t[i];
        if (t->skip != want_skip) continue;
        double p[3] = {d[1] * t->e2[2] - d[2] * t->e2[1], d[2] * t->e2[0] - d[0] * t->e2[2],
                       d[0] * t->e2[1] - d[1] * t->e2[0]};
        double det = t->e1[0] * p[0] + t->e1[1] * p[1] + t->e1[2] * p[2];
        if (fabs(det) < 1e-12) continue;
        double inv = 1 / det, s[3] = {o[0] - t->a[0], o[1] - t->a[1], o[2] - t->a[2]};
        double u = (s[0] * p[0] + s[1] * p[1] + s[2] * p[2]) * inv;
        if (u < -1e-6 || u > 1 + 1e-6) continue;
        double q[3] = {s[1] * t->e1[2] - s[2] * t->e1[1], s[2] * t->e1[0] - s[0] * t->e1[2],
                       s[0] * t->e1[1] - s[1] * t->e1[0]};
        double v = (d[0] * q[0] + d[1] * q[1] + d[2] * q[2]) * inv;
        if (v < -1e-6 || u + v > 1 + 1e-6) continue;
        double tt = (t->e2[0] * q[0] + t->e2[1] * q[1] + t->e2[2] * q[2]) * inv;
        if (tt > 1e-9 && tt <= 1 && tt < best) best = tt;
    }
    return best;
}

/* ---- spawns -------------------------------------------------------------------------- */
static int is_spawn(const char *cn)
{
    if (!cn) return 0;
    if (strncmp(cn, "info_player_", 12) == 0) return strcmp(cn, "info_player_intermission") != 0;
    if (strncmp(cn, "team_CTF_", 9) == 0) return strstr(cn, "spawn") || strstr(cn, "player");
    return 0;
}

static int parse_origin(const bk_entity *e, float o[3])
{
    const char *s = bk_entity_get(e, "origin");
    return s && sscanf(s, "%f %f %f", &o[0], &o[1], &o[2]) == 3 && bk_finite3(o);
}

static uint32_t g_seed = 12345;
static double rnd(void)
{
    g_seed = g_seed * 1664525u + 1013904223u;
    return (g_seed >> 8) / 16777216.0;
}

static int g_maps, g_spawns, g_agree, g_segments;


/* Quake 3: the point index answers as testing every brush of the leaf does, on random points
 * and on the corners, edge midpoints and face centres of every brush's bounds (points on
 * planes are where a margin would show) */
static int g_index_points, g_index_mismatch;
static void point_index_check(const bk_query *q, const char *path)
{
    const bk_cm *cm = bk_cm_state(q->state);
    if (!cm->pt.leafs) {
        fprintf(stderr, "%s: no point index\n", path);
        CHECK(0);
        return;
    }
    bk_cm plain = *cm;
    plain.pt.leafs = NULL;
    plain.grid.start = NULL;
    plain.outer.start = NULL;
    CHECK(cm->grid.start != NULL || cm->node_count < 64);
    int mism = 0, n = 0;
    float *all = NULL;
    uint32_t *want = NULL;   /* contents, leaf */
    size_t np = 0, cap = 0;
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (uint32_t b = 0; b < cm->brush_count; b++)
        for (int k = 0; k < 3; k++)
            if (isfinite(cm->brushes[b].mins[k]) && isfinite(cm->brushes[b].maxs[k]))
                lo[k] = fminf(lo[k], cm->brushes[b].mins[k]), hi[k] = fmaxf(hi[k], cm->brushes[b].maxs[k]);
    for (uint32_t b = 0; b < cm->brush_count + 40000; b++) {
        float p[3];
        int pts = b < cm->brush_count ? 27 : 1;
        /* the last 20000 in a box three times as wide: the coarser start grid around the map */
        float wide = b >= cm->brush_count + 20000 ? 1.0f : 0.0f;
        for (int c = 0; c < pts; c++) {
            if (b < cm->brush_count) {
                const bk_cm_brush *br = &cm->brushes[b];
                int ok = 1;
                for (int k = 0, cc = c; k < 3; k++, cc /= 3) {
                    float t = (float)(cc % 3) * 0.5f;
                    ok &= isfinite(br->mins[k]) && isfinite(br->maxs[k]);
                    p[k] = br->mins[k] + (br->maxs[k] - br->mins[k]) * t;
                }
                if (!ok) break;
            } else {
                for (int k = 0; k < 3; k++)
                    p[k] = lo[k] - wide * (hi[k] - lo[k]) + (float)rnd() * (hi[k] - lo[k]) * (1 + 2 * wide);
            }
            int32_t na, nb, nw, la, lb, lw;
            uint32_t a = bk_cm_point_contents(cm, 0, p, &na, &la);
            uint32_t z = bk_cm_point_contents(&plain, 0, p, &nb, &lb);
            uint32_t w = bk_cm_world_point(cm, p, &lw, &nw);   /* with the start cells' answers */
            n++;
            if (a != z || na != nb || la != lb || w != z || nw != nb || lw != lb) {
                if (mism++ < 5)
                    fprintf(stderr, "%s: point %g %g %g: indexed %u/%d, with cells' answers %u/%d, every brush %u/%d\n",
                            path, p[0], p[1], p[2], a, na, w, nw, z, nb);
            }
            if (np == cap) {   /* kept for the batched call */
                cap = cap ? 2 * cap : 4096;
                float *grown = realloc(all, sizeof *all * 3 * cap);
                uint32_t *gz = realloc(want, sizeof *want * 2 * cap);
                if (!grown || !gz) abort();
                all = grown, want = gz;
            }
            memcpy(all + 3 * np, p, sizeof p);
            want[2 * np] = z, want[2 * np + 1] = (uint32_t)lb;
            np++;
        }
    }
    /* the batched walks and contents give the same answers */
    int32_t *lv = malloc(sizeof *lv * (np ? np : 1)), *nv = malloc(sizeof *nv * (np ? np : 1));
    uint32_t *cv = malloc(sizeof *cv * (np ? np : 1));
    if (!lv || !nv || !cv) abort();
    bk_cm_world_points(cm, np, all, lv, cv, nv);
    int bmism = 0;
    for (size_t i = 0; i < np; i++) bmism += cv[i] != want[2 * i] || (uint32_t)lv[i] != want[2 * i + 1];
    if (bmism) fprintf(stderr, "%s: %d of %zu batched answers differ from every brush's\n", path, bmism, np);
    mism += bmism;
    free(lv), free(nv), free(cv), free(all), free(want);
    g_index_points += n;
    g_index_mismatch += mism;
    CHECK(mism == 0);
}

/* bk_query_points gives bk_query_point's answers, point by point; a non-finite point is named */
static void batch_check(const bk_query *q, const bk_file *f, const char *path)
{
    enum { NB = 3000 };
    static float pos[3 * NB];
    static bk_point_info batch[NB];
    const bk_info *inf = bk_file_info(f);
    for (size_t i = 0; i < 3 * NB; i++) {
        int k = (int)(i % 3);
        float lo = inf->has_bounds ? inf->mins[k] : -4096, hi = inf->has_bounds ? inf->maxs[k] : 4096;
        pos[i] = lo + (float)rnd() * (hi - lo);
    }
    CHECK(bk_query_points(q, 0, NB, pos, batch, NULL) == BK_OK);
    int differ = 0;
    for (size_t i = 0; i < NB; i++) {
        bk_point_info one;
        bk_query_point(q, 0, pos + 3 * i, &one);
        differ += memcmp(&one, &batch[i], sizeof one) != 0;
    }
    if (differ) fprintf(stderr, "%s: %d of %d batch answers differ\n", path, differ, NB);
    CHECK(differ == 0);
    /* a query opened for few points (no start grid, no point index) answers the same, and the
     * renderer's clusters by the walk alone are bk_query_point's */
    bk_options fo;
    memset(&fo, 0, sizeof fo);
    fo.flags = BK_OPT_NO_TEXTURES | BK_OPT_NO_LIGHTMAPS | BK_OPT_FEW_POINTS;
    bk_query *few = NULL;
    CHECK(bk_query_open(f, &fo, &few) == BK_OK);
    static bk_point_info fewer[NB];
    static int32_t clusters[NB];
    if (few) {
        CHECK(bk_query_points(few, 0, NB, pos, fewer, NULL) == BK_OK);
        bk_query_clusters(few, NB, pos, clusters);
        int fd = 0, cd = 0;
        for (size_t i = 0; i < NB; i++) {
            fd += memcmp(&fewer[i], &batch[i], sizeof fewer[i]) != 0;
            cd += clusters[i] != batch[i].cluster;
        }
        if (fd || cd) fprintf(stderr, "%s: few points: %d answers, %d clusters of %d differ\n", path, fd, cd, NB);
        CHECK(fd == 0 && cd == 0);
        bk_query_free(few);
    }
    size_t bad = 0;
    pos[3 * 1234 + 1] = NAN;
    CHECK(bk_query_points(q, 0, NB, pos, batch, &bad) == BK_EARG && bad == 1234);
}

static void check_map(const char *path, bk_format want_family, int *unsupported)
{
    bk_options opt;
    memset(&opt, 0, sizeof opt);
    opt.name = path;
    opt.flags = BK_OPT_NO_TEXTURES | BK_OPT_NO_LIGHTMAPS;
    bk_file *f;
    if (bk_file_open(path, &opt, &f) != BK_OK) return;   /* the unusual_ files */
    bk_format fmt = bk_file_format(f);
    int family_ok = want_family == BK_FORMAT_QUAKE1
                        ? (fmt == BK_FORMAT_QUAKE1 || fmt == BK_FORMAT_BSP2 || fmt == BK_FORMAT_GOLDSRC)
                        : fmt == want_family;
    if (!family_ok) {
        bk_file_free(f);
        return;
    }
    bk_query *q;
    bk_result r = bk_query_open(f, &opt, &q);
    if (r == BK_EUNSUPPORTED) {
        *unsupported = 1;
        bk_file_free(f);
        return;
    }
    CHECK(r == BK_OK);
    if (r != BK_OK) {
        fprintf(stderr, "%s: query open failed: %s\n", path, bk_strerror(r));
        bk_file_free(f);
        return;
    }
    g_maps++;
    if (want_family == BK_FORMAT_QUAKE3) point_index_check(q, path);
    batch_check(q, f, path);
    bk_query_info info;
    bk_query_get_info(q, &info);
    const bk_entities *ents = bk_file_entities(f);

    /* player spawns */
    int spawns = 0, spawn_bad = 0;
    for (uint32_t i = 0; i < ents->count; i++) {
        const bk_entity *e = &ents->items[i];
        float o[3];
        if (!is_spawn(bk_entity_get(e, "classname")) || !parse_origin(e, o)) continue;
        /* Source stores the feet (a point 16 up is inside the player's box), the others the centre */
        o[2] += want_family == BK_FORMAT_SOURCE ? 16 : 1;
        spawns++;
        bk_point_info pi;
        memset(&pi, 0, sizeof pi);
        int bad = bk_query_point(q, 0, o, &pi) != BK_OK || (pi.contents & BK_CONTENTS_SOLID);
        for (int k = 0; k < 3 && !bad; k++)
            bad = o[k] < pi.leaf_mins[k] - 1 || o[k] > pi.leaf_maxs[k] + 1;
        /* the same leaf by number: its bounds and cluster as the point query gave them */
        float lmin[3], lmax[3];
        int32_t lcl = -2;
        if (!bad) bad = bk_query_leaf_bounds(q, pi.leaf, lmin, lmax, &lcl) != BK_OK || lcl != pi.cluster ||
                        memcmp(lmin, pi.leaf_mins, sizeof lmin) != 0 || memcmp(lmax, pi.leaf_maxs, sizeof lmax) != 0;
        uint32_t vleaves = 0, vclusters = 0;
        if (!bad) bk_query_cluster_counts(q, pi.cluster, &vleaves, &vclusters);
        if (!bad && info.cluster_count) bad = vleaves == 0 || vclusters == 0;
        bk_trace_params tp;
        memset(&tp, 0, sizeof tp);
        bk_trace_result tr;
        float down[3] = {o[0], o[1], o[2] - 8192};
        if (!bad) bad = bk_query_trace(q, &tp, o, down, &tr) != BK_OK || tr.fraction >= 1 || tr.normal[2] <= 0 ||
                        tr.startsolid;
        if (!bad && tr.normal[2] < 0.7f)
            printf("%s: spawn %s at %g %g %g lands on a slope (normal z %g)\n", path, bk_entity_get(e, "classname"),
                   o[0], o[1], o[2], tr.normal[2]);
        if (bad) {
            spawn_bad++;
            fprintf(stderr, "%s: spawn %s at %g %g %g: leaf %d contents %u vis %u; down: fraction %g normal z %g\n",
                    path, bk_entity_get(e, "classname"), o[0], o[1], o[2], pi.leaf, pi.contents, vleaves,
                    tr.fraction, tr.normal[2]);
        }
    }
    CHECK(spawn_bad == 0);
    {
        float lmin[3], lmax[3];
        CHECK(bk_query_leaf_bounds(q, (int32_t)info.leaf_count, lmin, lmax, NULL) == BK_EINDEX);
        CHECK(bk_query_leaf_bounds(q, -1, lmin, lmax, NULL) == BK_EINDEX);
    }
    g_spawns += spawns;

    /* point traces against a ray cast on the world's triangles */
    bk_scene *s = NULL;
    tris T = {0};
    if (bk_file_build_scene(f, &opt, &s) == BK_OK) collect_world(s, &T);
    int segs = 0, agree = 0;
    for (uint32_t i = 0; i < ents->count && segs < 400 && T.n; i++) {
        float o[3];
        if (!parse_origin(&ents->items[i], o)) continue;
        for (int k = 0; k < 8; k++) {
            double th = rnd() * 6.283185307, z = rnd() * 2 - 1, len = 256 + rnd() * 768;
            double dir[3] = {sqrt(1 - z * z) * cos(th) * len, sqrt(1 - z * z) * sin(th) * len, z * len};
            float end[3] = {(float)(o[0] + dir[0]), (float)(o[1] + dir[1]), (float)(o[2] + dir[2])};
            bk_trace_params tp;
            memset(&tp, 0, sizeof tp);
            tp.mask = BK_CONTENTS_SOLID;
            bk_trace_result tr;
            if (bk_query_trace(q, &tp, o, end, &tr) != BK_OK || tr.startsolid) continue;
            double od[3] = {o[0], o[1], o[2]}, d[3] = {end[0] - od[0], end[1] - od[1], end[2] - od[2]};
            double t_keep = ray_first(&T, od, d, 0), t_skip = ray_first(&T, od, d, 1);
            if (t_skip < t_keep && t_skip <= 1) continue;   /* a liquid / sky / tool surface first */
            segs++;
            int ray_hit = t_keep <= 1, tr_hit = tr.fraction < 1;
            if (ray_hit == tr_hit && (!ray_hit || fabs(t_keep - tr.fraction) * len <= 2.0)) agree++;
            else if (getenv("BK_QUERY_VERBOSE"))
                fprintf(stderr, "  %g %g %g -> %g %g %g: ray %g trace %g (contents %u)\n", o[0], o[1], o[2], end[0], end[1],
                        end[2], t_keep, tr.fraction, tr.contents);
        }
    }
    if (segs >= 20) {
        printf("%s: %d/%d segments agree with the ray cast (%.1f%%)\n", path, agree, segs, 100.0 * agree / segs);
        /* GoldSrc / Quake: at least 70% on every map. Quake 3 / Source worlds hold more that is
         * drawn but not solid (or solid but not drawn) to the test's name filter: only the total. */
        CHECK(want_family != BK_FORMAT_QUAKE1 || agree * 100 >= segs * 70);   /* per map; over the whole corpus at least 90% (below) */
        g_agree += agree;
        g_segments += segs;
    }
    free(T.t);
    if (s) bk_scene_free(s);

    /* API argument checks */
    float p0[3] = {0, 0, 0}, nan3[3] = {NAN, 0, 0};
    bk_point_info pi;
    bk_trace_result tr;
    bk_trace_params tp;
    memset(&tp, 0, sizeof tp);
    CHECK(bk_query_point(q, info.model_count, p0, &pi) == BK_EINDEX);
    CHECK(bk_query_point(q, 0, nan3, &pi) == BK_EARG);
    tp.hull = 7;
    CHECK(info.hull_count == 0 || bk_query_trace(q, &tp, p0, p0, &tr) == BK_EINDEX);
    tp.hull = 0;
    tp.model = info.model_count;
    CHECK(bk_query_trace(q, &tp, p0, p0, &tr) == BK_EINDEX);
    bk_query_free(q);
    bk_file_free(f);
}

static void walk(const char *dir, bk_format fam, int *unsupported, int depth)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *de;
    char path[4096];
    char **names = NULL;
    size_t n = 0;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.') continue;
        names = realloc(names, (n + 1) * sizeof *names);
        names[n++] = strdup(de->d_name);
    }
    closedir(d);
    for (size_t i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        struct stat st;
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode) && depth < 3) walk(path, fam, unsupported, depth + 1);
        else if (strlen(names[i]) > 4 && strcmp(names[i] + strlen(names[i]) - 4, ".bsp") == 0)
            check_map(path, fam, unsupported);
        free(names[i]);
    }
    free(names);
}

/* a copy of a real GoldSrc / Quake map with one PVS row truncated, then with a node-tree cycle */
static void hostile(const char *path)
{
    uint8_t *data;
    size_t size;
    if (bk_read_file(path, (uint64_t)1 << 30, &data, &size) != BK_OK) return;
    bk_options opt;
    memset(&opt, 0, sizeof opt);
    opt.name = path;
    bk_file *f;
    if (bk_file_load_memory(data, size, &opt, &f) != BK_OK) {
        free(data);
        return;
    }
    const bk_quake_bsp *b = bk_file_impl(f, bk_file_format(f));
    uint64_t vis_at = b->lump_offset[BK_Q1_LUMP_VISIBILITY], vis_n = b->visibility_size;
    uint64_t nodes_at = b->lump_offset[BK_Q1_LUMP_NODES];
    int32_t last_leaf = -1, last_ofs = -1;
    for (uint32_t L = 1; L <= (uint32_t)b->models[0].visleafs && L < b->leaf_count; L++)
        if (b->leafs[L].vis_ofs > last_ofs) {
            last_ofs = b->leafs[L].vis_ofs;
            last_leaf = (int32_t)L;
        }
    int32_t head = b->models[0].headnode[0];
    int bsp29 = b->variant == BK_Q1_VARIANT_NONE;
    bk_file_free(f);
    if (last_leaf < 0 || !bsp29 || head < 0) {
        free(data);
        return;
    }
    /* 1: zero-run markers without counts from the last row to the lump's end: a truncated row */
    uint8_t *bad = malloc(size);
    memcpy(bad, data, size);
    memset(bad + vis_at + (uint64_t)last_ofs, 0, vis_n - (uint64_t)last_ofs);
    bad[vis_at + vis_n - 1] = 0;
    diag_log log = {0};
    opt.diag = on_diag;
    opt.diag_user = &log;
    bk_query *q = NULL;
    if (bk_file_load_memory(bad, size, &opt, &f) == BK_OK) {
        log.count = 0;
        CHECK(bk_query_open(f, &opt, &q) == BK_OK);
        CHECK(log.count >= 1 && strcmp(log.lump, "visibility") == 0 && log.index == last_leaf);
        if (q) {
            size_t rb = bk_query_row_bytes(q);
            uint8_t *row = malloc(rb);
            bk_query_info info;
            bk_query_get_info(q, &info);
            CHECK(bk_query_vis_row(q, BK_VIS_PVS, last_leaf - 1, row) == BK_OK);
            uint32_t bits = 0;
            for (uint32_t c = 0; c < info.cluster_count; c++) bits += (row[c >> 3] >> (c & 7)) & 1;
            CHECK(bits == info.cluster_count);   /* the engines' fallback: all visible */
            CHECK(bk_query_vis_row(q, BK_VIS_PAS, last_leaf - 1, row) == BK_OK);
            free(row);
            bk_query_free(q);
        }
        bk_file_free(f);
    } else {
        CHECK(0);
    }
    /* 2: the world's head node made its own first child: a cycle the loader's range checks pass */
    memcpy(bad, data, size);
    uint8_t *child = bad + nodes_at + 24u * (uint32_t)head + 4;
    child[0] = (uint8_t)(head & 0xff);
    child[1] = (uint8_t)((head >> 8) & 0x7f);
    log.count = 0;
    if (bk_file_load_memory(bad, size, &opt, &f) == BK_OK) {
        log.count = 0;
        q = NULL;
        CHECK(bk_query_open(f, &opt, &q) == BK_OK);
        CHECK(log.count >= 1 && strcmp(log.lump, "nodes") == 0);
        float p[3] = {0, 0, 0};
        bk_point_info pi;
        bk_trace_result tr;
        bk_trace_params tp;
        memset(&tp, 0, sizeof tp);
        if (q) {
            CHECK(bk_query_point(q, 0, p, &pi) == BK_EFORMAT);
            CHECK(bk_query_trace(q, &tp, p, p, &tr) == BK_EFORMAT);
            tp.hull = 1;
            CHECK(bk_query_trace(q, &tp, p, p, &tr) == BK_OK);   /* the clip hulls are intact */
            bk_query_free(q);
        }
        bk_file_free(f);
    }
    free(bad);
    free(data);
}

/* The curved surfaces' triangles (Quake 3 patches at 4 segments per 3x3 piece, Source
 * displacements at 2 per grid square) against the element limit, through the one
 * collision-model builder: one below their count the open is refused with BK_ELIMIT and one
 * diagnostic naming `lump`; at their count nothing is said about them. */
static void curve_limit(const char *path, const char *lump)
{
    bk_options opt;
    memset(&opt, 0, sizeof opt);
    bk_file *f = NULL;
    if (bk_file_open(path, &opt, &f) != BK_OK) {
        printf("SKIP: %s does not load\n", path);
        return;
    }
    uint64_t ntri = 0;
    const bk_q3_map *q3 = bk_file_format(f) == BK_FORMAT_QUAKE3 ? bk_file_impl(f, BK_FORMAT_QUAKE3) : NULL;
    const bk_source_map *src = bk_file_format(f) == BK_FORMAT_SOURCE ? bk_file_impl(f, BK_FORMAT_SOURCE) : NULL;
    for (uint32_t i = 0; q3 && i < q3->surface_count; i++) {
        const bk_q3_surface *su = &q3->surfaces[i];
        if (su->type == BK_Q3_MST_PATCH && su->patch_w >= 3 && su->patch_h >= 3)
            ntri += (uint64_t)((su->patch_w - 1) / 2) * 4 * (uint64_t)((su->patch_h - 1) / 2) * 4 * 2;
    }
    for (uint32_t i = 0; src && i < src->face_count; i++) {
        const bk_source_face *fa = &src->faces[i];
        if (fa->dispinfo < 0 || (uint32_t)fa->dispinfo >= src->dispinfo_count || fa->numedges != 4) continue;
        int32_t pw = src->dispinfo[fa->dispinfo].power;
        if (pw >= 2 && pw <= 4) ntri += (uint64_t)2 << (2 * pw);
    }
    CHECK(ntri > 1);
    diag_log log;
    memset(&log, 0, sizeof log);
    opt.diag = on_diag;
    opt.diag_user = &log;
    opt.limits.max_elements = ntri - 1;
    bk_query *q = NULL;
    CHECK(bk_query_open(f, &opt, &q) == BK_ELIMIT && q == NULL);
    CHECK(log.count == 1 && strcmp(log.lump, lump) == 0);
    opt.limits.max_elements = ntri;
    log.count = 0;
    bk_result r = bk_query_open(f, &opt, &q);
    CHECK((r == BK_OK || r == BK_ELIMIT) && log.count == 0);   /* another array may be the larger */
    bk_query_free(q);
    printf("%s: %llu curved triangles, refused one below (%d)\n", path, (unsigned long long)ntri, r);
    bk_file_free(f);
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: test_query SHARED FETCHED WORK quake|q3|source\n");
        return 2;
    }
    char dir[4096];
    int unsupported = 0;
    /* the family's corpus: a skip with a message when it is not there */
    snprintf(dir, sizeof dir, strcmp(argv[4], "q3") == 0 ? "%s/q3" : "%s/corpus",
             strcmp(argv[4], "q3") == 0 ? argv[2] : argv[1]);
    DIR *probe = opendir(dir);
    if (!probe) {
        printf("SKIP: %s missing\n", dir);
        return 77;
    }
    closedir(probe);
    if (strcmp(argv[4], "quake") == 0) {
        snprintf(dir, sizeof dir, "%s/corpus/goldsrc", argv[1]);
        walk(dir, BK_FORMAT_QUAKE1, &unsupported, 0);
        snprintf(dir, sizeof dir, "%s/corpus/quake1", argv[1]);
        walk(dir, BK_FORMAT_QUAKE1, &unsupported, 0);
        snprintf(dir, sizeof dir, "%s/corpus/goldsrc/cs16_fy_pool_day.bsp", argv[1]);
        hostile(dir);
        snprintf(dir, sizeof dir, "%s/corpus/quake1/progs_dump_start.bsp", argv[1]);
        hostile(dir);
        /* WAD3: no tree to query */
        snprintf(dir, sizeof dir, "%s/corpus/wad3", argv[1]);
        DIR *d = opendir(dir);
        struct dirent *de;
        while (d && (de = readdir(d))) {
            if (!strstr(de->d_name, ".wad")) continue;
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
            bk_file *f;
            bk_options opt;
            memset(&opt, 0, sizeof opt);
            diag_log log = {0};
            opt.diag = on_diag;
            opt.diag_user = &log;
            if (bk_file_open(path, &opt, &f) != BK_OK) continue;
            bk_query *q = NULL;
            log.count = 0;
            CHECK(bk_query_open(f, &opt, &q) == BK_EUNSUPPORTED && q == NULL && log.count == 1);
            bk_file_free(f);
            break;
        }
        if (d) closedir(d);
    } else {
        bk_format fam = strcmp(argv[4], "q3") == 0 ? BK_FORMAT_QUAKE3 : BK_FORMAT_SOURCE;
        snprintf(dir, sizeof dir, "%s", fam == BK_FORMAT_QUAKE3 ? argv[2] : argv[1]);
        if (fam == BK_FORMAT_QUAKE3) strncat(dir, "/q3", sizeof dir - strlen(dir) - 1);
        else strncat(dir, "/corpus/source", sizeof dir - strlen(dir) - 1);
        walk(dir, fam, &unsupported, 0);
        char one[4096];
        if (fam == BK_FORMAT_QUAKE3) snprintf(one, sizeof one, "%s/q3/nexuiz/basementctf.bsp", argv[2]);
        else snprintf(one, sizeof one, "%s/corpus/source/tf2_v20_bsp_tool_test_displacement_decompile.bsp", argv[1]);
        if (g_maps) curve_limit(one, fam == BK_FORMAT_QUAKE3 ? "surfaces" : "dispinfo");
        if (unsupported && g_maps == 0) {
            printf("SKIP: no %s query backend in this build\n", argv[4]);
            return 77;
        }
    }
    printf("%d maps, %d spawns, %d/%d segments agree with the ray cast\n", g_maps, g_spawns, g_agree, g_segments);
    if (strcmp(argv[4], "q3") == 0)
        printf("point index: %d points, %d differ from testing every brush\n", g_index_points, g_index_mismatch);
    CHECK(g_maps > 0);
    /* the great majority over the family's corpus: 90% GoldSrc / Quake, 80% Quake 3 / Source */
    CHECK(g_segments == 0 || g_agree * 100 >= g_segments * (strcmp(argv[4], "quake") == 0 ? 90 : 80));
    return CHECK_DONE();
}
