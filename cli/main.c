/* bspkit CLI: command table, shared option parsing, loading with located errors. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <sys/stat.h>

#include "bspkit/dpm.h"
#include "bspkit/q3.h"
#include "bspkit/source.h"
#include "cli.h"

static const cli_cmd k_cmds[] = {
    {"info", "format, version, lump table and counts",
     "usage: bspkit info FILE [--json]\n"
     "  Print the format, version, lump table and element counts of a map, WAD3, DPM, VTF or\n"
     "  Source model (MODEL.mdl, with its .vvd and .vtx read from beside it).\n"
     "  --json   machine-readable output: {\"format\", \"version\", \"lumps\", \"counts\", ...}\n",
     cmd_info},
    {"validate", "check every lump and reference, report every problem",
     "usage: bspkit validate FILE... [--json] [--quiet] [--assets [--wad F] [--game-dir D]...]\n"
     "  Check every lump range, entry size and reference; print each problem as\n"
     "  FILE: LUMP[INDEX] @OFFSET: SEVERITY: MESSAGE and a summary per file.\n"
     "  Exit 1 if any file has an error.\n"
     "  --json   one JSON object per file with its diagnostics\n"
     "  --quiet  only the summary lines\n"
     "  --assets also every material, texture and model the map references that cannot be found\n"
     "           where the engine looks (Source: the pakfile, then each --game-dir's VPKs and\n"
     "           folders; GoldSrc: --wad / --game-dir WADs; Quake 3: --game-dir folders and .pk3s),\n"
     "           with where it looked; exit 1 if any is missing\n",
     cmd_validate},
    {"entities", "the entity lump as text or JSON; --import writes it back",
     "usage: bspkit entities FILE [--json] [--outputs]\n"
     "       bspkit entities MAP --import ENTS -o OUT.bsp [--allow-no-worldspawn]\n"
     "  Print the entities (ripent-style text, every key in file order), or with --json an\n"
     "  array of entities, each an array of [\"key\", \"value\"] pairs: every pair in file order,\n"
     "  a repeated key (Source I/O outputs) as often as the map has it.\n"
     "  --outputs  only the Source I/O outputs (values 'target,input,parameter,delay,times', ','\n"
     "             or 0x1B between the fields), split: with --json an array of {\"entity\", \"pair\",\n"
     "             \"output\", \"target\", \"input\", \"parameter\", \"delay\", \"times\"}, else one\n"
     "             tab-separated line each (the pairs stay in the plain --json too)\n"
     "  --import ENTS  replace the map's entities with ENTS (the text or the JSON this command\n"
     "                 prints, or an array of objects of string values; '-' reads standard\n"
     "                 input) and write OUT.bsp: every other lump keeps its bytes, the text keeps\n"
     "                 the map's encoding, the result is validated before it replaces OUT.bsp.\n"
     "                 Values are strings (\"0.1\", not 0.1); past an engine's limits (key and\n"
     "                 value length, keys per entity, entities) a warning, past bspkit's an error\n"
     "  --allow-no-worldspawn  write an import that has no entities, or whose first is not\n"
     "                 worldspawn (refused otherwise: no engine loads such a map)\n"
     "  --force        write the map even when OUT does not end in .bsp\n"
     "  --dry-run      check and validate the edited map, write nothing (-o optional)\n",
     cmd_entities},
    {"lump", "any lump as JSON, one object per element; --import writes it back",
     "usage: bspkit lump FILE [--json]\n"
     "       bspkit lump FILE NAME [--json]\n"
     "       bspkit lump MAP NAME --import LUMP.json -o OUT.bsp [--allow-no-worldspawn]\n"
     "  Without NAME: the map's lumps (name, slot, elements, bytes, fields). With NAME: the lump as\n"
     "  JSON: an array with one object per element in the format header's field names, or, for a\n"
     "  lump without fields (lighting, visibility, pakfile, ...), {\"lump\", \"size\",\n"
     "  \"encoding\": \"base64\", \"data\"}. GoldSrc, Quake 1, BSP2, Quake 3 and Source maps.\n"
     "  --import LUMP.json  replace lump NAME with that JSON (the shape printed; '-' reads standard\n"
     "                 input) and write OUT.bsp: every field checked (type, range, nothing missing\n"
     "                 or unknown), every other lump keeps its bytes, the result validated before\n"
     "                 it replaces OUT.bsp. Unchanged JSON writes a byte-identical map; a changed\n"
     "                 Source LZMA lump is written back uncompressed. docs/lumps.md\n"
     "                 The entities lump passes what entities --import checks (limits, worldspawn)\n"
     "  --allow-no-worldspawn  (entities) write text with no worldspawn first (refused otherwise)\n"
     "  --force        write the map even when OUT does not end in .bsp\n"
     "  --dry-run      check and validate the edited map, write nothing (-o optional)\n",
     cmd_lump},
    {"textures", "embedded textures (or a whole WAD3) as PNG",
     "usage: bspkit textures FILE -o DIR\n"
     "  Write the textures embedded in a map, or every entry of a WAD3, as DIR/NAME.png.\n"
     "  Quake 2 images: FILE.wal, FILE.pcx or a FOLDER of them (by name: a .wal has no magic) as\n"
     "  DIR/NAME.png; .wal colours from pics/colormap.pcx found through --game-dir (folders with\n"
     "  their pakN.pak), else bspkit's stand-in palette, with a warning. docs/quake2.md\n",
     cmd_textures},
    {"convert", "the main job: a glTF 2.0 scene (.glb/.gltf), OBJ, or a re-saved DPM",
     "usage: bspkit convert FILE -o OUT.{glb,gltf,obj,bsp,dpm} [options]\n"
     "       bspkit convert FILE|DIR|ARCHIVE.pk3... -o DIR/ [--format glb|gltf|obj|bsp] [-j N] [--json]\n"
     "  Many inputs (or a folder, or a .pk3 of maps, or -o ending in '/') convert each file to\n"
     "  DIR/NAME.glb (or --format), N at a time (-j, default: the machine's cores), with a progress\n"
     "  bar on a terminal; a bad file is reported and the rest go on; exit 1 if any failed.\n"
     "  --json prints one summary object per file.\n"
     "  OUT.bsp writes a map back in its own format (byte-identical when nothing changed);\n"
     "  with --dry-run it is built and validated, not written (other outputs refuse --dry-run).\n"
     "  FILE may be ARCHIVE.pk3:maps/NAME.bsp to read a map inside a Quake 3 archive.\n"
     "  A Source model (MODEL.mdl) needs MODEL.vvd and MODEL.dx90.vtx (or .vtx) beside it; its\n"
     "  materials are looked up in each --game-dir, then in the game folder the model lies in.\n"
     "  Source maps' static props get their models' meshes when the models are found (the\n"
     "  pakfile, then each --game-dir's VPKs and folders).\n"
     "  --wad FILE         a WAD3 to take external textures from (repeatable)\n"
     "  --game-dir DIR     a game folder or .pk3 searched for wads, textures, shaders (repeatable)\n"
     "  --scale F          metres per engine unit (default 0.0254: 1 unit = 1 inch)\n"
     "  --keep-z-up        keep engine axes (default converts Z-up to glTF's Y-up)\n"
     "  -v, --verbose      every located warning, and every missing texture by name\n"
     "  -q, --quiet        nothing but errors\n"
     "  --png-level N      PNG deflate effort, 1 fastest .. 12 smallest (default: ISA-L's\n"
     "                     fast deflate for large images, 3 in a build without ISA-L)\n"
     "  --no-lightmaps     no lightmap atlas or lightmap UVs\n"
     "  --no-textures      no texture pixels (materials keep their names)\n"
     "  --no-entities      no entity key/values in node extras\n"
     "  --patch-level N    Quake 3 bezier subdivision per piece edge (default 4)\n"
     "  --skip-flares      Quake 3: drop flare surfaces\n"
     "  --overbright N     lightmap brightness shift in bits (0..4), x 2^N clamped; 0 = as stored.\n"
     "                     Default by game: Quake 1 the engine's range (the lightmap as the engine\n"
     "                     keeps it, drawn x 2: materials' lightmapScale), GoldSrc 0; Quake 3 as its\n"
     "                     engine shows it,\n"
     "                     told by the map's and --game-dir's paths: 2 for ioquake3 games (OpenArena,\n"
     "                     Quake 3: baseoa, baseq3), 1 for DarkPlaces (Nexuiz, Xonotic) and others\n"
     "  --no-props         Source: no static-prop nodes\n"
     "  --no-3d-sky        Source: no 'skybox_3d' node (sky_camera's area drawn scaled around the map)\n"
     "  --hdr              Source: the HDR lightmaps where a map has both (default LDR; maps with\n"
     "                     HDR lighting only use it anyway), exposed as the engine's auto exposure\n"
     "  --collision        add the collision geometry: convex pieces (brushes; GoldSrc / Quake: hull-0\n"
     "                     leaves) and patch / displacement meshes under a node 'collision', named\n"
     "                     by contents, with a transparent material\n"
     "  --framegroups FILE DPM: animation ranges (default MODEL.dpm.framegroups beside it)\n"
     "  --no-animations    DPM: skeleton and bind pose only\n"
     "  --keep-all-bones   DPM writer: keep bones no vertex uses (attachment points such as\n"
     "                     'shot' that gamecode finds by name without an attachment flag)\n",
     cmd_convert},
    {"decompile", "a map back to an editable source: .vmf (Source) or .map (Quake 3, Quake 1, GoldSrc)",
     "usage: bspkit decompile MAP -o OUT.vmf|OUT.map [--format valve|quake] [--json] [-q] [-v]\n"
     "  Write the map's source as its editor reads it: a Source map as Hammer's .vmf (world and\n"
     "  entity solids, materials, texture axes, lightmap scales, outputs as connections, detail\n"
     "  brushes in a func_detail, tool materials restored where the compiler kept none), a Quake 3\n"
     "  map as the .map q3map2 and NetRadiant read (brush primitives, texture matrices fitted to\n"
     "  the drawn faces, patchDef2). Every brush of the brush lumps, each side on the lump's own\n"
     "  plane; bevel sides left out; a brush whose planes enclose nothing is reported and left\n"
     "  out. Quake 1, BSP2 and GoldSrc maps keep no brushes: they are rebuilt from the BSP tree\n"
     "  (solid, liquid and sky leaves, merged where the union stays convex; textures from the\n"
     "  drawn faces, skip / SKIP on hidden sides) into the .map of TrenchBroom, J.A.C.K. and the\n"
     "  ericw / VHLT compilers. Written all or nothing. Other families: not supported yet.\n"
     "  docs/decompile.md\n"
     "  MAP may be ARCHIVE.pk3:maps/NAME.bsp.\n"
     "  Source also: displacements (dispinfo), static props, cubemaps, overlays, lost lights.\n"
     "       bspkit decompile MAPS... -o DIR/ [-j N] [--json]\n"
     "  Many maps (a folder: its .bsp files; a .pk3: its maps) into DIR, NAME.vmf or NAME.map\n"
     "  each, N at once, a progress bar; a map that fails is reported, the others are written.\n"
     "  --json   what was written: entities, brushes, sides, bevels and brushes left out, ...\n"
     "           (many maps: one line per map)\n"
     "  --format valve|quake  Quake 1 / GoldSrc: Valve 220 texture axes (default) or the classic\n"
     "           Quake ones (offsets, rotation, scales on the closest axis plane)\n",
     cmd_decompile},
    {"render", "draw a map or model as the engine shows it, into a PNG (software renderer)",
     "usage: bspkit render FILE -o OUT.png [--eye X Y Z --yaw DEG --pitch DEG | --spawn N] [options]\n"
     "       bspkit render FILE --overview -o OUT.png [--z-range MIN MAX] [--mark-spawns]\n"
     "       bspkit render FILE... -o DIR/ [-j N] [--json] [--overview]\n"
     "  Draw with bspkit's own software renderer (no GPU, no browser) what the engine shows:\n"
     "  texture x lightmap as the glTF carries them, alpha test, blends, sky, PVS culling from\n"
     "  the eye's cluster. Without a view: the first player spawn, or a model's three-quarter view.\n"
     "  --eye X Y Z       the eye in engine units (Z up); --yaw / --pitch in degrees (yaw about Z\n"
     "                    from +X, pitch > 0 looks down, as in Quake)\n"
     "  --spawn N         from the Nth player spawn (1 = the first), at the game's eye height\n"
     "  --size WxH        picture size (default 1280x720; overview 1024x1024)\n"
     "  --fov DEG         horizontal field of view (default 90)\n"
     "  --overview        orthographic, top down, shaded by height, sky and tool faces left out,\n"
     "                    ceilings cut 128 units above the highest spawn's eye; writes OUT.txt\n"
     "                    beside OUT.png (CS-style: pos_x, pos_y, scale for a 1024-pixel width)\n"
     "  --z-range MIN MAX overview: only the heights MIN..MAX\n"
     "  --mark-spawns     overview: mark the player spawns\n"
     "  --no-pvs          draw every triangle (no PVS culling)\n"
     "  --threads N       tiles drawn at once (default: the machine's cores; 1 per file in a batch)\n"
     "  --style N=PATTERN|on|off  Quake 1 / GoldSrc light style N (repeatable): a pattern of letters\n"
     "                    a..z ('a' dark, 'm' normal, 'z' double), or a switchable light on / off;\n"
     "                    without it the map as the game starts (stock patterns, lights on unless\n"
     "                    they start off)\n"
     "  --time T          the light styles at T seconds (their 10 Hz clock; default 0)\n"
     "  --json            what was drawn: eye, cluster, triangles (all, in the PVS, drawn), times\n"
     "  -v                the same as one line on standard error\n"
     "  Many files (or -o ending in '/') draw one thumbnail each into DIR as batch convert does.\n"
     "  The conversion options apply: --game-dir, --wad, --overbright, --patch-level, --no-props...\n",
     cmd_render},
    {"props", "Source static and detail props",
     "usage: bspkit props FILE [--json]\n"
     "  List the static props (model, origin, angles, skin, solidity, fade distances) and detail props.\n"
     "  --json  also every detail prop (type, model or sprite, origin, angles, ...) and the cubemap\n"
     "          samples (origin, size, the pakfile's VTF): docs/source.md\n",
     cmd_props},
    {"assets", "Source: every file a map needs and where it is found",
     "usage: bspkit assets MAP [--game-dir DIR]... [--json] [--missing]\n"
     "  Every material, texture, model (with its .vvd, .vtx, .phy and its skins' materials), sound\n"
     "  and skybox face the map references, each once, with where the engine would find it: the\n"
     "  map's pakfile, then each --game-dir's VPKs and folders (gameinfo.txt search paths\n"
     "  followed), or 'missing'. --missing lists only what is not found (a .phy may be absent).\n"
     "  Exit status 1 when something needed is missing.\n",
     cmd_assets},
    {"pak", "Source embedded pakfile (and VPK, .pak): list, extract, add, remove",
     "usage: bspkit pak FILE list [--json]\n"
     "       bspkit pak FILE extract -o DIR\n"
     "       bspkit pak MAP add PATH_IN_PAK=FILE... -o OUT.bsp\n"
     "       bspkit pak MAP remove GLOB... -o OUT.bsp\n"
     "       bspkit pak MAP pack --game-dir DIR... (-o OUT.bsp | --dry-run)\n"
     "  List, extract or edit the zip archive embedded in a Source map (lump 40). Edits keep\n"
     "  existing entries' bytes and compression, store new entries uncompressed, write the\n"
     "  directory at the end, and validate the map before it replaces OUT.bsp. GLOB: '*' any run\n"
     "  within a folder, '**' any run, '?' one character, case-insensitive. pack adds every file\n"
     "  the map needs (see 'bspkit assets') that lies loose in a --game-dir folder rather than in\n"
     "  the pakfile or a VPK (a mod's custom content); --dry-run lists them with their sizes, reading\n"
     "  nothing. Sizes are checked before anything is read: one file at most 1 GiB\n"
     "  (limits.max_alloc_bytes), all of them with the pakfile's own bytes at most that too. A file\n"
     "  that is a symbolic link out of its game folder is refused unless --follow-links.\n"
     "  A VPK (NAME_dir.vpk) or an id PACK (.pak: Quake, Quake 2, Hexen II) is listed or extracted\n"
     "  the same way; a .pak's directory is checked whole first (names, every entry inside the file).\n"
     "  --dry-run  add / remove / pack: check and validate, write nothing (-o optional)\n"
     "  --force  write the map even when OUT does not end in .bsp\n",
     cmd_pak},
    {"query", "point location, PVS / PAS rows and line of sight (BSP maps)",
     "usage: bspkit query FILE --point X Y Z [--model N] [--visible-faces] [--json]\n"
     "       bspkit query FILE --see X1 Y1 Z1 X2 Y2 Z2 [--json]\n"
     "       bspkit query FILE --pvs CLUSTER|all | --pas CLUSTER|all [--json]\n"
     "       bspkit query FILE --batch [--model N] < points.txt\n"
     "  --point      the leaf holding the point: contents, cluster, area, leaf bounds and how\n"
     "               many leaves / clusters its PVS holds (engine units, Z up)\n"
     "  --model N    search brush model N's tree instead of the world's (0)\n"
     "  --visible-faces  also count the faces potentially visible from the point\n"
     "  --see        whether the second point's leaf is in the first one's PVS\n"
     "  --pvs/--pas  the decoded row of a cluster (GoldSrc / Quake: cluster = leaf - 1)\n"
     "  --batch      one query per line on standard input: 'X Y Z' (a point) or\n"
     "               'X1 Y1 Z1 X2 Y2 Z2' (line of sight); one JSON object per line out\n",
     cmd_query},
    {"trace", "sweep a point or a box through a map's collision (BSP maps)",
     "usage: bspkit trace FILE --from X Y Z --to X Y Z [--hull N | --mins X Y Z --maxs X Y Z]\n"
     "                    [--model N] [--mask NAMES] [--json]\n"
     "       bspkit trace FILE --batch [options] < segments.txt\n"
     "  fraction, endpos, the plane hit, its contents, startsolid and allsolid.\n"
     "  --hull N     GoldSrc / Quake clip hull: 0 point, 1 standing, 2 large, 3 crouching\n"
     "  --mins/--maxs  the swept box (Quake 3 / Source: traced against brushes; GoldSrc /\n"
     "               Quake: the hull the engine picks for that box)\n"
     "  --mask NAMES contents that stop the move, e.g. solid|playerclip (default: what\n"
     "               stops a player: solid, window, grate, playerclip, moveable, body)\n"
     "  --batch      one 'X1 Y1 Z1 X2 Y2 Z2' per line on standard input, JSON lines out\n",
     cmd_trace},
    {"navmesh", "where a player can walk: a Recast/Detour navigation mesh (OBJ, Detour tiles, JSON)",
     "usage: bspkit navmesh MAP -o OUT [--agent RADIUS,HEIGHT,STEP,SLOPE] [--json] [-q]\n"
     "  Build a tiled Recast/Detour navmesh from the map's collision model (solid, player clip,\n"
     "  windows, grates; water, triggers and the rest left out) and write, all or nothing:\n"
     "  OUT.obj (the walkable polygons, engine units, Z up), OUT.bin (the Detour tiles,\n"
     "  docs/navmesh.md) and OUT.json (polygons, areas, links, tiles, spawns on the mesh, the\n"
     "  items and weapons the first spawn reaches).\n"
     "  --agent R,H,S,SLOPE  the player: radius, height, step height, steepest floor in degrees\n"
     "               (default: the game's standing player box, step 18, 45 degrees; an empty\n"
     "               field keeps the default, e.g. --agent ,,24,)\n"
     "  Needs a bspkit built with Recast/Detour (Debian librecast-dev). docs/navmesh.md\n",
     cmd_navmesh},
    {"path", "the walking path between two points over the map's navmesh",
     "usage: bspkit path MAP --from X Y Z --to X Y Z [--agent RADIUS,HEIGHT,STEP,SLOPE] [--json]\n"
     "  Build the navmesh (as 'bspkit navmesh') and print the Detour path's corners and its\n"
     "  length. Each end is snapped to the mesh within two agent radii across and a player's\n"
     "  height up or down. Exit 1 when an end is off the mesh or the end cannot be reached.\n",
     cmd_path},
};

const cli_cmd *cli_find(const char *name)
{
    for (size_t i = 0; i < sizeof k_cmds / sizeof k_cmds[0]; i++)
        if (strcmp(k_cmds[i].name, name) == 0) return &k_cmds[i];
    return NULL;
}

static void print_main_usage(FILE *fp)
{
    fprintf(fp, "bspkit %s: Quake-family maps and models (GoldSrc, Quake 1, Quake 3, Source, DPM)\n\n"
                "usage: bspkit COMMAND [ARGS] (bspkit COMMAND --help for details)\n\ncommands:\n",
            BK_VERSION_STRING);
    for (size_t i = 0; i < sizeof k_cmds / sizeof k_cmds[0]; i++)
        fprintf(fp, "  %-10s %s\n", k_cmds[i].name, k_cmds[i].summary);
}

int cli_dry_run_refused(const cli_cmd *cmd, const char *what)
{
    return cli_usage_error(cmd,
                           "--dry-run is for the commands that write maps (entities --import, lump --import, pak "
                           "add / remove / pack, convert -o OUT.bsp); '%s' does not take it", what);
}

/* n numbers after argv[*i] (an option's values), each finite and within +-max, into out; *i moves
 * past them. -1 with the reason said. */
