/* Query speed: point queries and traces per second on the largest map of each family, each
 * beside a brute-force baseline measured in the same run on the same inputs (the point tested
 * against every leaf's stored bounds; the segment clipped against every solid leaf's box
 * (GoldSrc / Quake) or every brush (Quake 3 / Source)). Ratios, not seconds, are the result.
 * One core, one thread, timed by the thread's processor time. Families whose query backend is not in this build are skipped.
 * usage: bench_query [SHARED_DIR] [FETCHED_CORPUS]   (defaults ../shared, ~/.cache/bspkit-corpus) */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "bspkit/q3.h"
#include "bspkit/quake.h"
#include "bspkit/query.h"
#include "bspkit/source.h"

/* the thread's processor time: on a machine shared with other work, waiting for a core is not
 * counted (everything here runs on one thread) */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* the largest .bsp under dir (depth 2) that loads as one of the wanted formats */
static void largest(const char *dir, int depth, char *best, off_t *best_size)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *de;
    while ((de = readdir(d))) {
        if (de->d_name[0] == '.') continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        struct stat st;
        if (stat(path, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) {
            if (depth < 2) largest(path, depth + 1, best, best_size);
            continue;
        }
        size_t l = strlen(de->d_name);
        if (l < 5 || strcmp(de->d_name + l - 4, ".bsp") != 0 || strncmp(de->d_name, "unusual_", 8) == 0) continue;
        if (st.st_size > *best_size) {
            *best_size = st.st_size;
            snprintf(best, 2048, "%s", path);
        }
    }
    closedir(d);
}

typedef struct box { float mn[3], mx[3]; } box;
typedef struct hplane { float n[3], d; } hplane;
typedef struct brush { uint32_t first, count; } brush;

typedef struct tri { float a[3], e1[3], e2[3]; } tri;

typedef struct baseline {
    box *leaves; size_t nleaves;       /* every leaf's bounds (point baseline) */
    tri *tris; size_t ntris;           /* GoldSrc / Quake segment baseline: the world's faces (the
                                        * solid leaves share one leaf there; no brushes are stored) */
    hplane *planes; brush *brushes; size_t nbrushes;   /* Quake 3 / Source segment baseline */
} baseline;

