# bspkit decompile (docs/decompile.md): a few maps of each brush family re-read by the tests' own
# reader, hostile brushes, refusals (quick); every Source and Quake 3 map of the corpus (slow).
bk_sh_test(decompile decompile/decompile.sh)
bk_sh_test(decompile_corpus decompile/corpus.sh)
set_tests_properties(decompile_corpus PROPERTIES LABELS slow TIMEOUT 3600)   # about 20 min on a loaded 2-core machine
if(BSPKIT_SANITIZE)
  set_property(TEST decompile_corpus APPEND PROPERTY ENVIRONMENT "BK_DECOMPILE_EVERY=8")
endif()
# the tree families (Quake 1, BSP2, GoldSrc): brushes rebuilt from the BSP tree, 10^5 points a map
bk_sh_test(decompile_tree decompile/tree.sh)
bk_sh_test(decompile_tree_corpus decompile/tree_corpus.sh)
set_tests_properties(decompile_tree_corpus PROPERTIES LABELS slow TIMEOUT 1800)
if(BSPKIT_SANITIZE)
  set_property(TEST decompile_tree_corpus APPEND PROPERTY ENVIRONMENT "BK_DECOMPILE_EVERY=3")
endif()
