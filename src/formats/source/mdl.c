/* Source studio models: MDL (studiohdr_t v44-v49), VVD (IDSV v4, with its fixup table) and VTX
 * (OptimizedModel v7, LOD 0). Every offset and count from a header is checked against the size of
 * the file it points into before a byte is read, every index against the array it names, and the
 * three files' checksums against each other. The layouts are listed in mdl_internal.h. */
#include <dirent.h>
#include <stdio.h>

#include "../family.h"
#include "mdl_internal.h"

const char *const bk_mdl_vtx_suffixes[4] = {".dx90.vtx", ".vtx", ".dx80.vtx", ".sw.vtx"};

/* The decoded model and what it owns. */
typedef struct mdl_impl {
    bk_mdl pub;
    char **strings;             /* every name, owned */
    uint32_t string_count, string_cap;
} mdl_impl;

/* A header problem ends the parse in every mode: nothing after it can be trusted. */
#define MDL_FAIL(ctx, code, lump, index, offset, ...)                                               \
    do {                                                                                          \
        bk_report((ctx), BK_SEV_ERROR, (code), (lump), (int64_t)(index), (uint64_t)(offset), __VA_ARGS__); \
        return (code);                                                                            \
    } while (0)

static void impl_free(mdl_impl *m)
{
    if (!m) return;
    for (uint32_t i = 0; i < m->string_count; i++) bk_free(m->strings[i]);
    bk_free(m->strings);
    bk_free(m->pub.bones);
    bk_free(m->pub.textures);
    bk_free(m->pub.cdmaterials);
    bk_free(m->pub.skins);
    bk_free(m->pub.bodyparts);
    bk_free(m->pub.vertices);
    bk_free(m->pub.indices);
    bk_free(m->pub.meshes);
    bk_free(m);
}

void bk_mdl_free(bk_mdl *m) { impl_free((mdl_impl *)m); }

/* A NUL-terminated name at ofs of the n-byte file, kept by the model. Names are cut at 255 bytes
 * (no engine name is longer); one with no NUL before the end of the file is an error. */
static bk_result name_at(bk_ctx *ctx, mdl_impl *m, const uint8_t *d, size_t n, int64_t ofs, const char *lump,
                         int64_t index, const char **out)
{
    *out = "";
    if (ofs < 0 || (uint64_t)ofs >= n)
        MDL_FAIL(ctx, BK_ELUMP_RANGE, lump, index, (uint64_t)(ofs < 0 ? 0 : ofs), "name offset %lld outside the %zu-byte file",
                 (long long)ofs, n);
    const uint8_t *s = d + ofs;
    const uint8_t *z = memchr(s, 0, n - (size_t)ofs);
    if (!z) MDL_FAIL(ctx, BK_ETRUNCATED, lump, index, (uint64_t)ofs, "name runs past the end of the file");
    size_t len = (size_t)(z - s);
    if (len > 255) len = 255;
    if (bk_grow((void **)&m->strings, &m->string_cap, m->string_count + 1, sizeof *m->strings) != BK_OK) return BK_ENOMEM;
    char *c = bk_strndup((const char *)s, len);
    if (!c) return BK_ENOMEM;
    m->strings[m->string_count++] = c;
    *out = c;
    return BK_OK;
}

/* count entries of size bytes at ofs: inside the n-byte file, the count within the limits */
static bool table_ok(const bk_ctx *ctx, int32_t count, int64_t ofs, size_t size, size_t n)
{
    if (count < 0 || ofs < 0) return false;
    if (count == 0) return true;
    if ((uint64_t)count > ctx->opt.limits.max_elements) return false;
    return bk_span_ok((uint64_t)ofs, (uint64_t)count * size, n);
}

#define TABLE(ctx, count, ofs, size, n, lump, hdr_ofs, what)                                        \
    do {                                                                                          \
        if (!table_ok((ctx), (count), (ofs), (size), (n)))                                         \
            MDL_FAIL((ctx), (count) < 0 ? BK_EFORMAT : BK_ELUMP_RANGE, (lump), BK_NO_INDEX, (hdr_ofs),  \
                     "%d %s of %u bytes at offset %lld do not fit the %zu-byte file", (int)(count),   \
                     (what), (unsigned)(size), (long long)(ofs), (n));                              \
    } while (0)

static void rd_vec(const uint8_t *p, float *v, int k)
{
    for (int i = 0; i < k; i++) v[i] = bk_rd_f32le(p + 4 * (size_t)i);
}

/* ---- MDL ------------------------------------------------------------------------------------ */

/* the bones: name, parent (one before it), rest pose */
static bk_result parse_bones(bk_ctx *ctx, mdl_impl *mi, const uint8_t *d, size_t n, bk_mdl *m)
{
    bk_result r = BK_OK;
    int32_t nb = bk_rd_i32le(d + 156), bi = bk_rd_i32le(d + 160);
    TABLE(ctx, nb, bi, MDL_BONE_SIZE, n, "bones", 156, "bones");
    if ((uint32_t)nb > MDL_MAX_BONES) MDL_FAIL(ctx, BK_ELIMIT, "bones", BK_NO_INDEX, 156, "%d bones (at most %u)", nb, MDL_MAX_BONES);
    m->bones = bk_alloc_array(ctx, (size_t)nb, sizeof *m->bones, &r);
    if (!m->bones) return r;
    m->bone_count = (uint32_t)nb;
    for (int32_t i = 0; i < nb; i++) {
        const uint8_t *p = d + bi + (size_t)i * MDL_BONE_SIZE;
        uint64_t at = (uint64_t)bi + (uint64_t)i * MDL_BONE_SIZE;
        bk_mdl_bone *b = &m->bones[i];
        BK_TRY(name_at(ctx, mi, d, n, (int64_t)at + bk_rd_i32le(p), "bones", i, &b->name));
        b->parent = bk_rd_i32le(p + 4);
        rd_vec(p + 32, b->pos, 3);
        rd_vec(p + 44, b->quat, 4);
        rd_vec(p + 96, b->pose_to_bone, 12);
        b->flags = bk_rd_u32le(p + 160);
        /* studiomdl writes parents before children; the skeleton is built in that order */
        if (b->parent < -1 || b->parent >= i) {
            BK_ERR(ctx, BK_EINDEX, "bones", i, at + 4, "parent %d is not a bone before this one", b->parent);
            b->parent = -1;
        }
    }
    return BK_OK;
}

