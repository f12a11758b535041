info
