decompile {corpus}/goldsrc/hltopdown_test_tiny.bsp -o {work}/tiny.map --json