/* body parts -> models -> meshes: every table in the file, every index in range (nt textures,
 * nref skin references) */
static bk_result parse_bodyparts(bk_ctx *ctx, mdl_impl *mi, const uint8_t *d, size_t n, int32_t nt, int32_t nref)
{
    bk_mdl *m = &mi->pub;
    bk_result r = BK_OK;
    int32_t np = bk_rd_i32le(d + 232), pi = bk_rd_i32le(d + 236);
    TABLE(ctx, np, pi, MDL_BODYPART_SIZE, n, "bodyparts", 232, "body parts");
    m->bodyparts = bk_alloc_array(ctx, (size_t)np, sizeof *m->bodyparts, &r);
    if (!m->bodyparts) return r;
    m->bodypart_count = (uint32_t)np;
    uint64_t models = 0, meshes = 0, verts = 0;
    for (int32_t b = 0; b < np; b++) {
        uint64_t bo = (uint64_t)pi + (uint64_t)b * MDL_BODYPART_SIZE;
        BK_TRY(name_at(ctx, mi, d, n, (int64_t)bo + bk_rd_i32le(d + bo), "bodyparts", b, &m->bodyparts[b].name));
        int32_t nm = bk_rd_i32le(d + bo + 4);
        int64_t mo = (int64_t)bo + bk_rd_i32le(d + bo + 12);
        TABLE(ctx, nm, mo, MDL_MODEL_SIZE, n, "bodyparts", bo + 4, "models");
        m->bodyparts[b].model_count = (uint32_t)nm;
        models += (uint64_t)nm;
        if (models > ctx->opt.limits.max_elements)   /* body parts may share a model table: bound the walk */
            MDL_FAIL(ctx, BK_ELIMIT, "bodyparts", b, bo + 4, "more than %llu models",
                     (unsigned long long)ctx->opt.limits.max_elements);
        for (int32_t k = 0; k < nm; k++) {
            uint64_t at = (uint64_t)mo + (uint64_t)k * MDL_MODEL_SIZE;
            const uint8_t *p = d + at;
            int32_t nme = bk_rd_i32le(p + 72), nv = bk_rd_i32le(p + 80), vi = bk_rd_i32le(p + 84);
            int64_t meo = (int64_t)at + bk_rd_i32le(p + 76);
            TABLE(ctx, nme, meo, MDL_MESH_SIZE, n, "models", at + 72, "meshes");
            if (nv < 0 || vi < 0 || vi % (int32_t)VVD_VERTEX_SIZE)
                MDL_FAIL(ctx, BK_EFORMAT, "models", (int64_t)(models - (uint64_t)nm + (uint64_t)k), at + 80,
                         "%d vertices at byte %d of the VVD (not a whole vertex)", nv, vi);
            meshes += (uint64_t)nme;
            verts += (uint64_t)nv;
            if (meshes > ctx->opt.limits.max_elements || verts > UINT32_MAX)
                MDL_FAIL(ctx, BK_ELIMIT, "models", (int64_t)(models - (uint64_t)nm + (uint64_t)k), at + 72,
                         "more than %llu meshes or 2^32 vertices in all", (unsigned long long)ctx->opt.limits.max_elements);
            for (int32_t j = 0; j < nme; j++) {
                uint64_t mat = (uint64_t)meo + (uint64_t)j * MDL_MESH_SIZE;
                int32_t ref = bk_rd_i32le(d + mat), mv = bk_rd_i32le(d + mat + 8), vo = bk_rd_i32le(d + mat + 12);
                if (ref < 0 || (ref >= nref && nt > 0))
                    MDL_FAIL(ctx, BK_EINDEX, "meshes", (int64_t)(meshes - (uint64_t)nme + (uint64_t)j), mat,
                             "skin reference %d of %d", ref, nref);
                if (mv < 0 || vo < 0 || !bk_range_ok((uint64_t)vo, (uint64_t)mv, (uint64_t)nv))
                    MDL_FAIL(ctx, BK_EINDEX, "meshes", (int64_t)(meshes - (uint64_t)nme + (uint64_t)j), mat + 8,
                             "vertices %d..%lld outside the model's %d", vo, (long long)vo + mv, nv);
            }
        }
    }
    if (models > UINT32_MAX || meshes > ctx->opt.limits.max_elements || verts > UINT32_MAX)
        MDL_FAIL(ctx, BK_ELIMIT, "bodyparts", BK_NO_INDEX, 232, "%llu meshes in %llu models", (unsigned long long)meshes,
                 (unsigned long long)models);
    m->model_count = (uint32_t)models;
    m->mdl_mesh_count = (uint32_t)meshes;
    m->mdl_vertex_count = (uint32_t)verts;
    return BK_OK;
}

/* the model's version row (the rows of source_desc.c), NULL: not a version read */
static const bk_version_desc *mdl_row(int32_t version)
{
    for (uint32_t i = 0; i < bk_family_mdl.version_count; i++)
        if (bk_family_mdl.versions[i].version == version && bk_family_mdl.versions[i].supported)
            return &bk_family_mdl.versions[i];
    return NULL;
}

