/* DarkPlaces DPM decoder: "the loader should be very thorough about error checking, all vertex
 * and bone indices should be validated" (model_dpmodel.h). Every offset and count is checked
 * against the buffer with 64-bit arithmetic before anything is read; the variable-length vertex
 * list is walked with a bounds check per vertex; nothing is cast over file bytes.
 *
 * In validate mode a bad element is reported and replaced by a harmless value (bone 0, index 0,
 * identity pose) so the rest can still be checked; the load then fails with the first error. */
#include <math.h>
#include <stdio.h>

#include "dpm_internal.h"

static int dpm_probe(const uint8_t *d, size_t n)
{
    if (n < 16 || memcmp(d, DPM_MAGIC, 16) != 0) return 0;
    return n >= 20 && bk_rd_u32be(d + 16) == DPM_TYPE ? 2 : 1;
}

void bk_dpm_model_free(bk_dpm_model *m)
{
    if (!m) return;
    for (uint32_t i = 0; i < m->mesh_count && m->meshes; i++) {
        bk_dpm_mesh *me = &m->meshes[i];
        bk_free(me->first_influence);
        bk_free(me->influences);
        bk_free(me->texcoords);
        bk_free(me->indices);
        bk_free(me->groupids);
    }
    bk_free(m->meshes);
    bk_free(m->bones);
    bk_free(m->frames);
}

static void dpm_destroy(void *p)
{
    dpm_impl *im = p;
    if (!im) return;
    bk_dpm_model_free(&im->m);
    bk_free(im->pose_data);
    bk_free(im);
}

const bk_dpm_model *bk_dpm_model_of(const bk_file *f)
{
    const dpm_impl *im = bk_file_impl(f, BK_FORMAT_DPM);
    return im ? &im->m : NULL;
}


static bool finite_n(const float *v, int n)
{
    for (int i = 0; i < n; i++)
        if (!isfinite(v[i])) return false;
    return true;
}

/* count records of one kind at p decoded from their rows (dpm_desc.c: stored big-endian fields ->
 * the decoded struct); the caller has checked that they lie inside the file */
static void decode(const bk_lump_desc *row, const uint8_t *p, uint32_t count, void *out)
{
    bk_decode_rows(&row->fields[0], p, row->entry[0], count, out, row->dst_size, true);
}
#define REC(r) (&bk_dpm_records[DPM_REC_##r])
#define TABLE(t) (&bk_family_dpm.lumps[DPM_TABLE_##t])

/* A name field: copy it, warn when it has no terminating NUL. */
static void load_name(bk_ctx *ctx, char *dst, const uint8_t *src, const char *lump, int64_t idx, uint64_t ofs,
                      const char *what)
{
    bk_copy_name(dst, BK_DPM_NAME_LEN + 1, src, BK_DPM_NAME_LEN);
    if (!memchr(src, 0, BK_DPM_NAME_LEN))
        BK_WARN(ctx, BK_EFORMAT, lump, idx, ofs, "%s is not NUL-terminated within 32 bytes", what);
}

/* The header's three tables (count and offset each), placed by the lump-directory helper every
 * format shares: a table that runs past the file cannot be read at all, even in validate mode.
 * A table overlapping the header is a warning (DarkPlaces reads it). */
#define k_tables bk_family_dpm.lumps /* the family's rows (dpm_desc.c) */

static bk_result check_table(bk_ctx *ctx, uint32_t t, uint32_t ofs, uint32_t count, size_t size)
{
    bk_lump_span sp;
    /* count < 2^32 and entry < 2^7: the length fits 64 bits */
    BK_TRY(bk_lump_locate(ctx, k_tables[t].name, DPM_HEADER_SIZE, true, (int64_t)ofs, (int64_t)count * k_tables[t].entry[0],
                          size, 68 + 4 * (uint64_t)t, &sp));
    return sp.ok ? BK_OK : BK_ELUMP_RANGE;
}

