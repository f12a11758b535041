/* Source VBSP decoder: header and both v21 lump-table layouts, every geometry lump with
 * its references checked, the pakfile (LZMA lumps: vbsp_lzma.c; tree lumps: vbsp_tree.c; game
 * lumps: vbsp_gamelumps.c).
 * Layouts follow the Source SDK's public/bspfile.h and public/gamebspfile.h; nothing is cast
 * over file bytes. */
#include <stddef.h>
#include <stdio.h>

#define BK_ADVANCED_API /* the speed and memory knobs (bspkit/advanced.h) */
#include "bspkit/advanced.h"
#include "vbsp_loader.h"

const char *bk_source_fourcc(uint32_t id, char buf[5])
{
    for (int i = 0; i < 4; i++) {
        uint8_t c = (uint8_t)(id >> (24 - 8 * i));
        buf[i] = (char)(c >= 32 && c < 127 ? c : '?');
    }
    buf[4] = 0;
    return buf;
}

const bk_source_map *bk_source_map_of(const bk_file *f)
{
    const vbsp_impl *m = bk_file_impl(f, BK_FORMAT_SOURCE);
    return m ? &m->pub : NULL;
}

const bk_source_map *bk_source_map_partial(const bk_file *f)
{
    return f && f->format == BK_FORMAT_SOURCE && f->impl ? &((const vbsp_impl *)f->impl)->pub : NULL;
}

bk_result bk_source_lump_bytes(const bk_file *f, int idx, const uint8_t **data, size_t *size)
{
    *data = NULL;
    *size = 0;
    const bk_source_map *p = bk_source_map_of(f);
    if (!p || idx < 0 || idx >= BK_SRC_LUMP_COUNT) return BK_EARG;
    /* decoded for good: a lump lent to builders is theirs no more (kept until the file goes) */
    vbsp_impl *m = f->impl;
    bk_mutex_lock(&m->lumps_lock);
    bk_result r = bk_vbsp_lump_decode(f, idx, NULL);
    m->lent[idx] = 0;
    *data = p->lumps[idx].data;
    *size = p->lumps[idx].size;
    bk_mutex_unlock(&m->lumps_lock);
    if (r != BK_OK) *data = NULL, *size = 0;
    return r;
}

bk_result bk_source_cubemaps(const bk_file *f, bk_source_cubemap **out, uint32_t *count)
{
    if (!out || !count) return BK_EARG;
    *out = NULL;
    *count = 0;
    const uint8_t *d;
    size_t n;
    BK_TRY(bk_source_lump_bytes(f, BK_SRC_LUMP_CUBEMAPS, &d, &n));
    const bk_lump_desc *row = &bk_source_lumps[BK_SRC_LUMP_CUBEMAPS];
    if (n % row->entry[0]) return BK_EFORMAT;
    if (!n) return BK_OK;
    bk_source_cubemap *c = bk_calloc(n / row->entry[0], sizeof *c);
    if (!c) return BK_ENOMEM;
    bk_decode_rows(&row->fields[0], d, row->entry[0], (uint32_t)(n / row->entry[0]), c, row->dst_size, false);
    *out = c;
    *count = (uint32_t)(n / row->entry[0]);
    return BK_OK;
}

/* VBSP 17-21; other VBSP versions, PSBV and rBSP are claimed only to be rejected with a message */
static int vbsp_probe(const uint8_t *d, size_t n)
{
    if (n < 8) return 0;
    const bk_version_desc *v = bk_family_version(&bk_family_source, d, n);
    if (v && v->supported) return 2;
    return bk_family_ident(&bk_family_source, d, n) ? 1 : 0;
}

/* the arrays of the geometry stage (load_geometry), freed and zeroed */
static void drop_geometry(vbsp_impl *m)
{
    bk_source_map *p = &m->pub;
    bk_free(m->names);
    m->names = NULL;
    void *arrays[] = {p->planes, p->vertices, p->edges, p->surfedges, p->faces, p->orig_faces, p->hdr_faces,
                      p->texinfo, p->texdata, p->nodes, p->leafs, p->leaffaces, p->leafbrushes, p->brushes,
                      p->brushsides, p->models, p->areas, p->areaportals, p->dispinfo, p->dispverts, p->disptris};
    for (size_t i = 0; i < sizeof arrays / sizeof *arrays; i++) bk_free(arrays[i]);
    /* every field from the planes to the displacement triangles is the geometry's */
    memset(&p->planes, 0, offsetof(bk_source_map, cubemap_count) - offsetof(bk_source_map, planes));
    p->clip_portal_vert_count = 0;
    m->occluder_count = m->occluder_poly_count = 0;
}

static void vbsp_destroy(void *impl)
{
    vbsp_impl_full *F = impl;
    if (!F) return;
    vbsp_impl *m = &F->base;
    bk_source_map *p = &m->pub;
    for (int i = 0; i < BK_SRC_LUMP_COUNT; i++)
        if (m->owned_lumps[i]) {
            bk_budget_give(m->shared, p->lumps[i].size);
            bk_free(m->owned_lumps[i]);
        }
    for (uint32_t i = 0; i < F->extra.gl_count && p->game_lumps; i++)
        if (F->extra.gl_owned[i]) bk_budget_give(m->shared, p->game_lumps[i].size);
    drop_geometry(m);
    bk_mutex_destroy(&m->lumps_lock);
    bk_free(p->game_lumps);
    bk_free(p->static_prop_names);
    bk_free(p->static_prop_leaves);
    bk_free(p->static_props);
    bk_free(p->detail_model_names);
    bk_free(p->detail_sprites);
    bk_free(p->detail_props);
    for (uint32_t i = 0; i < F->extra.gl_count; i++) bk_free(F->extra.gl_owned[i]);
    bk_free(F->extra.gl_owned);
    bk_free(F->extra.prop_name_block);
    bk_free(F);
}


/* ---- header and lump directory ------------------------------------------------------------ */

