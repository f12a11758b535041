/* Quake 3 shader scripts (scripts/NAME.shader) and texture lookup.
 *
 * A script is a list of   NAME { shader-keywords... { stage-keywords... } ... }   blocks. Tokens
 * are whitespace-separated, quoted strings allowed, // and C comments skipped; a keyword's
 * arguments run to the end of its line. From each block we keep what a glTF material can use:
 * the base image (the first stage's map / clampMap / animMap that is not $lightmap, $whiteimage or
 * an environment map), whether the shader is sky, nodraw, two-sided, alpha-tested, blended or
 * additive, and whether any stage multiplies in the lightmap. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

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

/* Up to max numbers from the rest of the line, parentheses ignored ("( 0.5 0.5 1 )"). */
static int line_numbers(tok_state *t, float *out, int max)
{
    char arg[64];
    int n = 0;
    while (line_arg(t, arg, sizeof arg)) {
        char *p = arg;
        while (*p == '(') p++;
        if (!*p || *p == ')') continue;
        float v;
        if (bk_parse_floats(p, &v, 1) != 1) {
            /* a number the float range cannot hold counts as 0, as before; a word is skipped */
            const char *end;
            bk_strtod(p, &end);
            if (end == p) continue;
            v = 0.0f;
        }
        if (n < max) out[n] = v;
        n++;
    }
    return n;
}

static int blend_factor(const char *s, bool *ok)
{
    static const char *const names[] = {"gl_zero", "gl_one", "gl_dst_color", "gl_one_minus_dst_color",
                                        "gl_src_alpha", "gl_one_minus_src_alpha", "gl_dst_alpha",
                                        "gl_one_minus_dst_alpha", "gl_src_color", "gl_one_minus_src_color",
                                        "gl_src_alpha_saturate"};
    for (int i = 0; i < (int)BK_ARRAY_LEN(names); i++)
        if (bk_strcasecmp(s, names[i]) == 0) return i;
    *ok = false;
    return 0;
}

/* The mean of "wave FUNC BASE AMP PHASE FREQ" over time: what a still picture shows on average. */
static float wave_mean(const char *func, const float *v, int n)
{
    float base = n > 0 ? v[0] : 0, amp = n > 1 ? v[1] : 0;
    if (bk_strcasecmp(func, "sawtooth") == 0 || bk_strcasecmp(func, "inversesawtooth") == 0) return base + amp * 0.5f;
    return base;
}

static float clamp01(float v) { return v < 0 ? 0 : (v > 1 ? 1 : v); }

