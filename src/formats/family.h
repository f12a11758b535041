/* The family descriptor: everything the layers need to know about one family of files, in one
 * const table (in the manner of Xash3D's srclumps[] and ericw-tools' bspversion_t).
 *
 *   versions   one row per version or variant the family reads (ident, version, name, format,
 *              which column of the lump rows it uses, its directory layout, its entity slot)
 *   lumps      one row per lump: name, element size per column, element count bounds, per column
 *              whether the decoded array may be the file's own bytes, and the element's fields
 *   refs       one row per index a lump's elements hold into another lump, applied by one
 *              checker (bk_check_refs) instead of a hand-written check per field
 *   ops        probe/load/scene/images/write (bk_format_ops), queries, collision
 *
 * A new variant of a family is new rows. Nothing outside the front door (src/core/file.c,
 * src/formats/registry.c) switches on the format: it asks the file's family. A family without
 * an operation leaves it NULL, and the front door answers "not supported for FORMAT". */
#ifndef BK_FAMILY_H
#define BK_FAMILY_H

#include "format.h"

/* Columns of per-variant element sizes: a family with one layout uses column 0 only (Quake: BSP29
 * and BSP30, BSP2, 2PSB; Source: 32-byte leafs, 56-byte leafs, Bloodlines' v17). */
#define BK_FAMILY_COLUMNS 3

/* ---- fields: an element as the format's own headers describe it ------------------------------ */
typedef enum bk_ftype {
    BK_FT_U8, BK_FT_I8, BK_FT_U16, BK_FT_I16, BK_FT_U32, BK_FT_I32, BK_FT_F32,
    BK_FT_CHARS,   /* fixed-size text, NUL-padded: count is its byte size */
    BK_FT_BYTES,   /* opaque bytes (padding kept for a byte-exact round trip): count bytes */
} bk_ftype;

typedef struct bk_field {
    const char *name;   /* snake_case, as the format's header names the member */
    uint8_t type;       /* bk_ftype */
    uint16_t offset;    /* byte offset inside the element as stored in the file */
    uint16_t count;     /* array length: 1 for a scalar, 3 for a vector, bytes for CHARS/BYTES */
    /* where bk_decode_rows puts it: the destination member's type + 1 (BK_TO(F32); 0: the field
     * is not decoded into the typed array) and its offsetof in the public struct; a vector's
     * values go to consecutive members of that type */
    uint8_t to;
    uint16_t dst;
    /* values bk_decode_rows puts there: the first dst_count of count (0: all); a stored array
     * longer than its member (Bloodlines' eight styles, of which the faces keep four) */
    uint16_t dst_count;
} bk_field;
#define BK_TO(type) ((uint8_t)(BK_FT_##type + 1))

typedef struct bk_fields {
    const bk_field *rows;
    uint32_t count;
} bk_fields;
#define BK_FIELDS(a) {a, (uint32_t)(sizeof a / sizeof a[0])}

/* Fill the typed array dst (count elements of dst_size bytes, zeroed by the caller) from count
 * stored elements of entry bytes at src, field by field as the rows say (offset, type -> to, dst):
 * integers widened or narrowed as C converts them, integers to floats, floats copied, CHARS and
 * BYTES copied. big_endian: the stored values are big-endian (DPM). The caller has checked that
 * count * entry bytes lie at src. */
void bk_decode_rows(const bk_fields *fields, const uint8_t *src, uint32_t entry, uint32_t count, void *dst,
                    uint32_t dst_size, bool big_endian);
/* The inverse, for the tests: the stored bytes of count elements from the typed array (only the
 * fields with a destination are written; dst's other bytes are left as they are). */
void bk_encode_rows(const bk_fields *fields, const void *src, uint32_t src_size, uint32_t count, uint8_t *dst,
                    uint32_t entry, bool big_endian);

/* Bytes one value of a field type takes (CHARS / BYTES: 1 per counted byte). */
uint32_t bk_ftype_size(uint8_t type);
/* Value k of field fd of the element at p, widened (floats truncated toward zero). */
int64_t bk_field_get(const bk_field *fd, const uint8_t *p, uint32_t k);

/* ---- a lump of counted arrays in turn (Source's occlusion lump: occluders, their polygons, the
 * polygons' vertex indices): per section an int32 count, then that many elements. Its JSON is an
 * object with one array per section; a section's first/count fields (range_of >= 0) index
 * another section's elements and must stay inside it. -------------------------------------------- */
