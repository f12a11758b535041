/*
 * bspkit — read, validate, convert and write Quake-family map and model files.
 *
 * The pipeline:   bytes -> format decoder (validated, typed) -> bk_scene -> exporters
 *
 * Conventions (after cgltf / libspng / zstd):
 *  - every call that can fail returns a bk_result and hands results back through out_ pointers;
 *  - the library never prints, exits or aborts on bad input;
 *  - a zero-initialised bk_options means "defaults";
 *  - input buffers given to bk_file_load_memory are borrowed and must outlive the bk_file;
 *  - memory the library hands over is freed with bk_free, or with the _free / _close function of
 *    its type (bk_file_free, bk_scene_free, ...): never with free(), since a program may have
 *    installed its own allocator (bk_set_allocator); blocks a program hands to the library (a
 *    read_file hook's data) are allocated with bk_malloc;
 *  - threads: the calls that read a loaded bk_file may run at once from any number of threads on
 *    one file: bk_file_info, bk_file_entities, bk_file_data, the family accessors (bk_source_map_of,
 *    bk_q3_map_of, ..., bk_file_array), bk_source_lump_bytes, bk_file_complete, bk_query_open, bk_edit_begin,
 *    bk_archive_open_pakfile, bk_file_build_scene, bk_file_extract_images. bk_file_free (and the
 *    advanced calls that consume a file, advanced.h) runs with no other call on that file, and after
 *    what was made from it and reads it (its queries, edits, pakfile archive) is freed. One
 *    bk_query may be used from many threads (query.h); one bk_edit, bk_archive, bk_scene or
 *    bk_renderer by one thread at a time. Different objects are independent.
 *
 *     bk_file *f;
 *     if (bk_file_open("map.bsp", NULL, &f) == BK_OK) {
 *         printf("%s v%d\n", bk_format_name(bk_file_format(f)), bk_file_info(f)->version);
 *         bk_file_free(f);
 *     }
 */
#ifndef BSPKIT_H
#define BSPKIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BK_VERSION_MAJOR 0
#define BK_VERSION_MINOR 1
#define BK_VERSION_PATCH 0
#define BK_VERSION_STRING "0.1.0"

/* Result codes: fixed values, one per cause. */
typedef enum bk_result {
    BK_OK = 0,
    BK_ETRUNCATED = 1,    /* data ends before a structure does */
    BK_EMAGIC = 2,        /* not a file of a known kind */
    BK_EVERSION = 3,      /* known kind, unsupported version */
    BK_ELUMP_RANGE = 4,   /* a lump / section lies outside the file */
    BK_ELUMP_SIZE = 5,    /* a lump's size is not a multiple of its entry size */
    BK_EINDEX = 6,        /* a reference points outside its target array */
    BK_ELIMIT = 7,        /* a caller-set or format limit was exceeded */
    BK_EOVERFLOW = 8,     /* an arithmetic overflow in sizes or offsets */
    BK_ENOMEM = 9,        /* allocation failed */
    BK_EIO = 10,          /* reading or writing a file failed */
    BK_EUNSUPPORTED = 11, /* valid but not handled (yet) */
    BK_EFORMAT = 12,      /* malformed content (bad text, bad values) */
    BK_EDECOMPRESS = 13,  /* a compressed block failed to decode */
    BK_EARG = 14,         /* bad argument from the caller */
    BK_ENOTFOUND = 15,    /* a named resource was not found */
    BK_RESULT_COUNT_
} bk_result;

/* The library's version as "MAJOR.MINOR.PATCH" (that of the library linked, which may differ from
 * BK_VERSION_STRING of the headers compiled against). */
const char *bk_version(void);

/* ---- memory ------------------------------------------------------------------------ */
/* Where the library's memory comes from. Every block bspkit allocates (decoded arrays, scenes,
 * the buffers it hands you) goes through these three functions; the default is the C library's
 * malloc/realloc/free. The working memory of the third-party libraries bspkit calls (cJSON while it
 * prints JSON, liblzma, libdeflate, libzip, stb_image) is their own business and does not. */
