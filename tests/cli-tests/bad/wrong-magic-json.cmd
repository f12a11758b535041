validate --json {data}/wrong_magic.bsp