/* How many directory entries of layout dir place their lump plausibly (all_ok: every one) */
static int table_score(const uint8_t *d, size_t size, const bk_dir_layout *dir, bool *all_ok)
{
    int ok = 0;
    *all_ok = true;
    for (uint32_t i = 0; i < dir->count; i++) {
        const uint8_t *e = d + dir->dir_offset + (size_t)dir->entry_size * i;
        int64_t ofs = bk_rd_i32le(e + dir->ofs_field), len = bk_rd_i32le(e + dir->len_field);
        bool good = ofs >= 0 && len >= 0 && (len == 0 || ((uint64_t)ofs >= VBSP_HEADER_SIZE &&
                                                           bk_span_ok((uint64_t)ofs, (uint64_t)len, size)));
        if (good) ok++;
        else *all_ok = false;
    }
    return ok;
}


static bk_result load_directory(vbsp_ld *L)
{
    bk_ctx *ctx = L->ctx;
    const uint8_t *d = L->f->data;
    size_t size = L->f->size;
    bk_source_map *p = L->p;
    /* a version with two directory orders (v21: two version rows, the same bytes at the start):
     * the later row is taken when it places the lumps plausibly, or more of them */
    bool std_ok, l4_ok;
    int std_score = table_score(d, size, L->f->version->dir, &std_ok);
    const bk_family *fam = &bk_family_source;
    for (const bk_version_desc *v = L->f->version + 1; !std_ok && v < fam->versions + fam->version_count; v++) {
        if (strcmp(v->ident, L->f->version->ident) || v->version != p->version || !v->dir) continue;
        int l4_score = table_score(d, size, v->dir, &l4_ok);
        if (l4_ok || l4_score > std_score) L->f->version = v;
        break;
    }
    const bk_dir_layout *dir = L->f->version->dir;
    p->l4d2_layout = dir->ofs_field != 0;
    snprintf(L->f->info.variant, sizeof L->f->info.variant, "%s", L->f->version->variant);
    BK_TRY(bk_info_set_lumps(&L->f->info, BK_SRC_LUMP_COUNT));
    /* all decoded lumps together: bounded by the file's size (8 x + 64 MiB: real maps decode to 2-4 x),
     * max_decoded_bytes and max_alloc_bytes; and held from the program's budget when it gives one */
    uint64_t embedded = bk_limits_embedded_budget(&ctx->opt.limits, size);
    L->m->lzma_budget = embedded < ctx->opt.limits.max_alloc_bytes ? embedded : ctx->opt.limits.max_alloc_bytes;
    L->m->shared = ctx->opt.budget;
    int now[BK_SRC_LUMP_COUNT], now_count = 0;
    for (int i = 0; i < BK_SRC_LUMP_COUNT; i++) {
        const uint8_t *e = d + dir->dir_offset + (size_t)dir->entry_size * i;
        /* the lump's version is the field the offset and length leave: last, or first in L4D2's */
        int32_t ofs = bk_rd_i32le(e + dir->ofs_field), len = bk_rd_i32le(e + dir->len_field);
        int32_t ver = bk_rd_i32le(e + (p->l4d2_layout ? 0 : 8));
        bk_source_lump *l = &p->lumps[i];
        l->version = ver;
        L->m->column[i] = bk_rows_column(&k_lumps[i], L->f->version->column, ver);
        l->fourcc = bk_rd_u32le(e + 12);
        bk_lump_info *li = &L->f->info.lumps[i];
        snprintf(li->name, sizeof li->name, "%s", LNAME(i));
        li->version = ver;
        li->count = -1;
        uint64_t hofs = dir->dir_offset + (uint64_t)dir->entry_size * i;
        bk_lump_span sp;
        BK_TRY(bk_lump_locate(ctx, LNAME(i), dir->header_size, dir->overlap_warns, ofs, len, size, hofs, &sp));
        bool placed = sp.ok;
        if (ofs < 0 || len < 0) continue;
        l->offset = (uint64_t)ofs; /* as stored, for reports, even when the lump is unusable */
        l->length = (uint64_t)len;
        li->offset = l->offset;
        li->length = l->length;
        li->uncompressed = l->length;
        if (!placed || len == 0) continue;
        const uint8_t *src = d + l->offset;
        /* the game lump directory and the pakfile are never compressed as a whole */
        if (i != BK_SRC_LUMP_GAME_LUMP && i != BK_SRC_LUMP_PAKFILE && l->length >= 4 && memcmp(src, "LZMA", 4) == 0) {
            l->compressed = 1;
            li->compressed = 1;
            /* outside validate mode a lump is decoded when something reads it: a sound header is
             * enough to know its size (a bad one is decoded now, to be reported) */
            uint32_t actual = l->length >= VBSP_LZMA_HEADER ? bk_rd_u32le(src + 4) : 0;
            bool fits;
            BK_TRY(bk_vbsp_lzma_size_ok(L, i, actual, &fits));
            if (!fits) continue; /* reported; never inflated */
            if (!ctx->keep_going && l->length >= VBSP_LZMA_HEADER &&
                bk_rd_u32le(src + 8) <= l->length - VBSP_LZMA_HEADER && actual <= L->m->lzma_budget) {
                L->m->pending[i] = 1;
                l->size = actual;
                li->uncompressed = actual;
                if (l->fourcc && l->fourcc != actual)
                    BK_WARN(ctx, BK_EFORMAT, LNAME(i), BK_NO_INDEX, hofs + 12,
                            "fourCC says %u uncompressed bytes, the LZMA header %u", l->fourcc, actual);
                continue;
            }
            /* decoded now, after the directory (validation, or a header to report) */
            L->m->pending[i] = 1;
            now[now_count++] = i;
        } else {
            l->data = src;
            l->size = (size_t)l->length;
        }
    }
    return bk_vbsp_decode_pending(L, now, now_count);
}

