# DarkPlaces DPM: loader, pose/skinning, scene/glTF export, optimising saver.
add_executable(dpm_dump ${CMAKE_CURRENT_SOURCE_DIR}/dpm/dpm_dump.c)
target_link_libraries(dpm_dump PRIVATE ${BK_TEST_LIB})

bk_unit_test(unit_dpm dpm/test_dpm.c)

# shell tests that also need the dump helper: bk_sh_test plus DPM_DUMP in the environment
foreach(t synthetic corpus darkplaces)
  bk_sh_test(dpm_${t} dpm/${t}.sh)
  set_tests_properties(dpm_${t} PROPERTIES ENVIRONMENT "BK_TESTS=${BK_TESTS};DPM_DUMP=$<TARGET_FILE:dpm_dump>")
endforeach()
