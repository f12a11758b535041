/* bspkit command-line tool: a thin layer over the public API.
 * Exit codes: 0 success, 1 bad input (or validation errors), 2 usage. */
#ifndef BK_CLI_H
#define BK_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "bspkit/archive.h"
#include "bspkit/bspkit.h"
#include "bspkit/dpm.h"
#include "bspkit/q3.h"
#include "bspkit/scene.h"

#define EXIT_OK 0
#define EXIT_BAD_INPUT 1
#define EXIT_USAGE 2

typedef struct cli_cmd {
    const char *name;
    const char *summary;
    const char *usage;          /* full --help text */
    int (*run)(int argc, char **argv);
} cli_cmd;

int bk_cli_main(int argc, char **argv);
/* libbspkit's memory from the CLI's allocator (cli/alloc.c); before any other bspkit call */
void bk_cli_install_allocator(void);
/* Bring every page of the program's file mappings (its code and data, and its libraries') into
 * the resident set now: a memory benchmark's start-up baseline then holds them all. */
void bk_cli_resident_code(void);
/* Give back to the system the whole free pages of malloc's heap (after freeing much at once) */
void bk_cli_trim(void);

/* Options shared by the commands that load and convert. */
typedef struct cli_opts {
    const char *output;
    bool json;
    bool quiet;
    bool verbose;               /* -v: every located diagnostic, every missing name */
    int jobs;                   /* -j N: files converted at once (batch); 0 = the machine's cores */
    const char *format;         /* --format glb|gltf|obj|bsp (batch output type) */
    bool assets;                /* validate --assets: report what the map references and cannot be found */
    bool missing_only;          /* assets --missing */
    bool dry_run;               /* --dry-run: the map writers check and validate, and write nothing */
    bool follow_links;          /* pak pack --follow-links: pack files linked from outside the game folder */
    bool force;                 /* --force: write an edited map under a name not ending in .bsp */
    bool keep_all_bones;        /* --keep-all-bones: the DPM writer's BK_DPM_KEEP_ALL_BONES */
    const char *paths[64];      /* --wad / --game-dir / archives, in order */
    int path_count;
    bk_options opt;                 /* opt.ext: q3 then dpm below (copies of cli_opts share them) */
    bk_q3_options q3;               /* --patch-level */
    bk_dpm_options dpm;             /* --framegroups */
    bk_export_options xopt;
    char base_dir[1024];
    char archive[1024];         /* ARCHIVE of an ARCHIVE.pk3:member input */
    const char *positional[256];
    int positional_count;
    const struct render_args *render; /* batch: render a thumbnail per file (cmd_render.c), not convert */
    bool decompile;             /* batch: decompile each map (cmd_decompile.c), not convert */
} cli_opts;

/* Parse argv against the shared option set. Returns -1 and prints a usage error for unknown
 * options; sets *help when --help / -h was given. */
int cli_parse(int argc, char **argv, cli_opts *o, bool *help);
/* ARCHIVE.pk3:member (or .zip:, .pak:): where the member's name starts, less one (the ':'); NULL
 * for a plain path */
const char *cli_archive_sep(const char *path);
/* Read the member of an ARCHIVE.pk3:member spec (sep from cli_archive_sep) into *out (bk_free
 * it); the archive joins o's search paths, as it serves the member's textures and shaders.
 * Prints why on failure. */
int cli_read_member(const char *spec, const char *sep, cli_opts *o, uint8_t **out, size_t *size);
/* Load FILE (or ARCHIVE.pk3:member) with o->opt, printing a located error on failure. */
int cli_load(const char *path, cli_opts *o, bk_file **out, void **owned_bytes);
void cli_diag_print(void *user, const bk_diag *d);
/* Print a cJSON value (cJSON *) indented, with a newline, to stdout. A non-finite number in it
 * is printed as cli_json_f32 writes it (not as cJSON's null). */
struct cJSON;
void cli_print_json(struct cJSON *j);
/* A number of the JSON the CLI writes (docs/lumps.md, "Numbers"): a finite value as a number, a
 * NaN or an infinity as the string "0x" + the 8 hex digits of its bits as a 32-bit float (the form
 * `lump --json` writes and `lump --import` reads back to the same bits). */
struct cJSON *cli_json_f32(float v);
/* obj[key] = cli_json_f32(v) */
void cli_json_add_f32(struct cJSON *obj, const char *key, float v);
/* the same as text into buf (at least 16 bytes): "%.9g", or the quoted bits */
const char *cli_json_f32_text(char *buf, size_t size, float v);
int cli_read_floats(int argc, char **argv, int *i, float *out, int n, const char *name, double max);
int cli_usage_error(const cli_cmd *cmd, const char *fmt, const char *arg);
/* the usage error for --dry-run given to a command (or form, `what`) that would write anyway */
int cli_dry_run_refused(const cli_cmd *cmd, const char *what);
/* The start every command shares: parse the options, answer --help, check that between
 * min_files and max_files (-1: no upper bound) positional arguments were given. Returns
 * CLI_CONTINUE to go on, else the exit code to return. */
