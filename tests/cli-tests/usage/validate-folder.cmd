# a folder is not a map
validate {work}
