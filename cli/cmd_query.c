/* query and trace: point location, PVS / PAS rows, "can A see B", visible faces and clip-hull /
 * box traces on a loaded map, one at a time or as JSON lines from standard input (--batch). */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bspkit/query.h"
#include "cli.h"

typedef struct qargs {
    const char *file;
    bool json, batch, have_point, have_see, have_from, have_to, have_box, visible_faces, pas;
    int32_t pvs;                   /* -1: not asked */
    uint32_t model;
    int32_t hull;
    uint32_t mask;
    float point[3], see[6], from[3], to[3], mins[3], maxs[3];
    const char *paths[64];
    int path_count;
} qargs;

static int parse_float(const char *s, float *out)
{
    char *end;
    if (!s) return -1;
    double d = strtod(s, &end);
    if (end == s || *end || !isfinite(d) || fabs(d) > 1e30) return -1;
    *out = (float)d;
    return 0;
}

static int parse_floats(int argc, char **argv, int *i, float *out, int n)
{
    for (int k = 0; k < n; k++) {
        if (*i + 1 >= argc || parse_float(argv[*i + 1], &out[k]) != 0) return -1;
        (*i)++;
    }
    return 0;
}

static int parse_u32(const char *s, int64_t lo, int64_t hi, int64_t *out)
{
    char *end;
    if (!s) return -1;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

/* Returns CLI_CONTINUE, or an exit code. */
static int parse_args(const cli_cmd *me, int argc, char **argv, qargs *a, bool trace)
{
    memset(a, 0, sizeof *a);
    a->pvs = -1;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        int64_t v;
        if (strcmp(s, "--help") == 0 || strcmp(s, "-h") == 0) {
            fputs(me->usage, stdout);
            return EXIT_OK;
        } else if (strcmp(s, "--json") == 0) {
            a->json = true;
        } else if (strcmp(s, "--batch") == 0) {
            a->batch = true;
        } else if (strcmp(s, "--model") == 0) {
            if (parse_u32(i + 1 < argc ? argv[++i] : NULL, 0, INT32_MAX, &v)) return cli_usage_error(me, "bad --model %s", argv[i]);
            a->model = (uint32_t)v;
        } else if (!trace && strcmp(s, "--point") == 0) {
            if (parse_floats(argc, argv, &i, a->point, 3)) return cli_usage_error(me, "--point needs X Y Z%s", "");
            a->have_point = true;
        } else if (!trace && strcmp(s, "--see") == 0) {
            if (parse_floats(argc, argv, &i, a->see, 6)) return cli_usage_error(me, "--see needs X Y Z X Y Z%s", "");
            a->have_see = true;
        } else if (!trace && (strcmp(s, "--pvs") == 0 || strcmp(s, "--pas") == 0)) {
            a->pas = s[3] == 'a';
            if (parse_u32(i + 1 < argc ? argv[++i] : NULL, 0, INT32_MAX, &v)) return cli_usage_error(me, "bad cluster %s", argv[i]);
            a->pvs = (int32_t)v;
        } else if (!trace && strcmp(s, "--visible-faces") == 0) {
            if (parse_floats(argc, argv, &i, a->point, 3)) return cli_usage_error(me, "--visible-faces needs X Y Z%s", "");
            a->visible_faces = true;
        } else if (trace && strcmp(s, "--from") == 0) {
            if (parse_floats(argc, argv, &i, a->from, 3)) return cli_usage_error(me, "--from needs X Y Z%s", "");
            a->have_from = true;
        } else if (trace && strcmp(s, "--to") == 0) {
            if (parse_floats(argc, argv, &i, a->to, 3)) return cli_usage_error(me, "--to needs X Y Z%s", "");
            a->have_to = true;
        } else if (trace && strcmp(s, "--hull") == 0) {
            if (parse_u32(i + 1 < argc ? argv[++i] : NULL, 0, 3, &v)) return cli_usage_error(me, "bad --hull %s (0..3)", argv[i]);
            a->hull = (int32_t)v;
        } else if (trace && strcmp(s, "--mins") == 0) {
            if (parse_floats(argc, argv, &i, a->mins, 3)) return cli_usage_error(me, "--mins needs X Y Z%s", "");
            a->have_box = true;
        } else if (trace && strcmp(s, "--maxs") == 0) {
            if (parse_floats(argc, argv, &i, a->maxs, 3)) return cli_usage_error(me, "--maxs needs X Y Z%s", "");
            a->have_box = true;
        } else if (trace && strcmp(s, "--mask") == 0) {
            if (i + 1 >= argc || bk_contents_parse(argv[i + 1], &a->mask) != BK_OK)
                return cli_usage_error(me, "bad --mask %s (names such as solid|playerclip|water)",
                                       i + 1 < argc ? argv[i + 1] : "");
            i++;
        } else if (strcmp(s, "--wad") == 0 || strcmp(s, "--game-dir") == 0) {
            if (i + 1 >= argc) return cli_usage_error(me, "%s needs a path", s);
            if (a->path_count < 64) a->paths[a->path_count++] = argv[++i];
        } else if (s[0] == '-' && s[1]) {
            return cli_usage_error(me, "unknown option %s", s);
        } else if (!a->file) {
            a->file = s;
        } else {
            return cli_usage_error(me, "unexpected argument %s", s);
        }
    }
    if (!a->file) return cli_usage_error(me, "missing FILE%s", "");
    if (trace && !a->batch && (!a->have_from || !a->have_to))
        return cli_usage_error(me, "give --from X Y Z --to X Y Z (or --batch)%s", "");
    if (!trace && !a->batch && !a->have_point && !a->have_see && a->pvs < 0 && !a->visible_faces)
        return cli_usage_error(me, "give --point, --see, --pvs, --pas, --visible-faces or --batch%s", "");
    return CLI_CONTINUE;
}