int cli_read_floats(int argc, char **argv, int *i, float *out, int n, const char *name, double max)
{
    if (*i + n >= argc) {
        fprintf(stderr, "bspkit: %s needs %d numbers\n", name, n);
        return -1;
    }
    for (int k = 0; k < n; k++) {
        char *end;
        double v = strtod(argv[*i + 1 + k], &end);
        if (*end || !isfinite(v) || fabs(v) > max) {
            fprintf(stderr, "bspkit: %s: '%s' is not a number%s\n", name, argv[*i + 1 + k],
                    isfinite(v) && !*end ? " in range" : "");
            return -1;
        }
        out[k] = (float)v;
    }
    *i += n;
    return 0;
}

int cli_usage_error(const cli_cmd *cmd, const char *fmt, const char *arg)
{
    fprintf(stderr, "bspkit %s: ", cmd ? cmd->name : "");
    fprintf(stderr, fmt, arg ? arg : "");
    fprintf(stderr, "\n%s", cmd ? cmd->usage : "");
    return EXIT_USAGE;
}

void cli_diag_print(void *user, const bk_diag *d)
{
    FILE *fp = user ? (FILE *)user : stderr;
    char line[512];
    bk_diag_format(d, line, sizeof line);
    fprintf(fp, "%s\n", line);
}