static bk_result load_bones(bk_file *f, bk_ctx *ctx, dpm_impl *im, uint32_t ofs)
{
    bk_dpm_model *m = &im->m;
    bk_result r;
    m->bones = bk_alloc_array(ctx, m->bone_count, sizeof(bk_dpm_bone), &r);
    if (!m->bones) BK_ERR(ctx, r, "bones", BK_NO_INDEX, ofs, "cannot allocate %u bones", m->bone_count);
    if (!m->bones) return r;
    decode(TABLE(BONES), f->data + ofs, m->bone_count, m->bones);
    for (uint32_t i = 0; i < m->bone_count; i++) {
        uint64_t at = (uint64_t)ofs + (uint64_t)i * DPM_BONE_SIZE;
        bk_dpm_bone *b = &m->bones[i];
        load_name(ctx, b->name, f->data + at, "bones", i, at, "bone name");
        if (!b->name[0]) BK_WARN(ctx, BK_EFORMAT, "bones", i, at, "bone has an empty name");
        int32_t parent = b->parent;
        if (parent < -1 || parent >= (int32_t)i) {
            b->parent = -1;
            BK_ERR(ctx, BK_EINDEX, "bones", i, at + 32,
                   "parent %d must be -1 or lower than the bone's own index %u (forward or cyclic hierarchy)",
                   parent, i);
        }
        if (b->flags & ~BK_DPM_BONEFLAG_ATTACHMENT)
            BK_WARN(ctx, BK_EFORMAT, "bones", i, at + 36, "unknown flag bits 0x%x", b->flags);
        for (uint32_t j = 0; j < i && b->name[0]; j++)
            if (strcmp(m->bones[j].name, b->name) == 0) {
                BK_WARN(ctx, BK_EFORMAT, "bones", i, at, "bone name '%s' is also bone %u's (lookups by name find the first)",
                        b->name, j);
                break;
            }
    }
    return BK_OK;
}

/* the frames from their decoded records: names, bounds, and each one's bone poses (checked) */
static bk_result frames_from_records(bk_file *f, bk_ctx *ctx, dpm_impl *im, uint32_t ofs, const dpm_frame_rec *recs)
{
    bk_dpm_model *m = &im->m;
    for (uint32_t i = 0; i < m->frame_count; i++) {
        uint64_t at = (uint64_t)ofs + (uint64_t)i * DPM_FRAME_SIZE;
        const uint8_t *p = f->data + at;
        bk_dpm_frame *fr = &m->frames[i];
        fr->pose = im->pose_data + (size_t)i * m->bone_count * 12;
        load_name(ctx, fr->name, p, "frames", i, at, "frame name");
        const dpm_frame_rec *rec = &recs[i];
        memcpy(fr->mins, rec->mins, sizeof fr->mins);
        memcpy(fr->maxs, rec->maxs, sizeof fr->maxs);
        fr->yawradius = rec->yawradius;
        fr->allradius = rec->allradius;
        if (!finite_n(fr->mins, 3) || !finite_n(fr->maxs, 3) || !isfinite(fr->yawradius) || !isfinite(fr->allradius))
            BK_ERR(ctx, BK_EFORMAT, "frames", i, at + 32, "frame bounds are not finite numbers");
        else if (fr->mins[0] > fr->maxs[0] || fr->mins[1] > fr->maxs[1] || fr->mins[2] > fr->maxs[2])
            BK_WARN(ctx, BK_EFORMAT, "frames", i, at + 32, "frame mins are above its maxs");
        int32_t po = rec->ofs_bonepositions;
        uint64_t plen = (uint64_t)m->bone_count * DPM_POSE_SIZE;
        bool ok = po >= 0 && bk_span_ok((uint64_t)po, plen, f->size);
        for (uint32_t b = 0; b < m->bone_count; b++) { /* identity until read */
            float *mat = fr->pose + (size_t)b * 12;
            mat[0] = mat[5] = mat[10] = 1.0f;
        }
        if (!ok) {
            BK_ERR(ctx, BK_ELUMP_RANGE, "frames", i, at + 64,
                   "bone poses at offset %d (%u x 48 bytes) lie outside the file (%zu bytes)", po, m->bone_count,
                   f->size);
            continue;
        }
        decode(REC(POSE), f->data + po, m->bone_count, fr->pose);
        for (uint32_t b = 0; b < m->bone_count; b++) {
            uint64_t pa = (uint64_t)po + (uint64_t)b * DPM_POSE_SIZE;
            float *mat = fr->pose + (size_t)b * 12;
            if (!finite_n(mat, 12)) {
                BK_ERR(ctx, BK_EFORMAT, "frames", i, pa, "pose of bone %u is not finite", b);
                memset(mat, 0, 12 * sizeof(float));
                mat[0] = mat[5] = mat[10] = 1.0f;
            }
        }
    }
    return BK_OK;
}

