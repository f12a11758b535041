info {corpus}/source/unusual_rbsp_titanfall2_mp_crossfire.bsp