typedef struct bk_allocator {
    void *(*alloc)(void *user, size_t size);               /* as malloc (size > 0) */
    void *(*realloc)(void *user, void *ptr, size_t size);  /* as realloc (ptr may be NULL, size > 0) */
    void (*free)(void *user, void *ptr);                   /* as free (ptr is never NULL) */
    void *user;
    /* optional, as calloc (count, size > 0): memory that comes zeroed anyway (fresh pages) need
     * not be cleared again; NULL: alloc, then cleared */
    void *(*calloc)(void *user, size_t count, size_t size);
} bk_allocator;

/* Install an allocator for the whole process (NULL: back to malloc). Like sqlite3_config or
 * cJSON_InitHooks it is set once, before any other bspkit call allocates: once a block is live it
 * returns BK_EARG and changes nothing. Not thread-safe against concurrent bspkit calls. The
 * functions must be thread-safe: the library runs some work on a second thread. */
bk_result bk_set_allocator(const bk_allocator *a);
/* The one rule for memory (see the top of this file): what the library hands over is freed with
 * bk_free (or its type's _free / _close), what a program hands over is made with bk_malloc. */
void *bk_malloc(size_t size);
void bk_free(void *ptr);
/* zlib CRC-32 of a byte range (as `bspkit info --json` reports per lump). */
uint32_t bk_crc32(const void *data, size_t size);

const char *bk_strerror(bk_result r);
/* Short stable identifier of a result ("truncated", "bad-index", ...), for JSON output. */
const char *bk_result_name(bk_result r);

typedef enum bk_severity { BK_SEV_INFO = 0, BK_SEV_WARNING = 1, BK_SEV_ERROR = 2 } bk_severity;
const char *bk_severity_name(bk_severity s);

#define BK_NO_INDEX (-1)
#define BK_NO_OFFSET UINT64_MAX

/* A diagnostic with its location. */
typedef struct bk_diag {
    bk_severity severity;
    bk_result code;
    const char *file;    /* the name given in bk_options.name, or NULL */
    const char *lump;    /* lump / section name, or NULL */
    int64_t index;       /* element index inside the lump, or BK_NO_INDEX */
    uint64_t offset;     /* absolute byte offset in the file, or BK_NO_OFFSET */
    char message[256];
} bk_diag;

/* Formats "file: lump[index] @offset: severity: message" into buf (always NUL-terminated). */
size_t bk_diag_format(const bk_diag *d, char *buf, size_t cap);

typedef void (*bk_diag_fn)(void *user, const bk_diag *d);

/* Limits against hostile input. Zero fields take the defaults below. */
typedef struct bk_limits {
    uint64_t max_file_bytes;    /* default 2 GiB */
    uint64_t max_alloc_bytes;   /* largest single allocation, default 1 GiB */
    uint64_t max_elements;      /* largest element count of one array, default 64 Mi */
    uint32_t max_diags;         /* diagnostics reported before the rest are counted only, default 1000 */
    uint32_t max_atlas_size;    /* largest width / height of a lightmap atlas, default 8192 (beyond it the
                                 * lightmaps are dropped with a warning) */
    uint32_t max_texture_dim;   /* largest width / height of an image decoded from PNG/TGA/JPEG, default 8192 */
    uint64_t max_decoded_bytes; /* texture pixels and decompressed lumps one file may decode to in all,
                                 * default 1 GiB (and never above max_alloc_bytes for one lump; Quake
                                 * textures, stored in the file, at most 8 x its size + 64 MiB) */
    uint64_t max_scene_vertices; /* vertices of one scene, default max_alloc_bytes / 64 */
    uint64_t max_work;          /* steps of one walk over shared data (PVS rows, edge loops), default 64 Mi */
    /* entities written to a map (bk_edit_set_entities), past any engine's own limits (which only warn) */
    uint32_t max_entity_string; /* bytes of one key or value, default 64 KiB */
    uint32_t max_entity_pairs;  /* key/value pairs of one entity, default 8192 */
    uint32_t max_entities;      /* entities of one map, default 65536 */
} bk_limits;

/* Option flags: those every family reads. A family's own flags are in its header (q3.h:
 * BK_OPT_SKIP_FLARES; source.h: BK_OPT_NO_PROPS, BK_OPT_HDR, BK_OPT_NO_SKY3D; dpm.h:
 * BK_OPT_NO_ANIMATIONS), the speed and memory knobs in the fenced advanced.h; the bits never
 * overlap. */
