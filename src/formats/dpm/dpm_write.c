/* The optimising DPM saver, doing what model_dpmodel.h asks of one:
 *   - remove all unused data: bones no influence uses (attachment-flagged bones, bones named
 *     "tag_*" that gamecode looks up by name, and every ancestor of a kept bone stay), vertices no
 *     triangle uses, and influences that contribute exactly nothing (zero weight, zero origin,
 *     zero normal) when a vertex has others;
 *   - order triangles for the vertex cache (Tom Forsyth, "Linear-speed vertex cache optimisation",
 *     2006: greedy, scored by LRU cache position and remaining valence) and then vertices by first
 *     use in the triangle list.
 * The meaning is kept: same meshes (order, shaders), same triangles (as sets, winding kept),
 * same frames (names, bounds, poses of the kept bones), same header bounds, and bit-identical
 * skinned positions (each vertex's influences keep their order). */
#include <math.h>
#include <stdio.h>

#include "dpm_internal.h"

/* ---- vertex cache ------------------------------------------------------------------------ */

double bk_dpm_acmr(const uint32_t *idx, uint32_t tris, uint32_t nv, uint32_t cache_size)
{
    if (!tris || !idx || !cache_size || cache_size > 64) return 0;
    /* FIFO: a vertex is a hit if it entered the cache within the last cache_size misses */
    uint64_t *stamp = bk_calloc(nv ? nv : 1, sizeof *stamp);
    if (!stamp) return 0;
    uint64_t misses = 0;
    for (uint64_t i = 0; i < (uint64_t)tris * 3; i++) {
        uint32_t v = idx[i];
        if (v >= nv) continue;
        if (stamp[v] == 0 || misses + 1 - stamp[v] > cache_size) {
            misses++;
            stamp[v] = misses;
        }
    }
    bk_free(stamp);
    return (double)misses / tris;
}

#define FS_CACHE 32

static float fs_score(int cache_pos, uint32_t valence)
{
    if (valence == 0) return -1.0f;
    float s = 0;
    if (cache_pos >= 0) {
        if (cache_pos < 3) s = 0.75f;
        else s = powf(1.0f - (float)(cache_pos - 3) / (FS_CACHE - 3), 1.5f);
    }
    return s + 2.0f * powf((float)valence, -0.5f);
}

/* the reordering's state: per vertex its triangles not yet emitted (adj[first[v]..+valence[v]]),
 * its place in the cache and score; per triangle its score and whether it is out */
typedef struct fs_state {
    const uint32_t *idx;
    uint32_t tris;
    uint32_t *valence, *first, *adj;
    int32_t *cpos;
    float *vscore, *tscore;
    uint8_t *done;
    uint32_t cache[FS_CACHE + 3];
    int cache_n;
} fs_state;

static float fs_tri(fs_state *f, uint32_t t)
{
    const uint32_t *x = f->idx + (size_t)t * 3;
    return f->tscore[t] = f->vscore[x[0]] + f->vscore[x[1]] + f->vscore[x[2]];
}

/* each vertex's triangles, and the first scores */
static bk_result fs_init(fs_state *f, uint32_t nv)
{
    size_t n3 = (size_t)f->tris * 3;
    for (size_t i = 0; i < n3; i++) f->valence[f->idx[i]]++;
    for (uint32_t v = 0, acc = 0; v < nv; v++) {
        f->first[v] = acc;
        acc += f->valence[v];
    }
    f->first[nv] = (uint32_t)n3;
    uint32_t *fill = bk_calloc((size_t)nv + 1, sizeof(uint32_t));
    if (!fill) return BK_ENOMEM;
    for (uint32_t t = 0; t < f->tris; t++)
        for (int c = 0; c < 3; c++) {
            uint32_t v = f->idx[(size_t)t * 3 + c];
            f->adj[f->first[v] + fill[v]++] = t;
        }
    bk_free(fill);
    /* valence[] now counts the triangles not yet emitted; adj lists are compacted as we go */
    for (uint32_t v = 0; v < nv; v++) {
        f->cpos[v] = -1;
        f->vscore[v] = fs_score(-1, f->valence[v]);
    }
    for (uint32_t t = 0; t < f->tris; t++) fs_tri(f, t);
    return BK_OK;
}

