textures {corpus}/quake1/vektar_start.bsp -o {work}/png
