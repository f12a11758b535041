/* One archive shape (bspkit/archive.h) through every way of opening one: a real map's pakfile
 * opened from the map, from its bytes in memory, from a .zip file of those bytes, and its files
 * written into a VPK here, give the same entries (names, sizes, CRCs, methods), the same finds,
 * the same bytes read and the same refusal past max_bytes. A stored and an LZMA pakfile (the
 * zip reader decodes LZMA members only in a pakfile: elsewhere they are BK_EUNSUPPORTED).
 * argv[1] = shared dir, argv[3] = work dir. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bspkit/archive.h"
#include "bspkit/source.h"
#include "../unit/check.h"

static void put16(FILE *fp, uint32_t v) { fputc((int)(v & 0xff), fp), fputc((int)(v >> 8 & 0xff), fp); }
static void put32(FILE *fp, uint32_t v) { put16(fp, v & 0xffff), put16(fp, v >> 16); }

/* A VPK v1 of every file entry of a whose name has a folder and an extension, each in the
 * directory file (archive 0x7fff), every other one with its first 8 bytes preloaded. The number
 * of entries written, or -1. */
static int write_vpk(bk_archive *a, const char *path)
{
    FILE *tree = tmpfile(), *data = tmpfile(), *fp = fopen(path, "wb");
    int n = 0;
    if (!tree || !data || !fp) return -1;
    for (uint32_t i = 0; i < bk_archive_count(a); i++) {
        const bk_archive_entry *e = bk_archive_entry_at(a, i);
        const char *slash = strrchr(e->name, '/'), *dot = strrchr(e->name, '.');
        if (e->is_dir || !slash || !dot || dot < slash || strchr(e->name, '\\')) continue;
        uint8_t *d;
        size_t dn;
        if (bk_archive_read(a, i, UINT64_MAX, &d, &dn) != BK_OK) return -1;
        uint32_t pre = (n % 2 == 0 && dn >= 8) ? 8 : 0;
        fprintf(tree, "%s%c%.*s%c%.*s%c", dot + 1, 0, (int)(slash - e->name), e->name, 0, (int)(dot - slash - 1),
                slash + 1, 0);
        put32(tree, e->crc), put16(tree, pre), put16(tree, 0x7fff);
        put32(tree, (uint32_t)ftell(data)), put32(tree, (uint32_t)(dn - pre)), put16(tree, 0xffff);
        fwrite(d, 1, pre, tree);
        fwrite(d + pre, 1, dn - pre, data);
        fputc(0, tree), fputc(0, tree); /* end of this folder's files, of this extension's folders */
        bk_free(d);
        n++;
    }
    fputc(0, tree); /* end of the extensions */
    long tn = ftell(tree), dnn = ftell(data);
    put32(fp, 0x55aa1234u), put32(fp, 1), put32(fp, (uint32_t)tn);
    rewind(tree), rewind(data);
    char buf[65536];
    size_t k;
    while ((k = fread(buf, 1, sizeof buf, tree)) > 0) fwrite(buf, 1, k, fp);
    while ((k = fread(buf, 1, sizeof buf, data)) > 0) fwrite(buf, 1, k, fp);
    fclose(tree), fclose(data);
    return fclose(fp) == 0 && dnn >= 0 ? n : -1;
}

/* entry i of a read, or NULL (with *r) */
static uint8_t *read_entry(bk_archive *a, uint32_t i, size_t *n, bk_result *r)
{
    uint8_t *d = NULL;
    *r = bk_archive_read(a, i, UINT64_MAX, &d, n);
    return *r == BK_OK ? d : NULL;
}