static bk_result load_frames(bk_file *f, bk_ctx *ctx, dpm_impl *im, uint32_t ofs)
{
    bk_dpm_model *m = &im->m;
    bk_result r;
    m->frames = bk_alloc_array(ctx, m->frame_count, sizeof(bk_dpm_frame), &r);
    if (!m->frames) BK_ERR(ctx, r, "frames", BK_NO_INDEX, ofs, "cannot allocate %u frames", m->frame_count);
    if (!m->frames) return r;
    size_t per;
    if (!bk_mul_ok(m->bone_count, 12, &per) || !bk_mul_ok(per, m->frame_count, &per)) per = SIZE_MAX;
    im->pose_data = per == SIZE_MAX ? NULL : bk_alloc_array(ctx, per, sizeof(float), &r);
    if (!im->pose_data) {
        if (per == SIZE_MAX) r = BK_EOVERFLOW;
        BK_ERR(ctx, r, "frames", BK_NO_INDEX, ofs, "%u frames x %u bones of poses is over the allocation limit",
               m->frame_count, m->bone_count);
        return r;
    }
    /* the frame records decoded in one pass (one call per frame cost a small model a fifth more) */
    dpm_frame_rec *recs = bk_alloc_array(ctx, m->frame_count, sizeof *recs, &r);
    if (!recs) {
        BK_ERR(ctx, r, "frames", BK_NO_INDEX, ofs, "cannot allocate %u frames", m->frame_count);
        return r;
    }
    decode(TABLE(FRAMES), f->data + ofs, m->frame_count, recs);
    /* a failure reported there returns: the records are freed here either way */
    r = frames_from_records(f, ctx, im, ofs, recs);
    bk_free(recs);
    return r;
}

/* One mesh: header fields, spans, the vertex walk, texcoords, triangles, group ids. */
/* a mesh's texcoords and triangles (vertex and triangle counts already set and placed) */
static bk_result mesh_uv_tris(const bk_file *f, bk_ctx *ctx, bk_dpm_mesh *me, uint32_t mi, uint32_t ot, uint32_t oi, uint32_t og)
{
    uint32_t nv = me->vertex_count, nt = me->triangle_count;
    uint32_t bad_uv = 0;
    decode(REC(TEXCOORD), f->data + ot, nv, me->texcoords);
    decode(REC(TRIANGLE), f->data + oi, nt, me->indices);
    decode(REC(GROUPID), f->data + og, nt, me->groupids);
    for (uint32_t v = 0; v < nv; v++) {
        if (!finite_n(me->texcoords + (size_t)v * 2, 2)) {
            if (!bad_uv++) BK_WARN(ctx, BK_EFORMAT, "texcoords", v, ot + (uint64_t)v * 8, "mesh %u: texcoord of vertex %u is not finite", mi, v);
            me->texcoords[v * 2] = me->texcoords[v * 2 + 1] = 0;
        }
    }
    uint32_t degenerate = 0;
    for (uint32_t t = 0; t < nt; t++) {
        uint32_t *tri = me->indices + (size_t)t * 3;
        for (int c = 0; c < 3; c++) {
            uint64_t ia = oi + (uint64_t)t * 12 + (uint64_t)c * 4;
            if (tri[c] >= nv) {
                BK_ERR(ctx, BK_EINDEX, "triangles", t, ia, "mesh %u: triangle %u uses vertex %u of %u", mi, t, tri[c], nv);
                tri[c] = 0;
            }
        }
        if (tri[0] == tri[1] || tri[1] == tri[2] || tri[0] == tri[2]) degenerate++;
    }
    if (degenerate)
        BK_WARN(ctx, BK_EFORMAT, "triangles", BK_NO_INDEX, oi, "mesh %u: %u degenerate triangles (a vertex used twice)", mi,
                degenerate);
    return BK_OK;
}

