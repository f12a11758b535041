/* Fuzz texture decoding from game folders: the input is a tiny game folder, records of
 *   u8 name length, name, u32le data length, data
 * the first being the map (or model). The records are written under a temporary folder (made
 * once per process, emptied after every input) and the map is loaded with that folder as its
 * --game-dir: Quake 3 shaders, TGA / JPG / PNG found loose or in a .pk3, Source VMT -> VTF in
 * materials/, WADs, then the scene's images are unpacked and encoded as the exporter does.
 * Seeds: fuzz/fuzz_gamedir.seeds.py. */
#define _XOPEN_SOURCE 700
#define BK_FUZZ_TMPDIR
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_common.h"

/* a relative name of [A-Za-z0-9_.-] parts joined by '/', no "." or ".." part, up to 6 deep */
static int safe_name(const char *n)
{
    int parts = 0;
    const char *p = n;
    while (*p) {
        const char *e = p;
        while (*e && *e != '/') {
            char c = *e;
            if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
                  c == '-'))
                return 0;
            e++;
        }
        size_t len = (size_t)(e - p);
        if (len == 0 || (len == 1 && p[0] == '.') || (len == 2 && p[0] == '.' && p[1] == '.')) return 0;
        if (++parts > 6) return 0;
        p = *e ? e + 1 : e;
    }
    return parts > 0 && n[strlen(n) - 1] != '/';
}

static int write_file(const char *rel, const uint8_t *data, size_t size)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", g_fuzz_dir, rel);
    for (char *s = path + strlen(g_fuzz_dir) + 1; (s = strchr(s, '/')); s++) {
        *s = 0;
        if (mkdir(path, 0700) != 0 && errno != EEXIST) return -1;
        *s = '/';
    }
    FILE *fp = fopen(path, "wb");
    if (!fp) return -1;
    size_t w = size ? fwrite(data, 1, size, fp) : 0;
    fclose(fp);
    return w == size ? 0 : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *g_dir = fuzz_tmpdir("gamedir");
    char first[128] = "";
    size_t pos = 0;
    for (int files = 0; files < 16 && pos < size; files++) {
        size_t nl = data[pos++];
        if (nl == 0 || nl >= sizeof first || size - pos < nl + 4) break;
        char name[128];
        memcpy(name, data + pos, nl);
        name[nl] = 0;
        pos += nl;
        uint32_t dl = (uint32_t)data[pos] | (uint32_t)data[pos + 1] << 8 | (uint32_t)data[pos + 2] << 16 |
                      (uint32_t)data[pos + 3] << 24;
        pos += 4;
        if (dl > size - pos) dl = (uint32_t)(size - pos);
        if (memchr(name, 0, nl) || !safe_name(name)) break;
        if (write_file(name, data + pos, dl) != 0) break;
        if (!first[0]) memcpy(first, name, nl + 1);
        pos += dl;
    }
    if (first[0]) {
        char path[256], base[256];
        snprintf(path, sizeof path, "%s/%s", g_dir, first);
        snprintf(base, sizeof base, "%s", path);
        *strrchr(base, '/') = 0;
        const char *search[1] = {g_dir};
        bk_options opt;
        memset(&opt, 0, sizeof opt);
        opt.limits.max_alloc_bytes = 256u << 20;
        opt.limits.max_elements = 8u << 20;
        opt.name = path;
        opt.base_dir = base;
        opt.search_paths = search;
        opt.search_path_count = 1;
        bk_file *f = NULL;
        if (bk_file_open(path, &opt, &f) == BK_OK) {
            fuzz_compact_scene(f, &opt);
            bk_file_free(f);
        }
    }
    fuzz_tmpdir_empty();
    return 0;
}
