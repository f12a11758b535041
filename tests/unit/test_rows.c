/* The rows drive decoding (src/formats/rows.c): every lump row that names a destination is checked
 *  - against its decoded struct: each field's destination inside the element, no two overlapping;
 *  - by a round trip of random elements (decode, encode, the same bytes) in every column;
 *  - against an independent decode, written by hand from the format headers (the Quake family's
 *    loaders as they were before the rows drove them), member by member, in every column;
 *  - on real maps (the shared corpus' Quake, GoldSrc and Hexen II maps): each decoded array
 *    encoded back gives the lump's bytes;
 *  - on DPM models (the fetched corpus' and tests/dpm's own): every record (header, bones, meshes,
 *    frames, poses, vertices, influences, texcoords, triangles, group ids) decoded by hand from
 *    model_dpmodel.h's layout compared with the loaded model, and encoded back from its rows to
 *    the file's bytes.
 *  - the Source family: its lumps decoded by hand (the loaders as they were before the rows drove
 *    them) against the rows in every column, and on every Source corpus map (v17, v19, v20, v21,
 *    the L4D2 order, LZMA lumps) each lump with a destination, in the column the map's load chose,
 *    decoded from the rows, compared value by value with the reference checker's reading
 *    (bk_field_get) and encoded back to the lump's bytes.
 * A wrong row (offset, type, destination, column) fails one of these. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "common/bk_internal.h"
#include "formats/family.h"
#include "bspkit/quake.h"
#include "bspkit/dpm.h"
#include "formats/dpm/dpm_internal.h"
#include "bspkit/source.h"
#include "formats/source/vbsp_internal.h"

static uint32_t g_rng = 12345;
static uint8_t rnd8(void)
{
    g_rng = g_rng * 1103515245u + 12345u;
    return (uint8_t)(g_rng >> 16);
}
/* random bytes; f32 fields get small finite values (a NaN's payload would still round-trip, but
 * the independent decode compares with ==) */
static void fill(uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) p[i] = rnd8();
}

static void test_rows_shape(void)
{
    size_t nf;
    const bk_family *const *fams = bk_family_table(&nf);
    int described = 0;
    for (size_t fi = 0; fi < nf; fi++) {
        const bk_family *fam = fams[fi];
        for (uint32_t li = 0; li < fam->lump_count; li++) {
            const bk_lump_desc *l = &fam->lumps[li];
            if (!l->dst_size) continue;
            for (uint8_t c = 0; c < BK_FAMILY_COLUMNS; c++) {
                const bk_fields *fs = &l->fields[c];
                if (!fs->count) continue;
                described++;
                uint8_t *used = calloc(l->dst_size, 1);
                for (uint32_t r = 0; r < fs->count; r++) {
                    const bk_field *f = &fs->rows[r];
                    if (!f->to) continue;
                    bool bytes = f->type == BK_FT_CHARS || f->type == BK_FT_BYTES;
                    uint32_t values = f->dst_count ? f->dst_count : f->count;
                    CHECK(values <= f->count);
                    uint32_t n = bytes ? values : values * bk_ftype_size((uint8_t)(f->to - 1));
                    bool fits = f->dst + n <= l->dst_size;
                    if (!fits) fprintf(stderr, "%s %s[%u].%s: destination past the struct\n", fam->name, l->name, c, f->name);
                    CHECK(fits);
                    for (uint32_t b = 0; fits && b < n; b++) {
                        if (used[f->dst + b])
                            fprintf(stderr, "%s %s[%u].%s: destination overlaps\n", fam->name, l->name, c, f->name);
                        CHECK(!used[f->dst + b]);
                        used[f->dst + b] = 1;
                    }
                }
                free(used);
                /* round trip: random elements decoded and encoded again give their bytes back, in
                 * every byte a decoded field covers */
                enum { N = 64 };
                uint32_t e = l->entry[c];
                uint8_t *src = malloc((size_t)e * N), *back = calloc((size_t)e * N, 1), *mask = calloc(e, 1);
                void *dst = calloc(N, l->dst_size);
                fill(src, (size_t)e * N);
                for (uint32_t r = 0; r < fs->count; r++) {
                    const bk_field *f = &fs->rows[r];
                    if (!f->to) continue;
                    bool bytes = f->type == BK_FT_CHARS || f->type == BK_FT_BYTES;
                    uint32_t values = f->dst_count ? f->dst_count : f->count;
                    uint32_t n = bytes ? values : values * bk_ftype_size(f->type);
                    memset(mask + f->offset, 1, n);
                    /* a float field: values that survive int64 (the encoder's narrowing guard) */
                    if (f->type == BK_FT_F32)
                        for (uint32_t i = 0; i < N; i++)
                            for (uint32_t k = 0; k < f->count; k++) {
                                float v = (float)(rnd8() - 128) / 4.0f;
                                memcpy(src + (size_t)i * e + f->offset + 4 * k, &v, 4);
                            }
                }
                bool be = strcmp(fam->name, "dpm") == 0;
                bk_decode_rows(fs, src, e, N, dst, l->dst_size, be);
                bk_encode_rows(fs, dst, l->dst_size, N, back, e, be);
                bool same = true;
                for (uint32_t i = 0; i < N; i++)
                    for (uint32_t b = 0; b < e; b++)
                        if (mask[b] && src[(size_t)i * e + b] != back[(size_t)i * e + b]) {
                            if (same) fprintf(stderr, "element %u byte %u: %02x, back %02x\n", i, b, src[(size_t)i * e + b], back[(size_t)i * e + b]);
                            same = false;
                        }
                if (!same) fprintf(stderr, "%s %s column %u: round trip differs\n", fam->name, l->name, c);
                CHECK(same);
                free(src), free(back), free(mask), free(dst);
            }
        }
    }
    printf("%d lump columns decoded from rows\n", described);
    CHECK(described >= 11 * 3);
}