static cJSON *vec3(const float *v)
{
    double d[3] = {v[0], v[1], v[2]};
    return cJSON_CreateDoubleArray(d, 3);
}

static cJSON *point_json(const bk_point_info *pi)
{
    char names[256];
    bk_contents_format(pi->contents, names, sizeof names);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "leaf", pi->leaf);
    cJSON_AddStringToObject(o, "contents", names);
    cJSON_AddNumberToObject(o, "native_contents", pi->native_contents);
    cJSON_AddNumberToObject(o, "cluster", pi->cluster);
    cJSON_AddNumberToObject(o, "area", pi->area);
    cJSON_AddItemToObject(o, "leaf_mins", vec3(pi->leaf_mins));
    cJSON_AddItemToObject(o, "leaf_maxs", vec3(pi->leaf_maxs));
    cJSON_AddNumberToObject(o, "visible_leaves", pi->visible_leaves);
    cJSON_AddNumberToObject(o, "visible_clusters", pi->visible_clusters);
    return o;
}

static cJSON *trace_json(const bk_trace_result *t)
{
    char names[256];
    bk_contents_format(t->contents, names, sizeof names);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "fraction", t->fraction);
    cJSON_AddItemToObject(o, "endpos", vec3(t->endpos));
    cJSON *pl = cJSON_AddObjectToObject(o, "plane");
    cJSON_AddItemToObject(pl, "normal", vec3(t->normal));
    cJSON_AddNumberToObject(pl, "dist", t->dist);
    cJSON_AddStringToObject(o, "contents", names);
    cJSON_AddNumberToObject(o, "native_contents", t->native_contents);
    cJSON_AddBoolToObject(o, "startsolid", t->startsolid != 0);
    cJSON_AddBoolToObject(o, "allsolid", t->allsolid != 0);
    cJSON_AddNumberToObject(o, "surface", t->surface);
    return o;
}

static void print_line(cJSON *o)
{
    char *s = cJSON_PrintUnformatted(o);
    if (s) {
        fputs(s, stdout);
        fputc('\n', stdout);
        cJSON_free(s);
    }
    cJSON_Delete(o);
}

static void print_point_text(const bk_point_info *pi)
{
    char names[256];
    bk_contents_format(pi->contents, names, sizeof names);
    printf("leaf %d\ncontents %s (%d)\ncluster %d\narea %d\n", pi->leaf, names, pi->native_contents, pi->cluster,
           pi->area);
    printf("leaf bounds %g %g %g .. %g %g %g\n", pi->leaf_mins[0], pi->leaf_mins[1], pi->leaf_mins[2],
           pi->leaf_maxs[0], pi->leaf_maxs[1], pi->leaf_maxs[2]);
    printf("visible leaves %u\nvisible clusters %u\n", pi->visible_leaves, pi->visible_clusters);
}

static void print_trace_text(const bk_trace_result *t)
{
    char names[256];
    bk_contents_format(t->contents, names, sizeof names);
    printf("fraction %g\nendpos %g %g %g\nplane %g %g %g %g\ncontents %s (%d)\nstartsolid %d\nallsolid %d\n",
           t->fraction, t->endpos[0], t->endpos[1], t->endpos[2], t->normal[0], t->normal[1], t->normal[2], t->dist,
           names, t->native_contents, t->startsolid, t->allsolid);
}

static cJSON *error_json(bk_result r, unsigned long line, const char *what)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "error", bk_result_name(r));
    cJSON_AddStringToObject(o, "message", what);
    cJSON_AddNumberToObject(o, "line", (double)line);
    return o;
}

