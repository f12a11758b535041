info {fetched}/pk3/oa081-pak1-maps.pk3:maps/no_such_map.bsp