/* ---- the Quake family's lumps decoded by hand (bspfile.h; BSP2 / 2PSB from the BSP2 extension) */
static const bk_lump_desc *q1(int lump) { return &bk_family_quake.lumps[lump]; }

static void *decode(int lump, uint8_t col, const uint8_t *src, uint32_t n)
{
    void *dst = calloc(n, q1(lump)->dst_size);
    bk_decode_rows(&q1(lump)->fields[col], src, q1(lump)->entry[col], n, dst, q1(lump)->dst_size, false);
    return dst;
}

static void test_quake_by_hand(void)
{
    enum { N = 32 };
    uint8_t src[N * 64];
    for (uint8_t col = 0; col < 3; col++) {
        bool wide = col != 0;
        fill(src, sizeof src);
        bool ok = true;
        /* nodes */
        bk_q1_node *nd = decode(BK_Q1_LUMP_NODES, col, src, N);
        for (uint32_t i = 0; i < N; i++) {
            const uint8_t *p = src + (size_t)i * (col == 0 ? 24 : col == 1 ? 44 : 32);
            ok &= nd[i].plane == bk_rd_i32le(p);
            if (col == 0) {
                ok &= nd[i].children[0] == bk_rd_i16le(p + 4) && nd[i].children[1] == bk_rd_i16le(p + 6);
                for (int k = 0; k < 3; k++)
                    ok &= nd[i].mins[k] == bk_rd_i16le(p + 8 + 2 * k) && nd[i].maxs[k] == bk_rd_i16le(p + 14 + 2 * k);
                ok &= nd[i].first_face == bk_rd_u16le(p + 20) && nd[i].face_count == bk_rd_u16le(p + 22);
            } else {
                ok &= nd[i].children[0] == bk_rd_i32le(p + 4) && nd[i].children[1] == bk_rd_i32le(p + 8);
                for (int k = 0; k < 3; k++)
                    if (col == 1) {
                        float a = bk_rd_f32le(p + 12 + 4 * k), b = bk_rd_f32le(p + 24 + 4 * k);
                        ok &= !memcmp(&nd[i].mins[k], &a, 4) && !memcmp(&nd[i].maxs[k], &b, 4);
                    } else {
                        ok &= nd[i].mins[k] == bk_rd_i16le(p + 12 + 2 * k) && nd[i].maxs[k] == bk_rd_i16le(p + 18 + 2 * k);
                    }
                uint32_t at = col == 1 ? 36 : 24;
                ok &= nd[i].first_face == bk_rd_u32le(p + at) && nd[i].face_count == bk_rd_u32le(p + at + 4);
            }
        }
        free(nd);
        if (!ok) fprintf(stderr, "nodes column %u\n", col);
        CHECK(ok);
        /* leafs */
        ok = true;
        bk_q1_leaf *lf = decode(BK_Q1_LUMP_LEAFS, col, src, N);
        for (uint32_t i = 0; i < N; i++) {
            const uint8_t *p = src + (size_t)i * (col == 0 ? 28 : col == 1 ? 44 : 32);
            ok &= lf[i].contents == bk_rd_i32le(p) && lf[i].vis_ofs == bk_rd_i32le(p + 4);
            for (int k = 0; k < 3; k++)
                if (col == 1) {
                    float a = bk_rd_f32le(p + 8 + 4 * k), b = bk_rd_f32le(p + 20 + 4 * k);
                    ok &= !memcmp(&lf[i].mins[k], &a, 4) && !memcmp(&lf[i].maxs[k], &b, 4);
                } else {
                    ok &= lf[i].mins[k] == bk_rd_i16le(p + 8 + 2 * k) && lf[i].maxs[k] == bk_rd_i16le(p + 14 + 2 * k);
                }
            if (col == 0)
                ok &= lf[i].first_marksurface == bk_rd_u16le(p + 20) && lf[i].marksurface_count == bk_rd_u16le(p + 22) &&
                      !memcmp(lf[i].ambient, p + 24, 4);
            else if (col == 1)
                ok &= lf[i].first_marksurface == bk_rd_u32le(p + 32) && lf[i].marksurface_count == bk_rd_u32le(p + 36) &&
                      !memcmp(lf[i].ambient, p + 40, 4);
            else
                ok &= lf[i].first_marksurface == bk_rd_u32le(p + 20) && lf[i].marksurface_count == bk_rd_u32le(p + 24) &&
                      !memcmp(lf[i].ambient, p + 28, 4);
        }
        free(lf);
        if (!ok) fprintf(stderr, "leafs column %u\n", col);
        CHECK(ok);
        /* faces */
        ok = true;
        bk_q1_face *fc = decode(BK_Q1_LUMP_FACES, col, src, N);
        for (uint32_t i = 0; i < N; i++) {
            const uint8_t *p = src + (size_t)i * (wide ? 28 : 20);
            if (!wide)
                ok &= fc[i].plane == bk_rd_u16le(p) && fc[i].side == bk_rd_u16le(p + 2) &&
                      fc[i].first_edge == bk_rd_u32le(p + 4) && fc[i].edge_count == bk_rd_u16le(p + 8) &&
                      fc[i].texinfo == bk_rd_u16le(p + 10) && !memcmp(fc[i].styles, p + 12, 4) &&
                      fc[i].light_ofs == bk_rd_i32le(p + 16);
            else
                ok &= fc[i].plane == bk_rd_u32le(p) && fc[i].side == bk_rd_u32le(p + 4) &&
                      fc[i].first_edge == bk_rd_u32le(p + 8) && fc[i].edge_count == bk_rd_u32le(p + 12) &&
                      fc[i].texinfo == bk_rd_u32le(p + 16) && !memcmp(fc[i].styles, p + 20, 4) &&
                      fc[i].light_ofs == bk_rd_i32le(p + 24);
        }
        free(fc);
        if (!ok) fprintf(stderr, "faces column %u\n", col);
        CHECK(ok);
        /* clipnodes, marksurfaces, edges, surfedges */
        ok = true;
        bk_q1_clipnode *cn = decode(BK_Q1_LUMP_CLIPNODES, col, src, N);
        uint32_t *ms = decode(BK_Q1_LUMP_MARKSURFACES, col, src, N);
        bk_q1_edge *ed = decode(BK_Q1_LUMP_EDGES, col, src, N);
        int32_t *se = decode(BK_Q1_LUMP_SURFEDGES, col, src, N);
        for (uint32_t i = 0; i < N; i++) {
            if (!wide) {
                const uint8_t *p = src + (size_t)i * 8;
                ok &= cn[i].plane == bk_rd_i32le(p) && cn[i].children[0] == bk_rd_i16le(p + 4) &&
                      cn[i].children[1] == bk_rd_i16le(p + 6);
                ok &= ms[i] == bk_rd_u16le(src + 2 * i);
                ok &= ed[i].v[0] == bk_rd_u16le(src + 4 * i) && ed[i].v[1] == bk_rd_u16le(src + 4 * i + 2);
            } else {
                const uint8_t *p = src + (size_t)i * 12;
                ok &= cn[i].plane == bk_rd_i32le(p) && cn[i].children[0] == bk_rd_i32le(p + 4) &&
                      cn[i].children[1] == bk_rd_i32le(p + 8);
                ok &= ms[i] == bk_rd_u32le(src + 4 * i);
                ok &= ed[i].v[0] == bk_rd_u32le(src + 8 * i) && ed[i].v[1] == bk_rd_u32le(src + 8 * i + 4);
            }
            ok &= se[i] == bk_rd_i32le(src + 4 * i);
        }
        free(cn), free(ms), free(ed), free(se);
        if (!ok) fprintf(stderr, "clipnodes/marksurfaces/edges/surfedges column %u\n", col);
        CHECK(ok);
        /* planes, texinfo, models: the file's layout (compared as bytes) */
        bk_q1_plane *pl = decode(BK_Q1_LUMP_PLANES, col, src, N);
        bk_q1_texinfo *ti = decode(BK_Q1_LUMP_TEXINFO, col, src, N);
        bk_q1_model *md = decode(BK_Q1_LUMP_MODELS, col, src, N);
        CHECK(!memcmp(pl, src, N * 20) && !memcmp(ti, src, N * 40) && !memcmp(md, src, N * 64));
        float *vx = decode(BK_Q1_LUMP_VERTICES, col, src, N);
        CHECK(!memcmp(vx, src, N * 12));
        free(pl), free(ti), free(md), free(vx);
    }
}

