/* What the Source map -> scene builder's files share: scene.c (faces, displacements, materials,
 * the build), source_assets.c (where assets are found; VMT/VTF materials; bk_source_assets_*),
 * source_lightmap.c (the lightmap atlas), source_props.c (static props) and source_overlays.c
 * (info_overlay decals). */
#ifndef BK_SOURCE_SCENE_H
#define BK_SOURCE_SCENE_H

#include "scene/scene_build.h"
#include "mdl_internal.h"
#include "vbsp_internal.h"

typedef struct sb {
    const bk_source_map *p;
    const bk_options *opt;
    bk_scene *s;
    const bk_source_face *faces;   /* the face set whose lightofs match the lighting lump */
    const bk_source_lump *light;
    bool hdr;                      /* light is the HDR lump: exposed as the engine's auto exposure does */
    double hdr_exposure;           /* that exposure (the HDR sky takes it too) */
    const bk_entities *ents;       /* the map's entities (the tone-map controller's exposure range) */
    int32_t *tex_mat;              /* texdata -> material (+1 slot for "no texdata") */
    int32_t *ovl_mat;              /* the same for overlays' materials (blended), or NULL */
    bk_atlas *atlas;
    uint32_t *face_rect;           /* face -> atlas rect + 1 (0: none) */
    int32_t lm_image;
    uint32_t atlas_w, atlas_h;
    uint64_t vertex_budget;        /* scene vertices left before BK_ELIMIT */
    bk_archive *pak;               /* the map's pakfile, where its materials' VMT/VTF are found */
    bk_vfs *vfs;                   /* where assets are looked up: the pakfile, then --game-dir's
                                    * VPKs and folders in search order (bk_src_open_mounts) */
    uint64_t texture_budget;       /* decoded texture bytes left */
    const char *skyname;           /* worldspawn's skyname, or NULL */
    size_t file_size;              /* the map's bytes (how its atlas is kept: bk_atlas_to_scene_image) */
    int32_t sky_image[6];          /* the 2D skybox's faces (bk_sky_face_suffix order), -1: not found */
    char sky_xform[6][96];         /* their VMTs' $basetexturetransform, "" for none */
    bool sky_box;                  /* some face found: the box is drawn, the sky faces are not */
    uint8_t *sky3d_face;           /* faces of the 3D skybox's area (1), or NULL: none */
    float sky3d_origin[3], sky3d_scale;
    int32_t sky3d_area;
    uint32_t prop_node0, prop_nodes;   /* static prop i's node is prop_node0 + i (i < prop_nodes) */
    uint32_t ent_node0, ent_nodes;     /* the entities' nodes (bk_scene_add_entity_nodes) */
    const int32_t *model_mesh;         /* brush model -> its mesh, -1: none */
    const bk_entity *sky_camera;       /* the 3D skybox's, or NULL */
} sb;

/* hostile maps can make faces share huge lightmaps or surfedge runs: bound what the scene holds */
#define SRC_MAX_LUXELS ((uint64_t)16 << 20)

/* scene.c: a face through which the engine shows the sky; whether a face is drawn */
bool bk_src_texinfo_sky(const bk_source_map *p, int32_t texinfo);
bool bk_src_face_drawn(const bk_source_map *p, const bk_source_face *f);

/* source_assets.c: a game file by its path, where the engine looks (b->vfs); building b->vfs from
 * the pakfile and --game-dir in search order, and freeing it; material mi's texture from its VMT;
 * the lookup functions the MDL builder uses */
bool bk_src_read_asset(sb *b, const char *path, uint8_t **d, size_t *n);
void bk_src_open_mounts(sb *b);
void bk_src_close_mounts(sb *b);
bk_result bk_src_attach_texture(sb *b, int32_t mi, const char *name);
bk_result bk_src_material_image(sb *b, const char *name, int32_t *idx, char *xform, size_t cap);
/* materials/TEX(.vtf), its name into path: false when not found; else the file in *d (the caller
 * frees it) and its header parsed into v with the result in *r */
bool bk_src_open_vtf(sb *b, const char *tex, char *path, size_t cap, uint8_t **d, size_t *n, bk_vtf *v, bk_result *r);
/* the VMT text of material name (materials/NAME.vmt), following a patch's include once; NULL: none */
char *bk_src_read_vmt(sb *b, const char *name, size_t *len);
void bk_src_make_lookup(sb *b, bk_src_lookup *lk);

/* scene.c: the blended material an overlay of texinfo draws with (one per texdata, b->ovl_mat) */
bk_result bk_src_overlay_material(sb *b, int32_t texinfo, int32_t *out);

/* scene.c: the atlas coordinates of point (u, v) of displacement face's grid (0..1 each: along its
 * columns, along its rows); face has a lightmap rect */
void bk_src_lm_uv_param(const sb *b, uint32_t face, float u, float v, float *uv);

/* source_overlays.c: the overlays of lump 45 (water: the water overlays of lump 50, decoded) clipped
 * to their faces (draped over displacements), in a mesh and a node "overlays" ("water_overlays")
 * under node world (-1: a root) */
bk_result bk_src_add_overlays(sb *b, bool water, int32_t world);

/* source_lightmap.c: the lightmap atlas (b->face_rect, b->lm_image, b->atlas_w/h) */
bk_result bk_src_build_lightmaps(sb *b);

/* source_sky.c: the 2D skybox's face images (before the models are built: b->sky_image, b->sky_box)
 * and its node "skybox"; the 3D skybox's faces (b->sky3d_*) and its node "skybox_3d" */
bk_result bk_src_sky_prepare(sb *b);
bk_result bk_src_sky_add(sb *b, bk_result (*build)(sb *b, const uint8_t *only, const char *name, int32_t *mesh));

/* source_lights.c: the world lights of lump l (named lump) as light nodes under a node
 * "worldlights" under node world (-1: a root) */
bk_result bk_src_add_lights(sb *b, const bk_source_lump *l, uint8_t column, const char *lump, int32_t world);

/* source_props.c: a node per static prop, with its model's mesh when found */
bk_result bk_src_add_prop_nodes(sb *b);

#endif
