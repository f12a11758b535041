/* Quake 2 groundwork: .pak archives (a tiny writer here makes them), the game-folder search order,
 * .wal / .pcx / .tga decoding on every corpus file, palettes and animation chains, and hostile
 * headers refused with a located diagnostic.  args: SHARED FETCHED WORK */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../unit/check.h"
#include "bspkit/archive.h"
#include "bspkit/quake2.h"
#include "common/bk_internal.h"

static void wr_u16le(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static char g_last[512];
static int g_diags;
static void on_diag(void *user, const bk_diag *d)
{
    (void)user;
    g_diags++;
    bk_diag_format(d, g_last, sizeof g_last);
}
static bk_options diag_opt(void)
{
    bk_options o;
    memset(&o, 0, sizeof o);
    o.diag = on_diag;
    o.name = "t";
    g_last[0] = 0;
    g_diags = 0;
    return o;
}

/* ---- a tiny PACK writer: header, the files' bytes, then the directory -------------------- */
typedef struct pak_file {
    const char *name;
    const void *data;
    uint32_t size;
} pak_file;
static uint8_t *pak_make(const pak_file *f, uint32_t n, size_t *size)
{
    size_t total = 12;
    for (uint32_t i = 0; i < n; i++) total += f[i].size;
    size_t dir = total;
    total += 64u * n;
    uint8_t *b = calloc(1, total);
    memcpy(b, "PACK", 4);
    bk_wr_u32le(b + 4, (uint32_t)dir);
    bk_wr_u32le(b + 8, 64u * n);
    size_t at = 12;
    for (uint32_t i = 0; i < n; i++) {
        uint8_t *e = b + dir + 64u * i;
        snprintf((char *)e, 56, "%s", f[i].name);
        bk_wr_u32le(e + 56, (uint32_t)at);
        bk_wr_u32le(e + 60, f[i].size);
        memcpy(b + at, f[i].data, f[i].size);
        at += f[i].size;
    }
    *size = total;
    return b;
}
static void put_file(const char *path, const void *d, size_t n)
{
    FILE *fp = fopen(path, "wb");
    if (fp) {
        fwrite(d, 1, n, fp);
        fclose(fp);
    }
}
static uint8_t *get_file(const char *path, size_t *n)
{
    uint8_t *d = NULL;
    *n = 0;
    if (bk_read_file(path, UINT64_MAX, &d, n) != BK_OK) return NULL;
    return d;
}

static void test_pak(const char *work)
{
    pak_file fs[] = {{"maps/a.bsp", "AAAA", 4}, {"Textures/E1U1/Floor.wal", "wal!", 4}, {"empty.txt", "", 0}};
    size_t n;
    uint8_t *p = pak_make(fs, 3, &n);
    bk_archive *a = NULL;
    CHECK(bk_archive_open_memory(p, n, NULL, &a) == BK_OK && bk_archive_count(a) == 3);
    CHECK(bk_archive_find(a, "textures/e1u1/FLOOR.wal") == 1 && bk_archive_find(a, "\\maps\\a.bsp") == 0 &&
          bk_archive_find(a, "nothere") == -1);
    uint8_t *d;
    size_t dn;
    CHECK(bk_archive_read(a, 1, UINT64_MAX, &d, &dn) == BK_OK && dn == 4 && memcmp(d, "wal!", 4) == 0);
    bk_free(d);
    CHECK(bk_archive_read(a, 2, UINT64_MAX, &d, &dn) == BK_OK && dn == 0);
    bk_free(d);
    CHECK(bk_archive_read(a, 0, 3, &d, &dn) == BK_ELIMIT);
    CHECK(bk_archive_entry_at(a, 0)->size == 4 && bk_archive_entry_at(a, 0)->method == 0);
    bk_archive_close(a);
    char path[1100];
    snprintf(path, sizeof path, "%s/x.pak", work);
    put_file(path, p, n);
    CHECK(bk_archive_probe_file(path) == BK_ARCHIVE_PAK);
    CHECK(bk_archive_open(path, NULL, &a) == BK_OK && bk_archive_count(a) == 3);
    bk_archive_close(a);

    /* hostile directories: each refused, located */
    struct {
        const char *what;
        uint32_t at, val;  /* put val (u32) at offset at; at == 0: name without NUL */
        const char *want;
    } bad[] = {
        {"directory past the end", 4, 1000, "header @4: error: directory at 1000"},
        {"directory of a partial entry", 8, 64 * 3 - 1, "not a whole number of 64-byte entries"},
        {"huge count", 8, 0x7fffffc0u, "lies outside"},
        {"negative offset", 4, 0xfffffff0u, "lies outside"},
        {"entry outside the file", 0, 0, "directory[1]"},
        {"entry overlapping the directory", 1, 0, "overlap the header or the directory"},
        {"name not terminated", 3, 0, "not NUL-terminated"},
        {"directory over the header", 4, 4, "overlaps the 12-byte header"},
    };
    uint32_t dir = bk_rd_u32le(p + 4);
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        uint8_t *q = malloc(n);
        memcpy(q, p, n);
        if (bad[k].at >= 4) bk_wr_u32le(q + bad[k].at, bad[k].val);
        else if (strstr(bad[k].what, "outside")) bk_wr_u32le(q + dir + 64 + 60, 1000);
        else if (strstr(bad[k].what, "overlapping")) bk_wr_u32le(q + dir + 64 + 56, dir);
        else if (strstr(bad[k].what, "sharing")) bk_wr_u32le(q + dir + 64 + 56, 12), bk_wr_u32le(q + dir + 64 + 60, 8);
        else memset(q + dir + 64 * 2, 'x', 56);
        bk_options o = diag_opt();
        a = NULL;
        bk_result r = bk_archive_open_memory(q, n, &o, &a);
        CHECK(r != BK_OK && a == NULL);
        if (!strstr(g_last, bad[k].want)) fprintf(stderr, "  %s: got '%s'\n", bad[k].what, g_last);
        CHECK(strstr(g_last, bad[k].want) != NULL);
        bk_archive_close(a);
        free(q);
    }
    /* twenty entries over the same 100 bytes: extracted they would make 2000 from a 1392-byte file */
    {
        static uint8_t blob[100];
        pak_file many[20];
        for (int i = 0; i < 20; i++) many[i] = (pak_file){"f", blob, i ? 0 : 100};
        size_t mn;
        uint8_t *m = pak_make(many, 20, &mn);
        uint32_t mdir = bk_rd_u32le(m + 4);
        for (int i = 0; i < 20; i++) bk_wr_u32le(m + mdir + 64u * i + 56, 12), bk_wr_u32le(m + mdir + 64u * i + 60, 100);
        bk_options o = diag_opt();
        a = NULL;
        CHECK(bk_archive_open_memory(m, mn, &o, &a) == BK_EFORMAT && a == NULL && strstr(g_last, "entries share bytes") &&
              strstr(g_last, "directory[13]"));
        if (!strstr(g_last, "directory[13]")) fprintf(stderr, "  sharing: got '%s'\n", g_last);
        free(m);
    }
    /* cut anywhere: never accepted past its end, never a crash */
    for (size_t cut = 0; cut < n; cut++) {
        a = NULL;
        if (bk_archive_open_memory(p, cut, NULL, &a) == BK_OK) {
            for (uint32_t i = 0; i < bk_archive_count(a); i++)
                if (bk_archive_read(a, i, UINT64_MAX, &d, &dn) == BK_OK) bk_free(d);
            bk_archive_close(a);
        }
    }
    free(p);
}

