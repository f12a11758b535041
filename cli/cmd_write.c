/* The commands that write maps back: convert MAP -o OUT.bsp (rewrite), entities --import,
 * pak add / remove. All go through bspkit/write.h: validated before a temporary file is renamed
 * over the target. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

#include "bspkit/write.h"
#include "cli.h"

static int save(const char *in, bk_edit *e, const char *out, const char *what)
{
    bk_result r = bk_edit_save(e, out);
    if (r != BK_OK) {
        fprintf(stderr, "%s: error: %s not written: %s\n", in, out, bk_strerror(r));
        return EXIT_BAD_INPUT;
    }
    printf("wrote %s (%s)\n", out, what);
    return EXIT_OK;
}

static bk_edit *begin(const char *in, bk_file *f, cli_opts *o)
{
    bk_edit *e = NULL;
    o->opt.name = in;
    bk_result r = bk_edit_begin(f, &o->opt, &e);
    if (r != BK_OK) {
        fprintf(stderr, "%s: error: cannot write %s files back%s\n", in, bk_format_name(bk_file_format(f)),
                r == BK_EUNSUPPORTED ? " (maps of GoldSrc, Quake 1, BSP2, Quake 3 and Source only)" : "");
        return NULL;
    }
    return e;
}

/* An edit writes a map: a name that says otherwise (OUT.glb) is refused unless --force, or a
 * user who meant to convert gets a BSP named .glb that no viewer opens. */
static int check_map_output(const char *cmd, const cli_opts *o)
{
    const char *out = o->output, *dot = strrchr(out, '.'), *slash = strrchr(out, '/');
    if (o->force || (dot && (!slash || dot > slash) && strcasecmp(dot, ".bsp") == 0)) return EXIT_OK;
    fprintf(stderr,
            "bspkit %s: %s: the output is a map (BSP), not what that name says; name it .bsp, or give --force "
            "(bspkit convert makes .glb / .gltf / .obj)\n",
            cmd, out);
    return EXIT_USAGE;
}

int cli_rewrite(cli_opts *o, bk_file *f)
{
    bk_edit *e = begin(o->positional[0], f, o);
    if (!e) return EXIT_BAD_INPUT;
    int rc = save(o->positional[0], e, o->output, "rewritten, no change");
    bk_edit_free(e);
    return rc;
}

/* ---- entities --import ------------------------------------------------------------------------ */

/* entities handed to the library are freed by it (bk_entities_free): allocated with bk_malloc */
static char *cli_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = bk_malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

static bk_result from_json(const char *text, bk_entities *out, char *err, size_t cap)
{
    memset(out, 0, sizeof *out);
    cJSON *root = cJSON_Parse(text);
    if (!root || !cJSON_IsArray(root)) {
        snprintf(err, cap, "not a JSON array of objects");
        cJSON_Delete(root);
        return BK_EFORMAT;
    }
    int n = cJSON_GetArraySize(root);
    out->items = bk_malloc((n > 0 ? (size_t)n : 1) * sizeof *out->items);
    if (!out->items) {
        cJSON_Delete(root);
        return BK_ENOMEM;
    }
    memset(out->items, 0, (n > 0 ? (size_t)n : 1) * sizeof *out->items);
    int i = 0;
    bk_result r = BK_OK;
    for (cJSON *o = root->child; o && r == BK_OK; o = o->next, i++) {
        if (!cJSON_IsObject(o)) {
            snprintf(err, cap, "element %d is not an object", i);
            r = BK_EFORMAT;
            break;
        }
        bk_entity *en = &out->items[out->count++];
        uint32_t np = 0;
        for (cJSON *kv = o->child; kv; kv = kv->next) np++;
        en->pairs = bk_malloc((np ? np : 1) * sizeof *en->pairs);
        if (!en->pairs) {
            r = BK_ENOMEM;
            break;
        }
        memset(en->pairs, 0, (np ? np : 1) * sizeof *en->pairs);
        for (cJSON *kv = o->child; kv; kv = kv->next) {
            char num[64];
            const char *v = NULL;
            if (cJSON_IsString(kv)) v = kv->valuestring;
            else if (cJSON_IsNumber(kv)) {
                snprintf(num, sizeof num, "%.17g", kv->valuedouble);
                v = num;
            } else {
                snprintf(err, cap, "entity %d key \"%.40s\": values must be strings", i, kv->string ? kv->string : "");
                r = BK_EFORMAT;
                break;
            }
            bk_kv *p = &en->pairs[en->pair_count++];
            p->key = cli_strdup(kv->string ? kv->string : "");
            p->value = cli_strdup(v);
            if (!p->key || !p->value) {
                r = BK_ENOMEM;
                break;
            }
        }
    }
    cJSON_Delete(root);
    return r;
}

