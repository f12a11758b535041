textures {corpus}/goldsrc/hltopdown_test_tiny.bsp -o {work}/png