/* One keyword inside a stage block. */
static void parse_stage_keyword(tok_state *t, const char *tok, q3_stage *st, q3_shader_def *d, char *img,
                                size_t img_cap)
{
    char arg[256], b2[64];
    float v[8];
    if ((bk_strcasecmp(tok, "map") == 0 || bk_strcasecmp(tok, "clampmap") == 0) && line_arg(t, arg, sizeof arg)) {
        if (bk_strcasecmp(tok, "clampmap") == 0) st->clamp = 1;
        if (bk_strcasecmp(arg, "$lightmap") == 0) {
            st->src = Q3_SRC_LIGHTMAP;
            d->lightmap_stage = 1;
            d->lighting = 1;
        } else if (is_special_image(arg)) {
            st->src = Q3_SRC_WHITE;
        } else if (!img[0]) {
            st->src = Q3_SRC_IMAGE;
            snprintf(img, img_cap, "%s", arg);
        }
    } else if (bk_strcasecmp(tok, "animmap") == 0 && line_arg(t, arg, sizeof arg) && line_arg(t, arg, sizeof arg)) {
        if (!is_special_image(arg) && !img[0]) {
            st->src = Q3_SRC_IMAGE;
            snprintf(img, img_cap, "%s", arg);
        }
    } else if (bk_strcasecmp(tok, "tcgen") == 0 && line_arg(t, arg, sizeof arg)) {
        if (bk_strcasecmp(arg, "environment") == 0) st->tcgen = Q3_TC_ENVIRONMENT;
        else if (bk_strcasecmp(arg, "lightmap") == 0) st->tcgen = Q3_TC_LIGHTMAP;
        else if (bk_strcasecmp(arg, "vector") == 0) st->tcgen = Q3_TC_VECTOR;
    } else if (bk_strcasecmp(tok, "tcmod") == 0 && line_arg(t, arg, sizeof arg)) {
        if (bk_strcasecmp(arg, "scale") == 0) {
            if (line_numbers(t, v, 2) >= 2) {
                st->tc_scale[0] *= v[0];
                st->tc_scale[1] *= v[1];
            }
        } else if (bk_strcasecmp(arg, "rotate") == 0 || bk_strcasecmp(arg, "stretch") == 0 ||
                   bk_strcasecmp(arg, "transform") == 0) {
            st->uv_moving = 1;
        }
    } else if (bk_strcasecmp(tok, "blendfunc") == 0 && line_arg(t, arg, sizeof arg)) {
        st->blended = 1;
        if (bk_strcasecmp(arg, "add") == 0) {
            st->bsrc = Q3_BF_ONE, st->bdst = Q3_BF_ONE;
        } else if (bk_strcasecmp(arg, "filter") == 0) {
            st->bsrc = Q3_BF_DST_COLOR, st->bdst = Q3_BF_ZERO;
        } else if (bk_strcasecmp(arg, "blend") == 0) {
            st->bsrc = Q3_BF_SRC_ALPHA, st->bdst = Q3_BF_ONE_MINUS_SRC_ALPHA;
        } else {
            bool ok = true;
            int a = blend_factor(arg, &ok);
            int b = line_arg(t, b2, sizeof b2) ? blend_factor(b2, &ok) : 0;
            if (ok) st->bsrc = (uint8_t)a, st->bdst = (uint8_t)b;
            else st->blended = 0, st->bsrc = Q3_BF_ONE, st->bdst = Q3_BF_ZERO;
        }
        if (st->bsrc == Q3_BF_ONE && st->bdst == Q3_BF_ZERO) st->blended = 0;
    } else if (bk_strcasecmp(tok, "rgbgen") == 0 && line_arg(t, arg, sizeof arg)) {
        st->rgbgen = Q3_GEN_CONST;
        st->rgb[0] = st->rgb[1] = st->rgb[2] = 1.0f;
        if (bk_strcasecmp(arg, "const") == 0 || bk_strcasecmp(arg, "constant") == 0) {
            if (line_numbers(t, v, 3) >= 3)
                for (int k = 0; k < 3; k++) st->rgb[k] = clamp01(v[k]);
        } else if (bk_strcasecmp(arg, "wave") == 0 && line_arg(t, b2, sizeof b2)) {
            int n = line_numbers(t, v, 4);
            st->rgb[0] = st->rgb[1] = st->rgb[2] = clamp01(wave_mean(b2, v, n));
        } else if (bk_strcasecmp(arg, "vertex") == 0 || bk_strcasecmp(arg, "exactvertex") == 0 ||
                   bk_strcasecmp(arg, "lightingdiffuse") == 0) {
            st->rgbgen = Q3_GEN_VERTEX;
            d->lighting = 1;
        } else if (bk_strcasecmp(arg, "oneminusvertex") == 0) {
            st->rgbgen = Q3_GEN_ONE_MINUS_VERTEX;
        } else if (bk_strcasecmp(arg, "oneminusentity") == 0) {
            st->rgb[0] = st->rgb[1] = st->rgb[2] = 0.0f;
        }
        /* identity, identityLighting (1 windowed), entity (1 for the world) */
    } else if (bk_strcasecmp(tok, "alphagen") == 0 && line_arg(t, arg, sizeof arg)) {
        st->alphagen = Q3_GEN_CONST;
        st->alpha = 1.0f;
        if (bk_strcasecmp(arg, "const") == 0 || bk_strcasecmp(arg, "constant") == 0) {
            if (line_numbers(t, v, 1) >= 1) st->alpha = clamp01(v[0]);
        } else if (bk_strcasecmp(arg, "wave") == 0 && line_arg(t, b2, sizeof b2)) {
            int n = line_numbers(t, v, 4);
            st->alpha = clamp01(wave_mean(b2, v, n));
        } else if (bk_strcasecmp(arg, "vertex") == 0) {
            st->alphagen = Q3_GEN_VERTEX;
        } else if (bk_strcasecmp(arg, "oneminusvertex") == 0) {
            st->alphagen = Q3_GEN_ONE_MINUS_VERTEX;
        } else if (bk_strcasecmp(arg, "lightingspecular") == 0) {
            /* a highlight off a fixed light: the mean of max(0, cos)^4 over directions */
            st->alpha = 0.1f;
        }
    } else if (bk_strcasecmp(tok, "alphafunc") == 0) {
        st->alpha_func = Q3_AF_GE128;
        if (line_arg(t, arg, sizeof arg)) {
            if (bk_strcasecmp(arg, "gt0") == 0) st->alpha_func = Q3_AF_GT0;
            else if (bk_strcasecmp(arg, "lt128") == 0) st->alpha_func = Q3_AF_LT128;
        }
    } else if (bk_strcasecmp(tok, "detail") == 0) {
        st->detail = 1;
    }
}