enum {
    BK_OPT_NO_LIGHTMAPS = 1u << 0, /* do not build lightmap atlases / lightmap UVs */
    BK_OPT_NO_TEXTURES = 1u << 1,  /* do not resolve or embed texture pixels */
    BK_OPT_NO_ENTITIES = 1u << 4,  /* do not keep entity key/values in node extras */
    BK_OPT_COLLISION = 1u << 7,     /* scenes of maps: add the collision geometry as separate nodes under a
                                     * node named "collision" (convex pieces named by contents, with an
                                     * invisible material) */
    BK_OPT_ALLOW_NO_WORLDSPAWN = 1u << 12, /* bk_edit_set_entities and the entity lump through
                                     * bk_edit_set_lump_json: take entities without a worldspawn first
                                     * (refused otherwise, BK_EFORMAT: no engine loads such a map) */
};

/* The head of a family's own options (q3.h: bk_q3_options; dpm.h: bk_dpm_options), chained from
 * bk_options.ext as Vulkan chains its pNext structures: each names its type, a family reads the
 * one of its type and passes over the others, a type twice: the first. At most 64 are followed. */
typedef struct bk_options_ext {
    uint32_t type;                      /* BK_OPTIONS_Q3, BK_OPTIONS_DPM */
    const struct bk_options_ext *next;  /* the next one, or NULL */
} bk_options_ext;

typedef struct bk_options {
    bk_limits limits;
    const char *name;               /* file name used in diagnostics */
    bk_diag_fn diag;                /* receives every diagnostic (may be NULL) */
    void *diag_user;
    uint32_t flags;                 /* BK_OPT_* */
    /* Where external resources are looked up: folders, .wad files, .pk3/.zip archives, in order. */
    const char *const *search_paths;
    uint32_t search_path_count;
    const char *base_dir;           /* the input file's own folder (lm_*.tga, .framegroups, wads) */
    float overbright;               /* lightmap brightness shift in bits (x 2^N, clamped): 0 = the family's
                                     * default (Quake 3: by game; Quake 1 / BSP2: the engines' range, the
                                     * atlas as they keep it and lit materials' extras lightmapScale 2;
                                     * GoldSrc: as stored), < 0 = none;
                                     * capped at 8 for Quake 3, 4 for Quake 1 / GoldSrc */
    const bk_options_ext *ext;      /* a family's own options, a chain (NULL: every default) */
    /* Reads whole files for the library (the input of bk_file_open, WADs, VPK directories,
     * framegroups, files found in search-path folders); NULL = stdio. It must bk_malloc *data (the
     * library frees it) and return BK_ENOTFOUND for a missing file, BK_ELIMIT past max_bytes.
     * Folders are still listed and .pk3/.zip archives opened by the library itself. */
    bk_result (*read_file)(void *user, const char *path, uint64_t max_bytes, uint8_t **data, size_t *size);
    void *read_file_user;
    /* A budget of decompressed bytes shared by every file the program works on at once (the
     * threads of a batch), or NULL: each file has only its own limits. It must outlive the files. */
    struct bk_budget *budget;
} bk_options;

/* A budget of decompressed bytes for a whole program (bk_options.budget): a Source map's
 * decoded LZMA lumps hold their bytes from it while the map keeps them, a zip member (a .pk3's,
 * a pakfile's) while it is inflated. What would take more than is left is refused (BK_ELIMIT),
 * so N files at once hold no more decompressed data than the budget, whatever N. Thread-safe. */
typedef struct bk_budget bk_budget;
/* bytes: 0 = the default of limits.max_decoded_bytes (1 GiB); NULL when out of memory */
bk_budget *bk_budget_new(uint64_t bytes);
/* bytes not held at the moment */
uint64_t bk_budget_left(const bk_budget *b);
void bk_budget_free(bk_budget *b);