static bk_result parse_mdl(bk_ctx *ctx, mdl_impl *mi, const uint8_t *d, size_t n)
{
    bk_mdl *m = &mi->pub;
    bk_result r = BK_OK;
    if (n < 8 || memcmp(d, "IDST", 4) != 0)
        MDL_FAIL(ctx, n < 8 ? BK_ETRUNCATED : BK_EMAGIC, "header", BK_NO_INDEX, 0, "not a Source model (no IDST)");
    m->version = bk_rd_i32le(d + 4);
    if (!mdl_row(m->version)) {
        int32_t lo = INT32_MAX, hi = INT32_MIN;   /* the versions read, from the rows */
        for (uint32_t i = 0; i < bk_family_mdl.version_count; i++) {
            const bk_version_desc *v = &bk_family_mdl.versions[i];
            if (!v->supported) continue;
            lo = v->version < lo ? v->version : lo;
            hi = v->version > hi ? v->version : hi;
        }
        MDL_FAIL(ctx, BK_EVERSION, "header", BK_NO_INDEX, 4, "MDL version %d (%d-%d are read)", m->version, (int)lo,
                 (int)hi);
    }
    if (n < MDL_HEADER_SIZE)
        MDL_FAIL(ctx, BK_ETRUNCATED, "header", BK_NO_INDEX, 0, "file is %zu bytes, shorter than the %u-byte header", n,
                 MDL_HEADER_SIZE);
    m->checksum = bk_rd_i32le(d + 8);
    bk_copy_name(m->name, sizeof m->name, d + 12, 64);
    int32_t length = bk_rd_i32le(d + 76);
    if (length < (int32_t)MDL_HEADER_SIZE || (uint64_t)length > n)
        MDL_FAIL(ctx, (uint64_t)length > n ? BK_ETRUNCATED : BK_EFORMAT, "header", BK_NO_INDEX, 76,
                 "the header says the model is %d bytes, the file has %zu", length, n);
    n = (size_t)length;   /* what lies past the stated length is not the model's */
    rd_vec(d + 80, m->eye, 3);
    rd_vec(d + 104, m->hull_min, 3);
    rd_vec(d + 116, m->hull_max, 3);
    rd_vec(d + 128, m->view_min, 3);
    rd_vec(d + 140, m->view_max, 3);
    m->flags = bk_rd_u32le(d + 152);
    m->mass = bk_rd_f32le(d + 328);
    m->surfaceprop = "";
    int32_t sp = bk_rd_i32le(d + 308);
    if (sp) BK_TRY(name_at(ctx, mi, d, n, sp, "surfaceprop", BK_NO_INDEX, &m->surfaceprop));

    /* the animation and sequence descriptions are not decoded, but their tables must lie in the
     * file as every other (the engine walks them): a count of 0x7fffffff is no model */
    TABLE(ctx, bk_rd_i32le(d + 180), bk_rd_i32le(d + 184), MDL_ANIMDESC_SIZE, n, "localanim", 180, "animations");
    TABLE(ctx, bk_rd_i32le(d + 188), bk_rd_i32le(d + 192), MDL_SEQDESC_SIZE, n, "localseq", 188, "sequences");

    BK_TRY(parse_bones(ctx, mi, d, n, m));

    /* textures (material names) and the folders they are looked up in */
    int32_t nt = bk_rd_i32le(d + 204), ti = bk_rd_i32le(d + 208);
    TABLE(ctx, nt, ti, MDL_TEXTURE_SIZE, n, "textures", 204, "textures");
    m->textures = bk_alloc_array(ctx, (size_t)nt, sizeof *m->textures, &r);
    if (!m->textures) return r;
    m->texture_count = (uint32_t)nt;
    for (int32_t i = 0; i < nt; i++) {
        uint64_t at = (uint64_t)ti + (uint64_t)i * MDL_TEXTURE_SIZE;
        BK_TRY(name_at(ctx, mi, d, n, (int64_t)at + bk_rd_i32le(d + at), "textures", i, &m->textures[i]));
    }
    int32_t nc = bk_rd_i32le(d + 212), ci = bk_rd_i32le(d + 216);
    TABLE(ctx, nc, ci, 4, n, "cdmaterials", 212, "material folders");
    m->cdmaterials = bk_alloc_array(ctx, (size_t)nc, sizeof *m->cdmaterials, &r);
    if (!m->cdmaterials) return r;
    m->cdmaterial_count = (uint32_t)nc;
    for (int32_t i = 0; i < nc; i++)
        BK_TRY(name_at(ctx, mi, d, n, bk_rd_i32le(d + ci + 4 * (size_t)i), "cdmaterials", i, &m->cdmaterials[i]));

    /* skin families: which texture each skin-table column takes */
    int32_t nref = bk_rd_i32le(d + 220), nfam = bk_rd_i32le(d + 224), si = bk_rd_i32le(d + 228);
    if (nref < 0 || nfam < 0 || (nref && nfam && (uint64_t)nref * (uint64_t)nfam > ctx->opt.limits.max_elements))
        MDL_FAIL(ctx, BK_EFORMAT, "skins", BK_NO_INDEX, 220, "skin table of %d families x %d references", nfam, nref);
    int32_t ncells = nref && nfam ? nref * nfam : 0;
    TABLE(ctx, ncells, si, 2, n, "skins", 228, "skin-table entries");
    m->skins = bk_alloc_array(ctx, (size_t)ncells, sizeof *m->skins, &r);
    if (!m->skins) return r;
    m->skin_ref_count = (uint32_t)(ncells ? nref : 0);
    m->skin_family_count = (uint32_t)(ncells ? nfam : 0);
    for (int32_t k = 0; k < ncells; k++) {
        int16_t t = bk_rd_i16le(d + si + 2 * (size_t)k);
        if (t < 0 || t >= nt) {
            BK_ERR(ctx, BK_EINDEX, "skins", k, (uint64_t)si + 2 * (uint64_t)k, "texture %d of %d", t, nt);
            t = 0;
        }
        m->skins[k] = t;
    }

    return parse_bodyparts(ctx, mi, d, n, nt, nref);
}

/* ---- VVD ------------------------------------------------------------------------------------ */

