info {fetched}/dpm/shield.dpm
