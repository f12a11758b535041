# Visibility and collision queries (src/query, src/formats/*/*_query.c).
bk_sh_test(query_corpus query/corpus.sh)
# The cross-family checks in C (spawns, floors, ray cast against the world's triangles, hostile
# copies) and the CLI / PVS-decoder checks of GoldSrc and Quake maps.
add_executable(test_query query/test_query.c)
target_link_libraries(test_query PRIVATE ${BK_TEST_LIB})
target_include_directories(test_query PRIVATE ${PROJECT_SOURCE_DIR}/src ${BK_TESTS})
foreach(fam quake q3 source)
  add_test(NAME query_${fam} COMMAND test_query ${BK_SHARED} ${BK_FETCHED} ${BK_WORK} ${fam})
  set_tests_properties(query_${fam} PROPERTIES SKIP_RETURN_CODE 77)
endforeach()
bk_sh_test(query_cli query/cli.sh)
# query --batch against a tree walk written in the test, 10^5 random points a map (tree_walk.py)
bk_sh_test(query_tree query/tree_walk.sh)
set_tests_properties(query_tree PROPERTIES LABELS slow)
# Navigation meshes (src/nav, cli/cmd_nav.c): tests/nav/navmesh.sh
bk_sh_test(navmesh nav/navmesh.sh)
set_tests_properties(navmesh PROPERTIES LABELS slow)   # about 30 s on the shared machine
