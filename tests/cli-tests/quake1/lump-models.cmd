lump {corpus}/quake1/vektar_start.bsp models