static void build_baseline(const bk_file *f, baseline *b)
{
    memset(b, 0, sizeof *b);
    bk_format fmt = bk_file_format(f);
    if (fmt == BK_FORMAT_GOLDSRC || fmt == BK_FORMAT_QUAKE1 || fmt == BK_FORMAT_BSP2) {
        const bk_quake_bsp *q = bk_quake_bsp_of(f);
        b->leaves = malloc(q->leaf_count * sizeof *b->leaves);
        for (uint32_t i = 0; i < q->leaf_count; i++) {
            box bx;
            memcpy(bx.mn, q->leafs[i].mins, sizeof bx.mn);
            memcpy(bx.mx, q->leafs[i].maxs, sizeof bx.mx);
            b->leaves[b->nleaves++] = bx;
        }
        const bk_q1_model *w = &q->models[0];
        b->tris = malloc(((size_t)q->surfedge_count + 1) * sizeof *b->tris);
        for (int32_t fi = w->first_face; fi < w->first_face + w->face_count; fi++) {
            const bk_q1_face *fc = &q->faces[fi];
            const float *v[64];
            uint32_t n = fc->edge_count < 64 ? fc->edge_count : 64;
            for (uint32_t e = 0; e < n; e++) {
                int32_t se = q->surfedges[fc->first_edge + e];
                uint32_t vi = se >= 0 ? q->edges[se].v[0] : q->edges[-se].v[1];
                v[e] = q->vertices + 3 * vi;
            }
            for (uint32_t e = 2; e < n; e++) {
                tri *t = &b->tris[b->ntris++];
                for (int k = 0; k < 3; k++) {
                    t->a[k] = v[0][k];
                    t->e1[k] = v[e - 1][k] - v[0][k];
                    t->e2[k] = v[e][k] - v[0][k];
                }
            }
        }
    } else if (fmt == BK_FORMAT_QUAKE3) {
        const bk_q3_map *m = bk_q3_map_of(f);
        b->leaves = malloc(m->leaf_count * sizeof *b->leaves);
        for (uint32_t i = 0; i < m->leaf_count; i++) {
            box bx;
            for (int k = 0; k < 3; k++) bx.mn[k] = (float)m->leafs[i].mins[k], bx.mx[k] = (float)m->leafs[i].maxs[k];
            b->leaves[b->nleaves++] = bx;
        }
        b->brushes = malloc(m->brush_count * sizeof *b->brushes);
        b->planes = malloc((m->brushside_count + 1) * sizeof *b->planes);
        size_t np = 0;
        for (uint32_t i = 0; i < m->brush_count; i++) {
            brush br = {(uint32_t)np, 0};
            for (int32_t s = 0; s < m->brushes[i].num_sides; s++) {
                const bk_q3_plane *p = &m->planes[m->brushsides[m->brushes[i].first_side + s].plane];
                hplane h = {{p->normal[0], p->normal[1], p->normal[2]}, p->dist};
                b->planes[np++] = h;
                br.count++;
            }
            b->brushes[b->nbrushes++] = br;
        }
    } else if (fmt == BK_FORMAT_SOURCE) {
        const bk_source_map *m = bk_source_map_of(f);
        b->leaves = malloc(m->leaf_count * sizeof *b->leaves);
        for (uint32_t i = 0; i < m->leaf_count; i++) {
            box bx;
            for (int k = 0; k < 3; k++) bx.mn[k] = m->leafs[i].mins[k], bx.mx[k] = m->leafs[i].maxs[k];
            b->leaves[b->nleaves++] = bx;
        }
        b->brushes = malloc(m->brush_count * sizeof *b->brushes);
        b->planes = malloc((m->brushside_count + 1) * sizeof *b->planes);
        size_t np = 0;
        for (uint32_t i = 0; i < m->brush_count; i++) {
            brush br = {(uint32_t)np, 0};
            for (int32_t s = 0; s < m->brushes[i].numsides; s++) {
                const bk_source_plane *p = &m->planes[m->brushsides[m->brushes[i].firstside + s].planenum];
                hplane h = {{p->normal[0], p->normal[1], p->normal[2]}, p->dist};
                b->planes[np++] = h;
                br.count++;
            }
            b->brushes[b->nbrushes++] = br;
        }
    }
}

/* brute force: the first leaf whose bounds hold p */
static size_t base_point(const baseline *b, const float p[3])
{
    for (size_t i = 1; i < b->nleaves; i++) {
        const box *x = &b->leaves[i];
        if (p[0] >= x->mn[0] && p[0] <= x->mx[0] && p[1] >= x->mn[1] && p[1] <= x->mx[1] && p[2] >= x->mn[2] &&
            p[2] <= x->mx[2])
            return i;
    }
    return 0;
}

/* brute force: the earliest entry of the segment into any solid box / brush */
static float base_segment(const baseline *b, const float a[3], const float z[3])
{
    float best = 1, d[3] = {z[0] - a[0], z[1] - a[1], z[2] - a[2]};
    for (size_t i = 0; i < b->ntris; i++) {
        const tri *t = &b->tris[i];
        float p[3] = {d[1] * t->e2[2] - d[2] * t->e2[1], d[2] * t->e2[0] - d[0] * t->e2[2], d[0] * t->e2[1] - d[1] * t->e2[0]};
        float det = t->e1[0] * p[0] + t->e1[1] * p[1] + t->e1[2] * p[2];
        if (fabsf(det) < 1e-12f) continue;
        float inv = 1 / det, s[3] = {a[0] - t->a[0], a[1] - t->a[1], a[2] - t->a[2]};
        float u = (s[0] * p[0] + s[1] * p[1] + s[2] * p[2]) * inv;
        if (u < 0 || u > 1) continue;
        float qv[3] = {s[1] * t->e1[2] - s[2] * t->e1[1], s[2] * t->e1[0] - s[0] * t->e1[2], s[0] * t->e1[1] - s[1] * t->e1[0]};
        float v = (d[0] * qv[0] + d[1] * qv[1] + d[2] * qv[2]) * inv;
        if (v < 0 || u + v > 1) continue;
        float tt = (t->e2[0] * qv[0] + t->e2[1] * qv[1] + t->e2[2] * qv[2]) * inv;
        if (tt > 0 && tt < best) best = tt;
    }
    for (size_t i = 0; i < b->nbrushes; i++) {
        float t0 = 0, t1 = best;
        for (uint32_t s = 0; s < b->brushes[i].count && t0 <= t1; s++) {
            const hplane *p = &b->planes[b->brushes[i].first + s];
            float da = p->n[0] * a[0] + p->n[1] * a[1] + p->n[2] * a[2] - p->d;
            float dz = p->n[0] * z[0] + p->n[1] * z[1] + p->n[2] * z[2] - p->d;
            if (da > 0 && dz > 0) t0 = 2;
            else if (da > 0) { float t = da / (da - dz); if (t > t0) t0 = t; }
            else if (dz > 0) { float t = da / (da - dz); if (t < t1) t1 = t; }
        }
        if (b->brushes[i].count && t0 <= t1 && t0 < best) best = t0;
    }
    return best;
}

