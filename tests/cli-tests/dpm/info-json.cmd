info --json {fetched}/dpm/shield.dpm
