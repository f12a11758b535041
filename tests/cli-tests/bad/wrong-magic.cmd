info {data}/wrong_magic.bsp
