textures {corpus}/wad3/ericw_hlwad.wad -o {work}/png
