validate {corpus}/goldsrc/hltopdown_test_tiny.bsp {corpus}/goldsrc/dod_snowtest_test_small.bsp
