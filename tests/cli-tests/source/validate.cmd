validate {corpus}/source/tf2_v20_bsp_tool_mp_lobby.bsp {corpus}/source/gmod_v20_bspsrc_tooltextures.bsp
