/* A program that embeds bspkit, built against the installed headers only (tests/cli/install.sh):
 * what the headers' own examples show, and what a binding (Python, WebAssembly) will call.
 * args: MAP [ARCHIVE.pk3]  prints one line per step; exit 0 when every step worked. */
#define BK_ADVANCED_API
#include <bspkit/advanced.h>
#include <bspkit/archive.h>
#include <bspkit/bspkit.h>
#include <bspkit/dpm.h>
#include <bspkit/q3.h>
#include <bspkit/quake.h>
#include <bspkit/query.h>
#include <bspkit/scene.h>
#include <bspkit/source.h>
#include <bspkit/write.h>
#include <stdio.h>
#include <string.h>

static int fails;
#define STEP(ok, ...)                                                                             \
    do {                                                                                          \
        if (ok) {                                                                                 \
            printf("ok: " __VA_ARGS__);                                                           \
        } else {                                                                                  \
            printf("FAILED: " __VA_ARGS__);                                                       \
            fails++;                                                                              \
        }                                                                                         \
        printf("\n");                                                                             \
    } while (0)

int main(int argc, char **argv)
{
    if (argc < 2) return 2;
    /* bspkit.h: open, look, free */
    bk_file *f;
    bk_result r = bk_file_open(argv[1], NULL, &f);
    STEP(r == BK_OK, "open %s: %s", argv[1], bk_strerror(r));
    if (r != BK_OK) return 1;
    const bk_info *info = bk_file_info(f);
    STEP(info && info->version != 0, "%s v%d, %u lumps", bk_format_name(bk_file_format(f)), info->version,
         info->lump_count);
    const bk_entities *es = bk_file_entities(f);
    const char *cn = es->count ? bk_entity_get(&es->items[0], "classname") : NULL;
    STEP(cn && strcmp(cn, "worldspawn") == 0, "%u entities, the first a %s", es->count, cn ? cn : "(none)");
    uint32_t crc = bk_crc32(bk_file_data(f, NULL), 16);
    STEP(crc != 0, "crc32 of the first bytes %08x", crc);

    /* query.h, as its example */
    bk_query *q;
    if (bk_query_open(f, NULL, &q) == BK_OK) {
        float pos[3] = {0, 0, 0}, to[3] = {64, 0, 0};
        bk_point_info pi;
        bk_query_point(q, 0, pos, &pi);
        bk_trace_params tp = {0};
        tp.hull = 1;
        bk_trace_result tr;
        r = bk_query_trace(q, &tp, pos, to, &tr);
        bool vis = bk_query_points_visible(q, pos, to);
        STEP(r == BK_OK && tr.fraction >= 0 && tr.fraction <= 1, "point in leaf %d, trace %.3f, %s", pi.leaf,
             tr.fraction, vis ? "visible" : "not visible");
        bk_query_free(q);
    }

    /* write.h, as its example: an unedited save is the input again */
    bk_edit *e;
    if (bk_edit_begin(f, NULL, &e) == BK_OK) {
        uint8_t *bytes = NULL;
        size_t n = 0, in_n = 0;
        const uint8_t *in = bk_file_data(f, &in_n);
        r = bk_edit_set_entities(e, es);
        if (r == BK_OK) r = bk_edit_save_memory(e, &bytes, &n);
        STEP(r == BK_OK && n > 0, "rewritten in memory: %zu bytes (input %zu)", n, in_n);
        (void)in;
        bk_free(bytes);
        bk_edit_free(e);
    }

    /* scene.h, as its example: the file goes into the scene, the scene into a .glb in memory */
    bk_scene *s;
    r = bk_file_into_scene(f, NULL, &s);
    STEP(r == BK_OK, "scene: %s", bk_strerror(r));
    if (r == BK_OK) {
        uint64_t px = 0;
        uint32_t with = 0;
        for (uint32_t i = 0; i < s->image_count; i++) {
            uint8_t *rgba;
            if (!bk_scene_image_has_pixels(s, i) || bk_scene_image_rgba(s, i, &rgba) != BK_OK) continue;
            with++;
            px += (uint64_t)s->images[i].width * s->images[i].height;
            bk_free(rgba);
        }
        STEP(s->mesh_count > 0, "%u meshes, %u materials, %u of %u images with pixels (%llu texels)", s->mesh_count,
             s->material_count, with, s->image_count, (unsigned long long)px);
        uint8_t *glb;
        size_t n;
        bk_export_stats st;
        r = bk_export_glb_memory(s, NULL, &glb, &n, &st);
        STEP(r == BK_OK && n > 12 && memcmp(glb, "glTF", 4) == 0, ".glb in memory: %zu bytes, %llu triangles", n,
             (unsigned long long)st.triangles);
        if (r == BK_OK) bk_free(glb);
        bk_scene_free(s);
    }

    /* an archive's members */
    if (argc > 2) {
        bk_archive *a;
        r = bk_archive_open(argv[2], NULL, &a);
        STEP(r == BK_OK, "archive %s: %s", argv[2], bk_strerror(r));
        if (r == BK_OK) {
            uint32_t n = bk_archive_count(a);
            uint8_t *data = NULL;
            size_t size = 0;
            r = n ? bk_archive_read(a, 0, (uint64_t)1 << 30, &data, &size) : BK_ENOTFOUND;
            STEP(r == BK_OK && size == bk_archive_entry_at(a, 0)->size, "%u members, the first %s: %zu bytes", n,
                 n ? bk_archive_entry_at(a, 0)->name : "-", size);
            bk_free(data);
            bk_archive_close(a);
        }
    }
    char *u = bk_utf8_from_8bit("caf\xe9");
    STEP(u && bk_utf8_valid(u), "latin-1 to UTF-8: %s", u ? u : "(null)");
    bk_free(u);
    return fails ? 1 : 0;
}
