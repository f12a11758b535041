/* bspkit navmesh / path: where a player can walk, and the way between two points (docs/navmesh.md).
 * The three navmesh files are written all or nothing through one write group. */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "bspkit/nav.h"
#include "cli.h"

typedef struct nav_args {
    bk_nav_agent agent;
    bool have_agent;
    float from[3], to[3];
    bool have_from, have_to;
} nav_args;


/* --agent R,H,S,SLOPE (any of them empty keeps the map's own) */
static int read_agent(const char *text, bk_nav_agent *a)
{
    float *dst[4] = {&a->radius, &a->height, &a->step, &a->slope};
    const char *p = text;
    for (int k = 0; k < 4; k++) {
        char *end;
        if (*p != ',' && *p) {
            double v = strtod(p, &end);
            if (end == p || (*end && *end != ',') || !isfinite(v)) return -1;
            *dst[k] = (float)v;
            p = end;
        }
        if (k < 3) {
            if (*p != ',') return *p ? -1 : 0;
            p++;
        }
    }
    return *p ? -1 : 0;
}

static int take_args(int argc, char **argv, nav_args *n, char **rest, int *nrest, const char **agent_text)
{
    *nrest = 0;
    *agent_text = NULL;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (*nrest >= CLI_MAX_ARGS) return -1;
        if (i > 0 && strcmp(a, "--from") == 0) {
            if (cli_read_floats(argc, argv, &i, n->from, 3, a, 1e9)) return -1;
            n->have_from = true;
        } else if (i > 0 && strcmp(a, "--to") == 0) {
            if (cli_read_floats(argc, argv, &i, n->to, 3, a, 1e9)) return -1;
            n->have_to = true;
        } else if (i > 0 && strcmp(a, "--agent") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "bspkit: --agent needs RADIUS,HEIGHT,STEP,SLOPE\n");
                return -1;
            }
            *agent_text = argv[++i];
        } else {
            rest[(*nrest)++] = argv[i];
        }
    }
    rest[*nrest] = NULL;
    return 0;
}

/* load the map and build its navmesh for the agent asked for */
static int build(const cli_cmd *me, cli_opts *o, const char *agent_text, bk_file **f, void **owned, bk_navmesh **m,
                 bk_nav_agent *agent)
{
    *m = NULL;
    if (!bk_nav_available()) {
        fprintf(stderr, "bspkit: %s: not available: %s\n", me->name, bk_nav_unavailable_reason());
        return EXIT_BAD_INPUT;
    }
    int rc = cli_load(o->positional[0], o, f, owned);
    if (rc) return rc;
    if (bk_nav_default_agent(*f, agent) != BK_OK) {
        fprintf(stderr, "%s: error: %s: not supported for %s files\n", o->positional[0], me->name,
                bk_format_name(bk_file_format(*f)));
        return EXIT_BAD_INPUT;
    }
    if (agent_text && read_agent(agent_text, agent)) {
        fprintf(stderr, "bspkit: --agent: '%s' is not RADIUS,HEIGHT,STEP,SLOPE (numbers; an empty one keeps the "
                        "map's own)\n", agent_text);
        return EXIT_USAGE;
    }
    char why[400];
    if (bk_nav_agent_check(agent, why, sizeof why) != BK_OK) {
        fprintf(stderr, "%s: error: %s\n", o->positional[0], why);
        return EXIT_BAD_INPUT;
    }
    bk_result r = bk_navmesh_build(*f, &o->opt, agent, m);
    if (r != BK_OK) {
        /* the reason went to the diagnostics, located (the line below for the quiet ones) */
        if (o->quiet || r == BK_ENOMEM) fprintf(stderr, "%s: error: no navmesh: %s\n", o->positional[0], bk_strerror(r));
        return EXIT_BAD_INPUT;
    }
    return EXIT_OK;
}

/* ---- the three files ---------------------------------------------------------------------- */

typedef struct text_buf {
    char *p;
    size_t n, cap;
    bool failed;
} text_buf;

