# a map without visibility data
query {samples}/ericw_q1_detail_fence2.bsp --point 0 0 64 --json