static void stage_init(q3_stage *st)
{
    memset(st, 0, sizeof *st);
    st->src = Q3_SRC_WHITE;
    st->bsrc = Q3_BF_ONE;
    st->bdst = Q3_BF_ZERO;
    st->rgb[0] = st->rgb[1] = st->rgb[2] = 1.0f;
    st->alpha = 1.0f;
    st->tc_scale[0] = st->tc_scale[1] = 1.0f;
}

static void def_free(q3_shader_def *d)
{
    bk_free(d->name);
    bk_free(d->image);
    bk_free(d->farbox);
    bk_free(d->nearbox);
    for (uint32_t i = 0; i < d->stage_count; i++) bk_free(d->stage[i].image);
    bk_free(d->stage);
}

/* one shader block as it is read: the definition, its stages and the names found so far */
typedef struct shader_block {
    q3_shader_def d;
    q3_stage stages[Q3_MAX_STAGES], st;
    char stage_names[Q3_MAX_STAGES][256];
    uint32_t nst;
    char editor[256], stage_img[256], first_img[256], farbox[256], sky_far[256], sky_near[256];
    bool have_first;
    int stage;
} shader_block;

/* the end of a stage: the base image is the first textured stage that is not an environment map
 * (tcGen environment reflects the view, it is not the surface's texture) */
static void stage_end(shader_block *b)
{
    const q3_stage *st = &b->st;
    bool env = st->tcgen == Q3_TC_ENVIRONMENT;
    bool add = st->blended && st->bdst == Q3_BF_ONE && (st->bsrc == Q3_BF_ONE || st->bsrc == Q3_BF_SRC_ALPHA);
    if (!b->have_first && b->stage_img[0] && !env) {
        snprintf(b->first_img, sizeof b->first_img, "%s", b->stage_img);
        b->have_first = true;
        b->d.blend = st->blended && st->bsrc == Q3_BF_SRC_ALPHA && st->bdst == Q3_BF_ONE_MINUS_SRC_ALPHA;
        b->d.alpha_test = st->alpha_func != Q3_AF_NONE;
        b->d.additive = add;
    }
    if (b->nst < Q3_MAX_STAGES) {
        snprintf(b->stage_names[b->nst], sizeof b->stage_names[b->nst], "%s", b->stage_img);
        b->stages[b->nst++] = *st;
    }
}

/* skyparms FARBOX CLOUDHEIGHT NEARBOX ('-': none) */
static void sky_parms(tok_state *t, shader_block *b)
{
    char arg[256];
    b->d.sky = 1;
    b->d.has_skyparms = 1;
    if (!line_arg(t, arg, sizeof arg)) return;
    if (strcmp(arg, "-") != 0) {
        snprintf(b->sky_far, sizeof b->sky_far, "%s", arg);
        /* the far box's front face stands in for a sky without an image stage */
        if (!b->farbox[0]) snprintf(b->farbox, sizeof b->farbox, "%.240s_ft", arg);
    }
    if (!line_arg(t, arg, sizeof arg)) return;
    float h = 0.0f;
    bk_parse_floats(arg, &h, 1);
    b->d.cloud_height = h;
    if (line_arg(t, arg, sizeof arg) && strcmp(arg, "-") != 0) snprintf(b->sky_near, sizeof b->sky_near, "%s", arg);
}