/* validate: what `pak list`, `pak extract`, `textures` and the scene builder would refuse in the
 * pakfile, by the checks they make (bk_archive_open_pakfile, bk_archive_check), as errors */
static bk_result check_pakfile(vbsp_ld *L)
{
    const bk_source_lump *pl = &L->p->lumps[BK_SRC_LUMP_PAKFILE];
    bk_archive *pak = NULL;
    bk_result r = bk_archive_open_pakfile(L->f, &L->ctx->opt, &pak);
    if (r == BK_ENOMEM) return r;
    if (r != BK_OK) {
        BK_ERR(L->ctx, r, "pakfile", BK_NO_INDEX, pl->offset,
               "the embedded zip cannot be read (%s): pak list and textures refuse it", bk_strerror(r));
        return BK_OK;
    }
    for (uint32_t i = 0; i < bk_archive_count(pak); i++) {
        const char *why;
        bk_result er = bk_archive_check(pak, i, true, &why);
        if (er == BK_OK) continue;
        const bk_archive_entry *e = bk_archive_entry_at(pak, i);
        er = bk_report(L->ctx, BK_SEV_ERROR, er, "pakfile", i, pl->offset, "entry '%s' (declares %llu bytes): %s", e->name,
                       (unsigned long long)e->size, why);
        if (er != BK_OK) break;
    }
    bk_archive_close(pak);
    return BK_OK;
}

/* lumps sharing bytes: the engine does not forbid it, no compiler writes it (a warning) */
static void check_overlaps(vbsp_ld *L)
{
    const bk_source_lump *lu = L->p->lumps;
    for (int i = 0; i < BK_SRC_LUMP_COUNT; i++) {
        if (!lu[i].length || (!lu[i].data && !L->m->pending[i])) continue;
        for (int j = i + 1; j < BK_SRC_LUMP_COUNT; j++) {
            if (!lu[j].length || (!lu[j].data && !L->m->pending[j])) continue;
            if (lu[i].offset < lu[j].offset + lu[j].length && lu[j].offset < lu[i].offset + lu[i].length)
                BK_WARN(L->ctx, BK_EFORMAT, LNAME(i), BK_NO_INDEX, lu[i].offset, "overlaps the %s lump",
                        LNAME(j));
        }
    }
}



/* The reference checker over lump `lump` (the rows of source_desc.c), on the decoded bytes */
static bk_result repair_ref(void *user, uint32_t ref, uint32_t i, uint32_t k);
bk_result bk_vbsp_check_lump_refs(vbsp_ld *L, int lump)
{
    const bk_source_map *p = L->p;
    const uint32_t counts[BK_SRC_LUMP_COUNT] = {
        [BK_SRC_LUMP_PLANES] = p->plane_count,         [BK_SRC_LUMP_TEXDATA] = p->texdata_count,
        [BK_SRC_LUMP_VERTEXES] = p->vertex_count,      [BK_SRC_LUMP_NODES] = p->node_count,
        [BK_SRC_LUMP_TEXINFO] = p->texinfo_count,      [BK_SRC_LUMP_FACES] = p->face_count,
        [BK_SRC_LUMP_LEAFS] = p->leaf_count,           [BK_SRC_LUMP_EDGES] = p->edge_count,
        [BK_SRC_LUMP_SURFEDGES] = p->surfedge_count,   [BK_SRC_LUMP_MODELS] = p->model_count,
        [BK_SRC_LUMP_LEAFFACES] = p->leafface_count,   [BK_SRC_LUMP_LEAFBRUSHES] = p->leafbrush_count,
        [BK_SRC_LUMP_BRUSHES] = p->brush_count,        [BK_SRC_LUMP_BRUSHSIDES] = p->brushside_count,
        [BK_SRC_LUMP_AREAS] = p->area_count,           [BK_SRC_LUMP_AREAPORTALS] = p->areaportal_count,
        [BK_SRC_LUMP_ORIGINALFACES] = p->orig_face_count, [BK_SRC_LUMP_FACES_HDR] = p->hdr_face_count,
        [BK_SRC_LUMP_CLIPPORTALVERTS] = p->clip_portal_vert_count,
        [BK_SRC_LUMP_TEXDATA_STRING_TABLE] = L->string_count,
    };
    bk_ref_lump lumps[BK_SRC_LUMP_COUNT];
    for (int i = 0; i < BK_SRC_LUMP_COUNT; i++) {
        lumps[i].data = p->lumps[i].data;
        lumps[i].count = counts[i];
        lumps[i].ofs = p->lumps[i].offset;
        lumps[i].compressed = p->lumps[i].compressed;
    }
    /* the ambient samples (their size by the lump's column) and their index */
    for (int i = BK_SRC_LUMP_LEAF_AMBIENT_LIGHTING_HDR; i <= BK_SRC_LUMP_LEAF_AMBIENT_LIGHTING; i++) {
        uint32_t es = bk_source_lumps[i].entry[L->m->column[i]];
        lumps[i].count = (uint32_t)(p->lumps[i].size / es);
    }
    for (int i = BK_SRC_LUMP_LEAF_AMBIENT_INDEX_HDR; i <= BK_SRC_LUMP_LEAF_AMBIENT_INDEX; i++)
        lumps[i].count = p->lumps[i].size % 4 ? 0 : (uint32_t)(p->lumps[i].size / 4);
    const bk_ref_input in = {&bk_family_source, L->m->column[lump], lumps, repair_ref, L};
    return bk_check_refs(L->ctx, &in, (uint32_t)lump);
}

/* a bad index found by the checker, reset in the decoded copy where the code after relies on it */
static bk_result repair_ref(void *user, uint32_t ref, uint32_t i, uint32_t k)
{
    vbsp_ld *L = user;
    bk_source_map *p = L->p;
    switch (ref) {
    case BK_SRC_REF_EDGE_VERTEX: p->edges[i * 2 + k] = 0; break;
    case BK_SRC_REF_SURFEDGE: p->surfedges[i] = 0; break;
    case BK_SRC_REF_TEXINFO_TEXDATA: p->texinfo[i].texdata = -1; break;
    case BK_SRC_REF_MODEL_FACES: p->models[i].firstface = p->models[i].numfaces = 0; break;
    default: break;
    }
    return BK_OK;
}