typedef struct bk_lump_section {
    const char *name;          /* the JSON key, snake_case */
    uint32_t entry;            /* element size */
    bk_fields fields;
    bool bare;                 /* one scalar field: each element is that bare number in the JSON */
    int8_t range_of;           /* the section first/count index, -1: none */
    const char *first, *count;
} bk_lump_section;

typedef struct bk_lump_sections {
    const bk_lump_section *rows;
    uint32_t count;
} bk_lump_sections;

/* ---- lumps ----------------------------------------------------------------------------------- */
typedef struct bk_lump_desc {
    const char *name;
    uint32_t entry[BK_FAMILY_COLUMNS];  /* element size per column (1: a byte lump; 0: not an array) */
    uint32_t min_count, max_count;      /* bounds on the element count (max 0: only the library's limit) */
    uint8_t in_place;                   /* bit c: in column c, on a little-endian host, the decoded array
                                         * may be the file's own bytes (the struct has the file's layout) */
    bk_fields fields[BK_FAMILY_COLUMNS];/* the element's fields per column (count 0: not described) */
    bk_lump_sections sections[BK_FAMILY_COLUMNS]; /* count > 0: the lump is these counted arrays */
    uint32_t dst_size;                  /* the decoded (public) struct's size; 0: not decoded from the rows */
    /* the column by the lump's own version (Source's lump_t.version), per column of the version
     * row: by_version[c][b] is the column + 1 for lump versions b = 0: negative, 1: 0, 2: 1, 3: 2
     * and later; 0: the version row's column (bk_rows_column) */
    uint8_t by_version[BK_FAMILY_COLUMNS][4];
    uint8_t absent;                     /* bit c: column c's engine has no such lump; it is not decoded
                                         * (its rows still describe the bytes, if a file has any) */
} bk_lump_desc;

/* The column of a lump's rows: the version row's column, or where the row says so, the column
 * its own lump version picks (Source's leafs, world lights, occluders, ambient samples). The one
 * place that choice is made. */
uint8_t bk_rows_column(const bk_lump_desc *row, uint8_t version_column, int32_t lump_version);

/* ---- where the lump directory sits in the header (read and written from this) ----------------- */
typedef struct bk_dir_layout {
    uint32_t dir_offset;       /* first directory entry */
    uint32_t count;            /* entries */
    uint32_t entry_size;
    uint32_t ofs_field, len_field;   /* byte offsets inside an entry (32-bit little-endian) */
    uint32_t header_size;      /* bytes before the first lump may start */
    uint32_t align;            /* a moved lump starts on this boundary */
    bool overlap_warns;        /* a lump over the header: a warning (the engine reads it), else an error */
} bk_dir_layout;

/* ---- what the family's engine reads of an entity lump (a write past it warns) ------------------- */
typedef struct bk_entity_limits {
    const char *engine;        /* "Quake's", for the message */
    uint32_t key, value;       /* longest key, value in bytes */
    uint32_t pairs;            /* pairs of one entity, 0: no limit */
    uint32_t pair_bytes;       /* keys and values of one entity with a NUL each, 0: no limit */
    uint32_t entities;
} bk_entity_limits;

/* ---- what the family's engine takes of each lump (more: `validate` warns, the map still loads) --- */
typedef struct bk_lump_limit {
    uint16_t lump;             /* the lump row */
    uint32_t max;              /* elements at most (bytes: bytes at most) */
    const char *name;          /* the engine's constant, for the message: "MAX_MAP_PLANES" */
    bool bytes;                /* the limit counts the lump's bytes, not its elements */
} bk_lump_limit;
typedef struct bk_engine_limits {
    const char *engine;        /* "Quake's", for the message */
    const bk_lump_limit *rows;
    uint32_t count;
} bk_engine_limits;

