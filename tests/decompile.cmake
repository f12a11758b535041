# bspkit decompile (docs/decompile.md): a few maps of each brush family re-read by the tests' own
# reader, hostile brushes, refusals (quick); every Source and Quake 3 map of the corpus (slow).
bk_sh_test(decompile decompile/decompile.sh)
bk_sh_test(decompile_corpus decompile/corpus.sh)
set_tests_properties(decompile_corpus PROPERTIES LABELS slow TIMEOUT 3600)   # about 20 min on a loaded 2-core machine
if(BSPKIT_SANITIZE)
  set_property(TEST decompile_corpus APPEND PROPERTY ENVIRONMENT "BK_DECOMPILE_EVERY=8")
endif()