static bk_result parse_vvd(bk_ctx *ctx, mdl_impl *mi, const uint8_t *d, size_t n)
{
    bk_mdl *m = &mi->pub;
    bk_result r = BK_OK;
    if (n < VVD_HEADER_SIZE || memcmp(d, "IDSV", 4) != 0)
        MDL_FAIL(ctx, n < VVD_HEADER_SIZE ? BK_ETRUNCATED : BK_EMAGIC, "vvd header", BK_NO_INDEX, 0,
                 "not a VVD vertex file (no IDSV header)");
    int32_t version = bk_rd_i32le(d + 4), ck = bk_rd_i32le(d + 8), nlods = bk_rd_i32le(d + 12);
    if (version != 4) MDL_FAIL(ctx, BK_EVERSION, "vvd header", BK_NO_INDEX, 4, "VVD version %d (4 is read)", version);
    if (ck != m->checksum)
        MDL_FAIL(ctx, BK_EFORMAT, "vvd header", BK_NO_INDEX, 8, "checksum %d, the MDL's is %d: not this model's vertices",
                 ck, m->checksum);
    if (nlods < 1 || nlods > 8) MDL_FAIL(ctx, BK_EFORMAT, "vvd header", BK_NO_INDEX, 12, "%d LODs (1-8)", nlods);
    m->vvd_lod_count = (uint32_t)nlods;
    int32_t lod0 = bk_rd_i32le(d + 16);
    int32_t nfix = bk_rd_i32le(d + 48), fo = bk_rd_i32le(d + 52), vs = bk_rd_i32le(d + 56), ts = bk_rd_i32le(d + 60);
    if (lod0 < 0 || (uint32_t)lod0 != m->mdl_vertex_count)
        MDL_FAIL(ctx, BK_EFORMAT, "vvd header", BK_NO_INDEX, 16, "%d LOD-0 vertices; the MDL's models have %u", lod0,
                 m->mdl_vertex_count);
    if (vs < (int32_t)VVD_HEADER_SIZE || (size_t)vs > n)
        MDL_FAIL(ctx, BK_ELUMP_RANGE, "vvd header", BK_NO_INDEX, 56, "vertex data at %d, outside the %zu-byte file", vs, n);
    /* the stored vertices run to the tangents (when they follow) or to the end of the file */
    size_t end = ts > vs && (size_t)ts <= n ? (size_t)ts : n;
    uint64_t stored = (uint64_t)(end - (size_t)vs) / VVD_VERTEX_SIZE;
    TABLE(ctx, nfix, fo, VVD_FIXUP_SIZE, n, "vvd fixups", 48, "fixups");
    m->fixup_count = (uint32_t)nfix;
    m->vertices = bk_alloc_array(ctx, (size_t)lod0, sizeof *m->vertices, &r);
    if (!m->vertices) return r;
    /* LOD 0 takes every fixup (each names the lowest-detail LOD its run is used by) in order */
    uint32_t *src = bk_alloc_array(ctx, (size_t)lod0, sizeof *src, &r);
    if (!src) return r;
    uint64_t got = 0;
    if (nfix) {
        for (int32_t k = 0; k < nfix; k++) {
            uint64_t at = (uint64_t)fo + (uint64_t)k * VVD_FIXUP_SIZE;
            int32_t lod = bk_rd_i32le(d + at), first = bk_rd_i32le(d + at + 4), cnt = bk_rd_i32le(d + at + 8);
            if (lod < 0 || lod >= nlods || first < 0 || cnt < 0 || !bk_range_ok((uint64_t)first, (uint64_t)cnt, stored)) {
                bk_free(src);
                MDL_FAIL(ctx, BK_EINDEX, "vvd fixups", k, at, "LOD %d, vertices %d..%lld of %llu stored", lod, first,
                         (long long)first + cnt, (unsigned long long)stored);
            }
            if (got + (uint64_t)cnt > (uint64_t)lod0) {
                bk_free(src);
                MDL_FAIL(ctx, BK_EFORMAT, "vvd fixups", k, at, "the fixups give more than the %d LOD-0 vertices", lod0);
            }
            for (int32_t i = 0; i < cnt; i++) src[got++] = (uint32_t)(first + i);
        }
        if (got != (uint64_t)lod0) {
            bk_free(src);
            MDL_FAIL(ctx, BK_EFORMAT, "vvd fixups", BK_NO_INDEX, (uint64_t)fo, "the fixups give %llu vertices, LOD 0 has %d",
                     (unsigned long long)got, lod0);
        }
    } else {
        if ((uint64_t)lod0 > stored) {
            bk_free(src);
            MDL_FAIL(ctx, BK_ETRUNCATED, "vvd vertices", BK_NO_INDEX, (uint64_t)vs,
                     "%d vertices of %u bytes do not fit in the %llu bytes from offset %d", lod0, VVD_VERTEX_SIZE,
                     (unsigned long long)(end - (size_t)vs), vs);
        }
        for (int32_t i = 0; i < lod0; i++) src[i] = (uint32_t)i;
    }
    for (int32_t i = 0; i < lod0; i++) {
        uint64_t at = (uint64_t)vs + (uint64_t)src[i] * VVD_VERTEX_SIZE;
        const uint8_t *p = d + at;
        bk_mdl_vertex *v = &m->vertices[i];
        rd_vec(p, v->weight, 3);
        v->bone[0] = p[12], v->bone[1] = p[13], v->bone[2] = p[14];
        v->bone_count = p[15];
        rd_vec(p + 16, v->pos, 3);
        rd_vec(p + 28, v->normal, 3);
        rd_vec(p + 40, v->uv, 2);
        if (v->bone_count < 1 || v->bone_count > 3) {
            bk_result e = bk_report(ctx, BK_SEV_ERROR, BK_EFORMAT, "vvd vertices", src[i], at + 15,
                                    "%u bone weights (1-3)", v->bone_count);
            if (e != BK_OK) {
                bk_free(src);
                return e;
            }
            v->bone_count = 1, v->bone[0] = 0, v->weight[0] = 1;
        }
        for (uint32_t k = 0; k < v->bone_count; k++)
            if (v->bone[k] >= m->bone_count) {
                bk_result e = bk_report(ctx, BK_SEV_ERROR, BK_EINDEX, "vvd vertices", src[i], at + 12 + k,
                                        "bone %u of %u", v->bone[k], m->bone_count);
                if (e != BK_OK) {
                    bk_free(src);
                    return e;
                }
                v->bone[k] = 0;
            }
    }
    bk_free(src);
    m->vertex_count = (uint32_t)lod0;
    return BK_OK;
}

/* every model's vertices (vertexindex / 48, numvertices) inside the VVD's LOD 0: an MDL check
 * that needs the VVD, reported in the MDL */