/* -q: nothing but errors */
static void diag_errors_only(void *user, const bk_diag *d)
{
    if (d->severity == BK_SEV_ERROR) cli_diag_print(user, d);
}

const char *cli_json_f32_text(char *buf, size_t size, float v)
{
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    if (isfinite(v)) snprintf(buf, size, "%.9g", (double)v);
    else snprintf(buf, size, "\"0x%08x\"", (unsigned)bits);
    return buf;
}

cJSON *cli_json_f32(float v)
{
    if (isfinite(v)) return cJSON_CreateNumber(v);
    char t[16];
    cli_json_f32_text(t, sizeof t, v);
    t[strlen(t) - 1] = 0;   /* without its quotes */
    return cJSON_CreateString(t + 1);
}

void cli_json_add_f32(cJSON *obj, const char *key, float v)
{
    cJSON_AddItemToObject(obj, key, cli_json_f32(v));
}

/* every non-finite number of j as cli_json_f32 writes it (the value a float: what the files hold) */
static void json_finite_numbers(cJSON *j)
{
    for (cJSON *c = j ? j->child : NULL; c; c = c->next) {
        if (cJSON_IsNumber(c) && !isfinite(c->valuedouble)) {
            cJSON *s = cli_json_f32((float)c->valuedouble);
            if (!s) continue;
            s->string = c->string;   /* its key (in an object) goes with it */
            s->type |= c->type & cJSON_StringIsConst;
            c->string = NULL;
            cJSON_ReplaceItemViaPointer(j, c, s);
            c = s;
        }
        json_finite_numbers(c);
    }
}