static bk_result load_mesh(bk_file *f, bk_ctx *ctx, dpm_impl *im, uint32_t mi, uint64_t at)
{
    bk_dpm_model *m = &im->m;
    bk_dpm_mesh *me = &m->meshes[mi];
    const uint8_t *p = f->data + at;
    const size_t size = f->size;
    bk_result r;
    load_name(ctx, me->shader, p, "meshes", mi, at, "shader name");
    if (!me->shader[0]) BK_WARN(ctx, BK_EFORMAT, "meshes", mi, at, "mesh has an empty shader name");
    dpm_mesh_rec rec;
    decode(TABLE(MESHES), p, 1, &rec);
    uint32_t nv = rec.num_verts, nt = rec.num_tris;
    uint32_t ov = rec.ofs_verts, ot = rec.ofs_texcoords, oi = rec.ofs_indices, og = rec.ofs_groupids;
    /* every vertex takes at least 4 + 32 bytes, every triangle 12 (+4 group id) */
    if (!bk_span_ok(ov, (uint64_t)nv * (4 + DPM_BONEVERT_SIZE), size)) {
        BK_ERR(ctx, BK_ELUMP_RANGE, "meshes", mi, at + 40,
               "%u vertices (at least 36 bytes each) at offset %u run past the end of the file (%zu bytes)", nv, ov,
               size);
        return BK_OK;
    }
    if (!bk_span_ok(ot, (uint64_t)nv * 8, size)) {
        BK_ERR(ctx, BK_ELUMP_RANGE, "meshes", mi, at + 44,
               "%u texcoords at offset %u run past the end of the file (%zu bytes)", nv, ot, size);
        return BK_OK;
    }
    if (!bk_span_ok(oi, (uint64_t)nt * 12, size)) {
        BK_ERR(ctx, BK_ELUMP_RANGE, "meshes", mi, at + 48,
               "%u triangles at offset %u run past the end of the file (%zu bytes)", nt, oi, size);
        return BK_OK;
    }
    if (!bk_span_ok(og, (uint64_t)nt * 4, size)) {
        BK_ERR(ctx, BK_ELUMP_RANGE, "meshes", mi, at + 52,
               "%u group ids at offset %u run past the end of the file (%zu bytes)", nt, og, size);
        return BK_OK;
    }
    if (nv == 0 || nt == 0) BK_WARN(ctx, BK_EFORMAT, "meshes", mi, at + 32, "mesh has %u vertices and %u triangles", nv, nt);

    /* pass 1: walk the variable-length vertices (an influence count, then that many influences:
     * no fixed stride, so the walk stays by hand), count influences */
    uint64_t pos = ov, total = 0;
    for (uint32_t v = 0; v < nv; v++) {
        if (!bk_span_ok(pos, 4, size)) {
            BK_ERR(ctx, BK_ETRUNCATED, "vertices", v, pos, "mesh %u: vertex %u starts past the end of the file", mi, v);
            return BK_OK;
        }
        uint32_t k;
        decode(REC(VERTEX), f->data + pos, 1, &k);
        if (k == 0) {
            BK_ERR(ctx, BK_EFORMAT, "vertices", v, pos, "mesh %u: vertex %u has no bone influences", mi, v);
        }
        if (!bk_span_ok(pos + 4, (uint64_t)k * DPM_BONEVERT_SIZE, size)) {
            BK_ERR(ctx, BK_ETRUNCATED, "vertices", v, pos,
                   "mesh %u: vertex %u claims %u influences (32 bytes each), past the end of the file", mi, v, k);
            return BK_OK;
        }
        pos += 4 + (uint64_t)k * DPM_BONEVERT_SIZE;
        total += k;
    }
    if (total > ctx->opt.limits.max_elements || total > UINT32_MAX) {
        BK_ERR(ctx, BK_ELIMIT, "vertices", BK_NO_INDEX, ov, "mesh %u has %llu influences, over the limit", mi,
               (unsigned long long)total);
        return BK_OK;
    }
    me->first_influence = bk_alloc_array(ctx, (size_t)nv + 1, sizeof(uint32_t), &r);
    me->influences = bk_alloc_array(ctx, (size_t)total, sizeof(bk_dpm_influence), &r);
    me->texcoords = bk_alloc_array(ctx, (size_t)nv, 2 * sizeof(float), &r);
    me->indices = bk_alloc_array(ctx, (size_t)nt, 3 * sizeof(uint32_t), &r);
    me->groupids = bk_alloc_array(ctx, (size_t)nt, sizeof(uint32_t), &r);
    if (!me->first_influence || !me->influences || !me->texcoords || !me->indices || !me->groupids) {
        BK_ERR(ctx, r, "meshes", mi, at, "cannot allocate mesh %u", mi);
        return r;
    }
    me->vertex_count = nv;
    me->triangle_count = nt;
    me->influence_count = (uint32_t)total;

    /* pass 2: decode and check every influence */
    pos = ov;
    uint32_t n = 0, bad_sum = 0, first_bad_sum = 0;
    for (uint32_t v = 0; v < nv; v++) {
        uint32_t k;
        decode(REC(VERTEX), f->data + pos, 1, &k);
        uint64_t vat = pos;
        pos += 4;
        me->first_influence[v] = n;
        if (k > m->max_influences) m->max_influences = k;
        decode(REC(INFLUENCE), f->data + pos, k, me->influences + n);
        float sum = 0;
        for (uint32_t j = 0; j < k; j++, n++, pos += DPM_BONEVERT_SIZE) {
            bk_dpm_influence *in = &me->influences[n];
            if (in->bone >= m->bone_count) {
                BK_ERR(ctx, BK_EINDEX, "vertices", v, pos + 28, "mesh %u: vertex %u influence %u names bone %u of %u",
                       mi, v, j, in->bone, m->bone_count);
                in->bone = 0;
            }
            if (!finite_n(in->origin, 3) || !finite_n(in->normal, 3) || !isfinite(in->influence)) {
                BK_ERR(ctx, BK_EFORMAT, "vertices", v, pos, "mesh %u: vertex %u influence %u is not finite", mi, v, j);
                memset(in, 0, sizeof *in);
            }
            if (in->influence < 0.0f)
                BK_WARN(ctx, BK_EFORMAT, "vertices", v, pos + 12, "mesh %u: vertex %u has a negative influence %g", mi,
                        v, (double)in->influence);
            sum += in->influence;
        }
        if (!(fabsf(sum - 1.0f) <= 0.01f)) {
            if (!bad_sum) first_bad_sum = v;
            if (bad_sum < 3)
                BK_WARN(ctx, BK_EFORMAT, "vertices", v, vat, "mesh %u: vertex %u influences add up to %g, not 1", mi, v,
                        (double)sum);
            bad_sum++;
        }
    }
    me->first_influence[nv] = n;
    if (bad_sum > 3)
        BK_WARN(ctx, BK_EFORMAT, "vertices", first_bad_sum, ov, "mesh %u: %u vertices in all have influences not adding up to 1",
                mi, bad_sum);

    return mesh_uv_tris(f, ctx, me, mi, ot, oi, og);
}