static void bench_map(const char *family, const char *path)
{
    bk_options opt;
    memset(&opt, 0, sizeof opt);
    opt.flags = BK_OPT_NO_TEXTURES | BK_OPT_NO_LIGHTMAPS;
    bk_file *f;
    if (bk_file_open(path, &opt, &f) != BK_OK) return;
    bk_query *q;
    if (bk_query_open(f, &opt, &q) != BK_OK) {
        printf("%-8s %s: no query backend in this build, skipped\n", family, path);
        bk_file_free(f);
        return;
    }
    const bk_info *info = bk_file_info(f);
    float mn[3] = {-4096, -4096, -4096}, mx[3] = {4096, 4096, 4096};
    if (info->has_bounds)
        for (int k = 0; k < 3; k++) mn[k] = info->mins[k], mx[k] = info->maxs[k];
    enum { NP = 1 << 20, NT = 1 << 18, NB = 1 << 12 };
    float *pts = malloc(sizeof(float) * 3 * NP);
    uint32_t seed = 7;
    for (size_t i = 0; i < 3u * NP; i++) {
        seed = seed * 1664525u + 1013904223u;
        int k = (int)(i % 3);
        pts[i] = mn[k] + (mx[k] - mn[k]) * (float)(seed >> 8) / 16777216.0f;
    }
    baseline b;
    build_baseline(f, &b);
    bk_point_info pi;
    volatile int64_t sink = 0;
    /* point queries */
    double t0 = now();
    for (size_t i = 0; i < NP; i++) {
        bk_query_point(q, 0, pts + 3 * i, &pi);
        sink += pi.leaf;
    }
    double t_pt = now() - t0;
    /* the same points through the batch call (several tree walks side by side) */
    bk_point_info *many = malloc(sizeof *many * NP);
    memset(many, 0, sizeof *many * NP);   /* its pages mapped before the clock starts, as a reused buffer's */
    double t_pts = INFINITY;
    for (int rep = 0; rep < 3; rep++) {   /* the best of three: the machine is shared */
        t0 = now();
        bk_query_points(q, 0, NP, pts, many, NULL);
        t_pts = fmin(t_pts, now() - t0);
    }
    for (size_t i = 0; i < NP; i++) sink += many[i].leaf;
    free(many);
    t0 = now();
    for (size_t i = 0; i < NB; i++) sink += (int64_t)base_point(&b, pts + 3 * i);
    double t_bpt = (now() - t0) * ((double)NP / NB);
    /* traces: segments between consecutive random points, up to 512 units long */
    bk_trace_params tp;
    memset(&tp, 0, sizeof tp);
    bk_trace_result tr;
    /* segments start in open space (a start in solid ends at once and would flatter the figure) */
    float (*seg)[6] = malloc(sizeof *seg * NT);
    size_t open_n = 0;
    for (size_t i = 0; i < NP && open_n < NP / 2; i++)
        if (bk_query_point(q, 0, pts + 3 * i, &pi) == BK_OK && !(pi.contents & BK_CONTENTS_SOLID)) {
            memmove(pts + 3 * open_n, pts + 3 * i, sizeof(float) * 3);
            open_n++;
        }
    for (size_t i = 0; i < NT; i++) {
        const float *a = pts + 3 * (i % (open_n ? open_n : 1)), *z = pts + 3 * ((i * 7 + 1) % (open_n ? open_n : 1));
        float d[3] = {z[0] - a[0], z[1] - a[1], z[2] - a[2]}, len = sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        float s = len > 512 ? 512 / len : 1;
        for (int k = 0; k < 3; k++) seg[i][k] = a[k], seg[i][3 + k] = a[k] + d[k] * s;
    }
    t0 = now();
    for (size_t i = 0; i < NT; i++) {
        bk_query_trace(q, &tp, seg[i], seg[i] + 3, &tr);
        sink += (int64_t)(tr.fraction * 100);
    }
    double t_tr = now() - t0;
    tp.hull = -1;   /* GoldSrc / Quake: the hull the engine picks for the box */
    tp.mins[0] = tp.mins[1] = -16, tp.mins[2] = -24;   /* a player-sized box (hull 1 on GoldSrc / Quake) */
    tp.maxs[0] = tp.maxs[1] = 16, tp.maxs[2] = 32;
    t0 = now();
    for (size_t i = 0; i < NT; i++) {
        bk_query_trace(q, &tp, seg[i], seg[i] + 3, &tr);
        sink += (int64_t)(tr.fraction * 100);
    }
    double t_box = now() - t0;
    t0 = now();
    for (size_t i = 0; i < NB; i++) sink += (int64_t)(base_segment(&b, seg[i], seg[i] + 3) * 100);
    double t_btr = (now() - t0) * ((double)NT / NB);
    const char *slash = strrchr(path, '/');
    printf("%-8s %-34s leaves %6zu brushes/triangles %6zu\n", family, slash ? slash + 1 : path, b.nleaves,
           b.nbrushes + b.ntris);
    printf("         point  %8.2f M/s   brute force %8.3f M/s   x%.0f\n", NP / t_pt / 1e6, NP / t_bpt / 1e6,
           t_bpt / t_pt);
    printf("         points %8.2f M/s   (bk_query_points, the same points at once; x%.1f one call a point)\n",
           NP / t_pts / 1e6, t_pt / t_pts);
    printf("         ray    %8.2f M/s   brute force %8.3f M/s   x%.0f\n", NT / t_tr / 1e6, NT / t_btr / 1e6,
           t_btr / t_tr);
    printf("         box    %8.2f M/s   (player box; x%.0f the brute-force ray)\n", NT / t_box / 1e6, t_btr / t_box);
    (void)sink;
    free(seg);
    free(pts);
    free(b.leaves);
    free(b.tris);
    free(b.planes);
    free(b.brushes);
    bk_query_free(q);
    bk_file_free(f);
}