typedef enum bk_format {
    BK_FORMAT_UNKNOWN = 0,
    BK_FORMAT_QUAKE1,   /* BSP29 */
    BK_FORMAT_BSP2,     /* BSP2 / 2PSB (extended Quake 1) */
    BK_FORMAT_GOLDSRC,  /* BSP30 (incl. Blue Shift's swapped lumps) */
    BK_FORMAT_WAD3,     /* Half-Life texture archive */
    BK_FORMAT_QUAKE3,   /* IBSP v46 / v47 */
    BK_FORMAT_SOURCE,   /* VBSP v17-v21 */
    BK_FORMAT_DPM,      /* DarkPlaces skeletal model */
    BK_FORMAT_VTF,      /* Valve Texture Format 7.0-7.5 */
    BK_FORMAT_MDL,      /* Source studio model v44-v49 (with its .vvd and .vtx) */
    BK_FORMAT_COUNT_
} bk_format;

/* "quake1", "bsp2", "goldsrc", "wad3", "quake3", "source", "dpm", "vtf", "mdl" */
const char *bk_format_name(bk_format f);
/* The format of a bk_format_name() ("quake3"), or BK_FORMAT_UNKNOWN. */
bk_format bk_format_parse(const char *name);

/* What the game that reads a map does with it, from the family's version rows (each value says
 * in its row which engine source it comes from). Bindings read these instead of keeping lists. */
typedef struct bk_game {
    float eye_height;                  /* the player's eye above a spawn entity's origin, engine units */
    const char *const *spawn_classes;  /* the classnames a player spawns at, the usual start first */
    uint32_t spawn_class_count;
    float hull_min[3], hull_max[3];    /* the standing player's box around its origin */
} bk_game;
/* The facts of the file's own version row; NULL where the format has none (textures, models). */
struct bk_file;
const bk_game *bk_file_game(const struct bk_file *f);
/* The same by format (its first version row with facts), for a scene or a glTF that names its
 * format ("format" in the scene's extras); NULL where none. */
const bk_game *bk_format_game(bk_format f);

/* ---- loaded files ------------------------------------------------------------------- */

typedef struct bk_file bk_file;

typedef struct bk_kv {
    char *key;
    char *value;
} bk_kv;

typedef struct bk_entity {
    bk_kv *pairs;         /* in file order; duplicated keys are kept */
    uint32_t pair_count;
    uint64_t offset;      /* byte offset of the opening brace inside the entity lump */
} bk_entity;

typedef struct bk_entities {
    bk_entity *items;
    uint32_t count;
} bk_entities;

/* Last value of key in e (engines let later duplicates win), or NULL. */
const char *bk_entity_get(const bk_entity *e, const char *key);
/* For writing key/values as a JSON object, where a key appears once: last[i] is true where no
 * later pair has pair i's key (the value the engines use). Linear time (hashed), so an entity
 * with very many keys costs no more than its size. BK_ENOMEM if its table cannot be allocated. */
bk_result bk_kv_last(const bk_kv *kv, uint32_t n, bool *last);

/* A Source I/O output: a value "target,input,parameter,delay,times", the fields split by the 0x1B
 * (ESC) character where the value holds one (newer compilers), else by ',' (as the game's
 * CEventAction reads it). The strings are as written (an empty input is "Use" to the game; times
 * 0 or -1: fire always). Vampire: The Masquerade - Bloodlines (VBSP v17) writes two more fields,
 * ','-separated: "target,input,parameter,delay,times,script,extra", script a Python statement
 * the game runs when the output fires ("IsIdling()", "G.Story_State = -5"). */
typedef struct bk_output {
    char *target, *input, *parameter;   /* NUL-terminated; one block, freed by bk_output_free */
    double delay;                       /* seconds */
    int32_t times;                      /* times to fire */
    bool bloodlines;                    /* the seven-field form: script and extra below */
    char *script, *extra;               /* its sixth and seventh fields ("" in the five-field form;
                                           the seventh is empty in every map seen) */
} bk_output;
/* Whether value is an output (exactly five fields, or seven split by ','; the delay a number and
 * times an integer, or empty: 0 and -1 as the game reads them): BK_OK and *out filled,
 * BK_ENOTFOUND (not an output: *out zeroed), BK_ENOMEM. */
bk_result bk_output_parse(const char *value, bk_output *out);
void bk_output_free(bk_output *o);