static bk_result check_model_vertices(bk_ctx *ctx, const bk_mdl *m, const uint8_t *mdl)
{
    int32_t pi = bk_rd_i32le(mdl + 236);
    uint32_t model_no = 0;
    for (uint32_t b = 0; b < m->bodypart_count; b++) {
        uint64_t mbo = (uint64_t)pi + (uint64_t)b * MDL_BODYPART_SIZE;
        uint64_t mmo = (uint64_t)((int64_t)mbo + bk_rd_i32le(mdl + mbo + 12));
        for (uint32_t k = 0; k < m->bodyparts[b].model_count; k++, model_no++) {
            uint64_t at = mmo + (uint64_t)k * MDL_MODEL_SIZE;
            uint32_t first = (uint32_t)bk_rd_i32le(mdl + at + 84) / VVD_VERTEX_SIZE, count = (uint32_t)bk_rd_i32le(mdl + at + 80);
            if (!bk_range_ok(first, count, m->vertex_count))
                MDL_FAIL(ctx, BK_EINDEX, "models", model_no, at + 80, "vertices %u..%llu outside the VVD's %u", first,
                         (unsigned long long)first + count, m->vertex_count);
        }
    }
    return BK_OK;
}

/* ---- VTX ------------------------------------------------------------------------------------ */

enum { WALK_CHECK, WALK_REPORT, WALK_FILL };

typedef struct vtx_walk {
    bk_ctx *ctx;
    const uint8_t *d;
    size_t n;
    uint32_t sg_size, st_size;   /* strip group / strip header sizes (v49 adds 8 bytes to both) */
    int mode;                    /* CHECK: does this layout fit (silent); REPORT: say where it
                                  * breaks; FILL: write meshes and indices */
    uint64_t indices;            /* CHECK / REPORT: triangle indices counted; FILL: room made */
    uint64_t work;               /* strip-group vertices and strip indices looked at: tables may
                                  * overlap, so this bounds the walk (max_elements) */
} vtx_walk;

#define VTX_FAIL(w, code, lump, index, offset, ...)                                                 \
    do {                                                                                          \
        if ((w)->mode == WALK_CHECK) return (code);                                               \
        MDL_FAIL((w)->ctx, (code), (lump), (index), (offset), __VA_ARGS__);                        \
    } while (0)

static bool vtx_table(const vtx_walk *w, int32_t count, int64_t ofs, size_t size)
{
    return table_ok(w->ctx, count, ofs, size, w->n);
}

/* The triangles of one mesh's LOD 0: every strip group's strips, as global vertex numbers
 * (base + the MDL mesh's vertex each strip-group vertex names). */
static bk_result vtx_mesh(vtx_walk *w, bk_mdl *m, uint64_t mo, uint32_t mesh_vertices, uint32_t base, uint32_t mesh_index)
{
    const uint8_t *d = w->d;
    int32_t nsg = bk_rd_i32le(d + mo);
    int64_t sgo = (int64_t)mo + bk_rd_i32le(d + mo + 4);
    if (!vtx_table(w, nsg, sgo, w->sg_size))
        VTX_FAIL(w, BK_ELUMP_RANGE, "vtx mesh", mesh_index, mo, "%d strip groups at offset %lld outside the %zu-byte file",
                 nsg, (long long)sgo, w->n);
    for (int32_t g = 0; g < nsg; g++) {
        uint64_t so = (uint64_t)sgo + (uint64_t)g * w->sg_size;
        const uint8_t *p = d + so;
        int32_t nv = bk_rd_i32le(p), ni = bk_rd_i32le(p + 8), nst = bk_rd_i32le(p + 16);
        int64_t vo = (int64_t)so + bk_rd_i32le(p + 4), io = (int64_t)so + bk_rd_i32le(p + 12),
                sto = (int64_t)so + bk_rd_i32le(p + 20);
        if (!vtx_table(w, nv, vo, VTX_VERTEX_SIZE) || !vtx_table(w, ni, io, 2) || !vtx_table(w, nst, sto, w->st_size))
            VTX_FAIL(w, BK_ELUMP_RANGE, "vtx strip group", g, so,
                     "%d vertices, %d indices or %d strips outside the %zu-byte file", nv, ni, nst, w->n);
        w->work += (uint64_t)nv;
        if (w->work > w->ctx->opt.limits.max_elements)
            VTX_FAIL(w, BK_ELIMIT, "vtx strip group", g, so, "more than %llu strip vertices and indices in all",
                     (unsigned long long)w->ctx->opt.limits.max_elements);
        if (w->mode != WALK_FILL)   /* every strip-group vertex names a vertex of the MDL mesh */
            for (int32_t i = 0; i < nv; i++) {
                uint64_t at = (uint64_t)vo + (uint64_t)i * VTX_VERTEX_SIZE;
                uint16_t id = bk_rd_u16le(d + at + 4);
                if (id >= mesh_vertices)
                    VTX_FAIL(w, BK_EINDEX, "vtx strip group", g, at + 4, "vertex %d names mesh vertex %u of %u", i, id,
                             mesh_vertices);
            }
        for (int32_t s = 0; s < nst; s++) {
            uint64_t at = (uint64_t)sto + (uint64_t)s * w->st_size;
            int32_t sni = bk_rd_i32le(d + at), sio = bk_rd_i32le(d + at + 4);
            bool strip = (d[at + 18] & 2) != 0;
            w->work += (uint64_t)(sni > 0 ? sni : 0);
            if (w->work > w->ctx->opt.limits.max_elements)
                VTX_FAIL(w, BK_ELIMIT, "vtx strip", s, at, "more than %llu strip vertices and indices in all",
                         (unsigned long long)w->ctx->opt.limits.max_elements);
            uint64_t ntri = strip ? (sni >= 3 ? (uint64_t)sni - 2 : 0) : (uint64_t)(sni > 0 ? sni : 0) / 3;
            if (w->mode != WALK_FILL) {
                if (sni < 0 || sio < 0 || !bk_range_ok((uint64_t)sio, (uint64_t)sni, (uint64_t)ni))
                    VTX_FAIL(w, BK_EINDEX, "vtx strip", s, at, "indices %d..%lld outside the strip group's %d", sio,
                             (long long)sio + sni, ni);
                if (!strip && sni % 3)
                    VTX_FAIL(w, BK_EFORMAT, "vtx strip", s, at, "a triangle list of %d indices (not a multiple of 3)", sni);
                for (int32_t k = 0; k < sni; k++) {
                    uint64_t ia = (uint64_t)io + 2 * ((uint64_t)sio + (uint64_t)k);
                    uint16_t ix = bk_rd_u16le(d + ia);
                    if (ix >= nv) VTX_FAIL(w, BK_EINDEX, "vtx strip", s, ia, "index %u of the strip group's %d vertices", ix, nv);
                }
                w->indices += 3 * ntri;
                if (w->indices > w->ctx->opt.limits.max_elements)
                    VTX_FAIL(w, BK_ELIMIT, "vtx strip", s, at, "more than %llu triangle indices",
                             (unsigned long long)w->ctx->opt.limits.max_elements);
                continue;
            }
            for (uint64_t t = 0; t < ntri; t++) {
                uint64_t k0 = strip ? t : 3 * t;
                uint32_t c[3];
                for (int e = 0; e < 3; e++) {
                    uint16_t ix = bk_rd_u16le(d + io + 2 * ((uint64_t)sio + k0 + (uint64_t)e));
                    c[e] = base + bk_rd_u16le(d + vo + (uint64_t)ix * VTX_VERTEX_SIZE + 4);
                }
                if (strip) {
                    if (t & 1) {   /* every other strip triangle is wound the other way */
                        uint32_t x = c[0];
                        c[0] = c[1];
                        c[1] = x;
                    }
                    if (c[0] == c[1] || c[1] == c[2] || c[0] == c[2]) continue;   /* strip joints */
                }
                if ((uint64_t)m->index_count + 3 > w->indices) return BK_ELIMIT;   /* cannot happen: counted */
                m->indices[m->index_count++] = c[0];
                m->indices[m->index_count++] = c[1];
                m->indices[m->index_count++] = c[2];
            }
        }
    }
    return BK_OK;
}

