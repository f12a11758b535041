# Source VBSP: corpus checks against an independent Python reader, glTF validation, props,
# pakfile, impostors and hostile variants (tests/source/corpus.sh); scene checks in C.
bk_sh_test(source_corpus source/corpus.sh)
# static props field by field (every corpus map, every layout v4-v12) against a reader written
# after StaticPropLump_t
bk_sh_test(source_props source/props.sh)
# one picture as a VTF in every format, decoded back to the same picture (channel orders)
add_test(NAME source_vtf_formats COMMAND /usr/bin/python3 ${BK_TESTS}/source/vtf_formats.py ${BK_CLI}
         ${BK_WORK}/source_vtf_formats)
bk_unit_test(source_unit source/test_source.c)
# a deferred open (BK_OPT_DEFER_GEOMETRY): the same map once completed, errors located, threads
# (completion, and scenes of one LZMA map built at once)
bk_unit_test(source_defer source/test_defer.c)
target_link_libraries(source_defer PRIVATE Threads::Threads)
bk_unit_test(source_archive source/test_archive.c)
bk_sh_test(source_assets source/assets.sh)
# bspkit assets: what a map needs and where it is found, against the map's bytes and a game folder
bk_sh_test(source_asset_list source/asset_list.sh)
# bspkit assets: breakable material numbers, env_sun sprites, colour correction, $envmap paths and
# names written with "//", "./", '\' as the engine's file system takes them
bk_sh_test(source_asset_refs source/asset_refs.sh)
# pak pack / assets against hostile game folders: sizes checked before reading (peak RSS),
# links out of the game folder, unreadable files (red-team F5, F6, F10)
bk_sh_test(source_pack_limits source/pack_limits.sh)
bk_sh_test(source_vpk source/vpk.sh)
bk_sh_test(source_lump_fields source/lump_fields.sh)
# validate reports what pak extract / pak list / textures / the writer / convert refuse
bk_sh_test(source_refusals source/refusals.sh)
# the engine's lump limits on the Source version rows: validate warns past MAX_MAP_* (bspfile.h)
bk_sh_test(source_limits source/limits.sh)
# displacement blends (WorldVertexTransition) against the dispverts alpha read by Python
bk_sh_test(source_blend source/blend.sh)
# sky faces as an unlit sky material, against the texinfo flags read by Python
bk_sh_test(source_sky source/sky.sh)
# overlays (lump 45) against a reader of the bytes: count, fields, one quad per overlay in the glTF
bk_sh_test(source_overlays source/overlays.sh)
# every world face faces the empty space it is seen from, by the map's own BSP tree
bk_sh_test(source_facing source/facing.sh)
# gameinfo.txt search paths: the parser (entries, located errors, prefixes, mutants, crashers)
# and a synthetic game tree (loose folders, a VPK, custom/* wildcards) through convert
bk_unit_test(source_gameinfo source/test_gameinfo.c)
target_compile_definitions(source_gameinfo PRIVATE SOURCE_DIR="${PROJECT_SOURCE_DIR}")
bk_sh_test(source_gameinfo_tree source/gameinfo.sh)
# Source models: synthetic MDL/VVD/VTX sets (source/make_mdl.py) through the API (test_mdl.c:
# decode, scene, every prefix and single-byte mutant, the fuzzer's crashers) and the CLI (convert,
# validator, a real map with a generated static prop, lookup through a VPK, hostile files)
add_executable(source_mdl_unit source/test_mdl.c)
target_link_libraries(source_mdl_unit PRIVATE ${BK_TEST_LIB})
target_include_directories(source_mdl_unit PRIVATE ${PROJECT_SOURCE_DIR}/src)
bk_sh_test(source_mdl source/mdl.sh)
set_property(TEST source_mdl APPEND PROPERTY ENVIRONMENT "BK_MDL_UNIT=$<TARGET_FILE:source_mdl_unit>")
# real models from public repositories, when they are in the fetched corpus (FETCHED/mdl, see
# source/mdl_real.md); skipped otherwise
bk_sh_test(source_mdl_real source/mdl_real.sh)
# I/O outputs split (entities --outputs) on every Source corpus map, against an independent parser
bk_sh_test(source_outputs source/outputs.sh)
# HDR-only maps lit, exposed as the engine's auto exposure (computed in Python); --hdr
bk_sh_test(source_hdr source/hdr.sh)
# detail props one by one and cubemaps against a reader written after gamebspfile.h / bspfile.h
bk_sh_test(source_detail source/detail.sh)
# the 2D skybox: six VTF faces packed into a corpus map, the cube's slots in the glTF, renders
# along each axis, a missing face, no faces (source/skybox.sh, source/skybox.py)
bk_sh_test(source_skybox source/skybox.sh)
# the 3D skybox: sky_camera's area as a scaled node on every corpus map that has one, against a
# reader of the BSP tree (source/sky3d.sh, source/sky3d_check.py)
bk_sh_test(source_sky3d source/sky3d.sh)
# world lights: lump JSON, --import, KHR_lights_punctual, against a reader of dworldlight_t on every
# corpus map with them (source/lights.sh, source/lights.py)
bk_sh_test(source_lights source/lights.sh)
# the occlusion lump: occluders counted by info, their references checked (source/occluders.sh)
bk_sh_test(source_occluders source/occluders.sh)
