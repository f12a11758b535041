decompile {corpus}/quake1/vektar_start.bsp -o {work}/start.map --json
