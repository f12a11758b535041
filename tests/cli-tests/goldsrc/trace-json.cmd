# from the player start straight down: lands on the floor
trace {corpus}/goldsrc/hltopdown_test_tiny.bsp --from -192 0 101 --to -192 0 -1000 --hull 1 --json
