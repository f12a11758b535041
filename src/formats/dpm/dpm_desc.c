/* The DarkPlaces model family: one version row and its operations (its header's three tables as lumps; the probe checks the big-endian type number after the magic). */
#include "dpm_internal.h"
#include "../family.h"

static const bk_version_desc k_versions[] = {
    {"DARKPLACESMODEL", 2, -1, "DarkPlaces DPM", "", BK_FORMAT_DPM, 0, NULL, 0, true, NULL, .game = NULL},
};
/* the header's three tables (count and offset each), placed as lumps */
static const bk_lump_desc k_tables[] = {
    {.name = "bones", .entry = {DPM_BONE_SIZE}},
    {.name = "meshes", .entry = {DPM_MESH_SIZE}},
    {.name = "frames", .entry = {DPM_FRAME_SIZE}},
};
const bk_family bk_family_dpm = {
    "dpm", k_versions, BK_ARRAY_LEN(k_versions), k_tables, BK_ARRAY_LEN(k_tables), NULL, 0, &bk_ops_dpm, NULL, NULL, -1, NULL, NULL, NULL, NULL, &bk_arrays_dpm,
};
