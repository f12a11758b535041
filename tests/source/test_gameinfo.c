/* gameinfo.txt search paths (src/formats/source/gameinfo.c): a game's file in the shape Valve's
 * games ship it gives its SearchPaths entries in order and nothing else; malformed text fails with
 * the cause at the right byte; every prefix and a set of single-byte mutants of the file parse or
 * fail with a located error (never more entries than the file has, never a crash: the sanitizer
 * build runs this too); the permanent inputs in tests/crashers/gameinfo parse or fail cleanly.
 * args: (ctest's shared/fetched/work dirs, unused) */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/source/vbsp_internal.h"
#include "../unit/check.h"

typedef struct got {
    char ids[16][64], path[16][256];
    int n;
} got;

static bool on_entry(void *u, const char *ids, const char *path)
{
    got *g = u;
    if (g->n < 16) {
        snprintf(g->ids[g->n], sizeof g->ids[0], "%s", ids);
        snprintf(g->path[g->n], sizeof g->path[0], "%s", path);
    }
    g->n++;
    return true;
}

typedef struct diags {
    int n;
    bk_diag last;
} diags;

static void on_diag(void *u, const bk_diag *d)
{
    diags *x = u;
    x->n++;
    x->last = *d;
}

static bk_result parse(const char *text, size_t len, got *g, diags *d)
{
    memset(g, 0, sizeof *g);
    memset(d, 0, sizeof *d);
    bk_options o = {0};
    o.name = "gameinfo.txt";
    o.diag = on_diag;
    o.diag_user = d;
    return bk_gameinfo_search_paths(text, len, &o, on_entry, g);
}

/* like a Source SDK 2013 mod's file: comments, bare words, a condition, blocks before and after */
static const char tf_like[] =
    "\xef\xbb\xbf\"GameInfo\"\n"
    "{\n"
    "\tgame\t\"My Mod\"  // the title\n"
    "\ttype multiplayer_only\n"
    "\t\"FileSystem\"\n"
    "\t{\n"
    "\t\tSteamAppId\t\t243750\n"
    "\t\t\"SearchPaths\"\n"
    "\t\t{\n"
    "\t\t\tgame+mod\t\t\t|gameinfo_path|custom/*\n"
    "\t\t\tgame+mod+default_write_path\t|gameinfo_path|.\n"
    "\t\t\tgamebin\t\t\t\t|gameinfo_path|bin\n"
    "\t\t\tgame\t\t\t\t\"hl2/hl2_misc.vpk\"   [$WIN32]\n"
    "\t\t\t// game  hl2/old.vpk\n"
    "\t\t\tgame\t\t\t\t|all_source_engine_paths|hl2\n"
    "\t\t\tplatform\t\t\t|all_source_engine_paths|platform\n"
    "\t\t}\n"
    "\t}\n"
    "\tToolsEnvironment { Engine Source }\n"
    "}\n";

static void check_file(void)
{
    got g;
    diags d;
    CHECK(parse(tf_like, strlen(tf_like), &g, &d) == BK_OK);
    CHECK(d.n == 0);
    static const char *const want[][2] = {
        {"game+mod", "|gameinfo_path|custom/*"}, {"game+mod+default_write_path", "|gameinfo_path|."},
        {"gamebin", "|gameinfo_path|bin"},      {"game", "hl2/hl2_misc.vpk"},
        {"game", "|all_source_engine_paths|hl2"}, {"platform", "|all_source_engine_paths|platform"}};
    CHECK(g.n == 6);
    for (int i = 0; i < 6 && i < g.n; i++) {
        CHECK(strcmp(g.ids[i], want[i][0]) == 0);
        CHECK(strcmp(g.path[i], want[i][1]) == 0);
    }
    /* SearchPaths outside GameInfo > FileSystem are not the game's */
    const char *other = "Foo { FileSystem { SearchPaths { game a } } } GameInfo { SearchPaths { game b } }";
    CHECK(parse(other, strlen(other), &g, &d) == BK_OK && g.n == 0);
}

