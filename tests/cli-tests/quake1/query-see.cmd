query {samples}/bsp_tool_quake_mp_lobby.bsp --see 0 0 8 0 0 100
