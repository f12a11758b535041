query {fetched}/q3/nexuiz/eggandbacon.bsp --point 0 0 64 --json