/* each malformation: its result code and the byte offset it is reported at */
static void check_errors(void)
{
    static const struct {
        const char *text;
        bk_result code;
        uint64_t offset;
    } bad[] = {
        {"GameInfo { game \"open\n }", BK_EFORMAT, 16},   /* a string not closed on its line */
        {"GameInfo { } }", BK_EFORMAT, 13},               /* a '}' that closes nothing */
        {"GameInfo { FileSystem {", BK_ETRUNCATED, 22},   /* the innermost open block */
        {"GameInfo { key }", BK_EFORMAT, 11},             /* a key without a value */
        {"{ a b }", BK_EFORMAT, 0},                       /* a block without a key */
        {"GameInfo { [$X] a }", BK_EFORMAT, 11},          /* a condition for a key */
        {"GameInfo { a [$X }", BK_EFORMAT, 13},           /* a condition not closed */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        got g;
        diags d;
        bk_result r = parse(bad[i].text, strlen(bad[i].text), &g, &d);
        CHECK(r == bad[i].code);
        CHECK(d.n == 1 && d.last.code == bad[i].code && d.last.offset == bad[i].offset);
        CHECK(d.n == 1 && d.last.lump && strcmp(d.last.lump, "gameinfo") == 0 && d.last.index == 1);
        if (r != bad[i].code || d.last.offset != bad[i].offset)
            fprintf(stderr, "  case %zu: got %d @%llu\n", i, (int)r, (unsigned long long)d.last.offset);
    }
    /* limits: nesting, token length */
    char deep[200];
    size_t n = 0;
    for (int k = 0; k < 40; k++) n += (size_t)snprintf(deep + n, sizeof deep - n, "a{");
    got g;
    diags d;
    CHECK(parse(deep, n, &g, &d) == BK_ELIMIT && d.n == 1);
    char *longw = malloc(3000);
    memset(longw, 'x', 3000);
    memcpy(longw, "GameInfo { k ", 13);
    CHECK(parse(longw, 3000, &g, &d) == BK_ELIMIT && d.n == 1 && d.last.offset == 13);
    free(longw);
    /* the line number: the error on line 3 */
    const char *l3 = "GameInfo\n{\n  \"x\n}";
    CHECK(parse(l3, strlen(l3), &g, &d) == BK_EFORMAT && d.last.index == 3);
}

/* every prefix and single-byte mutant: OK with no more entries than the file holds, or one located error */
static void check_hostile(void)
{
    size_t len = strlen(tf_like);
    char *buf = malloc(len + 1);
    int bad = 0, errors = 0, runs = 0;
    static const char subst[] = {'{', '}', '"', '\n', '[', ']', '/', '\0', ' ', '\xff'};
    for (size_t cut = 0; cut <= len; cut++) {
        got g;
        diags d;
        memcpy(buf, tf_like, cut);
        bk_result r = parse(buf, cut, &g, &d);
        runs++;
        if (r != BK_OK) errors++;
        if (r == BK_OK ? (d.n != 0 || g.n > 6) : (d.n != 1 || d.last.offset > cut)) bad++;
    }
    for (size_t i = 0; i < len; i++)
        for (size_t k = 0; k < sizeof subst; k++) {
            got g;
            diags d;
            memcpy(buf, tf_like, len);
            buf[i] = subst[k];
            bk_result r = parse(buf, len, &g, &d);
            runs++;
            if (r != BK_OK) errors++;
            if (r == BK_OK ? d.n != 0 : (d.n != 1 || d.last.offset > len)) bad++;
        }
    free(buf);
    printf("%d prefixes and mutants, %d rejected\n", runs, errors);
    CHECK(bad == 0);
    CHECK(errors > 0 && errors < runs);   /* some fail, some still parse */
}

static void check_crashers(void)
{
    DIR *dp = opendir(SOURCE_DIR "/tests/crashers/gameinfo");
    CHECK(dp != NULL);
    if (!dp) return;
    struct dirent *de;
    int n = 0;
    while ((de = readdir(dp)) != NULL) {
        if (de->d_name[0] == '.') continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/tests/crashers/gameinfo/%s", SOURCE_DIR, de->d_name);
        FILE *fp = fopen(path, "rb");
        if (!fp) continue;
        static char data[1 << 16];
        size_t len = fread(data, 1, sizeof data, fp);
        fclose(fp);
        got g;
        diags d;
        bk_result r = parse(data, len, &g, &d);
        CHECK(r == BK_OK ? d.n == 0 : (d.n == 1 && d.last.offset <= len));
        n++;
    }
    closedir(dp);
    CHECK(n > 0);
}

int main(void)
{
    check_file();
    check_errors();
    check_hostile();
    check_crashers();
    return CHECK_DONE();
}