/* nothing in the cache scores: the best triangle left (-1: none) */
static int64_t fs_best_left(fs_state *f, uint32_t *scan)
{
    int64_t best = -1;
    float bs = -1e30f;
    for (uint32_t t = *scan; t < f->tris; t++) {
        if (f->done[t]) {
            if (t == *scan) (*scan)++;
            continue;
        }
        if (f->tscore[t] > bs) {
            bs = f->tscore[t];
            best = t;
        }
    }
    return best;
}

/* triangle t emitted: out of its vertices' lists; the cache made anew (t's vertices first, then
 * the old contents), the scores of what moved updated; the best triangle of the cache (-1: none) */
static int64_t fs_emit(fs_state *f, uint32_t t)
{
    uint32_t nc[FS_CACHE + 3];
    int nn = 0;
    for (int c = 0; c < 3; c++) {
        uint32_t v = f->idx[(size_t)t * 3 + c];
        uint32_t *a = f->adj + f->first[v];
        for (uint32_t k = 0; k < f->valence[v]; k++)
            if (a[k] == t) {
                a[k] = a[f->valence[v] - 1];
                f->valence[v]--;
                break;
            }
        bool dup = false;
        for (int k = 0; k < nn; k++) dup |= nc[k] == v;
        if (!dup) nc[nn++] = v;
    }
    for (int k = 0; k < f->cache_n && nn < FS_CACHE + 3; k++) {
        bool dup = false;
        for (int q = 0; q < 3 && q < nn; q++) dup |= nc[q] == f->cache[k];
        if (!dup) nc[nn++] = f->cache[k];
    }
    for (int k = 0; k < f->cache_n; k++) f->cpos[f->cache[k]] = -1;
    f->cache_n = nn < FS_CACHE ? nn : FS_CACHE;
    for (int k = nn; k-- > f->cache_n;) { /* fell out of the cache */
        uint32_t v = nc[k];
        f->cpos[v] = -1;
        f->vscore[v] = fs_score(-1, f->valence[v]);
        for (uint32_t q = 0; q < f->valence[v]; q++) fs_tri(f, f->adj[f->first[v] + q]);
    }
    for (int k = 0; k < f->cache_n; k++) {
        f->cache[k] = nc[k];
        f->cpos[nc[k]] = k;
    }
    for (int k = 0; k < f->cache_n; k++) f->vscore[f->cache[k]] = fs_score(k, f->valence[f->cache[k]]);
    int64_t best = -1;
    float bs = -1e30f;
    for (int k = 0; k < f->cache_n; k++) {
        uint32_t v = f->cache[k];
        for (uint32_t q = 0; q < f->valence[v]; q++) {
            uint32_t tt = f->adj[f->first[v] + q];
            if (fs_tri(f, tt) > bs) {
                bs = f->tscore[tt];
                best = tt;
            }
        }
    }
    return best;
}

/* Reorder the triangles of idx (tris x 3, vertices < nv) in place; order[] receives, for each
 * new triangle position, the old triangle number. */
static bk_result forsyth(uint32_t *idx, uint32_t tris, uint32_t nv, uint32_t *order)
{
    size_t n3 = (size_t)tris * 3;
    fs_state f;
    memset(&f, 0, sizeof f);
    f.idx = idx;
    f.tris = tris;
    f.valence = bk_calloc((size_t)nv + 1, sizeof(uint32_t));
    f.first = bk_calloc((size_t)nv + 1, sizeof(uint32_t));
    f.adj = bk_malloc((n3 ? n3 : 1) * sizeof(uint32_t));
    f.cpos = bk_malloc(((size_t)nv + 1) * sizeof(int32_t));
    f.vscore = bk_malloc(((size_t)nv + 1) * sizeof(float));
    f.tscore = bk_malloc(((size_t)tris + 1) * sizeof(float));
    f.done = bk_calloc((size_t)tris + 1, 1);
    uint32_t *out = bk_malloc((n3 ? n3 : 1) * sizeof(uint32_t));
    bk_result r = BK_ENOMEM;
    if (f.valence && f.first && f.adj && f.cpos && f.vscore && f.tscore && f.done && out) r = fs_init(&f, nv);
    uint32_t scan = 0, emitted = 0;
    int64_t best = -1;
    while (r == BK_OK && emitted < tris) {
        if (best < 0 && (best = fs_best_left(&f, &scan)) < 0) break;
        uint32_t t = (uint32_t)best;
        f.done[t] = 1;
        order[emitted] = t;
        memcpy(out + (size_t)emitted * 3, idx + (size_t)t * 3, 3 * sizeof(uint32_t));
        emitted++;
        best = fs_emit(&f, t);
    }
    if (r == BK_OK) memcpy(idx, out, n3 * sizeof(uint32_t));
    bk_free(f.valence);
    bk_free(f.first);
    bk_free(f.adj);
    bk_free(f.cpos);
    bk_free(f.vscore);
    bk_free(f.tscore);
    bk_free(f.done);
    bk_free(out);
    return r;
}