typedef struct bk_lump_info {
    char name[32];
    uint64_t offset;
    uint64_t length;          /* bytes in the file */
    uint64_t uncompressed;    /* bytes after decompression (== length when stored) */
    int64_t count;            /* elements, or -1 when not an array lump */
    int32_t version;          /* lump version where the format has one, else 0 */
    bool compressed;          /* LZMA-compressed */
} bk_lump_info;

typedef struct bk_count {
    const char *name;         /* static string: "entities", "faces", ... */
    uint64_t value;
} bk_count;

#define BK_MAX_COUNTS 48

typedef struct bk_info {
    bk_format format;
    int32_t version;
    char variant[32];         /* "bshift", "l4d2", "bsp2", "2psb", ... or "" */
    uint32_t lump_count;
    bk_lump_info *lumps;
    uint32_t count_count;
    bk_count counts[BK_MAX_COUNTS];
    bool has_bounds;          /* the format stores overall bounds (mins/maxs below) */
    float mins[3], maxs[3];
} bk_info;

/* Read a whole file (bounded by limits.max_file_bytes) and load it. The bk_file owns the bytes. */
bk_result bk_file_open(const char *path, const bk_options *opt, bk_file **out);
/* Load from memory; data is borrowed and must outlive the returned file. Stops at the first error. */
bk_result bk_file_load_memory(const void *data, size_t size, const bk_options *opt, bk_file **out);
void bk_file_free(bk_file *f);

/* Check everything and report every problem through opt->diag; never stops early.
 * Returns BK_OK when no error was found, otherwise the code of the first error. */
bk_result bk_validate_memory(const void *data, size_t size, const bk_options *opt,
                             uint32_t *out_errors, uint32_t *out_warnings);

/* The same for a file: large files are mapped, not copied (as bk_file_open). A file that cannot
 * be read is one error, reported as "cannot read file". out_format: the format its magic names. */
bk_result bk_validate_file(const char *path, const bk_options *opt, bk_format *out_format, uint32_t *out_errors,
                           uint32_t *out_warnings);

/* Identify the format of data by its magic (never by file name). */
bk_format bk_detect(const void *data, size_t size);

bk_format bk_file_format(const bk_file *f);
const bk_info *bk_file_info(const bk_file *f);
const bk_entities *bk_file_entities(const bk_file *f);   /* never NULL; may be empty */
const uint8_t *bk_file_data(const bk_file *f, size_t *size);
/* The decoded, format-specific data of a file comes from its family's accessor: bk_quake_bsp_of,
 * bk_wad3_of (bspkit/quake.h), bk_q3_map_of (q3.h), bk_source_map_of, bk_mdl_of (source.h),
 * bk_dpm_model_of (dpm.h); each gives NULL for a file of another format. bk_file_array (below,
 * "decoded arrays, generically") lists and describes every array they hold, for every family alike. */

/* Write f back in its own format (e.g. a DPM re-saved by the optimising saver), to a temporary
 * file renamed over path. BK_EUNSUPPORTED where the format has no writer. */
bk_result bk_file_write(const bk_file *f, const bk_options *opt, const char *path);

/* ---- lumps as data (`bspkit lump`) --------------------------------------------------------- */
/* The lumps of a map as its family describes them (GoldSrc / Quake 1 / BSP2, Quake 3, Source). */
typedef struct bk_lump_shape {
    const char *name;         /* the family's name for it, snake_case ("planes", "lighting_hdr") */
    uint32_t slot;            /* its header directory slot: bk_edit_set_lump's index */
    uint32_t entry_size;      /* bytes per element as the file stores them; 0 when opaque */
    uint32_t field_count;     /* fields per element; 0: an opaque lump (its JSON holds base64 bytes) */
    uint64_t size;            /* its bytes (decompressed where the map stores it compressed) */
    bool compressed;          /* stored compressed (Source LZMA); an import writes it back compressed */
} bk_lump_shape;
/* Lump i (0 .. in the family's order) of a loaded map: BK_EINDEX past the last, BK_EUNSUPPORTED
 * for a file without a lump directory (WAD3, DPM, VTF, MDL). */
