# a player box dropped from a weapon to the floor: the floor brush at z 64, less the box and 0.125
trace {fetched}/q3/nexuiz/eggandbacon.bsp --from -1504 -384 96 --to -1504 -384 -1000 --mins -15 -15 -24 --maxs 15 15 32
