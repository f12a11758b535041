props {corpus}/source/momentum_v20_background_01.bsp
