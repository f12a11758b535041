# the pakfile VTFs (two cube maps) as PNG
textures {corpus}/source/momentum_v20_background_01.bsp -o {work}/png