/* ---- per-lump decoding: the arrays from their rows (source_desc.c), then what each needs checked */
bk_result bk_vbsp_decode_lump(vbsp_ld *L, int idx, uint32_t per, void **out, uint32_t *count)
{
    const bk_lump_desc *row = &k_lumps[idx];
    uint8_t col = L->m->column[idx];
    uint32_t n;
    *out = NULL;
    if (row->absent & (1u << col)) { *count = 0; return BK_OK; }   /* the version's engine has no such lump */
    BK_TRY(lump_count_sized(L, idx, row->entry[col], &n));
    bk_result ar = BK_OK;
    void *a = bk_alloc_array(L->ctx, (size_t)n * per, row->dst_size / per, &ar);
    if (!a) {
        bk_report(L->ctx, BK_SEV_ERROR, ar, NULL, BK_NO_INDEX, BK_NO_OFFSET, "cannot allocate %u elements",
                  (unsigned)((size_t)n * per));
        return ar;
    }
    if (n) bk_decode_rows(&row->fields[col], L->p->lumps[idx].data, row->entry[col], n, a, row->dst_size, false);
    *out = a;
    *count = n;
    return BK_OK;
}

static bk_result load_vertexes(vbsp_ld *L)
{
    bk_source_map *p = L->p;
    DECODE_ROWS(p->planes, BK_SRC_LUMP_PLANES, 1, p->plane_count);
    DECODE_ROWS(p->vertices, BK_SRC_LUMP_VERTEXES, 3, p->vertex_count);
    for (uint32_t i = 0; i < p->vertex_count; i++)
        if (!bk_finite3(&p->vertices[i * 3]))
            BK_ERR(L->ctx, BK_EFORMAT, "vertexes", i, eofs(L, BK_SRC_LUMP_VERTEXES, i, 12), "vertex is not finite");
    return BK_OK;
}

static bk_result load_edges(vbsp_ld *L)
{
    bk_source_map *p = L->p;
    DECODE_ROWS(p->edges, BK_SRC_LUMP_EDGES, 2, p->edge_count);
    BK_TRY(bk_vbsp_check_lump_refs(L, BK_SRC_LUMP_EDGES));
    DECODE_ROWS(p->surfedges, BK_SRC_LUMP_SURFEDGES, 1, p->surfedge_count);
    return bk_vbsp_check_lump_refs(L, BK_SRC_LUMP_SURFEDGES);
}

/* the texdata from their rows; their names (a table of offsets into NUL-terminated strings) by hand */
static bk_result load_texdata(vbsp_ld *L)
{
    bk_source_map *p = L->p;
    uint32_t nstr, n;
    BK_TRY(lump_count(L, BK_SRC_LUMP_TEXDATA_STRING_TABLE, &nstr));
    const bk_source_lump *sd = &p->lumps[BK_SRC_LUMP_TEXDATA_STRING_DATA];
    const uint8_t *st = p->lumps[BK_SRC_LUMP_TEXDATA_STRING_TABLE].data;
    DECODE_ROWS(p->texdata, BK_SRC_LUMP_TEXDATA, 1, n);
    p->texdata_count = n;
    L->string_count = nstr;
    BK_TRY(bk_vbsp_check_lump_refs(L, BK_SRC_LUMP_TEXDATA));
    size_t total = 1;
    for (uint32_t i = 0; i < n; i++) {
        int32_t id = p->texdata[i].name_id;
        if (id >= 0 && (uint32_t)id < nstr) {
            int32_t so = bk_rd_i32le(st + 4 * (size_t)id);
            if (so >= 0 && (size_t)so < sd->size) {
                const uint8_t *nul = memchr(sd->data + so, 0, sd->size - (size_t)so);
                total += (nul ? (size_t)(nul - (sd->data + so)) : sd->size - (size_t)so) + 1;
            }
        }
    }
    ALLOC_N(L->m->names, total);
    size_t at = 1; /* names[0] = "" for bad entries */
    for (uint32_t i = 0; i < n; i++) {
        bk_source_texdata *t = &p->texdata[i];
        t->name = L->m->names;
        uint64_t o = eofs(L, BK_SRC_LUMP_TEXDATA, i, 32);
        if (t->width < 0 || t->height < 0 || t->width > 65536 || t->height > 65536)
            BK_ERR(L->ctx, BK_EFORMAT, "texdata", i, o, "texture size %dx%d is not plausible", t->width, t->height);
        if (t->name_id < 0 || (uint32_t)t->name_id >= nstr) continue; /* reported by its row */
        int32_t so = bk_rd_i32le(st + 4 * (size_t)t->name_id);
        if (so < 0 || (size_t)so >= sd->size) {
            BK_ERR(L->ctx, BK_EINDEX, "texdata_string_table", t->name_id,
                   eofs(L, BK_SRC_LUMP_TEXDATA_STRING_TABLE, (uint64_t)t->name_id, 4),
                   "string offset %d outside the %zu-byte string data", so, sd->size);
            continue;
        }
        const uint8_t *s = sd->data + so;
        const uint8_t *nul = memchr(s, 0, sd->size - (size_t)so);
        size_t len = nul ? (size_t)(nul - s) : sd->size - (size_t)so;
        if (!nul)
            BK_WARN(L->ctx, BK_EFORMAT, "texdata_string_data", BK_NO_INDEX, sd->offset, "last name is not terminated");
        if (at + len + 1 > total) continue; /* cannot happen: sized above */
        memcpy(L->m->names + at, s, len);
        L->m->names[at + len] = 0;
        t->name = L->m->names + at;
        at += len + 1;
    }

    return BK_OK;
}

