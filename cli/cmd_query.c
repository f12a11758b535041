/* bspkit query / trace: point location, PVS / PAS rows, line of sight and traces over the
 * public query API (bspkit/query.h). --batch reads one query per line from standard input and
 * writes one JSON object per line. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bspkit/query.h"
#include "cli.h"

typedef struct qargs {
    int have_point, have_from, have_to, have_see, have_box, batch, faces;
    float point[3], from[3], to[3], see[6], mins[3], maxs[3];
    int32_t hull, pvs, pas;
    uint32_t model, mask;
    int have_hull;
} qargs;


static int read_int(int argc, char **argv, int *i, long lo, long hi, long *out, const char *name)
{
    if (*i + 1 >= argc) {
        fprintf(stderr, "bspkit: %s needs a value\n", name);
        return -1;
    }
    char *end;
    long v = strtol(argv[*i + 1], &end, 10);
    if (*end || v < lo || v > hi) {
        fprintf(stderr, "bspkit: %s: '%s' is not a number in %ld..%ld\n", name, argv[*i + 1], lo, hi);
        return -1;
    }
    *out = v;
    *i += 1;
    return 0;
}

/* Take the query options out of argv (the rest goes to the shared parser). */
static int parse_qargs(int argc, char **argv, qargs *q, char **rest, int *nrest)
{
    memset(q, 0, sizeof *q);
    q->pvs = q->pas = -2;
    *nrest = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        long v;
        if (i > 0 && strcmp(a, "--point") == 0) {
            if (cli_read_floats(argc, argv, &i, q->point, 3, a, FLT_MAX)) return -1;
            q->have_point = 1;
        } else if (i > 0 && strcmp(a, "--from") == 0) {
            if (cli_read_floats(argc, argv, &i, q->from, 3, a, FLT_MAX)) return -1;
            q->have_from = 1;
        } else if (i > 0 && strcmp(a, "--to") == 0) {
            if (cli_read_floats(argc, argv, &i, q->to, 3, a, FLT_MAX)) return -1;
            q->have_to = 1;
        } else if (i > 0 && strcmp(a, "--see") == 0) {
            if (cli_read_floats(argc, argv, &i, q->see, 6, a, FLT_MAX)) return -1;
            q->have_see = 1;
        } else if (i > 0 && strcmp(a, "--mins") == 0) {
            if (cli_read_floats(argc, argv, &i, q->mins, 3, a, FLT_MAX)) return -1;
            q->have_box |= 1;
        } else if (i > 0 && strcmp(a, "--maxs") == 0) {
            if (cli_read_floats(argc, argv, &i, q->maxs, 3, a, FLT_MAX)) return -1;
            q->have_box |= 2;
        } else if (i > 0 && strcmp(a, "--hull") == 0) {
            if (read_int(argc, argv, &i, 0, 3, &v, a)) return -1;
            q->hull = (int32_t)v;
            q->have_hull = 1;
        } else if (i > 0 && strcmp(a, "--model") == 0) {
            if (read_int(argc, argv, &i, 0, 1L << 30, &v, a)) return -1;
            q->model = (uint32_t)v;
        } else if (i > 0 && (strcmp(a, "--pvs") == 0 || strcmp(a, "--pas") == 0)) {
            int32_t *dst = a[3] == 'v' ? &q->pvs : &q->pas;
            if (i + 1 < argc && strcmp(argv[i + 1], "all") == 0) {
                *dst = -1;
                i++;
            } else {
                if (read_int(argc, argv, &i, 0, 1L << 30, &v, a)) return -1;
                *dst = (int32_t)v;
            }
        } else if (i > 0 && strcmp(a, "--mask") == 0) {
            if (i + 1 >= argc || bk_contents_parse(argv[i + 1], &q->mask) != BK_OK) {
                fprintf(stderr, "bspkit: --mask needs contents names joined by '|' (solid|playerclip|...)\n");
                return -1;
            }
            i++;
        } else if (i > 0 && strcmp(a, "--batch") == 0) {
            q->batch = 1;
        } else if (i > 0 && strcmp(a, "--visible-faces") == 0) {
            q->faces = 1;
        } else {
            rest[(*nrest)++] = argv[i];
        }
    }
    if (q->have_box && q->have_box != 3) {
        fprintf(stderr, "bspkit: --mins and --maxs go together\n");
        return -1;
    }
    return 0;
}

