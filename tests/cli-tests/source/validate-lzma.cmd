validate {corpus}/source/tf2c_v20_lzma_vipr_downfall.bsp