/* a keyword of the shader itself (outside its stages) */
static void shader_keyword(tok_state *t, const char *tok, shader_block *b)
{
    char arg[256];
    q3_shader_def *d = &b->d;
    if (bk_strcasecmp(tok, "surfaceparm") == 0 && line_arg(t, arg, sizeof arg)) {
        if (bk_strcasecmp(arg, "sky") == 0) d->sky = 1;
        else if (bk_strcasecmp(arg, "nodraw") == 0) d->nodraw = 1;
    } else if (bk_strcasecmp(tok, "cull") == 0 && line_arg(t, arg, sizeof arg)) {
        if (bk_strcasecmp(arg, "none") == 0 || bk_strcasecmp(arg, "disable") == 0 || bk_strcasecmp(arg, "twosided") == 0)
            d->two_sided = 1;
    } else if (bk_strcasecmp(tok, "qer_editorimage") == 0 && line_arg(t, arg, sizeof arg)) {
        snprintf(b->editor, sizeof b->editor, "%s", arg);
    } else if (bk_strcasecmp(tok, "skyparms") == 0) {
        sky_parms(t, b);
    } else if (bk_strcasecmp(tok, "fogparms") == 0) {
        float v[4] = {0, 0, 0, 0};
        if (line_numbers(t, v, 4) >= 4) {
            d->has_fogparms = 1;
            for (int k = 0; k < 3; k++) d->fog_color[k] = clamp01(v[k]);
            d->fog_distance = v[3];
        }
    } else if (bk_strcasecmp(tok, "polygonoffset") == 0) {
        d->polygon_offset = 1;
    }
}

/* the block read: its definition added to lib under name */
static bk_result block_finish(q3_shader_lib *lib, shader_block *b, const char *name)
{
    q3_shader_def *d = &b->d;
    if (!b->have_first && b->farbox[0]) snprintf(b->first_img, sizeof b->first_img, "%s", b->farbox);
    else if (!b->have_first && b->editor[0]) snprintf(b->first_img, sizeof b->first_img, "%s", b->editor);
    if (d->sky) d->unlit = 1;
    d->stages = (uint32_t)b->stage;
    d->name = bk_strdup(name);
    d->image = b->first_img[0] ? bk_strdup(b->first_img) : NULL;
    d->farbox = b->sky_far[0] ? bk_strdup(b->sky_far) : NULL;
    d->nearbox = b->sky_near[0] ? bk_strdup(b->sky_near) : NULL;
    bool bad = !d->name || (b->first_img[0] && !d->image) || (b->sky_far[0] && !d->farbox) ||
               (b->sky_near[0] && !d->nearbox);
    if (!bad && b->nst) {
        d->stage = bk_calloc(b->nst, sizeof *d->stage);
        bad = !d->stage;
        for (uint32_t i = 0; i < b->nst && !bad; i++) {
            d->stage[i] = b->stages[i];
            d->stage[i].image = NULL;
            if (b->stage_names[i][0]) {
                d->stage[i].image = bk_strdup(b->stage_names[i]);
                bad = !d->stage[i].image;
            }
            d->stage_count = i + 1;
        }
    }
    if (bad || bk_grow((void **)&lib->defs, &lib->cap, lib->count + 1, sizeof(q3_shader_def)) != BK_OK) {
        def_free(d);
        return BK_ENOMEM;
    }
    lib->defs[lib->count++] = *d;
    return BK_OK;
}

