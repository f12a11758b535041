info {work}/no-such-map.bsp
