/* The contract between the core and each format decoder. A new format adds one family
 * descriptor (family.h; its own folder under src/formats/) and one line in registry.c. */
#ifndef BK_FORMAT_H
#define BK_FORMAT_H

#include <stdatomic.h>

#include "../common/bk_internal.h"

struct bk_file {
    bk_format format;
    const struct bk_family *family;            /* set by the front door */
    const struct bk_version_desc *version;     /* the family's version row, set by the loader (may be NULL) */
    const uint8_t *data;       /* the file's bytes (borrowed or owned) */
    size_t size;
    uint8_t *owned;            /* non-NULL when the file owns data */
    void *mapped;              /* non-NULL when data is a read-only mapping of the file */
    size_t mapped_size;
    char *name;                /* for diagnostics */
    bk_info info;              /* filled by the loader */
    bk_entities entities;      /* filled by the loader (may be empty) */
    void *impl;                /* the decoded format data */
    /* a load its loader left to finish on first need (BK_OPT_DEFER_GEOMETRY): ops->complete runs
     * once (bk_file_complete), under lock, with the open's limits */
    atomic_int deferred;       /* set by the loader; 0 once completed */
    bool has_lock;
    bk_result completed;       /* what the completion gave */
    bk_limits limits;
    bk_mutex lock;
};

typedef struct bk_format_ops {
    bk_format format;
    /* Does this decoder claim these bytes? Only magic/version checks; must be cheap and safe
     * on any size. Return 0 (no), 1 (magic matches, maybe unsupported version) or 2 (yes). */
    int (*probe)(const uint8_t *data, size_t size);
    /* Decode and check f->data. In validate mode (ctx->keep_going) report every problem and
     * go on; otherwise return at the first error. Fills f->impl, f->info, f->entities. */
    bk_result (*load)(bk_file *f, bk_ctx *ctx);
    void (*destroy)(void *impl);
    /* Build the format-neutral scene (only called after a clean load). May be NULL. */
    bk_result (*build_scene)(const bk_file *f, const bk_options *opt, bk_scene *out);
    /* Embedded images as RGBA into out->images. May be NULL. */
    bk_result (*extract_images)(const bk_file *f, const bk_options *opt, bk_scene *out);
    /* Write the file back in its own format (temporary file + rename). May be NULL. */
    bk_result (*write)(const bk_file *f, const bk_options *opt, const char *path);
    /* Finish a load the loader deferred (it set f->deferred), reporting through ctx. May be NULL. */
    bk_result (*complete)(bk_file *f, bk_ctx *ctx);
} bk_format_ops;

extern const bk_format_ops bk_ops_quake;   /* BSP29, BSP2, BSP30 */
extern const bk_format_ops bk_ops_wad3;
extern const bk_format_ops bk_ops_q3;
extern const bk_format_ops bk_ops_source;
extern const bk_format_ops bk_ops_dpm;
extern const bk_format_ops bk_ops_vtf;
extern const bk_format_ops bk_ops_mdl;

/* Helpers for filling bk_info. */
bk_result bk_info_set_lumps(bk_info *info, uint32_t n);
void bk_info_count(bk_info *info, const char *name, uint64_t value);

/* ---- lump directories (lumps.c), shared by every BSP family ---------------------------------- */
/* A lump as its directory entry places it. */
typedef struct bk_lump_span {
    uint64_t ofs, len;
    bool ok;                   /* false: unusable (reported), ofs = len = 0 */
} bk_lump_span;
/* Place a directory entry (offset and length as stored, signed) of lump `name` in a file of
 * file_size bytes: non-negative, inside the file, at or after header_size (before it: a warning
 * when overlap_warns, the engines reading such a lump, else an error). Problems are reported with
 * the lump's name and dir_at, the entry's offset in the directory. Returns the error outside
 * validate mode; in validate mode BK_OK with out->ok false. */
bk_result bk_lump_locate(bk_ctx *ctx, const char *name, uint64_t header_size, bool overlap_warns, int64_t ofs,
                         int64_t len, size_t file_size, uint64_t dir_at, bk_lump_span *out);
/* Element count of an array lump of len bytes (after decompression where there is one) whose
 * elements are `entry` bytes (1: a byte lump; 0: not an array): a multiple of it, within the
 * element limit; reported at offset at. *ok (may be NULL) says whether it is; *count is 0 when
 * not. Errors as bk_lump_locate. */
bk_result bk_lump_elements(bk_ctx *ctx, const char *name, uint32_t entry, uint64_t len, uint64_t at, uint32_t *count,
                           bool *ok);

/* cls names the world entity (case-insensitive, as Q_stricmp) */
bool bk_is_worldspawn(const char *cls);
/* Parse an entity lump into f->entities (shared by all BSP families); reports with lump name
 * and absolute offset on error, and warns when the first entity is not worldspawn (or there is
 * none: no engine loads such a map). lump_ofs is the lump's file offset. */
bk_result bk_load_entities(bk_file *f, bk_ctx *ctx, const char *lump, const uint8_t *text, size_t len,
                           uint64_t lump_ofs);

#endif
