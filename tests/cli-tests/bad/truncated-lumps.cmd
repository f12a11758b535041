validate {data}/truncated_lumps.bsp
