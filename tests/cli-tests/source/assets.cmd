# no --game-dir: every file the pakfile does not hold is missing, exit 1
assets {corpus}/source/ricochet_v20_rc_arena_codetest.bsp
