info --json {fetched}/q3/nexuiz/_init.bsp