static void same_shape(const char *map, const char *work, bool lzma)
{
    bk_file *f = NULL;
    if (bk_file_open(map, NULL, &f) != BK_OK) {
        CHECK(!"the map opens");
        return;
    }
    const bk_source_map *m = bk_source_map_of(f);
    char zpath[4096], vpath[4096];
    snprintf(zpath, sizeof zpath, "%s/%s.zip", work, lzma ? "lzma" : "stored");
    snprintf(vpath, sizeof vpath, "%s/%s_dir.vpk", work, lzma ? "lzma" : "stored");
    FILE *fp = fopen(zpath, "wb");
    CHECK(fp && fwrite(m->pakfile, 1, m->pakfile_size, fp) == m->pakfile_size);
    if (fp) fclose(fp);
    bk_archive *pak = NULL, *mem = NULL, *zip = NULL, *vpk = NULL;
    CHECK(bk_archive_open_pakfile(f, NULL, &pak) == BK_OK);
    CHECK(bk_archive_open_memory(m->pakfile, m->pakfile_size, NULL, &mem) == BK_OK);
    CHECK(bk_archive_open(zpath, NULL, &zip) == BK_OK);
    CHECK(bk_archive_probe_file(zpath) == BK_ARCHIVE_ZIP && bk_archive_probe_file(map) == BK_ARCHIVE_NONE);
    int written = pak ? write_vpk(pak, vpath) : -1;
    CHECK(written > 0 && bk_archive_probe_file(vpath) == BK_ARCHIVE_VPK);
    CHECK(bk_archive_open(vpath, NULL, &vpk) == BK_OK);
    if (!pak || !mem || !zip || !vpk) goto done;
    uint32_t n = bk_archive_count(pak), methods = 0;
    CHECK(n > 0 && bk_archive_count(mem) == n && bk_archive_count(zip) == n);
    CHECK(bk_archive_count(vpk) == (uint32_t)written);
    for (uint32_t i = 0; i < n; i++) {
        const bk_archive_entry *e = bk_archive_entry_at(pak, i);
        bk_archive *zips[2] = {mem, zip};
        for (int z = 0; z < 2; z++) {
            const bk_archive_entry *o = bk_archive_entry_at(zips[z], i);
            CHECK(strcmp(o->name, e->name) == 0 && o->size == e->size && o->compressed_size == e->compressed_size &&
                  o->crc == e->crc && o->method == e->method && o->is_dir == e->is_dir);
            CHECK(bk_archive_find(zips[z], e->name) == bk_archive_find(pak, e->name));
        }
        methods |= 1u << (e->method & 15);
        if (e->is_dir) continue;
        size_t pn = 0, on = 0;
        bk_result pres, ores;
        uint8_t *pd = read_entry(pak, i, &pn, &pres), *od;
        CHECK(pres == BK_OK && pn == e->size);
        for (int z = 0; z < 2; z++) {
            od = read_entry(zips[z], i, &on, &ores);
            if (e->method == 14) {
                /* LZMA members are the pakfile's own: refused alike by the check and the read */
                const char *why;
                CHECK(ores == BK_EUNSUPPORTED && bk_archive_check(zips[z], i, false, &why) == BK_EUNSUPPORTED && *why);
            } else {
                CHECK(ores == BK_OK && on == pn && pd && memcmp(od, pd, pn) == 0);
            }
            bk_free(od);
        }
        CHECK(bk_archive_check(pak, i, true, NULL) == BK_OK);
        uint8_t *x = NULL;
        size_t xn = 0;
        if (e->size) CHECK(bk_archive_read(pak, i, e->size - 1, &x, &xn) == BK_ELIMIT && !x);
        int32_t j = bk_archive_find(vpk, e->name);
        if (j >= 0) {
            const bk_archive_entry *v = bk_archive_entry_at(vpk, (uint32_t)j);
            CHECK(v->size == e->size && v->compressed_size == e->size && v->crc == e->crc && v->method == 0 &&
                  !v->is_dir && v->vpk_archive == 0x7fff);
            CHECK(bk_archive_check(vpk, (uint32_t)j, true, NULL) == BK_OK);
            od = read_entry(vpk, (uint32_t)j, &on, &ores);
            CHECK(ores == BK_OK && on == pn && memcmp(od, pd, pn) == 0);
            bk_free(od);
            if (e->size) CHECK(bk_archive_read(vpk, (uint32_t)j, e->size - 1, &x, &xn) == BK_ELIMIT && !x);
        }
        bk_free(pd);
    }
    CHECK(lzma ? (methods & (1u << 14)) != 0 : methods == 1);
    CHECK(bk_archive_find(pak, "no/such/file.txt") < 0 && bk_archive_find(vpk, "no/such/file.txt") < 0);
    CHECK(bk_archive_entry_at(pak, n) == NULL && bk_archive_entry_at(vpk, (uint32_t)written) == NULL);
done:
    bk_archive_close(pak);
    bk_archive_close(mem);
    bk_archive_close(zip);
    bk_archive_close(vpk);
    bk_file_free(f);
}

int main(int argc, char **argv)
{
    if (argc < 4) return 2;
    char stored[4096], lzma[4096];
    snprintf(stored, sizeof stored, "%s/corpus/source/css_v20_gg_lego_arena_x.bsp", argv[1]);
    snprintf(lzma, sizeof lzma, "%s/corpus/source/tf2c_v20_lzma_tdm_wintercastle.bsp", argv[1]);
    struct stat st;
    if (stat(stored, &st) != 0 || stat(lzma, &st) != 0) {
        printf("SKIP: %s ores %s missing\n", stored, lzma);
        return 77;
    }
    char work[4096];
    snprintf(work, sizeof work, "%s/source_archive", argv[3]);
    mkdir(argv[3], 0777);
    mkdir(work, 0777);
    same_shape(stored, work, false);
    same_shape(lzma, work, true);
    return CHECK_DONE();
}
