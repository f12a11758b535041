/* The family descriptors (src/formats/family.h): every row consistent with the others, the field
 * rows covering each described element exactly, and the one reference checker reporting and
 * repairing as the hand-written checks did. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "formats/family.h"

static bool is_bsp(const bk_family *fam)
{
    return strcmp(fam->name, "quake") == 0 || strcmp(fam->name, "q3") == 0 || strcmp(fam->name, "source") == 0;
}

/* each described element: its fields cover entry bytes exactly, no byte twice */
static void check_fields(const bk_family *fam, const bk_lump_desc *l, uint8_t c)
{
    const bk_fields *fs = &l->fields[c];
    uint32_t entry = l->entry[c];
    if (is_bsp(fam) && entry > 1 && fs->count == 0) {
        fprintf(stderr, "%s: lump %s column %u has no fields\n", fam->name, l->name, c);
        CHECK(fs->count > 0);
    }
    if (!fs->count) return;
    uint8_t seen[256 * 1024];
    CHECK(entry <= sizeof seen);
    if (entry > sizeof seen) return;
    memset(seen, 0, entry);
    bool ok = true;
    for (uint32_t i = 0; i < fs->count; i++) {
        const bk_field *f = &fs->rows[i];
        uint32_t bytes = bk_ftype_size(f->type) * f->count;
        if (f->offset + bytes > entry || f->count == 0) {
            fprintf(stderr, "%s: %s.%s (column %u) runs past the %u-byte element\n", fam->name, l->name, f->name, c,
                    entry);
            ok = false;
            continue;
        }
        for (uint32_t b = 0; b < bytes; b++) {
            if (seen[f->offset + b]) {
                fprintf(stderr, "%s: %s.%s (column %u) overlaps another field\n", fam->name, l->name, f->name, c);
                ok = false;
                break;
            }
            seen[f->offset + b] = 1;
        }
        for (uint32_t j = 0; j < i; j++)
            if (strcmp(fs->rows[j].name, f->name) == 0) ok = false;
        for (const char *p = f->name; *p; p++)
            if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_')) ok = false; /* snake_case */
    }
    for (uint32_t b = 0; b < entry; b++)
        if (!seen[b]) {
            fprintf(stderr, "%s: %s (column %u): byte %u of %u is in no field\n", fam->name, l->name, c, b, entry);
            ok = false;
            break;
        }
    CHECK(ok);
}

