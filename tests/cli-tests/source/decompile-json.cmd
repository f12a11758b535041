decompile {corpus}/source/tf2_v20_bsp_tool_mp_lobby.bsp -o {work}/lobby.vmf --json
