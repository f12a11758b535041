info {data}/truncated_header.bsp