static void check_family(const bk_family *fam)
{
    CHECK(fam->name && fam->ops && fam->version_count > 0);
    for (uint32_t v = 0; v < fam->version_count; v++) {
        const bk_version_desc *r = &fam->versions[v];
        CHECK(r->name && r->variant && r->column < BK_FAMILY_COLUMNS);
        CHECK(r->format > BK_FORMAT_UNKNOWN && r->format < BK_FORMAT_COUNT_);
        CHECK(r->version_at == -1 || r->version_at == 0 || r->version_at == (int8_t)strlen(r->ident));
        if (r->dir) {
            CHECK(r->dir->count == fam->lump_count);
            CHECK(r->entity_slot < r->dir->count);
            CHECK(r->dir->header_size >= r->dir->dir_offset + r->dir->count * r->dir->entry_size);
            CHECK(r->dir->ofs_field + 4 <= r->dir->entry_size && r->dir->len_field + 4 <= r->dir->entry_size);
        }
        if (is_bsp(fam) && r->supported) CHECK(r->dir != NULL);
        /* the game's facts: every map a player walks has them, nothing else does; the eye above
         * the spawn inside the player's box, which holds the origin; each class named once */
        const bk_game *g = r->game;
        CHECK((g != NULL) == (is_bsp(fam) && r->supported));
        if (g) {
            CHECK(g->spawn_class_count > 0 && g->eye_height > 0);
            for (int k = 0; k < 3; k++) CHECK(g->hull_min[k] <= 0 && g->hull_max[k] > 0);
            CHECK(g->eye_height <= g->hull_max[2] + 16);
            for (uint32_t a = 0; a < g->spawn_class_count; a++) {
                CHECK(g->spawn_classes[a] && (strncmp(g->spawn_classes[a], "info_", 5) == 0 ||
                                              strncmp(g->spawn_classes[a], "team_", 5) == 0));
                for (uint32_t b = a + 1; b < g->spawn_class_count; b++)
                    CHECK(strcmp(g->spawn_classes[a], g->spawn_classes[b]) != 0);
            }
            CHECK(bk_format_game(r->format) != NULL && bk_format_parse(bk_format_name(r->format)) == r->format);
        }
    }
    for (uint32_t i = 0; i < fam->lump_count; i++) {
        const bk_lump_desc *l = &fam->lumps[i];
        CHECK(l->name != NULL);
        CHECK(l->max_count == 0 || l->min_count <= l->max_count);
        for (uint8_t c = 0; c < BK_FAMILY_COLUMNS; c++) {
            check_fields(fam, l, c);
            if ((l->in_place >> c) & 1) CHECK(l->entry[c] % 4 == 0 && l->entry[c] > 0); /* read as 4-byte aligned structs */
        }
    }
    for (uint32_t i = 0; i < fam->ref_count; i++) {
        const bk_ref_desc *r = &fam->refs[i];
        CHECK(r->lump < fam->lump_count && r->target < fam->lump_count && r->msg && r->field);
        if (r->lump >= fam->lump_count) continue;
        const bk_lump_desc *l = &fam->lumps[r->lump];
        for (uint8_t c = 0; c < BK_FAMILY_COLUMNS; c++) {
            if (!l->fields[c].count) continue;
            const bk_field *f = bk_lump_field(l, c, r->field);
            if (!f) fprintf(stderr, "%s: ref %u names %s.%s, not a field (column %u)\n", fam->name, i, l->name, r->field, c);
            CHECK(f && f->type != BK_FT_F32 && f->type != BK_FT_CHARS && f->type != BK_FT_BYTES);
            if (r->flags & BK_REF_RANGE) CHECK(r->count_field && bk_lump_field(l, c, r->count_field));
        }
        CHECK(l->fields[0].count > 0); /* the checker reads through the fields */
    }
}

static void test_rows(void)
{
    size_t n;
    const bk_family *const *tab = bk_family_table(&n);
    CHECK(n == 7);
    for (size_t i = 0; i < n; i++) check_family(tab[i]);
    /* every format but unknown is some family's */
    for (int fmt = BK_FORMAT_UNKNOWN + 1; fmt < BK_FORMAT_COUNT_; fmt++) {
        bool found = false;
        for (size_t i = 0; i < n; i++)
            for (uint32_t v = 0; v < tab[i]->version_count; v++) found |= tab[i]->versions[v].format == (bk_format)fmt;
        CHECK(found);
    }
}

