/* gameinfo.txt: a Source game folder's description (Valve KeyValues text). Only what finding
 * assets needs is read: the entries of GameInfo > FileSystem > SearchPaths, in file order, each a
 * key of '+'-joined path IDs ("game+mod", "platform", ...) and a path ("|gameinfo_path|.",
 * "hl2/hl2_misc.vpk", "|all_source_engine_paths|hl2", wildcards such as custom followed by a
 * slash and a star). The text is untrusted: tokens, nesting and entries are bounded, and every
 * malformation is an error at its byte offset (the diagnostic's index is the line number).
 * Tokens are quoted strings (no escapes, as the engine reads gameinfo.txt) or bare words; //
 * comments run to the end of the line; a [$CONDITION] after a value is skipped (conditions are
 * not evaluated: every entry counts). */
#include <stdio.h>

#include "vbsp_internal.h"

#define GI_MAX_DEPTH 32
#define GI_MAX_TOKENS 1000000u
#define GI_TOKEN_CAP 1024

typedef struct gi_parser {
    const char *text;
    size_t len, pos;
    uint32_t tokens, entries;
    bk_ctx *ctx;
    bk_gameinfo_fn fn;
    void *user;
    bool stopped;
} gi_parser;

enum { T_END = 0, T_OPEN = '{', T_CLOSE = '}', T_STR = 's', T_COND = 'c', T_ERR = -1 };

static int64_t line_of(const gi_parser *p, size_t pos)
{
    int64_t line = 1;
    for (size_t i = 0; i < pos && i < p->len; i++) line += p->text[i] == '\n';
    return line;
}

static bk_result gi_error(gi_parser *p, bk_result code, size_t pos, const char *what)
{
    bk_report(p->ctx, BK_SEV_ERROR, code, "gameinfo", line_of(p, pos), pos, "%s", what);
    return code;
}

/* the next token (strings into buf); *at: where it starts */
static int next(gi_parser *p, char *buf, size_t *at, bk_result *err)
{
    for (;;) {
        while (p->pos < p->len && (unsigned char)p->text[p->pos] <= ' ') p->pos++;
        if (p->pos + 1 < p->len && p->text[p->pos] == '/' && p->text[p->pos + 1] == '/') {
            while (p->pos < p->len && p->text[p->pos] != '\n') p->pos++;
            continue;
        }
        break;
    }
    *at = p->pos;
    if (p->pos >= p->len) return T_END;
    if (++p->tokens > GI_MAX_TOKENS) {
        *err = gi_error(p, BK_ELIMIT, p->pos, "more than a million tokens");
        return T_ERR;
    }
    char c = p->text[p->pos];
    if (c == '{' || c == '}') {
        p->pos++;
        return c;
    }
    size_t n = 0;
    if (c == '"') {
        p->pos++;
        while (p->pos < p->len && p->text[p->pos] != '"') {
            if (p->text[p->pos] == '\n' || p->text[p->pos] == '\0') break;
            if (n + 1 >= GI_TOKEN_CAP) {
                *err = gi_error(p, BK_ELIMIT, *at, "a string longer than 1023 bytes");
                return T_ERR;
            }
            buf[n++] = p->text[p->pos++];
        }
        if (p->pos >= p->len || p->text[p->pos] != '"') {
            *err = gi_error(p, BK_EFORMAT, *at, "a quoted string is not closed on its line");
            return T_ERR;
        }
        p->pos++;
        buf[n] = 0;
        return T_STR;
    }
    bool cond = c == '[';
    while (p->pos < p->len && (unsigned char)p->text[p->pos] > ' ' && p->text[p->pos] != '{' &&
           p->text[p->pos] != '}' && p->text[p->pos] != '"') {
        if (n + 1 >= GI_TOKEN_CAP) {
            *err = gi_error(p, BK_ELIMIT, *at, "a word longer than 1023 bytes");
            return T_ERR;
        }
        buf[n++] = p->text[p->pos++];
        if (cond && buf[n - 1] == ']') break;
    }
    buf[n] = 0;
    if (cond) {
        if (buf[n - 1] != ']') {
            *err = gi_error(p, BK_EFORMAT, *at, "a [condition] is not closed");
            return T_ERR;
        }
        return T_COND;
    }
    return T_STR;
}

/* The block after an opening brace, up to its closing one. level: 1 inside GameInfo, 2 inside
 * its FileSystem, 3 inside that's SearchPaths (whose key/values are the entries); 0 elsewhere. */
static bk_result block(gi_parser *p, int depth, int level, size_t open_at)
{
    char key[GI_TOKEN_CAP], val[GI_TOKEN_CAP];
    bk_result err = BK_OK;
    size_t at, vat;
    if (depth > GI_MAX_DEPTH) return gi_error(p, BK_ELIMIT, open_at, "blocks nested more than 32 deep");
    for (;;) {
        int k = next(p, key, &at, &err);
        if (k == T_ERR) return err;
        if (k == T_END) {
            if (depth == 0) return BK_OK;
            return gi_error(p, BK_ETRUNCATED, open_at, "a block opened here is not closed");
        }
        if (k == T_CLOSE) {
            if (depth == 0) return gi_error(p, BK_EFORMAT, at, "a '}' closes no block");
            return BK_OK;
        }
        if (k == T_OPEN) return gi_error(p, BK_EFORMAT, at, "a block without a key");
        if (k == T_COND) return gi_error(p, BK_EFORMAT, at, "a [condition] where a key should be");
        int v = next(p, val, &vat, &err);
        if (v == T_ERR) return err;
        if (v == T_END || v == T_CLOSE || v == T_COND)
            return gi_error(p, BK_EFORMAT, at, "a key without a value or block");
        if (v == T_OPEN) {
            int sub = 0;
            if (level == 0 && depth == 0 && bk_strcasecmp(key, "GameInfo") == 0) sub = 1;
            else if (level == 1 && bk_strcasecmp(key, "FileSystem") == 0) sub = 2;
            else if (level == 2 && bk_strcasecmp(key, "SearchPaths") == 0) sub = 3;
            BK_TRY(block(p, depth + 1, sub, vat));
            continue;
        }
        /* a value, perhaps with a [$CONDITION] after it */
        size_t save = p->pos;
        uint32_t save_tokens = p->tokens;
        char cond[GI_TOKEN_CAP];
        size_t cat;
        int c = next(p, cond, &cat, &err);
        if (c == T_ERR) return err;
        if (c != T_COND) p->pos = save, p->tokens = save_tokens;
        if (level == 3 && !p->stopped) {
            if (++p->entries > p->ctx->opt.limits.max_elements)
                return gi_error(p, BK_ELIMIT, at, "more search paths than limits.max_elements");
            if (!p->fn(p->user, key, val)) p->stopped = true;
        }
    }
}

bk_result bk_gameinfo_search_paths(const char *text, size_t len, const bk_options *opt, bk_gameinfo_fn fn, void *user)
{
    if ((!text && len) || !fn) return BK_EARG;
    bk_ctx ctx;
    bk_ctx_init(&ctx, opt, false);
    gi_parser p;
    memset(&p, 0, sizeof p);
    p.text = text;
    p.len = len;
    p.ctx = &ctx;
    p.fn = fn;
    p.user = user;
    /* a UTF-8 byte-order mark is allowed before the text */
    if (len >= 3 && (unsigned char)text[0] == 0xef && (unsigned char)text[1] == 0xbb && (unsigned char)text[2] == 0xbf)
        p.pos = 3;
    return block(&p, 0, 0, 0);
}