static void tb_printf(text_buf *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void tb_printf(text_buf *t, const char *fmt, ...)
{
    if (t->failed) return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(t->p ? t->p + t->n : NULL, t->p ? t->cap - t->n : 0, fmt, ap);
        va_end(ap);
        if (k < 0) {
            t->failed = true;
            return;
        }
        if (t->p && t->n + (size_t)k < t->cap) {
            t->n += (size_t)k;
            return;
        }
        size_t nc = t->cap ? t->cap * 2 : 65536;
        while (nc < t->n + (size_t)k + 1) nc *= 2;
        char *q = realloc(t->p, nc);
        if (!q) {
            t->failed = true;
            return;
        }
        t->p = q;
        t->cap = nc;
    }
}

typedef struct poly_sink {
    text_buf obj;
    uint32_t polys, verts, areas[64];
    float mins[3], maxs[3];
    double area_total;
} poly_sink;

static void on_poly(void *user, const float *v, uint32_t n, uint32_t area, uint32_t tile)
{
    poly_sink *s = user;
    for (uint32_t i = 0; i < n; i++) {
        tb_printf(&s->obj, "v %.3f %.3f %.3f\n", (double)v[i * 3], (double)v[i * 3 + 1], (double)v[i * 3 + 2]);
        for (int k = 0; k < 3; k++) s->mins[k] = fminf(s->mins[k], v[i * 3 + k]), s->maxs[k] = fmaxf(s->maxs[k], v[i * 3 + k]);
    }
    tb_printf(&s->obj, "f");
    for (uint32_t i = 0; i < n; i++) tb_printf(&s->obj, " %u", s->verts + i + 1);
    tb_printf(&s->obj, "\n");
    /* the polygon's area seen from above (its fan, in the XY plane) */
    double a = 0;
    for (uint32_t i = 1; i + 1 < n; i++)
        a += 0.5 * fabs((double)(v[i * 3] - v[0]) * (v[(i + 1) * 3 + 1] - v[1]) -
                        (double)(v[(i + 1) * 3] - v[0]) * (v[i * 3 + 1] - v[1]));
    s->area_total += a;
    s->verts += n;
    s->polys++;
    s->areas[area & 63]++;
    (void)tile;
}

static cJSON *vec3(const float *v)
{
    cJSON *a = cJSON_CreateArray();
    for (int k = 0; k < 3; k++) cJSON_AddItemToArray(a, cli_json_f32(v[k]));
    return a;
}

static bool entity_origin(const bk_entity *e, float o[3])
{
    const char *t = bk_entity_get(e, "origin");
    return t && sscanf(t, "%f %f %f", &o[0], &o[1], &o[2]) == 3 && isfinite(o[0]) && isfinite(o[1]) && isfinite(o[2]);
}

static bool is_spawn(const bk_file *f, const char *cls)
{
    const bk_game *g = bk_file_game(f);
    for (uint32_t i = 0; g && cls && i < g->spawn_class_count; i++)
        if (strcmp(cls, g->spawn_classes[i]) == 0) return true;
    return false;
}

/* Seeds: the spawns (on the mesh or not) and what the first spawn on the mesh reaches of the
 * items and weapons. An origin is a player's centre in the Quake and GoldSrc maps, a point above
 * the floor in the others: each is snapped to the mesh within a player's height below it. */
