info --help