static bk_result load_simple(vbsp_ld *L)
{
    BK_TRY(load_vertexes(L));
    BK_TRY(load_edges(L));
    BK_TRY(load_texdata(L));
    DECODE_ROWS(L->p->texinfo, BK_SRC_LUMP_TEXINFO, 1, L->p->texinfo_count);
    return bk_vbsp_check_lump_refs(L, BK_SRC_LUMP_TEXINFO);
}

/* bytes of lightmap samples a face needs at lightofs */
static uint64_t face_light_bytes(const bk_source_map *p, const bk_source_face *f)
{
    uint32_t styles = 0;
    while (styles < 4 && f->styles[styles] != 255) styles++;
    bool bump = f->texinfo >= 0 && (uint32_t)f->texinfo < p->texinfo_count &&
                (p->texinfo[f->texinfo].flags & BK_SRC_SURF_BUMPLIGHT);
    uint64_t lux = (uint64_t)(f->lm_size[0] + 1) * (uint64_t)(f->lm_size[1] + 1);
    return (uint64_t)styles * (bump ? 4 : 1) * lux * 4;
}

static bk_result check_faces(vbsp_ld *L, int idx, bk_source_face *fa, uint32_t n, const bk_source_lump *light)
{
    bk_source_map *p = L->p;
    const char *ln = LNAME(idx);
    size_t es = k_lumps[idx].entry[L->m->column[idx]];   /* 56, or 104 in v17 */
    BK_TRY(bk_vbsp_check_lump_refs(L, idx));
    for (uint32_t i = 0; i < n; i++) {
        bk_source_face *f = &fa[i];
        uint64_t o = eofs(L, idx, i, es);
        if (f->numedges < 0 || f->firstedge < 0 ||
            !bk_range_ok((uint64_t)f->firstedge, (uint64_t)f->numedges, p->surfedge_count)) {
            BK_ERR(L->ctx, BK_EINDEX, ln, i, o, "surfedges %d..%d+%d out of range (%u surfedges)", f->firstedge,
                   f->firstedge, f->numedges, p->surfedge_count);
            f->numedges = 0;
            f->firstedge = 0;
        } else if (f->numedges > 0 && f->numedges < 3) {
            BK_WARN(L->ctx, BK_EFORMAT, ln, i, o, "face has only %d edges", f->numedges);
        }
        if (f->texinfo < -1 || f->texinfo >= (int32_t)p->texinfo_count) {
            /* vbsp compacts the texinfo table after writing the original faces and does not remap
             * them, so there such references are normal: cleared, not reported */
            if (idx != BK_SRC_LUMP_ORIGINALFACES)
                BK_ERR(L->ctx, BK_EINDEX, ln, i, o, "texinfo %d out of range (%u texinfo)", f->texinfo, p->texinfo_count);
            f->texinfo = -1;
        }
        if (f->dispinfo < -1 || f->dispinfo >= (int32_t)p->dispinfo_count) {
            BK_ERR(L->ctx, BK_EINDEX, ln, i, o, "dispinfo %d out of range (%u dispinfo)", f->dispinfo,
                   p->dispinfo_count);
            f->dispinfo = -1;
        } else if (f->dispinfo >= 0 && f->numedges != 4 && idx != BK_SRC_LUMP_ORIGINALFACES) {
            BK_ERR(L->ctx, BK_EFORMAT, ln, i, o, "displacement face has %d corners, not 4", f->numedges);
            f->dispinfo = -1;
        }
        if (idx == BK_SRC_LUMP_FACES && p->orig_face_count &&
            (f->orig_face < -1 || f->orig_face >= (int32_t)p->orig_face_count)) {
            BK_ERR(L->ctx, BK_EINDEX, ln, i, o, "original face %d out of range (%u original faces)", f->orig_face,
                   p->orig_face_count);
            f->orig_face = -1;
        }
        if (f->num_prims && p->primitive_count &&
            !bk_range_ok(f->first_prim, f->num_prims, p->primitive_count))
            BK_ERR(L->ctx, BK_EINDEX, ln, i, o, "primitives %u+%u out of range (%u primitives)", f->first_prim,
                   f->num_prims, p->primitive_count);
        if (f->lightofs < -1 && idx != BK_SRC_LUMP_ORIGINALFACES) {
            BK_ERR(L->ctx, BK_EINDEX, ln, i, o, "negative lightmap offset %d", f->lightofs);
            f->lightofs = -1;
        }
        if (f->lightofs >= 0 && f->styles[0] != 255 && idx != BK_SRC_LUMP_ORIGINALFACES) {
            if (f->lm_size[0] < 0 || f->lm_size[1] < 0 || f->lm_size[0] > 1024 || f->lm_size[1] > 1024) {
                BK_ERR(L->ctx, BK_EFORMAT, ln, i, o, "lightmap size %dx%d luxels is not plausible", f->lm_size[0],
                       f->lm_size[1]);
                f->lightofs = -1;
                continue;
            }
            uint64_t need = face_light_bytes(p, f);
            if (light && !bk_range_ok((uint64_t)f->lightofs, need, light->size)) {
                BK_ERR(L->ctx, BK_ELUMP_RANGE, ln, i, o,
                       "lightmap at %d needs %llu bytes, the %s lump has %zu", f->lightofs,
                       (unsigned long long)need, LNAME(light == &p->lumps[BK_SRC_LUMP_LIGHTING]
                                                              ? BK_SRC_LUMP_LIGHTING : BK_SRC_LUMP_LIGHTING_HDR),
                       light->size);
                f->lightofs = -1;
            }
        }
    }
    return BK_OK;
}

static bk_result load_displacements(vbsp_ld *L)
{
    bk_source_map *p = L->p;
    DECODE_ROWS(p->dispverts, BK_SRC_LUMP_DISP_VERTS, 1, p->dispvert_count);
    DECODE_ROWS(p->disptris, BK_SRC_LUMP_DISP_TRIS, 1, p->disptri_count);
    DECODE_ROWS(p->dispinfo, BK_SRC_LUMP_DISPINFO, 1, p->dispinfo_count);
    return BK_OK;
}