/* ---- real maps: each decoded array encoded from its rows is the lump's bytes ------------------ */
static int test_map(const char *path)
{
    bk_file *f = NULL;
    if (bk_file_open(path, NULL, &f) != BK_OK) return 0; /* a Quake 2 map among them is refused */
    const bk_quake_bsp *q = bk_quake_bsp_of(f);
    if (!q) {
        bk_file_free(f);
        return 0;
    }
    uint8_t col = q->variant == BK_Q1_VARIANT_BSP2 ? 1 : q->variant == BK_Q1_VARIANT_2PSB ? 2 : 0;
    const void *arr[BK_Q1_LUMP_COUNT] = {0};
    uint32_t cnt[BK_Q1_LUMP_COUNT] = {0};
    arr[BK_Q1_LUMP_PLANES] = q->planes, cnt[BK_Q1_LUMP_PLANES] = q->plane_count;
    arr[BK_Q1_LUMP_VERTICES] = q->vertices, cnt[BK_Q1_LUMP_VERTICES] = q->vertex_count;
    arr[BK_Q1_LUMP_NODES] = q->nodes, cnt[BK_Q1_LUMP_NODES] = q->node_count;
    arr[BK_Q1_LUMP_TEXINFO] = q->texinfo, cnt[BK_Q1_LUMP_TEXINFO] = q->texinfo_count;
    arr[BK_Q1_LUMP_FACES] = q->faces, cnt[BK_Q1_LUMP_FACES] = q->face_count;
    arr[BK_Q1_LUMP_CLIPNODES] = q->clipnodes, cnt[BK_Q1_LUMP_CLIPNODES] = q->clipnode_count;
    arr[BK_Q1_LUMP_LEAFS] = q->leafs, cnt[BK_Q1_LUMP_LEAFS] = q->leaf_count;
    arr[BK_Q1_LUMP_MARKSURFACES] = q->marksurfaces, cnt[BK_Q1_LUMP_MARKSURFACES] = q->marksurface_count;
    arr[BK_Q1_LUMP_EDGES] = q->edges, cnt[BK_Q1_LUMP_EDGES] = q->edge_count;
    arr[BK_Q1_LUMP_SURFEDGES] = q->surfedges, cnt[BK_Q1_LUMP_SURFEDGES] = q->surfedge_count;
    arr[BK_Q1_LUMP_MODELS] = q->models, cnt[BK_Q1_LUMP_MODELS] = q->model_count;
    FILE *fp = fopen(path, "rb");
    for (int l = 0; l < BK_Q1_LUMP_COUNT && fp; l++) {
        if (!arr[l]) continue;
        const bk_lump_desc *row = q1(l);
        size_t n = (size_t)cnt[l] * row->entry[col];
        CHECK(n == q->lump_length[l]);
        uint8_t *want = malloc(n + 1), *got = calloc(n + 1, 1);
        fseek(fp, (long)q->lump_offset[l], SEEK_SET);
        CHECK(fread(want, 1, n, fp) == n);
        bk_encode_rows(&row->fields[col], arr[l], row->dst_size, cnt[l], got, row->entry[col], false);
        bool same = !memcmp(want, got, n);
        if (!same) fprintf(stderr, "%s: lump %s: encoded from the decoded array, differs\n", path, row->name);
        CHECK(same);
        free(want), free(got);
    }
    if (fp) fclose(fp);
    bk_file_free(f);
    return 1;
}

