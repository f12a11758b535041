lump {fetched}/q3/nexuiz/eggandbacon.bsp
