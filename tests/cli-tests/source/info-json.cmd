info --json {corpus}/source/tf2_v20_bsp_tool_mp_lobby.bsp