/* needs faces loaded */
static bk_result check_displacements(vbsp_ld *L)
{
    bk_source_map *p = L->p;
    bk_ctx *ctx = L->ctx;
    for (uint32_t i = 0; i < p->dispinfo_count; i++) {
        bk_source_dispinfo *di = &p->dispinfo[i];
        uint64_t o = eofs(L, BK_SRC_LUMP_DISPINFO, i, 176);
        if (di->power < 2 || di->power > 4) {
            BK_ERR(ctx, BK_EFORMAT, "dispinfo", i, o, "power %d is not 2, 3 or 4", di->power);
            di->power = 0;
            continue;
        }
        uint64_t side = (1u << di->power) + 1, nv = side * side, nt = 2ull << (2 * di->power);
        if (di->vert_start < 0 || !bk_range_ok((uint64_t)di->vert_start, nv, p->dispvert_count)) {
            BK_ERR(ctx, BK_EINDEX, "dispinfo", i, o, "vertices %d+%llu out of range (%u dispverts)", di->vert_start,
                   (unsigned long long)nv, p->dispvert_count);
            di->power = 0;
        }
        if (di->tri_start < 0 || !bk_range_ok((uint64_t)di->tri_start, nt, p->disptri_count))
            BK_ERR(ctx, BK_EINDEX, "dispinfo", i, o, "triangles %d+%llu out of range (%u disp_tris)", di->tri_start,
                   (unsigned long long)nt, p->disptri_count);
        if (di->map_face >= p->face_count) {
            BK_ERR(ctx, BK_EINDEX, "dispinfo", i, o, "face %u out of range (%u faces)", di->map_face, p->face_count);
            di->power = 0;
            continue;
        }
        const bk_source_face *f = &p->faces[di->map_face];
        if (f->numedges != 4) {
            BK_ERR(ctx, BK_EFORMAT, "dispinfo", i, o, "base face %u has %d corners, a displacement needs 4",
                   di->map_face, f->numedges);
            di->power = 0;
        }
        if (f->dispinfo != (int32_t)i)
            BK_WARN(ctx, BK_EFORMAT, "dispinfo", i, o, "base face %u refers to dispinfo %d", di->map_face, f->dispinfo);
        if (di->power) {
            for (uint64_t k = 0; k < nv; k++) {
                const bk_source_dispvert *v = &p->dispverts[(uint64_t)di->vert_start + k];
                if (!bk_finite3(v->vec) || v->dist - v->dist != 0.0f || v->alpha - v->alpha != 0.0f) {
                    BK_ERR(ctx, BK_EFORMAT, "dispverts", (int64_t)(di->vert_start + (int64_t)k),
                           eofs(L, BK_SRC_LUMP_DISP_VERTS, (uint64_t)di->vert_start + k, 20), "value is not finite");
                    di->power = 0;
                    break;
                }
            }
        }
    }
    return BK_OK;
}


/* ---- the whole file ----------------------------------------------------------------------- */

int32_t bk_vbsp_pak_count(const uint8_t *data, size_t size);

/* the three face lumps (original, plain, HDR) and their checks */
static bk_result load_all_faces(vbsp_ld *L)
{
    bk_source_map *p = L->p;
    bk_ctx *ctx = L->ctx;
    DECODE_ROWS(p->orig_faces, BK_SRC_LUMP_ORIGINALFACES, 1, p->orig_face_count);
    DECODE_ROWS(p->faces, BK_SRC_LUMP_FACES, 1, p->face_count);
    DECODE_ROWS(p->hdr_faces, BK_SRC_LUMP_FACES_HDR, 1, p->hdr_face_count);
    const bk_source_lump *ldr = &p->lumps[BK_SRC_LUMP_LIGHTING], *hdr = &p->lumps[BK_SRC_LUMP_LIGHTING_HDR];
    /* a map compiled without vrad has lightofs values but no lighting at all: nothing to check */
    BK_TRY(check_faces(L, BK_SRC_LUMP_FACES, p->faces, p->face_count, ldr->size ? ldr : (hdr->size ? hdr : NULL)));
    BK_TRY(check_faces(L, BK_SRC_LUMP_ORIGINALFACES, p->orig_faces, p->orig_face_count, NULL));
    if (p->hdr_face_count) {
        if (p->hdr_face_count != p->face_count)
            BK_WARN(ctx, BK_EFORMAT, "faces_hdr", BK_NO_INDEX, p->lumps[BK_SRC_LUMP_FACES_HDR].offset,
                    "%u HDR faces for %u faces", p->hdr_face_count, p->face_count);
        BK_TRY(check_faces(L, BK_SRC_LUMP_FACES_HDR, p->hdr_faces, p->hdr_face_count, hdr));
    }
    return BK_OK;
}

/* the geometry lumps (compressed ones decoded here; the rest when asked for), read and checked */
/* What the arrays read above do not cover: the leafs' ambient samples inside their lighting lump,
 * and the floats of every lump with fields finite (texinfo vecs, world lights, model origins, vertex
 * normals, ...: what the engines take as they are). A lump still compressed (one this load does
 * not read; validate decodes them all) is checked when validated. */