/* a float as the CLI's JSON writes it (cli_json_f32: a NaN or an infinity as its bits) */
static void json_f32(float v)
{
    char t[24];
    fputs(cli_json_f32_text(t, sizeof t, v), stdout);
}

static void json_vec(const char *key, const float *v)
{
    printf("\"%s\":[", key);
    for (int k = 0; k < 3; k++) {
        if (k) putchar(',');
        json_f32(v[k]);
    }
    putchar(']');
}

/* a JSON string (names are 8-bit map text: bytes >= 0x80 read as Latin-1) or null */
static void json_str(const char *s)
{
    if (!s) {
        printf("null");
        return;
    }
    char *u = bk_utf8_from_8bit(s);
    const char *p = u ? u : "";
    putchar('"');
    for (; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '"' || c == '\\') printf("\\%c", c);
        else if (c < 0x20) printf("\\u%04x", c);
        else putchar(c);
    }
    putchar('"');
    bk_free(u);
}

static int print_point(const bk_query *q, uint32_t model, const float p[3], int faces, int json)
{
    bk_point_info pi;
    bk_result r = bk_query_point(q, model, p, &pi);
    if (r != BK_OK) {
        if (json) printf("{\"error\":\"%s\"}\n", bk_result_name(r));
        else fprintf(stderr, "bspkit query: %s\n", bk_strerror(r));
        return EXIT_BAD_INPUT;
    }
    uint32_t vl = 0, vc = 0, nf = 0;
    bk_query_cluster_counts(q, pi.cluster, &vl, &vc);
    if (pi.cluster < 0) {
        bk_query_info qi;
        bk_query_get_info(q, &qi);
        if (qi.cluster_count == 0) vl = qi.leaf_count;
    }
    if (faces) bk_query_visible_faces(q, p, NULL, 0, &nf);
    char cn[256];
    bk_contents_format(pi.contents, cn, sizeof cn);
    if (json) {
        printf("{");
        json_vec("point", p);
        printf(",\"model\":%u,\"leaf\":%d,\"contents\":\"%s\",\"native_contents\":%d,\"cluster\":%d,\"area\":%d,",
               model, pi.leaf, cn, pi.native_contents, pi.cluster, pi.area);
        json_vec("leaf_mins", pi.leaf_mins);
        printf(",");
        json_vec("leaf_maxs", pi.leaf_maxs);
        printf(",\"visible_leaves\":%u,\"visible_clusters\":%u", vl, vc);
        if (faces) printf(",\"visible_faces\":%u", nf);
        printf("}\n");
    } else {
        printf("point    %g %g %g (model %u)\nleaf     %d\ncontents %s (%d)\ncluster  %d\narea     %d\n"
               "bounds   %g %g %g .. %g %g %g\nvisible  %u leaves, %u clusters\n",
               (double)p[0], (double)p[1], (double)p[2], model, pi.leaf, cn, pi.native_contents, pi.cluster,
               pi.area, (double)pi.leaf_mins[0], (double)pi.leaf_mins[1], (double)pi.leaf_mins[2],
               (double)pi.leaf_maxs[0], (double)pi.leaf_maxs[1], (double)pi.leaf_maxs[2], vl, vc);
        if (faces) printf("faces    %u potentially visible\n", nf);
    }
    return EXIT_OK;
}

static int print_row(const bk_query *q, bk_vis_kind kind, int32_t cluster, int json)
{
    size_t n = bk_query_row_bytes(q);
    uint8_t *row = malloc(n ? n : 1);
    if (!row) return EXIT_BAD_INPUT;
    bk_result r = bk_query_vis_row(q, kind, cluster, row);
    if (r != BK_OK) {
        fprintf(stderr, "bspkit query: %s row of cluster %d: %s\n", kind ? "PAS" : "PVS", cluster, bk_strerror(r));
        free(row);
        return EXIT_BAD_INPUT;
    }
    bk_query_info qi;
    bk_query_get_info(q, &qi);
    if (json) printf("{\"cluster\":%d,\"kind\":\"%s\",\"visible\":[", cluster, kind ? "pas" : "pvs");
    else printf("%s of cluster %d:", kind ? "PAS" : "PVS", cluster);
    uint32_t k = 0;
    for (uint32_t c = 0; c < qi.cluster_count; c++) {
        if (!((row[c >> 3] >> (c & 7)) & 1)) continue;
        printf(json && k == 0 ? "%u" : json ? ",%u" : " %u", c);
        k++;
    }
    printf(json ? "],\"count\":%u}\n" : "\n(%u clusters)\n", k);
    free(row);
    return EXIT_OK;
}

