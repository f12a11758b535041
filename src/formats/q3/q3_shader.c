/* Quake 3 shader scripts (scripts/NAME.shader) and texture lookup.
 *
 * A script is a list of   NAME { shader-keywords... { stage-keywords... } ... }   blocks. Tokens
 * are whitespace-separated, quoted strings allowed, // and C comments skipped; a keyword's
 * arguments run to the end of its line. From each block we keep what a glTF material can use:
 * the base image (the first stage's map / clampMap / animMap that is not $lightmap, $whiteimage or
 * an environment map), whether the shader is sky, nodraw, two-sided, alpha-tested, blended or
 * additive, and whether any stage multiplies in the lightmap. */
#include <stdio.h>

#include "q3_internal.h"

typedef struct tok_state {
    const char *p, *end;
    bool newline;             /* a line break came before the token just read */
} tok_state;

/* Next token into buf; returns false at the end of text. */
static bool next_token(tok_state *t, char *buf, size_t cap)
{
    t->newline = false;
    for (;;) {
        while (t->p < t->end && (unsigned char)*t->p <= ' ') {
            if (*t->p == '\n') t->newline = true;
            t->p++;
        }
        if (t->p + 1 < t->end && t->p[0] == '/' && t->p[1] == '/') {
            while (t->p < t->end && *t->p != '\n') t->p++;
            continue;
        }
        if (t->p + 1 < t->end && t->p[0] == '/' && t->p[1] == '*') {
            t->p += 2;
            while (t->p + 1 < t->end && !(t->p[0] == '*' && t->p[1] == '/')) {
                if (*t->p == '\n') t->newline = true;
                t->p++;
            }
            t->p = t->p + 1 < t->end ? t->p + 2 : t->end;
            continue;
        }
        break;
    }
    if (t->p >= t->end) return false;
    size_t n = 0;
    if (*t->p == '{' || *t->p == '}') {
        buf[n++] = *t->p++;
    } else if (*t->p == '"') {
        t->p++;
        while (t->p < t->end && *t->p != '"' && *t->p != '\n') {
            if (n + 1 < cap) buf[n++] = *t->p;
            t->p++;
        }
        if (t->p < t->end && *t->p == '"') t->p++;
    } else {
        while (t->p < t->end && (unsigned char)*t->p > ' ' && *t->p != '{' && *t->p != '}') {
            if (n + 1 < cap) buf[n++] = *t->p;
            t->p++;
        }
    }
    buf[n] = 0;
    return true;
}

/* Peek whether another token follows on the same line. */
static bool arg_on_line(const tok_state *t)
{
    const char *p = t->p;
    while (p < t->end && (unsigned char)*p <= ' ') {
        if (*p == '\n') return false;
        p++;
    }
    if (p + 1 < t->end && p[0] == '/' && (p[1] == '/' || p[1] == '*')) return false;
    return p < t->end && *p != '{' && *p != '}';
}

static bool line_arg(tok_state *t, char *buf, size_t cap)
{
    if (!arg_on_line(t)) {
        buf[0] = 0;
        return false;
    }
    return next_token(t, buf, cap);
}

static void skip_line(tok_state *t)
{
    char tmp[256];
    while (arg_on_line(t) && next_token(t, tmp, sizeof tmp)) {
    }
}

static bool is_special_image(const char *s)
{
    return bk_strcasecmp(s, "$lightmap") == 0 || bk_strcasecmp(s, "$whiteimage") == 0 ||
           bk_strcasecmp(s, "*white") == 0 || s[0] == '$' || s[0] == 0;
}