static cJSON *seeds_json(const bk_file *f, const bk_navmesh *m, const bk_nav_agent *a)
{
    const bk_entities *es = bk_file_entities(f);
    uint32_t spawns = 0, spawns_on = 0, items = 0, reached = 0, first = UINT32_MAX;
    float from[3] = {0, 0, 0};
    cJSON *j = cJSON_CreateObject();
    cJSON *lost = cJSON_CreateArray();
    for (uint32_t i = 0; i < es->count; i++) {
        float o[3], p[3];
        if (!is_spawn(f, bk_entity_get(&es->items[i], "classname")) || !entity_origin(&es->items[i], o)) continue;
        spawns++;
        if (bk_navmesh_nearest(m, o, 2 * a->radius, a->height, p) == BK_OK) {
            spawns_on++;
            if (first == UINT32_MAX) first = i, memcpy(from, o, sizeof from);
        }
    }
    for (uint32_t i = 0; first != UINT32_MAX && i < es->count; i++) {
        const char *cls = bk_entity_get(&es->items[i], "classname");
        float o[3];
        if (!cls || (strncmp(cls, "item_", 5) && strncmp(cls, "weapon_", 7)) || !entity_origin(&es->items[i], o)) continue;
        items++;
        float *pts = NULL, len = 0;
        uint32_t n = 0;
        bool ok = false;
        bk_navmesh_path(m, from, o, &pts, &n, &len, &ok);
        bk_free(pts);
        if (ok) reached++;
        else if (cJSON_GetArraySize(lost) < 64) {
            char buf[160];
            snprintf(buf, sizeof buf, "%s %g %g %g", cls, (double)o[0], (double)o[1], (double)o[2]);
            cJSON_AddItemToArray(lost, cJSON_CreateString(buf));
        }
    }
    cJSON_AddNumberToObject(j, "spawns", spawns);
    cJSON_AddNumberToObject(j, "spawns_on_mesh", spawns_on);
    if (first != UINT32_MAX) cJSON_AddItemToObject(j, "from", vec3(from));
    cJSON_AddNumberToObject(j, "items", items);
    cJSON_AddNumberToObject(j, "items_reached", reached);
    cJSON_AddItemToObject(j, "items_not_reached", lost);
    return j;
}

static void strip_ext(char *base, size_t cap, const char *out)
{
    snprintf(base, cap, "%s", out);
    size_t n = strlen(base);
    const char *exts[] = {".obj", ".bin", ".json"};
    for (size_t i = 0; i < 3; i++) {
        size_t e = strlen(exts[i]);
        if (n > e && strcmp(base + n - e, exts[i]) == 0) {
            base[n - e] = 0;
            return;
        }
    }
}

/* What navmesh and path share: their arguments read and checked, the map loaded and its navmesh
 * built. -1: go on (f, owned and m are the caller's to free); otherwise the exit code. */
typedef struct nav_run {
    nav_args na;
    cli_opts o;
    bk_file *f;
    void *owned;
    bk_navmesh *m;
    bk_nav_agent agent;
} nav_run;

static int nav_begin(const cli_cmd *me, int argc, char **argv, bool path, nav_run *nr)
{
    memset(nr, 0, sizeof *nr);
    char *rest[CLI_MAX_ARGS + 1];
    int nrest;
    const char *agent_text;
    if (take_args(argc, argv, &nr->na, rest, &nrest, &agent_text)) return cli_usage_error(me, "bad arguments%s", "");
    if (!path && (nr->na.have_from || nr->na.have_to))
        return cli_usage_error(me, "--from / --to belong to 'bspkit path'%s", "");
    int rc = cli_begin(me, nrest, rest, 1, 1, &nr->o);
    if (rc != CLI_CONTINUE) return rc;
    if (!path && !nr->o.output) return cli_usage_error(me, "missing -o OUT (writes OUT.obj, OUT.bin, OUT.json)%s", "");
    if (path && (!nr->na.have_from || !nr->na.have_to))
        return cli_usage_error(me, "needs --from X Y Z and --to X Y Z%s", "");
    rc = build(me, &nr->o, agent_text, &nr->f, &nr->owned, &nr->m, &nr->agent);
    if (rc) {
        bk_file_free(nr->f);
        bk_free(nr->owned);
        return rc;
    }
    return -1;
}