/* ---- versions and variants -------------------------------------------------------------------- */
typedef struct bk_version_desc {
    char ident[16];            /* the magic at byte 0, "" where the version number stands first */
    int32_t version;           /* the version number bspkit reports */
    int8_t version_at;         /* where it is stored: byte 0 (no ident), 4 (after the ident), or -1:
                                * not stored, the ident alone decides (BSP2, WAD3, RBSP) */
    const char *name;          /* "GoldSrc BSP30", "Source v21 (L4D2 lump order)" */
    const char *variant;       /* bk_info.variant ("" none) */
    bk_format format;
    uint8_t column;            /* which entry[] / fields[] column of the lump rows it uses */
    const bk_dir_layout *dir;  /* NULL: the family's file has no lump directory (not editable) */
    uint8_t entity_slot;       /* directory slot holding the entity lump (Blue Shift swaps 0 and 1) */
    bool supported;            /* false: recognised only to be refused with a clear message */
    const bk_entity_limits *entity_limits;   /* NULL: none known */
    const bk_game *game;       /* the game's facts (eye height, spawn classes, player box); NULL: none */
    const bk_engine_limits *lump_limits;     /* the engine's lump limits; NULL: none known */
    uint32_t traits;           /* BK_VT_*: what the loader does differently for this version */
    const char *refused_note;  /* !supported: said after the refusal ("v25 is Strata Source"); NULL: none */
} bk_version_desc;

/* bk_version_desc.traits */
enum {
    BK_VT_ENTITY_SWAP = 1,     /* a file may hold its entities in slot 1 and planes in slot 0 (Blue Shift:
                                * the same first bytes); the loader looks, and takes the row whose
                                * entity_slot is 1 */
    BK_VT_FOLIAGE = 2,         /* surface type 5 is foliage (Wolfenstein: ET), not an unknown type */
    BK_VT_VTX_TOPOLOGY = 4,    /* MDL: its VTX strip groups and strips likely carry the topology fields
                                * (8 bytes more each); the other layout is tried second */
};

/* ---- references ------------------------------------------------------------------------------- */
enum {
    BK_REF_NONE_OK = 1,        /* -1 means "none" and is allowed */
    BK_REF_RANGE = 2,          /* field is the first of a range whose length is the count field */
    BK_REF_WARN = 4,           /* out of range is a warning (the engines tolerate it), not an error */
    BK_REF_AT_FIELD = 8,       /* reported at the field's offset (else at the element's start) */
    BK_REF_ABS = 16,           /* a negative value is the index negated (Quake surfedges) */
    BK_REF_IF_TARGET = 32,     /* checked only when the target lump has elements */
    BK_REF_EMPTY_ANY = 64,     /* a range of length 0 may start anywhere (vrad writes such for leafs
                                * without ambient samples) */
};
typedef struct bk_ref_desc {
    uint16_t lump;             /* the lump whose elements hold the index */
    const char *field;         /* its field's name (bk_field.name of that lump) */
    const char *count_field;   /* BK_REF_RANGE: the field holding the range's length */
    uint16_t target;           /* the lump indexed */
    uint8_t flags;
    /* the message: %v the value, %f %n a range's first and length, %c the target's count */
    const char *msg;
} bk_ref_desc;

/* ---- editing: a re-laid-out file as the family's fix-up sees it (src/core/edit.c) --------------- */
typedef struct bk_edit_layout {
    uint8_t *data;             /* the new file */
    size_t size;
    const bk_dir_layout *dir;
    const uint64_t *old_ofs, *old_len, *new_ofs, *new_len;   /* per directory slot */
    const bool *replaced;      /* per directory slot */
    bool edited;
    uint64_t tail_old, tail_new;   /* where the bytes after the last lump were and are */
    uint64_t (*moved)(const struct bk_edit_layout *e, uint64_t old);   /* where an old offset went */
    const void *priv;
} bk_edit_layout;

/* ---- a lump as stored: its slot, its decoded bytes and the column of its rows ------------------- */
typedef struct bk_lump_view {
    uint32_t slot;             /* directory slot holding it (Blue Shift: entities in slot 1) */
    const uint8_t *data;       /* its bytes, decompressed where stored compressed (NULL when empty) */
    size_t size;
    uint8_t column;            /* which entry[] / fields[] column of its row applies */
    bool compressed;           /* stored compressed (an edit writes it back compressed) */
} bk_lump_view;
/* Lump row `lump` of a loaded file: the family's lump_view, or (NULL there) the directory entry's
 * bytes in the version row's column. BK_EUNSUPPORTED for a file without a lump directory. */
bk_result bk_lump_view_of(const bk_file *f, uint32_t lump, bk_lump_view *out);
/* The bytes a lump's JSON (bk_lump_to_json) stands for, validated (lump_json.c): *out bk_free'd by
 * the caller; err located as lump[element] @offset-in-text with line:column and field. */