/* --batch: one query per line, one JSON object per line. Exit 1 if any line failed. */
static int run_batch(const bk_query *q, const qargs *a, const bk_trace_params *tp, bool trace)
{
    char line[1024];
    unsigned long n = 0;
    int failed = 0;
    while (fgets(line, sizeof line, stdin)) {
        n++;
        float v[6];
        int got = 0;
        char *p = line, *end;
        while (got < 6) {
            double d = strtod(p, &end);
            if (end == p) break;
            if (!isfinite(d) || fabs(d) > 1e30) {
                got = -1;
                break;
            }
            v[got++] = (float)d;
            p = end;
        }
        while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
        if (got == 0 && !*p) continue;   /* blank line */
        int want = trace ? 6 : 3;
        if (got != want || *p) {
            print_line(error_json(BK_EARG, n, trace ? "expected X1 Y1 Z1 X2 Y2 Z2" : "expected X Y Z"));
            failed = 1;
            continue;
        }
        bk_result r;
        if (trace) {
            bk_trace_result t;
            r = bk_query_trace(q, tp, v, v + 3, &t);
            if (r == BK_OK) print_line(trace_json(&t));
        } else {
            bk_point_info pi;
            r = bk_query_point(q, a->model, v, &pi);
            if (r == BK_OK) print_line(point_json(&pi));
        }
        if (r != BK_OK) {
            print_line(error_json(r, n, bk_strerror(r)));
            failed = 1;
        }
    }
    fflush(stdout);
    return failed ? EXIT_BAD_INPUT : EXIT_OK;
}

static int open_query(const qargs *a, cli_opts *o, bk_file **f, void **owned, bk_query **q)
{
    memset(o, 0, sizeof *o);
    for (int i = 0; i < a->path_count; i++) o->paths[o->path_count++] = a->paths[i];
    o->opt.search_paths = o->paths;
    o->opt.search_path_count = (uint32_t)o->path_count;
    o->opt.diag = cli_diag_print;
    o->opt.diag_user = stderr;
    o->opt.flags = BK_OPT_NO_LIGHTMAPS | BK_OPT_NO_TEXTURES;
    int rc = cli_load(a->file, o, f, owned);
    if (rc) return rc;
    bk_result r = bk_query_open(*f, &o->opt, q);
    if (r != BK_OK) {
        fprintf(stderr, "%s: cannot query: %s\n", a->file, bk_strerror(r));
        bk_file_free(*f);
        free(*owned);
        return EXIT_BAD_INPUT;
    }
    return EXIT_OK;
}

static int report_error(const qargs *a, const char *what, bk_result r)
{
    fprintf(stderr, "%s: %s: %s\n", a->file, what, bk_strerror(r));
    return EXIT_BAD_INPUT;
}

