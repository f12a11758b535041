/* Every family, in probe order, and the lookups over a family's rows. A new format adds one line. */
#include "family.h"

static const bk_family *const k_families[] = {
    &bk_family_quake, &bk_family_wad3, &bk_family_q3, &bk_family_source, &bk_family_dpm, &bk_family_vtf,
    &bk_family_mdl,
};

const bk_family *const *bk_family_table(size_t *count)
{
    *count = BK_ARRAY_LEN(k_families);
    return k_families;
}

const bk_family *bk_family_of(const bk_file *f) { return f ? f->family : NULL; }

static bool ident_matches(const bk_version_desc *v, const uint8_t *d, size_t n)
{
    size_t il = strlen(v->ident);
    return n >= il && memcmp(d, v->ident, il) == 0;
}

const bk_version_desc *bk_family_version(const bk_family *fam, const uint8_t *d, size_t n)
{
    for (uint32_t i = 0; i < fam->version_count; i++) {
        const bk_version_desc *v = &fam->versions[i];
        if (!ident_matches(v, d, n)) continue;
        if (v->version_at < 0) return v;
        if (n < (size_t)v->version_at + 4) continue;
        if (bk_rd_i32le(d + v->version_at) == v->version) return v;
    }
    return NULL;
}

bool bk_family_ident(const bk_family *fam, const uint8_t *d, size_t n)
{
    for (uint32_t i = 0; i < fam->version_count; i++)
        if (fam->versions[i].ident[0] && ident_matches(&fam->versions[i], d, n)) return true;
    return false;
}

const bk_lump_desc *bk_family_lump(const bk_family *fam, const char *name, uint32_t *index)
{
    for (uint32_t i = 0; i < fam->lump_count; i++) {
        if (strcmp(fam->lumps[i].name, name) != 0) continue;
        if (index) *index = i;
        return &fam->lumps[i];
    }
    return NULL;
}

const bk_field *bk_lump_field(const bk_lump_desc *lump, uint8_t column, const char *name)
{
    const bk_fields *fs = &lump->fields[column];
    for (uint32_t i = 0; i < fs->count; i++)
        if (strcmp(fs->rows[i].name, name) == 0) return &fs->rows[i];
    return NULL;
}

void bk_check_lump_limits(bk_ctx *ctx, const bk_file *f)
{
    const bk_engine_limits *lim = f->version ? f->version->lump_limits : NULL;
    if (!ctx->keep_going || !lim || !f->family) return;
    for (uint32_t r = 0; r < lim->count; r++) {
        const bk_lump_limit *l = &lim->rows[r];
        if (l->lump >= f->family->lump_count) continue;
        const char *name = f->family->lumps[l->lump].name;
        for (uint32_t j = 0; j < f->info.lump_count; j++) {
            /* the info lists the lumps in row order (but for a swapped slot): look there first */
            uint32_t i = j == 0 ? l->lump : j == l->lump ? 0 : j;
            if (i >= f->info.lump_count) continue;
            const bk_lump_info *li = &f->info.lumps[i];
            if (strcmp(li->name, name) != 0) continue;
            uint64_t n = l->bytes ? li->uncompressed : li->count < 0 ? 0 : (uint64_t)li->count;
            if (n > l->max)
                BK_WARN(ctx, BK_ELIMIT, name, BK_NO_INDEX, li->offset, "%llu %s, more than %s %s (%u)",
                        (unsigned long long)n, l->bytes ? "bytes" : "elements", lim->engine, l->name, l->max);
            break;
        }
    }
}