bk_result bk_q3_shaders_parse(q3_shader_lib *lib, const char *text, size_t len)
{
    tok_state t = {text, text + len, false};
    char tok[256];
    bool have = false;   /* tok already holds the next name candidate */
    shader_block *b = bk_malloc(sizeof *b);   /* 10 KB of stage names: not on the stack */
    if (!b) return BK_ENOMEM;
    bk_result r = BK_OK;
    while (r == BK_OK && (have || next_token(&t, tok, sizeof tok))) {
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
        /* a fresh block (the stage arrays are filled as stages end: not cleared) */
        memset(&b->d, 0, sizeof b->d);
        b->nst = 0;
        b->stage = 0;
        b->have_first = false;
        b->editor[0] = b->stage_img[0] = b->first_img[0] = b->farbox[0] = b->sky_far[0] = b->sky_near[0] = 0;
        int depth = 1;
        stage_init(&b->st);
        while (depth > 0 && next_token(&t, tok, sizeof tok)) {
            if (strcmp(tok, "{") == 0) {
                if (++depth == 2) {
                    b->stage++;
                    b->stage_img[0] = 0;
                    stage_init(&b->st);
                }
                continue;
            }
            if (strcmp(tok, "}") == 0) {
                if (depth-- == 2) stage_end(b);
                continue;
            }
            if (depth == 1) shader_keyword(&t, tok, b);
            else if (depth == 2) parse_stage_keyword(&t, tok, &b->st, &b->d, b->stage_img, sizeof b->stage_img);
            skip_line(&t);
        }
        r = block_finish(lib, b, name);
    }
    bk_free(b);
    return r;
}

typedef struct list_ctx {
    bk_vfs *v;
    q3_shader_lib *lib;
    bk_strset seen;
    bk_result err;
} list_ctx;

static bool on_script(void *user, const char *rel)
{
    list_ctx *c = user;
    /* the same script in two roots: the first root wins (it is the one bk_vfs_read returns) */
    if (c->seen.count > 100000) return false;
    bool added;
    bk_result r = bk_strset_add(&c->seen, rel, &added);
    if (r != BK_OK) c->err = r;
    return r == BK_OK;
}

static int cmp_name(const void *a, const void *b) { return bk_strcasecmp(*(char *const *)a, *(char *const *)b); }

bk_result bk_q3_shaders_load(bk_vfs *v, q3_shader_lib *lib)
{
    list_ctx c = {v, lib, {0}, BK_OK};
    bk_vfs_list(v, "scripts", ".shader", on_script, &c);
    /* the engines read the scripts in name order (and then differ on which of two definitions
     * of a name wins: see bk_q3_shaders_find); the set's table is not used after this */
    char **names = c.seen.items;
    uint32_t count = c.seen.count;
    if (count) qsort(names, count, sizeof *names, cmp_name);
    for (uint32_t i = 0; i < count && c.err == BK_OK; i++) {
        uint8_t *buf;
        size_t n;
        if (bk_vfs_read(v, names[i], 16u << 20, &buf, &n) != BK_OK) continue;
        uint32_t first = lib->count;
        bk_result r = bk_q3_shaders_parse(lib, (const char *)buf, n);
        bk_free(buf);
        for (uint32_t k = first; k < lib->count; k++) lib->defs[k].file = lib->files;
        lib->files++;
        if (r != BK_OK) c.err = r;
    }
    bk_strset_free(&c.seen);
    return c.err;
}

const q3_shader_def *bk_q3_shaders_find(const q3_shader_lib *lib, const char *name)
{
    /* within a script the first definition wins; across scripts DarkPlaces keeps the first
     * script's, ioquake3 the last script's (it reads them into one text in reverse order) */
    const q3_shader_def *best = NULL;
    for (uint32_t i = 0; i < lib->count; i++)
        if (bk_strcasecmp(lib->defs[i].name, name) == 0) {
            if (!best) best = &lib->defs[i];
            else if (lib->last_file_wins && lib->defs[i].file > best->file) best = &lib->defs[i];
            if (!lib->last_file_wins) break;
        }
    return best;
}

void bk_q3_shaders_free(q3_shader_lib *lib)
{
    for (uint32_t i = 0; i < lib->count; i++) def_free(&lib->defs[i]);
    bk_free(lib->defs);
    memset(lib, 0, sizeof *lib);
}

bk_result bk_q3_load_image(bk_vfs *v, const char *name, uint32_t max_dim, uint8_t **rgba, uint32_t *w, uint32_t *h,
                           uint8_t **file, size_t *file_size)
{
    *rgba = NULL;
    if (file) *file = NULL, *file_size = 0;
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
        if (r == BK_OK && file) {
            *file = buf, *file_size = sz;
            return BK_OK;
        }
        bk_free(buf);
        if (r == BK_OK) return BK_OK;
    }
    return BK_ENOTFOUND;
}

