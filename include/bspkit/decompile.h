/*
 * bspkit — a compiled map back to an editable source (`bspkit decompile`, docs/decompile.md).
 *
 *     char *text; size_t len;
 *     if (bk_decompile(file, NULL, BK_DECOMPILE_AUTO, &text, &len, NULL) == BK_OK) { ...; bk_free(text); }
 *
 * The families that store brushes: Quake 3 (IBSP v46 / v47) gives the .map that q3map2 and
 * NetRadiant read (brushes in brush primitives, patchDef2), Source (VBSP) the .vmf that Hammer
 * reads. Every brush of the brush lumps is written, each side on the lump's own plane; bevel sides
 * (the compilers' own) are left out; a brush whose planes enclose nothing is reported (lump
 * "brushes", its index) and left out, never written half-made. Quake 1, BSP2 and GoldSrc keep no
 * brushes: they are rebuilt from the BSP tree (the .map of TrenchBroom and the ericw / VHLT
 * compilers, Valve 220 or classic axes). Other families: BK_EUNSUPPORTED.
 */
#ifndef BSPKIT_DECOMPILE_H
#define BSPKIT_DECOMPILE_H

#include "bspkit.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum bk_decompile_format {
    BK_DECOMPILE_AUTO = 0,   /* the family's own: Source .vmf, Quake 3 .map, Quake 1 / GoldSrc Valve 220 .map */
    BK_DECOMPILE_VMF = 1,    /* Hammer's .vmf (Source maps) */
    BK_DECOMPILE_MAP_Q3 = 2, /* q3map2 / NetRadiant .map, brush primitives (Quake 3 maps) */
    BK_DECOMPILE_MAP_VALVE = 3, /* .map with Valve 220 texture axes (Quake 1, BSP2, GoldSrc maps:
                                 * TrenchBroom, J.A.C.K., ericw-tools, VHLT); brushes from the tree */
    BK_DECOMPILE_MAP_QUAKE = 4, /* .map with the classic Quake axes (offsets, rotation, scales) */
} bk_decompile_format;

typedef struct bk_decompile_stats {
    bk_decompile_format format;  /* what was written */
    uint32_t entities;           /* entities written (worldspawn included) */
    uint32_t brushes;            /* brushes written */
    uint32_t sides;              /* sides written */
    uint32_t brushes_dropped;    /* planes enclosing nothing (or not closed): reported, left out */
    uint32_t bevels_dropped;     /* bevel sides left out (Source: the bevel flag; Quake 3: no face) */
    uint32_t sides_face_axes;    /* Quake 3: texture axes fitted to the drawn face on the side */
    uint32_t sides_default_axes; /* default axes: Quake 3, no drawn face on the side; Source, texture
                                  * vectors that cannot project onto the side */
    uint32_t sides_tool;         /* Source: a tool material restored from the flags / contents */
    uint32_t patches;            /* Quake 3 patchDef2 */
    uint32_t outputs;            /* Source outputs written in connections blocks */
    uint32_t detail_brushes;     /* brushes given back to func_detail (Source) / detail (Quake 3) */
    uint32_t bevel_flags_ignored;/* Source: brushes that do not close without a side flagged bevel:
                                  * their sides told apart by their faces instead */
    uint32_t tree_regions;       /* Quake 1 / GoldSrc: convex regions of the trees before merging */
    uint32_t triangles_unwritten;/* Quake 3: drawn triangles on no written side with their shader
                                  * (misc_model geometry, decals): not written, reported */
    /* Source: what the brush lumps do not hold */
    uint32_t displacements;      /* dispinfo written on the brush side of their face */
    uint32_t displacements_lost; /* a face no brush can be made of (or the lumps out of range) */
    uint32_t disp_brushes;       /* brushes made for displacements (vbsp keeps none of theirs) */
    uint32_t static_props;       /* prop_static */
    uint32_t cubemaps;           /* env_cubemap */
    uint32_t overlays;           /* info_overlay */
    uint32_t overlays_lost;      /* on no face (or no material): left out */
    uint32_t overlay_faces_lost; /* faces of an overlay on no written side (left out of "sides") */
    uint32_t lights;             /* light, light_spot, light_environment from the world lights the
                                  * entity lump lost */
} bk_decompile_stats;

/* The map's source as text: *out NUL-terminated (bk_free it), *len its length (may be NULL);
 * stats (may be NULL) what was written. Problems (a brush left out, a material not known) are
 * located diagnostics through opt->diag. BK_EUNSUPPORTED for a family without brush lumps (yet) or
 * a format the family does not write (a .vmf of a Quake 3 map). */
bk_result bk_decompile(const bk_file *f, const bk_options *opt, bk_decompile_format fmt, char **out, size_t *len,
                       bk_decompile_stats *stats);

/* The format's usual file extension ("vmf", "map"); NULL for AUTO. */
const char *bk_decompile_format_ext(bk_decompile_format fmt);

#ifdef __cplusplus
}
#endif
#endif
