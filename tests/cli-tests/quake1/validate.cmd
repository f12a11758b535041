validate {samples}/ericw_q1_detail_fence2.bsp {samples}/bsp_tool_quake_mp_lobby.bsp