int main(int argc, char **argv)
{
    const char *shared = argc > 1 ? argv[1] : "../shared";
    char fetched[1024];
    const char *home = getenv("HOME"), *env = getenv("BSPKIT_CORPUS");
    if (argc > 2) snprintf(fetched, sizeof fetched, "%s", argv[2]);
    else if (env) snprintf(fetched, sizeof fetched, "%s", env);
    else snprintf(fetched, sizeof fetched, "%s/.cache/bspkit-corpus", home ? home : ".");
    char dir[1200], best[2048];
    off_t size;
    static const char *const quake_dirs[] = {"goldsrc", "quake1"};
    for (int i = 0; i < 2; i++) {
        best[0] = 0, size = 0;
        snprintf(dir, sizeof dir, "%s/corpus/%s", shared, quake_dirs[i]);
        largest(dir, 0, best, &size);
        if (best[0]) bench_map(quake_dirs[i], best);
    }
    best[0] = 0, size = 0;
    snprintf(dir, sizeof dir, "%s/q3", fetched);
    largest(dir, 0, best, &size);
    if (best[0]) bench_map("quake3", best);
    best[0] = 0, size = 0;
    snprintf(dir, sizeof dir, "%s/corpus/source", shared);
    largest(dir, 0, best, &size);
    if (best[0]) bench_map("source", best);
    return 0;
}
