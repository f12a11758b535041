# a map with visibility: leaf 1, cluster 0
query {samples}/bsp_tool_quake_mp_lobby.bsp --point 0 0 8