int cmd_query(int argc, char **argv)
{
    const cli_cmd *me = cli_find("query");
    qargs a;
    int rc = parse_args(me, argc, argv, &a, false);
    if (rc != CLI_CONTINUE) return rc;
    cli_opts o;
    bk_file *f;
    void *owned;
    bk_query *q;
    rc = open_query(&a, &o, &f, &owned, &q);
    if (rc) return rc;
    bk_query_info info;
    bk_query_get_info(q, &info);
    if (a.batch) {
        rc = run_batch(q, &a, NULL, false);
    } else if (a.have_point) {
        bk_point_info pi;
        bk_result r = bk_query_point(q, a.model, a.point, &pi);
        if (r != BK_OK) rc = report_error(&a, "point", r);
        else if (a.json) {
            cJSON *j = point_json(&pi);
            cli_print_json(j);
            cJSON_Delete(j);
        } else {
            print_point_text(&pi);
        }
    } else if (a.have_see) {
        bk_point_info pa, pb;
        bk_result r = bk_query_point(q, 0, a.see, &pa);
        if (r == BK_OK) r = bk_query_point(q, 0, a.see + 3, &pb);
        if (r != BK_OK) {
            rc = report_error(&a, "see", r);
        } else {
            int vis = bk_query_cluster_visible(q, pa.cluster, pb.cluster);
            bk_trace_params tp;
            memset(&tp, 0, sizeof tp);
            tp.mask = BK_MASK_SOLID;
            bk_trace_result t;
            int clear = bk_query_trace(q, &tp, a.see, a.see + 3, &t) == BK_OK && t.fraction == 1 && !t.startsolid;
            if (a.json) {
                cJSON *j = cJSON_CreateObject();
                cJSON_AddBoolToObject(j, "potentially_visible", vis);
                cJSON_AddBoolToObject(j, "line_of_sight", vis && clear);
                cJSON_AddNumberToObject(j, "cluster_a", pa.cluster);
                cJSON_AddNumberToObject(j, "cluster_b", pb.cluster);
                cli_print_json(j);
                cJSON_Delete(j);
            } else {
                printf("potentially visible %s\nline of sight %s\n", vis ? "yes" : "no", vis && clear ? "yes" : "no");
            }
        }
    } else if (a.pvs >= 0) {
        size_t rb = bk_query_row_bytes(q);
        uint8_t *row = calloc(rb ? rb : 1, 1);
        bk_result r = row ? bk_query_vis_row(q, a.pas ? BK_VIS_PAS : BK_VIS_PVS, a.pvs, row) : BK_ENOMEM;
        if (info.cluster_count == 0) r = BK_EUNSUPPORTED;
        if (r != BK_OK) {
            rc = report_error(&a, a.pas ? "PAS row" : "PVS row", r);
        } else {
            cJSON *arr = cJSON_CreateArray();
            uint32_t count = 0;
            for (uint32_t c = 0; c < info.cluster_count; c++)
                if ((row[c >> 3] >> (c & 7)) & 1) {
                    cJSON_AddItemToArray(arr, cJSON_CreateNumber(c));
                    count++;
                }
            if (a.json) {
                cJSON *j = cJSON_CreateObject();
                cJSON_AddNumberToObject(j, "cluster", a.pvs);
                cJSON_AddStringToObject(j, "kind", a.pas ? "pas" : "pvs");
                cJSON_AddNumberToObject(j, "cluster_count", info.cluster_count);
                cJSON_AddNumberToObject(j, "visible_count", count);
                cJSON_AddItemToObject(j, "visible", arr);
                cli_print_json(j);
                cJSON_Delete(j);
            } else {
                printf("%s of cluster %d: %u of %u clusters\n", a.pas ? "PAS" : "PVS", a.pvs, count, info.cluster_count);
                for (cJSON *e = arr->child; e; e = e->next) printf("%d\n", e->valueint);
                cJSON_Delete(arr);
            }
        }
        free(row);
    } else if (a.visible_faces) {
        uint32_t count = 0;
        bk_result r = bk_query_visible_faces(q, a.point, NULL, 0, &count);
        uint32_t *faces = r == BK_OK ? malloc((size_t)(count ? count : 1) * sizeof *faces) : NULL;
        if (r == BK_OK && !faces) r = BK_ENOMEM;
        if (r == BK_OK) r = bk_query_visible_faces(q, a.point, faces, count, &count);
        if (r != BK_OK) {
            rc = report_error(&a, "visible faces", r);
        } else if (a.json) {
            cJSON *j = cJSON_CreateObject();
            cJSON_AddNumberToObject(j, "face_count", info.face_count);
            cJSON_AddNumberToObject(j, "visible_count", count);
            cJSON *arr = cJSON_AddArrayToObject(j, "faces");
            for (uint32_t i = 0; i < count; i++) cJSON_AddItemToArray(arr, cJSON_CreateNumber(faces[i]));
            cli_print_json(j);
            cJSON_Delete(j);
        } else {
            printf("%u of %u faces potentially visible\n", count, info.face_count);
            for (uint32_t i = 0; i < count; i++) printf("%u\n", faces[i]);
        }
        free(faces);
    }
    bk_query_free(q);
    bk_file_free(f);
    free(owned);
    return rc;
}

int cmd_trace(int argc, char **argv)
{
    const cli_cmd *me = cli_find("trace");
    qargs a;
    int rc = parse_args(me, argc, argv, &a, true);
    if (rc != CLI_CONTINUE) return rc;
    cli_opts o;
    bk_file *f;
    void *owned;
    bk_query *q;
    rc = open_query(&a, &o, &f, &owned, &q);
    if (rc) return rc;
    bk_trace_params tp;
    memset(&tp, 0, sizeof tp);
    tp.model = a.model;
    tp.hull = a.hull;
    tp.mask = a.mask;
    if (a.have_box) {
        memcpy(tp.mins, a.mins, sizeof tp.mins);
        memcpy(tp.maxs, a.maxs, sizeof tp.maxs);
    }
    if (a.batch) {
        rc = run_batch(q, &a, &tp, true);
    } else {
        bk_trace_result t;
        bk_result r = bk_query_trace(q, &tp, a.from, a.to, &t);
        if (r != BK_OK) rc = report_error(&a, "trace", r);
        else if (a.json) {
            cJSON *j = trace_json(&t);
            cli_print_json(j);
            cJSON_Delete(j);
        } else {
            print_trace_text(&t);
        }
    }
    bk_query_free(q);
    bk_file_free(f);
    free(owned);
    return rc;
}
