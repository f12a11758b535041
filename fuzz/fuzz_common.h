/* What every fuzz target starts with: limits sized for hostile input, the decoder in validate
 * mode (report everything, go on), then a normal load. Returns the loaded file or NULL. */
#ifndef BK_FUZZ_COMMON_H
#define BK_FUZZ_COMMON_H

#include <stdint.h>
#include <string.h>

#include "bspkit/bspkit.h"
#include "bspkit/scene.h"
#include "scene/scene_build.h"
#include "common/bk_internal.h"

/* The input as a Quake 3 map, so that the fuzzer spends its time inside the map code: its own
 * bytes when they start with "IBSP" (or with `also`, another magic; NULL: none), else behind an
 * IBSP v46 header. malloc'd (NULL: no memory), *n its size. */
static inline uint8_t *fuzz_as_ibsp(const uint8_t *data, size_t size, const char *also, size_t *n)
{
    uint8_t *buf = malloc(size + 8);
    if (!buf) return NULL;
    *n = size;
    if (size < 8 || (memcmp(data, "IBSP", 4) != 0 && (!also || memcmp(data, also, 4) != 0))) {
        memcpy(buf, "IBSP\x2e\x00\x00\x00", 8);
        memcpy(buf + 8, data, size);
        *n = size + 8;
    } else {
        memcpy(buf, data, size);
    }
    return buf;
}

static inline bk_file *fuzz_load(const uint8_t *data, size_t size, bk_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->limits.max_alloc_bytes = 256u << 20;
    opt->limits.max_elements = 8u << 20;
    uint32_t errors, warnings;
    bk_validate_memory(data, size, opt, &errors, &warnings);
    bk_file *f = NULL;
    return bk_file_load_memory(data, size, opt, &f) == BK_OK ? f : NULL;
}

/* A scene built with packed images (what convert does): every small image is unpacked and
 * encoded as its PNG, the path the exporter takes; a small scene is exported as .glb in memory
 * too (the JSON writer, and a Quake 3 atlas PNG made on the build's second thread). */
/* a scene small enough to export or draw without slowing the fuzzer (at most 64 Ki vertices,
 * 1 Mi image pixels) */
static inline bool fuzz_scene_small(const bk_scene *s)
{
    uint64_t verts = 0, px = 0;
    for (uint32_t i = 0; i < s->mesh_count; i++)
        for (uint32_t j = 0; j < s->meshes[i].prim_count; j++) verts += s->meshes[i].prims[j].vertex_count;
    for (uint32_t i = 0; i < s->image_count; i++) px += (uint64_t)s->images[i].width * s->images[i].height;
    return verts <= (1u << 16) && px <= (1u << 20);
}

static inline void fuzz_compact_scene(const bk_file *f, const bk_options *base)
{
    /* as bk_file_into_scene builds it: packed images, the file's decoded lumps given back as it goes */
    bk_scene *s = NULL;
    if (bk_scene_build(f, base, BK_OPT_COMPACT_IMAGES | BK_OPT_RELEASE_INPUT, &s) != BK_OK) return;
    for (uint32_t i = 0; i < s->image_count; i++) {
        const bk_image *im = &s->images[i];
        if (!bk_scene_image_has_pixels(s, i) || (uint64_t)im->width * im->height > (1u << 16)) continue;
        bk_buf b = {0};
        (void)bk_png_encode_image(s, i, 1, &b);
        bk_buf_free(&b);
    }
    uint64_t verts = 0, px = 0;
    for (uint32_t i = 0; i < s->mesh_count; i++)
        for (uint32_t j = 0; j < s->meshes[i].prim_count; j++) verts += s->meshes[i].prims[j].vertex_count;
    for (uint32_t i = 0; i < s->image_count; i++) px += (uint64_t)s->images[i].width * s->images[i].height;
    if (verts <= (1u << 16) && px <= (1u << 20)) {
        uint8_t *glb = NULL;
        size_t n = 0;
        if (bk_export_glb_memory(s, NULL, &glb, &n, NULL) == BK_OK) bk_free(glb);
    }
    bk_scene_free(s);
}

/* A temporary folder for targets that write files (fuzz_export, fuzz_gamedir): made on the first
 * call (/tmp/bk_fuzz_TAG.XXXXXX), removed at exit; fuzz_tmpdir_empty() after every input. Those
 * targets define BK_FUZZ_TMPDIR before including this header (it needs nftw from XOPEN). */
#ifdef BK_FUZZ_TMPDIR
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char g_fuzz_dir[64];

static int fuzz_rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st, (void)type;
    if (ftw->level > 0) remove(path);
    return 0;
}

static void fuzz_tmpdir_empty(void) { nftw(g_fuzz_dir, fuzz_rm_one, 16, FTW_DEPTH | FTW_PHYS); }

static void fuzz_tmpdir_drop(void)
{
    fuzz_tmpdir_empty();
    rmdir(g_fuzz_dir);
}

static const char *fuzz_tmpdir(const char *tag)
{
    if (!g_fuzz_dir[0]) {
        snprintf(g_fuzz_dir, sizeof g_fuzz_dir, "/tmp/bk_fuzz_%s.XXXXXX", tag);
        if (!mkdtemp(g_fuzz_dir)) abort();
        atexit(fuzz_tmpdir_drop);
    }
    return g_fuzz_dir;
}
#endif

#endif