static int do_trace(const bk_query *q, const bk_trace_params *tp, const float a[3], const float b[3], int json)
{
    bk_trace_result tr;
    bk_result r = bk_query_trace(q, tp, a, b, &tr);
    if (r != BK_OK) {
        if (json) printf("{\"error\":\"%s\"}\n", bk_result_name(r));
        else fprintf(stderr, "bspkit trace: %s\n", bk_strerror(r));
        return EXIT_BAD_INPUT;
    }
    char cn[256];
    bk_contents_format(tr.contents, cn, sizeof cn);
    const char *sname = tr.fraction < 1 ? bk_query_surface_name(q, tr.surface) : NULL;
    if (json) {
        printf("{");
        json_vec("from", a);
        printf(",");
        json_vec("to", b);
        printf(",\"fraction\":");
        json_f32(tr.fraction);
        printf(",");
        json_vec("endpos", tr.endpos);
        printf(",\"plane\":{");
        json_vec("normal", tr.normal);
        printf(",\"dist\":");
        json_f32(tr.dist);
        printf("},\"contents\":\"%s\",\"native_contents\":%d,\"startsolid\":%s,\"allsolid\":%s,"
               "\"surface\":%d,\"surface_name\":",
               cn, tr.native_contents, tr.startsolid ? "true" : "false",
               tr.allsolid ? "true" : "false", tr.surface);
        json_str(sname);
        printf("}\n");
    } else {
        printf("fraction   %g\nendpos     %g %g %g\nplane      %g %g %g  dist %g\ncontents   %s (%d)\n"
               "startsolid %d\nallsolid   %d\nsurface    %d%s%s\n",
               (double)tr.fraction, (double)tr.endpos[0], (double)tr.endpos[1], (double)tr.endpos[2],
               (double)tr.normal[0], (double)tr.normal[1], (double)tr.normal[2], (double)tr.dist, cn,
               tr.native_contents, tr.startsolid, tr.allsolid, tr.surface, sname ? " " : "", sname ? sname : "");
    }
    return EXIT_OK;
}

/* --batch: one query per line of standard input, one JSON line out per line in (blank and
 * comment lines give none); lines of any length up to CLI_BATCH_LINE_MAX, longer ones refused
 * with their number, so the answers keep lining up with the questions. */
static int run_batch(const bk_query *q, const bk_trace_params *tp, const qargs *qa, int is_trace)
{
    int rc = EXIT_OK;
    char *line = NULL;
    size_t cap = 0, len = 0;
    unsigned long lineno = 0;
    int got;
    while ((got = cli_read_line(stdin, CLI_BATCH_LINE_MAX, &line, &cap, &len)) != 0) {
        lineno++;
        if (got == -2) {
            fprintf(stderr, "bspkit: standard input, line %lu: %s\n", lineno,
                    ferror(stdin) ? "read error" : "out of memory");
            rc = EXIT_BAD_INPUT;
            break;
        }
        if (got == -1) {
            printf("{\"line\":%lu,\"error\":\"line longer than %zu bytes\"}\n", lineno, CLI_BATCH_LINE_MAX);
            rc = EXIT_BAD_INPUT;
            continue;
        }
        float v[6];
        int n = strlen(line) == len ? cli_parse_numbers(line, v, 6) : -1; /* a NUL byte is no number */
        if (n == 0) continue;
        if (is_trace ? n != 6 : (n != 3 && n != 6)) {
            printf("{\"line\":%lu,\"error\":\"expected %s\"}\n", lineno, is_trace ? "X1 Y1 Z1 X2 Y2 Z2" : "X Y Z or X1 Y1 Z1 X2 Y2 Z2");
            rc = EXIT_BAD_INPUT;
            continue;
        }
        if (is_trace) {
            if (do_trace(q, tp, v, v + 3, 1)) rc = EXIT_BAD_INPUT;
        } else if (n == 3) {
            if (print_point(q, qa->model, v, qa->faces, 1)) rc = EXIT_BAD_INPUT;
        } else {
            printf("{");
            json_vec("a", v);
            printf(",");
            json_vec("b", v + 3);
            printf(",\"visible\":%s}\n", bk_query_points_visible(q, v, v + 3) ? "true" : "false");
        }
    }
    free(line);
    return rc;
}