/* ---- serialisation ------------------------------------------------------------------------ */

typedef struct wmesh {
    uint32_t nv, nt, ninf;
    uint32_t *vmap;      /* new vertex -> old vertex */
    uint32_t *idx;       /* new triangles (new vertex numbers) */
    uint32_t *tri_old;   /* new triangle -> old triangle */
} wmesh;

static void wmeshes_free(wmesh *wm, uint32_t n)
{
    for (uint32_t i = 0; wm && i < n; i++) {
        bk_free(wm[i].vmap);
        bk_free(wm[i].idx);
        bk_free(wm[i].tri_old);
    }
    bk_free(wm);
}

static bool contributes(const bk_dpm_influence *x)
{
    return x->influence != 0 || x->origin[0] != 0 || x->origin[1] != 0 || x->origin[2] != 0 || x->normal[0] != 0 ||
           x->normal[1] != 0 || x->normal[2] != 0;
}

static void put_name(uint8_t *p, const char *s)
{
    memset(p, 0, BK_DPM_NAME_LEN);
    size_t n = strlen(s);
    memcpy(p, s, n < BK_DPM_NAME_LEN - 1 ? n : BK_DPM_NAME_LEN - 1);
}

static void put_f3(uint8_t *p, const float *v)
{
    for (int i = 0; i < 3; i++) bk_wr_f32be(p + 4 * i, v[i]);
}

/* 1. per mesh: the vertices its triangles use, the triangles in cache order (Forsyth), the
 * vertices in order of first use, and the bones their contributing influences name (keep) */
static bk_result plan_meshes(const bk_dpm_model *m, wmesh *wm, uint8_t *keep, bk_dpm_save_stats *st)
{
    uint32_t *oldnew = NULL;
    bk_result r = BK_OK;
    for (uint32_t mi = 0; mi < m->mesh_count && r == BK_OK; mi++) {
        const bk_dpm_mesh *me = &m->meshes[mi];
        wmesh *w = &wm[mi];
        w->nt = me->triangle_count;
        st->vertices_in += me->vertex_count;
        st->triangles += me->triangle_count;
        w->idx = bk_malloc(((size_t)w->nt * 3 + 1) * sizeof(uint32_t));
        w->tri_old = bk_malloc(((size_t)w->nt + 1) * sizeof(uint32_t));
        w->vmap = bk_malloc(((size_t)me->vertex_count + 1) * sizeof(uint32_t));
        bk_free(oldnew);
        oldnew = bk_malloc(((size_t)me->vertex_count + 1) * sizeof(uint32_t));
        if (!w->idx || !w->tri_old || !w->vmap || !oldnew) {
            r = BK_ENOMEM;
            break;
        }
        if (w->nt) memcpy(w->idx, me->indices, (size_t)w->nt * 3 * sizeof(uint32_t));
        st->acmr_before += bk_dpm_acmr(me->indices, w->nt, me->vertex_count, 16) * w->nt;
        if ((r = forsyth(w->idx, w->nt, me->vertex_count, w->tri_old)) != BK_OK) break;
        for (uint32_t v = 0; v < me->vertex_count; v++) oldnew[v] = UINT32_MAX;
        for (size_t i = 0; i < (size_t)w->nt * 3; i++) {
            uint32_t v = w->idx[i];
            if (oldnew[v] == UINT32_MAX) {
                oldnew[v] = w->nv;
                w->vmap[w->nv++] = v;
            }
            w->idx[i] = oldnew[v];
        }
        st->acmr_after += bk_dpm_acmr(w->idx, w->nt, w->nv, 16) * w->nt;
        st->vertices_out += w->nv;
        for (uint32_t v = 0; v < w->nv; v++) {
            uint32_t ov = w->vmap[v], j0 = me->first_influence[ov], j1 = me->first_influence[ov + 1];
            bool any = false;
            for (uint32_t j = j0; j < j1; j++) any |= contributes(&me->influences[j]);
            for (uint32_t j = j0; j < j1; j++)
                if (any ? contributes(&me->influences[j]) : j == j0) {
                    keep[me->influences[j].bone] = 1;
                    w->ninf++;
                }
        }
    }
    bk_free(oldnew);
    return r;
}

