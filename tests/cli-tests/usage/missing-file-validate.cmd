validate {work}/no-such-map.bsp