static void test_versions(void)
{
    uint8_t h[16] = {0};
    const bk_version_desc *v;
    memcpy(h, "\x1d\0\0\0", 4);
    v = bk_family_version(&bk_family_quake, h, 16);
    CHECK(v && v->format == BK_FORMAT_QUAKE1 && v->column == 0);
    memcpy(h, "\x1e\0\0\0", 4);
    v = bk_family_version(&bk_family_quake, h, 16);
    CHECK(v && v->format == BK_FORMAT_GOLDSRC && v->entity_slot == 0); /* Blue Shift is the loader's choice */
    memcpy(h, "2PSB", 4);
    v = bk_family_version(&bk_family_quake, h, 16);
    CHECK(v && v->format == BK_FORMAT_BSP2 && v->column == 2);
    memcpy(h, "\x1f\0\0\0", 4);
    CHECK(bk_family_version(&bk_family_quake, h, 16) == NULL);
    memcpy(h, "IBSP\x2f\0\0\0", 8);
    v = bk_family_version(&bk_family_q3, h, 16);
    CHECK(v && v->supported && strcmp(v->variant, "rtcw-et") == 0);
    memcpy(h, "IBSP\x26\0\0\0", 8);
    v = bk_family_version(&bk_family_q3, h, 16);
    CHECK(v && !v->supported); /* Quake 2: recognised, refused */
    memcpy(h, "IBSP\x30\0\0\0", 8);
    CHECK(bk_family_version(&bk_family_q3, h, 16) == NULL && bk_family_ident(&bk_family_q3, h, 16));
    memcpy(h, "RBSP\x01\0\0\0", 8);
    v = bk_family_version(&bk_family_q3, h, 16);
    CHECK(v && !v->supported);
    memcpy(h, "VBSP\x15\0\0\0", 8);
    v = bk_family_version(&bk_family_source, h, 16);
    CHECK(v && v->supported && v->dir && v->dir->ofs_field == 0); /* the L4D2 row is the loader's choice */
    memcpy(h, "VBSP\x11\0\0\0", 8);
    v = bk_family_version(&bk_family_source, h, 16);
    CHECK(v && v->column == 2 && strcmp(v->variant, "vtmb") == 0);
    CHECK(bk_family_version(&bk_family_source, h, 5) == NULL); /* too short to hold the version */
    uint32_t idx = 99;
    CHECK(bk_family_lump(&bk_family_source, "pakfile", &idx) && (int32_t)idx == bk_family_source.pak_slot);
    CHECK(bk_family_lump(&bk_family_q3, "nope", NULL) == NULL);
}

/* ---- the checker over a small family of its own ---------------------------------------------- */
#define F(n_, t_, o_, c_) {.name = n_, .type = BK_FT_##t_, .offset = o_, .count = c_}
static const bk_field f_a[] = {F("first", I32, 0, 1), F("num", U16, 4, 1), F("pair", I16, 6, 2), F("opt", I32, 10, 1),
                               F("edge", I32, 14, 1)};
static const bk_field f_b[] = {F("x", F32, 0, 1)};
#undef F
static const bk_lump_desc k_lumps[] = {
    {.name = "alpha", .entry = {18}, .fields = {BK_FIELDS(f_a)}},
    {.name = "beta", .entry = {4}, .fields = {BK_FIELDS(f_b)}},
    {.name = "gamma", .entry = {4}, .fields = {BK_FIELDS(f_b)}},
};
static const bk_ref_desc k_refs[] = {
    {0, "first", "num", 1, BK_REF_RANGE, "betas %f+%n out of range (%c betas)"},
    {0, "pair", NULL, 1, BK_REF_AT_FIELD, "beta %v out of range (%c)"},
    {0, "opt", NULL, 1, BK_REF_NONE_OK | BK_REF_WARN, "beta %v (warned)"},
    {0, "edge", NULL, 1, BK_REF_ABS, "edge %v out of range (%c)"},
    {0, "opt", NULL, 2, BK_REF_IF_TARGET, "gamma %v out of range (%c)"},
};
static const bk_family k_fam = {"test", NULL, 0, k_lumps, 3, k_refs, 5, NULL, NULL, NULL, -1, NULL, NULL, NULL, NULL, NULL};

typedef struct seen {
    char text[16][400];
    int count, repairs[8][3], repair_count;
} seen;

static void on_diag(void *user, const bk_diag *d)
{
    seen *s = user;
    if (s->count < 16)
        snprintf(s->text[s->count++], sizeof s->text[0], "%s %s[%lld] @%llu: %s", d->severity == BK_SEV_ERROR ? "E" : "W",
                 d->lump, (long long)d->index, (unsigned long long)d->offset, d->message);
}

static bk_result on_repair(void *user, uint32_t ref, uint32_t elem, uint32_t k)
{
    seen *s = user;
    if (s->repair_count < 8) {
        s->repairs[s->repair_count][0] = (int)ref;
        s->repairs[s->repair_count][1] = (int)elem;
        s->repairs[s->repair_count++][2] = (int)k;
    }
    return BK_OK;
}

