# Quake 3 IBSP: corpus-wide checks, options and archives, hostile inputs, the engines' look
# (skies, shader stages, movers), API unit test.
bk_sh_test(q3_corpus q3/corpus.sh)
bk_sh_test(q3_options q3/options.sh)
bk_sh_test(q3_hostile q3/hostile.sh)
bk_sh_test(q3_engine q3/engine.sh)
bk_sh_test(q3_nodraw q3/nodraw.sh)
bk_unit_test(q3_unit q3/test_q3.c)
target_compile_definitions(q3_unit PRIVATE BK_Q3_DATA="${CMAKE_CURRENT_SOURCE_DIR}/q3/data")