/* ---- DPM models: every record by hand (big-endian, model_dpmodel.h) and back from the rows ----- */
static bool f32_is(float v, const uint8_t *p)
{
    float w = bk_rd_f32be(p);
    return !memcmp(&v, &w, 4);
}
/* count records of row at `at` encoded back from their decoded array: the file's bytes in every
 * byte a decoded field covers (names, which the loader copies up to their NUL, are left out) */
static bool encodes_back(const bk_lump_desc *row, const void *arr, uint32_t count, const uint8_t *at)
{
    size_t n = (size_t)count * row->entry[0];
    uint8_t *got = calloc(n + 1, 1);
    bk_encode_rows(&row->fields[0], arr, row->dst_size, count, got, row->entry[0], true);
    bool same = true;
    for (uint32_t r = 0; r < row->fields[0].count; r++) {
        const bk_field *f = &row->fields[0].rows[r];
        if (!f->to) continue;
        uint32_t w = f->count * bk_ftype_size(f->type);
        for (uint32_t i = 0; i < count; i++)
            same &= !memcmp(got + (size_t)i * row->entry[0] + f->offset, at + (size_t)i * row->entry[0] + f->offset, w);
    }
    free(got);
    if (!same) fprintf(stderr, "DPM %s: encoded from the decoded records, differs\n", row->name);
    return same;
}

