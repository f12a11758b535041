info {data}/empty.bsp