static int run(int argc, char **argv, int is_trace)
{
    const cli_cmd *me = cli_find(is_trace ? "trace" : "query");
    qargs qa;
    char *rest[512];
    int nrest;
    if (argc > 500) return cli_usage_error(me, "too many arguments%s", "");
    if (parse_qargs(argc, argv, &qa, rest, &nrest) < 0) return cli_usage_error(me, "bad arguments%s", "");
    cli_opts o;
    int rc = cli_begin(me, nrest, rest, 1, 1, &o);
    if (rc != CLI_CONTINUE) return rc;
    if (!is_trace && !qa.batch && !qa.have_point && !qa.have_see && qa.pvs < -1 && qa.pas < -1)
        return cli_usage_error(me, "give --point, --see, --pvs, --pas or --batch%s", "");
    if (is_trace && !qa.batch && !(qa.have_from && qa.have_to))
        return cli_usage_error(me, "give --from and --to, or --batch%s", "");
    bk_file *f;
    void *owned;
    rc = cli_load(o.positional[0], &o, &f, &owned);
    if (rc) return rc;
    bk_query *q = NULL;
    bk_options qo = o.opt;
    qo.name = o.positional[0];
    qo.diag = cli_diag_print;
    bk_result r = bk_query_open(f, &qo, &q);
    if (r != BK_OK) {
        fprintf(stderr, "%s: error: cannot query: %s\n", o.positional[0], bk_strerror(r));
        bk_file_free(f);
        bk_free(owned);
        return EXIT_BAD_INPUT;
    }
    bk_query_info qi;
    bk_query_get_info(q, &qi);
    if (qa.model >= qi.model_count) {
        fprintf(stderr, "%s: error: model %u out of range (%u models)\n", o.positional[0], qa.model, qi.model_count);
        rc = EXIT_BAD_INPUT;
        goto done;
    }
    bk_trace_params tp;
    memset(&tp, 0, sizeof tp);
    tp.model = qa.model;
    tp.mask = qa.mask;
    if (qa.have_box) {
        memcpy(tp.mins, qa.mins, sizeof tp.mins);
        memcpy(tp.maxs, qa.maxs, sizeof tp.maxs);
        tp.hull = -1;   /* GoldSrc / Quake: the hull the engine picks for this box */
    }
    if (qa.have_hull) {
        if (qi.hull_count == 0) {
            fprintf(stderr, "%s: error: --hull is for GoldSrc / Quake maps; give --mins/--maxs for a box\n",
                    o.positional[0]);
            rc = EXIT_BAD_INPUT;
            goto done;
        }
        if ((uint32_t)qa.hull >= qi.hull_count) {
            fprintf(stderr, "%s: error: hull %d out of range (0..%u)\n", o.positional[0], qa.hull, qi.hull_count - 1);
            rc = EXIT_BAD_INPUT;
            goto done;
        }
        tp.hull = qa.hull;
    }
    rc = EXIT_OK;
    if (qa.batch) {
        rc = run_batch(q, &tp, &qa, is_trace);
        goto done;
    }
    if (is_trace) {
        rc = do_trace(q, &tp, qa.from, qa.to, o.json);
        goto done;
    }
    if (qa.have_point) rc |= print_point(q, qa.model, qa.point, qa.faces, o.json);
    if (qa.have_see) {
        int vis = bk_query_points_visible(q, qa.see, qa.see + 3);
        if (o.json) {
            printf("{");
            json_vec("a", qa.see);
            printf(",");
            json_vec("b", qa.see + 3);
            printf(",\"visible\":%s}\n", vis ? "true" : "false");
        } else {
            printf("%s\n", vis ? "potentially visible" : "not visible");
        }
    }
    for (int k = 0; k < 2; k++) {
        int32_t c = k ? qa.pas : qa.pvs;
        if (c < -1) continue;
        if (c >= 0) {
            rc |= print_row(q, k ? BK_VIS_PAS : BK_VIS_PVS, c, o.json);
        } else if (qi.cluster_count == 0) {
            fprintf(stderr, "%s: the map has no visibility data (everything is visible)\n", o.positional[0]);
        } else {
            for (uint32_t i = 0; i < qi.cluster_count && rc == EXIT_OK; i++)
                rc |= print_row(q, k ? BK_VIS_PAS : BK_VIS_PVS, (int32_t)i, o.json);
        }
    }
done:
    bk_query_free(q);
    bk_file_free(f);
    bk_free(owned);
    return rc;
}

int cmd_query(int argc, char **argv) { return run(argc, argv, 0); }
int cmd_trace(int argc, char **argv) { return run(argc, argv, 1); }