static int test_dpm(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp) return 0;
    fseek(fp, 0, SEEK_END);
    long sz = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    uint8_t *d = malloc((size_t)sz + 1);
    bool read = fread(d, 1, (size_t)sz, fp) == (size_t)sz;
    fclose(fp);
    bk_file *f = NULL;
    if (!read || bk_file_open(path, NULL, &f) != BK_OK || !bk_dpm_model_of(f)) {
        fprintf(stderr, "%s: does not load\n", path);
        CHECK(0);
        bk_file_free(f);
        free(d);
        return 0;
    }
    const bk_dpm_model *m = bk_dpm_model_of(f);
    const bk_lump_desc *tab = bk_family_dpm.lumps, *rec = bk_dpm_records;
    bool ok = true;
    /* the header */
    dpm_header h;
    memset(&h, 0, sizeof h);
    bk_decode_rows(&rec[DPM_REC_HEADER].fields[0], d, DPM_HEADER_SIZE, 1, &h, sizeof h, true);
    ok &= h.type == bk_rd_u32be(d + 16) && h.filesize == bk_rd_u32be(d + 20);
    for (int k = 0; k < 3; k++)
        ok &= f32_is(m->mins[k], d + 24 + 4 * k) && f32_is(m->maxs[k], d + 36 + 4 * k) && f32_is(h.mins[k], d + 24 + 4 * k);
    ok &= f32_is(m->yawradius, d + 48) && f32_is(m->allradius, d + 52);
    uint32_t nb = bk_rd_u32be(d + 56), nm = bk_rd_u32be(d + 60), nf = bk_rd_u32be(d + 64);
    uint32_t ob = bk_rd_u32be(d + 68), om = bk_rd_u32be(d + 72), of = bk_rd_u32be(d + 76);
    ok &= m->bone_count == nb && m->mesh_count == nm && m->frame_count == nf && h.num_bones == nb &&
          h.num_meshes == nm && h.num_frames == nf && h.ofs_bones == ob && h.ofs_meshes == om && h.ofs_frames == of;
    if (!ok) fprintf(stderr, "%s: header differs\n", path);
    CHECK(ok);
    ok &= encodes_back(&rec[DPM_REC_HEADER], &h, 1, d);
    /* bones */
    for (uint32_t i = 0; ok && i < nb; i++) {
        const uint8_t *p = d + ob + (size_t)i * 40;
        ok &= !strncmp(m->bones[i].name, (const char *)p, 32) && m->bones[i].parent == bk_rd_i32be(p + 32) &&
              m->bones[i].flags == bk_rd_u32be(p + 36);
    }
    ok &= encodes_back(&tab[DPM_TABLE_BONES], m->bones, nb, d + ob);
    if (!ok) fprintf(stderr, "%s: bones differ\n", path);
    CHECK(ok);
    /* frames and their poses */
    for (uint32_t i = 0; ok && i < nf; i++) {
        const uint8_t *p = d + of + (size_t)i * 68;
        const bk_dpm_frame *fr = &m->frames[i];
        ok &= !strncmp(fr->name, (const char *)p, 32);
        for (int k = 0; k < 3; k++) ok &= f32_is(fr->mins[k], p + 32 + 4 * k) && f32_is(fr->maxs[k], p + 44 + 4 * k);
        ok &= f32_is(fr->yawradius, p + 56) && f32_is(fr->allradius, p + 60);
        dpm_frame_rec fx;
        bk_decode_rows(&tab[DPM_TABLE_FRAMES].fields[0], p, 68, 1, &fx, sizeof fx, true);
        int32_t po = bk_rd_i32be(p + 64);
        ok &= fx.ofs_bonepositions == po && encodes_back(&tab[DPM_TABLE_FRAMES], &fx, 1, p);
        for (uint32_t b = 0; b < nb; b++)
            for (int k = 0; k < 12; k++) ok &= f32_is(fr->pose[(size_t)b * 12 + k], d + po + (size_t)b * 48 + 4 * k);
        ok &= encodes_back(&rec[DPM_REC_POSE], fr->pose, nb, d + po);
    }
    if (!ok) fprintf(stderr, "%s: frames differ\n", path);
    CHECK(ok);
    /* meshes: their vertices (an influence count, then the influences), texcoords, triangles, group ids */
    for (uint32_t i = 0; ok && i < nm; i++) {
        const uint8_t *p = d + om + (size_t)i * 56;
        const bk_dpm_mesh *me = &m->meshes[i];
        uint32_t nv = bk_rd_u32be(p + 32), nt = bk_rd_u32be(p + 36);
        uint32_t ov = bk_rd_u32be(p + 40), ot = bk_rd_u32be(p + 44), oi = bk_rd_u32be(p + 48), og = bk_rd_u32be(p + 52);
        ok &= !strncmp(me->shader, (const char *)p, 32) && me->vertex_count == nv && me->triangle_count == nt;
        dpm_mesh_rec mx;
        bk_decode_rows(&tab[DPM_TABLE_MESHES].fields[0], p, 56, 1, &mx, sizeof mx, true);
        ok &= mx.num_verts == nv && mx.num_tris == nt && mx.ofs_verts == ov && mx.ofs_texcoords == ot &&
              mx.ofs_indices == oi && mx.ofs_groupids == og && encodes_back(&tab[DPM_TABLE_MESHES], &mx, 1, p);
        size_t pos = ov;
        for (uint32_t v = 0; ok && v < nv; v++) {
            uint32_t k = bk_rd_u32be(d + pos), first = me->first_influence[v];
            ok &= me->first_influence[v + 1] - first == k && encodes_back(&rec[DPM_REC_VERTEX], &k, 1, d + pos);
            pos += 4;
            for (uint32_t j = 0; ok && j < k; j++, pos += 32) {
                const bk_dpm_influence *in = &me->influences[first + j];
                for (int c = 0; c < 3; c++) ok &= f32_is(in->origin[c], d + pos + 4 * c) && f32_is(in->normal[c], d + pos + 16 + 4 * c);
                ok &= f32_is(in->influence, d + pos + 12) && in->bone == bk_rd_u32be(d + pos + 28);
            }
            ok &= encodes_back(&rec[DPM_REC_INFLUENCE], me->influences + first, k, d + pos - (size_t)k * 32);
        }
        for (uint32_t v = 0; v < nv; v++) ok &= f32_is(me->texcoords[2 * v], d + ot + 8 * v) && f32_is(me->texcoords[2 * v + 1], d + ot + 8 * v + 4);
        for (uint32_t t = 0; t < nt; t++) {
            for (int c = 0; c < 3; c++) ok &= me->indices[3 * t + c] == bk_rd_u32be(d + oi + 12 * t + 4 * c);
            ok &= me->groupids[t] == bk_rd_u32be(d + og + 4 * t);
        }
        ok &= encodes_back(&rec[DPM_REC_TEXCOORD], me->texcoords, nv, d + ot) &&
              encodes_back(&rec[DPM_REC_TRIANGLE], me->indices, nt, d + oi) &&
              encodes_back(&rec[DPM_REC_GROUPID], me->groupids, nt, d + og);
        if (!ok) fprintf(stderr, "%s: mesh %u differs\n", path, i);
    }
    CHECK(ok);
    bk_file_free(f);
    free(d);
    return 1;
}

static int test_dpm_dir(const char *dir)
{
    DIR *dp = opendir(dir);
    if (!dp) return -1;
    int n = 0;
    struct dirent *de;
    while ((de = readdir(dp))) {
        size_t len = strlen(de->d_name);
        if (len < 4 || strcmp(de->d_name + len - 4, ".dpm")) continue;
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        n += test_dpm(path);
    }
    closedir(dp);
    return n;
}

/* ---- the Source family by hand (bspfile.h): the reads the loaders made before the rows ---------- */
static void *src_decode(int lump, uint8_t col, const uint8_t *src, uint32_t n)
{
    const bk_lump_desc *l = &bk_family_source.lumps[lump];
    void *dst = calloc(n, l->dst_size);
    bk_decode_rows(&l->fields[col], src, l->entry[col], n, dst, l->dst_size, false);
    return dst;
}