/* Walk the VTX tree (LOD 0 of every model) beside the MDL's, whose counts it must repeat. */
static bk_result vtx_walk_all(vtx_walk *w, bk_mdl *m, const uint8_t *mdl)
{
    const uint8_t *d = w->d;
    int32_t nbp = bk_rd_i32le(d + 28);
    int64_t bpo = bk_rd_i32le(d + 32);
    if ((uint32_t)nbp != m->bodypart_count)
        VTX_FAIL(w, BK_EFORMAT, "vtx header", BK_NO_INDEX, 28, "%d body parts; the MDL has %u", nbp, m->bodypart_count);
    if (!vtx_table(w, nbp, bpo, 8))
        VTX_FAIL(w, BK_ELUMP_RANGE, "vtx header", BK_NO_INDEX, 32, "%d body parts at offset %lld outside the %zu-byte file",
                 nbp, (long long)bpo, w->n);
    /* the MDL's tables were checked by parse_mdl: walk them again beside the VTX's */
    int32_t pi = bk_rd_i32le(mdl + 236);
    uint32_t mesh_no = 0, model_no = 0;
    for (int32_t b = 0; b < nbp; b++) {
        uint64_t bo = (uint64_t)bpo + 8 * (uint64_t)b;
        int32_t nm = bk_rd_i32le(d + bo);
        int64_t mo = (int64_t)bo + bk_rd_i32le(d + bo + 4);
        uint64_t mbo = (uint64_t)pi + (uint64_t)b * MDL_BODYPART_SIZE;
        uint64_t mmo = (uint64_t)((int64_t)mbo + bk_rd_i32le(mdl + mbo + 12));
        if ((uint32_t)nm != m->bodyparts[b].model_count)
            VTX_FAIL(w, BK_EFORMAT, "vtx body part", b, bo, "%d models; the MDL's body part has %u", nm,
                     m->bodyparts[b].model_count);
        if (!vtx_table(w, nm, mo, 8))
            VTX_FAIL(w, BK_ELUMP_RANGE, "vtx body part", b, bo + 4, "%d models at offset %lld outside the %zu-byte file", nm,
                     (long long)mo, w->n);
        for (int32_t k = 0; k < nm; k++, model_no++) {
            uint64_t xo = (uint64_t)mo + 8 * (uint64_t)k;
            int32_t nl = bk_rd_i32le(d + xo);
            int64_t lo = (int64_t)xo + bk_rd_i32le(d + xo + 4);
            if (nl < 1 || !vtx_table(w, 1, lo, 12))
                VTX_FAIL(w, BK_ELUMP_RANGE, "vtx model", model_no, xo, "%d LODs at offset %lld", nl, (long long)lo);
            int32_t nme = bk_rd_i32le(d + lo);
            int64_t meo = lo + bk_rd_i32le(d + lo + 4);
            uint64_t mdl_model = mmo + (uint64_t)k * MDL_MODEL_SIZE;
            int32_t mdl_meshes = bk_rd_i32le(mdl + mdl_model + 72);
            uint64_t mdl_mesh0 = (uint64_t)((int64_t)mdl_model + bk_rd_i32le(mdl + mdl_model + 76));
            uint32_t first_vertex = (uint32_t)bk_rd_i32le(mdl + mdl_model + 84) / VVD_VERTEX_SIZE;
            uint32_t model_verts = (uint32_t)bk_rd_i32le(mdl + mdl_model + 80);
            if (!bk_range_ok(first_vertex, model_verts, m->vertex_count)) return BK_EINDEX;   /* checked by parse_vvd */
            if (nme != mdl_meshes)
                VTX_FAIL(w, BK_EFORMAT, "vtx LOD", model_no, (uint64_t)lo, "%d meshes; the MDL's model has %d", nme, mdl_meshes);
            if (!vtx_table(w, nme, meo, 9))
                VTX_FAIL(w, BK_ELUMP_RANGE, "vtx LOD", model_no, (uint64_t)lo + 4, "%d meshes at offset %lld outside the %zu-byte file",
                         nme, (long long)meo, w->n);
            for (int32_t j = 0; j < nme; j++, mesh_no++) {
                uint64_t mat = mdl_mesh0 + (uint64_t)j * MDL_MESH_SIZE;
                uint32_t mv = (uint32_t)bk_rd_i32le(mdl + mat + 8), voff = (uint32_t)bk_rd_i32le(mdl + mat + 12);
                uint32_t first_index = m->index_count;
                BK_TRY(vtx_mesh(w, m, (uint64_t)meo + 9 * (uint64_t)j, mv, first_vertex + voff, mesh_no));
                if (w->mode != WALK_FILL) continue;
                bk_mdl_mesh *me = &m->meshes[mesh_no];
                me->bodypart = (uint32_t)b;
                me->model = (uint32_t)k;
                me->skin_ref = (uint32_t)bk_rd_i32le(mdl + mat);
                me->first_vertex = first_vertex + voff;
                me->vertex_count = mv;
                me->first_index = first_index;
                me->index_count = m->index_count - first_index;
            }
        }
    }
    return BK_OK;
}