int cmd_navmesh(int argc, char **argv)
{
    const cli_cmd *me = cli_find("navmesh");
    nav_run nr;
    int rc = nav_begin(me, argc, argv, false, &nr);
    if (rc >= 0) return rc;
    cli_opts o = nr.o;
    bk_file *f = nr.f;
    void *owned = nr.owned;
    bk_navmesh *m = nr.m;
    bk_nav_agent agent = nr.agent;
    char base[4000], pobj[4096], pbin[4096], pjson[4096];
    strip_ext(base, sizeof base, o.output);
    snprintf(pobj, sizeof pobj, "%s.obj", base);
    snprintf(pbin, sizeof pbin, "%s.bin", base);
    snprintf(pjson, sizeof pjson, "%s.json", base);

    poly_sink ps;
    memset(&ps, 0, sizeof ps);
    for (int k = 0; k < 3; k++) ps.mins[k] = 1e30f, ps.maxs[k] = -1e30f;
    tb_printf(&ps.obj, "# bspkit navmesh of %s: walkable polygons, engine units, Z up\no navmesh\n", o.positional[0]);
    bk_navmesh_polygons(m, on_poly, &ps);
    bk_nav_stats st;
    bk_navmesh_stats(m, &st);
    uint8_t *bin = NULL;
    size_t bin_size = 0;
    bk_result r = ps.obj.failed ? BK_ENOMEM : bk_navmesh_save(m, &bin, &bin_size);

    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "input", o.positional[0]);
    cJSON_AddStringToObject(j, "format", bk_format_name(bk_file_format(f)));
    cJSON *ja = cJSON_AddObjectToObject(j, "agent");
    cli_json_add_f32(ja, "radius", agent.radius);
    cli_json_add_f32(ja, "height", agent.height);
    cli_json_add_f32(ja, "step", agent.step);
    cli_json_add_f32(ja, "slope", agent.slope);
    cJSON_AddNumberToObject(j, "polygons", ps.polys);
    cJSON_AddNumberToObject(j, "vertices", ps.verts);
    cJSON_AddNumberToObject(j, "walkable_area", round(ps.area_total));
    cJSON *areas = cJSON_AddArrayToObject(j, "areas");
    for (int i = 0; i < 64; i++)
        if (ps.areas[i]) {
            cJSON *e = cJSON_CreateObject();
            cJSON_AddNumberToObject(e, "id", i);
            cJSON_AddStringToObject(e, "kind", i == 63 ? "walkable" : "other");
            cJSON_AddNumberToObject(e, "polygons", ps.areas[i]);
            cJSON_AddItemToArray(areas, e);
        }
    cJSON_AddArrayToObject(j, "links");   /* off-mesh links (jumps, drops, teleporters): none yet */
    cJSON *jt = cJSON_AddObjectToObject(j, "tiles");
    cJSON_AddNumberToObject(jt, "built", st.tiles);
    cJSON_AddNumberToObject(jt, "grid_x", st.tiles_x);
    cJSON_AddNumberToObject(jt, "grid_y", st.tiles_y);
    cli_json_add_f32(jt, "cell_size", st.cell_size);
    cli_json_add_f32(jt, "cell_height", st.cell_height);
    cJSON *ji = cJSON_AddObjectToObject(j, "input_geometry");
    cJSON_AddNumberToObject(ji, "solids", st.input_solids);
    cJSON_AddNumberToObject(ji, "triangles", st.input_triangles);
    cJSON_AddNumberToObject(ji, "walkable_triangles", st.walkable_triangles);
    cJSON_AddItemToObject(ji, "mins", vec3(st.mins));
    cJSON_AddItemToObject(ji, "maxs", vec3(st.maxs));
    cJSON *jb = cJSON_AddObjectToObject(j, "mesh_bounds");
    cJSON_AddItemToObject(jb, "mins", vec3(ps.mins));
    cJSON_AddItemToObject(jb, "maxs", vec3(ps.maxs));
    cJSON_AddItemToObject(j, "seeds", seeds_json(f, m, &agent));
    char *json = cJSON_Print(j);
    if (!json) r = BK_ENOMEM;

    bk_write_group *g = NULL;
    if (r == BK_OK) r = bk_write_group_begin(&g, 0);
    if (r == BK_OK) {
        size_t jl = strlen(json);
        json[jl] = '\n';   /* cJSON_Print's terminator becomes the last line's end */
        r = bk_write_group_file(g, pobj, ps.obj.p, ps.obj.n);
        if (r == BK_OK) r = bk_write_group_file(g, pbin, bin, bin_size);
        if (r == BK_OK) r = bk_write_group_file(g, pjson, json, jl + 1);
        json[jl] = 0;
        if (r == BK_OK) r = bk_write_group_commit(g);
        else bk_write_group_abort(g);
    }
    char why[1600];
    if (r != BK_OK && !cli_write_failed(base, r, why, sizeof why))
        snprintf(why, sizeof why, "%s: cannot write %s.{obj,bin,json}: %s", o.positional[0], base, bk_strerror(r));
    if (r != BK_OK) fprintf(stderr, "%s\n", why);
    else if (o.json) cli_print_json(j);
    else if (!o.quiet)
        printf("wrote %s.{obj,bin,json}: %u polygons in %u tiles, %.0f square units walkable; %u of %u spawns on the mesh\n",
               base, ps.polys, st.tiles, ps.area_total,
               (unsigned)cJSON_GetObjectItem(cJSON_GetObjectItem(j, "seeds"), "spawns_on_mesh")->valuedouble,
               (unsigned)cJSON_GetObjectItem(cJSON_GetObjectItem(j, "seeds"), "spawns")->valuedouble);
    free(json);
    cJSON_Delete(j);
    free(ps.obj.p);
    bk_free(bin);
    bk_navmesh_free(m);
    bk_file_free(f);
    bk_free(owned);
    return r == BK_OK ? EXIT_OK : EXIT_BAD_INPUT;
}