void cli_print_json(cJSON *j)
{
    json_finite_numbers(j);
    char *s = cJSON_Print(j);
    if (s) {
        fputs(s, stdout);
        fputc('\n', stdout);
        cJSON_free(s);
    }
}

size_t cli_dir_len(const char *dir)
{
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/') n--;
    return n;
}

size_t cli_join(char *out, size_t cap, const char *dir, const char *name)
{
    size_t n = cli_dir_len(dir);
    bool root = n == 1 && dir[0] == '/';
    int w = snprintf(out, cap, "%.*s%s%s", (int)n, dir, root ? "" : "/", name);
    return w < 0 ? cap : (size_t)w;
}

int cli_mkdir_p(const char *dir)
{
    char tmp[4096];
    size_t n = strlen(dir);
    if (n == 0 || n >= sizeof tmp) return -1;
    memcpy(tmp, dir, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (tmp[i] != '/' && tmp[i] != 0) continue;
        char c = tmp[i];
        tmp[i] = 0;
        if (mkdir(tmp, 0777) != 0 && errno != EEXIST) return -1;
        tmp[i] = c;
    }
    struct stat st;
    if (stat(dir, &st) != 0) return -1;
    if (S_ISDIR(st.st_mode)) return 0;
    errno = ENOTDIR;   /* a file of that name */
    return -1;
}