/* a game folder with pak0.pak, pak1.pak, pak10.pak, an unnumbered extra.pak and loose files: the
 * engines' order (higher pak number first, paks over loose files, unnumbered paks not loaded) */
static void test_order(const char *work)
{
    char dir[1100], path[1300];
    snprintf(dir, sizeof dir, "%s/game", work);
    mkdir(dir, 0777);
    snprintf(path, sizeof path, "%s/pics", dir);
    mkdir(path, 0777);
    pak_file p0[] = {{"pics/a.txt", "pak0", 4}, {"pics/b.txt", "pak0", 4}, {"pics/c.txt", "pak0", 4}};
    pak_file p1[] = {{"pics/a.txt", "pak1", 4}};
    pak_file p10[] = {{"pics/b.txt", "pak10", 5}};
    pak_file px[] = {{"pics/a.txt", "extra", 5}, {"pics/d.txt", "extra", 5}};
    struct {
        const char *name;
        pak_file *f;
        uint32_t n;
    } paks[] = {{"pak0.pak", p0, 3}, {"PAK1.PAK", p1, 1}, {"pak10.pak", p10, 1}, {"extra.pak", px, 2}};
    for (int i = 0; i < 4; i++) {
        size_t n;
        uint8_t *b = pak_make(paks[i].f, paks[i].n, &n);
        snprintf(path, sizeof path, "%s/%s", dir, paks[i].name);
        put_file(path, b, n);
        free(b);
    }
    const char *loose[] = {"a.txt", "c.txt", "e.txt"};
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/pics/%s", dir, loose[i]);
        put_file(path, "loose", 5);
    }
    bk_options o;
    memset(&o, 0, sizeof o);
    const char *sp[] = {dir};
    o.search_paths = sp;
    o.search_path_count = 1;
    bk_vfs *v = bk_vfs_new_game(&o);
    struct {
        const char *rel, *want, *from;
    } want[] = {{"pics/a.txt", "pak1", "PAK1.PAK"},   {"pics/b.txt", "pak10", "pak10.pak"},
                {"pics/c.txt", "pak0", "pak0.pak"},   {"PICS/E.TXT", "loose", "game"},
                {"pics/d.txt", NULL, NULL}};
    for (int i = 0; i < 5; i++) {
        uint8_t *d = NULL;
        size_t n = 0;
        const char *where = NULL;
        bk_result r = bk_vfs_read_from(v, want[i].rel, 1024, &d, &n, &where);
        if (!want[i].want) {
            CHECK(r == BK_ENOTFOUND);
            continue;
        }
        bool ok = r == BK_OK && n == strlen(want[i].want) && memcmp(d, want[i].want, n) == 0 && where &&
                  strstr(where, want[i].from);
        if (!ok) fprintf(stderr, "  %s: from %s (%s)\n", want[i].rel, where ? where : "-", bk_strerror(r));
        CHECK(ok);
        bk_free(d);
    }
    bk_vfs_free(v);
}