static bk_result check_fields(vbsp_ld *L)
{
    BK_TRY(bk_vbsp_check_lump_refs(L, BK_SRC_LUMP_LEAF_AMBIENT_INDEX));
    BK_TRY(bk_vbsp_check_lump_refs(L, BK_SRC_LUMP_LEAF_AMBIENT_INDEX_HDR));
    for (uint32_t i = 0; i < BK_SRC_LUMP_COUNT; i++) {
        const bk_source_lump *l = &L->p->lumps[i];
        bk_lump_view v;
        /* the vertices and displacement vertices say so as they are read */
        if (!l->data || i == BK_SRC_LUMP_VERTEXES || i == BK_SRC_LUMP_DISP_VERTS) continue;
        if (bk_lump_view_of(L->f, i, &v) != BK_OK || v.column >= BK_FAMILY_COLUMNS) continue;
        uint32_t es = bk_source_lumps[i].entry[v.column];
        if (es <= 1 || v.size % es) continue;   /* no fields, or a size the loader reports */
        const bk_ref_lump src = {v.data, (uint32_t)(v.size / es), l->offset, l->compressed};
        BK_TRY(bk_check_finite(L->ctx, &bk_family_source, v.column, i, &src));
    }
    return BK_OK;
}

static bk_result load_geometry(vbsp_ld *L)
{
    static const int k_read[] = {BK_SRC_LUMP_PLANES, BK_SRC_LUMP_VERTEXES, BK_SRC_LUMP_EDGES,
                                 BK_SRC_LUMP_SURFEDGES, BK_SRC_LUMP_TEXDATA, BK_SRC_LUMP_TEXDATA_STRING_TABLE,
                                 BK_SRC_LUMP_TEXDATA_STRING_DATA, BK_SRC_LUMP_TEXINFO, BK_SRC_LUMP_FACES,
                                 BK_SRC_LUMP_ORIGINALFACES, BK_SRC_LUMP_FACES_HDR, BK_SRC_LUMP_VISIBILITY,
                                 BK_SRC_LUMP_AREAS, BK_SRC_LUMP_AREAPORTALS, BK_SRC_LUMP_CLIPPORTALVERTS,
                                 BK_SRC_LUMP_BRUSHSIDES, BK_SRC_LUMP_BRUSHES, BK_SRC_LUMP_LEAFFACES,
                                 BK_SRC_LUMP_LEAFBRUSHES, BK_SRC_LUMP_LEAFS, BK_SRC_LUMP_NODES, BK_SRC_LUMP_MODELS,
                                 BK_SRC_LUMP_DISP_VERTS, BK_SRC_LUMP_DISP_TRIS, BK_SRC_LUMP_DISPINFO};
    for (size_t k = 0; k < sizeof k_read / sizeof *k_read; k++) BK_TRY(bk_vbsp_lump_decode(L->f, k_read[k], L->ctx));
    BK_TRY(load_simple(L));
    BK_TRY(load_displacements(L));
    BK_TRY(load_all_faces(L));
    BK_TRY(check_displacements(L));
    BK_TRY(bk_vbsp_load_tree(L));
    BK_TRY(check_fields(L));
    return bk_vbsp_load_occluders(L);   /* its references are to the planes and vertices */
}

static void fill_info(bk_file *f, const bk_source_map *p)
{
    const bk_source_lump *ldr = &p->lumps[BK_SRC_LUMP_LIGHTING], *hdr = &p->lumps[BK_SRC_LUMP_LIGHTING_HDR];
    bk_info *in = &f->info;
    bk_info_count(in, "entities", f->entities.count);
    bk_info_count(in, "faces", p->face_count);
    bk_info_count(in, "models", p->model_count);
    bk_info_count(in, "textures", p->texdata_count);
    bk_info_count(in, "vertices", p->vertex_count);
    bk_info_count(in, "planes", p->plane_count);
    bk_info_count(in, "edges", p->edge_count);
    bk_info_count(in, "surfedges", p->surfedge_count);
    bk_info_count(in, "texinfo", p->texinfo_count);
    bk_info_count(in, "original_faces", p->orig_face_count);
    bk_info_count(in, "nodes", p->node_count);
    bk_info_count(in, "leafs", p->leaf_count);
    bk_info_count(in, "leaffaces", p->leafface_count);
    bk_info_count(in, "leafbrushes", p->leafbrush_count);
    bk_info_count(in, "brushes", p->brush_count);
    bk_info_count(in, "brushsides", p->brushside_count);
    bk_info_count(in, "areas", p->area_count);
    bk_info_count(in, "areaportals", p->areaportal_count);
    bk_info_count(in, "clusters", p->cluster_count);
    bk_info_count(in, "displacements", p->dispinfo_count);
    bk_info_count(in, "disp_verts", p->dispvert_count);
    bk_info_count(in, "disp_tris", p->disptri_count);
    bk_info_count(in, "cubemaps", p->cubemap_count);
    bk_info_count(in, "overlays", p->overlay_count);
    /* only where there are any: the counts of maps without occluders stay as they were */
    const vbsp_impl *m = f->impl;
    if (m->occluder_count) {
        bk_info_count(in, "occluders", m->occluder_count);
        bk_info_count(in, "occluder_polys", m->occluder_poly_count);
    }
    uint32_t real_gl = 0; /* not counting an id-0 terminator */
    for (uint32_t i = 0; i < p->game_lump_count; i++) real_gl += p->game_lumps[i].id != 0;
    bk_info_count(in, "game_lumps", real_gl);
    bk_info_count(in, "static_props", p->static_prop_count);
    bk_info_count(in, "static_prop_models", p->static_prop_name_count);
    bk_info_count(in, "detail_props", p->detail_prop_count);
    bk_info_count(in, "detail_models", p->detail_model_count);
    bk_info_count(in, "pakfile_entries", p->pakfile_entries < 0 ? 0 : (uint64_t)p->pakfile_entries);
    bk_info_count(in, "lightmap_bytes", ldr->size ? ldr->size : hdr->size);
    bk_info_count(in, "map_revision", (uint64_t)(uint32_t)p->map_revision);
}

