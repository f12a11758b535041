lump {corpus}/goldsrc/hltopdown_test_tiny.bsp
