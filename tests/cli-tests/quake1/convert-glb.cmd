# no textures or lightmaps: no PNG inside, whose bytes depend on the deflate the build has
convert {samples}/ericw_q1_detail_fence2.bsp -o {work}/fence2.glb --no-textures --no-lightmaps
