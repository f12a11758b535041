validate --quiet {data}/bad_lump_size.bsp
