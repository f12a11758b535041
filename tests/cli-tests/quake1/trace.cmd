# from above the player start, straight down: lands on the floor (hull 1 plane at 88)
trace {samples}/ericw_q1_detail_fence2.bsp --from 64 -112 120 --to 64 -112 -4096 --hull 1
