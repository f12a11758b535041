info {data}/bad_lump_size.bsp