static void put(uint8_t *e, int32_t first, uint16_t num, int16_t p0, int16_t p1, int32_t opt, int32_t edge)
{
    bk_wr_u32le(e, (uint32_t)first);
    e[4] = (uint8_t)num, e[5] = (uint8_t)(num >> 8);
    e[6] = (uint8_t)p0, e[7] = (uint8_t)((uint16_t)p0 >> 8);
    e[8] = (uint8_t)p1, e[9] = (uint8_t)((uint16_t)p1 >> 8);
    bk_wr_u32le(e + 10, (uint32_t)opt);
    bk_wr_u32le(e + 14, (uint32_t)edge);
}

static void test_checker(void)
{
    uint8_t a[3 * 18];
    put(a, 0, 3, 0, 2, -1, -2);       /* all fine: 3 betas, -1 allowed, edge -2 is edge 2 */
    put(a + 18, 2, 2, 3, -1, 5, -3);  /* range 2+2 past 3; pair 3 and -1 bad; opt 5 warned; edge -3 bad */
    put(a + 36, -1, 0, 1, 1, -2, 1);  /* a negative first; opt -2 warned */
    bk_ref_lump lumps[3] = {{a, 3, 1000, false}, {NULL, 3, 2000, false}, {NULL, 0, 0, false}};
    seen s;
    memset(&s, 0, sizeof s);
    bk_options opt = {0};
    opt.diag = on_diag;
    opt.diag_user = &s;
    bk_ctx ctx;
    bk_ctx_init(&ctx, &opt, true);
    ctx.file = "t";
    bk_ref_input in = {&k_fam, 0, lumps, on_repair, &s};
    CHECK(bk_check_refs(&ctx, &in, 0) == BK_OK);
    static const char *const want[] = {
        "E alpha[1] @1018: betas 2+2 out of range (3 betas)", "E alpha[1] @1024: beta 3 out of range (3)",
        "E alpha[1] @1024: beta -1 out of range (3)",         "W alpha[1] @1018: beta 5 (warned)",
        "E alpha[1] @1018: edge -3 out of range (3)",         "E alpha[2] @1036: betas -1+0 out of range (3 betas)",
        "W alpha[2] @1036: beta -2 (warned)",
    };
    CHECK(s.count == 7);
    for (int i = 0; i < 7 && i < s.count; i++) {
        if (strcmp(s.text[i], want[i]) != 0) fprintf(stderr, "got  %s\nwant %s\n", s.text[i], want[i]);
        CHECK(strcmp(s.text[i], want[i]) == 0);
    }
    CHECK(ctx.errors == 5 && ctx.warnings == 2);
    /* repairs: every bad element, with the sub-index of an array field */
    CHECK(s.repair_count == 7 && s.repairs[1][0] == 1 && s.repairs[1][1] == 1 && s.repairs[1][2] == 0 &&
          s.repairs[2][2] == 1);
    /* a compressed lump reports every element at the lump's offset; outside validate mode the first
     * error stops the checker */
    memset(&s, 0, sizeof s);
    lumps[0].compressed = true;
    bk_ctx_init(&ctx, &opt, false);
    CHECK(bk_check_refs(&ctx, &in, 0) == BK_EINDEX);
    CHECK(s.count == 1 && strcmp(s.text[0], "E alpha[1] @1000: betas 2+2 out of range (3 betas)") == 0);
    /* a target with elements is checked under BK_REF_IF_TARGET */
    memset(&s, 0, sizeof s);
    lumps[0].compressed = false;
    lumps[2].count = 2;
    bk_ctx_init(&ctx, &opt, true);
    CHECK(bk_check_refs(&ctx, &in, 0) == BK_OK);
    int gamma = 0;
    for (int i = 0; i < s.count; i++) gamma += strstr(s.text[i], "gamma") != NULL;
    CHECK(gamma == 3); /* -1, 5 and -2: no -1 exception on that row */
    /* an absent lump (no bytes, no elements: a Source lump not in the file) holds no index */
    memset(&s, 0, sizeof s);
    lumps[0].data = NULL;
    lumps[0].count = 0;
    CHECK(bk_check_refs(&ctx, &in, 0) == BK_OK && s.count == 0);
}

int main(void)
{
    test_rows();
    test_versions();
    test_checker();
    return CHECK_DONE();
}
