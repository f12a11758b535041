/* Source studio models (MDL + VVD + VTX): the on-disk layouts the decoder reads, and what the
 * decoder, the model scene builder and the map scene builder (static props) share.
 *
 * Layouts (little-endian, packed; offsets in bytes):
 *   studiohdr_t (408 bytes, v44-v49): id "IDST" 0, version 4, checksum 8, name[64] 12, length 76,
 *     eyeposition 80, illumposition 92, hull_min 104, hull_max 116, view_bbmin 128, view_bbmax 140,
 *     flags 152, numbones 156, boneindex 160, ... numtextures 204, textureindex 208,
 *     numcdtextures 212, cdtextureindex 216, numskinref 220, numskinfamilies 224, skinindex 228,
 *     numbodyparts 232, bodypartindex 236, ... surfacepropindex 308, mass 328.
 *   mstudiobone_t (216): sznameindex 0 (from the bone), parent 4, pos 32, quat 44, rot 60,
 *     poseToBone 96 (3x4 row-major), flags 160.
 *   mstudiotexture_t (64): sznameindex 0 (from the texture).       cdtextures: int[] file offsets.
 *   skin table: short[numskinfamilies][numskinref].
 *   mstudiobodyparts_t (16): sznameindex 0, nummodels 4, base 8, modelindex 12 (from the body part).
 *   mstudiomodel_t (148): name[64], type 64, radius 68, nummeshes 72, meshindex 76 (from the model),
 *     numvertices 80, vertexindex 84 (bytes into the VVD's LOD-0 vertices, 48 per vertex).
 *   mstudiomesh_t (116): material 0 (skin-table column), modelindex 4, numvertices 8,
 *     vertexoffset 12 (from the model's first vertex), ... numLODVertexes[8] 52.
 *   vertexFileHeader_t (64): "IDSV", version 4, checksum, numLODs, numLODVertexes[8] 16,
 *     numFixups 48, fixupTableStart 52, vertexDataStart 56, tangentDataStart 60.
 *   vertexFileFixup_t (12): lod, sourceVertexID, numVertexes.
 *   mstudiovertex_t (48): weight[3] 0, bone[3] 12, numbones 15, pos 16, normal 28, texcoord 40.
 *   VTX FileHeader_t (36): version 0 (7), vertCacheSize 4, maxBonesPerStrip 8 (u16),
 *     maxBonesPerTri 10 (u16), maxBonesPerVert 12, checkSum 16, numLODs 20,
 *     materialReplacementListOffset 24, numBodyParts 28, bodyPartOffset 32.
 *   BodyPartHeader_t (8): numModels, modelOffset.   ModelHeader_t (8): numLODs, lodOffset.
 *   ModelLODHeader_t (12): numMeshes, meshOffset, switchPoint.
 *   MeshHeader_t (9): numStripGroups, stripGroupHeaderOffset, flags (u8).
 *   StripGroupHeader_t (25; 33 with v49's topology fields): numVerts, vertOffset, numIndices,
 *     indexOffset, numStrips, stripOffset, flags (u8).
 *   StripHeader_t (27; 35 with v49's): numIndices, indexOffset, numVerts, vertOffset, numBones (i16),
 *     flags (u8: 1 triangle list, 2 triangle strip), numBoneStateChanges, boneStateChangeOffset.
 *   Vertex_t (9): boneWeightIndex[3], numBones, origMeshVertID (u16) 4, boneID[3].
 *   Every offset in the VTX is relative to the structure that holds it; indices (u16) number the
 *   strip group's vertices, whose origMeshVertID numbers the MDL mesh's vertices. */
#ifndef BK_MDL_INTERNAL_H
#define BK_MDL_INTERNAL_H

#include "../format.h"
#include "bspkit/source.h"

#define MDL_HEADER_SIZE 408u
#define MDL_BONE_SIZE 216u
#define MDL_TEXTURE_SIZE 64u
#define MDL_BODYPART_SIZE 16u
#define MDL_MODEL_SIZE 148u
#define MDL_MESH_SIZE 116u
#define MDL_ANIMDESC_SIZE 100u  /* mstudioanimdesc_t: numlocalanim 180, localanimindex 184 */
#define MDL_SEQDESC_SIZE 212u   /* mstudioseqdesc_t: numlocalseq 188, localseqindex 192 */
#define VVD_HEADER_SIZE 64u
#define VVD_FIXUP_SIZE 12u
#define VVD_VERTEX_SIZE 48u
#define VTX_HEADER_SIZE 36u
#define VTX_VERTEX_SIZE 9u
#define MDL_MAX_BONES 256u      /* the VVD's bone indices are bytes */

/* Where the game files of a model come from, for the scene builders: the map's pakfile, then
 * each --game-dir (VPKs, folders), as materials are found (implemented in source_assets.c). */
typedef struct bk_src_lookup {
    void *user;
    /* the bytes of a game file ("models/x.mdl", "materials/y.vmt"); false when it is not there */
    bool (*read)(void *user, const char *path, uint8_t **data, size_t *size);
    /* 1 when materials/NAME.vmt is there (a patch material's include followed) */
    bool (*has_material)(void *user, const char *name);
    /* give material mi of s the texture and flags materials/NAME.vmt names (base colour white
     * when its $basetexture decodes) */
    bk_result (*attach_material)(void *user, bk_scene *s, int32_t mi, const char *name);
} bk_src_lookup;

/* Materials made for models, shared by every prop mesh of a scene, by name. */
typedef struct bk_mdl_matcache {
    char **names;
    int32_t *index;
    uint32_t count, cap;
} bk_mdl_matcache;
void bk_mdl_matcache_free(bk_mdl_matcache *c);

/* One mesh of model m for skin family `skin` (out of range: 0): the default body (the first model
 * of each body part), one primitive per model mesh with triangles, wound counter-clockwise for
 * glTF; with skinned, JOINTS_0 / WEIGHTS_0 from the VVD weights. Materials are looked up under
 * each $cdmaterials folder through lk (NULL: names only). *out: the mesh, or -1 when the default
 * body has no triangles. *vertex_budget is reduced by the vertices added (BK_ELIMIT past it). */
bk_result bk_mdl_add_mesh(const bk_mdl *m, int32_t skin, bool skinned, const bk_src_lookup *lk, bk_mdl_matcache *mc,
                          const char *name, uint64_t *vertex_budget, bk_scene *s, int32_t *out);

/* The VTX files tried beside a model, in order. */
extern const char *const bk_mdl_vtx_suffixes[4];

/* mdl_scene.c: the scene of a loaded .mdl (skeleton, skin, default body) */
bk_result bk_mdl_build_scene(const bk_file *f, const bk_options *opt, bk_scene *s);

/* source_assets.c: a lookup over the search paths alone (no map), for a model converted on its own;
 * extra_root (may be NULL) is searched after them (the game folder a model path lies in). */
typedef struct bk_source_assets bk_source_assets;
bk_result bk_source_assets_open_dirs(const bk_options *opt, const char *extra_root, bk_source_assets **out);
void bk_source_assets_lookup(bk_source_assets *a, bk_scene *s, bk_src_lookup *lk);

#endif