bk_result bk_q3_shaders_parse(q3_shader_lib *lib, const char *text, size_t len)
{
    tok_state t = {text, text + len, false};
    char tok[256], arg[256];
    bool have = false;   /* tok already holds the next name candidate */
    while (have || next_token(&t, tok, sizeof tok)) {
        have = false;
        if (strcmp(tok, "{") == 0 || strcmp(tok, "}") == 0) continue; /* stray brace: resync */
        char name[256];
        snprintf(name, sizeof name, "%s", tok);
        if (!next_token(&t, tok, sizeof tok)) break;
        if (strcmp(tok, "{") != 0) {
            /* not a block: the word before was stray, and tok is the next name candidate */
            have = true;
            continue;
        }
        q3_shader_def d;
        memset(&d, 0, sizeof d);
        char editor[256] = {0}, stage_img[256] = {0}, first_img[256] = {0}, farbox[256] = {0};
        bool have_first = false, stage_blend = false, stage_alpha = false, stage_env = false, stage_add = false;
        int depth = 1, stage = 0;
        while (depth > 0 && next_token(&t, tok, sizeof tok)) {
            if (strcmp(tok, "{") == 0) {
                depth++;
                if (depth == 2) {
                    stage++;
                    stage_img[0] = 0;
                    stage_blend = stage_alpha = stage_env = stage_add = false;
                }
                continue;
            }
            if (strcmp(tok, "}") == 0) {
                /* the base image: the first textured stage that is not an environment map
                 * (tcGen environment reflects the view, it is not the surface's texture) */
                if (depth == 2 && !have_first && stage_img[0] && !stage_env) {
                    snprintf(first_img, sizeof first_img, "%s", stage_img);
                    have_first = true;
                    d.blend = stage_blend;
                    d.alpha_test = stage_alpha;
                    d.additive = stage_add;
                }
                depth--;
                continue;
            }
            if (depth == 1) {
                if (bk_strcasecmp(tok, "surfaceparm") == 0 && line_arg(&t, arg, sizeof arg)) {
                    if (bk_strcasecmp(arg, "sky") == 0) d.sky = 1;
                    else if (bk_strcasecmp(arg, "nodraw") == 0) d.nodraw = 1;
                } else if (bk_strcasecmp(tok, "cull") == 0 && line_arg(&t, arg, sizeof arg)) {
                    if (bk_strcasecmp(arg, "none") == 0 || bk_strcasecmp(arg, "disable") == 0 ||
                        bk_strcasecmp(arg, "twosided") == 0)
                        d.two_sided = 1;
                } else if (bk_strcasecmp(tok, "qer_editorimage") == 0 && line_arg(&t, arg, sizeof arg)) {
                    snprintf(editor, sizeof editor, "%s", arg);
                } else if (bk_strcasecmp(tok, "skyparms") == 0) {
                    d.sky = 1;
                    /* the far box's front face stands in for a sky without an image stage */
                    if (line_arg(&t, arg, sizeof arg) && strcmp(arg, "-") != 0 && !farbox[0])
                        snprintf(farbox, sizeof farbox, "%.240s_ft", arg);
                }
            } else if (depth == 2) {
                if ((bk_strcasecmp(tok, "map") == 0 || bk_strcasecmp(tok, "clampmap") == 0) &&
                    line_arg(&t, arg, sizeof arg)) {
                    if (bk_strcasecmp(arg, "$lightmap") == 0) d.lightmap_stage = 1;
                    if (!is_special_image(arg) && !stage_img[0]) snprintf(stage_img, sizeof stage_img, "%s", arg);
                } else if (bk_strcasecmp(tok, "tcgen") == 0 && line_arg(&t, arg, sizeof arg)) {
                    if (bk_strcasecmp(arg, "environment") == 0) stage_env = true;
                } else if (bk_strcasecmp(tok, "animmap") == 0 && line_arg(&t, arg, sizeof arg) &&
                           line_arg(&t, arg, sizeof arg)) {
                    if (!is_special_image(arg) && !stage_img[0]) snprintf(stage_img, sizeof stage_img, "%s", arg);
                } else if (bk_strcasecmp(tok, "blendfunc") == 0 && line_arg(&t, arg, sizeof arg)) {
                    char b2[64] = {0};
                    line_arg(&t, b2, sizeof b2);
                    if (bk_strcasecmp(arg, "blend") == 0 ||
                        (bk_strcasecmp(arg, "gl_src_alpha") == 0 && bk_strcasecmp(b2, "gl_one_minus_src_alpha") == 0))
                        stage_blend = true;
                    if (bk_strcasecmp(arg, "add") == 0 ||
                        ((bk_strcasecmp(arg, "gl_one") == 0 || bk_strcasecmp(arg, "gl_src_alpha") == 0) &&
                         bk_strcasecmp(b2, "gl_one") == 0))
                        stage_add = true;
                } else if (bk_strcasecmp(tok, "alphafunc") == 0) {
                    stage_alpha = true;
                }
            }
            skip_line(&t);
        }
        if (!have_first && farbox[0]) snprintf(first_img, sizeof first_img, "%s", farbox);
        else if (!have_first && editor[0]) snprintf(first_img, sizeof first_img, "%s", editor);
        if (d.sky) d.unlit = 1;
        d.stages = (uint32_t)stage;
        d.name = bk_strdup(name);
        d.image = first_img[0] ? bk_strdup(first_img) : NULL;
        if (!d.name || (first_img[0] && !d.image) ||
            bk_grow((void **)&lib->defs, &lib->cap, lib->count + 1, sizeof(q3_shader_def)) != BK_OK) {
            free(d.name);
            free(d.image);
            return BK_ENOMEM;
        }
        lib->defs[lib->count++] = d;
    }
    return BK_OK;
}