/* every .wal under dir (recursively): parsed, each level decoded */
static void walk_wal(const char *dir, const uint8_t *pal, uint32_t *files, uint32_t *levels, uint32_t *bad)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.') continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        struct stat st;
        if (stat(path, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) {
            walk_wal(path, pal, files, levels, bad);
            continue;
        }
        size_t l = strlen(de->d_name);
        if (l < 5 || bk_strcasecmp(de->d_name + l - 4, ".wal") != 0) continue;
        size_t n;
        uint8_t *b = get_file(path, &n);
        bk_wal_info wi;
        (*files)++;
        if (!b || bk_wal_parse(b, n, NULL, &wi) != BK_OK) {
            (*bad)++;
            fprintf(stderr, "  %s does not parse\n", path);
            free(b);
            continue;
        }
        for (uint32_t m = 0; m < 4; m++) {
            if (!(wi.width >> m) || !(wi.height >> m)) continue;
            uint8_t *rgba;
            uint32_t w, h;
            if (bk_wal_decode(b, n, NULL, pal, m, &rgba, &w, &h) == BK_OK && w == wi.width >> m && h == wi.height >> m)
                (*levels)++;
            else
                (*bad)++;
            bk_free(rgba);
        }
        bk_free(b);
    }
    closedir(d);
}

