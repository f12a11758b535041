validate {fetched}/q3/nexuiz/_init.bsp {fetched}/q3/nexuiz/eggandbacon.bsp