static bk_result vbsp_load(bk_file *f, bk_ctx *ctx)
{
    const uint8_t *d = f->data;
    if (f->size >= 4 && memcmp(d, "rBSP", 4) == 0) {
        BK_ERR(ctx, BK_EUNSUPPORTED, "header", BK_NO_INDEX, 0,
               "Respawn rBSP (Titanfall / Apex) is not a Valve VBSP map: not supported");
        return BK_EUNSUPPORTED;
    }
    if (f->size >= 4 && memcmp(d, "PSBV", 4) == 0) {
        BK_ERR(ctx, BK_EUNSUPPORTED, "header", BK_NO_INDEX, 0,
               "big-endian console VBSP (\"PSBV\", Xbox 360 / PS3) is not supported");
        return BK_EUNSUPPORTED;
    }
    if (f->size < VBSP_HEADER_SIZE) {
        BK_ERR(ctx, BK_ETRUNCATED, "header", BK_NO_INDEX, 0, "file of %zu bytes is shorter than the %u-byte VBSP header",
               f->size, VBSP_HEADER_SIZE);
        return BK_ETRUNCATED;
    }
    int32_t version = bk_rd_i32le(d + 4);
    f->info.format = BK_FORMAT_SOURCE;
    f->info.version = version;
    f->version = bk_family_version(&bk_family_source, d, f->size);
    if (!f->version || !f->version->supported) {
        /* the supported numbers and the refused row's note, from the version rows */
        char list[64] = "";
        size_t used = 0;
        const bk_family *fam = &bk_family_source;
        for (uint32_t i = 0; i < fam->version_count; i++) {
            const bk_version_desc *v = &fam->versions[i];
            if (!v->supported || strcmp(v->ident, "VBSP") || (i && v->version == fam->versions[i - 1].version)) continue;
            int w = snprintf(list + used, sizeof list - used, "%s%d", used ? ", " : "", (int)v->version);
            if (w > 0 && (size_t)w < sizeof list - used) used += (size_t)w;
        }
        const char *note = f->version && f->version->refused_note ? f->version->refused_note : NULL;
        BK_ERR(ctx, BK_EVERSION, "header", BK_NO_INDEX, 4, "VBSP version %d is not supported (supported: %s)%s%s",
               version, list, note ? "; " : "", note ? note : "");
        return BK_EVERSION;
    }
    vbsp_impl_full *F = bk_calloc(1, sizeof *F);
    if (!F) return BK_ENOMEM;
    bk_mutex_init(&F->base.lumps_lock);
    f->impl = F;
    vbsp_ld L = {f, ctx, &F->base, &F->base.pub, NULL, NULL, 0};
    bk_source_map *p = L.p;
    p->version = version;
    p->map_revision = bk_rd_i32le(d + 8 + 16 * BK_SRC_LUMP_COUNT);
    p->pakfile_entries = -1;
    BK_TRY(load_directory(&L));
    check_overlaps(&L);

    /* lump 37 primitives (10 bytes each) and other counted-only lumps */
    const bk_source_lump *pr = &p->lumps[BK_SRC_LUMP_PRIMITIVES];
    if (pr->size % 10 == 0) p->primitive_count = (uint32_t)(pr->size / 10);
    if (p->lumps[BK_SRC_LUMP_CUBEMAPS].size % 16 == 0) p->cubemap_count = (uint32_t)(p->lumps[BK_SRC_LUMP_CUBEMAPS].size / 16);
    if (p->lumps[BK_SRC_LUMP_OVERLAYS].size % 352 == 0) p->overlay_count = (uint32_t)(p->lumps[BK_SRC_LUMP_OVERLAYS].size / 352);

    /* the entities now; the geometry now, or on first need when the caller deferred it */
    BK_TRY(bk_vbsp_lump_decode(f, BK_SRC_LUMP_ENTITIES, ctx));
    bool defer = !ctx->keep_going && (ctx->opt.flags & BK_OPT_DEFER_GEOMETRY);
    if (!defer) BK_TRY(load_geometry(&L));
    BK_TRY(bk_vbsp_load_game_lumps(&L));

    const bk_source_lump *pak = &p->lumps[BK_SRC_LUMP_PAKFILE];
    p->pakfile = pak->data;
    p->pakfile_size = pak->size;
    if (pak->size) {
        p->pakfile_entries = bk_vbsp_pak_count(pak->data, pak->size);
        if (ctx->keep_going) BK_TRY(check_pakfile(&L));
        else if (p->pakfile_entries < 0)
            BK_WARN(ctx, BK_EFORMAT, "pakfile", BK_NO_INDEX, pak->offset, "the embedded pakfile is not a readable zip");
    } else {
        p->pakfile_entries = 0;
    }

    const bk_source_lump *ent = &p->lumps[BK_SRC_LUMP_ENTITIES];
    {   /* an empty lump too: a map without worldspawn is a warning */
        const uint8_t *nul = ent->size ? memchr(ent->data, 0, ent->size) : NULL;
        size_t len = nul ? (size_t)(nul - ent->data) : ent->size;
        BK_TRY(bk_load_entities(f, ctx, "entities", len ? ent->data : (const uint8_t *)"", len, ent->offset));
    }

    if (defer) f->deferred = 1; /* vbsp_complete */
    else fill_info(f, p);
    return BK_OK;
}

/* The rest of a deferred load (bk_file_complete): the geometry and what checks it, the static
 * props' leaves against the leafs; on failure the geometry stays empty. */
static bk_result vbsp_complete(bk_file *f, bk_ctx *ctx)
{
    vbsp_impl_full *F = f->impl;
    vbsp_ld L = {f, ctx, &F->base, &F->base.pub, F->extra.gl_owned, F->extra.prop_name_block, 0};
    bk_result r = load_geometry(&L);
    if (r == BK_OK) r = bk_vbsp_check_prop_leaves(&L);
    if (r == BK_OK && ctx->errors) r = ctx->first_error;
    if (r != BK_OK) {
        drop_geometry(&F->base);
        return r;
    }
    fill_info(f, &F->base.pub);
    return BK_OK;
}

const bk_format_ops bk_ops_source = {BK_FORMAT_SOURCE, vbsp_probe, vbsp_load, vbsp_destroy, bk_vbsp_build_scene,
                                     bk_vbsp_extract_images, NULL, vbsp_complete};