int cli_take_own(const cli_cmd *me, int argc, char **argv, const cli_own *own, size_t n, char **rest, int *nrest)
{
    if (argc > CLI_MAX_ARGS) return cli_usage_error(me, "too many arguments%s", "");
    *nrest = 0;
    for (int i = 0; i < argc; i++) {
        const cli_own *w = NULL;
        for (size_t k = 0; i > 0 && k < n && !w; k++)
            if (strcmp(argv[i], own[k].name) == 0) w = &own[k];
        if (!w) {
            rest[(*nrest)++] = argv[i];
        } else if (w->flag) {
            *w->flag = true;
        } else {
            if (i + 1 >= argc) {
                char msg[160];
                snprintf(msg, sizeof msg, "%s needs %s", w->name, w->needs);
                return cli_usage_error(me, "%s", msg);
            }
            *w->value = argv[++i];
        }
    }
    return CLI_CONTINUE;
}

int cli_begin(const cli_cmd *me, int argc, char **argv, int min_files, int max_files, cli_opts *o)
{
    bool help;
    if (cli_parse(argc, argv, o, &help) < 0) return cli_usage_error(me, "bad arguments%s", "");
    if (help) {
        fputs(me->usage, stdout);
        return EXIT_OK;
    }
    /* --dry-run: the commands that write maps honour it (cli_dry_run_refused for their other forms);
     * every other command would write anyway, so it is refused before anything is read */
    if (o->dry_run && strcmp(me->name, "entities") != 0 && strcmp(me->name, "lump") != 0 &&
        strcmp(me->name, "pak") != 0 && strcmp(me->name, "convert") != 0)
        return cli_dry_run_refused(me, me->name);
    if (o->positional_count < min_files || (max_files >= 0 && o->positional_count > max_files)) {
        if (max_files == 1) return cli_usage_error(me, "expected one FILE%s", "");
        if (max_files < 0) return cli_usage_error(me, "expected at least one FILE%s", "");
        return cli_usage_error(me, "wrong number of arguments%s", "");
    }
    return CLI_CONTINUE;
}

