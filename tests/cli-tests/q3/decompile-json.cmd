decompile {fetched}/q3/nexuiz/eggandbacon.bsp -o {work}/eggandbacon.map --json
