# a map read from inside its archive
info {fetched}/pk3/oa081-pak1-maps.pk3:maps/oa_ctf2.bsp
