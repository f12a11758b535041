validate {corpus}/quake1/unusual_quake2_ibsp38_mp_lobby.bsp