/* 2. the bones kept: used, attachments, tags, and their ancestors (parents are lower: walked
 * down); bmap: old bone -> new, -1 for a dropped one. The count kept. */
static uint32_t plan_bones(const bk_dpm_model *m, uint32_t flags, uint8_t *keep, int32_t *bmap, bk_dpm_save_stats *st)
{
    uint32_t nb = m->bone_count;
    for (uint32_t b = 0; b < nb; b++)
        if ((m->bones[b].flags & BK_DPM_BONEFLAG_ATTACHMENT) || strncmp(m->bones[b].name, "tag_", 4) == 0 ||
            (flags & BK_DPM_KEEP_ALL_BONES))
            keep[b] = 1;
    if (nb) {
        bool any = false;
        for (uint32_t b = 0; b < nb; b++) any |= keep[b] != 0;
        if (!any) keep[0] = 1; /* a model keeps at least one bone */
    }
    for (uint32_t b = nb; b-- > 0;)
        if (keep[b] && m->bones[b].parent >= 0) keep[m->bones[b].parent] = 1;
    uint32_t nbo = 0;
    for (uint32_t b = 0; b < nb; b++) {
        bmap[b] = keep[b] ? (int32_t)nbo++ : -1;
        size_t l = strlen(st->dropped_bones);
        if (!keep[b] && l + 2 < sizeof st->dropped_bones)
            snprintf(st->dropped_bones + l, sizeof st->dropped_bones - l, "%s%s", l ? "," : "", m->bones[b].name);
    }
    st->bones_in = nb;
    st->bones_out = nbo;
    return nbo;
}

/* 3. where each part goes: header, bones, meshes, frames, poses, then each mesh's data */
typedef struct wlayout {
    uint64_t bones, meshes, frames, poses, mesh_data, size;
} wlayout;

static wlayout plan_layout(const bk_dpm_model *m, const wmesh *wm, uint32_t nbo)
{
    wlayout L;
    uint64_t size = DPM_HEADER_SIZE;
    L.bones = size;
    size += (uint64_t)nbo * DPM_BONE_SIZE;
    L.meshes = size;
    size += (uint64_t)m->mesh_count * DPM_MESH_SIZE;
    L.frames = size;
    size += (uint64_t)m->frame_count * DPM_FRAME_SIZE;
    L.poses = size;
    size += (uint64_t)m->frame_count * nbo * DPM_POSE_SIZE;
    L.mesh_data = size;
    for (uint32_t mi = 0; mi < m->mesh_count; mi++)
        size += (uint64_t)wm[mi].nv * 4 + (uint64_t)wm[mi].ninf * DPM_BONEVERT_SIZE + (uint64_t)wm[mi].nv * 8 +
                (uint64_t)wm[mi].nt * 16;
    L.size = size;
    return L;
}