#define CLI_CONTINUE (-1)
int cli_begin(const cli_cmd *me, int argc, char **argv, int min_files, int max_files, cli_opts *o);
/* An option only one command reads: NAME with a value (*value; "NAME needs NEEDS" when it has
 * none) or a switch (*flag). */
typedef struct cli_own {
    const char *name;
    const char **value;
    bool *flag;
    const char *needs;
} cli_own;
#define CLI_MAX_ARGS 500
/* argv without the command's own options (taken into their fields), into rest (CLI_MAX_ARGS
 * + 1 entries) and *nrest, for cli_begin. CLI_CONTINUE, or a usage error's exit code. */
int cli_take_own(const cli_cmd *me, int argc, char **argv, const cli_own *own, size_t n, char **rest, int *nrest);
const cli_cmd *cli_find(const char *name);
/* When a write to out failed for a system reason (r BK_EIO / BK_ELIMIT and bk_write_error says
 * which file and why): "PATH: error: cannot write: No space left on device; OUT not written" into
 * buf, and 1; else 0. */
int cli_write_failed(const char *out, bk_result r, char *buf, size_t cap);
/* dir's length without its trailing '/'s (a lone "/" kept) */
size_t cli_dir_len(const char *dir);
/* DIR/NAME into out, one '/' between them however dir ends (no "out//x.png"); the length
 * snprintf reports (>= cap: truncated) */
size_t cli_join(char *out, size_t cap, const char *dir, const char *name);
/* mkdir -p: 0 when dir exists as a folder afterwards */
int cli_mkdir_p(const char *dir);
/* cmd_q2image.c: textures FILE.wal | FILE.pcx | FOLDER (Quake 2 images, by their names) */
bool cli_q2_image_input(const char *path);
int cli_q2_textures(cli_opts *o);

int cmd_info(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_entities(int argc, char **argv);
int cmd_textures(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_props(int argc, char **argv);
int cmd_pak(int argc, char **argv);
int cmd_assets(int argc, char **argv);
/* pak MAP pack: the files the map needs that lie loose in the --game-dir folders, into its pakfile */
int cli_pak_pack(cli_opts *o, bk_file *f);
int cmd_query(int argc, char **argv);
/* cmd_nav.c: navigation meshes and paths */
int cmd_navmesh(int argc, char **argv);
int cmd_path(int argc, char **argv);
/* writing maps back (cmd_write.c) */
int cli_rewrite(cli_opts *o, bk_file *f);
int cli_entities_import(cli_opts *o, bk_file *f, const char *ents_path, bool allow_no_worldspawn);
int cli_pak_edit(cli_opts *o, bk_file *f, bool add);
int cli_lump_import(cli_opts *o, bk_file *f, const char *name, const char *json_path, bool allow_no_worldspawn);
/* A whole file (or '-': standard input) as NUL-terminated text (free it), at most limit bytes;
 * NULL after a message naming `what` when it cannot be read or is longer. */
char *cli_read_text(const char *path, size_t limit, const char *what, size_t *len);
int cmd_lump(int argc, char **argv);
/* What a converted scene lacks, as lines (no newline): the materials without a texture (all of
 * them with -v, else the first 8), where bspkit looked, the WADs a GoldSrc map names, what to
 * give. Nothing when nothing is missing or textures were not wanted. */
typedef void (*cli_line_fn)(void *user, const char *line);
void cli_missing_lines(const cli_opts *o, bk_format fmt, const char *wad, const bk_scene *s, cli_line_fn emit,
                       void *user);
/* convert many files into a folder (cmd_batch.c) */
int cli_batch(cli_opts *o);
/* decompile f (read from name) and write it through a write group: add_ext, as out + ".vmf" /
 * ".map" (its family's); else as out, in the format want (bk_decompile_format) its extension asks
 * for. out_path (may be NULL) gets the path written, why (cap bytes) the failure's line. */
struct bk_decompile_stats;
bk_result cli_decompile_write(const char *name, bk_file *f, const bk_options *opt, int want, const char *out, bool add_ext,
                              char *out_path, size_t out_cap, struct bk_decompile_stats *st, size_t *bytes, char *why,
                              size_t cap);
int cmd_trace(int argc, char **argv);
int cmd_render(int argc, char **argv);
int cmd_decompile(int argc, char **argv);
/* query / trace --batch input (cli/query_input.c). One line of any length up to limit bytes into
 * *buf (grown with realloc, NUL-terminated, the newline dropped; *len its length): 1 a line,
 * 0 end of input, -1 a line longer than limit (read to its end and dropped), -2 a read error or
 * no memory. */
#define CLI_BATCH_LINE_MAX ((size_t)1 << 20)
int cli_read_line(FILE *in, size_t limit, char **buf, size_t *cap, size_t *len);
/* The numbers on a line (separated by blanks or commas; '#' starts a comment): how many were read
 * (up to max), -1 for a token that is not a finite number or more than max numbers. */
int cli_parse_numbers(const char *line, float *v, int max);

#endif