bk_result bk_lump_shape_at(const bk_file *f, uint32_t i, bk_lump_shape *out);
/* The bytes of the file's lump directory entry `slot` (bk_file_info's lumps[slot]), decoded where
 * the map stores it compressed (Source LZMA: decoded on first use, kept until the file is freed),
 * owned by the file; *data NULL when empty. BK_EINDEX past the last entry. Thread-safe. */
bk_result bk_lump_bytes(const bk_file *f, uint32_t slot, const uint8_t **data, size_t *size);
/* Lump `name` as JSON (*out NUL-terminated, bk_free it; out_len may be NULL):
 *  - a lump with fields: an array, one object per element, the format header's field names
 *    (snake_case) in order; integers as numbers, floats as the shortest decimal that reads back
 *    to the same float (a NaN or infinity as the string "0x" + its 8 hex bit digits), fixed
 *    text as a string (or {"hex": "..."} when it is not UTF-8 or holds bytes after its NUL),
 *    padding and opaque byte fields as a hex string, arrays as arrays;
 *  - any other lump: {"lump": NAME, "size": N, "encoding": "base64", "data": "..."}.
 * BK_ENOTFOUND for a name the family does not have. docs/lumps.md. */
bk_result bk_lump_to_json(const bk_file *f, const char *name, char **out, size_t *out_len);

/* ---- decoded arrays, generically ------------------------------------------------------------ */
/* Every typed array a loaded file's family accessor holds (bk_quake_bsp_of's planes, bk_q3_map_of's
 * drawverts, bk_source_map_of's static_props, bk_dpm_model_of's bones, ...), described from the
 * family's rows, so that a binding lists and views them all with no family logic of its own. */
typedef enum bk_array_type {
    BK_ARRAY_U8 = 0, BK_ARRAY_I8, BK_ARRAY_U16, BK_ARRAY_I16, BK_ARRAY_U32, BK_ARRAY_I32, BK_ARRAY_F32,
    BK_ARRAY_CHARS,   /* text, NUL-terminated inside its bytes */
    BK_ARRAY_BYTES,   /* opaque bytes */
    BK_ARRAY_U64,
} bk_array_type;
#define BK_ARRAY_MAX_FIELDS 40
typedef struct bk_array_field {
    const char *name;         /* the format header's name where the file stores it ("planenum", as
                               * `bspkit lump` names it), else the public struct's member name */
    bk_array_type type;
    uint32_t offset;          /* byte offset inside an element */
    uint32_t count;           /* values: 1 a scalar, 3 a vector; CHARS / BYTES: bytes */
    uint32_t shape[3];        /* count as up to three dimensions, unused ones 1 (texinfo vecs 2 x 4,
                               * a Quake 3 lightmap page 128 x 128 x 3) */
} bk_array_field;
typedef struct bk_array_info {
    const char *name;         /* the public struct's member name ("planes", "static_props") */
    const void *data;         /* count elements of elem_size bytes, owned by the file; NULL when empty */
    uint64_t count;
    uint32_t elem_size;
    int32_t lump;             /* the lump it is decoded from (bk_lump_shape_at / bk_file_info index), -1 none */
    uint32_t field_count;     /* fields in offset order, inside the element, names unique; bytes
                               * between them are padding */
    bk_array_field fields[BK_ARRAY_MAX_FIELDS];
} bk_array_info;
/* How many arrays f's family has (the same for every file of the family: an empty one has count 0);
 * 0 for a format without (WAD3, VTF, MDL). */
uint32_t bk_file_array_count(const bk_file *f);
/* The index of the array named name, or -1 (without finishing a deferred load). */
int32_t bk_file_array_index(const bk_file *f, const char *name);
/* Array index (0 .. bk_file_array_count - 1) of f. A deferred Source load (advanced.h) is finished
 * first (its error returned), but for the arrays there since the open (a Source map's game lumps,
 * props and pakfile). BK_EINDEX past the last. Thread-safe, as the family accessors. */
bk_result bk_file_array(const bk_file *f, uint32_t index, bk_array_info *out);