/* the header, the kept bones, and the frames with their poses of the kept bones */
static void write_skeleton(const bk_dpm_model *m, const int32_t *bmap, uint32_t nbo, const wlayout *L, uint8_t *buf)
{
    uint32_t nb = m->bone_count, nf = m->frame_count;
    memcpy(buf, DPM_MAGIC, 16);
    bk_wr_u32be(buf + 16, DPM_TYPE);
    bk_wr_u32be(buf + 20, (uint32_t)L->size);
    put_f3(buf + 24, m->mins);
    put_f3(buf + 36, m->maxs);
    bk_wr_f32be(buf + 48, m->yawradius);
    bk_wr_f32be(buf + 52, m->allradius);
    bk_wr_u32be(buf + 56, nbo);
    bk_wr_u32be(buf + 60, m->mesh_count);
    bk_wr_u32be(buf + 64, nf);
    bk_wr_u32be(buf + 68, (uint32_t)L->bones);
    bk_wr_u32be(buf + 72, (uint32_t)L->meshes);
    bk_wr_u32be(buf + 76, (uint32_t)L->frames);
    for (uint32_t b = 0; b < nb; b++) {
        if (bmap[b] < 0) continue;
        uint8_t *p = buf + L->bones + (size_t)bmap[b] * DPM_BONE_SIZE;
        put_name(p, m->bones[b].name);
        int32_t par = m->bones[b].parent;
        bk_wr_u32be(p + 32, (uint32_t)(par >= 0 ? bmap[par] : -1));
        bk_wr_u32be(p + 36, m->bones[b].flags);
    }
    for (uint32_t f = 0; f < nf; f++) {
        const bk_dpm_frame *fr = &m->frames[f];
        uint8_t *p = buf + L->frames + (size_t)f * DPM_FRAME_SIZE;
        put_name(p, fr->name);
        put_f3(p + 32, fr->mins);
        put_f3(p + 44, fr->maxs);
        bk_wr_f32be(p + 56, fr->yawradius);
        bk_wr_f32be(p + 60, fr->allradius);
        uint64_t at = L->poses + (uint64_t)f * nbo * DPM_POSE_SIZE;
        bk_wr_u32be(p + 64, (uint32_t)at);
        for (uint32_t b = 0; b < nb; b++) {
            if (bmap[b] < 0) continue;
            uint8_t *q = buf + at + (size_t)bmap[b] * DPM_POSE_SIZE;
            for (int k = 0; k < 12; k++) bk_wr_f32be(q + 4 * k, fr->pose[(size_t)b * 12 + k]);
        }
    }
}

/* Mesh mi's entry and its data from at: each vertex's contributing influences, texcoords,
 * triangles, group ids. Where the next mesh's data starts. */
static uint64_t write_mesh(const bk_dpm_model *m, uint32_t mi, const wmesh *w, const int32_t *bmap, const wlayout *L,
                           uint64_t at, uint8_t *buf)
{
    const bk_dpm_mesh *me = &m->meshes[mi];
    uint8_t *p = buf + L->meshes + (size_t)mi * DPM_MESH_SIZE;
    put_name(p, me->shader);
    bk_wr_u32be(p + 32, w->nv);
    bk_wr_u32be(p + 36, w->nt);
    uint64_t ov = at;
    uint64_t q = ov;
    for (uint32_t v = 0; v < w->nv; v++) {
        uint32_t old = w->vmap[v];
        uint32_t cnt = 0;
        uint64_t cnt_at = q;
        q += 4;
        bool any = false;
        for (uint32_t j = me->first_influence[old]; j < me->first_influence[old + 1]; j++)
            any |= contributes(&me->influences[j]);
        for (uint32_t j = me->first_influence[old]; j < me->first_influence[old + 1]; j++) {
            const bk_dpm_influence *x = &me->influences[j];
            if (any ? !contributes(x) : j != me->first_influence[old]) continue;
            uint8_t *z = buf + q;
            put_f3(z, x->origin);
            bk_wr_f32be(z + 12, x->influence);
            put_f3(z + 16, x->normal);
            bk_wr_u32be(z + 28, (uint32_t)bmap[x->bone]);
            q += DPM_BONEVERT_SIZE;
            cnt++;
        }
        bk_wr_u32be(buf + cnt_at, cnt);
    }
    uint64_t ot = q;
    for (uint32_t v = 0; v < w->nv; v++) {
        bk_wr_f32be(buf + q, me->texcoords[(size_t)w->vmap[v] * 2]);
        bk_wr_f32be(buf + q + 4, me->texcoords[(size_t)w->vmap[v] * 2 + 1]);
        q += 8;
    }
    uint64_t oi = q;
    for (size_t i = 0; i < (size_t)w->nt * 3; i++, q += 4) bk_wr_u32be(buf + q, w->idx[i]);
    uint64_t og = q;
    for (uint32_t t = 0; t < w->nt; t++, q += 4) bk_wr_u32be(buf + q, me->groupids[w->tri_old[t]]);
    bk_wr_u32be(p + 40, (uint32_t)ov);
    bk_wr_u32be(p + 44, (uint32_t)ot);
    bk_wr_u32be(p + 48, (uint32_t)oi);
    bk_wr_u32be(p + 52, (uint32_t)og);
    return q;
}