static int need_value(int argc, char **argv, int i)
{
    if (i + 1 >= argc) {
        fprintf(stderr, "bspkit: option %s needs a value\n", argv[i]);
        return -1;
    }
    return 0;
}

/* the options that set a bool of cli_opts, and those that set a bspkit option flag */
static const struct {
    const char *name, *alias;
    size_t field;
} k_switches[] = {
    {"--json", NULL, offsetof(cli_opts, json)},          {"--assets", NULL, offsetof(cli_opts, assets)},
    {"--missing", NULL, offsetof(cli_opts, missing_only)}, {"--dry-run", NULL, offsetof(cli_opts, dry_run)},
    {"--force", NULL, offsetof(cli_opts, force)},        {"--verbose", "-v", offsetof(cli_opts, verbose)},
    {"--quiet", "-q", offsetof(cli_opts, quiet)},        {"--follow-links", NULL, offsetof(cli_opts, follow_links)},
    {"--keep-all-bones", NULL, offsetof(cli_opts, keep_all_bones)},
};
static const struct {
    const char *name;
    uint32_t flag;
} k_flags[] = {
    {"--no-lightmaps", BK_OPT_NO_LIGHTMAPS}, {"--no-textures", BK_OPT_NO_TEXTURES},
    {"--no-entities", BK_OPT_NO_ENTITIES},   {"--skip-flares", BK_OPT_SKIP_FLARES},
    {"--collision", BK_OPT_COLLISION},       {"--no-props", BK_OPT_NO_PROPS},
    {"--no-3d-sky", BK_OPT_NO_SKY3D},
    {"--hdr", BK_OPT_HDR},                   {"--no-animations", BK_OPT_NO_ANIMATIONS},
};

/* the number after option argv[*i] (moved past), within [lo, hi] and whole when asked; else the
 * message and -1 */
static int number_opt(int argc, char **argv, int *i, double lo, double hi, bool whole, bool above_lo, const char *msg,
                      double *out)
{
    if (need_value(argc, argv, *i) < 0) return -1;
    char *end;
    const char *t = argv[++*i];
    double v = whole ? (double)strtol(t, &end, 10) : strtod(t, &end);
    if (*end || !*t || !(above_lo ? v > lo : v >= lo) || v > hi) {
        fprintf(stderr, "bspkit: %s\n", msg);
        return -1;
    }
    *out = v;
    return 0;
}