/* ---- writing files safely ------------------------------------------------------------------ */
/* Every file bspkit writes (maps, .glb, .gltf + .bin, .obj + .mtl + PNGs, DPMs, PNGs) goes through
 * one step: each file is written to a temporary in its target's folder (created exclusively, under
 * an unpredictable name), flushed to disk (fsync), given the old file's mode (and owner where
 * permitted; a new file: 0666 less the umask), and renamed over the target when every file of the
 * output is complete. A target that is a symbolic link is written through (the link stays a link).
 * On any failure every temporary is removed and every target is left as it was. A file with other
 * hard links gets a new inode under the name written; its other names keep the old contents.
 *
 * A group writes several files as one output, e.g. a folder of textures: */
typedef struct bk_write_group bk_write_group;
enum {
    /* a target that is a symbolic link is replaced by the new file, not written through (extracting
     * an archive into a folder: nothing lands outside it) */
    BK_WRITE_REPLACE_LINKS = 1u << 0
};
bk_result bk_write_group_begin(bk_write_group **out, uint32_t flags);
/* size bytes to a temporary for path now (renamed at commit); after a failure the group only
 * returns it again */
bk_result bk_write_group_file(bk_write_group *g, const char *path, const void *data, size_t size);
/* rename every file over its target, or (after any failure) remove them all: the group's first
 * failure. Frees g. */
bk_result bk_write_group_commit(bk_write_group *g);
/* remove every temporary; no target is touched. Frees g (NULL: nothing). */
void bk_write_group_abort(bk_write_group *g);
/* After a write returned BK_EIO (or BK_ELIMIT for too many files at once): which file and what the
 * system said, for the calling thread, as a located diagnostic (file = the path as given, message
 * e.g. "cannot create: Permission denied", "cannot write: No space left on device"). 0 when
 * the thread's last write did not fail that way. The strings live until the thread's next write. */
int bk_write_error(bk_diag *out);
/* Remove the temporaries of every write in progress in the process (they will not be renamed).
 * Async-signal-safe: call it from a SIGINT / SIGTERM handler before the process ends. */
void bk_write_cleanup(void);

/* Archives (.pk3 / .zip, a Source map's pakfile, VPK) are read through bspkit/archive.h. */

/* ---- text encoding ------------------------------------------------------------------ */
/* Map text is 8-bit (Windows code pages). true if s is valid UTF-8. */
bool bk_utf8_valid(const char *s);
/* A UTF-8 copy of s (bk_free it): s itself when valid, else every byte >= 0x80 read as Latin-1. */
char *bk_utf8_from_8bit(const char *s);

/* ---- entity text (shared by every BSP family) ------------------------------------------ */
/* The engines' text form { "key" "value" ... } { ... }. A leading UTF-8 byte-order mark is skipped.
 * On a syntax error *err_offset (may be NULL) is its byte offset in text. */
bk_result bk_entities_parse(const char *text, size_t len, bk_entities *out, uint64_t *err_offset);
void bk_entities_free(bk_entities *e);

/* The JSON form of entities (what `bspkit entities --json` prints and `--import` reads):
 *     [ [["classname", "worldspawn"], ["wad", "..."]], [["classname", "light"], ...], ... ]
 * an array of entities, each an array of [key, value] string pairs in file order, every pair kept
 * (a repeated key, as Source stores I/O outputs, appears as often as in the map).
 * bk_entities_to_json: *out is NUL-terminated UTF-8 (text that is not UTF-8 is read as Latin-1, as
 * bk_utf8_from_8bit does), freed with bk_free; out_len (may be NULL) its length. */
bk_result bk_entities_to_json(const bk_entities *e, char **out, size_t *out_len);
/* Read that form, or the older one: an array of objects whose values are strings (a value that is an
 * array of strings is the key repeated, in that order). A leading UTF-8 byte-order mark is skipped.
 * Strings are kept byte for byte; BK_EFORMAT for what an entity lump cannot hold or what is not one
 * of these shapes: a string holding U+0000, a value that is not a string (a number, true, false,
 * null: write it as a string, "0.1"), malformed JSON. err (may be NULL) then receives the error,
 * located: lump "entities", index = the entity (or BK_NO_INDEX), offset = byte offset in text, the
 * message naming the key and the line:column; err->file is NULL (set it before printing).
 * out is empty (bk_entities_free-able) on error. */
bk_result bk_entities_from_json(const char *text, size_t len, bk_entities *out, bk_diag *err);

#ifdef __cplusplus
}
#endif
#endif