bk_result bk_dpm_save_memory(const bk_dpm_model *m, uint32_t flags, uint8_t **out, size_t *out_size,
                             bk_dpm_save_stats *stats)
{
    if (!m || !out || !out_size) return BK_EARG;
    *out = NULL;
    *out_size = 0;
    bk_dpm_save_stats st;
    memset(&st, 0, sizeof st);
    uint32_t nb = m->bone_count, nm = m->mesh_count;
    bk_result r = BK_OK;
    uint8_t *keep = bk_calloc((size_t)nb + 1, 1);
    int32_t *bmap = bk_malloc(((size_t)nb + 1) * sizeof(int32_t));
    wmesh *wm = bk_calloc((size_t)nm + 1, sizeof(wmesh));
    uint8_t *buf = NULL;
    if (!keep || !bmap || !wm) {
        r = BK_ENOMEM;
        goto end;
    }
    if ((r = plan_meshes(m, wm, keep, &st)) != BK_OK) goto end;
    if (st.triangles) {
        st.acmr_before /= (double)st.triangles;
        st.acmr_after /= (double)st.triangles;
    }
    uint32_t nbo = plan_bones(m, flags, keep, bmap, &st);
    wlayout L = plan_layout(m, wm, nbo);
    if (L.size > INT32_MAX || L.size > SIZE_MAX) { /* frame pose offsets are signed */
        r = BK_ELIMIT;
        goto end;
    }
    buf = bk_calloc((size_t)L.size, 1);
    if (!buf) {
        r = BK_ENOMEM;
        goto end;
    }
    write_skeleton(m, bmap, nbo, &L, buf);
    uint64_t at = L.mesh_data;
    for (uint32_t mi = 0; mi < nm; mi++) at = write_mesh(m, mi, &wm[mi], bmap, &L, at, buf);
    if (at != L.size) {
        r = BK_EFORMAT; /* internal: layout mismatch */
        goto end;
    }
    st.bytes = L.size;
    *out = buf;
    *out_size = (size_t)L.size;
    buf = NULL;
end:
    wmeshes_free(wm, nm);
    bk_free(keep);
    bk_free(bmap);
    bk_free(buf);
    if (stats) *stats = st;
    return r;
}

bk_result bk_dpm_save(const bk_dpm_model *m, uint32_t flags, const char *path, bk_dpm_save_stats *stats)
{
    if (!path) return BK_EARG;
    uint8_t *data;
    size_t size;
    BK_TRY(bk_dpm_save_memory(m, flags, &data, &size, stats));
    bk_result r = bk_write_file_atomic(path, data, size);
    bk_free(data);
    return r;
}

bk_result bk_dpm_write(const bk_file *f, const bk_options *opt, const char *path)
{
    return bk_dpm_file_write(f, opt, 0, path);
}

bk_result bk_dpm_file_write(const bk_file *f, const bk_options *opt, uint32_t flags, const char *path)
{
    const bk_dpm_model *m = bk_dpm_model_of(f);
    if (!m) return BK_EARG;
    bk_dpm_save_stats st;
    bk_result r = bk_dpm_save(m, flags & BK_DPM_KEEP_ALL_BONES, path, &st);
    if (r == BK_OK && opt && opt->diag) {
        bk_diag d = {.severity = BK_SEV_INFO, .code = BK_OK, .file = path, .index = BK_NO_INDEX, .offset = BK_NO_OFFSET};
        snprintf(d.message, sizeof d.message,
                 "saved: bones %u -> %u, vertices %llu -> %llu, %llu triangles, ACMR (FIFO 16) %.3f -> %.3f%s%.100s",
                 st.bones_in, st.bones_out, (unsigned long long)st.vertices_in, (unsigned long long)st.vertices_out,
                 (unsigned long long)st.triangles, st.acmr_before, st.acmr_after,
                 st.dropped_bones[0] ? "; dropped unused bones: " : "", st.dropped_bones);
        opt->diag(opt->diag_user, &d);
    }
    return r;
}