static bk_result parse_vtx(bk_ctx *ctx, mdl_impl *mi, const uint8_t *d, size_t n, const uint8_t *mdl)
{
    bk_mdl *m = &mi->pub;
    bk_result r = BK_OK;
    if (n < VTX_HEADER_SIZE) MDL_FAIL(ctx, BK_ETRUNCATED, "vtx header", BK_NO_INDEX, 0, "VTX file is %zu bytes", n);
    int32_t version = bk_rd_i32le(d);
    if (version != 7) MDL_FAIL(ctx, BK_EVERSION, "vtx header", BK_NO_INDEX, 0, "VTX version %d (7 is read)", version);
    int32_t ck = bk_rd_i32le(d + 16), nlods = bk_rd_i32le(d + 20);
    if (ck != m->checksum)
        MDL_FAIL(ctx, BK_EFORMAT, "vtx header", BK_NO_INDEX, 16, "checksum %d, the MDL's is %d: not this model's strips", ck,
                 m->checksum);
    if (nlods < 1 || nlods > 8) MDL_FAIL(ctx, BK_EFORMAT, "vtx header", BK_NO_INDEX, 20, "%d LODs (1-8)", nlods);
    m->vtx_lod_count = (uint32_t)nlods;
    /* v49 files may carry 8 more bytes in each strip group and strip header (topology): take the
     * layout the model's version suggests if the whole tree fits it, else the other one */
    static const uint32_t sizes[2][2] = {{25, 27}, {33, 35}};
    const bk_version_desc *row = mdl_row(m->version);
    int first = row && (row->traits & BK_VT_VTX_TOPOLOGY) ? 1 : 0, pick = -1;
    vtx_walk w = {ctx, d, n, 0, 0, WALK_CHECK, 0, 0};
    for (int t = 0; t < 2 && pick < 0; t++) {
        int k = t == 0 ? first : 1 - first;
        w.sg_size = sizes[k][0], w.st_size = sizes[k][1], w.indices = 0, w.work = 0;
        if (vtx_walk_all(&w, m, mdl) == BK_OK) pick = k;
    }
    if (pick < 0) {
        /* neither fits: walk the expected layout again, saying where it breaks */
        w.sg_size = sizes[first][0], w.st_size = sizes[first][1], w.indices = 0, w.work = 0, w.mode = WALK_REPORT;
        r = vtx_walk_all(&w, m, mdl);
        return r != BK_OK ? r : BK_EFORMAT;
    }
    m->indices = bk_alloc_array(ctx, (size_t)w.indices, sizeof *m->indices, &r);
    if (!m->indices) return r;
    m->meshes = bk_alloc_array(ctx, m->mdl_mesh_count, sizeof *m->meshes, &r);
    if (!m->meshes) return r;
    w.mode = WALK_FILL;
    w.work = 0;
    m->index_count = 0;
    BK_TRY(vtx_walk_all(&w, m, mdl));
    m->mesh_count = m->mdl_mesh_count;
    return BK_OK;
}

/* ---- the three together ------------------------------------------------------------------------ */

/* parse into mi; ctx->file is switched to the part's name while it is read (when given) */
static bk_result decode(bk_ctx *ctx, mdl_impl *mi, const uint8_t *mdl, size_t mn, const uint8_t *vvd, size_t vn,
                        const char *vvd_name, const uint8_t *vtx, size_t xn, const char *vtx_name)
{
    BK_TRY(parse_mdl(ctx, mi, mdl, mn));
    if (ctx->errors) return ctx->first_error;
    if (!vvd || !vtx) return BK_OK;
    const char *own = ctx->file;
    if (vvd_name) ctx->file = vvd_name;
    bk_result r = parse_vvd(ctx, mi, vvd, vn);
    ctx->file = own;
    if (r == BK_OK && ctx->errors) r = ctx->first_error;
    if (r == BK_OK) r = check_model_vertices(ctx, &mi->pub, mdl);
    if (r != BK_OK) return r;
    if (vtx_name) ctx->file = vtx_name;
    r = parse_vtx(ctx, mi, vtx, xn, mdl);
    ctx->file = own;
    if (r == BK_OK && ctx->errors) r = ctx->first_error;
    if (r == BK_OK) mi->pub.has_geometry = 1;
    return r;
}

bk_result bk_mdl_decode(const uint8_t *mdl, size_t mdl_size, const uint8_t *vvd, size_t vvd_size, const uint8_t *vtx,
                        size_t vtx_size, const bk_options *opt, bk_mdl **out)
{
    if (!out) return BK_EARG;
    *out = NULL;
    if (!mdl || (!vvd && vvd_size) || (!vtx && vtx_size)) return BK_EARG;
    bk_ctx ctx;
    bk_ctx_init(&ctx, opt, false);
    mdl_impl *mi = bk_calloc(1, sizeof *mi);
    if (!mi) return BK_ENOMEM;
    bk_result r = decode(&ctx, mi, mdl, mdl_size, vvd, vvd_size, NULL, vtx, vtx_size, NULL);
    if (r != BK_OK) {
        impl_free(mi);
        return r;
    }
    *out = &mi->pub;
    return BK_OK;
}