/* Validate mode only: skin every frame and check it against the frame's stored bounds. */
static void check_bounds(bk_ctx *ctx, const bk_dpm_model *m, uint64_t ofs_frames)
{
    size_t nb = (size_t)m->bone_count * 12, maxv = 0;
    uint64_t work = 0;
    for (uint32_t i = 0; i < m->mesh_count; i++) {
        if (m->meshes[i].vertex_count > maxv) maxv = m->meshes[i].vertex_count;
        work += m->meshes[i].influence_count;
    }
    if ((work + nb) * m->frame_count > 50000000u) return; /* keep validation fast */
    bk_result r;
    float *bones = bk_alloc_array(ctx, nb, sizeof(float), &r);
    float *pos = bk_alloc_array(ctx, maxv, 3 * sizeof(float), &r);
    uint32_t outside = 0, first = 0;
    float worst = 0;
    for (uint32_t fi = 0; bones && pos && fi < m->frame_count; fi++) {
        const bk_dpm_frame *fr = &m->frames[fi];
        bk_dpm_pose(m, fi, fi, 0, BK_DPM_LERP_MATRIX, bones);
        float tol = 1.0f;
        for (int c = 0; c < 3; c++) tol = fmaxf(tol, 0.01f * (fr->maxs[c] - fr->mins[c]));
        bool out = false;
        for (uint32_t mi = 0; mi < m->mesh_count; mi++) {
            const bk_dpm_mesh *me = &m->meshes[mi];
            if (!me->influences) continue;
            bk_dpm_skin(m, mi, bones, pos, NULL);
            for (uint32_t v = 0; v < me->vertex_count; v++)
                for (int c = 0; c < 3; c++) {
                    float x = pos[(size_t)v * 3 + c];
                    float d = fmaxf(fr->mins[c] - x, x - fr->maxs[c]);
                    if (d > tol) {
                        out = true;
                        if (d > worst) worst = d;
                    }
                }
        }
        if (out && !outside++) first = fi;
    }
    if (outside)
        BK_WARN(ctx, BK_EFORMAT, "frames", first, ofs_frames + (uint64_t)first * DPM_FRAME_SIZE,
                "%u frames have skinned vertices outside their stored bounds (by up to %g units)", outside,
                (double)worst);
    bk_free(bones);
    bk_free(pos);
}