static void test_wal(const char *q2, const char *work)
{
    uint8_t pal[768];
    bk_palette_default(pal);
    uint32_t files = 0, levels = 0, bad = 0;
    char dir[1100];
    snprintf(dir, sizeof dir, "%s/textures", q2);
    walk_wal(dir, pal, &files, &levels, &bad);
    printf("wal: %u files, %u levels decoded, %u failed\n", files, levels, bad);
    CHECK(files == 423 && bad == 0 && levels == 4 * files);

    /* hostile headers, from a real one */
    char path[1200];
    snprintf(path, sizeof path, "%s/e2u1/w_white.wal", dir);
    size_t n;
    uint8_t *b = get_file(path, &n);
    CHECK(b && n == 440);
    if (!b) return;
    struct {
        uint32_t at, val;
        const char *want;
    } bad_h[] = {
        {32, 0, "header @32: error: size 0x16"},
        {36, 100000, "over limits.max_texture_dim"},
        {40, 50, "mip[0] @40: error: level 0 (16x16, 256 bytes) at 50 lies in the header of"},
        {48, 430, "mip[2] @48: error: level 2 (4x4, 16 bytes) at 430 lies outside the 440-byte file"},
        {32, 64, "mip[0] @40: error: level 0 (64x16, 1024 bytes) at 100 lies outside"},
    };
    for (size_t k = 0; k < sizeof bad_h / sizeof bad_h[0]; k++) {
        uint8_t q[440];
        memcpy(q, b, n);
        bk_wr_u32le(q + bad_h[k].at, bad_h[k].val);
        bk_options o = diag_opt();
        uint8_t *rgba = NULL;
        uint32_t w, h;
        CHECK(bk_wal_decode(q, n, &o, pal, 0, &rgba, &w, &h) != BK_OK && rgba == NULL);
        if (!strstr(g_last, bad_h[k].want)) fprintf(stderr, "  wal %zu: got '%s'\n", k, g_last);
        CHECK(strstr(g_last, bad_h[k].want) != NULL);
    }
    bk_options o = diag_opt();
    bk_wal_info wi;
    CHECK(bk_wal_parse(b, 99, &o, &wi) == BK_ETRUNCATED && strstr(g_last, "shorter than the 100-byte"));
    for (size_t cut = 0; cut < n; cut++) CHECK(cut >= 100 + 256 + 64 + 16 + 4 || bk_wal_parse(b, cut, NULL, &wi) != BK_OK);
    bk_free(b);

    /* animation chains: a real one from the corpus (case-insensitive names), and made-up cycles */
    bk_options co;
    memset(&co, 0, sizeof co);
    const char *sp[] = {q2};
    co.search_paths = sp;
    co.search_path_count = 1;
    char names[16][33];
    uint32_t count = 0;
    bool looped = false;
    /* q2rdm12's fire: eight frames, musashi/m_fire01 .. 08 and back, asked for in capitals */
    CHECK(bk_wal_chain(&co, "MUSASHI/M_FIRE03", names, 16, &count, &looped) == BK_OK && count == 8 && looped &&
          strcmp(names[1], "musashi/m_fire04") == 0 && strcmp(names[7], "musashi/m_fire02") == 0);
    char gdir[1100], tdir[1200];
    snprintf(gdir, sizeof gdir, "%s/anim", work);
    mkdir(gdir, 0777);
    snprintf(tdir, sizeof tdir, "%s/textures", gdir);
    mkdir(tdir, 0777);
    const char *chain[][2] = {{"a1", "A2"}, {"a2", "a3"}, {"a3", "a1"}, {"b1", "b2"}, {"b2", "b3"}, {"b3", "b2"}, {"c1", ""}};
    for (int i = 0; i < 7; i++) {
        uint8_t w[100 + 16 * 16 + 64 + 16 + 4];
        memset(w, 0, sizeof w);
        snprintf((char *)w, 32, "%s", chain[i][0]);
        bk_wr_u32le(w + 32, 16);
        bk_wr_u32le(w + 36, 16);
        bk_wr_u32le(w + 40, 100);
        bk_wr_u32le(w + 44, 356);
        bk_wr_u32le(w + 48, 420);
        bk_wr_u32le(w + 52, 436);
        snprintf((char *)w + 56, 32, "%s", chain[i][1]);
        char p2[1300];
        snprintf(p2, sizeof p2, "%s/%s.wal", tdir, chain[i][0]);
        put_file(p2, w, sizeof w);
    }
    const char *gsp[] = {gdir};
    co.search_paths = gsp;
    CHECK(bk_wal_chain(&co, "A1", names, 16, &count, &looped) == BK_OK && count == 3 && looped &&
          bk_strcasecmp(names[1], "a2") == 0);
    CHECK(bk_wal_chain(&co, "b1", names, 16, &count, &looped) == BK_OK && count == 3 && !looped);
    CHECK(bk_wal_chain(&co, "c1", names, 16, &count, &looped) == BK_OK && count == 1 && !looped);
    CHECK(bk_wal_chain(&co, "a1", names, 2, &count, &looped) == BK_OK && count == 2 && !looped);
    CHECK(bk_wal_chain(&co, "zz", names, 16, &count, &looped) == BK_ENOTFOUND && count == 0);
}

