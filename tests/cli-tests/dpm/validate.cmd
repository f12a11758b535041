validate {fetched}/dpm/shield.dpm {fetched}/dpm/spiderbot_barrels.dpm