int cmd_path(int argc, char **argv)
{
    const cli_cmd *me = cli_find("path");
    nav_run nr;
    int rc = nav_begin(me, argc, argv, true, &nr);
    if (rc >= 0) return rc;
    const nav_args na = nr.na;
    cli_opts o = nr.o;
    bk_file *f = nr.f;
    void *owned = nr.owned;
    bk_navmesh *m = nr.m;
    bk_nav_agent agent = nr.agent;
    float *pts = NULL, len = 0;
    uint32_t n = 0;
    bool reached = false;
    bk_result r = bk_navmesh_path(m, na.from, na.to, &pts, &n, &len, &reached);
    float dx = na.to[0] - na.from[0], dy = na.to[1] - na.from[1], dz = na.to[2] - na.from[2];
    float straight = sqrtf(dx * dx + dy * dy + dz * dz);
    if (o.json) {
        cJSON *j = cJSON_CreateObject();
        cJSON_AddStringToObject(j, "input", o.positional[0]);
        cJSON_AddItemToObject(j, "from", vec3(na.from));
        cJSON_AddItemToObject(j, "to", vec3(na.to));
        cJSON_AddBoolToObject(j, "found", r == BK_OK);
        cJSON_AddBoolToObject(j, "on_mesh", r == BK_OK || n > 0);
        cli_json_add_f32(j, "length", len);
        cli_json_add_f32(j, "straight_line", straight);
        cJSON *jp = cJSON_AddArrayToObject(j, "points");
        for (uint32_t i = 0; i < n; i++) cJSON_AddItemToArray(jp, vec3(&pts[i * 3]));
        cli_print_json(j);
        cJSON_Delete(j);
    } else if (r == BK_OK) {
        printf("path: %u points, length %.1f (straight line %.1f)\n", n, (double)len, (double)straight);
        for (uint32_t i = 0; i < n; i++)
            printf("%.1f %.1f %.1f\n", (double)pts[i * 3], (double)pts[i * 3 + 1], (double)pts[i * 3 + 2]);
    }
    if (r != BK_OK) {
        if (n) fprintf(stderr, "%s: error: no path: the end cannot be reached from the start (the mesh leads %.1f units "
                               "towards it)\n", o.positional[0], (double)len);
        else fprintf(stderr, "%s: error: no path: %s is not on the navmesh (none within %g units across, %g up or down)\n",
                     o.positional[0], "the start or the end", (double)(2 * agent.radius), (double)agent.height);
    }
    bk_free(pts);
    bk_navmesh_free(m);
    bk_file_free(f);
    bk_free(owned);
    return r == BK_OK ? EXIT_OK : EXIT_BAD_INPUT;
}