static void test_source_by_hand(void)
{
    enum { N = 32 };
    uint8_t *src = malloc(N * 200);
    for (uint8_t col = 0; col < 3; col++) {
        fill(src, N * 200);
        for (uint32_t i = 0; i < N * 200 / 4; i++) /* finite floats wherever one may stand */
            if ((src[4 * i + 3] & 0x7f) == 0x7f) src[4 * i + 3] = 0x3f;
        bool ok = true;
        /* faces: 56 bytes, Bloodlines' 104 with 32 bytes of colours first and eight styles */
        bk_source_face *fa = src_decode(BK_SRC_LUMP_FACES, col, src, N);
        bool v17 = col == 2;
        for (uint32_t i = 0; i < N; i++) {
            const uint8_t *d = src + (size_t)i * (v17 ? 104 : 56), *b = v17 ? d + 32 : d;
            const bk_source_face *f = &fa[i];
            ok &= f->planenum == bk_rd_u16le(b) && f->side == b[2] && f->on_node == b[3] &&
                  f->firstedge == bk_rd_i32le(b + 4) && f->numedges == bk_rd_i16le(b + 8) &&
                  f->texinfo == bk_rd_i16le(b + 10) && f->dispinfo == bk_rd_i16le(b + 12) &&
                  f->fog_volume == bk_rd_i16le(b + 14) && !memcmp(f->styles, b + 16, 4);
            const uint8_t *t = d + (v17 ? 72 : 20);
            float area = bk_rd_f32le(t + 4);
            ok &= f->lightofs == bk_rd_i32le(t) && !memcmp(&f->area, &area, 4) && f->lm_mins[0] == bk_rd_i32le(t + 8) &&
                  f->lm_mins[1] == bk_rd_i32le(t + 12) && f->lm_size[0] == bk_rd_i32le(t + 16) &&
                  f->lm_size[1] == bk_rd_i32le(t + 20) && f->orig_face == bk_rd_i32le(t + 24);
            if (v17) ok &= f->num_prims == 0 && f->first_prim == 0 && f->smoothing_groups == bk_rd_u32le(d + 100);
            else
                ok &= f->num_prims == bk_rd_u16le(d + 48) && f->first_prim == bk_rd_u16le(d + 50) &&
                      f->smoothing_groups == bk_rd_u32le(d + 52);
        }
        free(fa);
        if (!ok) fprintf(stderr, "source faces column %u\n", col);
        CHECK(ok);
        /* leafs: 56 bytes in column 0, 32 in the others; area:9 and flags:7 in one word (the
         * loader parts it; the rows give the word) */
        ok = true;
        bk_source_leaf *lf = src_decode(BK_SRC_LUMP_LEAFS, col, src, N);
        for (uint32_t i = 0; i < N; i++) {
            const uint8_t *d = src + (size_t)i * (col == 0 ? 56 : 32);
            const bk_source_leaf *l = &lf[i];
            ok &= l->contents == bk_rd_i32le(d) && l->cluster == bk_rd_i16le(d + 4) && l->area == bk_rd_u16le(d + 6);
            for (int k = 0; k < 3; k++) ok &= l->mins[k] == bk_rd_i16le(d + 8 + 2 * k) && l->maxs[k] == bk_rd_i16le(d + 14 + 2 * k);
            ok &= l->firstleafface == bk_rd_u16le(d + 20) && l->numleaffaces == bk_rd_u16le(d + 22) &&
                  l->firstleafbrush == bk_rd_u16le(d + 24) && l->numleafbrushes == bk_rd_u16le(d + 26) &&
                  l->leaf_water_data == bk_rd_i16le(d + 28);
        }
        free(lf);
        if (!ok) fprintf(stderr, "source leafs column %u\n", col);
        CHECK(ok);
        /* nodes, dispinfo, areaportals, brushsides, edges, leaffaces */
        ok = true;
        bk_source_node *nd = src_decode(BK_SRC_LUMP_NODES, col, src, N);
        bk_source_dispinfo *di = src_decode(BK_SRC_LUMP_DISPINFO, col, src, N);
        bk_source_areaportal *ap = src_decode(BK_SRC_LUMP_AREAPORTALS, col, src, N);
        bk_source_brushside *bs = src_decode(BK_SRC_LUMP_BRUSHSIDES, col, src, N);
        uint32_t *ed = src_decode(BK_SRC_LUMP_EDGES, col, src, N);
        uint16_t *lfc = src_decode(BK_SRC_LUMP_LEAFFACES, col, src, N);
        for (uint32_t i = 0; i < N; i++) {
            const uint8_t *d = src + (size_t)i * 32;
            ok &= nd[i].planenum == bk_rd_i32le(d) && nd[i].children[0] == bk_rd_i32le(d + 4) &&
                  nd[i].children[1] == bk_rd_i32le(d + 8) && nd[i].firstface == bk_rd_u16le(d + 24) &&
                  nd[i].numfaces == bk_rd_u16le(d + 26) && nd[i].area == bk_rd_i16le(d + 28);
            for (int k = 0; k < 3; k++) ok &= nd[i].mins[k] == bk_rd_i16le(d + 12 + 2 * k) && nd[i].maxs[k] == bk_rd_i16le(d + 18 + 2 * k);
            d = src + (size_t)i * 176;
            ok &= !memcmp(di[i].start, d, 12) && di[i].vert_start == bk_rd_i32le(d + 12) &&
                  di[i].tri_start == bk_rd_i32le(d + 16) && di[i].power == bk_rd_i32le(d + 20) &&
                  di[i].min_tess == bk_rd_i32le(d + 24) && !memcmp(&di[i].smoothing_angle, d + 28, 4) &&
                  di[i].contents == bk_rd_i32le(d + 32) && di[i].map_face == bk_rd_u16le(d + 36) &&
                  di[i].lm_alpha_start == bk_rd_i32le(d + 40) && di[i].lm_sample_start == bk_rd_i32le(d + 44);
            d = src + (size_t)i * 12;
            ok &= ap[i].portal_key == bk_rd_u16le(d) && ap[i].other_area == bk_rd_u16le(d + 2) &&
                  ap[i].first_clip_vert == bk_rd_u16le(d + 4) && ap[i].num_clip_verts == bk_rd_u16le(d + 6) &&
                  ap[i].planenum == bk_rd_i32le(d + 8);
            d = src + (size_t)i * 8;
            ok &= bs[i].planenum == bk_rd_u16le(d) && bs[i].texinfo == bk_rd_i16le(d + 2) &&
                  bs[i].dispinfo == bk_rd_i16le(d + 4) && bs[i].bevel == bk_rd_i16le(d + 6);
            ok &= ed[2 * i] == bk_rd_u16le(src + 4 * i) && ed[2 * i + 1] == bk_rd_u16le(src + 4 * i + 2);
            ok &= lfc[i] == bk_rd_u16le(src + 2 * i);
        }
        free(nd), free(di), free(ap), free(bs), free(ed), free(lfc);
        if (!ok) fprintf(stderr, "source nodes/dispinfo/areaportals/brushsides/edges/leaffaces column %u\n", col);
        CHECK(ok);
        /* texinfo (two rows of four floats each) and world lights (column 1: shadow_cast_offset first) */
        ok = true;
        bk_source_texinfo *ti = src_decode(BK_SRC_LUMP_TEXINFO, col, src, N);
        bk_source_worldlight *wl = src_decode(BK_SRC_LUMP_WORLDLIGHTS, col, src, N);
        for (uint32_t i = 0; i < N; i++) {
            const uint8_t *d = src + (size_t)i * 72;
            ok &= !memcmp(ti[i].tex_vecs, d, 32) && !memcmp(ti[i].lm_vecs, d + 32, 32) &&
                  ti[i].flags == bk_rd_i32le(d + 64) && ti[i].texdata == bk_rd_i32le(d + 68);
            d = src + (size_t)i * (col == 1 ? 100 : 88);
            const uint8_t *t = d + (col == 1 ? 48 : 36);
            ok &= !memcmp(wl[i].origin, d, 12) && !memcmp(wl[i].intensity, d + 12, 12) && !memcmp(wl[i].normal, d + 24, 12);
            if (col == 1) ok &= !memcmp(wl[i].shadow_cast_offset, d + 36, 12);
            ok &= wl[i].cluster == bk_rd_i32le(t) && wl[i].type == bk_rd_i32le(t + 4) && wl[i].style == bk_rd_i32le(t + 8) &&
                  !memcmp(&wl[i].stopdot, t + 12, 4) && !memcmp(&wl[i].stopdot2, t + 16, 4) &&
                  !memcmp(&wl[i].exponent, t + 20, 4) && !memcmp(&wl[i].radius, t + 24, 4) &&
                  !memcmp(&wl[i].constant_attn, t + 28, 4) && !memcmp(&wl[i].linear_attn, t + 32, 4) &&
                  !memcmp(&wl[i].quadratic_attn, t + 36, 4) && wl[i].flags == bk_rd_i32le(t + 40) &&
                  wl[i].texinfo == bk_rd_i32le(t + 44) && wl[i].owner == bk_rd_i32le(t + 48);
        }
        free(ti), free(wl);
        if (!ok) fprintf(stderr, "source texinfo/worldlights column %u\n", col);
        CHECK(ok);
    }
    free(src);
    /* the column by lump version: the leafs' 56 bytes only in version 0 outside Bloodlines */
    const bk_lump_desc *leafs = &bk_family_source.lumps[BK_SRC_LUMP_LEAFS];
    CHECK(bk_rows_column(leafs, 0, 0) == 0 && bk_rows_column(leafs, 0, 1) == 1 && bk_rows_column(leafs, 0, -1) == 1);
    CHECK(bk_rows_column(leafs, 2, 0) == 2 && bk_rows_column(leafs, 2, 1) == 2);
    CHECK(bk_rows_column(&bk_family_source.lumps[BK_SRC_LUMP_FACES], 2, 7) == 2);
    const bk_lump_desc *occ = &bk_family_source.lumps[BK_SRC_LUMP_OCCLUSION];
    CHECK(bk_rows_column(occ, 0, 2) == 0 && bk_rows_column(occ, 0, 1) == 1);
}