bk_result bk_lump_json_read(const bk_file *f, uint32_t lump, const char *text, size_t len, const bk_options *opt,
                            uint8_t **out, size_t *size, bk_diag *err);

/* ---- the decoded arrays of the family's public struct (bk_file_array, src/formats/arrays.c) ------
 * One row per array: where its pointer and count lie in the public struct (as Xash3D's srclumps[]
 * gives dataofs / countofs), the lump row whose field rows (to, dst) describe its element, and the
 * members those rows do not decode (computed by the loader, names, whole pages). */
typedef struct bk_array_member {
    const char *name;
    uint8_t type;              /* bk_array_type (bspkit.h) */
    uint16_t offset;           /* offsetof in the element */
    uint16_t shape[3];         /* values: shape[0] x shape[1] x shape[2] (0: 1), CHARS / BYTES: bytes */
} bk_array_member;
typedef struct bk_array_desc {
    const char *name;          /* the public struct's member name ("planes", "static_props") */
    int32_t lump;              /* the lump row decoded into it, -1: none */
    uint16_t data_ofs;         /* offsetof the pointer member in the public struct */
    uint16_t count_ofs;        /* offsetof its count member */
    uint8_t count_size;        /* sizeof the count member: 4 or 8 */
    uint32_t elem_size;        /* sizeof an element */
    const bk_array_member *more;   /* the element's members the lump's rows do not decode */
    uint32_t more_count;
    bool early;                /* there when the file is open, before a deferred load is finished */
} bk_array_desc;
typedef struct bk_array_set {
    const void *(*decoded)(const bk_file *f);  /* the family's public struct (its _of accessor) */
    /* the struct as a deferred open left it (its early arrays are there); NULL: no deferred loads */
    const void *(*partial)(const bk_file *f);
    const bk_array_desc *rows;
    uint32_t count;
} bk_array_set;
#define BK_MEMBER(st, name, type, member, ...) \
    {name, BK_ARRAY_##type, (uint16_t)offsetof(st, member), {__VA_ARGS__}}
#define BK_ARRAY_(early, st, name, lump, ptr, cnt, elem, more)                                           \
    {name, lump, (uint16_t)offsetof(st, ptr), (uint16_t)offsetof(st, cnt), (uint8_t)sizeof(((st *)0)->cnt), \
     (uint32_t)sizeof(elem), more, (uint32_t)(sizeof more / sizeof more[0]), early}
#define BK_ARRAY(...) BK_ARRAY_(false, __VA_ARGS__)
#define BK_ARRAY_EARLY(...) BK_ARRAY_(true, __VA_ARGS__)
#define BK_ARRAY_PLAIN(st, name, lump, ptr, cnt, elem)                                                  \
    {name, lump, (uint16_t)offsetof(st, ptr), (uint16_t)offsetof(st, cnt), (uint8_t)sizeof(((st *)0)->cnt), \
     (uint32_t)sizeof(elem), NULL, 0, false}
extern const bk_array_set bk_arrays_quake, bk_arrays_q3, bk_arrays_source, bk_arrays_mdl, bk_arrays_dpm;

/* ---- the descriptor --------------------------------------------------------------------------- */
struct bk_query_ops;
struct bk_collision;
struct bk_dmap;
typedef bk_result (*bk_collision_fn)(const bk_file *f, struct bk_collision *b);
typedef struct bk_family {
    const char *name;                          /* "quake", "q3", "source", "dpm", ... */
    const bk_version_desc *versions;
    uint32_t version_count;
    const bk_lump_desc *lumps;
    uint32_t lump_count;
    const bk_ref_desc *refs;
    uint32_t ref_count;
    const bk_format_ops *ops;                  /* decode, scene, images, write */
    const struct bk_query_ops *query;          /* NULL: no trees to query */
    /* the world's collision pieces (convert --collision), filled into src/scene/collision.c's
     * builder; NULL: none */
    bk_collision_fn collision;
    /* editing: the directory slot of the pakfile (-1: none), and the fix-up of what the lumps
     * hold about the file's layout after they moved (absolute offsets); may be NULL */
    int32_t pak_slot;
    void (*edit_fixup)(const bk_file *f, const struct bk_edit_layout *e);
    /* a lump's bytes as decoded and the column of its rows (Source: LZMA lumps, the leafs' version);
     * NULL: the directory entry's bytes (see bk_lump_view_of) */
    bk_result (*lump_view)(const bk_file *f, uint32_t lump, bk_lump_view *out);
    /* editing: how replaced lump `slot` (bytes d, n) is stored: *out (bk_malloc'd) to store instead
     * (Source: LZMA-compressed again), or NULL: d as it is; NULL hook: always as it is */
    bk_result (*edit_encode)(const bk_file *f, uint32_t slot, const uint8_t *d, size_t n, uint8_t **out, size_t *out_n);
    /* decompiling: fill the neutral brush model (src/decompile/decompile.h) from the lumps; NULL:
     * "decompile not supported yet" for the family */
    bk_result (*decompile)(const bk_file *f, struct bk_dmap *m);
    /* the decoded arrays of its public struct (bk_file_array); NULL: none */
    const bk_array_set *arrays;
} bk_family;

extern const bk_family bk_family_quake, bk_family_wad3, bk_family_q3, bk_family_source, bk_family_dpm,
    bk_family_vtf, bk_family_mdl;

/* Every family, in probe order (src/formats/registry.c). */
const bk_family *const *bk_family_table(size_t *count);
/* The family of a loaded file. */
const bk_family *bk_family_of(const bk_file *f);
/* The first version row whose ident and version match the bytes' start, or NULL. */
const bk_version_desc *bk_family_version(const bk_family *fam, const uint8_t *data, size_t size);
/* Whether a row of the family has this ident (any version): bytes recognised, maybe refused. */
bool bk_family_ident(const bk_family *fam, const uint8_t *data, size_t size);
/* The row of a lump by name, or NULL (*index: its position); a field of a lump row by name. */
const bk_lump_desc *bk_family_lump(const bk_family *fam, const char *name, uint32_t *index);
const bk_field *bk_lump_field(const bk_lump_desc *lump, uint8_t column, const char *name);

/* Validate mode: a warning per lump of the loaded file (its bk_info lumps) holding more elements
 * (or bytes) than its version row's engine takes: "N elements, more than ENGINE's MAX_MAP_Y (M)",
 * located at the lump. Nothing without limits or outside validate mode. */
void bk_check_lump_limits(bk_ctx *ctx, const bk_file *f);

/* Collision ops, one per way a family stores its solids (the brushes: src/scene/collision.c;
 * hull 0: src/formats/quake/quake_collision.c). */
bk_result bk_collision_quake_hull0(const bk_file *f, struct bk_collision *b);
bk_result bk_collision_brushes(const bk_file *f, struct bk_collision *b);
/* Decompile ops (src/decompile/), one per way a family stores its brushes. */
bk_result bk_decompile_q3(const bk_file *f, struct bk_dmap *m);
bk_result bk_decompile_source(const bk_file *f, struct bk_dmap *m);
bk_result bk_decompile_quake(const bk_file *f, struct bk_dmap *m);   /* from the BSP tree */

/* ---- the reference checker (refs.c) ----------------------------------------------------------- */
/* A decoded lump as the checker reads it: its bytes (after decompression), element count, and
 * where element i is reported (ofs + i * entry, or ofs for every element of a compressed lump). */
typedef struct bk_ref_lump {
    const uint8_t *data;
    uint32_t count;
    uint64_t ofs;
    bool compressed;
} bk_ref_lump;
typedef struct bk_ref_input {
    const bk_family *fam;
    uint8_t column;
    const bk_ref_lump *lumps;  /* one per lump row */
    /* called for each bad element (after its report) to repair the decoded copy; may be NULL */
    bk_result (*repair)(void *user, uint32_t ref, uint32_t elem, uint32_t k);
    void *user;
} bk_ref_input;
/* Check every ref row of lump `lump` over its elements (element by element, the rows in table
 * order), reporting as `FILE: LUMP[INDEX] @OFFSET: error: MSG`. Returns the error outside
 * validate mode. */
bk_result bk_check_refs(bk_ctx *ctx, const bk_ref_input *in, uint32_t lump);
/* Every f32 field of lump `lump`'s elements (the rows of `column`) finite: an error (located by
 * element, field and offset) for each element holding NaN or an infinity. Returns the error
 * outside validate mode. */
bk_result bk_check_finite(bk_ctx *ctx, const bk_family *fam, uint8_t column, uint32_t lump, const bk_ref_lump *src);

#endif
