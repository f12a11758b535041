entities {fetched}/q3/nexuiz/_init.bsp