/* A Source map: every lump with a destination, in the column its load chose, decoded from the rows
 * and compared with the checker's reading, then encoded back to its bytes. seen[lump] gets bit col. */
static int test_source_map(const char *path, uint8_t *seen)
{
    bk_file *f = NULL;
    if (bk_file_open(path, NULL, &f) != BK_OK) return 0; /* v25, v42, rBSP, PSBV are refused */
    if (!bk_source_map_of(f)) {
        bk_file_free(f);
        return 0;
    }
    const bk_family *fam = &bk_family_source;
    for (uint32_t li = 0; li < fam->lump_count; li++) {
        const bk_lump_desc *row = &fam->lumps[li];
        bk_lump_view v;
        if (!row->dst_size || bk_lump_view_of(f, li, &v) != BK_OK || !v.size) continue;
        uint8_t col = v.column;
        uint32_t e = row->entry[col];
        if (v.size % e) continue; /* a size the loader reports */
        uint32_t n = (uint32_t)(v.size / e);
        const bk_fields *fs = &row->fields[col];
        uint8_t *dst = calloc(n, row->dst_size), *back = calloc(v.size, 1), *mask = calloc(e, 1);
        bk_decode_rows(fs, v.data, e, n, dst, row->dst_size, false);
        bool same = true;
        for (uint32_t r = 0; r < fs->count; r++) {
            const bk_field *fd = &fs->rows[r];
            if (!fd->to) continue;
            uint8_t to = (uint8_t)(fd->to - 1);
            uint32_t values = fd->dst_count ? fd->dst_count : fd->count;
            bool bytes = fd->type == BK_FT_CHARS || fd->type == BK_FT_BYTES;
            memset(mask + fd->offset, 1, bytes ? values : values * bk_ftype_size(fd->type));
            for (uint32_t i = 0; i < n && same && !bytes; i++)
                for (uint32_t k = 0; k < values; k++) {
                    const uint8_t *m = dst + (size_t)i * row->dst_size + fd->dst + (size_t)k * bk_ftype_size(to);
                    const uint8_t *st = v.data + (size_t)i * e + fd->offset + (size_t)k * bk_ftype_size(fd->type);
                    int64_t got;
                    switch (to) {
                    case BK_FT_F32: got = memcmp(m, st, 4) == 0 ? bk_field_get(fd, v.data + (size_t)i * e, k) : INT64_MIN; break;
                    case BK_FT_U32: { uint32_t x; memcpy(&x, m, 4); got = x; break; }
                    case BK_FT_I32: { int32_t x; memcpy(&x, m, 4); got = x; break; }
                    case BK_FT_U16: { uint16_t x; memcpy(&x, m, 2); got = x; break; }
                    case BK_FT_I16: { int16_t x; memcpy(&x, m, 2); got = x; break; }
                    case BK_FT_I8: got = (int8_t)m[0]; break;
                    default: got = m[0]; break;
                    }
                    if (got != bk_field_get(fd, v.data + (size_t)i * e, k)) {
                        fprintf(stderr, "%s: %s[%u].%s[%u] (column %u): decoded %lld\n", path, row->name, i, fd->name, k,
                                col, (long long)got);
                        same = false;
                        break;
                    }
                }
        }
        bk_encode_rows(fs, dst, row->dst_size, n, back, e, false);
        for (uint32_t i = 0; i < n && same; i++)
            for (uint32_t b = 0; b < e; b++)
                if (mask[b] && back[(size_t)i * e + b] != v.data[(size_t)i * e + b]) {
                    fprintf(stderr, "%s: %s[%u] byte %u (column %u): encoded back differs\n", path, row->name, i, b, col);
                    same = false;
                    break;
                }
        CHECK(same);
        seen[li] |= (uint8_t)(1u << col);
        free(dst), free(back), free(mask);
    }
    bk_file_free(f);
    return 1;
}