/* each mesh's four arrays as lumps of the info (the first per_mesh meshes) */
static void mesh_lump_info(const uint8_t *d, uint32_t om, const bk_dpm_model *m, bk_lump_info *l, uint32_t per_mesh)
{
    for (uint32_t i = 0; i < per_mesh; i++) {
        dpm_mesh_rec rec;
        decode(TABLE(MESHES), d + om + (size_t)i * DPM_MESH_SIZE, 1, &rec);
        const bk_dpm_mesh *me = &m->meshes[i];
        bk_lump_info *x = l + i * 4;
        snprintf(x[0].name, sizeof x[0].name, "mesh%u.vertices", i);
        x[0].offset = rec.ofs_verts;
        x[0].length = (uint64_t)me->vertex_count * 4 + (uint64_t)me->influence_count * DPM_BONEVERT_SIZE;
        x[0].count = me->vertex_count;
        snprintf(x[1].name, sizeof x[1].name, "mesh%u.texcoords", i);
        x[1].offset = rec.ofs_texcoords;
        x[1].length = (uint64_t)me->vertex_count * 8;
        x[1].count = me->vertex_count;
        snprintf(x[2].name, sizeof x[2].name, "mesh%u.indices", i);
        x[2].offset = rec.ofs_indices;
        x[2].length = (uint64_t)me->triangle_count * 12;
        x[2].count = me->triangle_count;
        snprintf(x[3].name, sizeof x[3].name, "mesh%u.groupids", i);
        x[3].offset = rec.ofs_groupids;
        x[3].length = (uint64_t)me->triangle_count * 4;
        x[3].count = me->triangle_count;
        for (int k = 0; k < 4; k++) x[k].uncompressed = x[k].length;
    }
}