static void test_pcx_tga(const char *q2, const char *work)
{
    char dir[1100];
    uint32_t pcx = 0, tga = 0, bad = 0, pairs = 0, close_pairs = 0, oriented = 0;
    for (int pass = 0; pass < 2; pass++) {
    snprintf(dir, sizeof dir, pass ? "%s/env/spirit2dm9" : "%s/env", q2);
    DIR *d = opendir(dir);
    CHECK(d != NULL);
    if (!d) return;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        size_t l = strlen(de->d_name);
        if (l < 5) continue;
        bool is_pcx = bk_strcasecmp(de->d_name + l - 4, ".pcx") == 0, is_tga = bk_strcasecmp(de->d_name + l - 4, ".tga") == 0;
        if (!is_pcx && !is_tga) continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        size_t n;
        uint8_t *b = get_file(path, &n);
        uint8_t *rgba = NULL;
        uint32_t w = 0, h = 0;
        bk_result r = is_pcx ? bk_pcx_decode(b, n, NULL, &rgba, &w, &h, NULL) : bk_image_decode(b, n, 8192, &rgba, &w, &h);
        if (r != BK_OK) {
            bad++;
            fprintf(stderr, "  %s: %s\n", path, bk_strerror(r));
        }
        is_pcx ? pcx++ : tga++;
        /* a face given both ways (jal, marsky1_, phobos): the TGA's rows (bottom-up on disk) and the
         * PCX's must show the same picture, closer upright than upside down (all but 3 of the 18:
         * a uniform down face and two nearly symmetric ones) */
        if (is_tga && r == BK_OK) {
            char pp[2048];
            snprintf(pp, sizeof pp, "%.*s.pcx", (int)(strlen(path) - 4), path);
            size_t pn;
            uint8_t *pb = get_file(pp, &pn), *prgba = NULL;
            uint32_t pw, ph;
            if (pb && bk_pcx_decode(pb, pn, NULL, &prgba, &pw, &ph, NULL) == BK_OK && pw == w && ph == h) {
                double diff = 0, flipped = 0;
                for (uint32_t y = 0; y < h; y++)
                    for (uint32_t x = 0; x < w * 4; x++) {
                        if (x % 4 == 3) continue;
                        diff += abs((int)rgba[y * w * 4 + x] - (int)prgba[y * w * 4 + x]);
                        flipped += abs((int)rgba[y * w * 4 + x] - (int)prgba[(h - 1 - y) * w * 4 + x]);
                    }
                diff /= (double)w * h * 3;
                flipped /= (double)w * h * 3;
                pairs++;
                printf("  %s: mean difference %.1f from its PCX (%.1f upside down)\n", de->d_name, diff, flipped);
                if (diff <= flipped && diff < 16) close_pairs++;
                if (diff + 2 < flipped) oriented++;
            }
            bk_free(prgba);
            bk_free(pb);
        }
        bk_free(rgba);
        bk_free(b);
    }
    closedir(d);
    }
    printf("sky faces: %u PCX, %u TGA decoded (%u failed); %u faces given both ways agree: %u, closer upright: %u\n", pcx,
           tga, bad, pairs, close_pairs, oriented);
    CHECK(pcx == 42 && tga == 18 && bad == 0 && pairs == 18 && close_pairs == pairs && oriented >= pairs - 3);
    snprintf(dir, sizeof dir, "%s/env", q2);

    /* kolddusty2's six faces are 24-bit PCX (3 planes, no palette: the bytes at the end are pixels);
     * decoded as RGB they are smooth skies (a neighbour differs little), which the 8-bit reading of
     * the same RLE bytes is not. jal's faces each carry their palette at the end. */
    const char *sides[] = {"up", "dn", "lf", "rt", "ft", "bk"};
    for (int i = 0; i < 6; i++) {
        char path[2048];
        snprintf(path, sizeof path, "%s/kolddusty2%s.pcx", dir, sides[i]);
        size_t n;
        uint8_t *b = get_file(path, &n), *rgba = NULL, pal[768];
        uint32_t w = 0, h = 0;
        CHECK(b && b[65] == 3 && bk_pcx_decode(b, n, NULL, &rgba, &w, &h, pal) == BK_OK && pal[0] == 0 && pal[767] == 0);
        double step = 0;
        for (uint32_t y = 0; rgba && y < h; y++)
            for (uint32_t x = 0; x + 1 < w; x++)
                for (int c = 0; c < 3; c++) step += abs((int)rgba[(y * w + x) * 4 + c] - (int)rgba[(y * w + x + 1) * 4 + c]);
        step /= (double)h * (w - 1) * 3;
        printf("kolddusty2%s: 24-bit, mean neighbour step %.2f\n", sides[i], step);
        CHECK(step < 8);
        bk_free(rgba);
        snprintf(path, sizeof path, "%s/jal%s.pcx", dir, sides[i]);
        bk_free(b);
        b = get_file(path, &n);
        CHECK(b && bk_pcx_decode(b, n, NULL, &rgba, &w, &h, pal) == BK_OK && memcmp(pal, b + n - 768, 768) == 0);
        bk_free(rgba);
        bk_free(b);
    }

    /* hostile PCX headers, from a real face */
    char path[2048];
    snprintf(path, sizeof path, "%s/jalup.pcx", dir);
    size_t n;
    uint8_t *b = get_file(path, &n);
    CHECK(b != NULL);
    if (!b) return;
    struct {
        uint32_t at;
        uint16_t val;
        const char *want;
    } bad_h[] = {
        {8, 0, "header @4: error: window 5,0 .. 0,"},
        {8, 60000, "over limits.max_texture_dim"},
        {66, 4, "bytes per line for a picture"},
        {3, 0x0104, "only RLE (1), 8 bits, 1 plane"},
    };
    for (size_t k = 0; k < sizeof bad_h / sizeof bad_h[0]; k++) {
        uint8_t *q = malloc(n);
        memcpy(q, b, n);
        if (bad_h[k].at == 3) q[3] = 4;
        else if (bad_h[k].at == 8 && bad_h[k].val == 0) wr_u16le(q + 4, 5), wr_u16le(q + 8, 0);
        else wr_u16le(q + bad_h[k].at, bad_h[k].val);
        bk_options o = diag_opt();
        uint8_t *rgba = NULL;
        uint32_t w, h;
        CHECK(bk_pcx_decode(q, n, &o, &rgba, &w, &h, NULL) != BK_OK && rgba == NULL);
        if (!strstr(g_last, bad_h[k].want)) fprintf(stderr, "  pcx %zu: got '%s'\n", k, g_last);
        CHECK(strstr(g_last, bad_h[k].want) != NULL);
        free(q);
    }
    /* 8192 x 8192 claimed by a small file: refused before anything is allocated */
    {
        uint8_t *q = malloc(n);
        memcpy(q, b, n);
        wr_u16le(q + 8, 8191);
        wr_u16le(q + 10, 8191);
        wr_u16le(q + 66, 8192);
        bk_options o = diag_opt();
        uint8_t *rgba = NULL;
        uint32_t w, h;
        CHECK(bk_pcx_decode(q, n, &o, &rgba, &w, &h, NULL) == BK_ETRUNCATED && strstr(g_last, "cannot come from"));
        free(q);
    }
    /* the palette marker gone; the RLE data cut short */
    {
        uint8_t *q = malloc(n);
        memcpy(q, b, n);
        q[n - 769] = 0;
        bk_options o = diag_opt();
        uint8_t *rgba = NULL;
        uint32_t w, h;
        CHECK(bk_pcx_decode(q, n, &o, &rgba, &w, &h, NULL) == BK_EFORMAT && strstr(g_last, "palette @"));
        size_t cut = 128 + (n - 128 - 769) / 2;
        memcpy(q, b, 128);
        memcpy(q + cut, b + n - 769, 769);
        o = diag_opt();
        CHECK(bk_pcx_decode(q, cut + 769, &o, &rgba, &w, &h, NULL) == BK_ETRUNCATED && strstr(g_last, "pixels["));
        free(q);
    }

    /* palettes: Quake 2's from pics/colormap.pcx in a game folder's pak (here a sky face's, as a
     * stand-in file), else the default with a warning; Hexen II's gfx/palette.lmp */
    char gdir[1100], pp[1300];
    snprintf(gdir, sizeof gdir, "%s/palgame", work);
    mkdir(gdir, 0777);
    pak_file pf[] = {{"pics/colormap.pcx", b, (uint32_t)n}};
    size_t pn;
    uint8_t *pk = pak_make(pf, 1, &pn);
    snprintf(pp, sizeof pp, "%s/pak0.pak", gdir);
    put_file(pp, pk, pn);
    free(pk);
    bk_options o = diag_opt();
    const char *sp[] = {gdir};
    o.search_paths = sp;
    o.search_path_count = 1;
    uint8_t pal[768], dpal[768];
    bool dflt = true;
    CHECK(bk_palette_load(&o, BK_PALETTE_QUAKE2, pal, &dflt) == BK_OK && !dflt && memcmp(pal, b + n - 768, 768) == 0 &&
          g_diags == 0);
    o = diag_opt();
    CHECK(bk_palette_load(&o, BK_PALETTE_HEXEN2, pal, &dflt) == BK_OK && dflt && g_diags == 1 &&
          strstr(g_last, "warning: gfx/palette.lmp not found"));
    bk_palette_default(dpal);
    CHECK(memcmp(pal, dpal, 768) == 0);
    /* the default: row 0 grey dark to bright, other rows tinted, every row rising */
    bool ramps = dpal[0] == 8 && dpal[1] == 8 && dpal[2] == 8 && dpal[15 * 3] == 248;
    for (int i = 0; i < 256; i++)
        if (i & 15) ramps = ramps && dpal[i * 3] + dpal[i * 3 + 1] + dpal[i * 3 + 2] > dpal[i * 3 - 3] + dpal[i * 3 - 2] + dpal[i * 3 - 1];
    CHECK(ramps && !(dpal[16 * 3] == dpal[16 * 3 + 1] && dpal[16 * 3 + 1] == dpal[16 * 3 + 2]));
    snprintf(pp, sizeof pp, "%s/gfx", gdir);
    mkdir(pp, 0777);
    snprintf(pp, sizeof pp, "%s/gfx/palette.lmp", gdir);
    put_file(pp, b + n - 768, 768);
    o = diag_opt();
    o.search_paths = sp;
    o.search_path_count = 1;
    CHECK(bk_palette_load(&o, BK_PALETTE_HEXEN2, pal, &dflt) == BK_OK && !dflt && memcmp(pal, b + n - 768, 768) == 0);
    put_file(pp, b, 100);
    CHECK(bk_palette_load(&o, BK_PALETTE_HEXEN2, pal, &dflt) == BK_ETRUNCATED && strstr(g_last, "100 bytes, not 768"));
    bk_free(b);
}

int main(int argc, char **argv)
{
    if (argc < 4) return 2;
    char q2[1024];
    snprintf(q2, sizeof q2, "%s/corpus/quake2", argv[1]);
    struct stat st;
    if (stat(q2, &st) != 0) {
        printf("SKIP: %s missing\n", q2);
        return 77;
    }
    char work[1024];
    snprintf(work, sizeof work, "%s/quake2_unit", argv[3]);
    mkdir(work, 0777);
    test_pak(work);
    test_order(work);
    test_wal(q2, work);
    test_pcx_tga(q2, work);
    return CHECK_DONE();
}