static void test_source_corpus(const char *shared)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/corpus/source", shared);
    DIR *dp = opendir(dir);
    if (!dp) {
        printf("the Source real-map part left out: %s missing\n", dir);
        return;
    }
    uint8_t seen[BK_SRC_LUMP_COUNT] = {0};
    int maps = 0;
    struct dirent *de;
    while ((de = readdir(dp))) {
        size_t n = strlen(de->d_name);
        if (n < 4 || strcmp(de->d_name + n - 4, ".bsp")) continue;
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        maps += test_source_map(path, seen);
    }
    closedir(dp);
    int lumps = 0, cols = 0, described = 0;
    for (int i = 0; i < BK_SRC_LUMP_COUNT; i++) {
        if (!bk_family_source.lumps[i].dst_size) continue;
        described++;
        lumps += seen[i] != 0;
        for (int c = 0; c < BK_FAMILY_COLUMNS; c++) cols += (seen[i] >> c) & 1;
        if (!seen[i]) printf("source lump %s: in no corpus map\n", bk_family_source.lumps[i].name);
    }
    printf("%d Source maps: %d of %d lumps with a destination (%d lump columns) decoded both ways\n", maps, lumps,
           described, cols);
    CHECK(maps >= 20);
    CHECK(lumps == described);
    /* the columns the corpus holds: 56- and 32-byte leafs and Bloodlines', 88- and 100-byte world
     * lights, Bloodlines' 104-byte faces */
    CHECK(seen[BK_SRC_LUMP_LEAFS] == 7);
    CHECK(seen[BK_SRC_LUMP_WORLDLIGHTS] == 3);
    CHECK(seen[BK_SRC_LUMP_FACES] == 5);
}

int main(int argc, char **argv)
{
    test_rows_shape();
    test_quake_by_hand();
    test_source_by_hand();
    if (argc > 1) test_source_corpus(argv[1]);
    /* argv[1]: the shared folder (tests/CMakeLists.txt) */
    static const char *const dirs[] = {"quake1", "goldsrc", "hexen2"};
    int maps = 0, dirs_found = 0;
    for (size_t d = 0; argc > 1 && d < sizeof dirs / sizeof dirs[0]; d++) {
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/corpus/%s", argv[1], dirs[d]);
        DIR *dp = opendir(dir);
        dirs_found += dp != NULL;
        struct dirent *de;
        while (dp && (de = readdir(dp))) {
            size_t n = strlen(de->d_name);
            if (n < 4 || strcmp(de->d_name + n - 4, ".bsp")) continue;
            char path[8192];
            snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
            maps += test_map(path);
        }
        if (dp) closedir(dp);
    }
    printf("%d maps: every decoded lump encoded back to its bytes\n", maps);
    /* without the shared corpus (make test-nocorpus) the real-map part is left out, said here; the
     * rows' own checks above still run */
    if (argc > 1 && dirs_found) CHECK(maps >= 10);
    else printf("the real-map part left out: %s/corpus/{quake1,goldsrc,hexen2} missing\n", argc > 1 ? argv[1] : "(no shared folder)");
    /* DPM: the tests' own model always, the fetched ones (argv[2]/dpm, make corpus) when there */
    int own = test_dpm_dir(SOURCE_DIR "/tests/dpm");
    CHECK(own >= 1);
    char dpm_dir[4096];
    snprintf(dpm_dir, sizeof dpm_dir, "%s/dpm", argc > 2 ? argv[2] : "");
    int fetched = argc > 2 ? test_dpm_dir(dpm_dir) : -1;
    if (fetched < 0) printf("the fetched DPM models left out: %s missing (make corpus)\n", dpm_dir);
    else printf("%d + %d DPM models: every record decoded by hand and from the rows alike, and encoded back\n", own, fetched);
    if (fetched >= 0) CHECK(fetched >= 10);
    return CHECK_DONE();
}