/* the option at argv[*i] (its value taken too): 1 when it is one, 0 when it is not, -1 on error */
static int parse_option(int argc, char **argv, int *i, cli_opts *o)
{
    const char *a = argv[*i];
    for (size_t k = 0; k < sizeof k_switches / sizeof k_switches[0]; k++)
        if (strcmp(a, k_switches[k].name) == 0 || (k_switches[k].alias && strcmp(a, k_switches[k].alias) == 0)) {
            *(bool *)((char *)o + k_switches[k].field) = true;
            return 1;
        }
    for (size_t k = 0; k < sizeof k_flags / sizeof k_flags[0]; k++)
        if (strcmp(a, k_flags[k].name) == 0) {
            o->opt.flags |= k_flags[k].flag;
            return 1;
        }
    double v;
    if (strcmp(a, "-j") == 0 || strcmp(a, "--jobs") == 0 || (strncmp(a, "-j", 2) == 0 && a[2] >= '0' && a[2] <= '9')) {
        /* -j N, or -jN as make takes it */
        bool joined = a[1] == 'j' && a[2];
        if (!joined && need_value(argc, argv, *i) < 0) return -1;
        char *end;
        long n = strtol(joined ? a + 2 : argv[++*i], &end, 10);
        if (*end || n < 1 || n > 256) {
            fprintf(stderr, "bspkit: -j needs a number of jobs from 1 to 256\n");
            return -1;
        }
        o->jobs = (int)n;
    } else if (strcmp(a, "--format") == 0) {
        if (need_value(argc, argv, *i) < 0) return -1;
        const char *f = argv[++*i];
        if (strcmp(f, "glb") && strcmp(f, "gltf") && strcmp(f, "obj") && strcmp(f, "bsp") && strcmp(f, "valve") &&
            strcmp(f, "quake")) {
            fprintf(stderr, "bspkit: --format is glb, gltf, obj or bsp (decompile: valve or quake)\n");
            return -1;
        }
        o->format = f;
    } else if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0) {
        if (need_value(argc, argv, *i) < 0) return -1;
        o->output = argv[++*i];
    } else if (strcmp(a, "--wad") == 0 || strcmp(a, "--game-dir") == 0) {
        if (need_value(argc, argv, *i) < 0) return -1;
        if (o->path_count >= (int)(sizeof o->paths / sizeof o->paths[0])) {
            fprintf(stderr, "bspkit: too many search paths\n");
            return -1;
        }
        o->paths[o->path_count++] = argv[++*i];
    } else if (strcmp(a, "--framegroups") == 0) {
        if (need_value(argc, argv, *i) < 0) return -1;
        o->dpm.framegroups_path = argv[++*i];
    } else if (strcmp(a, "--keep-z-up") == 0) {
        o->xopt.keep_z_up = 1;
    } else if (strcmp(a, "--scale") == 0) {
        if (number_opt(argc, argv, i, 0, 1e6, false, true, "--scale needs a positive number", &v) < 0) return -1;
        o->xopt.scale = (float)v;
    } else if (strcmp(a, "--png-level") == 0) {
        if (number_opt(argc, argv, i, 1, 12, true, false, "--png-level needs 1 (fastest) .. 12 (smallest)", &v) < 0)
            return -1;
        o->xopt.png_level = (int32_t)v;
    } else if (strcmp(a, "--patch-level") == 0) {
        if (number_opt(argc, argv, i, 1, 64, true, false, "--patch-level needs a whole number from 1 to 64", &v) < 0)
            return -1;
        o->q3.patch_level = (int32_t)v;
    } else if (strcmp(a, "--overbright") == 0) {
        if (number_opt(argc, argv, i, 0, 4, false, false, "--overbright needs a number from 0 to 4", &v) < 0) return -1;
        o->opt.overbright = v == 0 ? -1.0f : (float)v;
    } else {
        return 0;
    }
    return 1;
}

int cli_parse(int argc, char **argv, cli_opts *o, bool *help)
{
    memset(o, 0, sizeof *o);
    *help = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            *help = true;
            continue;
        }
        int known = parse_option(argc, argv, &i, o);
        if (known < 0) return -1;
        if (known) continue;
        if (a[0] == '-' && a[1] != 0) {
            fprintf(stderr, "bspkit: unknown option %s\n", a);
            return -1;
        }
        if (o->positional_count >= (int)(sizeof o->positional / sizeof o->positional[0])) {
            fprintf(stderr, "bspkit: too many arguments\n");
            return -1;
        }
        o->positional[o->positional_count++] = a;
    }
    o->opt.search_paths = o->paths;
    o->q3.ext.type = BK_OPTIONS_Q3;
    o->q3.ext.next = &o->dpm.ext;
    o->dpm.ext.type = BK_OPTIONS_DPM;
    o->opt.ext = &o->q3.ext;
    o->opt.search_path_count = (uint32_t)o->path_count;
    o->opt.diag = o->quiet ? diag_errors_only : cli_diag_print;
    o->opt.diag_user = stderr;
    return 0;
}

const char *cli_archive_sep(const char *path)
{
    const char *sep = NULL;
    for (const char *p = strstr(path, ".pk3:"); p; p = strstr(p + 1, ".pk3:")) sep = p + 4;
    if (!sep)
        for (const char *p = strstr(path, ".zip:"); p; p = strstr(p + 1, ".zip:")) sep = p + 4;
    if (!sep)
        for (const char *p = strstr(path, ".pak:"); p; p = strstr(p + 1, ".pak:")) sep = p + 4;
    return sep;
}

