entities {data}/lump_past_end.bsp
