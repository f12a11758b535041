info {corpus}/source/unusual_v25_momentum_mp_lobby.bsp