int cli_read_member(const char *spec, const char *sep, cli_opts *o, uint8_t **out, size_t *size)
{
    size_t alen = (size_t)(sep - spec);
    char *archive = o->archive;
    if (alen >= sizeof o->archive) {
        fprintf(stderr, "%s: error: archive path too long\n", spec);
        return EXIT_BAD_INPUT;
    }
    memcpy(archive, spec, alen);
    archive[alen] = 0;
    const char *member = sep + 1;
    bk_archive *z = NULL;
    bk_result ar = bk_archive_open(archive, &o->opt, &z);
    if (ar != BK_OK) {
        fprintf(stderr, "%s: error: cannot open archive: %s\n", archive, bk_strerror(ar));
        return EXIT_BAD_INPUT;
    }
    int32_t idx = bk_archive_find(z, member);
    if (idx < 0) {
        fprintf(stderr, "%s: error: no member '%s' in the archive\n", archive, member);
        bk_archive_close(z);
        return EXIT_BAD_INPUT;
    }
    uint8_t *buf = NULL;
    size_t got = 0;
    ar = bk_archive_read(z, (uint32_t)idx, (uint64_t)1 << 31, &buf, &got);
    bk_archive_close(z);
    if (ar != BK_OK) {
        fprintf(stderr, "%s: error: cannot read member '%s': %s\n", archive, member,
                ar == BK_ELIMIT ? "it is too large" : bk_strerror(ar));
        return EXIT_BAD_INPUT;
    }
    /* the archive itself is searched for textures and shaders, after the user's paths */
    if (o->path_count < (int)(sizeof o->paths / sizeof o->paths[0])) o->paths[o->path_count++] = archive;
    o->opt.search_paths = o->paths;
    o->opt.search_path_count = (uint32_t)o->path_count;
    o->opt.name = spec;
    *out = buf;
    *size = got;
    return EXIT_OK;
}

/* ARCHIVE.pk3:member -> read the member (bk_archive) */
static int load_from_archive(const char *spec, const char *sep, cli_opts *o, bk_file **out, void **owned)
{
    uint8_t *buf = NULL;
    size_t got = 0;
    int rc = cli_read_member(spec, sep, o, &buf, &got);
    if (rc != EXIT_OK) return rc;
    bk_result r = bk_file_load_memory(buf, got, &o->opt, out);
    if (r != BK_OK) {
        bk_free(buf);
        return EXIT_BAD_INPUT;
    }
    *owned = buf;
    return EXIT_OK;
}

int cli_load(const char *path, cli_opts *o, bk_file **out, void **owned)
{
    *out = NULL;
    *owned = NULL;
    o->opt.name = path;
    const char *slash = strrchr(path, '/');
    size_t dlen = slash ? (size_t)(slash - path) : 0;
    if (dlen >= sizeof o->base_dir) dlen = 0;
    if (slash) {
        memcpy(o->base_dir, path, dlen);
        o->base_dir[dlen] = 0;
    } else {
        strcpy(o->base_dir, ".");
    }
    o->opt.base_dir = o->base_dir;
    const char *sep = cli_archive_sep(path);
    if (sep) return load_from_archive(path, sep, o, out, owned);
    bk_result r = bk_file_open(path, &o->opt, out);
    return r == BK_OK ? EXIT_OK : EXIT_BAD_INPUT;
}

int cli_write_failed(const char *out, bk_result r, char *buf, size_t cap)
{
    bk_diag d;
    if ((r != BK_EIO && r != BK_ELIMIT) || !bk_write_error(&d)) return 0;
    char line[1400];
    bk_diag_format(&d, line, sizeof line);
    if (strcmp(d.file, out) == 0) snprintf(buf, cap, "%s; nothing written", line);
    else snprintf(buf, cap, "%s; %s not written", line, out);
    return 1;
}

/* SIGINT, SIGTERM, SIGHUP, SIGQUIT: the temporaries of the writes in progress are removed, then
 * the signal ends the process as it would have (SA_RESETHAND: the default action, re-raised) */
static void on_signal(int sig)
{
    int saved = errno;
    bk_write_cleanup();
    raise(sig);
    errno = saved;
}

static void catch_signals(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old, sa;
        /* a signal ignored when bspkit started (nohup, a background job) stays ignored */
        if (sigaction(sigs[i], NULL, &old) != 0 || old.sa_handler == SIG_IGN) continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESETHAND;
        sigaction(sigs[i], &sa, NULL);
    }
}

int bk_cli_main(int argc, char **argv)
{
    if (argc < 2) {
        print_main_usage(stderr);
        return EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
        print_main_usage(stdout);
        return EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("bspkit %s\n", BK_VERSION_STRING);
        return EXIT_OK;
    }
    const cli_cmd *c = cli_find(argv[1]);
    if (!c) {
        fprintf(stderr, "bspkit: unknown command '%s'\n", argv[1]);
        print_main_usage(stderr);
        return EXIT_USAGE;
    }
    return c->run(argc - 1, argv + 1);
}

int main(int argc, char **argv)
{
    bk_cli_install_allocator();
    /* benchmarks: the program's own pages resident from the start, so a peak resident set minus
     * the start-up one is the memory a command holds for its input (bench/families.sh) */
    if (getenv("BSPKIT_RESIDENT_CODE")) bk_cli_resident_code();
    catch_signals();
    return bk_cli_main(argc, argv);
}
