info {corpus}/quake1/unusual_bsp2_remakequake_mp_lobby.bsp