int cli_entities_import(cli_opts *o, bk_file *f, const char *ents_path)
{
    const char *in = o->positional[0];
    if (!o->output) {
        fprintf(stderr, "bspkit entities: --import needs -o OUT.bsp\n");
        return EXIT_USAGE;
    }
    if (check_map_output("entities", o) != EXIT_OK) return EXIT_USAGE;
    FILE *fp = strcmp(ents_path, "-") == 0 ? stdin : fopen(ents_path, "rb");
    if (!fp) {
        fprintf(stderr, "%s: error: cannot open\n", ents_path);
        return EXIT_BAD_INPUT;
    }
    /* bounded read: 64 MiB is far past any engine's entity text; bk_edit refuses past 16 MiB */
    size_t cap = 1 << 16, n = 0, limit = (size_t)64 << 20;
    char *text = malloc(cap + 1);
    for (size_t got; text && (got = fread(text + n, 1, cap - n, fp)) > 0;) {
        n += got;
        if (n == cap) {
            if (cap >= limit) {
                free(text);
                text = NULL;
                fprintf(stderr, "%s: error: entity text over 64 MiB refused\n", ents_path);
                break;
            }
            char *t = realloc(text, cap * 2 + 1);
            if (!t) {
                free(text);
                text = NULL;
                break;
            }
            text = t;
            cap *= 2;
        }
    }
    if (fp != stdin) fclose(fp);
    if (!text) return EXIT_BAD_INPUT;
    text[n] = 0;
    bk_entities ents;
    char err[256] = "";
    bk_result r;
    const char *p = text;
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n') p++;
    if (*p == '[') {
        r = from_json(text, &ents, err, sizeof err);
    } else {
        uint64_t at = 0;
        r = bk_entities_parse(text, n, &ents, &at);
        if (r != BK_OK) snprintf(err, sizeof err, "entity text does not parse at byte %llu", (unsigned long long)at);
    }
    free(text);
    if (r != BK_OK) {
        fprintf(stderr, "%s: error: %s (%s)\n", ents_path, err[0] ? err : "cannot read", bk_strerror(r));
        bk_entities_free(&ents);
        return EXIT_BAD_INPUT;
    }
    /* the import is UTF-8 (JSON) or the map's own 8-bit text: make it UTF-8; bk_edit writes it back
     * in the map's encoding */
    for (uint32_t i = 0; i < ents.count; i++)
        for (uint32_t k = 0; k < ents.items[i].pair_count; k++) {
            bk_kv *kv = &ents.items[i].pairs[k];
            char *a = bk_utf8_from_8bit(kv->key), *b = bk_utf8_from_8bit(kv->value);
            if (a) bk_free(kv->key), kv->key = a;
            if (b) bk_free(kv->value), kv->value = b;
        }
    bk_edit *e = begin(in, f, o);
    int rc = EXIT_BAD_INPUT;
    if (e) {
        r = bk_edit_set_entities(e, &ents);
        if (r != BK_OK) fprintf(stderr, "%s: error: entities not accepted: %s\n", ents_path, bk_strerror(r));
        else {
            char what[64];
            snprintf(what, sizeof what, "%u entities imported", ents.count);
            rc = save(in, e, o->output, what);
        }
        bk_edit_free(e);
    }
    bk_entities_free(&ents);
    return rc;
}

/* ---- pak add / remove ---------------------------------------------------------------------------- */

int cli_pak_edit(cli_opts *o, bk_file *f, bool add)
{
    const char *in = o->positional[0];
    if (!o->output) {
        fprintf(stderr, "bspkit pak: %s needs -o OUT.bsp\n", add ? "add" : "remove");
        return EXIT_USAGE;
    }
    if (check_map_output("pak", o) != EXIT_OK) return EXIT_USAGE;
    if (o->positional_count < 3) {
        fprintf(stderr, "bspkit pak: %s needs %s\n", add ? "add" : "remove", add ? "PATH_IN_PAK=FILE..." : "GLOB...");
        return EXIT_USAGE;
    }
    bk_edit *e = begin(in, f, o);
    if (!e) return EXIT_BAD_INPUT;
    int rc = EXIT_OK;
    uint32_t total = 0;
    for (int i = 2; i < o->positional_count && rc == EXIT_OK; i++) {
        const char *arg = o->positional[i];
        bk_result r;
        if (add) {
            const char *eq = strchr(arg, '=');
            if (!eq || eq == arg || !eq[1]) {
                fprintf(stderr, "bspkit pak add: '%s' is not PATH_IN_PAK=FILE\n", arg);
                rc = EXIT_USAGE;
                break;
            }
            char name[1100];
            size_t nl = (size_t)(eq - arg);
            if (nl >= sizeof name) nl = sizeof name - 1;
            memcpy(name, arg, nl);
            name[nl] = 0;
            FILE *fp = fopen(eq + 1, "rb");
            uint8_t *data = NULL;
            size_t n = 0;
            if (fp) {
                fseek(fp, 0, SEEK_END);
                long sz = ftell(fp);
                fseek(fp, 0, SEEK_SET);
                if (sz >= 0 && sz < (1L << 30) && (data = malloc((size_t)sz + 1)))
                    n = fread(data, 1, (size_t)sz, fp);
                fclose(fp);
            }
            if (!data) {
                fprintf(stderr, "%s: error: cannot read\n", eq + 1);
                rc = EXIT_BAD_INPUT;
                break;
            }
            r = bk_edit_pak_add(e, name, data, n);
            free(data);
            total++;
        } else {
            uint32_t removed = 0;
            r = bk_edit_pak_remove(e, arg, &removed);
            if (r == BK_OK && removed == 0) fprintf(stderr, "%s: note: '%s' matches no entry\n", in, arg);
            total += removed;
        }
        if (r != BK_OK) {
            fprintf(stderr, "%s: error: %s '%s': %s\n", in, add ? "cannot add" : "cannot remove", arg,
                    r == BK_EUNSUPPORTED ? "only Source maps have a pakfile" : bk_strerror(r));
            rc = EXIT_BAD_INPUT;
        }
    }
    if (rc == EXIT_OK) {
        char what[64];
        snprintf(what, sizeof what, "%u pakfile entries %s", total, add ? "added" : "removed");
        rc = save(in, e, o->output, what);
    }
    bk_edit_free(e);
    return rc;
}
