# the smallest Quake 3 map of the fetched corpus (Nexuiz)
info {fetched}/q3/nexuiz/_init.bsp