static bk_result dpm_load(bk_file *f, bk_ctx *ctx)
{
    const uint8_t *d = f->data;
    const size_t size = f->size;
    if (size < DPM_HEADER_SIZE) {
        BK_ERR(ctx, BK_ETRUNCATED, "header", BK_NO_INDEX, 0, "file is %zu bytes, a DPM header takes %u", size,
               DPM_HEADER_SIZE);
        return BK_ETRUNCATED;
    }
    dpm_header h;
    decode(REC(HEADER), d, 1, &h);
    uint32_t type = h.type;
    f->info.version = (int32_t)type;
    if (type != DPM_TYPE) {
        BK_ERR(ctx, BK_EVERSION, "header", BK_NO_INDEX, 16, "model type %u; only type 2 (hierarchical skeletal) exists",
               type);
        return BK_EVERSION;
    }
    uint32_t filesize = h.filesize;
    if (filesize > size)
        BK_ERR(ctx, BK_ETRUNCATED, "header", BK_NO_INDEX, 20, "header says the file is %u bytes but it has %zu (truncated)",
               filesize, size);
    else if (filesize < size)
        BK_WARN(ctx, BK_EFORMAT, "header", BK_NO_INDEX, 20, "header says the file is %u bytes; %zu trailing bytes ignored",
                filesize, size - filesize);

    bk_result r;
    dpm_impl *im = bk_alloc_array(ctx, 1, sizeof *im, &r);
    if (!im) return r;
    f->impl = im;
    bk_dpm_model *m = &im->m;
    memcpy(m->mins, h.mins, sizeof m->mins);
    memcpy(m->maxs, h.maxs, sizeof m->maxs);
    m->yawradius = h.yawradius;
    m->allradius = h.allradius;
    if (!finite_n(m->mins, 3) || !finite_n(m->maxs, 3) || !isfinite(m->yawradius) || !isfinite(m->allradius))
        BK_ERR(ctx, BK_EFORMAT, "header", BK_NO_INDEX, 24, "model bounds are not finite numbers");
    else if (m->mins[0] > m->maxs[0] || m->mins[1] > m->maxs[1] || m->mins[2] > m->maxs[2])
        BK_WARN(ctx, BK_EFORMAT, "header", BK_NO_INDEX, 24, "model mins are above its maxs");

    uint32_t nb = h.num_bones, nm = h.num_meshes, nf = h.num_frames;
    uint32_t ob = h.ofs_bones, om = h.ofs_meshes, of = h.ofs_frames;
    if (nb == 0) BK_ERR(ctx, BK_EFORMAT, "header", BK_NO_INDEX, 56, "model has no bones");
    if (nb > DPM_MAX_BONES) {
        BK_ERR(ctx, BK_ELIMIT, "header", BK_NO_INDEX, 56, "%u bones, over the limit of %u", nb, DPM_MAX_BONES);
        return BK_ELIMIT;
    }
    if (nf == 0) BK_ERR(ctx, BK_EFORMAT, "header", BK_NO_INDEX, 64, "model has no frames (frame 0 is the base pose)");
    if (nm == 0) BK_WARN(ctx, BK_EFORMAT, "header", BK_NO_INDEX, 60, "model has no meshes");
    if (check_table(ctx, 0, ob, nb, size) != BK_OK || check_table(ctx, 1, om, nm, size) != BK_OK ||
        check_table(ctx, 2, of, nf, size) != BK_OK)
        return BK_ELUMP_RANGE;

    m->bone_count = nb;
    m->frame_count = nf;
    BK_TRY(load_bones(f, ctx, im, ob));
    if (!m->bones) return ctx->first_error ? ctx->first_error : BK_ENOMEM;
    BK_TRY(load_frames(f, ctx, im, of));
    if (!m->frames || !im->pose_data) return ctx->first_error ? ctx->first_error : BK_ENOMEM;
    m->meshes = bk_alloc_array(ctx, nm, sizeof(bk_dpm_mesh), &r);
    if (!m->meshes) {
        BK_ERR(ctx, r, "meshes", BK_NO_INDEX, om, "cannot allocate %u meshes", nm);
        return r;
    }
    m->mesh_count = nm;
    uint64_t verts = 0, tris = 0, infl = 0;
    for (uint32_t i = 0; i < nm; i++) {
        BK_TRY(load_mesh(f, ctx, im, i, (uint64_t)om + (uint64_t)i * DPM_MESH_SIZE));
        if (ctx->errors && !ctx->keep_going) return ctx->first_error;
        verts += m->meshes[i].vertex_count;
        tris += m->meshes[i].triangle_count;
        infl += m->meshes[i].influence_count;
    }

    if (ctx->keep_going && !ctx->errors) check_bounds(ctx, m, of);

    /* report: lumps and counts */
    uint32_t per_mesh = nm <= 64 ? nm : 0;
    if (bk_info_set_lumps(&f->info, 4 + 4 * per_mesh) == BK_OK) {
        bk_lump_info *l = f->info.lumps;
        snprintf(l[0].name, sizeof l[0].name, "header");
        l[0].length = l[0].uncompressed = DPM_HEADER_SIZE;
        l[0].count = -1;
        uint32_t ofs[3] = {ob, om, of}, cnt[3] = {nb, nm, nf};
        for (int i = 0; i < 3; i++) {
            snprintf(l[1 + i].name, sizeof l[1 + i].name, "%s", k_tables[i].name);
            l[1 + i].offset = ofs[i];
            l[1 + i].length = l[1 + i].uncompressed = (uint64_t)cnt[i] * k_tables[i].entry[0];
            l[1 + i].count = cnt[i];
        }
        mesh_lump_info(d, om, m, l + 4, per_mesh);
    }
    bk_info_count(&f->info, "bones", nb);
    bk_info_count(&f->info, "meshes", nm);
    bk_info_count(&f->info, "frames", nf);
    bk_info_count(&f->info, "vertices", verts);
    bk_info_count(&f->info, "triangles", tris);
    bk_info_count(&f->info, "influences", infl);
    bk_info_count(&f->info, "max_influences", m->max_influences);
    bk_info_count(&f->info, "entities", 0);
    f->info.has_bounds = 1;
    memcpy(f->info.mins, m->mins, sizeof m->mins);
    memcpy(f->info.maxs, m->maxs, sizeof m->maxs);
    if (ctx->keep_going)
        bk_report(ctx, BK_SEV_INFO, BK_OK, NULL, BK_NO_INDEX, BK_NO_OFFSET,
                  "%u bones, %u meshes, %u frames, %llu vertices, %llu triangles, %llu influences (at most %u per vertex), "
                  "bounds (%g %g %g) .. (%g %g %g)",
                  nb, nm, nf, (unsigned long long)verts, (unsigned long long)tris, (unsigned long long)infl,
                  m->max_influences, (double)m->mins[0], (double)m->mins[1], (double)m->mins[2], (double)m->maxs[0],
                  (double)m->maxs[1], (double)m->maxs[2]);
    return ctx->errors ? ctx->first_error : BK_OK;
}

const bk_format_ops bk_ops_dpm = {BK_FORMAT_DPM, dpm_probe, dpm_load, dpm_destroy, bk_dpm_build_scene, NULL, bk_dpm_write, NULL};
