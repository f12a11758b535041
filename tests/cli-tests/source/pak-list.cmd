pak {corpus}/source/momentum_v20_background_01.bsp list