typedef struct list_ctx {
    bk_vfs *v;
    q3_shader_lib *lib;
    char **seen;
    uint32_t seen_count, seen_cap;
    bk_result err;
} list_ctx;

static bool on_script(void *user, const char *rel)
{
    list_ctx *c = user;
    /* the same script in two roots: the first root wins (it is the one bk_vfs_read returns) */
    for (uint32_t i = 0; i < c->seen_count; i++)
        if (bk_strcasecmp(c->seen[i], rel) == 0) return true;
    if (c->seen_count > 100000) return false;
    if (bk_grow((void **)&c->seen, &c->seen_cap, c->seen_count + 1, sizeof(char *)) != BK_OK) {
        c->err = BK_ENOMEM;
        return false;
    }
    c->seen[c->seen_count] = bk_strdup(rel);
    if (!c->seen[c->seen_count]) {
        c->err = BK_ENOMEM;
        return false;
    }
    c->seen_count++;
    uint8_t *buf;
    size_t n;
    if (bk_vfs_read(c->v, rel, 16u << 20, &buf, &n) != BK_OK) return true;
    bk_result r = bk_q3_shaders_parse(c->lib, (const char *)buf, n);
    free(buf);
    c->lib->files++;
    if (r != BK_OK) {
        c->err = r;
        return false;
    }
    return true;
}

bk_result bk_q3_shaders_load(bk_vfs *v, q3_shader_lib *lib)
{
    list_ctx c = {v, lib, NULL, 0, 0, BK_OK};
    bk_vfs_list(v, "scripts", ".shader", on_script, &c);
    for (uint32_t i = 0; i < c.seen_count; i++) free(c.seen[i]);
    free(c.seen);
    return c.err;
}

const q3_shader_def *bk_q3_shaders_find(const q3_shader_lib *lib, const char *name)
{
    for (uint32_t i = 0; i < lib->count; i++)
        if (bk_strcasecmp(lib->defs[i].name, name) == 0) return &lib->defs[i];
    return NULL;
}

void bk_q3_shaders_free(q3_shader_lib *lib)
{
    for (uint32_t i = 0; i < lib->count; i++) {
        free(lib->defs[i].name);
        free(lib->defs[i].image);
    }
    free(lib->defs);
    memset(lib, 0, sizeof *lib);
}

bk_result bk_q3_load_image(bk_vfs *v, const char *name, uint32_t max_dim, uint8_t **rgba, uint32_t *w, uint32_t *h)
{
    *rgba = NULL;
    char base[256];
    size_t n = strlen(name);
    if (n == 0 || n >= sizeof base - 5) return BK_ENOTFOUND;
    memcpy(base, name, n + 1);
    char *dot = strrchr(base, '.');
    char *slash = strrchr(base, '/');
    if (dot && (!slash || dot > slash) &&
        (bk_strcasecmp(dot, ".tga") == 0 || bk_strcasecmp(dot, ".jpg") == 0 || bk_strcasecmp(dot, ".png") == 0 ||
         bk_strcasecmp(dot, ".jpeg") == 0))
        *dot = 0;
    static const char *const exts[] = {".tga", ".jpg", ".png"};
    for (size_t i = 0; i < BK_ARRAY_LEN(exts); i++) {
        char path[272];
        snprintf(path, sizeof path, "%s%s", base, exts[i]);
        uint8_t *buf;
        size_t sz;
        if (bk_vfs_read(v, path, 64u << 20, &buf, &sz) != BK_OK) continue;
        bk_result r = bk_image_decode(buf, sz, max_dim, rgba, w, h);
        free(buf);
        if (r == BK_OK) return BK_OK;
    }
    return BK_ENOTFOUND;
}
