info --json {corpus}/quake1/vektar_start.bsp