/* ---- as a file format: info, validate, convert ------------------------------------------------- */

static int mdl_probe(const uint8_t *d, size_t n)
{
    if (n < 8 || memcmp(d, "IDST", 4) != 0) return 0;
    int32_t v = bk_rd_i32le(d + 4);
    return v >= 44 && v <= 49 ? 2 : 1;
}

static void mdl_destroy(void *impl) { impl_free(impl); }

/* The file in dir whose name is stem + suffix, compared without case (models are often shipped
 * with .mdl and .vtx names cased differently). Returns a malloc'd path or NULL. */
static char *find_sibling(const char *dir, const char *stem, const char *suffix)
{
    DIR *dp = opendir(dir[0] ? dir : ".");
    if (!dp) return NULL;
    size_t sl = strlen(stem), xl = strlen(suffix);
    char *found = NULL;
    struct dirent *de;
    while ((de = readdir(dp)) && !found) {
        size_t nl = strlen(de->d_name);
        if (nl != sl + xl) continue;
        if (bk_strncasecmp_prefix(de->d_name, stem) && bk_strcasecmp(de->d_name + sl, suffix) == 0) {
            size_t need = strlen(dir) + nl + 2;
            found = bk_malloc(need);
            if (found) snprintf(found, need, "%s%s%s", dir, dir[0] ? "/" : "", de->d_name);
        }
    }
    closedir(dp);
    return found;
}

static bk_result mdl_load(bk_file *f, bk_ctx *ctx)
{
    mdl_impl *mi = bk_calloc(1, sizeof *mi);
    if (!mi) return BK_ENOMEM;
    f->impl = mi;   /* freed by bk_file_free on failure */
    /* the VVD and VTX beside a model read from disk */
    const char *path = ctx->file;
    size_t pl = path ? strlen(path) : 0;
    uint8_t *vvd = NULL, *vtx = NULL;
    size_t vn = 0, xn = 0;
    char *vvd_path = NULL, *vtx_path = NULL;
    if (pl > 4 && bk_strcasecmp(path + pl - 4, ".mdl") == 0 && mdl_probe(f->data, f->size) == 2) {
        const char *slash = strrchr(path, '/');
        char dir[4096], stem[1024];
        size_t dl = slash ? (size_t)(slash - path) : 0;
        const char *base = slash ? slash + 1 : path;
        size_t bl = strlen(base) - 4;
        if (dl < sizeof dir && bl < sizeof stem) {
            memcpy(dir, path, dl);
            dir[dl] = 0;
            if (slash && dl == 0) snprintf(dir, sizeof dir, "/");
            memcpy(stem, base, bl);
            stem[bl] = 0;
            vvd_path = find_sibling(dir, stem, ".vvd");
            for (size_t k = 0; k < BK_ARRAY_LEN(bk_mdl_vtx_suffixes) && !vtx_path; k++)
                vtx_path = find_sibling(dir, stem, bk_mdl_vtx_suffixes[k]);
        }
        uint64_t max = ctx->opt.limits.max_file_bytes;
        if (vvd_path && bk_read_file_opt(&ctx->opt, vvd_path, max, &vvd, &vn) != BK_OK) vvd = NULL;
        if (vtx_path && bk_read_file_opt(&ctx->opt, vtx_path, max, &vtx, &xn) != BK_OK) vtx = NULL;
    }
    bk_result r = decode(ctx, mi, f->data, f->size, vvd && vtx ? vvd : NULL, vn, vvd_path, vvd && vtx ? vtx : NULL, xn,
                         vtx_path);
    if (r == BK_OK && !(vvd && vtx))
        BK_WARN(ctx, BK_ENOTFOUND, vvd ? "vtx header" : "vvd header", BK_NO_INDEX, BK_NO_OFFSET,
                "no %s beside the model: its tables are read, not its geometry",
                vvd ? "VTX (.dx90.vtx, .vtx, .dx80.vtx, .sw.vtx)" : "VVD");
    bk_free(vvd);
    bk_free(vtx);
    bk_free(vvd_path);
    bk_free(vtx_path);
    if (r != BK_OK) return r;
    bk_mdl *m = &mi->pub;
    f->format = BK_FORMAT_MDL;
    f->info.format = BK_FORMAT_MDL;
    f->info.version = m->version;
    snprintf(f->info.variant, sizeof f->info.variant, "%s", m->flags & BK_MDL_FLAG_STATIC_PROP ? "static prop" : "");
    bk_info_count(&f->info, "bones", m->bone_count);
    bk_info_count(&f->info, "textures", m->texture_count);
    bk_info_count(&f->info, "material_folders", m->cdmaterial_count);
    bk_info_count(&f->info, "skin_families", m->skin_family_count);
    bk_info_count(&f->info, "bodyparts", m->bodypart_count);
    bk_info_count(&f->info, "models", m->model_count);
    bk_info_count(&f->info, "meshes", m->mdl_mesh_count);
    bk_info_count(&f->info, "vertices", m->mdl_vertex_count);
    if (m->has_geometry) {
        bk_info_count(&f->info, "triangles", m->index_count / 3);
        bk_info_count(&f->info, "vvd_lods", m->vvd_lod_count);
        bk_info_count(&f->info, "vtx_lods", m->vtx_lod_count);
        bk_info_count(&f->info, "fixups", m->fixup_count);
    }
    f->info.has_bounds = 1;
    memcpy(f->info.mins, m->hull_min, sizeof f->info.mins);
    memcpy(f->info.maxs, m->hull_max, sizeof f->info.maxs);
    return BK_OK;
}

const bk_mdl *bk_mdl_of(const bk_file *f) { return bk_file_impl(f, BK_FORMAT_MDL); }

const bk_format_ops bk_ops_mdl = {BK_FORMAT_MDL, mdl_probe, mdl_load, mdl_destroy, bk_mdl_build_scene, NULL, NULL, NULL};
